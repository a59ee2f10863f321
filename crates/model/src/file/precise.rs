//! The precise path of reading a task file: the whole text as one JSON value (TOML is converted
//! to the same value), walked by one validator, so that both formats accept exactly the same
//! files and give the same messages. Every message about a task file comes from here: unknown
//! fields name the likely intended one, values name the task and the field.
//!
//! Files that are well formed are read by the faster typed path ([`super::typed`]); this one
//! runs on the rest, to say what is wrong, and on values that are already JSON (Python).

use super::ua::Resources;
use super::{TaskFile, PLATFORM_FIELDS, TASK_FIELDS, TOP_FIELDS};
use crate::error::{suggest, ModelError, TaskRef};
use crate::platform::Platform;
use crate::size::parse_bytes;
use crate::task::{SplitPart, Task};
use crate::taskset::TaskSet;
use crate::time::Duration;
use serde_json::{Map, Value};

/// Reads a task file through the precise validator (see the module doc).
pub(super) fn parse_str(text: &str, format: super::Format) -> Result<TaskFile, ModelError> {
    let value: Value = match format {
        super::Format::Json => serde_json::from_str(text)
            .map_err(|e| ModelError::Syntax(format!("malformed JSON: {e}")))?,
        super::Format::Toml => toml::from_str(text).map_err(|e| {
            ModelError::Syntax(format!("malformed TOML: {}", e.to_string().trim_end()))
        })?,
    };
    from_value(&value)
}

/// Builds a task file from an already-parsed JSON value (also used by the Python bindings).
pub fn from_value(value: &Value) -> Result<TaskFile, ModelError> {
    let top = value.as_object().ok_or_else(|| {
        ModelError::Syntax("a task-set file is a table/object with a `tasks` list".into())
    })?;
    check_fields(top, TOP_FIELDS, "top level")?;
    let list = top
        .get("tasks")
        .ok_or_else(|| ModelError::Syntax("missing `tasks` list".into()))?
        .as_array()
        .ok_or_else(|| ModelError::Syntax("`tasks` must be a list".into()))?;
    let groups = match top.get("groups") {
        None => Vec::new(),
        Some(v) => super::groups::read_groups(v)?,
    };
    let mut tasks = Vec::with_capacity(list.len());
    let mut resources = Resources::default();
    for (index, entry) in list.iter().enumerate() {
        tasks.push(task_from_value_in(index, entry, &mut resources)?);
    }
    let tasks = TaskSet::with_groups(tasks, resources.into_names(), groups)?;
    let platform = match top.get("platform") {
        None => None,
        Some(p) => Some(platform_from_value(p)?),
    };
    if let Some(p) = &platform {
        super::groups::check_cpus(tasks.groups(), p)?;
    }
    Ok(TaskFile { tasks, platform })
}

fn check_fields(obj: &Map<String, Value>, known: &[&str], place: &str) -> Result<(), ModelError> {
    for key in obj.keys() {
        if !known.contains(&key.as_str()) {
            return Err(ModelError::UnknownField {
                place: place.to_string(),
                field: key.clone(),
                suggestion: suggest(key, known),
                known: known.join(", "),
            });
        }
    }
    Ok(())
}

/// One task of a file (the `index`-th, for messages) from its JSON object, validated on its
/// own, with the file's messages; its resources get ids in order of first appearance in the
/// task (use [`from_value`] for a whole set, whose resources are numbered across its tasks).
pub fn task_from_value(index: usize, entry: &Value) -> Result<Task, ModelError> {
    task_from_value_in(index, entry, &mut Resources::default())
}

/// [`task_from_value`] with the resource names of the set so far (new names are added).
pub fn task_from_value_in(
    index: usize,
    entry: &Value,
    resources: &mut Resources,
) -> Result<Task, ModelError> {
    let anonymous = TaskRef { index, name: None };
    let obj = entry
        .as_object()
        .ok_or_else(|| ModelError::Syntax(format!("{anonymous}: a task must be a table/object")))?;
    let name = match obj.get("name") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(ModelError::InvalidField {
                task: anonymous,
                field: "name".into(),
                message: format!("must be a string, got {other}"),
            })
        }
    };
    let who = TaskRef { index, name };
    check_fields(obj, TASK_FIELDS, &who.to_string())?;
    let invalid = |field: &str, message: String| ModelError::InvalidField {
        task: who.clone(),
        field: field.to_string(),
        message,
    };
    let time = |field: &str| -> Result<Option<Duration>, ModelError> {
        match obj.get(field) {
            None => Ok(None),
            Some(v) => read_time(v).map(Some).map_err(|m| invalid(field, m)),
        }
    };
    let required = |field: &str| -> Result<Duration, ModelError> {
        time(field)?.ok_or_else(|| ModelError::MissingField {
            task: who.clone(),
            field: field.to_string(),
        })
    };
    // A parallel task's WCET may be left out: it is then the work of its threads.
    let parallel = match obj.get("parallel") {
        None => None,
        Some(v) => Some(super::par::read_parallel(v).map_err(|m| invalid("parallel", m))?),
    };
    let wcet = match (time("wcet")?, &parallel) {
        (Some(wcet), _) => wcet,
        (None, Some(p)) => p.work(),
        (None, None) => required("wcet")?,
    };
    let period = required("period")?;
    let given_deadline = time("deadline")?;
    let deadline = given_deadline.unwrap_or(period);
    let mut task = Task::new_unchecked(wcet, deadline, period);
    task.name = who.name.clone();
    task.parallel = parallel;
    task.offset = time("offset")?.unwrap_or(Duration::ZERO);
    let small_int = |field: &str| -> Result<Option<u32>, ModelError> {
        match obj.get(field) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|x| u32::try_from(x).ok())
                .map(Some)
                .ok_or_else(|| {
                    invalid(
                        field,
                        format!("must be an integer from 0 to 4294967295, got {v}"),
                    )
                }),
        }
    };
    task.priority = small_int("priority")?;
    task.cpu = small_int("cpu")?;
    task.cluster = small_int("cluster")?;
    task.utility = match obj.get("utility") {
        None => None,
        Some(v) => match v.as_f64() {
            Some(u) if u.is_finite() && u >= 0.0 => Some(u),
            _ => return Err(invalid("utility", format!("must be a number ≥ 0, got {v}"))),
        },
    };
    task.wss = match obj.get("wss") {
        None => None,
        Some(Value::String(s)) => Some(parse_bytes(s).map_err(|m| invalid("wss", m))?),
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            invalid(
                "wss",
                format!("must be a size such as \"64KiB\" or a byte count, got {v}"),
            )
        })?),
    };
    task.split = match obj.get("split") {
        None => None,
        Some(v) => Some(read_split(v).map_err(|m| invalid("split", m))?),
    };
    task.affinity = match obj.get("affinity") {
        None => None,
        Some(Value::Array(cpus)) => {
            let mut list = Vec::with_capacity(cpus.len());
            for c in cpus {
                list.push(
                    c.as_u64()
                        .and_then(|x| u32::try_from(x).ok())
                        .ok_or_else(|| {
                            invalid("affinity", format!("CPU numbers are integers ≥ 0, got {c}"))
                        })?,
                );
            }
            Some(list)
        }
        Some(v) => {
            return Err(invalid(
                "affinity",
                format!("must be a list of CPU numbers, got {v}"),
            ))
        }
    };
    task.group = match obj.get("group") {
        None => None,
        Some(v) => Some(super::groups::read_task_group(v).map_err(|m| invalid("group", m))?),
    };
    super::ua::read_fields(obj, &mut task, resources).map_err(|(f, m)| invalid(f, m))?;
    task.validate_in(index, resources.names())
        .map_err(|e| match given_deadline {
            Some(_) => e,
            None => e.with_implicit_deadline(),
        })?;
    Ok(task)
}

/// Field names a part of `split` accepts.
pub(super) const SPLIT_FIELDS: &[&str] = &["cpu", "budget"];

/// The parts of `split`: a list of `{cpu, budget}` tables in execution order (checked against
/// the WCET later, by [`Task::validate`]).
fn read_split(v: &Value) -> Result<Vec<SplitPart>, String> {
    let Value::Array(list) = v else {
        return Err(format!(
            "must be a list of parts such as [{{cpu = 0, budget = \"3ms\"}}, {{cpu = 1, budget = \"2ms\"}}], got {v}"
        ));
    };
    let mut parts = Vec::with_capacity(list.len());
    for (k, entry) in list.iter().enumerate() {
        let Value::Object(o) = entry else {
            return Err(format!(
                "part {k}: must be a table/object {{cpu, budget}}, got {entry}"
            ));
        };
        if let Some(key) = o.keys().find(|k| !SPLIT_FIELDS.contains(&k.as_str())) {
            let hint = match suggest(key, SPLIT_FIELDS) {
                Some(s) => format!(" (did you mean `{s}`?)"),
                None => " (known: cpu, budget)".to_string(),
            };
            return Err(format!("part {k}: unknown field `{key}`{hint}"));
        }
        let cpu = match o.get("cpu") {
            None => return Err(format!("part {k}: missing field `cpu`")),
            Some(c) => c
                .as_u64()
                .and_then(|x| u32::try_from(x).ok())
                .ok_or_else(|| {
                    format!("part {k}: `cpu` must be an integer from 0 to 4294967295, got {c}")
                })?,
        };
        let budget = match o.get("budget") {
            None => return Err(format!("part {k}: missing field `budget`")),
            Some(b) => read_time(b).map_err(|m| format!("part {k}: `budget`: {m}"))?,
        };
        parts.push(SplitPart { cpu, budget });
    }
    Ok(parts)
}

pub(super) fn read_time(v: &Value) -> Result<Duration, String> {
    match v {
        Value::String(s) => s.parse::<Duration>().map_err(|e| e.to_string()),
        Value::Number(n) => {
            if let Some(ns) = n.as_u64() {
                Ok(Duration::from_ns(ns))
            } else if n.as_i64().is_some_and(|x| x < 0) || n.as_f64().is_some_and(|x| x < 0.0) {
                Err(format!("negative time {n}"))
            } else if n
                .as_f64()
                .is_some_and(|x| x.fract() == 0.0 && x >= u64::MAX as f64)
            {
                Err(format!(
                    "time {n} ns is too large (the limit is 2^64-1 ns, about 584 years)"
                ))
            } else {
                Err(format!(
                    "{n} is not an integer number of nanoseconds (write \"{n}ms\" or similar for other units)"
                ))
            }
        }
        Value::Object(o) if o.keys().any(|k| k.contains("datetime")) => {
            Err("expected a time length such as \"2ms\", got a date-time".to_string())
        }
        other => Err(format!(
            "expected a time such as \"2ms\" or an integer number of nanoseconds, got {other}"
        )),
    }
}

fn platform_from_value(v: &Value) -> Result<Platform, ModelError> {
    let obj = v.as_object().ok_or_else(|| ModelError::InvalidPlatform {
        field: "platform".into(),
        message: "must be a table/object such as {\"cpus\": 4}".into(),
    })?;
    check_fields(obj, PLATFORM_FIELDS, "platform")?;
    let int = |field: &str| -> Result<Option<u32>, ModelError> {
        match obj.get(field) {
            None => Ok(None),
            Some(x) => x
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| ModelError::InvalidPlatform {
                    field: field.into(),
                    message: format!("must be a positive integer, got {x}"),
                }),
        }
    };
    let cpus = int("cpus")?.ok_or_else(|| ModelError::InvalidPlatform {
        field: "cpus".into(),
        message: "missing".into(),
    })?;
    let p = Platform {
        cpus,
        cluster_size: int("cluster_size")?,
    };
    p.validate()?;
    Ok(p)
}
