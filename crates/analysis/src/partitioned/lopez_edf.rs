//! `pedf-lopez`: López, Díaz & García's utilization bound for partitioned EDF.
//!
//! López, Díaz & García, "Utilization Bounds for EDF Scheduling on Real-Time Multiprocessor
//! Systems", Real-Time Systems 28(1), 2004, Theorem 4 (bound of EDF with first fit and every
//! other "reasonable allocation" attaining the maximum): with `β = ⌊1/u_max⌋` (the number of
//! tasks of utilization `u_max` that always fit on one CPU),
//! * if `n ≤ β·m`, every such task set is schedulable (β tasks per CPU fit);
//! * otherwise it is schedulable if `U ≤ (β·m + 1)/(β + 1)`.
//!
//! Discrepancy: [ChronOS §6.12, Eq. (6.12)] states the bound as `U < (mβ + 1)/(β + 1)` with
//! `β = 1/U_max` — no floor and a strict inequality. Without the floor the bound is not the
//! paper's (it exceeds it whenever `1/u_max` is not an integer, and is then unsafe); we
//! implement the original with the floor and `≤`.
//!
//! Exact: `β = ⌊T/C⌋` of the task of maximum utilization (exact rational maximum), and the sum
//! is compared with the rational bound by the filtered exact [`cmp_sum`].
//! Assumptions: implicit deadlines, independent periodic/sporadic tasks, `m` identical CPUs.
//! Complexity: `O(n)`.

use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// López et al. bound for P-EDF (`pedf-lopez`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PedfLopez;

impl SchedTest for PedfLopez {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "pedf-lopez".into(),
            family: "partitioned",
            kind: Kind::Sufficient,
            citation: "López, Díaz & García, \"Utilization Bounds for EDF Scheduling on \
                       Real-Time Multiprocessor Systems\", Real-Time Systems 28(1) 2004, \
                       Theorem 4: U ≤ (βm+1)/(β+1), β = ⌊1/u_max⌋ [ChronOS Eq. (6.12)]",
            assumptions: "implicit deadlines; independent sporadic tasks; partitioned EDF with \
                          first fit (or any reasonable allocation attaining the bound)",
            complexity: "O(n)",
        }
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_implicit()
    }
    fn run(&self, sys: &System) -> Verdict {
        let params = sys.params();
        let Some(heaviest) = params
            .iter()
            .max_by(|a, b| Frac::ratio(a.c, a.t).cmp_exact(Frac::ratio(b.c, b.t)))
        else {
            return Verdict::sufficient(true);
        };
        let m = u128::from(sys.cpus());
        let beta = u128::from(heaviest.t / heaviest.c); // ⌊1/u_max⌋ ≥ 1
        if params.len() as u128 <= beta * m {
            return Verdict::sufficient(true).because(format!("n ≤ β·m with β = {beta}"));
        }
        // β ≤ 2^64 and m < 2^32, so β·m + 1 fits i128.
        let bound = Frac::new((beta * m + 1) as i128, (beta + 1) as i128);
        let util = || params.iter().map(|p| Frac::ratio(p.c, p.t));
        Verdict::sufficient(cmp_sum(util, bound) != Ordering::Greater)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::system::{Params, Priorities};
    use crate::test::analyze;
    use crate::verdict::Status;

    fn sys(p: &[(u64, u64)], m: u32) -> System {
        System::from_params(
            p.iter().map(|&(c, t)| Params::new(c, t, t)).collect(),
            m,
            Priorities::Dm,
        )
        .unwrap()
    }

    #[test]
    fn bound_with_floor() {
        // u_max = 0.4 → β = ⌊2.5⌋ = 2; m = 2, n = 5 > 4: bound (2·2+1)/3 = 5/3.
        // U = 0.4 + 4·0.3175 = 1.67 > 5/3 = 1.6667: not shown; 4·0.3 + 0.4 = 1.6 ≤ 5/3.
        let s = sys(&[(4, 10), (3, 10), (3, 10), (3, 10), (3, 10)], 2);
        assert_eq!(analyze(&PedfLopez, &s).status, Status::Schedulable);
        let s = sys(
            &[
                (4000, 10000),
                (3175, 10000),
                (3175, 10000),
                (3175, 10000),
                (3175, 10000),
            ],
            2,
        );
        assert_eq!(analyze(&PedfLopez, &s).status, Status::NotShown);
        // Exactly at the bound: 0.4 + 4·(1.2667/4) with U = 5/3: 2/5 + 4·(19/60) = 5/3.
        let s = sys(&[(2, 5), (19, 60), (19, 60), (19, 60), (19, 60)], 2);
        assert_eq!(analyze(&PedfLopez, &s).status, Status::Schedulable);
        let s = sys(&[(2, 5), (19, 60), (19, 60), (19, 60), (191, 600)], 2);
        assert_eq!(analyze(&PedfLopez, &s).status, Status::NotShown);
    }

    #[test]
    fn few_tasks_always_fit() {
        // u = 0.5 → β = 2; n = 4 ≤ 2·2: schedulable although U = 2 = m.
        let s = sys(&[(1, 2); 4], 2);
        assert_eq!(analyze(&PedfLopez, &s).status, Status::Schedulable);
        let s = sys(&[(1, 2); 5], 2);
        assert_eq!(analyze(&PedfLopez, &s).status, Status::NotShown);
        assert_eq!(
            analyze(&PedfLopez, &sys(&[], 3)).status,
            Status::Schedulable
        );
        let s = System::from_params(vec![Params::new(1, 2, 3)], 1, Priorities::Dm).unwrap();
        assert_eq!(analyze(&PedfLopez, &s).status, Status::NotApplicable);
    }
}
