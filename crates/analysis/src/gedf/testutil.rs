//! Test helpers for the G-EDF tests: system construction, a brute-force exact uniprocessor EDF
//! check, and proptest strategies.

#![allow(clippy::unwrap_used)]

use crate::system::{Params, Priorities, System};
use crate::util::math::gcd;
use proptest::prelude::*;

/// Proptest cases per property: 256, or `GEDF_CASES` from the environment for longer runs.
pub(crate) fn cases() -> u32 {
    std::env::var("GEDF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// A DM-ordered system from `(C, D, T)` triples.
pub(crate) fn sys(p: &[(u64, u64, u64)], m: u32) -> System {
    let params = p.iter().map(|&(c, d, t)| Params::new(c, d, t)).collect();
    System::from_params(params, m, Priorities::Dm).unwrap()
}

/// Exact uniprocessor EDF schedulability of a sporadic task set by brute force: `U ≤ 1` and
/// `dbf(t) ≤ t` at every integer `t` up to `H + max D` (Baruah, Rosier & Howell 1990). Only for
/// small periods (the hyperperiod `H` must be small).
pub(crate) fn uni_edf_exact(p: &[(u64, u64, u64)]) -> bool {
    let h = p.iter().fold(1u64, |h, &(_, _, t)| h / gcd(h, t) * t);
    // U ≤ 1 ⇔ Σ C·H/T ≤ H.
    let demand_h: u64 = p.iter().map(|&(c, _, t)| c * (h / t)).sum();
    if demand_h > h {
        return false;
    }
    let dmax = p.iter().map(|&(_, d, _)| d).max().unwrap_or(0);
    (1..=h + dmax).all(|t| {
        let dbf: u64 = p
            .iter()
            .filter(|&&(_, d, _)| t >= d)
            .map(|&(c, d, tt)| ((t - d) / tt + 1) * c)
            .sum();
        dbf <= t
    })
}

/// Exact utilization comparison `U ≤ m` for small sets (tests only).
pub(crate) fn utilization_at_most(p: &[(u64, u64, u64)], m: u64) -> bool {
    let h = p.iter().fold(1u128, |h, &(_, _, t)| {
        let t = u128::from(t);
        h / num_integer::gcd(h, t) * t
    });
    let demand: u128 = p
        .iter()
        .map(|&(c, _, t)| u128::from(c) * (h / u128::from(t)))
        .sum();
    demand <= u128::from(m) * h
}

/// One constrained-deadline task with small parameters (periods ≤ `tmax`).
pub(crate) fn small_task(tmax: u64) -> impl Strategy<Value = (u64, u64, u64)> {
    (1..=tmax)
        .prop_flat_map(|t| (1..=t).prop_flat_map(move |d| (1..=d).prop_map(move |c| (c, d, t))))
}

/// A task with possibly arbitrary deadline (`D` up to `2T`), `C ≤ D`.
pub(crate) fn arbitrary_task(tmax: u64) -> impl Strategy<Value = (u64, u64, u64)> {
    (1..=tmax)
        .prop_flat_map(|t| (1..=2 * t).prop_flat_map(move |d| (1..=d).prop_map(move |c| (c, d, t))))
}

/// A set of small constrained-deadline tasks and a CPU count.
pub(crate) fn small_system(
    max_tasks: usize,
    tmax: u64,
    max_cpus: u32,
) -> impl Strategy<Value = (Vec<(u64, u64, u64)>, u32)> {
    (
        proptest::collection::vec(small_task(tmax), 0..=max_tasks),
        1..=max_cpus,
    )
}
