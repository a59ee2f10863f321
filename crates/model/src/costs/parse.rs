//! Validation of a costs file read into a JSON value (from TOML, JSON or a Python dict), and
//! reading one from a path. Every message names the table and the key; every size a file
//! controls is bounded before anything proportional to it is allocated.

use super::{
    CostName, CostUnit, CostsError, CostsFile, LockSemantics, ARCHS, MAX_ARCH_SECTIONS,
    MAX_COST_NS, MAX_FILE_BYTES, MAX_META_ENTRIES, MAX_META_VALUE_BYTES, MAX_MILLIONTHS,
    MAX_NAME_BYTES, MAX_PER_MILLION, SCHEMA,
};
use crate::error::suggest;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::Path;

const TOP_KEYS: &[&str] = &["schema", "lock", "meta", "costs", "arch"];

pub(super) fn from_value(value: &Value) -> Result<CostsFile, CostsError> {
    let top = table(value, "the file")?;
    check_keys(top, TOP_KEYS, "top level", "key")?;
    schema(top.get("schema"))?;
    let mut file = CostsFile::default();
    if let Some(lock) = top.get("lock") {
        file.lock = lock_semantics(lock)?;
    }
    if let Some(meta) = top.get("meta") {
        file.meta = meta_table(meta)?;
    }
    if let Some(costs) = top.get("costs") {
        file.common = cost_table(costs, "[costs]")?;
    }
    if let Some(archs) = top.get("arch") {
        let archs = table(archs, "[arch]")?;
        if archs.len() > MAX_ARCH_SECTIONS {
            return Err(invalid(
                "[arch]",
                format!(
                    "{} architecture sections, at most {MAX_ARCH_SECTIONS}",
                    archs.len()
                ),
            ));
        }
        for (name, section) in archs {
            if name.len() > MAX_NAME_BYTES || !ARCHS.contains(&name.as_str()) {
                // A long name is reported shortened: it is not a name anyone meant.
                let shown = shorten(name);
                return Err(CostsError::UnknownKey {
                    place: "[arch]".into(),
                    what: "architecture",
                    suggestion: suggest(&shown, ARCHS),
                    key: shown,
                    known: ARCHS.join(", "),
                });
            }
            let place = format!("[arch.{name}]");
            file.arch.insert(name.clone(), cost_table(section, &place)?);
        }
    }
    Ok(file)
}

/// `schema = 1`, required.
fn schema(value: Option<&Value>) -> Result<(), CostsError> {
    match value {
        None => Err(invalid("top level", format!("missing `schema = {SCHEMA}`"))),
        Some(v) if v.as_i64() == Some(SCHEMA) => Ok(()),
        Some(v) => Err(invalid(
            "`schema`",
            format!(
                "this version reads schema {SCHEMA}, got {}",
                shorten_value(v)
            ),
        )),
    }
}

/// `lock = "ticket" | "mcs"`.
fn lock_semantics(value: &Value) -> Result<LockSemantics, CostsError> {
    let known: Vec<&str> = LockSemantics::ALL.iter().map(|l| l.key()).collect();
    let Value::String(text) = value else {
        return Err(invalid(
            "`lock`",
            format!(
                "must be a string, one of {}, got {}",
                known.join(", "),
                shorten_value(value)
            ),
        ));
    };
    LockSemantics::from_key(text).ok_or_else(|| {
        let shown = shorten(text);
        CostsError::UnknownKey {
            place: "`lock`".into(),
            what: "lock semantics",
            suggestion: suggest(&shown, &known),
            key: shown,
            known: known.join(", "),
        }
    })
}

/// `[meta]`: strings, bounded in number and length.
fn meta_table(value: &Value) -> Result<BTreeMap<String, String>, CostsError> {
    let meta = table(value, "[meta]")?;
    if meta.len() > MAX_META_ENTRIES {
        return Err(invalid(
            "[meta]",
            format!("{} entries, at most {MAX_META_ENTRIES}", meta.len()),
        ));
    }
    let mut out = BTreeMap::new();
    for (key, v) in meta {
        if key.len() > MAX_NAME_BYTES {
            return Err(invalid(
                "[meta]",
                format!(
                    "key `{}` is {} bytes long, at most {MAX_NAME_BYTES}",
                    shorten(key),
                    key.len()
                ),
            ));
        }
        let place = format!("[meta] {key}");
        let Value::String(s) = v else {
            return Err(invalid(
                &place,
                format!("must be a string, got {}", shorten_value(v)),
            ));
        };
        if s.len() > MAX_META_VALUE_BYTES {
            return Err(invalid(
                &place,
                format!("{} bytes long, at most {MAX_META_VALUE_BYTES}", s.len()),
            ));
        }
        out.insert(key.clone(), s.clone());
    }
    Ok(out)
}

/// `[costs]` or `[arch.<name>]`: cost keys with their values.
fn cost_table(value: &Value, place: &str) -> Result<BTreeMap<CostName, u64>, CostsError> {
    let entries = table(value, place)?;
    let known = CostName::keys();
    let mut out = BTreeMap::new();
    for (key, v) in entries {
        let Some(name) = CostName::from_key(key) else {
            let shown = shorten(key);
            return Err(CostsError::UnknownKey {
                place: place.to_string(),
                what: "cost",
                suggestion: suggest(&shown, &known),
                key: shown,
                known: known.join(", "),
            });
        };
        out.insert(name, cost_value(name, v, &format!("{place} {key}"))?);
    }
    Ok(out)
}

/// One cost's value: ns as an integer or a time with a unit, or a bare per-million integer.
fn cost_value(name: CostName, value: &Value, place: &str) -> Result<u64, CostsError> {
    match name.unit() {
        CostUnit::Ns => {
            let ns = match value {
                Value::Number(n) => n.as_u64().ok_or_else(|| {
                    invalid(
                        place,
                        format!("must be a non-negative integer (ns) or a time with a unit such as \"1.5us\", got {n}"),
                    )
                })?,
                Value::String(text) => crate::time::parse_ns_with_unit(text)
                    .map_err(|e| invalid(place, e.to_string()))?,
                other => {
                    return Err(invalid(
                        place,
                        format!(
                            "must be an integer (ns) or a time with a unit such as \"1.5us\", got {}",
                            shorten_value(other)
                        ),
                    ))
                }
            };
            if ns > MAX_COST_NS {
                return Err(invalid(
                    place,
                    format!(
                        "{ns} ns is more than 10 s, not a per-operation cost (a unit mistake?)"
                    ),
                ));
            }
            Ok(ns)
        }
        CostUnit::PerMillion => {
            let count = value.as_u64().ok_or_else(|| {
                invalid(
                    place,
                    format!(
                        "must be a non-negative integer (per million), got {}",
                        shorten_value(value)
                    ),
                )
            })?;
            if count > MAX_PER_MILLION {
                return Err(invalid(
                    place,
                    format!("{count} per million is more than {MAX_PER_MILLION}"),
                ));
            }
            Ok(count)
        }
        CostUnit::Millionths => {
            let count = value.as_u64().ok_or_else(|| {
                invalid(
                    place,
                    format!(
                        "must be a non-negative integer (millionths: 2500000 is 2.5), got {}",
                        shorten_value(value)
                    ),
                )
            })?;
            if count > MAX_MILLIONTHS {
                return Err(invalid(
                    place,
                    format!("{count} millionths is more than {MAX_MILLIONTHS} (100)"),
                ));
            }
            Ok(count)
        }
    }
}

/// Reads `path` by its extension, at most [`MAX_FILE_BYTES`].
pub(super) fn read(path: &Path) -> Result<CostsFile, CostsError> {
    let io = |message: String| CostsError::Io {
        path: path.display().to_string(),
        message,
    };
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let json = match ext.as_deref() {
        Some("toml") => false,
        Some("json") => true,
        _ => {
            return Err(io(
                "a costs file must end in .toml or .json (the extension says which it is)".into(),
            ))
        }
    };
    let file = std::fs::File::open(path).map_err(|e| io(e.to_string()))?;
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| io(e.to_string()))?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(io(format!(
            "more than {MAX_FILE_BYTES} bytes, not a costs file"
        )));
    }
    let parsed = if json {
        CostsFile::from_json_str(&text)
    } else {
        CostsFile::from_toml_str(&text)
    };
    parsed.map_err(|e| match e {
        CostsError::Syntax(m) => CostsError::Syntax(format!("{}: {m}", path.display())),
        other => other,
    })
}

fn table<'a>(value: &'a Value, place: &str) -> Result<&'a Map<String, Value>, CostsError> {
    match value.as_object() {
        Some(obj) if !is_datetime(value) => Ok(obj),
        _ => Err(invalid(
            place,
            format!("must be a table, got {}", shorten_value(value)),
        )),
    }
}

/// The `toml` crate's representation of a TOML date-time inside a JSON value.
fn is_datetime(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|o| o.len() == 1 && o.contains_key("$__toml_private_datetime"))
}

fn invalid(place: &str, message: String) -> CostsError {
    CostsError::Invalid {
        place: place.to_string(),
        message,
    }
}

fn check_keys(
    obj: &Map<String, Value>,
    known: &[&str],
    place: &str,
    what: &'static str,
) -> Result<(), CostsError> {
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => {
            let shown = shorten(k);
            Err(CostsError::UnknownKey {
                place: place.to_string(),
                what,
                suggestion: suggest(&shown, known),
                key: shown,
                known: known.join(", "),
            })
        }
        None => Ok(()),
    }
}

/// `text` cut to [`MAX_NAME_BYTES`] (on a character boundary) with `…` when longer, so a
/// message quoting input stays short.
fn shorten(text: &str) -> String {
    if text.len() <= MAX_NAME_BYTES {
        return text.to_string();
    }
    let mut end = MAX_NAME_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// A value as JSON (a TOML date-time as itself), shortened like [`shorten`].
fn shorten_value(value: &Value) -> String {
    match value.get("$__toml_private_datetime") {
        Some(Value::String(d)) if is_datetime(value) => format!("the date-time {}", shorten(d)),
        _ => shorten(&value.to_string()),
    }
}
