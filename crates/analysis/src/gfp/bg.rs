//! `gfp-bg`: the RM utilization bound of S. Baruah and J. Goossens, "Rate-monotonic
//! scheduling on uniform multiprocessors", IEEE Transactions on Computers 52(7), 2003 (also
//! ICDCS 2003), specialised to `m` identical unit-speed processors: a periodic task system is
//! scheduled by global RM if
//!
//! ```text
//! ui ≤ 1/3 for every task   and   U ≤ m/3.
//! ```
//!
//! (This is the identical-platform corollary of their uniform-platform condition
//! `S(π) ≥ 2U + μ(π)·u_max`, which for `m` unit processors reads `U ≤ m(1 − u_max)/2`; at
//! `u_max = 1/3` it gives `m/3`. [ChronOS §6.3] quotes the corollary, which we implement.)
//!
//! Model: implicit deadlines, rate-monotonic priorities (the order of
//! [`System::priority_order`] must be RM-compatible, else "not applicable"), any `m ≥ 1`
//! (at `m = 1` it is `U ≤ 1/3`, below Liu & Layland's bound, so sound). Exact:
//! cross-multiplication for `ui`, the filtered exact sum [`cmp_sum`] for `U`. Complexity O(n).

use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::uni::require_rate_monotonic as require_rm;
use crate::verdict::Verdict;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// `gfp-bg` (Baruah & Goossens, IEEE TC 2003).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bg;

impl SchedTest for Bg {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gfp-bg".into(),
            family: super::FAMILY,
            kind: Kind::Sufficient,
            citation: "S. Baruah, J. Goossens, \"Rate-monotonic scheduling on uniform \
                       multiprocessors\", IEEE Trans. Computers 52(7), 2003: RM with u ≤ 1/3, \
                       U ≤ m/3 on m identical CPUs [ChronOS §6.3]",
            assumptions: "periodic/sporadic tasks, implicit deadlines, rate-monotonic \
                          priorities, global preemptive scheduling on m identical CPUs",
            complexity: "O(n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        require_rm(sys)
    }

    fn run(&self, sys: &System) -> Verdict {
        // ui ≤ 1/3  ⇔  3·Ci ≤ Ti
        if let Some(i) = sys
            .params()
            .iter()
            .position(|p| 3 * u128::from(p.c) > u128::from(p.t))
        {
            return Verdict::not_shown().because(format!("task {i} has u > 1/3"));
        }
        let bound = Frac::new(i128::from(sys.cpus()), 3);
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

    /// m = 2: u ≤ 1/3, U ≤ 2/3. Two tasks of u = 1/3 sit exactly on both bounds.
    #[test]
    fn exact_boundaries() {
        let at = vec![Params::new(1, 3, 3), Params::new(2, 6, 6)];
        assert_eq!(analyze(&Bg, &sys(at, 2)).status, Status::Schedulable);
        let heavy = vec![Params::new(34, 100, 100)];
        assert_eq!(analyze(&Bg, &sys(heavy, 2)).status, Status::NotShown);
        // 1/3 + 1/3 + 1/1000 > 2/3.
        let over = vec![
            Params::new(1, 3, 3),
            Params::new(1, 3, 3),
            Params::new(1, 1000, 1000),
        ];
        assert_eq!(analyze(&Bg, &sys(over, 2)).status, Status::NotShown);
        // One CPU: U ≤ 1/3.
        let one = vec![Params::new(1, 6, 6), Params::new(1, 6, 6)];
        assert_eq!(analyze(&Bg, &sys(one, 1)).status, Status::Schedulable);
    }

    #[test]
    fn preconditions() {
        let given = System::from_params(
            vec![
                Params {
                    prio: Some(1),
                    ..Params::new(1, 10, 10)
                },
                Params {
                    prio: Some(0),
                    ..Params::new(1, 20, 20)
                },
            ],
            2,
            Priorities::Given,
        )
        .unwrap();
        assert_eq!(analyze(&Bg, &given).status, Status::NotApplicable);
    }
}
