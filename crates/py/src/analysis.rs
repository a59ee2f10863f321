//! Schedulability analysis for Python: `analyze` on one task set and `analyze_many` over many
//! (spread over every core), both with the GIL released while the tests run. A result is a
//! [`AnalysisResult`] wrapping the Rust verdict; its lists are built when read.

use crate::args::{cpus_or_platform, Cpus};
use crate::err;
use crate::pyvalue::to_py;
use crate::taskset::{taskset_of, PyTaskSet};
use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use rayon::prelude::*;
use schedlab_analysis::json::tardiness_as_requested;
use schedlab_analysis::Verdict;
use schedlab_analysis::{analyze as run_test, registry, Priorities, SchedTest, Status, System};
use schedlab_model::Duration;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A test resolved from its spec, with its name (the spec, for configured tests).
#[derive(Clone)]
pub(crate) struct NamedTest {
    pub(crate) name: Arc<str>,
    pub(crate) test: Arc<dyn SchedTest>,
}

/// Specs resolved so far: resolving a name builds every registered test to find it (a few µs),
/// which a per-call budget of a few µs cannot pay each time. Bounded; tests are pure, so a
/// shared instance answers exactly as a fresh one.
static RESOLVED: OnceLock<Mutex<HashMap<String, NamedTest>>> = OnceLock::new();
const MAX_RESOLVED: usize = 1024;

pub(crate) fn test_by_name(spec: &str) -> PyResult<NamedTest> {
    let cache = RESOLVED.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(t) = cache.lock().ok().and_then(|c| c.get(spec).cloned()) {
        return Ok(t);
    }
    let test: Arc<dyn SchedTest> = Arc::from(registry::by_name(spec).map_err(err)?);
    let named = NamedTest {
        name: Arc::from(test.name()),
        test,
    };
    if let Ok(mut c) = cache.lock() {
        if c.len() < MAX_RESOLVED {
            c.insert(spec.to_owned(), named.clone());
        }
    }
    Ok(named)
}

/// The tests to run: one name (`single`), a list of names, or every test for `cpus`.
pub(crate) struct Selection {
    tests: Option<Vec<NamedTest>>,
    single: bool,
}

impl Selection {
    pub(crate) fn of(tests: Option<&Bound<'_, PyAny>>) -> PyResult<Selection> {
        let Some(tests) = tests.filter(|t| !t.is_none()) else {
            return Ok(Selection {
                tests: None,
                single: false,
            });
        };
        if let Ok(name) = tests.downcast::<PyString>() {
            return Ok(Selection {
                tests: Some(vec![test_by_name(&name.to_cow()?)?]),
                single: true,
            });
        }
        let names: Vec<String> = tests
            .extract()
            .map_err(|_| err("tests= is a test name or a list of test names"))?;
        Ok(Selection {
            tests: Some(
                names
                    .iter()
                    .map(|n| test_by_name(n))
                    .collect::<PyResult<_>>()?,
            ),
            single: false,
        })
    }

    /// The tests for an `m`-CPU platform.
    fn for_cpus(&self, m: u32) -> Vec<NamedTest> {
        match &self.tests {
            Some(t) => t.clone(),
            None => registry::all_for(m)
                .into_iter()
                .map(|t| NamedTest {
                    name: Arc::from(t.name()),
                    test: Arc::from(t),
                })
                .collect(),
        }
    }
}

/// Runs `tests` on `tasks`; `Err` if the system cannot be formed (no CPUs, bad task).
fn verdicts(
    set: &PyTaskSet,
    cpus: u32,
    priorities: Priorities,
    tests: &[NamedTest],
    tardiness: bool,
) -> Result<Vec<Verdict>, String> {
    let sys = System::new(&set.tasks, cpus, priorities).map_err(|e| e.to_string())?;
    Ok(tests
        .iter()
        .map(|t| tardiness_as_requested(run_test(t.test.as_ref(), &sys), tardiness, sys.len()))
        .collect())
}

/// One test's answer, as `schedlab analyze --format json` gives it.
///
/// `status` is one of `schedulable`, `not-shown`, `unschedulable`, `not-applicable`,
/// `gave-up`. Bounds are per task in nanoseconds (or `None`); `partition` lists task indices per
/// CPU (partitioned tests) or per cluster (clustered tests).
#[pyclass(frozen, name = "Result", module = "schedlab._native")]
pub(crate) struct AnalysisResult {
    test: Arc<str>,
    verdict: Verdict,
}

fn ns_list(v: Option<&[Duration]>) -> Option<Vec<u64>> {
    v.map(|l| l.iter().map(|d| d.as_ns()).collect())
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
    /// A result from its fields (as `to_dict` gives them); `schedulable` and `applicable` must
    /// agree with `status`.
    #[new]
    #[pyo3(signature = (test, status, schedulable=None, applicable=None, reason=None,
                        response_time_bounds_ns=None, tardiness_bounds_ns=None, partition=None))]
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
    ) -> PyResult<AnalysisResult> {
        let status = status_named(status)?;
        let ns = |l: Option<Vec<u64>>| l.map(|l| l.into_iter().map(Duration::from_ns).collect());
        let verdict = Verdict {
            status,
            reason,
            response_time_bounds: ns(response_time_bounds_ns),
            tardiness_bounds: ns(tardiness_bounds_ns),
            partition,
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

    /// The fields as a dict (the JSON object of `schedlab analyze --format json`).
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
        Ok(format!(
            "Result(test={}, status={}, schedulable={}, applicable={}, reason={}, response_time_bounds_ns={}, tardiness_bounds_ns={}, partition={})",
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
        let equal = self.test == other.test && self.verdict == other.verdict;
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
        let restore = py
            .import("functools")?
            .getattr("partial")?
            .call((py.get_type::<AnalysisResult>(),), Some(&kwargs))?;
        Ok((restore, PyTuple::empty(py)))
    }
}

/// The Python value of one task set's answers: a `Result`, or a list of them.
fn answer<'py>(
    py: Python<'py>,
    tests: &[NamedTest],
    verdicts: Vec<Verdict>,
    single: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut results = tests
        .iter()
        .zip(verdicts)
        .map(|(t, verdict)| AnalysisResult {
            test: Arc::clone(&t.name),
            verdict,
        });
    if single {
        return match results.next() {
            Some(r) => r.into_bound_py_any(py),
            None => Err(err("no test was run")),
        };
    }
    let list = PyList::empty(py);
    for r in results {
        list.append(r)?;
    }
    Ok(list.into_any())
}

/// Runs schedulability tests on one task set (a `TaskSet`, or a list of task dicts/`Task`s).
///
/// `tests`: one name (returns one `Result`), a list of names (returns a list), or `None` for
/// every test for the platform (a list). `cpus` overrides the task set's platform.
/// `priorities`: `dm` (default), `rm` or `given` for fixed-priority tests. `tardiness=True`
/// fills tardiness bounds where defined (zero for tasks a hard test shows schedulable). The GIL
/// is released while the tests run.
#[pyfunction]
#[pyo3(signature = (taskset, cpus=None, tests=None, priorities="dm", tardiness=false))]
pub(crate) fn analyze<'py>(
    py: Python<'py>,
    taskset: &Bound<'py, PyAny>,
    cpus: Option<Cpus>,
    tests: Option<&Bound<'py, PyAny>>,
    priorities: &str,
    tardiness: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let set = taskset_of(taskset)?;
    let set = set.get();
    let m = cpus_or_platform(cpus, set.platform_cpus())?;
    let priorities = Priorities::parse(priorities).map_err(err)?;
    let selection = Selection::of(tests)?;
    let tests = selection.for_cpus(m);
    let verdicts = py
        .allow_threads(|| verdicts(set, m, priorities, &tests, tardiness))
        .map_err(err)?;
    answer(py, &tests, verdicts, selection.single)
}

/// A rayon pool of `threads` threads, or the global pool (every CPU) for `None`.
pub(crate) fn pool(threads: Option<usize>) -> PyResult<Option<rayon::ThreadPool>> {
    threads
        .filter(|&j| j > 0)
        .map(|j| rayon::ThreadPoolBuilder::new().num_threads(j).build())
        .transpose()
        .map_err(err)
}

/// Runs `f` on `pool` (or the global pool).
pub(crate) fn on_pool<R: Send>(
    pool: Option<&rayon::ThreadPool>,
    f: impl FnOnce() -> R + Send,
) -> R {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// Task sets from a Python iterable of task sets (or of task lists).
pub(crate) fn tasksets_of<'py>(
    tasksets: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyTaskSet>>> {
    tasksets
        .try_iter()
        .map_err(|_| err("tasksets= is an iterable of task sets"))?
        .enumerate()
        .map(|(i, item)| {
            taskset_of(&item?).map_err(|e| err(format!("task set {i}: {}", e.value(tasksets.py()))))
        })
        .collect()
}

/// Runs the same tests on many task sets, spread over every core (or `threads` threads) with
/// the GIL released; returns the answers in input order, each as `analyze` gives it (one
/// `Result` per set for one test name, else a list per set). `cpus=None` uses each set's
/// platform. An error names the task set by its index.
#[pyfunction]
#[pyo3(signature = (tasksets, cpus=None, tests=None, priorities="dm", tardiness=false, threads=None))]
pub(crate) fn analyze_many<'py>(
    py: Python<'py>,
    tasksets: &Bound<'py, PyAny>,
    cpus: Option<Cpus>,
    tests: Option<&Bound<'py, PyAny>>,
    priorities: &str,
    tardiness: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let sets = tasksets_of(tasksets)?;
    let refs: Vec<&PyTaskSet> = sets.iter().map(|s| s.get()).collect();
    let ms = refs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            cpus_or_platform(cpus, s.platform_cpus())
                .map_err(|e| err(format!("task set {i}: {}", e.value(py))))
        })
        .collect::<PyResult<Vec<u32>>>()?;
    let priorities = Priorities::parse(priorities).map_err(err)?;
    let selection = Selection::of(tests)?;
    // One test list per distinct CPU count (every test for m includes cedf-k for k | m).
    let mut by_cpus: HashMap<u32, Vec<NamedTest>> = HashMap::new();
    for &m in &ms {
        by_cpus.entry(m).or_insert_with(|| selection.for_cpus(m));
    }
    let pool = pool(threads)?;
    let answers: Vec<Result<Vec<Verdict>, String>> = py.allow_threads(|| {
        on_pool(pool.as_ref(), || {
            refs.par_iter()
                .zip(ms.par_iter())
                .map(|(set, m)| {
                    let tests = by_cpus.get(m).map(Vec::as_slice).unwrap_or_default();
                    verdicts(set, *m, priorities, tests, tardiness)
                })
                .collect()
        })
    });
    let out = PyList::empty(py);
    for (i, (answer_i, m)) in answers.into_iter().zip(&ms).enumerate() {
        let verdicts = answer_i.map_err(|e| err(format!("task set {i}: {e}")))?;
        let tests = by_cpus.get(m).map(Vec::as_slice).unwrap_or_default();
        out.append(answer(py, tests, verdicts, selection.single)?)?;
    }
    Ok(out)
}

/// Every test's description (family, kind, citation, assumptions, complexity, parameters).
#[pyfunction]
pub(crate) fn catalogue(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_py(
        py,
        &serde_json::Value::from(schedlab_analysis::json::catalogue()),
    )
}
