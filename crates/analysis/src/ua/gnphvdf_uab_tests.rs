//! Hand-worked cases of `gnphvdf-uab`, the brute-force check of its `k`, and its guarantee
//! against a small independent G-NP-HVDF simulation (unit time steps) — the simulator's own
//! `gnphvdf` is checked against it in `crates/sim/tests/gnphvdf_uab.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::json::result_json;
use crate::system::{Priorities, TaskValue};
use crate::test::analyze;
use crate::verdict::Status;
use proptest::prelude::*;
use std::sync::Arc;

/// `(C, D, T, utility)` tasks on `m` CPUs.
fn system(tasks: &[(u64, u64, u64, f64)], m: u32) -> System {
    let params = tasks
        .iter()
        .map(|&(c, d, t, _)| Params::new(c, d, t))
        .collect();
    let values: Arc<[TaskValue]> = tasks
        .iter()
        .map(|&(c, .., u)| TaskValue {
            utility: u,
            outside: None,
            parallel: false,
            span: c,
        })
        .collect();
    System::from_params(params, m, Priorities::Dm)
        .unwrap()
        .with_values(values)
}

fn bound(sys: &System) -> (Status, UtilityBound) {
    let v = analyze(&GnphvdfUab, sys);
    (
        v.status,
        v.utility_bound
            .expect("an applicable verdict carries the bound"),
    )
}

/// m = 2. Densities V/C: τ0 10/2 = 5, τ1 12/3 = 4, τ2 5/5 = 1, τ3 4/8 = 0.5, so the order is
/// 0, 1, 2, 3. k = 2: max C over {τ2, τ3} = 8 ≤ min(D − C) over {τ0, τ1} = min(8, 9) = 8 —
/// holds (with equality). Value rates V/T: 1, 1, 0.25, 0.1, so value-weighted = 2 / 2.35.
#[test]
fn the_two_densest_tasks_are_guaranteed() {
    let sys = system(
        &[
            (2, 10, 10, 10.0),
            (3, 12, 12, 12.0),
            (5, 20, 20, 5.0),
            (8, 40, 40, 4.0),
        ],
        2,
    );
    let (status, b) = bound(&sys);
    assert_eq!(status, Status::NotShown);
    assert_eq!(b.k, 2);
    assert_eq!(b.guaranteed_tasks, vec![0, 1]);
    assert_eq!(b.k_over_n, Some(0.5));
    assert!((b.value_weighted.unwrap() - 2.0 / 2.35).abs() < 1e-12);
    // One more ns of τ3 breaks k = 2 (9 > 8); k = 1 then needs max(3, 5, 9) = 9 ≤ 8: no.
    let sys = system(
        &[
            (2, 10, 10, 10.0),
            (3, 12, 12, 12.0),
            (5, 20, 20, 5.0),
            (9, 40, 40, 4.0),
        ],
        2,
    );
    assert_eq!(bound(&sys).1.k, 0);
}

/// m = 2, not monotone in k. Densities: τ0 10/1 = 10, τ1 12/6 = 2, τ2 1/5 = 0.2. k = 2:
/// max C{τ2} = 5 ≤ min(D − C){τ0, τ1} = min(9, 2) = 2? No. k = 1: max(6, 5) = 6 ≤ 9: yes.
#[test]
fn a_smaller_k_holds_where_eq_6_8_fails() {
    let sys = system(&[(1, 10, 10, 10.0), (6, 8, 8, 12.0), (5, 100, 100, 1.0)], 2);
    let (_, b) = bound(&sys);
    assert_eq!((b.k, b.guaranteed_tasks.clone()), (1, vec![0]));
    let json = result_json("gnphvdf-uab", &analyze(&GnphvdfUab, &sys));
    assert_eq!(json["k"], 1);
    assert_eq!(json["guaranteed_tasks"], serde_json::json!([0]));
    assert_eq!(json["utility_fraction"]["k_over_n"], 1.0 / 3.0);
    assert_eq!(json["status"], "not-shown");
}

/// n ≤ m: every task has a CPU of its own (k = n, the empty max is 0 ≤ D − C): schedulable.
#[test]
fn n_at_most_m_is_schedulable() {
    let sys = system(&[(9, 10, 10, 1.0), (3, 3, 7, 2.0)], 2);
    let (status, b) = bound(&sys);
    assert_eq!(status, Status::Schedulable);
    assert_eq!(b.k, 2);
    assert_eq!(b.guaranteed_tasks, vec![1, 0]); // densities 2/3 > 1/9
    assert_eq!((b.k_over_n, b.value_weighted), (Some(1.0), Some(1.0)));
}

/// Equal densities are ordered by task index (the project's rule, as the policy does):
/// τ0 = 2/2 and τ1 = 1/1. m = 1: k = 1 needs C1 = 1 ≤ D0 − C0 = 8: τ0 is the one.
/// Swapping the tasks' order swaps the guaranteed one.
#[test]
fn ties_go_to_the_lower_index() {
    let sys = system(&[(2, 10, 10, 2.0), (1, 10, 10, 1.0)], 1);
    assert_eq!(bound(&sys).1.guaranteed_tasks, vec![0]);
    let sys = system(&[(1, 10, 10, 1.0), (2, 10, 10, 2.0)], 1);
    assert_eq!(bound(&sys).1.guaranteed_tasks, vec![0]);
    // No values (bare parameters): 1 per job, so the shortest task is the densest.
    let bare = System::from_params(
        vec![Params::new(4, 10, 10), Params::new(1, 10, 10)],
        1,
        Priorities::Dm,
    )
    .unwrap();
    assert_eq!(bound(&bare).1.guaranteed_tasks, vec![1]);
}

/// Constrained deadlines use D − C. m = 1, τ0 (C 2, density 5) above τ1 (C 4, density 1/4):
/// with D0 = T0 = 10, 4 ≤ 8 → k = 1; with D0 = 5, 4 ≤ 3 fails → k = 0 (τ1 started just
/// before τ0's release delays it by up to 4, and 4 + 2 > 5). D > T is not applicable.
#[test]
fn constrained_deadlines_use_d_minus_c() {
    let implicit = system(&[(2, 10, 10, 10.0), (4, 20, 20, 1.0)], 1);
    assert_eq!(bound(&implicit).1.k, 1);
    let constrained = system(&[(2, 5, 10, 10.0), (4, 20, 20, 1.0)], 1);
    assert_eq!(bound(&constrained).1.k, 0);
    let arbitrary = system(&[(2, 15, 10, 10.0), (4, 20, 20, 1.0)], 1);
    let v = analyze(&GnphvdfUab, &arbitrary);
    assert_eq!(v.status, Status::NotApplicable);
    assert!(v.reason.unwrap().contains("task 0 has D > T"));
}

/// The thesis's k/n is a fraction of tasks: τ0 (C 1, T 100, V 2: density 2, rate 0.02) is
/// guaranteed over τ1 (C 50, T 100, V 50: density 1, rate 0.5) on one CPU (50 ≤ 99), so
/// k/n = 1/2 while the guaranteed share of the utility is 0.02 / 0.52 ≈ 3.8 %.
#[test]
fn k_over_n_is_not_the_utility_share() {
    let sys = system(&[(1, 100, 100, 2.0), (50, 100, 100, 50.0)], 1);
    let (_, b) = bound(&sys);
    // k = 0 gives a plain zero (not −0.0, which JSON would print as -0.0): 2 > 1 − 1 here.
    let none = system(&[(1, 1, 100, 2.0), (2, 100, 100, 1.0)], 1);
    let fraction = bound(&none).1.value_weighted.unwrap();
    assert_eq!(fraction.to_bits(), 0.0f64.to_bits());
    assert_eq!(b.k_over_n, Some(0.5));
    assert!((b.value_weighted.unwrap() - 0.02 / 0.52).abs() < 1e-12);
    // No utility anywhere: the value-weighted fraction is undefined.
    let zero = system(&[(1, 10, 10, 0.0), (1, 10, 10, 0.0)], 1);
    assert_eq!(bound(&zero).1.value_weighted, None);
}

/// Tasks outside the model are named; n = 0 is vacuously schedulable.
#[test]
fn outside_the_model_is_not_applicable() {
    let mut sys = system(&[(1, 10, 10, 1.0), (1, 10, 10, 1.0)], 1);
    sys = sys.with_values(Arc::from(vec![
        TaskValue {
            utility: 1.0,
            outside: None,
            parallel: false,
            span: 1,
        },
        TaskValue {
            utility: 1.0,
            outside: Some("has critical sections"),
            parallel: false,
            span: 1,
        },
    ]));
    let v = analyze(&GnphvdfUab, &sys);
    assert_eq!(v.status, Status::NotApplicable);
    assert!(v.reason.unwrap().contains("task 1 has critical sections"));
    let empty = System::from_params(vec![], 2, Priorities::Dm).unwrap();
    let (status, b) = bound(&empty);
    assert_eq!((status, b.k, b.k_over_n), (Status::Schedulable, 0, None));
}

/// G-NP-HVDF in unit time steps, independent of the policy crate: at each instant finished
/// jobs leave, new jobs are released, the head of the queue is aborted while it is past its
/// deadline (as the policy does), and idle CPUs take the densest waiting job (density
/// `V/C`, 0 once it could no longer finish by its deadline; ties by task index, then job).
/// Jobs run `exec[i] ≤ C` and are never preempted. Returns the tasks that missed a deadline.
fn simulate(tasks: &[(u64, u64, u64, f64)], offsets: &[u64], exec: &[u64], m: usize) -> Vec<bool> {
    #[derive(Clone, Copy)]
    struct Job {
        task: usize,
        seq: u64,
        deadline: u64,
        left: u64,
    }
    let horizon = 4 * tasks.iter().map(|t| t.2).max().unwrap_or(1) + 64;
    let mut missed = vec![false; tasks.len()];
    let mut queue: Vec<Job> = Vec::new();
    let mut cpus: Vec<Option<Job>> = vec![None; m];
    let mut seq = vec![0u64; tasks.len()];
    for now in 0..horizon {
        for slot in cpus.iter_mut() {
            if let Some(job) = slot.filter(|j| j.left == 0) {
                missed[job.task] |= now > job.deadline;
                *slot = None;
            }
        }
        for (i, &(_, d, t, _)) in tasks.iter().enumerate() {
            if now >= offsets[i] && (now - offsets[i]) % t == 0 {
                queue.push(Job {
                    task: i,
                    seq: seq[i],
                    deadline: now + d,
                    left: exec[i],
                });
                seq[i] += 1;
            }
        }
        let density = |j: &Job| {
            let (c, .., u) = tasks[j.task];
            if now + j.left <= j.deadline {
                u / c as f64
            } else {
                0.0
            }
        };
        queue.sort_by(|a, b| {
            density(b)
                .partial_cmp(&density(a))
                .unwrap_or(Ordering::Equal)
                .then(a.task.cmp(&b.task))
                .then(a.seq.cmp(&b.seq))
        });
        for slot in cpus.iter_mut().filter(|s| s.is_none()) {
            while queue.first().is_some_and(|j| j.deadline < now) {
                missed[queue.remove(0).task] = true;
            }
            if !queue.is_empty() {
                *slot = Some(queue.remove(0));
            }
        }
        for job in cpus.iter_mut().flatten() {
            job.left -= 1;
        }
    }
    // Jobs still unfinished past their deadlines at the horizon missed too.
    for job in queue.iter().chain(cpus.iter().flatten()) {
        missed[job.task] |= job.deadline < horizon && job.left > 0;
    }
    missed
}

/// `(C, D, T, utility)` per task.
type Spec = (u64, u64, u64, f64);

/// Tasks, release offsets, actual execution times, CPUs.
type Case = (Vec<Spec>, Vec<u64>, Vec<u64>, u32);

fn task_sets() -> impl Strategy<Value = Case> {
    (1u32..=3, 1usize..=7)
        .prop_flat_map(|(m, n)| {
            (
                prop::collection::vec((1u64..=12, 1u64..=30, 0u64..=20, 1u32..=9), n),
                prop::collection::vec((0u64..=30, 0u64..=100), n),
                Just(m),
            )
        })
        .prop_map(|(raw, jitter, m)| {
            let tasks: Vec<Spec> = raw
                .iter()
                .map(|&(c, t_extra, d_cut, u)| {
                    let t = c + t_extra;
                    let d = t.saturating_sub(d_cut).max(c);
                    (c, d, t, f64::from(u))
                })
                .collect();
            let offsets = jitter.iter().map(|&(o, _)| o).collect();
            // Actual execution between 1 and C (non-preemptive anomalies included).
            let exec = tasks
                .iter()
                .zip(&jitter)
                .map(|(&(c, ..), &(_, e))| 1 + e % c)
                .collect();
            (tasks, offsets, exec, m)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// `largest_k` is the largest k ≤ min(m, n) satisfying Eq. 6.10, checked by brute force.
    #[test]
    fn k_is_the_largest_satisfying_eq_6_10((tasks, _, _, m) in task_sets()) {
        let sys = system(&tasks, m);
        let (_, b) = bound(&sys);
        let order = density_order(sys.params(), &tasks.iter().map(|t| t.3).collect::<Vec<_>>());
        let p = sys.params();
        let holds = |k: usize| {
            let left = order[k..].iter().map(|&i| p[i].c).max().unwrap_or(0);
            let right = order[..k].iter().map(|&i| p[i].d - p[i].c).min().unwrap_or(u64::MAX);
            left <= right
        };
        let cap = order.len().min(m as usize);
        let expected = (0..=cap).rev().find(|&k| holds(k)).unwrap_or(0);
        prop_assert_eq!(b.k, expected);
        prop_assert_eq!(&b.guaranteed_tasks[..], &order[..expected]);
    }

    /// The guarantee: in the independent G-NP-HVDF simulation (random offsets, actual
    /// execution times up to C), no guaranteed task misses — overloaded sets included.
    #[test]
    fn guaranteed_tasks_never_miss((tasks, offsets, exec, m) in task_sets()) {
        let (_, b) = bound(&system(&tasks, m));
        let missed = simulate(&tasks, &offsets, &exec, m as usize);
        for &i in &b.guaranteed_tasks {
            prop_assert!(!missed[i], "guaranteed task {} missed (k = {})", i, b.k);
        }
    }
}

/// The simulation can fail (so the property above is not vacuous): m = 1, τ0 (C 2, D = T 5,
/// density 5) and τ1 (C 5, T 100, density 0.2) with τ0 released at 1: τ1 starts alone at 0
/// and runs to 5; τ0#0 (deadline 6) waits, starts at 5 (not yet past its deadline, so not
/// aborted) and completes at 7 > 6. Eq. 6.10 for k = 1: 5 ≤ 5 − 2 = 3 fails, so k = 0.
#[test]
fn the_simulation_shows_a_miss_when_the_condition_fails() {
    let tasks = [(2, 5, 5, 10.0), (5, 100, 100, 1.0)];
    let missed = simulate(&tasks, &[1, 0], &[2, 5], 1);
    assert!(missed[0]);
    assert_eq!(bound(&system(&tasks, 1)).1.k, 0);
}

/// With overheads (`analyze --overheads`), the test sees the charged WCETs *and* the tasks'
/// utilities: with zero overheads it answers as without, and the order follows the utilities
/// (τ1, worth 100, is the densest here; by WCET alone τ0 would be).
#[test]
fn charged_systems_keep_the_utilities() {
    use crate::overheads::arch::ArchKind;
    use crate::overheads::context::ChargedAnalysis;
    use crate::overheads::fixtures;
    use schedlab_model::{Duration, Task, TaskSet};
    let task = |c: u64, t: u64, u: f64| {
        let mut task = Task::implicit(Duration::from_ns(c), Duration::from_ns(t)).unwrap();
        task.utility = Some(u);
        task
    };
    let tasks = TaskSet::new(vec![
        task(2_000, 10_000, 1.0),
        task(3_000, 12_000, 100.0),
        task(5_000, 20_000, 1.0),
    ])
    .unwrap();
    let setup = fixtures::setup(
        fixtures::constant("global-lock", 0),
        ArchKind::parse("global-lock", false).unwrap(),
    );
    let charged = ChargedAnalysis::new(&tasks, 2, Priorities::Dm, &setup).unwrap();
    let plain = System::new(&tasks, 2, Priorities::Dm).unwrap();
    let with = charged.verdict(&GnphvdfUab);
    assert_eq!(with, analyze(&GnphvdfUab, &plain));
    // Order τ1 (100/3000), τ0 (1/2000), τ2 (1/5000); k = 2: 5000 ≤ min(9000, 8000).
    assert_eq!(with.utility_bound.unwrap().guaranteed_tasks, vec![1, 0]);
}
