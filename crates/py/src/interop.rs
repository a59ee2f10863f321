//! `schedlab.import_file(path, from_=None)` and `schedlab.import_str(text, from_=None)`:
//! another tool's task set (SimSo XML, SchedCAT-style CSV, rt-app JSON) as an [`PyImported`]
//! — the task set, the policy its scheduler maps to and what did not map — through the same
//! reader as `schedlab import` (`schedlab_model::interop`).

use crate::err;
use crate::taskset::PyTaskSet;
use pyo3::prelude::*;
use schedlab_model::interop::import::{self, simulate_arguments, Source};
use schedlab_model::interop::Imported;
use std::path::PathBuf;

/// A task set read from another tool's format.
#[pyclass(frozen, name = "Imported", module = "schedlab._native")]
pub(crate) struct PyImported {
    taskset: Py<PyTaskSet>,
    policy: Option<String>,
    unmapped: Vec<String>,
    source: &'static str,
    simulate_args: Vec<String>,
}

impl PyImported {
    fn new(py: Python<'_>, source: Source, imported: Imported) -> PyResult<PyImported> {
        let simulate_args = simulate_arguments(&imported);
        Ok(PyImported {
            taskset: Py::new(py, PyTaskSet::of_file(imported.file))?,
            policy: imported.policy,
            unmapped: imported.unmapped,
            source: source.name(),
            simulate_args,
        })
    }
}

#[pymethods]
impl PyImported {
    /// The task set (with the platform's CPU count where the source gives one).
    #[getter]
    fn taskset(&self, py: Python<'_>) -> Py<PyTaskSet> {
        self.taskset.clone_ref(py)
    }

    /// The schedlab policy the source's scheduler maps to (`None` if the format names none).
    #[getter]
    fn policy(&self) -> Option<String> {
        self.policy.clone()
    }

    /// Every element or field of the source that did not map, one line each.
    #[getter]
    fn unmapped(&self) -> Vec<String> {
        self.unmapped.clone()
    }

    /// The format read: `simso`, `csv` or `rt-app`.
    #[getter]
    fn source(&self) -> &'static str {
        self.source
    }

    /// The `schedlab simulate` arguments that run the set as its source would.
    #[getter]
    fn simulate_args(&self) -> Vec<String> {
        self.simulate_args.clone()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let set = self.taskset.borrow(py);
        format!(
            "Imported(source={:?}, policy={}, tasks={}, unmapped={})",
            self.source,
            self.policy
                .as_ref()
                .map_or_else(|| "None".to_string(), |p| format!("{p:?}")),
            set.tasks.len(),
            self.unmapped.len()
        )
    }
}

fn source_of(from: Option<&str>) -> PyResult<Option<Source>> {
    from.map(Source::parse).transpose().map_err(err)
}

/// Imports the file at `path`; its format is `from_` (`simso`, `csv`, `rt-app`), else its
/// extension's, else its content's.
#[pyfunction]
#[pyo3(signature = (path, from_=None))]
pub(crate) fn import_file(
    py: Python<'_>,
    path: PathBuf,
    from_: Option<&str>,
) -> PyResult<PyImported> {
    let source = source_of(from_)?;
    let (source, imported) = py
        .allow_threads(|| import::import_file(&path, source))
        .map_err(err)?;
    PyImported::new(py, source, imported)
}

/// Imports `text` written in format `from_` (`simso`, `csv`, `rt-app`; `None`: its content
/// decides).
#[pyfunction]
#[pyo3(signature = (text, from_=None))]
pub(crate) fn import_str(py: Python<'_>, text: &str, from_: Option<&str>) -> PyResult<PyImported> {
    let source = source_of(from_)?.unwrap_or_else(|| Source::sniff(text));
    let imported = py
        .allow_threads(|| import::import_str(text, source))
        .map_err(err)?;
    PyImported::new(py, source, imported)
}
