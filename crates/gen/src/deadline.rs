//! Relative deadlines and integer execution times.
//!
//! Deadlines (`DeadlineSpec::parse`): `implicit` (`D = T`), `constrained` (`D` uniform over
//! the integers in `[C, T]`, inclusive), `arbitrary` (`D` uniform over the integers in
//! `[C, 2T − C]`, i.e. SchedCAT's `uni-arbitrary` slack `C + U(0, 2)·(T − C)` on whole
//! nanoseconds). SchedCAT (`generator/tasksets.py`, `uniform_slack`) draws the constrained
//! deadline as a real number and truncates; here it is an exact integer draw.
//!
//! Execution times (`Rounding`): `C = max(1, ⌊u·T⌋)` by default (SchedCAT's `trunc`), or
//! round-to-nearest or ceiling, always clamped to `1 ≤ C ≤ T` so that a generated task never
//! has `C > D` (the clamp only acts when `u > 1`, which only plain UUniFast can produce, or
//! when rounding up reaches past `T`). The realised utilization `C/T` therefore differs from
//! the drawn `u` by less than `1/T` (floor, ceil) or `1/(2T)` (nearest), except for clamped
//! tasks. O(1) each.

use crate::error::GenError;
use crate::rng::between;
use rand_chacha::rand_core::RngCore;
use std::fmt;

/// How relative deadlines are chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeadlineSpec {
    /// `D = T`.
    #[default]
    Implicit,
    /// `D` uniform over the integers in `[C, T]`.
    Constrained,
    /// `D` uniform over the integers in `[C, 2T − C]`.
    Arbitrary,
}

impl DeadlineSpec {
    /// Reads `implicit`, `constrained` or `arbitrary`.
    pub fn parse(text: &str) -> Result<DeadlineSpec, GenError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "implicit" => Ok(DeadlineSpec::Implicit),
            "constrained" => Ok(DeadlineSpec::Constrained),
            "arbitrary" => Ok(DeadlineSpec::Arbitrary),
            other => Err(GenError::parse(
                "deadline kind",
                text,
                other,
                "expected implicit, constrained or arbitrary",
            )),
        }
    }

    /// A deadline for a task with `1 ≤ c ≤ t` (draws nothing for `Implicit`).
    pub fn sample<R: RngCore + ?Sized>(&self, rng: &mut R, c: u64, t: u64) -> u64 {
        match self {
            DeadlineSpec::Implicit => t,
            DeadlineSpec::Constrained => between(rng, c, t.max(c)),
            DeadlineSpec::Arbitrary => {
                let hi = t.saturating_mul(2).saturating_sub(c).max(c);
                between(rng, c, hi)
            }
        }
    }
}

impl fmt::Display for DeadlineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeadlineSpec::Implicit => "implicit",
            DeadlineSpec::Constrained => "constrained",
            DeadlineSpec::Arbitrary => "arbitrary",
        })
    }
}

/// How `u·T` becomes an integer execution time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rounding {
    /// `⌊u·T⌋` (default; SchedCAT's `trunc`).
    #[default]
    Floor,
    /// Nearest integer (ties away from zero).
    Nearest,
    /// `⌈u·T⌉`.
    Ceil,
}

impl Rounding {
    /// Reads `floor`, `nearest` or `ceil`.
    pub fn parse(text: &str) -> Result<Rounding, GenError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "floor" => Ok(Rounding::Floor),
            "nearest" | "round" => Ok(Rounding::Nearest),
            "ceil" => Ok(Rounding::Ceil),
            other => Err(GenError::parse(
                "rounding",
                text,
                other,
                "expected floor, nearest or ceil",
            )),
        }
    }

    /// `C` for utilization `u` and period `t ≥ 1`: rounded, then clamped to `[1, t]`.
    ///
    /// ```
    /// use schedlab_gen::Rounding;
    /// assert_eq!(Rounding::Floor.wcet(0.25, 10), 2);
    /// assert_eq!(Rounding::Nearest.wcet(0.25, 10), 3);
    /// assert_eq!(Rounding::Ceil.wcet(0.21, 10), 3);
    /// assert_eq!(Rounding::Floor.wcet(0.01, 10), 1);  // never 0
    /// assert_eq!(Rounding::Floor.wcet(1.7, 10), 10);  // never above T
    /// ```
    pub fn wcet(&self, u: f64, t: u64) -> u64 {
        let x = u * t as f64;
        let r = match self {
            Rounding::Floor => x.floor(),
            Rounding::Nearest => x.round(),
            Rounding::Ceil => x.ceil(),
        };
        // `as` saturates (NaN → 0), so this cannot panic; the clamp restores 1 ≤ C ≤ T.
        (r as u64).clamp(1, t.max(1))
    }
}

impl fmt::Display for Rounding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rounding::Floor => "floor",
            Rounding::Nearest => "nearest",
            Rounding::Ceil => "ceil",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::rng_for;

    #[test]
    fn constrained_deadlines_cover_c_to_t_inclusive() {
        let mut rng = rng_for(61, 0);
        let (mut saw_c, mut saw_t) = (false, false);
        for _ in 0..2000 {
            let d = DeadlineSpec::Constrained.sample(&mut rng, 3, 7);
            assert!((3..=7).contains(&d));
            saw_c |= d == 3;
            saw_t |= d == 7;
        }
        assert!(saw_c && saw_t);
        assert_eq!(DeadlineSpec::Implicit.sample(&mut rng, 3, 7), 7);
        let d = DeadlineSpec::Arbitrary.sample(&mut rng, 3, 7);
        assert!((3..=11).contains(&d));
        assert_eq!(DeadlineSpec::Constrained.sample(&mut rng, 5, 5), 5);
    }

    #[test]
    fn parse_round_trip() {
        for d in [
            DeadlineSpec::Implicit,
            DeadlineSpec::Constrained,
            DeadlineSpec::Arbitrary,
        ] {
            assert_eq!(DeadlineSpec::parse(&d.to_string()).unwrap(), d);
        }
        for r in [Rounding::Floor, Rounding::Nearest, Rounding::Ceil] {
            assert_eq!(Rounding::parse(&r.to_string()).unwrap(), r);
        }
        assert!(DeadlineSpec::parse("soft").is_err());
        assert!(Rounding::parse("up").is_err());
    }

    #[test]
    fn wcet_edge_cases() {
        assert_eq!(Rounding::Floor.wcet(f64::NAN, 10), 1);
        assert_eq!(Rounding::Ceil.wcet(1.0, 10), 10);
        assert_eq!(Rounding::Floor.wcet(0.5, u64::MAX), u64::MAX / 2 + 1);
        assert_eq!(Rounding::Floor.wcet(0.0, 1), 1);
    }
}
