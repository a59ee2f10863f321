//! `mpr-gfp`: hand-checked sets, preconditions, admission, and properties (monotone in `Θ`,
//! the least bound, reduction to Bertogna–Cirinei–Lipari at `Q = P`, never accepting an
//! inadmissible set).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::gfp::{demand, workload};
use super::*;
use crate::reservations::Reservations;
use crate::system::{Params, Priorities};
use crate::verdict::Status;
use crate::{analyze, registry};
use proptest::prelude::*;
use schedlab_model::{Duration, ReservationGroup, Task, TaskSet};

fn ns(x: u64) -> Duration {
    Duration::from_ns(x)
}

/// A task `(C, D, T)` in `group`.
fn task(c: u64, d: u64, t: u64, group: &str) -> Task {
    let mut task = Task::new(ns(c), ns(d), ns(t)).unwrap();
    task.group = Some(group.to_string());
    task
}

fn group(name: &str, q: u64, p: u64) -> ReservationGroup {
    ReservationGroup::new(name, ns(q), ns(p))
}

fn system(tasks: Vec<Task>, groups: Vec<ReservationGroup>, cpus: u32) -> System {
    let set = TaskSet::with_groups(tasks, Vec::new(), groups).unwrap();
    System::new(set.tasks(), cpus, Priorities::Dm)
        .unwrap()
        .with_reservations(Reservations::of(&set, cpus).unwrap())
}

fn mpr_gfp(sys: &System) -> Analysis {
    MprGfp::default().analyse(sys)
}

/// Worked by hand (module doc of `gfp`): group `a` = (5, 10) on 2 CPUs is the MPR
/// (10, 10, 2) with sbf 0 until 10, 2 at 11, 4 at 12, 10 at 15.
/// τ0 = (2, 40, 40): demand 2·(2 − 1) = 2, least R with sbf(R) > 2 is 12.
/// τ1 = (3, 40, 40): R = 3: W0 = 3, cap 1, demand 1 + 4 = 5 → next 13; R = 13: W0 = 4,
/// demand 4 + 4 = 8 ≥ sbf(13) = 6 → next 15; R = 15: 8 < 10. Bound 15.
#[test]
fn hand_checked_set_is_accepted_with_its_bounds() {
    let sys = system(
        vec![task(2, 40, 40, "a"), task(3, 40, 40, "a")],
        vec![group("a", 5, 10)],
        2,
    );
    let a = mpr_gfp(&sys);
    assert_eq!(a.verdict.status, Status::Schedulable, "{:?}", a.verdict);
    assert_eq!(a.verdict.response_time_bounds, Some(vec![ns(12), ns(15)]));
    let g = &a.groups[0];
    assert_eq!(g.mpr, Mpr::new(10, 10, 2));
    assert!(g.schedulable());
    let bounds: Vec<_> = g.response_bounds.iter().map(|b| b.bound_ns).collect();
    assert_eq!(bounds, vec![Some(12), Some(15)]);
}

/// Adding τ2 = (30, 40, 40): a job of 30 within 40 needs more than one server (5, 10) gives
/// (Z(40) = 15) — rejected. With Q = P the group is 2 dedicated CPUs: by hand, (★) for τ2
/// holds first at R = 34 (W0 = 4, W1 = 6, capped at R − 29; demand 58 + min sums vs 2R).
#[test]
fn hand_checked_set_is_rejected_then_accepted_with_full_budget() {
    let tasks = || {
        vec![
            task(2, 40, 40, "a"),
            task(3, 40, 40, "a"),
            task(30, 40, 40, "a"),
        ]
    };
    let half = mpr_gfp(&system(tasks(), vec![group("a", 5, 10)], 2));
    assert_eq!(half.verdict.status, Status::NotShown);
    let reason = half.verdict.reason.unwrap();
    assert!(
        reason.contains("group `a`") && reason.contains("task 2"),
        "{reason}"
    );
    let bounds: Vec<_> = half.groups[0]
        .response_bounds
        .iter()
        .map(|b| b.bound_ns)
        .collect();
    assert_eq!(bounds, vec![Some(12), Some(15), None]);
    let full = mpr_gfp(&system(tasks(), vec![group("a", 10, 10)], 2));
    assert_eq!(full.verdict.status, Status::Schedulable);
    assert_eq!(
        full.verdict.response_time_bounds,
        Some(vec![ns(2), ns(3), ns(34)])
    );
}

#[test]
fn is_registered_and_runs_through_analyze() {
    let test = registry::by_name("mpr-gfp").unwrap();
    assert_eq!(test.info().family, FAMILY);
    let sys = system(vec![task(2, 40, 40, "a")], vec![group("a", 5, 10)], 2);
    assert_eq!(analyze(test.as_ref(), &sys).status, Status::Schedulable);
    let limited = registry::by_name("mpr-gfp:max_steps=0").unwrap();
    assert_eq!(analyze(limited.as_ref(), &sys).status, Status::GaveUp);
    assert!(registry::by_name("mpr-gfp:steps=3").is_err());
}

#[test]
fn not_applicable_without_groups_or_with_an_ungrouped_task() {
    let test = MprGfp::default();
    let plain = System::from_params(vec![Params::new(1, 10, 10)], 2, Priorities::Dm).unwrap();
    let v = analyze(&test, &plain);
    assert_eq!(v.status, Status::NotApplicable);
    assert!(v.reason.unwrap().contains("no reservation groups"));
    let mut loose = Task::new(ns(1), ns(10), ns(10)).unwrap().named("loose");
    loose.group = None;
    let sys = system(
        vec![task(1, 10, 10, "a"), loose],
        vec![group("a", 5, 10)],
        2,
    );
    let v = analyze(&test, &sys);
    assert_eq!(v.status, Status::NotApplicable);
    assert!(v
        .reason
        .unwrap()
        .contains("task 1 (`loose`) is in no group"));
    let sys = system(vec![task(1, 20, 10, "a")], vec![group("a", 5, 10)], 2);
    let v = analyze(&test, &sys);
    assert!(v.reason.unwrap().contains("D > T"));
}

/// [HCBS Eq. 17]: CPU 0 carries 6/10 + 5/10 > 1 — not shown, the reason naming the CPU and
/// the equation, and both groups still reported (not schedulable).
#[test]
fn an_overloaded_cpu_is_never_accepted() {
    let sys = system(
        vec![task(1, 100, 100, "a"), task(1, 100, 100, "b")],
        vec![group("a", 6, 10), group("b", 5, 10)],
        1,
    );
    let a = mpr_gfp(&sys);
    assert_eq!(a.verdict.status, Status::NotShown);
    let reason = a.verdict.reason.unwrap();
    assert!(
        reason.contains("CPU 0") && reason.contains("Eq. 17"),
        "{reason}"
    );
    assert_eq!(a.groups.len(), 2);
    assert!(a.groups.iter().all(|g| !g.schedulable()));
}

/// A subgroup's own tasks get bounds on its own MPR but the group is not shown (no MPR
/// composition); the parent without own tasks is vacuously fine.
#[test]
fn subgroups_are_reported_but_not_shown() {
    let mut child = group("child", 2, 10);
    child.parent = Some("parent".into());
    let sys = system(
        vec![task(1, 100, 100, "child")],
        vec![group("parent", 5, 10), child],
        2,
    );
    let a = mpr_gfp(&sys);
    assert_eq!(a.verdict.status, Status::NotShown);
    assert!(a.groups[0].schedulable());
    let c = &a.groups[1];
    assert!(!c.schedulable());
    assert_eq!(c.parent.as_deref(), Some("parent"));
    assert!(c.reason.as_deref().unwrap().contains("no MPR composition"));
    assert!(c.response_bounds[0].bound_ns.is_some());
}

/// Random constrained-deadline tasks of one group, small numbers (a scan stays cheap).
fn tasks() -> impl Strategy<Value = Vec<Params>> {
    prop::collection::vec((1u64..12, 0u64..30, 0u64..20), 1..6).prop_map(|v| {
        v.into_iter()
            .map(|(c, slack, extra)| Params::new(c, c + slack, c + slack + extra))
            .collect()
    })
}

fn grouped(params: &[Params], q: u64, p: u64, cpus: u32) -> System {
    let tasks = params.iter().map(|x| task(x.c, x.d, x.t, "g")).collect();
    system(tasks, vec![group("g", q, p)], cpus)
}

proptest! {
    /// Monotone in Θ: a group shown schedulable with Q stays so with Q + 1 (same P), and no
    /// bound grows.
    #[test]
    fn monotone_in_the_budget(ps in tasks(), p in 2u64..20, q in 2u64..20, m in 1u32..4) {
        let q = q.min(p);
        let less = mpr_gfp(&grouped(&ps, q - 1, p, m));
        let more = mpr_gfp(&grouped(&ps, q, p, m));
        if less.verdict.is_schedulable() {
            prop_assert!(more.verdict.is_schedulable());
            let (a, b) = (less.verdict.response_time_bounds.unwrap(), more.verdict.response_time_bounds.unwrap());
            prop_assert!(a.iter().zip(&b).all(|(x, y)| y <= x));
        }
    }

    /// Each bound is the least R with (★) (scan of every length from C), and at Q = P the
    /// test accepts every set the Bertogna–Cirinei–Lipari G-FP test accepts
    /// (Σ min(W_i(D_k), D_k − C_k + 1) < m·(D_k − C_k + 1) for every k).
    #[test]
    fn least_bound_and_bcl_at_full_budget(ps in tasks(), p in 1u64..20, q in 1u64..20, m in 1u32..4) {
        let q = q.min(p);
        let sys = grouped(&ps, q, p, m);
        let a = mpr_gfp(&sys);
        let mpr = Mpr::of_group(q, p, m).unwrap();
        let order = sys.priority_order().unwrap().to_vec();
        let mut hp: Vec<Params> = Vec::new();
        for (&k, b) in order.iter().zip(order.iter().map(|&k| a.groups[0].response_bounds[k].bound_ns)) {
            let t = ps[k];
            let holds = |r: u64| demand(&hp, &t, mpr, r) < mpr.sbf(r);
            match b {
                Some(r) => {
                    prop_assert!(holds(r));
                    prop_assert!((t.c..r).all(|x| !holds(x)));
                }
                None => {
                    prop_assert!((t.c..=t.d).all(|x| !holds(x)) || !a.groups[0].schedulable());
                    break;
                }
            }
            hp.push(t);
        }
        let bcl = order.iter().enumerate().all(|(j, &k)| {
            let t = ps[k];
            let cap = u128::from(t.d - t.c + 1);
            let sum: u128 = order[..j].iter().map(|&i| workload(&ps[i], t.d).min(cap)).sum();
            sum < u128::from(m) * cap
        });
        if bcl {
            let full = mpr_gfp(&grouped(&ps, p, p, m));
            prop_assert!(full.verdict.is_schedulable());
        }
    }

    /// Never accepted when admission fails [HCBS Eq. 17]: two groups on random CPUs.
    #[test]
    fn never_accepts_an_inadmissible_set(
        qa in 1u64..10, qb in 1u64..10, pa in 10u64..20, pb in 10u64..20,
        cpus_b in prop::option::of(prop::collection::btree_set(0u32..3, 1..3)),
        c in 1u64..3,
    ) {
        let mut b = group("b", qb, pb);
        b.cpus = cpus_b.map(|s| s.into_iter().collect());
        let sys = system(
            vec![task(c, 200, 200, "a"), task(c, 200, 200, "b")],
            vec![group("a", qa, pa), b],
            3,
        );
        let res = sys.reservations().unwrap();
        let a = mpr_gfp(&sys);
        if !res.tree.overloads().is_empty() {
            prop_assert!(!a.verdict.is_schedulable());
            prop_assert!(a.verdict.reason.unwrap().contains("Eq. 17"));
            prop_assert!(a.groups.iter().all(|g| !g.schedulable()));
        }
    }
    /// For a flat group, `mpr-gfp` accepts every set [HCBS Eq. 14] accepts with the
    /// interference of Eq. 13 for equal servers (`Ī = L0 + min(Lm, W/m)`, `L0 = D − Z(D)`,
    /// `Lm = Z(D)`), which reads `W_k + m·C_k ≤ m·Z(D_k)`: that is (★) at `R = D_k` without
    /// the per-task cap and without the `− m` of integer time, since `sbf = m·Z`.
    #[test]
    fn dominates_the_hcbs_test_on_flat_groups(ps in tasks(), p in 1u64..20, q in 1u64..20, m in 1u32..4) {
        let q = q.min(p);
        let sys = grouped(&ps, q, p, m);
        let order = sys.priority_order().unwrap().to_vec();
        let z = |t: u64| u128::from(crate::hcbs::supply::Server::new(q, p).unwrap().supply(t));
        let m128 = u128::from(m);
        let hcbs = order.iter().enumerate().all(|(j, &k)| {
            let t = ps[k];
            let w: u128 = order[..j].iter().map(|&i| workload(&ps[i], t.d)).sum();
            w + m128 * u128::from(t.c) <= m128 * z(t.d)
        });
        if hcbs {
            prop_assert!(mpr_gfp(&sys).verdict.is_schedulable());
        }
    }
}
