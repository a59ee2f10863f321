//! `gfifo-soft`: bounded tardiness under global FIFO (jobs served in release order).
//!
//! **Condition.** H. Leontyev and J. H. Anderson, "Tardiness Bounds for FIFO Scheduling on
//! Multiprocessors", ECRTS 2007 (cited by [ChronOS §6.2]): tardiness under G-FIFO is bounded
//! iff `U ≤ m` and every `uᵢ ≤ 1`. Both conditions are also necessary for any scheduler, so
//! their failure is answered "unschedulable".
//!
//! **Bound — not Leontyev & Anderson's formula.** The per-task bound of the ECRTS 2007 paper
//! could not be retrieved verbatim with the available sources, so instead of guessing it we use
//! a bound whose derivation and reference implementation we could check: G-FIFO is the G-EDF-
//! like ("GEL") scheduler whose priority point is the release time (`Yᵢ = 0` for every task),
//! and GEL schedulers are covered by the compliant-vector analysis of J. P. Erickson,
//! U. C. Devi and S. K. Baruah, "Improved Tardiness Bounds for Global EDF", ECRTS 2010, in the
//! GEL form of J. P. Erickson and J. H. Anderson, "Fair Lateness Scheduling: Reducing Maximum
//! Lateness in G-EDF-like Scheduling", ECRTS 2012 (SchedCAT `schedcat/sched/edf/gel_pl.py`,
//! `compute_response_bounds` with every `prio_pt = 0` and the exact `rounds = 0` mode).
//! With `Yᵢ = 0`: `Sᵢ = Cᵢ·(1 − Yᵢ/Tᵢ) = Cᵢ`, `S = Σ Cᵢ`, and the per-task line
//!
//! ```text
//!   Gᵢ(s) = uᵢ·s + Cᵢ − Cᵢ·uᵢ/m − Sᵢ = uᵢ·(s − Cᵢ/m).
//! ```
//!
//! `s*` is the least `s ≥ 0` with `Σ_{⌈U⌉−1 largest} Gᵢ(s) + S − m·s ≤ 0`, and the response
//! time of `τi` is at most `Rᵢ = ⌈s* + Cᵢ·(m − 1)/m⌉`; the tardiness bound is
//! `max(0, Rᵢ − Dᵢ)`.
//!
//! **Exact `s*`.** The top-`k` sum is the maximum over `k`-subsets `A`, and each
//! `f_A(s) = Σ_A Gᵢ(s) + S − m·s` is linear with slope `Σ_A uᵢ − m < 0` (`k ≤ m − 1`), so
//! `s* = max_A s_A` with `s_A = (S − Σ_A Cᵢ·uᵢ/m) / (m − Σ_A uᵢ)`. We find the maximizing
//! `A` by Dinkelbach's iteration in exact big rationals: from `s = s_A`, take `A'` = the `k`
//! largest `Gᵢ(s)`; stop when `s_{A'} ≤ s`, else continue from `s_{A'}` (strictly increasing
//! over finitely many subsets; in practice 1–3 rounds). A documented iteration limit
//! (`max_iterations`, default 1000) answers "gave up" if ever reached.
//!
//! **Assumptions.** Sporadic tasks, arbitrary deadlines (the analysis bounds response times
//! independently of `Dᵢ`; FIFO ignores deadlines), preemptive job-level-fixed-priority FIFO
//! (ties by task index), identical CPUs, no overheads. Under FIFO a job is preempted only
//! by an earlier-released job that became ready late, so the schedule is nearly
//! non-preemptive; the analysis covers the preemptive model of the papers.
//!
//! **Edge cases.** `m = 1`: `k = 0`, `s* = Σ C`, i.e. `R = Σ C` (uniprocessor FIFO backlog
//! bound). `U ≤ 1`: `s* = Σ C / m`.
//!
//! **Complexity.** `O(n log n)` big-rational operations per Dinkelbach round.

use super::common::{cmp_util, lambda, some_util_above_one, total_util_at_most, UNBOUNDED_U};
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use schedlab_model::Duration;
use std::cmp::Ordering;

/// G-FIFO bounded-tardiness test with GEL compliant-vector bounds (`Yᵢ = 0`).
#[derive(Clone, Copy, Debug)]
pub struct GfifoSoft {
    /// Work limit: Dinkelbach rounds before "gave up" (default 1000; never reached in tests).
    pub max_iterations: u32,
}

impl Default for GfifoSoft {
    fn default() -> GfifoSoft {
        GfifoSoft {
            max_iterations: 1000,
        }
    }
}

/// `s_A = (S − Σ_A Cᵢ²/(m·Tᵢ)) / (m − Σ_A Cᵢ/Tᵢ)`, exactly.
fn root(set: &[Params], total_cost: &BigInt, m: u64) -> BigRational {
    let mut sq = BigRational::zero();
    let mut u = BigRational::zero();
    for p in set {
        let c = BigInt::from(p.c);
        sq += BigRational::new(&c * &c, BigInt::from(p.t) * BigInt::from(m));
        u += BigRational::new(c, BigInt::from(p.t));
    }
    let num = BigRational::from_integer(total_cost.clone()) - sq;
    let den = BigRational::from_integer(BigInt::from(m)) - u;
    num / den
}

/// The `k` tasks with the largest `Gᵢ(s) = uᵢ·(s − Cᵢ/m)` at `s = P/Q`. Ordering by
/// `Cᵢ·(m·P − Cᵢ·Q)/Tᵢ` (the common factor `1/(m·Q) > 0` dropped), compared by
/// cross-multiplication.
fn top_g(params: &[Params], k: usize, s: &BigRational, m: u64) -> Vec<Params> {
    let mp = s.numer() * BigInt::from(m);
    let q = s.denom();
    let mut keyed: Vec<(BigInt, Params)> = params
        .iter()
        .map(|p| {
            let c = BigInt::from(p.c);
            (&c * (&mp - &c * q), *p)
        })
        .collect();
    let desc = |a: &(BigInt, Params), b: &(BigInt, Params)| -> Ordering {
        (&b.0 * BigInt::from(a.1.t)).cmp(&(&a.0 * BigInt::from(b.1.t)))
    };
    if k < keyed.len() && k > 0 {
        keyed.select_nth_unstable_by(k - 1, desc);
    }
    keyed.into_iter().take(k).map(|(_, p)| p).collect()
}

/// `s*` of the module doc, or `Err(())` if the iteration limit was hit.
fn fifo_s(params: &[Params], m: u64, k: usize, limit: u32) -> Result<BigRational, ()> {
    let total: BigInt = params.iter().map(|p| BigInt::from(p.c)).sum();
    // Start from the k largest utilizations (the optimal set for large s).
    let mut start: Vec<Params> = params.to_vec();
    if k > 0 && k < start.len() {
        start.select_nth_unstable_by(k - 1, |a, b| cmp_util(b, a));
    }
    start.truncate(k);
    let mut s = root(&start, &total, m);
    if k == 0 {
        return Ok(s);
    }
    for _ in 0..limit {
        let next = root(&top_g(params, k, &s, m), &total, m);
        if next <= s {
            return Ok(s);
        }
        s = next;
    }
    Err(())
}

impl SchedTest for GfifoSoft {
    fn params(&self) -> Vec<Param> {
        vec![Param::new(
            "max_iterations",
            self.max_iterations,
            "iterations of the s* search before giving up",
        )]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "max_iterations" => self.max_iterations = param::parse_u32(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gfifo-soft".into(),
            family: "global-fifo",
            kind: Kind::Soft,
            citation: "condition: Leontyev & Anderson, ECRTS 2007 [ChronOS §6.2]; bound: GEL \
                       compliant vectors, Erickson, Devi & Baruah ECRTS 2010 / Erickson & \
                       Anderson ECRTS 2012 with priority points at release (SchedCAT gel_pl.py)",
            assumptions: "sporadic, arbitrary deadlines, global FIFO; bounded iff U ≤ m and \
                          every u ≤ 1",
            complexity: "O(n log n) big-rational operations per Dinkelbach round (few rounds)",
        }
    }

    fn check(&self, _sys: &System) -> Result<(), String> {
        Ok(())
    }

    fn run(&self, sys: &System) -> Verdict {
        let params = sys.params();
        if params.is_empty() {
            return Verdict::schedulable().with_tardiness(Vec::new());
        }
        if let Some(i) = some_util_above_one(params) {
            return Verdict::unschedulable().because(format!(
                "task {i} has utilization above 1 (C > T): its tardiness grows without bound"
            ));
        }
        let m = u64::from(sys.cpus());
        if !total_util_at_most(params, m) {
            return Verdict::unschedulable().because(UNBOUNDED_U);
        }
        let k = usize::try_from(lambda(params)).unwrap_or(usize::MAX); // ⌈U⌉ − 1 ≤ m − 1
        let Ok(s) = fifo_s(params, m, k, self.max_iterations) else {
            return Verdict::gave_up(format!(
                "Dinkelbach iteration limit (max_iterations = {}) reached",
                self.max_iterations
            ));
        };
        // Rᵢ = ⌈s* + Cᵢ(m − 1)/m⌉ = ⌈(m·P + Cᵢ(m − 1)·Q) / (m·Q)⌉.
        let (p_num, q) = (s.numer(), s.denom());
        let mb = BigInt::from(m);
        let den = &mb * q;
        let mut bounds = Vec::with_capacity(params.len());
        for p in params {
            let num = &mb * p_num + BigInt::from(p.c) * BigInt::from(m - 1) * q;
            let r = num.div_ceil(&den);
            let tard = r - BigInt::from(p.d);
            let tard = if tard.sign() == num_bigint::Sign::Minus {
                0
            } else {
                match tard.to_u64() {
                    Some(v) => v,
                    None => return Verdict::not_shown().because(super::common::OVERFLOW),
                }
            };
            bounds.push(Duration::from_ns(tard));
        }
        Verdict::schedulable().with_tardiness(bounds)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::soft::gedf_soft::bounds_ns;
    use crate::system::Priorities;
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    fn sys(tasks: &[(u64, u64, u64)], m: u32) -> System {
        let p = tasks
            .iter()
            .map(|&(c, d, t)| Params::new(c, d, t))
            .collect();
        System::from_params(p, m, Priorities::Dm).unwrap()
    }
    fn imp(tasks: &[(u64, u64)], m: u32) -> System {
        let t: Vec<_> = tasks.iter().map(|&(c, t)| (c, t, t)).collect();
        sys(&t, m)
    }

    #[test]
    fn hand_worked_two_cpus() {
        // m = 2, (C, T) = (2, 3), (2, 3), (4, 6): U = 2 → k = ⌈U⌉ − 1 = 1, S = 8.
        // 1-subsets: s_{τ0} = s_{τ1} = (8 − 2·(2/3)/2)/(2 − 2/3) = (22/3)/(4/3) = 5.5;
        // s_{τ2} = (8 − 4·(2/3)/2)/(2 − 2/3) = (20/3)/(4/3) = 5. s* = 5.5.
        // R = ⌈5.5 + C/2⌉ = 7, 7, 8 → tardiness 7 − 3 = 4, 4, 8 − 6 = 2.
        let v = analyze(&GfifoSoft::default(), &imp(&[(2, 3), (2, 3), (4, 6)], 2));
        assert_eq!(v.status, Status::Schedulable);
        assert_eq!(bounds_ns(&v), vec![4, 4, 2]);
    }

    #[test]
    fn dinkelbach_needs_the_right_subset() {
        // m = 3, (C, T) = (1, 1) [u = 1], (10, 40) [u = 1/4], (10, 40), (3, 4) [u = 3/4]:
        // U = 2.25 → k = 2, S = 24. Candidate 2-subsets (Y = −C·u/m):
        //  Y: (1,1) −1/3; (10,40) −5/6; (3,4) −3/4.
        //  {(1,1),(3,4)}: (24 − 1/3 − 3/4)/(3 − 7/4) = (275/12)/(5/4) = 55/3 = 18.33
        //  {(1,1),(10,40)}: (24 − 1/3 − 5/6)/(3 − 5/4) = (137/6)/(7/4) = 274/21 = 13.05
        //  {(10,40),(10,40)}: (24 − 5/3)/(3 − 1/2) = (67/3)/(5/2) = 134/15 = 8.93
        //  {(10,40),(3,4)}: (24 − 5/6 − 3/4)/(3 − 1) = (269/12)/2 = 269/24 = 11.2
        // s* = 55/3. R = ⌈55/3 + 2C/3⌉: (1,1): ⌈57/3⌉ = 19; (10,40): ⌈75/3⌉ = 25;
        // (3,4): ⌈61/3⌉ = 21. Tardiness 18, 0, 0, 17.
        let v = analyze(
            &GfifoSoft::default(),
            &imp(&[(1, 1), (10, 40), (10, 40), (3, 4)], 3),
        );
        assert_eq!(bounds_ns(&v), vec![18, 0, 0, 17]);
    }

    #[test]
    fn uniprocessor_and_light_load() {
        // m = 1, (1, 2), (10, 20): s* = S = 11, R = 11 → tardiness 9, 0.
        let v = analyze(&GfifoSoft::default(), &imp(&[(1, 2), (10, 20)], 1));
        assert_eq!(bounds_ns(&v), vec![9, 0]);
        // m = 2, U = 1/2: s* = S/m = 3/2; R = ⌈3/2 + C/2⌉ = 2, 3 ≤ deadlines → 0, 0.
        let v = analyze(&GfifoSoft::default(), &imp(&[(1, 4), (2, 8)], 2));
        assert_eq!(bounds_ns(&v), vec![0, 0]);
        // Constrained deadline: the same R against a shorter D. m = 1, (1, 1, 2), (10, 20, 20).
        let v = analyze(&GfifoSoft::default(), &sys(&[(1, 1, 2), (10, 20, 20)], 1));
        assert_eq!(bounds_ns(&v), vec![10, 0]);
    }

    #[test]
    fn unbounded_cases() {
        // u > 1 with an arbitrary deadline.
        let v = analyze(&GfifoSoft::default(), &sys(&[(5, 10, 4)], 4));
        assert_eq!(v.status, Status::Unschedulable);
        // U > m.
        let v = analyze(
            &GfifoSoft::default(),
            &imp(&[(1, 1), (1, 2), (1, 2), (1, 3)], 2),
        );
        assert_eq!(v.status, Status::Unschedulable);
        // U = m exactly: bounded.
        let v = analyze(&GfifoSoft::default(), &imp(&[(1, 1), (1, 2), (1, 2)], 2));
        assert_eq!(v.status, Status::Schedulable);
        let v = analyze(&GfifoSoft::default(), &imp(&[], 2));
        assert_eq!(bounds_ns(&v), Vec::<u64>::new());
        assert!(v.is_schedulable());
    }

    #[test]
    fn huge_values() {
        let t = 1_000_000_000_000_000u64;
        let v = analyze(
            &GfifoSoft::default(),
            &imp(&[(t - 3, t), (t / 3, t - 7), (t / 2, t - 11), (5, 9)], 3),
        );
        assert_eq!(v.status, Status::Schedulable);
    }

    fn task() -> impl Strategy<Value = (u64, u64, u64)> {
        (1u64..1000, 1u64..1000, 1u64..1000).prop_map(|(a, b, t)| (a.min(b), a.max(b), t))
    }

    /// Brute force over all k-subsets (small n): s* = max_A s_A.
    fn brute_s(ps: &[Params], m: u64, k: usize) -> BigRational {
        let total: BigInt = ps.iter().map(|p| BigInt::from(p.c)).sum();
        let n = ps.len();
        let mut best: Option<BigRational> = None;
        for mask in 0u32..(1 << n) {
            if mask.count_ones() as usize != k {
                continue;
            }
            let set: Vec<Params> = (0..n)
                .filter(|i| (mask >> i) & 1 == 1)
                .map(|i| ps[i])
                .collect();
            let r = root(&set, &total, m);
            if best.as_ref().is_none_or(|b| r > *b) {
                best = Some(r);
            }
        }
        best.unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn accepted_iff_u_at_most_m_and_u_at_most_1(
            ts in proptest::collection::vec(task(), 0..10), m in 1u32..6,
        ) {
            let v = analyze(&GfifoSoft::default(), &sys(&ts, m));
            let u = schedlab_model::exact::exact_sum(
                ts.iter().map(|&(c, _, t)| schedlab_model::Frac::ratio(c, t)));
            let ok = u <= BigRational::from_integer(m.into()) && ts.iter().all(|&(c, _, t)| c <= t);
            prop_assert_eq!(v.is_schedulable(), ok);
            prop_assert_eq!(v.status == Status::Unschedulable, !ok);
        }

        #[test]
        fn dinkelbach_matches_brute_force(
            ts in proptest::collection::vec(task(), 1..9), m in 2u64..6,
        ) {
            let ps: Vec<Params> = ts.iter().map(|&(c, d, t)| Params::new(c, d, t.max(c))).collect();
            prop_assume!(total_util_at_most(&ps, m));
            let k = lambda(&ps) as usize;
            let s = fifo_s(&ps, m, k, 1000).unwrap();
            prop_assert_eq!(s, brute_s(&ps, m, k));
        }

        #[test]
        fn adding_a_task_never_lowers_bounds(
            ts in proptest::collection::vec(task(), 1..8), extra in task(), m in 1u32..6,
        ) {
            let before = analyze(&GfifoSoft::default(), &sys(&ts, m));
            let mut more = ts.clone();
            more.push(extra);
            let after = analyze(&GfifoSoft::default(), &sys(&more, m));
            if after.is_schedulable() {
                for (b, a) in bounds_ns(&before).iter().zip(bounds_ns(&after).iter()) {
                    prop_assert!(a >= b);
                }
            }
        }
    }
}
