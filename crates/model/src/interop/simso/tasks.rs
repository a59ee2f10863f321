//! SimSo's `<tasks>`: each `<task>` becomes a schedlab task (name, WCET, deadline, period,
//! offset = `activationDate`), with a fixed priority where the scheduler is fixed-priority
//! and a CPU where it is partitioned and the XML pins the task. O(n log n) for n tasks (the
//! priority ranks sort), O(n + d) overall for d activation dates.
//!
//! Task types ([SimSo `core/Task.py`]): `Periodic` maps exactly. `Sporadic` (jobs at the listed
//! `list_activation_dates`) maps to a task released from the first date at the smallest gap
//! between dates (its minimum inter-arrival time); the list itself is noted (one periodic
//! schedlab simulation releases every period, also after the last date). `APeriodic` tasks
//! (released only by another task's `followed_by`) and sporadic tasks without dates have no
//! jobs of their own: they are left out, with a note.

use super::attrs::Element;
use super::decimal::Ns;
use super::notes::Notes;
use super::platform::{too_many, Processor};
use super::sched::{Mapping, Placement, Priorities};
use super::FORMAT;
use crate::interop::import::{MAX_IMPORT_TASKS, PARTITION_HINT};
use crate::interop::InteropError;
use crate::task::Task;
use crate::time::{format_ns, Duration};
use roxmltree::Node;
use std::collections::HashMap;

/// Activation dates a sporadic task may list.
pub const MAX_ACTIVATION_DATES: usize = 100_000;
/// Declared data fields of `<tasks>`.
const MAX_FIELDS: usize = 256;

/// SimSo's task attributes, each with its default (`add_task`'s): a value at the default
/// changes nothing and is not reported; any other value is, with what it is used for.
const MODEL_ATTRS: &[(&str, f64, &str)] = &[
    (
        "base_cpi",
        1.0,
        "cycles per instruction, SimSo's cache model",
    ),
    (
        "instructions",
        0.0,
        "instruction count, SimSo's cache model",
    ),
    ("mix", 0.5, "memory-access mix, SimSo's cache model"),
    (
        "ACET",
        0.0,
        "average execution time, SimSo's etm=acet; schedlab: simulate --exec",
    ),
    (
        "et_stddev",
        0.0,
        "execution-time deviation, SimSo's etm=acet; schedlab: simulate --exec",
    ),
    (
        "preemption_cost",
        0.0,
        "cycles charged per preemption; schedlab charges overheads from an overhead file",
    ),
];

/// A task as SimSo has it, times in whole ns.
struct Raw {
    name: String,
    kind: Kind,
    wcet: Ns,
    deadline: Ns,
    period: Option<Ns>,
    offset: Ns,
    dates: Vec<Ns>,
    priority: Option<f64>,
    cpu: Option<i64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Periodic,
    Sporadic,
    Aperiodic,
}

/// Reads `<tasks>` into schedlab tasks for `mapping` on `procs`.
pub(crate) fn tasks(
    node: Node<'_, '_>,
    procs: &[Processor],
    mapping: &Mapping,
    notes: &mut Notes,
) -> Result<Vec<Task>, InteropError> {
    let mut declared: Vec<String> = Vec::new();
    let mut raws: Vec<Raw> = Vec::new();
    let mut ids: HashMap<i64, usize> = HashMap::new();
    for child in node.children().filter(|n| n.is_element()) {
        match child.tag_name().name() {
            "field" => {
                if declared.len() >= MAX_FIELDS {
                    return Err(too_many("<tasks> fields", declared.len() + 1, MAX_FIELDS));
                }
                declared.push(child.attribute("name").unwrap_or("").to_string());
            }
            "task" => {
                if raws.len() >= MAX_IMPORT_TASKS {
                    return Err(too_many(
                        "the number of tasks",
                        raws.len() + 1,
                        MAX_IMPORT_TASKS,
                    ));
                }
                let index = raws.len();
                let name = child.attribute("name").unwrap_or("").to_string();
                let el = Element::new(child, format!("task {index} (`{name}`)"));
                let id = el
                    .int("id")?
                    .ok_or_else(|| el.error("id", "missing (SimSo requires it)"))?;
                if let Some(first) = ids.insert(id, index) {
                    return Err(el.error(
                        "id",
                        format!("id {id} is also task {first}'s (SimSo requires unique ids)"),
                    ));
                }
                raws.push(raw(&el, &declared, notes)?);
            }
            other => notes.item(
                "<tasks> elements not in SimSo's format",
                format!("<{other}>"),
            ),
        }
    }
    let kept: Vec<Raw> = raws.into_iter().filter(|r| keep(r, notes)).collect();
    let ranks = ranks(&kept, mapping, notes)?;
    let cpus = pins(&kept, procs, mapping, notes)?;
    let mut out = Vec::with_capacity(kept.len());
    for (k, r) in kept.into_iter().enumerate() {
        let period = timing(&r, notes);
        let mut t = Task::new_unchecked(
            Duration::from_ns(r.wcet.ns),
            Duration::from_ns(r.deadline.ns),
            Duration::from_ns(period),
        );
        t.name = Some(r.name);
        // A sporadic task's jobs start at its first date (SimSo ignores its activationDate).
        let offset = match r.kind {
            Kind::Sporadic => r.dates.first().map_or(0, |d| d.ns),
            _ => r.offset.ns,
        };
        t.offset = Duration::from_ns(offset);
        t.priority = ranks.get(k).copied().flatten();
        t.cpu = cpus.get(k).copied().flatten();
        out.push(t);
    }
    Ok(out)
}

/// One `<task>`'s attributes.
fn raw(el: &Element<'_, '_>, declared: &[String], notes: &mut Notes) -> Result<Raw, InteropError> {
    let name = el.require("name")?.to_string();
    let kind = match (el.get("task_type").map(str::trim), el.get("periodic")) {
        (Some("Periodic"), _) => Kind::Periodic,
        (Some("Sporadic"), _) => Kind::Sporadic,
        (Some("APeriodic"), _) => Kind::Aperiodic,
        (Some(other), _) => {
            return Err(el.error(
                "task_type",
                format!("`{other}` is not a SimSo task type (Periodic, APeriodic, Sporadic)"),
            ))
        }
        (None, Some(p)) if p.trim() == "no" => Kind::Aperiodic,
        (None, _) => Kind::Periodic,
    };
    let ms_required = |attr: &str| {
        el.ms(attr)?
            .ok_or_else(|| el.error(attr, "missing (SimSo requires it)"))
    };
    let wcet = ms_required("WCET")?;
    let deadline = ms_required("deadline")?;
    let period = match kind {
        Kind::Periodic => Some(ms_required("period")?),
        _ => el.ms("period")?,
    };
    let offset = el.ms("activationDate")?.unwrap_or(Ns {
        ns: 0,
        rounded: false,
    });
    let mut dates = Vec::new();
    if let Some(list) = el
        .get("list_activation_dates")
        .filter(|l| !l.trim().is_empty())
    {
        for (k, d) in list.split(',').enumerate() {
            if k >= MAX_ACTIVATION_DATES {
                return Err(too_many(
                    &format!("{}: list_activation_dates", el.place),
                    k + 1,
                    MAX_ACTIVATION_DATES,
                ));
            }
            dates.push(super::decimal::to_ns(d, 6).map_err(|m| {
                el.error(
                    "list_activation_dates",
                    format!("date {k}: {m} (milliseconds)"),
                )
            })?);
        }
        // SimSo sorts them.
        dates.sort_by_key(|d| d.ns);
        if kind == Kind::Periodic {
            notes.item(
                "list_activation_dates of Periodic tasks (SimSo ignores them too)",
                name.clone(),
            );
        }
    }
    let priority = match el
        .get("priority")
        .filter(|_| declared.iter().any(|d| d == "priority"))
    {
        None => None,
        Some(_) => el.float("priority")?,
    };
    let cpu = if declared.iter().any(|d| d == "cpu") {
        el.int("cpu")?
    } else {
        None
    };
    for (label, v) in [
        ("WCET", wcet),
        ("deadline", deadline),
        ("activationDate", offset),
    ]
    .into_iter()
    .chain(period.map(|p| ("period", p)))
    .chain(dates.iter().map(|&d| ("list_activation_dates", d)))
    {
        if v.rounded {
            notes.item(
                "times that are not whole nanoseconds, rounded to the nearest",
                format!("{name} {label} → {}", format_ns(v.ns)),
            );
        }
    }
    other_attrs(el, &name, declared, notes)?;
    Ok(Raw {
        name,
        kind,
        wcet,
        deadline,
        period,
        offset,
        dates,
        priority,
        cpu,
    })
}

/// Notes for the attributes that do not map.
fn other_attrs(
    el: &Element<'_, '_>,
    name: &str,
    declared: &[String],
    notes: &mut Notes,
) -> Result<(), InteropError> {
    for &(attr, default, what) in MODEL_ATTRS {
        if el.float(attr)?.is_some_and(|v| v != default) {
            notes.item(
                &format!("task attribute `{attr}` ({what})"),
                format!("{name}={}", el.get(attr).unwrap_or_default().trim()),
            );
        }
    }
    if el.get("abort_on_miss").is_none_or(|v| v.trim() == "yes") {
        notes.item(
            "abort_on_miss=yes (SimSo aborts a job at its deadline; schedlab simulate does with --abort-late, for every task)",
            name,
        );
    }
    if let Some(f) = el.get("followed_by") {
        notes.item(
            "followed_by (a job's end releases a job of another task; no schedlab equivalent)",
            format!("{name} → task id {f}"),
        );
    }
    if el.get("stack").is_some() {
        notes.item(
            "stack (stack-distance profile of SimSo's cache model)",
            name,
        );
    }
    for a in el.node.attributes() {
        match a.name() {
            "name"
            | "id"
            | "task_type"
            | "periodic"
            | "abort_on_miss"
            | "period"
            | "activationDate"
            | "list_activation_dates"
            | "deadline"
            | "WCET"
            | "followed_by"
            | "stack" => {}
            n if MODEL_ATTRS.iter().any(|(m, ..)| *m == n) => {}
            "priority" | "cpu" if declared.iter().any(|d| d == a.name()) => {}
            n if declared.iter().any(|d| d == n) => notes.item(
                "task data fields no mapped scheduler reads (used by SimSo schedulers only)",
                format!("{name}: {n}={}", a.value()),
            ),
            n => notes.item(
                "task attributes not in SimSo's format",
                format!("{name}: {n}"),
            ),
        }
    }
    Ok(())
}

/// Whether the task has jobs of its own (else a note says why it is left out).
fn keep(r: &Raw, notes: &mut Notes) -> bool {
    match r.kind {
        Kind::Periodic => true,
        Kind::Sporadic if !r.dates.is_empty() => true,
        Kind::Sporadic => {
            notes.item(
                "Sporadic tasks without activation dates (no jobs in SimSo either): left out",
                r.name.clone(),
            );
            false
        }
        Kind::Aperiodic => {
            notes.item(
                "APeriodic tasks (released only by another task's followed_by): left out",
                r.name.clone(),
            );
            false
        }
    }
}

/// The period of a kept task, noting how a sporadic task's dates were read. A sporadic task
/// with one date takes its `period` attribute (0 if none: the task file's check refuses it).
fn timing(r: &Raw, notes: &mut Notes) -> u64 {
    if r.kind != Kind::Sporadic {
        return r.period.map_or(0, |p| p.ns);
    }
    let gaps: Vec<u64> = r.dates.windows(2).map(|w| w[1].ns - w[0].ns).collect();
    let first = r.dates.first().map_or(0, |d| d.ns);
    let period = match gaps.iter().min() {
        Some(&g) => g,
        None => r.period.map_or(0, |p| p.ns),
    };
    let regular = gaps.iter().all(|&g| g == period);
    let what = if regular {
        format!(
            "periodic from {} every {} (the listed dates, and more after the last)",
            format_ns(first),
            format_ns(period)
        )
    } else {
        format!("sporadic from {}, minimum inter-arrival {} (the smallest gap); the dates themselves are not kept", format_ns(first), format_ns(period))
    };
    notes.item(
        "Sporadic tasks' list_activation_dates (a task file has no release list)",
        format!("{}: {} dates → {what}", r.name, r.dates.len()),
    );
    period
}

/// Fixed priorities (smaller = higher) for a fixed-priority mapping: RM by period, FP by the
/// `priority` field (larger = higher in SimSo). Equal keys get equal ranks (schedlab breaks
/// ties by task index; SimSo by ready-list order, which is task order for simultaneous
/// releases).
fn ranks(
    kept: &[Raw],
    mapping: &Mapping,
    notes: &mut Notes,
) -> Result<Vec<Option<u32>>, InteropError> {
    let keys: Vec<f64> = match mapping.priorities {
        Priorities::None => {
            for r in kept.iter().filter(|r| r.priority.is_some()) {
                notes.item(
                    &format!("data field `priority` ({} does not use priorities)", mapping.class),
                    r.name.clone(),
                );
            }
            return Ok(vec![None; kept.len()]);
        }
        // Shorter period first, compared as whole ns.
        Priorities::Rm => {
            let mut order: Vec<usize> = (0..kept.len()).collect();
            let period = |k: usize| kept.get(k).map(Raw::period_or_gap);
            order.sort_by_key(|&k| period(k));
            let mut ranks = vec![None; kept.len()];
            let mut rank = 0u32;
            let mut last = None;
            for k in order {
                let p = period(k);
                if last.is_some() && last != Some(p) {
                    rank += 1;
                }
                last = Some(p);
                if let Some(slot) = ranks.get_mut(k) {
                    *slot = Some(rank);
                }
            }
            return Ok(ranks);
        }
        Priorities::Given => kept
            .iter()
            .enumerate()
            .map(|(k, r)| {
                r.priority.ok_or_else(|| InteropError::Field {
                    format: FORMAT,
                    place: format!("task `{}`", r.name),
                    field: "attribute `priority`".to_string(),
                    message: format!(
                        "missing: SimSo's {} orders the tasks by this data field (declare it with <field name=\"priority\" type=\"int\"/> in <tasks>); task {k} has none",
                        mapping.class
                    ),
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let mut distinct = keys.clone();
    distinct.sort_by(|a, b| b.total_cmp(a));
    distinct.dedup();
    Ok(keys
        .iter()
        .map(|k| {
            let rank = distinct.iter().position(|d| d == k).unwrap_or(0);
            u32::try_from(rank).ok()
        })
        .collect())
}

impl Raw {
    /// The period a task is imported with (its sporadic gap for sporadic tasks).
    fn period_or_gap(&self) -> u64 {
        if self.kind == Kind::Sporadic {
            let gap = self.dates.windows(2).map(|w| w[1].ns - w[0].ns).min();
            return gap.unwrap_or(self.period.map_or(0, |p| p.ns));
        }
        self.period.map_or(0, |p| p.ns)
    }
}

/// Each task's CPU (0-based) for a partitioned mapping; notes say where the partition comes from.
fn pins(
    kept: &[Raw],
    procs: &[Processor],
    mapping: &Mapping,
    notes: &mut Notes,
) -> Result<Vec<Option<u32>>, InteropError> {
    let pinned = kept.iter().filter(|r| r.cpu.is_some()).count();
    let cpu_of = |r: &Raw| -> Result<Option<u32>, InteropError> {
        let Some(id) = r.cpu else { return Ok(None) };
        let k = procs
            .iter()
            .position(|p| p.id == id)
            .ok_or_else(|| InteropError::Field {
                format: FORMAT,
                place: format!("task `{}`", r.name),
                field: "attribute `cpu`".to_string(),
                message: format!(
                    "no processor has id {id} (ids: {})",
                    procs
                        .iter()
                        .map(|p| p.id.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })?;
        Ok(u32::try_from(k).ok())
    };
    let multi = procs.len() > 1;
    match mapping.placement {
        Placement::Global => {
            if pinned > 0 {
                notes.line(format!(
                    "data field `cpu` on {pinned} task(s): a partition, but {} is global (the task file keeps no CPU)",
                    mapping.class
                ));
            }
            Ok(vec![None; kept.len()])
        }
        Placement::FirstCpu if multi => {
            notes.line(format!(
                "{} is a uniprocessor scheduler: SimSo runs every job on the first processor (`{}`); every task is pinned to CPU 0 and the policy is {}",
                mapping.class,
                procs.first().map_or("", |p| p.name.as_str()),
                mapping.policy
            ));
            Ok(vec![Some(0); kept.len()])
        }
        Placement::FirstCpu => Ok(vec![None; kept.len()]),
        Placement::Pinned | Placement::Packed { .. } if pinned == kept.len() && pinned > 0 => {
            if let Placement::Packed { what, .. } = mapping.placement {
                notes.line(format!(
                    "partition: every task's `cpu` data field (SimSo's {} ignores it and packs by {what}; schedlab keeps the XML's partition)",
                    mapping.class
                ));
            }
            kept.iter().map(cpu_of).collect()
        }
        Placement::Pinned | Placement::Packed { .. } if pinned > 0 => {
            let missing = kept.iter().find(|r| r.cpu.is_none()).map_or("", |r| r.name.as_str());
            Err(InteropError::Field {
                format: FORMAT,
                place: format!("task `{missing}`"),
                field: "attribute `cpu`".to_string(),
                message: format!("missing: {pinned} of {} tasks give a `cpu`; a partition pins all or none", kept.len()),
            })
        }
        Placement::Pinned => Err(InteropError::Field {
            format: FORMAT,
            place: "<tasks>".to_string(),
            field: "attribute `cpu`".to_string(),
            message: format!(
                "SimSo's {} places each task by its `cpu` data field (a processor id; declare <field name=\"cpu\" type=\"int\"/>), and no task has one",
                mapping.class
            ),
        }),
        Placement::Packed {
            what,
            heuristic,
            agreement,
        } => {
            let default = if heuristic == "ffd" { ", the default" } else { "" };
            notes.line(format!(
                "partition: the XML pins no task; SimSo's {} packs by {what}; schedlab packs when it simulates: {PARTITION_HINT}{heuristic}{default} ({agreement})",
                mapping.class
            ));
            Ok(vec![None; kept.len()])
        }
    }
}
