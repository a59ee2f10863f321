//! The TOML writer: deterministic (costs in file order, integer ns), reads back to the same
//! [`CostsFile`].

use super::{CostName, CostsFile, SCHEMA};
use crate::overheads::write::{key, quoted};
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub(super) fn to_toml(file: &CostsFile) -> String {
    let mut out = format!("schema = {SCHEMA}\nlock = {}\n", quoted(file.lock.key()));
    if !file.meta.is_empty() {
        out.push_str("\n[meta]\n");
        for (k, v) in &file.meta {
            let _ = writeln!(out, "{} = {}", key(k), quoted(v));
        }
    }
    if !file.common.is_empty() {
        out.push_str("\n[costs]\n");
        costs(&mut out, &file.common);
    }
    for (arch, values) in &file.arch {
        let _ = writeln!(out, "\n[arch.{}]", key(arch));
        costs(&mut out, values);
    }
    out
}

/// One `key = value` line per cost set, in file order (ns or per million, as integers).
fn costs(out: &mut String, values: &BTreeMap<CostName, u64>) {
    for &name in CostName::ALL {
        if let Some(v) = values.get(&name) {
            let _ = writeln!(out, "{} = {v}", name.key());
        }
    }
}
