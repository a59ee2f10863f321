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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    //! The shard's bookkeeping without threads: FP-TS's split task 0 (3 ms: a head of 2 ms on
    //! CPU 0, a tail of 1 ms on CPU 1), whole task 1 on CPU 1 (rank 1); the shards share the
    //! completed-job counters.
    use super::*;
    use crate::mech::clock::TickClock;
    use schedlab_model::SplitPart;
    use schedlab_policy::{build, Placement, PolicyTask};
    use schedlab_trace::tracebuf::TraceBuf;
    use schedlab_trace::Kind;

    const MS: u64 = 1_000_000;

    struct Fixture {
        done: Arc<[AtomicU64]>,
        head: Arc<[u32]>,
        buf: TraceBuf,
        clock: TickClock,
    }

    impl Fixture {
        fn new() -> Fixture {
            Fixture {
                done: (0..2).map(|_| AtomicU64::new(0)).collect(),
                head: vec![0, 1].into(),
                buf: TraceBuf::new(1024),
                clock: TickClock::monotonic(),
            }
        }
        fn em(&self, cpu: u32) -> Emit<'_> {
            Emit {
                buf: &self.buf,
                clock: &self.clock,
                cpu,
            }
        }
        /// CPU `me`'s shard of `pfp-ts` with the placement above.
        fn shard(&self, me: u32) -> Sched {
            let t = |c: u64, p: u64, rank| {
                PolicyTask::new(
                    Duration::from_ns(c),
                    Duration::from_ns(p),
                    Duration::from_ns(p),
                    rank,
                )
            };
            let tasks = vec![t(3 * MS, 10 * MS, 0), t(4 * MS, 20 * MS, 1)];
            let part = |cpu, b| SplitPart {
                cpu,
                budget: Duration::from_ns(b),
            };
            let placement =
                Placement::semi(vec![0, 1], vec![vec![part(0, 2 * MS), part(1, MS)], vec![]]);
            let policy = build("pfp-ts", &tasks, 2, Some(placement)).unwrap();
            let spec: Arc<[TaskSpec]> = vec![
                TaskSpec {
                    wcet: 3 * MS,
                    deadline: 10 * MS,
                },
                TaskSpec {
                    wcet: 4 * MS,
                    deadline: 20 * MS,
                },
            ]
            .into();
            Sched::new_shard(
                policy,
                spec,
                Shard::new(me, self.done.clone(), self.head.clone()),
            )
        }
        fn kinds(&self, task: u32) -> Vec<(Kind, u64)> {
            self.buf
                .events()
                .iter()
                .filter(|e| e.task == task)
                .map(|e| (e.kind, e.arg))
                .collect()
        }
    }

    fn job(task: u32, seq: u64) -> JobId {
        JobId::new(TaskId(task), seq)
    }

    fn budget_left(s: &Sched, j: JobId) -> Option<u64> {
        let live = s.tasks.get(j.task.0 as usize)?.current.as_ref()?;
        Some(live.budget?.left_ns())
    }

    /// A release of the split task enters its head shard with the head's budget; the part's
    /// end (the policy's exhaustion callback) moves it: the shard forgets it, and hands it
    /// over — with the tail's budget and one exhaustion — once it is no longer scheduled.
    #[test]
    fn a_split_job_enters_its_head_and_departs_at_its_part_end() {
        let f = Fixture::new();
        let mut s = f.shard(0);
        let em = f.em(0);
        s.release(&em, 0, 0, 0, 0);
        assert_eq!(s.assigned, vec![Some(job(0, 0))]);
        assert_eq!(budget_left(&s, job(0, 0)), Some(2 * MS));
        assert!(f.kinds(0).contains(&(Kind::BudgetReplenished, 2 * MS)));
        // Scheduled here (as the scheduling step would), then its head budget runs out.
        s.scheduled = vec![Some(job(0, 0))];
        s.exhausted(&em, 0, job(0, 0), 2 * MS);
        assert_eq!(s.assigned, vec![None], "the head CPU idles");
        assert_eq!(
            s.policy.linked(CpuId(1)),
            None,
            "the shard's policy forgot the job"
        );
        assert_eq!(
            budget_left(&s, job(0, 0)),
            Some(MS),
            "the tail's budget travels"
        );
        let mut out = Vec::new();
        s.take_departures(&mut out);
        assert!(
            out.is_empty(),
            "still scheduled here: it leaves once parked"
        );
        s.scheduled = vec![None];
        s.take_departures(&mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].to(), out[0].job(), out[0].live.exhaustions),
            (1, job(0, 0), 1)
        );
        assert!(s.tasks[0].current.is_none());
    }

    /// The receiving shard replays the release and the exhaustion: the job takes CPU 1 from
    /// the lower-priority whole task, keeps the budget it brought (no replenishment recorded
    /// by the replay), and nothing departs.
    #[test]
    fn an_arrival_is_replayed_to_its_part() {
        let f = Fixture::new();
        let mut head = f.shard(0);
        head.release(&f.em(0), 0, 0, 0, 0);
        head.scheduled = vec![Some(job(0, 0))];
        head.exhausted(&f.em(0), 0, job(0, 0), 2 * MS);
        head.scheduled = vec![None];
        let mut out = Vec::new();
        head.take_departures(&mut out);
        let migrant = out.pop().unwrap();
        let mut tail = f.shard(1);
        let em = f.em(1);
        tail.release(&em, 0, 1, 0, 0);
        assert_eq!(tail.assigned, vec![Some(job(1, 0))]);
        let before = f.kinds(0).len();
        tail.arrive(&em, 2 * MS, migrant);
        assert_eq!(
            tail.assigned,
            vec![Some(job(0, 0))],
            "it preempts task 1 there"
        );
        assert_eq!(budget_left(&tail, job(0, 0)), Some(MS));
        let replayed: Vec<_> = f.kinds(0)[before..].to_vec();
        assert!(
            !replayed.iter().any(|(k, _)| *k == Kind::BudgetReplenished),
            "{replayed:?}"
        );
        assert!(tail.shard.as_ref().unwrap().departing.is_empty());
        // Its completion there is counted for the head shard, which is rung.
        tail.shard.as_mut().unwrap().completed(0);
        let mut rings = Vec::new();
        tail.take_rings(&mut rings);
        assert_eq!(rings, vec![0]);
    }

    /// Jobs of a task are handed over in order across shards: the next job waits in the head
    /// shard until the previous one's completion was counted, wherever it completed.
    #[test]
    fn a_job_waits_for_its_predecessor_on_another_shard() {
        let f = Fixture::new();
        let mut head = f.shard(0);
        let em = f.em(0);
        // Job 0 runs its head and leaves for CPU 1 (not yet completed there).
        head.release(&em, 0, 0, 0, 0);
        head.scheduled = vec![Some(job(0, 0))];
        head.exhausted(&em, 0, job(0, 0), 2 * MS);
        head.scheduled = vec![None];
        head.take_departures(&mut Vec::new());
        head.release(&em, 10 * MS, 0, 1, 10 * MS);
        assert_eq!(head.assigned, vec![None], "job 1 waits");
        assert_eq!(head.tasks[0].backlog.len(), 1);
        head.retry_gated(&em, 11 * MS);
        assert_eq!(head.assigned, vec![None], "still waiting");
        f.done[0].store(1, Ordering::Release); // job 0 completed on CPU 1
        head.retry_gated(&em, 12 * MS);
        assert_eq!(head.assigned, vec![Some(job(0, 1))]);
        assert_eq!(budget_left(&head, job(0, 1)), Some(2 * MS));
    }
}
