//! `pfp-ts`: semi-partitioned fixed-priority scheduling with task splitting (FP-TS), as the
//! RTPS scheduler runs it [RTPS §III, §IV-A, §IV-B].
//!
//! **Mechanism.** Every CPU has its own fixed-priority ready queue, ordered by the task's
//! rank ([`PolicyTask::rank`], [`crate::prio`]: task-level fixed priority, ties by task index;
//! a running job is never preempted by one of equal rank). A whole (non-split) task runs only
//! on its CPU ([`Placement::domain_of_task`]). A split task's parts [RTPS §III] — head, bodies,
//! tail, [`Placement::split`] — all keep the task's rank:
//! 1. a job is released into the queue of its head part's CPU with a budget of the head part's
//!    budget ([`Decisions::budget`]);
//! 2. the budget is consumed only while the job executes — a preempted part keeps the rest for
//!    when it resumes (RTPS's per-task remaining budget and one budget-expiration event per
//!    CPU, [RTPS §IV-A]; here the engine's budget offer does the counting);
//! 3. at [`Policy::on_budget_exhausted`] the job leaves that CPU (which takes its next ready
//!    job, or idles) and enters the queue of the next part's CPU with the next part's budget,
//!    preempting the job running there if its rank is strictly higher — RTPS inserts it into
//!    the remote ready queue and interrupts that CPU [RTPS §IV-B];
//! 4. the tail part gets its budget too. A tail's budget runs out only if the job executes
//!    longer than its WCET (the simulator's `--exec overrun`, or the runtime): the job then
//!    keeps running on the tail CPU, without a budget, until it completes (nothing else
//!    contains an overrun under FP-TS either).
//!
//! A job is linked to at most one CPU at any time: it leaves a CPU before it enters the next.
//!
//! Release timers and sleep queues (RTPS keeps a split task's sleep queue and release timer on
//! its tail CPU, [RTPS §IV-B]) are a concern of the engine's release mechanism, not of this
//! policy: the engine hands every release to [`Policy::on_release`], and the job goes to its
//! head part's CPU.
//!
//! **Assumptions.** The placement is validated when the policy is built: one CPU per domain,
//! every task on a CPU that exists, and for each split task at least two parts, on distinct
//! existing CPUs, with budgets above zero that add up to the task's WCET, the head on the
//! task's CPU ([`schedlab_model::task::split_problem`]); errors name the task.
//!
//! **Complexity.** Per event `O(log n)` (each ready queue is an ordered set of keys); memory
//! `O(n + m)`.

use crate::error::PolicyError;
use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{CpuId, JobId};
use crate::policy::Policy;
use crate::prio::JobKey;
use crate::table::JobTable;
use crate::task::{Placement, PolicyTask};
use schedlab_model::SplitPart;
use std::collections::BTreeSet;
use std::sync::Arc;

/// One CPU: the job it runs and the jobs waiting for it, highest priority first.
#[derive(Debug, Default)]
struct Cpu {
    linked: Option<JobKey>,
    ready: BTreeSet<JobKey>,
}

/// Where an active job is: the part it executes and that part's CPU.
#[derive(Clone, Copy, Debug)]
struct Where {
    key: JobKey,
    part: usize,
    cpu: u32,
}

/// The `pfp-ts` policy (module doc).
#[derive(Debug)]
pub struct FpTs {
    tasks: Arc<[PolicyTask]>,
    /// Each task's CPU (a split task's: its head part's).
    home: Vec<u32>,
    /// Each task's parts in execution order (empty: whole).
    split: Vec<Vec<SplitPart>>,
    cpus: Vec<Cpu>,
    jobs: JobTable<Where>,
}

impl FpTs {
    /// FP-TS for `tasks` on `cpus` CPUs with `placement` (CPUs of single-CPU domains and the
    /// split parts). Errors: [`PolicyError::InvalidPlatform`] for `cpus = 0`,
    /// [`PolicyError::InvalidPlacement`] naming the task for a placement that does not fit
    /// the tasks or the CPUs (module doc, "Assumptions").
    pub fn new(
        tasks: impl Into<Arc<[PolicyTask]>>,
        cpus: u32,
        placement: Placement,
    ) -> Result<FpTs, PolicyError> {
        let tasks: Arc<[PolicyTask]> = tasks.into();
        if cpus == 0 {
            return Err(PolicyError::InvalidPlatform(
                "policy `pfp-ts` needs at least one CPU".to_string(),
            ));
        }
        check_placement(&tasks, cpus, &placement)?;
        let n = tasks.len();
        let mut split = placement.split;
        split.resize_with(n, Vec::new);
        Ok(FpTs {
            home: placement.domain_of_task,
            split,
            cpus: (0..cpus).map(|_| Cpu::default()).collect(),
            jobs: JobTable::new(n),
            tasks,
        })
    }

    /// The parts of `task` (empty if whole or unknown).
    fn parts(&self, task: usize) -> &[SplitPart] {
        self.split.get(task).map_or(&[], Vec::as_slice)
    }

    /// `key`'s job enters `cpu`'s queue: it takes the CPU if the CPU idles or runs a job of
    /// strictly lower priority (which goes back to the queue), else it waits.
    fn enter(&mut self, cpu: u32, key: JobKey, out: &mut Decisions) {
        let Some(c) = self.cpus.get_mut(cpu as usize) else {
            return;
        };
        match c.linked {
            Some(running) if !key.preempts(&running) => {
                c.ready.insert(key);
            }
            running => {
                if let Some(r) = running {
                    c.ready.insert(r);
                }
                c.linked = Some(key);
                out.link(CpuId(cpu), key.job());
            }
        }
    }

    /// `key`'s job leaves `cpu`: out of the queue, or off the CPU, which then takes its
    /// highest-priority waiting job (or idles).
    fn leave(&mut self, cpu: u32, key: JobKey, out: &mut Decisions) {
        let Some(c) = self.cpus.get_mut(cpu as usize) else {
            return;
        };
        if c.linked != Some(key) {
            c.ready.remove(&key);
            return;
        }
        c.linked = c.ready.pop_first();
        match c.linked {
            Some(next) => out.link(CpuId(cpu), next.job()),
            None => out.unlink(CpuId(cpu)),
        }
    }

    fn forget(&mut self, job: JobId, out: &mut Decisions) {
        if let Some(w) = self.jobs.remove(job) {
            self.leave(w.cpu, w.key, out);
        }
    }
}

/// Checks a placement for `pfp-ts` (module doc, "Assumptions").
fn check_placement(tasks: &[PolicyTask], cpus: u32, p: &Placement) -> Result<(), PolicyError> {
    let invalid = |m: String| Err(PolicyError::InvalidPlacement(m));
    if p.domain_size != 1 {
        return invalid(format!(
            "policy `pfp-ts` is semi-partitioned: domain size must be 1, not {}",
            p.domain_size
        ));
    }
    let n = tasks.len();
    if p.domain_of_task.len() != n || !(p.split.is_empty() || p.split.len() == n) {
        return invalid(format!(
            "the placement lists {} tasks ({} split lists), the task set has {n}",
            p.domain_of_task.len(),
            p.split.len()
        ));
    }
    for (i, (&cpu, task)) in p.domain_of_task.iter().zip(tasks).enumerate() {
        if cpu >= cpus {
            return invalid(format!(
                "task {i} is placed on CPU {cpu}, but there are only {cpus} CPUs (0..{cpus})"
            ));
        }
        let Some(parts) = p.parts(i) else {
            continue;
        };
        if let Some(problem) = schedlab_model::task::split_problem(parts, task.wcet) {
            return invalid(format!("task {i}: split: {problem}"));
        }
        if let Some((k, part)) = parts.iter().enumerate().find(|(_, q)| q.cpu >= cpus) {
            return invalid(format!(
                "task {i}: split: part {k} is on CPU {}, but there are only {cpus} CPUs (0..{cpus})",
                part.cpu
            ));
        }
        if parts.first().is_some_and(|h| h.cpu != cpu) {
            return invalid(format!(
                "task {i} is placed on CPU {cpu}, but its head part is on CPU {}",
                parts.first().map_or(0, |h| h.cpu)
            ));
        }
    }
    Ok(())
}

impl Policy for FpTs {
    fn name(&self) -> &str {
        "pfp-ts"
    }
    fn cpus(&self) -> u32 {
        u32::try_from(self.cpus.len()).unwrap_or(u32::MAX)
    }
    fn on_release(&mut self, _ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        let task = job.id.task.0 as usize;
        let (Some(t), Some(&cpu)) = (self.tasks.get(task), self.home.get(task)) else {
            return; // a task outside the placement (the engine broke the contract)
        };
        if self.jobs.contains(job.id) {
            return;
        }
        let key = JobKey::new(u64::from(t.rank), job.id);
        if let Some(head) = self.parts(task).first() {
            out.budget(job.id, head.budget);
        }
        self.jobs.insert(job.id, Where { key, part: 0, cpu });
        self.enter(cpu, key, out);
    }
    fn on_complete(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.forget(job, out);
    }
    fn on_abort(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.forget(job, out);
    }
    fn on_budget_exhausted(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        let Some(&w) = self.jobs.get(job) else {
            return;
        };
        let next = w.part + 1;
        let Some(&SplitPart { cpu, budget }) = self.parts(job.task.0 as usize).get(next) else {
            return; // the tail (or a whole task): keep running here (module doc, step 4)
        };
        self.leave(w.cpu, w.key, out);
        self.jobs.insert(
            job,
            Where {
                key: w.key,
                part: next,
                cpu,
            },
        );
        out.budget(job, budget);
        self.enter(cpu, w.key, out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.cpus
            .get(cpu.0 as usize)
            .and_then(|c| c.linked)
            .map(|k| k.job())
    }
}

#[cfg(test)]
impl FpTs {
    /// The part (0-based) `job` is in and that part's CPU.
    fn part_of(&self, job: JobId) -> Option<(usize, u32)> {
        self.jobs.get(job).map(|w| (w.part, w.cpu))
    }
}

#[cfg(test)]
mod tests;
