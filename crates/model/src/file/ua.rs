//! The utility-accrual fields of a task file [ChronOS §3.4–3.6], read by the precise path
//! ([`super::precise`]) and written back by [`super::to_value`]:
//!
//! ```toml
//! tuf = {kind = "linear", value = 10.0, zero_at = "30ms"}   # or kind = "step" / "points"
//! abortable = false                                          # default true
//! abort_cost = "50us"                                        # default 0
//! critical_sections = [{resource = "bus", start = "1ms", length = "2ms"}]
//! ```
//!
//! Resources are named in files (a string, or a non-negative integer, which names the same
//! resource as its decimal string: `resource = 1` is `resource = "1"`); [`Resources`] gives
//! them dense `u32` ids per task set in order of first appearance (task by task, section by
//! section), and the set keeps the names ([`crate::TaskSet::resources`]). Messages name the
//! task and the field; what a valid TUF or section is, is [`Tuf::problem`]'s and
//! [`crate::task::critical_sections_problem`]'s to say (via [`Task::validate_in`]). Sizes are
//! bounded before anything is built: at most [`MAX_TUF_POINTS`] points and
//! [`MAX_CRITICAL_SECTIONS`] sections per task. O(p + s log r) per task for `p` points, `s`
//! sections and `r` resources.

use super::precise::read_time;
use crate::error::suggest;
use crate::extensions::{CriticalSection, MAX_CRITICAL_SECTIONS};
use crate::task::Task;
use crate::time::{format_ns, Duration};
use crate::tuf::{Tuf, MAX_TUF_POINTS};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The kinds of `tuf`.
pub(super) const TUF_KINDS: &[&str] = &["step", "linear", "points"];
/// Field names a critical section accepts.
pub(super) const SECTION_FIELDS: &[&str] = &["resource", "start", "length"];

/// The resource names of one task set, interned to dense ids in order of first appearance.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    names: Vec<String>,
    ids: BTreeMap<String, u32>,
}

impl Resources {
    /// The id of `name`, a new one if it is new.
    pub fn id(&mut self, name: &str) -> Result<u32, String> {
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        let id = u32::try_from(self.names.len())
            .map_err(|_| "more than 2^32 resources in one task set".to_string())?;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        Ok(id)
    }
    /// The names so far, by id.
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// The names, by id.
    pub fn into_names(self) -> Vec<String> {
        self.names
    }
}

/// Reads the utility-accrual fields of task object `obj` into `task`, interning resource
/// names in `resources`. `Err((field, message))` names the field.
pub(super) fn read_fields(
    obj: &Map<String, Value>,
    task: &mut Task,
    resources: &mut Resources,
) -> Result<(), (&'static str, String)> {
    if let Some(v) = obj.get("tuf") {
        task.tuf = Some(read_tuf(v).map_err(|m| ("tuf", m))?);
    }
    match obj.get("abortable") {
        None => {}
        Some(Value::Bool(b)) => task.abortable = *b,
        Some(v) => return Err(("abortable", format!("must be true or false, got {v}"))),
    }
    if let Some(v) = obj.get("abort_cost") {
        task.abort_cost = read_time(v).map_err(|m| ("abort_cost", m))?;
    }
    if let Some(v) = obj.get("critical_sections") {
        task.critical_sections =
            read_sections(v, resources).map_err(|m| ("critical_sections", m))?;
    }
    Ok(())
}

fn unknown_field(place: &str, key: &str, known: &[&str]) -> String {
    let hint = match suggest(key, known) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!("known: {}", known.join(", ")),
    };
    format!("{place}unknown field `{key}` ({hint})")
}

fn read_value(v: &Value, what: &str) -> Result<f64, String> {
    match v.as_f64() {
        Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("{what} must be a number ≥ 0, got {v}")),
    }
}

/// `{kind = "step", value}`, `{kind = "linear", value, zero_at}` or `{kind = "points",
/// points = [[time, value], …]}`; checked by [`Tuf::problem`] later, with the task.
fn read_tuf(v: &Value) -> Result<Tuf, String> {
    let Value::Object(o) = v else {
        return Err(format!(
            "must be a table/object such as {{kind = \"linear\", value = 10, zero_at = \"30ms\"}}, got {v}"
        ));
    };
    let kind = match o.get("kind") {
        None => return Err("missing `kind` (step, linear or points)".to_string()),
        Some(Value::String(k)) => k.as_str(),
        Some(other) => return Err(format!("`kind` must be a string, got {other}")),
    };
    let fields: &[&str] = match kind {
        "step" => &["kind", "value"],
        "linear" => &["kind", "value", "zero_at"],
        "points" => &["kind", "points"],
        other => {
            let hint = match suggest(other, TUF_KINDS) {
                Some(s) => format!("did you mean `{s}`? "),
                None => String::new(),
            };
            return Err(format!(
                "unknown kind `{other}` ({hint}known: step, linear, points)"
            ));
        }
    };
    if let Some(key) = o.keys().find(|k| !fields.contains(&k.as_str())) {
        return Err(unknown_field(
            &format!("a `{kind}` TUF: "),
            key,
            &fields[1..],
        ));
    }
    let need = |key: &str| {
        o.get(key)
            .ok_or_else(|| format!("a `{kind}` TUF needs `{key}`"))
    };
    match kind {
        "step" => Ok(Tuf::Step {
            value: read_value(need("value")?, "`value`")?,
        }),
        "linear" => Ok(Tuf::Linear {
            value: read_value(need("value")?, "`value`")?,
            zero_at: read_time(need("zero_at")?).map_err(|m| format!("`zero_at`: {m}"))?,
        }),
        _ => read_points(need("points")?).map(Tuf::Points),
    }
}

fn read_points(v: &Value) -> Result<Vec<(Duration, f64)>, String> {
    let Value::Array(list) = v else {
        return Err(format!(
            "`points` must be a list of [time, value] pairs such as [[\"0ms\", 10], [\"20ms\", 0]], got {v}"
        ));
    };
    if list.len() > MAX_TUF_POINTS {
        return Err(format!(
            "points: {} points is more than the {MAX_TUF_POINTS} allowed",
            list.len()
        ));
    }
    let mut points = Vec::with_capacity(list.len());
    for (k, p) in list.iter().enumerate() {
        let pair = match p {
            Value::Array(pair) if pair.len() == 2 => pair,
            _ => {
                return Err(format!(
                    "points: point {k} must be a [time, value] pair, got {p}"
                ))
            }
        };
        let t = read_time(&pair[0]).map_err(|m| format!("points: point {k}: time: {m}"))?;
        let value = read_value(&pair[1], &format!("points: point {k}: the value"))?;
        points.push((t, value));
    }
    Ok(points)
}

fn read_sections(v: &Value, resources: &mut Resources) -> Result<Vec<CriticalSection>, String> {
    let Value::Array(list) = v else {
        return Err(format!(
            "must be a list of sections such as [{{resource = \"bus\", start = \"1ms\", length = \"2ms\"}}], got {v}"
        ));
    };
    if list.len() > MAX_CRITICAL_SECTIONS {
        return Err(format!(
            "{} sections is more than the {MAX_CRITICAL_SECTIONS} allowed per task",
            list.len()
        ));
    }
    let mut sections = Vec::with_capacity(list.len());
    for (k, entry) in list.iter().enumerate() {
        let Value::Object(o) = entry else {
            return Err(format!(
                "section {k}: must be a table/object {{resource, start, length}}, got {entry}"
            ));
        };
        if let Some(key) = o.keys().find(|key| !SECTION_FIELDS.contains(&key.as_str())) {
            return Err(unknown_field(
                &format!("section {k}: "),
                key,
                SECTION_FIELDS,
            ));
        }
        let need = |key: &str| {
            o.get(key)
                .ok_or_else(|| format!("section {k}: missing field `{key}`"))
        };
        let name = match need("resource")? {
            Value::String(s) if !s.is_empty() => s.clone(),
            Value::Number(n) if n.as_u64().is_some() => n.to_string(),
            other => {
                return Err(format!(
                    "section {k}: `resource` must be a name (a non-empty string or an integer ≥ 0), got {other}"
                ))
            }
        };
        let time =
            |key: &str| read_time(need(key)?).map_err(|m| format!("section {k}: `{key}`: {m}"));
        let (start, length) = (time("start")?, time("length")?);
        let resource = resources
            .id(&name)
            .map_err(|m| format!("section {k}: {m}"))?;
        sections.push(CriticalSection {
            resource,
            start,
            length,
        });
    }
    Ok(sections)
}

/// Writes the utility-accrual fields of `t` into its file object `m` (only what differs from
/// the defaults), naming resources with `name`.
pub(super) fn write_fields(t: &Task, m: &mut Map<String, Value>, name: impl Fn(u32) -> String) {
    if let Some(tuf) = &t.tuf {
        m.insert(
            "tuf".into(),
            tuf_value(tuf, |d| Value::from(format_ns(d.as_ns()))),
        );
    }
    if !t.abortable {
        m.insert("abortable".into(), Value::Bool(false));
    }
    if !t.abort_cost.is_zero() {
        m.insert(
            "abort_cost".into(),
            Value::from(format_ns(t.abort_cost.as_ns())),
        );
    }
    if !t.critical_sections.is_empty() {
        let sections = sections_value(&t.critical_sections, name, |d| {
            Value::from(format_ns(d.as_ns()))
        });
        m.insert("critical_sections".into(), sections);
    }
}

/// A TUF in its file form, times written by `time`.
pub fn tuf_value(tuf: &Tuf, time: impl Fn(Duration) -> Value) -> Value {
    let mut o = Map::new();
    match tuf {
        Tuf::Step { value } => {
            o.insert("kind".into(), "step".into());
            o.insert("value".into(), Value::from(*value));
        }
        Tuf::Linear { value, zero_at } => {
            o.insert("kind".into(), "linear".into());
            o.insert("value".into(), Value::from(*value));
            o.insert("zero_at".into(), time(*zero_at));
        }
        Tuf::Points(points) => {
            o.insert("kind".into(), "points".into());
            let list = points
                .iter()
                .map(|&(t, v)| Value::Array(vec![time(t), Value::from(v)]))
                .collect();
            o.insert("points".into(), Value::Array(list));
        }
    }
    Value::Object(o)
}

/// Critical sections in their file form, resources named by `name`, times written by `time`.
pub fn sections_value(
    sections: &[CriticalSection],
    name: impl Fn(u32) -> String,
    time: impl Fn(Duration) -> Value,
) -> Value {
    sections
        .iter()
        .map(|cs| {
            let mut o = Map::new();
            o.insert("resource".into(), Value::from(name(cs.resource)));
            o.insert("start".into(), time(cs.start));
            o.insert("length".into(), time(cs.length));
            Value::Object(o)
        })
        .collect()
}
