//! Time/utility functions (TUFs) [ChronOS §3.4; Jensen, Locke, Tokuda 1985].
//!
//! A job of a task with TUF `V` that completes `e` after its release accrues `V(e)`; a job that
//! is aborted or never completes accrues nothing. ChronOS and most of its algorithms use only
//! the *downward step* (`V` until the deadline, then 0); LBESA [Locke 1986] accepts any
//! non-increasing TUF, so schedlab offers three shapes:
//!
//! | file | `V(e)` |
//! |---|---|
//! | `utility = V` or `tuf = {kind = "step", value = V}` | `V` for `e ≤ D`, else 0 |
//! | `tuf = {kind = "linear", value = V, zero_at = "30ms"}` | `V·(1 − e/zero_at)` for `e ≤ zero_at`, else 0 |
//! | `tuf = {kind = "points", points = [["0ms", V0], ["10ms", V1], …]}` | piecewise linear through the points; 0 after the last point (its termination time `TM` [§3.4]) |
//!
//! Every TUF is non-increasing in `e` (checked by [`Tuf::problem`]): a TUF that increases is
//! rejected, because the UA algorithms' value densities and the feasibility tests assume that
//! finishing earlier is never worse. Values are finite and ≥ 0. Evaluation is O(1) for step and
//! linear, O(log p) for `p` points.

use crate::time::Duration;

/// Most points a `points` TUF may have (input-controlled size bound).
pub const MAX_TUF_POINTS: usize = 1024;

/// A non-increasing time/utility function of the time since a job's release.
#[derive(Clone, Debug, PartialEq)]
pub enum Tuf {
    /// Downward step: `value` until the task's relative deadline, then 0.
    Step {
        /// The utility of a job that completes by its deadline.
        value: f64,
    },
    /// `value` at release, falling linearly to 0 at `zero_at` after release.
    Linear {
        /// The utility at release.
        value: f64,
        /// When the utility reaches 0 (> 0).
        zero_at: Duration,
    },
    /// Piecewise linear through `(time after release, value)` points: the first at 0,
    /// strictly increasing times, non-increasing values; 0 after the last point.
    Points(Vec<(Duration, f64)>),
}

impl Tuf {
    /// The utility of completing `elapsed` after release, for a task with relative deadline
    /// `deadline` (used by the step shape only).
    pub fn value_at(&self, elapsed: Duration, deadline: Duration) -> f64 {
        match self {
            Tuf::Step { value } => {
                if elapsed <= deadline {
                    *value
                } else {
                    0.0
                }
            }
            Tuf::Linear { value, zero_at } => {
                if elapsed >= *zero_at {
                    0.0
                } else {
                    let left = (zero_at.as_ns() - elapsed.as_ns()) as f64;
                    value * left / zero_at.as_ns() as f64
                }
            }
            Tuf::Points(points) => points_value(points, elapsed),
        }
    }

    /// The largest utility (at release).
    pub fn max_value(&self) -> f64 {
        match self {
            Tuf::Step { value } | Tuf::Linear { value, .. } => *value,
            Tuf::Points(points) => points.first().map_or(0.0, |p| p.1),
        }
    }

    /// The latest time after release at which completing still accrues utility (the
    /// *termination time* `TM` [§3.4] relative to release).
    pub fn termination(&self, deadline: Duration) -> Duration {
        match self {
            Tuf::Step { .. } => deadline,
            Tuf::Linear { zero_at, .. } => *zero_at,
            Tuf::Points(points) => points.last().map_or(Duration::ZERO, |p| p.0),
        }
    }

    /// Whether this is a downward step (the only shape most UA algorithms accept).
    pub fn is_step(&self) -> bool {
        matches!(self, Tuf::Step { .. })
    }

    /// What is wrong with this TUF, or `None`: a value that is not finite or below 0, a
    /// `zero_at` of 0, points that are empty, too many ([`MAX_TUF_POINTS`]), not starting at 0,
    /// not strictly increasing in time, or increasing in value. The caller names the task and
    /// the field.
    pub fn problem(&self) -> Option<String> {
        let bad_value = |v: f64| !(v.is_finite() && v >= 0.0);
        match self {
            Tuf::Step { value } if bad_value(*value) => {
                Some(format!("value must be a finite number ≥ 0, got {value}"))
            }
            Tuf::Step { .. } => None,
            Tuf::Linear { value, .. } if bad_value(*value) => {
                Some(format!("value must be a finite number ≥ 0, got {value}"))
            }
            Tuf::Linear { zero_at, .. } if zero_at.is_zero() => {
                Some("zero_at must be greater than zero".to_string())
            }
            Tuf::Linear { .. } => None,
            Tuf::Points(points) => points_problem(points),
        }
    }
}

fn points_problem(points: &[(Duration, f64)]) -> Option<String> {
    if points.is_empty() {
        return Some("points: give at least one point, e.g. [[\"0ms\", 10.0]]".to_string());
    }
    if points.len() > MAX_TUF_POINTS {
        return Some(format!(
            "points: {} points is more than the {MAX_TUF_POINTS} allowed",
            points.len()
        ));
    }
    if let Some((t, _)) = points.first().filter(|p| !p.0.is_zero()) {
        return Some(format!(
            "points: the first point must be at 0 (the release), not at {t}"
        ));
    }
    if let Some((k, (_, v))) = points
        .iter()
        .enumerate()
        .find(|(_, p)| !(p.1.is_finite() && p.1 >= 0.0))
    {
        return Some(format!(
            "points: point {k} has value {v}; values must be finite numbers ≥ 0"
        ));
    }
    for (k, w) in points.windows(2).enumerate() {
        let ((t0, v0), (t1, v1)) = (w[0], w[1]);
        if t1 <= t0 {
            return Some(format!(
                "points: times must strictly increase, but point {} is at {t1} after point {k} at {t0}",
                k + 1
            ));
        }
        if v1 > v0 {
            return Some(format!(
                "points: a TUF must not increase, but point {} ({v1} at {t1}) is above point {k} ({v0} at {t0})",
                k + 1
            ));
        }
    }
    None
}

fn points_value(points: &[(Duration, f64)], elapsed: Duration) -> f64 {
    // The last point at or before `elapsed`.
    let k = points.partition_point(|p| p.0 <= elapsed);
    let Some(&(t0, v0)) = k.checked_sub(1).and_then(|i| points.get(i)) else {
        return 0.0;
    };
    if t0 == elapsed {
        return v0;
    }
    match points.get(k) {
        // Past the last point: the termination time has passed.
        None => 0.0,
        Some(&(t1, v1)) => {
            let span = (t1.as_ns() - t0.as_ns()) as f64;
            let into = (elapsed.as_ns() - t0.as_ns()) as f64;
            v0 + (v1 - v0) * into / span
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_ns(v * 1_000_000)
    }

    #[test]
    fn shapes_evaluate_as_documented() {
        let step = Tuf::Step { value: 4.0 };
        assert_eq!(step.value_at(ms(10), ms(10)), 4.0);
        assert_eq!(step.value_at(ms(10) + Duration::from_ns(1), ms(10)), 0.0);
        let lin = Tuf::Linear {
            value: 10.0,
            zero_at: ms(30),
        };
        assert_eq!(lin.value_at(Duration::ZERO, ms(1)), 10.0);
        assert_eq!(lin.value_at(ms(15), ms(1)), 5.0);
        assert_eq!(lin.value_at(ms(30), ms(1)), 0.0);
        assert_eq!(lin.termination(ms(1)), ms(30));
        let pts = Tuf::Points(vec![(ms(0), 10.0), (ms(10), 10.0), (ms(20), 2.0)]);
        assert_eq!(pts.value_at(ms(5), ms(1)), 10.0);
        assert_eq!(pts.value_at(ms(15), ms(1)), 6.0);
        assert_eq!(pts.value_at(ms(20), ms(1)), 2.0);
        assert_eq!(pts.value_at(ms(21), ms(1)), 0.0);
        assert_eq!(pts.max_value(), 10.0);
        assert!(step.is_step() && !lin.is_step());
    }

    #[test]
    fn bad_tufs_are_named() {
        let rising = Tuf::Points(vec![(ms(0), 1.0), (ms(5), 2.0)]);
        assert_eq!(
            rising.problem().as_deref(),
            Some("points: a TUF must not increase, but point 1 (2 at 5ms) is above point 0 (1 at 0ns)")
        );
        assert!(Tuf::Points(vec![]).problem().is_some());
        assert!(Tuf::Points(vec![(ms(1), 1.0)]).problem().is_some());
        assert!(Tuf::Points(vec![(ms(0), 1.0), (ms(0), 1.0)])
            .problem()
            .is_some());
        assert!(Tuf::Step { value: -1.0 }.problem().is_some());
        assert!(Tuf::Step { value: f64::NAN }.problem().is_some());
        assert!(Tuf::Linear {
            value: 1.0,
            zero_at: Duration::ZERO
        }
        .problem()
        .is_some());
        assert!(Tuf::Linear {
            value: 1.0,
            zero_at: ms(1)
        }
        .problem()
        .is_none());
    }
}
