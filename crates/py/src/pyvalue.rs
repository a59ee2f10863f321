//! Python objects ↔ JSON values, with no text in between. Task dicts become
//! `serde_json::Value`s that the model's file validator reads (so a dict and a file are checked
//! by one piece of code with one set of messages); the JSON summaries of the simulator and the
//! runtime become Python dicts, lists and numbers.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use serde_json::{Map, Number, Value};

/// How deeply Python containers may nest (task dicts need 3 levels; a self-containing list
/// must end in an error, not a stack overflow).
const MAX_DEPTH: usize = 32;

/// Converts a Python value (None, bool, int, float, str, list/tuple, dict with str keys, numpy
/// scalars and arrays) into a JSON value; `Err` says what could not be converted.
pub(crate) fn to_value(obj: &Bound<'_, PyAny>) -> Result<Value, String> {
    to_value_at(obj, 0)
}

fn to_value_at(obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested more than {MAX_DEPTH} levels deep"));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.downcast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return s
            .to_cow()
            .map(|s| Value::String(s.into_owned()))
            .map_err(|e| e.to_string());
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(int_value(obj));
    }
    if let Ok(f) = obj.downcast::<PyFloat>() {
        return Ok(float_value(f.value()));
    }
    if let Ok(d) = obj.downcast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let key = k
                .downcast::<PyString>()
                .map_err(|_| format!("keys must be strings, got {}", short_repr(&k)))?
                .to_cow()
                .map_err(|e| e.to_string())?
                .into_owned();
            let value = to_value_at(&v, depth + 1).map_err(|e| format!("`{key}`: {e}"))?;
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.downcast::<PyList>() {
        return l.iter().map(|v| to_value_at(&v, depth + 1)).collect();
    }
    if let Ok(t) = obj.downcast::<PyTuple>() {
        return t.iter().map(|v| to_value_at(&v, depth + 1)).collect();
    }
    // numpy integers (and anything else usable as an index) are integers.
    if obj.hasattr("__index__").unwrap_or(false) {
        if let Ok(i) = obj.call_method0("__index__") {
            return Ok(int_value(&i));
        }
    }
    // numpy arrays and other array-likes.
    if obj.hasattr("tolist").unwrap_or(false) {
        if let Ok(list) = obj.call_method0("tolist") {
            return to_value_at(&list, depth + 1);
        }
    }
    Err(format!(
        "cannot use a value of Python type `{}`",
        obj.get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    ))
}

/// An int as a JSON number: exact within 64 bits, else the nearest float (which the file
/// validator reports as too large).
fn int_value(obj: &Bound<'_, PyAny>) -> Value {
    if let Ok(u) = obj.extract::<u64>() {
        return Value::from(u);
    }
    if let Ok(i) = obj.extract::<i64>() {
        return Value::from(i);
    }
    float_value(obj.extract::<f64>().unwrap_or(f64::INFINITY))
}

/// A float as a JSON number; NaN and infinities (not JSON numbers) as their Python spelling,
/// which the validator then names in its message.
fn float_value(f: f64) -> Value {
    Number::from_f64(f).map_or_else(|| Value::String(format!("{f}")), Value::Number)
}

fn short_repr(obj: &Bound<'_, PyAny>) -> String {
    obj.repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// A JSON value as the Python object of the same shape.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_bound_py_any(py)?,
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)?
            } else if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)?
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?
            }
        }
        Value::String(s) => s.into_bound_py_any(py)?,
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}
