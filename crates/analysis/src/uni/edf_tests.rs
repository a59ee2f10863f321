//! Tests of the exact uniprocessor EDF test (hand-worked examples, brute force over the
//! hyperperiod).

#![allow(clippy::unwrap_used)]

use super::*;
use crate::system::Priorities;
use crate::test::analyze;
use crate::util::math::gcd;
use crate::verdict::Status;
use proptest::prelude::*;

fn sys(p: &[(u64, u64, u64)]) -> System {
    System::from_params(
        p.iter().map(|&(c, d, t)| Params::new(c, d, t)).collect(),
        1,
        Priorities::Dm,
    )
    .unwrap()
}

fn status(p: &[(u64, u64, u64)]) -> Status {
    analyze(&EdfExact::default(), &sys(p)).status
}

#[test]
fn implicit_deadlines_exact_at_u_equal_one() {
    // 1/3 + 1/3 + 1/3 = 1 exactly: schedulable; one more ns breaks it.
    assert_eq!(
        status(&[(1, 3, 3), (1, 3, 3), (1, 3, 3)]),
        Status::Schedulable
    );
    assert_eq!(
        status(&[(1, 3, 3), (1, 3, 3), (2, 5, 5)]),
        Status::Unschedulable
    );
    assert_eq!(status(&[]), Status::Schedulable);
}

#[test]
fn not_applicable_on_multiprocessors() {
    let s = System::from_params(vec![Params::new(1, 2, 2)], 2, Priorities::Dm).unwrap();
    let v = analyze(&EdfExact::default(), &s);
    assert_eq!(v.status, Status::NotApplicable);
    assert!(v.reason.unwrap().contains("m = 1"));
}

#[test]
fn qpa_hand_worked_examples() {
    // τ1 = (C=2, D=2, T=4), τ2 = (2, 3, 8): U = 3/4 < 1, but h(3) = 2 + 2 = 4 > 3.
    assert_eq!(status(&[(2, 2, 4), (2, 3, 8)]), Status::Unschedulable);
    // τ1 = (2, 3, 4), τ2 = (2, 4, 8): deadlines 3, 4, 7, 11, 12 give
    // h = 2, 4, 6, 8, 10 — all ≤ t (and h(4) = 4 is tight): schedulable.
    assert_eq!(status(&[(2, 3, 4), (2, 4, 8)]), Status::Schedulable);
    // U = 1 exactly with constrained deadlines: τ1 = (1, 1, 2), τ2 = (1, 2, 2).
    // Busy period w = 2 (fixed point 2 = ⌈2/2⌉·1 + ⌈2/2⌉·1); the only test point below 2 is
    // t = 1 with h(1) = 1 ≤ d_min: schedulable.
    assert_eq!(status(&[(1, 1, 2), (1, 2, 2)]), Status::Schedulable);
    // Same utilization, both deadlines 1: h(1) = 2 > 1.
    assert_eq!(status(&[(1, 1, 2), (1, 1, 2)]), Status::Unschedulable);
    // Arbitrary deadlines mixed with constrained ones: τ1 = (3, 10, 5), τ2 = (2, 3, 10):
    // U = 0.8; h(3) = 2, h(10) = 3 + 2 = 5, h(13) = 3 + 4 = 7, h(15) = 6 + 4 = 10 … all fine.
    assert_eq!(status(&[(3, 10, 5), (2, 3, 10)]), Status::Schedulable);
}

#[test]
fn huge_periods_do_not_overflow() {
    let big = 1_000_000_000_000_000u64;
    assert_eq!(
        status(&[(big / 2, big / 2, big), (big / 3, big / 2 + 7, big - 1)]),
        Status::Unschedulable
    );
    assert_eq!(
        status(&[(big / 4, big / 2, big), (big / 4, big / 2 + 7, big - 1)]),
        Status::Schedulable
    );
    assert_eq!(
        status(&[(u64::MAX / 4, u64::MAX / 2, u64::MAX)]),
        Status::Schedulable
    );
}

#[test]
fn work_limit_gives_up() {
    let test = EdfExact { limit: 1 };
    let v = analyze(&test, &sys(&[(2, 3, 4), (2, 4, 8), (1, 5, 7)]));
    assert_eq!(v.status, Status::GaveUp);
    assert!(v.reason.unwrap().contains("work limit"));
}

/// Brute force: U ≤ 1 and h(t) ≤ t for every integer t up to the hyperperiod plus the largest
/// deadline (enough for synchronous periodic arrivals, the worst case of sporadic tasks).
fn brute_force(p: &[(u64, u64, u64)]) -> bool {
    let h = p.iter().fold(1u64, |h, &(_, _, t)| h / gcd(h, t) * t);
    // U ≤ 1 ⇔ Σ Cᵢ·(H/Tᵢ) ≤ H.
    if p.iter().map(|&(c, _, t)| c * (h / t)).sum::<u64>() > h {
        return false;
    }
    let dmax = p.iter().map(|&(_, d, _)| d).max().unwrap_or(0);
    (1..=h + dmax).all(|t| {
        let demand: u64 = p
            .iter()
            .filter(|&&(_, d, _)| d <= t)
            .map(|&(c, d, per)| ((t - d) / per + 1) * c)
            .sum();
        demand <= t
    })
}

fn tiny_task() -> impl Strategy<Value = (u64, u64, u64)> {
    (1u64..=12, 1u64..=4, 0u64..=14).prop_map(|(t, c, dd)| {
        let c = c.min(t + 2);
        (c, (c + dd).max(c), t)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn agrees_with_brute_force(tasks in proptest::collection::vec(tiny_task(), 1..5)) {
        let expected = brute_force(&tasks);
        let got = status(&tasks);
        prop_assert_eq!(got == Status::Schedulable, expected, "{:?}", tasks);
        prop_assert!(got != Status::GaveUp);
    }
}
