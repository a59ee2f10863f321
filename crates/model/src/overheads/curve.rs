//! Overhead curves: points `(x, value_ns)` evaluated piecewise-linearly on their running
//! maximum, with integer arithmetic.
//!
//! LITMUS^RT overhead studies (e.g. [MP §IV], Figs. 6–7) fit each overhead as a monotone
//! non-decreasing function of the number of tasks, and CPMD grows with the working-set size
//! [RTPS §VI-B, Table II]. A measured curve need not be monotone (noise), so evaluation uses the
//! running maximum `y'_i = max(y_0, …, y_i)`: a larger input never yields a smaller overhead.
//! Then, for `x`:
//! - below the first point: `y'_0`;
//! - between points `i` and `i+1`: `y'_i + ⌈(x − x_i)(y'_{i+1} − y'_i) / (x_{i+1} − x_i)⌉`;
//! - beyond the last point: the last segment extended (conservative for overheads that keep
//!   growing; one point = a constant);
//!
//! rounded up to whole nanoseconds, exact in `u128`, saturating at `u64::MAX` (no panic on any
//! `x`). `O(log k)` per evaluation for `k` points.

use std::fmt;

/// The largest x or value a point may have: TOML integers are signed 64-bit, and a file the
/// writer emits must read back.
pub const MAX_POINT: u64 = i64::MAX as u64;

/// A validated curve: at least one point, `x` strictly increasing, every coordinate in
/// `0..=MAX_POINT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Curve {
    points: Vec<(u64, u64)>,
    /// Running maximum of the values (same length as `points`).
    mono: Vec<u64>,
}

/// Why a list of points is not a curve (the caller adds where it is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CurveError(pub String);

impl fmt::Display for CurveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Curve {
    /// A curve through `points` (`(x, value_ns)`), checked.
    pub fn new(points: Vec<(u64, u64)>) -> Result<Curve, CurveError> {
        if points.is_empty() {
            return Err(CurveError("needs at least one point".into()));
        }
        for (i, &(x, y)) in points.iter().enumerate() {
            if x > MAX_POINT || y > MAX_POINT {
                return Err(CurveError(format!(
                    "point {i}: coordinates must be at most {MAX_POINT} (TOML integers are signed 64-bit)"
                )));
            }
            if i > 0 && points[i - 1].0 >= x {
                return Err(CurveError(format!(
                    "x must be strictly increasing (point {i}: {x} after {})",
                    points[i - 1].0
                )));
            }
        }
        let mut mono = Vec::with_capacity(points.len());
        let mut best = 0;
        for &(_, y) in &points {
            best = best.max(y);
            mono.push(best);
        }
        Ok(Curve { points, mono })
    }

    /// A constant curve (one point at x = 0).
    pub fn constant(value_ns: u64) -> Result<Curve, CurveError> {
        Curve::new(vec![(0, value_ns)])
    }

    /// The points as given.
    pub fn points(&self) -> &[(u64, u64)] {
        &self.points
    }

    /// The value at `x` in ns (see the module doc), rounded up, saturating at `u64::MAX`.
    pub fn eval(&self, x: u64) -> u64 {
        let n = self.points.len();
        let (Some(&(x0, _)), Some(&y0)) = (self.points.first(), self.mono.first()) else {
            return 0; // unreachable: `new` rejects empty curves
        };
        if n == 1 || x <= x0 {
            return y0;
        }
        // The segment [i, i+1] that contains x, or the last one when x is beyond the end.
        let i = match self.points.binary_search_by_key(&x, |p| p.0) {
            Ok(k) => return self.mono.get(k).copied().unwrap_or(y0),
            Err(k) => k.saturating_sub(1).min(n - 2),
        };
        let (Some(&(xa, _)), Some(&(xb, _)), Some(&ya), Some(&yb)) = (
            self.points.get(i),
            self.points.get(i + 1),
            self.mono.get(i),
            self.mono.get(i + 1),
        ) else {
            return y0;
        };
        let dx = u128::from(xb - xa);
        let dy = u128::from(yb - ya);
        let num = u128::from(x - xa) * dy;
        let rise = num.div_ceil(dx);
        u64::try_from(u128::from(ya) + rise).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(p: &[(u64, u64)]) -> Curve {
        Curve::new(p.to_vec()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn interpolates_and_rounds_up() {
        // (2, 3100) → (100, 4200): slope 1100/98; at 51: 3100 + ⌈49·1100/98⌉ = 3100 + 550.
        let k = c(&[(2, 3100), (100, 4200)]);
        assert_eq!(k.eval(0), 3100);
        assert_eq!(k.eval(2), 3100);
        assert_eq!(k.eval(51), 3650);
        // at 3: ⌈1100/98⌉ = ⌈11.22⌉ = 12.
        assert_eq!(k.eval(3), 3112);
        assert_eq!(k.eval(100), 4200);
        // beyond: the last segment extended: at 198, 4200 + ⌈98·1100/98⌉ = 5300.
        assert_eq!(k.eval(198), 5300);
    }

    #[test]
    fn constant_and_running_maximum() {
        assert_eq!(c(&[(5, 900)]).eval(0), 900);
        assert_eq!(c(&[(5, 900)]).eval(u64::MAX), 900);
        // (0,10), (10,30), (20,20), (30,40) → running max 10, 30, 30, 40.
        let k = c(&[(0, 10), (10, 30), (20, 20), (30, 40)]);
        assert_eq!(k.eval(15), 30);
        assert_eq!(k.eval(25), 35);
        // beyond 30: slope (40−30)/10 = 1.
        assert_eq!(k.eval(130), 140);
    }

    #[test]
    fn huge_inputs_saturate() {
        let k = c(&[(0, 0), (1, MAX_POINT)]);
        assert_eq!(k.eval(u64::MAX), u64::MAX);
        assert_eq!(k.eval(1), MAX_POINT);
    }

    #[test]
    fn rejects_bad_points() {
        assert!(Curve::new(vec![]).is_err());
        let e = Curve::new(vec![(2, 1), (2, 3)]).unwrap_err();
        assert_eq!(e.0, "x must be strictly increasing (point 1: 2 after 2)");
        assert!(Curve::new(vec![(u64::MAX, 1)]).is_err());
    }
}
