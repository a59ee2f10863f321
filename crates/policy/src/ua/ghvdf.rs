//! G-HVDF [ChronOS §6.6]: global highest value density first, preemptive.
//!
//! At every scheduling event (release, completion, abort, block, resume, the abort timer):
//! the abortable jobs past their critical time (the deadline for a step TUF) are aborted
//! ([`super::pool`]; a timer at the earliest critical time makes that happen at the deadline),
//! every job's LVD is recomputed (it depends on the remaining execution, §6.6), and the `m`
//! highest-LVD jobs run. Equal LVDs: a linked job that is not blocked first (the equal-key
//! rule of [`crate::prio`]: no needless preemption), then task index, then seq
//! (`ua::pool::cmp_hvdf`).
//!
//! Mapping (ChronOS maps the selection with its O(m²) Algorithm 1 [§5.6.5]; this is the
//! same execution- and migration-optimal outcome, computed directly, as in
//! [`crate::global`]): a selected job that is linked stays on its CPU; every other selected
//! job, in LVD order, takes the CPU its task last ran on if that one is free, else the
//! lowest-numbered free CPU. So only jobs that newly run land on a CPU, and a running job
//! never moves.
//!
//! Resources: a selected job that is blocked runs the end of its dependency chain instead
//! (the owner of what it waits for inherits its place, priority inheritance [ChronOS §4.3]);
//! a job that is the end of several chains runs once, and the next job in LVD order fills the
//! CPU. A released resource goes to its highest-LVD waiter.
//!
//! Complexity per event for n held jobs on m CPUs: O(n) to refresh LVDs and abort, O(n)
//! expected to select the m best (`select_nth_unstable_by`) plus O(m log m) to order them,
//! O(n + m) to map — Table 6.3 states O(n) scheduling, O(1) insertion and O(m²) mapping: met
//! for scheduling (with an O(m log m) term), insertion is O(n) here (the critical-time-ordered
//! pool), mapping beaten. With resources the whole pool is sorted (O(n log n)) and chains
//! followed (O(n·c) for chains of length c). No allocation per event once buffers have grown.

use super::pool::{cmp_hvdf, Pool};
use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{CpuId, JobId, ResourceId, TimerId};
use crate::policy::Policy;
use crate::task::PolicyTask;
use std::sync::Arc;

const NO_CPU: u32 = u32::MAX;

/// G-HVDF (module doc).
#[derive(Debug)]
pub struct GHvdf {
    tasks: Arc<[PolicyTask]>,
    pool: Pool,
    /// The job linked to each CPU.
    cpus: Vec<Option<JobId>>,
    /// Reused: the links being computed.
    next: Vec<Option<JobId>>,
    /// The CPU each task last ran on, by task index.
    last_cpu: Vec<u32>,
    /// Reused: pool indices in selection order, and the chosen ones.
    order: Vec<usize>,
    chosen: Vec<usize>,
}

impl GHvdf {
    /// G-HVDF for `tasks` on `cpus` CPUs.
    pub fn new(tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> GHvdf {
        let tasks: Arc<[PolicyTask]> = tasks.into();
        let m = cpus as usize;
        GHvdf {
            last_cpu: vec![NO_CPU; tasks.len()],
            tasks,
            pool: Pool::default(),
            cpus: vec![None; m],
            next: vec![None; m],
            order: Vec::new(),
            chosen: Vec::new(),
        }
    }

    /// Fills `self.chosen` with the pool indices of the jobs to run, best first.
    fn choose(&mut self, ctx: &Ctx<'_>) {
        let m = self.cpus.len();
        let jobs = &self.pool.jobs;
        // Only a job that runs keeps its CPU on a tie: one that has just blocked is still
        // recorded on its CPU until `map`, but it no longer runs there (its chain's end
        // would), so it has no preemption to spare — P-HVDF's `current` excludes it too.
        let runs = |j: &super::pool::UaJob| j.cpu.is_some() && !j.blocked;
        let cmp = |a: &usize, b: &usize| {
            let (a, b) = (&jobs[*a], &jobs[*b]);
            cmp_hvdf(a, b, runs(a), runs(b))
        };
        self.order.clear();
        self.order.extend(0..jobs.len());
        let deps = ctx.resources.any();
        if !deps && self.order.len() > m && m > 0 {
            self.order.select_nth_unstable_by(m - 1, cmp);
            self.order.truncate(m);
        }
        self.order.sort_unstable_by(cmp);
        for j in &mut self.pool.jobs {
            j.mark = false;
        }
        self.chosen.clear();
        for &i in &self.order {
            if self.chosen.len() >= m {
                break;
            }
            let Some(t) = self.pool.chain_tail(ctx, i) else {
                continue;
            };
            if let Some(j) = self.pool.jobs.get_mut(t).filter(|j| !j.mark) {
                j.mark = true;
                self.chosen.push(t);
            }
        }
    }

    /// Maps the chosen jobs to CPUs (module doc) and emits the link changes.
    fn map(&mut self, out: &mut Decisions) {
        self.next.iter_mut().for_each(|c| *c = None);
        // Chosen jobs that are linked stay; the others lose their CPU.
        for j in &mut self.pool.jobs {
            let Some(c) = j.cpu else { continue };
            let here = self.cpus.get(c as usize).copied().flatten() == Some(j.info.id);
            match self.next.get_mut(c as usize) {
                Some(slot) if j.mark && here => *slot = Some(j.info.id),
                _ => j.cpu = None,
            }
        }
        let mut free = 0usize;
        for &t in &self.chosen {
            let Some(j) = self.pool.jobs.get_mut(t) else {
                continue;
            };
            if j.cpu.is_some() {
                continue;
            }
            let task = j.info.id.task.0 as usize;
            let last = self.last_cpu.get(task).copied().unwrap_or(NO_CPU) as usize;
            let cpu = if self.next.get(last).is_some_and(Option::is_none) {
                last
            } else {
                while self.next.get(free).is_some_and(Option::is_some) {
                    free += 1;
                }
                free
            };
            let Some(slot) = self.next.get_mut(cpu) else {
                continue;
            };
            *slot = Some(j.info.id);
            j.cpu = Some(cpu as u32);
            if let Some(l) = self.last_cpu.get_mut(task) {
                *l = cpu as u32;
            }
        }
        for (c, (now, next)) in self.cpus.iter_mut().zip(&self.next).enumerate() {
            if now != next {
                match next {
                    Some(id) => out.link(CpuId(c as u32), *id),
                    None => out.unlink(CpuId(c as u32)),
                }
                *now = *next;
            }
        }
    }

    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        self.pool.abort_late(ctx, &self.tasks, out);
        self.pool.refresh(ctx, &self.tasks);
        self.choose(ctx);
        self.map(out);
        self.pool.arm(&self.tasks, out);
    }
}

impl Policy for GHvdf {
    fn name(&self) -> &str {
        "ghvdf"
    }
    fn cpus(&self) -> u32 {
        u32::try_from(self.cpus.len()).unwrap_or(u32::MAX)
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
        if timer == super::pool::ABORT_TIMER {
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
    /// The highest-LVD waiter gets a released resource (module doc).
    fn grant(&self, ctx: &Ctx<'_>, _resource: ResourceId, waiters: &[JobId]) -> usize {
        self.pool.grant(ctx, &self.tasks, waiters, true)
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.cpus.get(cpu.0 as usize).copied().flatten()
    }
}
