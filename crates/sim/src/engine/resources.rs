//! Resources: single-unit mutexes locked and unlocked at offsets of a job's execution
//! (engine module doc, "Resources"; `schedlab_policy::event`, "Resources" [ChronOS §3.6]).
//!
//! Each task's critical sections become *milestones* of its jobs' executed time, sorted by
//! offset (at one offset unlocks before locks, then in section order, so back-to-back sections
//! on one resource hand it over to the same job). While a job runs, its next milestone is
//! queued like a budget exhaustion (class `LOCK`, stale ones recognised by a serial); every
//! milestone due at that executed time is then processed in order:
//! - **lock**: a free resource is acquired at once (`lock-request`, `lock-acquire`); one the job
//!   already holds is acquired again (a recursive mutex: overlapping sections on one resource
//!   nest); one another job holds *blocks* the job: it leaves its CPU (`switch-out`, `block`;
//!   not a preemption), joins the resource's waiters (in blocking order) and the policy's
//!   `on_block` runs, after which the policy must link it nowhere (checked: a policy that keeps
//!   it linked, or links it before `on_resume`, stops the run with a policy violation).
//! - **unlock**: the resource is released (`lock-release`) and granted to the waiter
//!   `Policy::grant` picks, which becomes its owner (`lock-acquire`, `resume`), and
//!   `on_resume` runs.
//!
//! A job that completes releases what it still holds (with `ExecTime` shorter than the WCET
//! a job can complete inside a section) before `on_complete`; an aborted job keeps its
//! resources until its abort handler ends (without a handler: right after the callback that
//! aborted it, or before `on_abort` for an engine abort). Nothing is granted at the horizon.
//! A job's blocking time (blocked → granted, aborted, or the horizon) is in
//! `JobRecord::blocked`.
//!
//! Resource ids are mapped to dense indices once (sorted, binary search); per event the cost
//! is O(log R) plus the policy's `grant`; a job holds at most as many resources as its task
//! has sections (bounded by `MAX_CRITICAL_SECTIONS`).

use super::{Engine, TaskRt, View};
use crate::config::SimTask;
use crate::error::SimError;
use crate::queue::LOCK;
use schedlab_model::{Duration, Time};
use schedlab_policy::{CpuId, Ctx, JobId, JobInfo, ResourceId, Resources, TaskId};
use schedlab_trace::{Kind, NO_CPU};
use std::collections::VecDeque;

/// A lock or unlock at an executed time.
#[derive(Clone, Copy, Debug)]
struct Milestone {
    offset: Duration,
    unlock: bool,
    /// Dense resource index.
    res: u32,
}

/// The resource state of one job (in its `Live`).
#[derive(Clone, Debug, Default)]
pub(super) struct LockState {
    /// Index of its next milestone.
    next: usize,
    /// Serial of its queued milestone event (0: none).
    serial: u64,
    /// The resource (dense index) it is blocked on.
    blocked_on: Option<u32>,
    blocked_since: Time,
    /// Resources it holds, with their lock counts.
    pub(super) held: Vec<(u32, u32)>,
}

/// Resources whose release waits until the callback being applied has returned.
#[derive(Debug)]
struct PendingRelease {
    job: JobId,
    held: Vec<(u32, u32)>,
}

/// All mutexes.
#[derive(Debug, Default)]
pub(super) struct Mutexes {
    /// Resource ids, sorted (dense index = position).
    ids: Vec<u32>,
    owner: Vec<Option<JobId>>,
    waiters: Vec<Vec<JobId>>,
    /// Each task's milestones, by executed time.
    milestones: Vec<Vec<Milestone>>,
    serial: u64,
    pending: VecDeque<PendingRelease>,
}

impl LockState {
    /// Makes its queued milestone event stale (the job stopped running).
    pub(super) fn clear_serial(&mut self) {
        self.serial = 0;
    }
}

impl Mutexes {
    pub(super) fn new(tasks: &[SimTask]) -> Mutexes {
        let mut ids: Vec<u32> = tasks
            .iter()
            .flat_map(|t| t.critical_sections.iter().map(|s| s.resource))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let index = |r: u32| ids.binary_search(&r).map_or(0, |i| i as u32);
        let milestones = tasks
            .iter()
            .map(|t| {
                let mut ms: Vec<(Duration, bool, usize, Milestone)> = Vec::new();
                for (k, s) in t.critical_sections.iter().enumerate() {
                    let res = index(s.resource);
                    let end = s.start.checked_add(s.length).unwrap_or(Duration::MAX);
                    ms.push((
                        s.start,
                        true,
                        k,
                        Milestone {
                            offset: s.start,
                            unlock: false,
                            res,
                        },
                    ));
                    ms.push((
                        end,
                        false,
                        k,
                        Milestone {
                            offset: end,
                            unlock: true,
                            res,
                        },
                    ));
                }
                // Unlocks (false) before locks (true) at one offset, then by section.
                ms.sort_by_key(|&(at, is_lock, k, _)| (at, is_lock, k));
                ms.into_iter().map(|m| m.3).collect()
            })
            .collect();
        let n = ids.len();
        Mutexes {
            ids,
            owner: vec![None; n],
            waiters: vec![Vec::new(); n],
            milestones,
            serial: 0,
            pending: VecDeque::new(),
        }
    }

    fn id(&self, res: u32) -> u64 {
        self.ids.get(res as usize).map_or(0, |&r| u64::from(r))
    }
}

impl Resources for View<'_> {
    fn blocked_on(&self, job: JobId) -> Option<ResourceId> {
        let live = self.tasks.get(job.task.0 as usize)?.current()?;
        let r = live.locks.blocked_on.filter(|_| live.rec.seq == job.seq)?;
        self.res.ids.get(r as usize).map(|&id| ResourceId(id))
    }
    fn owner(&self, resource: ResourceId) -> Option<JobId> {
        let i = self.res.ids.binary_search(&resource.0).ok()?;
        self.res.owner.get(i).copied().flatten()
    }
    fn any(&self) -> bool {
        !self.res.ids.is_empty()
    }
}

impl Engine<'_> {
    /// Whether `job` is the current job of its task and blocked on a resource.
    pub(super) fn is_blocked(&self, job: JobId) -> bool {
        self.rt
            .get(job.task.0 as usize)
            .and_then(TaskRt::current)
            .is_some_and(|l| l.rec.seq == job.seq && l.locks.blocked_on.is_some())
    }

    /// Queues the next milestone of `task`'s job if it is running (superseding a queued one).
    pub(super) fn arm_lock(&mut self, task: usize) {
        let Some(ms) = self.res.milestones.get(task) else {
            return;
        };
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return;
        };
        live.locks.serial = 0;
        let Some(next) = ms
            .get(live.locks.next)
            .filter(|_| live.e.running_on.is_some())
        else {
            return;
        };
        let left = next.offset.saturating_sub(live.e.executed);
        let Some(at) = live
            .e
            .seg_start
            .checked_add(left)
            .filter(|&t| t < self.horizon)
        else {
            return;
        };
        self.res.serial += 1;
        live.locks.serial = self.res.serial;
        let serial = self.res.serial;
        self.push(at, LOCK, task as u64, serial);
        self.queued_budget = true;
    }

    /// `task`'s job reaches its next milestone(s) at `now` (unless the event is stale).
    pub(super) fn lock_milestone(
        &mut self,
        now: Time,
        task: usize,
        serial: u64,
    ) -> Result<(), SimError> {
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Ok(());
        };
        if serial == 0 || live.locks.serial != serial || live.e.running_on.is_none() {
            return Ok(());
        }
        live.locks.serial = 0;
        let (seq, executed) = (live.rec.seq, live.e.executed_at(now));
        loop {
            // Each step may run policy callbacks (grants): go on only with the same job,
            // still running.
            let Some(live) = self.rt.get(task).and_then(TaskRt::current) else {
                return Ok(());
            };
            if live.rec.seq != seq || live.e.running_on.is_none() {
                return Ok(());
            }
            let due = self
                .res
                .milestones
                .get(task)
                .and_then(|ms| ms.get(live.locks.next))
                .filter(|m| m.offset <= executed)
                .copied();
            let Some(m) = due else { break };
            if m.unlock {
                self.unlock(now, task, m.res)?;
            } else if self.lock(now, task, m.res)? {
                return Ok(()); // blocked
            }
        }
        self.arm_lock(task);
        Ok(())
    }

    /// `task`'s running job requests `res`; true if it blocked.
    fn lock(&mut self, now: Time, task: usize, res: u32) -> Result<bool, SimError> {
        let id = self.res.id(res);
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Ok(false);
        };
        let (seq, cpu) = (live.rec.seq, live.e.running_on.unwrap_or(NO_CPU));
        let job = JobId::new(TaskId(task as u32), seq);
        let owner = self.res.owner.get(res as usize).copied().flatten();
        if owner.is_some_and(|o| o != job) {
            self.emit(now, Kind::LockRequest, cpu, task as u32, seq, id);
            self.block(now, task, res)?;
            return Ok(true);
        }
        live.locks.next += 1;
        match live.locks.held.iter_mut().find(|h| h.0 == res) {
            Some(h) => h.1 += 1,
            None => live.locks.held.push((res, 1)),
        }
        if let Some(o) = self.res.owner.get_mut(res as usize) {
            *o = Some(job);
        }
        self.emit(now, Kind::LockRequest, cpu, task as u32, seq, id);
        self.emit(now, Kind::LockAcquire, cpu, task as u32, seq, id);
        Ok(false)
    }

    /// `task`'s running job leaves a section on `res`.
    fn unlock(&mut self, now: Time, task: usize, res: u32) -> Result<(), SimError> {
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Ok(());
        };
        live.locks.next += 1;
        let Some(k) = live.locks.held.iter().position(|h| h.0 == res) else {
            return Ok(()); // never acquired (cannot happen: sections lock before they unlock)
        };
        if live.locks.held[k].1 > 1 {
            live.locks.held[k].1 -= 1;
            return Ok(());
        }
        live.locks.held.swap_remove(k);
        let (seq, cpu) = (live.rec.seq, live.e.running_on.unwrap_or(NO_CPU));
        self.unlock_resource(now, JobId::new(TaskId(task as u32), seq), cpu, res)
    }

    /// `task`'s running job blocks on `res` at `now` (module doc).
    fn block(&mut self, now: Time, task: usize, res: u32) -> Result<(), SimError> {
        let cpu = self
            .rt
            .get(task)
            .and_then(TaskRt::current)
            .and_then(|l| l.e.running_on)
            .unwrap_or(NO_CPU);
        self.stop_running(now, task);
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Ok(());
        };
        if let Some(b) = &mut live.budget {
            b.serial = 0;
        }
        live.locks.blocked_on = Some(res);
        live.locks.blocked_since = now;
        let job = JobId::new(TaskId(task as u32), live.rec.seq);
        if let Some(w) = self.res.waiters.get_mut(res as usize) {
            w.push(job);
        }
        let id = self.res.id(res);
        self.emit(now, Kind::Block, cpu, task as u32, job.seq, id);
        self.call(now, |p, ctx, out| p.on_block(ctx, job, out))?;
        // An abort the policy decided in `on_block` (a deadlock broken by a dependency-aware
        // policy) may have released the resource with a zero-cost handler and resumed the
        // job within the callback: linked again, rightly.
        let still_blocked = self
            .rt
            .get(task)
            .and_then(TaskRt::current)
            .is_some_and(|l| l.rec.seq == job.seq && l.locks.blocked_on.is_some());
        for c in 0..self.running.len() as u32 {
            if still_blocked && self.policy.linked(CpuId(c)) == Some(job) {
                let msg = format!("left {job} linked to CPU {c} after it blocked");
                return Err(self.violation(now, msg));
            }
        }
        Ok(())
    }

    /// `job` (which ran on `cpu`, or `NO_CPU`) releases `res`; a waiter gets it.
    fn unlock_resource(
        &mut self,
        now: Time,
        job: JobId,
        cpu: u32,
        res: u32,
    ) -> Result<(), SimError> {
        if let Some(o) = self.res.owner.get_mut(res as usize) {
            *o = None;
        }
        let id = self.res.id(res);
        self.emit(now, Kind::LockRelease, cpu, job.task.0, job.seq, id);
        if now < self.horizon {
            self.grant(now, res)?;
        }
        Ok(())
    }

    /// Gives the free resource `res` to the waiter the policy picks, and resumes it.
    fn grant(&mut self, now: Time, res: u32) -> Result<(), SimError> {
        let Some(waiters) = self.res.waiters.get(res as usize).filter(|w| !w.is_empty()) else {
            return Ok(());
        };
        let view = View {
            tasks: &self.rt,
            now,
            res: &self.res,
        };
        let ctx = Ctx {
            now,
            progress: &view,
            resources: &view,
        };
        let rid = ResourceId(self.res.id(res) as u32);
        let k = self.policy.grant(&ctx, rid, waiters);
        let n = waiters.len();
        if k >= n {
            let msg = format!("granted {rid} to waiter {k} of {n}");
            return Err(self.violation(now, msg));
        }
        let job = self.res.waiters[res as usize].remove(k);
        if let Some(o) = self.res.owner.get_mut(res as usize) {
            *o = Some(job);
        }
        let task = job.task.0 as usize;
        let (Some(spec), Some(live)) = (
            self.tasks.get(task),
            self.rt.get_mut(task).and_then(TaskRt::current_mut),
        ) else {
            return Ok(());
        };
        live.locks.blocked_on = None;
        live.locks.next += 1;
        live.locks.held.push((res, 1));
        live.rec.blocked += now.saturating_since(live.locks.blocked_since);
        let info = JobInfo {
            id: job,
            release: live.rec.release,
            deadline: live.rec.deadline,
            wcet: spec.wcet,
        };
        let id = u64::from(rid.0);
        self.emit(now, Kind::LockAcquire, NO_CPU, job.task.0, job.seq, id);
        self.emit(now, Kind::Resume, NO_CPU, job.task.0, job.seq, id);
        self.call(now, |p, ctx, out| p.on_resume(ctx, &info, out))
    }

    /// The current job of `task` ends (completion or abort): it leaves the waiters it is
    /// among, and its held resources are returned to be released by the caller.
    pub(super) fn take_resources(&mut self, now: Time, task: usize) -> Vec<(u32, u32)> {
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Vec::new();
        };
        if let Some(r) = live.locks.blocked_on.take() {
            live.rec.blocked += now.saturating_since(live.locks.blocked_since);
            let job = JobId::new(TaskId(task as u32), live.rec.seq);
            if let Some(w) = self.res.waiters.get_mut(r as usize) {
                w.retain(|&j| j != job);
            }
        }
        live.locks.serial = 0;
        std::mem::take(&mut live.locks.held)
    }

    /// Releases `held` of `job` now (a completion, or the end of an abort handler).
    pub(super) fn release_held(
        &mut self,
        now: Time,
        job: JobId,
        cpu: u32,
        held: Vec<(u32, u32)>,
    ) -> Result<(), SimError> {
        for (res, _) in held {
            self.unlock_resource(now, job, cpu, res)?;
        }
        Ok(())
    }

    /// Releases `held` of `job` once the callback being applied has returned
    /// ([`Engine::flush_releases`]).
    pub(super) fn release_later(&mut self, job: JobId, held: Vec<(u32, u32)>) {
        if !held.is_empty() {
            self.res.pending.push_back(PendingRelease { job, held });
        }
    }

    /// Releases what [`Engine::release_later`] queued, in order.
    pub(super) fn flush_releases(&mut self, now: Time) -> Result<(), SimError> {
        while let Some(p) = self.res.pending.pop_front() {
            self.release_held(now, p.job, NO_CPU, p.held)?;
        }
        Ok(())
    }
}
