//! `gnphvdf-uab`: the utility accrual bound of global non-preemptive highest value density
//! first (G-NP-HVDF, policy `gnphvdf`).
//!
//! **Paper.** [ChronOS §6.7, Eq. 6.8–6.10]: M. A. Dellinger, "An Experimental Evaluation of
//! the Scalability of Real-Time Scheduling Algorithms on Large-Scale Multicore Platforms",
//! MS thesis, Virginia Tech, 2011 (G-NP-HVDF is Garyali's HVDF made global and
//! non-preemptive).
//!
//! **Bound** (Eq. 6.10). Order the tasks by decreasing value density — the LVD of a whole job,
//! `Vᵢ / Cᵢ` (utility over WCET, what G-NP-HVDF sees at release), ties by task index (the
//! project's one rule, as the policy breaks them). If for some `k ≤ m`
//!
//! ```text
//!   max_{i > k} Cᵢ  ≤  min_{i ≤ k} (Dᵢ − Cᵢ)          (empty max = 0, empty min = ∞)
//! ```
//!
//! then no job of the `k` densest tasks ever misses its deadline, so they accrue their full
//! utility. Eq. 6.8 is the case `k = m`; the test reports the largest `k ≤ min(m, n)` for which
//! the condition holds (the condition is not monotone in `k`, so every `k` is tried; the
//! guaranteed sets are nested prefixes, so the largest `k` guarantees the most).
//!
//! **Proof, checked** (the thesis gives a sketch). Let job `J` of `τᵢ` (`i ≤ k`), released at
//! `R`, be the first guaranteed job to miss. Before its deadline every earlier guaranteed job
//! met its own, and `D ≤ T`, so each guaranteed task has at most one unfinished job at any
//! instant of `[R, R + Dᵢ)`: the guaranteed jobs other than `J` occupy at most `k − 1 ≤ m − 1`
//! CPUs. While `J` waits it is ahead of every job of a task `> k` in the queue (lower density,
//! or equal density and a larger index), so no such job *starts* after `R`; those running at
//! `R` finish by `R + max_{j>k} Cⱼ`. From then on, if `J` still waited, all `m` CPUs would run
//! guaranteed jobs other than `J` (G-NP-HVDF never idles a CPU with a job queued) — at most
//! `m − 1` exist. So `J` starts by `R + max_{j>k} Cⱼ ≤ R + Dᵢ − Cᵢ` and completes by `R + Dᵢ`,
//! a contradiction. A guaranteed job's density is `Vᵢ/Cᵢ` in the queue (the policy fixes the
//! LVD at queueing, when `now + Cᵢ ≤` the deadline), and the policy's head-of-queue abort — of
//! a job past its critical instant `R + D − C`, which could no longer complete by its deadline
//! — never hits it: it starts by `R + max_{j>k} Cⱼ ≤ R + Dᵢ − Cᵢ`. The abort only removes
//! work, which the argument does not need.
//!
//! **Discrepancies with the thesis.**
//! - The sketch argues that "there are at most `m − 1` arrivals of tasks with a higher LVD
//!   than `Tᵢ`" between `Tᵢ`'s release and its critical instant. As stated that is false: a
//!   denser task with a short period arrives many times in that window. What holds, and what
//!   the proof above uses, is that each guaranteed task has at most one unfinished job at a
//!   time. The conclusion stands.
//! - Non-preemptive blocking by a long job of a guaranteed but *less dense* task (`τⱼ`,
//!   `i < j ≤ k`, with `Cⱼ` unbounded by the condition) is not mentioned by the sketch; it is
//!   covered by the same count (such a job is one of the `k − 1`). This is also why `k ≤ m` is
//!   needed: with `k > m`, `m` guaranteed jobs can hold every CPU.
//! - The thesis states the bound for implicit deadlines with the critical instant
//!   `Rᵢ + Pᵢ − eᵢ`. The proof only needs the deadline, so for constrained deadlines
//!   (`D ≤ T`, sporadic or periodic) the test uses `Dᵢ − Cᵢ` (= `Pᵢ − eᵢ` when `D = T`).
//!   Arbitrary deadlines (`D > T`) are not applicable: a task may then have several
//!   unfinished jobs, and the count fails.
//! - "we will accrue a minimum of k/n of the total possible utility": `k/n` is the fraction
//!   of *tasks* guaranteed, not of utility. The densest tasks need not have the largest value
//!   rates (`Vᵢ/Tᵢ = LVDᵢ · Uᵢ`): one dense short task and one long valuable task on one CPU
//!   give `k/n = 1/2` but a value-weighted fraction of a few percent (the unit tests). Both
//!   are reported: `k_over_n` as the thesis states it, and `value_weighted`, the utility the
//!   guaranteed tasks accrue per unit of time over all tasks' (`Σ_{i≤k} Vᵢ/Tᵢ / Σ Vᵢ/Tᵢ`,
//!   rates at the minimum inter-arrival time: the long-run lower bound on the accrued utility
//!   ratio (AUR) of periodic releases; sporadic releases change the denominator).
//!
//! **Verdict.** This is a utility accrual bound, not a schedulability test, but for `k = n` it
//! shows every deadline met, so: `schedulable` when `k = n` (a sufficient test for
//! G-NP-HVDF), `not-shown` otherwise (the reason names `k`); the bound itself is the verdict's
//! [`UtilityBound`] in every applicable case.
//!
//! **Assumptions.** Independent periodic or sporadic tasks with `D ≤ T` and downward-step TUFs
//! (`utility`, or `tuf = {kind = "step"}`; no utility means 1 per job, as the policies take
//! it), jobs executing at most their WCET, identical CPUs. Not applicable: `D > T`, a non-step
//! TUF (its value, hence its place in the queue and what it accrues, depends on when it runs;
//! the thesis's bound is for downward steps), critical sections (blocking), parallel tasks or
//! affinities. Systems built from bare parameters count every task as worth 1 per job.
//!
//! **Complexity.** `O(n log n)` (the sort), then `O(n)`.

use super::UtilityBound;
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use std::cmp::Ordering;

/// The G-NP-HVDF utility accrual bound, [ChronOS §6.7, Eq. 6.10].
#[derive(Clone, Copy, Debug, Default)]
pub struct GnphvdfUab;

impl SchedTest for GnphvdfUab {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gnphvdf-uab".into(),
            family: "global-np-hvdf",
            kind: Kind::Sufficient,
            citation: "[ChronOS §6.7, Eq. 6.8-6.10] (utility accrual bound of G-NP-HVDF)",
            assumptions: "periodic/sporadic, constrained deadlines (D - C in place of the \
                          thesis's P - e), independent tasks with downward-step utilities; \
                          schedulable only when every task is guaranteed (k = n)",
            complexity: "O(n log n)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_constrained()?;
        let outside = sys
            .values()
            .into_iter()
            .flatten()
            .enumerate()
            .find_map(|(i, v)| v.outside.map(|why| (i, why)));
        match outside {
            Some((i, why)) => Err(format!(
                "assumes independent tasks with downward-step utilities, but task {i} {why}"
            )),
            None => Ok(()),
        }
    }

    fn run(&self, sys: &System) -> Verdict {
        let utilities = utilities(sys);
        let order = density_order(sys.params(), &utilities);
        let k = largest_k(sys.params(), &order, sys.cpus());
        let n = order.len();
        let guaranteed: Vec<usize> = order.iter().take(k).copied().collect();
        let bound = UtilityBound {
            k,
            k_over_n: (n > 0).then(|| k as f64 / n as f64),
            value_weighted: value_weighted(sys.params(), &utilities, &guaranteed),
            guaranteed_tasks: guaranteed,
        };
        let verdict = if k == n {
            Verdict::schedulable().because(format!(
                "every task is guaranteed (k = n = {n}, m = {})",
                sys.cpus()
            ))
        } else {
            Verdict::not_shown().because(format!(
                "k = {k} of {n} tasks guaranteed (the {k} densest: {:?}; m = {})",
                bound.guaranteed_tasks,
                sys.cpus()
            ))
        };
        verdict.with_utility_bound(bound)
    }
}

/// Each task's utility per job (1 per job without values, the policies' rule).
fn utilities(sys: &System) -> Vec<f64> {
    match sys.values() {
        Some(values) => values.iter().map(|v| v.utility).collect(),
        None => vec![1.0; sys.len()],
    }
}

/// Task indices by decreasing `Vᵢ / Cᵢ`, ties by index. Compared by cross-multiplication in
/// `f64`, exactly as the policy compares densities (`schedlab_policy::ua::Density`), so the
/// two orders agree even where rounding makes near-ties equal.
pub fn density_order(params: &[Params], utilities: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..params.len().min(utilities.len())).collect();
    order.sort_by(|&a, &b| {
        let denser_b = utilities[b] * params[a].c as f64;
        let denser_a = utilities[a] * params[b].c as f64;
        denser_b
            .partial_cmp(&denser_a)
            .unwrap_or(Ordering::Equal)
            .then(a.cmp(&b))
    });
    order
}

/// The largest `k ≤ min(m, n)` with `max_{p ≥ k} C_{order[p]} ≤ min_{p < k} (D − C)_{order[p]}`
/// (Eq. 6.10 with 0-based positions). `k = 0` always holds.
pub fn largest_k(params: &[Params], order: &[usize], cpus: u32) -> usize {
    let n = order.len();
    // suffix_max[p] = max C over positions p.. (0 past the end).
    let mut suffix_max = vec![0u64; n + 1];
    for p in (0..n).rev() {
        suffix_max[p] = suffix_max[p + 1].max(params[order[p]].c);
    }
    let cap = n.min(usize::try_from(cpus).unwrap_or(usize::MAX));
    let mut slack_min = u64::MAX; // min (D − C) over positions < k
    let mut best = 0;
    for k in 1..=cap {
        let p = &params[order[k - 1]];
        slack_min = slack_min.min(p.d - p.c); // c ≤ d: System checks it
        if suffix_max[k] <= slack_min {
            best = k;
        }
    }
    best
}

/// `Σ_{guaranteed} Vᵢ/Tᵢ / Σ_all Vᵢ/Tᵢ`, `None` when the total is not positive.
fn value_weighted(params: &[Params], utilities: &[f64], guaranteed: &[usize]) -> Option<f64> {
    let rate = |i: usize| utilities[i].max(0.0) / params[i].t as f64;
    // Folded from +0.0: an empty `sum()` of f64 is −0.0, which would print as "-0".
    let total = (0..params.len()).map(rate).fold(0.0, |a, r| a + r);
    let part = guaranteed.iter().map(|&i| rate(i)).fold(0.0, |a, r| a + r);
    (total > 0.0).then(|| (part / total).clamp(0.0, 1.0))
}

#[cfg(test)]
#[path = "gnphvdf_uab_tests.rs"]
mod tests;
