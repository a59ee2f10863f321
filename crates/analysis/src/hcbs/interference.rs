//! Workload and interference of global fixed priority on a set of virtual processors
//! [HCBS §3.3.4, Eq. 11–16], after E. Bini, G. Buttazzo, M. Bertogna, "The multi supply
//! function abstraction for multiprocessors", RTCSA 2009 ([HCBS] ref. [2], Theorems 1–2 there
//! and in [HCBS]).
//!
//! **Workload** [HCBS Eq. 11–12, from Bertogna, Cirinei, Lipari, IEEE TPDS 2008]: in a window
//! of length `D_k`, the higher-priority task `τ_i` executes at most
//! `W_{k,i} = N·C_i + min{C_i, D_k + D_i − C_i − N·T_i}`, `N = ⌊(D_k + D_i − C_i)/T_i⌋`, and
//! `W_k = Σ_{i ∈ hp(k)} W_{k,i}`. It assumes constrained deadlines (`D_i ≤ T_i`) and that the
//! higher-priority tasks meet their deadlines (checked first, in priority order).
//!
//! **Lengths** [HCBS Eq. 15]: with the servers' supplies at `D_k` sorted so that
//! `Z_1(D_k) ≥ … ≥ Z_m(D_k)`, `L_0 = D_k − Z_1`, `L_ℓ = Z_ℓ − Z_{ℓ+1}`, `L_m = Z_m`: the
//! lengths of the window during which exactly `ℓ` virtual processors serve, when the servers'
//! minimum supplies are laid out as parallel as possible. [HCBS] does not say the `Z_j` must
//! be sorted; Eq. 15 needs it for non-negative lengths, and we sort (a no-op for the equal
//! servers of one group). The aligned layout is the worst case for Eq. 13: moving `δ` of
//! supply out of parallel lowers `L_0` by `δ` and raises the rest of Eq. 13 by at most `δ`.
//!
//! **Interference** [HCBS Eq. 13, Theorem 1]:
//!
//! ```text
//! Ī_k = L_0 + Σ_{ℓ=1..m} min( L_ℓ, max(0, W_k − Σ_{p=1..ℓ−1} p·L_p) / ℓ ).
//! ```
//!
//! The higher-priority workload blocks `τ_k` longest when it is spent where the fewest
//! processors serve: during `L_ℓ`, blocking `τ_k` for a unit of time costs `ℓ` units of
//! workload. Once a term is not saturated (`max(0, …)/ℓ < L_ℓ`), the workload is used up and
//! every later term is 0, so `Ī_k = A + R/ℓ` exactly, with integers `A`, `R` and one `ℓ ≤ m`:
//! [`Interference`] keeps that form, and comparisons are cross-multiplied (no lcm of `1..m`).
//!
//! **Equal servers and the Eq. 16 misprint.** A group's servers share `(Q, P)`, so
//! `Z_1 = … = Z_m`, `L_1 = … = L_{m−1} = 0`, and Eq. 13 reduces to
//!
//! ```text
//! Ī_k = L_0 + min(L_m, W_k / m)        (the sum in the last term is over p < m, all zero).
//! ```
//!
//! [HCBS Eq. 16] prints `L_0 + min(L_m, max(0, W_k − m·L_m)/m)`, which subtracts the supply
//! of the very length it is charging: for `W_k ≤ m·L_m` it gives `Ī_k = L_0`, discarding all
//! interference (with `Q = P` it would accept any set whose tasks fit alone), so it is unsound;
//! we use the reduction of Eq. 13 ([`interference_equal`]), and the tests check that it equals
//! the general Eq. 13 ([`interference`]) on equal servers. (The brief's pointer to Bini,
//! Bertogna, Baruah RTSS 2009 is the follow-up "parallel supply function" paper; the Eq. 13
//! bound is [HCBS] ref. [2]. Neither full text was available to us: the reduction is derived
//! from Eq. 13 as [HCBS] prints it, whose form we checked against the argument above.)
//!
//! Arithmetic: `u64` ns inputs, `u128` sums (no overflow: with constrained deadlines
//! `W_{k,i} ≤ D_k + D_i`); exact comparisons. Complexity: O(n) for a workload, O(m log m) for
//! the lengths, O(m) for Eq. 13.

use crate::system::Params;
use std::cmp::Ordering;

/// An interference bound `whole + rest/parts` (ns), exact; `1 ≤ parts ≤ m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interference {
    /// The integer part collected from saturated terms (and `L_0`).
    pub whole: u128,
    /// The numerator of the one unsaturated term (0 if none).
    pub rest: u128,
    /// Its denominator `ℓ` (1 if none).
    pub parts: u128,
}

impl Interference {
    /// An integer bound.
    pub fn int(whole: u128) -> Interference {
        Interference {
            whole,
            rest: 0,
            parts: 1,
        }
    }

    /// The bound rounded up to whole ns.
    pub fn ceil(self) -> u128 {
        self.whole + self.rest.div_ceil(self.parts.max(1))
    }

    /// Compares the exact bound with the integer `x`.
    pub fn cmp_int(self, x: u128) -> Ordering {
        let parts = self.parts.max(1);
        (self.whole.saturating_mul(parts).saturating_add(self.rest)).cmp(&x.saturating_mul(parts))
    }

    /// Compares two bounds exactly (cross-multiplied; `parts ≤ MAX_CPUS`, so no overflow for
    /// the values of one window).
    pub fn cmp_exact(self, other: Interference) -> Ordering {
        let (a, b) = (self.parts.max(1), other.parts.max(1));
        let lhs = self
            .whole
            .saturating_mul(a)
            .saturating_add(self.rest)
            .saturating_mul(b);
        let rhs = other
            .whole
            .saturating_mul(b)
            .saturating_add(other.rest)
            .saturating_mul(a);
        lhs.cmp(&rhs)
    }

    /// [HCBS Eq. 14] for a task with WCET `c` and deadline `d`: `c + Ī ≤ d`, exactly.
    pub fn fits(self, c: u64, d: u64) -> bool {
        let room = u128::from(d).checked_sub(u128::from(c));
        room.is_some_and(|room| self.cmp_int(room) != Ordering::Greater)
    }
}

/// `W_{k,i}` [HCBS Eq. 12]: the most `hp` (`τ_i`) executes in a window of `dk` = `D_k`.
/// Needs `C_i ≤ D_i ≤ T_i` (then the min's second argument is non-negative).
pub fn workload_of(dk: u64, hp: &Params) -> u128 {
    let span = u128::from(dk) + u128::from(hp.d) - u128::from(hp.c.min(hp.d));
    let t = u128::from(hp.t.max(1));
    let n = span / t;
    let c = u128::from(hp.c);
    n * c + c.min(span - n * t)
}

/// `W_k` [HCBS Eq. 11]: the sum of [`workload_of`] over the higher-priority tasks.
pub fn workload<'a>(dk: u64, higher: impl IntoIterator<Item = &'a Params>) -> u128 {
    higher
        .into_iter()
        .map(|p| workload_of(dk, p))
        .fold(0u128, u128::saturating_add)
}

/// The lengths `L_0 … L_m` [HCBS Eq. 15] in a window of length `window` from the servers'
/// supplies `Z_j(window)` in any order (each at most `window`). `m = supplies.len()`.
pub fn lengths(window: u64, supplies: &[u64]) -> Vec<u64> {
    let mut z: Vec<u64> = supplies.iter().map(|&s| s.min(window)).collect();
    z.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = Vec::with_capacity(z.len() + 1);
    out.push(window - z.first().copied().unwrap_or(0));
    for pair in z.windows(2) {
        out.push(pair[0] - pair[1]);
    }
    if let Some(&last) = z.last() {
        out.push(last);
    }
    out
}

/// [HCBS Eq. 13]: the interference bound from the lengths `L_0 … L_m` ([`lengths`]) and the
/// higher-priority workload `w` (module doc for the exact form).
pub fn interference(lengths: &[u64], w: u128) -> Interference {
    let Some((&l0, rest)) = lengths.split_first() else {
        return Interference::int(0);
    };
    let mut whole = u128::from(l0);
    // Σ_{p<ℓ} p·L_p: the workload already spent blocking τ_k where fewer processors serve.
    let mut spent: u128 = 0;
    for (i, &len) in rest.iter().enumerate() {
        let ell = i as u128 + 1;
        let left = w.saturating_sub(spent); // max(0, W − Σ_{p<ℓ} p·L_p)
        let cost = ell * u128::from(len);
        if left >= cost {
            whole += u128::from(len); // min(L_ℓ, left/ℓ) = L_ℓ
            spent += cost;
        } else {
            // left/ℓ < L_ℓ: this term is left/ℓ and every later one is min(L, 0) = 0.
            return Interference {
                whole,
                rest: left,
                parts: ell,
            };
        }
    }
    Interference::int(whole)
}

/// Eq. 13 for `m` equal servers (`L_1 … L_{m−1} = 0`): `Ī = L_0 + min(L_m, W/m)` — the
/// correct form of the misprinted [HCBS Eq. 16] (module doc). `m ≥ 1`.
pub fn interference_equal(l0: u64, lm: u64, m: u32, w: u128) -> Interference {
    let m = u128::from(m.max(1));
    let lm = u128::from(lm);
    if w >= m * lm {
        Interference::int(u128::from(l0) + lm)
    } else {
        Interference {
            whole: u128::from(l0),
            rest: w,
            parts: m,
        }
    }
}

#[cfg(test)]
#[path = "interference_tests.rs"]
mod tests;
