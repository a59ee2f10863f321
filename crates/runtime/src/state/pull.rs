//! The `concurrent` architecture's side of [`Sched`] (ChronOS application-concurrent
//! [ChronOS §5.6.4, Fig. 5.8], `crate::arch::concurrent`): *pull mode*. One policy instance
//! behind the queue lock, but every CPU enacts only its own link and no CPU ever changes what
//! another one runs.
//!
//! # Why the policy's links are the "pull" of the thesis
//! The policies this mode runs are non-preemptive and work-conserving (G-FIFO, G-NP-EDF,
//! G-NP-HVDF): a job that started is never unlinked, so the only link changes are links of
//! *idle* CPUs. The thesis's CPU that becomes idle "locks the queue and pulls the head for
//! itself"; here it locks the queue, tells the policy its job completed and the policy links
//! the head of its queue to an idle CPU. Every other CPU is busy at that moment (else the
//! queue would have been empty before), so the idle CPU is the caller: it pulled its own
//! head. A release that finds idle CPUs is linked by the policy to one of them; the policies
//! are mapping-agnostic (which idle CPU runs a job does not change the schedule, [ChronOS
//! §5.6.5]), so pull mode **prefers the calling CPU**: a job the policy links anew goes to
//! the caller if the caller is idle, and only when the caller is busy is one idle CPU woken
//! (the thesis's scheduling IPI to an idle processor, the `T7` case of Fig. 5.8). A busy CPU
//! is never rung.
//!
//! The caller preference and the link swaps of [`Sched`] make the CPUs a permutation of the
//! policy's: a job stays on the CPU it was first assigned (and scheduled) to whatever CPU the
//! policy names later (`Sched::remap`'s swaps, here against `assigned` as well as
//! `scheduled`).
//!
//! # Guard
//! A policy that unlinks a *running* job under pull mode broke the non-preemptive contract:
//! the job is not parked (nobody preempts under `concurrent`), the step counts a mechanism
//! error (the run warns) and the linked job waits for the CPU. `concurrent` refuses every
//! policy outside its list, so this is a guard, not a path.
//!
//! Complexity: the caller preference adds O(k) per remapped CPU (k CPUs of the domain).

use super::Sched;
use schedlab_policy::JobId;

impl Sched {
    /// Switches this state to pull mode (see the module doc).
    pub(crate) fn set_pull(&mut self) {
        self.pull = true;
        self.swaps = true;
    }

    /// Notes the calling dispatcher's CPU before a decision (the CPU that records an abort;
    /// pull mode: the CPU a job linked anew prefers).
    pub(super) fn enter(&mut self, cpu: u32) {
        self.op_cpu = cpu;
        let k = self.assigned.len();
        self.caller = cpu
            .checked_sub(self.base)
            .map(|c| c as usize)
            .filter(|&c| c < k);
    }

    /// Pull mode: where the job the policy linked to local CPU `c` in `a` must stay — the CPU
    /// it is scheduled on, else the CPU it was assigned to, else (a job linked anew) the
    /// calling CPU if that one is idle and free in `a`. `None`: where the policy put it.
    pub(super) fn pull_home(&self, a: &[Option<JobId>], here: JobId) -> Option<usize> {
        if let Some(s) = self.scheduled.iter().position(|s| *s == Some(here)) {
            return Some(s);
        }
        if let Some(s) = self.assigned.iter().position(|s| *s == Some(here)) {
            return Some(s);
        }
        let me = self.caller?;
        let idle = self.scheduled.get(me).is_some_and(Option::is_none)
            && a.get(me).is_some_and(Option::is_none);
        idle.then_some(me)
    }

    /// Whether local CPU `c`, whose link just changed (`changed`) or not, must be marked for
    /// its scheduling step: in pull mode only when its link changed while it is idle (a busy
    /// CPU is never interrupted — it looks at its link when its job ends — and an idle one
    /// already marked for its link is not marked again by later decisions).
    pub(super) fn may_ring(&self, c: usize, changed: bool) -> bool {
        !self.pull || (changed && self.scheduled.get(c).is_some_and(Option::is_none))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    //! Pull mode's bookkeeping without real CPUs: `gfifo` on 2 CPUs, three tasks of 1 ms.
    //! The job threads' control blocks exist but no thread runs; a "scheduled" job is one a
    //! step made runnable (its control word `RUN`), a completion is the word set to `IDLE`.
    use super::*;
    use crate::job::{JobCtl, IDLE};
    use crate::mech::clock::TickClock;
    use crate::state::{Emit, TaskSpec, Threads};
    use schedlab_policy::{build, PolicyTask, TaskId};
    use schedlab_trace::tracebuf::TraceBuf;
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    const MS: u64 = 1_000_000;

    fn sched() -> Sched {
        let d = schedlab_model::Duration::from_ns;
        let tasks: Vec<PolicyTask> = (0..3)
            .map(|i| PolicyTask::new(d(MS), d(10 * MS), d(10 * MS), i))
            .collect();
        let spec: Arc<[TaskSpec]> = (0..3)
            .map(|_| TaskSpec {
                wcet: MS,
                deadline: 10 * MS,
            })
            .collect();
        let mut s = Sched::new(build("gfifo", &tasks, 2, None).unwrap(), 0, spec);
        s.set_pull();
        s
    }

    fn j(task: u32) -> Option<JobId> {
        Some(JobId::new(TaskId(task), 0))
    }

    /// Control blocks already "pinned" to the CPU each job will be made runnable on (so the
    /// step does not re-pin the test's own thread: tid 0 is the caller).
    fn ctls(pinned: [u32; 3]) -> Vec<Arc<JobCtl>> {
        (0..3)
            .map(|i| {
                let c = JobCtl::new(i, 64, TickClock::monotonic(), &[0, 1]);
                c.pinned.store(pinned[i as usize], Ordering::Relaxed);
                Arc::new(c)
            })
            .collect()
    }

    /// Hand-worked: both CPUs idle; CPU 1 releases τ0 (G-FIFO links it to an idle CPU; pull
    /// mode puts it on the caller, CPU 1, and rings nobody). CPU 1 makes it runnable (busy).
    /// CPU 1 then releases τ1: CPU 1 is busy, so τ1 goes to the idle CPU 0, which alone is
    /// marked (woken). CPU 0 releases τ2 while both are busy: it waits in the queue, nobody
    /// is marked. τ0 completes on CPU 1: CPU 1's own step pulls τ2 (the queue's head); CPU 0
    /// (running τ1) is not disturbed.
    #[test]
    fn each_cpu_pulls_for_itself_and_only_idle_cpus_are_woken() {
        let (buf, clock) = (TraceBuf::new(1024), TickClock::monotonic());
        let em = |cpu| Emit {
            buf: &buf,
            clock: &clock,
            cpu,
        };
        let ctls = ctls([1, 0, 1]);
        let th = Threads {
            ctls: &ctls,
            phys: &[0, 1],
        };
        let mut s = sched();
        s.release(&em(1), 0, 0, 0, 0);
        assert_eq!(s.assigned, vec![None, j(0)]);
        assert_eq!(s.need, vec![false, true]);
        assert!(s.schedule(&em(1), &th, 1, 0, 0));
        assert_eq!(s.scheduled, vec![None, j(0)]);

        s.release(&em(1), 1, 1, 0, 0);
        assert_eq!(s.assigned, vec![j(1), j(0)]);
        assert_eq!(s.need, vec![true, false]);
        assert!(s.schedule(&em(0), &th, 0, 1, 0));

        s.release(&em(0), 2, 2, 0, 0);
        assert_eq!(s.assigned, vec![j(1), j(0)]);
        assert_eq!(s.need, vec![false, false]);

        ctls[0].state.store(IDLE, Ordering::Release);
        assert!(s.schedule(&em(1), &th, 1, 3, 0));
        assert_eq!(s.scheduled, vec![j(1), j(2)]);
        // CPU 0 is not marked (CPU 1's own mark is its step's, which already ran).
        assert!(!s.need[0]);
        assert_eq!(s.mech_errors.0, 0);
    }

    /// Hand-worked, `gnpedf` on 2 CPUs, everything at the one instant t = 5 (another CPU's
    /// operation can carry the very nanosecond of a switch-in): CPU 1 releases τ2 (takes it
    /// itself) and τ1 (goes to the idle CPU 0); both CPUs make their job runnable at t = 5.
    /// CPU 0 then releases τ0 (same deadline, smaller task index: a smaller key). G-NP-EDF
    /// may displace a job linked at this instant that has not started; both have been made
    /// runnable, so both count as started: τ0 waits, nobody is unlinked, the guard stays quiet.
    #[test]
    fn a_job_made_runnable_is_never_displaced_at_the_same_nanosecond() {
        let (buf, clock) = (TraceBuf::new(1024), TickClock::monotonic());
        let em = |cpu| Emit {
            buf: &buf,
            clock: &clock,
            cpu,
        };
        let ctls = ctls([0, 0, 1]);
        let th = Threads {
            ctls: &ctls,
            phys: &[0, 1],
        };
        let d = schedlab_model::Duration::from_ns;
        let tasks: Vec<PolicyTask> = (0..3)
            .map(|i| PolicyTask::new(d(MS), d(10 * MS), d(10 * MS), i))
            .collect();
        let spec: Arc<[TaskSpec]> = (0..3)
            .map(|_| TaskSpec {
                wcet: MS,
                deadline: 10 * MS,
            })
            .collect();
        let mut s = Sched::new(build("gnpedf", &tasks, 2, None).unwrap(), 0, spec);
        s.set_pull();
        s.release(&em(1), 5, 2, 0, 0);
        s.release(&em(1), 5, 1, 0, 0);
        assert_eq!(s.assigned, vec![j(1), j(2)]);
        assert!(s.schedule(&em(1), &th, 1, 5, 0));
        assert!(s.schedule(&em(0), &th, 0, 5, 0));
        s.release(&em(0), 5, 0, 0, 0);
        assert_eq!(s.assigned, vec![j(1), j(2)]);
        assert!(!s.schedule(&em(0), &th, 0, 5, 0));
        assert_eq!(s.mech_errors.0, 0);
    }
}
