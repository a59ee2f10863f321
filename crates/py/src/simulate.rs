//! The simulator for Python: the same options and JSON as `schedlab simulate`.

use crate::convert::jobs_table;
use crate::{err, parse_json, platform_and_priorities};
use pyo3::prelude::*;
use schedlab_analysis::placement::policy_inputs;
use schedlab_model::overheads::{OverheadFile, Stat};
use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_sim::{run, summary_json, Arrivals, ExecTime, Overheads, SimConfig};
use serde_json::Value;
use std::time::Instant;

/// Simulates a task set (JSON text); returns JSON text: the summary of `schedlab simulate
/// --format json` plus `"jobs"`, the per-job records as columns.
#[pyfunction]
#[pyo3(signature = (text, cpus=None, policy="gedf", priorities="dm", duration="1s", seed=1,
                    partition="ffd", cluster_size=None, arrivals="periodic", exec="wcet",
                    abort_late=false, jobs=true, overheads_path=None, overheads_json=None,
                    overhead_arch=None, overhead_stat="avg"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate(
    py: Python<'_>,
    text: &str,
    cpus: Option<u32>,
    policy: &str,
    priorities: &str,
    duration: &str,
    seed: u64,
    partition: &str,
    cluster_size: Option<u32>,
    arrivals: &str,
    exec: &str,
    abort_late: bool,
    jobs: bool,
    overheads_path: Option<&str>,
    overheads_json: Option<&str>,
    overhead_arch: Option<&str>,
    overhead_stat: &str,
) -> PyResult<String> {
    let f = parse_json(text)?;
    let (cpus, priorities) = platform_and_priorities(&f, cpus, priorities)?;
    let duration: Duration = duration
        .parse()
        .map_err(|e| err(format!("duration: {e}")))?;
    let inputs =
        policy_inputs(policy, &f.tasks, cpus, partition, cluster_size, priorities).map_err(err)?;
    let (ranks, placement) = (inputs.ranks, inputs.placement.map(Placement::from));
    let mut config = SimConfig::new(cpus, duration);
    config.arrivals = Arrivals::parse(arrivals).map_err(err)?;
    config.exec = ExecTime::parse(exec).map_err(err)?;
    config.abort_late = abort_late;
    config.seed = seed;
    config.record_jobs = jobs;
    let file = match (overheads_path, overheads_json) {
        (Some(path), _) => Some((
            OverheadFile::load(std::path::Path::new(path)).map_err(err)?,
            path,
        )),
        (None, Some(text)) => {
            let value: Value = serde_json::from_str(text).map_err(err)?;
            Some((OverheadFile::from_value(&value).map_err(err)?, "dict"))
        }
        (None, None) => None,
    };
    if let Some((file, source)) = file {
        let stat = Stat::parse(overhead_stat).map_err(err)?;
        let n = f.tasks.len() as u64;
        config.overheads =
            Some(Overheads::from_file(&file, source, overhead_arch, stat, n).map_err(err)?);
    } else if overhead_arch.is_some() {
        return Err(err("overhead_arch= needs overheads="));
    }
    let tasks = f.tasks;
    let policy = policy.to_string();
    let (result, wall) = py
        .allow_threads(|| {
            let started = Instant::now();
            run(&tasks, &policy, &ranks, placement, &config)
                .map(|(r, _)| (r, started.elapsed().as_secs_f64()))
        })
        .map_err(err)?;
    let mut summary = summary_json(&result, &policy, cpus, wall);
    if jobs {
        if let Some(o) = summary.as_object_mut() {
            o.insert("jobs_table".into(), jobs_table(&result.jobs));
        }
    }
    Ok(summary.to_string())
}
