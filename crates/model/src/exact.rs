//! Exact rational comparisons, fast.
//!
//! Verdicts must be exact (DESIGN.md: "no floating point in test verdicts"), but sums of
//! utilizations over hundreds of tasks have denominators far beyond 128 bits, and arbitrary
//! precision on every comparison is slow. [`Frac`] keeps one term (`i128` numerator and
//! denominator, compared by cross-multiplication with a big-integer fallback on overflow), and
//! [`cmp_sum`] compares a sum of terms against a bound with a *filtered* comparison: it first
//! sums in `f64` together with a rigorous bound on the rounding error, and only when the two
//! sides are closer than that bound does it recompute the sum exactly with big rationals. The
//! answer is therefore always the exact one; the float pass just makes the common case cheap.
//!
//! Error bound used by the filter: each term `num/den` converted to `f64` carries a relative
//! error of at most 3u (two conversions and one division, u = 2^-53); a recursive sum of `n`
//! terms adds at most (n-1)u·Σ|tᵢ| (Higham, *Accuracy and Stability of Numerical Algorithms*,
//! §4.2). We use 2·(n+4)·2^-52·(Σ|tᵢ| + |bound|), comfortably above both.

use num_bigint::BigInt;
use num_rational::BigRational;
use std::cmp::Ordering;

/// An exact rational `num / den` with `den > 0`, not necessarily in lowest terms.
#[derive(Clone, Copy, Debug)]
pub struct Frac {
    /// Numerator.
    pub num: i128,
    /// Denominator, always positive.
    pub den: i128,
}

impl Frac {
    /// The rational `num / den`; a negative denominator moves its sign to the numerator.
    /// A zero denominator is a programming error (debug assertion) and is treated as 1.
    pub fn new(num: i128, den: i128) -> Frac {
        debug_assert!(den != 0, "zero denominator");
        match den.cmp(&0) {
            Ordering::Less => Frac {
                num: -num,
                den: -den,
            },
            Ordering::Equal => Frac { num, den: 1 },
            Ordering::Greater => Frac { num, den },
        }
    }
    /// The integer `v`.
    pub fn int(v: i128) -> Frac {
        Frac { num: v, den: 1 }
    }
    /// `a / b` for unsigned integers (typically nanoseconds).
    pub fn ratio(a: u64, b: u64) -> Frac {
        Frac::new(i128::from(a), i128::from(b))
    }
    /// Zero.
    pub const ZERO: Frac = Frac { num: 0, den: 1 };
    /// One.
    pub const ONE: Frac = Frac { num: 1, den: 1 };

    /// Approximate value (for reports and the comparison filter).
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
    /// Exact big-rational value.
    pub fn to_big(self) -> BigRational {
        BigRational::new(BigInt::from(self.num), BigInt::from(self.den))
    }
    /// Exact comparison.
    pub fn cmp_exact(self, other: Frac) -> Ordering {
        match (
            self.num.checked_mul(other.den),
            other.num.checked_mul(self.den),
        ) {
            (Some(l), Some(r)) => l.cmp(&r),
            _ => (BigInt::from(self.num) * BigInt::from(other.den))
                .cmp(&(BigInt::from(other.num) * BigInt::from(self.den))),
        }
    }
    /// The smaller of two (exactly).
    pub fn min(self, other: Frac) -> Frac {
        if self.cmp_exact(other) == Ordering::Greater {
            other
        } else {
            self
        }
    }
    /// The larger of two (exactly).
    pub fn max(self, other: Frac) -> Frac {
        if self.cmp_exact(other) == Ordering::Less {
            other
        } else {
            self
        }
    }
    /// Sum, or `None` if an intermediate overflows `i128`.
    pub fn checked_add(self, other: Frac) -> Option<Frac> {
        if self.den == other.den {
            return Some(Frac {
                num: self.num.checked_add(other.num)?,
                den: self.den,
            });
        }
        let num = self
            .num
            .checked_mul(other.den)?
            .checked_add(other.num.checked_mul(self.den)?)?;
        Some(Frac {
            num,
            den: self.den.checked_mul(other.den)?,
        })
    }
    /// Product, or `None` if it overflows `i128`.
    pub fn checked_mul(self, other: Frac) -> Option<Frac> {
        Some(Frac {
            num: self.num.checked_mul(other.num)?,
            den: self.den.checked_mul(other.den)?,
        })
    }
}

impl PartialEq for Frac {
    fn eq(&self, other: &Frac) -> bool {
        self.cmp_exact(*other) == Ordering::Equal
    }
}
impl Eq for Frac {}
impl PartialOrd for Frac {
    fn partial_cmp(&self, other: &Frac) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Frac {
    fn cmp(&self, other: &Frac) -> Ordering {
        self.cmp_exact(*other)
    }
}

const UNIT: f64 = f64::EPSILON; // 2^-52

/// Compares `Σ terms()` with `bound`, exactly.
///
/// `terms` is called once for a floating-point pass and, only if that pass cannot decide, a
/// second time for an exact big-rational pass; it must yield the same terms both times.
pub fn cmp_sum<I, F>(terms: F, bound: Frac) -> Ordering
where
    F: Fn() -> I,
    I: Iterator<Item = Frac>,
{
    let mut approx = 0.0f64;
    let mut magnitude = 0.0f64;
    let mut count = 0usize;
    for t in terms() {
        let v = t.to_f64();
        approx += v;
        magnitude += v.abs();
        count += 1;
    }
    let b = bound.to_f64();
    let error = 2.0 * (count as f64 + 4.0) * UNIT * (magnitude + b.abs()) + f64::MIN_POSITIVE;
    if approx > b + error {
        return Ordering::Greater;
    }
    if approx < b - error {
        return Ordering::Less;
    }
    exact_sum(terms()).cmp(&bound.to_big())
}

/// The exact sum of `terms` as a big rational.
pub fn exact_sum(terms: impl Iterator<Item = Frac>) -> BigRational {
    // Accumulate in i128 while it fits, spill to big rationals when it does not.
    let mut small = Frac::ZERO;
    let mut big = BigRational::from_integer(BigInt::from(0));
    for t in terms {
        match small.checked_add(t) {
            Some(s) if s.den < (1i128 << 100) => small = s,
            _ => {
                big += small.to_big();
                small = t;
            }
        }
    }
    big + small.to_big()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn compares_exactly_at_equality() {
        // 1/3 + 1/3 + 1/3 == 1 exactly, although in f64 the sum is not exactly 1.
        let thirds = || std::iter::repeat_n(Frac::ratio(1, 3), 3);
        assert_eq!(cmp_sum(thirds, Frac::ONE), Ordering::Equal);
        let tenths = || std::iter::repeat_n(Frac::ratio(1, 10), 10);
        assert_eq!(cmp_sum(tenths, Frac::ONE), Ordering::Equal);
    }

    #[test]
    fn big_denominators_fall_back_to_big_integers() {
        let a = Frac::new(i128::MAX / 3, i128::MAX / 2);
        let b = Frac::new(i128::MAX / 3 + 1, i128::MAX / 2);
        assert_eq!(a.cmp_exact(b), Ordering::Less);
        let primes: Vec<u64> = vec![1_000_003, 1_000_033, 1_000_037, 1_000_039, 1_000_081];
        let terms = || primes.iter().map(|&p| Frac::ratio(p - 1, p));
        let exact = exact_sum(terms());
        let approx: f64 = primes.iter().map(|&p| (p - 1) as f64 / p as f64).sum();
        assert!((approx - 5.0).abs() < 1e-5);
        assert!(exact < BigRational::from_integer(BigInt::from(5)));
    }

    proptest! {
        #[test]
        fn filtered_comparison_agrees_with_exact(
            parts in proptest::collection::vec((0u64..1_000_000, 1u64..1_000_000), 0..40),
            bnum in 0u64..40_000_000, bden in 1u64..1_000_000,
        ) {
            let terms = || parts.iter().map(|&(a, b)| Frac::ratio(a, b));
            let bound = Frac::ratio(bnum, bden);
            let expected = exact_sum(terms()).cmp(&bound.to_big());
            prop_assert_eq!(cmp_sum(terms, bound), expected);
            // And exactly at the sum itself.
            let s = exact_sum(terms());
            if let (Ok(n), Ok(d)) = (i128::try_from(s.numer().clone()), i128::try_from(s.denom().clone())) {
                prop_assert_eq!(cmp_sum(terms, Frac::new(n, d)), Ordering::Equal);
            }
        }
    }
}
