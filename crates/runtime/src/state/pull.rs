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
//! Which real CPU a linked job is on is pull mode's own (`Sched::pull_map`), not the policy's
//! CPU index: a running job stays on its CPU, a job assigned and not yet made runnable stays
//! where it was assigned, and a job linked anew goes to the caller if it is idle, else to an
//! idle CPU. (An earlier version permuted the policy's CPUs with link swaps against both
//! `scheduled` and `assigned`; the two rules can contradict each other — a swap cycle ended
//! only by the swap budget, leaving a job assigned to one CPU while it runs on another.)
//!
//! # Guard
//! A policy that unlinks a *running* job under pull mode broke the non-preemptive contract:
//! the job is not parked (nobody preempts under `concurrent`), the step counts a mechanism
//! error (the run warns) and the linked job waits for the CPU. `concurrent` refuses every
//! policy outside its list, so this is a guard, not a path.
//!
//! Complexity: O(k²) per decision for k CPUs (`Sched::pull_map`; k is small: the CPUs of a run).

use super::Sched;
use schedlab_policy::JobId;

impl Sched {
    /// Switches this state to pull mode (see the module doc).
    pub(crate) fn set_pull(&mut self) {
        self.pull = true;
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

    /// Pull mode: maps the policy's linked jobs `a` (by the policy's CPU) onto the real CPUs
    /// in place (module doc): (1) a job running on a CPU stays there; (2) a job already
    /// assigned to a CPU and not yet made runnable stays there; (3) each job linked anew goes
    /// to the calling CPU if it is idle and free, else to the first idle free CPU, else to the
    /// first free one. The set of linked jobs is the policy's; O(k²) for k CPUs.
    pub(super) fn pull_map(&mut self, a: &mut [Option<JobId>]) {
        let k = a.len();
        let mut out = std::mem::take(&mut self.pull_scratch);
        out.clear();
        out.resize(k, None);
        let linked = |j: JobId| a.contains(&Some(j));
        for (c, slot) in out.iter_mut().enumerate() {
            if let Some(j) = self
                .scheduled
                .get(c)
                .copied()
                .flatten()
                .filter(|&j| linked(j))
            {
                *slot = Some(j);
            }
        }
        for c in 0..k {
            let pending = self.assigned.get(c).copied().flatten();
            if let Some(j) = pending.filter(|&j| linked(j) && !out.contains(&Some(j))) {
                if let Some(slot) = out.get_mut(c).filter(|s| s.is_none()) {
                    *slot = Some(j);
                }
            }
        }
        for j in a.iter().copied().flatten() {
            if out.contains(&Some(j)) {
                continue;
            }
            let idle = |c: usize| {
                out.get(c).is_some_and(Option::is_none)
                    && self.scheduled.get(c).is_some_and(Option::is_none)
            };
            let target = self
                .caller
                .filter(|&c| idle(c))
                .or_else(|| (0..k).find(|&c| idle(c)))
                .or_else(|| (0..k).find(|&c| out.get(c).is_some_and(Option::is_none)));
            if let Some(slot) = target.and_then(|t| out.get_mut(t)) {
                *slot = Some(j);
            }
        }
        a.copy_from_slice(&out);
        self.pull_scratch = out;
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

    /// Replays a real run's guard error (`gfifo` under `concurrent`): CPU 0 runs τ0 and
    /// releases τ1, which goes to the idle CPU 1 (rung, but the host keeps CPU 1's dispatcher
    /// off its CPU); τ2 (released at 150) waits; τ0 completes on CPU 0 at t = 200 and CPU 0
    /// pulls τ2. CPU 1 then hands over τ3, released at 50 — before τ2. The registry's G-FIFO
    /// (preemptive by release time) displaced the running τ2 here; `concurrent`'s G-FIFO is
    /// non-preemptive (`arch::concurrent::policy`): τ3 waits, nothing runnable is displaced.
    #[test]
    fn a_stale_release_displaces_nothing() {
        let (buf, clock) = (TraceBuf::new(1024), TickClock::monotonic());
        let em = |cpu| Emit {
            buf: &buf,
            clock: &clock,
            cpu,
        };
        let ctls: Vec<Arc<JobCtl>> = (0..4)
            .map(|i| {
                let c = JobCtl::new(i, 64, TickClock::monotonic(), &[0, 1]);
                c.pinned
                    .store(if i == 1 { 1 } else { 0 }, Ordering::Relaxed);
                Arc::new(c)
            })
            .collect();
        let th = Threads {
            ctls: &ctls,
            phys: &[0, 1],
        };
        let d = schedlab_model::Duration::from_ns;
        let tasks: Vec<PolicyTask> = (0..4)
            .map(|i| PolicyTask::new(d(MS), d(10 * MS), d(10 * MS), i))
            .collect();
        let spec: Arc<[TaskSpec]> = (0..4)
            .map(|_| TaskSpec {
                wcet: MS,
                deadline: 10 * MS,
            })
            .collect();
        let policy = crate::arch::concurrent::policy("gfifo", &tasks, 2).unwrap();
        let mut s = Sched::new(policy, 0, spec);
        s.set_pull();
        s.release(&em(0), 0, 0, 0, 0);
        assert!(s.schedule(&em(0), &th, 0, 0, 0));
        s.release(&em(0), 100, 1, 0, 100);
        assert_eq!(s.assigned, vec![j(0), j(1)]);
        s.release(&em(0), 150, 2, 0, 150);
        ctls[0].state.store(IDLE, Ordering::Release);
        assert!(s.schedule(&em(0), &th, 0, 200, 0));
        assert_eq!(s.scheduled, vec![j(2), None]);
        s.release(&em(1), 50, 3, 0, 50);
        assert_eq!(s.assigned, vec![j(2), j(1)]);
        assert_eq!(s.mech_errors.0, 0);
    }
}
