//! `schedlab.trace_costs`: the scaling model's costs calibrated from runtime traces, as
//! `schedlab trace costs … --json` (`schedlab_sim::scale_fit`, docs/scaling-calibration.md).

use crate::err;
use crate::pyvalue::to_py;
use pyo3::prelude::*;
use schedlab_sim::scale_fit::{calibrate_files, check as check_traces, check_json, read_traces};
use std::path::PathBuf;

/// The calibration of `paths` as the dict of `trace costs --json` (`costs`, `measured`,
/// `iterations`, `converged`, `check`: the model with the calibrated costs against the traces
/// `check`); `out`: also write the costs file there (TOML).
#[pyfunction]
#[pyo3(signature = (paths, *, iterations=8, seed=0, check=None, out=None))]
pub(crate) fn trace_costs<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    iterations: u32,
    seed: u64,
    check: Option<Vec<PathBuf>>,
    out: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    if paths.is_empty() {
        return Err(err("trace_costs: give at least one runtime trace"));
    }
    if iterations > 50 {
        return Err(err(format!("iterations={iterations}: at most 50")));
    }
    let value = py
        .allow_threads(|| -> Result<serde_json::Value, String> {
            let machine = schedlab_exp::store::Machine::this();
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let machine = format!(
                "{}, {} {}, {} CPUs",
                machine.hostname, machine.os, machine.arch, machine.cpus
            );
            let date = schedlab_exp::store::utc(now);
            let cal = calibrate_files(&paths, iterations, seed, &machine, &date)
                .map_err(|e| e.to_string())?;
            if let Some(path) = &out {
                std::fs::write(path, cal.costs.to_toml())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            let checked = match &check {
                Some(c) if !c.is_empty() => {
                    let traces = read_traces(c).map_err(|e| e.to_string())?;
                    check_traces(&cal.costs, &traces, seed).map_err(|e| e.to_string())?
                }
                _ => Vec::new(),
            };
            let mut v = cal.to_json();
            if let Some(o) = v.as_object_mut() {
                o.insert("check".into(), check_json(&checked));
            }
            Ok(v)
        })
        .map_err(err)?;
    to_py(py, &value)
}
