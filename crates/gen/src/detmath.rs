//! Deterministic `ln`, `exp` and `powf` built from IEEE-754 basic operations only.
//!
//! `f64::ln`/`exp`/`powf` call the platform's libm, whose last-bit results differ between
//! platforms (glibc, musl, macOS, MSVC). Generators must give the same task sets everywhere, so
//! they use these functions instead: `+ - * /` are correctly rounded by IEEE-754 and Rust never
//! contracts them into fused multiply-adds, hence the results below are bit-for-bit portable.
//! Accuracy is a few ulp (tested against std), ample for sampling.
//!
//! Method: the classic argument reductions (Cody & Waite, *Software Manual for the Elementary
//! Functions*, 1980): `exp(x) = 2^k · e^r` with `|r| ≤ ln2/2` and a degree-14 Taylor polynomial;
//! `ln(x) = e·ln2 + 2·atanh((m−1)/(m+1))` with `m ∈ [√½, √2)` and an odd series to degree 25.
//! Cost: O(1), about 20 multiply-adds each.

/// ln 2 split into a high part with trailing zero bits (exact `k·LN2_HI` for |k| < 2^11) and the
/// rest.
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const INV_LN2: f64 = std::f64::consts::LOG2_E;

/// 2^k as an f64 for -1022 ≤ k ≤ 1023.
fn pow2(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// e^x, deterministic (see the module doc).
pub fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 709.782_712_893_384 {
        return f64::INFINITY;
    }
    if x < -745.2 {
        return 0.0;
    }
    let k = (x * INV_LN2 + if x < 0.0 { -0.5 } else { 0.5 }) as i64;
    let kf = k as f64;
    let r = (x - kf * LN2_HI) - kf * LN2_LO;
    // Taylor series of e^r in nested form 1 + r(1 + r/2(1 + r/3(…))); |r| ≤ 0.3466 so the
    // r^15/15! term is < 1e-19.
    let mut p = 1.0;
    let mut d = 14.0;
    while d > 0.5 {
        p = 1.0 + r * p / d;
        d -= 1.0;
    }
    // p now holds Σ r^i/i!; scale by 2^k, in two steps near the subnormal range.
    if k < -1021 {
        p * pow2(k + 600) * pow2(-600)
    } else if k > 1023 {
        p * pow2(k - 1) * 2.0
    } else {
        p * pow2(k)
    }
}

/// Natural logarithm, deterministic (see the module doc). `ln(0) = -∞`, `ln(x<0) = NaN`.
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    let (mut bits, mut e) = (x.to_bits(), 0i64);
    if bits >> 52 == 0 {
        // Subnormal: scale into the normal range first.
        bits = (x * pow2(54)).to_bits();
        e -= 54;
    }
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let f = (m - 1.0) / (m + 1.0);
    let f2 = f * f;
    // 2·atanh(f) = 2(f + f^3/3 + … + f^25/25); |f| ≤ 0.1716 so the next term is < 1e-20.
    let mut s = 1.0 / 25.0;
    let mut d = 23.0;
    while d > 0.5 {
        s = s * f2 + 1.0 / d;
        d -= 2.0;
    }
    let ef = e as f64;
    ef * LN2_HI + (ef * LN2_LO + 2.0 * f * s)
}

/// `x^y = e^(y·ln x)` for `x > 0`; `0^y = 0` for `y > 0`.
pub fn powf(x: f64, y: f64) -> f64 {
    if x == 0.0 && y > 0.0 {
        return 0.0;
    }
    exp(y * ln(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        a == b || (a - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn matches_std_within_a_few_ulp() {
        let mut x = 1e-300;
        while x < 1e300 {
            assert!(close(ln(x), x.ln()), "ln({x}) = {} vs {}", ln(x), x.ln());
            x *= 1.37;
        }
        let mut y = -700.0;
        while y < 700.0 {
            assert!(
                close(exp(y), y.exp()),
                "exp({y}) = {} vs {}",
                exp(y),
                y.exp()
            );
            y += 0.731;
        }
        for &(b, p) in &[(0.5, 1.0 / 3.0), (0.999, 0.01), (1e-10, 0.5), (0.3, 7.0)] {
            assert!(close(powf(b, p), f64::powf(b, p)), "{b}^{p}");
        }
    }

    #[test]
    fn special_values() {
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
        assert_eq!(exp(-1000.0), 0.0);
        assert_eq!(exp(1000.0), f64::INFINITY);
        assert!(close(ln(5e-324), (5e-324f64).ln()));
        assert!(exp(-740.0) > 0.0);
        assert_eq!(powf(0.0, 2.0), 0.0);
    }
}
