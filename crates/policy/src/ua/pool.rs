//! The jobs a UA policy holds, kept in critical-time order (ChronOS's deadline-ordered
//! runqueue [ChronOS §6.13–6.15]), and what every UA policy does with them at each scheduling
//! event before its own selection:
//!
//! - **Past-deadline aborts** (the fixed semantics of the plan, ChronOS Algorithms 2–5
//!   "deadline(i) < now → AbortTask"): at every event, every *abortable* job whose critical
//!   time ([`super::critical_time`]: the deadline for a step TUF, the termination time
//!   otherwise) is at or before `now` is aborted ([`Decisions::abort`]) and forgotten: it can
//!   accrue nothing any more. A non-abortable one stays (its utility is 0, so it sinks to the
//!   lowest density). A timer is armed at the earliest critical time of the abortable jobs
//!   ([`Pool::arm`]), so the abort happens *at* the critical time, not at the next unrelated
//!   event.
//! - **Densities**: each job's remaining execution and LVD ([`super::Density`]) are recomputed
//!   (they depend on `now` and on progress).
//! - **Dependency chains** [ChronOS §3.6]: [`Pool::chain_tail`] follows `ctx.blocker` from a
//!   blocked job to the job that can run on its behalf (the end of its chain), within the
//!   pool.
//!
//! Costs: insertion O(n) (binary search, then a shift), removal O(n), the abort pass and the
//! density refresh O(n) for n held jobs; no allocation once the vector has grown.

use super::{by_critical_time, critical_time, remaining, task_of, Density};
use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{JobId, TimerId};
use crate::task::PolicyTask;
use schedlab_model::{Duration, Time};
use std::cmp::Ordering;

/// The timer every UA policy instance uses for its next past-deadline abort.
pub(crate) const ABORT_TIMER: TimerId = TimerId(0);

/// One held job.
#[derive(Clone, Copy, Debug)]
pub struct UaJob {
    /// Its facts.
    pub(crate) info: JobInfo,
    /// Its critical time (deadline for step TUFs).
    pub(crate) crit: Time,
    /// Blocked on a resource (between `on_block` and `on_resume`).
    pub(crate) blocked: bool,
    /// The CPU it is linked to (global policies).
    pub(crate) cpu: Option<u32>,
    /// Remaining execution at the last refresh.
    pub(crate) rem: Duration,
    /// LVD at the last refresh.
    pub(crate) density: Density,
    /// Scratch flag of the selections.
    pub(crate) mark: bool,
}

impl UaJob {
    /// The order of the runqueue: critical time, then task index, then seq.
    pub(crate) fn cmp_crit(&self, other: &UaJob) -> Ordering {
        by_critical_time((self.crit, &self.info), (other.crit, &other.info))
    }
}

/// The held jobs in critical-time order, and the armed abort timer.
#[derive(Debug, Default)]
pub struct Pool {
    pub(crate) jobs: Vec<UaJob>,
    armed: Option<Time>,
}

/// Whether the jobs of `task` may be aborted (a job of an unknown task may).
pub(crate) fn abortable(tasks: &[PolicyTask], id: JobId) -> bool {
    tasks.get(id.task.0 as usize).is_none_or(|t| t.abortable)
}

impl Pool {
    /// The index of `id`, if held.
    pub(crate) fn position(&self, id: JobId) -> Option<usize> {
        self.jobs.iter().position(|j| j.info.id == id)
    }

    /// The held job `id`.
    pub(crate) fn get(&self, id: JobId) -> Option<&UaJob> {
        self.jobs.iter().find(|j| j.info.id == id)
    }

    /// Adds a released (or resumed, unknown) job at its critical-time position; a job already
    /// held is only marked ready. Returns its index.
    pub(crate) fn insert(&mut self, tasks: &[PolicyTask], info: &JobInfo) -> usize {
        if let Some(i) = self.position(info.id) {
            if let Some(j) = self.jobs.get_mut(i) {
                j.blocked = false;
            }
            return i;
        }
        let job = UaJob {
            info: *info,
            crit: critical_time(task_of(tasks, info), info),
            blocked: false,
            cpu: None,
            rem: info.wcet,
            density: Density {
                value: 0.0,
                remaining: info.wcet.as_ns(),
            },
            mark: false,
        };
        let at = self
            .jobs
            .partition_point(|j| j.cmp_crit(&job) == Ordering::Less);
        self.jobs.insert(at, job);
        at
    }

    /// Forgets `id`; returns it if it was held.
    pub(crate) fn remove(&mut self, id: JobId) -> Option<UaJob> {
        let i = self.position(id)?;
        Some(self.jobs.remove(i))
    }

    /// Marks `id` blocked (no effect if unknown).
    pub(crate) fn block(&mut self, id: JobId) {
        if let Some(j) = self.jobs.iter_mut().find(|j| j.info.id == id) {
            j.blocked = true;
        }
    }

    /// Aborts and forgets every abortable job whose critical time is at or before `now`
    /// (module doc), in runqueue order.
    pub(crate) fn abort_late(&mut self, ctx: &Ctx<'_>, tasks: &[PolicyTask], out: &mut Decisions) {
        let now = ctx.now;
        self.jobs.retain(|j| {
            let late = j.crit <= now && abortable(tasks, j.info.id);
            if late {
                out.abort(j.info.id);
            }
            !late
        });
    }

    /// Recomputes every job's remaining execution and LVD at `ctx.now`.
    pub(crate) fn refresh(&mut self, ctx: &Ctx<'_>, tasks: &[PolicyTask]) {
        for j in &mut self.jobs {
            j.rem = remaining(ctx, &j.info);
            j.density = Density::of(ctx, tasks, &j.info);
        }
    }

    /// Arms [`ABORT_TIMER`] at the earliest critical time of the abortable jobs (re-arming
    /// replaces), or cancels it when there is none; nothing if it is already right.
    pub(crate) fn arm(&mut self, tasks: &[PolicyTask], out: &mut Decisions) {
        let next = self
            .jobs
            .iter()
            .filter(|j| abortable(tasks, j.info.id))
            .map(|j| j.crit)
            .min();
        if next == self.armed {
            return;
        }
        match next {
            Some(at) => out.timer(ABORT_TIMER, at),
            None => out.cancel(ABORT_TIMER),
        }
        self.armed = next;
    }

    /// The abort timer fired (it is no longer armed).
    pub(crate) fn forget_timer(&mut self) {
        self.armed = None;
    }

    /// The index of the job that runs on behalf of the job at `i`: `i` itself if it is not
    /// blocked, else the end of its dependency chain (`ctx.blocker` repeatedly) within the
    /// pool. `None` if the chain leaves the pool (the owner is another CPU's job) or is a
    /// deadlock cycle. O(chain length), at most n steps.
    pub(crate) fn chain_tail(&self, ctx: &Ctx<'_>, i: usize) -> Option<usize> {
        let mut at = i;
        for _ in 0..=self.jobs.len() {
            let job = self.jobs.get(at)?;
            if !job.blocked {
                return Some(at);
            }
            let owner = ctx.blocker(job.info.id)?;
            at = self.position(owner)?;
        }
        None
    }

    /// The earliest-critical-time job that can run (not blocked), if any.
    pub(crate) fn earliest_ready(&self) -> Option<usize> {
        self.jobs.iter().position(|j| !j.blocked)
    }
}

/// The HVDF order of two jobs: `Less` if `a` goes first. Higher LVD first; on equal LVD a
/// linked job first (`a_linked`, `b_linked`: the equal-key rule of [`crate::prio`], no needless
/// preemption), then task index, then seq ([`super::by_density_desc`]).
pub(crate) fn cmp_hvdf(a: &UaJob, b: &UaJob, a_linked: bool, b_linked: bool) -> Ordering {
    b.density
        .cmp_density(&a.density)
        .then(b_linked.cmp(&a_linked))
        .then_with(|| super::by_density_desc((&a.density, &a.info), (&b.density, &b.info)))
}
