//! `gedf-gfb`: the Goossens–Funk–Baruah utilization bound and its density generalization.
//!
//! **Paper.** J. Goossens, S. Funk, S. Baruah, "Priority-driven scheduling of periodic task
//! systems on multiprocessors", *Real-Time Systems* 25(2–3), 2003: an implicit-deadline
//! periodic (and sporadic) task system is G-EDF-schedulable on `m` identical processors if
//! `U ≤ m − (m − 1)·u_max` (quoted as "the GFB test" in [ChronOS §6.4]). For constrained
//! deadlines the standard generalization replaces utilizations by densities `δi = Ci/Di`:
//! `δ_sum ≤ m − (m − 1)·δ_max` (Eq. (1) below); for `D = T` it is the original bound.
//!
//! **Reference.** SchedCAT `native/src/edf/gfb.cpp`: checks feasible tasks, `U ≤ m` and
//! constrained deadlines first (all `false` otherwise), then the density bound with exact
//! rationals, non-strict. We do the same, except that arbitrary deadlines are *not
//! applicable* (SchedCAT answers `false`; its Python `gfb.py` would use `C/min(D, T)`
//! densities and run on arbitrary deadlines, which `gedf.cpp` explicitly avoids: "the BCL
//! and GFB tests assume constrained deadlines").
//!
//! **Assumptions.** Sporadic tasks, constrained deadlines (`D ≤ T`), preemptive G-EDF on `m`
//! identical CPUs. **Complexity.** `O(n)`, exact (filtered rational sum).

use super::precheck::trivially_infeasible;
use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// The GFB density test for G-EDF (`gedf-gfb`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Gfb;

impl SchedTest for Gfb {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-gfb".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation: "Goossens, Funk & Baruah, Real-Time Systems 25(2-3), 2003: U ≤ m − (m−1)·u_max; \
                       density form δ_sum ≤ m − (m−1)·δ_max for constrained deadlines (SchedCAT gfb.cpp)",
            assumptions: "sporadic tasks, constrained deadlines (D ≤ T), preemptive global EDF",
            complexity: "O(n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_constrained()
    }

    fn run(&self, sys: &System) -> Verdict {
        if let Some(reason) = trivially_infeasible(sys) {
            return Verdict::not_shown().because(reason);
        }
        Verdict::sufficient(density_bound_holds(sys))
    }
}

/// Eq. (1): `Σ Ci/Di ≤ m − (m − 1)·max Ci/Di`, exactly.
fn density_bound_holds(sys: &System) -> bool {
    let params = sys.params();
    // δ_max by exact cross-multiplication (u64·u64 fits u128).
    let Some(first) = params.first() else {
        return true; // no tasks: 0 ≤ m
    };
    let (mut cmax, mut dmax) = (first.c, first.d);
    for p in params {
        if u128::from(p.c) * u128::from(dmax) > u128::from(cmax) * u128::from(p.d) {
            (cmax, dmax) = (p.c, p.d);
        }
    }
    // bound = (m·Dmax − (m−1)·Cmax) / Dmax; |numerator| < 2^32 · 2^64 fits i128.
    let m = i128::from(sys.cpus());
    let bound = Frac::new(
        m * i128::from(dmax) - (m - 1) * i128::from(cmax),
        i128::from(dmax),
    );
    let densities = || params.iter().map(|p| Frac::ratio(p.c, p.d));
    cmp_sum(densities, bound) != Ordering::Greater
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gedf::testutil::sys;
    use crate::test::analyze;
    use crate::verdict::Status;

    #[test]
    fn equality_at_the_bound_is_accepted_one_ns_more_is_not() {
        // m = 2, three tasks of density 1/2 and one of 1/4:
        // δ_sum = 7/4, δ_max = 1/2, bound = 2 − 1/2 = 3/2 < 7/4 → not shown.
        let s = sys(&[(5, 10, 10), (5, 10, 10), (5, 10, 10), (1, 4, 4)], 2);
        assert_eq!(analyze(&Gfb, &s).status, Status::NotShown);
        // m = 2, densities 1/2, 1/2, 1/2: δ_sum = 3/2 = 2 − 1·(1/2) → equality, accepted.
        let s = sys(&[(5, 10, 10), (5, 10, 10), (5, 10, 10)], 2);
        assert_eq!(analyze(&Gfb, &s).status, Status::Schedulable);
        // One ns more of WCET on one task: δ = 6/10 raises both δ_sum and δ_max:
        // 3/2 + 1/10 = 1.6 > 2 − 0.6 = 1.4 → not shown.
        let s = sys(&[(6, 10, 10), (5, 10, 10), (5, 10, 10)], 2);
        assert_eq!(analyze(&Gfb, &s).status, Status::NotShown);
        // m = 3, u = 1/3 each, n = 7: U = 7/3, bound 3 − 2/3 = 7/3: equality, accepted;
        // 1/3 is not a binary fraction, so this exercises the exact fallback.
        let s = sys(&[(1, 3, 3); 7], 3);
        assert_eq!(analyze(&Gfb, &s).status, Status::Schedulable);
        let mut p = vec![(1, 3, 3); 6];
        p.push((1_000_000_001, 3_000_000_000, 3_000_000_000)); // 1 ns more than 1/3
        assert_eq!(analyze(&Gfb, &sys(&p, 3)).status, Status::NotShown);
    }

    #[test]
    fn dhall_effect_set_is_rejected() {
        // [ChronOS Table 6.1] on m = 4: four (10, 100) and one (92, 101).
        // δ_max = 92/101, δ_sum = 0.4 + 0.911 = 1.311 > 4 − 3·0.911 = 1.267 → not shown.
        let mut p = vec![(10, 100, 100); 4];
        p.push((92, 101, 101));
        assert_eq!(analyze(&Gfb, &sys(&p, 4)).status, Status::NotShown);
    }

    #[test]
    fn boundaries() {
        assert!(analyze(&Gfb, &sys(&[], 1)).is_schedulable());
        // m = 1: the bound is the uniprocessor density test δ_sum ≤ 1.
        assert!(analyze(&Gfb, &sys(&[(1, 2, 4), (2, 4, 4)], 1)).is_schedulable());
        assert!(!analyze(&Gfb, &sys(&[(1, 2, 4), (3, 4, 4)], 1)).is_schedulable());
        // Arbitrary deadlines: not applicable.
        assert_eq!(
            analyze(&Gfb, &sys(&[(1, 5, 4)], 2)).status,
            Status::NotApplicable
        );
    }
}
