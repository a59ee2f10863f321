//! `fp-ll`: Liu & Layland's utilization bound for rate-monotonic scheduling on one CPU.
//!
//! Liu & Layland, "Scheduling Algorithms for Multiprogramming in a Hard-Real-Time
//! Environment", JACM 20(1), 1973, Theorem 5: `n` tasks with implicit deadlines are schedulable
//! under rate-monotonic priorities if `U ≤ n(2^{1/n} − 1)`.
//!
//! Exactness: the bound is irrational; `U ≤ n(2^{1/n} − 1) ⇔ (1 + U/n)^n ≤ 2`, decided by a
//! logarithmic float filter with a big-integer fallback ([`super::root2`]); an intractably large
//! fallback answers "gave up". `n = 0` is trivially schedulable.
//! Assumptions: implicit deadlines, one CPU, priorities that are rate monotonic (`rm`, `dm`, or
//! a `given` order that is rate monotonic — any tie order among equal periods is fine).
//! Complexity: `O(n)`.

use super::{require_rate_monotonic, require_uniprocessor, root2};
use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use schedlab_model::exact::Frac;
use std::cmp::Ordering;

/// Liu & Layland bound (`fp-ll`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FpLiuLayland;

impl SchedTest for FpLiuLayland {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "fp-ll".into(),
            family: "uniprocessor",
            kind: Kind::Sufficient,
            citation: "Liu & Layland, \"Scheduling Algorithms for Multiprogramming in a \
                       Hard-Real-Time Environment\", JACM 20(1) 1973, Theorem 5",
            assumptions: "one CPU; implicit deadlines; rate-monotonic priorities",
            complexity: "O(n)",
        }
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        require_uniprocessor(sys)?;
        require_rate_monotonic(sys)
    }
    fn run(&self, sys: &System) -> Verdict {
        let params = sys.params();
        let n = params.len() as u64;
        if n == 0 {
            return Verdict::sufficient(true);
        }
        let util = || params.iter().map(|p| Frac::ratio(p.c, p.t));
        match root2::cmp_sum_root2(util, n, n) {
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
    use crate::uni::rta::FpRta;
    use crate::verdict::Status;
    use proptest::prelude::*;

    fn sys(p: &[(u64, u64)], prio: Priorities) -> System {
        System::from_params(
            p.iter().map(|&(c, t)| Params::new(c, t, t)).collect(),
            1,
            prio,
        )
        .unwrap()
    }

    #[test]
    fn bound_for_two_tasks() {
        // 2(√2 − 1) = 0.828427…: U = 0.8284 accepted, U = 0.8285 not shown.
        let s = sys(&[(4142, 10000), (4142, 10000)], Priorities::Rm);
        assert_eq!(analyze(&FpLiuLayland, &s).status, Status::Schedulable);
        let s = sys(&[(4143, 10000), (4142, 10000)], Priorities::Rm);
        assert_eq!(analyze(&FpLiuLayland, &s).status, Status::NotShown);
        // n = 1: bound 1, exact at equality.
        let s = sys(&[(7, 7)], Priorities::Dm);
        assert_eq!(analyze(&FpLiuLayland, &s).status, Status::Schedulable);
        assert_eq!(
            analyze(&FpLiuLayland, &sys(&[], Priorities::Rm)).status,
            Status::Schedulable
        );
    }

    #[test]
    fn preconditions() {
        let p = vec![Params::new(1, 5, 10)];
        let s = System::from_params(p, 1, Priorities::Rm).unwrap();
        assert_eq!(analyze(&FpLiuLayland, &s).status, Status::NotApplicable);
        // A given order that is not rate monotonic.
        let p = vec![
            Params {
                prio: Some(1),
                ..Params::new(1, 10, 10)
            },
            Params {
                prio: Some(2),
                ..Params::new(1, 5, 5)
            },
        ];
        let s = System::from_params(p.clone(), 1, Priorities::Given).unwrap();
        let v = analyze(&FpLiuLayland, &s);
        assert_eq!(v.status, Status::NotApplicable);
        assert!(v.reason.unwrap().contains("rate-monotonic"));
        let mut q = p;
        q[0].prio = Some(3);
        let s = System::from_params(q, 1, Priorities::Given).unwrap();
        assert_eq!(analyze(&FpLiuLayland, &s).status, Status::Schedulable);
        let s = System::from_params(vec![Params::new(1, 5, 5)], 2, Priorities::Rm).unwrap();
        assert_eq!(analyze(&FpLiuLayland, &s).status, Status::NotApplicable);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn accepted_sets_pass_exact_rta(
            tasks in proptest::collection::vec((1u64..50, 1u64..200), 1..8)
        ) {
            let tasks: Vec<(u64, u64)> = tasks.into_iter().map(|(c, x)| (c, c + x)).collect();
            let s = sys(&tasks, Priorities::Rm);
            if analyze(&FpLiuLayland, &s).is_schedulable() {
                prop_assert!(analyze(&FpRta::default(), &s).is_schedulable());
                prop_assert!(analyze(&super::super::hb::FpHyperbolic, &s).is_schedulable());
            }
        }
    }
}
