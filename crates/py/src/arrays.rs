//! Task parameters from numpy arrays, read in place through the numpy C API (no Python object
//! per element): one-dimensional arrays of any integer dtype, in nanoseconds (the rule of
//! files: arrays of task parameters are ns). Lists are first made arrays by numpy itself.

use crate::err;
use numpy::{
    Element, PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use schedlab_model::{Duration, ModelError, Task, TaskRef, TaskSet};

static ASARRAY: GILOnceCell<Py<PyAny>> = GILOnceCell::new();

/// `obj` as a numpy array (itself if it is one).
fn as_array<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(a) = obj.downcast::<PyUntypedArray>() {
        return Ok(a.clone());
    }
    let py = obj.py();
    let asarray = ASARRAY.import(py, "numpy", "asarray")?;
    Ok(asarray.call1((obj,))?.downcast_into::<PyUntypedArray>()?)
}

/// The values of a typed 1-D array as `i128` (wide enough for every integer dtype).
fn read_typed<T: Element + Copy + Into<i128>>(a: &Bound<'_, PyUntypedArray>) -> Option<Vec<i128>> {
    let typed = a.downcast::<PyArray1<T>>().ok()?;
    let view = typed.try_readonly().ok()?;
    Some(view.as_array().iter().map(|&v| v.into()).collect())
}

/// A one-dimensional integer column named `field`, as i128 (range-checked by the caller).
fn integer_column(field: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<i128>> {
    let a = as_array(obj)?;
    let dtype = a.dtype();
    if a.ndim() != 1 {
        return Err(err(format!(
            "{field} must be a one-dimensional array, got {} dimensions",
            a.ndim()
        )));
    }
    if !matches!(dtype.kind(), b'i' | b'u') {
        return Err(err(format!(
            "{field} must hold integers (nanoseconds), got dtype {}",
            dtype.str()?
        )));
    }
    let read = read_typed::<i64>(&a)
        .or_else(|| read_typed::<u64>(&a))
        .or_else(|| read_typed::<i32>(&a))
        .or_else(|| read_typed::<u32>(&a))
        .or_else(|| read_typed::<i16>(&a))
        .or_else(|| read_typed::<u16>(&a))
        .or_else(|| read_typed::<i8>(&a))
        .or_else(|| read_typed::<u8>(&a));
    match read {
        Some(values) => Ok(values),
        // A non-native byte order: numpy converts the whole array once, in C.
        None => {
            let native = a.call_method1("astype", ("int64",))?;
            read_typed::<i64>(native.downcast::<PyUntypedArray>()?).ok_or_else(|| {
                err(format!(
                    "{field}: cannot read dtype {}",
                    dtype.str().map(|s| s.to_string()).unwrap_or_default()
                ))
            })
        }
    }
}

/// Tasks `(wcet[i], deadline[i] or period[i], period[i])` named `names[i]`, validated as a set.
pub(crate) fn tasks_from_arrays(
    wcet: &Bound<'_, PyAny>,
    period: &Bound<'_, PyAny>,
    deadline: Option<&Bound<'_, PyAny>>,
    names: Option<&Bound<'_, PyAny>>,
) -> PyResult<TaskSet> {
    let c = integer_column("wcet", wcet)?;
    let t = integer_column("period", period)?;
    let d = match deadline.filter(|d| !d.is_none()) {
        Some(d) => integer_column("deadline", d)?,
        None => t.clone(),
    };
    let names: Option<Vec<String>> = names
        .filter(|n| !n.is_none())
        .map(|n| n.extract())
        .transpose()
        .map_err(|_| err("names must be a sequence of strings"))?;
    let n = c.len();
    if t.len() != n || d.len() != n || names.as_ref().is_some_and(|l| l.len() != n) {
        return Err(err(format!(
            "wcet, period, deadline and names must have one length, got {}, {}, {} and {}",
            n,
            t.len(),
            d.len(),
            names
                .as_ref()
                .map_or("-".to_string(), |l| l.len().to_string())
        )));
    }
    let mut tasks = Vec::with_capacity(n);
    for i in 0..n {
        let name = names.as_ref().map(|l| l[i].clone());
        let ns = |field: &str, v: i128| -> PyResult<Duration> {
            let message = if v < 0 {
                format!("negative time {v}")
            } else {
                match u64::try_from(v) {
                    Ok(ns) => return Ok(Duration::from_ns(ns)),
                    Err(_) => format!("time {v} ns is too large"),
                }
            };
            Err(err(ModelError::InvalidField {
                task: TaskRef {
                    index: i,
                    name: name.clone(),
                },
                field: field.into(),
                message,
            }))
        };
        let mut task = Task::new_unchecked(
            ns("wcet", c[i])?,
            ns("deadline", d[i])?,
            ns("period", t[i])?,
        );
        task.name = name;
        tasks.push(task);
    }
    TaskSet::new(tasks).map_err(err)
}
