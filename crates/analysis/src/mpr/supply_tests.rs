//! Hand-worked supply values and properties of [`Mpr::sbf`] [MPR Eq. 1–2].

#![allow(clippy::unwrap_used)]

use super::*;
use crate::hcbs::supply::Server;
use proptest::prelude::*;

/// `(Π, Θ, m')` and its `(t, sbf(t))` table.
type Table = ((u64, u128, u32), &'static [(u64, u128)]);

/// Tables worked by hand from the module doc's worst case (blackout `2(Π − Θ/m')`, ramps of
/// slope `m'` and length `Θ/m'`, plateaus of `Π − Θ/m'`).
#[test]
fn hand_worked_tables() {
    let cases: [Table; 5] = [
        // Π = 10, Θ = 10, m' = 2: blackout 10, ramp to 10 at t = 15, flat to 20, 20 at 25.
        (
            (10, 10, 2),
            &[
                (0, 0),
                (5, 0),
                (10, 0),
                (11, 2),
                (12, 4),
                (15, 10),
                (18, 10),
                (20, 10),
                (21, 12),
                (25, 20),
                (30, 20),
                (35, 30),
            ],
        ),
        // Π = 5, Θ = 3, m' = 2: Θ/m' = 3/2, blackout 7, ramp to 3 at 8.5, flat to 12.
        (
            (5, 3, 2),
            &[
                (7, 0),
                (8, 2),
                (9, 3),
                (12, 3),
                (13, 5),
                (14, 6),
                (17, 6),
                (18, 8),
            ],
        ),
        // Π = 4, Θ = 3, m' = 1: the uniprocessor periodic resource (blackout 2).
        (
            (4, 3, 1),
            &[(2, 0), (3, 1), (5, 3), (6, 3), (7, 4), (9, 6), (10, 6)],
        ),
        // Θ = m'·Π: a dedicated platform of 2 CPUs.
        ((10, 20, 2), &[(0, 0), (7, 14), (13, 26), (100, 200)]),
        // Θ = 0: nothing.
        ((10, 0, 3), &[(0, 0), (25, 0), (1000, 0)]),
    ];
    for ((pi, theta, m), table) in cases {
        let r = Mpr::new(pi, theta, m).unwrap();
        for &(t, want) in table {
            assert_eq!(r.sbf(t), want, "sbf_({pi}, {theta}, {m})({t})");
        }
    }
}

/// The counterexample to [MPR Eq. 1] as printed (module doc): the printed form with `⌈Θ/m'⌉`
/// gives 3 for `t = 8` on `(5, 3, 2)`, but a legal schedule supplies only 2 in `[1, 9)`.
#[test]
fn printed_eq_1_over_estimates_when_m_does_not_divide_theta() {
    let (pi, theta, m) = (5i128, 3i128, 2i128);
    let printed = |t: i128| {
        let tp = t - (pi - (theta + m - 1) / m);
        if tp < 0 {
            return 0;
        }
        let k = tp / pi;
        k * theta + (m * (tp - k * pi) - (m * pi - theta)).max(0)
    };
    // Per-slot supply: period 0 early (2 then 1), period 1 late (1 then 2), nothing else.
    let slots = [2, 1, 0, 0, 0, 0, 0, 0, 1, 2];
    let window: i128 = slots[1..9].iter().sum();
    assert_eq!(window, 2);
    assert_eq!(printed(8), 3);
    assert_eq!(Mpr::new(5, 3, 2).unwrap().sbf(8), 2);
    // With m' | Θ the two forms agree.
    let r = Mpr::new(10, 10, 2).unwrap();
    let printed_10 = |t: i128| {
        let tp = t - (10 - 5);
        if tp < 0 {
            return 0;
        }
        let k = tp / 10;
        k * 10 + (2 * (tp - k * 10) - 10).max(0)
    };
    for t in 0..100u64 {
        assert_eq!(r.sbf(t) as i128, printed_10(i128::from(t)), "t = {t}");
    }
}

/// The linear bound touches `sbf` at the start of each ramp (hand-checked: `(5, 3, 2)` at
/// `t = 12`, `lsbf = (3/5)(12 − 7) = 3`).
#[test]
fn linear_bound_touches_at_ramp_starts() {
    let r = Mpr::new(5, 3, 2).unwrap();
    assert_eq!(r.cmp_sbf_to_linear(12), Ordering::Equal);
    assert_eq!(r.cmp_sbf_to_linear(9), Ordering::Greater);
    let r = Mpr::new(10, 10, 2).unwrap();
    assert_eq!(r.cmp_sbf_to_linear(10), Ordering::Equal);
    assert_eq!(r.cmp_sbf_to_linear(20), Ordering::Equal);
}

#[test]
fn first_above_by_hand() {
    let r = Mpr::new(5, 3, 2).unwrap();
    assert_eq!(r.first_above(0), Some(8));
    assert_eq!(r.first_above(2), Some(9));
    assert_eq!(r.first_above(3), Some(13));
    assert_eq!(r.first_above(5), Some(14));
    assert_eq!(Mpr::new(5, 0, 2).unwrap().first_above(0), None);
}

#[test]
fn invalid_resources_are_refused() {
    assert!(Mpr::new(0, 0, 1).is_none());
    assert!(Mpr::new(10, 21, 2).is_none());
    assert!(Mpr::new(10, 1, 0).is_none());
    assert!(Mpr::new(10, 1, MAX_CPUS + 1).is_none());
    assert!(Mpr::of_group(u64::MAX, u64::MAX, MAX_CPUS).is_some());
}

fn resource() -> impl Strategy<Value = Mpr> {
    (1u64..200, 1u32..6, 0u64..=1000).prop_map(|(pi, m, frac)| {
        let theta = u128::from(pi) * u128::from(m) * u128::from(frac) / 1000;
        Mpr::new(pi, theta, m).unwrap()
    })
}

proptest! {
    /// Non-decreasing, at most `m'·t` (never more CPUs than `m'`), at least the linear bound
    /// [MPR Eq. 2], and at least `Θ` per full period after the blackout.
    #[test]
    fn sbf_properties(r in resource(), t in 0u64..2000) {
        let s = r.sbf(t);
        prop_assert!(s <= r.sbf(t + 1));
        prop_assert!(s <= u128::from(r.concurrency) * u128::from(t));
        prop_assert!(r.cmp_sbf_to_linear(t) != Ordering::Less);
        prop_assert!(r.sbf(t + r.period) == s + r.budget || s == 0);
    }

    /// `first_above(v)` is the least `t` with `sbf(t) > v` (sbf is non-decreasing, so it is
    /// enough that `t − 1` does not exceed `v`; a scan checks small answers too).
    #[test]
    fn first_above_is_the_least_crossing(r in resource(), v in 0u128..400) {
        match r.first_above(v) {
            Some(t) => {
                prop_assert!(r.sbf(t) > v);
                prop_assert!(t == 0 || r.sbf(t - 1) <= v);
                if t < 3000 {
                    prop_assert_eq!((0..3000u64).find(|&x| r.sbf(x) > v), Some(t));
                }
            }
            None => prop_assert!(r.budget == 0),
        }
    }

    /// A reservation group's MPR is exactly `m` times the server's supply [HCBS Eq. 4]: the
    /// MPR abstraction loses nothing for `m` equal servers.
    #[test]
    fn group_mpr_is_m_times_the_server_supply(
        p in 1u64..500, q_frac in 0u64..=1000, m in 1u32..8, t in 0u64..5000
    ) {
        let q = p * q_frac / 1000;
        let r = Mpr::of_group(q, p, m).unwrap();
        let z = Server::new(q, p).unwrap().supply(t);
        prop_assert_eq!(r.sbf(t), u128::from(m) * u128::from(z));
    }

    /// More supply per period never supplies less (the test's monotonicity in Θ rests on it).
    #[test]
    fn sbf_is_monotone_in_theta(r in resource(), t in 0u64..2000) {
        if r.budget < u128::from(r.concurrency) * u128::from(r.period) {
            let more = Mpr::new(r.period, r.budget + 1, r.concurrency).unwrap();
            prop_assert!(more.sbf(t) >= r.sbf(t));
        }
    }
}
