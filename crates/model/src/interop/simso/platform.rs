//! The parts of a SimSo configuration around the tasks: the `<simulation>` attributes
//! (duration in cycles, `cycles_per_ms`, the execution-time model), `<sched>` (the scheduler
//! class and its overheads), `<processors>` and `<caches>`. Only the number of processors and
//! the scheduler class map; everything else that is not at SimSo's default goes to the notes.

use super::attrs::Element;
use super::notes::Notes;
use super::sched::{self, Mapping};
use super::FORMAT;
use crate::interop::import::DURATION_HINT;
use crate::interop::InteropError;
use crate::platform::MAX_CPUS;
use crate::time::format_ns;
use roxmltree::Node;

/// SimSo's default duration (cycles) when `<simulation>` gives none (its parser's).
const DEFAULT_DURATION: u64 = 50_000;
/// SimSo's default cycles per millisecond.
const DEFAULT_CYCLES_PER_MS: u64 = 1_000_000;
/// Declared data fields per element kind.
const MAX_FIELDS: usize = 256;

/// Reads `<simulation>`'s attributes: none maps; the duration becomes a note that says which
/// `--duration` to simulate with, and an execution-time model (`etm`) other than `wcet` a note.
pub(crate) fn simulation(root: Node<'_, '_>, notes: &mut Notes) -> Result<(), InteropError> {
    let el = Element::new(root, "<simulation>");
    let positive = |name: &str, v: Option<i64>, default: u64| match v {
        None => Ok(default),
        Some(x) if x > 0 => Ok(x.unsigned_abs()),
        Some(x) => Err(el.error(name, format!("{x} is not a positive whole number"))),
    };
    let duration = positive("duration", el.int("duration")?, DEFAULT_DURATION)?;
    let cycles_per_ms = positive(
        "cycles_per_ms",
        el.int("cycles_per_ms")?,
        DEFAULT_CYCLES_PER_MS,
    )?;
    // ns = cycles · 10^6 / cycles_per_ms, rounded to the nearest (u128: no overflow).
    let num = u128::from(duration) * 1_000_000;
    let den = u128::from(cycles_per_ms);
    let ns = (num + den / 2) / den;
    let exact = num % den == 0;
    let written = if el.get("duration").is_some() {
        format!("duration={duration} cycles")
    } else {
        format!("no duration (SimSo's default: {duration} cycles)")
    };
    match u64::try_from(ns) {
        Ok(ns) if ns > 0 => notes.line(format!(
            "<simulation> {written} at cycles_per_ms={cycles_per_ms} is {}{}: a task file has no duration; {DURATION_HINT}{}",
            if exact { "" } else { "about " },
            format_ns(ns),
            format_ns(ns)
        )),
        _ => notes.line(format!(
            "<simulation> {written} at cycles_per_ms={cycles_per_ms}: not a duration schedlab can simulate; a task file has no duration"
        )),
    }
    if cycles_per_ms != DEFAULT_CYCLES_PER_MS {
        notes.line(format!(
            "<simulation> cycles_per_ms={cycles_per_ms}: SimSo counts time in cycles of 1/{cycles_per_ms} ms and truncates every time to whole cycles; schedlab reads the times as written, in whole nanoseconds"
        ));
    }
    let etm = match (el.get("etm"), el.get("use_wcet")) {
        (Some(etm), _) => etm.trim().to_string(),
        (None, Some(u)) if !matches!(u.trim(), "true" | "yes") => "cache".to_string(),
        _ => "wcet".to_string(),
    };
    if etm != "wcet" {
        notes.line(format!(
            "<simulation> etm={etm}: SimSo's execution-time model `{etm}` does not map; schedlab runs every job for its WCET unless simulate --exec says otherwise"
        ));
    }
    for name in ["penalty_preemption", "penalty_migration"] {
        if let Some(v) = el.get(name) {
            notes.item(
                "<simulation> cache penalties (SimSo's fixedpenalty model; schedlab charges overheads from an overhead file: simulate --overheads)",
                format!("{name}={v}"),
            );
        }
    }
    for a in root.attributes() {
        if !matches!(
            a.name(),
            "duration"
                | "cycles_per_ms"
                | "etm"
                | "use_wcet"
                | "penalty_preemption"
                | "penalty_migration"
        ) {
            notes.item("<simulation> attributes not in SimSo's format", a.name());
        }
    }
    Ok(())
}

/// Reads `<sched>`: the class maps (or the import fails with what maps); its overheads and
/// fields go to the notes.
pub(crate) fn scheduler(
    node: Node<'_, '_>,
    notes: &mut Notes,
) -> Result<&'static Mapping, InteropError> {
    let el = Element::new(node, "<sched>");
    let class = match (el.get("class"), el.get("className")) {
        (Some(c), _) if !c.trim().is_empty() => c,
        (_, Some(f)) if !f.trim().is_empty() => f,
        _ => {
            return Err(el.error(
                "class",
                format!(
                    "missing: no scheduler class (nor className file) is named; schedulers that map: {}",
                    sched::known()
                ),
            ))
        }
    };
    let mapping = sched::resolve(class)?;
    for name in ["overhead", "overhead_activate", "overhead_terminate"] {
        if el.cycles(name)?.is_some_and(|c| c > 0.0) {
            notes.item(
                "<sched> scheduler overheads in cycles (schedlab charges overheads from an overhead file: simulate --overheads)",
                format!("{name}={}", el.get(name).unwrap_or_default()),
            );
        }
    }
    for a in node.attributes() {
        if !matches!(
            a.name(),
            "class" | "className" | "overhead" | "overhead_activate" | "overhead_terminate"
        ) {
            notes.item("<sched> attributes not in SimSo's format", a.name());
        }
    }
    for (k, field) in node.children().filter(|n| n.is_element()).enumerate() {
        if k >= MAX_FIELDS {
            return Err(too_many("<sched> fields", k + 1, MAX_FIELDS));
        }
        if field.tag_name().name() != "field" {
            notes.item(
                "<sched> elements not in SimSo's format",
                format!("<{}>", field.tag_name().name()),
            );
            continue;
        }
        let name = field.attribute("name").unwrap_or("?");
        let value = field.attribute("value").unwrap_or("");
        notes.item(
            "<sched> scheduler fields (parameters of SimSo's scheduler class)",
            format!("{name}={value}"),
        );
    }
    Ok(mapping)
}

/// One `<processor>`: its id (what a task's `cpu` data field names) and its name.
pub(crate) struct Processor {
    pub(crate) id: i64,
    pub(crate) name: String,
}

/// Reads `<processors>`: their number (≤ [`MAX_CPUS`]) and ids map, in order (the k-th
/// processor is schedlab's CPU k); overheads, speeds ≠ 1, caches and data fields go to the
/// notes.
pub(crate) fn processors(
    node: Node<'_, '_>,
    notes: &mut Notes,
) -> Result<Vec<Processor>, InteropError> {
    let group = Element::new(node, "<processors>");
    if group.cycles("migration_overhead")?.is_some_and(|c| c > 0.0) {
        notes.line(format!(
            "<processors> migration_overhead={} cycles: schedlab charges overheads from an overhead file (simulate --overheads)",
            group.get("migration_overhead").unwrap_or_default()
        ));
    }
    let mut declared = Vec::new();
    let mut out: Vec<Processor> = Vec::new();
    for child in node.children().filter(|n| n.is_element()) {
        match child.tag_name().name() {
            "field" => {
                if declared.len() >= MAX_FIELDS {
                    return Err(too_many(
                        "<processors> fields",
                        declared.len() + 1,
                        MAX_FIELDS,
                    ));
                }
                declared.push(child.attribute("name").unwrap_or("").to_string());
            }
            "processor" => {
                if out.len() >= MAX_CPUS as usize {
                    return Err(too_many(
                        "the number of processors",
                        out.len() + 1,
                        MAX_CPUS as usize,
                    ));
                }
                let p = processor(child, out.len(), &declared, notes)?;
                if let Some(first) = out.iter().position(|q| q.id == p.id) {
                    return Err(InteropError::Field {
                        format: FORMAT,
                        place: format!("processor {} (`{}`)", out.len(), p.name),
                        field: "attribute `id`".to_string(),
                        message: format!(
                            "id {} is also processor {first}'s (SimSo requires unique ids)",
                            p.id
                        ),
                    });
                }
                out.push(p);
            }
            other => notes.item(
                "<processors> elements not in SimSo's format",
                format!("<{other}>"),
            ),
        }
    }
    if out.is_empty() {
        return Err(InteropError::Field {
            format: FORMAT,
            place: "<processors>".to_string(),
            field: "<processor>".to_string(),
            message: "no processor: SimSo needs at least one".to_string(),
        });
    }
    Ok(out)
}

fn processor(
    node: Node<'_, '_>,
    index: usize,
    declared: &[String],
    notes: &mut Notes,
) -> Result<Processor, InteropError> {
    let name = node.attribute("name").unwrap_or("").to_string();
    let el = Element::new(node, format!("processor {index} (`{name}`)"));
    el.require("name")?;
    let id = el
        .int("id")?
        .ok_or_else(|| el.error("id", "missing (SimSo requires it)"))?;
    for (attr, what) in [
        ("cs_overhead", "context-save"),
        ("cl_overhead", "context-load"),
    ] {
        if el.cycles(attr)?.is_some_and(|c| c > 0.0) {
            notes.item(
                &format!("processor attribute `{attr}` ({what} overhead, cycles; schedlab charges overheads from an overhead file: simulate --overheads)"),
                format!("{name}={}", el.get(attr).unwrap_or_default()),
            );
        }
    }
    if el.float("speed")?.is_some_and(|s| s != 1.0) {
        notes.item(
            "processor attribute `speed` ≠ 1 (schedlab's CPUs are identical, of speed 1: execution times are not scaled)",
            format!("{name}={}", el.get("speed").unwrap_or_default()),
        );
    }
    for a in node.attributes() {
        match a.name() {
            "name" | "id" | "cs_overhead" | "cl_overhead" | "speed" => {}
            n if declared.iter().any(|d| d == n) => notes.item(
                "processor data fields (used by SimSo schedulers only)",
                format!("{name}: {n}={}", a.value()),
            ),
            n => notes.item(
                "processor attributes not in SimSo's format",
                format!("{name}: {n}"),
            ),
        }
    }
    for cache in node.children().filter(|n| n.is_element()) {
        notes.item(
            "processor caches (SimSo's cache model; schedlab charges cache-related delays from an overhead file's CPMD)",
            format!("{name}: cache {}", cache.attribute("ref").unwrap_or("?")),
        );
    }
    Ok(Processor { id, name })
}

/// Reports `<caches>`: each cache is a note (schedlab has no cache model in its simulator).
pub(crate) fn caches(node: Node<'_, '_>, notes: &mut Notes) {
    for cache in node.children().filter(|n| n.is_element()) {
        let get = |a: &str| cache.attribute(a).unwrap_or("?");
        notes.item(
            "<caches> (SimSo's cache model does not map; schedlab charges cache-related delays from an overhead file's CPMD)",
            format!("{} (id {}, size {}, access_time {})", get("name"), get("id"), get("size"), get("access_time")),
        );
    }
    if node.children().any(|n| n.is_element()) {
        if let Some(t) = node.attribute("memory_access_time") {
            notes.line(format!(
                "<caches> memory_access_time={t} (part of the cache model)"
            ));
        }
    }
}

/// The error for more of something than an import reads.
pub(crate) fn too_many(what: &str, got: usize, limit: usize) -> InteropError {
    InteropError::TooLarge {
        format: FORMAT,
        what: what.to_string(),
        got: format!("at least {got}"),
        limit: limit.to_string(),
    }
}
