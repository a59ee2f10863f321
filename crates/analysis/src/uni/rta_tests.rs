//! Tests of fixed-priority response-time analysis: textbook examples, Lehoczky's arbitrary
//! deadline example, and a comparison with a unit-step simulation of the synchronous schedule.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::system::Priorities;
use crate::test::analyze;
use crate::util::math::gcd;
use crate::verdict::Status;
use proptest::prelude::*;

fn sys(p: &[(u64, u64, u64)], prio: Priorities) -> System {
    System::from_params(
        p.iter().map(|&(c, d, t)| Params::new(c, d, t)).collect(),
        1,
        prio,
    )
    .unwrap()
}

fn bounds(v: &Verdict) -> Vec<u64> {
    v.response_time_bounds
        .as_ref()
        .unwrap()
        .iter()
        .map(|d| d.as_ns())
        .collect()
}

#[test]
fn burns_wellings_textbook_example() {
    // Burns & Wellings, "Real-Time Systems and Programming Languages", RTA example:
    // a = (C 3, T 7), b = (3, 12), c = (5, 20), rate monotonic.
    // R_a = 3. R_b: 3 + 3 = 6 = 3 + ⌈6/7⌉·3 → 6.
    // R_c: 11 → 5 + ⌈11/7⌉·3 + ⌈11/12⌉·3 = 14 → 5 + 6 + 6 = 17 → 5 + 9 + 6 = 20 → 20.
    let s = sys(&[(5, 20, 20), (3, 7, 7), (3, 12, 12)], Priorities::Rm);
    let v = analyze(&FpRta::default(), &s);
    assert_eq!(v.status, Status::Schedulable);
    assert_eq!(bounds(&v), vec![20, 3, 6]);
    // One more ns on c: 21 → 5+1 + 9 + 6 = 21 > 20: unschedulable.
    let s = sys(&[(6, 20, 20), (3, 7, 7), (3, 12, 12)], Priorities::Rm);
    assert_eq!(analyze(&FpRta::default(), &s).status, Status::Unschedulable);
}

#[test]
fn arbitrary_deadlines_use_the_busy_window() {
    // τ1 = (2, 4, 4), τ2 = (3, D, 6): U = 1.
    // q = 0: w = 5 → 2·2 + 3 = 7 → 7; R = 7 > T = 6, so the window continues.
    // q = 1: w = 10 → ⌈10/4⌉·2 + 6 = 12 → 12; R = 12 − 6 = 6; 12 ≤ 2·6 ends it. R₂ = 7.
    let v = analyze(
        &FpRta::default(),
        &sys(&[(2, 4, 4), (3, 7, 6)], Priorities::Dm),
    );
    assert_eq!(v.status, Status::Schedulable);
    assert_eq!(bounds(&v), vec![2, 7]);
    let v = analyze(
        &FpRta::default(),
        &sys(&[(2, 4, 4), (3, 6, 6)], Priorities::Dm),
    );
    assert_eq!(v.status, Status::Unschedulable);
}

#[test]
fn lehoczky_example_later_job_is_worst() {
    // Lehoczky (RTSS 1990) / Tindell et al. (1994): τ1 = (26, 70), τ2 = (62, 100), U ≈ 0.99.
    // The response times of τ2's jobs in the busy window are 114, 102, 116, 104, 118, 106, 94:
    // the worst is the 5th job (q = 4), 118.
    let s = sys(&[(26, 70, 70), (62, 118, 100)], Priorities::Rm);
    let v = analyze(&FpRta::default(), &s);
    assert_eq!(v.status, Status::Schedulable);
    assert_eq!(bounds(&v), vec![26, 118]);
    assert_eq!(
        simulate(&[(26, 70, 70), (62, 118, 100)], &[0, 1]),
        vec![26, 118]
    );
    let s = sys(&[(26, 70, 70), (62, 117, 100)], Priorities::Rm);
    assert_eq!(analyze(&FpRta::default(), &s).status, Status::Unschedulable);
}

#[test]
fn given_priorities_and_preconditions() {
    let p = vec![
        Params {
            prio: Some(2),
            ..Params::new(1, 4, 4)
        },
        Params {
            prio: Some(1),
            ..Params::new(2, 10, 10)
        },
    ];
    let s = System::from_params(p, 1, Priorities::Given).unwrap();
    let v = analyze(&FpRta::default(), &s);
    assert_eq!(bounds(&v), vec![3, 2]);
    let s = sys(&[(1, 4, 4)], Priorities::Given);
    assert_eq!(analyze(&FpRta::default(), &s).status, Status::NotApplicable);
    let s = System::from_params(vec![Params::new(1, 4, 4)], 3, Priorities::Dm).unwrap();
    assert_eq!(analyze(&FpRta::default(), &s).status, Status::NotApplicable);
    assert_eq!(
        analyze(&FpRta::default(), &sys(&[], Priorities::Dm)).status,
        Status::Schedulable
    );
}

#[test]
fn work_limit_gives_up() {
    let v = analyze(
        &FpRta { limit: 2 },
        &sys(&[(5, 20, 20), (3, 7, 7), (3, 12, 12)], Priorities::Rm),
    );
    assert_eq!(v.status, Status::GaveUp);
}

#[test]
fn huge_values_do_not_overflow() {
    let b = 1_000_000_000_000_000u64;
    let v = analyze(
        &FpRta::default(),
        &sys(&[(b / 3, b, b), (b / 3, 2 * b, b + 1)], Priorities::Dm),
    );
    assert_eq!(v.status, Status::Schedulable);
    let v = analyze(
        &FpRta::default(),
        &sys(&[(u64::MAX / 2, u64::MAX, u64::MAX); 3], Priorities::Dm),
    );
    assert_eq!(v.status, Status::Unschedulable);
}

/// Unit-step simulation of the synchronous periodic schedule under fixed priorities `order`
/// (highest first): the maximum response time of each task's jobs released in the first
/// hyperperiod (the level-i busy windows all start at 0 and end within it when U ≤ 1).
fn simulate(p: &[(u64, u64, u64)], order: &[usize]) -> Vec<u64> {
    let h = p.iter().fold(1u64, |h, &(_, _, t)| h / gcd(h, t) * t);
    let mut rank = vec![0; p.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    // pending jobs: (rank, release, remaining, task)
    let mut pending: Vec<(usize, u64, u64, usize)> = Vec::new();
    let mut worst = vec![0u64; p.len()];
    let mut now = 0u64;
    loop {
        if now < h {
            for (i, &(c, _, t)) in p.iter().enumerate() {
                if now % t == 0 {
                    pending.push((rank[i], now, c, i));
                }
            }
        }
        if now >= h && pending.is_empty() {
            return worst;
        }
        if let Some(k) = (0..pending.len()).min_by_key(|&k| (pending[k].0, pending[k].1)) {
            pending[k].2 -= 1;
            if pending[k].2 == 0 {
                let (_, rel, _, i) = pending.remove(k);
                worst[i] = worst[i].max(now + 1 - rel);
            }
        }
        now += 1;
    }
}

fn tiny_task() -> impl Strategy<Value = (u64, u64, u64)> {
    (1u64..=12, 1u64..=4, 0u64..=14).prop_map(|(t, c, dd)| (c, c + dd, t))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn agrees_with_simulation(tasks in proptest::collection::vec(tiny_task(), 1..5)) {
        let s = sys(&tasks, Priorities::Dm);
        let v = analyze(&FpRta::default(), &s);
        let h = tasks.iter().fold(1u64, |h, &(_, _, t)| h / gcd(h, t) * t);
        let work: u64 = tasks.iter().map(|&(c, _, t)| c * (h / t)).sum();
        if work > h {
            prop_assert_eq!(v.status, Status::Unschedulable);
        } else {
            let sim = simulate(&tasks, s.priority_order().unwrap());
            let ok = sim.iter().zip(&tasks).all(|(&r, &(_, d, _))| r <= d);
            prop_assert_eq!(v.status == Status::Schedulable, ok, "{:?} sim {:?}", tasks, sim);
            if ok {
                prop_assert_eq!(bounds(&v), sim);
            }
        }
    }
}
