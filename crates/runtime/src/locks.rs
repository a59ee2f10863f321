//! Scheduler-managed mutexes, the job thread's side [ChronOS §3.6]: single-unit resources
//! that a job locks and unlocks *through the scheduling state*, so that blocking follows the
//! policy's rules (`schedlab_policy::event`, "Resources": `on_block`, `grant`, `on_resume`,
//! the `Resources` view) exactly as in the simulator (`crates/sim/src/engine/resources.rs`,
//! the reference semantics). The state's side is `crate::state`'s `locks` module.
//!
//! # Protocol (one operation at a time per thread)
//! The thread writes the operation into its control block (`JobCtl::lock_op`: the resource
//! id, the top bit set for an unlock), moves its control word `RUN → LOCK` and rings the
//! doorbell of the CPU it runs on. That CPU's dispatcher (higher priority on the same CPU: it
//! preempts the thread at once) processes the operation in its scheduling step, under the
//! architecture's lock (`global-lock`) or as the CPU's only owner (`partitioned`):
//! - granted (a free resource, or any unlock): `lock_reply = GRANTED`, word `LOCK → RUN`;
//! - blocked (held by another job): the job leaves the CPU (`switch-out`, `block`), the word
//!   becomes `PARK`, the policy's `on_block` unlinks it; when the owner unlocks, `grant` picks
//!   the waiter, which becomes the owner (`lock-acquire`, `resume`, `on_resume`) with
//!   `lock_reply = GRANTED`; the thread continues when a dispatcher makes it `RUN` again
//!   (it records its own `switch-in` then);
//! - a blocked job the policy aborts (a deadlock broken by DASA) is made `RUN` for its abort
//!   handler without the grant: the request returns [`Reply::Aborted`].
//!
//! The cost of an operation is a doorbell ring (a futex wake), the dispatcher's step and a
//! futex wake back: two context switches on the job's CPU (measured in docs/runtime.md).
//!
//! Under `message-passing` the scheduling state is the DSP's: the thread itself takes its
//! client's step lock, moves `RUN → LOCK`, sends the operation to the DSP through the client's
//! mailbox and waits for the answer; the DSP applies it to its state with the same code and
//! the same transitions (`crate::mp::lock`). No context switch when the lock is granted.
//!
//! Built-in bodies lock at the offsets of the task's critical sections ([`milestones`]):
//! sorted by executed time, at one offset unlocks before locks, then by section (the
//! simulator's order). Complexity per operation: O(log R) for the resource lookup plus the
//! policy's callbacks.

use crate::job::{JobCtl, LOCK, PARK, RUN, STOP};
use schedlab_model::extensions::CriticalSection;
use std::sync::atomic::Ordering;

/// The top bit of `JobCtl::lock_op`: an unlock.
pub(crate) const UNLOCK_BIT: u64 = 1 << 63;

/// Values of `JobCtl::lock_reply`.
pub(crate) const PENDING: u32 = 0;
/// The lock was acquired (or the unlock done).
pub(crate) const GRANTED: u32 = 1;
/// The resource is not one of the run's.
pub(crate) const UNKNOWN: u32 = 2;
/// Locking a resource the job holds, or unlocking one it does not hold.
pub(crate) const MISUSE: u32 = 3;

/// The answer to one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Done: the job holds (lock) or no longer holds (unlock) the resource.
    Granted,
    /// Not a resource of the run.
    Unknown,
    /// Locking a held resource (the model has no recursive mutexes) or unlocking one the job
    /// does not hold.
    Misuse,
    /// The policy aborted the job while it waited: run the abort handler.
    Aborted,
    /// The run is over.
    Stopped,
}

/// Why [`crate::config::JobCtx::lock`] or `unlock` failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LockError {
    /// Not a resource of the run.
    #[error("no resource `{0}` in this run")]
    Unknown(String),
    /// Locked twice, or unlocked without holding it.
    #[error("resource `{0}`: locked while held by this job, or unlocked without holding it")]
    Misuse(String),
    /// Aborted while waiting: return, the runtime runs the abort handler.
    #[error("aborted while waiting for resource `{0}`")]
    Aborted(String),
    /// The run is ending.
    #[error("the run stopped while locking resource `{0}`")]
    Stopped(String),
    /// The architecture does not manage resources.
    #[error(
        "this architecture has no scheduler-managed resources (global-lock, partitioned and message-passing have)"
    )]
    Unsupported,
}

impl LockError {
    pub(crate) fn from_reply(r: Reply, name: String) -> LockError {
        match r {
            Reply::Unknown | Reply::Granted => LockError::Unknown(name),
            Reply::Misuse => LockError::Misuse(name),
            Reply::Aborted => LockError::Aborted(name),
            Reply::Stopped => LockError::Stopped(name),
        }
    }
}

/// The name of resource `id`: its name in the run, else its number.
pub fn resource_name(names: &[String], id: u32) -> String {
    names
        .get(id as usize)
        .cloned()
        .unwrap_or_else(|| id.to_string())
}

/// A lock or unlock of a built-in body at an executed time (ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Milestone {
    /// Executed CPU time of the job at which it happens (ns).
    pub offset: u64,
    /// An unlock (else a lock).
    pub unlock: bool,
    /// Resource id.
    pub resource: u32,
}

/// The milestones of a task's critical sections, in the order the simulator processes them
/// (module doc).
pub fn milestones(sections: &[CriticalSection]) -> Vec<Milestone> {
    let mut ms: Vec<(u64, bool, usize, Milestone)> = Vec::with_capacity(2 * sections.len());
    for (k, s) in sections.iter().enumerate() {
        let start = s.start.as_ns();
        let end = start.saturating_add(s.length.as_ns());
        let m = |offset, unlock| Milestone {
            offset,
            unlock,
            resource: s.resource,
        };
        ms.push((start, true, k, m(start, false)));
        ms.push((end, false, k, m(end, true)));
    }
    ms.sort_by_key(|&(at, is_lock, k, _)| (at, is_lock, k));
    ms.into_iter().map(|m| m.3).collect()
}

/// Performs one operation for the thread of `ctl`, running job `seq` (module doc,
/// "Protocol"); `ring` rings a logical CPU's dispatcher.
pub(crate) fn request(ctl: &JobCtl, ring: &dyn Fn(u32), resource: u32, unlock: bool) -> Reply {
    let seq = write_op(ctl, resource, unlock);
    loop {
        match ctl
            .state
            .compare_exchange(RUN, LOCK, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => break,
            // Parked just now (its preemption signal is on its way): wait to run again.
            Err(PARK) => {
                ctl.wait_until_not(PARK);
            }
            Err(_) => return Reply::Stopped,
        }
    }
    ring(ctl.cpu.load(Ordering::Acquire));
    let mut blocked = false;
    loop {
        match ctl.state.load(Ordering::Acquire) {
            RUN => break,
            STOP => return Reply::Stopped,
            s => {
                blocked |= s == PARK;
                ctl.wait_until_not(s);
            }
        }
    }
    outcome(ctl, seq, blocked)
}

/// Writes the operation into the control block (reply pending); returns the job's number.
pub(crate) fn write_op(ctl: &JobCtl, resource: u32, unlock: bool) -> u64 {
    let seq = ctl.seq.load(Ordering::Acquire);
    ctl.lock_reply.store(PENDING, Ordering::Relaxed);
    let op = u64::from(resource) | if unlock { UNLOCK_BIT } else { 0 };
    ctl.lock_op.store(op, Ordering::Release);
    seq
}

/// The answer to job `seq`'s operation once its thread runs again (`RUN`); `blocked`: it was
/// parked meanwhile (blocked on the resource).
pub(crate) fn outcome(ctl: &JobCtl, seq: u64, blocked: bool) -> Reply {
    if blocked {
        // Made runnable again after the block (its dispatcher recorded the switch-out). The
        // state makes a blocked job runnable only once it was granted the resource or for
        // its abort handler (`crate::state`'s locks), so: granted unless aborted.
        ctl.resumed(seq);
        return if ctl.abort_requested(seq) {
            Reply::Aborted
        } else {
            Reply::Granted
        };
    }
    match ctl.lock_reply.load(Ordering::Acquire) {
        GRANTED => Reply::Granted,
        UNKNOWN => Reply::Unknown,
        MISUSE => Reply::Misuse,
        _ if ctl.abort_requested(seq) => Reply::Aborted,
        _ => Reply::Stopped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::Duration;

    fn cs(resource: u32, start: u64, length: u64) -> CriticalSection {
        CriticalSection {
            resource,
            start: Duration::from_ns(start),
            length: Duration::from_ns(length),
        }
    }

    /// Sections A = [0, 10) on 0 and B = [10, 15) on 0 and C = [5, 20) on 1: at 10 the
    /// unlock of A comes before the lock of B (the resource passes to the same job).
    #[test]
    fn milestones_unlock_before_lock_at_one_offset() {
        let ms = milestones(&[cs(0, 10, 5), cs(0, 0, 10), cs(1, 5, 15)]);
        let got: Vec<(u64, bool, u32)> = ms
            .iter()
            .map(|m| (m.offset, m.unlock, m.resource))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, false, 0),
                (5, false, 1),
                (10, true, 0),
                (10, false, 0),
                (15, true, 0),
                (20, true, 1)
            ]
        );
    }
}
