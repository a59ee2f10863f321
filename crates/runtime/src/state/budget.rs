//! Engine budgets in the runtime (DESIGN.md, "What the engines offer every policy"), with the
//! contract of `schedlab_policy::event` and the simulator's semantics, by RTPS's mechanism
//! [RTPS §IV-A]: **one budget timer per CPU, reset on every switch**.
//!
//! - A job's budget is the CPU time its thread may still consume, `left` (not counting the
//!   segment it is running in). It is counted in the job thread's own CPU clock
//!   ([`crate::mech::clock::thread_cputime_of`]): only time the job executes, on whatever
//!   CPU, counts — not the time it waits, is parked, or is kept off its CPU by an interrupt,
//!   the host or another thread. A job that moves takes its `left` along.
//! - **Switch-in** on local CPU c (the scheduling step, before the job is made runnable):
//!   the CPU's timer is *armed* — the thread's CPU clock is read and the expiry set to
//!   now + `left` (what the job would reach if it ran without interruption from now; the
//!   dispatcher of c sleeps at most until then). **Switch-out** (the job parked): the timer
//!   is *cancelled* — the clock is read again and `left` decreased by what the job consumed.
//!   Both are `op-begin`/`op-end` pairs of `timer` (RTPS `tmr`) in the trace.
//! - **Expiry** (the dispatcher of c woke at or after it, [`Sched::check_budget`]): a job
//!   whose thread already committed its completion completes — the completion wins, there
//!   is no exhaustion; otherwise the clock is read: a job that consumed `left` has exhausted
//!   its budget, or has less than [`EARLY_NS`] left of it (the budget is removed, `budget-exhausted` with the amount, then the policy's
//!   `on_budget_exhausted` while the job is still scheduled on c); one that consumed less
//!   (the switch itself, interrupts, a host stall took part of the wall time) is re-armed
//!   for the rest.
//! - **Requests** ([`schedlab_policy::Decisions::budget`]): the amount counts from the
//!   request (a job running on c has its timer re-armed from a fresh clock reading, and CPU
//!   c is asked to reschedule so its dispatcher sleeps until the new expiry); `None` removes
//!   the budget; a request for a job the state does not hold is ignored; `budget-replenished`
//!   (arg = the amount) is recorded with the callback's other decisions. An amount of zero
//!   exhausts at the first check after the job starts to execute.
//! - Completion removes the budget with the job.
//!
//! **Resolution.** A check that finds less than [`EARLY_NS`] left treats the budget as used
//! up, and a dispatcher never sleeps less than [`MIN_SLEEP_NS`] before a budget expiry
//! ([`crate::dispatch`]). Measured on the 2-vCPU KVM guest of docs/benchmarks.md (a C
//! reproduction: a SCHED_FIFO 20 thread sleeping with a futex timeout of s on the CPU of a
//! SCHED_FIFO 10 thread that burns): s = 5 µs gave the burning thread *no* CPU time at all
//! (the guest's timer programming and expiry took the ~30 µs each sleep lasted), s ≥ 10 µs
//! gave it about s + 5 µs. So a check that re-armed for a few µs would take the CPU from the
//! job again before it ran — a livelock the first version of this code fell into, checking
//! every ~30 µs for milliseconds while the job made no progress. With these bounds a part
//! ends at most `EARLY_NS` of CPU time before its budget, and at most one timer wake-up
//! after it.
//!
//! How late an exhaustion is seen: the timer is the dispatcher's futex timeout, so the job
//! runs on for the timer's wake-up latency (the `release_latency` of the same dispatcher
//! measures it) plus the dispatcher's switch onto the CPU; a part can therefore end a few
//! tens of µs after its budget on this machine (docs/overheads.md, "Semi-partitioned").

use super::{Sched, Shard, Threads};
use crate::job::IDLE;
use crate::mech::clock::thread_cputime_of;
use schedlab_policy::{BudgetRequest, JobId};
use schedlab_trace::{Kind, Op, NO_CPU};
use std::sync::atomic::Ordering;

/// The shortest sleep of a dispatcher before a budget expiry (module doc, "Resolution").
pub(crate) const MIN_SLEEP_NS: u64 = 10_000;

/// A budget with less than this left at a check is used up (module doc, "Resolution").
pub(crate) const EARLY_NS: u64 = 10_000;

/// A job's budget (module doc).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    /// CPU time it may still consume (ns), not counting the open segment.
    left_ns: u64,
    /// The amount requested (`budget-exhausted`'s arg).
    amount_ns: u64,
    /// While the job is scheduled on a CPU of the domain: that CPU's budget timer.
    armed: Option<Armed>,
}

/// An armed budget timer.
#[derive(Clone, Copy, Debug)]
struct Armed {
    /// Local CPU.
    c: usize,
    /// The job thread's kernel id and its CPU clock when the timer was (re)armed (ns).
    tid: i32,
    cpu0_ns: u64,
    /// Expiry, ns since time zero.
    at_ns: u64,
}

/// What a budget check found.
enum Check {
    /// Nothing to do (no budget, not armed, not due, or the completion comes first).
    Nothing,
    /// The budget is used up.
    Exhausted,
}

#[cfg(test)]
impl Budget {
    /// What is left (tests).
    pub(super) fn left_ns(&self) -> u64 {
        self.left_ns
    }
}

impl Sched {
    /// Applies one budget request (module doc, "Requests").
    pub(super) fn set_budget(&mut self, now: u64, req: BudgetRequest) {
        if self.shard.as_ref().is_some_and(Shard::replaying) {
            return; // a replayed arrival keeps the budget it brought (`state/shard.rs`)
        }
        let job = req.job;
        let running = self.scheduled.iter().position(|s| *s == Some(job));
        let cpu = running.map_or(NO_CPU, |c| self.base + c as u32);
        let Some(live) = self.live_mut(job).filter(|_| job.strand == 0) else {
            return;
        };
        let Some(amount) = req.amount else {
            live.budget = None;
            return;
        };
        let amount_ns = amount.as_ns();
        let armed = live.budget.and_then(|b| b.armed).map(|old| Armed {
            cpu0_ns: thread_cputime_of(old.tid).unwrap_or(old.cpu0_ns),
            at_ns: now.saturating_add(amount_ns),
            ..old
        });
        live.budget = Some(Budget {
            left_ns: amount_ns,
            amount_ns,
            armed,
        });
        self.stage(Kind::BudgetReplenished, cpu, job.task.0, job.seq, amount_ns);
        if let Some(n) = armed.and_then(|a| self.need.get_mut(a.c)) {
            *n = true; // its dispatcher sleeps until the new expiry
        }
    }

    /// Arms local CPU `c`'s budget timer for job `j` (thread `tid`), switching in now.
    pub(super) fn arm_budget(
        &mut self,
        em: &super::Emit<'_>,
        c: usize,
        j: JobId,
        tid: i32,
        now: u64,
    ) {
        if self.live_mut(j).is_none_or(|l| l.budget.is_none()) {
            return;
        }
        em.op_begin(Op::Timer, Some(j));
        let cpu0 = thread_cputime_of(tid);
        em.op_end(Op::Timer, Some(j));
        let Some(cpu0_ns) = cpu0 else {
            self.mech_error(format!(
                "budget of task {} job {}: the CPU clock of thread {tid} cannot be read; the budget is not enforced",
                j.task.0, j.seq
            ));
            return;
        };
        if let Some(b) = self.live_mut(j).and_then(|l| l.budget.as_mut()) {
            b.armed = Some(Armed {
                c,
                tid,
                cpu0_ns,
                at_ns: now.saturating_add(b.left_ns),
            });
        }
    }

    /// Cancels the budget timer of job `j`, which was just parked: what it consumed since
    /// the timer was armed is taken off its budget.
    pub(super) fn disarm_budget(&mut self, em: &super::Emit<'_>, j: JobId) {
        let Some(armed) = self
            .live_mut(j)
            .and_then(|l| l.budget.as_mut())
            .and_then(|b| b.armed.take())
        else {
            return;
        };
        em.op_begin(Op::Timer, Some(j));
        let now_cpu = thread_cputime_of(armed.tid);
        em.op_end(Op::Timer, Some(j));
        if let Some(b) = self.live_mut(j).and_then(|l| l.budget.as_mut()) {
            let used = now_cpu.map_or(0, |t| t.saturating_sub(armed.cpu0_ns));
            b.left_ns = b.left_ns.saturating_sub(used);
        }
    }

    /// When local CPU `c`'s budget timer expires (ns since time zero), if it is armed.
    pub fn budget_deadline(&self, c: usize) -> Option<u64> {
        let j = self.scheduled.get(c).copied().flatten()?;
        let live = self.tasks.get(j.task.0 as usize)?.current.as_ref()?;
        (live.rec.seq == j.seq)
            .then_some(live.budget?.armed?)
            .filter(|a| a.c == c)
            .map(|a| a.at_ns)
    }

    /// Local CPU `c`'s budget timer fired at `now` (its dispatcher, on c): exhaustion,
    /// re-arming, or nothing (module doc, "Expiry"). Marks `need` for the CPUs whose links
    /// changed.
    pub fn check_budget(&mut self, em: &super::Emit<'_>, th: &Threads<'_>, c: usize, now: u64) {
        let Some(j) = self.scheduled.get(c).copied().flatten() else {
            return;
        };
        let committed = th
            .ctls
            .get(j.task.0 as usize)
            .is_some_and(|ctl| ctl.state.load(Ordering::Acquire) == IDLE);
        if committed {
            // The completion wins: the scheduling step processes it.
            if let Some(n) = self.need.get_mut(c) {
                *n = true;
            }
            return;
        }
        self.hook_begin(em, Op::BudgetUpdate, Some(j));
        if let Check::Exhausted = self.measure(em, j, now) {
            self.exhausted(em, c, j, now);
        }
        self.hook_end(em, Op::BudgetUpdate, Some(j));
    }

    /// Reads job `j`'s consumption against its armed budget, re-arming it if some is left.
    fn measure(&mut self, em: &super::Emit<'_>, j: JobId, now: u64) -> Check {
        let Some(armed) = self
            .live_mut(j)
            .and_then(|l| l.budget)
            .and_then(|b| b.armed)
            .filter(|a| a.at_ns <= now)
        else {
            return Check::Nothing;
        };
        em.op_begin(Op::Timer, Some(j));
        let now_cpu = thread_cputime_of(armed.tid);
        let Some(b) = self.live_mut(j).and_then(|l| l.budget.as_mut()) else {
            em.op_end(Op::Timer, Some(j));
            return Check::Nothing;
        };
        let check = match now_cpu {
            None => {
                b.armed = None; // cannot be measured: counted below, not enforced
                Check::Nothing
            }
            Some(t) => {
                let used = t.saturating_sub(armed.cpu0_ns);
                if used.saturating_add(EARLY_NS) >= b.left_ns {
                    b.left_ns = 0;
                    b.armed = None;
                    Check::Exhausted
                } else {
                    b.left_ns -= used;
                    b.armed = Some(Armed {
                        cpu0_ns: t,
                        at_ns: now.saturating_add(b.left_ns),
                        ..armed
                    });
                    Check::Nothing
                }
            }
        };
        em.op_end(Op::Timer, Some(j));
        if now_cpu.is_none() {
            self.mech_error(format!(
                "budget of task {} job {}: the CPU clock of thread {} cannot be read; the budget is not enforced",
                j.task.0, j.seq, armed.tid
            ));
        }
        check
    }

    /// Job `j`'s budget ran out on local CPU `c`: removed, recorded, the policy told.
    pub(super) fn exhausted(&mut self, em: &super::Emit<'_>, c: usize, j: JobId, now: u64) {
        let Some(live) = self.live_mut(j) else {
            return;
        };
        let amount = live.budget.take().map_or(0, |b| b.amount_ns);
        live.exhaustions = live.exhaustions.saturating_add(1);
        let cpu = self.base + c as u32;
        self.stage(Kind::BudgetExhausted, cpu, j.task.0, j.seq, amount);
        let take = self.shard_op_begin(em, Op::ReadyTake, j);
        self.call(now, |p, ctx, out| p.on_budget_exhausted(ctx, j, out));
        self.remap();
        self.op_end(em, take, j);
        self.flush(em);
    }
}
