//! `gedf-soft`: bounded tardiness under preemptive global EDF, with Devi & Anderson's
//! per-task tardiness bounds.
//!
//! **Papers.** U. C. Devi and J. H. Anderson, "Tardiness Bounds under Global EDF Scheduling on
//! a Multiprocessor", RTSS 2005 (journal version: Real-Time Systems 38(2), 2008, Corollary 1);
//! U. C. Devi, *Soft Real-Time Scheduling on Multiprocessors*, PhD dissertation, UNC Chapel
//! Hill, 2006, Corollary 4.11 (p. 109) — the form SchedCAT's `schedcat/sched/edf/da.py`
//! (`tardiness_x`) implements. Restated as [ChronOS §6.4, Eq. 6.4].
//!
//! **Condition.** Tardiness under G-EDF is bounded iff `U ≤ m` and every `uᵢ ≤ 1` (with
//! implicit deadlines `uᵢ ≤ 1` always holds). If `U > m` the backlog grows without bound on
//! *any* `m` CPUs, so the answer "unschedulable" is exact, not merely "not shown".
//!
//! **Bound** (Eq. (6.4), with Devi's `Λ`): every job of `τk` has tardiness at most `x + Ck`,
//!
//! ```text
//!         max(0, Σ_{i=1..Λ} εᵢ − C_min)
//!   x = ─────────────────────────────────,    Λ = ⌈U⌉ − 1,
//!          m − Σ_{i=1..Λ−1} μᵢ
//! ```
//!
//! where `ε₁ ≥ ε₂ ≥ …` are the execution costs and `μ₁ ≥ μ₂ ≥ …` the utilizations in
//! decreasing order, `C_min` the smallest cost. Sums over an empty range are 0 (Λ ≤ 1). The
//! denominator is ≥ 2 because `Λ − 1 ≤ m − 2` and `μᵢ ≤ 1`. `x` is computed as an exact
//! rational and rounded up to whole ns; the bound is `⌈x⌉ + Ck`.
//!
//! **Assumptions.** Sporadic tasks, implicit deadlines (`D = T`): SchedCAT asserts
//! `implicit_deadline()` and Devi's analysis is stated for them; other deadlines are
//! "not applicable". Full preemption, identical CPUs, no overheads.
//!
//! **Discrepancies.**
//! - [ChronOS Eq. 6.4] writes `Δ = ⌊U⌋`; Devi (and SchedCAT) use `Λ = ⌈U⌉ − 1` (equal unless
//!   `U` is an integer, where ChronOS would sum one term more in both sums). We follow Devi.
//! - SchedCAT computes in floating point (`int(ceil(cost / capacity))`, and `U ≤ m` on a
//!   float sum); we are exact, so results may differ only where the float rounding errs.
//! - For `Λ = 0` SchedCAT's slice `by_util[0:-1]` sums all but the smallest utilization;
//!   the numerator is 0 then, so `x = 0` either way.
//! - `m = 1`: the formula (and SchedCAT) give `x = 0`, i.e. the bound `Ck`. Uniprocessor EDF
//!   with `U ≤ 1` actually has zero tardiness; we keep the formula's `Ck` for agreement with
//!   the reference (still a valid, if loose, bound).
//!
//! **Complexity.** `O(n log n)` (sorting costs) plus an exact sum of `≤ m − 2` fractions.

use super::common::{
    ceil_over_capacity, lambda, top_utils, total_util_at_most, verdict_from_x, CostsDesc,
};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigUint;

/// Devi & Anderson's bounded-tardiness test for preemptive G-EDF (SchedCAT `da.py`).
#[derive(Clone, Copy, Debug, Default)]
pub struct GedfSoft;

/// `x` of Eq. (6.4) rounded up, or `None` when `U > m` (tardiness unbounded).
pub(crate) fn devi_x(params: &[Params], m: u32) -> Option<BigUint> {
    let m = u64::from(m);
    if params.is_empty() {
        return Some(BigUint::from(0u32));
    }
    if !total_util_at_most(params, m) {
        return None;
    }
    let l = lambda(params); // Λ = ⌈U⌉ − 1 ∈ [0, m − 1]
    let costs = CostsDesc::new(params);
    let c_min = params.iter().map(|p| p.c).min().unwrap_or(0);
    // Eq. (6.4) numerator: Σ of the Λ largest costs − C_min, clamped at 0.
    let num = costs.top(l).saturating_sub(u128::from(c_min));
    // Eq. (6.4) denominator: m − Σ of the Λ − 1 largest utilizations.
    let utils = top_utils(params, l.saturating_sub(1));
    // The capacity is ≥ 2 when U ≤ m, so `None` cannot happen here; treat it as unbounded.
    ceil_over_capacity(num, m, &utils)
}

impl SchedTest for GedfSoft {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-soft".into(),
            family: "global-edf",
            kind: Kind::Soft,
            citation: "Devi & Anderson, RTSS 2005 / RTS 2008 Cor. 1; Devi, PhD diss. UNC 2006, \
                       Cor. 4.11; [ChronOS §6.4, Eq. 6.4]; SchedCAT edf/da.py tardiness_x",
            assumptions: "sporadic, implicit deadlines, preemptive global EDF; bounded iff U ≤ m",
            complexity: "O(n log n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_implicit()
    }

    fn run(&self, sys: &System) -> Verdict {
        verdict_from_x(sys.params(), devi_x(sys.params(), sys.cpus()))
    }
}

/// Convenience for tests: the bounds in ns.
#[cfg(test)]
pub(crate) fn bounds_ns(v: &Verdict) -> Vec<u64> {
    v.tardiness_bounds
        .as_ref()
        .map(|b| {
            b.iter()
                .map(|d: &schedlab_model::Duration| d.as_ns())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::system::Priorities;
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    use crate::soft::common::implicit_sys as sys;

    #[test]
    fn realtimescheduling_jl_example() {
        // Three tasks (C, T) = (2, 3), (2, 3), (4, 6) on m = 2 (the doctest of
        // RealTimeScheduling.jl, which implements the same corollary):
        // U = 2/3 + 2/3 + 2/3 = 2 → Λ = ⌈2⌉ − 1 = 1.
        // x = (ε₁ − C_min) / (m − 0) = (4 − 2) / 2 = 1.
        // Bounds x + Ck = 3, 3, 5.
        let v = analyze(&GedfSoft, &sys(&[(2, 3), (2, 3), (4, 6)], 2));
        assert_eq!(v.status, Status::Schedulable);
        assert_eq!(bounds_ns(&v), vec![3, 3, 5]);
    }

    #[test]
    fn lambda_three_divides_by_reduced_capacity() {
        // m = 4, tasks (C, T): (9, 10), (8, 10), (5, 10), (4, 10), (1, 2).
        // U = 0.9 + 0.8 + 0.5 + 0.4 + 0.5 = 3.1 → Λ = 3.
        // Numerator: ε₁ + ε₂ + ε₃ − C_min = 9 + 8 + 5 − 1 = 21.
        // Denominator: m − (μ₁ + μ₂) = 4 − (0.9 + 0.8) = 2.3.
        // x = 21 / 2.3 = 9.13… → 10. Bounds: 19, 18, 15, 14, 11.
        let v = analyze(
            &GedfSoft,
            &sys(&[(9, 10), (8, 10), (5, 10), (4, 10), (1, 2)], 4),
        );
        assert_eq!(bounds_ns(&v), vec![19, 18, 15, 14, 11]);
    }

    #[test]
    fn exact_rounding_at_integer_x() {
        // m = 3, tasks (3, 4) ×3, (1, 4): U = 2.5 → Λ = 2.
        // Numerator 3 + 3 − 1 = 5; denominator 3 − 3/4 = 9/4 → x = 20/9 = 2.2 → 3.
        let v = analyze(&GedfSoft, &sys(&[(3, 4), (3, 4), (3, 4), (1, 4)], 3));
        assert_eq!(bounds_ns(&v), vec![6, 6, 6, 4]);
        // m = 2, (2, 4), (2, 4), (6, 6): U = 2 → Λ = 1, x = (6 − 2)/2 = 2 exactly (no +1).
        let v = analyze(&GedfSoft, &sys(&[(2, 4), (2, 4), (6, 6)], 2));
        assert_eq!(bounds_ns(&v), vec![4, 4, 8]);
    }

    #[test]
    fn boundaries() {
        // n = 0: trivially bounded, no bounds.
        let v = analyze(&GedfSoft, &sys(&[], 2));
        assert_eq!(v.status, Status::Schedulable);
        assert_eq!(bounds_ns(&v), Vec::<u64>::new());
        // m = 1, U = 1 exactly (1/3 · 3): x = 0, bounds = Ck.
        let v = analyze(&GedfSoft, &sys(&[(1, 3), (2, 6), (3, 9)], 1));
        assert_eq!(bounds_ns(&v), vec![1, 2, 3]);
        // U = m exactly is still bounded; U > m by the smallest amount is not.
        let v = analyze(&GedfSoft, &sys(&[(1, 3), (1, 3), (1, 3), (1, 1)], 2));
        assert_eq!(v.status, Status::Schedulable);
        let v = analyze(
            &GedfSoft,
            &sys(&[(1, 1), (1, 1), (1, 1_000_000_000_000_000)], 2),
        );
        assert_eq!(v.status, Status::Unschedulable);
        // Constrained deadlines are not applicable.
        let p = vec![Params::new(1, 5, 10)];
        let s = System::from_params(p, 2, Priorities::Dm).unwrap();
        assert_eq!(analyze(&GedfSoft, &s).status, Status::NotApplicable);
    }

    #[test]
    fn huge_periods_do_not_overflow() {
        let t = 1_000_000_000_000_000u64;
        let v = analyze(
            &GedfSoft,
            &sys(&[(t, t), (t - 1, t), (t / 2, t), (3, 7)], 4),
        );
        assert_eq!(v.status, Status::Schedulable);
        assert!(bounds_ns(&v).iter().all(|&b| b >= 3));
    }

    fn task() -> impl Strategy<Value = (u64, u64)> {
        (1u64..1000, 1u64..1000).prop_map(|(a, b)| (a.min(b), a.max(b)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn accepted_iff_u_at_most_m(ts in proptest::collection::vec(task(), 0..12), m in 1u32..6) {
            let s = sys(&ts, m);
            let v = analyze(&GedfSoft, &s);
            let u = exact_u(&ts);
            let ok = u <= num_rational::BigRational::from_integer(m.into());
            prop_assert_eq!(v.is_schedulable(), ok);
            prop_assert_eq!(v.status == Status::Unschedulable, !ok);
            if ok {
                let b = bounds_ns(&v);
                prop_assert_eq!(b.len(), ts.len());
                for (bi, (c, _)) in b.iter().zip(&ts) {
                    prop_assert!(bi >= c);
                }
            }
        }

        #[test]
        fn adding_a_task_never_lowers_bounds(
            ts in proptest::collection::vec(task(), 1..10), extra in task(), m in 1u32..6,
        ) {
            let before = analyze(&GedfSoft, &sys(&ts, m));
            let mut more = ts.clone();
            more.push(extra);
            let after = analyze(&GedfSoft, &sys(&more, m));
            if after.is_schedulable() {
                prop_assert!(before.is_schedulable());
                for (b, a) in bounds_ns(&before).iter().zip(bounds_ns(&after).iter()) {
                    prop_assert!(a >= b);
                }
            }
        }
    }

    pub(crate) fn exact_u(ts: &[(u64, u64)]) -> num_rational::BigRational {
        use schedlab_model::exact::{exact_sum, Frac};
        exact_sum(ts.iter().map(|&(c, t)| Frac::ratio(c, t)))
    }
}
