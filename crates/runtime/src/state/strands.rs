//! Strands: the threads of a parallel (fork-join) job [RTWS §III] as the runtime runs them —
//! the engine offer of DESIGN.md ("strands"), the same as the simulator's
//! (`schedlab_sim::engine`, "Strands"), for every policy and every architecture with a
//! [`Sched`].
//!
//! # Numbering and job threads
//! Region `r`'s thread `k` is strand `offset(r) + k`, `offset(r) = Σ_{r' < r} width(r')`
//! (strand 0 is region 0's first thread; a sequential job has strand 0 only). A parallel task
//! has one job thread per *slot* — as many as its widest region, `max_width` — and thread `k`
//! of every region runs on slot `k` (its own control block, `crate::job::ctl_of`). A slot's
//! strands are sequential: region `r + 1` starts only after every thread of region `r`
//! completed *and* the dispatchers processed those completions (the join), and the task's
//! next job only after the last join; so a slot's control block is handed one strand at a
//! time, as a sequential task's is handed one job at a time.
//!
//! # Semantics (the simulator's)
//! - **Release**: region 0's threads are handed to the policy one by one (`on_release`, in
//!   strand order), each with the job's release and absolute deadline and its own time as
//!   `wcet`; one `ready` event (strand 0).
//! - **Thread completion**: the thread records its `switch-out`; the dispatcher of its CPU
//!   processes the completion: before the region's last thread, `on_complete(strand)`; at the
//!   last one (the **join**) `join` (`arg` = the region, `strand` = the joining thread) is
//!   recorded and, if a region follows, it starts now on this CPU: `fork` (`arg` = its width,
//!   `strand` = its first strand), `on_fork(cpu, strands)` (release = now, the job's
//!   deadline), then `on_complete` of the joining strand (still linked during `on_fork`).
//!   After the last region's join the job completes: `complete` (strand = the joining one),
//!   one job record (start = first thread start, completion = the final join as its thread
//!   measured it, executed = Σ over threads), `on_complete`, and the task's next job.
//! - **Steals**: a policy's `Decisions::steal(strand, victim)` is kept until the strand is
//!   switched in: its dispatcher records `steal` (cpu = the thief, `arg` = the victim's
//!   logical CPU, the strand) right before making the thread runnable, if that CPU is not
//!   the victim; a strand that ends or is made runnable elsewhere first drops it.
//! - **Migrations** are counted from the trace by `schedlab_trace::counts` (a thread that
//!   starts or resumes on another CPU than where its job last executed for it — where it
//!   last ran, else where its job forked it; a steal is one).
//! - Not for parallel jobs (refused before the run, `crate::run::validate`): engine aborts of
//!   late jobs (`abort_late`), critical sections (the model refuses them), budgets (a policy's
//!   budget request for a strand is ignored, as the simulator does), `message-passing` and
//!   the shards of `semi-partitioned` (architectures without [`crate::arch::ArchDef::parallel`]).
//!
//! Cost: per strand event O(w) for a job of `w` live threads (the slot table); a fork of `w`
//! threads O(w) plus its `w` policy calls.

use super::{Emit, Live, RawRecord, Sched};
use crate::job::JobCtl;
use schedlab_model::{Duration, ParallelStructure, Time};
use schedlab_policy::{CpuId, JobId, JobInfo, TaskId};
use schedlab_trace::Kind;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The fork-join structure of a task as the runtime needs it: per strand its region, its
/// thread index (slot) and its time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParSpec {
    /// First strand of each region (`offset(r)`), and the total as the last entry.
    offsets: Vec<u32>,
    /// Each strand's execution time (ns), in strand order.
    thread_ns: Vec<u64>,
    /// The widest region's width (the task's slots).
    width: u32,
}

impl ParSpec {
    /// The spec of `p` (the model bounds it: at most `MAX_PARALLEL_THREADS` threads).
    pub fn new(p: &ParallelStructure) -> ParSpec {
        let mut offsets = Vec::with_capacity(p.region_count() + 1);
        let mut thread_ns = Vec::with_capacity(p.thread_count());
        let mut next = 0u32;
        for r in p.regions() {
            offsets.push(next);
            next = next.saturating_add(r.width() as u32);
            thread_ns.extend(r.threads.iter().map(|d| d.as_ns()));
        }
        offsets.push(next);
        ParSpec {
            offsets,
            thread_ns,
            width: p.max_width() as u32,
        }
    }

    /// Number of regions.
    pub fn regions(&self) -> u32 {
        self.offsets.len().saturating_sub(1) as u32
    }

    /// The widest region's width: the task's job threads (slots).
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Threads of one job.
    pub fn strands(&self) -> u32 {
        self.offsets.last().copied().unwrap_or(0)
    }

    /// Region `r`'s strands (`None` past the last region).
    pub fn region(&self, r: u32) -> Option<std::ops::Range<u32>> {
        let a = *self.offsets.get(r as usize)?;
        let b = *self.offsets.get(r as usize + 1)?;
        Some(a..b)
    }

    /// Strand `s`'s region and thread index in it (its slot).
    pub fn locate(&self, s: u32) -> Option<(u32, u32)> {
        if s >= self.strands() {
            return None;
        }
        // The last region whose offset is ≤ s (offsets increase strictly: no empty region).
        let r = self.offsets.partition_point(|&o| o <= s).checked_sub(1)?;
        let o = *self.offsets.get(r)?;
        Some((r as u32, s - o))
    }

    /// Strand `s`'s execution time (ns).
    pub fn thread_ns(&self, s: u32) -> Option<u64> {
        self.thread_ns.get(s as usize).copied()
    }
}

/// A parallel task's current job beyond its record (which stays in `TaskRun::current`).
#[derive(Debug)]
pub(super) struct ParRun {
    pub(super) spec: std::sync::Arc<ParSpec>,
    /// The region running now.
    pub(super) region: u32,
    /// Its threads not completed yet.
    pub(super) left: u32,
    /// The live threads of the region, by slot (thread index).
    pub(super) strands: Vec<Option<Live>>,
    /// Earliest first run of a completed thread (ticks).
    pub(super) first_ticks: Option<u64>,
    /// CPU time of the completed threads (ns).
    pub(super) executed_ns: u64,
}

impl ParRun {
    pub(super) fn new(spec: std::sync::Arc<ParSpec>) -> ParRun {
        let w = spec.width() as usize;
        ParRun {
            spec,
            region: 0,
            left: 0,
            strands: (0..w).map(|_| None).collect(),
            first_ticks: None,
            executed_ns: 0,
        }
    }

    /// The live thread `j` (its slot's entry, if it is that strand of that job).
    pub(super) fn live_mut(&mut self, j: JobId) -> Option<&mut Live> {
        let (_, k) = self.spec.locate(j.strand)?;
        self.strands
            .get_mut(k as usize)
            .and_then(Option::as_mut)
            .filter(|l| l.rec.seq == j.seq && l.strand == j.strand)
    }

    /// The live thread `j`, read-only.
    pub(super) fn live(&self, j: JobId) -> Option<&Live> {
        let (_, k) = self.spec.locate(j.strand)?;
        self.strands
            .get(k as usize)
            .and_then(Option::as_ref)
            .filter(|l| l.rec.seq == j.seq && l.strand == j.strand)
    }

    /// A completed thread's start (`first` ticks, 0: never ran) and CPU time.
    pub(super) fn add_done(&mut self, first: u64, executed_ns: u64) {
        if first != 0 {
            self.first_ticks = Some(self.first_ticks.map_or(first, |f| f.min(first)));
        }
        self.executed_ns = self.executed_ns.saturating_add(executed_ns);
    }
}

impl Sched {
    /// The tasks' fork-join structures (`None`: sequential), by task index.
    pub fn set_parallel(&mut self, par: std::sync::Arc<[Option<std::sync::Arc<ParSpec>>]>) {
        self.par = par;
    }

    /// The structure of `task`, if it is parallel.
    pub(super) fn par_spec(&self, task: u32) -> Option<std::sync::Arc<ParSpec>> {
        self.par.get(task as usize).cloned().flatten()
    }

    /// Starts region `r` of `task`'s current job `seq` (module doc): its threads become live
    /// (released at `release_ns`) and go to the policy — region 0's by `on_release`, a later
    /// one's by `on_fork` on local CPU `fork` (after a `fork` event there).
    pub(super) fn start_region(
        &mut self,
        now: u64,
        (task, seq): (u32, u64),
        r: u32,
        release_ns: u64,
        fork: Option<usize>,
    ) {
        let Some(spec) = self.par_spec(task) else {
            return;
        };
        let Some(range) = spec.region(r) else {
            return;
        };
        let Some(t) = self.tasks.get_mut(task as usize) else {
            return;
        };
        let Some(deadline_ns) = t.current.as_ref().map(|l| l.rec.deadline_ns) else {
            return;
        };
        if r == 0 {
            t.par = Some(ParRun::new(spec.clone()));
        }
        let Some(p) = t.par.as_mut() else {
            return;
        };
        p.region = r;
        p.left = range.len() as u32;
        let mut infos = Vec::with_capacity(range.len());
        for s in range.clone() {
            let rec = RawRecord {
                task,
                seq,
                release_ns,
                deadline_ns,
                ..RawRecord::default()
            };
            let k = spec.locate(s).map_or(0, |(_, k)| k as usize);
            if let Some(slot) = p.strands.get_mut(k) {
                *slot = Some(Live::new(rec, s));
            }
            infos.push(JobInfo {
                id: JobId {
                    task: TaskId(task),
                    seq,
                    strand: s,
                },
                release: Time::from_ns(release_ns),
                deadline: Time::from_ns(deadline_ns),
                wcet: Duration::from_ns(spec.thread_ns(s).unwrap_or(0)),
            });
        }
        match fork {
            Some(c) => {
                let cpu = self.base + c as u32;
                let first = JobId {
                    task: TaskId(task),
                    seq,
                    strand: range.start,
                };
                self.stage_job(Kind::Fork, cpu, first, infos.len() as u64);
                let pc = CpuId(self.shard.as_ref().map_or(0, super::Shard::cpu) + c as u32);
                self.call(now, |p, ctx, out| p.on_fork(ctx, pc, &infos, out));
            }
            None => {
                for info in &infos {
                    self.call(now, |p, ctx, out| p.on_release(ctx, info, out));
                }
            }
        }
    }

    /// Thread `j` of a parallel job, scheduled on local CPU `c`, completed (its thread
    /// `ctl` committed): before its region's last thread the policy hears `on_complete`; at
    /// the join the next region forks here, or the job completes (module doc).
    pub(super) fn complete_strand(
        &mut self,
        em: &Emit<'_>,
        now: u64,
        c: usize,
        j: JobId,
        ctl: &JobCtl,
    ) {
        let cpu = self.base + c as u32;
        self.steals.retain(|(s, _)| *s != j);
        let task = j.task.0;
        let Some(p) = self
            .tasks
            .get_mut(task as usize)
            .and_then(|t| t.par.as_mut())
        else {
            return;
        };
        let Some(k) = p.spec.locate(j.strand).map(|(_, k)| k as usize) else {
            return;
        };
        let ours = |l: &Live| l.rec.seq == j.seq && l.strand == j.strand;
        if !p.strands.get(k).and_then(Option::as_ref).is_some_and(ours) {
            return;
        }
        if let Some(slot) = p.strands.get_mut(k) {
            *slot = None;
        }
        p.add_done(
            ctl.first_run.load(Ordering::Relaxed),
            ctl.executed.load(Ordering::Relaxed),
        );
        p.left = p.left.saturating_sub(1);
        if p.left > 0 {
            self.call(now, |p, ctx, out| p.on_complete(ctx, j, out));
            self.remap();
            return;
        }
        let (region, first, executed) = (p.region, p.first_ticks, p.executed_ns);
        let next = p.spec.region(region + 1).is_some();
        self.stage_job(Kind::Join, cpu, j, u64::from(region));
        if next {
            self.start_region(now, (task, j.seq), region + 1, now, Some(c));
            self.call(now, |p, ctx, out| p.on_complete(ctx, j, out));
            self.remap();
            return;
        }
        let Some(t) = self.tasks.get_mut(task as usize) else {
            return;
        };
        t.par = None;
        let Some(mut live) = t.current.take() else {
            return;
        };
        let done = ctl.done_ticks.load(Ordering::Relaxed);
        live.rec.completion_ticks = Some(done);
        live.rec.start_ticks = first;
        live.rec.executed_ns = executed;
        self.stage_job(Kind::Complete, cpu, j, done);
        self.records.push(live.rec);
        self.call(now, |p, ctx, out| p.on_complete(ctx, j, out));
        self.hand_over(em, now, task);
        self.remap();
    }

    /// The record of `task`'s unfinished parallel job `live` at the end of the run: its
    /// completed threads' and its live threads' CPU time and first start.
    pub(super) fn unfinished_par(p: &ParRun, mut live: Live, ctls: &[Arc<JobCtl>]) -> RawRecord {
        let (mut first, mut executed) = (p.first_ticks, p.executed_ns);
        for l in p.strands.iter().flatten().filter(|l| l.dispatched) {
            let j = JobId {
                task: TaskId(l.rec.task),
                seq: l.rec.seq,
                strand: l.strand,
            };
            let Some(ctl) = crate::job::ctl_of(ctls, j) else {
                continue;
            };
            let fr = ctl.first_run.load(Ordering::Relaxed);
            if fr != 0 {
                first = Some(first.map_or(fr, |f| f.min(fr)));
                executed = executed.saturating_add(ctl.executed.load(Ordering::Relaxed));
            }
        }
        live.rec.start_ticks = first;
        live.rec.executed_ns = executed;
        live.rec
    }

    /// Takes in a callback's steals (module doc): the thief's link is enacted later.
    pub(super) fn take_steals(&mut self) {
        let base = self.base;
        for st in self.out.steals.drain(..) {
            let victim = base.saturating_add(st.victim.0);
            match self.steals.iter_mut().find(|(j, _)| *j == st.job) {
                Some(e) => e.1 = victim,
                None => self.steals.push((st.job, victim)),
            }
        }
    }

    /// The steal of `j` pending for its switch-in on logical CPU `cpu` (dropped either way;
    /// module doc): the victim if it is not `cpu`.
    pub(super) fn steal_on(&mut self, j: JobId, cpu: u32) -> Option<u32> {
        let i = self.steals.iter().position(|(s, _)| *s == j)?;
        let (_, victim) = self.steals.swap_remove(i);
        (victim != cpu).then_some(victim)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::job::{IDLE, RUN};
    use crate::mech::clock::TickClock;
    use crate::state::{TaskSpec, Threads};
    use schedlab_model::Duration;
    use schedlab_policy::{build, PolicyTask};
    use schedlab_trace::tracebuf::TraceBuf;

    const MS: u64 = 1_000_000;

    /// The job thread of `ctl` completes its strand (what `job_loop` writes before its
    /// commit): first run at `first`, `executed` ns, end at `done`.
    fn complete(ctl: &JobCtl, first: u64, executed: u64, done: u64) {
        ctl.first_run.store(first, Ordering::Relaxed);
        ctl.executed.store(executed, Ordering::Relaxed);
        ctl.done_ticks.store(done, Ordering::Relaxed);
        ctl.state.store(IDLE, Ordering::Release);
    }

    /// Hand-worked, `rtws` on 2 CPUs, one task τ0 = [1 ms] | [1 ms, 1 ms] (period 10 ms),
    /// without threads (a "runnable" strand is its control word `RUN`). The release links
    /// strand 0 to CPU 0 (both idle: the lowest). Its completion at 1 ms joins region 0 and
    /// forks region 1 on CPU 0 (`join` arg 0, `fork` strand 1 arg 2): during `on_fork` CPU 0
    /// still holds the joining strand, so the idle CPU 1 steals the deque's top, strand 1
    /// (victim CPU 0); CPU 0 then pops the bottom, strand 2, onto its own slot-1 block.
    /// CPU 1 records the steal when it makes strand 1 runnable (on slot 0's block, handed
    /// over as strand 1). Strand 2 completes first (`on_complete` only), strand 1 last: the
    /// join of region 1 completes the job — one record, executed = Σ, completion = strand
    /// 1's end, start = the earliest thread start.
    #[test]
    fn a_parallel_job_forks_joins_and_is_stolen_from_through_the_state() {
        let p = ParallelStructure::from_threads(vec![
            vec![Duration::from_ns(MS)],
            vec![Duration::from_ns(MS); 2],
        ])
        .unwrap();
        let spec = Arc::new(ParSpec::new(&p));
        let d = Duration::from_ns;
        let tasks = vec![PolicyTask::new(d(3 * MS), d(10 * MS), d(10 * MS), 0)];
        let specs: Arc<[TaskSpec]> = Arc::from(vec![TaskSpec {
            wcet: 3 * MS,
            deadline: 10 * MS,
        }]);
        let mut s = Sched::new(build("rtws", &tasks, 2, None).unwrap(), 0, specs);
        s.set_parallel(Arc::from(vec![Some(spec.clone())]));
        s.set_link_swaps(false);
        // Slot 0 at index 0 (the task's), slot 1 after the tasks' blocks; both "pinned" to
        // CPU 0 already, slot 0's block to CPU 1 once it runs there (no real re-pinning: tid 0
        // is the caller, so the test pins by hand).
        let mut head = JobCtl::new(0, 256, TickClock::monotonic(), &[0, 1]);
        head.par = Some((spec, 1));
        let slot1 = JobCtl::new(0, 256, TickClock::monotonic(), &[0, 1]);
        let ctls = vec![Arc::new(head), Arc::new(slot1)];
        for c in &ctls {
            c.pinned.store(0, Ordering::Relaxed);
        }
        let th = Threads {
            ctls: &ctls,
            phys: &[0, 1],
        };
        let (buf, clock) = (TraceBuf::new(1024), TickClock::monotonic());
        let em = |cpu| Emit {
            buf: &buf,
            clock: &clock,
            cpu,
        };
        let strand = |k: u32| {
            Some(JobId {
                strand: k,
                ..JobId::new(TaskId(0), 0)
            })
        };

        s.release(&em(0), 0, 0, 0, 0);
        assert_eq!(s.assigned, vec![strand(0), None]);
        assert!(s.schedule(&em(0), &th, 0, 0, 0));
        assert_eq!(ctls[0].state.load(Ordering::Relaxed), RUN);

        complete(&ctls[0], 10, MS, 20);
        ctls[0].pinned.store(1, Ordering::Relaxed); // CPU 1 will run slot 0 next
        assert!(s.schedule(&em(0), &th, 0, MS, 0));
        assert_eq!(s.assigned, vec![strand(2), strand(1)]);
        assert_eq!(s.scheduled, vec![strand(2), None]);
        assert_eq!(ctls[1].strand.load(Ordering::Relaxed), 2);
        assert!(s.schedule(&em(1), &th, 1, MS, 0));
        assert_eq!(ctls[0].strand.load(Ordering::Relaxed), 1);
        assert!(s.steals.is_empty(), "the steal was enacted");

        complete(&ctls[1], 30, MS, 40);
        assert!(!s.schedule(&em(0), &th, 0, 2 * MS, 0));
        assert!(s.records.is_empty(), "region 1 has not joined");
        complete(&ctls[0], 25, MS + 5, 50);
        assert!(!s.schedule(&em(1), &th, 1, 2 * MS, 0));
        assert_eq!(s.records.len(), 1);
        let r = &s.records[0];
        assert_eq!((r.start_ticks, r.completion_ticks), (Some(10), Some(50)));
        assert_eq!(r.executed_ns, 3 * MS + 5);
        assert_eq!(s.assigned, vec![None, None]);

        let ev: Vec<(Kind, u32, u32, u64)> = buf
            .events()
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    Kind::Fork | Kind::Join | Kind::Steal | Kind::Complete
                )
            })
            .map(|e| {
                (
                    e.kind,
                    e.cpu,
                    e.strand,
                    if e.kind == Kind::Complete { 0 } else { e.arg },
                )
            })
            .collect();
        assert_eq!(
            ev,
            vec![
                (Kind::Join, 0, 0, 0),
                (Kind::Fork, 0, 1, 2),
                (Kind::Steal, 1, 1, 0),
                (Kind::Join, 1, 1, 1),
                (Kind::Complete, 1, 1, 0),
            ]
        );
    }

    /// [RTWS §V-A, Fig. 2]'s τ2: 2 sequential, then threads of 1, 3, 1, 3 — strands 0 | 1 2 3
    /// 4; width 4, five strands, region 1's thread 2 is strand 3.
    #[test]
    fn strands_are_numbered_region_by_region() {
        let ns = Duration::from_ns;
        let p =
            ParallelStructure::from_threads(vec![vec![ns(2)], vec![ns(1), ns(3), ns(1), ns(3)]])
                .expect("valid");
        let s = ParSpec::new(&p);
        assert_eq!((s.regions(), s.width(), s.strands()), (2, 4, 5));
        assert_eq!(s.region(0), Some(0..1));
        assert_eq!(s.region(1), Some(1..5));
        assert_eq!(s.region(2), None);
        assert_eq!(s.locate(0), Some((0, 0)));
        assert_eq!(s.locate(1), Some((1, 0)));
        assert_eq!(s.locate(3), Some((1, 2)));
        assert_eq!(s.locate(4), Some((1, 3)));
        assert_eq!(s.locate(5), None);
        assert_eq!(s.thread_ns(2), Some(3));
        assert_eq!(s.thread_ns(5), None);
    }
}
