//! rt-app JSON back into a task file: every periodic thread — one phase whose events are
//! `run` (or `runtime`) and one `timer` — becomes a task; what does not map is listed, one
//! line each, in [`Imported::unmapped`].
//!
//! Mapping (units: rt-app's µs → ns; fields as in [`super::doc`]):
//! - name: the thread's key (`instance: n > 1` → `name-0` … `name-<n−1>`); wcet: the sum of
//!   its `run`/`runtime` events (`SCHED_DEADLINE` without one: `dl-runtime`); period: the
//!   timer's period (no timer: `run + sleep`, noted); deadline: `dl-deadline` (else
//!   `dl-period`) under `SCHED_DEADLINE`, the period otherwise; offset: `delay`; `cpus` with one
//!   CPU: `cpu`; `SCHED_FIFO`/`SCHED_RR` priority p: schedlab priority `99 − p` (smaller is
//!   higher, so the order is kept; the export maps the other way).
//! - policy: all threads `SCHED_DEADLINE` → `pedf` (each on one CPU), `cedf` (on the
//!   clusters `k·K … k·K+K−1`), `gedf` (no `cpus`, or all on every CPU); all `SCHED_FIFO` or
//!   `SCHED_RR` → `pfp` / `gfp` alike (run them with `--priorities given`); otherwise none.
//! - platform: `cpus` = the highest CPU a thread names + 1, or the M of schedlab's own
//!   header (`Exported by schedlab … on M CPUs`, `stated_cpus`) if that is more — a P-EDF
//!   set packed onto CPU 0 of 2 reads back on 2 CPUs, not 1.
//! - Not mapped (listed): other events (locks, conditions, `mem`, …), several phases or
//!   timers, `SCHED_OTHER`/`SCHED_IDLE`, `global` settings, `resources`, undocumented keys.
//!
//! Before parsing, C comments and trailing commas are removed outside strings, as rt-app's
//! parser (json-c) accepts both and its examples use them. Sizes are bounded
//! ([`MAX_TEXT_BYTES`], [`MAX_THREADS`], [`MAX_EVENTS`]). O(text) + O(n log n).

use super::doc::{event_kind, POLICIES, THREAD_KEYS, TOP_KEYS};
use crate::file::TaskFile;
use crate::interop::{Imported, InteropError};
use crate::platform::{Platform, MAX_CPUS};
use crate::task::Task;
use crate::taskset::TaskSet;
use crate::time::Duration;
use serde_json::{Map, Value};

/// The largest rt-app file read (bytes).
pub const MAX_TEXT_BYTES: usize = 16 << 20;
/// The most threads (instances included) read.
pub const MAX_THREADS: usize = 65_536;
/// The most keys in one thread or phase object.
pub const MAX_EVENTS: usize = 1024;

fn field(element: &str, field: &str, message: impl Into<String>) -> InteropError {
    InteropError::RtAppField {
        element: element.to_string(),
        field: field.to_string(),
        message: message.into(),
    }
}

/// The 1-based line and column of byte `i` of `text`.
fn position(text: &str, i: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..i.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = i - before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |k| k + 1)
        + 1;
    (line, column)
}

fn syntax(text: &str, i: usize, message: &str) -> InteropError {
    let (line, column) = position(text, i);
    InteropError::RtAppSyntax {
        line,
        column,
        message: message.to_string(),
    }
}

/// `text` with C comments blanked and every comma before `}` or `]` blanked, outside strings
/// (byte for byte, so JSON errors keep their lines and columns). An unterminated comment or
/// string is an error.
fn relax(text: &str) -> Result<String, InteropError> {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0usize;
    let mut pending_comma: Option<usize> = None;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            pending_comma = None;
            let start = i;
            out.push(c);
            i += 1;
            loop {
                let Some(&d) = b.get(i) else {
                    return Err(syntax(text, start, "unterminated string"));
                };
                out.push(d);
                i += 1;
                if d == b'\\' {
                    if let Some(&e) = b.get(i) {
                        out.push(e);
                        i += 1;
                    }
                } else if d == b'"' {
                    break;
                }
            }
            continue;
        }
        let comment_end = match (c, b.get(i + 1)) {
            (b'/', Some(b'*')) => Some(
                text[i + 2..]
                    .find("*/")
                    .map(|e| i + 2 + e + 2)
                    .ok_or_else(|| syntax(text, i, "unterminated /* comment"))?,
            ),
            (b'/', Some(b'/')) => Some(text[i..].find('\n').map_or(b.len(), |e| i + e)),
            _ => None,
        };
        if let Some(end) = comment_end {
            out.extend(b[i..end].iter().map(|&d| if d == b'\n' { d } else { b' ' }));
            i = end;
            continue;
        }
        match c {
            b',' => pending_comma = Some(out.len()),
            b'}' | b']' => {
                if let Some(k) = pending_comma.take() {
                    out[k] = b' ';
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => pending_comma = None,
        }
        out.push(c);
        i += 1;
    }
    // Only whole ASCII characters (comments, commas) were replaced by spaces: still UTF-8.
    String::from_utf8(out).map_err(|e| syntax(text, 0, &e.to_string()))
}

/// A whole number of µs as a duration, or the error naming the field.
fn micros(element: &str, key: &str, v: &Value) -> Result<Duration, InteropError> {
    let us = v.as_u64().ok_or_else(|| {
        field(
            element,
            key,
            format!("must be a whole number of µs, got {v}"),
        )
    })?;
    us.checked_mul(1000)
        .map(Duration::from_ns)
        .ok_or_else(|| field(element, key, format!("{us} µs is too large")))
}

/// The scheduling class of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Deadline,
    Fixed,
    Other,
}

/// One task read from a thread.
struct Read {
    task: Task,
    class: Class,
    cpus: Option<Vec<u32>>,
}

/// The properties and events of a thread's only phase (or of the thread itself).
#[derive(Default)]
struct Phase {
    run: u64,
    sleep: u64,
    timers: Vec<Duration>,
}

fn read_events(
    element: &str,
    obj: &Map<String, Value>,
    unmapped: &mut Vec<String>,
) -> Result<Phase, InteropError> {
    if obj.len() > MAX_EVENTS {
        return Err(InteropError::RtAppTooLarge {
            what: "the number of keys of a thread or phase",
            got: obj.len(),
            limit: MAX_EVENTS,
        });
    }
    let mut phase = Phase::default();
    for (k, v) in obj {
        match event_kind(k) {
            Some(kind @ ("run" | "runtime")) => {
                let d = micros(element, k, v)?;
                if kind == "runtime" {
                    unmapped.push(format!(
                        "{element}: event `{k}` is wall-clock time in rt-app; read as execution time"
                    ));
                }
                phase.run = phase.run.checked_add(d.as_ns()).ok_or_else(|| {
                    field(element, k, "the run events add up to more than 2^64 ns")
                })?;
            }
            Some("sleep") => {
                let d = micros(element, k, v)?;
                phase.sleep = phase.sleep.saturating_add(d.as_ns());
            }
            Some("timer") => {
                let period = v
                    .get("period")
                    .ok_or_else(|| field(element, k, "a timer needs a `period`"))?;
                phase
                    .timers
                    .push(micros(element, &format!("{k}.period"), period)?);
            }
            Some(other) => unmapped.push(format!(
                "{element}: event `{k}` ({other}) is not part of a periodic task; ignored"
            )),
            None if THREAD_KEYS.contains(&k.as_str()) => {}
            None => unmapped.push(format!("{element}: key `{k}` is not rt-app's; ignored")),
        }
    }
    Ok(phase)
}

/// A property of the thread, overridden by its only phase.
fn prop<'a>(
    thread: &'a Map<String, Value>,
    phase: Option<&'a Map<String, Value>>,
    key: &str,
) -> Option<&'a Value> {
    phase.and_then(|p| p.get(key)).or_else(|| thread.get(key))
}

/// The tasks of thread `name` (none when it does not map; the reason is in `unmapped`).
fn read_thread(
    name: &str,
    value: &Value,
    default_policy: &str,
    unmapped: &mut Vec<String>,
) -> Result<Vec<Read>, InteropError> {
    let element = format!("thread `{name}`");
    let thread = value
        .as_object()
        .ok_or_else(|| field(&element, name, "a thread must be an object"))?;
    if thread.len() > MAX_EVENTS {
        return Err(InteropError::RtAppTooLarge {
            what: "the number of keys of a thread or phase",
            got: thread.len(),
            limit: MAX_EVENTS,
        });
    }
    let instances = match thread.get("instance") {
        None => 1,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| field(&element, "instance", format!("must be ≥ 0, got {v}")))?,
    };
    if instances == 0 {
        unmapped.push(format!("{element}: instance 0 creates no thread; skipped"));
        return Ok(Vec::new());
    }
    if instances > MAX_THREADS {
        return Err(InteropError::RtAppTooLarge {
            what: "the instances of a thread",
            got: instances,
            limit: MAX_THREADS,
        });
    }
    let only_phase = match thread.get("phases") {
        None => None,
        Some(Value::Object(phases)) if phases.len() == 1 => {
            let (pname, p) = phases.iter().next().unzip();
            let p = p.and_then(Value::as_object).ok_or_else(|| {
                field(
                    &element,
                    "phases",
                    format!(
                        "phase `{}` must be an object",
                        pname.map_or("", |s| s.as_str())
                    ),
                )
            })?;
            Some(p)
        }
        Some(Value::Object(phases)) => {
            unmapped.push(format!(
                "{element}: {} phases; only single-phase periodic threads map; skipped",
                phases.len()
            ));
            return Ok(Vec::new());
        }
        Some(v) => {
            return Err(field(
                &element,
                "phases",
                format!("must be an object, got {v}"),
            ))
        }
    };
    let phase = read_events(&element, only_phase.unwrap_or(thread), unmapped)?;
    let policy = match prop(thread, only_phase, "policy") {
        None => default_policy,
        Some(v) => v.as_str().filter(|p| POLICIES.contains(p)).ok_or_else(|| {
            field(
                &element,
                "policy",
                format!("must be one of {}, got {v}", POLICIES.join(", ")),
            )
        })?,
    };
    // Said only of a thread that is imported.
    let (class, class_note) = match policy {
        "SCHED_DEADLINE" => (Class::Deadline, None),
        "SCHED_FIFO" => (Class::Fixed, None),
        "SCHED_RR" => (
            Class::Fixed,
            Some(format!(
                "{element}: SCHED_RR read as fixed priority (round robin among equal priorities is not modelled)"
            )),
        ),
        other => (
            Class::Other,
            Some(format!(
                "{element}: policy {other} is not real-time; imported without a priority"
            )),
        ),
    };
    let dl = |key: &str| {
        prop(thread, only_phase, key)
            .map(|v| micros(&element, key, v))
            .transpose()
    };
    let (dl_runtime, dl_deadline, dl_period) =
        (dl("dl-runtime")?, dl("dl-deadline")?, dl("dl-period")?);
    let mut wcet = Duration::from_ns(phase.run);
    if wcet.is_zero() {
        match (class, dl_runtime) {
            (Class::Deadline, Some(r)) if !r.is_zero() => {
                unmapped.push(format!(
                    "{element}: no `run` event; wcet taken from dl-runtime {r}"
                ));
                wcet = r;
            }
            _ => {
                unmapped.push(format!("{element}: no `run` event; skipped"));
                return Ok(Vec::new());
            }
        }
    } else if let (Class::Deadline, Some(r)) = (class, dl_runtime) {
        if r != wcet {
            unmapped.push(format!(
                "{element}: dl-runtime {r} is the reservation (wcet + margin), not a task field; the task's wcet is its run, {wcet}"
            ));
        }
    }
    let period = match (phase.timers.as_slice(), phase.sleep, dl_period) {
        ([t], _, _) => *t,
        ([], s, _) if s > 0 => {
            let p = Duration::from_ns(phase.run.saturating_add(s));
            unmapped.push(format!(
                "{element}: `sleep` instead of a `timer`: period read as run + sleep = {p}"
            ));
            p
        }
        ([], _, Some(p)) if class == Class::Deadline => {
            unmapped.push(format!(
                "{element}: no timer; period taken from dl-period {p}"
            ));
            p
        }
        ([], _, _) => {
            unmapped.push(format!(
                "{element}: no timer and no sleep: not periodic; skipped"
            ));
            return Ok(Vec::new());
        }
        (many, _, _) => {
            unmapped.push(format!(
                "{element}: {} timers in one phase: not one periodic task; skipped",
                many.len()
            ));
            return Ok(Vec::new());
        }
    };
    let deadline = match class {
        Class::Deadline => dl_deadline.or(dl_period).unwrap_or(period),
        _ => period,
    };
    let priority = match (class, prop(thread, only_phase, "priority")) {
        (Class::Fixed, Some(v)) => {
            let p = v.as_u64().filter(|p| (1..=99).contains(p)).ok_or_else(|| {
                field(
                    &element,
                    "priority",
                    format!("a SCHED_FIFO/SCHED_RR priority is 1..99, got {v}"),
                )
            })?;
            Some(99 - p as u32)
        }
        // rt-app's default for the real-time classes.
        (Class::Fixed, None) => Some(99 - 10),
        _ => None,
    };
    let offset = match prop(thread, None, "delay") {
        Some(v) => micros(&element, "delay", v)?,
        None => Duration::ZERO,
    };
    let cpus = match prop(thread, only_phase, "cpus") {
        None => None,
        Some(v) => {
            let list = v.as_array().ok_or_else(|| {
                field(
                    &element,
                    "cpus",
                    format!("must be an array of CPUs, got {v}"),
                )
            })?;
            let mut cpus = Vec::with_capacity(list.len());
            for c in list {
                let c = c
                    .as_u64()
                    .and_then(|c| u32::try_from(c).ok())
                    .filter(|&c| c < MAX_CPUS)
                    .ok_or_else(|| {
                        field(&element, "cpus", format!("a CPU is 0..{MAX_CPUS}, got {c}"))
                    })?;
                cpus.push(c);
            }
            cpus.sort_unstable();
            cpus.dedup();
            Some(cpus).filter(|c| !c.is_empty())
        }
    };
    if let Some(v) = prop(thread, only_phase, "loop")
        .and_then(Value::as_i64)
        .filter(|&l| l > 0)
    {
        unmapped.push(format!(
            "{element}: loop {v} ends the thread after {v} jobs; imported as periodic"
        ));
    }
    unmapped.extend(class_note);
    let mut out = Vec::with_capacity(instances);
    for k in 0..instances {
        let mut task = Task::new_unchecked(wcet, deadline, period);
        task.name = Some(if instances == 1 {
            name.to_string()
        } else {
            format!("{name}-{k}")
        });
        task.offset = offset;
        task.priority = priority;
        out.push(Read {
            task,
            class,
            cpus: cpus.clone(),
        });
    }
    Ok(out)
}

/// The M of the header schedlab's exporter writes first (`/* … Exported by schedlab … on M
/// CPUs (…)`), if `text` starts with one; `None` for any other file or an M out of
/// 1..=[`MAX_CPUS`]. O(header).
pub(super) fn stated_cpus(text: &str) -> Option<u32> {
    let body = text.trim_start().strip_prefix("/*")?;
    let comment = &body[..body.find("*/")?];
    let line = comment
        .lines()
        .map(|l| l.trim_start().trim_start_matches('*').trim_start())
        .find(|l| l.starts_with("Exported by schedlab"))?;
    let before = &line[..line.rfind(" CPUs")?];
    let (rest, m) = before.rsplit_once(' ')?;
    if !rest.ends_with(" on") {
        return None;
    }
    m.parse::<u32>().ok().filter(|m| (1..=MAX_CPUS).contains(m))
}

/// The policy and placement fields the threads' classes and CPUs say (module doc); `stated`
/// is the header's M ([`stated_cpus`]).
fn infer_policy(
    reads: &mut [Read],
    stated: Option<u32>,
    unmapped: &mut Vec<String>,
) -> (Option<String>, Option<Platform>) {
    let used = reads
        .iter()
        .flat_map(|r| r.cpus.iter().flatten())
        .max()
        .map(|&c| c + 1);
    let m = used.max(stated);
    let platform = m.map(|cpus| Platform {
        cpus,
        cluster_size: None,
    });
    let class = reads[0].class;
    if reads.iter().any(|r| r.class != class) || class == Class::Other {
        if reads.iter().any(|r| r.class != class) {
            unmapped.push("threads under different policies: no one schedlab policy".to_string());
        }
        return (None, platform);
    }
    let all: Vec<u32> = (0..m.unwrap_or(0)).collect();
    let single = reads
        .iter()
        .all(|r| r.cpus.as_ref().is_some_and(|c| c.len() == 1));
    let global = reads
        .iter()
        .all(|r| r.cpus.as_ref().is_none_or(|c| *c == all));
    let (partitioned, global_name) = match class {
        Class::Deadline => ("pedf", "gedf"),
        _ => ("pfp", "gfp"),
    };
    if single {
        for r in reads.iter_mut() {
            r.task.cpu = r.cpus.as_ref().and_then(|c| c.first().copied());
        }
        return (Some(partitioned.to_string()), platform);
    }
    if global {
        return (Some(global_name.to_string()), platform);
    }
    // Clusters: every thread on exactly {k·K, …, k·K + K − 1} for one K dividing m.
    let k = reads
        .iter()
        .filter_map(|r| r.cpus.as_ref())
        .map(Vec::len)
        .min()
        .unwrap_or(0);
    let clustered = k > 1
        && m.is_some_and(|m| m as usize % k == 0)
        && reads.iter().all(|r| {
            r.cpus.as_ref().is_some_and(|c| {
                c.len() == k && c[0] as usize % k == 0 && c.windows(2).all(|w| w[1] == w[0] + 1)
            })
        });
    if clustered && class == Class::Deadline {
        let k32 = u32::try_from(k).unwrap_or(u32::MAX);
        for r in reads.iter_mut() {
            r.task.cluster = r.cpus.as_ref().and_then(|c| c.first()).map(|&c| c / k32);
        }
        return (
            Some("cedf".to_string()),
            platform.map(|p| Platform {
                cluster_size: Some(k32),
                ..p
            }),
        );
    }
    for r in reads.iter_mut() {
        r.task.affinity = r.cpus.clone();
    }
    unmapped.push(
        "the threads' CPUs are neither one each, clusters nor all: kept as `affinity`; no schedlab policy places by arbitrary affinities".to_string(),
    );
    (None, platform)
}

/// Reads rt-app JSON into a task file (module documentation for the mapping). Errors name
/// the thread and the field; what does not map is in [`Imported::unmapped`].
pub fn import(text: &str) -> Result<Imported, InteropError> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(InteropError::RtAppTooLarge {
            what: "the file's size in bytes",
            got: text.len(),
            limit: MAX_TEXT_BYTES,
        });
    }
    let clean = relax(text)?;
    let doc: Value = serde_json::from_str(&clean).map_err(|e| InteropError::RtAppSyntax {
        line: e.line(),
        column: e.column(),
        message: e
            .to_string()
            .split(" at line")
            .next()
            .unwrap_or_default()
            .to_string(),
    })?;
    let top = doc
        .as_object()
        .ok_or_else(|| field("the file", "(top level)", "must be a JSON object"))?;
    let mut unmapped = Vec::new();
    for k in top.keys().filter(|k| !TOP_KEYS.contains(&k.as_str())) {
        unmapped.push(format!("top-level key `{k}` is not rt-app's; ignored"));
    }
    if top.contains_key("resources") {
        unmapped.push("`resources`: shared resources are not imported".to_string());
    }
    let mut default_policy = "SCHED_OTHER";
    if let Some(g) = top.get("global") {
        let g = g
            .as_object()
            .ok_or_else(|| field("global", "global", "must be an object"))?;
        for (k, v) in g {
            if k == "default_policy" {
                default_policy = v.as_str().filter(|p| POLICIES.contains(p)).ok_or_else(|| {
                    field(
                        "global",
                        k,
                        format!("must be one of {}, got {v}", POLICIES.join(", ")),
                    )
                })?;
            } else {
                unmapped.push(format!(
                    "global.{k} = {v}: a setting of the run, not of the tasks"
                ));
            }
        }
    }
    let tasks = top
        .get("tasks")
        .ok_or_else(|| {
            field(
                "the file",
                "tasks",
                "missing (rt-app's only mandatory object)",
            )
        })?
        .as_object()
        .ok_or_else(|| field("the file", "tasks", "must be an object of threads"))?;
    let mut reads = Vec::new();
    for (name, thread) in tasks {
        reads.extend(read_thread(name, thread, default_policy, &mut unmapped)?);
        if reads.len() > MAX_THREADS {
            return Err(InteropError::RtAppTooLarge {
                what: "the number of threads",
                got: reads.len(),
                limit: MAX_THREADS,
            });
        }
    }
    if reads.is_empty() {
        return Err(field(
            "the file",
            "tasks",
            format!(
                "no thread maps to a periodic task ({})",
                unmapped.join("; ")
            ),
        ));
    }
    let (policy, platform) = infer_policy(&mut reads, stated_cpus(text), &mut unmapped);
    let tasks = TaskSet::new(reads.into_iter().map(|r| r.task).collect())
        .map_err(InteropError::RtAppTaskSet)?;
    if let Some(p) = &platform {
        p.validate().map_err(InteropError::RtAppTaskSet)?;
    }
    Ok(Imported {
        file: TaskFile { tasks, platform },
        policy,
        unmapped,
    })
}
