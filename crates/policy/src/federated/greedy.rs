//! The greedy scheduler of one heavy task on its dedicated CPUs [Li et al., ECRTS 2014, §3]:
//! no CPU idles while a thread of the task is ready.
//!
//! Every strand here belongs to one task, and the engines hand over a task's jobs one after
//! another (`crate::policy`, item 3), so the strands present are those of one job (a late job
//! delays the next, which waits behind it). Rules:
//! - a ready strand takes the lowest-numbered idle CPU; with none idle it waits;
//! - waiting strands are taken in the project's priority order ([`crate::prio`]: for one task,
//!   job, then strand number);
//! - a linked strand is never preempted (all present strands have the job's deadline: the
//!   equal-key rule);
//! - at a join ([`Policy::on_fork`]) the CPU where the region joined is free (the joining
//!   thread is done; its `on_complete` follows and is then a no-op), so it takes the new
//!   region's first thread: the job continues where it joined instead of migrating; the other
//!   threads take the lowest-numbered idle CPUs, the rest wait.
//!
//! Cost: `O(k)` per event for `k` CPUs (the idle scan) plus `O(log w)` per waiting strand.

use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{CpuId, JobId};
use crate::policy::{ParallelSupport, Policy};
use std::collections::BTreeSet;

/// Greedy scheduling of one task's strands on `k` CPUs (module doc).
#[derive(Debug)]
pub(crate) struct Greedy {
    /// The strand linked to each CPU.
    cpus: Vec<Option<JobId>>,
    /// Ready strands not linked, in priority order.
    waiting: BTreeSet<JobId>,
}

impl Greedy {
    pub(crate) fn new(k: u32) -> Greedy {
        Greedy {
            cpus: vec![None; k as usize],
            waiting: BTreeSet::new(),
        }
    }

    fn idle_cpu(&self) -> Option<u32> {
        let c = self.cpus.iter().position(Option::is_none)?;
        u32::try_from(c).ok()
    }

    fn link(&mut self, cpu: u32, job: JobId, out: &mut Decisions) {
        if let Some(slot) = self.cpus.get_mut(cpu as usize) {
            *slot = Some(job);
            out.link(CpuId(cpu), job);
        }
    }

    /// `job` is ready: the lowest idle CPU takes it, else it waits.
    fn admit(&mut self, job: JobId, out: &mut Decisions) {
        match self.idle_cpu() {
            Some(cpu) => self.link(cpu, job, out),
            None => {
                self.waiting.insert(job);
            }
        }
    }

    /// `job` leaves (completion or abort): its CPU, if any, takes the first waiting strand.
    fn leave(&mut self, job: JobId, out: &mut Decisions) {
        if self.waiting.remove(&job) {
            return;
        }
        let Some(cpu) = self.cpus.iter().position(|s| *s == Some(job)) else {
            return; // already gone (the joining thread after `on_fork`)
        };
        let cpu = u32::try_from(cpu).unwrap_or(u32::MAX);
        if let Some(slot) = self.cpus.get_mut(cpu as usize) {
            *slot = None;
        }
        match self.waiting.pop_first() {
            Some(next) => self.link(cpu, next, out),
            None => out.unlink(CpuId(cpu)),
        }
    }
}

impl Policy for Greedy {
    fn name(&self) -> &str {
        "federated"
    }
    fn cpus(&self) -> u32 {
        u32::try_from(self.cpus.len()).unwrap_or(u32::MAX)
    }
    fn on_release(&mut self, _ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.admit(job.id, out);
    }
    fn on_complete(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.leave(job, out);
    }
    fn on_abort(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.leave(job, out);
    }
    fn on_fork(&mut self, _ctx: &Ctx<'_>, cpu: CpuId, strands: &[JobInfo], out: &mut Decisions) {
        let mut rest = strands.iter();
        let joined = self.cpus.get(cpu.0 as usize).copied().flatten();
        if let (Some(joining), Some(first)) = (joined, strands.first()) {
            // The joining thread of the same job is done: its CPU continues with the job.
            if (joining.task, joining.seq) == (first.id.task, first.id.seq) {
                rest.next();
                self.link(cpu.0, first.id, out);
            }
        }
        for s in rest {
            self.admit(s.id, out);
        }
    }
    fn parallel_support(&self) -> ParallelSupport {
        ParallelSupport::Native
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.cpus.get(cpu.0 as usize).copied().flatten()
    }
}
