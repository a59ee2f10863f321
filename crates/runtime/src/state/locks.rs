//! Scheduler-managed mutexes, the scheduling state's side [ChronOS §3.6]: the semantics of
//! the simulator (`crates/sim/src/engine/resources.rs`, the reference) on real threads; the
//! job thread's side and the protocol are `crate::locks`.
//!
//! - **lock** (the dispatcher of the job's CPU, in its scheduling step): `lock-request`; a free
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
    blocked: Vec<Option<(u32, u64)>>,
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
fn answer(ctl: &JobCtl, reply: u32) {
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
    /// The resources of this domain: `ids` (any order, duplicates allowed) named by `names`.
    pub(crate) fn set_resources(&mut self, mut ids: Vec<u32>, names: &[String]) {
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
