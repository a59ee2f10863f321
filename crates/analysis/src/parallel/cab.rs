//! `gedf-cab`: the capacity augmentation bound of global EDF for parallel (DAG) tasks.
//!
//! **Paper.** J. Li, J.-J. Chen, K. Agrawal, C. Lu, C. Gill, A. Saifullah, "Analysis of
//! federated and global scheduling for parallel real-time tasks", ECRTS 2014: G-EDF has a
//! capacity augmentation bound of `b = (3 + √5)/2 ≈ 2.618` (tight for large `m`; the earlier
//! bound of the same line of work was `4 − 2/m`, ECRTS 2013). Read as a test: an
//! implicit-deadline task set is G-EDF-schedulable on `m` CPUs if
//! - (1) the total utilization `U = Σ Ci/Ti ≤ m/b`, and
//! - (2) every task's critical path `Li ≤ Di/b`.
//!
//! A fork-join task [RTWS §III] is a DAG (each region's threads depend on every thread of the
//! previous region); a sequential task is a DAG of one node (`L = C`).
//!
//! **Exactness.** `b` is irrational; with `b = (3 + √5)/2`, `x·b ≤ y` (x, y ≥ 0) is
//! `√5·x ≤ 2y − 3x`, i.e. `2y − 3x ≥ 0` and `5x² ≤ (2y − 3x)²` — integers (big integers for
//! the utilization sum), no floating point.
//!
//! **Assumptions.** Sporadic DAG (fork-join) tasks with implicit deadlines (`D = T`);
//! preemptive G-EDF over the tasks' threads (every ready thread is schedulable on any CPU,
//! in the order of its job's deadline); no overheads. It does not cover RTWS (module
//! [`crate::parallel`]). **Complexity.** `O(n)` big-integer operations.

use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};

/// `b` rounded, for messages only.
const B_APPROX: f64 = 2.618_033_988_749_895;

/// The capacity augmentation test of G-EDF for parallel tasks (`gedf-cab`).
#[derive(Clone, Copy, Debug, Default)]
pub struct GedfCab;

/// Whether `x·b ≤ y` for `b = (3 + √5)/2` and rationals `x, y ≥ 0` (module doc).
pub fn times_b_at_most(x: &BigRational, y: &BigRational) -> bool {
    let two = BigRational::from_integer(BigInt::from(2));
    let three = BigRational::from_integer(BigInt::from(3));
    let five = BigRational::from_integer(BigInt::from(5));
    let rest = &two * y - &three * x;
    !rest.is_negative() && &five * x * x <= &rest * &rest
}

impl SchedTest for GedfCab {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-cab".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation:
                "Li, Chen, Agrawal, Lu, Gill & Saifullah, ECRTS 2014: capacity augmentation bound \
                       b = (3+√5)/2 of global EDF for DAG tasks; test U ≤ m/b and L_i ≤ D_i/b",
            assumptions:
                "sporadic fork-join (DAG) or sequential tasks, implicit deadlines (D = T), \
                          preemptive global EDF over threads; not proven for RTWS",
            complexity: "O(n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_implicit()
    }

    fn run(&self, sys: &System) -> Verdict {
        let ratio = |a: u64, b: u64| BigRational::new(BigInt::from(a), BigInt::from(b));
        for (i, p) in sys.params().iter().enumerate() {
            let span = BigRational::from_integer(BigInt::from(sys.span(i)));
            let deadline = BigRational::from_integer(BigInt::from(p.d));
            if !times_b_at_most(&span, &deadline) {
                // The decision is exact; the quotient is shown rounded (µs).
                let limit_us = p.d as f64 / B_APPROX / 1e3;
                return Verdict::not_shown().because(format!(
                    "task {i}: critical path {} exceeds D/b = {} / 2.618… = {limit_us:.1}us",
                    schedlab_model::Duration::from_ns(sys.span(i)),
                    schedlab_model::Duration::from_ns(p.d),
                ));
            }
        }
        let total = sys
            .params()
            .iter()
            .fold(BigRational::zero(), |acc, p| acc + ratio(p.c, p.t));
        let m = BigRational::from_integer(BigInt::from(sys.cpus()));
        if !times_b_at_most(&total, &m) {
            return Verdict::not_shown().because(format!(
                "total utilization exceeds m/b = {}/2.618…",
                sys.cpus()
            ));
        }
        Verdict::schedulable()
    }

    fn handles_parallel(&self) -> bool {
        true
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::system::Priorities;
    use crate::test::analyze;
    use crate::verdict::Status;
    use schedlab_model::{Duration, ParallelStructure, Task};

    fn r(a: i64, b: i64) -> BigRational {
        BigRational::new(BigInt::from(a), BigInt::from(b))
    }

    /// b = 2.6180339887…: 1000·b ≤ 2619 but not ≤ 2618; 0·b ≤ 0.
    #[test]
    fn the_irrational_comparison_is_exact() {
        assert!(times_b_at_most(&r(1000, 1), &r(2619, 1)));
        assert!(!times_b_at_most(&r(1000, 1), &r(2618, 1)));
        assert!(times_b_at_most(&r(0, 1), &r(0, 1)));
        // b² = 3b − 1: b·b ≤ 3b − 1 holds with equality, here as x = 1, y = b rounded both ways.
        assert!(times_b_at_most(
            &r(1, 1),
            &r(26_180_339_888, 10_000_000_000)
        ));
        assert!(!times_b_at_most(
            &r(1, 1),
            &r(26_180_339_887, 10_000_000_000)
        ));
    }

    fn ms(x: u64) -> Duration {
        Duration::from_ms(x).unwrap()
    }

    /// Hand-worked on 4 CPUs (m/b = 1.5279): a fork-join task of work 60 and critical path
    /// 20 per 100 (u = 0.6, L = 20 ≤ 100/b = 38.2) and a sequential 30/100 (u = 0.3, L = 30):
    /// U = 0.9 ≤ 1.528 → schedulable. A critical path of 40 > 38.2 is not shown; so is a
    /// total of 1.6 > 1.528.
    #[test]
    fn hand_worked_sets() {
        let fj = |pre: u64, threads: Vec<u64>, t: u64| {
            let p = ParallelStructure::from_threads(vec![
                vec![ms(pre)],
                threads.into_iter().map(ms).collect(),
            ])
            .unwrap();
            Task::implicit(ms(1), ms(t)).unwrap().with_parallel(p)
        };
        let seq = |c: u64, t: u64| Task::implicit(ms(c), ms(t)).unwrap();
        let verdict = |tasks: Vec<Task>| {
            let sys = System::new(&tasks, 4, Priorities::Dm).unwrap();
            analyze(&GedfCab, &sys)
        };
        // Work 10 + 5·10 = 60, critical path 10 + 10 = 20.
        let ok = verdict(vec![fj(10, vec![10; 5], 100), seq(30, 100)]);
        assert_eq!(ok.status, Status::Schedulable, "{ok:?}");
        // Critical path 30 + 10 = 40 > 38.2.
        let long = verdict(vec![fj(30, vec![10; 3], 100), seq(30, 100)]);
        assert_eq!(long.status, Status::NotShown);
        assert!(long.reason.unwrap().starts_with("task 0: critical path"));
        // U = 0.6 + 4·0.25 = 1.6 > 1.528 (each L ≤ 38.2).
        let full = verdict(vec![
            fj(10, vec![10; 5], 100),
            seq(25, 100),
            seq(25, 100),
            seq(25, 100),
            seq(25, 100),
        ]);
        assert_eq!(full.status, Status::NotShown);
        assert!(full.reason.unwrap().starts_with("total utilization"));
    }

    /// Constrained deadlines are outside the bound's model.
    #[test]
    fn implicit_deadlines_only() {
        let t = Task::new(ms(1), ms(5), ms(10)).unwrap();
        let sys = System::new(&[t], 2, Priorities::Dm).unwrap();
        assert_eq!(analyze(&GedfCab, &sys).status, Status::NotApplicable);
    }
}
