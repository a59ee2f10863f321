//! `edf`: exact uniprocessor EDF schedulability of sporadic tasks.
//!
//! * Implicit deadlines (and more generally `Dᵢ ≥ Tᵢ` for all tasks): schedulable iff
//!   `U = Σ Cᵢ/Tᵢ ≤ 1` (Liu & Layland, JACM 20(1), 1973, Theorem 7; for `D ≥ T` the demand
//!   bound satisfies `h(t) ≤ t·U`, so the same condition is exact). Decided exactly with the
//!   filtered rational sum [`cmp_sum`].
//! * Otherwise (some `Dᵢ < Tᵢ`): `U > 1` ⇒ unschedulable; else processor-demand analysis with
//!   QPA (Zhang & Burns, IEEE TC 58(9), 2009), see [`super::qpa`] for the testing interval
//!   (busy period, and `L_a` when `U < 1`) and the work limit.
//!
//! Assumptions: independent sporadic tasks, preemptive EDF, one CPU, arbitrary deadlines.
//! Reference: SchedCAT `native/src/edf/qpa.cpp` (`QPATest`), which uses the same interval
//! bounds; SchedCAT runs QPA even for `D ≥ T`, where it necessarily agrees with `U ≤ 1`.
//! Complexity: `O(n)` for implicit deadlines; pseudo-polynomial otherwise.

use super::{qpa, require_uniprocessor, Outcome};
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::util::budget::Budget;
use crate::verdict::Verdict;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// Exact uniprocessor EDF test (`edf`).
#[derive(Clone, Copy, Debug)]
pub struct EdfExact {
    /// Work limit of the processor-demand analysis (QPA steps + busy-period iterations).
    pub limit: u64,
}

impl Default for EdfExact {
    fn default() -> Self {
        EdfExact {
            limit: qpa::DEFAULT_LIMIT,
        }
    }
}

/// Exact EDF feasibility of `params` on one CPU with the default work limit.
pub fn edf_feasible(params: &[Params]) -> Outcome {
    edf_feasible_with_limit(params, qpa::DEFAULT_LIMIT)
}

/// Exact EDF feasibility of `params` on one CPU, giving up after `limit` steps.
pub fn edf_feasible_with_limit(params: &[Params], limit: u64) -> Outcome {
    edf_feasible_budget(params, &mut Budget::new(limit))
}

/// [`edf_feasible_with_limit`] drawing on a budget shared with other calls (one packing).
pub fn edf_feasible_budget(params: &[Params], budget: &mut Budget) -> Outcome {
    if params.is_empty() {
        return Outcome::Schedulable;
    }
    let util = || params.iter().map(|p| Frac::ratio(p.c, p.t));
    if cmp_sum(util, Frac::ONE) == Ordering::Greater {
        return Outcome::Unschedulable;
    }
    if params.iter().all(|p| p.d >= p.t) {
        // h(t) ≤ t·U ≤ t for every t.
        return Outcome::Schedulable;
    }
    qpa::qpa_budget(params, budget)
}

impl SchedTest for EdfExact {
    fn params(&self) -> Vec<Param> {
        vec![Param::new(
            "limit",
            self.limit,
            "QPA steps plus busy-period iterations before giving up",
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
            name: "edf".into(),
            family: "uniprocessor",
            kind: Kind::Exact,
            citation: "Liu & Layland, JACM 1973 (U ≤ 1 for implicit deadlines); Zhang & Burns, \
                       \"Schedulability Analysis for Real-Time Systems with EDF Scheduling\", \
                       IEEE TC 58(9) 2009 (QPA, Eq. (1), Theorem 5, Algorithm 1)",
            assumptions: "one CPU; independent sporadic tasks; implicit, constrained or \
                          arbitrary deadlines; preemptive EDF",
            complexity: "O(n) for D ≥ T; pseudo-polynomial (QPA) otherwise, work-limited",
        }
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        require_uniprocessor(sys)
    }
    fn run(&self, sys: &System) -> Verdict {
        match edf_feasible_with_limit(sys.params(), self.limit) {
            Outcome::Schedulable => Verdict::exact(true),
            Outcome::Unschedulable => Verdict::exact(false),
            Outcome::GaveUp(r) => Verdict::gave_up(r),
        }
    }
}

#[cfg(test)]
#[path = "edf_tests.rs"]
mod tests;
