//! `pfp-lopez`: López, Díaz & García's utilization bound for partitioned rate-monotonic
//! scheduling.
//!
//! López, Díaz & García, "Minimum and Maximum Utilization Bounds for Multiprocessor Rate
//! Monotonic Scheduling", IEEE TPDS 15(7), 2004 (ECRTS 2001): with Liu & Layland's bound as the
//! per-CPU condition, the maximum bound over all reasonable allocations — attained by first
//! fit decreasing and best fit decreasing — is, with `β = ⌊1/log₂(1 + u_max)⌋` (the number of
//! tasks of utilization `u_max` that pass Liu & Layland's test on one CPU),
//! * every task set with `n ≤ β·m` (β tasks per CPU always fit);
//! * otherwise `U ≤ (β·m + 1)(2^{1/(β+1)} − 1)`; for `β = 1` this is `(m + 1)(√2 − 1)`.
//!
//! Discrepancy: [ChronOS §6.11, Eq. (6.11)] writes `U < (mβ + 1)(2^{1/(β+1)} − 1)` with
//! `β = 1/log₂(U_max + 1)` — no floor, strict inequality. Without the floor `β` is not an
//! integer and the bound is not the paper's (it is larger, hence unsafe); we implement the
//! original with the floor and `≤`. Note also that the TPDS paper names processors `n` and
//! tasks `m`; here `m` is the number of CPUs.
//!
//! Exact: `β` is computed with exact integer powers (`(1 + u)^β ≤ 2 < (1 + u)^{β+1}`), the bound
//! compared through `(1 + U/a)^k ≤ 2` ([`crate::uni::root2`]); an intractably large exact
//! fallback answers "gave up".
//! Assumptions: implicit deadlines; rate-monotonic priorities (`rm`, `dm`, or a rate-monotonic
//! `given` order); `m` identical CPUs. Complexity: `O(n)` plus the exact fallbacks.

use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::uni::{require_rate_monotonic, root2};
use crate::verdict::Verdict;
use schedlab_model::exact::Frac;
use std::cmp::Ordering;

/// López et al. bound for P-RM (`pfp-lopez`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PfpLopez;

impl SchedTest for PfpLopez {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "pfp-lopez".into(),
            family: "partitioned",
            kind: Kind::Sufficient,
            citation: "López, Díaz & García, \"Minimum and Maximum Utilization Bounds for \
                       Multiprocessor Rate Monotonic Scheduling\", IEEE TPDS 15(7) 2004: \
                       U ≤ (βm+1)(2^{1/(β+1)}−1), β = ⌊1/log₂(1+u_max)⌋ [ChronOS Eq. (6.11)]",
            assumptions: "implicit deadlines; rate-monotonic priorities; partitioned FP with \
                          first/best fit decreasing",
            complexity: "O(n)",
        }
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        require_rate_monotonic(sys)
    }
    fn run(&self, sys: &System) -> Verdict {
        let params = sys.params();
        let Some(heaviest) = params
            .iter()
            .max_by(|a, b| Frac::ratio(a.c, a.t).cmp_exact(Frac::ratio(b.c, b.t)))
        else {
            return Verdict::sufficient(true);
        };
        let m = u64::from(sys.cpus());
        let n = params.len() as u64;
        // Only β < ⌈n/m⌉ matters: beyond that n ≤ β·m.
        let cap = n.div_ceil(m);
        let beta = match root2::beta_llb(heaviest.c, heaviest.t, cap) {
            Ok(b) => b,
            Err(r) => return Verdict::gave_up(r),
        };
        if u128::from(n) <= u128::from(beta) * u128::from(m) {
            return Verdict::sufficient(true).because(format!("n ≤ β·m with β = {beta}"));
        }
        // Here β < ⌈n/m⌉ ≤ n, so β·m + 1 ≤ n·m + 1 fits u64 for any realistic n.
        let a = beta.saturating_mul(m).saturating_add(1);
        let util = || params.iter().map(|p| Frac::ratio(p.c, p.t));
        match root2::cmp_sum_root2(util, a, beta + 1) {
            Ok(o) => Verdict::sufficient(o != Ordering::Greater),
            Err(r) => Verdict::gave_up(r),
        }
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
            Priorities::Rm,
        )
        .unwrap()
    }

    #[test]
    fn beta_one_gives_m_plus_one_times_root2_minus_one() {
        // u_max = 0.5 > √2 − 1 → β = 1. m = 2, n = 3 > 2: bound 3(√2 − 1) = 1.242640…
        let s = sys(&[(5000, 10000), (3713, 10000), (3713, 10000)], 2); // U = 1.2426
        assert_eq!(analyze(&PfpLopez, &s).status, Status::Schedulable);
        let s = sys(&[(5000, 10000), (3714, 10000), (3713, 10000)], 2); // U = 1.2427
        assert_eq!(analyze(&PfpLopez, &s).status, Status::NotShown);
    }

    #[test]
    fn beta_three_and_few_tasks() {
        // u_max = 0.25 → (1.25)^3 = 1.95 ≤ 2 < 1.25^4: β = 3. m = 2, n = 6 ≤ 6: schedulable.
        let s = sys(&[(1, 4); 6], 2);
        assert_eq!(analyze(&PfpLopez, &s).status, Status::Schedulable);
        // n = 7 > 6: bound 7(2^{1/4} − 1) = 1.32445…; U = 7/4: not shown.
        let s = sys(&[(1, 4); 7], 2);
        assert_eq!(analyze(&PfpLopez, &s).status, Status::NotShown);
        // n = 7 with U = 0.25 + 6·0.179 = 1.324 ≤ 1.32445: schedulable.
        let mut t = vec![(179, 1000); 6];
        t.push((250, 1000));
        assert_eq!(analyze(&PfpLopez, &sys(&t, 2)).status, Status::Schedulable);
        assert_eq!(analyze(&PfpLopez, &sys(&[], 2)).status, Status::Schedulable);
    }
}
