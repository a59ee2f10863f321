//! `schedlab.Task`: one sporadic task held in Rust (a `schedlab_model::Task`), immutable and
//! hashable. Built with the fields of the task-file schema (times as integer ns or strings
//! with a unit) and checked by the file validator, so a `Task` is always valid; its attributes
//! give times in integer nanoseconds.
//!
//! Resources [ChronOS §3.6] are named: a task set numbers them across its tasks
//! (`schedlab_model::TaskSet::resources`), so a lone `Task` keeps its own numbering — ids in
//! order of first appearance in the task, with their names — and shows and compares its
//! critical sections by name. Tasks taken from a set are renumbered that way ([`PyTask::of_set`]);
//! tasks with critical sections put into a set go through the file validator, which numbers
//! the set's resources afresh.
//!
//! A parallel (fork-join) task [RTWS §III] is built with `parallel=[[c, …], …]` (regions of
//! thread lengths, integer ns or strings with a unit, as in files); `wcet` may then be left out
//! (it is the work, the sum of the threads). `parallel` gives the regions back in ns; `work`
//! (`T1`) and `critical_path` (`T∞`) are the structure's, or `wcet` for a sequential task (one
//! region of one thread).

use crate::err;
use crate::pyvalue::{to_py, to_value};
use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use schedlab_model::file;
use schedlab_model::{Duration, Task, TaskRef, TaskSet, Tuf};
use serde_json::{json, Map, Value};
use std::hash::{Hash, Hasher};

/// A sporadic task (C, D, T) with its optional attributes; times in integer nanoseconds.
#[pyclass(frozen, name = "Task", module = "schedlab._native")]
pub(crate) struct PyTask {
    /// The task, its critical sections numbered by `resources`.
    pub(crate) task: Task,
    /// The names of the task's resources by its own ids (first appearance in the task).
    pub(crate) resources: Vec<String>,
}

impl PyTask {
    /// Task `t` of a set whose resource `r` is named `set.resource_name(r)`, renumbered.
    pub(crate) fn of_set(t: &Task, set: &TaskSet) -> PyTask {
        if t.critical_sections.is_empty() {
            return PyTask {
                task: t.clone(),
                resources: Vec::new(),
            };
        }
        let mut names = file::Resources::default();
        let mut task = t.clone();
        for cs in &mut task.critical_sections {
            // A task has at most MAX_CRITICAL_SECTIONS resources: the id always fits.
            cs.resource = names.id(&set.resource_name(cs.resource)).unwrap_or(0);
        }
        PyTask {
            task,
            resources: names.into_names(),
        }
    }

    /// The name of the task's resource `id`.
    fn resource_name(&self, id: u32) -> String {
        self.resources
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    /// The task-file form of this task (see [`task_value`]).
    pub(crate) fn value(&self, with_offset: bool) -> Value {
        task_value(&self.task, |r| self.resource_name(r), with_offset)
    }
}

/// Times as integer nanoseconds, as the Python API gives them.
fn ns(d: Duration) -> Value {
    Value::from(d.as_ns())
}

/// The task as a task-file object with integer times and sizes (`offset` only if non-zero
/// unless `with_offset`), the form the file validator reads back to the same task.
pub(crate) fn task_value(
    t: &Task,
    resource_name: impl Fn(u32) -> String,
    with_offset: bool,
) -> Value {
    let mut m = Map::new();
    if let Some(n) = &t.name {
        m.insert("name".into(), Value::from(n.as_str()));
    }
    m.insert("wcet".into(), Value::from(t.wcet.as_ns()));
    m.insert("period".into(), Value::from(t.period.as_ns()));
    m.insert("deadline".into(), Value::from(t.deadline.as_ns()));
    if with_offset || !t.offset.is_zero() {
        m.insert("offset".into(), Value::from(t.offset.as_ns()));
    }
    let optional = [
        ("priority", t.priority.map(Value::from)),
        ("utility", t.utility.map(Value::from)),
        ("wss", t.wss.map(Value::from)),
        ("cpu", t.cpu.map(Value::from)),
        ("cluster", t.cluster.map(Value::from)),
        ("affinity", t.affinity.clone().map(Value::from)),
        ("split", t.split.as_deref().map(split_value)),
        (
            "parallel",
            t.parallel.as_ref().map(|p| file::parallel_value(p, ns)),
        ),
        ("tuf", t.tuf.as_ref().map(|f| file::tuf_value(f, ns))),
        ("abortable", (!t.abortable).then_some(Value::Bool(false))),
        (
            "abort_cost",
            (!t.abort_cost.is_zero()).then(|| ns(t.abort_cost)),
        ),
        (
            "critical_sections",
            (!t.critical_sections.is_empty())
                .then(|| file::sections_value(&t.critical_sections, &resource_name, ns)),
        ),
        ("group", t.group.clone().map(Value::from)),
    ];
    for (key, value) in optional {
        if let Some(v) = value {
            m.insert(key.into(), v);
        }
    }
    Value::Object(m)
}

/// The parts of a split task as task-file objects `{"cpu", "budget"}` (budget in ns).
fn split_value(parts: &[schedlab_model::SplitPart]) -> Value {
    parts
        .iter()
        .map(|p| json!({"cpu": p.cpu, "budget": p.budget.as_ns()}))
        .collect()
}

/// Rewrites the validator's "task 0 (`name`)" (the task's place in a one-task file) as
/// "Task (`name`)": a lone task has no index yet.
fn lone_task_message(message: &str, name: Option<&str>) -> String {
    let place = TaskRef {
        index: 0,
        name: name.map(str::to_owned),
    }
    .to_string();
    match message.strip_prefix(&place) {
        Some(rest) => format!("Task{}", &place["task 0".len()..]) + rest,
        None => message.to_owned(),
    }
}

#[pymethods]
impl PyTask {
    #[new]
    #[pyo3(signature = (wcet=None, period=None, deadline=None, name=None, offset=None,
                        priority=None, utility=None, wss=None, cpu=None, cluster=None,
                        affinity=None, split=None, tuf=None, abortable=None, abort_cost=None,
                        critical_sections=None, parallel=None, group=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        wcet: Option<&Bound<'_, PyAny>>,
        period: Option<&Bound<'_, PyAny>>,
        deadline: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        offset: Option<&Bound<'_, PyAny>>,
        priority: Option<&Bound<'_, PyAny>>,
        utility: Option<&Bound<'_, PyAny>>,
        wss: Option<&Bound<'_, PyAny>>,
        cpu: Option<&Bound<'_, PyAny>>,
        cluster: Option<&Bound<'_, PyAny>>,
        affinity: Option<&Bound<'_, PyAny>>,
        split: Option<&Bound<'_, PyAny>>,
        tuf: Option<&Bound<'_, PyAny>>,
        abortable: Option<&Bound<'_, PyAny>>,
        abort_cost: Option<&Bound<'_, PyAny>>,
        critical_sections: Option<&Bound<'_, PyAny>>,
        parallel: Option<&Bound<'_, PyAny>>,
        group: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTask> {
        let given = [
            ("name", name),
            ("wcet", wcet),
            ("period", period),
            ("deadline", deadline),
            ("offset", offset),
            ("priority", priority),
            ("utility", utility),
            ("wss", wss),
            ("cpu", cpu),
            ("cluster", cluster),
            ("affinity", affinity),
            ("split", split),
            ("tuf", tuf),
            ("abortable", abortable),
            ("abort_cost", abort_cost),
            ("critical_sections", critical_sections),
            ("parallel", parallel),
        ];
        let label = name
            .and_then(|n| n.downcast::<PyString>().ok())
            .and_then(|s| s.to_cow().ok().map(|c| c.into_owned()));
        let mut fields = Map::new();
        for (key, value) in given {
            let Some(value) = value.filter(|v| !v.is_none()) else {
                continue;
            };
            let value = to_value(value).map_err(|e| {
                err(lone_task_message(
                    &format!(
                        "task 0{}: field `{key}`: {e}",
                        name_suffix(label.as_deref())
                    ),
                    label.as_deref(),
                ))
            })?;
            fields.insert(key.into(), value);
        }
        // A lone task's group is checked against the groups of the set it joins: here it
        // only has to be a name here, so it is kept out of the one-task file read below.
        let group = match group.filter(|g| !g.is_none()) {
            None => None,
            Some(g) => Some(
                g.downcast::<PyString>()
                    .ok()
                    .and_then(|s| s.to_cow().ok().map(|c| c.into_owned()))
                    .ok_or_else(|| {
                        err(lone_task_message(
                            &format!(
                                "task 0{}: field `group`: must be a group's name, got {g}",
                                name_suffix(label.as_deref())
                            ),
                            label.as_deref(),
                        ))
                    })?,
            ),
        };
        let doc = json!({ "tasks": [Value::Object(fields)] });
        let parsed = file::from_value(&doc)
            .map_err(|e| err(lone_task_message(&e.to_string(), label.as_deref())))?;
        let task = parsed
            .tasks
            .first()
            .ok_or_else(|| err("no task was read"))?;
        let mut task = PyTask::of_set(task, &parsed.tasks);
        task.task.group = group;
        Ok(task)
    }

    /// Worst-case execution time C (ns).
    #[getter]
    fn wcet(&self) -> u64 {
        self.task.wcet.as_ns()
    }
    /// Period or minimum inter-arrival time T (ns).
    #[getter]
    fn period(&self) -> u64 {
        self.task.period.as_ns()
    }
    /// Relative deadline D (ns).
    #[getter]
    fn deadline(&self) -> u64 {
        self.task.deadline.as_ns()
    }
    /// The task's name, if it has one.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.task.name.as_deref()
    }
    /// Release offset of the first job (ns).
    #[getter]
    fn offset(&self) -> u64 {
        self.task.offset.as_ns()
    }
    /// Fixed priority for `priorities="given"` (smaller = higher).
    #[getter]
    fn priority(&self) -> Option<u32> {
        self.task.priority
    }
    /// Utility of a job that meets its deadline.
    #[getter]
    fn utility(&self) -> Option<f64> {
        self.task.utility
    }
    /// Working-set size in bytes.
    #[getter]
    fn wss(&self) -> Option<u64> {
        self.task.wss
    }
    /// CPU for partitioned policies (0-based).
    #[getter]
    fn cpu(&self) -> Option<u32> {
        self.task.cpu
    }
    /// Cluster for clustered policies (0-based).
    #[getter]
    fn cluster(&self) -> Option<u32> {
        self.task.cluster
    }
    /// CPUs the task may run on (`None`: all).
    #[getter]
    fn affinity(&self) -> Option<Vec<u32>> {
        self.task.affinity.clone()
    }
    /// The parts of a split task in execution order, as `{"cpu", "budget"}` dicts (budget in
    /// ns), for `policy="pfp-ts"`; `None` for a whole task.
    #[getter]
    fn split<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.task
            .split
            .as_deref()
            .map(|p| to_py(py, &split_value(p)))
            .transpose()
    }
    /// The time/utility function as a dict in the task-file form (`{"kind": "step", "value":
    /// V}`, `{"kind": "linear", "value": V, "zero_at": ns}` or `{"kind": "points", "points":
    /// [[ns, V], …]}`); `None` if the task gives none (then `utility`, if any, is the step).
    #[getter]
    fn tuf<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.task
            .tuf
            .as_ref()
            .map(|f| to_py(py, &file::tuf_value(f, ns)))
            .transpose()
    }
    /// Whether a scheduler may abort the task's jobs (default True).
    #[getter]
    fn abortable(&self) -> bool {
        self.task.abortable
    }
    /// Execution time of the abort handler of a job aborted after it started (ns).
    #[getter]
    fn abort_cost(&self) -> u64 {
        self.task.abort_cost.as_ns()
    }
    /// Critical sections as `{"resource": name, "start": ns, "length": ns}` dicts, in the
    /// order given (offsets into the job's execution).
    #[getter]
    fn critical_sections<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        // Built here rather than from the JSON form, to keep the file's key order.
        let list = PyList::empty(py);
        for cs in &self.task.critical_sections {
            let d = PyDict::new(py);
            d.set_item("resource", self.resource_name(cs.resource))?;
            d.set_item("start", cs.start.as_ns())?;
            d.set_item("length", cs.length.as_ns())?;
            list.append(d)?;
        }
        Ok(list)
    }
    /// The name of the reservation group the task runs in, if any.
    #[getter]
    fn group(&self) -> Option<String> {
        self.task.group.clone()
    }

    /// The regions of a parallel (fork-join) task, each a list of thread lengths (ns), in
    /// order [RTWS §III]; `None` for a sequential task.
    #[getter]
    fn parallel(&self) -> Option<Vec<Vec<u64>>> {
        self.task.parallel.as_ref().map(|p| {
            p.regions()
                .iter()
                .map(|r| r.threads.iter().map(|d| d.as_ns()).collect())
                .collect()
        })
    }
    /// The work T1 (ns): the sum of all threads of a parallel task, its `wcet`; `wcet` for a
    /// sequential task.
    #[getter]
    fn work(&self) -> u64 {
        self.task
            .parallel
            .as_ref()
            .map_or(self.task.wcet, |p| p.work())
            .as_ns()
    }
    /// The critical path T∞ (ns): the sum over regions of the longest thread of a parallel
    /// task; `wcet` for a sequential task (one region of one thread).
    #[getter]
    fn critical_path(&self) -> u64 {
        self.task
            .parallel
            .as_ref()
            .map_or(self.task.wcet, |p| p.critical_path())
            .as_ns()
    }
    /// C / T.
    #[getter]
    fn utilization(&self) -> f64 {
        self.task.utilization()
    }
    /// C / min(D, T).
    #[getter]
    fn density(&self) -> f64 {
        self.task.density()
    }

    /// The task-file form of this task (integer ns; omits unset optional fields).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.value(false))
    }

    /// A copy with some fields changed (keyword arguments as for the constructor).
    #[pyo3(signature = (**changes))]
    fn replace<'py>(
        &self,
        py: Python<'py>,
        changes: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let kwargs = self.to_dict(py)?.downcast_into::<PyDict>()?;
        if let Some(changes) = changes {
            kwargs.update(changes.as_mapping())?;
        }
        py.get_type::<PyTask>().call((), Some(&kwargs))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let t = &self.task;
        let opt = |v: Option<String>| v.unwrap_or_else(|| "None".into());
        let name = match &t.name {
            Some(n) => PyString::new(py, n).repr()?.to_string(),
            None => "None".into(),
        };
        Ok(format!(
            "Task(wcet={}, period={}, deadline={}, name={name}, offset={}, priority={}, utility={}, wss={}, cpu={}, cluster={}, affinity={}, split={}",
            t.wcet.as_ns(),
            t.period.as_ns(),
            t.deadline.as_ns(),
            t.offset.as_ns(),
            opt(t.priority.map(|p| p.to_string())),
            opt(t.utility.map(|u| PyFloatRepr(u).to_string())),
            opt(t.wss.map(|w| w.to_string())),
            opt(t.cpu.map(|c| c.to_string())),
            opt(t.cluster.map(|c| c.to_string())),
            opt(t.affinity.as_ref().map(|a| format!("{a:?}"))),
            opt(t.split.as_ref().map(|parts| {
                let parts: Vec<String> = parts
                    .iter()
                    .map(|p| format!("{{'cpu': {}, 'budget': {}}}", p.cpu, p.budget.as_ns()))
                    .collect();
                format!("[{}]", parts.join(", "))
            })),
        ) + &self.extra_repr(py)?
            + ")")
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<PyObject> {
        let py = other.py();
        let Ok(other) = other.downcast::<PyTask>() else {
            return Ok(py.NotImplemented());
        };
        let other = other.get();
        let equal = self.task == other.task && self.resources == other.resources;
        match op {
            CompareOp::Eq => equal.into_py_any(py),
            CompareOp::Ne => (!equal).into_py_any(py),
            _ => Ok(py.NotImplemented()),
        }
    }

    fn __hash__(&self) -> u64 {
        let t = &self.task;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (t.wcet, t.period, t.deadline, t.offset, &t.name).hash(&mut h);
        (t.priority, t.utility.map(f64::to_bits), t.wss).hash(&mut h);
        (t.cpu, t.cluster, &t.affinity, &t.split, &t.parallel).hash(&mut h);
        // `+ 0.0` makes -0 and 0 (equal values) hash alike.
        let tuf_bits: Vec<(u64, u64)> = match &t.tuf {
            None => Vec::new(),
            Some(Tuf::Step { value }) => vec![(0, (value + 0.0).to_bits())],
            Some(Tuf::Linear { value, zero_at }) => {
                vec![(zero_at.as_ns(), (value + 0.0).to_bits())]
            }
            Some(Tuf::Points(p)) => p
                .iter()
                .map(|(t, v)| (t.as_ns(), (v + 0.0).to_bits()))
                .collect(),
        };
        (
            tuf_bits,
            t.abortable,
            t.abort_cost,
            &t.critical_sections,
            &self.resources,
        )
            .hash(&mut h);
        h.finish()
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let kwargs = self.to_dict(py)?;
        let cls = py.get_type::<PyTask>();
        let restore = py
            .import("functools")?
            .getattr("partial")?
            .call((cls,), Some(kwargs.downcast::<PyDict>()?))?;
        Ok((restore, PyTuple::empty(py)))
    }
}

impl PyTask {
    /// The fields after `split` for `repr`, each only if it differs from the default:
    /// `, parallel=[[...], ...], tuf={...}, abortable=False, abort_cost=N,
    /// critical_sections=[...]`.
    fn extra_repr(&self, py: Python<'_>) -> PyResult<String> {
        let t = &self.task;
        let mut out = String::new();
        if let Some(regions) = self.parallel() {
            out += &format!(", parallel={regions:?}");
        }
        if t.tuf.is_some() {
            out += &format!(
                ", tuf={}",
                self.tuf(py)?
                    .map_or(Ok(String::new()), |d| d.repr().map(|r| r.to_string()))?
            );
        }
        if !t.abortable {
            out += ", abortable=False";
        }
        if !t.abort_cost.is_zero() {
            out += &format!(", abort_cost={}", t.abort_cost.as_ns());
        }
        if !t.critical_sections.is_empty() {
            out += &format!(
                ", critical_sections={}",
                self.critical_sections(py)?.repr()?
            );
        }
        if let Some(g) = &t.group {
            out += &format!(", group={}", PyString::new(py, g).repr()?);
        }
        Ok(out)
    }
}

fn name_suffix(name: Option<&str>) -> String {
    name.map(|n| format!(" (`{n}`)")).unwrap_or_default()
}

/// A float as Python prints it (`0.5`, `2.0`).
struct PyFloatRepr(f64);

impl std::fmt::Display for PyFloatRepr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_finite() && self.0.fract() == 0.0 && self.0.abs() < 1e16 {
            write!(f, "{:.1}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}
