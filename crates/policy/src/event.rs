//! What the engines tell a policy, and what a policy answers.
//!
//! A policy never acts on an engine (LITMUS^RT's `linked` vs `scheduled`, [MP §III-B]): every
//! callback appends *decisions* to a [`Decisions`] buffer — link changes (which job each CPU
//! should run), timer requests and budget requests — and the engine enacts them. In the
//! simulator, linking is instantaneous unless an overhead model delays it; in the runtime, a
//! dispatch architecture makes `scheduled` converge to `linked`.
//!
//! # Budgets (an engine offer to every policy, DESIGN.md)
//!
//! [`Decisions::budget`]`(job, amount)` means: *`job` may execute `amount` more*. The engine
//! counts only time the job actually executes, on whatever CPU (a preempted or waiting job
//! consumes nothing; a job that moves to another CPU takes its remaining budget along), and
//! when the job has executed `amount` since the request it calls
//! [`crate::Policy::on_budget_exhausted`]`(job)` at exactly that instant (RTPS's budget
//! expiration events [RTPS §IV-A]; split parts of FP-TS, server budgets of H-CBS).
//! - A later request for the same job replaces the earlier one (the new amount counts from the
//!   time of the new request); [`Decisions::clear_budget`] removes it.
//! - An exhausted budget is removed before the callback: the job keeps running, with no budget,
//!   unless the policy links something else to its CPU or gives it a new budget.
//! - Completion and abort remove a job's budget. A job that completes at the very instant its
//!   budget runs out completes: there is no exhaustion event (completions come first at one
//!   instant, see [`crate::policy`]).
//! - A request for a job the engine does not hold (not released, finished) is ignored, as a
//!   cancel of an unknown timer is. An amount of zero exhausts at once if the job is running,
//!   else at the instant it next starts to execute.
//! - Requests are applied in the order they were appended, after the callback returns.
//!
//! Both engines record `budget-replenished` (`arg` = the amount) when a budget is set and
//! `budget-exhausted` (`arg` = the amount that ran out) when it runs out (docs/traces.md).

use crate::ids::{CpuId, JobId, TimerId};
use schedlab_model::{Duration, Time};

/// Static facts about a released job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobInfo {
    /// The job.
    pub id: JobId,
    /// Release time.
    pub release: Time,
    /// Absolute deadline.
    pub deadline: Time,
    /// Its task's WCET (the job may execute less; policies never learn the actual demand
    /// before completion).
    pub wcet: Duration,
}

/// Read-only view of execution progress that the engine offers during a callback (the
/// runtime's view is measured, the simulator's exact). Laxity-based policies (EDZL, LLF) use it.
pub trait Progress {
    /// CPU time `job` has executed so far (zero for an unknown job).
    fn executed(&self, job: JobId) -> Duration;
}

/// A [`Progress`] that knows nothing (every job has executed zero time).
pub struct NoProgress;

impl Progress for NoProgress {
    fn executed(&self, _job: JobId) -> Duration {
        Duration::ZERO
    }
}

/// The context of one callback.
pub struct Ctx<'a> {
    /// The current time.
    pub now: Time,
    /// Execution progress of jobs.
    pub progress: &'a dyn Progress,
}

/// "CPU `cpu` should run `job`" (`None`: idle). After a callback the engine applies the links
/// in order; a later link for the same CPU overrides an earlier one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// The CPU.
    pub cpu: CpuId,
    /// The job it should run, or idle.
    pub job: Option<JobId>,
}

/// Ask the engine to call [`crate::Policy::on_timer`] with `id` at `at` (once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerRequest {
    /// The policy's name for the timer.
    pub id: TimerId,
    /// When it fires.
    pub at: Time,
}

/// "`job` may execute `amount` more" (`Some`), or "`job` has no budget" (`None`); see the
/// module doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetRequest {
    /// The job.
    pub job: JobId,
    /// The execution it may still have before [`crate::Policy::on_budget_exhausted`], or
    /// `None` to remove its budget.
    pub amount: Option<Duration>,
}

/// Everything a callback decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decisions {
    /// Link changes, in order.
    pub links: Vec<Link>,
    /// Timers to arm.
    pub timers: Vec<TimerRequest>,
    /// Timers to cancel (unknown or already fired timers are ignored).
    pub cancels: Vec<TimerId>,
    /// Budget requests, in order (a later one for the same job wins).
    pub budgets: Vec<BudgetRequest>,
}

impl Decisions {
    /// An empty buffer.
    pub fn new() -> Decisions {
        Decisions::default()
    }
    /// `cpu` should run `job`.
    pub fn link(&mut self, cpu: CpuId, job: JobId) {
        self.links.push(Link {
            cpu,
            job: Some(job),
        });
    }
    /// `cpu` should idle.
    pub fn unlink(&mut self, cpu: CpuId) {
        self.links.push(Link { cpu, job: None });
    }
    /// Arms timer `id` at `at`.
    pub fn timer(&mut self, id: TimerId, at: Time) {
        self.timers.push(TimerRequest { id, at });
    }
    /// Cancels timer `id`.
    pub fn cancel(&mut self, id: TimerId) {
        self.cancels.push(id);
    }
    /// `job` may execute `amount` more before the engine calls
    /// [`crate::Policy::on_budget_exhausted`] (replaces an earlier budget; module doc).
    pub fn budget(&mut self, job: JobId, amount: Duration) {
        self.budgets.push(BudgetRequest {
            job,
            amount: Some(amount),
        });
    }
    /// Removes `job`'s budget (if it has none, nothing happens).
    pub fn clear_budget(&mut self, job: JobId) {
        self.budgets.push(BudgetRequest { job, amount: None });
    }
    /// Empties the buffer (engines reuse one).
    pub fn clear(&mut self) {
        self.links.clear();
        self.timers.clear();
        self.cancels.clear();
        self.budgets.clear();
    }
    /// Nothing decided.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
            && self.timers.is_empty()
            && self.cancels.is_empty()
            && self.budgets.is_empty()
    }
}
