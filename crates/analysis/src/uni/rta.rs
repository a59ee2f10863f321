//! `fp-rta`: exact response-time analysis for preemptive fixed-priority scheduling on one CPU.
//!
//! Joseph & Pandya, "Finding Response Times in a Real-Time System", The Computer Journal
//! 29(5), 1986; Audsley, Burns, Richardson, Tindell & Wellings, "Applying new scheduling
//! theory to static priority pre-emptive scheduling", Software Engineering Journal 8(5), 1993:
//! for `D ≤ T` the worst-case response time of τᵢ is the least fixed point of
//! `Rᵢ = Cᵢ + Σ_{j ∈ hp(i)} ⌈Rᵢ/Tⱼ⌉·Cⱼ` (Eq. (1) of Audsley et al.), found by iteration from
//! `Σ_{j ∈ hp(i) ∪ {i}} Cⱼ`; τᵢ meets its deadline iff `Rᵢ ≤ Dᵢ`.
//!
//! Arbitrary deadlines (`D > T`): Lehoczky, "Fixed Priority Scheduling of Periodic Task Sets
//! with Arbitrary Deadlines", RTSS 1990 (busy-window analysis, as formulated by Tindell et al.,
//! Real-Time Systems 6(2), 1994, Eq. (9)–(11)): for `q = 0, 1, …` the completion of job `q` in
//! the level-i busy window is the least fixed point of
//! `w_q = (q+1)·Cᵢ + Σ_{j ∈ hp(i)} ⌈w_q/Tⱼ⌉·Cⱼ`, its response time is `w_q − q·Tᵢ`, and the
//! window ends at the first `q` with `w_q ≤ (q+1)·Tᵢ`; `Rᵢ = max_q (w_q − q·Tᵢ)`. For `D ≤ T`
//! this stops at `q = 0` whenever `R ≤ D`, i.e. it *is* the classic analysis. Jobs of one task
//! run in release order.
//!
//! Reference: SchedCAT `schedcat/sched/fp/rta.py` (same iteration; it refuses arbitrary
//! deadlines and answers "not schedulable" for them, where this test stays exact).
//! Priorities: `sys.priority_order()` (DM by default; ties by task index).
//! Complexity: pseudo-polynomial; each iteration `O(n)`. Work limit: total fixed-point
//! iterations over all tasks (default [`DEFAULT_LIMIT`]); reaching it answers "gave up".

use super::{require_uniprocessor, Outcome};
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use schedlab_model::exact::{cmp_sum, Frac};
use schedlab_model::Duration;

/// Default work limit: fixed-point iterations per analysis.
pub const DEFAULT_LIMIT: u64 = 10_000_000;

/// Exact fixed-priority response-time analysis (`fp-rta`).
#[derive(Clone, Copy, Debug)]
pub struct FpRta {
    /// Work limit (fixed-point iterations over all tasks).
    pub limit: u64,
}

impl Default for FpRta {
    fn default() -> Self {
        FpRta {
            limit: DEFAULT_LIMIT,
        }
    }
}

/// Result of the analysis of one task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rta {
    /// Worst-case response time (ns), at most the deadline.
    Met(u64),
    /// Some job can miss its deadline.
    Missed,
    /// The work limit was reached.
    GaveUp,
}

pub use crate::util::budget::Budget;

/// The "gave up" reason for a fixed-priority budget.
fn gave_up_reason(budget: &Budget) -> String {
    format!(
        "fixed-priority response-time analysis reached its work limit of {} iterations",
        budget.limit
    )
}

/// Worst-case response time of `task` under the higher-priority tasks `hp` (Lehoczky's
/// busy window; the classic analysis when `D ≤ T`).
pub fn response_time(hp: &[Params], task: &Params, budget: &mut Budget) -> Rta {
    let c = u128::from(task.c);
    let d = u128::from(task.d);
    let t = u128::from(task.t);
    let interference = |w: u128| -> u128 {
        hp.iter().fold(0u128, |acc, j| {
            let jobs = w.div_ceil(u128::from(j.t));
            acc.saturating_add(jobs.saturating_mul(u128::from(j.c)))
        })
    };
    if task.d > task.t && level_utilization_exceeds_one(hp, task) {
        // The level-i busy window never closes: the backlog, and with it the response time
        // of the q-th job, grows without bound, so some job misses any finite deadline.
        return Rta::Missed;
    }
    let mut worst: u128 = 0;
    let mut q: u128 = 0;
    // Start below the least fixed point: Σ C over hp(i) ∪ {i}.
    let mut w: u128 = hp.iter().map(|j| u128::from(j.c)).sum::<u128>() + c;
    loop {
        // Least fixed point of w = (q+1)·C + I(w), by monotone iteration from below.
        let release = q * t;
        loop {
            if !budget.step() {
                return Rta::GaveUp;
            }
            let next = (q + 1).saturating_mul(c).saturating_add(interference(w));
            // next never exceeds the fixed point, so this already proves a miss.
            if next.saturating_sub(release) > d {
                return Rta::Missed;
            }
            if next == w {
                break;
            }
            w = next;
        }
        worst = worst.max(w - release);
        if w <= (q + 1) * t {
            // The level-i busy window ends before job q+1 is released.
            return Rta::Met(u64::try_from(worst).unwrap_or(u64::MAX));
        }
        q += 1;
        // w_{q-1} + C is below the next fixed point.
        w += c;
    }
}

/// `Σ_{j ∈ hp(i) ∪ {i}} Cj/Tj > 1`, exactly.
fn level_utilization_exceeds_one(hp: &[Params], task: &Params) -> bool {
    let terms = || {
        hp.iter()
            .chain(std::iter::once(task))
            .map(|p| Frac::ratio(p.c, p.t))
    };
    cmp_sum(terms, Frac::ONE) == std::cmp::Ordering::Greater
}

/// Response times of every task of `sorted` (highest priority first), in that order;
/// `Err(Unschedulable | GaveUp)` at the first task that misses or when the limit is reached.
pub fn fp_response_times(sorted: &[Params], limit: u64) -> Result<Vec<u64>, Outcome> {
    let mut budget = Budget::new(limit);
    let mut out = Vec::with_capacity(sorted.len());
    for (i, task) in sorted.iter().enumerate() {
        match response_time(&sorted[..i], task, &mut budget) {
            Rta::Met(r) => out.push(r),
            Rta::Missed => return Err(Outcome::Unschedulable),
            Rta::GaveUp => return Err(Outcome::GaveUp(gave_up_reason(&budget))),
        }
    }
    Ok(out)
}

/// Exact fixed-priority feasibility of the tasks `sorted[from..]` (highest priority first),
/// assuming the tasks before `from` were already shown to meet their deadlines (adding a task
/// never changes the response times of higher-priority tasks). Admission test of `pfp-*`.
pub fn fp_feasible_from(sorted: &[Params], from: usize, limit: u64) -> Outcome {
    fp_feasible_from_budget(sorted, from, &mut Budget::new(limit))
}

/// [`fp_feasible_from`] drawing on a budget shared with other calls (one packing).
pub fn fp_feasible_from_budget(sorted: &[Params], from: usize, budget: &mut Budget) -> Outcome {
    for i in from..sorted.len() {
        let (hp, rest) = sorted.split_at(i);
        let Some(task) = rest.first() else { break };
        match response_time(hp, task, budget) {
            Rta::Met(_) => {}
            Rta::Missed => return Outcome::Unschedulable,
            Rta::GaveUp => return Outcome::GaveUp(gave_up_reason(budget)),
        }
    }
    Outcome::Schedulable
}

impl SchedTest for FpRta {
    fn params(&self) -> Vec<Param> {
        vec![Param::new(
            "limit",
            self.limit,
            "fixpoint iterations over all tasks before giving up",
        )]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "limit" => self.limit = param::parse_u64(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "fp-rta".into(),
            family: "uniprocessor",
            kind: Kind::Exact,
            citation: "Joseph & Pandya, The Computer Journal 29(5) 1986; Audsley et al., \
                       Software Engineering Journal 8(5) 1993 (Eq. (1)); Lehoczky, RTSS 1990 \
                       (busy window for D > T)",
            assumptions: "one CPU; independent sporadic tasks; implicit, constrained or \
                          arbitrary deadlines; preemptive fixed priorities from the system's \
                          assignment (dm default)",
            complexity: "pseudo-polynomial, O(n) per iteration, work-limited",
        }
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        require_uniprocessor(sys)?;
        sys.priority_order().map(|_| ())
    }
    fn run(&self, sys: &System) -> Verdict {
        let order = match sys.priority_order() {
            Ok(o) => o,
            Err(r) => return Verdict::not_applicable(r),
        };
        let params = sys.params();
        let sorted: Vec<Params> = order
            .iter()
            .filter_map(|&i| params.get(i).copied())
            .collect();
        match fp_response_times(&sorted, self.limit) {
            Ok(times) => {
                let mut bounds = vec![Duration::ZERO; params.len()];
                for (&i, r) in order.iter().zip(times) {
                    if let Some(b) = bounds.get_mut(i) {
                        *b = Duration::from_ns(r);
                    }
                }
                Verdict::exact(true).with_response_times(bounds)
            }
            Err(Outcome::GaveUp(r)) => Verdict::gave_up(r),
            Err(_) => Verdict::exact(false),
        }
    }
}

#[cfg(test)]
#[path = "rta_tests.rs"]
mod tests;
