//! One CPU's shard of a semi-partitioned policy (`semi-partitioned`, [RTPS §IV-B]): each CPU
//! has a [`Sched`] of its own holding an instance of the run's policy built on *all* CPUs
//! with the whole placement, of which it enacts only its own CPU. The policy decides
//! everything — which job runs, the budgets, where a job goes when a part ends — and the
//! shard turns a decision that concerns another CPU into a hand-over.
//!
//! A policy runs sharded when its CPUs' states are independent except where a job moves
//! (`pfp-ts`: per-CPU FP queues, a split job moving at budget exhaustion; `pfp`: jobs never
//! move). Then:
//! - **Releases** of a task's jobs go to the shard of its CPU (a split task's head CPU), which
//!   hands them to its policy (`on_release`) as any `Sched` does — but only once the task's
//!   previous job completed, wherever it ran ([`Shard::predecessor_done`], a per-task count of
//!   completed jobs shared by the shards): jobs of a task are handed over in order and one
//!   thread runs them.
//! - **Departures**: when the policy links one of the shard's jobs to another CPU d (a part's
//!   budget ran out: FP-TS moves the job to its next part's CPU), the shard forgets it
//!   (`on_abort`: the policy's "forget this job", the only callback that removes a job
//!   without completing it — nothing is aborted) and keeps the job's record ([`Migrant`]),
//!   with its budget for the next part, until its dispatcher has parked it; the
//!   architecture then puts it into d's migration queue.
//! - **Arrivals** ([`Sched::arrive`]): the receiving shard's policy instance has never seen
//!   the job, so the shard replays what the sending ones saw — `on_release` and one
//!   `on_budget_exhausted` per exhaustion the job had — which brings a deterministic policy
//!   to the same point (for FP-TS: the job in the queue of its current part's CPU). While
//!   replaying, budget requests are dropped (the job brings its budget) and links to other
//!   CPUs are not departures; a job the replay leaves on another CPU moves on.
//!
//! Invariant: a shard's policy instance holds only jobs of its own CPU (on other CPUs'
//! slots of the instance nothing stays), so each instance decides its CPU exactly as the
//! one policy instance of `global-lock` would.

use super::{unfinished_record, Live, RawRecord, Sched, TaskSpec};
use crate::job::JobCtl;
use crate::state::Emit;
use schedlab_model::{Duration, Time};
use schedlab_policy::{CpuId, JobId, JobInfo, Policy, TaskId};
use schedlab_trace::Op;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A shard's own state (module doc).
#[derive(Debug)]
pub(crate) struct Shard {
    /// The shard's CPU (the policy numbers CPUs as the run's logical CPUs).
    me: u32,
    /// Jobs the policy linked to another CPU, leaving once parked: (job, CPU).
    departing: Vec<(JobId, u32)>,
    /// Departed jobs the policy has not yet been told to forget.
    to_forget: Vec<JobId>,
    /// An arrival is being replayed.
    replaying: bool,
    /// Per task, the jobs whose completion some shard processed (shared by all shards).
    done: Arc<[AtomicU64]>,
    /// Per task, the CPU whose shard hands its jobs to the policy (a split task's head).
    head: Arc<[u32]>,
    /// Tasks with a job waiting for its predecessor's completion on another shard.
    gated: Vec<u32>,
    /// CPUs to ring: they hand over a job whose predecessor completed here.
    ring: Vec<u32>,
}

impl Shard {
    /// The shard of CPU `me`; `done` and `head` are shared by the run's shards.
    pub(crate) fn new(me: u32, done: Arc<[AtomicU64]>, head: Arc<[u32]>) -> Shard {
        let n = head.len();
        Shard {
            me,
            departing: Vec::with_capacity(n),
            to_forget: Vec::with_capacity(n),
            replaying: false,
            done,
            head,
            gated: Vec::with_capacity(n),
            ring: Vec::with_capacity(n),
        }
    }

    /// The shard's CPU.
    pub(crate) fn cpu(&self) -> u32 {
        self.me
    }

    /// Whether an arrival is being replayed.
    pub(crate) fn replaying(&self) -> bool {
        self.replaying
    }

    /// Whether job `seq` of `task` may be handed to the policy (every earlier job of the
    /// task completed); if not, the task is remembered for [`Sched::retry_gated`].
    pub(crate) fn predecessor_done(&mut self, task: u32, seq: u64) -> bool {
        let done = self
            .done
            .get(task as usize)
            .map_or(0, |d| d.load(Ordering::Acquire));
        if done >= seq {
            return true;
        }
        if !self.gated.contains(&task) {
            self.gated.push(task);
        }
        false
    }

    /// A job of `task` completed on this shard: counted, and the shard that hands over the
    /// task's jobs is rung if it is another.
    pub(crate) fn completed(&mut self, task: u32) {
        if let Some(d) = self.done.get(task as usize) {
            d.fetch_add(1, Ordering::AcqRel);
        }
        if let Some(&h) = self.head.get(task as usize).filter(|&&h| h != self.me) {
            self.ring.push(h);
        }
    }
}

/// A job on its way from one shard to another: its record, budget and exhaustions.
#[derive(Debug)]
pub(crate) struct Migrant {
    live: Live,
    to: u32,
}

impl Migrant {
    /// The CPU it goes to.
    pub(crate) fn to(&self) -> u32 {
        self.to
    }

    /// The job.
    pub(crate) fn job(&self) -> JobId {
        JobId::new(TaskId(self.live.rec.task), self.live.rec.seq)
    }

    /// Its record, when the run ended before it arrived.
    pub(crate) fn record(self, ctls: &[Arc<JobCtl>]) -> RawRecord {
        let task = self.live.rec.task as usize;
        unfinished_record(self.live, ctls.get(task))
    }
}

impl Sched {
    /// CPU `me`'s shard of `policy` (built on all the run's CPUs; see the module doc).
    pub(crate) fn new_shard(policy: Box<dyn Policy>, spec: Arc<[TaskSpec]>, shard: Shard) -> Sched {
        let me = shard.me;
        let mut s = Sched::new(policy, me, spec);
        s.assigned = vec![None];
        s.scheduled = vec![None];
        s.need = vec![false];
        s.swaps = false;
        s.shard = Some(shard);
        s
    }

    /// In a shard: the departures in the last callback's links (recorded), and the next one
    /// the policy must forget.
    pub(super) fn next_departure(&mut self) -> Option<JobId> {
        let sh = self.shard.as_mut()?;
        if !sh.replaying {
            for l in &self.out.links {
                if let (Some(j), true) = (l.job, l.cpu.0 != sh.me) {
                    if !sh.departing.iter().any(|(d, _)| *d == j) {
                        sh.departing.push((j, l.cpu.0));
                        sh.to_forget.push(j);
                    }
                }
            }
        }
        sh.to_forget.pop()
    }

    /// Records the start of `op` about `j` if this is a shard (the RTPS operations are
    /// traced under `semi-partitioned` only).
    pub(super) fn shard_op_begin(&self, em: &Emit<'_>, op: Op, j: JobId) -> Option<Op> {
        self.shard.as_ref().map(|_| {
            em.op_begin(op, Some(j));
            op
        })
    }

    /// Records the end of an operation begun by [`Sched::shard_op_begin`].
    pub(super) fn op_end(&self, em: &Emit<'_>, op: Option<Op>, j: JobId) {
        if let Some(op) = op {
            em.op_end(op, Some(j));
        }
    }

    /// A job another shard handed to this one (module doc, "Arrivals"): its record moves in
    /// and the policy is brought to where the job is. Timed as `ready_add_local`.
    pub(crate) fn arrive(&mut self, em: &Emit<'_>, now: u64, m: Migrant) {
        let j = m.job();
        let task = j.task.0 as usize;
        let Some(t) = self.tasks.get(task) else {
            return;
        };
        if let Some(other) = t.current.as_ref().map(|l| l.rec.seq) {
            // Cannot happen (one job of a task is in flight at a time): keep its record.
            self.mech_error(format!(
                "task {} job {} arrived at CPU {} while the task's job {other} was there",
                j.task.0, j.seq, self.base
            ));
            self.records.push(m.live.rec);
            return;
        }
        em.op_begin(Op::ReadyAddLocal, Some(j));
        let exhaustions = m.live.exhaustions;
        let info = JobInfo {
            id: j,
            release: Time::from_ns(m.live.rec.release_ns),
            deadline: Time::from_ns(m.live.rec.deadline_ns),
            wcet: Duration::from_ns(self.spec.get(j.task.0 as usize).map_or(0, |s| s.wcet)),
        };
        if let Some(t) = self.tasks.get_mut(task) {
            t.current = Some(m.live);
        }
        self.set_replaying(true);
        self.call(now, |p, ctx, out| p.on_release(ctx, &info, out));
        for _ in 0..exhaustions {
            self.call(now, |p, ctx, out| p.on_budget_exhausted(ctx, j, out));
        }
        self.set_replaying(false);
        // A job the replay left on another CPU moves on.
        let me = self.shard.as_ref().map_or(self.base, Shard::cpu);
        let elsewhere =
            (0..self.policy.cpus()).find(|&d| d != me && self.policy.linked(CpuId(d)) == Some(j));
        if let (Some(d), Some(sh)) = (elsewhere, self.shard.as_mut()) {
            sh.departing.push((j, d));
            self.call(now, |p, ctx, out| p.on_abort(ctx, j, out));
        }
        self.remap();
        em.op_end(Op::ReadyAddLocal, Some(j));
        self.flush(em);
    }

    fn set_replaying(&mut self, on: bool) {
        if let Some(sh) = self.shard.as_mut() {
            sh.replaying = on;
        }
    }

    /// Hands over the jobs that waited for their predecessor's completion on another shard,
    /// where it has come.
    pub(crate) fn retry_gated(&mut self, em: &Emit<'_>, now: u64) {
        let Some(sh) = self.shard.as_mut() else {
            return;
        };
        if sh.gated.is_empty() {
            return;
        }
        let gated = std::mem::take(&mut sh.gated);
        for &task in &gated {
            self.hand_over(em, now, task);
        }
        if let Some(sh) = self.shard.as_mut() {
            // Keep the capacity; tasks still waiting were pushed again by `hand_over`.
            let mut g = gated;
            g.clear();
            g.append(&mut sh.gated);
            sh.gated = g;
        }
        self.remap();
        self.flush(em);
    }

    /// Moves the departed jobs that are no longer scheduled here (their dispatcher parked
    /// them) into `out`; a departed job that completed meanwhile is dropped (the completion
    /// wins).
    pub(crate) fn take_departures(&mut self, out: &mut Vec<Migrant>) {
        let Some(sh) = self.shard.as_mut() else {
            return;
        };
        let mut k = 0;
        while let Some(&(j, to)) = sh.departing.get(k) {
            if self.scheduled.contains(&Some(j)) {
                k += 1;
                continue;
            }
            sh.departing.swap_remove(k);
            let Some(t) = self.tasks.get_mut(j.task.0 as usize) else {
                continue;
            };
            if t.current.as_ref().is_some_and(|l| l.rec.seq == j.seq) {
                if let Some(live) = t.current.take() {
                    out.push(Migrant { live, to });
                }
            }
        }
    }

    /// Moves the CPUs this shard must ring (a completion they waited for) into `out`.
    pub(crate) fn take_rings(&mut self, out: &mut Vec<u32>) {
        if let Some(sh) = self.shard.as_mut() {
            out.append(&mut sh.ring);
        }
    }
}
