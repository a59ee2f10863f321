//! `gedf-load`: the LOAD-based G-EDF test for arbitrary-deadline sporadic tasks.
//!
//! T. P. Baker and S. Baruah, "An analysis of global EDF schedulability for arbitrary-deadline
//! sporadic task systems", Real-Time Systems 43(1):3–24, 2009 (the bound SchedCAT's
//! `native/src/edf/load.cpp` calls "corollary 2"): with `δmax = max Ci/min(Di, Ti)`,
//! `μ = m − (m − 1)·δmax`, the system is G-EDF schedulable if
//!
//! `LOAD(τ) ≤ max( μ − (⌈μ⌉ − 1)·δmax , (⌈μ⌉ − 1) − (⌈μ⌉ − 2)·δmax )` (non-strict),
//!
//! where `LOAD(τ) = sup_{t>0} Σi dbf(τi, t)/t`. LOAD is replaced by SchedCAT's ε-approximate
//! upper bound (`TaskSet::approx_load`, the PTAS of Fisher, Baker and Baruah 2006, Lemma 7):
//!
//! * if the density `Σ δi` does not exceed `U`, the load is `U`;
//! * otherwise task `i` is evaluated exactly at its first `ki + 1` step points `Di + j·Ti`,
//!   `ki = ⌈max(0, n·Ui/ε − Di/Ti)⌉`, and by its linear upper bound `Ci + ⌈(t − Di)·Ui⌉`
//!   beyond them; the load is `max(U + ε, max_t Σ approx(τi, t)/t)` over the sorted, distinct
//!   step points `t`, except that as soon as one point exceeds the density the load is the
//!   density. (Both caps are sound: `U + ε` bounds the load beyond all exact windows, and the
//!   density bounds it everywhere.)
//!
//! We never materialise the load: the verdict only needs to know whether some point exceeds
//! one threshold (the bound, or the density), so the sweep keeps the exact demand of the
//! stepped tasks incrementally, bounds the linear ones with a float filter, and computes the
//! exact sum only when the filter cannot decide. All comparisons are exact.
//!
//! Assumptions: sporadic tasks, arbitrary deadlines, integer time. `C > T` (utilization above 1)
//! or `U > m` is "not shown" (SchedCAT: infeasible, false).
//!
//! Discrepancies with SchedCAT (none on constrained-deadline sets):
//! * Density is `Ci/min(Di, Ti)`, as in Baker & Baruah, where SchedCAT uses `Ci/Di`. The two
//!   agree for `D ≤ T`; for `D > T` SchedCAT's `δmax`, its density cap and its "density ≤ U ⇒
//!   load = U" shortcut can fall *below* the true LOAD (e.g. `(18, 20, 2000)` with `(2, 19, 2)`:
//!   `Σ C/D = 1.005 < U = 1.009`, but `dbf(21)/21 = 22/21 ≈ 1.048`), which would be unsound.
//! * `ki` is computed exactly; SchedCAT rounds `n·Ui/ε − Di/Ti` to a double first.
//!
//! Complexity: O(P log n) for `P = Σ (ki + 1) ≈ n·U/ε` test points (polynomial in `n` for fixed
//! ε), O(1) amortised per point except when the float filter defers to the exact O(n) sum.
//! Work limit: if `P` exceeds `max_points` (default [`DEFAULT_MAX_POINTS`]) and the verdict
//! needs the sweep, the answer is gave-up.

use super::dbf::{cmp_utilization, density, max_density, ops_slack, require_range, ApproxSum};
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigInt;
use num_rational::BigRational;
use schedlab_model::exact::{cmp_sum, exact_sum, Frac};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Default work limit of [`Load`]: ten million step points.
pub const DEFAULT_MAX_POINTS: u64 = 10_000_000;

/// Baker & Baruah's LOAD test (`gedf-load`) with an ε-approximate LOAD.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    /// Numerator of the approximation parameter ε (default 1).
    pub eps_num: u32,
    /// Denominator of ε (default 10, i.e. ε = 1/10 as in SchedCAT).
    pub eps_den: u32,
    /// Work limit: the most step points `Σ (ki + 1)` swept before answering gave-up.
    pub max_points: u64,
}

impl Default for Load {
    fn default() -> Load {
        Load {
            eps_num: 1,
            eps_den: 10,
            max_points: DEFAULT_MAX_POINTS,
        }
    }
}

impl SchedTest for Load {
    fn params(&self) -> Vec<Param> {
        vec![
            Param::new(
                "epsilon",
                format!("{}/{}", self.eps_num, self.eps_den),
                "ε of the approximate LOAD computation",
            ),
            Param::new(
                "max_points",
                self.max_points,
                "test points before giving up",
            ),
        ]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "epsilon" => (self.eps_num, self.eps_den) = param::parse_unit_fraction(name, value)?,
            "max_points" => self.max_points = param::parse_u64(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-load".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation:
                "T. P. Baker and S. Baruah, \"An analysis of global EDF schedulability for \
                       arbitrary-deadline sporadic task systems\", Real-Time Systems 43(1), 2009: \
                       LOAD ≤ max(μ − (⌈μ⌉−1)δmax, ⌈μ⌉−1 − (⌈μ⌉−2)δmax), μ = m − (m−1)δmax; LOAD \
                       approximated within ε (Fisher, Baker & Baruah 2006), as in SchedCAT load.cpp",
            assumptions: "sporadic tasks, arbitrary deadlines, integer time; ε = 1/10 by default",
            complexity: "O(n·U/ε · log n) step points (polynomial for fixed ε); at most \
                         max_points (default 10,000,000), then gave-up",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        if self.eps_num == 0 || self.eps_den == 0 {
            return Err("ε must be a positive fraction".into());
        }
        require_range(sys)
    }

    fn run(&self, sys: &System) -> Verdict {
        load_test(sys.params(), sys.cpus(), self)
    }
}

/// The Baker–Baruah bound `max(μ − (⌈μ⌉−1)δ, ⌈μ⌉−1 − (⌈μ⌉−2)δ)` for `δ = δmax ≤ 1`.
fn load_bound(m: u32, delta: Frac) -> Frac {
    let (p, q) = (delta.num, delta.den); // ≤ 2^62 each
    let m = i128::from(m);
    let mu_num = m * q - (m - 1) * p; // μ = mu_num / q > 0
    let mu_ceil = mu_num.div_euclid(q) + i128::from(mu_num.rem_euclid(q) != 0);
    let cond1 = Frac::new(mu_num - (mu_ceil - 1) * p, q);
    let cond2 = Frac::new((mu_ceil - 1) * q - (mu_ceil - 2) * p, q);
    cond1.max(cond2)
}

fn load_test(params: &[Params], m: u32, cfg: &Load) -> Verdict {
    if params.is_empty() {
        return Verdict::schedulable();
    }
    if let Some(i) = params.iter().position(|p| p.c > p.t) {
        return Verdict::not_shown().because(format!("task {i} has C > T (utilization above 1)"));
    }
    if cmp_utilization(params, Frac::int(i128::from(m))) == Ordering::Greater {
        return Verdict::not_shown().because("U > m");
    }
    let bound = load_bound(m, max_density(params));
    let u_terms = || params.iter().map(|p| Frac::ratio(p.c, p.t));
    let dens_terms = || params.iter().map(density);
    // Density > U iff some task has D < T; otherwise LOAD = U exactly.
    if params.iter().all(|p| p.d >= p.t) {
        let ok = cmp_sum(u_terms, bound) != Ordering::Greater;
        return Verdict::sufficient(ok).because("density ≤ U, so LOAD = U");
    }
    let eps = Frac::new(i128::from(cfg.eps_num), i128::from(cfg.eps_den));
    let u_eps_ok = cmp_sum(|| u_terms().chain(std::iter::once(eps)), bound) != Ordering::Greater;
    let density_ok = cmp_sum(dens_terms, bound) != Ordering::Greater;
    // The approximate load is the density if some step point exceeds the density, else
    // max(U + ε, max over points). So:
    //  * density ≤ bound: schedulable if U + ε ≤ bound, or if some point exceeds the density;
    //  * density > bound: schedulable iff U + ε ≤ bound and no point exceeds the bound.
    let (threshold, accept_if_found) = match (density_ok, u_eps_ok) {
        (true, true) => {
            return Verdict::schedulable().because("approximate LOAD ≤ max(U + ε, density) ≤ bound")
        }
        (false, false) => return Verdict::not_shown().because("U + ε exceeds the LOAD bound"),
        (true, false) => (Threshold::density(params), true),
        (false, true) => (Threshold::single(bound), false),
    };
    let Some(ks) = windows(params, cfg) else {
        return Verdict::gave_up("the number of LOAD test points exceeds 2^64");
    };
    let total: u128 = ks.iter().map(|&k| u128::from(k) + 1).sum();
    if total > u128::from(cfg.max_points) {
        return Verdict::gave_up(format!(
            "{total} LOAD test points exceed the work limit of {}",
            cfg.max_points
        ));
    }
    match (first_exceeding(params, &ks, &threshold), accept_if_found) {
        (Some(t), true) => Verdict::schedulable().because(format!(
            "approximate demand exceeds the density at t = {t}, so LOAD ≤ density ≤ bound"
        )),
        (None, true) => Verdict::not_shown().because("approximate LOAD = U + ε exceeds the bound"),
        (Some(t), false) => Verdict::not_shown().because(format!(
            "approximate demand at t = {t} exceeds the LOAD bound"
        )),
        (None, false) => Verdict::schedulable(),
    }
}

/// `ki = ⌈max(0, n·Ui/ε − Di/Ti)⌉` per task (exact), or `None` on 128-bit overflow.
fn windows(params: &[Params], cfg: &Load) -> Option<Vec<u64>> {
    let n = params.len() as u128;
    let (en, ed) = (u128::from(cfg.eps_num), u128::from(cfg.eps_den));
    params
        .iter()
        .map(|p| {
            let plus = n.checked_mul(u128::from(p.c))?.checked_mul(ed)?;
            let minus = u128::from(p.d) * en;
            if plus <= minus {
                return Some(0);
            }
            u64::try_from((plus - minus).div_ceil(u128::from(p.t) * en)).ok()
        })
        .collect()
}

/// The threshold `θ` a point's approximate load `Σ approx(τi, t)/t` is compared with.
enum Threshold<'a> {
    /// A single rational (the LOAD bound).
    Single(Frac, ApproxSum),
    /// The density `Σ Ci/min(Di, Ti)`.
    Density(&'a [Params], ApproxSum),
}

impl<'a> Threshold<'a> {
    fn single(f: Frac) -> Threshold<'a> {
        let value = f.to_f64();
        Threshold::Single(
            f,
            ApproxSum {
                value,
                err: ops_slack(value),
            },
        )
    }
    fn density(params: &'a [Params]) -> Threshold<'a> {
        let approx = ApproxSum::of(
            params
                .iter()
                .map(|p| (u128::from(p.c), u128::from(p.min_dt()))),
        );
        Threshold::Density(params, approx)
    }
    fn approx(&self) -> ApproxSum {
        match self {
            Threshold::Single(_, a) | Threshold::Density(_, a) => *a,
        }
    }
    /// Exactly: `demand > θ·t`.
    fn exceeded_by(&self, demand: u128, t: u128) -> bool {
        if let (Ok(d), Ok(t)) = (i128::try_from(demand), i128::try_from(t)) {
            let point = Frac::new(d, t);
            return match self {
                Threshold::Single(f, _) => point.cmp_exact(*f) == Ordering::Greater,
                Threshold::Density(params, _) => {
                    cmp_sum(|| params.iter().map(density), point) == Ordering::Less
                }
            };
        }
        // Beyond i128 (not reachable for parameters ≤ 2^62 and sane n/ε): big rationals.
        let point = BigRational::new(BigInt::from(demand), BigInt::from(t));
        match self {
            Threshold::Single(f, _) => point > f.to_big(),
            Threshold::Density(params, _) => point > exact_sum(params.iter().map(density)),
        }
    }
}

/// `Ci + ⌈(t − Di)·Ci/Ti⌉` for `t ≥ Di`, without overflow for `Ci ≤ Ti ≤ 2^62`.
fn linear_demand(p: &Params, t: u128) -> u128 {
    let (c, tp) = (u128::from(p.c), u128::from(p.t));
    let x = t.saturating_sub(u128::from(p.d));
    c + (x / tp) * c + ((x % tp) * c).div_ceil(tp)
}

/// The first step point `t` (in increasing order) with `Σ approx(τi, t) > θ·t`, if any.
fn first_exceeding(params: &[Params], ks: &[u64], theta: &Threshold<'_>) -> Option<u128> {
    const UNIT: f64 = f64::EPSILON;
    let mut heap: BinaryHeap<Reverse<(u128, usize)>> = params
        .iter()
        .enumerate()
        .map(|(i, p)| Reverse((u128::from(p.d), i)))
        .collect();
    let mut next_j = vec![0u64; params.len()];
    // Exact demand of the tasks still inside their exact window.
    let mut stepped = 0u128;
    // Tasks in the linear regime, with float sums Σ (Ci − Di·Ui), Σ |·|, Σ Ui.
    let mut linear: Vec<usize> = Vec::new();
    let (mut lin_const, mut lin_mag, mut lin_u) = (0.0f64, 0.0f64, 0.0f64);
    let th = theta.approx();
    while let Some(Reverse((t, i))) = heap.pop() {
        let (Some(p), Some(&k), Some(j)) = (params.get(i), ks.get(i), next_j.get_mut(i)) else {
            continue;
        };
        let c = u128::from(p.c);
        if *j < k {
            stepped += c; // dbf(τi) steps to (j + 1)·Ci
            *j += 1;
            heap.push(Reverse((t + u128::from(p.t), i)));
        } else {
            // From t = ki·Ti + Di on, the linear bound replaces dbf (equal at this point).
            stepped -= u128::from(k) * c;
            linear.push(i);
            let dci = (u128::from(p.d) * c) as f64 / p.t as f64;
            lin_const += p.c as f64 - dci;
            lin_mag += p.c as f64 + dci;
            lin_u += p.c as f64 / p.t as f64;
        }
        if matches!(heap.peek(), Some(Reverse((t2, _))) if *t2 == t) {
            continue; // evaluate once all steps at t are in
        }
        // Filter: Σ approx ∈ [stepped + L, stepped + L + |linear|), L = Σ (Ci + (t − Di)Ui).
        let tf = t as f64;
        let nl = linear.len() as f64;
        let mag = stepped as f64 + lin_mag + tf * lin_u + nl;
        let low = stepped as f64 + lin_const + tf * lin_u;
        let err = 2.0 * (nl + 4.0) * UNIT * (lin_mag + tf * lin_u) + ops_slack(mag);
        let bound = th.value * tf;
        let bound_err = th.err * tf + ops_slack(bound);
        if low + nl + err < bound - bound_err {
            continue;
        }
        let exceeds = if low - err > bound + bound_err {
            true
        } else {
            let lin: u128 = linear
                .iter()
                .filter_map(|&l| params.get(l))
                .map(|q| linear_demand(q, t))
                .sum();
            theta.exceeded_by(stepped + lin, t)
        };
        if exceeds {
            return Some(t);
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gedf::dbf::testkit::{arbitrary_tasks, constrained_tasks, sys, uni_edf_feasible};
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    fn run(tasks: &[(u64, u64, u64)], m: u32) -> Verdict {
        analyze(&Load::default(), &sys(tasks, m))
    }

    #[test]
    fn bound_formula() {
        // m = 4, δmax = 1/2: μ = 4 − 3/2 = 5/2, ⌈μ⌉ = 3; cond1 = 5/2 − 2·1/2 = 3/2,
        // cond2 = 2 − 1·1/2 = 3/2 → 3/2.
        assert_eq!(load_bound(4, Frac::ratio(1, 2)), Frac::ratio(3, 2));
        // m = 2, δmax = 9/10: μ = 11/10, ⌈μ⌉ = 2; cond1 = 11/10 − 9/10 = 1/5, cond2 = 1 → 1.
        assert_eq!(load_bound(2, Frac::ratio(9, 10)), Frac::ONE);
        // m = 8, δmax = 1/10: μ = 8 − 7/10 = 73/10, ⌈μ⌉ = 8; cond1 = 73/10 − 7/10 = 33/5,
        // cond2 = 7 − 6/10 = 32/5 → 33/5.
        assert_eq!(load_bound(8, Frac::ratio(1, 10)), Frac::ratio(33, 5));
        // m = 1: μ = 1, bound = max(1, δ) = 1.
        assert_eq!(load_bound(1, Frac::ratio(1, 3)), Frac::ONE);
        // δmax = 1: μ = 1, bound = 1 whatever m.
        assert_eq!(load_bound(5, Frac::ONE), Frac::ONE);
    }

    #[test]
    fn implicit_deadlines_use_the_utilization() {
        // D = T: LOAD = U. m = 2, τ = (1, 2, 2) ×3: U = 3/2, δmax = 1/2, μ = 3/2, ⌈μ⌉ = 2,
        // bound = max(3/2 − 1/2, 1 − 0) = 1 < 3/2: not shown.
        assert_eq!(run(&[(1, 2, 2); 3], 2).status, Status::NotShown);
        // Two of them: U = 1 ≤ 1: schedulable (exact equality).
        assert_eq!(run(&[(1, 2, 2); 2], 2).status, Status::Schedulable);
    }

    #[test]
    fn hand_worked_constrained_sweep() {
        // m = 2, τ1 = (1, 2, 10), τ2 = (1, 10, 10): U = 1/5, density = 1/2 + 1/10 = 3/5,
        // δmax = 1/2: μ = 3/2, ⌈μ⌉ = 2, cond1 = 3/2 − 1/2 = 1, cond2 = 1 − 0 = 1 → bound 1.
        // Density 3/5 ≤ 1 and U + ε = 3/10 ≤ 1: schedulable without any sweep (so even
        // max_points = 0 suffices).
        let s = sys(&[(1, 2, 10), (1, 10, 10)], 2);
        let v = analyze(
            &Load {
                max_points: 0,
                ..Load::default()
            },
            &s,
        );
        assert_eq!(v.status, Status::Schedulable);
    }

    #[test]
    fn hand_worked_threshold_sweep() {
        // m = 2, τ1 = (9, 10, 100), τ2 = (1, 100, 100): U = 1/10, δmax = 9/10, bound = 1
        // (μ = 11/10, ⌈μ⌉ = 2, cond1 = 1/5, cond2 = 1). Density = 9/10 + 1/100 = 91/100 ≤ 1, and
        // U + ε = 1/5 ≤ 1: schedulable outright.
        assert_eq!(
            run(&[(9, 10, 100), (1, 100, 100)], 2).status,
            Status::Schedulable
        );
        // m = 2, τ1 = τ2 = (9, 10, 100), τ3 = (50, 100, 100): U = 0.68, δmax = 0.9 → bound 1;
        // density = 1.8 + 0.5 = 2.3 > 1, so every step point must have approx load ≤ 1.
        // n = 3, ε = 1/10: k1 = k2 = ⌈3·0.09·10 − 0.1⌉ = ⌈2.6⌉ = 3, k3 = ⌈15 − 1⌉ = 14.
        // At t = 10: dbf = 9 + 9 + 0 = 18 > 10: not shown, found at the first point.
        let v = run(&[(9, 10, 100), (9, 10, 100), (50, 100, 100)], 2);
        assert_eq!(v.status, Status::NotShown);
        assert!(v.reason.unwrap().contains("t = 10"));
        // Limit: Σ(k + 1) = 4 + 4 + 15 = 23 points.
        let s = sys(&[(9, 10, 100), (9, 10, 100), (50, 100, 100)], 2);
        assert_eq!(
            analyze(
                &Load {
                    max_points: 22,
                    ..Load::default()
                },
                &s
            )
            .status,
            Status::GaveUp
        );
    }

    #[test]
    fn hand_worked_passing_sweep() {
        // m = 2, τ1 = (1, 5, 10), τ2 = (8, 10, 10): U = 0.9, δmax = 0.8 → μ = 1.2, ⌈μ⌉ = 2,
        // cond1 = 1.2 − 0.8 = 0.4, cond2 = 1 → bound 1. Density 0.2 + 0.8 = 1.0 ≤ 1 → case
        // "density ≤ bound"; U + ε = 1.0 ≤ 1 → schedulable outright.
        assert_eq!(
            run(&[(1, 5, 10), (8, 10, 10)], 2).status,
            Status::Schedulable
        );
        // m = 3, τ1 = (2, 5, 10), τ2 = τ3 = (4, 10, 10): U = 1, δmax = 2/5 → μ = 3 − 4/5 = 11/5,
        // ⌈μ⌉ = 3: cond1 = 11/5 − 4/5 = 7/5, cond2 = 2 − 2/5 = 8/5 → bound 8/5.
        // Density 2/5 + 4/5 = 6/5 ≤ 8/5 and U + ε = 11/10 ≤ 8/5: schedulable.
        assert_eq!(
            run(&[(2, 5, 10), (4, 10, 10), (4, 10, 10)], 3).status,
            Status::Schedulable
        );
        // m = 2, τ1 = (3, 5, 10), τ2 = (6, 10, 10): U = 0.9, δmax = 0.6 → μ = 1.4, ⌈μ⌉ = 2,
        // cond1 = 0.8, cond2 = 1 → bound 1. Density 1.2 > 1; U + ε = 1.0 ≤ 1 → sweep against 1.
        // n = 2: k1 = ⌈2·0.3·10 − 0.5⌉ = 6, k2 = ⌈12 − 1⌉ = 11, points 5, 10, …, 65 and 10, …, 120.
        // t = 10j: (3j + 6j)/10j = 0.9; t = 10j + 5: (3j + 3 + 6j)/(10j + 5) < 0.9; from t = 65 on
        // τ1 uses 3 + ⌈0.3(t − 5)⌉, e.g. t = 120: (38 + 72)/120 ≈ 0.917. All ≤ 1: schedulable.
        assert_eq!(
            run(&[(3, 5, 10), (6, 10, 10)], 2).status,
            Status::Schedulable
        );
    }

    #[test]
    fn arbitrary_deadline_density() {
        // The counterexample to SchedCAT's C/D density: τ1 = (18, 20, 2000), τ2 = (2, 19, 2).
        // U = 0.009 + 1 = 1.009, Σ C/min(D,T) = 0.9 + 1 = 1.9, δmax = 1 → bound = 1 for any m.
        // U + ε > 1: not shown (and never accepted with U > 1 on one CPU).
        assert_eq!(
            run(&[(18, 20, 2000), (2, 19, 2)], 2).status,
            Status::NotShown
        );
        assert_eq!(
            run(&[(18, 20, 2000), (2, 19, 2)], 1).status,
            Status::NotShown
        );
        // All D ≥ T: LOAD = U. m = 2, (1, 8, 4) ×2: U = 1/2, δmax = 1/4, μ = 7/4, ⌈μ⌉ = 2,
        // bound = max(7/4 − 1/4, 1) = 3/2 ≥ 1/2.
        assert_eq!(run(&[(1, 8, 4), (1, 8, 4)], 2).status, Status::Schedulable);
        // C > T: not shown.
        assert_eq!(run(&[(5, 8, 4)], 4).status, Status::NotShown);
    }

    #[test]
    fn boundaries() {
        assert_eq!(run(&[], 1).status, Status::Schedulable);
        assert_eq!(
            analyze(
                &Load {
                    eps_num: 0,
                    ..Load::default()
                },
                &sys(&[(1, 2, 2)], 1)
            )
            .status,
            Status::NotApplicable
        );
        let big = 1_000_000_000_000_000u64;
        let v = run(&[(big / 10, big / 2, big), (big / 5, big, big)], 2);
        assert_eq!(v.status, Status::Schedulable);
    }

    /// SchedCAT's `approx_load` + bound test, transcribed with big rationals (slow).
    fn naive_load(tasks: &[(u64, u64, u64)], m: u32) -> bool {
        use num_bigint::BigInt;
        use num_rational::BigRational;
        use num_traits::Zero;
        let q = |a: u128, b: u128| BigRational::new(BigInt::from(a), BigInt::from(b));
        let u = tasks.iter().fold(BigRational::zero(), |s, &(c, _, t)| {
            s + q(c.into(), t.into())
        });
        if u > q(m.into(), 1) || tasks.iter().any(|&(c, _, t)| c > t) {
            return false;
        }
        let dens = |&(c, d, t): &(u64, u64, u64)| q(c.into(), d.min(t).into());
        let density = tasks.iter().fold(BigRational::zero(), |s, x| s + dens(x));
        let dmax = tasks
            .iter()
            .map(dens)
            .max()
            .unwrap_or_else(BigRational::zero);
        let mu = q(m.into(), 1) - q((m - 1).into(), 1) * dmax.clone();
        let c = mu.ceil();
        let one = q(1, 1);
        let b1 = mu.clone() - (c.clone() - one.clone()) * dmax.clone();
        let b2 = (c.clone() - one.clone()) - (c - q(2, 1)) * dmax;
        let bound = b1.max(b2);
        let eps = q(1, 10);
        let mut load = u.clone();
        if density > u {
            load += eps;
            let n = tasks.len() as u128;
            let mut times = Vec::new();
            let mut ks = Vec::new();
            for &(c, d, t) in tasks {
                let x = q(n * u128::from(c) * 10, t.into()) - q(d.into(), t.into());
                let k: u64 = if x <= BigRational::zero() {
                    0
                } else {
                    x.ceil().to_integer().try_into().unwrap()
                };
                ks.push(k);
                for j in 0..=k {
                    times.push(u128::from(d) + u128::from(j) * u128::from(t));
                }
            }
            times.sort_unstable();
            times.dedup();
            for &t in &times {
                let mut sum = 0u128;
                for (&(c, d, p), &k) in tasks.iter().zip(&ks) {
                    let (c, d, p) = (u128::from(c), u128::from(d), u128::from(p));
                    sum += if t < u128::from(k) * p + d {
                        if t < d {
                            0
                        } else {
                            ((t - d) / p + 1) * c
                        }
                    } else {
                        c + ((t - d) * c).div_ceil(p)
                    };
                }
                let at = q(sum, t);
                if at > density {
                    load = density.clone();
                    break;
                }
                if at > load {
                    load = at;
                }
            }
        }
        load <= bound
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(192))]

        #[test]
        fn agrees_with_naive_transcription(tasks in arbitrary_tasks(1..6, 30), m in 1u32..5) {
            let v = run(&tasks, m);
            prop_assert_eq!(v.is_schedulable(), naive_load(&tasks, m), "{:?}", v);
        }

        #[test]
        fn agrees_with_naive_on_constrained(tasks in constrained_tasks(1..7, 30), m in 1u32..5) {
            let v = run(&tasks, m);
            prop_assert_eq!(v.is_schedulable(), naive_load(&tasks, m), "{:?}", v);
        }

        #[test]
        fn never_accepts_overload(tasks in arbitrary_tasks(1..8, 40), m in 1u32..5) {
            let v = run(&tasks, m);
            if v.is_schedulable() {
                let u: f64 = tasks.iter().map(|&(c, _, t)| c as f64 / t as f64).sum();
                prop_assert!(u <= f64::from(m) + 1e-12);
                prop_assert!(tasks.iter().all(|&(c, _, t)| c <= t));
            }
        }

        #[test]
        fn sound_on_one_cpu(tasks in arbitrary_tasks(1..5, 30)) {
            if run(&tasks, 1).is_schedulable() {
                prop_assert!(uni_edf_feasible(&tasks));
            }
        }

        #[test]
        fn sound_on_one_cpu_constrained(tasks in constrained_tasks(1..5, 30)) {
            if run(&tasks, 1).is_schedulable() {
                prop_assert!(uni_edf_feasible(&tasks));
            }
        }

        #[test]
        fn never_panics(tasks in arbitrary_tasks(0..12, 1_000_000), m in 1u32..17) {
            let _ = analyze(&Load { max_points: 20_000, ..Load::default() }, &sys(&tasks, m));
        }
    }
}
