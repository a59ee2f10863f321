//! RandFixedSum: a vector uniform over `{u ∈ ℝⁿ : Σu = U, a ≤ u_i ≤ b}`, without rejection.
//!
//! R. Stafford, "Random vectors with fixed sum" (MATLAB Central File Exchange #9700, 2006),
//! as used for task sets by Emberson, Stafford & Davis, "Techniques for the synthesis of
//! multiprocessor tasksets", WATERS 2010, §3.
//!
//! The method, written here from its description: rescale to the unit cube,
//! `s = (U − n·a)/(b − a)`. The polytope `{Σx = s, 0 ≤ x ≤ 1}` is cut by the hyperplanes
//! `x_1+…+x_i ∈ ℤ` into simplices; a table `w[i][j]` (built bottom-up, O(n²)) holds the
//! relative volume of the `i`-dimensional slices with `j` whole units below the sum, and
//! `t[i][j]` the probability of stepping down one unit when going from dimension `i+1` to `i`.
//! A draw walks the table from the top: at each level a uniform `r` picks the transition
//! (`r ≤ t`) and a second uniform `ρ^(1/i)` the position inside the chosen simplex
//! (accumulated as a running sum `sm` and product `pr`). The coordinates come out in a fixed
//! order, so they are randomly permuted, then mapped back with `u = a + (b − a)·x`.
//! Stafford scales `w` by `realmax` (largest double) so that the volumes, which shrink like
//! 1/n!, stay representable; `tiny` (smallest subnormal) avoids 0/0. Both are kept here.
//!
//! Bounds are the same `[a, b]` for every coordinate (Stafford's algorithm does not take
//! per-coordinate bounds; use [`crate::util_vec::drs`] for those).
//!
//! Assumptions: `n ≥ 1`, `0 ≤ a ≤ b`, `n·a ≤ U ≤ n·b` (a relative tolerance of 1e-9 absorbs
//! rounding in `n·b`; `U` is then clamped into the range). `a = b` gives the single point.
//! Floating-point rounding can leave coordinates a few ulp outside `[a, b]` and the sum a few
//! ulp off; both are repaired (clamp, then proportional spreading of the residual over the
//! slack), which keeps `|Σu − U|` at a few ulp per coordinate and every value in `[a, b]`.
//!
//! Complexity: table O(n²) time and memory once per `(n, U, a, b)` ([`RandFixedSum::new`];
//! `n ≤` [`RFS_MAX_N`]);
//! each draw O(n) time, 2(n−1) + (n−1) random words, no allocation beyond the output.

use super::{check_bounds, fix_sum};
use crate::detmath::powf;
use crate::error::GenError;
use crate::rng::{shuffle, unit_open};
use rand_chacha::rand_core::RngCore;

/// Largest `n` accepted by RandFixedSum: the transition table has `n²` f64 entries
/// (4096² · 8 B = 128 MiB; at the generators' 100,000 tasks it would be 80 GB). Every path to
/// the table goes through [`RandFixedSum::new`], which checks this first. The table cannot be
/// cut to O(n): a draw walks its rows from the top while they are built from the bottom, and
/// the columns it may reach form a band whose width grows with `min(k, n − k)`, so only a
/// constant factor could be saved. DRS draws with O(n) memory and has no such limit.
pub const RFS_MAX_N: usize = 4096;

/// A prepared RandFixedSum sampler for fixed `(n, U, a, b)`: the transition table is built once.
#[derive(Clone, Debug)]
pub struct RandFixedSum {
    n: usize,
    lo: f64,
    width: f64,
    /// Sum in unit-cube coordinates, clamped to `[k, k+1]`.
    s: f64,
    /// Index of the unit slab holding `s`: `k = clamp(⌊s⌋, 0, n−1)`.
    k: usize,
    /// `t[(i−1)·n + (j−1)]` for 1 ≤ i ≤ n−1, 1 ≤ j ≤ i+1 (Stafford's 1-based `t(i, j)`).
    t: Vec<f64>,
    total: f64,
}

impl RandFixedSum {
    /// Prepares the sampler; checks the parameters.
    pub fn new(n: usize, total: f64, lo: f64, hi: f64) -> Result<RandFixedSum, GenError> {
        if n > RFS_MAX_N {
            return Err(GenError::invalid(
                "n",
                format!(
                    "randfixedsum supports at most {RFS_MAX_N} tasks, got {n} (its table has \
                     n² entries); use drs, which needs memory linear in n"
                ),
            ));
        }
        check_bounds(n, total, lo, hi)?;
        let width = hi - lo;
        let nf = n as f64;
        let mut s = if width > 0.0 {
            (total - nf * lo) / width
        } else {
            0.0
        };
        let k = (s.floor().max(0.0) as usize).min(n - 1);
        s = s.clamp(k as f64, k as f64 + 1.0);
        let t = if width > 0.0 {
            table(n, k, s)
        } else {
            Vec::new()
        };
        Ok(RandFixedSum {
            n,
            lo,
            width,
            s,
            k,
            t,
            total,
        })
    }

    /// Number of coordinates.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Always false (`n ≥ 1` is checked by [`RandFixedSum::new`]).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// One vector.
    pub fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        let n = self.n;
        let mut x = vec![self.lo; n];
        if self.width <= 0.0 {
            return x;
        }
        let mut s = self.s;
        let mut j = self.k + 1; // 1-based column in t
        let (mut sm, mut pr) = (0.0f64, 1.0f64);
        for (slot, i) in x.iter_mut().zip((1..n).rev()) {
            // Transition: step down one unit with probability t(i, j).
            let tij = self.t.get((i - 1) * n + (j - 1)).copied().unwrap_or(0.0);
            let e = if unit_open(rng) <= tij { 1.0 } else { 0.0 };
            let sx = powf(unit_open(rng), 1.0 / i as f64);
            sm += (1.0 - sx) * pr * s / (i as f64 + 1.0);
            pr *= sx;
            *slot = sm + pr * e;
            if e > 0.0 {
                s -= 1.0;
                j = j.saturating_sub(1).max(1);
            }
        }
        if let Some(last) = x.last_mut() {
            *last = sm + pr * s;
        }
        shuffle(rng, &mut x);
        let (lo, width) = (self.lo, self.width);
        for v in &mut x {
            *v = lo + width * *v;
        }
        fix_sum(&mut x, self.total, |_| lo, |_| lo + width);
        x
    }
}

/// Stafford's transition table `t` for dimension `n`, slab `k`, unit-cube sum `s`.
fn table(n: usize, k: usize, s: f64) -> Vec<f64> {
    let kf = k as f64;
    // s1[j] = s − k + j and s2[j] = k + n − j − s (0-based j); both ≥ 0.
    let s1 = |j: usize| s - kf + j as f64;
    let s2 = |j: usize| kf + (n - j) as f64 - s;
    let tiny = f64::from_bits(1); // 2^-1074
    let mut t = vec![0.0; n.saturating_sub(1) * n];
    // w rows: prev = w(i−1, ·), cur = w(i, ·), 1-based columns 1..=n+1 stored at 0..=n.
    let mut prev = vec![0.0; n + 1];
    let mut cur = vec![0.0; n + 1];
    if let Some(w12) = prev.get_mut(1) {
        *w12 = f64::MAX;
    }
    for i in 2..=n {
        let fi = i as f64;
        cur.iter_mut().for_each(|c| *c = 0.0);
        for c in 1..=i {
            // 1-based: tmp1 = w(i−1, c+1)·s1(c)/i, tmp2 = w(i−1, c)·s2(n−i+c)/i.
            let a1 = s1(c - 1);
            let a2 = s2(n - i + c - 1);
            let tmp1 = prev.get(c).copied().unwrap_or(0.0) * a1 / fi;
            let tmp2 = prev.get(c - 1).copied().unwrap_or(0.0) * a2 / fi;
            let w = tmp1 + tmp2;
            if let Some(slot) = cur.get_mut(c) {
                *slot = w;
            }
            let tmp3 = w + tiny;
            let tv = if a2 > a1 {
                tmp2 / tmp3
            } else {
                1.0 - tmp1 / tmp3
            };
            if let Some(slot) = t.get_mut((i - 2) * n + (c - 1)) {
                *slot = tv;
            }
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    t
}

/// One RandFixedSum vector (builds the table; prefer [`RandFixedSum::new`] for many draws).
///
/// ```
/// let mut rng = schedlab_gen::rng::rng_for(1, 0);
/// let u = schedlab_gen::util_vec::randfixedsum(&mut rng, 10, 4.0, 0.1, 0.6).unwrap();
/// assert!(u.iter().all(|&x| (0.1..=0.6).contains(&x)));
/// assert!((u.iter().sum::<f64>() - 4.0).abs() < 1e-9);
/// ```
pub fn randfixedsum<R: RngCore + ?Sized>(
    rng: &mut R,
    n: usize,
    total: f64,
    lo: f64,
    hi: f64,
) -> Result<Vec<f64>, GenError> {
    Ok(RandFixedSum::new(n, total, lo, hi)?.sample(rng))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::rng_for;

    #[test]
    fn uniform_marginals_match_theory() {
        // n = 3, Σ = 1.5, bounds [0, 1]: the region is a regular hexagon, symmetric under
        // x ↦ 1 − x, so each coordinate has mean 0.5 and takes values all over [0, 1].
        let rfs = RandFixedSum::new(3, 1.5, 0.0, 1.0).unwrap();
        let mut rng = rng_for(21, 0);
        let (mut mean, mut min, mut max) = (0.0, 1.0f64, 0.0f64);
        let runs = 6000;
        for _ in 0..runs {
            let u = rfs.sample(&mut rng);
            assert!((u.iter().sum::<f64>() - 1.5).abs() < 1e-12);
            mean += u[0] / runs as f64;
            min = min.min(u[0]);
            max = max.max(u[0]);
        }
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        assert!(min < 0.02 && max > 0.98, "{min} {max}");
        // Marginal density of u_1 on the hexagon: ∝ 0.5 + x on [0, 0.5], ∝ 1.5 − x on
        // [0.5, 1] (the length of {u_2 + u_3 = 1.5 − x} ∩ [0,1]²); total mass 0.75, so
        // P(u_1 < 0.25) = (0.125 + 0.03125)/0.75 = 0.2083 (0.25 if it were uniform on [0,1]).
        let low = (0..runs).filter(|_| rfs.sample(&mut rng)[0] < 0.25).count() as f64 / runs as f64;
        assert!((low - 0.2083).abs() < 0.02, "{low}");
    }

    #[test]
    fn two_dimensional_case_is_uniform_on_the_segment() {
        // n = 2, Σ = 1.2, [0, 1]: u_1 is uniform on [0.2, 1] (the segment x + y = 1.2 in the
        // unit square), so its mean is 0.6 and P(u_1 < 0.4) = 0.2/0.8 = 0.25.
        let rfs = RandFixedSum::new(2, 1.2, 0.0, 1.0).unwrap();
        let mut rng = rng_for(22, 0);
        let runs = 8000;
        let (mut mean, mut below) = (0.0, 0usize);
        for _ in 0..runs {
            let u = rfs.sample(&mut rng);
            assert!(u[0] >= 0.2 - 1e-12 && u[0] <= 1.0);
            mean += u[0] / runs as f64;
            below += usize::from(u[0] < 0.4);
        }
        assert!((mean - 0.6).abs() < 0.01, "{mean}");
        let p = below as f64 / runs as f64;
        assert!((p - 0.25).abs() < 0.02, "{p}");
    }

    #[test]
    fn degenerate_and_invalid() {
        let mut rng = rng_for(1, 0);
        assert_eq!(
            randfixedsum(&mut rng, 3, 1.5, 0.5, 0.5).unwrap(),
            vec![0.5; 3]
        );
        let full = randfixedsum(&mut rng, 4, 4.0, 0.0, 1.0).unwrap();
        assert!(full.iter().all(|&x| (x - 1.0).abs() < 1e-12), "{full:?}");
        assert!(randfixedsum(&mut rng, 4, 4.1, 0.0, 1.0).is_err());
        assert!(randfixedsum(&mut rng, 4, 1.0, 0.5, 0.4).is_err());
        assert!(randfixedsum(&mut rng, 0, 1.0, 0.0, 1.0).is_err());
        assert!(randfixedsum(&mut rng, 4, 0.1, 0.1, 1.0).is_err());
        assert_eq!(randfixedsum(&mut rng, 1, 0.3, 0.0, 1.0).unwrap(), vec![0.3]);
    }
}
