//! `gnpedf-soft-closed`: bounded tardiness under non-preemptive global EDF with the
//! constant-time closed form of Devi & Anderson's bound.
//!
//! **Paper.** U. C. Devi and J. H. Anderson, "Tardiness Bounds under Global EDF Scheduling on
//! a Multiprocessor", RTSS 2005 / RTS 2008; Devi, PhD dissertation, UNC 2006. Restated as
//! [ChronOS §6.5, Eq. 6.7]. It follows from Eq. (6.6) (`gnpedf-soft`) by
//! `(Λ + 1) + (m − Λ − 1) = m` cost terms `≤ C_max` and `Λ ≤ m − 1` utilizations `≤ u_max`.
//!
//! **Bound** (Eq. (6.7)): every job of `τk` has tardiness at most `x + Ck`,
//!
//! ```text
//!         m·C_max − C_min
//!   x = ───────────────────
//!        m − (m − 1)·u_max
//! ```
//!
//! The numerator is ≥ 0 and the denominator ≥ 1 (`u_max ≤ 1`). Exact rational, rounded up
//! to whole ns. Never smaller than the `gnpedf-soft` bound (tested). For `m = 1` it equals
//! Eq. (6.6): `x = C_max − C_min`.
//!
//! **Condition / assumptions.** As `gnpedf-soft`: bounded iff `U ≤ m` ("unschedulable" is
//! exact otherwise); sporadic, implicit deadlines, fully non-preemptive jobs.
//!
//! **Complexity.** `O(n)`.

use super::common::{ceil_div_by_ratio, max_util, total_util_at_most, verdict_from_x};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigUint;

/// Closed-form G-NP-EDF tardiness bound of [ChronOS Eq. 6.7].
#[derive(Clone, Copy, Debug, Default)]
pub struct GnpedfSoftClosed;

/// `x` of Eq. (6.7) rounded up, or `None` when `U > m`.
pub(crate) fn np_closed_x(params: &[Params], cpus: u32) -> Option<BigUint> {
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
    // Eq. (6.7) numerator m·C_max − C_min ≥ 0.
    let num = (m * u128::from(c_max)).saturating_sub(u128::from(c_min));
    // Denominator m − (m − 1)·c/t = (m·t − (m − 1)·c) / t ≥ 1 since c ≤ t.
    let (c, t) = (u128::from(hi.c), u128::from(hi.t));
    let p = m * t - (m - 1) * c;
    Some(ceil_div_by_ratio(num, p, t))
}

impl SchedTest for GnpedfSoftClosed {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gnpedf-soft-closed".into(),
            family: "global-np-edf",
            kind: Kind::Soft,
            citation: "Devi & Anderson, RTSS 2005 / RTS 2008 (closed form); \
                       [ChronOS §6.5, Eq. 6.7]",
            assumptions: "sporadic, implicit deadlines, fully non-preemptive global EDF; \
                          bounded iff U ≤ m",
            complexity: "O(n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_implicit()
    }

    fn run(&self, sys: &System) -> Verdict {
        verdict_from_x(sys.params(), np_closed_x(sys.params(), sys.cpus()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::soft::gedf_soft::bounds_ns;
    use crate::soft::gnpedf_soft::GnpedfSoft;
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    use crate::soft::common::implicit_sys as sys;

    #[test]
    fn hand_worked() {
        // m = 2, (10, 40), (10, 40), (1, 2), (1, 2): C_max = 10, C_min = 1, u_max = 1/2.
        // x = (2·10 − 1)/(2 − 1/2) = 19/1.5 = 12.67 → 13 (same as Eq. 6.6 here).
        let v = analyze(
            &GnpedfSoftClosed,
            &sys(&[(10, 40), (10, 40), (1, 2), (1, 2)], 2),
        );
        assert_eq!(bounds_ns(&v), vec![23, 23, 14, 14]);
        // m = 4, (9,10), (8,10), (5,10), (4,10), (1,2): x = (36 − 1)/(4 − 3·0.9) = 35/1.3
        // = 26.9 → 27. Bounds 36, 35, 32, 31, 28.
        let v = analyze(
            &GnpedfSoftClosed,
            &sys(&[(9, 10), (8, 10), (5, 10), (4, 10), (1, 2)], 4),
        );
        assert_eq!(bounds_ns(&v), vec![36, 35, 32, 31, 28]);
        // m = 1 equals Eq. (6.6): (1, 2), (10, 20) → x = 9.
        let v = analyze(&GnpedfSoftClosed, &sys(&[(1, 2), (10, 20)], 1));
        assert_eq!(bounds_ns(&v), vec![10, 19]);
        let v = analyze(&GnpedfSoftClosed, &sys(&[(3, 2 * 3), (5, 5)], 1));
        assert_eq!(v.status, Status::Unschedulable);
    }

    fn task() -> impl Strategy<Value = (u64, u64)> {
        (1u64..1000, 1u64..1000).prop_map(|(a, b)| (a.min(b), a.max(b)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn dominates_full_bound(ts in proptest::collection::vec(task(), 0..12), m in 1u32..6) {
            let s = sys(&ts, m);
            let full = analyze(&GnpedfSoft, &s);
            let closed = analyze(&GnpedfSoftClosed, &s);
            prop_assert_eq!(full.status, closed.status);
            for (f, c) in bounds_ns(&full).iter().zip(bounds_ns(&closed).iter()) {
                prop_assert!(c >= f);
            }
        }

        #[test]
        fn adding_a_task_never_lowers_bounds(
            ts in proptest::collection::vec(task(), 1..10), extra in task(), m in 1u32..6,
        ) {
            let before = analyze(&GnpedfSoftClosed, &sys(&ts, m));
            let mut more = ts.clone();
            more.push(extra);
            let after = analyze(&GnpedfSoftClosed, &sys(&more, m));
            if after.is_schedulable() {
                for (b, a) in bounds_ns(&before).iter().zip(bounds_ns(&after).iter()) {
                    prop_assert!(a >= b);
                }
            }
        }
    }
}
