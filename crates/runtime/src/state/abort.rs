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
//!   aborting and `abort` is recorded. A job never made runnable has nothing to undo: it ends
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
//!   job when it aborted it), and the task's next job is handed over.
//!
//! Not enacted: under `message-passing` (the clients own the links: a parked aborted job is
//! not given a client for its handler — counted as a mechanism error, the job stays
//! unfinished) and for `semi-partitioned`'s shards (FP-TS never aborts).
//!
//! Complexity: O(1) per abort besides the policy's callback and the O(k) handler-queue search
//! of a scheduling step (k CPUs).

use super::Sched;
use schedlab_policy::JobId;
use schedlab_trace::Kind;
use std::collections::VecDeque;
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
            self.abort(now, j);
        }
        self.aborts.busy = false;
    }

    /// Enacts the abort of `j` (module doc, "Decision").
    fn abort(&mut self, now: u64, j: JobId) {
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
        if !abortable {
            self.mech_error(format!(
                "the policy aborted job {j:?} of a task with `abortable = false` (not aborted)"
            ));
            return;
        }
        live.aborting = true;
        let dispatched = live.dispatched;
        let last = live.last_cpu;
        let cpu = last.map_or(op_cpu, |c| base + c as u32);
        self.stage(Kind::Abort, cpu, j.task.0, j.seq, 0);
        if !dispatched {
            self.end_aborted(now, j, None);
            return;
        }
        match self.aborts.words.as_ref().and_then(|w| w.get(task)) {
            Some(w) => w.store(j.seq + 1, Ordering::Release),
            None => {
                self.mech_error(format!("no abort flag for job {j:?}"));
                return;
            }
        }
        if self.scheduled.contains(&Some(j)) {
            return; // it runs: it keeps its CPU for the handler
        }
        if self.mp || self.shard.is_some() {
            self.mech_error(format!(
                "job {j:?} was aborted while preempted: this architecture does not run its handler"
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

    /// The job `j`, aborted, ended (its handler ran, or it had none); `ctl_ticks`: when its
    /// thread committed, with the CPU time it consumed. Records it, hands the task's next job
    /// over. The policy is not called: it forgot the job when it aborted it.
    pub(super) fn end_aborted(&mut self, now: u64, j: JobId, ended: Option<(u64, u64, u64)>) {
        let Some(mut live) = self
            .tasks
            .get_mut(j.task.0 as usize)
            .and_then(|t| t.current.take())
        else {
            return;
        };
        live.rec.aborted = true;
        if let Some((first_run, done, executed)) = ended {
            live.rec.start_ticks = (first_run != 0).then_some(first_run);
            live.rec.executed_ns = executed;
            live.rec.end_ticks = Some(done);
        }
        self.records.push(live.rec);
        for q in &mut self.aborts.handlers {
            q.retain(|x| *x != j);
        }
        let cpu = self.op_cpu;
        self.hand_over_on(cpu, now, j.task.0);
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
