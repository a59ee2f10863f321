//! `fp-hb`: the hyperbolic bound for rate-monotonic scheduling on one CPU.
//!
//! Bini, Buttazzo & Buttazzo, "Rate Monotonic Analysis: The Hyperbolic Bound", IEEE
//! Transactions on Computers 52(7), 2003, Theorem 1: `n` tasks with implicit deadlines are
//! schedulable under rate-monotonic priorities if `Π (uᵢ + 1) ≤ 2`. It dominates Liu &
//! Layland's bound.
//!
//! Exactness: `Π (Cᵢ + Tᵢ) ≤ 2 Π Tᵢ`, decided by a float filter on `Σ ln(1 + uᵢ)` with a
//! big-integer fallback ([`super::root2::cmp_product_two`]); an intractably large fallback
//! answers "gave up". Assumptions and applicability as `fp-ll`. Complexity: `O(n)`.

use super::{require_rate_monotonic, require_uniprocessor, root2};
use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use std::cmp::Ordering;

/// Hyperbolic bound (`fp-hb`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FpHyperbolic;

impl SchedTest for FpHyperbolic {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "fp-hb".into(),
            family: "uniprocessor",
            kind: Kind::Sufficient,
            citation: "Bini, Buttazzo & Buttazzo, \"Rate Monotonic Analysis: The Hyperbolic \
                       Bound\", IEEE TC 52(7) 2003, Theorem 1",
            assumptions: "one CPU; implicit deadlines; rate-monotonic priorities",
            complexity: "O(n)",
        }
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        require_uniprocessor(sys)?;
        require_rate_monotonic(sys)
    }
    fn run(&self, sys: &System) -> Verdict {
        let ct: Vec<(u64, u64)> = sys.params().iter().map(|p| (p.c, p.t)).collect();
        match root2::cmp_product_two(&ct) {
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

    fn sys(p: &[(u64, u64)]) -> System {
        System::from_params(
            p.iter().map(|&(c, t)| Params::new(c, t, t)).collect(),
            1,
            Priorities::Rm,
        )
        .unwrap()
    }

    #[test]
    fn exact_at_equality_and_beyond_liu_layland() {
        // (1 + 1/2)(1 + 1/3) = 2: accepted although U = 5/6 > 2(√2 − 1) ≈ 0.8284.
        assert_eq!(
            analyze(&FpHyperbolic, &sys(&[(1, 2), (1, 3)])).status,
            Status::Schedulable
        );
        assert_eq!(
            analyze(&super::super::ll::FpLiuLayland, &sys(&[(1, 2), (1, 3)])).status,
            Status::NotShown
        );
        // (1 + 1/2)(1 + 1/3 + 1e-9): not shown.
        assert_eq!(
            analyze(&FpHyperbolic, &sys(&[(1, 2), (333_333_334, 1_000_000_000)])).status,
            Status::NotShown
        );
        assert_eq!(
            analyze(&FpHyperbolic, &sys(&[])).status,
            Status::Schedulable
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn accepted_sets_pass_exact_rta(
            tasks in proptest::collection::vec((1u64..50, 1u64..200), 1..8)
        ) {
            let tasks: Vec<(u64, u64)> = tasks.into_iter().map(|(c, x)| (c, c + x)).collect();
            let s = sys(&tasks);
            if analyze(&FpHyperbolic, &s).is_schedulable() {
                prop_assert!(analyze(&FpRta::default(), &s).is_schedulable());
            }
        }
    }
}
