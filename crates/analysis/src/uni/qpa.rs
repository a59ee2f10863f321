//! Processor-demand analysis for uniprocessor EDF with Quick convergence Processor-demand
//! Analysis (QPA).
//!
//! Zhang, F. and Burns, A., "Schedulability Analysis for Real-Time Systems with EDF
//! Scheduling", IEEE Transactions on Computers 58(9), 2009. A sporadic task set with `U ≤ 1` is
//! EDF-schedulable on one CPU iff `h(t) ≤ t` for every absolute deadline `t < L`, where
//! `h(t) = Σ_{Dᵢ ≤ t} (⌊(t − Dᵢ)/Tᵢ⌋ + 1)·Cᵢ` is the demand bound (Eq. (1) of the paper) and
//! `L` is any bound on the first deadline miss; QPA (Theorem 5 / Algorithm 1 of the paper)
//! walks the deadlines backwards from `L`, jumping to `h(t)` whenever `h(t) < t`.
//!
//! Testing bound `L = min(L_a, L_b)`:
//! * `L_b`: the synchronous busy period, the least fixed point of `w = Σ ⌈w/Tᵢ⌉·Cᵢ` (Eq. (6)
//!   of the paper); valid for `U ≤ 1`, hence the only bound for `U = 1` exactly.
//! * `L_a` (for `U < 1`): `max{max(Dᵢ − Tᵢ), Σ(Tᵢ − Dᵢ)·Uᵢ/(1 − U)}` (Baruah, Rosier & Howell,
//!   Real-Time Systems 2(4), 1990). Zhang & Burns state it (Eq. (4)) with `max{D₁, …, Dₙ, …}`,
//!   which is never smaller; SchedCAT (`native/src/edf/qpa.cpp`, `zhang_burns_interval`) uses
//!   `Dᵢ − Tᵢ` as here. Both are valid bounds, so the verdict is the same; the smaller one just
//!   tests fewer points. Derivation: for `t ≥ max(Dᵢ − Tᵢ)`, `h(t) ≤ t·U + Σ(Tᵢ − Dᵢ)Uᵢ`, so
//!   `h(t) > t` forces `t < Σ(Tᵢ − Dᵢ)Uᵢ/(1 − U)`. We need only an *upper* bound on `L_a`, so it
//!   is computed in floating point rounded upwards with a rigorous error margin (negative terms
//!   of tasks with `D > T` dropped), and skipped when `1 − U` is too small to certify.
//!
//! Integer time: deadlines are integers and `h(t) > t` implies `t < L`, so the test points are
//! the deadlines `d < L` (as SchedCAT's `get_largest_testpoint`).
//!
//! Complexity: pseudo-polynomial; each QPA step and each busy-period iteration costs `O(n)`.
//! Work limit: the number of QPA steps plus busy-period iterations (default
//! [`DEFAULT_LIMIT`]); reaching it answers "gave up".

use super::Outcome;
use crate::system::Params;

/// Default work limit: QPA steps plus busy-period iterations per analysis.
pub const DEFAULT_LIMIT: u64 = 10_000_000;

/// `h(t) = Σ_{Dᵢ ≤ t} (⌊(t − Dᵢ)/Tᵢ⌋ + 1)·Cᵢ` (Zhang & Burns Eq. (1)), saturating.
pub fn demand(params: &[Params], t: u128) -> u128 {
    let mut h: u128 = 0;
    if let Ok(t64) = u64::try_from(t) {
        // Fast path: 64-bit divisions.
        for p in params {
            if p.d <= t64 {
                let jobs = u128::from((t64 - p.d) / p.t) + 1;
                h = h.saturating_add(jobs.saturating_mul(u128::from(p.c)));
            }
        }
    } else {
        for p in params {
            let d = u128::from(p.d);
            if d <= t {
                let jobs = (t - d) / u128::from(p.t) + 1;
                h = h.saturating_add(jobs.saturating_mul(u128::from(p.c)));
            }
        }
    }
    h
}

/// The largest absolute deadline `Dᵢ + k·Tᵢ` strictly below `t`, if any.
pub fn largest_deadline_below(params: &[Params], t: u128) -> Option<u128> {
    let mut best: Option<u128> = None;
    for p in params {
        let d = u128::from(p.d);
        if d < t {
            let k = (t - 1 - d) / u128::from(p.t);
            let dl = d + k * u128::from(p.t);
            best = Some(best.map_or(dl, |b| b.max(dl)));
        }
    }
    best
}

/// An integer upper bound on `L_a` (see the module doc), or `None` when `1 − U` cannot be
/// certified positive in floating point (then only the busy period is used).
pub fn la_upper_bound(params: &[Params]) -> Option<u128> {
    let n = params.len() as f64;
    let mut scaled = 0.0f64; // Σ max(0, T − D)·C/T
    let mut util = 0.0f64; // Σ C/T
    let mut max_excess: u64 = 0; // max(D − T)
    for p in params {
        util += p.c as f64 / p.t as f64;
        if p.t > p.d {
            scaled += (p.t - p.d) as f64 * p.c as f64 / p.t as f64;
        }
        max_excess = max_excess.max(p.d.saturating_sub(p.t));
    }
    // Each term has ≤ 5 roundings (two conversions of values that may exceed 2^53, a product
    // and a quotient), the sums ≤ n more: relative error ≤ (n + 5)·2^-53 ≪ 4(n + 8)·2^-52.
    let rel = 4.0 * (n + 8.0) * f64::EPSILON;
    let scaled_up = scaled * (1.0 + rel) + f64::MIN_POSITIVE;
    let util_up = util * (1.0 + rel);
    let slack_lo = (1.0 - util_up) - 2.0 * f64::EPSILON;
    if slack_lo <= 0.0 {
        return None;
    }
    let x = scaled_up / slack_lo * (1.0 + 4.0 * f64::EPSILON);
    if !(x.is_finite() && x < 1e36) {
        return None;
    }
    let la = x.ceil() as u128 + 1;
    Some(la.max(u128::from(max_excess)))
}

use crate::util::budget::Budget;

/// One step against the budget, or the "gave up" outcome.
fn step(budget: &mut Budget) -> Result<(), Outcome> {
    if budget.step() {
        Ok(())
    } else {
        Err(Outcome::GaveUp(format!(
            "EDF processor-demand analysis reached its work limit of {} steps \
             (QPA steps + busy-period iterations)",
            budget.limit
        )))
    }
}

/// The synchronous busy period (least fixed point of `w = Σ ⌈w/Tᵢ⌉·Cᵢ`, Zhang & Burns
/// Eq. (6)), or `cap` as soon as the iteration reaches it (then `min(L_a, L_b) = cap`).
/// Assumes `U ≤ 1` so that the iteration converges.
fn busy_period(params: &[Params], cap: Option<u128>, budget: &mut Budget) -> Result<u128, Outcome> {
    let mut w: u128 = params.iter().map(|p| u128::from(p.c)).sum();
    loop {
        if let Some(cap) = cap {
            if w >= cap {
                return Ok(cap);
            }
        }
        step(budget)?;
        let next = params.iter().fold(0u128, |acc, p| {
            let jobs = w.div_ceil(u128::from(p.t));
            acc.saturating_add(jobs.saturating_mul(u128::from(p.c)))
        });
        if next == w {
            return Ok(w);
        }
        w = next;
    }
}

/// QPA for a non-empty task set with `U ≤ 1` (the caller checks `U` exactly).
pub fn qpa(params: &[Params], limit: u64) -> Outcome {
    qpa_budget(params, &mut Budget::new(limit))
}

/// [`qpa`] drawing on a budget shared with other calls (one packing).
pub fn qpa_budget(params: &[Params], budget: &mut Budget) -> Outcome {
    let la = la_upper_bound(params);
    let l = match busy_period(params, la, budget) {
        Ok(l) => l,
        Err(o) => return o,
    };
    let Some(d_min) = params.iter().map(|p| u128::from(p.d)).min() else {
        return Outcome::Schedulable;
    };
    // Algorithm 1 of Zhang & Burns: start at the largest deadline below L.
    let Some(mut t) = largest_deadline_below(params, l) else {
        return Outcome::Schedulable;
    };
    loop {
        if let Err(o) = step(budget) {
            return o;
        }
        let h = demand(params, t);
        if h > t {
            return Outcome::Unschedulable;
        }
        if h <= d_min {
            return Outcome::Schedulable;
        }
        if h < t {
            t = h;
        } else {
            match largest_deadline_below(params, t) {
                Some(next) => t = next,
                None => return Outcome::Schedulable,
            }
        }
    }
}
