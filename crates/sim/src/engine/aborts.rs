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
use schedlab_policy::{JobId, TaskId};
use schedlab_trace::{Kind, NO_CPU};
use std::collections::VecDeque;

/// One queued abort handler.
#[derive(Clone, Debug)]
struct Handler {
    task: u32,
    seq: u64,
    cost: Duration,
    /// The resources the job held (released when the handler ends).
    held: Vec<(u32, u32)>,
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
            // A thread of a parallel job aborts the whole job; the policy has forgotten all
            // its threads in the same callback (module doc of `crate::engine`, "Strands").
            let held = self
                .rt
                .get(task)
                .and_then(TaskRt::current)
                .is_some_and(|l| l.rec.seq == job.seq && l.holds(job.strand));
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
            .and_then(|l| l.e.running_on);
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
        let held = self.take_resources(now, task);
        self.retire(task);
        match last.filter(|_| started && !cost.is_zero() && now < self.horizon) {
            Some(c) => {
                let h = Handler {
                    task: t,
                    seq,
                    cost,
                    held,
                };
                self.queue_handler(now, c, h)?;
            }
            None => self.release_later(JobId::new(TaskId(t), seq), held),
        }
        Ok(())
    }

    /// Queues `h` on `cpu`; if the CPU has no handler running, it starts now, ahead of the
    /// job running there.
    fn queue_handler(&mut self, now: Time, cpu: u32, h: Handler) -> Result<(), SimError> {
        let c = cpu as usize;
        let Some(hold) = self.holds.get_mut(c) else {
            return Ok(());
        };
        hold.handlers.push_back(h);
        if hold.handlers.len() > 1 {
            return Ok(()); // runs when the ones before it end
        }
        if let Some((j, strand)) = self.running.get(c).copied().flatten() {
            let seq = self.rt.get(j as usize).map_or(0, |rt| rt.live.rec.seq);
            if let Some(hold) = self.holds.get_mut(c) {
                hold.deferred = Some(JobId {
                    task: TaskId(j),
                    seq,
                    strand,
                });
            }
            self.switch_out(now, (j, strand), cpu);
        }
        self.start_handler(now, cpu)
    }

    /// Starts the front handler of `cpu` at `now`.
    fn start_handler(&mut self, now: Time, cpu: u32) -> Result<(), SimError> {
        let Some((task, seq, cost)) = self
            .holds
            .get(cpu as usize)
            .and_then(|hold| hold.handlers.front())
            .map(|h| (h.task, h.seq, h.cost))
        else {
            return Ok(());
        };
        self.emit(now, Kind::AbortHandlerBegin, cpu, task, seq, cost.as_ns());
        let end = now
            .checked_add(cost)
            .ok_or(SimError::Overflow("the end of an abort handler"))?;
        if end < self.horizon {
            self.push(end, HANDLER, u64::from(cpu), 0);
        }
        Ok(())
    }

    /// The running handler of `cpu` ends at `now`: the next handler starts, or the CPU's
    /// held-back link is enacted at this instant (unless the policy re-linked the CPU earlier
    /// in the instant: the newer decision wins); then the aborted job's resources are
    /// released. Releasing last matters: the grants run policy callbacks, which may abort a
    /// job that last ran here and so queue a new handler on this CPU.
    pub(super) fn handler_end(&mut self, now: Time, cpu: u32) -> Result<(), SimError> {
        let c = cpu as usize;
        let Some(hold) = self.holds.get_mut(c) else {
            return Ok(());
        };
        let Some(h) = hold.handlers.pop_front() else {
            return Ok(());
        };
        let more = !hold.handlers.is_empty();
        let deferred = if more { None } else { hold.deferred.take() };
        self.emit(now, Kind::AbortHandlerEnd, cpu, h.task, h.seq, 0);
        if more {
            self.start_handler(now, cpu)?;
        } else if !self.touched_flag[c] {
            self.touched_flag[c] = true;
            self.touched.push(cpu);
            self.desired[c] = deferred;
        }
        let job = JobId::new(TaskId(h.task), h.seq);
        self.release_held(now, job, cpu, h.held)
    }
}
