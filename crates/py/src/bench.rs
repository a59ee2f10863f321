//! The Rust reference of `tools/python_overhead.py`: the benchmark workload of
//! `schedlab bench analysis`, and the pure-Rust cost of the work a Python call does (building
//! the `System` and running the test), timed inside this same library — same compiler flags,
//! allocator and machine — so that Python time minus this time is what the Python layer adds.

use crate::analysis::test_by_name;
use crate::batch::{on_pool, pool, tasksets_of};
use crate::err;
use crate::taskset::PyTaskSet;
use pyo3::prelude::*;
use rayon::prelude::*;
use schedlab_analysis::{analyze, Priorities, System};
use std::hint::black_box;
use std::time::Instant;

/// Sets `0..count` of the analysis benchmark workload (`schedlab_gen::workload`) for `cpus`
/// CPUs and `tasks` tasks.
#[pyfunction]
#[pyo3(signature = (cpus, tasks, count, seed=1))]
pub(crate) fn bench_workload(
    cpus: u32,
    tasks: usize,
    count: u64,
    seed: u64,
) -> PyResult<Vec<PyTaskSet>> {
    (0..count)
        .map(|k| {
            let set =
                schedlab_gen::workload::analysis_benchmark(cpus, tasks, seed, k).map_err(err)?;
            Ok(PyTaskSet {
                tasks: set,
                platform: None,
                realised_utilization: None,
            })
        })
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Per task set: the median over `repeat` timings of `number` back-to-back calls of
/// `System::new` + the test, in ns per call (one thread, the GIL released).
#[pyfunction]
#[pyo3(signature = (tasksets, cpus, test, repeat=15, number=20))]
pub(crate) fn bench_rust_analyze(
    py: Python<'_>,
    tasksets: &Bound<'_, PyAny>,
    cpus: u32,
    test: &str,
    repeat: usize,
    number: usize,
) -> PyResult<Vec<f64>> {
    let sets = tasksets_of(tasksets)?;
    let refs: Vec<&PyTaskSet> = sets.iter().map(|s| s.get()).collect();
    let test = test_by_name(test)?;
    py.allow_threads(|| {
        refs.iter()
            .map(|set| {
                let mut per_call = Vec::with_capacity(repeat);
                for _ in 0..repeat.max(1) {
                    let started = Instant::now();
                    for _ in 0..number.max(1) {
                        let sys = System::new(&set.tasks, cpus, Priorities::Dm)
                            .map_err(|e| e.to_string())?;
                        black_box(analyze(test.test.as_ref(), black_box(&sys)));
                    }
                    per_call.push(started.elapsed().as_nanos() as f64 / number.max(1) as f64);
                }
                Ok(median(&mut per_call))
            })
            .collect::<Result<Vec<f64>, String>>()
    })
    .map_err(err)
}

/// Seconds for the pure-Rust batch of what `analyze_many(tasksets, cpus, test)` computes
/// (`System::new` + the test per set, over `threads` threads or every core), without the
/// Python objects.
#[pyfunction]
#[pyo3(signature = (tasksets, cpus, test, threads=None))]
pub(crate) fn bench_rust_analyze_many(
    py: Python<'_>,
    tasksets: &Bound<'_, PyAny>,
    cpus: u32,
    test: &str,
    threads: Option<usize>,
) -> PyResult<f64> {
    let sets = tasksets_of(tasksets)?;
    let refs: Vec<&PyTaskSet> = sets.iter().map(|s| s.get()).collect();
    let test = test_by_name(test)?;
    let pool = pool(threads)?;
    py.allow_threads(|| {
        on_pool(pool.as_ref(), || {
            let started = Instant::now();
            let verdicts: Result<Vec<_>, String> = refs
                .par_iter()
                .map(|set| {
                    let sys =
                        System::new(&set.tasks, cpus, Priorities::Dm).map_err(|e| e.to_string())?;
                    Ok(analyze(test.test.as_ref(), &sys))
                })
                .collect();
            black_box(verdicts).map(|_| started.elapsed().as_secs_f64())
        })
    })
    .map_err(err)
}
