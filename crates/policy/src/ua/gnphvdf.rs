//! G-NP-HVDF [ChronOS §6.7]: global non-preemptive highest value density first.
//!
//! A job's LVD ([`super::Density`]: utility if it completes after running alone from now,
//! over its remaining execution) is computed once, when it is queued (release, or resume
//! after blocking): G-NP-HVDF "may be considered a non-preemptible fixed priority scheduling
//! algorithm" (§6.7). Ready jobs wait in one queue ordered by that LVD (ties: task index,
//! then seq, [`crate::prio`]); an idle CPU takes the head; a started job runs to completion,
//! even past its deadline. Only the head can be aborted: a job about to start (it has not
//! executed) at or after its critical time (the deadline for a step TUF) is aborted if its
//! task is abortable, and the CPU takes the next head — so a job may wait in the queue past
//! its deadline for an unbounded time (§6.7); no timer is armed.
//!
//! The queue, the idle-CPU choice (the task's last CPU if idle, else the lowest-numbered) and
//! the one refinement for jobs linked at the current instant that have not started (a denser
//! job queued at the same instant may still take their CPU, so all releases of an instant are
//! seen before jobs start — DESIGN.md "Event order") are those of `gnpedf`'s engine
//! ([`crate::global`]) with the LVD as the key.
//!
//! Resources: a job that blocks leaves its CPU (which takes the head) and is queued again
//! with a fresh LVD when it resumes; having started, it is never aborted at the head.
//!
//! Complexity: insertion O(log n) (binary heap) — Table 6.3 states O(n): beaten; scheduling
//! O(log n) per pop (Table 6.3: O(1) for ChronOS's sorted list), mapping O(1) per idle CPU
//! (O(m) scan of the idle set above 64 CPUs at worst).

use super::pool::abortable;
use super::{critical_time, task_of, Density};
use crate::event::{Ctx, Decisions, JobInfo};
use crate::global::{Engine, EngineKey, Preemption};
use crate::ids::{CpuId, JobId};
use crate::policy::Policy;
use crate::task::PolicyTask;
use schedlab_model::{Duration, Time};
use std::cmp::Ordering;
use std::sync::Arc;

/// A job's fixed key: its LVD at queueing (higher first), then task index, seq, strand; the
/// critical time rides along (not compared).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NpKey {
    density: f64,
    task: u32,
    seq: u64,
    strand: u32,
    crit: Time,
}

impl NpKey {
    fn of(ctx: &Ctx<'_>, tasks: &[PolicyTask], job: &JobInfo) -> NpKey {
        NpKey {
            density: Density::of(ctx, tasks, job).ratio(),
            task: job.id.task.0,
            seq: job.id.seq,
            strand: job.id.strand,
            crit: critical_time(task_of(tasks, job), job),
        }
    }
}

impl Ord for NpKey {
    fn cmp(&self, other: &NpKey) -> Ordering {
        other
            .density
            .total_cmp(&self.density)
            .then(self.task.cmp(&other.task))
            .then(self.seq.cmp(&other.seq))
            .then(self.strand.cmp(&other.strand))
    }
}
impl PartialOrd for NpKey {
    fn partial_cmp(&self, other: &NpKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for NpKey {
    fn eq(&self, other: &NpKey) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for NpKey {}

impl EngineKey for NpKey {
    /// Unused in non-preemptive mode (the engine only undoes links of the current instant,
    /// by full key); a strictly higher LVD otherwise.
    fn preempts(&self, linked: &NpKey) -> bool {
        self.density > linked.density
    }
}

/// G-NP-HVDF (module doc).
#[derive(Debug)]
pub struct GNpHvdf {
    tasks: Arc<[PolicyTask]>,
    engine: Engine<NpKey>,
}

impl GNpHvdf {
    /// G-NP-HVDF for `tasks` on `cpus` CPUs.
    pub fn new(tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> GNpHvdf {
        let tasks = tasks.into();
        GNpHvdf {
            engine: Engine::new(cpus, tasks.len(), Preemption::NonPreemptive, false),
            tasks,
        }
    }

    /// Aborts the jobs linked by the decisions from `out.links[from..]` that are about to
    /// start past their critical time (module doc); each abort makes its CPU take the next
    /// head, whose link is checked in turn.
    fn abort_late_heads(&mut self, ctx: &Ctx<'_>, from: usize, out: &mut Decisions) {
        let mut k = from;
        while let Some(l) = out.links.get(k).copied() {
            k += 1;
            let Some(job) = l.job else { continue };
            if self.engine.linked(l.cpu) != Some(job) {
                continue; // undone later in this callback
            }
            let late = self
                .engine
                .linked_key(l.cpu)
                .is_some_and(|key| key.crit <= ctx.now);
            if late && ctx.progress.executed(job) == Duration::ZERO && abortable(&self.tasks, job) {
                self.engine.remove(ctx, job, out);
                out.abort(job);
            }
        }
    }

    fn queue(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        let from = out.links.len();
        let key = NpKey::of(ctx, &self.tasks, job);
        self.engine.release(ctx, job, key, out);
        self.abort_late_heads(ctx, from, out);
    }

    fn leave(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        let from = out.links.len();
        self.engine.remove(ctx, job, out);
        self.abort_late_heads(ctx, from, out);
    }
}

impl Policy for GNpHvdf {
    fn name(&self) -> &str {
        "gnphvdf"
    }
    fn cpus(&self) -> u32 {
        self.engine.cpu_count()
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.queue(ctx, job, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.leave(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.leave(ctx, job, out);
    }
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.leave(ctx, job, out);
    }
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.queue(ctx, job, out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.engine.linked(cpu)
    }
}
