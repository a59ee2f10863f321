//! What the batch calls (`analyze_many`, `simulate_many`, the benchmark reference) share:
//! reading a Python iterable of task sets, and the rayon pool they spread over.

use crate::err;
use crate::taskset::{taskset_of, PyTaskSet};
use pyo3::prelude::*;

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
