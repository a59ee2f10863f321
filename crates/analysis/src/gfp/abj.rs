//! `gfp-abj`: the RM utilization bound of B. Andersson, S. Baruah and J. Jonsson,
//! "Static-priority scheduling on multiprocessors", RTSS 2001 (the bound behind
//! RM-US[m/(3m−2)]): a periodic task system is scheduled by global RM on `m` processors if
//!
//! ```text
//! ui ≤ m / (3m − 2) for every task   and   U ≤ m² / (3m − 2).
//! ```
//!
//! Model: implicit deadlines, rate-monotonic priorities (the order of
//! [`System::priority_order`] must be RM-compatible, else "not applicable"), `m ≥ 2`
//! identical processors. Exact: integer cross-multiplication for `ui`, the filtered exact sum
//! [`cmp_sum`] for `U`. Complexity O(n).
//!
//! Discrepancies:
//! - [ChronOS §6.3] quotes the total bound as `m²/(3m − 1)` (and "below", i.e. strict). The
//!   original (RTSS 2001, and the RM-US[m/(3m−2)] bound `m²/(3m−2)` quoted throughout the
//!   literature) is `m²/(3m − 2)` with `≤`; we implement the original. `m²/(3m − 1)` is the
//!   smaller of the two, so ChronOS's version is merely more pessimistic.
//! - `m = 1`: the two thresholds become `u ≤ 1`, `U ≤ 1`, which is false for uniprocessor RM
//!   (e.g. (C, T) = (2, 5), (4, 7): U ≈ 0.97 but R₂ = 8 > 7). The bound comes from the
//!   condition `U ≤ (m/2)(1 − u_max) + u_max`, which is non-increasing in `u_max` only for
//!   `m ≥ 2`; so the test is "not applicable" for `m = 1`.

use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::uni::require_rate_monotonic as require_rm;
use crate::verdict::Verdict;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// `gfp-abj` (Andersson, Baruah & Jonsson, RTSS 2001).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Abj;

impl SchedTest for Abj {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gfp-abj".into(),
            family: super::FAMILY,
            kind: Kind::Sufficient,
            citation: "B. Andersson, S. Baruah, J. Jonsson, \"Static-priority scheduling on \
                       multiprocessors\", RTSS 2001: RM with u ≤ m/(3m−2), U ≤ m²/(3m−2) \
                       ([ChronOS §6.3] misquotes m²/(3m−1))",
            assumptions: "periodic/sporadic tasks, implicit deadlines, rate-monotonic \
                          priorities, global preemptive scheduling on m ≥ 2 identical CPUs",
            complexity: "O(n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        if sys.cpus() < 2 {
            return Err(
                "the bound m²/(3m−2) holds for m ≥ 2 only (at m = 1 it would claim \
                        U ≤ 1, false for uniprocessor RM)"
                    .into(),
            );
        }
        require_rm(sys)
    }

    fn run(&self, sys: &System) -> Verdict {
        let m = u128::from(sys.cpus());
        let den = 3 * m - 2;
        // ui ≤ m/(3m−2)  ⇔  Ci·(3m−2) ≤ m·Ti
        if let Some(i) = sys
            .params()
            .iter()
            .position(|p| u128::from(p.c) * den > m * u128::from(p.t))
        {
            return Verdict::not_shown().because(format!("task {i} has u > m/(3m−2)"));
        }
        // U ≤ m²/(3m−2)
        let bound = Frac::new((m * m) as i128, den as i128);
        let u = || sys.params().iter().map(|p| Frac::ratio(p.c, p.t));
        Verdict::sufficient(cmp_sum(u, bound) != Ordering::Greater)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::system::{Params, Priorities};
    use crate::test::analyze;
    use crate::verdict::Status;

    fn sys(p: Vec<Params>, m: u32) -> System {
        System::from_params(p, m, Priorities::Rm).unwrap()
    }

    /// m = 4: u ≤ 4/10, U ≤ 16/10. Four tasks of u = 2/5 give U = 8/5: exactly at both
    /// bounds, accepted; raising one C by 1 (u = 41/100 > 2/5) is not.
    #[test]
    fn exact_boundaries() {
        let at = vec![Params::new(40, 100, 100); 4];
        assert_eq!(analyze(&Abj, &sys(at, 4)).status, Status::Schedulable);
        let mut over = vec![Params::new(40, 100, 100); 4];
        over[0] = Params::new(41, 100, 100);
        assert_eq!(analyze(&Abj, &sys(over, 4)).status, Status::NotShown);
        // Total over the bound with small tasks: 17 tasks of u = 1/10 → U = 17/10 > 16/10.
        let many = vec![Params::new(1, 10, 10); 17];
        assert_eq!(analyze(&Abj, &sys(many, 4)).status, Status::NotShown);
        let sixteen = vec![Params::new(1, 10, 10); 16];
        assert_eq!(analyze(&Abj, &sys(sixteen, 4)).status, Status::Schedulable);
    }

    /// m = 2: u ≤ 1/2 and U ≤ 1.
    #[test]
    fn two_cpus() {
        let at = vec![Params::new(1, 2, 2), Params::new(2, 4, 4)];
        assert_eq!(analyze(&Abj, &sys(at, 2)).status, Status::Schedulable);
        let over = vec![
            Params::new(1, 2, 2),
            Params::new(1, 2, 2),
            Params::new(1, 100, 100),
        ];
        assert_eq!(analyze(&Abj, &sys(over, 2)).status, Status::NotShown);
    }

    #[test]
    fn preconditions() {
        let one = sys(vec![Params::new(1, 10, 10)], 1);
        assert_eq!(analyze(&Abj, &one).status, Status::NotApplicable);
        let constrained = sys(vec![Params::new(1, 5, 10)], 2);
        assert_eq!(analyze(&Abj, &constrained).status, Status::NotApplicable);
    }
}
