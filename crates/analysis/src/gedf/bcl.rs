//! `gedf-bcl`: the Bertogna–Cirinei–Lipari G-EDF test.
//!
//! **Paper.** M. Bertogna, M. Cirinei, G. Lipari, "Improved schedulability analysis of EDF on
//! multiprocessor platforms", ECRTS 2005 (the G-EDF theorem of §4). A constrained-deadline
//! sporadic task set is G-EDF-schedulable on `m` processors if for every task `τk`, with
//! `λk = Ck/Dk`, either
//!
//! `Σ_{i≠k} min(βi, 1 − λk) < m·(1 − λk)`, or                                     — Eq. (1)
//! `Σ_{i≠k} min(βi, 1 − λk) = m·(1 − λk)` and `∃ i ≠ k: 0 < βi ≤ 1 − λk`,         — Eq. (2)
//!
//! where `βi = Wi/Dk` and `Wi = Ni·Ci + min(Ci, max(0, Dk − Ni·Ti))`,
//! `Ni = ⌊(Dk − Di)/Ti⌋ + 1` (0 if `Di > Dk`): the work of `τi`'s jobs with deadlines inside
//! the window (`workload::bcl_window_workload`).
//!
//! **Reference.** SchedCAT `native/src/edf/bcl.cpp`, followed exactly (same `Ni`, same
//! strict/equality rule, exact rationals; preconditions feasible tasks, `U ≤ m` → *not shown*
//! here, constrained deadlines → *not applicable* here). Since every `βi` has denominator `Dk`,
//! multiplying Eqs. (1)–(2) by `Dk` makes them integer: `Σ min(Wi, Dk − Ck) < m(Dk − Ck)`, or
//! equality with some `0 < Wi ≤ Dk − Ck` — exact without rationals (sums in `u128`).
//! Note: with `Ck = Dk` no task passes (both sides are 0 and no `βi ≤ 0 < βi` exists), as in
//! SchedCAT, even for `n = 1`.
//!
//! **Assumptions.** Sporadic tasks, constrained deadlines, preemptive G-EDF on `m` identical
//! CPUs. **Complexity.** `O(n²)`; tasks are examined in order of decreasing density and each
//! sum stops once it exceeds the bound (the verdict does not depend on either).

use super::precheck::trivially_infeasible;
use super::workload::bcl_window_workload;
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;

/// The BCL G-EDF test (`gedf-bcl`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Bcl;

impl SchedTest for Bcl {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-bcl".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation:
                "Bertogna, Cirinei & Lipari, ECRTS 2005, 'Improved schedulability analysis of \
                       EDF on multiprocessor platforms', G-EDF theorem (as SchedCAT bcl.cpp)",
            assumptions: "sporadic tasks, constrained deadlines (D ≤ T), preemptive global EDF",
            complexity: "O(n^2)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_constrained()
    }

    fn run(&self, sys: &System) -> Verdict {
        if let Some(reason) = trivially_infeasible(sys) {
            return Verdict::not_shown().because(reason);
        }
        let params = sys.params();
        let m = u128::from(sys.cpus());
        for k in by_decreasing_density(params) {
            if !task_ok(params, k, m) {
                return Verdict::not_shown().because(format!("BCL condition fails for task {k}"));
            }
        }
        Verdict::schedulable()
    }
}

/// Task indices by decreasing density `C/D` (exact cross-multiplication), ties by index.
pub(crate) fn by_decreasing_density(params: &[Params]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..params.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        let (pa, pb) = (params[a], params[b]);
        (u128::from(pb.c) * u128::from(pa.d))
            .cmp(&(u128::from(pa.c) * u128::from(pb.d)))
            .then(a.cmp(&b))
    });
    order
}

/// Eqs. (1)–(2) for `τk`, scaled by `Dk`.
fn task_ok(params: &[Params], k: usize, m: u128) -> bool {
    let Some(&pk) = params.get(k) else {
        return true;
    };
    let cap = pk.d - pk.c; // Dk·(1 − λk)
    let bound = m * u128::from(cap); // Dk·m(1 − λk)
    let mut sum = 0u128;
    let mut small_exists = false;
    for (i, p) in params.iter().enumerate() {
        if i == k {
            continue;
        }
        let w = bcl_window_workload(p.c, p.d, p.t, pk.d); // Dk·βi
        sum += u128::from(w.min(cap));
        small_exists |= 0 < w && w <= cap;
        if sum > bound {
            return false; // terms are ≥ 0: the sum can only grow
        }
    }
    sum < bound || (small_exists && sum == bound)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gedf::testutil::sys;
    use crate::test::analyze;
    use crate::verdict::Status;

    #[test]
    fn hand_worked() {
        // Dhall-style, m = 2: (2, 10, 10) ×2, (10, 11, 11).
        // k = heavy: cap = Dk − Ck = 1, bound = 2; light Wi with Dk = 11: Ni = ⌊1/10⌋ + 1 = 1,
        // carry-in min(2, 11 − 10) = 1 → Wi = 3; min(3, 1) = 1 each → Σ = 2 = bound, and no
        // Wi ≤ 1 → not shown.
        assert_eq!(
            analyze(&Bcl, &sys(&[(2, 10, 10), (2, 10, 10), (10, 11, 11)], 2)).status,
            Status::NotShown
        );
        // Equality case accepted: m = 2, τ = (1, 2, 2) ×3.
        // k: cap = 1, bound = 2; Wi (Dk = 2): Ni = 1, carry-in min(1, 0) = 0 → Wi = 1 ≤ cap;
        // Σ = 2 = bound with a small βi → schedulable (U = 3/2).
        assert!(analyze(&Bcl, &sys(&[(1, 2, 2); 3], 2)).is_schedulable());
        // Four of them (U = 2): Σ = 3 > 2 → not shown.
        assert_eq!(
            analyze(&Bcl, &sys(&[(1, 2, 2); 4], 2)).status,
            Status::NotShown
        );
        // Strict case: m = 2, (1, 4, 4) ×3: cap 3, bound 6, Wi = 1 each → Σ = 2 < 6.
        assert!(analyze(&Bcl, &sys(&[(1, 4, 4); 3], 2)).is_schedulable());
    }

    #[test]
    fn full_density_task_is_never_accepted() {
        // Ck = Dk: both sides 0, no βi ≤ 0 → not shown, even alone (as SchedCAT).
        assert_eq!(
            analyze(&Bcl, &sys(&[(5, 5, 10)], 2)).status,
            Status::NotShown
        );
        assert!(analyze(&Bcl, &sys(&[(4, 5, 10)], 1)).is_schedulable());
        assert!(analyze(&Bcl, &sys(&[], 1)).is_schedulable());
    }
}
