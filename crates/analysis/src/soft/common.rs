//! Exact building blocks shared by the bounded-tardiness tests: the utilization condition
//! `U ≤ m`, Devi's `Λ = ⌈U⌉ − 1`, sums of the `k` largest costs / utilizations, and
//! `⌈N / (m − Σ uᵢ)⌉` without floating point.
//!
//! Utilizations are compared by `u128` cross-multiplication (`cᵢ·tⱼ` vs `cⱼ·tᵢ` fits in
//! 128 bits for any `u64` inputs); sums of utilizations use [`cmp_sum`] / [`exact_sum`].

use crate::system::Params;
use crate::verdict::Verdict;
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};
use schedlab_model::exact::{cmp_sum, exact_sum, Frac};
use schedlab_model::Duration;
use std::cmp::Ordering;

/// `uᵢ = cᵢ / tᵢ` as an exact fraction.
pub(crate) fn util(p: &Params) -> Frac {
    Frac::ratio(p.c, p.t)
}

/// Exact comparison of `a.c / a.t` with `b.c / b.t`.
pub(crate) fn cmp_util(a: &Params, b: &Params) -> Ordering {
    (u128::from(a.c) * u128::from(b.t)).cmp(&(u128::from(b.c) * u128::from(a.t)))
}

/// `U = Σ uᵢ ≤ m`, exactly.
pub(crate) fn total_util_at_most(params: &[Params], m: u64) -> bool {
    cmp_sum(|| params.iter().map(util), Frac::int(i128::from(m))) != Ordering::Greater
}

/// Some task has `uᵢ > 1` (`cᵢ > tᵢ`, possible only with arbitrary deadlines).
pub(crate) fn some_util_above_one(params: &[Params]) -> Option<usize> {
    params.iter().position(|p| p.c > p.t)
}

/// `Λ = ⌈U⌉ − 1` for `0 < U ≤ m` (the unique integer with `Λ < U ≤ Λ + 1`), computed by a
/// floating-point estimate corrected with exact comparisons. `0` for an empty set.
pub(crate) fn lambda(params: &[Params]) -> u64 {
    if params.is_empty() {
        return 0;
    }
    let approx: f64 = params.iter().map(|p| p.c as f64 / p.t as f64).sum();
    // The estimate is within a few units of the truth; fix it exactly.
    let mut l = (approx.ceil() as u64).saturating_sub(1);
    let terms = || params.iter().map(util);
    // Invariant wanted: U > l and U ≤ l + 1. (U > 0 since every c > 0.)
    for _ in 0..64 {
        let above_l = cmp_sum(terms, Frac::int(i128::from(l))) == Ordering::Greater;
        if !above_l {
            // U ≤ l, so Λ < l (l ≥ 1 here because U > 0).
            l = l.saturating_sub(1);
            continue;
        }
        let above_l1 = cmp_sum(terms, Frac::int(i128::from(l) + 1)) == Ordering::Greater;
        if above_l1 {
            l += 1;
            continue;
        }
        break;
    }
    l
}

/// The costs sorted in decreasing order, with prefix sums: `prefix[k]` = sum of the `k`
/// largest costs (`k` clamped to `n`).
pub(crate) struct CostsDesc {
    prefix: Vec<u128>,
}

impl CostsDesc {
    /// Sorts the costs of `params`.
    pub(crate) fn new(params: &[Params]) -> CostsDesc {
        let mut costs: Vec<u64> = params.iter().map(|p| p.c).collect();
        costs.sort_unstable_by(|a, b| b.cmp(a));
        let mut prefix = Vec::with_capacity(costs.len() + 1);
        let mut acc = 0u128;
        prefix.push(0);
        for c in costs {
            acc += u128::from(c);
            prefix.push(acc);
        }
        CostsDesc { prefix }
    }
    /// Sum of the `k` largest costs (all of them if `k ≥ n`).
    pub(crate) fn top(&self, k: u64) -> u128 {
        let k = usize::try_from(k).unwrap_or(usize::MAX);
        let last = self.prefix.len().saturating_sub(1);
        self.prefix.get(k.min(last)).copied().unwrap_or(0)
    }
}

/// The `k` largest utilizations (all of them if `k ≥ n`), as exact fractions.
pub(crate) fn top_utils(params: &[Params], k: u64) -> Vec<Frac> {
    let k = usize::try_from(k).unwrap_or(usize::MAX).min(params.len());
    if k == 0 {
        return Vec::new();
    }
    let mut ps: Vec<Params> = params.to_vec();
    if k < ps.len() {
        // Partial selection: the first k are the k largest (in any order).
        ps.select_nth_unstable_by(k - 1, |a, b| cmp_util(b, a));
    }
    ps.iter().take(k).map(util).collect()
}

/// The task with the largest utilization (exactly), if any.
pub(crate) fn max_util(params: &[Params]) -> Option<&Params> {
    params.iter().max_by(|a, b| cmp_util(a, b))
}

/// `⌈n / (m − Σ utils)⌉`, exactly; `None` if `m − Σ utils ≤ 0` (no bound).
pub(crate) fn ceil_over_capacity(n: u128, m: u64, utils: &[Frac]) -> Option<BigUint> {
    // Fast path: the sum as one i128 fraction, all products checked.
    if let Some(q) = ceil_over_capacity_small(n, m, utils) {
        return q.map(BigUint::from);
    }
    let sum = exact_sum(utils.iter().copied());
    let cap = num_rational::BigRational::from_integer(BigInt::from(m)) - sum;
    if !cap.is_positive() {
        return None;
    }
    // n / (p/q) = n·q / p with p > 0.
    let num = BigInt::from(n) * cap.denom();
    let den = cap.numer().clone();
    let q = num.div_ceil(&den);
    q.to_biguint()
}

/// [`ceil_over_capacity`] in `i128`/`u128`: `Some(answer)` when every intermediate fits,
/// `None` to fall back to big integers.
fn ceil_over_capacity_small(n: u128, m: u64, utils: &[Frac]) -> Option<Option<u128>> {
    let mut sum = Frac::ZERO;
    for &u in utils {
        sum = sum.checked_add(u)?;
    }
    // cap = m − num/den = (m·den − num)/den, den > 0.
    let cap_num = i128::from(m).checked_mul(sum.den)?.checked_sub(sum.num)?;
    if cap_num <= 0 {
        return Some(None);
    }
    let cap_num = u128::try_from(cap_num).ok()?;
    let den = u128::try_from(sum.den).ok()?;
    let num = n.checked_mul(den)?;
    Some(Some(num.div_ceil(cap_num)))
}

/// `⌈a·q / p⌉` for `p > 0` (a non-negative integer divided by the rational `p/q`).
pub(crate) fn ceil_div_by_ratio(a: u128, p: u128, q: u128) -> BigUint {
    if p == 0 {
        return BigUint::zero();
    }
    match a.checked_mul(q) {
        Some(num) => BigUint::from(num.div_ceil(p)),
        None => (BigUint::from(a) * BigUint::from(q)).div_ceil(&BigUint::from(p)),
    }
}

/// Per-task tardiness bounds `x + cᵢ`, or `None` if one does not fit in 64 bits of ns.
pub(crate) fn x_plus_cost(params: &[Params], x: &BigUint) -> Option<Vec<Duration>> {
    let x = x.to_u64()?;
    params
        .iter()
        .map(|p| x.checked_add(p.c).map(Duration::from_ns))
        .collect()
}

/// Reason text for `U > m`.
pub(crate) const UNBOUNDED_U: &str =
    "total utilization exceeds the number of CPUs (U > m): tardiness grows without bound";

/// Reason text for a bound that does not fit in `u64` nanoseconds.
pub(crate) const OVERFLOW: &str =
    "tardiness is bounded but the bound exceeds 2^64-1 ns and cannot be reported";

/// The verdict of a Devi-style bound from its `x` (`None`: `U > m` or some `u > 1`, tardiness
/// unbounded): per-task bounds `⌈x⌉ + Ci`, or not-shown if they overflow 64 bits.
pub(crate) fn verdict_from_x(params: &[Params], x: Option<BigUint>) -> Verdict {
    match x {
        None => Verdict::unschedulable().because(UNBOUNDED_U),
        Some(x) => match x_plus_cost(params, &x) {
            Some(bounds) => Verdict::schedulable().with_tardiness(bounds),
            None => Verdict::not_shown().because(OVERFLOW),
        },
    }
}

/// Test helper: implicit-deadline tasks `(C, T)` on `m` CPUs, DM priorities.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn implicit_sys(tasks: &[(u64, u64)], m: u32) -> crate::system::System {
    let p = tasks.iter().map(|&(c, t)| Params::new(c, t, t)).collect();
    crate::system::System::from_params(p, m, crate::system::Priorities::Dm).unwrap()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lambda_is_ceil_minus_one() {
        let p = |c, t| Params::new(c, t, t);
        // U = 1/3 + 1/3 + 1/3 = 1 exactly -> Λ = 0 (not 1, as ⌊U⌋ would give).
        assert_eq!(lambda(&[p(1, 3), p(1, 3), p(1, 3)]), 0);
        // U = 1.5 -> Λ = 1.
        assert_eq!(lambda(&[p(3, 4), p(3, 4)]), 1);
        // U = 2 exactly -> Λ = 1.
        assert_eq!(lambda(&[p(1, 1), p(1, 1)]), 1);
        // U = 2 + tiny -> Λ = 2.
        assert_eq!(lambda(&[p(1, 1), p(1, 1), p(1, 1_000_000_007)]), 2);
        // U tiny -> Λ = 0.
        assert_eq!(lambda(&[p(1, 1_000_000_000_000_000)]), 0);
        assert_eq!(lambda(&[]), 0);
    }

    #[test]
    fn top_sums() {
        let p = |c, t| Params::new(c, t, t);
        let ps = [p(1, 10), p(5, 10), p(3, 4), p(2, 100)];
        let costs = CostsDesc::new(&ps);
        assert_eq!(costs.top(0), 0);
        assert_eq!(costs.top(2), 8);
        assert_eq!(costs.top(9), 11);
        let u = top_utils(&ps, 2);
        let s = exact_sum(u.into_iter());
        // 3/4 + 1/2
        assert_eq!(s, Frac::new(5, 4).to_big());
        assert!(top_utils(&ps, 0).is_empty());
        assert_eq!(top_utils(&ps, 7).len(), 4);
    }

    #[test]
    fn ceil_over_capacity_is_exact() {
        // 9 / (2 − 1/2) = 6 exactly.
        let x = ceil_over_capacity(9, 2, &[Frac::ratio(1, 2)]).unwrap();
        assert_eq!(x, BigUint::from(6u32));
        // 10 / (2 − 1/2) = 6.67 -> 7.
        let x = ceil_over_capacity(10, 2, &[Frac::ratio(1, 2)]).unwrap();
        assert_eq!(x, BigUint::from(7u32));
        assert!(ceil_over_capacity(1, 1, &[Frac::ONE]).is_none());
        // Big denominators take the big-integer path and agree with the small one.
        let big = [Frac::ratio(999_999_999_999_989, 1_000_000_000_000_037); 3];
        let small_path = ceil_over_capacity_small(1 << 100, 4, &big);
        assert!(small_path.is_none());
        let via_big = ceil_over_capacity(1 << 100, 4, &big).unwrap();
        let expect = {
            let cap =
                num_rational::BigRational::from_integer(4.into()) - exact_sum(big.into_iter());
            let q = num_rational::BigRational::from_integer(BigInt::from(1u128 << 100)) / cap;
            q.ceil().to_integer().to_biguint().unwrap()
        };
        assert_eq!(via_big, expect);
        assert_eq!(ceil_div_by_ratio(7, 2, 1), BigUint::from(4u32));
        assert_eq!(
            ceil_div_by_ratio(u128::MAX, 1, 2),
            BigUint::from(u128::MAX) * 2u32
        );
    }
}
