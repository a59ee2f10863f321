//! Dirichlet-Rescale (DRS): a vector with `Σu = U` and per-coordinate bounds
//! `lower_i ≤ u_i ≤ upper_i`.
//!
//! Griffin, Bate & Davis, "Generating utilization vectors for the systematic evaluation of
//! schedulability tests", RTSS 2020, §IV (the DRS algorithm) and §IV-C (lower bounds by a
//! shift). Reference implementation: the Python package `drs` (github.com/dgdguk/drs,
//! `drs/drs.py`), read to fix the details below; this is an independent implementation.
//!
//! # Algorithm
//! 1. Lower bounds are removed by the shift `u = lower + v`, `Σv = U' = U − Σlower`,
//!    `v_i ≤ upper_i − lower_i` (§IV-C). The problem is scaled to the unit simplex:
//!    `x = v/U'`, limits `l_i = min(1, (upper_i − lower_i)/U')`.
//! 2. A point is drawn from the flat Dirichlet distribution (normalised exponentials), i.e.
//!    uniformly on the standard simplex.
//! 3. While some `x_i > l_i`: let `L` be the limits of the violated coordinates (0 elsewhere),
//!    `s = 1 − ΣL`; the *constraint simplex* `{x ≥ L}` is mapped onto the standard simplex by
//!    `M(x) = (x − L)/s`. The reference applies `M^P` with the largest `P ≥ 1` keeping every
//!    coordinate positive (found by repeated squaring of the matrix); here `P` is computed in
//!    closed form from `M^k(x) = F + (x − F)·s^(−k)` with `F = L/ΣL` (the fixed point of `M`),
//!    then checked. A rescale whose result drifts from `Σx = 1` by more than `epsilon` (1e-4,
//!    as in the reference) counts as *diverged* and the draw is retried.
//! 4. "Smallest simplex first" (reference `ssr`): if the inverted simplex `{x ≤ l, Σx = 1}`
//!    is smaller than the standard simplex — its volume ratio is `(Σl − 1)^(n−1)`, i.e. when
//!    `Σl < 2` — the problem is first mapped by the affine bijection `x ↦ (l − x)/(Σl − 1)`,
//!    which turns it into the same kind of problem with limits `l/(Σl − 1)`; the result is
//!    mapped back. (The reference compares Cayley–Menger determinants; the closed form is
//!    equivalent.)
//! 5. `u = lower + U'·x`; floating-point residue is removed by clamping to the bounds and
//!    spreading `U − Σu` over the slack, so `|Σu − U|` is a few ulp per coordinate.
//!
//! Bounds on the work: at most `max_rescales` rescales per draw and `max_retries` draws (both
//! 1000 by default, as in the reference); exceeding them is [`GenError::AttemptsExhausted`].
//!
//! # Deviations from the reference (documented choices)
//! * Degenerate but feasible inputs are answered instead of rejected: `Σlower = U` gives
//!   `lower`, `Σupper = U` gives `upper`, and coordinates with `lower_i = upper_i` are fixed
//!   (the reference raises `ValueError` for all three). A relative tolerance of 1e-9 absorbs
//!   rounding in these sums.
//! * Bounds must satisfy `0 ≤ lower_i ≤ upper_i` (utilizations are non-negative).
//! * The authors' later work (ConvolutionalFixedSum, same group) notes that DRS is not exactly
//!   uniform over the constrained region; it is nonetheless the reference method for
//!   per-task bounds, and this implementation follows it.
//!
//! Complexity: O(n) per rescale; the number of rescales is small in practice (the paper
//! reports a few per draw); memory O(n) per sampler.

use super::{check_total, fix_sum, tolerance};
use crate::detmath::{exp, ln};
use crate::error::GenError;
use crate::rng::unit_open;
use rand_chacha::rand_core::RngCore;

/// Work bounds of DRS (defaults as in the reference implementation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrsLimits {
    /// Fresh Dirichlet draws before giving up (reference: `DRS_RETRIES = 1000`).
    pub max_retries: u64,
    /// Rescale steps per draw (reference: `MAX_RESCALES = 1000`).
    pub max_rescales: u64,
    /// Largest tolerated `|1 − Σx|` after a rescale (reference: `EPSILON = 1e-4`).
    pub epsilon: f64,
}

impl Default for DrsLimits {
    fn default() -> Self {
        DrsLimits {
            max_retries: 1000,
            max_rescales: 1000,
            epsilon: 1e-4,
        }
    }
}

/// A prepared DRS sampler for fixed `(U, lower, upper)`.
#[derive(Clone, Debug)]
pub struct Drs {
    total: f64,
    lower: Vec<f64>,
    upper: Vec<f64>,
    /// Indices of the coordinates with `lower < upper` (the ones DRS draws).
    free: Vec<usize>,
    /// `U − Σlower`.
    spread: f64,
    plan: Plan,
    limits: DrsLimits,
}

#[derive(Clone, Debug)]
enum Plan {
    /// The answer does not depend on randomness (`u = lower`, `u = upper`, or one free coord).
    Fixed(Vec<f64>),
    /// Rescale in the original unit simplex with these limits.
    Direct(Vec<f64>),
    /// Rescale in the reflected problem (limits `l/(Σl−1)`), map back with `x = l − (Σl−1)·y`.
    Reflected {
        limits: Vec<f64>,
        work: Vec<f64>,
        factor: f64,
    },
}

impl Drs {
    /// Prepares a sampler. `lower`/`upper` are per-coordinate bounds (both of length `n`);
    /// pass `&[]` for "none" (lower 0, upper `U`).
    pub fn new(
        n: usize,
        total: f64,
        lower: &[f64],
        upper: &[f64],
        limits: DrsLimits,
    ) -> Result<Drs, GenError> {
        check_total(n, total)?;
        let lower = bound_vector("lower bounds", lower, n, 0.0)?;
        let upper = bound_vector("upper bounds", upper, n, total)?;
        if let Some(i) = (0..n).find(|&i| lower[i] > upper[i]) {
            return Err(GenError::invalid(
                "bounds",
                format!(
                    "lower bound {} exceeds upper bound {} at coordinate {i}",
                    lower[i], upper[i]
                ),
            ));
        }
        if limits.epsilon.is_nan() || limits.epsilon <= 0.0 {
            return Err(GenError::invalid("DRS epsilon", "must be > 0"));
        }
        let (sum_lo, sum_hi): (f64, f64) = (lower.iter().sum(), upper.iter().sum());
        let tol = tolerance(total);
        if total < sum_lo - tol || total > sum_hi + tol {
            return Err(GenError::invalid(
                "total utilization",
                format!("{total} is outside [Σlower, Σupper] = [{sum_lo}, {sum_hi}]"),
            ));
        }
        let free: Vec<usize> = (0..n).filter(|&i| upper[i] > lower[i]).collect();
        let spread = total - sum_lo;
        let plan = if spread <= tol {
            Plan::Fixed(lower.clone())
        } else if sum_hi - total <= tol {
            Plan::Fixed(upper.clone())
        } else if let [only] = free.as_slice() {
            let mut u = lower.clone();
            u[*only] += spread;
            Plan::Fixed(u)
        } else {
            let l: Vec<f64> = free
                .iter()
                .map(|&i| ((upper[i] - lower[i]) / spread).min(1.0))
                .collect();
            let sum_l: f64 = l.iter().sum();
            if sum_l < 2.0 && sum_l > 1.0 {
                let factor = sum_l - 1.0;
                let work = l.iter().map(|&li| li / factor).collect();
                Plan::Reflected {
                    limits: l,
                    work,
                    factor,
                }
            } else {
                Plan::Direct(l)
            }
        };
        Ok(Drs {
            total,
            lower,
            upper,
            free,
            spread,
            plan,
            limits,
        })
    }

    /// One vector.
    pub fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> Result<Vec<f64>, GenError> {
        let mut u = self.lower.clone();
        let work_limits = match &self.plan {
            Plan::Fixed(v) => {
                u.copy_from_slice(v);
                fix_sum(&mut u, self.total, |i| self.lower[i], |i| self.upper[i]);
                return Ok(u);
            }
            Plan::Direct(l) => l,
            Plan::Reflected { work, .. } => work,
        };
        let mut x = vec![0.0; self.free.len()];
        let mut converged = false;
        for _ in 0..self.limits.max_retries {
            dirichlet(rng, &mut x);
            if rescale(&mut x, work_limits, &self.limits) {
                converged = true;
                break;
            }
        }
        if !converged {
            return Err(GenError::AttemptsExhausted {
                method: "drs",
                attempts: self.limits.max_retries,
                hint: "every draw diverged or needed too many rescales; bounds too tight?",
            });
        }
        if let Plan::Reflected { limits, factor, .. } = &self.plan {
            for (xi, li) in x.iter_mut().zip(limits) {
                *xi = li - factor * *xi;
            }
        }
        for (&i, xi) in self.free.iter().zip(&x) {
            u[i] = self.lower[i] + self.spread * xi;
        }
        fix_sum(&mut u, self.total, |i| self.lower[i], |i| self.upper[i]);
        Ok(u)
    }
}

/// Checks one bound vector; an empty slice means "all `default`".
fn bound_vector(what: &str, v: &[f64], n: usize, default: f64) -> Result<Vec<f64>, GenError> {
    if v.is_empty() {
        return Ok(vec![default; n]);
    }
    if v.len() != n {
        return Err(GenError::invalid(
            what,
            format!("has {} entries, expected n = {n}", v.len()),
        ));
    }
    if let Some((i, x)) = v
        .iter()
        .enumerate()
        .find(|(_, x)| !(x.is_finite() && **x >= 0.0))
    {
        return Err(GenError::invalid(
            what,
            format!("entry {i} is {x}; bounds must be finite and ≥ 0"),
        ));
    }
    Ok(v.to_vec())
}

/// A flat-Dirichlet point: normalised standard exponentials.
fn dirichlet<R: RngCore + ?Sized>(rng: &mut R, x: &mut [f64]) {
    let mut sum = 0.0;
    for xi in x.iter_mut() {
        *xi = -ln(unit_open(rng));
        sum += *xi;
    }
    for xi in x.iter_mut() {
        *xi /= sum;
    }
}

/// Rescales `x` until it satisfies `x ≤ limits`; false if it diverged or hit the bound.
fn rescale(x: &mut [f64], limits: &[f64], bounds: &DrsLimits) -> bool {
    for _ in 0..bounds.max_rescales {
        let over = |i: usize| x[i] > limits[i];
        let l_sum: f64 = (0..x.len()).filter(|&i| over(i)).map(|i| limits[i]).sum();
        if !(0..x.len()).any(over) {
            return true;
        }
        let s = 1.0 - l_sum;
        if !(s > 0.0 && s < 1.0) {
            return false; // no room: numerically degenerate draw
        }
        let ln_s = ln(s);
        // Largest P ≥ 1 with F_i + (x_i − F_i)·s^(−P) > 0 for every violated i below F_i.
        let mut p = f64::INFINITY;
        for i in (0..x.len()).filter(|&i| x[i] > limits[i]) {
            let f = limits[i] / l_sum;
            if x[i] < f {
                let r = ln(f / (f - x[i])) / -ln_s;
                p = p.min(r.ceil() - 1.0);
            }
        }
        if !p.is_finite() {
            return false; // the point moves away forever (measure-zero case)
        }
        let mut p = p.max(1.0);
        let mut applied = false;
        for _ in 0..4 {
            if apply_power(x, limits, l_sum, s, ln_s, p) {
                applied = true;
                break;
            }
            p = (p - 1.0).max(1.0);
        }
        if !applied {
            return false;
        }
        let drift = 1.0 - x.iter().sum::<f64>();
        if drift.abs() > bounds.epsilon {
            return false;
        }
    }
    false
}

/// `x ← M^p(x)` if the result is strictly positive (then true); otherwise leaves `x` as is.
fn apply_power(x: &mut [f64], limits: &[f64], l_sum: f64, s: f64, ln_s: f64, p: f64) -> bool {
    let positive = |xi: f64, li: f64, over: bool| -> f64 {
        if p <= 1.0 {
            // M(x) = (x − L)/s exactly, avoiding the fixed-point detour.
            if over {
                (xi - li) / s
            } else {
                xi / s
            }
        } else {
            let grow = exp(-p * ln_s);
            if over {
                let f = li / l_sum;
                f + (xi - f) * grow
            } else {
                xi * grow
            }
        }
    };
    let ok = x
        .iter()
        .zip(limits)
        .all(|(&xi, &li)| positive(xi, li, xi > li) > 0.0);
    if ok {
        for (xi, &li) in x.iter_mut().zip(limits) {
            *xi = positive(*xi, li, *xi > li);
        }
    }
    ok
}

/// One DRS vector with default limits (builds the sampler; prefer [`Drs::new`] for many).
///
/// ```
/// let mut rng = schedlab_gen::rng::rng_for(1, 0);
/// let upper = [0.9, 0.2, 0.5, 0.5];
/// let u = schedlab_gen::util_vec::drs(&mut rng, 4, 1.5, &[], &upper).unwrap();
/// assert!(u.iter().zip(&upper).all(|(x, b)| x <= b));
/// assert!((u.iter().sum::<f64>() - 1.5).abs() < 1e-9);
/// ```
pub fn drs<R: RngCore + ?Sized>(
    rng: &mut R,
    n: usize,
    total: f64,
    lower: &[f64],
    upper: &[f64],
) -> Result<Vec<f64>, GenError> {
    Drs::new(n, total, lower, upper, DrsLimits::default())?.sample(rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::rng_for;

    #[test]
    fn respects_bounds_and_sum() {
        let mut rng = rng_for(31, 0);
        let lower = [0.05, 0.0, 0.1, 0.0, 0.2];
        let upper = [0.3, 0.9, 0.4, 1.0, 0.25];
        for _ in 0..500 {
            let u = drs(&mut rng, 5, 1.6, &lower, &upper).unwrap();
            assert!((u.iter().sum::<f64>() - 1.6).abs() < 1e-9);
            for i in 0..5 {
                assert!(u[i] >= lower[i] && u[i] <= upper[i], "{u:?}");
            }
        }
    }

    #[test]
    fn without_binding_bounds_it_is_uniform_on_the_simplex() {
        // Upper bounds ≥ U never bind: plain flat Dirichlet, E[u_i] = U/n.
        let mut rng = rng_for(32, 0);
        let runs = 4000;
        let mut mean = [0.0; 4];
        for _ in 0..runs {
            let u = drs(&mut rng, 4, 2.0, &[], &[]).unwrap();
            for (m, x) in mean.iter_mut().zip(&u) {
                *m += x / runs as f64;
            }
        }
        for m in mean {
            assert!((m - 0.5).abs() < 0.03, "{mean:?}");
        }
    }

    #[test]
    fn symmetric_cap_matches_randfixedsum_mean() {
        // Equal caps 0.6, n = 4, U = 2: by symmetry E[u_i] = 0.5, and the cap must bind
        // (unconstrained Dirichlet gives u_i > 0.6 with probability (1 − 0.3)^3 = 0.343).
        let mut rng = rng_for(33, 0);
        let runs = 3000;
        let mut mean = 0.0;
        for _ in 0..runs {
            let u = drs(&mut rng, 4, 2.0, &[], &[0.6; 4]).unwrap();
            assert!(u.iter().all(|&x| x <= 0.6));
            mean += u[2] / runs as f64;
        }
        assert!((mean - 0.5).abs() < 0.01, "{mean}");
    }

    #[test]
    fn degenerate_inputs_and_errors() {
        let mut rng = rng_for(34, 0);
        assert_eq!(
            drs(&mut rng, 3, 1.5, &[], &[0.5, 0.5, 0.5]).unwrap(),
            vec![0.5; 3]
        );
        assert_eq!(
            drs(&mut rng, 2, 0.3, &[0.1, 0.2], &[0.5, 0.5]).unwrap(),
            vec![0.1, 0.2]
        );
        let u = drs(&mut rng, 3, 0.9, &[0.1, 0.2, 0.3], &[0.1, 0.5, 0.3]).unwrap();
        assert!((u[1] - 0.5).abs() < 1e-12, "{u:?}");
        assert!(drs(&mut rng, 3, 2.0, &[], &[0.5; 3]).is_err());
        assert!(drs(&mut rng, 2, 0.5, &[0.4, 0.4], &[]).is_err());
        assert!(drs(&mut rng, 2, 0.5, &[0.4, 0.0], &[0.3, 1.0]).is_err());
        assert!(drs(&mut rng, 2, 0.5, &[0.4], &[]).is_err());
        assert!(drs(&mut rng, 0, 0.5, &[], &[]).is_err());
        assert_eq!(drs(&mut rng, 1, 0.5, &[], &[]).unwrap(), vec![0.5]);
    }
}
