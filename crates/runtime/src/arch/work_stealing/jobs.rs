//! `work-stealing`'s job bookkeeping behind the global lock: each task's current job and
//! backlog, its region, the job records — and, outside the lock, each task's join counter
//! (`Progress`), so that a thread that is not its region's last completes without the lock.
//! The semantics are the engines' strands (`crate::state`'s strands module doc): jobs of a task are
//! handed over in order, region 0's threads released with the job, each later region forked on
//! the CPU of the previous one's join, one record per job at its final join.

use super::queues::{self, Item};
use crate::state::{ParSpec, RawRecord, TaskSpec};
use schedlab_policy::{JobId, TaskId};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// A task's current job's join counter and the totals of its completed threads, updated by
/// the CPU that processes each thread's completion without the global lock: the thread that
/// takes `left` to zero joins (under the lock). `Release`/`Acquire` on `left` makes the
/// totals of every earlier thread visible to the joiner.
#[derive(Debug)]
pub(crate) struct Progress {
    /// Threads of the current region not completed yet.
    pub(crate) left: AtomicU32,
    /// CPU time of the job's completed threads (ns).
    pub(crate) executed: AtomicU64,
    /// Earliest first run of a completed thread (ticks; `u64::MAX`: none).
    pub(crate) first: AtomicU64,
}

impl Default for Progress {
    fn default() -> Progress {
        Progress {
            left: AtomicU32::new(0),
            executed: AtomicU64::new(0),
            first: AtomicU64::new(u64::MAX),
        }
    }
}

impl Progress {
    /// A thread of the job completed: its first run (ticks, 0: never ran) and CPU time;
    /// whether it was its region's last (the join is the caller's).
    pub(crate) fn thread_done(&self, first: u64, executed: u64) -> bool {
        if first != 0 {
            self.first.fetch_min(first, Ordering::Relaxed);
        }
        self.executed.fetch_add(executed, Ordering::Relaxed);
        self.left.fetch_sub(1, Ordering::AcqRel) == 1
    }
}

#[derive(Debug, Default)]
struct TaskRun {
    /// The current job's record.
    current: Option<RawRecord>,
    /// Its region (parallel tasks).
    region: u32,
    /// Released jobs waiting for the current one: (seq, release ns).
    backlog: VecDeque<(u64, u64)>,
}

/// Where the records and events of an operation go: the calling dispatcher's buffer and
/// CPU.
pub(crate) struct Rec<'a> {
    pub(crate) buf: &'a TraceBuf,
    pub(crate) clock: &'a crate::mech::clock::TickClock,
    pub(crate) cpu: u32,
}

impl Rec<'_> {
    fn event(&self, kind: Kind, j: JobId, arg: u64) {
        let job = (j.task.0, j.seq, j.strand);
        self.buf
            .record_strand(self.clock.ticks(), kind, self.cpu, job, arg);
    }
}

/// What a join led to.
pub(crate) enum Joined {
    /// The next region's threads, forked on the joining CPU (Rule B: its local queue).
    Fork(Vec<Item>),
    /// The job completed; the task's next job (its region 0), for the global queue.
    Done(Vec<Item>),
}

/// The job state behind the global lock.
#[derive(Debug)]
pub(crate) struct Jobs {
    tasks: Vec<TaskRun>,
    spec: Arc<[TaskSpec]>,
    par: Arc<[Option<Arc<ParSpec>>]>,
    /// Finished jobs.
    pub(crate) records: Vec<RawRecord>,
}

impl Jobs {
    /// The state of tasks `spec` with structures `par`.
    pub(crate) fn new(spec: Arc<[TaskSpec]>, par: Arc<[Option<Arc<ParSpec>>]>) -> Jobs {
        Jobs {
            tasks: (0..spec.len()).map(|_| TaskRun::default()).collect(),
            spec,
            par,
            records: Vec::new(),
        }
    }

    /// Job `seq` of `task` arrived (intended release `release_ns`): its items if it is handed
    /// over now (the task's previous job ended), else none (it waits in the backlog).
    pub(crate) fn release(
        &mut self,
        rec: &Rec<'_>,
        prog: &Progress,
        (task, seq): (u32, u64),
        release_ns: u64,
    ) -> Vec<Item> {
        if let Some(t) = self.tasks.get_mut(task as usize) {
            t.backlog.push_back((seq, release_ns));
        }
        self.hand_over(rec, prog, task)
    }

    /// Hands `task`'s next waiting job over if its previous one ended: `ready`, its region 0
    /// (a sequential job: strand 0) as items.
    fn hand_over(&mut self, rec: &Rec<'_>, prog: &Progress, task: u32) -> Vec<Item> {
        let spec = self.spec.get(task as usize).copied();
        let par = self.par.get(task as usize).cloned().flatten();
        let (Some(spec), Some(t)) = (spec, self.tasks.get_mut(task as usize)) else {
            return Vec::new();
        };
        if t.current.is_some() {
            return Vec::new();
        }
        let Some((seq, release_ns)) = t.backlog.pop_front() else {
            return Vec::new();
        };
        let deadline_ns = release_ns.saturating_add(spec.deadline);
        t.current = Some(RawRecord {
            task,
            seq,
            release_ns,
            deadline_ns,
            ..RawRecord::default()
        });
        t.region = 0;
        let id = JobId::new(TaskId(task), seq);
        rec.event(Kind::Ready, id, release_ns);
        let strands = par.as_ref().and_then(|p| p.region(0)).unwrap_or(0..1);
        prog.executed.store(0, Ordering::Relaxed);
        prog.first.store(u64::MAX, Ordering::Relaxed);
        prog.left.store(strands.len() as u32, Ordering::Release);
        strands
            .map(|strand| Item::new(JobId { strand, ..id }, deadline_ns, queues::JOB))
            .collect()
    }

    /// The last thread `j` of its region completed on the recording CPU (its thread
    /// measured the end at `done_ticks`): `join` (parallel jobs), then the next region's
    /// fork or the job's completion (module doc).
    pub(crate) fn join(
        &mut self,
        rec: &Rec<'_>,
        prog: &Progress,
        j: JobId,
        done_ticks: u64,
    ) -> Joined {
        let task = j.task.0;
        let par = self.par.get(task as usize).cloned().flatten();
        let Some(t) = self.tasks.get_mut(task as usize) else {
            return Joined::Done(Vec::new());
        };
        if let Some(p) = &par {
            rec.event(Kind::Join, j, u64::from(t.region));
            if let Some(next) = p.region(t.region + 1) {
                t.region += 1;
                let deadline = t.current.as_ref().map_or(0, |r| r.deadline_ns);
                rec.event(
                    Kind::Fork,
                    JobId {
                        strand: next.start,
                        ..j
                    },
                    next.len() as u64,
                );
                prog.left.store(next.len() as u32, Ordering::Release);
                let items = next
                    .map(|strand| Item::new(JobId { strand, ..j }, deadline, queues::FORKED))
                    .collect();
                return Joined::Fork(items);
            }
        }
        if let Some(mut r) = t.current.take() {
            let first = prog.first.load(Ordering::Relaxed);
            r.start_ticks = (first != u64::MAX).then_some(first);
            r.completion_ticks = Some(done_ticks);
            r.executed_ns = prog.executed.load(Ordering::Relaxed);
            rec.event(Kind::Complete, j, done_ticks);
            self.records.push(r);
        }
        Joined::Done(self.hand_over(rec, prog, task))
    }

    /// At the end of the run: the unfinished jobs, current (with what `progress` and the
    /// threads' control blocks `ctls` say they executed) and waiting.
    pub(crate) fn unfinished(
        &mut self,
        progress: &[Progress],
        ctls: &[Arc<crate::job::JobCtl>],
    ) -> Vec<RawRecord> {
        let mut out = Vec::new();
        for (i, t) in self.tasks.iter_mut().enumerate() {
            if let Some(mut r) = t.current.take() {
                let (mut first, mut executed) = progress.get(i).map_or((u64::MAX, 0), |p| {
                    (
                        p.first.load(Ordering::Relaxed),
                        p.executed.load(Ordering::Relaxed),
                    )
                });
                // The task's blocks inside a thread of this job that ran and did not end
                // (it ended if its end came after its start; the skeleton stopped every
                // block already). A thread that completed but whose completion was not
                // processed yet is missed: at most one thread's time, at the horizon.
                for c in ctls.iter().filter(|c| c.task == i as u32) {
                    let fr = c.first_run.load(Ordering::Relaxed);
                    let ended = c.done_ticks.load(Ordering::Relaxed) >= fr;
                    let holds = c.seq.load(Ordering::Relaxed) == r.seq && !ended;
                    if holds && fr != 0 {
                        first = first.min(fr);
                        executed = executed.saturating_add(c.executed.load(Ordering::Relaxed));
                    }
                }
                r.start_ticks = (first != u64::MAX).then_some(first);
                r.executed_ns = executed;
                out.push(r);
            }
            let deadline = self.spec.get(i).map_or(0, |s| s.deadline);
            for (seq, release_ns) in t.backlog.drain(..) {
                out.push(RawRecord {
                    task: i as u32,
                    seq,
                    release_ns,
                    deadline_ns: release_ns.saturating_add(deadline),
                    ..RawRecord::default()
                });
            }
        }
        out
    }
}
