//! The `groups` list of a task file and a task's `group` [HCBS §3.2], read and written as JSON
//! values (TOML goes through the same values). Files with groups are read by the precise path
//! alone: both fast paths decline them (a `groups` key or a task's `group`), so every message
//! comes from here and from [`crate::groups::validate_groups`].
//!
//! ```toml
//! [[groups]]
//! name = "video"
//! budget = "2ms"
//! period = "5ms"
//! cpus = [0, 1]        # optional: all CPUs
//!
//! [[groups]]
//! name = "decoder"
//! budget = "1ms"
//! period = "5ms"
//! parent = "video"     # optional
//! ```

use super::precise::read_time;
use super::GROUP_FIELDS;
use crate::error::{suggest, ModelError};
use crate::groups::{ReservationGroup, MAX_GROUPS, MAX_GROUP_CPUS};
use crate::platform::Platform;
use crate::time::Duration;
use serde_json::{Map, Value};

/// Reads the `groups` list (not yet validated as a whole: the task set does that).
pub(super) fn read_groups(v: &Value) -> Result<Vec<ReservationGroup>, ModelError> {
    let syntax = |m: String| ModelError::Syntax(format!("groups: {m}"));
    let Value::Array(list) = v else {
        return Err(syntax(format!(
            "must be a list of {{name, budget, period, cpus?, parent?}} tables, got {v}"
        )));
    };
    if list.len() > MAX_GROUPS {
        return Err(syntax(format!(
            "{} groups is more than schedlab supports (at most {MAX_GROUPS})",
            list.len()
        )));
    }
    list.iter()
        .enumerate()
        .map(|(k, entry)| read_group(k, entry))
        .collect()
}

fn read_group(k: usize, entry: &Value) -> Result<ReservationGroup, ModelError> {
    let Value::Object(o) = entry else {
        return Err(ModelError::Syntax(format!(
            "groups: group {k}: must be a table/object {{name, budget, period, cpus?, parent?}}, got {entry}"
        )));
    };
    let name = match o.get("name") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(ModelError::Syntax(format!(
                "groups: group {k}: `name` must be a string, got {other}"
            )))
        }
        None => {
            return Err(ModelError::Syntax(format!(
                "groups: group {k}: missing field `name`"
            )))
        }
    };
    let bad = |message: String| ModelError::InvalidGroup {
        group: name.clone(),
        message,
    };
    if let Some(key) = o.keys().find(|k| !GROUP_FIELDS.contains(&k.as_str())) {
        let hint = match suggest(key, GROUP_FIELDS) {
            Some(s) => format!(" (did you mean `{s}`?)"),
            None => format!(" (known fields: {})", GROUP_FIELDS.join(", ")),
        };
        return Err(bad(format!("unknown field `{key}`{hint}")));
    }
    let time = |field: &str| match o.get(field) {
        None => Err(bad(format!("missing field `{field}`"))),
        Some(v) => read_time(v).map_err(|m| bad(format!("`{field}`: {m}"))),
    };
    let (budget, period) = (time("budget")?, time("period")?);
    let cpus = match o.get("cpus") {
        None => None,
        Some(v) => Some(read_cpus(v).map_err(|m| bad(format!("`cpus`: {m}")))?),
    };
    let parent = match o.get("parent") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(bad(format!("`parent` must be a group's name, got {other}"))),
    };
    Ok(ReservationGroup {
        name,
        budget,
        period,
        cpus,
        parent,
    })
}

fn read_cpus(v: &Value) -> Result<Vec<u32>, String> {
    let Value::Array(list) = v else {
        return Err(format!("must be a list of CPU numbers, got {v}"));
    };
    if list.len() > MAX_GROUP_CPUS {
        return Err(format!(
            "{} entries is more than {MAX_GROUP_CPUS}",
            list.len()
        ));
    }
    list.iter()
        .map(|c| {
            c.as_u64()
                .and_then(|x| u32::try_from(x).ok())
                .ok_or_else(|| format!("CPU numbers are integers ≥ 0, got {c}"))
        })
        .collect()
}

/// A task's `group`: a group's name.
pub(super) fn read_task_group(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        other => Err(format!("must be a group's name, got {other}")),
    }
}

/// Every group's `cpus` names a CPU of the platform (when the file gives one).
pub(super) fn check_cpus(
    groups: &[ReservationGroup],
    platform: &Platform,
) -> Result<(), ModelError> {
    for g in groups {
        if let Some(c) = g.cpus.iter().flatten().find(|&&c| c >= platform.cpus) {
            return Err(ModelError::InvalidGroup {
                group: g.name.clone(),
                message: format!(
                    "`cpus`: CPU {c} does not exist (the platform has {} CPUs, 0 to {})",
                    platform.cpus,
                    platform.cpus.saturating_sub(1)
                ),
            });
        }
    }
    Ok(())
}

/// The `groups` list in file form, times written by `time` (the file writer: the most
/// readable unit; Python: integer ns).
pub fn groups_value(groups: &[ReservationGroup], time: impl Fn(Duration) -> Value) -> Value {
    let one = |g: &ReservationGroup| {
        let mut m = Map::new();
        m.insert("name".into(), Value::from(g.name.clone()));
        m.insert("budget".into(), time(g.budget));
        m.insert("period".into(), time(g.period));
        if let Some(cpus) = &g.cpus {
            m.insert("cpus".into(), Value::from(cpus.clone()));
        }
        if let Some(p) = &g.parent {
            m.insert("parent".into(), Value::from(p.clone()));
        }
        Value::Object(m)
    };
    Value::Array(groups.iter().map(one).collect())
}
