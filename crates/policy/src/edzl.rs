//! `edzl`: Earliest Deadline first until Zero Laxity.
//!
//! Cho, Ravindran, Jensen, "Efficient real-time scheduling algorithms for multiprocessor
//! systems", IEICE Trans. Communications, 2002 (EDZL); analysed by Baker, Cirinei, Bertogna,
//! "EDZL scheduling analysis", Real-Time Systems 40(3), 2008.
//!
//! Rule: jobs are scheduled by G-EDF ([`crate::prio`], deadline key), except that a job whose
//! laxity `deadline − now − (wcet − executed)` has reached zero gets the highest priority.
//! Zero-laxity (ZL) jobs are ordered among themselves by their EDF key; a ZL job preempts the
//! lowest-priority *non-ZL* linked job (a ZL job never preempts another ZL job: with more than
//! `k` ZL jobs a miss is unavoidable, and EDZL keeps the running ones). Non-ZL jobs follow the
//! G-EDF rules, including the equal-key rule; they never preempt a ZL job.
//!
//! Only a *waiting* job's laxity decreases (a linked job's stays constant while it runs), so
//! a job can reach zero laxity only while it waits, at the fixed instant
//! `t_z = deadline − (wcet − executed)`. The policy arms one timer per waiting non-ZL job at
//! its `t_z` (computed from [`crate::Progress::executed`] when it starts waiting) and cancels
//! it when the job is linked, completes or is aborted. A job whose `t_z ≤ now` when it starts
//! waiting (e.g. `wcet = deadline`) is ZL at once. ZL status, once reached, is kept until the
//! job leaves. Laxity uses the WCET: the policy cannot know a job's actual demand.
//!
//! Resources (`crate::event`, "Resources"): a blocked job leaves the scheduler (its timer
//! cancelled, its ZL status dropped) and comes back at `on_resume` as if newly released (ZL
//! at once if its laxity is gone); no priority inheritance, grants FIFO (the default).
//!
//! Mapping and data structures are those of [`crate::global`]. Unlike the JLFP policies, a
//! ZL promotion is a priority change of a waiting job, handled by the timer callback with at
//! most one link change.

use crate::event::{Ctx, Decisions, JobInfo};
use crate::global::{Engine, EngineKey, Preemption};
use crate::ids::{CpuId, JobId, TimerId};
use crate::policy::{ParallelSupport, Policy};
use crate::prio::{JobKey, Primary};
use crate::table::JobTable;
use crate::task::PolicyTask;
use schedlab_model::Time;
use std::collections::BTreeMap;
use std::sync::Arc;

/// EDZL priority: the zero-laxity class first (0 = zero laxity, 1 = not), then the EDF key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EdzlKey {
    /// 0 if the job has reached zero laxity, else 1.
    pub class: u8,
    /// The job's EDF key.
    pub edf: JobKey,
}

const ZL: u8 = 0;
const NORMAL: u8 = 1;

impl EngineKey for EdzlKey {
    fn preempts(&self, linked: &EdzlKey) -> bool {
        match (self.class, linked.class) {
            (ZL, NORMAL) => true,
            (NORMAL, NORMAL) => self.edf.preempts(&linked.edf),
            _ => false,
        }
    }
}

/// The EDZL policy on `k` CPUs.
#[derive(Debug)]
pub struct Edzl {
    tasks: Arc<[PolicyTask]>,
    engine: Engine<EdzlKey>,
    /// Armed zero-laxity timers: timer number → job.
    armed: BTreeMap<u64, JobId>,
    /// The armed timer of each waiting job.
    timer_of: JobTable<u64>,
    next_timer: u64,
    moved: Vec<JobId>,
}

impl Edzl {
    /// EDZL on `cpus` CPUs.
    pub fn new(tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> Edzl {
        let tasks = tasks.into();
        Edzl {
            engine: Engine::new(cpus, tasks.len(), Preemption::Preemptive, true),
            timer_of: JobTable::new(tasks.len()),
            tasks,
            armed: BTreeMap::new(),
            next_timer: 0,
            moved: Vec::new(),
        }
    }

    /// The instant a waiting job reaches zero laxity: `deadline − (wcet − executed)`.
    fn zero_laxity_at(ctx: &Ctx<'_>, info: &JobInfo) -> u64 {
        let remaining = info.wcet.saturating_sub(ctx.progress.executed(info.id));
        info.deadline.as_ns().saturating_sub(remaining.as_ns())
    }

    fn cancel_timer(&mut self, id: JobId, out: &mut Decisions) {
        if let Some(t) = self.timer_of.remove(id) {
            self.armed.remove(&t);
            out.cancel(TimerId(t));
        }
    }

    /// Brings timers and ZL classes up to date for the jobs the engine just moved, promoting
    /// waiting jobs that are already at zero laxity (and rebalancing after a promotion).
    fn settle(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        loop {
            self.engine.take_moves(&mut self.moved);
            if self.moved.is_empty() {
                return;
            }
            let mut promoted = false;
            let moved = std::mem::take(&mut self.moved);
            for &id in &moved {
                match self.engine.waiting(id) {
                    None => self.cancel_timer(id, out),
                    Some((key, info)) => {
                        if key.class == ZL || self.timer_of.contains(id) {
                            continue;
                        }
                        let at = Self::zero_laxity_at(ctx, &info);
                        if at <= ctx.now.as_ns() {
                            self.engine.rekey_waiting(id, EdzlKey { class: ZL, ..key });
                            promoted = true;
                        } else {
                            let t = self.next_timer;
                            self.next_timer += 1;
                            self.armed.insert(t, id);
                            self.timer_of.insert(id, t);
                            out.timer(TimerId(t), Time::from_ns(at));
                        }
                    }
                }
            }
            self.moved = moved;
            if promoted {
                self.engine.rebalance(ctx, out);
            }
        }
    }
}

impl Policy for Edzl {
    fn name(&self) -> &str {
        "edzl"
    }
    /// Threads as jobs: a strand's laxity uses its own execution time (its `JobInfo::wcet`)
    /// and its own executed time, so each thread reaches zero laxity on its own.
    fn parallel_support(&self) -> ParallelSupport {
        ParallelSupport::ThreadsAsJobs
    }
    fn cpus(&self) -> u32 {
        self.engine.cpu_count()
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        let key = EdzlKey {
            class: NORMAL,
            edf: JobKey::of(Primary::Deadline, job, &self.tasks),
        };
        self.engine.release(ctx, job, key, out);
        self.settle(ctx, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.cancel_timer(job, out);
        self.engine.remove(ctx, job, out);
        self.settle(ctx, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.on_complete(ctx, job, out);
    }
    /// A blocked job leaves the scheduler like a finished one (module doc, "Resources").
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.on_complete(ctx, job, out);
    }
    /// A resumed job comes back like a new one, in the EDF class until its laxity is zero.
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.on_release(ctx, job, out);
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: TimerId, out: &mut Decisions) {
        let Some(id) = self.armed.remove(&timer.0) else {
            return;
        };
        self.timer_of.remove(id);
        let Some((key, info)) = self.engine.waiting(id) else {
            return;
        };
        if key.class == ZL {
            return;
        }
        let at = Self::zero_laxity_at(ctx, &info);
        if at > ctx.now.as_ns() {
            // Progress changed since arming (measured runtime progress): re-arm.
            let t = self.next_timer;
            self.next_timer += 1;
            self.armed.insert(t, id);
            self.timer_of.insert(id, t);
            out.timer(TimerId(t), Time::from_ns(at));
            return;
        }
        self.engine.rekey_waiting(id, EdzlKey { class: ZL, ..key });
        self.engine.rebalance(ctx, out);
        self.settle(ctx, out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.engine.linked(cpu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{info, jid, task, Harness};

    /// 1 CPU. τ0: (C=4, D=20), τ1: (C=5, D=8).
    /// t=0: τ0#0 (d=20) linked; t=1: τ1#0 released, d=9 < 20 → EDF preempts τ0#0 (executed
    /// 1), which starts waiting: its zero-laxity instant is 20 − (4 − 1) = 17 → timer at 17.
    /// Then τ1#0 completes at 6 → τ0#0 linked again, timer cancelled.
    #[test]
    fn preempted_job_gets_a_timer_and_loses_it_when_relinked() {
        let tasks = vec![task(4, 20, 20, 0), task(5, 8, 8, 1)];
        let mut h = Harness::new(Edzl::new(tasks, 1));
        assert_eq!(h.release(0, info(0, 0, 0, 20, 4)).links, vec![l(0, 0, 0)]);
        let d = h.release(1, info(1, 0, 1, 9, 5)).clone();
        assert_eq!(d.links, vec![l(0, 1, 0)]);
        assert_eq!(d.timers.len(), 1);
        assert_eq!(d.timers[0].at, Time::from_ns(17));
        let d = h.complete(6, jid(1, 0)).clone();
        assert_eq!(d.links, vec![l(0, 0, 0)]);
        assert_eq!(d.cancels, vec![TimerId(0)]);
        assert!(h.timers.is_empty());
    }

    fn l(cpu: u32, task: u32, seq: u64) -> crate::event::Link {
        crate::event::Link {
            cpu: CpuId(cpu),
            job: Some(jid(task, seq)),
        }
    }

    /// 2 CPUs, the classic case where G-EDF misses and EDZL does not:
    /// τ0, τ1: (C=2, D=2) wait, use three jobs released at 0:
    /// A = τ0#0 (C=1, d=2), B = τ1#0 (C=1, d=2), Z = τ2#0 (C=3, d=3).
    /// EDF links A (cpu0), B (cpu1); Z waits with laxity 3 − 0 − 3 = 0 → ZL at once (t_z = 0
    /// ≤ now): it preempts the lowest-priority non-ZL linked job, B (largest full key among
    /// equal deadlines), on cpu1. No timer is needed for Z.
    #[test]
    fn zero_laxity_at_release_preempts_lowest_linked() {
        let tasks = vec![task(1, 2, 10, 0), task(1, 2, 10, 1), task(3, 3, 10, 2)];
        let mut h = Harness::new(Edzl::new(tasks, 2));
        h.release(0, info(0, 0, 0, 2, 1));
        h.release(0, info(1, 0, 0, 2, 1));
        let d = h.release(0, info(2, 0, 0, 3, 3)).clone();
        // Z first queued and promoted: one link change, B back to waiting with a timer at
        // 2 − 1 = 1.
        assert_eq!(d.links, vec![l(1, 2, 0)]);
        assert_eq!(d.timers.len(), 1);
        assert_eq!(d.timers[0].at, Time::from_ns(1));
        // A completes at 1; B (waiting) takes cpu0 and its timer is cancelled.
        let d = h.complete(1, jid(0, 0)).clone();
        assert_eq!(d.links, vec![l(0, 1, 0)]);
        assert_eq!(d.cancels.len(), 1);
        // Z completes at 3 on time, B at 2: no miss, whereas G-EDF would run Z only from 1
        // and finish at 4 > 3.
    }

    /// 1 CPU: a timer firing promotes a waiting job, which preempts the running non-ZL job.
    /// τ0#0: C=190, d=100, linked at 0 (it will miss; the engine keeps running it).
    /// τ1#0: C=3, d=200, released at 0, waits (200 > 100) with t_z = 200 − 3 = 197 → timer
    /// at 197. At 197 the timer fires, τ1#0 becomes ZL and preempts τ0#0.
    #[test]
    fn timer_promotes_and_preempts() {
        let tasks = vec![task(190, 100, 1000, 0), task(3, 200, 1000, 1)];
        let mut h = Harness::new(Edzl::new(tasks, 1));
        h.release(0, info(0, 0, 0, 100, 190));
        let d = h.release(0, info(1, 0, 0, 200, 3)).clone();
        assert!(d.links.is_empty());
        assert_eq!(d.timers[0].at, Time::from_ns(197));
        assert_eq!(h.fire_due(1000), Some(TimerId(0)));
        assert_eq!(h.now, 197);
        assert_eq!(h.out.links, vec![l(0, 1, 0)]);
        // The victim τ0#0 (executed 197 > wcet 190, deadline passed) is at zero laxity at
        // once when it starts waiting; with no non-ZL job linked it cannot preempt the ZL job.
        assert_eq!(h.p.linked(CpuId(0)), Some(jid(1, 0)));
        let d = h.complete(200, jid(1, 0)).clone();
        assert_eq!(d.links, vec![l(0, 0, 0)]);
    }

    #[test]
    fn abort_of_waiting_job_cancels_its_timer() {
        let tasks = vec![task(50, 100, 1000, 0), task(3, 200, 1000, 1)];
        let mut h = Harness::new(Edzl::new(tasks, 1));
        h.release(0, info(0, 0, 0, 100, 50));
        h.release(0, info(1, 0, 0, 200, 3));
        let d = h.abort(5, jid(1, 0)).clone();
        assert!(d.links.is_empty());
        assert_eq!(d.cancels, vec![TimerId(0)]);
        assert!(h.timers.is_empty());
    }
}
