//! Perfetto / Chrome trace-event JSON export (opens in <https://ui.perfetto.dev> and
//! `chrome://tracing`).
//!
//! Layout (documented in `docs/traces.md`):
//! - process 0 "CPUs" (the machine) with one thread track per CPU, named "CPU k" (tid = k);
//!   every execution interval is a complete event (`"ph":"X"`) named `τ{task}#{seq}` with
//!   `args {task, seq}` (plus `"open_start"`/`"open_end": true` at trace edges); a thread of a
//!   parallel job [RTWS §III] (strand `s > 0`) is named `τ{task}#{seq}.{s}` and its args add
//!   `strand`; an interval
//!   of a split task (the metadata's `split`, [RTPS §III]) also has `part` (0-based position
//!   of the part on that CPU), `part_kind` (`head`, `body`, `tail`) and `budget_ns`;
//! - process 1 "tasks" with one thread track per task (tid = task index, named from the
//!   metadata or `τ{task}`), carrying instant events (`"ph":"i"`, thread scope): `release`,
//!   `complete`, `deadline-miss` (args add `deadline`), `abort`, `budget-exhausted` (args add
//!   `cpu` and `budget_ns`, the budget that ran out), and for parallel jobs `fork` (args add
//!   `threads`), `join` (`region`) and `steal` (`victim_cpu`), named with the strand;
//! - metadata events (`"ph":"M"`) naming and ordering the processes and tracks.
//!
//! Timestamps are microseconds written as exact decimals with three fractional digits
//! (nanosecond precision, no float rounding). Output is deterministic: metadata first, then
//! the other events sorted by (time, track kind, track, job, kind).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::{self, Write};

use crate::event::{Event, Kind, NO_CPU};
use crate::file::Meta;
use crate::intervals::intervals;

/// pid of the CPU tracks' process.
pub const CPU_PID: u32 = 0;
/// pid of the task tracks' process.
pub const TASK_PID: u32 = 1;

/// Writes the Chrome trace-event JSON of `events` to `w`.
pub fn write_perfetto<W: Write>(w: &mut W, meta: &Meta, events: &[Event]) -> io::Result<()> {
    w.write_all(to_perfetto_string(meta, events).as_bytes())
}

/// The Chrome trace-event JSON of `events`.
pub fn to_perfetto_string(meta: &Meta, events: &[Event]) -> String {
    let ivs = intervals(events);
    // Tracks: every CPU of the platform (metadata) plus every CPU seen; same for tasks.
    let mut cpus: BTreeSet<u32> = (0..meta.cpus.unwrap_or(0)).collect();
    cpus.extend(ivs.iter().map(|i| i.cpu));
    let mut tasks: BTreeSet<u32> = (0..meta.tasks.len())
        .filter_map(|t| u32::try_from(t).ok())
        .collect();

    // (time, track kind, track, seq, kind code, json) — sorted for a stable order.
    let mut body: Vec<(u64, u32, u32, u64, u16, String)> = Vec::new();
    for i in &ivs {
        let mut s = String::new();
        let _ = write!(
            s,
            r#"{{"ph":"X","cat":"job","pid":{CPU_PID},"tid":{},"ts":{},"dur":{},"name":"τ{}#{}{}","args":{{"task":{},"seq":{}"#,
            i.cpu,
            micros(i.start),
            micros(i.len()),
            i.task,
            i.seq,
            strand_suffix(i.strand),
            i.task,
            i.seq
        );
        if i.strand != 0 {
            let _ = write!(s, r#","strand":{}"#, i.strand);
        }
        if let Some((k, n, part)) = meta.part_on(i.task, i.cpu) {
            let _ = write!(
                s,
                r#","part":{k},"part_kind":"{}","budget_ns":{}"#,
                crate::file::part_kind(k, n),
                part.budget_ns
            );
        }
        if i.open_start {
            s.push_str(r#","open_start":true"#);
        }
        if i.open_end {
            s.push_str(r#","open_end":true"#);
        }
        s.push_str("}}");
        body.push((i.start, CPU_PID, i.cpu, i.seq, 0, s));
    }
    for e in events {
        let shown = matches!(
            e.kind,
            Kind::Release
                | Kind::Complete
                | Kind::DeadlineMiss
                | Kind::Abort
                | Kind::BudgetExhausted
                | Kind::AbortHandlerBegin
                | Kind::AbortHandlerEnd
                | Kind::LockAcquire
                | Kind::LockRelease
                | Kind::Block
                | Kind::Resume
                | Kind::Fork
                | Kind::Join
                | Kind::Steal
        );
        if !shown || e.task == u32::MAX {
            continue;
        }
        tasks.insert(e.task);
        let mut s = String::new();
        let _ = write!(
            s,
            r#"{{"ph":"i","s":"t","cat":"{}","pid":{TASK_PID},"tid":{},"ts":{},"name":"{} τ{}#{}{}","args":{{"task":{},"seq":{}"#,
            e.kind.name(),
            e.task,
            micros(e.time),
            e.kind.name(),
            e.task,
            e.seq,
            strand_suffix(e.strand),
            e.task,
            e.seq
        );
        if e.strand != 0 {
            let _ = write!(s, r#","strand":{}"#, e.strand);
        }
        if e.cpu != NO_CPU {
            let _ = write!(s, r#","cpu":{}"#, e.cpu);
        }
        match e.kind {
            Kind::DeadlineMiss => {
                let _ = write!(s, r#","deadline_ns":{}"#, e.arg);
            }
            Kind::Release => {
                let _ = write!(s, r#","intended_release_ns":{}"#, e.arg);
            }
            Kind::BudgetExhausted => {
                let _ = write!(s, r#","budget_ns":{}"#, e.arg);
            }
            Kind::AbortHandlerBegin => {
                let _ = write!(s, r#","cost_ns":{}"#, e.arg);
            }
            Kind::LockAcquire | Kind::LockRelease | Kind::Block | Kind::Resume => {
                let _ = write!(s, r#","resource":{}"#, e.arg);
            }
            Kind::Fork => {
                let _ = write!(s, r#","threads":{}"#, e.arg);
            }
            Kind::Join => {
                let _ = write!(s, r#","region":{}"#, e.arg);
            }
            Kind::Steal => {
                let _ = write!(s, r#","victim_cpu":{}"#, e.arg);
            }
            _ => {}
        }
        s.push_str("}}");
        body.push((e.time, TASK_PID, e.task, e.seq, e.kind as u16, s));
    }
    body.sort();

    let mut out = String::with_capacity(256 + body.iter().map(|b| b.5.len() + 2).sum::<usize>());
    out.push_str(r#"{"displayTimeUnit":"ns","otherData":"#);
    out.push_str(&meta.to_json().to_string());
    out.push_str(r#","traceEvents":["#);
    let mut first = true;
    let mut emit = |out: &mut String, s: &str| {
        if !first {
            out.push_str(",\n");
        } else {
            out.push('\n');
        }
        first = false;
        out.push_str(s);
    };
    let engine = meta.engine.as_deref().unwrap_or("schedlab");
    let machine = match &meta.policy {
        Some(p) => format!("CPUs ({engine}, {p})"),
        None => format!("CPUs ({engine})"),
    };
    for (pid, name) in [(CPU_PID, machine.as_str()), (TASK_PID, "tasks")] {
        emit(
            &mut out,
            &format!(
                r#"{{"ph":"M","pid":{pid},"tid":0,"name":"process_name","args":{{"name":{}}}}}"#,
                json_str(name)
            ),
        );
        emit(
            &mut out,
            &format!(
                r#"{{"ph":"M","pid":{pid},"tid":0,"name":"process_sort_index","args":{{"sort_index":{pid}}}}}"#
            ),
        );
    }
    for &c in &cpus {
        emit(&mut out, &thread_meta(CPU_PID, c, &format!("CPU {c}")));
    }
    for &t in &tasks {
        emit(&mut out, &thread_meta(TASK_PID, t, &meta.task_name(t)));
    }
    for b in &body {
        emit(&mut out, &b.5);
    }
    out.push_str("\n]}\n");
    out
}

/// `thread_name` and `thread_sort_index` metadata events of one track.
fn thread_meta(pid: u32, tid: u32, name: &str) -> String {
    format!(
        r#"{{"ph":"M","pid":{pid},"tid":{tid},"name":"thread_name","args":{{"name":{}}}}},
{{"ph":"M","pid":{pid},"tid":{tid},"name":"thread_sort_index","args":{{"sort_index":{tid}}}}}"#,
        json_str(name)
    )
}

/// ns as an exact decimal number of µs with three fractional digits.
/// `.s` after a job's name for strand `s` of a parallel job (nothing for strand 0).
fn strand_suffix(strand: u32) -> String {
    if strand == 0 {
        String::new()
    } else {
        format!(".{strand}")
    }
}

fn micros(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

/// A JSON string literal (escaped).
fn json_str(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn ev(t: u64, k: Kind, cpu: u32, task: u32, seq: u64) -> Event {
        Event::new(t, k, cpu, task, seq)
    }

    fn sample() -> Vec<Event> {
        vec![
            ev(0, Kind::Release, NO_CPU, 0, 0),
            ev(0, Kind::Release, NO_CPU, 1, 0),
            ev(0, Kind::SwitchIn, 0, 0, 0),
            ev(0, Kind::SwitchIn, 1, 1, 0),
            ev(1500, Kind::SwitchOut, 0, 0, 0),
            ev(1500, Kind::Complete, 0, 0, 0),
            ev(2001, Kind::DeadlineMiss, NO_CPU, 1, 0).with_arg(2001),
            ev(2500, Kind::SwitchOut, 1, 1, 0),
            ev(2500, Kind::Complete, 1, 1, 0),
        ]
    }

    #[test]
    fn parses_and_has_expected_events() {
        let meta = Meta {
            engine: Some("sim".into()),
            cpus: Some(2),
            ..Meta::default()
        };
        let s = to_perfetto_string(&meta, &sample());
        let v: Value = serde_json::from_str(&s).unwrap();
        let evs = v["traceEvents"].as_array().unwrap();
        let ph = |p: &str| evs.iter().filter(|e| e["ph"] == p).collect::<Vec<_>>();
        let xs = ph("X");
        assert_eq!(xs.len(), 2);
        assert_eq!(xs[0]["name"], "τ0#0");
        assert_eq!(xs[0]["tid"], 0);
        assert_eq!(xs[0]["ts"].as_f64(), Some(0.0));
        assert_eq!(xs[0]["dur"].as_f64(), Some(1.5));
        assert_eq!(xs[1]["name"], "τ1#0");
        assert_eq!(xs[1]["tid"], 1);
        assert_eq!(xs[1]["dur"].as_f64(), Some(2.5));
        assert_eq!(xs[1]["args"]["task"], 1);
        let is = ph("i");
        assert_eq!(is.len(), 5); // 2 releases, 2 completions, 1 miss
        let miss: Vec<_> = is.iter().filter(|e| e["cat"] == "deadline-miss").collect();
        assert_eq!(miss.len(), 1);
        assert_eq!(miss[0]["ts"].as_f64(), Some(2.001));
        assert_eq!(miss[0]["pid"], TASK_PID);
        let names: Vec<_> = ph("M")
            .iter()
            .filter(|e| e["name"] == "thread_name" && e["pid"] == CPU_PID)
            .map(|e| e["args"]["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, ["CPU 0", "CPU 1"]);
    }

    /// A split task's slices name their part; its budget exhaustion is an instant event.
    #[test]
    fn split_parts_and_budget_exhaustion() {
        let mut meta = Meta {
            cpus: Some(2),
            tasks: vec![crate::file::TaskMeta::default(); 3],
            ..Meta::default()
        };
        meta.set_split(2, [(1, 2000), (0, 1000), (2, 500)]);
        let events = vec![
            ev(0, Kind::SwitchIn, 1, 2, 0),
            ev(2000, Kind::BudgetExhausted, 1, 2, 0).with_arg(2000),
            ev(2000, Kind::SwitchOut, 1, 2, 0),
            ev(2000, Kind::SwitchIn, 0, 2, 0),
            ev(2500, Kind::SwitchOut, 0, 2, 0),
            ev(2500, Kind::SwitchIn, 0, 1, 0),
            ev(3000, Kind::SwitchOut, 0, 1, 0),
        ];
        let v: Value = serde_json::from_str(&to_perfetto_string(&meta, &events)).unwrap();
        let evs = v["traceEvents"].as_array().unwrap();
        let slices: Vec<_> = evs
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| {
                let a = &e["args"];
                (
                    e["tid"].as_u64(),
                    a["task"].as_u64(),
                    a["part"].as_u64(),
                    a["part_kind"].as_str(),
                    a["budget_ns"].as_u64(),
                )
            })
            .collect();
        assert_eq!(
            slices,
            vec![
                (Some(1), Some(2), Some(0), Some("head"), Some(2000)),
                (Some(0), Some(2), Some(1), Some("body"), Some(1000)),
                (Some(0), Some(1), None, None, None),
            ]
        );
        let exhausted: Vec<_> = evs
            .iter()
            .filter(|e| e["cat"] == "budget-exhausted")
            .collect();
        assert_eq!(exhausted.len(), 1);
        assert_eq!(exhausted[0]["name"], "budget-exhausted τ2#0");
        assert_eq!(exhausted[0]["args"]["cpu"], 1);
        assert_eq!(exhausted[0]["args"]["budget_ns"], 2000);
        assert_eq!(v["otherData"]["tasks"][2]["split"][2]["budget_ns"], 500);
        assert_eq!(crate::file::part_kind(2, 3), "tail");
    }

    #[test]
    fn deterministic_and_order_independent_of_hash() {
        let meta = Meta::default();
        let a = to_perfetto_string(&meta, &sample());
        let b = to_perfetto_string(&meta, &sample());
        assert_eq!(a, b);
    }

    #[test]
    fn micros_exact() {
        assert_eq!(micros(0), "0.000");
        assert_eq!(micros(1), "0.001");
        assert_eq!(micros(123_456_789), "123456.789");
        assert_eq!(micros(u64::MAX), "18446744073709551.615");
    }

    #[test]
    fn escapes_task_names() {
        let meta = Meta {
            tasks: vec![crate::file::TaskMeta {
                name: Some("a\"b\\c".into()),
                deadline_ns: None,
                split: Vec::new(),
                ..Default::default()
            }],
            ..Meta::default()
        };
        let s = to_perfetto_string(&meta, &[]);
        let v: Value = serde_json::from_str(&s).unwrap();
        assert!(v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["args"]["name"] == "a\"b\\c"));
    }
}
