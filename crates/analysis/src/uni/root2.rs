//! Exact comparisons against the irrational bounds of rate-monotonic analysis.
//!
//! Liu & Layland's bound `n(2^{1/n} − 1)`, the hyperbolic bound `Π(uᵢ + 1) ≤ 2` and López et
//! al.'s `(βm + 1)(2^{1/(β+1)} − 1)` with `β = ⌊1/log₂(1 + u_max)⌋` all involve roots of 2.
//! They are decided here exactly by raising to integer powers instead of taking roots:
//! `U ≤ a(2^{1/k} − 1) ⇔ (1 + U/a)^k ≤ 2 ⇔ (q·a + p)^k ≤ 2·(q·a)^k` for `U = p/q`.
//! A floating-point pass (logarithms with a generous error margin) decides every case that is
//! not extremely close; only near-ties pay for big-integer powers. The big-integer fallback has
//! a size limit ([`MAX_EXACT_BITS`]); beyond it the functions return `Err(reason)`, which the
//! tests report as "gave up" (a deterministic work limit, never a guess).

use num_bigint::{BigInt, BigUint};
use num_rational::BigRational;
use num_traits::{One, Zero};

use schedlab_model::exact::{exact_sum, Frac};
use std::cmp::Ordering;

/// Largest intermediate (in bits) the exact fallback may build: 2^24 bits = 2 MiB per number.
pub const MAX_EXACT_BITS: u64 = 1 << 24;

/// Relative margin of the floating-point filter. The quantities compared are sums of at most a
/// few million terms of size ≤ 1 computed with correctly rounded `+ × ÷` and a faithfully
/// rounded `ln_1p`/`exp_m1` (error ≤ 2 ulp); 1e-9 is several orders of magnitude above that.
const FILTER: f64 = 1e-9;

fn too_big(what: &str, bits: u64) -> String {
    format!(
        "exact comparison for {what} needs numbers of about {bits} bits, above the limit of \
         {MAX_EXACT_BITS} bits"
    )
}

fn bits_of(x: &BigInt) -> u64 {
    x.bits().max(1)
}

/// Compares `(num/den)^k` with 2 exactly (`num, den > 0`).
fn pow_cmp_two(num: &BigInt, den: &BigInt, k: u64, what: &str) -> Result<Ordering, String> {
    let bits = bits_of(num).max(bits_of(den)).saturating_mul(k);
    if bits > MAX_EXACT_BITS {
        return Err(too_big(what, bits));
    }
    let k = u32::try_from(k).map_err(|_| too_big(what, bits))?;
    let lhs = num.pow(k);
    let rhs = den.pow(k) * BigInt::from(2u8);
    Ok(lhs.cmp(&rhs))
}

/// Compares `Σ terms()` (non-negative terms) with `a·(2^{1/k} − 1)`, exactly (`a, k ≥ 1`).
///
/// `terms` is called once for the float pass and once more only if that pass cannot decide.
pub fn cmp_sum_root2<I, F>(terms: F, a: u64, k: u64) -> Result<Ordering, String>
where
    F: Fn() -> I,
    I: Iterator<Item = Frac>,
{
    let a = a.max(1);
    let k = k.max(1);
    let (sum, _count) = terms().fold((0.0f64, 0usize), |(s, n), t| (s + t.to_f64(), n + 1));
    // Compare k·ln(1 + U/a) with ln 2 (the bound is monotone in U).
    let lhs = (k as f64) * (sum / a as f64).ln_1p();
    let rhs = std::f64::consts::LN_2;
    if lhs < rhs * (1.0 - FILTER) {
        return Ok(Ordering::Less);
    }
    if lhs > rhs * (1.0 + FILTER) {
        return Ok(Ordering::Greater);
    }
    let u: BigRational = exact_sum(terms());
    if u.is_zero() {
        return Ok(Ordering::Less);
    }
    // (1 + p/(q·a))^k vs 2, i.e. ((q·a + p)/(q·a))^k vs 2.
    let qa = u.denom() * BigInt::from(a);
    let num = &qa + u.numer();
    pow_cmp_two(&num, &qa, k, "a root-of-2 utilization bound")
}

/// Compares `Π (1 + cᵢ/tᵢ)` with 2, exactly (the hyperbolic bound).
pub fn cmp_product_two(params: &[(u64, u64)]) -> Result<Ordering, String> {
    let log: f64 = params
        .iter()
        .map(|&(c, t)| (c as f64 / t as f64).ln_1p())
        .sum();
    let rhs = std::f64::consts::LN_2;
    if log < rhs * (1.0 - FILTER) {
        return Ok(Ordering::Less);
    }
    if log > rhs * (1.0 + FILTER) {
        return Ok(Ordering::Greater);
    }
    // Π (tᵢ + cᵢ) vs 2 Π tᵢ.
    let bits: u64 = params
        .iter()
        .map(|&(c, t)| u64::from(128 - u128::from(c).saturating_add(u128::from(t)).leading_zeros()))
        .sum();
    if bits > MAX_EXACT_BITS {
        return Err(too_big("the hyperbolic bound", bits));
    }
    let mut num = BigUint::one();
    let mut den = BigUint::from(2u8);
    for &(c, t) in params {
        num *= BigUint::from(u128::from(c) + u128::from(t));
        den *= BigUint::from(t);
    }
    Ok(num.cmp(&den))
}

/// `min(β, cap)` for `β = ⌊1 / log₂(1 + c/t)⌋`, exactly (López et al.'s β for Liu & Layland's
/// bound: the largest number of tasks of utilization `c/t` whose sum passes the Liu & Layland
/// test on one CPU). Requires `0 < c ≤ t`, so `β ≥ 1`; `cap ≥ 1`.
///
/// `β` is the largest integer `b` with `(1 + c/t)^b ≤ 2`. The float estimate decides whenever
/// `β` clearly exceeds `cap`; otherwise `β < cap + 2` and it is found with exact powers.
pub fn beta_llb(c: u64, t: u64, cap: u64) -> Result<u64, String> {
    let cap = cap.max(1);
    if c == 0 || t == 0 || c > t {
        return Ok(1);
    }
    let x = std::f64::consts::LN_2 / (c as f64 / t as f64).ln_1p();
    if x * (1.0 - FILTER) >= cap as f64 + 1.0 {
        return Ok(cap);
    }
    let num = BigInt::from(u128::from(c) + u128::from(t));
    let den = BigInt::from(t);
    let fits = |b: u64| -> Result<bool, String> {
        Ok(pow_cmp_two(&num, &den, b, "β of the López et al. bound")? != Ordering::Greater)
    };
    // Start from the float estimate, then correct it in both directions.
    let mut b = (x.floor() as u64).clamp(1, cap);
    while b > 1 && !fits(b)? {
        b -= 1;
    }
    while b < cap && fits(b + 1)? {
        b += 1;
    }
    Ok(b)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bound_f64(a: u64, k: u64) -> f64 {
        a as f64 * (2f64.powf(1.0 / k as f64) - 1.0)
    }

    #[test]
    fn decides_the_classic_two_task_bound_exactly() {
        // 2(√2 − 1) = 0.828427…: 0.8284 is below, 0.8285 above.
        let below = || [Frac::ratio(4142, 10000), Frac::ratio(4142, 10000)].into_iter();
        assert_eq!(cmp_sum_root2(below, 2, 2), Ok(Ordering::Less));
        let above = || [Frac::ratio(41425, 100000), Frac::ratio(41425, 100000)].into_iter();
        assert_eq!(cmp_sum_root2(above, 2, 2), Ok(Ordering::Greater));
        // k = 1: the bound is exactly a, so U = a is Equal (exact path).
        let one = || [Frac::ratio(1, 3), Frac::ratio(2, 3)].into_iter();
        assert_eq!(cmp_sum_root2(one, 1, 1), Ok(Ordering::Equal));
        // Best rational approximations of √2 − 1 straddle it: 12/29 < √2 − 1 < 29/70.
        assert_eq!(
            cmp_sum_root2(|| std::iter::once(Frac::ratio(2 * 12, 29)), 2, 2),
            Ok(Ordering::Less)
        );
        assert_eq!(
            cmp_sum_root2(|| std::iter::once(Frac::ratio(2 * 29, 70)), 2, 2),
            Ok(Ordering::Greater)
        );
        // A near-tie that only the exact path decides: (√2 − 1) ≈ 0.41421356237309504880.
        let near_below = || std::iter::once(Frac::ratio(41_421_356_237_309, 100_000_000_000_000));
        assert_eq!(cmp_sum_root2(near_below, 1, 2), Ok(Ordering::Less));
        let near_above = || std::iter::once(Frac::ratio(41_421_356_237_310, 100_000_000_000_000));
        assert_eq!(cmp_sum_root2(near_above, 1, 2), Ok(Ordering::Greater));
    }

    #[test]
    fn hyperbolic_product_exact_at_equality() {
        // (1 + 1/3)(1 + 1/2) = 2 exactly.
        assert_eq!(cmp_product_two(&[(1, 3), (1, 2)]), Ok(Ordering::Equal));
        assert_eq!(
            cmp_product_two(&[(1, 3), (1, 2), (1, 1_000_000)]),
            Ok(Ordering::Greater)
        );
        assert_eq!(cmp_product_two(&[]), Ok(Ordering::Less));
    }

    #[test]
    fn beta_matches_its_definition() {
        // u = 1: (1+1)^1 = 2 ≤ 2, (1+1)^2 = 4 > 2 → β = 1.
        assert_eq!(beta_llb(5, 5, 100), Ok(1));
        // u = √2 − 1 region: 0.41 → 1.41^2 = 1.9881 ≤ 2, 1.41^3 > 2 → β = 2.
        assert_eq!(beta_llb(41, 100, 100), Ok(2));
        // u = 0.42 → 1.42^2 = 2.0164 > 2 → β = 1.
        assert_eq!(beta_llb(42, 100, 100), Ok(1));
        // u = 0.25: 1.25^3 = 1.953 ≤ 2, 1.25^4 = 2.44 → β = 3.
        assert_eq!(beta_llb(1, 4, 100), Ok(3));
        // Capped.
        assert_eq!(beta_llb(1, 1_000_000_000_000, 7), Ok(7));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn root2_agrees_with_floats_away_from_ties(
            parts in proptest::collection::vec((1u64..1000, 1000u64..100_000), 0..8),
            a in 1u64..20, k in 1u64..20,
        ) {
            let terms = || parts.iter().map(|&(c, t)| Frac::ratio(c, t));
            let s: f64 = parts.iter().map(|&(c, t)| c as f64 / t as f64).sum();
            let b = bound_f64(a, k);
            let got = cmp_sum_root2(terms, a, k).unwrap();
            if s < b * (1.0 - 1e-6) { prop_assert_eq!(got, Ordering::Less); }
            if s > b * (1.0 + 1e-6) { prop_assert_eq!(got, Ordering::Greater); }
        }

        #[test]
        fn beta_is_the_largest_fitting_count(c in 1u64..1000, extra in 0u64..100_000) {
            let t = c + extra;
            let b = beta_llb(c, t, 1_000_000).unwrap();
            let u = c as f64 / t as f64;
            let x = 1.0 / (1.0 + u).log2();
            prop_assert!((b as f64 - x.floor()).abs() <= 1.0);
            let num = BigInt::from(c + t);
            let den = BigInt::from(t);
            prop_assert!(pow_cmp_two(&num, &den, b, "t").unwrap() != Ordering::Greater);
            if b < 1_000_000 {
                prop_assert!(pow_cmp_two(&num, &den, b + 1, "t").unwrap() == Ordering::Greater);
            }
        }
    }
}
