//! `schedlab._native`: the Rust core behind the Python package `schedlab`.
//!
//! The bindings convert and map errors, nothing more, and they convert without text in
//! between: a [`taskset::PyTaskSet`] holds a `schedlab_model::TaskSet` in Rust (built from task
//! dicts through the model's file validator — the same checks and messages as task files — from
//! numpy arrays read in place, or from files), analysis results are Python objects wrapping the
//! Rust verdicts, and the summaries of the simulator and the runtime become Python dicts
//! directly. The GIL is released while anything is computed, and the batch calls
//! (`analyze_many`, `simulate_many`) spread their task sets over every core with rayon.
//! Every error becomes `schedlab.Error` (a `ValueError`) with the CLI's message.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod analysis;
mod args;
mod arrays;
mod batch;
mod bench;
mod bodies;
mod cli;
mod design;
mod entries;
mod experiment;
mod export;
mod generate;
mod interop;
mod overheads;
mod pyvalue;
mod result;
mod run;
mod scale;
mod simulate;
mod task;
mod taskset;
mod trace_costs;

create_exception!(
    schedlab,
    Error,
    PyValueError,
    "Bad input to schedlab: the message names the task and the field."
);

/// `schedlab.Error` with `e`'s message.
pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    Error::new_err(e.to_string())
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<taskset::PyTask>()?;
    m.add_class::<taskset::PyTaskSet>()?;
    m.add_class::<analysis::AnalysisResult>()?;
    m.add_class::<bodies::JobContext>()?;
    m.add_class::<interop::PyImported>()?;
    m.add_function(wrap_pyfunction!(taskset::load, m)?)?;
    m.add_function(wrap_pyfunction!(interop::import_file, m)?)?;
    m.add_function(wrap_pyfunction!(interop::import_str, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::analyze_many, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(design::design_reservations, m)?)?;
    m.add_function(wrap_pyfunction!(overheads::charge_overheads, m)?)?;
    m.add_function(wrap_pyfunction!(generate::generate, m)?)?;
    m.add_function(wrap_pyfunction!(generate::utilizations, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate_many, m)?)?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(export::export, m)?)?;
    m.add_function(wrap_pyfunction!(scale::scale, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_prepare, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_chunk, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_store, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_finish, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_run, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench_workload, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench_rust_analyze, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench_rust_analyze_many, m)?)?;
    m.add_function(wrap_pyfunction!(trace_costs::trace_costs, m)?)?;
    m.add_function(wrap_pyfunction!(cli::cli_main, m)?)?;
    Ok(())
}
