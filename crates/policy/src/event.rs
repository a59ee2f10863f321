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
//! # Aborts (an engine offer to every policy, DESIGN.md) [ChronOS §3.5, §5.7]
//!
//! [`Decisions::abort`]`(job)` means: *drop `job`*. The policy forgets the job in the same
//! callback (it unlinks it if linked; the engine does not call [`crate::Policy::on_abort`] for
//! an abort the policy decided). The job accrues no utility and counts as aborted. If it had
//! started executing, its abort handler (the task's `abort_cost`) runs on the CPU the job last
//! executed on, ahead of whatever the policy links there (the linked job starts or resumes when
//! the handler ends; handlers on one CPU run one after another); a job that never executed has
//! nothing to undo and no handler. The handler then releases the resources the job held.
//! Aborting a job of a task with `abortable = false` ([`crate::PolicyTask::abortable`]) is a
//! policy error; aborting a job the engine does not hold is ignored. Aborts are applied after
//! the links of the callback, in the order they were appended. Both engines record `abort`.
//!
//! # Resources (an engine offer to every policy) [ChronOS §3.6]
//!
//! Jobs lock and unlock single-unit resources at offsets of their execution (the task's
//! critical sections). The engine owns the mutexes: a job that requests a free resource gets it
//! and runs on; a job that requests a held one *blocks*: the engine takes it off its CPU and
//! calls [`crate::Policy::on_block`]; the policy must unlink it and not link it again until
//! [`crate::Policy::on_resume`], which the engine calls when the resource is granted to it.
//! When a resource is released, the engine grants it to one of its waiters, the one
//! [`crate::Policy::grant`] chooses (by default the longest-waiting). [`Ctx::resources`]
//! shows who holds what and who waits for what: dependency-aware policies (DASA, NG-GUA,
//! G-GUA) follow the chains and break deadlocks by aborting a job; the others inherit
//! priorities through it.
//!
//! Both engines record `budget-replenished` (`arg` = the amount) when a budget is set and
//! `budget-exhausted` (`arg` = the amount that ran out) when it runs out (docs/traces.md).
//!
//! During [`crate::Policy::on_complete`] and [`crate::Policy::on_abort`], [`Progress::executed`]
//! still reports the finished job's final executed time (a policy that charges execution to
//! something else than the job, such as H-CBS servers, settles it there).
//!
//! # Server events (reservations, [HCBS §3.2])
//!
//! A policy that keeps execution budgets of its own for groups of jobs (the H-CBS servers of
//! `hcbs`, one per group and CPU) reports what happens to them with [`Decisions::server`]: a
//! [`ServerEvent`] names the group (its index in the task set's groups) and the CPU, and the
//! engine records it as a trace event — `budget-replenished` (`arg` = the new budget),
//! `budget-exhausted` (`arg` = the budget that ran out) or `budget-throttled` (`arg` = the
//! time the server stays throttled until) with `task` = `u32::MAX` and `seq` = the group
//! (docs/traces.md). They change nothing in the engine: the budgets themselves are counted
//! by the policy, from the engine's per-job budgets and [`Progress`].
//!
//! # Strands (an engine offer to every policy, DESIGN.md) [RTWS §III]
//!
//! The threads of a parallel (fork-join) job are *strands*: `JobId { task, seq, strand }`,
//! region `r`'s thread `k` being strand `Σ_{r' < r} width(r') + k` (strand 0 is region 0's
//! first thread; a sequential job has strand 0 only). Each strand is handed to the policy
//! like a job of its own ([`JobInfo`]: its `id`, the region's start as `release`, the job's
//! absolute `deadline`, the thread's execution time as `wcet`): region 0's threads by
//! [`crate::Policy::on_release`] at the job's release, each later region's by
//! [`crate::Policy::on_fork`] when the previous region's last thread completes (its *join*).
//! [`crate::Policy::on_complete`] is called per strand. A policy may link several strands of
//! one job at once (to different CPUs); each strand is on at most one CPU.
//!
//! [`Decisions::steal`]`(strand, victim)` records that the strand linked in the same callback
//! was taken from CPU `victim`'s local queue [RTWS §V, Rule E]: the engine records a `steal`
//! event and counts it when the link is enacted (a steal superseded by a later link in the
//! same instant never happened and is not counted).

use crate::ids::{CpuId, JobId, ResourceId, TimerId};
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

/// Read-only view of the resources (mutexes) at the time of a callback (module doc,
/// "Resources").
pub trait Resources {
    /// The resource `job` is blocked on, if it is blocked.
    fn blocked_on(&self, job: JobId) -> Option<ResourceId>;
    /// The job that holds `resource`, if any.
    fn owner(&self, resource: ResourceId) -> Option<JobId>;
    /// Whether any task of the system has critical sections (a policy may skip its
    /// dependency work when none has).
    fn any(&self) -> bool;
}

/// [`Resources`] of a system without resources (nobody holds or waits for anything).
pub struct NoResources;

impl Resources for NoResources {
    fn blocked_on(&self, _job: JobId) -> Option<ResourceId> {
        None
    }
    fn owner(&self, _resource: ResourceId) -> Option<JobId> {
        None
    }
    fn any(&self) -> bool {
        false
    }
}

/// The context of one callback.
pub struct Ctx<'a> {
    /// The current time.
    pub now: Time,
    /// Execution progress of jobs.
    pub progress: &'a dyn Progress,
    /// Who holds and who waits for which resource.
    pub resources: &'a dyn Resources,
}

impl<'a> Ctx<'a> {
    /// A context at `now` with `progress` and no resources.
    pub fn new(now: Time, progress: &'a dyn Progress) -> Ctx<'a> {
        Ctx {
            now,
            progress,
            resources: &NoResources,
        }
    }

    /// The owner of the resource `job` waits for (the next job of its dependency chain), if
    /// `job` is blocked.
    pub fn blocker(&self, job: JobId) -> Option<JobId> {
        self.resources
            .blocked_on(job)
            .and_then(|r| self.resources.owner(r))
    }
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

/// "`job` (a strand) was stolen from CPU `victim`'s local queue" (module doc, "Strands").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Steal {
    /// The stolen strand (linked to the thief in the same callback).
    pub job: JobId,
    /// The CPU whose queue it was taken from.
    pub victim: CpuId,
}

/// What happened to a reservation server (module doc, "Server events").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerChange {
    /// Its budget was set to a full budget (replenishment, or the CBS wake-up rule).
    Replenished,
    /// Its budget ran out.
    Exhausted,
    /// It is throttled (may not run) until the time in [`ServerEvent::arg`].
    Throttled,
}

/// "Server (`group`, `cpu`) changed" (module doc, "Server events").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerEvent {
    /// What happened.
    pub change: ServerChange,
    /// The group: its index in the task set's groups.
    pub group: u32,
    /// The server's CPU.
    pub cpu: CpuId,
    /// The new budget (ns), the budget that ran out (ns), or the end of the throttling (ns).
    pub arg: u64,
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
    /// Jobs the policy aborts, in order (module doc, "Aborts").
    pub aborts: Vec<JobId>,
    /// Strands the policy stole, in order (module doc, "Strands").
    pub steals: Vec<Steal>,
    /// Reservation server events, in order (module doc, "Server events").
    pub servers: Vec<ServerEvent>,
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
    /// Aborts `job` (module doc, "Aborts"): the policy has forgotten it.
    pub fn abort(&mut self, job: JobId) {
        self.aborts.push(job);
    }
    /// The strand `job`, linked in this callback to a thief CPU, was taken from CPU
    /// `victim`'s local queue (module doc, "Strands"). Append it with the link.
    pub fn steal(&mut self, job: JobId, victim: CpuId) {
        self.steals.push(Steal { job, victim });
    }
    /// Reports a server event for the trace (module doc, "Server events").
    pub fn server(&mut self, change: ServerChange, group: u32, cpu: CpuId, arg: u64) {
        self.servers.push(ServerEvent {
            change,
            group,
            cpu,
            arg,
        });
    }
    /// Empties the buffer (engines reuse one).
    pub fn clear(&mut self) {
        self.links.clear();
        self.timers.clear();
        self.cancels.clear();
        self.budgets.clear();
        self.aborts.clear();
        self.steals.clear();
        self.servers.clear();
    }
    /// Nothing decided.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
            && self.timers.is_empty()
            && self.cancels.is_empty()
            && self.budgets.is_empty()
            && self.aborts.is_empty()
            && self.steals.is_empty()
            && self.servers.is_empty()
    }
}
