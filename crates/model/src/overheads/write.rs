//! The TOML writer: deterministic (keys in a fixed order), reads back to the same file.

use super::{CpmdKind, Curve, Measured, OverheadFile, OverheadName, SCHEMA};
use std::fmt::Write as _;

pub(super) fn to_toml(file: &OverheadFile) -> String {
    let mut out = format!("schema = {SCHEMA}\n");
    if let Some(q) = file.tick_period {
        let _ = writeln!(out, "tick_period = {}", quoted(&q.to_string()));
    }
    if !file.meta.is_empty() {
        out.push_str("\n[meta]\n");
        for (k, v) in &file.meta {
            let _ = writeln!(out, "{} = {}", key(k), quoted(v));
        }
    }
    for (arch, overheads) in &file.arch {
        if overheads.is_empty() {
            let _ = writeln!(out, "\n[arch.{}]", key(arch));
        }
        for name in OverheadName::ALL {
            if let Some(m) = overheads.get(&name) {
                let _ = writeln!(out, "\n[arch.{}.{}]", key(arch), name.key());
                measured(&mut out, m);
            }
        }
    }
    for kind in CpmdKind::ALL {
        if let Some(m) = file.cpmd.get(&kind) {
            let _ = writeln!(out, "\n[cpmd.{}]", kind.key());
            measured(&mut out, m);
        }
    }
    out
}

fn measured(out: &mut String, m: &Measured) {
    for (field, curve) in [("avg", &m.avg), ("max", &m.max)] {
        if let Some(c) = curve {
            let _ = writeln!(out, "{field} = {}", points(c));
        }
    }
}

fn points(c: &Curve) -> String {
    let pts: Vec<String> = c
        .points()
        .iter()
        .map(|(x, y)| format!("[{x}, {y}]"))
        .collect();
    format!("[{}]", pts.join(", "))
}

/// A bare key when TOML allows one, else a quoted key (also the costs file's writer).
pub(crate) fn key(k: &str) -> String {
    let bare = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        k.to_string()
    } else {
        quoted(k)
    }
}

/// A TOML basic string (also the costs file's writer).
pub(crate) fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
