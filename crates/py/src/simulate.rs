//! The simulator for Python: `simulate` (the options, JSON fields and output files of
//! `schedlab simulate`) and `simulate_many` (the same options on many task sets, over every
//! core). The GIL is released while simulating; per-job records come back as numpy columns.

use crate::args::{cpus_or_platform, duration_or, Cpus};
use crate::batch::{on_pool, pool, tasksets_of};
use crate::err;
use crate::overheads::overhead_file;
use crate::pyvalue::to_py;
use crate::taskset::{taskset_of, PyTaskSet};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;
use schedlab_analysis::placement::policy_inputs;
use schedlab_analysis::Priorities;
use schedlab_model::overheads::{OverheadFile, Stat};
use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_sim::{run, summary_json, Arrivals, ExecTime, Overheads, SimConfig};
use schedlab_sim::{JobRecord, SimResult};
use schedlab_trace::outputs::TraceOutputs;
use schedlab_trace::Meta;
use std::path::PathBuf;
use std::time::Instant;

/// The options shared by every task set of a call, read once.
struct SimOptions {
    policy: String,
    priorities: Priorities,
    duration: Duration,
    seed: u64,
    partition: String,
    cluster_size: Option<u32>,
    arrivals: Arrivals,
    exec: ExecTime,
    abort_late: bool,
    record_jobs: bool,
    record_trace: bool,
    overheads: Option<(OverheadFile, String)>,
    overhead_arch: Option<String>,
    overhead_stat: Stat,
}

/// One finished simulation.
struct Simulated {
    result: SimResult,
    meta: Meta,
    cpus: u32,
    wall: f64,
}

fn simulate_set(set: &PyTaskSet, cpus: u32, o: &SimOptions) -> Result<Simulated, String> {
    let tasks = &set.tasks;
    let inputs = policy_inputs(
        &o.policy,
        tasks,
        cpus,
        &o.partition,
        o.cluster_size,
        o.priorities,
        None,
    )?;
    // `pfp-ts` also gets the split parts of its tasks, `federated` its domain sizes (empty for
    // every other policy).
    let (split, sizes) = (inputs.split, inputs.domain_sizes);
    let (ranks, placement) = (
        inputs.ranks,
        inputs.placement.map(|p| {
            Placement::from(p)
                .with_split(split)
                .with_domain_sizes(sizes)
        }),
    );
    let mut config = SimConfig::new(cpus, o.duration);
    config.arrivals = o.arrivals;
    config.exec = o.exec;
    config.abort_late = o.abort_late;
    config.seed = o.seed;
    config.record_jobs = o.record_jobs;
    config.record_trace = o.record_trace;
    if let Some((file, source)) = &o.overheads {
        let n = tasks.len() as u64;
        config.overheads = Some(
            Overheads::from_file(
                file,
                source,
                o.overhead_arch.as_deref(),
                o.overhead_stat,
                n,
                cpus,
            )
            .map_err(|e| e.to_string())?,
        );
    }
    let started = Instant::now();
    let (result, meta) =
        run(tasks, &o.policy, &ranks, placement, &config).map_err(|e| e.to_string())?;
    // After the groups' admission check in `run` (a refused set gets no note).
    if let Some(note) = schedlab_sim::groups_note(tasks, &o.policy) {
        eprintln!("{note}");
    }
    Ok(Simulated {
        result,
        meta,
        cpus,
        wall: started.elapsed().as_secs_f64(),
    })
}

/// Per-job records as numpy columns (`start_ns`/`completion_ns` are -1 when the job never
/// started/finished), the form the Python side turns into a structured array or dicts.
pub(crate) fn jobs_table<'py>(py: Python<'py>, jobs: &[JobRecord]) -> PyResult<Bound<'py, PyDict>> {
    fn col<'py, T: numpy::Element>(
        py: Python<'py>,
        jobs: &[JobRecord],
        f: impl Fn(&JobRecord) -> T,
    ) -> Bound<'py, PyAny> {
        jobs.iter()
            .map(f)
            .collect::<Vec<T>>()
            .into_pyarray(py)
            .into_any()
    }
    let signed = |t: u64| i64::try_from(t).unwrap_or(i64::MAX);
    let opt = |t: Option<schedlab_model::Time>| t.map_or(-1, |t| signed(t.as_ns()));
    let table = PyDict::new(py);
    table.set_item("task", col(py, jobs, |j| j.task))?;
    table.set_item("seq", col(py, jobs, |j| j.seq))?;
    table.set_item("release_ns", col(py, jobs, |j| signed(j.release.as_ns())))?;
    table.set_item("deadline_ns", col(py, jobs, |j| signed(j.deadline.as_ns())))?;
    table.set_item("start_ns", col(py, jobs, |j| opt(j.start)))?;
    table.set_item("completion_ns", col(py, jobs, |j| opt(j.completion)))?;
    table.set_item("preemptions", col(py, jobs, |j| j.preemptions))?;
    table.set_item("migrations", col(py, jobs, |j| j.migrations))?;
    table.set_item(
        "tardiness_ns",
        col(py, jobs, |j| signed(j.tardiness.as_ns())),
    )?;
    table.set_item("aborted", col(py, jobs, |j| j.aborted))?;
    Ok(table)
}

/// The summary dict of `schedlab simulate --format json`, plus `"jobs_table"` when asked.
fn summary<'py>(
    py: Python<'py>,
    s: &Simulated,
    o: &SimOptions,
    jobs: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let value = summary_json(&s.result, &o.policy, s.cpus, s.wall);
    let out = to_py(py, &value)?;
    if jobs {
        out.downcast::<PyDict>()?
            .set_item("jobs_table", jobs_table(py, &s.result.jobs)?)?;
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn options(
    policy: &str,
    priorities: &str,
    duration: Option<&Bound<'_, PyAny>>,
    seed: u64,
    partition: &str,
    cluster_size: Option<u32>,
    arrivals: &str,
    exec: &str,
    abort_late: bool,
    record_jobs: bool,
    overheads: Option<&Bound<'_, PyAny>>,
    overhead_arch: Option<&str>,
    overhead_stat: &str,
) -> PyResult<SimOptions> {
    let one_second = Duration::from_ns(1_000_000_000);
    let overheads = overhead_file(overheads)?;
    if overheads.is_none() && overhead_arch.is_some() {
        return Err(err("overhead_arch= needs overheads="));
    }
    Ok(SimOptions {
        policy: policy.to_owned(),
        priorities: Priorities::parse(priorities).map_err(err)?,
        duration: duration_or("duration", duration, one_second)?,
        seed,
        partition: partition.to_owned(),
        cluster_size,
        arrivals: Arrivals::parse(arrivals).map_err(err)?,
        exec: ExecTime::parse(exec).map_err(err)?,
        abort_late,
        record_jobs,
        record_trace: false,
        overheads,
        overhead_arch: overhead_arch.map(str::to_owned),
        overhead_stat: Stat::parse(overhead_stat).map_err(err)?,
    })
}

/// Simulates one task set; returns the summary of `schedlab simulate --format json` (plus
/// `"jobs_table"`, the per-job records as numpy columns, when `jobs`) and writes the files
/// asked for, as `schedlab simulate --jobs-csv/--trace/--gantt/--perfetto` do.
#[pyfunction]
#[pyo3(signature = (taskset, cpus=None, policy="gedf", priorities="dm", duration=None, seed=1,
                    partition="ffd", cluster_size=None, arrivals="periodic", exec="wcet",
                    abort_late=false, jobs=true, overheads=None, overhead_arch=None,
                    overhead_stat="avg", trace=None, gantt=None, perfetto=None, jobs_csv=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate<'py>(
    py: Python<'py>,
    taskset: &Bound<'py, PyAny>,
    cpus: Option<Cpus>,
    policy: &str,
    priorities: &str,
    duration: Option<&Bound<'py, PyAny>>,
    seed: u64,
    partition: &str,
    cluster_size: Option<u32>,
    arrivals: &str,
    exec: &str,
    abort_late: bool,
    jobs: bool,
    overheads: Option<&Bound<'py, PyAny>>,
    overhead_arch: Option<&str>,
    overhead_stat: &str,
    trace: Option<PathBuf>,
    gantt: Option<PathBuf>,
    perfetto: Option<PathBuf>,
    jobs_csv: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let set = taskset_of(taskset)?;
    let set = set.get();
    let outputs = TraceOutputs {
        trace: trace.as_deref(),
        perfetto: perfetto.as_deref(),
        gantt: gantt.as_deref(),
    };
    let m = cpus_or_platform(cpus, set.platform_cpus())?;
    let mut o = options(
        policy,
        priorities,
        duration,
        seed,
        partition,
        cluster_size,
        arrivals,
        exec,
        abort_late,
        jobs || jobs_csv.is_some(),
        overheads,
        overhead_arch,
        overhead_stat,
    )?;
    o.record_trace = outputs.wanted();
    let done = py
        .allow_threads(|| -> Result<Simulated, String> {
            let s = simulate_set(set, m, &o)?;
            outputs
                .write(&s.meta, &s.result.trace)
                .map_err(|e| e.to_string())?;
            if let Some(path) = &jobs_csv {
                std::fs::write(path, schedlab_sim::jobs_csv(&s.result))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            Ok(s)
        })
        .map_err(err)?;
    summary(py, &done, &o, jobs)
}

/// Simulates many task sets with the same options, over every core (or `threads` threads);
/// returns the summaries in input order (per-job records only with `jobs=True`).
#[pyfunction]
#[pyo3(signature = (tasksets, cpus=None, policy="gedf", priorities="dm", duration=None, seed=1,
                    partition="ffd", cluster_size=None, arrivals="periodic", exec="wcet",
                    abort_late=false, jobs=false, overheads=None, overhead_arch=None,
                    overhead_stat="avg", threads=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate_many<'py>(
    py: Python<'py>,
    tasksets: &Bound<'py, PyAny>,
    cpus: Option<Cpus>,
    policy: &str,
    priorities: &str,
    duration: Option<&Bound<'py, PyAny>>,
    seed: u64,
    partition: &str,
    cluster_size: Option<u32>,
    arrivals: &str,
    exec: &str,
    abort_late: bool,
    jobs: bool,
    overheads: Option<&Bound<'py, PyAny>>,
    overhead_arch: Option<&str>,
    overhead_stat: &str,
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
    let o = options(
        policy,
        priorities,
        duration,
        seed,
        partition,
        cluster_size,
        arrivals,
        exec,
        abort_late,
        jobs,
        overheads,
        overhead_arch,
        overhead_stat,
    )?;
    let pool = pool(threads)?;
    let done: Vec<Result<Simulated, String>> = py.allow_threads(|| {
        on_pool(pool.as_ref(), || {
            refs.par_iter()
                .zip(ms.par_iter())
                .map(|(s, &m)| simulate_set(s, m, &o))
                .collect()
        })
    });
    let out = PyList::empty(py);
    for (i, s) in done.into_iter().enumerate() {
        let s = s.map_err(|e| err(format!("task set {i}: {e}")))?;
        out.append(summary(py, &s, &o, jobs)?)?;
    }
    Ok(out)
}
