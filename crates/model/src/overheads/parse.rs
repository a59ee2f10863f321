//! Validation of an overhead file read into a JSON value (from TOML, JSON or a Python dict).

use super::{CpmdKind, Curve, Measured, OverheadError, OverheadFile, OverheadName, SCHEMA};
use crate::error::suggest;
use crate::time::Duration;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

const TOP_KEYS: &[&str] = &["schema", "tick_period", "meta", "arch", "cpmd"];
const STAT_KEYS: &[&str] = &["avg", "max"];
const CPMD_KEYS: &[&str] = &["preemption", "migration"];

pub(super) fn from_value(value: &Value) -> Result<OverheadFile, OverheadError> {
    let top = table(value, "the file")?;
    check_keys(top, TOP_KEYS, "top level", "key")?;
    match top.get("schema") {
        None => {
            return Err(OverheadError::Invalid {
                place: "top level".into(),
                message: format!("missing `schema = {SCHEMA}`"),
            })
        }
        Some(v) if v.as_i64() == Some(SCHEMA) => {}
        Some(v) => {
            return Err(OverheadError::Invalid {
                place: "`schema`".into(),
                message: format!("this version reads schema {SCHEMA}, got {v}"),
            })
        }
    }
    let mut file = OverheadFile::default();
    if let Some(q) = top.get("tick_period") {
        file.tick_period = Some(tick_period(q)?);
    }
    if let Some(meta) = top.get("meta") {
        for (k, v) in table(meta, "`meta`")? {
            let Value::String(s) = v else {
                return Err(OverheadError::Invalid {
                    place: format!("meta.{k}"),
                    message: format!("must be a string, got {v}"),
                });
            };
            file.meta.insert(k.clone(), s.clone());
        }
    }
    if let Some(archs) = top.get("arch") {
        for (arch, section) in table(archs, "`arch`")? {
            let place = format!("arch `{arch}`");
            if arch.is_empty() {
                return Err(OverheadError::Invalid {
                    place,
                    message: "an architecture name must not be empty".into(),
                });
            }
            if let Err(message) = super::split_section(arch) {
                return Err(OverheadError::Invalid { place, message });
            }
            let known = OverheadName::keys();
            let mut overheads = BTreeMap::new();
            for (key, entry) in table(section, &place)? {
                let Some(name) = OverheadName::from_key(key) else {
                    return Err(unknown(&place, "overhead", key, &known));
                };
                let place = format!("arch `{arch}`, overhead `{key}`");
                overheads.insert(name, measured(entry, &place, "n tasks")?);
            }
            file.arch.insert(arch.clone(), overheads);
        }
    }
    if let Some(cpmd) = top.get("cpmd") {
        for (key, entry) in table(cpmd, "`cpmd`")? {
            let kind = match key.as_str() {
                "preemption" => CpmdKind::Preemption,
                "migration" => CpmdKind::Migration,
                _ => return Err(unknown("`cpmd`", "CPMD kind", key, CPMD_KEYS)),
            };
            let place = format!("cpmd `{key}`");
            file.cpmd
                .insert(kind, measured(entry, &place, "wss bytes")?);
        }
    }
    let with_tick = file
        .arch
        .iter()
        .find(|(_, overheads)| overheads.contains_key(&OverheadName::Tick));
    if let (Some((arch, _)), None) = (with_tick, file.tick_period) {
        return Err(OverheadError::Invalid {
            place: format!("arch `{arch}`, overhead `tick`"),
            message: "a tick curve needs the top-level `tick_period` (the tick quantum Q, \
                      e.g. tick_period = \"4ms\" for HZ = 250)"
                .into(),
        });
    }
    Ok(file)
}

/// `tick_period`: a time with a unit (`"4ms"`) or an integer number of ns, > 0.
fn tick_period(value: &Value) -> Result<Duration, OverheadError> {
    let invalid = |message: String| OverheadError::Invalid {
        place: "`tick_period`".into(),
        message,
    };
    let ns = match value {
        Value::String(text) => {
            crate::time::parse_ns_with_unit(text).map_err(|e| invalid(e.to_string()))?
        }
        Value::Number(n) => n
            .as_u64()
            .ok_or_else(|| invalid(format!("must be a time such as \"4ms\", got {n}")))?,
        other => {
            return Err(invalid(format!(
                "must be a time such as \"4ms\", got {other}"
            )))
        }
    };
    if ns == 0 {
        return Err(invalid("must be more than 0".into()));
    }
    Ok(Duration::from_ns(ns))
}

fn table<'a>(value: &'a Value, place: &str) -> Result<&'a Map<String, Value>, OverheadError> {
    value
        .as_object()
        .ok_or_else(|| OverheadError::Syntax(format!("{place} must be a table, got {value}")))
}

fn unknown(place: &str, what: &'static str, key: &str, known: &[&str]) -> OverheadError {
    OverheadError::UnknownKey {
        place: place.to_string(),
        what,
        key: key.to_string(),
        suggestion: suggest(key, known),
        known: known.join(", "),
    }
}

fn check_keys(
    obj: &Map<String, Value>,
    known: &[&str],
    place: &str,
    what: &'static str,
) -> Result<(), OverheadError> {
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(unknown(place, what, k, known)),
        None => Ok(()),
    }
}

/// `{avg = [[x, ns], …], max = …}` with at least one of the two.
fn measured(entry: &Value, place: &str, x_name: &str) -> Result<Measured, OverheadError> {
    let obj = table(entry, place)?;
    check_keys(obj, STAT_KEYS, place, "field")?;
    let curve = |field: &str| -> Result<Option<Curve>, OverheadError> {
        obj.get(field)
            .map(|v| points(v, &format!("{place}, field `{field}`"), x_name))
            .transpose()
    };
    let m = Measured {
        avg: curve("avg")?,
        max: curve("max")?,
    };
    if m.avg.is_none() && m.max.is_none() {
        return Err(OverheadError::Invalid {
            place: place.to_string(),
            message: "needs `avg` or `max` (or both)".into(),
        });
    }
    Ok(m)
}

/// `[[x, ns], …]`.
fn points(value: &Value, place: &str, x_name: &str) -> Result<Curve, OverheadError> {
    let bad = |message: String| OverheadError::Invalid {
        place: place.to_string(),
        message,
    };
    let list = value.as_array().ok_or_else(|| {
        bad(format!(
            "must be a list of [{x_name}, ns] points, got {value}"
        ))
    })?;
    let mut pts = Vec::with_capacity(list.len());
    for (i, p) in list.iter().enumerate() {
        let pair = p
            .as_array()
            .filter(|a| a.len() == 2)
            .ok_or_else(|| bad(format!("point {i} must be a pair [{x_name}, ns], got {p}")))?;
        let coord = |v: &Value, what: &str| {
            v.as_u64().ok_or_else(|| {
                bad(format!(
                    "point {i}: {what} must be a non-negative integer, got {v}"
                ))
            })
        };
        let (Some(x), Some(y)) = (pair.first(), pair.get(1)) else {
            return Err(bad(format!("point {i} must be a pair [{x_name}, ns]")));
        };
        pts.push((coord(x, x_name)?, coord(y, "ns")?));
    }
    Curve::new(pts).map_err(|e| bad(e.0))
}
