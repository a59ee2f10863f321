//! The runtime for Python: `schedlab.run`, the same options, JSON fields and output files as
//! `schedlab run` (docs/runtime.md). The GIL is released while the run lasts.

use crate::args::{cpus_or_platform, duration_arg, duration_or, Cpus};
use crate::err;
use crate::overheads::OverheadArgs;
use crate::pyvalue::to_py;
use crate::taskset::taskset_of;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use schedlab_analysis::placement::policy_inputs;
use schedlab_analysis::Priorities;
use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_runtime::config::{RtTask, Threading};
use schedlab_runtime::front::{arch_by_name, primary_key, run_taskset_with, summary_json};
use schedlab_runtime::mech::sched::allowed_cpus;
use schedlab_runtime::request::{RunRequest, DEFAULT_POLICY};
use schedlab_trace::outputs::TraceOutputs;
use std::path::PathBuf;

/// A message of the shared run set-up with Python's keyword names (`--dl-cpuset` →
/// `dl_cpuset`).
fn python_names(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let option = &rest[at + 2..];
        let end = option
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(option.len());
        out.push_str(&option[..end].replace('-', "_"));
        rest = &option[end..];
    }
    out.push_str(rest);
    out
}

/// The physical CPUs of the run: `cpu_list`, or the first `m` this process may use.
fn physical_cpus(m: u32, cpu_list: Option<Vec<u32>>) -> PyResult<Vec<u32>> {
    match cpu_list {
        Some(l) if l.len() as u32 != m => Err(err(format!(
            "cpu_list names {} CPUs but cpus is {m}",
            l.len()
        ))),
        Some(l) => Ok(l),
        None => {
            let allowed = allowed_cpus().map_err(err)?;
            if (allowed.len() as u32) < m {
                return Err(err(format!(
                    "cpus={m}: this process may use only {} CPUs ({allowed:?})",
                    allowed.len()
                )));
            }
            Ok(allowed.into_iter().take(m as usize).collect())
        }
    }
}

/// Runs a task set for real; returns the summary of `schedlab run --format json` plus
/// `"jobs_table"`, the per-job records as numpy columns (when `jobs`), and writes the files
/// asked for (`trace`, `gantt`, `perfetto`, `jobs_csv`). `bodies` maps task indices or names
/// to Python callables run instead of the burn body (`crate::bodies`: once per job, or per
/// thread of a parallel task, with a `JobContext`).
#[pyfunction]
#[pyo3(signature = (taskset, cpus=None, cpu_list=None, policy=None, arch="global-lock",
                    lock="ticket", duration=None, priorities="dm", partition=None,
                    dedicated_irq_cpu=false,
                    release_spin=None, allow_non_rt=false, jobs=true, trace=None,
                    background_load=None, dsp_poll=true, dl_margin=None,
                    dl_cpuset=false, inline_completion=true, gantt=None, perfetto=None,
                    jobs_csv=None, overheads=None, overhead_stat="max", granularity=None,
                    abort_late=false, cluster_size=None, threading="per-task", bodies=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run<'py>(
    py: Python<'py>,
    taskset: &Bound<'py, PyAny>,
    cpus: Option<Cpus>,
    cpu_list: Option<Vec<u32>>,
    policy: Option<&str>,
    arch: &str,
    lock: &str,
    duration: Option<&Bound<'py, PyAny>>,
    priorities: &str,
    partition: Option<&str>,
    dedicated_irq_cpu: bool,
    release_spin: Option<&Bound<'py, PyAny>>,
    allow_non_rt: bool,
    jobs: bool,
    trace: Option<PathBuf>,
    background_load: Option<&str>,
    dsp_poll: bool,
    dl_margin: Option<&Bound<'py, PyAny>>,
    dl_cpuset: bool,
    inline_completion: bool,
    gantt: Option<PathBuf>,
    perfetto: Option<PathBuf>,
    jobs_csv: Option<PathBuf>,
    overheads: Option<&Bound<'py, PyAny>>,
    overhead_stat: &str,
    granularity: Option<&Bound<'py, PyAny>>,
    abort_late: bool,
    cluster_size: Option<u32>,
    threading: &str,
    bodies: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    // Overhead-aware placement (the partition `analyze(…, overheads=, arch=)` accepts): the
    // run's own architecture pays the overheads.
    // `dedicated_irq_cpu` is a run option first: it only picks the overheads' section here.
    let given = overheads.is_some_and(|o| !o.is_none());
    let placement_overheads = OverheadArgs {
        overheads,
        arch: given.then_some(arch),
        dedicated_irq_cpu: dedicated_irq_cpu && given,
        overhead_stat,
        granularity,
    }
    .setup()?;
    let set = taskset_of(taskset)?;
    let set = set.get();
    let listed = cpu_list.as_ref().map(|l| l.len() as u32);
    let m = cpus_or_platform(cpus.or(listed.map(Cpus)), set.platform_cpus())?;
    let priorities = Priorities::parse(priorities).map_err(err)?;
    let cpu_list = physical_cpus(m, cpu_list)?;
    let duration = duration_or("duration", duration, Duration::from_ns(1_000_000_000))?;
    let release_spin = duration_or("release_spin", release_spin, Duration::ZERO)?;
    let dl_margin = match dl_margin.filter(|d| !d.is_none()) {
        Some(d) => duration_arg("dl_margin", d)?,
        None => Duration::from_ns(500_000),
    };
    let arch = arch_by_name(arch, lock).map_err(err)?;
    let background_load = background_load
        .map(schedlab_model::size::parse_bytes)
        .transpose()
        .map_err(|e| err(format!("background_load: {e}")))?;
    let tasks = &set.tasks;
    let bodies = crate::bodies::bodies_of(tasks, bodies)?;
    // The CLI's checks and decisions (schedlab_runtime::request): the policy schedules the
    // CPUs that run jobs, options belong to their architectures, kernel baselines take no
    // policy.
    let request = RunRequest {
        cpus: cpu_list,
        arch,
        policy,
        default_policy: Some(DEFAULT_POLICY),
        partition,
        duration,
        dedicated_irq_cpu,
        dl_cpuset,
        dl_margin,
        allow_non_rt,
        release_spin,
        dsp_poll,
        inline_completion,
        background_load,
        abort_late,
        threading: Threading::parse(threading).ok_or_else(|| {
            err(format!(
                "threading: `{threading}` is not one of {}",
                Threading::NAMES.join(", ")
            ))
        })?,
    };
    let plan = request.plan(tasks).map_err(|e| err(python_names(&e)))?;
    for note in plan.notes() {
        eprintln!("note: {}", python_names(note));
    }
    let inputs = policy_inputs(
        plan.placement_policy(),
        tasks,
        plan.job_cpus(),
        plan.heuristic(),
        cluster_size,
        priorities,
        placement_overheads.as_ref(),
    )
    .map_err(|e| err(python_names(&e)))?;
    let policy = plan.policy().to_string();
    let (split, sizes) = (inputs.split, inputs.domain_sizes);
    let config = plan.finish(
        inputs.ranks,
        inputs.placement.map(|p| {
            Placement::from(p)
                .with_split(split)
                .with_domain_sizes(sizes)
        }),
    );
    let policy = policy.as_str();
    let outputs = TraceOutputs {
        trace: trace.as_deref(),
        perfetto: perfetto.as_deref(),
        gantt: gantt.as_deref(),
    };
    let result = py
        .allow_threads(|| -> Result<_, String> {
            let (result, meta) =
                run_taskset_with(tasks, &config, &bodies).map_err(|e| e.to_string())?;
            outputs
                .write(&meta, &result.trace)
                .map_err(|e| e.to_string())?;
            if let Some(path) = &jobs_csv {
                std::fs::write(path, schedlab_trace::metrics::jobs_csv(&result.jobs))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            Ok(result)
        })
        .map_err(err)?;
    let rt: Vec<RtTask> = tasks.iter().map(RtTask::from).collect();
    let key = primary_key(policy, &rt, &config.ranks);
    let summary = to_py(py, &summary_json(&result, &config, &key))?;
    if jobs {
        summary
            .downcast::<PyDict>()?
            .set_item("jobs_table", crate::simulate::jobs_table(py, &result.jobs)?)?;
    }
    Ok(summary)
}
