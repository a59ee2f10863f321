//! Utilization vectors: `n` task utilizations with a prescribed sum `U`.
//!
//! | method (string) | module | region sampled | rejection |
//! |---|---|---|---|
//! | `uunifast` | [`uunifast`](fn@uunifast) | `{Σu = U, u ≥ 0}` (values may exceed 1) | none |
//! | `uunifast-discard[:LO..HI]` | [`uunifast_discard`](fn@uunifast_discard) | `{Σu = U, LO ≤ u ≤ HI}` | whole vectors, bounded |
//! | `randfixedsum[:LO..HI]` | [`randfixedsum`](fn@randfixedsum) | `{Σu = U, LO ≤ u ≤ HI}` | none |
//! | `drs[:LO..HI]` | [`drs`](fn@drs) | `{Σu = U, lower_i ≤ u_i ≤ upper_i}` | retries on divergence, bounded |
//!
//! Bounds default to `[0, 1]`. All results sum to `U` within a few ulp per coordinate
//! (property-tested ≤ 1e-9; before any rounding to integer execution times) and respect their
//! bounds exactly.

mod drs;
mod randfixedsum;
mod uunifast;
mod uunifast_discard;

pub use self::drs::{drs, Drs, DrsLimits};
pub use self::randfixedsum::{randfixedsum, RandFixedSum, RFS_MAX_N};
pub use self::uunifast::uunifast;
pub use self::uunifast_discard::uunifast_discard;

use crate::error::GenError;
use crate::parse::parse_f64_range;
use rand_chacha::rand_core::RngCore;
use std::fmt;

/// How a fixed-sum utilization vector is drawn (see the module table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VecMethod {
    /// UUniFast (Bini & Buttazzo 2005): no bounds.
    UUniFast,
    /// UUniFast-Discard (Davis & Burns 2009): discard vectors with a value outside `[lo, hi]`.
    UUniFastDiscard {
        /// Smallest accepted value.
        lo: f64,
        /// Largest accepted value (the cap; 1 by default).
        hi: f64,
    },
    /// RandFixedSum (Stafford; Emberson, Stafford & Davis 2010): uniform on `[lo, hi]ⁿ ∩ Σ`.
    RandFixedSum {
        /// Lower bound of every value.
        lo: f64,
        /// Upper bound of every value.
        hi: f64,
    },
    /// Dirichlet-Rescale (Griffin, Bate & Davis 2020) with the same bounds for every task
    /// (per-task bounds: use [`Drs`] directly).
    Drs {
        /// Lower bound of every value.
        lo: f64,
        /// Upper bound of every value.
        hi: f64,
    },
}

/// Names accepted by [`VecMethod::parse`].
pub const VEC_METHOD_NAMES: [&str; 4] = ["uunifast", "uunifast-discard", "randfixedsum", "drs"];

impl VecMethod {
    /// Reads `uunifast`, `uunifast-discard`, `randfixedsum` or `drs`, the last three optionally
    /// followed by `:LO..HI` (default `0..1`).
    ///
    /// ```
    /// use schedlab_gen::util_vec::VecMethod;
    /// assert_eq!(VecMethod::parse("drs:0.01..0.5").unwrap(), VecMethod::Drs { lo: 0.01, hi: 0.5 });
    /// assert_eq!(VecMethod::parse("uunifast-discard").unwrap(),
    ///            VecMethod::UUniFastDiscard { lo: 0.0, hi: 1.0 });
    /// assert!(VecMethod::parse("uunifast:0..1").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<VecMethod, GenError> {
        const KIND: &str = "utilization-vector method";
        let s = text.trim();
        let (name, args) = match s.split_once(':') {
            Some((n, a)) => (n.trim(), Some(a.trim())),
            None => (s, None),
        };
        let (lo, hi) = match args {
            None => (0.0, 1.0),
            Some(a) => parse_f64_range(KIND, text, a)?,
        };
        match name.to_ascii_lowercase().as_str() {
            "uunifast" if args.is_none() => Ok(VecMethod::UUniFast),
            "uunifast" => Err(GenError::parse(
                KIND,
                text,
                args.unwrap_or(""),
                "uunifast takes no bounds (use uunifast-discard:LO..HI)",
            )),
            "uunifast-discard" => Ok(VecMethod::UUniFastDiscard { lo, hi }),
            "randfixedsum" => Ok(VecMethod::RandFixedSum { lo, hi }),
            "drs" => Ok(VecMethod::Drs { lo, hi }),
            _ => Err(GenError::parse(
                KIND,
                text,
                name,
                format!(
                    "unknown method; expected one of {}",
                    VEC_METHOD_NAMES.join(", ")
                ),
            )),
        }
    }

    /// Checks `(n, U)` for this method and prepares a sampler (tables are built once).
    pub fn prepare(&self, n: usize, total: f64, max_attempts: u64) -> Result<VecSampler, GenError> {
        let kind = match *self {
            VecMethod::UUniFast => {
                check_common(n, total)?;
                SamplerKind::UUniFast
            }
            VecMethod::UUniFastDiscard { lo, hi } => {
                check_bounds(n, total, lo, hi)?;
                SamplerKind::Discard { lo, hi }
            }
            VecMethod::RandFixedSum { lo, hi } => {
                SamplerKind::Rfs(RandFixedSum::new(n, total, lo, hi)?)
            }
            VecMethod::Drs { lo, hi } => {
                check_bounds(n, total, lo, hi)?;
                let limits = DrsLimits {
                    max_retries: max_attempts,
                    ..DrsLimits::default()
                };
                SamplerKind::Drs(Drs::new(n, total, &vec![lo; n], &vec![hi; n], limits)?)
            }
        };
        Ok(VecSampler {
            n,
            total,
            max_attempts,
            kind,
        })
    }
}

impl fmt::Display for VecMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VecMethod::UUniFast => write!(f, "uunifast"),
            VecMethod::UUniFastDiscard { lo, hi } => write!(f, "uunifast-discard:{lo}..{hi}"),
            VecMethod::RandFixedSum { lo, hi } => write!(f, "randfixedsum:{lo}..{hi}"),
            VecMethod::Drs { lo, hi } => write!(f, "drs:{lo}..{hi}"),
        }
    }
}

/// A prepared sampler from [`VecMethod::prepare`].
#[derive(Clone, Debug)]
pub struct VecSampler {
    n: usize,
    total: f64,
    max_attempts: u64,
    kind: SamplerKind,
}

#[derive(Clone, Debug)]
enum SamplerKind {
    UUniFast,
    Discard { lo: f64, hi: f64 },
    Rfs(RandFixedSum),
    Drs(Drs),
}

impl VecSampler {
    /// One vector of `n` utilizations summing to `U`.
    pub fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> Result<Vec<f64>, GenError> {
        match &self.kind {
            SamplerKind::UUniFast => {
                let mut out = vec![0.0; self.n];
                uunifast::fill(rng, self.total, &mut out);
                Ok(out)
            }
            SamplerKind::Discard { lo, hi } => {
                let mut out = vec![0.0; self.n];
                uunifast_discard::sample_into(
                    rng,
                    self.total,
                    *lo,
                    *hi,
                    self.max_attempts,
                    &mut out,
                )?;
                Ok(out)
            }
            SamplerKind::Rfs(r) => Ok(r.sample(rng)),
            SamplerKind::Drs(d) => d.sample(rng),
        }
    }
}

/// Relative tolerance used when comparing `U` with `n·lo`, `n·hi`, `Σbounds`.
pub(crate) fn tolerance(total: f64) -> f64 {
    1e-9 * total.abs().max(1.0)
}

/// `U` must be finite and ≥ 0.
pub(crate) fn check_total(n: usize, total: f64) -> Result<(), GenError> {
    if n == 0 {
        return Err(GenError::invalid(
            "n",
            "the number of tasks must be at least 1",
        ));
    }
    if !(total.is_finite() && total >= 0.0) {
        return Err(GenError::invalid(
            "total utilization",
            format!("must be a finite number ≥ 0, got {total}"),
        ));
    }
    Ok(())
}

/// `n ≥ 1` and a valid `U`.
pub(crate) fn check_common(n: usize, total: f64) -> Result<(), GenError> {
    check_total(n, total)
}

/// `n ≥ 1`, valid `U`, `0 ≤ lo ≤ hi` finite, `n·lo ≤ U ≤ n·hi` (within [`tolerance`]).
pub(crate) fn check_bounds(n: usize, total: f64, lo: f64, hi: f64) -> Result<(), GenError> {
    check_total(n, total)?;
    if !(lo.is_finite() && hi.is_finite() && lo >= 0.0) {
        return Err(GenError::invalid(
            "bounds",
            format!("[{lo}, {hi}] must be finite with lower bound ≥ 0"),
        ));
    }
    if lo > hi {
        return Err(GenError::invalid(
            "bounds",
            format!("lower bound {lo} exceeds upper bound {hi}"),
        ));
    }
    let nf = n as f64;
    let tol = tolerance(total);
    if total > nf * hi + tol {
        return Err(GenError::invalid(
            "total utilization",
            format!("{total} exceeds n·hi = {n}·{hi} = {}", nf * hi),
        ));
    }
    if total < nf * lo - tol {
        return Err(GenError::invalid(
            "total utilization",
            format!("{total} is below n·lo = {n}·{lo} = {}", nf * lo),
        ));
    }
    Ok(())
}

/// Removes floating-point residue: clamps every value into `[lo(i), hi(i)]`, then spreads
/// `total − Σu` over the coordinates in proportion to their slack towards the bound in that
/// direction. Moves values by at most the residue (tiny), keeps them in bounds.
pub(crate) fn fix_sum(
    u: &mut [f64],
    total: f64,
    lo: impl Fn(usize) -> f64,
    hi: impl Fn(usize) -> f64,
) {
    for (i, v) in u.iter_mut().enumerate() {
        *v = v.clamp(lo(i), hi(i).max(lo(i)));
    }
    for _ in 0..2 {
        let residue = total - u.iter().sum::<f64>();
        if residue == 0.0 {
            return;
        }
        let slack = |i: usize, v: f64| if residue > 0.0 { hi(i) - v } else { v - lo(i) };
        let total_slack: f64 = u.iter().enumerate().map(|(i, &v)| slack(i, v)).sum();
        if total_slack.is_nan() || total_slack <= 0.0 {
            return;
        }
        let share = residue / total_slack;
        for (i, v) in u.iter_mut().enumerate() {
            *v = (*v + share * slack(i, *v)).clamp(lo(i), hi(i).max(lo(i)));
        }
    }
}

#[cfg(test)]
mod tests;
