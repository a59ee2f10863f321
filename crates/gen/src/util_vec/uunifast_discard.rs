//! UUniFast-Discard: UUniFast vectors, discarding any with a value outside `[lo, hi]`.
//!
//! Davis & Burns, "Improved priority assignment for global fixed priority pre-emptive
//! scheduling in multiprocessor real-time systems", Real-Time Systems 47(1), 2011 (RTSS 2009
//! version), section "Task set generation": UUniFast is run for `U > 1` and vectors with any `u_i > 1` are discarded,
//! which keeps the accepted vectors uniform over `{Σu = U, 0 ≤ u_i ≤ 1}`. Here the cap `hi`
//! (default 1) and an optional floor `lo` (default 0) are parameters; conditioning a uniform
//! distribution on a sub-region keeps it uniform, so accepted vectors are uniform over
//! `{Σu = U, lo ≤ u_i ≤ hi}`.
//!
//! Assumptions: `n ≥ 1`, `0 ≤ lo ≤ hi`, `n·lo ≤ U ≤ n·hi`. The acceptance rate collapses as
//! `U` approaches `n·hi` (or `n·lo`), so the number of attempts is bounded: when the bound is
//! hit the result is [`GenError::AttemptsExhausted`], never an endless loop. RandFixedSum and
//! DRS sample the same region without rejection.
//!
//! Complexity: O(n) per attempt; expected attempts = 1 / P(accept).

use super::{check_bounds, fix_sum, uunifast::fill};
use crate::error::GenError;
use rand_chacha::rand_core::RngCore;

/// A UUniFast-Discard vector: `n` values in `[lo, hi]` summing to `total`, at most
/// `max_attempts` UUniFast draws.
///
/// ```
/// let mut rng = schedlab_gen::rng::rng_for(1, 0);
/// let u = schedlab_gen::util_vec::uunifast_discard(&mut rng, 8, 3.0, 0.0, 1.0, 1000).unwrap();
/// assert!(u.iter().all(|&x| x <= 1.0));
/// ```
pub fn uunifast_discard<R: RngCore + ?Sized>(
    rng: &mut R,
    n: usize,
    total: f64,
    lo: f64,
    hi: f64,
    max_attempts: u64,
) -> Result<Vec<f64>, GenError> {
    check_bounds(n, total, lo, hi)?;
    let mut out = vec![0.0; n];
    sample_into(rng, total, lo, hi, max_attempts, &mut out)?;
    Ok(out)
}

/// The rejection loop, reusing `out` across attempts (parameters already checked).
pub(crate) fn sample_into<R: RngCore + ?Sized>(
    rng: &mut R,
    total: f64,
    lo: f64,
    hi: f64,
    max_attempts: u64,
    out: &mut [f64],
) -> Result<(), GenError> {
    for _ in 0..max_attempts {
        fill(rng, total, out);
        if out.iter().all(|&u| u >= lo && u <= hi) {
            fix_sum(out, total, |_| lo, |_| hi);
            return Ok(());
        }
    }
    Err(GenError::AttemptsExhausted {
        method: "uunifast-discard",
        attempts: max_attempts,
        hint:
            "the acceptance rate is tiny when U is close to n·hi or n·lo; use randfixedsum or drs",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::rng_for;

    #[test]
    fn respects_cap_and_sum() {
        let mut rng = rng_for(5, 0);
        for _ in 0..200 {
            let u = uunifast_discard(&mut rng, 6, 4.0, 0.0, 1.0, 100_000).unwrap();
            assert!(u.iter().all(|&x| (0.0..=1.0).contains(&x)));
            assert!((u.iter().sum::<f64>() - 4.0).abs() < 1e-9);
        }
    }

    #[test]
    fn gives_up_with_a_typed_error() {
        // n = 10, U = 9.99, cap 1: acceptance ≈ 0, so 10 attempts fail.
        let mut rng = rng_for(5, 0);
        let e = uunifast_discard(&mut rng, 10, 9.99, 0.0, 1.0, 10).unwrap_err();
        assert!(
            matches!(e, GenError::AttemptsExhausted { attempts: 10, .. }),
            "{e}"
        );
        assert!(uunifast_discard(&mut rng, 2, 2.5, 0.0, 1.0, 10).is_err());
    }
}
