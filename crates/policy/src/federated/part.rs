//! The scheduler of one federated domain: greedy for a heavy task's dedicated CPUs, G-EDF
//! (EDF on one CPU) for the light tasks' (enum dispatch, no `dyn` on the event path).

use super::greedy::Greedy;
use crate::event::{Ctx, Decisions, JobInfo};
use crate::global::GlobalJlfp;
use crate::ids::{CpuId, JobId, ResourceId, TimerId};
use crate::policy::{ParallelSupport, Policy};

/// One domain's scheduler.
// One per domain (at most m): boxing the larger variant would add an indirection to every
// event of a light CPU and save no memory that matters.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Part {
    /// A heavy task alone on its dedicated CPUs.
    Heavy(Greedy),
    /// Light tasks, their threads as jobs.
    Light(GlobalJlfp),
}

/// `$body` with `$p` bound to the domain's scheduler, whichever it is.
macro_rules! each {
    ($self:expr, $p:ident => $body:expr) => {
        match $self {
            Part::Heavy($p) => $body,
            Part::Light($p) => $body,
        }
    };
}

impl Policy for Part {
    fn name(&self) -> &str {
        "federated"
    }
    fn cpus(&self) -> u32 {
        each!(self, p => p.cpus())
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        each!(self, p => p.on_release(ctx, job, out));
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        each!(self, p => p.on_complete(ctx, job, out));
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        each!(self, p => p.on_abort(ctx, job, out));
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: TimerId, out: &mut Decisions) {
        each!(self, p => p.on_timer(ctx, timer, out));
    }
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        each!(self, p => p.on_block(ctx, job, out));
    }
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        each!(self, p => p.on_resume(ctx, job, out));
    }
    fn grant(&self, ctx: &Ctx<'_>, resource: ResourceId, waiters: &[JobId]) -> usize {
        each!(self, p => p.grant(ctx, resource, waiters))
    }
    fn on_budget_exhausted(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        each!(self, p => p.on_budget_exhausted(ctx, job, out));
    }
    fn on_fork(&mut self, ctx: &Ctx<'_>, cpu: CpuId, strands: &[JobInfo], out: &mut Decisions) {
        each!(self, p => p.on_fork(ctx, cpu, strands, out));
    }
    fn parallel_support(&self) -> ParallelSupport {
        ParallelSupport::Native
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        each!(self, p => p.linked(cpu))
    }
}
