//! `hcbs-gfp` on hand-checked sets, the `Q = P` reduction, admission, nesting and reports.
//!
//! Hand check of the main example (times in ns): group `a` = (Q 4, P 5) on 2 CPUs, tasks
//! τ0 = (C 2, D = T 10), τ1 = (3, 20), DM order τ0, τ1.
//! - Z(10) = 7 (blackout 2, 4 on, 1 off, 3 on); τ0: W = 0, Ī = L_0 = 3, 2 + 3 = 5 ≤ 10.
//! - Z(20) = 15; W_1 from τ0 in 20: N = ⌊(20 + 10 − 2)/10⌋ = 2, W = 4 + min(2, 8) = 6;
//!   Ī = (20 − 15) + min(15, 6/2) = 8; 3 + 8 = 11 ≤ 20.
//!
//! With (Q 2, P 5): Z(10) = 2, Z(20) = 6; τ0: 2 + 8 = 10 ≤ 10 (bound 10); τ1: Ī = 14 + 3 = 17,
//! 3 + 17 = 20 ≤ 20 — on the edge: C1 = 4 fails (21 > 20). With (1, 5): Z(10) = 1, τ0 fails.

use super::*;
use crate::analyze;
use crate::system::{Params, Priorities};
use crate::verdict::Status;
use proptest::prelude::*;
use schedlab_model::{ReservationGroup, Task, TaskSet};
use std::sync::Arc;

fn ns(x: u64) -> Duration {
    Duration::from_ns(x)
}

pub(crate) fn task(c: u64, d: u64, t: u64, group: &str) -> Task {
    let mut task = Task::new(ns(c), ns(d), ns(t)).unwrap_or_else(|e| panic!("{e}"));
    task.group = Some(group.to_string());
    task
}

pub(crate) fn group(name: &str, q: u64, p: u64, parent: Option<&str>) -> ReservationGroup {
    let mut g = ReservationGroup::new(name, ns(q), ns(p));
    g.parent = parent.map(str::to_string);
    g
}

pub(crate) fn system(tasks: Vec<Task>, groups: Vec<ReservationGroup>, cpus: u32) -> System {
    let set = TaskSet::with_groups(tasks, Vec::new(), groups).unwrap_or_else(|e| panic!("{e}"));
    let res = Reservations::of(&set, cpus).unwrap_or_else(|e| panic!("{e}"));
    System::new(set.tasks(), cpus, Priorities::Dm)
        .unwrap_or_else(|e| panic!("{e}"))
        .with_reservations(res)
}

fn run(sys: &System) -> Verdict {
    analyze(&HcbsGfp, sys)
}

fn bounds(v: &Verdict, g: usize) -> Vec<Option<u64>> {
    let groups = v.groups.as_ref().unwrap_or_else(|| panic!("no groups"));
    groups[g]
        .response_bounds
        .iter()
        .map(|b| b.bound_ns)
        .collect()
}

#[test]
fn hand_checked_group_is_accepted_with_its_bounds() {
    let sys = system(
        vec![task(2, 10, 10, "a"), task(3, 20, 20, "a")],
        vec![group("a", 4, 5, None)],
        2,
    );
    let v = run(&sys);
    assert_eq!(v.status, Status::Schedulable, "{:?}", v.reason);
    assert_eq!(bounds(&v, 0), vec![Some(5), Some(11)]);
    assert_eq!(
        v.response_time_bounds,
        Some(vec![Duration::from_ns(5), Duration::from_ns(11)])
    );
    let g = &v.groups.as_ref().unwrap_or_else(|| panic!())[0];
    assert_eq!(
        (g.alpha_exact(), g.delta_ns(), g.alpha()),
        ("4/5".into(), 2, 0.8)
    );
    assert!(g.schedulable);
}

#[test]
fn hand_checked_edge_and_rejection() {
    let edge = system(
        vec![task(2, 10, 10, "a"), task(3, 20, 20, "a")],
        vec![group("a", 2, 5, None)],
        2,
    );
    let v = run(&edge);
    assert_eq!(v.status, Status::Schedulable, "{:?}", v.reason);
    assert_eq!(bounds(&v, 0), vec![Some(10), Some(20)]);
    let over = system(
        vec![task(2, 10, 10, "a"), task(4, 20, 20, "a")],
        vec![group("a", 2, 5, None)],
        2,
    );
    let v = run(&over);
    assert_eq!(v.status, Status::NotShown);
    assert_eq!(bounds(&v, 0), vec![Some(10), None]);
    let reason = v.reason.unwrap_or_default();
    assert!(
        reason.contains("task 1") && reason.contains("Eq. 14"),
        "{reason}"
    );
    let starved = system(
        vec![task(2, 10, 10, "a"), task(3, 20, 20, "a")],
        vec![group("a", 1, 5, None)],
        2,
    );
    let v = run(&starved);
    assert_eq!(v.status, Status::NotShown);
    assert_eq!(bounds(&v, 0), vec![None, None]);
}

#[test]
fn admission_failure_is_a_verdict_and_every_group_is_reported() {
    // CPU 0 and 1: 3/5 + 3/5 > 1. Group `c` is only on... all CPUs too, so all are refused.
    let sys = system(
        vec![task(1, 10, 10, "a"), task(1, 10, 10, "b")],
        vec![group("a", 3, 5, None), group("b", 3, 5, None)],
        2,
    );
    let v = run(&sys);
    assert_eq!(v.status, Status::NotShown);
    let reason = v.reason.clone().unwrap_or_default();
    assert!(
        reason.contains("Eq. 17") && reason.contains("CPU 0"),
        "{reason}"
    );
    let groups = v.groups.unwrap_or_default();
    assert_eq!(groups.len(), 2);
    assert!(groups.iter().all(|g| !g.schedulable && g.reason.is_some()));
    assert!(groups
        .iter()
        .all(|g| g.response_bounds[0].bound_ns.is_none()));
    assert_eq!(groups[1].alpha_exact(), "3/5");
    assert_eq!(groups[1].delta_ns(), 4);
}

#[test]
fn a_group_off_the_overloaded_cpu_is_still_analysed() {
    let mut a = group("a", 3, 5, None);
    a.cpus = Some(vec![0]);
    let mut b = group("b", 3, 5, None);
    b.cpus = Some(vec![0]);
    let mut c = group("c", 5, 5, None);
    c.cpus = Some(vec![1]);
    let sys = system(
        vec![
            task(1, 10, 10, "a"),
            task(1, 10, 10, "b"),
            task(1, 10, 10, "c"),
        ],
        vec![a, b, c],
        2,
    );
    let v = run(&sys);
    assert_eq!(v.status, Status::NotShown);
    let groups = v.groups.unwrap_or_default();
    assert_eq!(
        groups.iter().map(|g| g.schedulable).collect::<Vec<_>>(),
        vec![false, false, true]
    );
    assert_eq!(groups[2].response_bounds[0].bound_ns, Some(1));
}

#[test]
fn not_applicable_sets_still_report_their_groups() {
    let mut loose = task(1, 10, 10, "a");
    loose.group = None;
    let sys = system(
        vec![task(1, 10, 10, "a"), loose],
        vec![group("a", 3, 5, None)],
        2,
    );
    let v = run(&sys);
    assert_eq!(v.status, Status::NotApplicable);
    assert!(v.reason.unwrap_or_default().contains("task 1"));
    assert_eq!(v.groups.map(|g| g.len()), Some(1));
    let bare = System::new(
        &[Task::implicit(ns(1), ns(10)).unwrap_or_else(|e| panic!("{e}"))],
        1,
        Priorities::Dm,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let v = run(&bare);
    assert_eq!(v.status, Status::NotApplicable);
    assert_eq!(v.groups, Some(Vec::new()));
    let late = system(vec![task(1, 20, 10, "a")], vec![group("a", 3, 5, None)], 1);
    assert_eq!(run(&late).status, Status::NotApplicable);
}

#[test]
fn subgroups_fit_inside_their_parent_or_not() {
    // Parent (2, 5): Z(10) = 2, Z(20) = 6. Children (1, 10) + (1, 10): dbf(10) = 2 ≤ 2 (and
    // the horizon lcm(5, 10) = 10 decides it) — they fit. (2, 10) + (1, 10): dbf(10) = 3 > 2.
    let tasks = || vec![task(1, 40, 40, "x"), task(1, 40, 40, "y")];
    let fits = system(
        tasks(),
        vec![
            group("p", 2, 5, None),
            group("x", 1, 10, Some("p")),
            group("y", 1, 10, Some("p")),
        ],
        1,
    );
    let v = run(&fits);
    assert_eq!(v.status, Status::Schedulable, "{:?}", v.reason);
    let tight = system(
        tasks(),
        vec![
            group("p", 2, 5, None),
            group("x", 2, 10, Some("p")),
            group("y", 1, 10, Some("p")),
        ],
        1,
    );
    let v = run(&tight);
    assert_eq!(v.status, Status::NotShown);
    let reason = v.reason.unwrap_or_default();
    assert!(
        reason.contains("EDF-schedulable") && reason.contains("10 ns"),
        "{reason}"
    );
    let groups = v.groups.unwrap_or_default();
    assert!(groups.iter().all(|g| !g.schedulable));
    // Tasks directly in a group with subgroups: not shown, named.
    let mixed = system(
        vec![task(1, 40, 40, "p"), task(1, 40, 40, "x")],
        vec![group("p", 2, 5, None), group("x", 1, 10, Some("p"))],
        1,
    );
    let v = run(&mixed);
    assert_eq!(v.status, Status::NotShown);
    let groups = v.groups.unwrap_or_default();
    assert!(!groups[0].schedulable && groups[1].schedulable);
    assert!(groups[0]
        .reason
        .as_deref()
        .is_some_and(|r| r.contains("no supply guarantee")));
}

#[test]
fn nesting_gives_up_past_its_work_limit() {
    // The children fill the parent exactly (1/4 + 1/4 = 1/2, no slack: the horizon is the lcm)
    // with periods 4·1_000_003 and 4·999_983 (primes times 4): lcm ≈ 4·10^12, ≈ 2·10^6 test
    // points, past the limit.
    let sys = system(
        vec![task(1, 100_000_000, 100_000_000, "x")],
        vec![
            group("p", 1, 2, None),
            group("x", 1_000_003, 4_000_012, Some("p")),
            group("y", 999_983, 3_999_932, Some("p")),
        ],
        1,
    );
    let v = run(&sys);
    assert_eq!(v.status, Status::GaveUp, "{:?}", v.reason);
    assert!(v.reason.unwrap_or_default().contains("gave up"));
}

#[test]
fn nesting_with_slack_needs_only_the_short_horizon() {
    // Periods 1_000_003 and 999_983 (primes) next to P = 4: lcm ≈ 4·10^12, but the children
    // leave the parent slack (U_c ≈ 2·10^-6 < α_p = 1/2), so only t < t* = α_p·Δ_p/(α_p − U_c)
    // ≈ 4 ns matter: decided at once.
    let sys = system(
        vec![task(1, 10_000_000, 10_000_000, "x")],
        vec![
            group("p", 2, 4, None),
            group("x", 1, 1_000_003, Some("p")),
            group("y", 1, 999_983, Some("p")),
        ],
        1,
    );
    let v = run(&sys);
    assert_eq!(v.status, Status::Schedulable, "{:?}", v.reason);
}

/// `C_k + min(D_k, W_k/m) ≤ D_k` with Eq. 11–12, written out independently.
fn full_cpu_reference(params: &[Params], order: &[usize], m: u64) -> bool {
    order.iter().enumerate().all(|(pos, &k)| {
        let dk = u128::from(params[k].d);
        let w: u128 = order[..pos]
            .iter()
            .map(|&i| {
                let (c, d, t) = (
                    u128::from(params[i].c),
                    u128::from(params[i].d),
                    u128::from(params[i].t),
                );
                let n = (dk + d - c) / t;
                n * c + c.min(dk + d - c - n * t)
            })
            .sum();
        // C + min(D, W/m) ≤ D  ⇔  C·m + min(D·m, W) ≤ D·m
        let m = u128::from(m);
        u128::from(params[k].c) * m + (dk * m).min(w) <= dk * m
    })
}

fn tasks_strategy() -> impl Strategy<Value = Vec<(u64, u64, u64)>> {
    proptest::collection::vec(
        (1u64..200, 0u64..200, 0u64..100).prop_map(|(t, dd, c)| {
            let d = 1 + dd % t.max(1);
            (1 + c % d, d, t.max(d))
        }),
        1..8,
    )
}

proptest! {
    /// With Q = P on every CPU (Z(t) = t), hcbs-gfp is exactly `C_k + min(D_k, W_k/m) ≤ D_k`.
    #[test]
    fn full_budget_reduces_to_the_plain_test(raw in tasks_strategy(), m in 1u32..5, p in 1u64..50) {
        let tasks: Vec<Task> = raw.iter().map(|&(c, d, t)| task(c, d, t, "g")).collect();
        let sys = system(tasks, vec![group("g", p, p, None)], m);
        let order = sys.priority_order().unwrap_or_else(|e| panic!("{e}")).to_vec();
        let expected = full_cpu_reference(sys.params(), &order, u64::from(m));
        let v = run(&sys);
        prop_assert_eq!(v.status == Status::Schedulable, expected, "{:?}", v.reason);
    }

    /// More budget never hurts: accepted with Q ⇒ accepted with any Q' ≥ Q (same P).
    #[test]
    fn the_test_is_monotone_in_the_budget(
        raw in tasks_strategy(), m in 1u32..4, p in 1u64..60, a in 0u64..60, b in 0u64..60,
    ) {
        let (q1, q2) = (1 + a.min(b) % p, 1 + a.max(b) % p);
        let (q1, q2) = (q1.min(q2), q1.max(q2));
        let mk = |q| {
            let tasks: Vec<Task> = raw.iter().map(|&(c, d, t)| task(c, d, t, "g")).collect();
            system(tasks, vec![group("g", q, p, None)], m)
        };
        if run(&mk(q1)).status == Status::Schedulable {
            prop_assert_eq!(run(&mk(q2)).status, Status::Schedulable);
        }
    }

    /// Every reported bound is at least C and at most D, and the per-group flags agree with
    /// the set's verdict.
    #[test]
    fn bounds_are_between_c_and_d(raw in tasks_strategy(), m in 1u32..4, q in 1u64..30, p in 30u64..40) {
        let tasks: Vec<Task> = raw.iter().map(|&(c, d, t)| task(c, d, t, "g")).collect();
        let sys = system(tasks, vec![group("g", q, p, None)], m);
        let v = run(&sys);
        let groups = v.groups.clone().unwrap_or_default();
        prop_assert_eq!(groups[0].schedulable, v.status == Status::Schedulable);
        for b in &groups[0].response_bounds {
            if let Some(x) = b.bound_ns {
                let p = sys.params()[b.task];
                prop_assert!(p.c <= x && x <= p.d);
            }
        }
    }
}

#[test]
fn reservations_are_dropped_by_sub_systems() {
    let sys = system(vec![task(1, 10, 10, "a")], vec![group("a", 3, 5, None)], 2);
    assert!(sys.reservations().is_some());
    assert!(sys
        .with_cpus(1)
        .map(|s| s.reservations().is_none())
        .unwrap_or(false));
    let _ = Arc::strong_count(&Arc::new(0));
}
