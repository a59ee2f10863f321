//! `gedf-sb`: the Srinivasan–Baruah utilization bound for G-EDF.
//!
//! **Paper.** A. Srinivasan, S. Baruah, "Deadline-based scheduling of periodic task systems on
//! multiprocessors", *Information Processing Letters* 84(2), 2002. Their light-system theorem
//! (the result behind algorithm EDF-US[m/(2m−1)]): an implicit-deadline periodic task system
//! with
//!
//! `ui ≤ m/(2m − 1)` for every task, and `U ≤ m²/(2m − 1)`                          — Eq. (1)
//!
//! is scheduled by (plain) global EDF on `m` unit-speed processors. Quoted in [ChronOS §6.4]:
//! "G-EDF is able to schedule any set of periodic tasks with implicit deadlines in which no
//! task has a utilization exceeding m/(2m − 1) and the total system utilization is not greater
//! than m²/(2m − 1)" — both inequalities non-strict, as implemented here. The EDF-US variant
//! (heavy tasks at top priority, bound `m²/(2m − 1)` without the per-task condition) is a
//! different scheduler and is not this test. The bound is the GFB bound `m − (m − 1)·u_max`
//! evaluated at `u_max = m/(2m − 1)`, so `gedf-gfb` accepts every set this test accepts
//! (checked by a property test). It holds for sporadic releases as well (the GFB argument does).
//!
//! **Reference.** Not in SchedCAT. Both conditions imply `U ≤ m` and `ui ≤ 1`, so no separate
//! infeasibility check is needed.
//!
//! **Assumptions.** Implicit deadlines (`D = T`; *not applicable* otherwise), periodic or
//! sporadic, preemptive G-EDF on `m` identical CPUs. **Complexity.** `O(n)`, exact.

use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// The Srinivasan–Baruah bound for G-EDF (`gedf-sb`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sb;

impl SchedTest for Sb {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-sb".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation:
                "Srinivasan & Baruah, IPL 84(2) 2002, 'Deadline-based scheduling of periodic \
                       task systems on multiprocessors': u_i ≤ m/(2m−1) and U ≤ m²/(2m−1) \
                       [ChronOS §6.4]",
            assumptions: "implicit deadlines (D = T), periodic or sporadic, preemptive global EDF",
            complexity: "O(n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_implicit()
    }

    fn run(&self, sys: &System) -> Verdict {
        let params = sys.params();
        let m = u128::from(sys.cpus());
        let den = 2 * m - 1;
        // Eq. (1), per task: Ci/Ti ≤ m/(2m − 1) ⇔ Ci·(2m − 1) ≤ m·Ti (fits u128).
        if let Some(i) = params
            .iter()
            .position(|p| u128::from(p.c) * den > m * u128::from(p.t))
        {
            return Verdict::not_shown()
                .because(format!("task {i} has utilization above m/(2m−1)"));
        }
        // Eq. (1), total: U ≤ m²/(2m − 1).
        let (mi, di) = (i128::from(sys.cpus()), 2 * i128::from(sys.cpus()) - 1);
        let utilization = || params.iter().map(|p| Frac::ratio(p.c, p.t));
        if cmp_sum(utilization, Frac::new(mi * mi, di)) == Ordering::Greater {
            return Verdict::not_shown().because("total utilization above m²/(2m−1)");
        }
        Verdict::schedulable()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gedf::testutil::sys;
    use crate::test::analyze;
    use crate::verdict::Status;

    #[test]
    fn bounds_by_hand() {
        // m = 2: u_i ≤ 2/3, U ≤ 4/3. Two tasks of 2/3: U = 4/3 → exactly at both bounds.
        assert!(analyze(&Sb, &sys(&[(2, 3, 3), (2, 3, 3)], 2)).is_schedulable());
        // One ns more on one task: u = 2000000001/3e9 > 2/3 → not shown.
        let g = 1_000_000_000;
        let p = [(2 * g + 1, 3 * g, 3 * g), (2 * g, 3 * g, 3 * g)];
        assert_eq!(analyze(&Sb, &sys(&p, 2)).status, Status::NotShown);
        // Total just above: 2/3 + 2/3 + 1/1e9.
        let p = [(2 * g, 3 * g, 3 * g), (2 * g, 3 * g, 3 * g), (1, g, g)];
        assert_eq!(analyze(&Sb, &sys(&p, 2)).status, Status::NotShown);
        // m = 1: u ≤ 1, U ≤ 1 — the uniprocessor EDF bound.
        assert!(analyze(&Sb, &sys(&[(1, 2, 2), (1, 2, 2)], 1)).is_schedulable());
        // [ChronOS §6.4]: m = 48 → m²/(2m−1) = 2304/95 ≈ 24.25 ("up to a load of 24").
        // 97 tasks of 1/4: U = 24.25 ≤ 2304/95 = 24.2526… → schedulable; 98: 24.5 → not.
        let p = vec![(1, 4, 4); 97];
        assert!(analyze(&Sb, &sys(&p, 48)).is_schedulable());
        let p = vec![(1, 4, 4); 98];
        assert_eq!(analyze(&Sb, &sys(&p, 48)).status, Status::NotShown);
    }

    #[test]
    fn needs_implicit_deadlines() {
        assert_eq!(
            analyze(&Sb, &sys(&[(1, 3, 4)], 2)).status,
            Status::NotApplicable
        );
        assert!(analyze(&Sb, &sys(&[], 3)).is_schedulable());
    }
}
