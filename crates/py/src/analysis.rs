//! Schedulability analysis for Python: `analyze` on one task set and `analyze_many` over many
//! (spread over every core), both with the GIL released while the tests run; the answers are
//! [`AnalysisResult`]s.
//!
//! With `overheads=`, the tests run exactly as `schedlab analyze --overheads` runs them: through
//! [`ChargedAnalysis::verdict`] (the whole-set accounting for most tests, per-bin charging for
//! partitioned and clustered ones), and "every test" means every test for the CPUs left for
//! jobs. Each result carries the set's whole-set accounting, shared by `Arc`.

use crate::args::{cpus_or_platform, Cpus};
use crate::batch::{on_pool, pool, tasksets_of};
use crate::err;
use crate::overheads::{cpus_for_jobs, OverheadArgs};
use crate::pyvalue::to_py;
pub(crate) use crate::result::AnalysisResult;
use crate::taskset::{taskset_of, PyTaskSet};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use pyo3::IntoPyObjectExt;
use rayon::prelude::*;
use schedlab_analysis::json::tardiness_as_requested;
use schedlab_analysis::overheads::arch::Accounting;
use schedlab_analysis::overheads::context::{ChargedAnalysis, OverheadSetup};
use schedlab_analysis::reservations::Reservations;
use schedlab_analysis::Verdict;
use schedlab_analysis::{analyze as run_test, registry, Priorities, SchedTest, System};
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

/// One task set's verdicts, with its whole-set accounting when run with overheads.
struct Answers {
    verdicts: Vec<Verdict>,
    accounting: Option<Arc<Accounting>>,
}

/// The CPUs the tests run on (and "every test" is chosen for): all `cpus`, or with overheads
/// those left for jobs.
fn test_cpus(cpus: u32, setup: Option<&OverheadSetup>) -> Result<u32, String> {
    setup.map_or(Ok(cpus), |s| cpus_for_jobs(s, cpus))
}

/// Runs `tests` on `tasks` (charged with `setup`'s overheads, if given); `Err` if the system
/// cannot be formed (no CPUs, bad task) or the overheads cannot be charged (a missing curve).
fn verdicts(
    set: &PyTaskSet,
    cpus: u32,
    priorities: Priorities,
    tests: &[NamedTest],
    tardiness: bool,
    setup: Option<&OverheadSetup>,
) -> Result<Answers, String> {
    let n = set.tasks.len();
    let Some(setup) = setup else {
        let sys = System::new(&set.tasks, cpus, priorities)
            .map_err(|e| e.to_string())?
            .with_reservations(Reservations::of(&set.tasks, cpus).map_err(|e| e.to_string())?);
        return Ok(Answers {
            verdicts: tests
                .iter()
                .map(|t| tardiness_as_requested(run_test(t.test.as_ref(), &sys), tardiness, n))
                .collect(),
            accounting: None,
        });
    };
    test_cpus(cpus, Some(setup))?;
    let charged = ChargedAnalysis::new(&set.tasks, cpus, priorities, setup)?;
    Ok(Answers {
        verdicts: tests
            .iter()
            .map(|t| tardiness_as_requested(charged.verdict(t.test.as_ref()), tardiness, n))
            .collect(),
        accounting: Some(Arc::new(charged.accounting)),
    })
}

/// The Python value of one task set's answers: a `Result`, or a list of them.
fn answer<'py>(
    py: Python<'py>,
    tests: &[NamedTest],
    answers: Answers,
    single: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let accounting = answers.accounting;
    let mut results = tests
        .iter()
        .zip(answers.verdicts)
        .map(|(t, verdict)| AnalysisResult {
            test: Arc::clone(&t.name),
            verdict,
            overhead_accounting: accounting.clone(),
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
///
/// `overheads` (an overhead file's path or a dict) with `arch` runs the tests on the set charged
/// with that architecture's overheads, as `schedlab analyze --overheads` does (`cpus` counts
/// every CPU; `dedicated_irq_cpu`, `overhead_stat`, `granularity` as on the command line).
#[pyfunction]
#[pyo3(signature = (taskset, cpus=None, tests=None, priorities="dm", tardiness=false,
                    overheads=None, arch=None, dedicated_irq_cpu=false, overhead_stat="max",
                    granularity=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn analyze<'py>(
    py: Python<'py>,
    taskset: &Bound<'py, PyAny>,
    cpus: Option<Cpus>,
    tests: Option<&Bound<'py, PyAny>>,
    priorities: &str,
    tardiness: bool,
    overheads: Option<&Bound<'py, PyAny>>,
    arch: Option<&str>,
    dedicated_irq_cpu: bool,
    overhead_stat: &str,
    granularity: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let set = taskset_of(taskset)?;
    let set = set.get();
    let m = cpus_or_platform(cpus, set.platform_cpus())?;
    let priorities = Priorities::parse(priorities).map_err(err)?;
    let selection = Selection::of(tests)?;
    let setup = OverheadArgs {
        overheads,
        arch,
        dedicated_irq_cpu,
        overhead_stat,
        granularity,
    }
    .setup()?;
    let tests = selection.for_cpus(test_cpus(m, setup.as_ref()).map_err(err)?);
    let answers = py
        .allow_threads(|| verdicts(set, m, priorities, &tests, tardiness, setup.as_ref()))
        .map_err(err)?;
    answer(py, &tests, answers, selection.single)
}

/// Runs the same tests on many task sets, spread over every core (or `threads` threads) with
/// the GIL released; returns the answers in input order, each as `analyze` gives it (one
/// `Result` per set for one test name, else a list per set). `cpus=None` uses each set's
/// platform. An error names the task set by its index. The overhead keywords are `analyze`'s;
/// the overhead file is read once and shared by every set.
#[pyfunction]
#[pyo3(signature = (tasksets, cpus=None, tests=None, priorities="dm", tardiness=false,
                    threads=None, overheads=None, arch=None, dedicated_irq_cpu=false,
                    overhead_stat="max", granularity=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn analyze_many<'py>(
    py: Python<'py>,
    tasksets: &Bound<'py, PyAny>,
    cpus: Option<Cpus>,
    tests: Option<&Bound<'py, PyAny>>,
    priorities: &str,
    tardiness: bool,
    threads: Option<usize>,
    overheads: Option<&Bound<'py, PyAny>>,
    arch: Option<&str>,
    dedicated_irq_cpu: bool,
    overhead_stat: &str,
    granularity: Option<&Bound<'py, PyAny>>,
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
    let setup = OverheadArgs {
        overheads,
        arch,
        dedicated_irq_cpu,
        overhead_stat,
        granularity,
    }
    .setup()?;
    // The CPUs each set's tests run on, and one test list per distinct count (every test for
    // m includes cedf-k for k | m).
    let test_ms = ms
        .iter()
        .enumerate()
        .map(|(i, &m)| test_cpus(m, setup.as_ref()).map_err(|e| err(format!("task set {i}: {e}"))))
        .collect::<PyResult<Vec<u32>>>()?;
    let mut by_cpus: HashMap<u32, Vec<NamedTest>> = HashMap::new();
    for &m in &test_ms {
        by_cpus.entry(m).or_insert_with(|| selection.for_cpus(m));
    }
    let tests_for = |m: &u32| by_cpus.get(m).map(Vec::as_slice).unwrap_or_default();
    let pool = pool(threads)?;
    let answers: Vec<Result<Answers, String>> = py.allow_threads(|| {
        on_pool(pool.as_ref(), || {
            refs.par_iter()
                .zip(ms.par_iter().zip(test_ms.par_iter()))
                .map(|(set, (&m, test_m))| {
                    verdicts(
                        set,
                        m,
                        priorities,
                        tests_for(test_m),
                        tardiness,
                        setup.as_ref(),
                    )
                })
                .collect()
        })
    });
    let out = PyList::empty(py);
    for (i, (answer_i, test_m)) in answers.into_iter().zip(&test_ms).enumerate() {
        let answers = answer_i.map_err(|e| err(format!("task set {i}: {e}")))?;
        out.append(answer(py, tests_for(test_m), answers, selection.single)?)?;
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
