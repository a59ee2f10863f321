//! `hcbs` (H-CBS reservations, [HCBS §3.2]) in the simulator: hand-derived schedules (the
//! throttling and replenishment instants exactly, two groups on two CPUs, a subgroup, both
//! branches of the CBS wake-up rule), the refusals of `run`, and properties read back from
//! the trace: a continuously backlogged group receives at least Z(t) [HCBS Eq. 4] on each of
//! its CPUs in every window, a server never executes more than Q between two
//! replenishments, runs are deterministic, and with Q = P a group covering every CPU is
//! scheduled exactly as `gfp` schedules its tasks.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use proptest::prelude::*;
use schedlab_analysis::hcbs::supply::Server as Supply;
use schedlab_model::{Duration, ReservationGroup, Task, TaskSet};
use schedlab_sim::{run, RunError, SimConfig, SimResult};
use schedlab_trace::{Event, Kind};
use std::collections::BTreeMap;

fn ns(v: u64) -> Duration {
    Duration::from_ns(v)
}

/// A group `(name, Q, P, cpus, parent)`.
type G<'a> = (&'a str, u64, u64, Option<Vec<u32>>, Option<&'a str>);

/// Tasks `(C, T, group)` (implicit deadlines, ns) in groups `groups`.
fn set(tasks: &[(u64, u64, &str)], groups: &[G<'_>]) -> TaskSet {
    let list = tasks
        .iter()
        .map(|&(c, t, g)| {
            let mut task = Task::implicit(ns(c), ns(t)).unwrap();
            task.group = (!g.is_empty()).then(|| g.to_string());
            task
        })
        .collect();
    let groups = groups
        .iter()
        .map(|(name, q, p, cpus, parent)| {
            let mut g = ReservationGroup::new(*name, ns(*q), ns(*p));
            g.cpus = cpus.clone();
            g.parent = parent.map(str::to_string);
            g
        })
        .collect();
    TaskSet::with_groups(list, Vec::new(), groups).unwrap()
}

fn sim(tasks: &TaskSet, policy: &str, cpus: u32, horizon: u64) -> Result<SimResult, RunError> {
    let ranks: Vec<u32> = (0..tasks.len() as u32).collect();
    let mut config = SimConfig::new(cpus, ns(horizon));
    config.record_trace = true;
    config.record_jobs = true;
    run(tasks, policy, &ranks, None, &config).map(|(r, _)| r)
}

/// Server events `(time, kind, group, cpu, arg)`.
fn server_events(r: &SimResult) -> Vec<(u64, &'static str, u64, u32, u64)> {
    r.trace
        .iter()
        .filter(|e| e.task == u32::MAX)
        .filter(|e| {
            matches!(
                e.kind,
                Kind::BudgetReplenished | Kind::BudgetExhausted | Kind::BudgetThrottled
            )
        })
        .map(|e| (e.time, e.kind.name(), e.seq, e.cpu, e.arg))
        .collect()
}

/// Execution intervals `(cpu, task, start, end)` from switch-in/switch-out.
fn intervals(trace: &[Event]) -> Vec<(u32, u32, u64, u64)> {
    let mut open: BTreeMap<u32, (u32, u64)> = BTreeMap::new();
    let mut out = Vec::new();
    for e in trace {
        match e.kind {
            Kind::SwitchIn => {
                open.insert(e.cpu, (e.task, e.time));
            }
            Kind::SwitchOut => {
                if let Some((t, s)) = open.remove(&e.cpu) {
                    if e.time > s {
                        out.push((e.cpu, t, s, e.time));
                    }
                }
            }
            _ => {}
        }
    }
    out.sort_unstable();
    out
}

/// One group (Q = 2, P = 5) on one CPU, one task C = 3, T = 10: by hand, job 0 runs [0, 2)
/// (activation at 0: c = 2, d = 5), is throttled until 5, runs [5, 6) after the
/// replenishment (c = 2, d = 10) and completes at 6 with c = 1 left; job 1's release at 10 finds
/// d = 10 ≤ a: c = 2, d = 15; it runs [10, 12), is throttled until 15 and completes at 16.
#[test]
fn one_group_throttling_and_replenishment_instants() {
    let tasks = set(&[(3, 10, "g")], &[("g", 2, 5, None, None)]);
    let r = sim(&tasks, "hcbs", 1, 20).unwrap();
    assert_eq!(
        intervals(&r.trace),
        vec![(0, 0, 0, 2), (0, 0, 5, 6), (0, 0, 10, 12), (0, 0, 15, 16)]
    );
    assert_eq!(
        server_events(&r),
        vec![
            (0, "budget-replenished", 0, 0, 2),
            (2, "budget-exhausted", 0, 0, 2),
            (2, "budget-throttled", 0, 0, 5),
            (5, "budget-replenished", 0, 0, 2),
            (10, "budget-replenished", 0, 0, 2),
            (12, "budget-exhausted", 0, 0, 2),
            (12, "budget-throttled", 0, 0, 15),
            (15, "budget-replenished", 0, 0, 2),
        ]
    );
    let done: Vec<_> = r
        .jobs
        .iter()
        .map(|j| j.completion.map(|t| t.as_ns()))
        .collect();
    assert_eq!(done, vec![Some(6), Some(16)]);
}

/// The CBS wake-up rule, kept branch: Q = 2, P = 10, one task C = 1, T = 3. Job 0 runs
/// [0, 1) (activation at 0: c = 2, d = 10; c = 1 left). At 3 job 1 activates the group:
/// c·P = 10 < (d − a)·Q = 14 → kept (no replenishment): it runs [3, 4) and completes as c
/// reaches 0 — exhausted at 4, throttled until 10. Job 2 (released 6) finds the server
/// throttled (kept), waits, and runs [10, 11) after the replenishment (c = 2, d = 20); job 3
/// (released 9) runs [11, 12): exhausted, throttled until 20.
/// Fresh branch: Q = 2, P = 4, C = 1, T = 3: job 0 [0, 1) leaves c = 1, d = 4; at 3:
/// c·P = 4 ≥ (4 − 3)·2 = 2 → c = 2, d = 7 (a replenishment at 3).
#[test]
fn wake_up_rule_kept_and_fresh() {
    let tasks = set(&[(1, 3, "g")], &[("g", 2, 10, None, None)]);
    let r = sim(&tasks, "hcbs", 1, 14).unwrap();
    assert_eq!(
        server_events(&r),
        vec![
            (0, "budget-replenished", 0, 0, 2),
            (4, "budget-exhausted", 0, 0, 2),
            (4, "budget-throttled", 0, 0, 10),
            (10, "budget-replenished", 0, 0, 2),
            (12, "budget-exhausted", 0, 0, 2),
            (12, "budget-throttled", 0, 0, 20),
        ],
        "kept at 3 (1·10 < 7·2), kept at 6 while throttled"
    );
    assert_eq!(
        intervals(&r.trace),
        vec![(0, 0, 0, 1), (0, 0, 3, 4), (0, 0, 10, 11), (0, 0, 11, 12)]
    );
    let tasks = set(&[(1, 3, "g")], &[("g", 2, 4, None, None)]);
    let r = sim(&tasks, "hcbs", 1, 5).unwrap();
    assert_eq!(
        server_events(&r),
        vec![
            (0, "budget-replenished", 0, 0, 2),
            (3, "budget-replenished", 0, 0, 2),
        ]
    );
}

/// Two groups on two CPUs: `a` (Q = 2, P = 4) on CPUs 0–1 with two tasks C = 4, T = 100;
/// `b` (Q = 2, P = 4) on CPU 1 with one task C = 2, T = 100. At 0 every server has d = 4:
/// pairs by (d, group, CPU): (a, 0), (a, 1) taken by `a` (two tasks), (b, 1) finds CPU 1
/// taken. At 2 `a`'s servers are exhausted (throttled until 4): `b` runs [2, 4) on CPU 1 and
/// completes. At 4 `a` is replenished (d = 8) and its tasks finish [4, 6) on both CPUs.
#[test]
fn two_groups_on_two_cpus() {
    let tasks = set(
        &[(4, 100, "a"), (4, 100, "a"), (2, 100, "b")],
        &[("a", 2, 4, None, None), ("b", 2, 4, Some(vec![1]), None)],
    );
    let r = sim(&tasks, "hcbs", 2, 20).unwrap();
    assert_eq!(
        intervals(&r.trace),
        vec![
            (0, 0, 0, 2),
            (0, 0, 4, 6),
            (1, 1, 0, 2),
            (1, 1, 4, 6),
            (1, 2, 2, 4)
        ]
    );
    assert_eq!(r.totals.deadline_misses, 0);
}

/// A subgroup: `p` (Q = 4, P = 8) on CPU 0 with own task τ0 (C = 4, T = 100) and subgroup `c`
/// (Q = 1, P = 8) with τ1 (C = 2, T = 100). At 0 both activate (d = 8): inside `p` the
/// child's server takes CPU 0 first: τ1 runs [0, 1) and exhausts `c` (throttled until 8);
/// `p` (c = 3) runs its own τ0 [1, 4) and is exhausted (throttled until 8). At 8 both are
/// replenished (d = 16): τ1 [8, 9) completes, τ0 [9, 10) completes.
#[test]
fn nested_group() {
    let tasks = set(
        &[(4, 100, "p"), (2, 100, "c")],
        &[
            ("p", 4, 8, Some(vec![0]), None),
            ("c", 1, 8, None, Some("p")),
        ],
    );
    let r = sim(&tasks, "hcbs", 1, 20).unwrap();
    assert_eq!(
        intervals(&r.trace),
        vec![(0, 0, 1, 4), (0, 0, 9, 10), (0, 1, 0, 1), (0, 1, 8, 9)]
    );
}

#[test]
fn refusals() {
    // An ungrouped task under hcbs: named.
    let tasks = set(&[(1, 10, "g"), (1, 10, "")], &[("g", 2, 5, None, None)]);
    let e = sim(&tasks, "hcbs", 1, 10).err().unwrap().to_string();
    assert!(e.contains("task 1") && e.contains("`group`"), "{e}");
    // Overload on CPU 0 (3/5 + 3/5 > 1): refused under every policy.
    let tasks = set(
        &[(1, 10, "a"), (1, 10, "b")],
        &[("a", 3, 5, None, None), ("b", 3, 5, None, None)],
    );
    for policy in ["hcbs", "gedf", "pfp"] {
        let e = sim(&tasks, policy, 1, 10).err().unwrap().to_string();
        assert!(e.contains("Eq. 17") && e.contains("CPU 0"), "{policy}: {e}");
    }
    // A group's CPU beyond the platform.
    let tasks = set(&[(1, 10, "a")], &[("a", 1, 5, Some(vec![3]), None)]);
    let e = sim(&tasks, "gedf", 2, 10).err().unwrap().to_string();
    assert!(e.contains("CPU 3"), "{e}");
    // Other policies run the set ignoring the groups, with a note for the front end.
    let tasks = set(&[(1, 10, "g")], &[("g", 2, 5, None, None)]);
    assert!(sim(&tasks, "gedf", 1, 10).is_ok());
    assert_eq!(
        schedlab_sim::groups_note(&tasks, "gedf").as_deref(),
        Some("note: groups are ignored by policy gedf; use --policy hcbs")
    );
    assert_eq!(schedlab_sim::groups_note(&tasks, "hcbs"), None);
}

/// Each task's execution as merged intervals, whatever the CPU.
fn coverage(trace: &[Event]) -> BTreeMap<u32, Vec<(u64, u64)>> {
    let mut out: BTreeMap<u32, Vec<(u64, u64)>> = BTreeMap::new();
    let mut iv: Vec<(u32, u64, u64)> = intervals(trace)
        .into_iter()
        .map(|(_, t, s, e)| (t, s, e))
        .collect();
    iv.sort_unstable();
    for (t, s, e) in iv {
        let list = out.entry(t).or_default();
        match list.last_mut() {
            Some(last) if last.1 == s => last.1 = e,
            _ => list.push((s, e)),
        }
    }
    out
}

/// Service of group `g` on `cpu`: its tasks' execution intervals there.
fn service(iv: &[(u32, u32, u64, u64)], tasks: &[u32], cpu: u32) -> Vec<(u64, u64)> {
    iv.iter()
        .filter(|(c, t, _, _)| *c == cpu && tasks.contains(t))
        .map(|&(_, _, s, e)| (s, e))
        .collect()
}

fn served(service: &[(u64, u64)], a: u64, b: u64) -> u64 {
    service
        .iter()
        .map(|&(s, e)| e.min(b).saturating_sub(s.max(a)))
        .sum()
}

/// Flat groups on `m` CPUs, each with more never-finishing tasks than CPUs (backlogged from 0
/// to the horizon), bandwidths that pass admission.
/// Each group's `(Q, P, its tasks)`.
type Members = Vec<(u64, u64, Vec<u32>)>;

fn backlogged() -> impl Strategy<Value = (TaskSet, u32, Members)> {
    (
        1u32..=2,
        prop::collection::vec((1u64..=6, 2u64..=12), 1..=3),
    )
        .prop_filter_map("admission", |(m, raw)| {
            let mut groups: Vec<(String, u64, u64)> = Vec::new();
            let mut tasks: Vec<(u64, u64, String)> = Vec::new();
            for (i, &(q, p)) in raw.iter().enumerate() {
                let q = q.min(p);
                let name = format!("g{i}");
                for _ in 0..=m {
                    tasks.push((1_000, 1_000, name.clone()));
                }
                groups.push((name, q, p));
            }
            let gs: Vec<G<'_>> = groups
                .iter()
                .map(|(n, q, p)| (n.as_str(), *q, *p, None, None))
                .collect();
            let ts: Vec<(u64, u64, &str)> =
                tasks.iter().map(|(c, t, g)| (*c, *t, g.as_str())).collect();
            let set = set(&ts, &gs);
            let tree = schedlab_model::GroupTree::new(&set, m).ok()?;
            tree.check_admission().ok()?;
            let per = (m + 1) as usize;
            let info = groups
                .iter()
                .enumerate()
                .map(|(i, (_, q, p))| {
                    (*q, *p, ((i * per) as u32..((i + 1) * per) as u32).collect())
                })
                .collect();
            Some((set, m, info))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// [HCBS Eq. 4]: in every window [a, a + t) of a continuously backlogged group, its
    /// service on each of its CPUs is at least Z(t); and never more than Q between two
    /// replenishments of a server (read from the trace's server events).
    #[test]
    fn backlogged_service_at_least_z_and_at_most_q((tasks, m, groups) in backlogged()) {
        let horizon = 60;
        let r = sim(&tasks, "hcbs", m, horizon).unwrap();
        let iv = intervals(&r.trace);
        let ev = server_events(&r);
        for (g, (q, p, members)) in groups.iter().enumerate() {
            let z = Supply::new(*q, *p).unwrap();
            for cpu in 0..m {
                let s = service(&iv, members, cpu);
                for a in 0..horizon {
                    for b in a + 1..=horizon {
                        let got = served(&s, a, b);
                        prop_assert!(got >= z.supply(b - a),
                            "group {g} (Q={q}, P={p}) CPU {cpu}: {got} in [{a}, {b}) < Z = {}", z.supply(b - a));
                    }
                }
                let mut marks: Vec<u64> = ev.iter()
                    .filter(|e| e.1 == "budget-replenished" && e.2 == g as u64 && e.3 == cpu)
                    .map(|e| e.0)
                    .collect();
                marks.push(horizon);
                for w in marks.windows(2) {
                    prop_assert!(served(&s, w[0], w[1]) <= *q, "group {g} CPU {cpu}: more than Q in [{}, {})", w[0], w[1]);
                }
            }
        }
    }

    /// Determinism, and with Q = P for one group on every CPU the schedule of `gfp`.
    #[test]
    fn deterministic_and_full_bandwidth_is_gfp(
        m in 1u32..=3,
        raw in prop::collection::vec((1u64..=5, 4u64..=20), 1..=6),
        p in 1u64..=9,
    ) {
        let ts: Vec<(u64, u64, &str)> = raw.iter().map(|&(c, t)| (c.min(t), t, "g")).collect();
        let tasks = set(&ts, &[("g", p, p, None, None)]);
        let a = sim(&tasks, "hcbs", m, 200).unwrap();
        let b = sim(&tasks, "hcbs", m, 200).unwrap();
        prop_assert_eq!(&a, &b);
        let g = sim(&tasks, "gfp", m, 200).unwrap();
        // The same jobs run at the same times (which CPU runs which of them may differ: the
        // servers' deadlines order the CPUs the group holds).
        let starts = |r: &SimResult| r.jobs.iter().map(|j| (j.task, j.seq, j.start, j.completion)).collect::<Vec<_>>();
        prop_assert_eq!(starts(&a), starts(&g));
        prop_assert_eq!(coverage(&a.trace), coverage(&g.trace));
    }
}
