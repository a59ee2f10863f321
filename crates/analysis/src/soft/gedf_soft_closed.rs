//! `gedf-soft-closed`: bounded tardiness under preemptive global EDF with the simpler,
//! constant-time closed form of Devi & Anderson's bound.
//!
//! **Paper.** U. C. Devi and J. H. Anderson, "Tardiness Bounds under Global EDF Scheduling on
//! a Multiprocessor", RTSS 2005 (RTS 2008): the corollary obtained from the full bound
//! (`gedf-soft`, Eq. 6.4) by `Λ ≤ m − 1`, `εᵢ ≤ C_max`, `μᵢ ≤ u_max`. Restated as
//! [ChronOS §6.4, Eq. 6.3] and in Linux' `Documentation/scheduler/sched-deadline.rst`.
//!
//! **Bound** (Eq. (6.3)): every job of `τk` has tardiness at most `x + Ck`,
//!
//! ```text
//!        (m − 1)·C_max − C_min
//!   x = ───────────────────────
//!         m − (m − 2)·u_max
//! ```
//!
//! clamped at 0 (the numerator is negative only for `m = 1`, where the bound is `Ck`, as for
//! `gedf-soft`). For `m ≥ 2` the denominator is ≥ 2. Exact rational, rounded up to whole ns.
//! It is never smaller than the `gedf-soft` bound (tested).
//!
//! **Condition / assumptions.** As `gedf-soft`: bounded iff `U ≤ m` (exact, so `U > m` is
//! "unschedulable"); sporadic tasks with implicit deadlines; preemptive G-EDF.
//!
//! **Discrepancies.** Linux' documentation uses `+ C_max` for every task instead of `+ Ck`
//! (the per-task form of the paper, which we use, is the tighter of the two).
//!
//! **Complexity.** `O(n)`.

use super::common::{ceil_div_by_ratio, max_util, total_util_at_most, verdict_from_x};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigUint;

/// Closed-form G-EDF tardiness bound of [ChronOS Eq. 6.3].
#[derive(Clone, Copy, Debug, Default)]
pub struct GedfSoftClosed;

/// `x` of Eq. (6.3) rounded up, or `None` when `U > m`.
pub(crate) fn closed_x(params: &[Params], cpus: u32) -> Option<BigUint> {
    let m = u128::from(cpus);
    let (Some(hi), Some(c_max), Some(c_min)) = (
        max_util(params),
        params.iter().map(|p| p.c).max(),
        params.iter().map(|p| p.c).min(),
    ) else {
        return Some(BigUint::from(0u32)); // n = 0
    };
    if !total_util_at_most(params, u64::from(cpus)) {
        return None;
    }
    // Eq. (6.3) numerator (m − 1)·C_max − C_min, clamped at 0.
    let num = (m - 1) * u128::from(c_max);
    let num = num.saturating_sub(u128::from(c_min));
    if num == 0 {
        return Some(BigUint::from(0u32));
    }
    // Denominator m − (m − 2)·c/t = (m·t − (m − 2)·c) / t, m ≥ 2 here (num > 0).
    let (c, t) = (u128::from(hi.c), u128::from(hi.t));
    let p = m * t - (m - 2) * c;
    Some(ceil_div_by_ratio(num, p, t))
}

impl SchedTest for GedfSoftClosed {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-soft-closed".into(),
            family: "global-edf",
            kind: Kind::Soft,
            citation: "Devi & Anderson, RTSS 2005 / RTS 2008 (closed-form corollary); \
                       [ChronOS §6.4, Eq. 6.3]",
            assumptions: "sporadic, implicit deadlines, preemptive global EDF; bounded iff U ≤ m",
            complexity: "O(n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_implicit()
    }

    fn run(&self, sys: &System) -> Verdict {
        verdict_from_x(sys.params(), closed_x(sys.params(), sys.cpus()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::soft::gedf_soft::{bounds_ns, GedfSoft};
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    use crate::soft::common::implicit_sys as sys;

    #[test]
    fn hand_worked() {
        // (2, 3), (2, 3), (4, 6) on m = 2: C_max = 4, C_min = 2, u_max = 2/3.
        // x = (1·4 − 2) / (2 − 0·u_max) = 1 → bounds 3, 3, 5 (equal to gedf-soft here).
        let v = analyze(&GedfSoftClosed, &sys(&[(2, 3), (2, 3), (4, 6)], 2));
        assert_eq!(bounds_ns(&v), vec![3, 3, 5]);
        // m = 4, (9,10), (8,10), (5,10), (4,10), (1,2): C_max = 9, C_min = 1, u_max = 9/10.
        // x = (3·9 − 1) / (4 − 2·0.9) = 26 / 2.2 = 11.8… → 12. Bounds 21, 20, 17, 16, 13
        // (gedf-soft gives x = 10).
        let v = analyze(
            &GedfSoftClosed,
            &sys(&[(9, 10), (8, 10), (5, 10), (4, 10), (1, 2)], 4),
        );
        assert_eq!(bounds_ns(&v), vec![21, 20, 17, 16, 13]);
        // Exact division: m = 3, (4, 4), (2, 4): x = (2·4 − 2)/(3 − 1·1) = 3 exactly.
        let v = analyze(&GedfSoftClosed, &sys(&[(4, 4), (2, 4)], 3));
        assert_eq!(bounds_ns(&v), vec![7, 5]);
    }

    #[test]
    fn boundaries() {
        assert_eq!(
            bounds_ns(&analyze(&GedfSoftClosed, &sys(&[], 1))),
            Vec::<u64>::new()
        );
        // m = 1: x = 0, bounds = Ck.
        let v = analyze(&GedfSoftClosed, &sys(&[(1, 2), (3, 6)], 1));
        assert_eq!(bounds_ns(&v), vec![1, 3]);
        let v = analyze(&GedfSoftClosed, &sys(&[(1, 2), (3, 5)], 1));
        assert_eq!(v.status, Status::Unschedulable);
        // m = 2, a single task: x = (C − C)/… = 0.
        let v = analyze(&GedfSoftClosed, &sys(&[(5, 5)], 2));
        assert_eq!(bounds_ns(&v), vec![5]);
    }

    fn task() -> impl Strategy<Value = (u64, u64)> {
        (1u64..1000, 1u64..1000).prop_map(|(a, b)| (a.min(b), a.max(b)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn dominates_full_bound_and_same_verdict(
            ts in proptest::collection::vec(task(), 0..12), m in 1u32..6,
        ) {
            let s = sys(&ts, m);
            let full = analyze(&GedfSoft, &s);
            let closed = analyze(&GedfSoftClosed, &s);
            prop_assert_eq!(full.status, closed.status);
            for (f, c) in bounds_ns(&full).iter().zip(bounds_ns(&closed).iter()) {
                prop_assert!(c >= f);
            }
        }

        #[test]
        fn adding_a_task_never_lowers_bounds(
            ts in proptest::collection::vec(task(), 1..10), extra in task(), m in 1u32..6,
        ) {
            let before = analyze(&GedfSoftClosed, &sys(&ts, m));
            let mut more = ts.clone();
            more.push(extra);
            let after = analyze(&GedfSoftClosed, &sys(&more, m));
            if after.is_schedulable() {
                for (b, a) in bounds_ns(&before).iter().zip(bounds_ns(&after).iter()) {
                    prop_assert!(a >= b);
                }
            }
        }
    }
}
