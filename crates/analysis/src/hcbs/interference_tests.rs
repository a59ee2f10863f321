//! Hand-worked values of Eq. 12, 13, 15 and 16, and the identity "Eq. 13 on equal servers =
//! L_0 + min(L_m, W/m)" (the corrected Eq. 16).
//!
//! The interference values are worked out from the meaning of Eq. 13, not from the code:
//! the higher-priority workload `W` is spent where the fewest processors serve, each unit of
//! time with `ℓ` serving processors costing `ℓ` units of workload. E.g. `L_0 = 3, L_1 = 4,
//! L_2 = 3, W = 6`: all of `L_0` blocks τ_k (3), the first 4 of workload block all of `L_1`
//! (4), the remaining 2 block 1 of `L_2` (both processors busy) — `Ī = 8`.

use super::*;
use proptest::prelude::*;

fn exact(i: Interference) -> (u128, u128, u128) {
    (i.whole, i.rest, i.parts)
}

/// Eq. 16 exactly as [HCBS] prints it: `L_0 + min(L_m, max(0, W − m·L_m)/m)` — only to show
/// the misprint; never used by the test.
fn eq16_as_printed(l0: u64, lm: u64, m: u32, w: u128) -> (u128, u128) {
    let m = u128::from(m);
    let rest = w.saturating_sub(m * u128::from(lm));
    let term_num = rest.min(u128::from(lm) * m);
    (u128::from(l0) * m + term_num, m)
}

#[test]
fn eq12_workload_by_hand() {
    // D_k = 10, τ_i = (C 2, D 5, T 5): N = ⌊(10 + 5 − 2)/5⌋ = 2, W = 2·2 + min(2, 13 − 10) = 6.
    assert_eq!(workload_of(10, &Params::new(2, 5, 5)), 6);
    // τ_i = (3, 8, 10): N = ⌊15/10⌋ = 1, W = 3 + min(3, 15 − 10) = 6.
    assert_eq!(workload_of(10, &Params::new(3, 8, 10)), 6);
    // D_k = 3, τ_i = (1, 4, 4): N = ⌊6/4⌋ = 1, W = 1 + min(1, 6 − 4) = 2.
    assert_eq!(workload_of(3, &Params::new(1, 4, 4)), 2);
    // Partial carry-out: D_k = 7, τ_i = (3, 4, 4): N = ⌊8/4⌋ = 2, W = 6 + min(3, 0) = 6.
    assert_eq!(workload_of(7, &Params::new(3, 4, 4)), 6);
    // Eq. 11 sums them.
    let hp = [Params::new(2, 5, 5), Params::new(3, 8, 10)];
    assert_eq!(workload(10, &hp), 12);
    assert_eq!(workload(10, &[]), 0);
}

#[test]
fn eq15_lengths_by_hand() {
    // Z = 7 and 3 in a window of 10: 3 with none, 4 with one, 3 with both.
    assert_eq!(lengths(10, &[3, 7]), vec![3, 4, 3]);
    assert_eq!(lengths(10, &[7, 3]), vec![3, 4, 3]);
    // Equal servers: only L_0 and L_m.
    assert_eq!(lengths(10, &[6, 6, 6]), vec![4, 0, 0, 6]);
    assert_eq!(lengths(10, &[10, 5, 0]), vec![0, 5, 5, 0]);
    assert_eq!(lengths(10, &[]), vec![10]);
}

/// `(W, L_0, L_m, m, (whole, rest, parts))`.
type Row = (u128, u64, u64, u32, (u128, u128, u128));

/// (W, L_0, L_m, m) → Ī = whole + rest/parts, by hand, for equal servers.
#[test]
fn eq13_and_corrected_eq16_by_hand() {
    let table: [Row; 9] = [
        // m = 2, D = 10, Z = 6: L_0 = 4, L_2 = 6.
        (0, 4, 6, 2, (4, 0, 2)),   // no workload: only the blackout
        (5, 4, 6, 2, (4, 5, 2)),   // 4 + 5/2 = 6.5
        (6, 4, 6, 2, (4, 6, 2)),   // 4 + 3 = 7
        (12, 4, 6, 2, (10, 0, 1)), // 4 + min(6, 6) = 10
        (20, 4, 6, 2, (10, 0, 1)), // saturated at L_0 + L_m = D
        // m = 1: Ī = L_0 + min(L_1, W).
        (3, 2, 8, 1, (2, 3, 1)),
        (9, 2, 8, 1, (10, 0, 1)),
        // m = 3, L_0 = 2, L_3 = 8: 2 + 9/3 = 5.
        (9, 2, 8, 3, (2, 9, 3)),
        // Q = P (Z = D = 10), m = 4: 0 + 10/4.
        (10, 0, 10, 4, (0, 10, 4)),
    ];
    for (w, l0, lm, m, want) in table {
        let eq16 = interference_equal(l0, lm, m, w);
        assert_eq!(exact(eq16), want, "W={w} L0={l0} Lm={lm} m={m}");
        let mut lens = vec![0u64; m as usize + 1];
        lens[0] = l0;
        lens[m as usize] = lm;
        let eq13 = interference(&lens, w);
        assert_eq!(
            eq13.cmp_exact(eq16),
            Ordering::Equal,
            "Eq. 13 vs its reduction"
        );
    }
    assert_eq!(interference_equal(4, 6, 2, 5).ceil(), 7);
    assert_eq!(interference_equal(4, 6, 2, 6).ceil(), 7);
}

#[test]
fn eq16_as_printed_discards_the_interference() {
    // W = 6 ≤ m·L_m = 12: the printed form gives Ī = L_0 = 4, the correct one 7.
    let (num, den) = eq16_as_printed(4, 6, 2, 6);
    assert_eq!((num, den), (8, 2));
    assert_eq!(exact(interference_equal(4, 6, 2, 6)), (4, 6, 2));
    // With Q = P (L_0 = 0) and W = m·D the printed form says no interference at all, so a task
    // with C = D next to m tasks that fill every CPU would "pass"; the correct form says Ī = D.
    let (num, _) = eq16_as_printed(0, 10, 2, 20);
    assert_eq!(num, 0);
    assert_eq!(interference_equal(0, 10, 2, 20), Interference::int(10));
}

#[test]
fn eq13_unequal_servers_by_hand() {
    // L = (3, 4, 3), module example: W = 2 → 3 + 2; W = 6 → 3 + 4 + 1; W = 5 → 7.5;
    // W = 20 → 3 + 4 + 3.
    let l = [3, 4, 3];
    assert_eq!(exact(interference(&l, 2)), (3, 2, 1));
    assert_eq!(exact(interference(&l, 6)), (7, 2, 2));
    assert_eq!(exact(interference(&l, 5)), (7, 1, 2));
    assert_eq!(interference(&l, 20), Interference::int(10));
    // L = (0, 5, 5, 0), W = 12: 5 + (12 − 5)/2 = 8.5.
    assert_eq!(exact(interference(&[0, 5, 5, 0], 12)), (5, 7, 2));
}

#[test]
fn eq14_comparison_is_exact() {
    let half = Interference {
        whole: 4,
        rest: 5,
        parts: 2,
    }; // 6.5
    assert!(half.fits(3, 10)); // 9.5 ≤ 10
    assert!(!half.fits(4, 10)); // 10.5 > 10
    assert!(Interference::int(6).fits(4, 10));
    assert!(!Interference::int(0).fits(11, 10));
    assert_eq!(half.ceil(), 7);
    assert_eq!(half.cmp_int(7), Ordering::Less);
    assert_eq!(half.cmp_int(6), Ordering::Greater);
}

proptest! {
    /// Eq. 13 on `m` equal servers equals `L_0 + min(L_m, W/m)` (the corrected Eq. 16).
    #[test]
    fn eq13_on_equal_servers_is_the_corrected_eq16(
        d in 1u64..1_000_000, z in 0u64..1_000_000, m in 1u32..17, w in 0u128..40_000_000,
    ) {
        let z = z % (d + 1);
        let general = interference(&lengths(d, &vec![z; m as usize]), w);
        let equal = interference_equal(d - z, z, m, w);
        prop_assert_eq!(general.cmp_exact(equal), Ordering::Equal);
    }

    /// Ī is between L_0 and the window, non-decreasing in W, and non-increasing when any
    /// server supplies more (the aligned layout is the worst case, module doc).
    #[test]
    fn eq13_is_monotone(
        d in 1u64..100_000, zs in proptest::collection::vec(0u64..100_000, 1..6),
        w in 0u128..1_000_000, dw in 0u128..100_000, j in 0usize..6, dz in 0u64..100_000,
    ) {
        let zs: Vec<u64> = zs.iter().map(|z| z % (d + 1)).collect();
        let i = interference(&lengths(d, &zs), w);
        prop_assert_ne!(i.cmp_int(u128::from(d)), Ordering::Greater);
        prop_assert_ne!(i.cmp_int(u128::from(d - zs.iter().max().copied().unwrap_or(0))), Ordering::Less);
        prop_assert_ne!(i.cmp_exact(interference(&lengths(d, &zs), w + dw)), Ordering::Greater);
        let mut more = zs.clone();
        let j = j % more.len();
        more[j] = (more[j] + dz).min(d);
        prop_assert_ne!(interference(&lengths(d, &more), w).cmp_exact(i), Ordering::Greater);
    }
}
