//! What a test answers.
//!
//! | status | meaning | `schedulable` |
//! |---|---|---|
//! | `schedulable` | the test shows every deadline is met (hard tests) or tardiness is bounded (soft tests) | true |
//! | `not-shown` | a sufficient test could not show it (says nothing about the set) | false |
//! | `unschedulable` | an exact test found a violation (only exact tests answer this) | false |
//! | `not-applicable` | the test's assumptions do not hold for this set (`reason` says which) | false |
//! | `gave-up` | a deterministic work limit was reached before an answer (never a time limit) | false |
//!
//! Bounds are per task, in task-index order, rounded up to whole nanoseconds.

use crate::hcbs::report::GroupResult;
use crate::overheads::context::BinAccounting;
use crate::semi::split::SemiAssignment;
use crate::ua::UtilityBound;
use schedlab_model::Duration;
use std::fmt;

/// The outcome class of a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Shown schedulable (hard) or tardiness-bounded (soft).
    Schedulable,
    /// A sufficient test failed.
    NotShown,
    /// An exact test found a deadline miss (or unbounded tardiness).
    Unschedulable,
    /// Preconditions not met.
    NotApplicable,
    /// Work limit reached.
    GaveUp,
}

impl Status {
    /// Canonical name used in JSON, the CLI and Python.
    pub fn name(self) -> &'static str {
        match self {
            Status::Schedulable => "schedulable",
            Status::NotShown => "not-shown",
            Status::Unschedulable => "unschedulable",
            Status::NotApplicable => "not-applicable",
            Status::GaveUp => "gave-up",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A test's answer with whatever bounds or partition it yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The outcome class.
    pub status: Status,
    /// Why (for not-applicable, gave-up, and where a test explains its answer).
    pub reason: Option<String>,
    /// Per-task response-time bounds (tests that compute them, when schedulable).
    pub response_time_bounds: Option<Vec<Duration>>,
    /// Per-task tardiness bounds (soft tests, when tardiness is bounded).
    pub tardiness_bounds: Option<Vec<Duration>>,
    /// Task indices per CPU (partitioned) or per cluster (clustered); `None` when it fails.
    pub partition: Option<Vec<Vec<usize>>>,
    /// Per-bin overhead accounting (partitioned and clustered tests run with overheads).
    pub accounting: Option<BinAccounting>,
    /// Semi-partitioned tests: how the tasks were assigned and which were split.
    pub semi: Option<SemiAssignment>,
    /// Utility accrual bounds (`gnphvdf-uab`): the guaranteed tasks and utility fractions.
    pub utility_bound: Option<UtilityBound>,
    /// Reservation-group tests (`hcbs-gfp`): one report per group, in file order.
    pub groups: Option<Vec<GroupResult>>,
}

impl Verdict {
    fn with_status(status: Status) -> Verdict {
        Verdict {
            status,
            reason: None,
            response_time_bounds: None,
            tardiness_bounds: None,
            partition: None,
            accounting: None,
            semi: None,
            utility_bound: None,
            groups: None,
        }
    }
    /// Schedulable, no bounds.
    pub fn schedulable() -> Verdict {
        Verdict::with_status(Status::Schedulable)
    }
    /// Sufficient test failed.
    pub fn not_shown() -> Verdict {
        Verdict::with_status(Status::NotShown)
    }
    /// Exact test found a violation.
    pub fn unschedulable() -> Verdict {
        Verdict::with_status(Status::Unschedulable)
    }
    /// Preconditions not met, with the reason.
    pub fn not_applicable(reason: impl Into<String>) -> Verdict {
        Verdict::with_status(Status::NotApplicable).because(reason)
    }
    /// Work limit reached, with which limit.
    pub fn gave_up(reason: impl Into<String>) -> Verdict {
        Verdict::with_status(Status::GaveUp).because(reason)
    }
    /// `schedulable()` if `ok`, else `not_shown()` (for sufficient tests).
    pub fn sufficient(ok: bool) -> Verdict {
        if ok {
            Verdict::schedulable()
        } else {
            Verdict::not_shown()
        }
    }
    /// `schedulable()` if `ok`, else `unschedulable()` (for exact tests).
    pub fn exact(ok: bool) -> Verdict {
        if ok {
            Verdict::schedulable()
        } else {
            Verdict::unschedulable()
        }
    }
    /// Adds a reason.
    pub fn because(mut self, reason: impl Into<String>) -> Verdict {
        self.reason = Some(reason.into());
        self
    }
    /// Adds response-time bounds (ns, task-index order).
    pub fn with_response_times(mut self, bounds: Vec<Duration>) -> Verdict {
        self.response_time_bounds = Some(bounds);
        self
    }
    /// Adds tardiness bounds (ns, task-index order).
    pub fn with_tardiness(mut self, bounds: Vec<Duration>) -> Verdict {
        self.tardiness_bounds = Some(bounds);
        self
    }
    /// Adds a partition.
    pub fn with_partition(mut self, partition: Vec<Vec<usize>>) -> Verdict {
        self.partition = Some(partition);
        self
    }
    /// Adds the per-bin overhead accounting.
    pub fn with_accounting(mut self, accounting: BinAccounting) -> Verdict {
        self.accounting = Some(accounting);
        self
    }
    /// Adds a semi-partitioned assignment (method and split tasks).
    pub fn with_semi(mut self, semi: SemiAssignment) -> Verdict {
        self.semi = Some(semi);
        self
    }
    /// Adds a utility accrual bound (`k`, guaranteed tasks, fractions).
    pub fn with_utility_bound(mut self, bound: UtilityBound) -> Verdict {
        self.utility_bound = Some(bound);
        self
    }
    /// Adds the per-group reports of a reservation-group test.
    pub fn with_groups(mut self, groups: Vec<GroupResult>) -> Verdict {
        self.groups = Some(groups);
        self
    }
    /// `status == Schedulable`.
    pub fn is_schedulable(&self) -> bool {
        self.status == Status::Schedulable
    }
    /// `status != NotApplicable`.
    pub fn is_applicable(&self) -> bool {
        self.status != Status::NotApplicable
    }
}
