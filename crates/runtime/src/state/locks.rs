//! Scheduler-managed mutexes, the scheduling state's side [ChronOS §3.6]: the semantics of
//! the simulator (`crates/sim/src/engine/resources.rs`, the reference) on real threads; the
//! job thread's side and the protocol are `crate::locks`.
//!
//! - **lock** (the dispatcher of the job's CPU, in its scheduling step; under `message-passing`
//!   the DSP, when the job's client forwards it, `state/mp.rs`): `lock-request`; a free
//!   resource is acquired at once (`lock-acquire`, the thread runs on); a resource another job
//!   holds *blocks* the job: it leaves its CPU (`switch-out` if its code ran, `block`; not a
//!   preemption), its thread's word becomes `PARK`, it joins the resource's waiters (in
//!   blocking order) and the policy's `on_block` runs, after which the policy must link it
//!   nowhere until `on_resume` (a link of a blocked job is not enacted and counted as a
//!   mechanism error).
//! - **unlock**: `lock-release`; the waiter `Policy::grant` picks becomes the owner
//!   (`lock-acquire`, `resume`, with no CPU: it is not running) and `on_resume` runs; it
//!   continues where the policy links it.
//! - **end of a job**: a completing job that still holds a resource (only a custom body can:
//!   the built-in body unlocks at its sections' ends, which lie within its WCET) is an error of
//!   the run ("job τi#k ended holding resource `bus`: a resource never released",
//!   [`Sched::job_errors`]); the resource is released before `on_complete`. An aborted job
//!   leaves the waiters when the abort is decided and releases what it holds when its handler
//!   ends (or at once without a handler), as in the simulator.
//! - `JobRecord::blocked`: the time from `block` to the grant (or the abort).
//!
//! Resource ids are kept sorted (dense index = position, binary search): O(log R) per
//! operation besides the policy's callbacks; a job holds at most its task's sections (bounded
//! by `MAX_CRITICAL_SECTIONS`) or what its custom body locked.

use super::{Emit, Sched, Threads, View};
use crate::job::{JobCtl, LOCK, PARK, RUN};
use crate::locks::{GRANTED, MISUSE, UNKNOWN, UNLOCK_BIT};
use crate::mech::futex;
use schedlab_policy::{Ctx, JobId, JobInfo, ResourceId, Resources};
use schedlab_trace::{Kind, NO_CPU};
use std::sync::atomic::Ordering;

/// The mutexes of a scheduling domain.
#[derive(Debug, Default)]
pub(super) struct Mutexes {
    /// Resource ids, sorted.
    ids: Vec<u32>,
    /// Names by id (messages).
    names: Vec<String>,
    owner: Vec<Option<JobId>>,
    waiters: Vec<Vec<JobId>>,
    /// Per task: the dense resources its current job holds.
    held: Vec<Vec<u32>>,
    /// Per task: what its current job is blocked on (dense) and since when (ns).
    pub(super) blocked: Vec<Option<(u32, u64)>>,
    /// The run's horizon (ns): a job blocked at the end was blocked until then.
    pub(super) horizon_ns: u64,
    /// Errors of the run (a resource never released), in order.
    pub(super) errors: Vec<String>,
}

impl Mutexes {
    fn index(&self, id: u32) -> Option<usize> {
        self.ids.binary_search(&id).ok()
    }

    fn id(&self, r: u32) -> u32 {
        self.ids.get(r as usize).copied().unwrap_or(u32::MAX)
    }

    fn name(&self, r: u32) -> String {
        crate::locks::resource_name(&self.names, self.id(r))
    }

    /// Whether task `task`'s current job is blocked.
    pub(super) fn is_blocked(&self, task: u32) -> bool {
        self.blocked.get(task as usize).is_some_and(Option::is_some)
    }

    /// The owner of each resource, by dense index (tests of the other state modules).
    #[cfg(test)]
    pub(super) fn owners(&self) -> &[Option<JobId>] {
        &self.owner
    }

    /// The number of jobs waiting for each resource, by dense index (same).
    #[cfg(test)]
    pub(super) fn waiting(&self) -> Vec<usize> {
        self.waiters.iter().map(Vec::len).collect()
    }
}

impl Resources for View<'_> {
    fn blocked_on(&self, job: JobId) -> Option<ResourceId> {
        let t = self.tasks.get(job.task.0 as usize)?.current.as_ref()?;
        if t.rec.seq != job.seq {
            return None;
        }
        let (r, _) = self
            .locks
            .blocked
            .get(job.task.0 as usize)
            .copied()
            .flatten()?;
        Some(ResourceId(self.locks.id(r)))
    }
    fn owner(&self, resource: ResourceId) -> Option<JobId> {
        let i = self.locks.index(resource.0)?;
        self.locks.owner.get(i).copied().flatten()
    }
    fn any(&self) -> bool {
        !self.locks.ids.is_empty()
    }
}

/// Answers the thread of `ctl`: `reply`, and runs on.
pub(super) fn answer(ctl: &JobCtl, reply: u32) {
    ctl.lock_reply.store(reply, Ordering::Release);
    if ctl
        .state
        .compare_exchange(LOCK, RUN, Ordering::AcqRel, Ordering::Acquire)
        .is_ok()
    {
        futex::wake(&ctl.state, 1);
    }
}

impl Sched {
    /// The resources of this domain: `ids` (any order, duplicates allowed) named by `names`;
    /// `horizon_ns`: the run's end (blocked time of a job still blocked then).
    pub(crate) fn set_resources(&mut self, mut ids: Vec<u32>, names: &[String], horizon_ns: u64) {
        ids.sort_unstable();
        ids.dedup();
        let (r, n) = (ids.len(), self.tasks.len());
        self.locks = Mutexes {
            ids,
            names: names.to_vec(),
            owner: vec![None; r],
            waiters: vec![Vec::new(); r],
            held: vec![Vec::new(); n],
            blocked: vec![None; n],
            horizon_ns,
            errors: Vec::new(),
        };
    }

    /// Errors of the run found by the state (a job that ended holding a resource).
    pub fn job_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.locks.errors)
    }

    /// The lock operation of the job scheduled on local CPU `c`, if its thread asked for one
    /// (module doc); true if one was processed.
    pub(super) fn lock_op(&mut self, em: &Emit<'_>, th: &Threads<'_>, c: usize, now: u64) -> bool {
        let Some(j) = self.scheduled.get(c).copied().flatten() else {
            return false;
        };
        let Some(ctl) = th.ctls.get(j.task.0 as usize) else {
            return false;
        };
        if ctl.state.load(Ordering::Acquire) != LOCK {
            return false;
        }
        let op = ctl.lock_op.load(Ordering::Acquire);
        let (id, unlock) = (op as u32, op & UNLOCK_BIT != 0);
        let cpu = self.base + c as u32;
        let Some(r) = self.locks.index(id) else {
            answer(ctl, UNKNOWN);
            return true;
        };
        let r = r as u32;
        let task = j.task.0 as usize;
        let holds = self.locks.held.get(task).is_some_and(|h| h.contains(&r));
        if unlock {
            if !holds {
                answer(ctl, MISUSE);
                return true;
            }
            if let Some(h) = self.locks.held.get_mut(task) {
                h.retain(|&x| x != r);
            }
            self.release_resource(now, j, cpu, r);
            answer(ctl, GRANTED);
            self.remap();
            return true;
        }
        if holds {
            answer(ctl, MISUSE);
            return true;
        }
        if self.is_aborting(j) {
            // Aborted while its request was on its way: it must not block now (it would
            // never run its handler); no answer, so its thread sees the abort flag.
            answer(ctl, crate::locks::PENDING);
            return true;
        }
        self.stage(Kind::LockRequest, cpu, j.task.0, j.seq, u64::from(id));
        match self.locks.owner.get(r as usize).copied().flatten() {
            None => {
                self.take_resource(j, r);
                self.stage(Kind::LockAcquire, cpu, j.task.0, j.seq, u64::from(id));
                answer(ctl, GRANTED);
            }
            Some(_) => self.block(em, ctl, c, now, j, r),
        }
        true
    }

    fn take_resource(&mut self, j: JobId, r: u32) {
        if let Some(o) = self.locks.owner.get_mut(r as usize) {
            *o = Some(j);
        }
        if let Some(h) = self.locks.held.get_mut(j.task.0 as usize) {
            h.push(r);
        }
    }

    /// Job `j`, scheduled on local CPU `c`, blocks on `r` (module doc).
    fn block(&mut self, em: &Emit<'_>, ctl: &JobCtl, c: usize, now: u64, j: JobId, r: u32) {
        let cpu = self.base + c as u32;
        if let Some(slot) = self.scheduled.get_mut(c) {
            *slot = None;
        }
        self.disarm_budget(em, j);
        if let Some(live) = self.live_mut(j) {
            if let Some(s) = live.since_ns.take() {
                live.acc_ns += now.saturating_sub(s);
            }
        }
        if ctl.take_ran() {
            em.now(Kind::SwitchOut, cpu, j.task.0, j.seq, 0);
        }
        if let Some(b) = self.locks.blocked.get_mut(j.task.0 as usize) {
            *b = Some((r, now));
        }
        if let Some(w) = self.locks.waiters.get_mut(r as usize) {
            w.push(j);
        }
        let id = u64::from(self.locks.id(r));
        self.stage(Kind::Block, cpu, j.task.0, j.seq, id);
        // Parked: the thread waits until a dispatcher makes it runnable after the grant.
        if ctl
            .state
            .compare_exchange(LOCK, PARK, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            futex::wake(&ctl.state, 1);
        }
        self.call(now, |p, ctx, out| p.on_block(ctx, j, out));
        self.remap();
        if self.locks.is_blocked(j.task.0) && self.assigned.contains(&Some(j)) {
            self.mech_error(format!(
                "the policy left {j:?} linked after it blocked on a resource (not enacted)"
            ));
        }
    }

    /// `j` (on logical CPU `cpu`, or `NO_CPU`) releases `r`; a waiter gets it.
    fn release_resource(&mut self, now: u64, j: JobId, cpu: u32, r: u32) {
        if let Some(o) = self.locks.owner.get_mut(r as usize) {
            *o = None;
        }
        let id = self.locks.id(r);
        self.stage(Kind::LockRelease, cpu, j.task.0, j.seq, u64::from(id));
        self.grant(now, r);
    }

    /// Gives the free resource `r` to the waiter the policy picks, and resumes it.
    fn grant(&mut self, now: u64, r: u32) {
        let n = self.locks.waiters.get(r as usize).map_or(0, Vec::len);
        if n == 0 {
            return;
        }
        let id = self.locks.id(r);
        let now = now.max(self.last_now);
        let k = {
            let view = View {
                tasks: &self.tasks,
                now,
                locks: &self.locks,
            };
            let ctx = Ctx {
                now: schedlab_model::Time::from_ns(now),
                progress: &view,
                resources: &view,
            };
            let waiters = self
                .locks
                .waiters
                .get(r as usize)
                .map_or(&[][..], Vec::as_slice);
            self.policy.grant(&ctx, ResourceId(id), waiters)
        };
        self.policy_calls += 1;
        let k = if k < n {
            k
        } else {
            self.mech_error(format!(
                "the policy granted resource {id} to waiter {k} of {n}"
            ));
            0
        };
        let Some(job) = self.locks.waiters.get_mut(r as usize).map(|w| w.remove(k)) else {
            return;
        };
        self.take_resource(job, r);
        let task = job.task.0 as usize;
        let since = self.locks.blocked.get_mut(task).and_then(Option::take);
        let wcet = self.spec.get(task).map_or(0, |s| s.wcet);
        let Some(live) = self.live_mut(job) else {
            return;
        };
        if let Some((_, since)) = since {
            live.rec.blocked_ns += now.saturating_sub(since);
        }
        let info = JobInfo {
            id: job,
            release: schedlab_model::Time::from_ns(live.rec.release_ns),
            deadline: schedlab_model::Time::from_ns(live.rec.deadline_ns),
            wcet: schedlab_model::Duration::from_ns(wcet),
        };
        self.stage(
            Kind::LockAcquire,
            NO_CPU,
            job.task.0,
            job.seq,
            u64::from(id),
        );
        self.stage(Kind::Resume, NO_CPU, job.task.0, job.seq, u64::from(id));
        self.call(now, |p, ctx, out| p.on_resume(ctx, &info, out));
    }

    /// The current job of `task` is aborted: it leaves the waiters it is among (it will not
    /// be granted anything; module doc).
    pub(super) fn leave_waiters(&mut self, now: u64, j: JobId) {
        let Some((r, since)) = self
            .locks
            .blocked
            .get_mut(j.task.0 as usize)
            .and_then(Option::take)
        else {
            return;
        };
        if let Some(w) = self.locks.waiters.get_mut(r as usize) {
            w.retain(|&x| x != j);
        }
        if let Some(live) = self.live_mut(j) {
            live.rec.blocked_ns += now.saturating_sub(since);
        }
    }

    /// Job `j` ends (completion or the end of its abort handler) on logical CPU `cpu`: what it
    /// still holds is released; `error`: holding one is an error of the run (a completion).
    pub(super) fn release_held(&mut self, now: u64, j: JobId, cpu: u32, error: bool) {
        self.leave_waiters(now, j);
        let held = self
            .locks
            .held
            .get_mut(j.task.0 as usize)
            .map(std::mem::take)
            .unwrap_or_default();
        for r in held {
            if error {
                let name = self.locks.name(r);
                self.locks.errors.push(format!(
                    "job τ{}#{} ended holding resource `{name}`: a resource never released",
                    j.task.0, j.seq
                ));
            }
            self.release_resource(now, j, cpu, r);
        }
    }

    /// Whether `j` may not be made runnable: blocked, and not aborted (an aborted job runs
    /// its handler).
    pub(super) fn blocked_job(&self, j: JobId) -> bool {
        self.locks.is_blocked(j.task.0) && !self.is_aborting(j)
    }
}

/// The resource ids of `sections` of the tasks `tasks`.
pub(crate) fn section_ids<'a>(tasks: impl Iterator<Item = &'a crate::config::RtTask>) -> Vec<u32> {
    tasks
        .flat_map(|t| t.critical_sections.iter().map(|s| s.resource))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    //! The lock bookkeeping without real CPUs, on one CPU: a scripted preemptive fixed-priority
    //! policy by task index that unlinks blocked jobs (no inheritance: not needed here) and
    //! aborts the jobs it is told to at the next release. No thread runs: a lock request is
    //! the control word set to `LOCK`, a job's end the word set to `IDLE`.
    use super::*;
    use crate::job::IDLE;
    use crate::mech::clock::TickClock;
    use crate::state::{abort_words, TaskSpec};
    use schedlab_policy::{CpuId, Decisions, Policy, TaskId};
    use schedlab_trace::tracebuf::TraceBuf;
    use std::sync::{Arc, Mutex};

    #[derive(Default)]
    struct Seen {
        /// (blocked job, its blocker from `Ctx::blocker`) at each `on_block`.
        blocks: Vec<(JobId, Option<JobId>)>,
        resumed: Vec<JobId>,
        /// Jobs to abort at the next release.
        abort: Vec<JobId>,
    }

    struct Script {
        held: Vec<JobId>,
        blocked: Vec<JobId>,
        seen: Arc<Mutex<Seen>>,
    }

    impl Policy for Script {
        fn name(&self) -> &str {
            "script"
        }
        fn cpus(&self) -> u32 {
            1
        }
        fn on_release(&mut self, _: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
            for a in std::mem::take(&mut self.seen.lock().unwrap().abort) {
                out.abort(a);
                self.held.retain(|j| *j != a);
                self.blocked.retain(|j| *j != a);
            }
            self.held.push(job.id);
        }
        fn on_complete(&mut self, _: &Ctx<'_>, job: JobId, _: &mut Decisions) {
            self.held.retain(|j| *j != job);
        }
        fn on_abort(&mut self, _: &Ctx<'_>, job: JobId, _: &mut Decisions) {
            self.held.retain(|j| *j != job);
        }
        fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, _: &mut Decisions) {
            self.blocked.push(job);
            self.seen
                .lock()
                .unwrap()
                .blocks
                .push((job, ctx.blocker(job)));
        }
        fn on_resume(&mut self, _: &Ctx<'_>, job: &JobInfo, _: &mut Decisions) {
            self.blocked.retain(|j| *j != job.id);
            self.seen.lock().unwrap().resumed.push(job.id);
        }
        fn linked(&self, _: CpuId) -> Option<JobId> {
            self.held
                .iter()
                .copied()
                .filter(|j| !self.blocked.contains(j))
                .min_by_key(|j| j.task.0)
        }
    }

    fn j(task: u32) -> JobId {
        JobId::new(TaskId(task), 0)
    }

    struct Fixture {
        buf: TraceBuf,
        clock: TickClock,
        ctls: Vec<Arc<JobCtl>>,
        seen: Arc<Mutex<Seen>>,
    }

    impl Fixture {
        fn new() -> (Fixture, Sched) {
            let words = abort_words(3);
            let ctls: Vec<Arc<JobCtl>> = (0..3)
                .map(|i| {
                    let mut c = JobCtl::new(i, 64, TickClock::monotonic(), &[0]);
                    c.pinned.store(0, Ordering::Relaxed);
                    c.tid.store(i32::MAX, Ordering::Relaxed);
                    c.aborts = words.clone();
                    Arc::new(c)
                })
                .collect();
            let seen = Arc::new(Mutex::new(Seen::default()));
            let spec: Arc<[TaskSpec]> = (0..3)
                .map(|_| TaskSpec {
                    wcet: 1_000_000,
                    deadline: 10_000_000,
                })
                .collect();
            let policy = Script {
                held: Vec::new(),
                blocked: Vec::new(),
                seen: seen.clone(),
            };
            let mut s = Sched::new(Box::new(policy), 0, spec);
            s.set_aborts(words, vec![true; 3]);
            s.set_resources(vec![5], &[], 10_000_000);
            let f = Fixture {
                buf: TraceBuf::new(1024),
                clock: TickClock::monotonic(),
                ctls,
                seen,
            };
            (f, s)
        }
        fn em(&self) -> Emit<'_> {
            Emit {
                buf: &self.buf,
                clock: &self.clock,
                cpu: 0,
            }
        }
        fn step(&self, s: &mut Sched, now: u64) {
            let th = Threads {
                ctls: &self.ctls,
                phys: &[0],
            };
            s.schedule(&self.em(), &th, 0, now, 0);
        }
        /// Task `t`'s thread asks for resource 5 (lock or unlock).
        fn ask(&self, t: usize, unlock: bool) {
            let op = 5 | if unlock { UNLOCK_BIT } else { 0 };
            self.ctls[t].lock_op.store(op, Ordering::Relaxed);
            self.ctls[t].lock_reply.store(0, Ordering::Relaxed);
            self.ctls[t].state.store(LOCK, Ordering::Release);
        }
        fn state(&self, t: usize) -> u32 {
            self.ctls[t].state.load(Ordering::Acquire)
        }
        fn lock_events(&self) -> Vec<(Kind, u32)> {
            self.buf
                .events()
                .iter()
                .filter(|e| {
                    matches!(
                        e.kind,
                        Kind::LockRequest
                            | Kind::LockAcquire
                            | Kind::LockRelease
                            | Kind::Block
                            | Kind::Resume
                    )
                })
                .map(|e| (e.kind, e.task))
                .collect()
        }
    }

    /// By hand: τ1 runs and locks 5 (free: granted at once). τ0 arrives, preempts τ1 and
    /// requests 5: blocked (parked), `on_block` sees τ1 as its blocker, τ1 runs again. τ1
    /// unlocks at 5 ms: τ0 is granted 5 (owner, `resume`, `on_resume`) and preempts τ1; τ0
    /// was blocked 3 ms (from 2 ms to 5 ms). τ0 ends at 6 ms still holding 5: an error of the
    /// run, 5 released; τ1 runs again.
    #[test]
    fn block_grant_resume_and_a_resource_never_released() {
        let (f, mut s) = Fixture::new();
        s.release(&f.em(), 0, 1, 0, 0);
        f.step(&mut s, 0);
        assert_eq!(f.state(1), RUN);
        f.ask(1, false);
        f.step(&mut s, 1_000_000);
        assert_eq!(f.state(1), RUN);
        assert_eq!(f.ctls[1].lock_reply.load(Ordering::Relaxed), GRANTED);
        s.release(&f.em(), 2_000_000, 0, 0, 2_000_000);
        f.step(&mut s, 2_000_000);
        assert_eq!((f.state(0), f.state(1)), (RUN, PARK));
        f.ask(0, false);
        f.step(&mut s, 2_000_000);
        assert_eq!((f.state(0), f.state(1)), (PARK, RUN), "τ0 blocked, τ1 runs");
        assert_eq!(f.seen.lock().unwrap().blocks, vec![(j(0), Some(j(1)))]);
        assert!(s.blocked_job(j(0)));
        f.ask(1, true);
        f.step(&mut s, 5_000_000);
        assert_eq!(f.ctls[1].lock_reply.load(Ordering::Relaxed), GRANTED);
        assert_eq!(
            (f.state(0), f.state(1)),
            (RUN, PARK),
            "τ0 granted, preempts"
        );
        assert_eq!(f.seen.lock().unwrap().resumed, vec![j(0)]);
        assert_eq!(s.locks.owner, vec![Some(j(0))]);
        f.ctls[0].state.store(IDLE, Ordering::Release);
        f.step(&mut s, 6_000_000);
        assert_eq!(f.state(1), RUN);
        assert_eq!(s.locks.owner, vec![None]);
        assert_eq!(s.records[0].blocked_ns, 3_000_000);
        assert_eq!(
            s.job_errors(),
            vec!["job τ0#0 ended holding resource `5`: a resource never released"]
        );
        use Kind::*;
        assert_eq!(
            f.lock_events(),
            vec![
                (LockRequest, 1),
                (LockAcquire, 1),
                (LockRequest, 0),
                (Block, 0),
                (LockRelease, 1),
                (LockAcquire, 0),
                (Resume, 0),
                (LockRelease, 0),
            ]
        );
    }

    /// τ1 holds 5, τ0 blocks on it; τ2's release aborts the blocked τ0 (a deadlock breaker's
    /// decision): τ0 leaves the waiters, runs its handler (made runnable although it was
    /// blocked), and τ1's unlock grants nothing. A second lock of 5 by its owner and an
    /// unlock by a job that does not hold it are refused.
    #[test]
    fn an_aborted_waiter_is_granted_nothing_and_misuse_is_refused() {
        let (f, mut s) = Fixture::new();
        s.release(&f.em(), 0, 1, 0, 0);
        f.step(&mut s, 0);
        f.ask(1, false);
        f.step(&mut s, 0);
        f.ask(1, false);
        f.step(&mut s, 0);
        assert_eq!(f.ctls[1].lock_reply.load(Ordering::Relaxed), MISUSE);
        s.release(&f.em(), 1_000_000, 0, 0, 1_000_000);
        f.step(&mut s, 1_000_000);
        f.ask(0, false);
        f.step(&mut s, 1_000_000);
        assert_eq!(f.state(0), PARK);
        f.seen.lock().unwrap().abort.push(j(0));
        s.release(&f.em(), 2_000_000, 2, 0, 2_000_000);
        f.step(&mut s, 2_000_000);
        assert!(!s.blocked_job(j(0)));
        assert!(s.locks.waiters[0].is_empty());
        assert_eq!(f.state(0), RUN, "τ0 runs its handler");
        f.ctls[0].state.store(IDLE, Ordering::Release);
        f.step(&mut s, 3_000_000);
        assert!(s.records[0].aborted);
        assert_eq!(s.records[0].blocked_ns, 1_000_000);
        // τ1 runs (τ2 is lower) and unlocks: nobody waits; a second unlock is misuse.
        assert_eq!(f.state(1), RUN);
        f.ask(1, true);
        f.step(&mut s, 4_000_000);
        assert_eq!(s.locks.owner, vec![None]);
        f.ask(1, true);
        f.step(&mut s, 4_000_000);
        assert_eq!(f.ctls[1].lock_reply.load(Ordering::Relaxed), MISUSE);
        assert_eq!(f.state(1), RUN);
        assert!(f.seen.lock().unwrap().resumed.is_empty());
        assert!(s.job_errors().is_empty());
    }

    /// τ1 holds 5; τ0 preempts it and requests 5, but τ2's release aborts τ0 before τ0's
    /// dispatcher sees the request: the request is answered without a block (τ0 keeps its
    /// CPU for its handler, its thread sees the abort flag), τ0 is nobody's waiter.
    #[test]
    fn a_request_of_a_job_aborted_meanwhile_does_not_block() {
        let (f, mut s) = Fixture::new();
        s.release(&f.em(), 0, 1, 0, 0);
        f.step(&mut s, 0);
        f.ask(1, false);
        f.step(&mut s, 0);
        s.release(&f.em(), 1_000_000, 0, 0, 1_000_000);
        f.step(&mut s, 1_000_000);
        f.ask(0, false);
        f.seen.lock().unwrap().abort.push(j(0));
        s.release(&f.em(), 1_000_000, 2, 0, 1_000_000);
        f.step(&mut s, 1_000_000);
        assert_eq!(f.state(0), RUN);
        assert_eq!(f.ctls[0].lock_reply.load(Ordering::Relaxed), 0);
        assert!(f.ctls[0].abort_requested(0));
        assert!(s.locks.waiters[0].is_empty());
        assert!(f.seen.lock().unwrap().blocks.is_empty());
    }

    /// τ0 blocks at 2 ms on τ1's resource and is still blocked when the run (horizon 10 ms)
    /// ends: its record counts 8 ms blocked, as the simulator's.
    #[test]
    fn a_job_blocked_at_the_end_is_blocked_until_the_horizon() {
        let (f, mut s) = Fixture::new();
        s.release(&f.em(), 0, 1, 0, 0);
        f.step(&mut s, 0);
        f.ask(1, false);
        f.step(&mut s, 0);
        s.release(&f.em(), 2_000_000, 0, 0, 2_000_000);
        f.step(&mut s, 2_000_000);
        f.ask(0, false);
        f.step(&mut s, 2_000_000);
        assert_eq!(f.state(0), PARK);
        let recs = s.unfinished(&f.ctls);
        let r0 = recs.iter().find(|r| r.task == 0).unwrap();
        assert_eq!(r0.blocked_ns, 8_000_000);
        assert_eq!(recs.iter().find(|r| r.task == 1).unwrap().blocked_ns, 0);
    }
}
