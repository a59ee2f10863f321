//! The DSP's side of [`Sched`] under `message-passing` [MP §III]: the state is owned by the
//! dedicated scheduling processor alone (no lock), `assigned` is the DSP's copy of each
//! client's `linked` slot and `scheduled` its copy of each client's `scheduled` slot,
//! refreshed from the shared slots before every decision (so link swaps see which jobs are
//! still scheduled, [MP §III-C]). Completions arrive as messages; the clients enact the links
//! (`crate::mp::client`); a job's preemptions, migrations and CPUs are counted from the trace
//! after the run (`schedlab_trace::counts`), as under every architecture.

use super::{Live, Sched};
use crate::job::JobCtl;
use crate::mp::slot::{token, token_task};
use crate::state::Emit;
use schedlab_policy::JobId;
use schedlab_trace::Kind;
use std::sync::atomic::Ordering;

impl Sched {
    /// Switches this state to `message-passing` mode (see the module doc).
    pub(crate) fn set_message_passing(&mut self) {
        self.mp = true;
    }

    /// The job linked to local CPU `c` as a slot token (0: none).
    pub(crate) fn assigned_token(&self, c: usize) -> u32 {
        self.assigned
            .get(c)
            .copied()
            .flatten()
            .map_or(0, |j| token(j.task.0, j.seq))
    }

    /// Sets the DSP's copy of client `c`'s `scheduled` slot from its token. A token of a job
    /// the DSP no longer holds (its completion was processed) is no job.
    pub(crate) fn view_scheduled(&mut self, c: usize, tok: u32) {
        let job = token_task(tok).and_then(|task| {
            let live = self.tasks.get(task as usize)?.current.as_ref()?;
            (token(task, live.rec.seq) == tok)
                .then(|| JobId::new(schedlab_policy::TaskId(task), live.rec.seq))
        });
        if let Some(s) = self.scheduled.get_mut(c) {
            *s = job;
        }
    }

    /// Recomputes the links with link swaps against the current view (after the view
    /// changed) and records the changes.
    pub(crate) fn relink(&mut self, em: &Emit<'_>) {
        self.remap();
        self.flush(em);
    }

    /// Gives the jobs handed over since the last call to their threads' control blocks (the
    /// threads are idle: their previous job's completion was processed): job number, first
    /// run cleared, under thread-per-job the next thread of the pool (`JobCtl::hand_over`).
    /// Must happen before the job is linked to a client.
    pub(crate) fn prepare_fresh(&mut self, ctls: &[std::sync::Arc<JobCtl>]) {
        let fresh = std::mem::take(&mut self.fresh);
        for &task in &fresh {
            let Some(live) = self
                .tasks
                .get_mut(task as usize)
                .and_then(|t| t.current.as_mut())
            else {
                continue;
            };
            if let Some(ctl) = ctls.get(task as usize) {
                ctl.hand_over(live.rec.seq);
            }
            live.dispatched = true;
        }
        // Keep the capacity: no allocation per hand-over.
        self.fresh = fresh;
        self.fresh.clear();
    }

    /// Client `c` (local index) reported that job `seq` of `task` completed: account it,
    /// tell the policy, hand over the task's next job (the caller then relinks). Returns false if
    /// the DSP does not hold that job (a duplicate or stale report; nothing changes).
    pub(crate) fn reported_complete(
        &mut self,
        em: &Emit<'_>,
        now: u64,
        c: usize,
        task: u32,
        seq: u64,
        ctl: &JobCtl,
    ) -> bool {
        let Some(t) = self.tasks.get_mut(task as usize) else {
            return false;
        };
        if t.current.as_ref().is_none_or(|l| l.rec.seq != seq) {
            return false;
        }
        let j = JobId::new(schedlab_policy::TaskId(task), seq);
        if self.is_aborting(j) {
            // Its handler ran (or it never started): it ends aborted (`state/abort.rs`).
            for s in self.scheduled.iter_mut().filter(|s| **s == Some(j)) {
                *s = None;
            }
            let ended = (
                ctl.first_run.load(Ordering::Relaxed),
                ctl.executed.load(Ordering::Relaxed),
            );
            self.end_aborted(now, j, Some(ended));
            return true;
        }
        let Some(t) = self.tasks.get_mut(task as usize) else {
            return false;
        };
        let Some(mut live) = t.current.take() else {
            return false;
        };
        for s in self.scheduled.iter_mut() {
            if *s == Some(j) {
                *s = None;
            }
        }
        let done = ctl.done_ticks.load(Ordering::Relaxed);
        live.rec.completion_ticks = Some(done);
        live.rec.start_ticks = Some(ctl.first_run.load(Ordering::Relaxed));
        live.rec.executed_ns = ctl.executed.load(Ordering::Relaxed);
        let cpu = self.base + c as u32;
        self.stage(Kind::Complete, cpu, task, seq, done);
        self.records.push(live.rec);
        self.call(now, |p, ctx, out| p.on_complete(ctx, j, out));
        self.hand_over(em, now, task);
        // The links are recomputed by the caller (`relink`) once the view is fresh.
        true
    }

    /// The DSP's estimate of executed time (the policy's progress view) follows its links:
    /// a job runs from its link to its unlink.
    pub(super) fn account_link_change(&mut self, old: Option<JobId>, new: Option<JobId>) {
        let now = self.last_now;
        if let Some(l) = old.and_then(|j| self.live_mut(j)) {
            if let Some(s) = l.since_ns.take() {
                l.acc_ns += now.saturating_sub(s);
            }
        }
        if let Some(l) = new.and_then(|j| self.live_mut(j)) {
            let l: &mut Live = l;
            l.since_ns.get_or_insert(now);
        }
    }
}
