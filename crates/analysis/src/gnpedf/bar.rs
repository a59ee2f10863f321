//! `gnpedf-bar`: Baruah's sufficient utilization-style test for global non-preemptive EDF.
//!
//! **Paper.** S. K. Baruah, "The non-preemptive scheduling of periodic tasks upon
//! multiprocessors", Real-Time Systems 32(1–2):9–20, 2006. Restated as
//! [ChronOS §6.5, Eq. 6.5].
//!
//! **Test** (Eq. (6.5)). With `C_max` the largest execution cost, define the inflated
//! utilization of each task `Vᵢ = Cᵢ / (Tᵢ − C_max)` and `V_max = maxᵢ Vᵢ`. The task system
//! meets all deadlines under G-NP-EDF on `m` CPUs if
//!
//! ```text
//!   Σᵢ Vᵢ ≤ m − (m − 1)·V_max.
//! ```
//!
//! The idea: a job can be blocked by a non-preemptive lower-priority job for less than
//! `C_max`, so shrinking every period (= deadline) by `C_max` and applying the GFB bound of
//! Goossens, Funk & Baruah to the shrunken system covers the blocking. It is the GFB test
//! (`U ≤ m − (m − 1)u_max`) on the `V`'s, "similar but not equivalent" ([ChronOS §6.5]).
//!
//! **Exactness.** `Σ Vᵢ + (m − 1)·V_max ≤ m` is decided with the filtered exact rational
//! sum ([`cmp_sum`]); each term is an `i128` fraction of `u64` inputs.
//!
//! **Assumptions.** Periodic or sporadic tasks with implicit deadlines (`D = T`, the paper's
//! model), fully non-preemptive jobs, identical CPUs. If some `Tᵢ ≤ C_max`, `Vᵢ` is undefined
//! (or infinite) and the test does not show schedulability. `n = 0` is trivially schedulable.
//! On `m = 1` it reads `Σ Cᵢ/(Tᵢ − C_max) ≤ 1`.
//!
//! **Discrepancies.** [ChronOS Eq. 6.5] writes the sum as `Σ_{i=0}^{i≤n}` (an indexing
//! typo) and `V(Tᵢ, T)` for `Vᵢ`; the condition is the same. SchedCAT has no G-NP-EDF hard
//! test (its `edf/bar.py` is Baruah's RTSS 2007 *preemptive* G-EDF test), so there is no
//! reference implementation to compare with.
//!
//! **Complexity.** `O(n)`.

use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// Baruah's (RTS 2006) sufficient test for G-NP-EDF, [ChronOS Eq. 6.5].
#[derive(Clone, Copy, Debug, Default)]
pub struct GnpedfBar;

impl SchedTest for GnpedfBar {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gnpedf-bar".into(),
            family: "global-np-edf",
            kind: Kind::Sufficient,
            citation: "Baruah, The non-preemptive scheduling of periodic tasks upon \
                       multiprocessors, Real-Time Systems 32(1-2), 2006; [ChronOS §6.5, Eq. 6.5]",
            assumptions: "periodic/sporadic, implicit deadlines, fully non-preemptive global EDF",
            complexity: "O(n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_implicit()
    }

    fn run(&self, sys: &System) -> Verdict {
        let params = sys.params();
        let Some(c_max) = params.iter().map(|p| p.c).max() else {
            return Verdict::schedulable(); // n = 0
        };
        if let Some(i) = params.iter().position(|p| p.t <= c_max) {
            return Verdict::not_shown().because(format!(
                "task {i} has T ≤ C_max, so its inflated utilization C/(T − C_max) is unbounded"
            ));
        }
        // Vᵢ = Cᵢ / (Tᵢ − C_max), all denominators positive here.
        let v = |c: u64, t: u64| Frac::ratio(c, t - c_max);
        let Some(v_max) = params.iter().map(|p| v(p.c, p.t)).max() else {
            return Verdict::schedulable();
        };
        let m = i128::from(sys.cpus());
        // (m − 1)·V_max as one exact term: numerator ≤ 2^32 · 2^64 fits in i128.
        let scaled = Frac::new((m - 1) * v_max.num, v_max.den);
        // Eq. (6.5): Σ Vᵢ + (m − 1)·V_max ≤ m.
        let terms = || {
            params
                .iter()
                .map(|p| v(p.c, p.t))
                .chain(std::iter::once(scaled))
        };
        Verdict::sufficient(cmp_sum(terms, Frac::int(m)) != Ordering::Greater)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::system::{Params, Priorities};
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    fn sys(tasks: &[(u64, u64)], m: u32) -> System {
        let p = tasks.iter().map(|&(c, t)| Params::new(c, t, t)).collect();
        System::from_params(p, m, Priorities::Dm).unwrap()
    }

    #[test]
    fn hand_worked() {
        // m = 2, (C, T) = (1, 5) ×3: C_max = 1, V = 1/4 each, ΣV = 3/4, V_max = 1/4.
        // 3/4 ≤ 2 − 1/4 = 7/4 → schedulable.
        assert!(analyze(&GnpedfBar, &sys(&[(1, 5), (1, 5), (1, 5)], 2)).is_schedulable());
        // m = 2, (2, 4), (2, 4), (1, 3): C_max = 2, V = 2/2, 2/2, 1/1 → V_max = 1,
        // ΣV = 3 > 2 − 1 = 1 → not shown.
        let v = analyze(&GnpedfBar, &sys(&[(2, 4), (2, 4), (1, 3)], 2));
        assert_eq!(v.status, Status::NotShown);
        // Exact equality: m = 3, (1, 3) ×4: V = 1/2 each, ΣV = 2, V_max = 1/2:
        // 2 ≤ 3 − 2·(1/2) = 2 → schedulable (boundary included).
        assert!(analyze(&GnpedfBar, &sys(&[(1, 3); 4], 3)).is_schedulable());
        // One more such task: ΣV = 5/2 > 2 → not shown.
        assert!(!analyze(&GnpedfBar, &sys(&[(1, 3); 5], 3)).is_schedulable());
        // ChronOS Table 6.2 style: (51, 100) ×4 and (100, 1000) on m = 4 (deadline of the
        // last task made implicit): T − C_max = 0 for the first four → not shown.
        let v = analyze(
            &GnpedfBar,
            &sys(
                &[(51, 100), (51, 100), (51, 100), (51, 100), (100, 1000)],
                4,
            ),
        );
        assert_eq!(v.status, Status::NotShown);
    }

    #[test]
    fn boundaries() {
        assert!(analyze(&GnpedfBar, &sys(&[], 1)).is_schedulable());
        // m = 1, single task: T − C_max = T − C; (1, 2): V = 1, ΣV = 1 ≤ 1.
        assert!(analyze(&GnpedfBar, &sys(&[(1, 2)], 1)).is_schedulable());
        // C = T: V undefined → not shown (although trivially schedulable alone).
        assert!(!analyze(&GnpedfBar, &sys(&[(2, 2)], 4)).is_schedulable());
        // Constrained deadlines → not applicable.
        let s = System::from_params(vec![Params::new(1, 3, 4)], 2, Priorities::Dm).unwrap();
        assert_eq!(analyze(&GnpedfBar, &s).status, Status::NotApplicable);
        // Huge values do not overflow (on the largest platform a system may have).
        let t = 1_000_000_000_000_000u64;
        let m = schedlab_model::platform::MAX_CPUS;
        assert!(analyze(&GnpedfBar, &sys(&[(3, t), (t / 4, t)], m)).is_schedulable());
    }

    fn task() -> impl Strategy<Value = (u64, u64)> {
        (1u64..1000, 1u64..1000).prop_map(|(a, b)| (a.min(b), a.max(b)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn implies_gfb_and_u_at_most_m(ts in proptest::collection::vec(task(), 0..12), m in 1u32..8) {
            // V ≥ u, so acceptance implies GFB on the utilizations, and U ≤ m.
            let v = analyze(&GnpedfBar, &sys(&ts, m));
            if v.is_schedulable() {
                let u = |&(c, t): &(u64, u64)| Frac::ratio(c, t);
                let u_max = ts.iter().map(u).max().unwrap_or(Frac::ZERO);
                let extra = Frac::new(i128::from(m - 1) * u_max.num, u_max.den);
                let terms = || ts.iter().map(u).chain(std::iter::once(extra));
                prop_assert!(cmp_sum(terms, Frac::int(m.into())) != Ordering::Greater);
            }
        }

        #[test]
        fn removing_a_task_keeps_acceptance(ts in proptest::collection::vec(task(), 1..12), m in 1u32..8) {
            let v = analyze(&GnpedfBar, &sys(&ts, m));
            if v.is_schedulable() {
                let fewer = &ts[..ts.len() - 1];
                prop_assert!(analyze(&GnpedfBar, &sys(fewer, m)).is_schedulable());
            }
        }
    }
}
