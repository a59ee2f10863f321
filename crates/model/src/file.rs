//! Task-set files in JSON and TOML, one schema (documented in `docs/task-files.md`):
//!
//! ```json
//! {"platform": {"cpus": 4},
//!  "tasks": [{"name": "t1", "wcet": "2ms", "period": "10ms", "deadline": "8ms"}]}
//! ```
//!
//! Both formats are read into one JSON value and walked by one validator, so that they accept
//! exactly the same files and give the same messages. Unknown fields are errors that name the
//! likely intended field. Times are integers (ns) or strings with a unit (see [`crate::time`]).

use crate::error::{suggest, ModelError, TaskRef};
use crate::platform::Platform;
use crate::size::{format_bytes, parse_bytes};
use crate::task::Task;
use crate::taskset::TaskSet;
use crate::time::{format_ns, Duration};
use serde_json::{Map, Value};
use std::path::Path;

/// File format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// TOML.
    Toml,
}

impl Format {
    /// The format a path's extension names (`.json`, `.toml`), if any.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "toml" => Some(Format::Toml),
            _ => None,
        }
    }
    /// Guesses from content: JSON starts with `{`.
    pub fn sniff(text: &str) -> Format {
        if text.trim_start().starts_with('{') {
            Format::Json
        } else {
            Format::Toml
        }
    }
}

/// The contents of a task-set file.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskFile {
    /// The tasks, validated.
    pub tasks: TaskSet,
    /// The platform, if the file gives one.
    pub platform: Option<Platform>,
}

/// Field names a task accepts.
pub const TASK_FIELDS: &[&str] = &[
    "name", "wcet", "period", "deadline", "offset", "priority", "utility", "wss", "cpu", "cluster",
    "affinity",
];
const TOP_FIELDS: &[&str] = &["tasks", "platform"];
const PLATFORM_FIELDS: &[&str] = &["cpus", "cluster_size"];

/// Parses a task-set file from text.
pub fn parse_str(text: &str, format: Format) -> Result<TaskFile, ModelError> {
    let value: Value = match format {
        Format::Json => serde_json::from_str(text)
            .map_err(|e| ModelError::Syntax(format!("malformed JSON: {e}")))?,
        Format::Toml => toml::from_str(text).map_err(|e| {
            ModelError::Syntax(format!("malformed TOML: {}", e.to_string().trim_end()))
        })?,
    };
    from_value(&value)
}

/// Reads a task-set file; the format comes from the extension, else from the content.
pub fn load(path: &Path) -> Result<TaskFile, ModelError> {
    let text = std::fs::read_to_string(path).map_err(|e| ModelError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let format = Format::from_path(path).unwrap_or_else(|| Format::sniff(&text));
    parse_str(&text, format).map_err(|e| match e {
        ModelError::Syntax(m) => ModelError::Syntax(format!("{}: {m}", path.display())),
        other => other,
    })
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
    let mut tasks = Vec::with_capacity(list.len());
    for (index, entry) in list.iter().enumerate() {
        tasks.push(task_from_value(index, entry)?);
    }
    let tasks = TaskSet::new(tasks)?;
    let platform = match top.get("platform") {
        None => None,
        Some(p) => Some(platform_from_value(p)?),
    };
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

fn task_from_value(index: usize, entry: &Value) -> Result<Task, ModelError> {
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
    let wcet = required("wcet")?;
    let period = required("period")?;
    let deadline = time("deadline")?.unwrap_or(period);
    let mut task = Task::new_unchecked(wcet, deadline, period);
    task.name = who.name.clone();
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
    task.validate(index)?;
    Ok(task)
}

fn read_time(v: &Value) -> Result<Duration, String> {
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

/// The file's JSON value (times as exact strings in the most readable unit).
pub fn to_value(file: &TaskFile) -> Value {
    let tasks: Vec<Value> = file.tasks.iter().map(task_to_value).collect();
    let mut top = Map::new();
    if let Some(p) = &file.platform {
        let mut pm = Map::new();
        pm.insert("cpus".into(), Value::from(p.cpus));
        if let Some(k) = p.cluster_size {
            pm.insert("cluster_size".into(), Value::from(k));
        }
        top.insert("platform".into(), Value::Object(pm));
    }
    top.insert("tasks".into(), Value::Array(tasks));
    Value::Object(top)
}

fn task_to_value(t: &Task) -> Value {
    let mut m = Map::new();
    if let Some(n) = &t.name {
        m.insert("name".into(), Value::from(n.clone()));
    }
    m.insert("wcet".into(), Value::from(format_ns(t.wcet.as_ns())));
    m.insert("period".into(), Value::from(format_ns(t.period.as_ns())));
    if t.deadline != t.period {
        m.insert(
            "deadline".into(),
            Value::from(format_ns(t.deadline.as_ns())),
        );
    }
    if !t.offset.is_zero() {
        m.insert("offset".into(), Value::from(format_ns(t.offset.as_ns())));
    }
    if let Some(p) = t.priority {
        m.insert("priority".into(), Value::from(p));
    }
    if let Some(u) = t.utility {
        m.insert("utility".into(), Value::from(u));
    }
    if let Some(w) = t.wss {
        m.insert("wss".into(), Value::from(format_bytes(w)));
    }
    if let Some(c) = t.cpu {
        m.insert("cpu".into(), Value::from(c));
    }
    if let Some(c) = t.cluster {
        m.insert("cluster".into(), Value::from(c));
    }
    if let Some(a) = &t.affinity {
        m.insert("affinity".into(), Value::from(a.clone()));
    }
    Value::Object(m)
}

/// Writes the file as text in `format`.
pub fn to_string(file: &TaskFile, format: Format) -> Result<String, ModelError> {
    let value = to_value(file);
    match format {
        Format::Json => serde_json::to_string_pretty(&value)
            .map(|s| s + "\n")
            .map_err(|e| ModelError::Syntax(e.to_string())),
        Format::Toml => toml::to_string(&value).map_err(|e| ModelError::Syntax(e.to_string())),
    }
}

/// Writes the file to `path`; the format comes from the extension (JSON if none).
pub fn save(file: &TaskFile, path: &Path) -> Result<(), ModelError> {
    let text = to_string(file, Format::from_path(path).unwrap_or(Format::Json))?;
    std::fs::write(path, text).map_err(|e| ModelError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_the_documented_example() {
        let f = parse_str(
            r#"{"platform": {"cpus": 4}, "tasks": [{"name": "t1", "wcet": "2ms", "period": "10ms", "deadline": "8ms"}, {"wcet": 1000, "period": "1.5ms"}]}"#,
            Format::Json,
        )
        .unwrap();
        assert_eq!(f.platform.as_ref().map(|p| p.cpus), Some(4));
        assert_eq!(f.tasks[0].deadline, Duration::from_ms(8).unwrap());
        assert_eq!(f.tasks[1].deadline, Duration::from_ns(1_500_000));
        let toml_text = to_string(&f, Format::Toml).unwrap();
        let again = parse_str(&toml_text, Format::Toml).unwrap();
        assert_eq!(again, f);
        let json_text = to_string(&f, Format::Json).unwrap();
        assert_eq!(parse_str(&json_text, Format::Json).unwrap(), f);
    }

    #[test]
    fn toml_form() {
        let f = parse_str(
            "[platform]\ncpus = 2\n\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\nwss = \"64KiB\"\n",
            Format::Toml,
        )
        .unwrap();
        assert_eq!(f.tasks[0].wss, Some(65_536));
    }

    fn error_of(text: &str) -> String {
        parse_str(text, Format::sniff(text))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn messages_name_task_and_field() {
        assert_eq!(
            error_of(r#"{"tasks": [{"name": "t1", "wcet": "2ms", "perod": "10ms"}]}"#),
            "task 0 (`t1`): unknown field `perod` (did you mean `period`?)"
        );
        assert_eq!(
            error_of(r#"{"tasks": [{"wcet": "2ms"}]}"#),
            "task 0: missing field `period`"
        );
        assert_eq!(
            error_of(r#"{"tasks": [{"name": "x", "wcet": "20ms", "period": "10ms"}]}"#),
            "task 0 (`x`): wcet 20ms exceeds deadline 10ms"
        );
        assert_eq!(
            error_of(r#"{"tasks": [{"name": "x", "wcet": "0ms", "period": "10ms"}]}"#),
            "task 0 (`x`): field `wcet`: must be greater than zero"
        );
        assert!(error_of(r#"{"tasks": [{"wcet": -3, "period": 10}]}"#).contains("negative"));
        assert!(error_of(r#"{"tasks": [{"wcet": 1.5, "period": 10}]}"#).contains("not an integer"));
        assert!(
            error_of(r#"{"tasks": [{"wcet": "2 parsecs", "period": 10}]}"#)
                .contains("field `wcet`")
        );
        assert!(
            error_of(r#"{"tasks": [{"wcet": "99999999999s", "period": 10}]}"#)
                .contains("too large")
        );
        assert!(error_of(r#"{"tasks": [], "platfrom": {}}"#).contains("did you mean `platform`"));
        assert!(error_of(r#"{"tasks": [], "platform": {"cpus": 0}}"#).contains("cpus"));
        assert!(error_of(r#"{"tasks": [1, 2]"#).contains("malformed JSON"));
        assert!(error_of("tasks = 3").contains("must be a list"));
        assert!(error_of(r#"{"tasks": [{"name": "a", "wcet": 1, "period": 2}, {"name": "a", "wcet": 1, "period": 2}]}"#)
            .contains("duplicate task name `a`"));
    }

    #[test]
    fn arbitrary_deadlines_are_valid() {
        let f = parse_str(
            r#"{"tasks": [{"wcet": 3, "period": 10, "deadline": 20}]}"#,
            Format::Json,
        )
        .unwrap();
        assert!(!f.tasks.has_only_constrained_deadlines());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn never_panics_on_arbitrary_text(s in "\\PC{0,200}") {
            let _ = parse_str(&s, Format::Json);
            let _ = parse_str(&s, Format::Toml);
        }

        #[test]
        fn never_panics_on_task_shaped_json(
            wcet in prop_oneof![Just("\"2ms\"".to_string()), "-?[0-9]{0,22}(\\.[0-9]{0,3})?", "\"[0-9.a-zµ -]{0,10}\"".prop_map(|s| s)],
            period in prop_oneof![Just("10".to_string()), "-?[0-9]{0,22}", "\"[0-9.a-z]{0,10}\""],
            extra in "[a-z_]{0,9}",
            value in prop_oneof![Just("null".to_string()), Just("[]".to_string()), Just("{}".to_string()), "-?[0-9]{1,25}", "\"[^\"\\\\]{0,8}\""],
        ) {
            let text = format!(r#"{{"tasks": [{{"wcet": {wcet}, "period": {period}, "{extra}": {value}}}], "platform": {{"cpus": {value}}}}}"#);
            let _ = parse_str(&text, Format::Json);
        }
    }
}
