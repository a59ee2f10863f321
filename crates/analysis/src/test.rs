//! The one interface every test implements (cf. SchedCAT's `SchedulabilityTest`), and the
//! static description `schedlab tests` prints.

use crate::param::Param;
use crate::system::System;
use crate::verdict::Verdict;

/// What kind of answer a test gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Necessary and sufficient: answers schedulable or unschedulable.
    Exact,
    /// Sufficient only: answers schedulable or not-shown.
    Sufficient,
    /// Bounded tardiness (soft real-time): schedulable means tardiness is bounded.
    Soft,
}

impl Kind {
    /// `exact`, `sufficient` or `soft`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Exact => "exact",
            Kind::Sufficient => "sufficient",
            Kind::Soft => "soft",
        }
    }
}

/// Static description of a test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestInfo {
    /// Canonical name (`gedf-bcl`, `pedf-ffd`, `cedf-k4`, …).
    pub name: String,
    /// Scheduler family: `uniprocessor`, `global-edf`, `global-np-edf`, `global-fp`,
    /// `global-fifo`, `partitioned`, `clustered`.
    pub family: &'static str,
    /// Exact, sufficient or soft.
    pub kind: Kind,
    /// Paper, section and equation.
    pub citation: &'static str,
    /// Deadline model and other assumptions.
    pub assumptions: &'static str,
    /// Time complexity in `n` (tasks) and `m` (CPUs).
    pub complexity: &'static str,
}

/// A schedulability test: a pure function of a [`System`].
///
/// `check` states the preconditions; [`analyze`] calls `run` only when they hold, so `run` may
/// assume them. Neither may panic on any valid `System`.
pub trait SchedTest: Send + Sync {
    /// Static description (name, citation, assumptions, complexity).
    fn info(&self) -> TestInfo;
    /// `Err(reason)` if the test does not apply to this system.
    fn check(&self, sys: &System) -> Result<(), String>;
    /// The verdict, assuming `check` passed.
    fn run(&self, sys: &System) -> Verdict;
    /// Canonical name (from `info`).
    fn name(&self) -> String {
        self.info().name
    }
    /// The test's parameters with their current values (none by default).
    fn params(&self) -> Vec<Param> {
        Vec::new()
    }
    /// Does the test charge overheads per bin itself (partitioned and clustered tests)? Such
    /// a test runs on the original set with the [`System::overheads`] context; every other
    /// test runs on the set charged as a whole (`crate::overheads::context`).
    fn charges_per_bin(&self) -> bool {
        false
    }
    /// Sets a parameter from text; `Err` names the problem (unknown name, bad value).
    fn set_param(&mut self, name: &str, _value: &str) -> Result<(), String> {
        Err(crate::param::unknown(&self.name(), name, &self.params()))
    }
}

/// Runs `test` on `sys`: "not applicable" with the reason if its preconditions fail.
pub fn analyze(test: &dyn SchedTest, sys: &System) -> Verdict {
    match test.check(sys) {
        Ok(()) => test.run(sys),
        Err(reason) => Verdict::not_applicable(reason),
    }
}
