//! Supply of a multiprocessor periodic resource (MPR) [MPR §3.2, Eq. 1–2].
//!
//! An MPR `Γ = (Π, Θ, m')` supplies `Θ` units of CPU time in every period of `Π`, on at most
//! `m'` CPUs at any instant (`0 ≤ Θ ≤ m'·Π`). Its **supply bound function** `sbf_Γ(t)` is the
//! least supply in any window of length `t`. The worst case [MPR §3.2, Fig. 2]: one period's
//! `Θ` is supplied as early as possible, at full parallelism `m'` (duration `Θ/m'`), and the
//! window opens just after it; every later period's `Θ` is supplied as late as possible, again
//! at full parallelism. With
//!
//! ```text
//! t' = t − (Π − Θ/m'),   k = ⌊t'/Π⌋,   x = t' − k·Π,
//! sbf(t) = k·Θ + max{0, m'·x − (m'·Π − Θ)}   for t' ≥ 0,   0 otherwise,
//! ```
//!
//! the supply is zero for a blackout of `2(Π − Θ/m')`, then rises with slope `m'` for `Θ/m'`,
//! stays flat for `Π − Θ/m'`, and so on. The **linear lower bound** [MPR Eq. 2] is
//! `lsbf(t) = (Θ/Π)·(t − 2(Π − Θ/m'))`; it touches `sbf` at the corners where a ramp starts.
//!
//! **Discrepancy with [MPR Eq. 1] as printed.** The paper writes `⌈Θ/m'⌉` in `t'` (a
//! discrete-time schedule where one slot holds the remainder `β = Θ − m'·⌊Θ/m'⌋`). When
//! `m'` does not divide `Θ` that over-estimates the supply: for `Γ = (5, 3, 2)` a schedule
//! supplies 2 + 1 in slots 0–1 of period 0 and 1 + 2 in slots 8–9 of period 1; the window
//! `[1, 9)` of length 8 receives 2, whereas the printed Eq. 1 gives `sbf(8) = 3` (the journal
//! version, Easwaran, Shin & Lee, Real-Time Systems 43(1) 2009, Def. 1, adds a correction term
//! for this case). We use the form above, with the exact `Θ/m'`: it is the least supply over
//! every schedule the model allows (continuous or discrete time), never above the printed
//! Eq. 1, and equal to it whenever `m' | Θ` — always the case for a reservation group
//! (`Θ = m·Q`, `m' = m`), where it is also exactly `m·Z(t)` of [HCBS Eq. 4] (tested).
//!
//! Arithmetic: everything is scaled by `m'`. With `u = m'·t' = m'·t − m'·Π + Θ` (an integer),
//! `k = ⌊u / (m'·Π)⌋` and `m'·x − (m'·Π − Θ) = u − (k + 1)·m'·Π + Θ`, so `sbf(t)` is an
//! integer at every integer `t`; products are `i128` (inputs: `Π`, `t` ≤ `u64::MAX`,
//! `m'` ≤ [`MAX_CPUS`], `Θ ≤ m'·Π`), so nothing overflows. O(1) per evaluation.

use schedlab_model::platform::MAX_CPUS;
use std::cmp::Ordering;

/// A multiprocessor periodic resource `(Π, Θ, m')` in ns [MPR Def. 1].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mpr {
    /// Period `Π` (ns), positive.
    pub period: u64,
    /// Supply `Θ` per period (ns), `Θ ≤ m'·Π`.
    pub budget: u128,
    /// Maximum concurrency `m'` (CPUs), `1 ≤ m' ≤` [`MAX_CPUS`].
    pub concurrency: u32,
}

impl Mpr {
    /// `(Π, Θ, m')`; `None` unless `Π > 0`, `1 ≤ m' ≤ MAX_CPUS` and `Θ ≤ m'·Π`.
    pub fn new(period: u64, budget: u128, concurrency: u32) -> Option<Mpr> {
        let ok = period > 0
            && (1..=MAX_CPUS).contains(&concurrency)
            && budget <= u128::from(concurrency) * u128::from(period);
        ok.then_some(Mpr {
            period,
            budget,
            concurrency,
        })
    }

    /// The MPR of a reservation group: `m` servers `(Q, P)` abstracted as
    /// `(Π = P, Θ = m·Q, m' = m)` (see the module doc of [`crate::mpr`]).
    pub fn of_group(budget: u64, period: u64, cpus: u32) -> Option<Mpr> {
        Mpr::new(period, u128::from(cpus) * u128::from(budget), cpus)
    }

    fn parts(self) -> (i128, i128, i128) {
        (
            i128::from(self.period),
            // Θ ≤ m'·Π < 2^76 (validated by `new`; fields are public, so clamp).
            i128::try_from(self.budget).unwrap_or(i128::MAX >> 48),
            i128::from(self.concurrency.max(1)),
        )
    }

    /// The supply bound function `sbf(t)` (module doc), in ns of CPU time.
    pub fn sbf(self, t: u64) -> u128 {
        let (pi, theta, m) = self.parts();
        let u = m * i128::from(t) - m * pi + theta;
        if u < 0 || pi == 0 {
            return 0;
        }
        let k = u / (m * pi);
        let ramp = (u - (k + 1) * m * pi + theta).max(0);
        // Non-negative: k ≥ 0 and ramp ≥ 0.
        u128::try_from(k * theta + ramp).unwrap_or(0)
    }

    /// Compares `sbf(t)` with the linear bound `lsbf(t) = (Θ/Π)(t − 2(Π − Θ/m'))`
    /// [MPR Eq. 2] exactly: `Π·m'·sbf(t)` against `Θ·(m'·t − 2·m'·Π + 2·Θ)`.
    /// [`Ordering::Less`] would mean Eq. 2 is not a lower bound at `t`.
    pub fn cmp_sbf_to_linear(self, t: u64) -> Ordering {
        let (pi, theta, m) = self.parts();
        let sbf = i128::try_from(self.sbf(t)).unwrap_or(i128::MAX >> 48);
        let lhs = pi * m * sbf;
        let rhs = theta * (m * i128::from(t) - 2 * m * pi + 2 * theta);
        lhs.cmp(&rhs)
    }

    /// The smallest `t` (ns) with `sbf(t) > v`, or `None` if there is none (`Θ = 0`) or it
    /// exceeds `u64::MAX`. O(1): with `v = k·Θ + r` (`0 ≤ r < Θ`) the answer lies on the
    /// ramp of period `k`, where `m'·t > r + (k + 2)·m'·Π − 2·Θ`.
    pub fn first_above(self, v: u128) -> Option<u64> {
        let (pi, theta, m) = self.parts();
        if theta == 0 {
            return None;
        }
        let v = i128::try_from(v).ok()?;
        let (k, r) = (v / theta, v % theta);
        let bound = r.checked_add(k.checked_add(2)?.checked_mul(m * pi)?)? - 2 * theta;
        let t = bound.div_euclid(m) + 1;
        u64::try_from(t.max(0)).ok()
    }
}

#[cfg(test)]
#[path = "supply_tests.rs"]
mod tests;
