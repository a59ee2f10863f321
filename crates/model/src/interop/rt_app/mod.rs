//! rt-app's JSON, both ways: [`write`] a deployment as rt-app's workload description, and
//! [`import`] one back into a task file.
//!
//! Format: scheduler-tools/rt-app `doc/tutorial.txt` and `doc/examples/*.json` (the fields,
//! their units and their defaults are listed in [`doc`], which checks a document against
//! them). A task becomes one thread object keyed by its name:
//!
//! ```json
//! "t1": {"policy": "SCHED_DEADLINE", "dl-runtime": 2500, "dl-deadline": 10000,
//!        "dl-period": 10000, "cpus": [0], "loop": -1, "run": 2000,
//!        "timer": {"ref": "unique", "period": 10000, "mode": "absolute"}}
//! ```
//!
//! - `policy` and its parameters: `SCHED_DEADLINE` with `dl-runtime`/`dl-deadline`/`dl-period`
//!   (µs, the tutorial's unit), or `SCHED_FIFO` with `priority`.
//! - `cpus`: the task's CPUs. `delay` (µs): the first release's offset.
//! - One phase, looping until the end (`loop: -1`): `run` (µs of calibrated work: rt-app runs
//!   ⌊t·1000/pLoad⌋ loops of its calibrated workload, so a preempted job still does all its
//!   work, unlike `runtime`, which is wall-clock time) then a `timer` with its own reference
//!   (`"ref": "unique"`) in `absolute` mode, so release k is at start + delay + k·period
//!   whatever the job's response time.
//! - `global`: `duration` (whole seconds, −1 = until stopped), `calibration` (`"CPU<n>"`),
//!   `default_policy`, `lock_pages` (true: no page faults in the jobs), `logdir`,
//!   `log_basename`.
//!
//! Times are rounded to whole µs where rt-app needs it: `run` and `dl-runtime` up, `dl-deadline`,
//! `dl-period`, the timer period and `delay` down (a load at least as heavy as the task's);
//! the header notes every task whose times moved. The header is a `/* … */` comment before the
//! JSON, as in rt-app's own examples (its parser, json-c, reads C comments); strict JSON
//! readers need the comment removed (everything before the first line that is `{`).
//!
//! One rt-app process cannot run partitioned or clustered `SCHED_DEADLINE`: rt-app sets a
//! thread's `SCHED_DEADLINE` parameters and then its affinity, and the kernel refuses a
//! deadline thread an affinity narrower than its root domain (EBUSY). Such a file is run one
//! rt-app per root domain, each in its domain's cpuset: the shell export does exactly that with
//! `--rt-app` (the same writer, [`document`], makes each domain's JSON). O(n) in the tasks.

pub mod doc;
mod import;

pub use import::{import, MAX_EVENTS, MAX_TEXT_BYTES, MAX_THREADS};

use super::deploy::{DeployedTask, Deployment, LinuxPolicy};
use std::fmt::Write as _;

/// `ns` in whole µs, rounded up.
fn us_up(ns: u64) -> u64 {
    ns.div_ceil(1000)
}

/// `ns` in whole µs, rounded down.
fn us_down(ns: u64) -> u64 {
    ns / 1000
}

/// A task's times as rt-app takes them (µs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Times {
    run: u64,
    timer: u64,
    delay: u64,
    /// `SCHED_DEADLINE`: runtime, deadline, period.
    dl: Option<(u64, u64, u64)>,
}

impl Times {
    pub(crate) fn of(t: &DeployedTask) -> Times {
        let period = us_down(t.period.as_ns()).max(1);
        let dl = match t.policy {
            LinuxPolicy::Deadline {
                runtime,
                deadline,
                period,
            } => {
                let p = us_down(period.as_ns()).max(1);
                let d = us_down(deadline.as_ns()).clamp(1, p);
                Some((us_up(runtime.as_ns()).clamp(1, d), d, p))
            }
            LinuxPolicy::Fifo { .. } => None,
        };
        Times {
            run: us_up(t.wcet.as_ns()).max(1),
            timer: dl.map_or(period, |(_, _, p)| p),
            delay: us_down(t.offset.as_ns()),
            dl,
        }
    }

    /// Whether these are the task's times exactly.
    fn exact(&self, t: &DeployedTask) -> bool {
        let exact_dl = match (t.policy, self.dl) {
            (
                LinuxPolicy::Deadline {
                    runtime,
                    deadline,
                    period,
                },
                Some((r, d, p)),
            ) => {
                runtime.as_ns() == r * 1000
                    && deadline.as_ns() == d * 1000
                    && period.as_ns() == p * 1000
            }
            _ => true,
        };
        exact_dl
            && t.wcet.as_ns() == self.run * 1000
            && t.period.as_ns() == self.timer * 1000
            && t.offset.as_ns() == self.delay * 1000
    }
}

/// How a document refers to CPUs, the run length and the log directory: literally (the
/// `--to rt-app` file) or through shell variables (the documents the shell script writes at
/// run time).
pub(crate) struct DocStyle<'a> {
    /// Logical CPU → the text of its number in the document.
    pub(crate) cpu: &'a dyn Fn(u32) -> String,
    /// The value of `global.duration` (seconds).
    pub(crate) duration: String,
    /// The value of `global.calibration` (with its quotes).
    pub(crate) calibration: String,
    /// The value of `global.logdir` (with its quotes).
    pub(crate) logdir: String,
    /// The value of `global.log_basename` (without quotes; `[A-Za-z0-9_-]`).
    pub(crate) basename: String,
}

/// The JSON document (no header) of `tasks`, all under one policy.
pub(crate) fn document(tasks: &[&DeployedTask], style: &DocStyle<'_>) -> String {
    let policy = tasks.first().map_or("SCHED_OTHER", |t| t.policy.name());
    let mut s = String::new();
    s.push_str("{\n    \"global\": {\n");
    let _ = writeln!(s, "        \"duration\": {},", style.duration);
    let _ = writeln!(s, "        \"calibration\": {},", style.calibration);
    let _ = writeln!(s, "        \"default_policy\": \"{policy}\",");
    s.push_str("        \"lock_pages\": true,\n");
    let _ = writeln!(s, "        \"logdir\": {},", style.logdir);
    let _ = writeln!(s, "        \"log_basename\": \"{}\"", style.basename);
    s.push_str("    },\n    \"tasks\": {");
    for (k, t) in tasks.iter().enumerate() {
        let times = Times::of(t);
        s.push_str(if k == 0 { "\n" } else { ",\n" });
        let _ = writeln!(s, "        \"{}\": {{", t.ident);
        let _ = writeln!(s, "            \"policy\": \"{}\",", t.policy.name());
        match (t.policy, times.dl) {
            (LinuxPolicy::Fifo { priority }, _) => {
                let _ = writeln!(s, "            \"priority\": {priority},");
            }
            (LinuxPolicy::Deadline { .. }, dl) => {
                // `Times::of` gives every SCHED_DEADLINE task its three times.
                if let Some((r, d, p)) = dl {
                    let _ = writeln!(s, "            \"dl-runtime\": {r},");
                    let _ = writeln!(s, "            \"dl-deadline\": {d},");
                    let _ = writeln!(s, "            \"dl-period\": {p},");
                }
            }
        }
        let cpus: Vec<String> = t.cpus.iter().map(|&c| (style.cpu)(c)).collect();
        let _ = writeln!(s, "            \"cpus\": [{}],", cpus.join(", "));
        if times.delay > 0 {
            let _ = writeln!(s, "            \"delay\": {},", times.delay);
        }
        s.push_str("            \"loop\": -1,\n");
        let _ = writeln!(s, "            \"run\": {},", times.run);
        let _ = writeln!(
            s,
            "            \"timer\": {{\"ref\": \"unique\", \"period\": {}, \"mode\": \"absolute\"}}",
            times.timer
        );
        s.push_str("        }");
    }
    s.push_str("\n    }\n}\n");
    s
}

/// The lines rt-app's header adds to the deployment's: how to run the file, and every task
/// whose times were rounded.
fn notes(dep: &Deployment) -> Vec<String> {
    let mut lines = vec![
        "rt-app workload (scheduler-tools/rt-app, doc/tutorial.txt): run it as root with `rt-app FILE`; times in µs; `run` is calibrated work (rt-app measures ns per loop on the `calibration` CPU at start).".to_string(),
    ];
    if dep.uses_deadline() {
        if dep.domains.len() > 1 {
            lines.push(format!(
                "SCHED_DEADLINE in {} root domains: ONE rt-app process cannot run this file (rt-app sets each thread's affinity after its SCHED_DEADLINE parameters; the kernel refuses a deadline thread an affinity narrower than its root domain, EBUSY). Run one rt-app per root domain inside that domain's exclusive cpuset: the shell export does it (`schedlab export … --to shell`, then `sh FILE --rt-app`).",
                dep.domains.len()
            ));
        } else {
            lines.push(format!(
                "SCHED_DEADLINE over all {} CPUs: runs as is on a machine with exactly {} CPUs; on a larger one, run it inside a cpuset of these CPUs that is its own root domain (the shell export's `--rt-app` does that).",
                dep.cpus, dep.cpus
            ));
        }
    }
    for t in &dep.tasks {
        let times = Times::of(t);
        if !times.exact(t) {
            lines.push(format!(
                "{}: times rounded to whole µs (rt-app's unit): run {} µs, timer period {} µs{}{}",
                t.ident,
                times.run,
                times.timer,
                times
                    .dl
                    .map(|(r, d, p)| format!(", dl-runtime/deadline/period {r}/{d}/{p} µs"))
                    .unwrap_or_default(),
                if times.delay > 0 {
                    format!(", delay {} µs", times.delay)
                } else {
                    String::new()
                }
            ));
        }
    }
    if let Some(d) = dep.duration {
        if d.as_ns() % 1_000_000_000 != 0 {
            lines.push(format!(
                "global.duration is whole seconds: {} s for the run length {}",
                d.as_ns().div_ceil(1_000_000_000),
                crate::time::format_ns(d.as_ns())
            ));
        }
    }
    if dep.tasks.iter().any(|t| t.wss.is_some()) {
        lines.push("working sets (`wss`) are not emulated by rt-app's `run`".to_string());
    }
    lines
}

/// `global.duration` for a run length: whole seconds rounded up, −1 for "until stopped".
pub(crate) fn duration_seconds(dep: &Deployment) -> String {
    dep.duration.map_or("-1".to_string(), |d| {
        d.as_ns().div_ceil(1_000_000_000).max(1).to_string()
    })
}

/// Text safe inside a `/* … */` comment.
fn in_comment(line: &str) -> String {
    line.replace("*/", "* /")
}

/// The lowest CPU any of `tasks` may run on (0 when none names one): where an rt-app process
/// for them calibrates.
pub(crate) fn lowest_cpu(tasks: &[&DeployedTask]) -> u32 {
    tasks
        .iter()
        .flat_map(|t| t.cpus.iter())
        .min()
        .copied()
        .unwrap_or(0)
}

/// The deployment as one rt-app JSON file: the header as a comment, then every task (module
/// documentation for the format and for partitioned `SCHED_DEADLINE`).
pub fn write(dep: &Deployment) -> String {
    let mut out = String::from("/*\n");
    for line in dep.header().iter().chain(notes(dep).iter()) {
        let _ = writeln!(out, " * {}", in_comment(line));
    }
    out.push_str(" */\n");
    let tasks: Vec<&DeployedTask> = dep.tasks.iter().collect();
    let first_cpu = lowest_cpu(&tasks);
    let style = DocStyle {
        cpu: &|c| c.to_string(),
        duration: duration_seconds(dep),
        calibration: format!("\"CPU{first_cpu}\""),
        logdir: "\"./\"".to_string(),
        basename: dep.set_name(),
    };
    out.push_str(&document(&tasks, &style));
    out
}

/// The text after the `/* … */` header (from the first line that starts with `{`): the JSON
/// itself, for strict JSON readers.
pub fn strip_header(text: &str) -> &str {
    match text.find("\n{") {
        Some(i) if text.starts_with("/*") => &text[i + 1..],
        _ => text,
    }
}

#[cfg(test)]
mod tests;
