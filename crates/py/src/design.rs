//! `schedlab.design_reservations(taskset, cpus=None, priorities="dm")`: the smallest budget
//! per reservation group that `hcbs-gfp` accepts, as `schedlab design reservations --json`
//! gives it (a dict; `schedlab_analysis::hcbs::design`).

use crate::args::{cpus_or_platform, Cpus};
use crate::err;
use crate::pyvalue::to_py;
use crate::taskset::taskset_of;
use pyo3::prelude::*;
use schedlab_analysis::hcbs::design::design_reservations as design;
use schedlab_analysis::Priorities;

/// For each group of `taskset` and its period `P`, the smallest budget `Q ≤ P` (ns) with which
/// `hcbs-gfp` accepts it; whether the proposed set passes admission [HCBS Eq. 17] and
/// `hcbs-gfp`. Returns `{"groups": [{"name", "period_ns", "given_budget_ns", "budget_ns"
/// (None: no budget works), "alpha", "alpha_exact", "delta_ns", "reason"}], "admission":
/// {"passes", "overloads"} or None, "schedulable", "verdict"}`. Raises `schedlab.Error` for a
/// set without groups, a task outside every group, or a group on a missing CPU. The GIL is
/// released while it searches.
#[pyfunction]
#[pyo3(signature = (taskset, cpus=None, priorities="dm"))]
pub(crate) fn design_reservations<'py>(
    py: Python<'py>,
    taskset: &Bound<'py, PyAny>,
    cpus: Option<Cpus>,
    priorities: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let set = taskset_of(taskset)?;
    let set = set.get();
    let m = cpus_or_platform(cpus, set.platform_cpus())?;
    let priorities = Priorities::parse(priorities).map_err(err)?;
    let value = py
        .allow_threads(|| design(&set.tasks, m, priorities).map(|d| d.to_json()))
        .map_err(err)?;
    to_py(py, &value)
}
