//! Policy aborts enacted for real [ChronOS §3.5, §5.7]: the contract of
//! `schedlab_policy::event` ("Aborts") on real threads.
//!
//! # Mechanism
//! - **The abort flag**: one word per task in memory shared with the job threads
//!   ([`AbortWords`]): `seq + 1` of the job to abort (0: none). A task's jobs run one after the
//!   other, so a word never names a job other than the one it was written for. The job body
//!   checks it at its *abort points*: the built-in burn loop at every pass (a pass polls the
//!   thread's CPU clock: well below a microsecond plus one working-set chunk, so a running job
//!   sees the flag within a few µs of the decision), a custom body through
//!   [`crate::config::JobCtx::aborted`]. Seen, the thread runs the abort handler — the task's
//!   `abort_cost` of CPU time burnt by the runtime, after whatever cleanup a custom body did
//!   before returning — between `abort-handler-begin` and `abort-handler-end`, and commits the
//!   job's end like a completion (`RUN → IDLE`). A thread that finds the flag set when it is
//!   about to *start* the job ends it at once without a handler (the job never executed).
//! - **Decision** (under the state's lock or by its owner, like every decision): the policy's
//!   `Decisions::aborts` are taken after the callback's links, in order; the job is marked
//!   aborting and `abort` is recorded; its flag is raised right after the operation's events
//!   are (so the thread's `abort-handler-begin` follows the `abort` in the trace). A job never made runnable has nothing to undo: it ends
//!   here (no handler) and the task's next job is handed over. A non-abortable task's job is
//!   not aborted (a policy violation: counted as a mechanism error, the run warns); an unknown
//!   job is ignored.
//! - **A CPU for the handler** (ChronOS runs it ahead of other work on the job's CPU): a job
//!   running on CPU c keeps c — its dispatcher does not park an aborting job even if the
//!   policy linked another job there; that job starts when the handler has ended. A job that
//!   is parked joins c's *handler queue*, c being the CPU it last ran on (partitioned: its CPU):
//!   c's scheduling step makes the queue's head runnable ahead of c's link, parking what ran
//!   there (a preemption by the handler, as in the thesis); handlers on one CPU run one after
//!   another. Under `concurrent` no job is ever parked, so every aborted job that started is
//!   running: it keeps its CPU and nobody is preempted.
//! - **End**: the dispatcher of the CPU sees the thread's commit as for a completion; the
//!   record says aborted (no completion, no utility), the policy is not called (it forgot the
//!   job when it aborted it), and the task's next job is handed over. A race the simulator
//!   does not have (there a completion at the abort's instant comes first): a thread may have
//!   finished the job's whole body and committed just before the abort is decided, while its
//!   dispatcher has not yet taken the completion in. It never sees the flag and runs no
//!   handler (nothing to undo); the job is still recorded aborted, as the policy decided, with
//!   the executed time of its whole body.
//!
//! Under `message-passing` the clients enact the DSP's `assigned`, so there the handler's CPU
//! is given by the links themselves: an aborting job stays linked to the client it runs on,
//! a parked one is linked to its handler queue's client ahead of the policy's link
//! ([`Sched::handler_links`]); its client reports its end like a completion. Not enacted
//! for `semi-partitioned`'s shards (FP-TS never aborts: an abort of a parked job there is a
//! mechanism error).
//!
//! Complexity: O(1) per abort besides the policy's callback and the O(k) handler-queue search
//! of a scheduling step (k CPUs).

use super::Sched;
use schedlab_policy::JobId;
use schedlab_trace::Kind;
use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The abort flags of a run's tasks, shared by the scheduling state and the job threads
/// (module doc).
pub type AbortWords = Arc<[AtomicU64]>;

/// Abort flags for `n` tasks, none set.
pub fn abort_words(n: usize) -> AbortWords {
    (0..n).map(|_| AtomicU64::new(0)).collect()
}

/// What the scheduling state keeps for aborts.
#[derive(Debug, Default)]
pub(super) struct Aborts {
    /// The flags (empty: none shared: an abort of a dispatched job cannot be signalled).
    words: Option<AbortWords>,
    /// Whether each task's jobs may be aborted (empty: all).
    abortable: Vec<bool>,
    /// Aborts decided by callbacks and not yet enacted.
    pending: VecDeque<JobId>,
    /// Enacting aborts now (aborts decided meanwhile wait in `pending`).
    busy: bool,
    /// Per local CPU: aborted jobs waiting to run their handler there.
    pub(super) handlers: Vec<VecDeque<JobId>>,
    /// Flags to raise once the decision's events are recorded (so the thread's
    /// `abort-handler-begin` never precedes the `abort` in the trace).
    raise: Vec<JobId>,
    /// The engine aborts jobs unfinished at their deadline (`RunConfig::abort_late`).
    late: bool,
    /// With `late`: the deadlines of the jobs handed to the policy, (ns, task, seq).
    deadlines: BTreeSet<(u64, u32, u64)>,
}

impl Aborts {
    /// For a domain of `k` CPUs.
    pub(super) fn new(k: usize) -> Aborts {
        Aborts {
            handlers: vec![VecDeque::new(); k],
            ..Aborts::default()
        }
    }
}

impl Sched {
    /// Shares the abort flags with the job threads and says which tasks may be aborted.
    pub(crate) fn set_aborts(&mut self, words: AbortWords, abortable: Vec<bool>) {
        self.aborts.words = Some(words);
        self.aborts.abortable = abortable;
    }

    /// Turns the engine's aborts of late jobs on (`RunConfig::abort_late`).
    pub(crate) fn set_abort_late(&mut self, on: bool) {
        self.aborts.late = on;
    }

    /// A job handed to the policy, whose deadline the engine watches under `abort_late`.
    pub(super) fn watch_deadline(&mut self, deadline_ns: u64, task: u32, seq: u64) {
        if self.aborts.late {
            self.aborts.deadlines.insert((deadline_ns, task, seq));
        }
    }

    /// A job ended: its deadline is no longer watched.
    pub(super) fn unwatch_deadline(&mut self, deadline_ns: u64, task: u32, seq: u64) {
        self.aborts.deadlines.remove(&(deadline_ns, task, seq));
    }

    /// The earliest watched deadline (ns since time zero).
    pub(super) fn next_deadline(&self) -> Option<u64> {
        self.aborts.deadlines.first().map(|d| d.0)
    }

    /// `abort_late`: aborts the jobs whose deadline is due at `now`, in deadline then task
    /// order (the simulator's: the engine tells the policy, `on_abort`, then enacts the
    /// abort as a policy's, abortable or not).
    pub(super) fn abort_late_jobs(&mut self, now: u64) {
        while let Some(&(at, task, seq)) = self.aborts.deadlines.first() {
            if at > now {
                break;
            }
            self.aborts.deadlines.pop_first();
            let j = JobId::new(schedlab_policy::TaskId(task), seq);
            if self.live_mut(j).is_none_or(|l| l.aborting) {
                continue;
            }
            self.call(now, |p, ctx, out| p.on_abort(ctx, j, out));
            self.abort(now, j, true);
            self.remap();
        }
    }

    /// Takes in a callback's aborts and, unless already doing so, enacts every pending one
    /// (aborts decided by the callbacks an abort causes are enacted in the same loop).
    pub(super) fn take_aborts(&mut self, now: u64) {
        let decided = std::mem::take(&mut self.out.aborts);
        self.aborts.pending.extend(decided);
        if self.aborts.busy {
            return;
        }
        self.aborts.busy = true;
        while let Some(j) = self.aborts.pending.pop_front() {
            self.abort(now, j, false);
        }
        self.aborts.busy = false;
    }

    /// Enacts the abort of `j` (module doc, "Decision"); `forced`: the engine's (`abort_late`),
    /// which aborts non-abortable jobs too.
    fn abort(&mut self, now: u64, j: JobId, forced: bool) {
        let task = j.task.0 as usize;
        let abortable = self.aborts.abortable.get(task).copied().unwrap_or(true);
        let op_cpu = self.op_cpu;
        let base = self.base;
        let Some(live) = self.live_mut(j) else {
            return;
        };
        if live.aborting {
            return;
        }
        if !abortable && !forced {
            self.mech_error(format!(
                "the policy aborted job {j:?} of a task with `abortable = false` (not aborted)"
            ));
            return;
        }
        live.aborting = true;
        let dispatched = live.dispatched;
        // A blocked job is granted nothing any more (`state/locks.rs`).
        self.leave_waiters(now, j);
        let Some(live) = self.live_mut(j) else {
            return;
        };
        let last = live.last_cpu;
        let cpu = last.map_or(op_cpu, |c| base + c as u32);
        self.stage(Kind::Abort, cpu, j.task.0, j.seq, 0);
        if !dispatched {
            self.end_aborted(now, j, None);
            return;
        }
        if self
            .aborts
            .words
            .as_ref()
            .and_then(|w| w.get(task))
            .is_none()
        {
            self.mech_error(format!("no abort flag for job {j:?}"));
            return;
        }
        self.aborts.raise.push(j);
        if self.scheduled.contains(&Some(j)) {
            return; // it runs: it keeps its CPU for the handler
        }
        if self.shard.is_some() {
            self.mech_error(format!(
                "job {j:?} was aborted while preempted: semi-partitioned does not run its handler"
            ));
            return;
        }
        let c = last.unwrap_or(0);
        if let Some(q) = self.aborts.handlers.get_mut(c) {
            q.push_back(j);
        }
        if let Some(n) = self.need.get_mut(c) {
            *n = true;
        }
    }

    /// Raises the abort flags of the jobs aborted by the decision whose events were just
    /// recorded (`Sched::flush`).
    pub(super) fn raise_aborts(&mut self) {
        let Some(words) = self.aborts.words.as_ref() else {
            return;
        };
        for j in self.aborts.raise.drain(..) {
            if let Some(w) = words.get(j.task.0 as usize) {
                w.store(j.seq.wrapping_add(1), Ordering::Release);
            }
        }
    }

    /// The job `j`, aborted, ended (its handler ran, or it had none); `ended`: when its code
    /// first ran (ticks, 0: never) and the CPU time it consumed, handler included, if its
    /// thread ended it. Records it, hands the task's next job
    /// over. The policy is not called: it forgot the job when it aborted it.
    pub(super) fn end_aborted(&mut self, now: u64, j: JobId, ended: Option<(u64, u64)>) {
        // The handler's end releases the job's resources (`state/locks.rs`).
        let cpu = self
            .live_mut(j)
            .and_then(|l| l.last_cpu)
            .map_or(self.op_cpu, |c| self.base + c as u32);
        self.release_held(now, j, cpu, false);
        let Some(mut live) = self
            .tasks
            .get_mut(j.task.0 as usize)
            .and_then(|t| t.current.take())
        else {
            return;
        };
        live.rec.aborted = true;
        let (d, task, seq) = (live.rec.deadline_ns, live.rec.task, live.rec.seq);
        self.unwatch_deadline(d, task, seq);
        if let Some((first_run, executed)) = ended {
            live.rec.start_ticks = (first_run != 0).then_some(first_run);
            live.rec.executed_ns = executed;
        }
        self.records.push(live.rec);
        for q in &mut self.aborts.handlers {
            q.retain(|x| *x != j);
        }
        let cpu = self.op_cpu;
        self.hand_over_on(cpu, now, j.task.0);
    }

    /// `message-passing` (the clients enact `assigned`): an aborted job keeps the client it
    /// runs on, and a parked one is linked to the client of its handler queue, ahead of the
    /// policy's link there (which waits, unassigned, until the handler ends).
    pub(super) fn handler_links(&self, a: &mut [Option<JobId>]) {
        for c in 0..a.len() {
            let running = self
                .scheduled
                .get(c)
                .copied()
                .flatten()
                .filter(|&j| self.is_aborting(j));
            let first = self.aborts.handlers.get(c).and_then(|q| q.front().copied());
            let Some(h) = running.or(first) else {
                continue;
            };
            if let Some(p) = a.iter().position(|x| *x == Some(h)) {
                if let Some(x) = a.get_mut(p) {
                    *x = None;
                }
            }
            if let Some(x) = a.get_mut(c) {
                *x = Some(h);
            }
        }
    }

    /// The job local CPU `c` must run next: the head of its handler queue, else its link.
    pub(super) fn next_on(&self, c: usize) -> Option<JobId> {
        self.aborts
            .handlers
            .get(c)
            .and_then(|q| q.front().copied())
            .or_else(|| self.assigned.get(c).copied().flatten())
    }

    /// Whether job `j` is aborting (its thread runs or will run its handler).
    pub(super) fn is_aborting(&self, j: JobId) -> bool {
        self.tasks
            .get(j.task.0 as usize)
            .and_then(|t| t.current.as_ref())
            .is_some_and(|l| l.rec.seq == j.seq && l.aborting)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    //! The abort bookkeeping without real CPUs, on one CPU with a scripted policy: preemptive
    //! fixed priority by task index, where the release of a τ2 job aborts every job of τ1 it
    //! holds (a stand-in for a UA policy's abort decision). No thread runs: a job a step made
    //! runnable has its control word `RUN`, its thread's end is the word set to `IDLE`.
    use super::*;
    use crate::job::{JobCtl, IDLE, PARK, RUN};
    use crate::mech::clock::TickClock;
    use crate::state::{Emit, TaskSpec, Threads};
    use schedlab_policy::{CpuId, Ctx, Decisions, JobInfo, Policy, TaskId};
    use schedlab_trace::tracebuf::TraceBuf;

    const MS: u64 = 1_000_000;

    #[derive(Default)]
    struct Script {
        held: Vec<JobId>,
    }

    impl Policy for Script {
        fn name(&self) -> &str {
            "script"
        }
        fn cpus(&self) -> u32 {
            1
        }
        fn on_release(&mut self, _: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
            if job.id.task.0 == 2 {
                for j in self.held.iter().filter(|j| j.task.0 == 1) {
                    out.abort(*j);
                }
                self.held.retain(|j| j.task.0 != 1);
            }
            self.held.push(job.id);
        }
        fn on_complete(&mut self, _: &Ctx<'_>, job: JobId, _: &mut Decisions) {
            // An aborted job is never completed here: the tests' records say so.
            assert!(
                self.held.contains(&job),
                "completion of a job it does not hold"
            );
            self.held.retain(|j| *j != job);
        }
        fn on_abort(&mut self, _: &Ctx<'_>, job: JobId, _: &mut Decisions) {
            self.held.retain(|j| *j != job);
        }
        fn linked(&self, _: CpuId) -> Option<JobId> {
            self.held.iter().copied().min_by_key(|j| j.task.0)
        }
    }

    fn j(task: u32) -> JobId {
        JobId::new(TaskId(task), 0)
    }

    struct Fixture {
        buf: TraceBuf,
        clock: TickClock,
        ctls: Vec<Arc<JobCtl>>,
        words: AbortWords,
    }

    impl Fixture {
        fn new() -> Fixture {
            let words = abort_words(3);
            let ctls = (0..3)
                .map(|i| {
                    let mut c = JobCtl::new(i, 64, TickClock::monotonic(), &[0]);
                    // Already on CPU 0 (the step does not re-pin the test's own thread) with
                    // no thread behind it (the park's signal fails and is counted).
                    c.pinned.store(0, Ordering::Relaxed);
                    c.tid.store(i32::MAX, Ordering::Relaxed);
                    c.aborts = words.clone();
                    Arc::new(c)
                })
                .collect();
            Fixture {
                buf: TraceBuf::new(1024),
                clock: TickClock::monotonic(),
                ctls,
                words,
            }
        }
        fn em(&self) -> Emit<'_> {
            Emit {
                buf: &self.buf,
                clock: &self.clock,
                cpu: 0,
            }
        }
        fn sched(&self, abortable: Vec<bool>) -> Sched {
            let spec: Arc<[TaskSpec]> = (0..3)
                .map(|_| TaskSpec {
                    wcet: MS,
                    deadline: 10 * MS,
                })
                .collect();
            let mut s = Sched::new(Box::new(Script::default()), 0, spec);
            s.set_aborts(self.words.clone(), abortable);
            s
        }
        fn step(&self, s: &mut Sched) -> bool {
            let th = Threads {
                ctls: &self.ctls,
                phys: &[0],
            };
            s.schedule(&self.em(), &th, 0, 0, 0)
        }
        fn kinds(&self) -> Vec<(Kind, u32)> {
            self.buf
                .events()
                .iter()
                .filter(|e| matches!(e.kind, Kind::Abort | Kind::Complete))
                .map(|e| (e.kind, e.task))
                .collect()
        }
    }

    /// τ1 runs; τ2's release aborts it. It keeps the CPU for its handler: the step does not
    /// park it although τ2 is linked; its flag names job 0 (word 1). When its thread ends it,
    /// the step records it aborted (no `complete`, the policy not told) and runs τ2.
    #[test]
    fn a_running_job_keeps_its_cpu_for_its_handler() {
        let f = Fixture::new();
        let mut s = f.sched(vec![true; 3]);
        s.release(&f.em(), 0, 1, 0, 0);
        assert!(f.step(&mut s));
        s.release(&f.em(), 1, 2, 0, 0);
        assert_eq!(f.words[1].load(Ordering::Relaxed), 1);
        assert!(f.ctls[1].abort_requested(0));
        assert!(!f.step(&mut s), "the aborted job is not parked");
        assert_eq!(f.ctls[1].state.load(Ordering::Relaxed), RUN);
        f.ctls[1].state.store(IDLE, Ordering::Release);
        assert!(f.step(&mut s));
        assert_eq!(s.scheduled, vec![Some(j(2))]);
        assert_eq!(s.records.len(), 1);
        assert!(s.records[0].aborted && s.records[0].completion_ticks.is_none());
        assert_eq!(f.kinds(), vec![(Kind::Abort, 1)]);
        assert_eq!(s.mech_errors.0, 0);
    }

    /// τ1 runs, τ0 preempts it (parked), τ2's release aborts the parked τ1: it joins CPU 0's
    /// handler queue and the step runs it ahead of the link τ0 (parking τ0: the handler
    /// preempts); when it ends, τ0 runs again.
    #[test]
    fn a_parked_job_runs_its_handler_ahead_of_the_link() {
        let f = Fixture::new();
        let mut s = f.sched(vec![true; 3]);
        s.release(&f.em(), 0, 1, 0, 0);
        assert!(f.step(&mut s));
        s.release(&f.em(), 1, 0, 0, 0);
        assert!(f.step(&mut s));
        assert_eq!(f.ctls[1].state.load(Ordering::Relaxed), PARK);
        s.release(&f.em(), 2, 2, 0, 0);
        assert_eq!(s.aborts.handlers[0], vec![j(1)]);
        assert!(f.step(&mut s), "the handler is switched in");
        assert_eq!(s.scheduled, vec![Some(j(1))]);
        assert_eq!(f.ctls[0].state.load(Ordering::Relaxed), PARK);
        f.ctls[1].state.store(IDLE, Ordering::Release);
        assert!(f.step(&mut s));
        assert_eq!(s.scheduled, vec![Some(j(0))]);
        assert!(s.aborts.handlers[0].is_empty());
        assert!(s.records.iter().all(|r| r.task == 1 && r.aborted));
        // The two parks' signals went to no thread (counted); nothing else failed.
        assert_eq!(s.mech_errors.0, 2);
    }

    /// τ1 is released but never made runnable (τ0 preempts before any step); its abort ends it
    /// at once, without a handler: recorded aborted, never started, the flag left clear.
    /// A non-abortable task's job is not aborted (a policy error, counted).
    #[test]
    fn a_job_that_never_ran_has_no_handler_and_non_abortable_jobs_stay() {
        let f = Fixture::new();
        let mut s = f.sched(vec![true; 3]);
        s.release(&f.em(), 0, 1, 0, 0);
        s.release(&f.em(), 0, 0, 0, 0);
        s.release(&f.em(), 0, 2, 0, 0);
        assert_eq!(s.records.len(), 1);
        assert!(s.records[0].aborted && s.records[0].start_ticks.is_none());
        assert_eq!(f.words[1].load(Ordering::Relaxed), 0);
        assert_eq!(f.kinds(), vec![(Kind::Abort, 1)]);

        let f = Fixture::new();
        let mut s = f.sched(vec![true, false, true]);
        s.release(&f.em(), 0, 1, 0, 0);
        s.release(&f.em(), 0, 2, 0, 0);
        assert!(s.records.is_empty());
        assert_eq!(s.mech_errors.0, 1);
        assert!(f.kinds().is_empty());
    }

    /// `abort_late`: τ0 is released first and runs, τ1 waits (lower priority, never made
    /// runnable). Both
    /// deadlines are 10 ms, the state's next timer. At 10 ms the engine aborts both, by task
    /// index: τ0 (running) keeps its CPU for its handler, its flag raised; τ1 (never ran) ends
    /// at once.
    #[test]
    fn abort_late_aborts_at_the_deadline() {
        let f = Fixture::new();
        let mut s = f.sched(vec![true; 3]);
        s.set_abort_late(true);
        s.release(&f.em(), 0, 0, 0, 0);
        assert!(f.step(&mut s));
        s.release(&f.em(), 0, 1, 0, 0);
        assert_eq!(s.next_timer(), Some(10 * MS));
        s.fire_timers(&f.em(), 10 * MS - 1);
        assert!(f.kinds().is_empty(), "nothing is due before the deadline");
        s.fire_timers(&f.em(), 10 * MS);
        assert_eq!(f.kinds(), vec![(Kind::Abort, 0), (Kind::Abort, 1)]);
        assert!(f.ctls[0].abort_requested(0));
        assert_eq!(s.records.len(), 1, "τ1 ended at once");
        assert_eq!(s.next_timer(), None);
        assert!(!f.step(&mut s), "τ0 keeps its CPU");
        f.ctls[0].state.store(IDLE, Ordering::Release);
        assert!(!f.step(&mut s), "nothing left to run");
        assert_eq!(s.records.len(), 2);
        assert!(s.records.iter().all(|r| r.aborted));
        assert_eq!(s.mech_errors.0, 0);
    }

    /// `message-passing` (the clients enact `assigned`): τ1 runs on the client, τ0 preempts
    /// it (the client parked it: its `scheduled` is τ0), τ2's release aborts the parked τ1. The
    /// DSP links τ1 to the client ahead of τ0 (its handler); when the client reports τ1's end,
    /// it is recorded aborted and τ0 is linked again.
    #[test]
    fn message_passing_links_the_handler_ahead_of_the_policy() {
        use crate::mp::slot::token;
        let f = Fixture::new();
        let mut s = f.sched(vec![true; 3]);
        s.set_message_passing();
        s.release(&f.em(), 0, 1, 0, 0);
        s.prepare_fresh(&f.ctls);
        s.relink(&f.em());
        assert_eq!(s.assigned, vec![Some(j(1))]);
        s.view_scheduled(0, token(1, 0));
        s.release(&f.em(), 1, 0, 0, 0);
        s.prepare_fresh(&f.ctls);
        s.relink(&f.em());
        assert_eq!(s.assigned, vec![Some(j(0))]);
        s.view_scheduled(0, token(0, 0));
        s.release(&f.em(), 2, 2, 0, 0);
        s.relink(&f.em());
        assert_eq!(s.assigned, vec![Some(j(1))], "the handler comes first");
        assert!(f.ctls[1].abort_requested(0));
        s.view_scheduled(0, token(1, 0));
        s.relink(&f.em());
        assert_eq!(s.assigned, vec![Some(j(1))], "it keeps the client");
        assert!(s.reported_complete(&f.em(), 3, 0, 1, 0, &f.ctls[1]));
        s.view_scheduled(0, 0);
        s.relink(&f.em());
        assert_eq!(s.assigned, vec![Some(j(0))]);
        assert!(s.records.len() == 1 && s.records[0].aborted);
        assert_eq!(s.mech_errors.0, 0);
    }
}
