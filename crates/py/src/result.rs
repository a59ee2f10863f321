//! `schedlab.Result`: one test's answer, a Python object wrapping the Rust verdict (its lists
//! are built when read), with the fields of `schedlab analyze --format json`. With overheads it
//! also carries the whole-set accounting the test saw (the JSON line's `"accounting"`), shared
//! by every result of the same task set.

use crate::err;
use crate::overheads::{accounting_of, bin_accounting_of};
use crate::pyvalue::{to_py, to_value};
use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use schedlab_analysis::hcbs::report::GroupResult;
use schedlab_analysis::overheads::arch::Accounting;
use schedlab_analysis::semi::split::SemiAssignment;
use schedlab_analysis::ua::UtilityBound;
use schedlab_analysis::{Status, Verdict};
use schedlab_model::Duration;
use std::sync::Arc;

/// One test's answer, as `schedlab analyze --format json` gives it.
///
/// `status` is one of `schedulable`, `not-shown`, `unschedulable`, `not-applicable`,
/// `gave-up`. Bounds are per task in nanoseconds (or `None`); `partition` lists task indices per
/// CPU (partitioned tests) or per cluster (clustered tests). With overheads, `accounting` is the
/// per-bin accounting of a partitioned or clustered test and `overhead_accounting` the
/// whole-set one.
#[pyclass(frozen, name = "Result", module = "schedlab._native")]
pub(crate) struct AnalysisResult {
    pub(crate) test: Arc<str>,
    pub(crate) verdict: Verdict,
    /// The whole-set accounting of the task set (`analyze(..., overheads=...)`).
    pub(crate) overhead_accounting: Option<Arc<Accounting>>,
}

/// A dict argument as a JSON value; `None` stays `None`.
fn dict_arg(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<serde_json::Value>> {
    value
        .filter(|v| !v.is_none())
        .map(|v| to_value(v).map_err(|e| err(format!("{name}: {e}"))))
        .transpose()
}

fn ns_list(v: Option<&[Duration]>) -> Option<Vec<u64>> {
    v.map(|l| l.iter().map(|d| d.as_ns()).collect())
}

/// The group reports of `Result(groups=[…])` (dicts as the `groups` getter gives them).
fn group_results(groups: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<GroupResult>>> {
    let Some(value) = dict_arg("groups", groups)? else {
        return Ok(None);
    };
    let list = value
        .as_array()
        .ok_or_else(|| err("groups= must be a list of dicts"))?;
    list.iter()
        .map(|g| GroupResult::from_json(g).map_err(err))
        .collect::<PyResult<Vec<_>>>()
        .map(Some)
}

/// The utility accrual bound of `Result(k=…, guaranteed_tasks=…, utility_fraction=…)`: all
/// three or none.
fn utility_bound(
    k: Option<usize>,
    guaranteed_tasks: Option<Vec<usize>>,
    utility_fraction: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<UtilityBound>> {
    let fraction = dict_arg("utility_fraction", utility_fraction)?;
    match (k, guaranteed_tasks, fraction) {
        (None, None, None) => Ok(None),
        (Some(k), Some(tasks), fraction) => {
            UtilityBound::from_json(k, tasks, &fraction.unwrap_or(serde_json::Value::Null))
                .map(Some)
                .map_err(err)
        }
        _ => Err(err(
            "k=, guaranteed_tasks= and utility_fraction= go together (a utility accrual bound)",
        )),
    }
}

fn status_named(name: &str) -> PyResult<Status> {
    [
        Status::Schedulable,
        Status::NotShown,
        Status::Unschedulable,
        Status::NotApplicable,
        Status::GaveUp,
    ]
    .into_iter()
    .find(|s| s.name() == name)
    .ok_or_else(|| err(format!("unknown status `{name}`")))
}

#[pymethods]
impl AnalysisResult {
    /// A result from its fields (as `to_dict` gives them, plus `overhead_accounting`);
    /// `schedulable` and `applicable` must agree with `status`.
    #[new]
    #[pyo3(signature = (test, status, schedulable=None, applicable=None, reason=None,
                        response_time_bounds_ns=None, tardiness_bounds_ns=None, partition=None,
                        accounting=None, overhead_accounting=None, assignment=None,
                        split_tasks=None, k=None, guaranteed_tasks=None,
                        utility_fraction=None, groups=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        test: &str,
        status: &str,
        schedulable: Option<bool>,
        applicable: Option<bool>,
        reason: Option<String>,
        response_time_bounds_ns: Option<Vec<u64>>,
        tardiness_bounds_ns: Option<Vec<u64>>,
        partition: Option<Vec<Vec<usize>>>,
        accounting: Option<&Bound<'_, PyAny>>,
        overhead_accounting: Option<&Bound<'_, PyAny>>,
        assignment: Option<&str>,
        split_tasks: Option<&Bound<'_, PyAny>>,
        k: Option<usize>,
        guaranteed_tasks: Option<Vec<usize>>,
        utility_fraction: Option<&Bound<'_, PyAny>>,
        groups: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<AnalysisResult> {
        let status = status_named(status)?;
        let ns = |l: Option<Vec<u64>>| l.map(|l| l.into_iter().map(Duration::from_ns).collect());
        let accounting = dict_arg("accounting", accounting)?
            .map(|v| bin_accounting_of(&v))
            .transpose()
            .map_err(err)?;
        let overhead_accounting = dict_arg("overhead_accounting", overhead_accounting)?
            .map(|v| accounting_of(&v, "overhead_accounting"))
            .transpose()
            .map_err(err)?
            .map(Arc::new);
        let verdict = Verdict {
            status,
            reason,
            response_time_bounds: ns(response_time_bounds_ns),
            tardiness_bounds: ns(tardiness_bounds_ns),
            partition,
            accounting,
            semi: match (assignment, dict_arg("split_tasks", split_tasks)?) {
                (None, None) => None,
                (Some(method), tasks) => Some(
                    SemiAssignment::from_json(method, &tasks.unwrap_or(serde_json::json!([])))
                        .map_err(err)?,
                ),
                (None, Some(_)) => {
                    return Err(err("split_tasks= needs assignment= (fp-ts, ffd or wfd)"))
                }
            },
            utility_bound: utility_bound(k, guaranteed_tasks, utility_fraction)?,
            groups: group_results(groups)?,
        };
        if schedulable.is_some_and(|s| s != verdict.is_schedulable())
            || applicable.is_some_and(|a| a != verdict.is_applicable())
        {
            return Err(err(format!(
                "schedulable= and applicable= disagree with status `{}`",
                status.name()
            )));
        }
        Ok(AnalysisResult {
            test: Arc::from(test),
            verdict,
            overhead_accounting,
        })
    }

    /// The test's name (or spec, with parameters).
    #[getter]
    fn test(&self) -> &str {
        &self.test
    }
    /// `schedulable`, `not-shown`, `unschedulable`, `not-applicable` or `gave-up`.
    #[getter]
    fn status(&self) -> &'static str {
        self.verdict.status.name()
    }
    /// `status == "schedulable"`.
    #[getter]
    fn schedulable(&self) -> bool {
        self.verdict.is_schedulable()
    }
    /// `status != "not-applicable"`.
    #[getter]
    fn applicable(&self) -> bool {
        self.verdict.is_applicable()
    }
    /// Why (not applicable, gave up, or where a test explains its answer).
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.verdict.reason.as_deref()
    }
    /// Per-task response-time bounds in ns (tests that compute them, when schedulable).
    #[getter]
    fn response_time_bounds_ns(&self) -> Option<Vec<u64>> {
        ns_list(self.verdict.response_time_bounds.as_deref())
    }
    /// Per-task tardiness bounds in ns (with `tardiness=True`).
    #[getter]
    fn tardiness_bounds_ns(&self) -> Option<Vec<u64>> {
        ns_list(self.verdict.tardiness_bounds.as_deref())
    }
    /// Task indices per CPU (partitioned) or per cluster (clustered).
    #[getter]
    fn partition(&self) -> Option<Vec<Vec<usize>>> {
        self.verdict.partition.clone()
    }

    /// The per-bin overhead accounting of a partitioned (`per_cpu`) or clustered
    /// (`per_cluster`) test run with overheads, with its `misfits`: the result's `"accounting"`
    /// in `schedlab analyze --overheads --format json`. `None` for every other test.
    #[getter]
    fn accounting<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.verdict
            .accounting
            .as_ref()
            .map(|a| to_py(py, &a.to_json()))
            .transpose()
    }
    /// Semi-partitioned tests (`pfp-ts`): which method placed the tasks — `fp-ts` (task
    /// splitting), or `ffd`/`wfd` (the split-free fallback partition); `None` for other tests.
    #[getter]
    fn assignment(&self) -> Option<&'static str> {
        self.verdict.semi.as_ref().map(|s| s.method)
    }
    /// Semi-partitioned tests: the split tasks, `[{"task", "parts": [{"cpu", "budget_ns",
    /// "kind"}]}]` with the parts in execution order (`kind`: head, body, tail); `None` for
    /// other tests.
    #[getter]
    fn split_tasks<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.verdict
            .semi
            .as_ref()
            .map(|s| to_py(py, &s.split_tasks_json()))
            .transpose()
    }
    /// Utility accrual bounds (`gnphvdf-uab`): the number of guaranteed tasks; `None` for
    /// other tests.
    #[getter]
    fn k(&self) -> Option<usize> {
        self.verdict.utility_bound.as_ref().map(|b| b.k)
    }
    /// Utility accrual bounds: the indices of the tasks that never miss, densest first;
    /// `None` for other tests.
    #[getter]
    fn guaranteed_tasks(&self) -> Option<Vec<usize>> {
        self.verdict
            .utility_bound
            .as_ref()
            .map(|b| b.guaranteed_tasks.clone())
    }
    /// Utility accrual bounds: `{"k_over_n", "value_weighted"}` — the thesis's `k/n` and the
    /// guaranteed share of the utility per unit of time (docs/analysis.md); `None` for other
    /// tests.
    #[getter]
    fn utility_fraction<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.verdict
            .utility_bound
            .as_ref()
            .map(|b| to_py(py, &b.fraction_json()))
            .transpose()
    }
    /// Reservation-group tests (`hcbs-gfp`): one dict per group, in file order — `name`,
    /// `budget_ns`, `period_ns`, `cpus`, `parent`, `alpha`, `alpha_exact` (`"Q/P"` in ns),
    /// `delta_ns` (`2(P − Q)`), `schedulable`, `reason`, `response_bounds_ns` (`[{"task",
    /// "name", "bound_ns"}]`); `None` for other tests.
    #[getter]
    fn groups<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.verdict
            .groups
            .as_ref()
            .map(|g| {
                let list: Vec<serde_json::Value> = g.iter().map(|g| g.to_json()).collect();
                to_py(py, &serde_json::Value::from(list))
            })
            .transpose()
    }
    /// The whole-set overhead accounting of the task set (`arch`, `stat`, `cpus_for_jobs`,
    /// `status`, `failed_task`, `tasks`): the line's `"accounting"` in `schedlab analyze
    /// --overheads --format json`, the same for every result of one set. `None` without
    /// overheads.
    #[getter]
    fn overhead_accounting<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.overhead_accounting
            .as_ref()
            .map(|a| to_py(py, &a.to_json()))
            .transpose()
    }

    /// The fields as a dict (the result's JSON object of `schedlab analyze --format json`,
    /// which has `accounting` only for per-bin tests run with overheads; the whole-set
    /// accounting is not in it, as in the CLI's line, but in `overhead_accounting`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &schedlab_analysis::json::result_json(&self.test, &self.verdict),
        )
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let v = &self.verdict;
        let text = |s: &str| -> PyResult<String> { Ok(PyString::new(py, s).repr()?.to_string()) };
        let opt = |x: Option<String>| x.unwrap_or_else(|| "None".into());
        let flag = |b: bool| if b { "True" } else { "False" };
        let mut extra = String::new();
        if let Some(a) = self.accounting(py)? {
            extra.push_str(&format!(", accounting={}", a.repr()?));
        }
        if let Some(a) = self.overhead_accounting(py)? {
            extra.push_str(&format!(", overhead_accounting={}", a.repr()?));
        }
        if let (Some(m), Some(s)) = (self.assignment(), self.split_tasks(py)?) {
            extra.push_str(&format!(
                ", assignment={}, split_tasks={}",
                text(m)?,
                s.repr()?
            ));
        }
        if let (Some(k), Some(g), Some(f)) = (
            self.k(),
            self.guaranteed_tasks(),
            self.utility_fraction(py)?,
        ) {
            extra.push_str(&format!(
                ", k={k}, guaranteed_tasks={g:?}, utility_fraction={}",
                f.repr()?
            ));
        }
        if let Some(g) = self.groups(py)? {
            extra.push_str(&format!(", groups={}", g.repr()?));
        }
        Ok(format!(
            "Result(test={}, status={}, schedulable={}, applicable={}, reason={}, response_time_bounds_ns={}, tardiness_bounds_ns={}, partition={}{extra})",
            text(&self.test)?,
            text(v.status.name())?,
            flag(v.is_schedulable()),
            flag(v.is_applicable()),
            opt(v.reason.as_deref().map(text).transpose()?),
            opt(self.response_time_bounds_ns().map(|l| format!("{l:?}"))),
            opt(self.tardiness_bounds_ns().map(|l| format!("{l:?}"))),
            opt(v.partition.as_ref().map(|p| format!("{p:?}"))),
        ))
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<PyObject> {
        let py = other.py();
        let Ok(other) = other.downcast::<AnalysisResult>() else {
            return Ok(py.NotImplemented());
        };
        let other = other.get();
        let equal = self.test == other.test
            && self.verdict == other.verdict
            && self.overhead_accounting == other.overhead_accounting;
        match op {
            CompareOp::Eq => equal.into_py_any(py),
            CompareOp::Ne => (!equal).into_py_any(py),
            _ => Ok(py.NotImplemented()),
        }
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let kwargs = self.to_dict(py)?.downcast_into::<PyDict>()?;
        if let Some(a) = self.overhead_accounting(py)? {
            kwargs.set_item("overhead_accounting", a)?;
        }
        let restore = py
            .import("functools")?
            .getattr("partial")?
            .call((py.get_type::<AnalysisResult>(),), Some(&kwargs))?;
        Ok((restore, PyTuple::empty(py)))
    }
}
