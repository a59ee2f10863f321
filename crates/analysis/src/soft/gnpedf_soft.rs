//! `gnpedf-soft`: bounded tardiness under non-preemptive global EDF (G-NP-EDF), with
//! Devi & Anderson's per-task tardiness bounds.
//!
//! **Papers.** U. C. Devi and J. H. Anderson, "Tardiness Bounds under Global EDF Scheduling on
//! a Multiprocessor", RTSS 2005 / Real-Time Systems 38(2), 2008 (EDF with non-preemptive
//! sections, "EDF-P-NP"); U. C. Devi, PhD dissertation, UNC Chapel Hill, 2006, Ch. 4.
//! Restated as [ChronOS §6.5, Eq. 6.6].
//!
//! **Condition.** Tardiness is bounded iff `U ≤ m` (implicit deadlines give `uᵢ ≤ 1`);
//! `U > m` is unbounded on any scheduler, so "unschedulable" is exact.
//!
//! **Bound** (Eq. (6.6)): every job of `τk` has tardiness at most `x + Ck`,
//!
//! ```text
//!        Σ_{i=1..Λ+1} εᵢ + Σ_{i=1..m−Λ−1} βᵢ − C_min
//!   x = ─────────────────────────────────────────────,    Λ = ⌈U⌉ − 1,
//!              m − Σ_{i=1..Λ} μᵢ
//! ```
//!
//! with `εᵢ` the costs and `μᵢ` the utilizations in decreasing order and `βᵢ` the longest
//! non-preemptive sections in decreasing order; under fully non-preemptive G-NP-EDF a job
//! is one non-preemptive section, so `βᵢ = εᵢ`. Sums over more terms than tasks take all
//! tasks. The numerator is ≥ `C_max − C_min ≥ 0`; the denominator is ≥ 1 because `Λ ≤ m − 1`
//! and `μᵢ ≤ 1`. Exact rational, rounded up to whole ns; bound `⌈x⌉ + Ck`.
//!
//! **Assumptions.** Sporadic tasks with implicit deadlines, fully non-preemptive jobs,
//! identical CPUs, no overheads.
//!
//! **Discrepancies.**
//! - [ChronOS Eq. 6.6] writes `Δ = ⌊U⌋`; we use Devi's `Λ = ⌈U⌉ − 1` (differs only for integral
//!   `U`, where `⌊U⌋ = m` would make the `β` range negative and the denominator possibly 0).
//! - SchedCAT's `np_tardiness_x` (`schedcat/sched/edf/da.py`, "Corollary 4.3 … page 110") sums
//!   only `Λ` costs and divides by `m − Σ_{Λ−1} μᵢ` (the *preemptive* index ranges) and forces
//!   `x = 0` for `m = 1`. That is **unsafe**: on `m = 2`, tasks `(C, T) = (10, 40), (10, 40),
//!   (1, 2), (1, 2)` (U = 1.5, Λ = 1), with the two long jobs released at 0 and the short
//!   ones at 1 (deadline 3), both CPUs are blocked non-preemptively until 10 and the short
//!   jobs finish at 11: tardiness 8. SchedCAT bounds it by `⌈(10 − 1)/2⌉ + 1 = 6`. Eq. (6.6)
//!   gives `x = (10 + 10 − 1)/(2 − 1/2) = 12.67 → 13`, bound 14. On `m = 1`, `(1, 2)` blocked by
//!   `(10, 20)` has tardiness ≈ 9 while SchedCAT says 1; Eq. (6.6) gives `10 − 1 + 1 = 10`.
//!   (For `Λ = 0` SchedCAT's Python slice `by_util[0:-1]` happens to shrink the denominator,
//!   which hides the problem there.) We implement the paper's Eq. (6.6), not SchedCAT.
//!
//! **Complexity.** `O(n log n)`.

use super::common::{
    ceil_over_capacity, lambda, top_utils, total_util_at_most, verdict_from_x, CostsDesc,
};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigUint;

/// Devi & Anderson's bounded-tardiness test for G-NP-EDF, Eq. (6.6).
#[derive(Clone, Copy, Debug, Default)]
pub struct GnpedfSoft;

/// `x` of Eq. (6.6) rounded up, or `None` when `U > m`.
pub(crate) fn np_x(params: &[Params], cpus: u32) -> Option<BigUint> {
    let m = u64::from(cpus);
    if params.is_empty() {
        return Some(BigUint::from(0u32));
    }
    if !total_util_at_most(params, m) {
        return None;
    }
    let l = lambda(params); // Λ ∈ [0, m − 1]
    let costs = CostsDesc::new(params);
    let c_min = params.iter().map(|p| p.c).min().unwrap_or(0);
    // Eq. (6.6) numerator: Λ+1 largest costs + (m−Λ−1) largest NP sections (= costs) − C_min.
    let blocking = m.saturating_sub(l).saturating_sub(1);
    let num = (costs.top(l + 1) + costs.top(blocking)).saturating_sub(u128::from(c_min));
    // Eq. (6.6) denominator: m − Σ of the Λ largest utilizations.
    let utils = top_utils(params, l);
    ceil_over_capacity(num, m, &utils)
}

impl SchedTest for GnpedfSoft {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gnpedf-soft".into(),
            family: "global-np-edf",
            kind: Kind::Soft,
            citation: "Devi & Anderson, RTSS 2005 / RTS 2008 (EDF-P-NP with β = C); Devi, PhD \
                       diss. UNC 2006, Ch. 4; [ChronOS §6.5, Eq. 6.6]",
            assumptions: "sporadic, implicit deadlines, fully non-preemptive global EDF; \
                          bounded iff U ≤ m",
            complexity: "O(n log n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_implicit()
    }

    fn run(&self, sys: &System) -> Verdict {
        verdict_from_x(sys.params(), np_x(sys.params(), sys.cpus()))
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
    fn schedcat_counterexample_is_covered() {
        // m = 2, (10, 40), (10, 40), (1, 2), (1, 2): U = 1.5 → Λ = 1.
        // Numerator: ε₁ + ε₂ (Λ+1 = 2 costs) + 0 β's (m−Λ−1 = 0) − C_min = 10 + 10 − 1 = 19.
        // Denominator: 2 − μ₁ = 2 − 1/2 = 3/2 → x = 38/3 = 12.67 → 13.
        // Bounds 23, 23, 14, 14 ≥ the tardiness 8 of the schedule in the module doc.
        let v = analyze(&GnpedfSoft, &sys(&[(10, 40), (10, 40), (1, 2), (1, 2)], 2));
        assert_eq!(bounds_ns(&v), vec![23, 23, 14, 14]);
    }

    #[test]
    fn hand_worked_with_blocking_terms() {
        // m = 4, (9,10), (8,10), (5,10), (4,10), (1,2): U = 3.1 → Λ = 3, m − Λ − 1 = 0.
        // Numerator 9 + 8 + 5 + 4 − 1 = 25; denominator 4 − (0.9 + 0.8 + 0.5) = 1.8.
        // x = 25 / 1.8 = 13.89 → 14. Bounds 23, 22, 19, 18, 15.
        let v = analyze(
            &GnpedfSoft,
            &sys(&[(9, 10), (8, 10), (5, 10), (4, 10), (1, 2)], 4),
        );
        assert_eq!(bounds_ns(&v), vec![23, 22, 19, 18, 15]);
        // m = 4, (3, 10), (2, 10), (1, 10): U = 0.6 → Λ = 0, m − Λ − 1 = 3 β terms.
        // Numerator ε₁ + (β₁ + β₂ + β₃) − C_min = 3 + 6 − 1 = 8; denominator 4 → x = 2.
        let v = analyze(&GnpedfSoft, &sys(&[(3, 10), (2, 10), (1, 10)], 4));
        assert_eq!(bounds_ns(&v), vec![5, 4, 3]);
    }

    #[test]
    fn uniprocessor_blocking() {
        // m = 1, (1, 2), (10, 20): U = 1 → Λ = 0; x = (10 + 0 − 1)/1 = 9.
        // A job of τ0 released just after a τ1 job starts waits 10: tardiness ≈ 9 ≤ 10.
        let v = analyze(&GnpedfSoft, &sys(&[(1, 2), (10, 20)], 1));
        assert_eq!(bounds_ns(&v), vec![10, 19]);
        let v = analyze(&GnpedfSoft, &sys(&[(2, 2), (10, 20)], 1));
        assert_eq!(v.status, Status::Unschedulable);
        assert_eq!(
            bounds_ns(&analyze(&GnpedfSoft, &sys(&[], 3))),
            Vec::<u64>::new()
        );
    }

    fn task() -> impl Strategy<Value = (u64, u64)> {
        (1u64..1000, 1u64..1000).prop_map(|(a, b)| (a.min(b), a.max(b)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn never_below_preemptive_bound(
            ts in proptest::collection::vec(task(), 0..12), m in 1u32..6,
        ) {
            // Eq. (6.6) has at least the terms of Eq. (6.4), so x_np ≥ x_p.
            let s = sys(&ts, m);
            let p = analyze(&GedfSoft, &s);
            let np = analyze(&GnpedfSoft, &s);
            prop_assert_eq!(p.status, np.status);
            for (a, b) in bounds_ns(&p).iter().zip(bounds_ns(&np).iter()) {
                prop_assert!(b >= a);
            }
        }
    }
}
