//! `reservations` for real (runs of 1 s): H-CBS servers [HCBS §3.2] in user space.
//!
//! Pass/fail depends on structural facts only — every job accounted once, no job on two CPUs
//! at once, the server events of every group in the trace, misses of group B under a hog in
//! group A — and on one bound that is generous on purpose: a server runs its group at most
//! Q + [`OVERSHOOT_BOUND_NS`] between two of its replenishments (the budget timer is the
//! dispatcher's futex timeout, late by the wake-up latency; the bound is 20× what was
//! measured here, so host noise does not fail it while a broken enforcement — a hog running
//! through whole periods — does). The measured overshoot, the isolation runs next to
//! `linux-rt-groups` (alternating, when the cgroup-v1 RT group files exist) and the hook
//! overheads are printed (`cargo test -- --nocapture`) and reported in docs/runtime.md.
//! Skipped loudly without real-time permission.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use schedlab_model::{Duration, GroupTree, ReservationGroup, Task, TaskSet};
use schedlab_runtime::config::{Arch, Body, RtTask, RunConfig};
use schedlab_runtime::{run, RunResult};
use schedlab_trace::{Event, Kind};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Real runs must not overlap.
static SERIAL: Mutex<()> = Mutex::new(());

/// A server may run its group this much past Q between two replenishments before the test
/// fails (module doc: generous, not a timing claim).
const OVERSHOOT_BOUND_NS: u64 = 2_000_000;

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

/// Tasks `(wcet ms, period ms, group)` in groups `(name, Q ms, P ms, parent)`.
fn set_of(tasks: &[(u64, u64, &str)], groups: &[(&str, u64, u64, Option<&str>)]) -> TaskSet {
    let tasks = tasks
        .iter()
        .map(|&(c, p, g)| {
            let mut t = Task::implicit(ms(c), ms(p)).unwrap();
            t.group = Some(g.into());
            t
        })
        .collect();
    let groups = groups
        .iter()
        .map(|&(name, q, p, parent)| {
            let mut g = ReservationGroup::new(name, ms(q), ms(p));
            g.parent = parent.map(Into::into);
            g
        })
        .collect();
    TaskSet::with_groups(tasks, Vec::new(), groups).unwrap()
}

/// A hog: the body runs until the run stops (an overrun without end).
fn hog() -> Body {
    Body::Custom(Arc::new(|jc| {
        while !jc.stop_requested() {
            std::hint::spin_loop();
        }
    }))
}

/// A run of `set` under `arch` (`reservations`, `linux-rt-groups` or `global-lock` with
/// `gfp`) on `cpus` for 1 s, ranks by task index, task `hogging` never stopping.
fn run_set(set: &TaskSet, arch: &str, cpus: &[u32], hogging: Option<usize>) -> RunResult {
    let mut tasks: Vec<RtTask> = set.iter().map(RtTask::from).collect();
    if let Some(h) = hogging {
        tasks[h].body = hog();
    }
    let a = Arch::named(arch, "ticket").unwrap();
    let policy = match arch {
        "reservations" => "hcbs",
        "global-lock" => "gfp",
        _ => arch,
    };
    let mut c = RunConfig::new(cpus.to_vec(), a, policy, tasks.len(), ms(1000));
    if arch != "global-lock" {
        c.groups = Some(Arc::new(GroupTree::new(set, cpus.len() as u32).unwrap()));
    }
    run(&tasks, &c).unwrap()
}

/// The jobs each task releases in 1 s (offset 0).
fn releases(set: &TaskSet) -> u64 {
    set.iter()
        .map(|t| 1_000_000_000u64.div_ceil(t.period.as_ns()))
        .sum()
}

/// Structure every run must have: each released job exactly once in the records, no job on
/// two CPUs at once.
fn check_structure(set: &TaskSet, r: &RunResult) {
    assert_eq!(r.totals.jobs, releases(set));
    let mut seen = BTreeMap::new();
    for j in &r.jobs {
        *seen.entry((j.task, j.seq)).or_insert(0u32) += 1;
    }
    assert!(seen.values().all(|&k| k == 1), "a job recorded twice");
    assert_eq!(seen.len() as u64, releases(set));
    let overlaps = schedlab_trace::check::parallel_execution(&r.trace);
    assert!(overlaps.is_empty(), "a job ran on two CPUs: {overlaps:?}");
}

/// A server's events: (time, kind, arg).
type ServerLog = Vec<(u64, Kind, u64)>;

/// The server events of the trace, by (group, CPU).
fn server_events(trace: &[Event]) -> BTreeMap<(u64, u32), ServerLog> {
    let mut out: BTreeMap<(u64, u32), ServerLog> = BTreeMap::new();
    for e in trace.iter().filter(|e| e.task == u32::MAX) {
        if matches!(
            e.kind,
            Kind::BudgetReplenished | Kind::BudgetExhausted | Kind::BudgetThrottled
        ) {
            out.entry((e.seq, e.cpu))
                .or_default()
                .push((e.time, e.kind, e.arg));
        }
    }
    out
}

/// The most any server of `tree`'s groups ran its subtree beyond Q between two of its
/// replenishments (ns; the execution of the subtree's jobs on the server's CPU, from the
/// trace's switch-in/switch-out intervals), and the number of windows measured.
fn overshoot(tree: &GroupTree, trace: &[Event]) -> (u64, u64) {
    let iv = schedlab_trace::intervals::intervals(trace);
    let in_subtree = |task: u32, g: u32| {
        let mut at = tree.group_of_task(task as usize);
        while let Some(x) = at {
            if x == g {
                return true;
            }
            at = tree.groups()[x as usize].parent;
        }
        false
    };
    let (mut worst, mut windows) = (0u64, 0u64);
    for ((g, cpu), evs) in server_events(trace) {
        let q = tree.groups()[g as usize].budget.as_ns();
        let marks: Vec<u64> = evs
            .iter()
            .filter(|e| e.1 == Kind::BudgetReplenished)
            .map(|e| e.0)
            .collect();
        for w in marks.windows(2) {
            let (from, to) = (w[0], w[1]);
            let ran: u64 = iv
                .iter()
                .filter(|i| i.cpu == cpu && in_subtree(i.task, g as u32))
                .map(|i| i.end.min(to).saturating_sub(i.start.max(from)))
                .sum();
            worst = worst.max(ran.saturating_sub(q));
            windows += 1;
        }
    }
    (worst, windows)
}

/// Two CPUs, groups a (4/20) and b (8/20) ⊃ b1 (3/10), task 0 of a never stopping (so a's
/// servers are exhausted and throttled on both CPUs, the hog migrating between them): every
/// job once, no job on two CPUs, every group's servers replenished on both CPUs, a's
/// throttled, no server past Q + the bound; the hook operations of [HCBS §5] in the
/// overheads.
#[test]
fn grouped_jobs_run_once_each_within_their_servers() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let test = "grouped_jobs_run_once_each_within_their_servers";
    let Some(cpus) = common::machine(test, 2) else {
        return;
    };
    let set = set_of(
        &[
            (1, 20, "a"),
            (2, 40, "a"),
            (2, 20, "b"),
            (1, 10, "b1"),
            (1, 20, "b1"),
        ],
        &[
            ("a", 4, 20, None),
            ("b", 8, 20, None),
            ("b1", 3, 10, Some("b")),
        ],
    );
    let r = run_set(&set, "reservations", &cpus, Some(0));
    common::print_run("reservations, a (hog) + b ⊃ b1 on 2 CPUs", &r);
    assert!(r.real_time, "{:?}", r.warnings);
    check_structure(&set, &r);
    let servers = server_events(&r.trace);
    for g in 0..3u64 {
        for &cpu in &[0u32, 1] {
            let evs = servers.get(&(g, cpu)).map_or(&[][..], Vec::as_slice);
            assert!(
                evs.iter().any(|e| e.1 == Kind::BudgetReplenished),
                "group {g} CPU {cpu}: no replenishment in the trace"
            );
        }
    }
    for cpu in [0u32, 1] {
        let a = servers.get(&(0, cpu)).map_or(&[][..], Vec::as_slice);
        assert!(
            a.iter().any(|e| e.1 == Kind::BudgetThrottled),
            "the hog's server on CPU {cpu} was never throttled"
        );
    }
    let tree = GroupTree::new(&set, 2).unwrap();
    let (worst, windows) = overshoot(&tree, &r.trace);
    eprintln!("  overshoot past Q: worst {worst} ns over {windows} server windows");
    assert!(windows > 0);
    assert!(
        worst <= OVERSHOOT_BOUND_NS,
        "a server ran {worst} ns past Q"
    );
    for hook in schedlab_trace::Op::HOOKS {
        assert!(
            r.overheads.samples.contains_key(hook.name()),
            "no {} samples",
            hook.name()
        );
    }
}

/// Isolation on one CPU: task 0 of group a (4/20) never stops; group b's task (2 ms every 20,
/// server 6/20) meets every deadline under `reservations` (a is throttled after its budget
/// every server period), whereas under `global-lock` with `gfp` — no groups — the hog at the
/// higher priority starves it. The hog's server never runs it past Q + the bound. The same
/// file under `linux-rt-groups`, alternating with `reservations` (when the cgroup files
/// exist), is printed side by side.
#[test]
fn an_overrunning_group_does_not_make_another_group_miss() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let test = "an_overrunning_group_does_not_make_another_group_miss";
    let Some(cpus) = common::machine(test, 1) else {
        return;
    };
    let cpu = *cpus.last().unwrap();
    let set = set_of(
        &[(1, 20, "a"), (2, 20, "b")],
        &[("a", 4, 20, None), ("b", 6, 20, None)],
    );
    let tree = GroupTree::new(&set, 1).unwrap();
    let kernel = schedlab_runtime::mech::rt_cgroup::hierarchy().is_some();
    if !kernel {
        eprintln!("{test}: linux-rt-groups not compared (no cgroup-v1 RT group files)");
    }
    let mut order = vec!["reservations", "global-lock"];
    if kernel {
        order.extend(["linux-rt-groups", "reservations", "linux-rt-groups"]);
    }
    for arch in order {
        let r = run_set(&set, arch, &[cpu], Some(0));
        assert!(r.real_time, "{:?}", r.warnings);
        let b = r.per_task.iter().find(|m| m.task == 1).unwrap();
        let a_cpu: u64 = r
            .jobs
            .iter()
            .filter(|j| j.task == 0)
            .map(|j| j.executed.as_ns())
            .sum();
        let (worst, windows) = if arch == "global-lock" {
            (0, 0)
        } else {
            overshoot(&tree, &r.trace)
        };
        eprintln!(
            "{arch:<16} a hogs: b {} jobs, {} misses, max response {:?}; a {:.1} ms of CPU; overshoot past Q worst {worst} ns over {windows} windows; load {:?}",
            b.jobs,
            b.misses,
            b.max_response,
            a_cpu as f64 / 1e6,
            load()
        );
        match arch {
            "global-lock" => assert!(b.misses > 0, "the hog did not delay b without groups"),
            _ => assert_eq!(
                b.misses, 0,
                "{arch}: group b missed although a was throttled"
            ),
        }
        if arch == "reservations" {
            assert!(
                worst <= OVERSHOOT_BOUND_NS,
                "a server ran {worst} ns past Q"
            );
            assert!(windows > 0);
        }
    }
}

/// The 1-minute load average (reported with the numbers).
fn load() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    s.split_whitespace().next()?.parse().ok()
}
