//! The policy interface (cf. LITMUS^RT's `sched_plugin.h`, SimSo's `Scheduler`).
//!
//! Calling contract, the same in both engines:
//! 1. Callbacks run one at a time (the engine serialises them; in the runtime under the
//!    architecture's lock or on the dedicated scheduling CPU) and must not block.
//! 2. Each callback sees [`Ctx`] (the time and a progress view) and appends [`Decisions`];
//!    it never touches threads, timers or clocks itself.
//! 3. Jobs of one task are handed over in order: the engine calls `on_release` for job k+1
//!    only after job k completed or was aborted (the next job of a task waits for it).
//! 4. After every callback, each job is linked to at most one CPU, and `linked(cpu)` reports
//!    the links the policy has decided so far.
//! 5. Same-instant order (simulator; DESIGN.md): completions, then (engine aborts of late
//!    jobs), then ends of abort handlers (resources released, waiters resumed), then
//!    releases, then timers, then lock milestones (requests and unlocks at execution offsets:
//!    blocks and resumes), then budget exhaustions; completions, aborts, releases, lock
//!    milestones and exhaustions each in increasing task index (completions of threads of
//!    one parallel job by CPU), handler ends by CPU, timers in request order. So a
//!    job that completes at the instant its budget runs out completes (no exhaustion), and a
//!    policy sees every release and timer of the instant before an exhaustion at it. The
//!    runtime observes the same order wherever it can tell events apart in time.
//! 7. Aborts and resources (module doc of [`crate::event`]): a policy may abort jobs
//!    ([`Decisions::abort`]); a job blocked on a resource is never linked between
//!    [`Policy::on_block`] and [`Policy::on_resume`].
//! 6. Budgets ([`Decisions::budget`], module doc of [`crate::event`]) are counted by the
//!    engine in executed time only; exhaustion is reported while the job is still linked and
//!    on its CPU.
//! 8. Strands (module doc of [`crate::event`], "Strands"): the threads of a parallel job are
//!    handed over as strands, region 0's by `on_release` (one call per thread, in strand
//!    order), each later region's by [`Policy::on_fork`] at the join of the previous one —
//!    *before* `on_complete` of the thread that completed last, which is still linked to the
//!    forking CPU during `on_fork` (the job enters its next region on that CPU without leaving
//!    it, [RTWS §V, Rule B]). Jobs of one task stay sequential: the next job is handed over
//!    only after the last region's join. Whether a policy takes parallel tasks at all is its
//!    [`Policy::parallel_support`] ([`crate::registry::parallel_support`] by name); an engine
//!    refuses a parallel task under a policy that answers [`ParallelSupport::Refused`].

#[allow(unused_imports)] // doc links
use crate::event::Resources;
use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{CpuId, JobId, ResourceId, TimerId};

/// How a policy schedules parallel (fork-join) tasks [RTWS §III] (calling contract, item 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParallelSupport {
    /// It knows what strands are and schedules them itself (`rtws`: local deques, stealing).
    Native,
    /// It runs each thread as a job of its own, released when its region starts, with the
    /// parent's absolute deadline ("threads as tasks", the baseline): the default
    /// [`Policy::on_fork`] gives it the new region's threads through `on_release`.
    ThreadsAsJobs,
    /// It keeps state that assumes one job per task at a time, or places tasks by sequential
    /// packing rules: engines refuse parallel tasks under it.
    Refused,
}

impl ParallelSupport {
    /// Whether parallel tasks may run under it.
    pub fn accepts(self) -> bool {
        self != ParallelSupport::Refused
    }
}

/// A scheduling policy: a deterministic state machine over scheduling events.
pub trait Policy: Send {
    /// Canonical name (`gedf`, `pfp`, …).
    fn name(&self) -> &str;
    /// Number of CPUs it schedules.
    fn cpus(&self) -> u32;

    /// A job became ready.
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions);
    /// A job finished (it was linked to some CPU).
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions);
    /// The engine aborts a job (e.g. past its deadline under `--abort-late`): forget it,
    /// unlinking it if it is linked.
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions);
    /// A timer the policy requested fired.
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: TimerId, out: &mut Decisions) {
        let _ = (ctx, timer, out);
    }
    /// A job blocked (it requested a resource another job holds, [`Ctx::resources`] says
    /// which): it has left its CPU; the policy must unlink it and not link it again before
    /// [`Policy::on_resume`]. Every policy that can run tasks with critical sections overrides
    /// this (the default does nothing, which leaves the blocked job linked: a policy error).
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        let _ = (ctx, job, out);
    }
    /// A blocked job got its resource and is ready again.
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        let _ = (ctx, job, out);
    }
    /// `resource` was released and `waiters` (in the order they blocked, never empty) wait
    /// for it: the index of the one that gets it. Default: the longest-waiting (FIFO);
    /// priority-inheritance policies pick their highest-priority waiter, as PREEMPT_RT's
    /// `rt_mutex` does [ChronOS §4.3].
    fn grant(&self, ctx: &Ctx<'_>, resource: ResourceId, waiters: &[JobId]) -> usize {
        let _ = (ctx, resource, waiters);
        0
    }
    /// A job used up a budget the policy gave it ([`Decisions::budget`]): it has executed the
    /// requested amount since the request. The budget is gone; the job is still linked and,
    /// unless the policy decides otherwise now, keeps running without a budget.
    fn on_budget_exhausted(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        let _ = (ctx, job, out);
    }

    /// The threads `strands` of a parallel job's next region start (its previous region
    /// joined): `cpu` is the CPU on which that region's last thread completed, still linked
    /// to it during this call (its `on_complete` follows); each strand's `release` is now,
    /// its `deadline` the job's. Default: each strand is released as a job of its own
    /// (`on_release`, in strand order) — "threads as jobs" ([`ParallelSupport::ThreadsAsJobs`]).
    fn on_fork(&mut self, ctx: &Ctx<'_>, cpu: CpuId, strands: &[JobInfo], out: &mut Decisions) {
        let _ = cpu;
        for s in strands {
            self.on_release(ctx, s, out);
        }
    }
    /// How it schedules parallel tasks (default: it refuses them).
    fn parallel_support(&self) -> ParallelSupport {
        ParallelSupport::Refused
    }

    /// The job linked to `cpu` now, if any.
    fn linked(&self, cpu: CpuId) -> Option<JobId>;
}
