//! Cross-test properties of the G-EDF tests (soundness against brute force, dominance, and the
//! fast RTA fixpoint against SchedCAT's plain iteration).

#![allow(clippy::unwrap_used)]

use super::rta::tests::naive_rta;
use super::testutil::{arbitrary_task, small_system, sys, uni_edf_exact, utilization_at_most};
use super::{Bak, Bcl, BclIter, Gfb, Rta, Sb};
use crate::test::{analyze, SchedTest};
use crate::util::math::gcd;
use proptest::prelude::*;

fn all() -> Vec<Box<dyn SchedTest>> {
    super::tests()
}

/// Does global EDF (ties by task index) miss a deadline on `m` CPUs with synchronous periodic
/// releases? Unit-step simulation over one hyperperiod (exact for integer parameters and
/// `D ≤ T`: with no miss, every job released before `H` is done by `H`, so the schedule repeats).
fn gedf_sim_misses(p: &[(u64, u64, u64)], m: u32) -> bool {
    let h = p.iter().fold(1u64, |h, &(_, _, t)| h / gcd(h, t) * t);
    let mut remaining = vec![0u64; p.len()];
    let mut deadline = vec![0u64; p.len()];
    for now in 0..h {
        for (i, &(c, d, t)) in p.iter().enumerate() {
            if now % t == 0 {
                remaining[i] = c;
                deadline[i] = now + d;
            }
        }
        let mut ready: Vec<usize> = (0..p.len()).filter(|&i| remaining[i] > 0).collect();
        ready.sort_by_key(|&i| (deadline[i], i));
        for &i in ready.iter().take(m as usize) {
            remaining[i] -= 1;
        }
        for i in 0..p.len() {
            if remaining[i] > 0 && deadline[i] <= now + 1 {
                return true;
            }
        }
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::gedf::testutil::cases()))]

    /// No test accepts `U > m` or `u > 1` (arbitrary deadlines included).
    #[test]
    fn never_accepts_overload(
        p in proptest::collection::vec(arbitrary_task(12), 1..8),
        m in 1u32..4,
    ) {
        let s = sys(&p, m);
        let overloaded = !utilization_at_most(&p, u64::from(m)) || p.iter().any(|&(c, _, t)| c > t);
        if overloaded {
            for t in all() {
                prop_assert!(!analyze(t.as_ref(), &s).is_schedulable(), "{} accepted overload", t.name());
            }
        }
    }

    /// On one CPU, no test accepts a set that EDF (exact, brute force) cannot schedule.
    #[test]
    fn uniprocessor_soundness(p in proptest::collection::vec(arbitrary_task(10), 1..6)) {
        let s = sys(&p, 1);
        if !uni_edf_exact(&p) {
            for t in all() {
                prop_assert!(!analyze(t.as_ref(), &s).is_schedulable(), "{} accepted {:?}", t.name(), p);
            }
        }
    }

    /// No test accepts a set that misses a deadline in a synchronous periodic G-EDF schedule.
    #[test]
    fn multiprocessor_no_simulated_miss((p, m) in small_system(7, 10, 4)) {
        let s = sys(&p, m);
        if gedf_sim_misses(&p, m) {
            for t in all() {
                prop_assert!(!analyze(t.as_ref(), &s).is_schedulable(), "{} accepted {:?} on {}", t.name(), p, m);
            }
        }
    }

    /// RTA: bounds in `[C, D]`; the accelerated fixpoint gives SchedCAT's plain-iteration
    /// verdict and bounds exactly (times scaled up so that creeping steps occur).
    #[test]
    fn rta_matches_plain_iteration(
        (p, m) in (1u32..4).prop_flat_map(|m| {
            let n = m as usize;
            (proptest::collection::vec(super::testutil::small_task(30), n + 1..=n + 4), Just(m))
        }),
        scale in prop_oneof![Just(1u64), Just(7), Just(1000)],
    ) {
        let p: Vec<_> = p.iter().map(|&(c, d, t)| (c * scale, d * scale, t * scale)).collect();
        let s = sys(&p, m);
        let v = analyze(&Rta::default(), &s);
        let naive = naive_rta(&s, 25);
        match (&v.response_time_bounds, naive) {
            (Some(b), Some(nb)) => {
                let b: Vec<u64> = b.iter().map(|d| d.as_ns()).collect();
                for (r, &(c, d, _)) in b.iter().zip(&p) {
                    prop_assert!(c <= *r && *r <= d);
                }
                prop_assert_eq!(b, nb);
            }
            (None, None) => prop_assert!(!v.is_schedulable()),
            (b, nb) => prop_assert!(false, "fast {:?} vs naive {:?}", b, nb),
        }
        // The upper-bound screen never changes the verdict of the rounds (it may only reject
        // sooner), with any number of passes, nor the bounds of accepted sets.
        for passes in [1, 2, 4, 50] {
            let screened = analyze(&Rta { screen: passes, ..Rta::default() }, &s);
            prop_assert_eq!(screened.status, v.status, "screen = {}", passes);
            prop_assert_eq!(&screened.response_time_bounds, &v.response_time_bounds);
        }
    }

    /// Dominance: BCL ⇒ BCL-iterative (first round), SB ⇒ GFB.
    #[test]
    fn dominance((p, m) in small_system(8, 40, 6)) {
        let s = sys(&p, m);
        if analyze(&Bcl, &s).is_schedulable() {
            prop_assert!(analyze(&BclIter::default(), &s).is_schedulable());
        }
        let implicit: Vec<_> = p.iter().map(|&(c, _, t)| (c, t, t)).collect();
        let si = sys(&implicit, m);
        if analyze(&Sb, &si).is_schedulable() {
            prop_assert!(analyze(&Gfb, &si).is_schedulable());
        }
        // Baker's test also runs (and must not panic) on these.
        let _ = analyze(&Bak, &s);
    }
}

#[test]
fn dhall_effect_set_is_rejected_by_every_test() {
    // m = 2: two light (2, 10, 10) and one heavy (10, 11, 11): U ≈ 1.31 ≤ 2, but at time 0 both
    // light jobs take both CPUs for 2 units and the heavy job then needs 10 of the 9 left.
    let p = [(2, 10, 10), (2, 10, 10), (10, 11, 11)];
    assert!(gedf_sim_misses(&p, 2));
    let s = sys(&p, 2);
    for t in all() {
        assert!(!analyze(t.as_ref(), &s).is_schedulable(), "{}", t.name());
    }
    // [ChronOS Table 6.1] on m = 4.
    let mut p = vec![(10, 100, 100); 4];
    p.push((92, 101, 101));
    let s = sys(&p, 4);
    for t in all() {
        assert!(!analyze(t.as_ref(), &s).is_schedulable(), "{}", t.name());
    }
}

#[test]
fn light_set_is_accepted_by_every_test() {
    // m = 4, eight tasks (1, 10, 10): U = 0.8, u_max = 0.1 — GFB: 0.8 ≤ 4 − 0.3; SB: 0.1 ≤ 4/7,
    // 0.8 ≤ 16/7; and the window tests have lots of room.
    let s = sys(&[(1, 10, 10); 8], 4);
    for t in all() {
        assert!(analyze(t.as_ref(), &s).is_schedulable(), "{}", t.name());
    }
}

#[test]
fn empty_set_is_schedulable_everywhere() {
    // gedf-ffdbf needs m ≥ 2 and answers not-applicable at m = 1; every other test accepts.
    let s = sys(&[], 1);
    for t in all() {
        let v = analyze(t.as_ref(), &s);
        assert!(v.is_schedulable() || !v.is_applicable(), "{}", t.name());
    }
    let s = sys(&[], 2);
    for t in all() {
        assert!(analyze(t.as_ref(), &s).is_schedulable(), "{}", t.name());
    }
}

#[test]
fn huge_times_do_not_panic() {
    let big = u64::MAX / 3;
    let p = [(1, big, big), (big / 2, big, big), (big - 7, big, big)];
    for m in [1, 2, 16] {
        let s = sys(&p, m);
        for t in all() {
            let _ = analyze(t.as_ref(), &s);
        }
    }
}
