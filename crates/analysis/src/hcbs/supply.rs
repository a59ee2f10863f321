//! Supply of one H-CBS virtual processor [HCBS §3.3, Eq. 4, Eq. 7–8].
//!
//! A hard CBS server with budget `Q` and period `P` (`0 < Q ≤ P`), when active, behaves as an
//! explicit-deadline periodic resource with deadline equal to its period [HCBS §3.3.1, citing
//! Easwaran, Anand, Lee, RTSS 2007]. Its **supply function** — the least CPU time it provides
//! in any window of length `t` — is [HCBS Eq. 4]
//!
//! ```text
//! Z(t) = max{0, t − (k + 2)(P − Q), k·Q},   k = ⌊(t − P + Q) / P⌋.
//! ```
//!
//! The worst case is a window that opens just after the server used its budget at the start
//! of a period and whose next budget arrives as late as possible: a blackout of `2(P − Q)`,
//! then `Q` of service, then `P − Q` without, and so on. `k` counts the full budgets the
//! window has seen; `t − (k + 2)(P − Q)` is the ramp while the `(k + 1)`-th budget is being
//! served, `k·Q` the plateau after it. For `t < P − Q` the floor is `−1` (floor division of a
//! negative number, not truncation) and `Z = 0`.
//!
//! The **(α, Δ) abstraction** [HCBS Eq. 8] is `α = Q/P`, `Δ = 2(P − Q)`, and the linear
//! supply `max{0, α(t − Δ)}` is a **lower** bound of `Z`: `Z(t) ≥ max{0, α(t − Δ)}` for all
//! `t ≥ 0` (the line touches `Z` at the corners `t = Δ + k·P`, where `Z = k·Q`). [HCBS
//! Eq. 7] prints the inequality as `Z(t) ≤ …`, which is the wrong way round: the text around
//! it ("a way to extract a lower bound for the actual supply function") and Definitions 5–6
//! make it a lower bound, and the property tests below check `≥` exactly.
//!
//! Arithmetic: times are `u64` nanoseconds; intermediate products are taken in `i128`/`u128`
//! so nothing overflows for any `u64` input; every comparison is exact (cross-multiplied).
//! Complexity: O(1) per evaluation.

use schedlab_model::Frac;
use std::cmp::Ordering;

/// One H-CBS server: budget `Q` every period `P`, both in ns, `0 < Q ≤ P` (validated by the
/// model's reservation groups; the functions here also accept `Q = 0` and give `Z = 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Server {
    /// Budget `Q` (ns).
    pub budget: u64,
    /// Period `P` (ns).
    pub period: u64,
}

impl Server {
    /// A server `(Q, P)`; `None` unless `Q ≤ P` and `P > 0`.
    pub fn new(budget: u64, period: u64) -> Option<Server> {
        (period > 0 && budget <= period).then_some(Server { budget, period })
    }

    /// The exact supply function `Z(t)` [HCBS Eq. 4] (ns of service in any window of `t` ns).
    pub fn supply(self, t: u64) -> u64 {
        let (q, p, t) = (
            i128::from(self.budget),
            i128::from(self.period),
            i128::from(t),
        );
        if p == 0 {
            return 0;
        }
        // Floor division: for t < P − Q the numerator is negative and k = −1.
        let k = (t - p + q).div_euclid(p);
        let ramp = t - (k + 2) * (p - q);
        let plateau = k * q;
        let z = ramp.max(plateau).max(0);
        // 0 ≤ z ≤ t ≤ u64::MAX (Z never exceeds the window), so the conversion cannot fail.
        u64::try_from(z).unwrap_or(u64::MAX)
    }

    /// The bandwidth `α = Q/P` [HCBS Eq. 8], exact.
    pub fn alpha(self) -> Frac {
        Frac::ratio(self.budget, self.period.max(1))
    }

    /// The delay `Δ = 2(P − Q)` [HCBS Eq. 8] in ns (`u128`: `2P` may exceed `u64`).
    pub fn delay(self) -> u128 {
        2 * u128::from(self.period - self.budget.min(self.period))
    }

    /// The linear lower bound `max{0, α(t − Δ)}` [HCBS Eq. 7–8] as an exact rational.
    pub fn linear_supply(self, t: u64) -> Frac {
        let over = i128::from(t) - self.delay() as i128;
        if over <= 0 {
            return Frac::ZERO;
        }
        Frac::new(
            over * i128::from(self.budget),
            i128::from(self.period.max(1)),
        )
    }

    /// Compares `Z(t)` with `α(t − Δ)` exactly: `P·Z(t)` against `Q·(t − Δ)` in `i128`.
    /// [`Ordering::Less`] would mean Eq. 7–8 is not a lower bound at `t`.
    pub fn cmp_supply_to_linear(self, t: u64) -> Ordering {
        let lhs = i128::from(self.period) * i128::from(self.supply(t));
        let rhs = i128::from(self.budget) * (i128::from(t) - self.delay() as i128);
        lhs.cmp(&rhs)
    }
}

/// Compares two bandwidths `q1/p1` and `q2/p2` exactly (cross-multiplied in `u128`, which
/// cannot overflow for `u64` operands). Periods must be positive.
pub fn cmp_bandwidth(q1: u64, p1: u64, q2: u64, p2: u64) -> Ordering {
    (u128::from(q1) * u128::from(p2)).cmp(&(u128::from(q2) * u128::from(p1)))
}

#[cfg(test)]
#[path = "supply_tests.rs"]
mod tests;
