//! The uniprocessor skeleton of the partitioned UA policies (`phvdf`, `plbesa`, `pdasa`,
//! [ChronOS §6.13–6.15]): one instance per CPU inside [`crate::Domains`] with
//! `domain_size = 1`, as `pedf` is G-EDF in domains of one CPU.
//!
//! At every scheduling event (release, completion, abort, block, resume, the abort timer) the
//! instance
//! 1. aborts the abortable jobs past their critical time and refreshes remaining times and
//!    LVDs ([`super::pool`]);
//! 2. asks its [`UniSelect`] which job to run (the algorithm proper);
//! 3. if that job is blocked on a resource, runs the end of its dependency chain instead (the
//!    job holding what it waits for: on one CPU this is priority inheritance — the owner runs
//!    with the priority of the job it blocks [ChronOS §3.6, §4.3]);
//! 4. if nothing was selected but a job can run, runs the earliest-critical-time one (a
//!    work-conserving fallback: nothing else would use the CPU, and it lets a non-abortable
//!    late job finish so that its task's next job is released);
//! 5. links the choice to CPU 0 if it differs from the linked job, and re-arms the abort timer.
//!
//! The selectors keep the linked job on a tie with the selection's head (the equal-key rule of
//! [`crate::prio`]: no needless preemption), which is what makes `plbesa` and `pdasa` produce
//! P-EDF's schedule exactly on feasible sets.

use super::pool::{Pool, ABORT_TIMER};
use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{CpuId, JobId, TimerId};
use crate::policy::Policy;
use crate::task::PolicyTask;
use std::sync::Arc;

/// The selection of a uniprocessor UA algorithm.
pub trait UniSelect: Send + std::fmt::Debug {
    /// The job to run among `pool.jobs` (remaining times and LVDs fresh, past-deadline jobs
    /// gone). `current` is the linked job if it is held and not blocked. A selector may abort
    /// jobs: it removes them from the pool and appends them to `out`.
    fn select(
        &mut self,
        ctx: &Ctx<'_>,
        tasks: &[PolicyTask],
        pool: &mut Pool,
        current: Option<JobId>,
        out: &mut Decisions,
    ) -> Option<JobId>;
}

/// A uniprocessor UA policy: the skeleton of the module doc around the selector `S`.
#[derive(Debug)]
pub struct Uni<S> {
    name: &'static str,
    tasks: Arc<[PolicyTask]>,
    pool: Pool,
    linked: Option<JobId>,
    select: S,
}

impl<S: UniSelect> Uni<S> {
    /// The policy `name` with selector `select` over `tasks`, on one CPU.
    pub fn new(name: &'static str, tasks: Arc<[PolicyTask]>, select: S) -> Uni<S> {
        Uni {
            name,
            tasks,
            pool: Pool::default(),
            linked: None,
            select,
        }
    }

    /// The selector (for tests and inspection).
    pub fn selector(&self) -> &S {
        &self.select
    }

    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        self.pool.abort_late(ctx, &self.tasks, out);
        self.pool.refresh(ctx, &self.tasks);
        let current = self
            .linked
            .filter(|id| self.pool.get(*id).is_some_and(|j| !j.blocked));
        let picked = self
            .select
            .select(ctx, &self.tasks, &mut self.pool, current, out);
        let runs = picked
            .and_then(|id| self.pool.position(id))
            .and_then(|i| self.pool.chain_tail(ctx, i))
            .or_else(|| self.pool.earliest_ready())
            .and_then(|i| self.pool.jobs.get(i))
            .map(|j| j.info.id);
        if runs != self.linked {
            match runs {
                Some(id) => out.link(CpuId(0), id),
                None => out.unlink(CpuId(0)),
            }
            self.linked = runs;
        }
        self.pool.arm(&self.tasks, out);
    }
}

impl<S: UniSelect> Policy for Uni<S> {
    fn name(&self) -> &str {
        self.name
    }
    fn cpus(&self) -> u32 {
        1
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.pool.insert(&self.tasks, job);
        self.schedule(ctx, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.pool.remove(job);
        self.schedule(ctx, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.pool.remove(job);
        self.schedule(ctx, out);
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: TimerId, out: &mut Decisions) {
        if timer == ABORT_TIMER {
            self.pool.forget_timer();
            self.schedule(ctx, out);
        }
    }
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.pool.block(job);
        self.schedule(ctx, out);
    }
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.pool.insert(&self.tasks, job);
        self.schedule(ctx, out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        if cpu.0 == 0 {
            self.linked
        } else {
            None
        }
    }
}
