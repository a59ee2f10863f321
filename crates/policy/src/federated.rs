//! `federated`: federated scheduling of parallel (fork-join) tasks [Li, Chen, Agrawal, Lu,
//! Gill, Saifullah, "Analysis of federated and global scheduling for parallel real-time
//! tasks", ECRTS 2014, §3].
//!
//! # The algorithm [ECRTS 2014, §3]
//! A task `τi` with work `Ci` (the sum of its threads, T1) and critical path `Li` (T∞) is
//! - **heavy** when `Ci > Di`: it gets `ni = ⌈(Ci − Li)/(Di − Li)⌉` CPUs of its own, on which
//!   its jobs run alone under a *greedy* (work-conserving) scheduler: no dedicated CPU idles
//!   while a thread of the task is ready. Graham's bound gives each job a response time of at
//!   most `Li + (Ci − Li)/ni ≤ Di`;
//! - **light** when `Ci ≤ Di`: it runs as a sequential task of WCET `Ci` on the CPUs the heavy
//!   tasks leave, under a multiprocessor scheduler for sequential tasks. Here: partitioned EDF,
//!   the light tasks packed onto the CPUs left by the light test of `analyze --test federated`
//!   (default `pedf-ffd`).
//!
//! Federated scheduling has a capacity augmentation bound of 2 [ECRTS 2014, §3, the main
//! theorem of the section; the paper is not among `papers/`, so its theorem number is not
//! quoted here]: a set of implicit-deadline tasks with total utilization `U ≤ m/2` and every
//! `Li ≤ Di/2` is schedulable on `m` CPUs. The test `federated` does not use the bound: it
//! builds the allocation and checks it (heavy tasks fit, the light test accepts the rest).
//!
//! # As implemented
//! The allocation is an *input* ([`Placement`] with domains of different sizes,
//! [`Placement::domain_sizes`]), computed by the analysis crate exactly as the `federated`
//! test computes it (`schedlab_analysis::placement::federated_placement`): CPUs
//! `0 .. n1` for the first heavy task, the next `n2` for the second, …, then one CPU per
//! light partition. This policy is a [`Domains`] over those domains, each with its own
//! scheduler:
//! - a **heavy task's domain** (a domain holding a task with `C > D`) holds that task alone
//!   and runs it greedily (module `greedy`): a ready thread takes the lowest-numbered idle CPU,
//!   waiting threads are taken in the project's priority order (job, then strand), nothing is
//!   preempted, and at a join the CPU where the region joined takes the next region's first
//!   thread. Its jobs are sequential in time (the engines hand over job `k + 1` only after
//!   job `k` completed — `crate::policy`, item 3 — so a late job delays the next, FIFO);
//! - every other domain (the light CPUs, one each) is G-EDF on its CPUs — uniprocessor EDF
//!   on one CPU. The threads of a light parallel task run there as jobs released when their
//!   region starts, with the job's deadline ("threads as jobs"): on one CPU they execute one
//!   after another, i.e. as the sequential task of WCET `Ci` the light test analysed.
//!
//! A heavy task never runs outside its domain and nothing else runs inside it. The policy
//! checks the one invariant it can see ([`PolicyTask`] has `C`, `D`, `T`, not the critical
//! path): a heavy task (`C > D`) is alone in its domain.
//!
//! # Assumptions and decisions
//! - **Deadlines.** The paper treats implicit deadlines (`D = T`). Constrained deadlines
//!   (`D ≤ T`) are taken as the analysis takes them: `ni` uses `D`, and a job that meets `D`
//!   is done before the next release, so dedicated CPUs never hold two jobs; arbitrary
//!   deadlines (`D > T`) are refused by the placement (the analysis says *not applicable*).
//! - **Pins.** The allocation is the algorithm's: files that pin tasks (`cpu`) or split them
//!   are refused by the placement, naming the task.
//! - **No overheads** are part of the analysis; resources follow [`Domains`] (no
//!   cross-domain protocol).
//!
//! # Cost
//! Per event, `O(1)` routing to the task's domain plus that domain's scheduler: on a light
//! CPU, EDF's `O(log n)` for `n` jobs there; in a heavy task's domain of `k` CPUs, `O(k)`
//! plus `O(log w)` for `w` waiting threads (a fork of `w` threads: `O(w (k + log w))`).

use crate::domains::Domains;
use crate::error::PolicyError;
use crate::event::{Ctx, Decisions, JobInfo};
use crate::global::GlobalJlfp;
use crate::ids::{CpuId, JobId, ResourceId, TimerId};
use crate::policy::{ParallelSupport, Policy};
use crate::task::{Placement, PolicyTask};
use greedy::Greedy;
use std::sync::Arc;

mod greedy;
mod part;

use part::Part;

/// Federated scheduling on the domains of a placement (module doc).
#[derive(Debug)]
pub struct Federated {
    domains: Domains<Part>,
}

impl Federated {
    /// Federated scheduling of `tasks` on `cpus` CPUs in the domains of `placement`.
    /// Errors: those of [`Domains::new`]; [`PolicyError::InvalidPlacement`] naming a heavy
    /// task (`C > D`) that shares its domain with another task, or a split task.
    pub fn new(
        tasks: impl Into<Arc<[PolicyTask]>>,
        cpus: u32,
        placement: Placement,
    ) -> Result<Federated, PolicyError> {
        let tasks: Arc<[PolicyTask]> = tasks.into();
        if let Some(i) = placement.first_split_task() {
            return Err(PolicyError::InvalidPlacement(format!(
                "task {i} is split, but policy `federated` runs whole tasks only (split tasks run under `pfp-ts`)"
            )));
        }
        check_heavy_alone(&tasks, &placement.domain_of_task)?;
        let heavy_domains: Vec<u32> = tasks
            .iter()
            .zip(&placement.domain_of_task)
            .filter(|(t, _)| t.wcet > t.deadline)
            .map(|(_, &d)| d)
            .collect();
        let n = tasks.len();
        // `Domains::new` builds the domains in order: `d` counts them.
        let mut d = 0u32;
        let domains = Domains::new("federated", cpus, n, placement, |k| {
            let heavy = heavy_domains.contains(&d);
            d += 1;
            if heavy {
                Part::Heavy(Greedy::new(k))
            } else {
                Part::Light(GlobalJlfp::gedf(tasks.clone(), k))
            }
        })?;
        Ok(Federated { domains })
    }

    /// Whether domain `d` is a heavy task's (greedy) domain.
    pub fn is_heavy_domain(&self, d: u32) -> bool {
        matches!(self.domains.domain(d), Some(Part::Heavy(_)))
    }
}

/// A heavy task (`C > D`) must own its domain: `Err` names it and the task beside it.
fn check_heavy_alone(tasks: &[PolicyTask], domain_of_task: &[u32]) -> Result<(), PolicyError> {
    for (i, (t, d)) in tasks.iter().zip(domain_of_task).enumerate() {
        if t.wcet <= t.deadline {
            continue;
        }
        let beside = domain_of_task
            .iter()
            .enumerate()
            .find(|&(j, e)| j != i && e == d);
        if let Some((j, _)) = beside {
            return Err(PolicyError::InvalidPlacement(format!(
                "task {i} is heavy (work {} > deadline {}) and shares domain {d} with task {j}: federated scheduling gives a heavy task CPUs of its own",
                t.wcet, t.deadline
            )));
        }
    }
    Ok(())
}

impl Policy for Federated {
    fn name(&self) -> &str {
        "federated"
    }
    fn cpus(&self) -> u32 {
        self.domains.cpus()
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.domains.on_release(ctx, job, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.domains.on_complete(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.domains.on_abort(ctx, job, out);
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: TimerId, out: &mut Decisions) {
        self.domains.on_timer(ctx, timer, out);
    }
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.domains.on_block(ctx, job, out);
    }
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.domains.on_resume(ctx, job, out);
    }
    fn grant(&self, ctx: &Ctx<'_>, resource: ResourceId, waiters: &[JobId]) -> usize {
        self.domains.grant(ctx, resource, waiters)
    }
    fn on_budget_exhausted(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.domains.on_budget_exhausted(ctx, job, out);
    }
    fn on_fork(&mut self, ctx: &Ctx<'_>, cpu: CpuId, strands: &[JobInfo], out: &mut Decisions) {
        self.domains.on_fork(ctx, cpu, strands, out);
    }
    /// Native: the allocation exists for parallel tasks (a heavy task's threads run in
    /// parallel on its dedicated CPUs), even though each domain runs them as G-EDF jobs.
    fn parallel_support(&self) -> ParallelSupport {
        ParallelSupport::Native
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.domains.linked(cpu)
    }
}

#[cfg(test)]
mod tests;
