//! Task sets from what Python hands over: a `TaskSet` (used as is), a task-file document as a
//! dict, or an iterable of task dicts and `Task`s. Dicts go through the model's file validator
//! (the same checks and messages as task files, each task named by its index in the list).

use crate::args::Cpus;
use crate::err;
use crate::pyvalue::to_value;
use crate::task::PyTask;
use crate::taskset::PyTaskSet;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use schedlab_model::file;
use schedlab_model::{ModelError, Platform, TaskRef, TaskSet};
use serde_json::{Map, Value};

/// Builds a task set from what Python hands to `TaskSet(...)`, `analyze(...)` and the other
/// calls that take a task set: a `TaskSet` (used as is), a task-file document as a dict
/// (`{"tasks": [...], "platform": {...}}`), or an iterable of task dicts and `Task`s.
pub(crate) fn taskset_of<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTaskSet>> {
    if let Ok(ts) = obj.downcast::<PyTaskSet>() {
        return Ok(ts.clone());
    }
    Bound::new(obj.py(), build(obj, None)?)
}

pub(crate) fn build(obj: &Bound<'_, PyAny>, cpus: Option<Cpus>) -> PyResult<PyTaskSet> {
    let mut set = if let Ok(ts) = obj.downcast::<PyTaskSet>() {
        let ts = ts.get();
        PyTaskSet {
            tasks: ts.tasks.clone(),
            platform: ts.platform.clone(),
            realised_utilization: ts.realised_utilization,
        }
    } else if let Ok(doc) = obj.downcast::<PyDict>() {
        let value = to_value(doc.as_any()).map_err(err)?;
        PyTaskSet::of_file(file::from_value(&value).map_err(err)?)
    } else {
        from_entries(obj)?
    };
    if let Some(Cpus(m)) = cpus {
        set.platform = Some(Platform::new(m).map_err(err)?);
    }
    Ok(set)
}

/// A task set with reservation groups (`TaskSet(tasks, groups=[...])`): the tasks as a
/// task-file document (whatever `tasks` is), its `groups` replaced by `groups`, read by the
/// file validator, which checks the groups and the tasks' `group` names together.
pub(crate) fn build_with_groups(
    obj: &Bound<'_, PyAny>,
    cpus: Option<Cpus>,
    groups: &Bound<'_, PyAny>,
) -> PyResult<PyTaskSet> {
    let mut doc = if let Ok(ts) = obj.downcast::<PyTaskSet>() {
        ts.get().document()
    } else if let Ok(dict) = obj.downcast::<PyDict>() {
        to_value(dict.as_any()).map_err(err)?
    } else {
        let mut list = Vec::new();
        for (index, item) in iterate(obj)?.iter().enumerate() {
            list.push(entry_value(index, item)?);
        }
        let mut top = Map::new();
        top.insert("tasks".into(), Value::Array(list));
        Value::Object(top)
    };
    let groups = to_value(groups).map_err(|e| err(format!("groups: {e}")))?;
    let Value::Object(top) = &mut doc else {
        return Err(err("a task-set document is a dict with a `tasks` list"));
    };
    if top.contains_key("groups") {
        return Err(err(
            "groups are given twice: in the task-set document and as groups=",
        ));
    }
    top.insert("groups".into(), groups);
    let mut set = PyTaskSet::of_file(file::from_value(&doc).map_err(err)?);
    if let Some(Cpus(m)) = cpus {
        set.platform = Some(Platform::new(m).map_err(err)?);
    }
    Ok(set)
}

/// The items of an iterable of task dicts or `Task`s.
fn iterate<'py>(entries: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if entries.is_instance_of::<PyString>() {
        return Err(err(
            "a task set is a list of task dicts or Tasks (to read a file, use schedlab.load)",
        ));
    }
    entries
        .try_iter()
        .map_err(|_| {
            err(format!(
                "a task set is a list of task dicts or Tasks, got {}",
                entries
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?
        .collect::<PyResult<_>>()
}

/// Tasks from an iterable of `Task`s (checked together for unique names) or of task dicts
/// (read by the file validator with their index in the list).
fn from_entries(entries: &Bound<'_, PyAny>) -> PyResult<PyTaskSet> {
    let items = iterate(entries)?;
    // `Task`s without critical sections are used as they are; resources need numbering
    // across the set, which the file validator does (below).
    let plain = |t: &Bound<'_, PyAny>| {
        t.downcast::<PyTask>()
            .is_ok_and(|t| t.get().task.critical_sections.is_empty())
    };
    if items.iter().all(plain) {
        let tasks = items
            .iter()
            .filter_map(|t| t.downcast::<PyTask>().ok().map(|t| t.get().task.clone()))
            .collect();
        return Ok(PyTaskSet {
            tasks: TaskSet::new(tasks).map_err(err)?,
            platform: None,
            realised_utilization: None,
        });
    }
    let mut list = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        list.push(entry_value(index, item)?);
    }
    let mut top = Map::new();
    top.insert("tasks".into(), Value::Array(list));
    Ok(PyTaskSet::of_file(
        file::from_value(&Value::Object(top)).map_err(err)?,
    ))
}

/// One entry of a task list as a JSON value; a field that cannot be converted is reported
/// like the validator reports a bad field.
fn entry_value(index: usize, item: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(task) = item.downcast::<PyTask>() {
        return Ok(task.get().value(false));
    }
    let Ok(dict) = item.downcast::<PyDict>() else {
        return to_value(item).map_err(|e| err(format!("task {index}: {e}")));
    };
    let name = dict.get_item("name")?.and_then(|n| {
        n.downcast::<PyString>()
            .ok()
            .and_then(|s| s.to_cow().ok().map(|c| c.into_owned()))
    });
    let mut map = Map::new();
    for (key, value) in dict.iter() {
        let key = key
            .downcast::<PyString>()
            .map_err(|_| err(format!("task {index}: field names are strings, got {key}")))?
            .to_cow()?
            .into_owned();
        let value = to_value(&value).map_err(|message| {
            err(ModelError::InvalidField {
                task: TaskRef {
                    index,
                    name: name.clone(),
                },
                field: key.clone(),
                message,
            })
        })?;
        map.insert(key, value);
    }
    Ok(Value::Object(map))
}
