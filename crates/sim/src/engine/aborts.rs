//! Aborts and abort handlers (engine module doc, "Aborts"; `schedlab_policy::event`, "Aborts"
//! [ChronOS §3.5, §5.7]).
//!
//! A job aborted after it executed runs its abort handler (the task's `abort_cost`) on the CPU
//! it last executed on. The handler goes *ahead* of whatever that CPU runs: the job running
//! there is switched out (a preemption) and the CPU's link is held back ([`CpuHold`]) until
//! the handler ends; handlers on one CPU run one after another in the order of their aborts.
//! At the handler's end (an engine-internal event, class `HANDLER`) the job's resources are
//! released and the link the policy last decided for the CPU is enacted with the other links
//! of that instant. A job that never executed, or whose task has `abort_cost = 0`, has no
//! handler: its resources are released at the abort.
//!
//! Costs: an abort is `O(log n)` (queueing the successor and the handler end); a handler end
//! `O(1)` plus the release of the job's resources.

use super::{Engine, TaskRt};
use crate::error::SimError;
use crate::queue::HANDLER;
use schedlab_model::{Duration, Time};
use schedlab_policy::JobId;
use schedlab_trace::{Kind, NO_CPU};
use std::collections::VecDeque;

/// One queued abort handler.
#[derive(Clone, Copy, Debug)]
struct Handler {
    task: u32,
    seq: u64,
    cost: Duration,
}

/// The abort handlers of one CPU.
#[derive(Debug, Default)]
pub(super) struct CpuHold {
    /// Handlers in abort order; the front one is running.
    handlers: VecDeque<Handler>,
    /// What the CPU should run once its handlers end: the job it ran when the first began, or
    /// the policy's latest link for it since.
    deferred: Option<JobId>,
}

impl Engine<'_> {
    /// Whether abort handlers occupy `cpu`; if so, its link decided in this instant is kept
    /// for when they end instead of being enacted now.
    pub(super) fn hold_link(&mut self, cpu: usize) -> bool {
        let desired = self.desired.get(cpu).copied().flatten();
        match self.holds.get_mut(cpu) {
            Some(h) if !h.handlers.is_empty() => {
                h.deferred = desired;
                true
            }
            _ => false,
        }
    }

    /// Applies the policy's aborts of the last callback, in order (after its links).
    pub(super) fn apply_aborts(&mut self, now: Time) -> Result<(), SimError> {
        for i in 0..self.out.aborts.len() {
            let job = self.out.aborts[i];
            let task = job.task.0 as usize;
            let held = job.strand == 0
                && self
                    .rt
                    .get(task)
                    .and_then(TaskRt::current)
                    .is_some_and(|l| l.rec.seq == job.seq);
            if !held {
                continue; // unknown or finished: ignored (event.rs, "Aborts")
            }
            if self.tasks.get(task).is_some_and(|t| !t.abortable) {
                let msg = format!("aborted {job}, but its task is not abortable");
                return Err(self.violation(now, msg));
            }
            self.drop_job(now, task)?;
            self.after_finish(now, task);
        }
        Ok(())
    }

    /// Ends the current job of `task` as aborted at `now` (by the engine at its deadline or
    /// by the policy): takes it off its CPU, records it, starts its handler.
    pub(super) fn drop_job(&mut self, now: Time, task: usize) -> Result<(), SimError> {
        let was_on = self
            .rt
            .get(task)
            .and_then(TaskRt::current)
            .and_then(|l| l.running_on);
        self.stop_running(now, task);
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Ok(());
        };
        if let Some(oh) = &mut self.oh {
            oh.finished(task, was_on, live.last_cpu);
        }
        live.rec.aborted = true;
        live.rec.tardiness = Duration::ZERO;
        let started = !live.rec.executed.is_zero();
        let (last, seq, d) = (live.last_cpu, live.rec.seq, live.rec.deadline);
        let (cpu, t) = (last.unwrap_or(NO_CPU), task as u32);
        if now >= d {
            self.emit(now, Kind::DeadlineMiss, cpu, t, seq, d.as_ns());
        }
        self.emit(now, Kind::Abort, cpu, t, seq, 0);
        let cost = self
            .tasks
            .get(task)
            .map_or(Duration::ZERO, |s| s.abort_cost);
        match last.filter(|_| started && !cost.is_zero()) {
            Some(c) => self.queue_handler(now, c, Handler { task: t, seq, cost })?,
            None => self.release_all(now, task)?,
        }
        self.retire(task);
        Ok(())
    }

    /// Queues `h` on `cpu`; if the CPU has no handler running, it starts now, ahead of the
    /// job running there.
    fn queue_handler(&mut self, now: Time, cpu: u32, h: Handler) -> Result<(), SimError> {
        let c = cpu as usize;
        let Some(hold) = self.holds.get_mut(c).filter(|_| now < self.horizon) else {
            return Ok(()); // at the horizon nothing runs any more
        };
        hold.handlers.push_back(h);
        if hold.handlers.len() > 1 {
            return Ok(()); // runs when the ones before it end
        }
        if let Some(j) = self.running.get(c).copied().flatten() {
            let seq = self.rt.get(j as usize).map_or(0, |rt| rt.live.rec.seq);
            if let Some(hold) = self.holds.get_mut(c) {
                hold.deferred = Some(JobId::new(schedlab_policy::TaskId(j), seq));
            }
            self.switch_out(now, j as usize, cpu);
        }
        self.start_handler(now, cpu)
    }

    /// Starts the front handler of `cpu` at `now`.
    fn start_handler(&mut self, now: Time, cpu: u32) -> Result<(), SimError> {
        let Some(h) = self
            .holds
            .get(cpu as usize)
            .and_then(|hold| hold.handlers.front().copied())
        else {
            return Ok(());
        };
        let cost = h.cost.as_ns();
        self.emit(now, Kind::AbortHandlerBegin, cpu, h.task, h.seq, cost);
        let end = now
            .checked_add(h.cost)
            .ok_or(SimError::Overflow("the end of an abort handler"))?;
        if end < self.horizon {
            self.push(end, HANDLER, u64::from(cpu), 0);
        }
        Ok(())
    }

    /// The running handler of `cpu` ends at `now`: the aborted job's resources are released;
    /// the next handler starts, or the CPU's held-back link is enacted at this instant (unless
    /// the policy re-linked the CPU earlier in the instant: the newer decision wins).
    pub(super) fn handler_end(&mut self, now: Time, cpu: u32) -> Result<(), SimError> {
        let c = cpu as usize;
        let Some(h) = self.holds.get_mut(c).and_then(|h| h.handlers.pop_front()) else {
            return Ok(());
        };
        self.emit(now, Kind::AbortHandlerEnd, cpu, h.task, h.seq, 0);
        self.release_job_resources(now, h.task, h.seq)?;
        let Some(hold) = self.holds.get_mut(c) else {
            return Ok(());
        };
        if !hold.handlers.is_empty() {
            return self.start_handler(now, cpu);
        }
        let deferred = hold.deferred.take();
        if !self.touched_flag[c] {
            self.touched_flag[c] = true;
            self.touched.push(cpu);
            self.desired[c] = deferred;
        }
        Ok(())
    }

    /// Releases every resource of the current job of `task` (an abort without a handler).
    fn release_all(&mut self, now: Time, task: usize) -> Result<(), SimError> {
        let seq = self.rt.get(task).map_or(0, |rt| rt.live.rec.seq);
        self.release_job_resources(now, task as u32, seq)
    }

    /// Releases the resources job `seq` of `task` holds (step 2: none yet).
    fn release_job_resources(&mut self, _now: Time, _task: u32, _seq: u64) -> Result<(), SimError> {
        Ok(())
    }
}
