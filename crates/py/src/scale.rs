//! `schedlab.scale`: the scaling model (`schedlab scale`, docs/scaling.md) from Python — the
//! predicted overheads of an architecture at each `cpus` value, one point per task set.
//! Only converts types and maps errors; the model is `schedlab_sim::scale`.

use crate::args::duration_or;
use crate::err;
use crate::pyvalue::{to_py, to_value};
use crate::taskset::PyTaskSet;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use schedlab_analysis::placement::policy_inputs;
use schedlab_analysis::Priorities;
use schedlab_model::costs::{CostsFile, LockSemantics};
use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_sim::scale::{
    overhead_file, overhead_value, report_json, scale as run_scale, ScaleArch, ScaleConfig,
    MAX_CPUS,
};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Instant;

/// The costs from a path or a dict, or the defaults.
fn costs_of(value: Option<&Bound<'_, PyAny>>) -> PyResult<CostsFile> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(CostsFile::default());
    };
    if value.is_instance_of::<PyDict>() {
        let v = to_value(value).map_err(|e| err(format!("costs: {e}")))?;
        return CostsFile::from_value(&v).map_err(err);
    }
    let path: PathBuf = value
        .extract()
        .map_err(|_| err("costs= is a costs file's path or a dict"))?;
    CostsFile::read(&path).map_err(|e| err(format!("{}: {e}", path.display())))
}

/// Runs the model: `{"overheads": <overhead file as a dict>, "rows": [...]}` (rows as
/// `schedlab scale --json`).
#[pyfunction]
#[pyo3(signature = (tasksets, arch, cpus, costs=None, duration=None, lock=None, seed=0,
                    priorities="dm", partition="ffd"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn scale<'py>(
    py: Python<'py>,
    tasksets: Vec<PyRef<'py, PyTaskSet>>,
    arch: &str,
    cpus: Vec<u32>,
    costs: Option<&Bound<'py, PyAny>>,
    duration: Option<&Bound<'py, PyAny>>,
    lock: Option<&str>,
    seed: u64,
    priorities: &str,
    partition: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let a = ScaleArch::from_key(arch).ok_or_else(|| {
        err(format!(
            "arch: unknown architecture `{arch}` (known: {})",
            ScaleArch::names().join(", ")
        ))
    })?;
    if cpus.is_empty() || cpus.len() > 64 || cpus.iter().any(|&m| m == 0 || m > MAX_CPUS) {
        return Err(err(format!("cpus: 1 to 64 values, each 1 to {MAX_CPUS}")));
    }
    if tasksets.is_empty() || tasksets.len() > 64 {
        return Err(err("tasks: 1 to 64 task sets"));
    }
    let duration = duration_or("duration", duration, Duration::from_ns(10_000_000_000))?;
    if duration.as_ns() > 3_600_000_000_000 {
        return Err(err("duration: at most 1h of simulated time"));
    }
    let costs = costs_of(costs)?;
    let lock = match lock {
        None => None,
        Some(l) => Some(
            LockSemantics::from_key(l)
                .ok_or_else(|| err(format!("lock: `{l}` is neither ticket nor mcs")))?,
        ),
    };
    let prio = match priorities {
        "dm" => Priorities::Dm,
        "rm" => Priorities::Rm,
        "given" => Priorities::Given,
        other => {
            return Err(err(format!(
                "priorities: `{other}` is none of dm, rm, given"
            )))
        }
    };
    let sets: Vec<_> = tasksets.iter().map(|s| s.tasks.clone()).collect();
    let partition = partition.to_string();
    let out = py.allow_threads(move || -> Result<Value, String> {
        let mut reports = Vec::new();
        let mut rows = Vec::new();
        for tasks in &sets {
            for &m in &cpus {
                let mut cfg = ScaleConfig::new(a, m, duration).with_costs_file(&costs);
                cfg.seed = seed;
                if let Some(l) = lock {
                    cfg.lock = l;
                }
                let inputs = policy_inputs(
                    a.policy(),
                    tasks,
                    a.job_cpus(m).max(1),
                    &partition,
                    None,
                    prio,
                    None,
                )?;
                let placement = inputs.placement.map(Placement::from);
                let started = Instant::now();
                let r =
                    run_scale(tasks, &inputs.ranks, placement, &cfg).map_err(|e| e.to_string())?;
                rows.extend(report_json(&r, started.elapsed().as_secs_f64() * 1e3));
                reports.push(r);
            }
        }
        let file = overhead_file(&reports, cpus.len() > 1).map_err(|e| e.to_string())?;
        Ok(json!({ "overheads": overhead_value(&file), "rows": rows }))
    });
    to_py(py, &out.map_err(err)?)
}
