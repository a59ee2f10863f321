//! Global fixed priority on an MPR: the response-time search of one group's tasks (the
//! derivation is in the module doc of [`crate::mpr`]).
//!
//! For task `τk` with the higher-priority tasks `hp(k)` of its group and a window of length
//! `R` (`C_k ≤ R ≤ D_k`), `τk`'s job completes within `R` if
//!
//! ```text
//! Σ_{i ∈ hp(k)} min(W_i(R), R − C_k + 1) + m'·(C_k − 1) < sbf(R)                       (★)
//! W_i(L) = N_i·C_i + min(C_i, L + D_i − C_i − N_i·T_i),  N_i = ⌊(L + D_i − C_i)/T_i⌋   [HCBS Eq. 12]
//! ```
//!
//! The response-time bound is the least `R` satisfying (★). The left side `A(R)` is
//! non-decreasing in `R` and `sbf` is non-decreasing, so from `R_0 = C_k` the iteration
//! `R_{j+1} = min{t : sbf(t) > A(R_j)}` ([`Mpr::first_above`]) skips only lengths that fail
//! (★) (for `R_j ≤ t < R_{j+1}`: `sbf(t) ≤ A(R_j) ≤ A(t)`) and stops at the least one that
//! holds, or answers "not shown" once `R_{j+1} > D_k`. Each step raises `R` by at least 1 ns;
//! the steps are counted against a [`Budget`] (gave up past it).

use super::supply::Mpr;
use crate::system::Params;
use crate::util::budget::Budget;

/// One task's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The least `R ≤ D` with (★), in ns.
    Bound(u64),
    /// No `R ≤ D` satisfies (★).
    Miss,
    /// The step budget ran out.
    Limit,
}

/// [HCBS Eq. 12] with the window `D_k` replaced by `len`: the most work of a higher-priority
/// task `p` in a window of length `len` that opens at `τk`'s release, when `p`'s jobs meet
/// their deadlines.
pub fn workload(p: &Params, len: u64) -> u128 {
    let (c, d, t) = (u128::from(p.c), u128::from(p.d), u128::from(p.t));
    // len + D − C ≥ 0 since C ≤ D.
    let span = u128::from(len) + d - c;
    let jobs = span / t;
    jobs * c + c.min(span - jobs * t)
}

/// The left side of (★) for `τk` = `k` and window `len ≥ C_k`.
pub fn demand(hp: &[Params], k: &Params, supply: Mpr, len: u64) -> u128 {
    let cap = u128::from(len - k.c) + 1;
    let interference: u128 = hp.iter().map(|p| workload(p, len).min(cap)).sum();
    interference + u128::from(supply.concurrency) * u128::from(k.c - 1)
}

/// The least `R ∈ [C_k, D_k]` satisfying (★), for `k` (with `0 < C_k ≤ D_k`).
pub fn response_bound(hp: &[Params], k: &Params, supply: Mpr, budget: &mut Budget) -> Outcome {
    let mut len = k.c;
    loop {
        if !budget.step() {
            return Outcome::Limit;
        }
        let need = demand(hp, k, supply, len);
        if need < supply.sbf(len) {
            return Outcome::Bound(len);
        }
        // sbf(len) ≤ need, so the next candidate lies strictly above len.
        match supply.first_above(need) {
            Some(next) if next <= k.d => len = next.max(len + 1),
            _ => return Outcome::Miss,
        }
    }
}
