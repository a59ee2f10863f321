//! Hand-worked values of Eq. 4 and property tests of Eq. 7–8.
//!
//! The tables are derived by hand from the worst-case schedule, not from the formula: for
//! `(Q, P) = (2, 5)` the window opens right after a budget was used at the start of a period,
//! so it sees a blackout of `2(P − Q) = 6`, then 2 of service (t = 6..8), 3 without
//! (8..11), 2 of service (11..13), 3 without (13..16), 2 of service (16..18):
//! Z = 0 up to 6, 1 at 7, 2 from 8 to 11, 3 at 12, 4 from 13 to 16, 5 at 17, 6 at 18.
//! For `(1, 3)`: blackout 4, then 1 on (4..5), 2 off (5..7), 1 on (7..8).
//! For `Q = P` the server is a whole CPU: `Z(t) = t`.

use super::*;
use proptest::prelude::*;

fn s(q: u64, p: u64) -> Server {
    Server::new(q, p).unwrap()
}

#[test]
fn eq4_by_hand_q2_p5() {
    let table = [
        (0, 0),
        (3, 0),
        (6, 0),
        (7, 1),
        (8, 2),
        (9, 2),
        (11, 2),
        (12, 3),
        (13, 4),
        (16, 4),
        (17, 5),
        (18, 6),
    ];
    for (t, z) in table {
        assert_eq!(s(2, 5).supply(t), z, "Z({t}) for (2, 5)");
    }
}

#[test]
fn eq4_by_hand_q1_p3() {
    let table = [
        (0, 0),
        (2, 0),
        (4, 0),
        (5, 1),
        (6, 1),
        (7, 1),
        (8, 2),
        (10, 2),
        (11, 3),
    ];
    for (t, z) in table {
        assert_eq!(s(1, 3).supply(t), z, "Z({t}) for (1, 3)");
    }
}

#[test]
fn full_budget_is_a_whole_cpu_and_zero_budget_gives_nothing() {
    for t in [0, 1, 4, 5, 1000, u64::MAX] {
        assert_eq!(s(4, 4).supply(t), t);
        assert_eq!(s(0, 5).supply(t), 0);
    }
}

#[test]
fn eq8_alpha_and_delta() {
    let v = s(2, 5);
    assert_eq!((v.alpha().num, v.alpha().den), (2, 5));
    assert_eq!(v.delay(), 6);
    assert_eq!(s(u64::MAX, u64::MAX).delay(), 0);
    assert_eq!(s(0, u64::MAX).delay(), 2 * u128::from(u64::MAX));
    // The line α(t − Δ) touches Z at t = Δ + kP (Z = kQ) and is below it elsewhere.
    assert_eq!(v.cmp_supply_to_linear(6 + 5), Ordering::Equal);
    assert_eq!(v.cmp_supply_to_linear(8), Ordering::Greater);
    assert_eq!(v.linear_supply(16).cmp_exact(Frac::int(4)), Ordering::Equal);
    assert_eq!(v.linear_supply(3).cmp_exact(Frac::ZERO), Ordering::Equal);
}

#[test]
fn server_new_refuses_bad_pairs() {
    assert!(Server::new(6, 5).is_none());
    assert!(Server::new(0, 0).is_none());
    assert!(Server::new(5, 5).is_some());
}

#[test]
fn bandwidth_comparison_is_exact() {
    assert_eq!(cmp_bandwidth(1, 3, 2, 6), Ordering::Equal);
    assert_eq!(cmp_bandwidth(u64::MAX - 1, u64::MAX, 1, 1), Ordering::Less);
    assert_eq!(cmp_bandwidth(u64::MAX, u64::MAX, 1, 1), Ordering::Equal);
}

fn server() -> impl Strategy<Value = Server> {
    (1u64..1_000_000).prop_flat_map(|p| (0..=p, Just(p)).prop_map(|(q, p)| s(q, p)))
}

proptest! {
    #[test]
    fn z_is_non_decreasing(v in server(), t in 0u64..10_000_000, d in 0u64..3_000_000) {
        prop_assert!(v.supply(t) <= v.supply(t + d));
    }

    #[test]
    fn z_grows_by_at_most_the_window(v in server(), t in 0u64..10_000_000, d in 0u64..3_000_000) {
        // Slope at most 1, hence also Z(t) ≤ t.
        prop_assert!(v.supply(t + d) - v.supply(t) <= d);
        prop_assert!(v.supply(t) <= t);
    }

    #[test]
    fn linear_abstraction_is_a_lower_bound(v in server(), t in 0u64..10_000_000) {
        prop_assert_ne!(v.cmp_supply_to_linear(t), Ordering::Less);
        prop_assert_ne!(Frac::int(i128::from(v.supply(t))).cmp_exact(v.linear_supply(t)), Ordering::Less);
    }

    #[test]
    fn z_is_periodic_with_q_per_period(v in server(), t in 0u64..10_000_000) {
        // One more period in the window adds exactly one budget (past the first blackout).
        if t >= v.delay() as u64 {
            prop_assert_eq!(v.supply(t + v.period), v.supply(t) + v.budget);
        }
        // And never more than ⌈t/P⌉ budgets.
        prop_assert!(u128::from(v.supply(t)) <= u128::from(t.div_ceil(v.period)) * u128::from(v.budget));
    }

    #[test]
    fn z_is_monotone_in_the_budget(p in 1u64..1_000_000, a in 0u64..1_000_000, b in 0u64..1_000_000, t in 0u64..10_000_000) {
        let (q1, q2) = (a.min(b) % (p + 1), a.max(b) % (p + 1));
        let (q1, q2) = (q1.min(q2), q1.max(q2));
        prop_assert!(s(q1, p).supply(t) <= s(q2, p).supply(t));
    }

    #[test]
    fn z_reaches_q_at_2p_minus_q(v in server()) {
        prop_assert_eq!(v.supply(2 * v.period - v.budget), v.budget);
        prop_assert_eq!(v.supply(v.delay() as u64), 0);
    }
}
