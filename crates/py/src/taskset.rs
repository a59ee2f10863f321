//! `schedlab.TaskSet`: an ordered, validated task set held in Rust (a
//! `schedlab_model::TaskSet` plus an optional platform), so that analysis and simulation read
//! it in place. Built from task dicts (through the model's file validator: the same checks
//! and messages as files), from [`PyTask`]s, from a whole task-file document, from numpy arrays
//! ([`crate::arrays`]) or from files and text.

use crate::args::Cpus;
use crate::entries::build;
pub(crate) use crate::entries::taskset_of;
use crate::err;
use crate::pyvalue::to_py;
use crate::task::task_value;
pub(crate) use crate::task::PyTask;
use numpy::{IntoPyArray, PyArray1};
use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice, PyTuple};
use pyo3::IntoPyObjectExt;
use schedlab_model::file::{self, Format, TaskFile};
use schedlab_model::{Duration, Platform, Task, TaskSet};
use serde_json::{Map, Value};
use std::path::PathBuf;

/// An ordered, validated set of tasks, optionally with a platform (`cpus`).
#[pyclass(frozen, sequence, name = "TaskSet", module = "schedlab._native")]
pub(crate) struct PyTaskSet {
    pub(crate) tasks: TaskSet,
    pub(crate) platform: Option<Platform>,
    /// Σ C/T after rounding, for generated sets (`None` otherwise).
    pub(crate) realised_utilization: Option<f64>,
}

impl PyTaskSet {
    pub(crate) fn of_file(f: TaskFile) -> PyTaskSet {
        PyTaskSet {
            tasks: f.tasks,
            platform: f.platform,
            realised_utilization: None,
        }
    }

    /// The platform's CPU count, if the set carries one.
    pub(crate) fn platform_cpus(&self) -> Option<u32> {
        self.platform.as_ref().map(|p| p.cpus)
    }

    fn file(&self) -> TaskFile {
        TaskFile {
            tasks: self.tasks.clone(),
            platform: self.platform.clone(),
        }
    }

    /// The whole set as a task-file document with integer times (still a valid task file).
    pub(crate) fn document(&self) -> Value {
        let name = |r: u32| self.tasks.resource_name(r);
        let tasks = self
            .tasks
            .iter()
            .map(|t| task_value(t, name, true))
            .collect();
        let mut top = Map::new();
        if let Some(p) = &self.platform {
            let mut pm = Map::new();
            pm.insert("cpus".into(), p.cpus.into());
            if let Some(k) = p.cluster_size {
                pm.insert("cluster_size".into(), k.into());
            }
            top.insert("platform".into(), Value::Object(pm));
        }
        if !self.tasks.groups().is_empty() {
            top.insert("groups".into(), self.groups_value());
        }
        top.insert("tasks".into(), Value::Array(tasks));
        Value::Object(top)
    }

    /// The reservation groups as task-file objects with integer-ns times.
    fn groups_value(&self) -> Value {
        file::groups_value(self.tasks.groups(), |d| Value::from(d.as_ns()))
    }

    /// Whether `mine` (a task of this set) equals `task`, resources compared by name.
    fn holds(&self, mine: &Task, task: &PyTask) -> bool {
        if mine.critical_sections.is_empty() {
            return *mine == task.task && task.resources.is_empty();
        }
        let local = PyTask::of_set(mine, &self.tasks);
        local.task == task.task && local.resources == task.resources
    }

    fn task_at(&self, index: isize) -> PyResult<PyTask> {
        let n = self.tasks.len() as isize;
        let i = if index < 0 { index + n } else { index };
        if !(0..n).contains(&i) {
            return Err(pyo3::exceptions::PyIndexError::new_err(
                "task index out of range",
            ));
        }
        Ok(PyTask::of_set(&self.tasks[i as usize], &self.tasks))
    }

    fn column<'py>(
        &self,
        py: Python<'py>,
        field: &str,
        get: impl Fn(&Task) -> Duration,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let values = self
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                i64::try_from(get(t).as_ns()).map_err(|_| {
                    err(format!(
                        "{}: {field} does not fit in an int64 array",
                        t.reference(i)
                    ))
                })
            })
            .collect::<PyResult<Vec<i64>>>()?;
        Ok(values.into_pyarray(py))
    }
}

fn format_of(name: &str) -> PyResult<Format> {
    match name {
        "json" => Ok(Format::Json),
        "toml" => Ok(Format::Toml),
        other => Err(err(format!("unknown format `{other}` (use json or toml)"))),
    }
}

/// Reads a task file (.json or .toml; else the content decides).
#[pyfunction]
pub(crate) fn load(path: PathBuf) -> PyResult<PyTaskSet> {
    Ok(PyTaskSet::of_file(file::load(&path).map_err(err)?))
}

#[pymethods]
impl PyTaskSet {
    #[new]
    #[pyo3(signature = (tasks, cpus=None, groups=None))]
    fn new(
        tasks: &Bound<'_, PyAny>,
        cpus: Option<Cpus>,
        groups: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTaskSet> {
        match groups.filter(|g| !g.is_none()) {
            None => build(tasks, cpus),
            Some(groups) => crate::entries::build_with_groups(tasks, cpus, groups),
        }
    }

    /// Builds a task set from integer-nanosecond arrays (numpy arrays of any integer dtype,
    /// read in place, or lists).
    #[staticmethod]
    #[pyo3(signature = (wcet, period, deadline=None, names=None, cpus=None))]
    fn from_arrays(
        wcet: &Bound<'_, PyAny>,
        period: &Bound<'_, PyAny>,
        deadline: Option<&Bound<'_, PyAny>>,
        names: Option<&Bound<'_, PyAny>>,
        cpus: Option<Cpus>,
    ) -> PyResult<PyTaskSet> {
        let tasks = crate::arrays::tasks_from_arrays(wcet, period, deadline, names)?;
        let platform = cpus
            .map(|Cpus(m)| Platform::new(m))
            .transpose()
            .map_err(err)?;
        Ok(PyTaskSet {
            tasks,
            platform,
            realised_utilization: None,
        })
    }

    /// Reads a task file (.json or .toml).
    #[staticmethod]
    fn from_file(path: PathBuf) -> PyResult<PyTaskSet> {
        load(path)
    }

    /// Parses task-file text in `format` (`json` or `toml`).
    #[staticmethod]
    #[pyo3(signature = (text, format="json"))]
    fn parse(text: &str, format: &str) -> PyResult<PyTaskSet> {
        Ok(PyTaskSet::of_file(
            file::parse_str(text, format_of(format)?).map_err(err)?,
        ))
    }

    /// Pickling support: the set as task-file JSON plus the realised utilization.
    #[staticmethod]
    fn _restore(text: &str, realised_utilization: Option<f64>) -> PyResult<PyTaskSet> {
        let mut set = Self::parse(text, "json")?;
        set.realised_utilization = realised_utilization;
        Ok(set)
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let restore = py.get_type::<PyTaskSet>().getattr("_restore")?;
        let args = (self.to_json(), self.realised_utilization).into_pyobject(py)?;
        Ok((restore, args))
    }

    /// The platform's CPU count, if the task set carries one.
    #[getter]
    fn cpus(&self) -> Option<u32> {
        self.platform_cpus()
    }

    /// Σ C/T after the integer rounding of C, for sets made by `schedlab.generate`.
    #[getter]
    fn realised_utilization(&self) -> Option<f64> {
        self.realised_utilization
    }

    fn __len__(&self) -> usize {
        self.tasks.len()
    }

    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = index.py();
        if let Ok(slice) = index.downcast::<PySlice>() {
            let range = slice.indices(self.tasks.len() as isize)?;
            let list = PyList::empty(py);
            let mut i = range.start;
            for _ in 0..range.slicelength {
                list.append(self.task_at(i)?)?;
                i += range.step;
            }
            return Ok(list.into_any());
        }
        self.task_at(index.extract::<isize>()?)?
            .into_bound_py_any(py)
    }

    fn __iter__(slf: Bound<'_, Self>) -> TaskIter {
        TaskIter {
            set: slf.unbind(),
            next: 0,
        }
    }

    fn __reversed__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let list = PyList::empty(py);
        for t in self.tasks.iter().rev() {
            list.append(PyTask::of_set(t, &self.tasks))?;
        }
        Ok(list.into_any().try_iter()?.into_any())
    }

    fn __contains__(&self, task: &Bound<'_, PyAny>) -> bool {
        task.downcast::<PyTask>()
            .is_ok_and(|t| self.tasks.iter().any(|mine| self.holds(mine, t.get())))
    }

    /// The index of the first task equal to `task` (ValueError if none).
    fn index(&self, task: &Bound<'_, PyAny>) -> PyResult<usize> {
        task.downcast::<PyTask>()
            .ok()
            .and_then(|t| self.tasks.iter().position(|mine| self.holds(mine, t.get())))
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("task is not in the set"))
    }

    /// How many tasks equal `task`.
    fn count(&self, task: &Bound<'_, PyAny>) -> usize {
        task.downcast::<PyTask>().map_or(0, |t| {
            self.tasks
                .iter()
                .filter(|mine| self.holds(mine, t.get()))
                .count()
        })
    }

    fn __repr__(&self) -> String {
        let cpus = self
            .platform_cpus()
            .map(|m| format!(", cpus={m}"))
            .unwrap_or_default();
        format!(
            "TaskSet(n={}, U={:.4}{cpus})",
            self.tasks.len(),
            self.tasks.utilization()
        )
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<PyObject> {
        let py = other.py();
        let Ok(other) = other.downcast::<PyTaskSet>() else {
            return Ok(py.NotImplemented());
        };
        let other = other.get();
        let equal = self.tasks == other.tasks && self.platform == other.platform;
        match op {
            CompareOp::Eq => equal.into_py_any(py),
            CompareOp::Ne => (!equal).into_py_any(py),
            _ => Ok(py.NotImplemented()),
        }
    }

    /// WCETs (ns) as an int64 array.
    #[getter]
    fn wcet<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        self.column(py, "wcet", |t| t.wcet)
    }

    /// Periods (ns) as an int64 array.
    #[getter]
    fn period<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        self.column(py, "period", |t| t.period)
    }

    /// Relative deadlines (ns) as an int64 array.
    #[getter]
    fn deadline<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        self.column(py, "deadline", |t| t.deadline)
    }

    /// Release offsets (ns) as an int64 array.
    #[getter]
    fn offset<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        self.column(py, "offset", |t| t.offset)
    }

    /// Total utilization Σ C/T (float, for reports).
    #[getter]
    fn utilization(&self) -> f64 {
        self.tasks.utilization()
    }

    /// The reservation groups as task-file dicts (`name`, `budget` and `period` in ns, and
    /// `cpus`, `parent` when given), in the order given.
    #[getter]
    fn groups<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.groups_value())
    }

    /// The names of the resources the tasks' critical sections use, by id (in order of first
    /// appearance in the set).
    #[getter]
    fn resources(&self) -> Vec<String> {
        self.tasks.resources().to_vec()
    }

    /// Total density Σ C/min(D, T) (float, for reports).
    #[getter]
    fn density(&self) -> f64 {
        self.tasks.density()
    }

    /// The task set as task-file JSON text (integer nanoseconds).
    fn to_json(&self) -> String {
        self.document().to_string()
    }

    /// The tasks as task-file dicts (integer nanoseconds).
    fn to_dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let list = PyList::empty(py);
        let name = |r: u32| self.tasks.resource_name(r);
        for t in self.tasks.iter() {
            list.append(to_py(py, &task_value(t, name, true))?)?;
        }
        Ok(list.into_any())
    }

    /// Task-file text in `json` or `toml` with times in readable units.
    #[pyo3(signature = (format="json"))]
    fn dumps(&self, format: &str) -> PyResult<String> {
        file::to_string(&self.file(), format_of(format)?).map_err(err)
    }

    /// Writes a task file; the format comes from the extension (.toml, else JSON).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        file::save(&self.file(), &path).map_err(err)
    }
}

/// Iterates over a task set's tasks without copying the set.
#[pyclass(module = "schedlab._native")]
pub(crate) struct TaskIter {
    set: Py<PyTaskSet>,
    next: usize,
}

#[pymethods]
impl TaskIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self) -> Option<PyTask> {
        let set = &self.set.get().tasks;
        let task = PyTask::of_set(set.get(self.next)?, set);
        self.next += 1;
        Some(task)
    }
}
