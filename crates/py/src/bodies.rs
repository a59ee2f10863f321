//! Custom job bodies from Python (`schedlab.run(…, bodies={task: callable})`): each callable
//! becomes a `schedlab_runtime::Body::Custom` that takes the GIL and calls it with a
//! [`JobContext`] — once per job of a sequential task, once per *thread* of each job of a
//! parallel task (its region and thread in the context; the threads of a region are called
//! on their own job threads, region `r + 1`'s only after every call of region `r` returned).
//!
//! The GIL serialises the calls: Python bodies of one region do not execute in parallel, and a
//! body preempted while it holds the GIL holds up the other bodies until it runs again. They
//! show what runs where and in which order (tests, demonstrations); timing belongs to the
//! built-in burn body. An exception raised by a body ends the run (its message becomes a
//! warning of the result), as a panicking Rust body does.

use crate::err;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use schedlab_model::TaskSet;
use schedlab_runtime::config::JobCtx;
use schedlab_runtime::Body;
use std::sync::Arc;

/// What a Python job body is told: which job, and for a parallel task which thread.
#[pyclass(frozen, name = "JobContext", module = "schedlab._native")]
pub(crate) struct JobContext {
    /// Task index.
    #[pyo3(get)]
    task: u32,
    /// Job sequence number.
    #[pyo3(get)]
    seq: u64,
    /// Region of the parallel job (0 for a sequential task).
    #[pyo3(get)]
    region: u32,
    /// Thread index within the region (0 for a sequential task).
    #[pyo3(get)]
    thread: u32,
    /// Strand: `Σ_{r' < region} width(r') + thread` (0 for a sequential task).
    #[pyo3(get)]
    strand: u32,
}

#[pymethods]
impl JobContext {
    fn __repr__(&self) -> String {
        format!(
            "JobContext(task={}, seq={}, region={}, thread={}, strand={})",
            self.task, self.seq, self.region, self.thread, self.strand
        )
    }
}

/// The body calling `f` (see the module doc).
fn body_of(f: Py<PyAny>) -> Body {
    Body::Custom(Arc::new(move |cx: &JobCtx| {
        let ctx = JobContext {
            task: cx.task,
            seq: cx.seq,
            region: cx.region,
            thread: cx.thread,
            strand: cx.strand,
        };
        let failed = Python::with_gil(|py| f.call1(py, (ctx,)).err().map(|e| e.to_string()));
        if let Some(msg) = failed {
            // The runtime turns a body's panic into the message that ends the run.
            std::panic::panic_any(format!("Python exception: {msg}"));
        }
    }))
}

/// `bodies` (a mapping of task index or name to a callable) as (task index, body) pairs.
pub(crate) fn bodies_of(
    set: &TaskSet,
    bodies: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<(usize, Body)>> {
    let Some(d) = bodies else {
        return Ok(Vec::new());
    };
    let n = set.len();
    let mut out = Vec::with_capacity(d.len());
    for (k, v) in d.iter() {
        let i = if let Ok(i) = k.extract::<usize>() {
            if i >= n {
                return Err(err(format!("bodies: task {i}, but the set has {n} tasks")));
            }
            i
        } else if let Ok(name) = k.extract::<String>() {
            set.iter()
                .position(|t| t.name.as_deref() == Some(name.as_str()))
                .ok_or_else(|| err(format!("bodies: no task named `{name}`")))?
        } else {
            return Err(err("bodies: keys are task indices or names"));
        };
        if !v.is_callable() {
            return Err(err(format!("bodies: the body of task {i} is not callable")));
        }
        out.push((i, body_of(v.unbind())));
    }
    Ok(out)
}
