//! Shared pieces of the demand-based G-EDF tests (`gedf-bar`, `gedf-ffdbf`, `gedf-load`):
//! exact utilization comparisons, floating-point sums with a rigorous error bound (the
//! "filter" half of a filtered exact comparison), and the parameter range that their 128-bit
//! integer arithmetic supports.

use crate::system::{Params, System};
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// Largest time parameter (ns) these tests accept: 2^62 ns ≈ 146 years. Below it every
/// intermediate product of the tests fits in 128 bits (see each test's module doc).
pub(crate) const MAX_PARAM: u64 = 1 << 62;

/// `Err(reason)` if some `C`, `D` or `T` exceeds [`MAX_PARAM`].
pub(crate) fn require_range(sys: &System) -> Result<(), String> {
    match sys
        .params()
        .iter()
        .position(|p| p.c.max(p.d).max(p.t) > MAX_PARAM)
    {
        None => Ok(()),
        Some(i) => Err(format!(
            "task {i} has a time parameter above 2^62 ns, outside the exact 128-bit range of this test"
        )),
    }
}

/// `Σ Ci/Ti` compared with `bound`, exactly.
pub(crate) fn cmp_utilization(params: &[Params], bound: Frac) -> Ordering {
    cmp_sum(|| params.iter().map(|p| Frac::ratio(p.c, p.t)), bound)
}

/// `Ci / min(Di, Ti)` — the density used by the arbitrary-deadline analyses.
pub(crate) fn density(p: &Params) -> Frac {
    Frac::ratio(p.c, p.min_dt())
}

/// The largest density `max Ci/min(Di, Ti)` (exact), or 0 for an empty system.
pub(crate) fn max_density(params: &[Params]) -> Frac {
    params
        .iter()
        .map(density)
        .fold(Frac::ZERO, |acc, d| acc.max(d))
}

/// Unit roundoff-based slack used by the float filters: 2^-52.
const UNIT: f64 = f64::EPSILON;

/// A sum of non-negative terms evaluated in `f64`, with a rigorous absolute error bound.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ApproxSum {
    /// The floating-point sum.
    pub(crate) value: f64,
    /// `|value − exact| ≤ err`.
    pub(crate) err: f64,
}

impl ApproxSum {
    /// `Σ num/den` over the given non-negative terms (`den > 0`). Each term carries at most
    /// 3 roundings, the recursive sum `n − 1` more (Higham §4.2); the bound is twice that.
    pub(crate) fn of(terms: impl Iterator<Item = (u128, u128)>) -> ApproxSum {
        let mut value = 0.0f64;
        let mut count = 0usize;
        for (num, den) in terms {
            value += num as f64 / den as f64;
            count += 1;
        }
        ApproxSum {
            value,
            err: 2.0 * (count as f64 + 4.0) * UNIT * value + f64::MIN_POSITIVE,
        }
    }
}

/// A generous relative slack for a handful of further float operations on values of the
/// given magnitude (each operation adds at most one unit roundoff; we allow 16).
pub(crate) fn ops_slack(magnitude: f64) -> f64 {
    16.0 * UNIT * magnitude + f64::MIN_POSITIVE
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::system::Priorities;

    #[test]
    fn approx_sum_bounds_the_exact_value() {
        let terms = [(1u128, 3u128), (2, 7), (5, 11)];
        let s = ApproxSum::of(terms.iter().copied());
        let exact = 1.0 / 3.0 + 2.0 / 7.0 + 5.0 / 11.0;
        assert!((s.value - exact).abs() <= s.err);
    }

    #[test]
    fn range_and_density_helpers() {
        let sys = System::from_params(
            vec![Params::new(1, 4, 8), Params::new(3, 10, 5)],
            2,
            Priorities::Dm,
        )
        .unwrap();
        assert!(require_range(&sys).is_ok());
        // densities 1/4 and 3/min(10,5) = 3/5
        assert_eq!(max_density(sys.params()), Frac::ratio(3, 5));
        // U = 1/8 + 3/5 = 29/40
        assert_eq!(
            cmp_utilization(sys.params(), Frac::ratio(29, 40)),
            Ordering::Equal
        );
        let big =
            System::from_params(vec![Params::new(1, 1 << 63, 1 << 63)], 1, Priorities::Dm).unwrap();
        assert!(require_range(&big).is_err());
    }
}

/// Test helpers shared by the demand-based tests' unit tests.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod testkit {
    use crate::system::{Params, Priorities, System};
    use proptest::prelude::*;

    /// A system of `(C, D, T)` triples on `m` CPUs.
    pub(crate) fn sys(tasks: &[(u64, u64, u64)], m: u32) -> System {
        System::from_params(
            tasks
                .iter()
                .map(|&(c, d, t)| Params::new(c, d, t))
                .collect(),
            m,
            Priorities::Dm,
        )
        .unwrap()
    }

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }

    /// Exact uniprocessor EDF feasibility of a synchronous sporadic task set (arbitrary
    /// deadlines), by brute force: `U ≤ 1` and `Σ dbf(τi, t) ≤ t` for every integer
    /// `0 < t ≤ H + max D` (H the hyperperiod). Meant for tiny periods only.
    pub(crate) fn uni_edf_feasible(tasks: &[(u64, u64, u64)]) -> bool {
        let (mut num, mut den) = (0u128, 1u128);
        let mut h = 1u64;
        for &(c, _, t) in tasks {
            num = num * u128::from(t) + u128::from(c) * den;
            den *= u128::from(t);
            h = h / gcd(h, t) * t;
        }
        if num > den {
            return false;
        }
        let dmax = tasks.iter().map(|&(_, d, _)| d).max().unwrap_or(0);
        (1..=h + dmax).all(|t| {
            let demand: u64 = tasks
                .iter()
                .map(|&(c, d, p)| if t < d { 0 } else { ((t - d) / p + 1) * c })
                .sum();
            demand <= t
        })
    }

    /// Constrained-deadline tasks `(C, D, T)` with `T ≤ max_t`.
    pub(crate) fn constrained_tasks(
        n: std::ops::Range<usize>,
        max_t: u64,
    ) -> impl Strategy<Value = Vec<(u64, u64, u64)>> {
        proptest::collection::vec(
            (1..=max_t)
                .prop_flat_map(|t| (1..=t).prop_flat_map(move |d| (1..=d, Just(d), Just(t)))),
            n,
        )
    }

    /// Tasks with arbitrary deadlines (`C ≤ D`, `D` up to `3T`).
    pub(crate) fn arbitrary_tasks(
        n: std::ops::Range<usize>,
        max_t: u64,
    ) -> impl Strategy<Value = Vec<(u64, u64, u64)>> {
        proptest::collection::vec(
            (1..=max_t)
                .prop_flat_map(|t| (1..=3 * t).prop_flat_map(move |d| (1..=d, Just(d), Just(t)))),
            n,
        )
    }
}
