//! The runtime for Python: `schedlab.run`, the same options and JSON as `schedlab run`
//! (docs/runtime.md). The GIL is released while the run lasts.

use crate::convert::jobs_table;
use crate::{err, parse_json, platform_and_priorities};
use pyo3::prelude::*;
use schedlab_analysis::placement::policy_inputs;
use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_runtime::config::{RtTask, RunConfig};
use schedlab_runtime::front::{arch_by_name, primary_key, run_taskset, summary_json};
use schedlab_runtime::mech::sched::allowed_cpus;

/// Runs a task set (JSON text) for real; returns JSON text: the summary of `schedlab run
/// --format json` plus `"jobs_table"`, the per-job records as columns (when `jobs`).
#[pyfunction]
#[pyo3(signature = (text, cpus=None, cpu_list=None, policy="gedf", arch="global-lock",
                    lock="ticket", duration="1s", priorities="dm", partition="ffd",
                    release_spin="0", allow_non_rt=false, jobs=true, trace=None,
                    background_load=None, dsp_poll=true, dl_margin="500us",
                    dl_cpuset=false, inline_completion=true))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    py: Python<'_>,
    text: &str,
    cpus: Option<u32>,
    cpu_list: Option<Vec<u32>>,
    policy: &str,
    arch: &str,
    lock: &str,
    duration: &str,
    priorities: &str,
    partition: &str,
    release_spin: &str,
    allow_non_rt: bool,
    jobs: bool,
    trace: Option<&str>,
    background_load: Option<&str>,
    dsp_poll: bool,
    dl_margin: &str,
    dl_cpuset: bool,
    inline_completion: bool,
) -> PyResult<String> {
    let f = parse_json(text)?;
    let cpus = cpus.or(cpu_list.as_ref().map(|l| l.len() as u32));
    let (m, priorities) = platform_and_priorities(&f, cpus, priorities)?;
    let cpu_list = match cpu_list {
        Some(l) if l.len() as u32 != m => {
            return Err(err(format!(
                "cpu_list names {} CPUs but cpus is {m}",
                l.len()
            )))
        }
        Some(l) => l,
        None => {
            let allowed = allowed_cpus().map_err(err)?;
            if (allowed.len() as u32) < m {
                return Err(err(format!(
                    "cpus={m}: this process may use only {} CPUs ({allowed:?})",
                    allowed.len()
                )));
            }
            allowed.into_iter().take(m as usize).collect()
        }
    };
    let duration: Duration = duration
        .parse()
        .map_err(|e| err(format!("duration: {e}")))?;
    let release_spin: Duration = release_spin
        .parse()
        .map_err(|e| err(format!("release_spin: {e}")))?;
    let arch = arch_by_name(arch, lock).map_err(err)?;
    // Under the kernel baselines the kernel schedules: the run is named after them (as the CLI).
    let policy = if arch.is_kernel() {
        arch.name()
    } else {
        policy
    };
    let inputs = policy_inputs(policy, &f.tasks, m, partition, None, priorities).map_err(err)?;
    let (ranks, placement) = (inputs.ranks, inputs.placement.map(Placement::from));
    let mut config = RunConfig::new(cpu_list, arch, policy, f.tasks.len(), duration);
    config.ranks = ranks;
    config.placement = placement;
    config.allow_non_rt = allow_non_rt;
    config.release_spin = release_spin;
    config.dsp_poll = dsp_poll;
    config.dl_margin = dl_margin
        .parse()
        .map_err(|e| err(format!("dl_margin: {e}")))?;
    config.dl_cpuset = dl_cpuset;
    config.inline_completion = inline_completion;
    config.background_load = background_load
        .map(schedlab_model::size::parse_bytes)
        .transpose()
        .map_err(|e| err(format!("background_load: {e}")))?;
    let tasks = f.tasks;
    let (result, meta) = py
        .allow_threads(|| run_taskset(&tasks, &config))
        .map_err(err)?;
    if let Some(path) = trace {
        schedlab_trace::file::write_file(std::path::Path::new(path), &meta, &result.trace)
            .map_err(|e| err(format!("{path}: {e}")))?;
    }
    let rt: Vec<RtTask> = tasks.iter().map(RtTask::from).collect();
    let key = primary_key(policy, &rt, &config.ranks);
    let mut summary = summary_json(&result, &config, &key);
    if jobs {
        if let Some(o) = summary.as_object_mut() {
            o.insert("jobs_table".into(), jobs_table(&result.jobs));
        }
    }
    Ok(summary.to_string())
}
