//! `schedlab._native`: the Rust core behind the Python package `schedlab`.
//!
//! The bindings only convert and map errors: task sets cross the boundary as JSON text in the
//! task-file schema, so Python input is validated by exactly the code that validates files, and
//! every error becomes `schedlab.Error` (a `ValueError`) with the same message.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use schedlab_analysis::json::{result_json, tardiness_as_requested};
use schedlab_analysis::{analyze as run_test, registry, Priorities, SchedTest, System};
use schedlab_model::file::{self, Format, TaskFile};
use serde_json::Value;

mod convert;
mod experiment;
mod generate;
mod run;
mod simulate;

create_exception!(
    _native,
    Error,
    PyValueError,
    "Bad input to schedlab: the message names the task and the field."
);

pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    Error::new_err(e.to_string())
}

pub(crate) fn parse_json(text: &str) -> PyResult<TaskFile> {
    let value: Value = serde_json::from_str(text).map_err(err)?;
    file::from_value(&value).map_err(err)
}

/// `cpus=` (or the task set's platform) and the priority assignment by name.
pub(crate) fn platform_and_priorities(
    f: &TaskFile,
    cpus: Option<u32>,
    priorities: &str,
) -> PyResult<(u32, Priorities)> {
    let cpus = cpus
        .or(f.platform.as_ref().map(|p| p.cpus))
        .ok_or_else(|| {
            err("the number of CPUs is given neither by cpus= nor by the task set's platform")
        })?;
    Ok((cpus, Priorities::parse(priorities).map_err(err)?))
}

fn format_of(name: &str) -> PyResult<Format> {
    match name {
        "json" => Ok(Format::Json),
        "toml" => Ok(Format::Toml),
        other => Err(err(format!("unknown format `{other}` (use json or toml)"))),
    }
}

/// Validates a task set given as JSON text; returns it normalised (times as integer ns).
#[pyfunction]
fn normalize(text: &str) -> PyResult<String> {
    Ok(convert::canonical(&parse_json(text)?).to_string())
}

/// Parses task-file text (`format`: json or toml) into normalised JSON text.
#[pyfunction]
fn parse(text: &str, format: &str) -> PyResult<String> {
    let f = file::parse_str(text, format_of(format)?).map_err(err)?;
    Ok(convert::canonical(&f).to_string())
}

/// Reads a task file into normalised JSON text.
#[pyfunction]
fn load(path: &str) -> PyResult<String> {
    let f = file::load(std::path::Path::new(path)).map_err(err)?;
    Ok(convert::canonical(&f).to_string())
}

/// Renders normalised JSON text as task-file text in `format`.
#[pyfunction]
fn dump(text: &str, format: &str) -> PyResult<String> {
    file::to_string(&parse_json(text)?, format_of(format)?).map_err(err)
}

/// Runs tests on a task set (JSON text); returns JSON text of the result list.
#[pyfunction]
#[pyo3(signature = (text, cpus=None, tests=None, priorities="dm", tardiness=false))]
fn analyze(
    py: Python<'_>,
    text: &str,
    cpus: Option<u32>,
    tests: Option<Vec<String>>,
    priorities: &str,
    tardiness: bool,
) -> PyResult<String> {
    let f = parse_json(text)?;
    let (cpus, priorities) = platform_and_priorities(&f, cpus, priorities)?;
    let selected: Vec<Box<dyn SchedTest>> = match tests {
        None => registry::all_for(cpus),
        Some(names) => names
            .iter()
            .map(|n| registry::by_name(n).map_err(err))
            .collect::<PyResult<_>>()?,
    };
    let sys = System::new(&f.tasks, cpus, priorities).map_err(err)?;
    let n = sys.len();
    let results: Vec<Value> = py.allow_threads(|| {
        selected
            .iter()
            .map(|t| {
                let v = tardiness_as_requested(run_test(t.as_ref(), &sys), tardiness, n);
                result_json(&t.name(), &v)
            })
            .collect()
    });
    Ok(Value::from(results).to_string())
}

/// Every test's description as JSON text.
#[pyfunction]
fn catalogue() -> String {
    Value::from(schedlab_analysis::json::catalogue()).to_string()
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(dump, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(generate::generate, m)?)?;
    m.add_function(wrap_pyfunction!(generate::utilizations, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_prepare, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_chunk, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_store, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_finish, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_run, m)?)?;
    Ok(())
}
