//! Keyword arguments that need more than PyO3's conversions: CPU counts (a bad count is a
//! `schedlab.Error`, not an `OverflowError`) and times typed by a person, which need a unit
//! (DESIGN.md: `duration=10` or `"10"` is an error that suggests one, never 10 ns by accident).
//! Task parameters in dicts and arrays stay integer nanoseconds, as in files.

use crate::err;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyInt, PyString, PyType};
use schedlab_model::time::{parse_duration_with_unit, TimeParseError};
use schedlab_model::Duration;

/// A number of CPUs (≥ 1) given as a keyword argument.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cpus(pub(crate) u32);

impl<'py> FromPyObject<'py> for Cpus {
    fn extract_bound(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        let bad = || {
            err(format!(
                "cpus: must be an integer from 1 to 4294967295, got {obj}"
            ))
        };
        // Integers and integer-likes such as numpy.int64 (by `__index__`); not bools, floats
        // or strings.
        if obj.is_instance_of::<PyBool>() || obj.is_instance_of::<PyString>() {
            return Err(bad());
        }
        match obj.extract::<u32>() {
            Ok(n) if n > 0 => Ok(Cpus(n)),
            _ => Err(bad()),
        }
    }
}

/// `cpus=` if given, else the task set's platform; an error says how to give it.
pub(crate) fn cpus_or_platform(cpus: Option<Cpus>, platform: Option<u32>) -> PyResult<u32> {
    cpus.map(|c| c.0).or(platform).ok_or_else(|| {
        err("the number of CPUs is given neither by cpus= nor by the task set's platform")
    })
}

static TIMEDELTA: GILOnceCell<Py<PyType>> = GILOnceCell::new();

/// A time given as a keyword argument `name`: a string with a unit (`"10ms"`, `"1.5s"`) or a
/// `datetime.timedelta`; a bare number (int, float or unit-less string) is an error that
/// suggests a unit.
pub(crate) fn duration_arg(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Duration> {
    let py = value.py();
    let message = |e: &dyn std::fmt::Display| err(format!("{name}: {e}"));
    if let Ok(text) = value.downcast::<PyString>() {
        return parse_duration_with_unit(&text.to_cow()?).map_err(|e| message(&e));
    }
    if value.is_instance(TIMEDELTA.import(py, "datetime", "timedelta")?)? {
        return timedelta_ns(value).map_err(|e| message(&e));
    }
    if value.is_instance_of::<PyInt>() || value.extract::<f64>().is_ok() {
        let shown = value.str()?.to_string();
        return Err(message(&TimeParseError::MissingUnit(shown)));
    }
    Err(message(&format!(
        "expected a time with a unit such as \"10ms\" or a datetime.timedelta, got {}",
        value.repr()?
    )))
}

/// [`duration_arg`] for an optional argument: `None` gives `default`.
pub(crate) fn duration_or(
    name: &str,
    value: Option<&Bound<'_, PyAny>>,
    default: Duration,
) -> PyResult<Duration> {
    match value {
        None => Ok(default),
        Some(v) if v.is_none() => Ok(default),
        Some(v) => duration_arg(name, v),
    }
}

/// A `timedelta` as whole nanoseconds (it holds days, seconds and microseconds exactly).
fn timedelta_ns(delta: &Bound<'_, PyAny>) -> Result<Duration, String> {
    let part = |attr: &str| -> Result<i64, String> {
        delta
            .getattr(attr)
            .and_then(|v| v.extract::<i64>())
            .map_err(|e| e.to_string())
    };
    let (days, seconds, micros) = (part("days")?, part("seconds")?, part("microseconds")?);
    let total = i128::from(days) * 86_400_000_000_000
        + i128::from(seconds) * 1_000_000_000
        + i128::from(micros) * 1_000;
    if total < 0 {
        return Err(format!(
            "negative time {}",
            delta.repr().map_err(|e| e.to_string())?
        ));
    }
    u64::try_from(total)
        .map(Duration::from_ns)
        .map_err(|_| "time is too large (the limit is 2^64-1 ns, about 584 years)".to_string())
}
