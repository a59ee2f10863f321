//! UUniFast: a utilization vector uniform over the simplex `{u ∈ ℝⁿ : Σu = U, u ≥ 0}`.
//!
//! Bini & Buttazzo, "Measuring the performance of schedulability tests", Real-Time Systems
//! 30(1–2), 2005, §4 (Fig. 2, algorithm `UUniFast`): `sumU = U`; for `i = 1..n−1`:
//! `next = sumU · r_i^(1/(n−i))`, `u_i = sumU − next`, `sumU = next`; finally `u_n = sumU`, with
//! `r_i` uniform on (0, 1). Each step draws the remaining sum of the last `n−i` coordinates from
//! its Beta(n−i, 1) marginal, which makes the vector uniform on the simplex.
//!
//! Assumptions: `n ≥ 1`, `U ≥ 0` finite. There is **no upper bound**: for `U > 1` single values
//! may exceed 1 (use UUniFast-Discard, RandFixedSum or DRS to bound them). The sum is exact up
//! to floating-point rounding of the `n−1` subtractions (|Σu − U| ≲ n·ε·U).
//!
//! Complexity: O(n) time, n random draws, no allocation beyond the output.

use super::check_common;
use crate::detmath::powf;
use crate::error::GenError;
use crate::rng::unit_open;
use rand_chacha::rand_core::RngCore;

/// A UUniFast vector of `n` utilizations summing to `total`.
///
/// ```
/// let mut rng = schedlab_gen::rng::rng_for(1, 0);
/// let u = schedlab_gen::util_vec::uunifast(&mut rng, 4, 2.0).unwrap();
/// assert!((u.iter().sum::<f64>() - 2.0).abs() < 1e-12);
/// ```
pub fn uunifast<R: RngCore + ?Sized>(
    rng: &mut R,
    n: usize,
    total: f64,
) -> Result<Vec<f64>, GenError> {
    check_common(n, total)?;
    let mut out = vec![0.0; n];
    fill(rng, total, &mut out);
    Ok(out)
}

/// Writes one UUniFast vector summing to `total` into `out` (all of it).
pub(crate) fn fill<R: RngCore + ?Sized>(rng: &mut R, total: f64, out: &mut [f64]) {
    let n = out.len();
    let mut sum = total;
    for (i, slot) in out.iter_mut().enumerate() {
        let remaining = n - i - 1; // coordinates after this one
        if remaining == 0 {
            *slot = sum;
            break;
        }
        let next = sum * powf(unit_open(rng), 1.0 / remaining as f64);
        *slot = sum - next;
        sum = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::rng_for;

    #[test]
    fn mean_of_each_coordinate_is_u_over_n() {
        // Uniform on the simplex ⇒ E[u_i] = U/n for every i.
        let mut rng = rng_for(11, 0);
        let (n, total, runs) = (5, 2.5, 4000);
        let mut means = vec![0.0; n];
        for _ in 0..runs {
            let u = uunifast(&mut rng, n, total).unwrap();
            assert!((u.iter().sum::<f64>() - total).abs() < 1e-12);
            assert!(u.iter().all(|&x| x >= 0.0));
            for (m, x) in means.iter_mut().zip(&u) {
                *m += x / runs as f64;
            }
        }
        for m in means {
            assert!((m - 0.5).abs() < 0.03, "mean {m}");
        }
    }

    #[test]
    fn edge_cases() {
        let mut rng = rng_for(1, 0);
        assert_eq!(uunifast(&mut rng, 1, 0.7).unwrap(), vec![0.7]);
        assert!(matches!(
            uunifast(&mut rng, 0, 1.0),
            Err(GenError::InvalidParameter { .. })
        ));
        assert!(uunifast(&mut rng, 3, -1.0).is_err());
        assert!(uunifast(&mut rng, 3, f64::NAN).is_err());
        assert_eq!(uunifast(&mut rng, 3, 0.0).unwrap(), vec![0.0; 3]);
    }
}
