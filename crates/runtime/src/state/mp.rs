//! The DSP's side of [`Sched`] under `message-passing` [MP §III]: the state is owned by the
//! dedicated scheduling processor alone (no lock), `assigned` is the DSP's copy of each
//! client's `linked` slot and `scheduled` its copy of each client's `scheduled` slot,
//! refreshed from the shared slots before every decision (so link swaps see which jobs are
//! still scheduled, [MP §III-C]). Completions and lock operations arrive as messages; the
//! clients enact the links (`crate::mp::client`); a job's preemptions, migrations and CPUs are
//! counted from the trace after the run (`schedlab_trace::counts`), as under every
//! architecture.
//!
//! # Lock operations [ChronOS §3.6]
//! A lock or unlock of the job a client runs is applied by [`Sched::reported_lock`] with the
//! code `global-lock`'s dispatchers use (`state/locks.rs`), so the semantics, the policy
//! callbacks (`on_block`, `grant`, `on_resume`) and the trace events are the same. The
//! control-word answers too: the DSP moves the waiting thread `LOCK → RUN` (granted, or
//! refused) or `LOCK → PARK` (blocked). This keeps the ownership rule of `crate::mp::slot`:
//! the thread holds its client's step lock while it waits, so the client cannot give the job
//! up meanwhile; a blocked job stays in the client's `scheduled` half (parked) until the
//! client gives it up — or resumes it, if the grant links it there again first. The clients
//! enact `assigned` as it is, so a blocked job the policy links anyway is taken out of the
//! links here ([`Sched::unlink_blocked`]; `global-lock`'s dispatcher refuses it in its step).

use super::{Live, Sched, Threads};
use crate::job::JobCtl;
use crate::mp::slot::{token, token_task};
use crate::state::Emit;
use schedlab_policy::JobId;
use schedlab_trace::Kind;
use std::sync::atomic::Ordering;

impl Sched {
    /// Switches this state to `message-passing` mode (see the module doc).
    pub(crate) fn set_message_passing(&mut self) {
        self.mp = true;
    }

    /// The job linked to local CPU `c` as a slot token (0: none).
    pub(crate) fn assigned_token(&self, c: usize) -> u32 {
        self.assigned
            .get(c)
            .copied()
            .flatten()
            .map_or(0, |j| token(j.task.0, j.seq))
    }

    /// Sets the DSP's copy of client `c`'s `scheduled` slot from its token. A token of a job
    /// the DSP no longer holds (its completion was processed) is no job.
    pub(crate) fn view_scheduled(&mut self, c: usize, tok: u32) {
        let job = token_task(tok).and_then(|task| {
            let live = self.tasks.get(task as usize)?.current.as_ref()?;
            (token(task, live.rec.seq) == tok)
                .then(|| JobId::new(schedlab_policy::TaskId(task), live.rec.seq))
        });
        if let Some(s) = self.scheduled.get_mut(c) {
            *s = job;
        }
    }

    /// Recomputes the links with link swaps against the current view (after the view
    /// changed) and records the changes.
    pub(crate) fn relink(&mut self, em: &Emit<'_>) {
        self.remap();
        self.flush(em);
    }

    /// Gives the jobs handed over since the last call to their threads' control blocks (the
    /// threads are idle: their previous job's completion was processed): job number, first
    /// run cleared, under thread-per-job the next thread of the pool (`JobCtl::hand_over`).
    /// Must happen before the job is linked to a client.
    pub(crate) fn prepare_fresh(&mut self, ctls: &[std::sync::Arc<JobCtl>]) {
        let fresh = std::mem::take(&mut self.fresh);
        for &task in &fresh {
            let Some(live) = self
                .tasks
                .get_mut(task as usize)
                .and_then(|t| t.current.as_mut())
            else {
                continue;
            };
            if let Some(ctl) = ctls.get(task as usize) {
                ctl.hand_over(live.rec.seq, 0);
            }
            live.dispatched = true;
        }
        // Keep the capacity: no allocation per hand-over.
        self.fresh = fresh;
        self.fresh.clear();
    }

    /// Client `c` (local index) reported that job `seq` of `task` completed: account it,
    /// tell the policy, hand over the task's next job (the caller then relinks). Returns false if
    /// the DSP does not hold that job (a duplicate or stale report; nothing changes).
    pub(crate) fn reported_complete(
        &mut self,
        em: &Emit<'_>,
        now: u64,
        c: usize,
        task: u32,
        seq: u64,
        ctl: &JobCtl,
    ) -> bool {
        let Some(t) = self.tasks.get_mut(task as usize) else {
            return false;
        };
        if t.current.as_ref().is_none_or(|l| l.rec.seq != seq) {
            return false;
        }
        let j = JobId::new(schedlab_policy::TaskId(task), seq);
        if self.is_aborting(j) {
            // Its handler ran (or it never started): it ends aborted (`state/abort.rs`).
            for s in self.scheduled.iter_mut().filter(|s| **s == Some(j)) {
                *s = None;
            }
            let ended = (
                ctl.first_run.load(Ordering::Relaxed),
                ctl.executed.load(Ordering::Relaxed),
            );
            self.end_aborted(now, j, Some(ended));
            return true;
        }
        let cpu = self.base + c as u32;
        // As `Sched::complete`: a job that ends holding a resource is an error of the run;
        // what it holds is released before `on_complete` (`state/locks.rs`).
        self.release_held(now, j, cpu, true);
        let Some(mut live) = self
            .tasks
            .get_mut(task as usize)
            .and_then(|t| t.current.take())
        else {
            return false;
        };
        for s in self.scheduled.iter_mut() {
            if *s == Some(j) {
                *s = None;
            }
        }
        let done = ctl.done_ticks.load(Ordering::Relaxed);
        live.rec.completion_ticks = Some(done);
        live.rec.start_ticks = Some(ctl.first_run.load(Ordering::Relaxed));
        live.rec.executed_ns = ctl.executed.load(Ordering::Relaxed);
        self.stage(Kind::Complete, cpu, task, seq, done);
        self.unwatch_deadline(live.rec.deadline_ns, task, seq);
        self.records.push(live.rec);
        self.call(now, |p, ctx, out| p.on_complete(ctx, j, out));
        self.hand_over(em, now, task);
        // The links are recomputed by the caller (`relink`) once the view is fresh.
        true
    }

    /// Client `c` (local index) forwarded a lock operation of job `seq` of `task`, the job it
    /// runs, whose thread waits in `LOCK` (module doc, "Lock operations"): applied as a
    /// dispatcher applies it (`state/locks.rs`); the caller then relinks. Returns false — a
    /// mechanism error, counted, with the thread released without a grant (its request
    /// returns `Stopped`) — if the DSP does not see that job scheduled on `c` or its thread
    /// asks for nothing.
    pub(crate) fn reported_lock(
        &mut self,
        em: &Emit<'_>,
        th: &Threads<'_>,
        c: usize,
        (task, seq): (u32, u64),
        now: u64,
    ) -> bool {
        let j = JobId::new(schedlab_policy::TaskId(task), seq);
        if self.scheduled.get(c).copied().flatten() == Some(j) && self.lock_op(em, th, c, now) {
            return true;
        }
        self.mech_error(format!(
            "message-passing: client {} forwarded a lock operation of job {seq} of task {task}, which it does not run or which asks for none",
            self.base + c as u32
        ));
        if let Some(ctl) = th.ctls.get(task as usize) {
            super::locks::answer(ctl, crate::locks::PENDING);
        }
        false
    }

    /// Takes the blocked jobs out of the links `a` (module doc, "Lock operations"): a policy
    /// that links a blocked job (neither granted nor aborted) breaks the contract of
    /// `schedlab_policy::event` ("Resources"); counted as a mechanism error, not enacted.
    pub(super) fn unlink_blocked(&mut self, a: &mut [Option<JobId>]) {
        for x in a.iter_mut() {
            if let Some(j) = x.filter(|&j| self.blocked_job(j)) {
                *x = None;
                self.mech_error(format!(
                    "the policy linked {j:?} while it is blocked on a resource (not enacted)"
                ));
            }
        }
    }

    /// The DSP's estimate of executed time (the policy's progress view) follows its links:
    /// a job runs from its link to its unlink.
    pub(super) fn account_link_change(&mut self, old: Option<JobId>, new: Option<JobId>) {
        let now = self.last_now;
        if let Some(l) = old.and_then(|j| self.live_mut(j)) {
            if let Some(s) = l.since_ns.take() {
                l.acc_ns += now.saturating_sub(s);
            }
        }
        if let Some(l) = new.and_then(|j| self.live_mut(j)) {
            let l: &mut Live = l;
            l.since_ns.get_or_insert(now);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    //! Lock operations as the DSP applies them (module doc, "Lock operations"), without
    //! threads: G-EDF (with priority inheritance) on two clients, logical CPUs 1 and 2. A
    //! client's enactment is simulated by [`Fixture::enact`] (it takes `assigned` into its
    //! `scheduled` view and marks the linked jobs' words `RUN`); a thread's request is its word
    //! set to `LOCK` with the operation in its control block.
    use super::*;
    use crate::job::{LOCK, PARK, RUN};
    use crate::locks::{GRANTED, MISUSE, UNKNOWN, UNLOCK_BIT};
    use crate::mech::clock::TickClock;
    use crate::state::{abort_words, TaskSpec, Threads};
    use schedlab_model::Duration;
    use schedlab_policy::{CpuId, Ctx, Decisions, JobInfo, Policy, PolicyTask, TaskId};
    use schedlab_trace::tracebuf::TraceBuf;
    use schedlab_trace::NO_CPU;
    use std::sync::Arc;

    const MS: u64 = 1_000_000;

    fn j(task: u32) -> JobId {
        JobId::new(TaskId(task), 0)
    }

    struct Fixture {
        buf: TraceBuf,
        clock: TickClock,
        ctls: Vec<Arc<JobCtl>>,
    }

    impl Fixture {
        /// Tasks with relative deadlines `deadlines` (ms; C 1 ms, T 100 ms), the state of
        /// `policy` on `k` clients, resource 5.
        fn new(deadlines: &[u64], policy: Box<dyn Policy>) -> (Fixture, Sched) {
            let n = deadlines.len();
            let words = abort_words(n);
            let ctls = (0..n as u32)
                .map(|i| {
                    let mut c = JobCtl::new(i, 64, TickClock::monotonic(), &[0, 0, 0]);
                    c.aborts = words.clone();
                    Arc::new(c)
                })
                .collect();
            let spec: Arc<[TaskSpec]> = deadlines
                .iter()
                .map(|&d| TaskSpec {
                    wcet: MS,
                    deadline: d * MS,
                })
                .collect();
            let mut s = Sched::new(policy, 1, spec);
            s.set_message_passing();
            s.set_aborts(words, vec![true; n]);
            s.set_resources(vec![5], &[], 100 * MS);
            let f = Fixture {
                buf: TraceBuf::new(4096),
                clock: TickClock::monotonic(),
                ctls,
            };
            (f, s)
        }

        fn gedf(deadlines: &[u64]) -> (Fixture, Sched) {
            let tasks: Vec<PolicyTask> = deadlines
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    let ms = |x: u64| Duration::from_ns(x * MS);
                    PolicyTask::new(ms(1), ms(d), ms(100), i as u32)
                })
                .collect();
            let p = schedlab_policy::build("gedf", &tasks, 2, None).unwrap();
            Fixture::new(deadlines, p)
        }

        fn em(&self) -> Emit<'_> {
            Emit {
                buf: &self.buf,
                clock: &self.clock,
                cpu: 0,
            }
        }

        fn th(&self) -> Threads<'_> {
            Threads {
                ctls: &self.ctls,
                phys: &[0, 0, 0],
            }
        }

        /// What the DSP does after a decision: relink, hand the jobs' numbers over.
        fn relink(&self, s: &mut Sched) {
            s.relink(&self.em());
            s.prepare_fresh(&self.ctls);
        }

        /// The clients enact the links at once (a client whose link is empty keeps nothing).
        fn enact(&self, s: &mut Sched) {
            for c in 0..s.k() as usize {
                let tok = s.assigned_token(c);
                s.view_scheduled(c, tok);
                if let Some(t) = crate::mp::slot::token_task(tok) {
                    let ctl = &self.ctls[t as usize];
                    ctl.cpu.store(c as u32 + 1, Ordering::Relaxed);
                    ctl.state.store(RUN, Ordering::Relaxed);
                }
            }
            self.relink(s);
        }

        fn release(&self, s: &mut Sched, task: u32, at_ms: u64) {
            s.release(&self.em(), at_ms * MS, task, 0, at_ms * MS);
            self.relink(s);
        }

        /// Task `t`'s thread asks for resource `r` and its client `c` forwards it; the DSP
        /// handles it and relinks. Returns what `reported_lock` said.
        fn ask(&self, s: &mut Sched, t: u32, c: usize, r: u64, unlock: bool, at_ms: u64) -> bool {
            let ctl = &self.ctls[t as usize];
            let op = r | if unlock { UNLOCK_BIT } else { 0 };
            ctl.lock_op.store(op, Ordering::Relaxed);
            ctl.lock_reply.store(0, Ordering::Relaxed);
            ctl.state.store(LOCK, Ordering::Release);
            let ok = s.reported_lock(&self.em(), &self.th(), c, (t, 0), at_ms * MS);
            self.relink(s);
            ok
        }

        fn client_of(&self, s: &Sched, t: u32) -> usize {
            (0..s.k() as usize)
                .find(|&c| s.assigned.get(c).copied().flatten() == Some(j(t)))
                .unwrap()
        }

        fn state(&self, t: u32) -> u32 {
            self.ctls[t as usize].state.load(Ordering::Acquire)
        }

        fn reply(&self, t: u32) -> u32 {
            self.ctls[t as usize].lock_reply.load(Ordering::Acquire)
        }

        fn lock_events(&self) -> Vec<(Kind, u32, u32)> {
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
                            | Kind::Abort
                    )
                })
                .map(|e| (e.kind, e.task, e.cpu))
                .collect()
        }
    }

    /// G-EDF, deadlines τ0 10 ms, τ1 50 ms, τ2 30 ms, τ3 25 ms. τ1 (client a) locks 5 (free:
    /// granted, `LOCK → RUN`). τ0 arrives on the other client b and requests 5: blocked —
    /// `LOCK → PARK`, `on_block` unlinks it. τ2 and τ3 arrive: τ1 inherits τ0's deadline
    /// (11 ms) and keeps a client, τ3 takes b, τ2 waits. τ1 unlocks at 6 ms: τ0 is granted
    /// 5 (owner, `resume` and `lock-acquire` with no CPU) and linked in τ1's place (τ1's
    /// inheritance ends); τ0 was blocked 5 ms. The trace has `global-lock`'s events.
    #[test]
    fn a_block_inherits_and_a_grant_relinks_through_the_dsp() {
        let (f, mut s) = Fixture::gedf(&[10, 50, 30, 25]);
        f.release(&mut s, 1, 0);
        f.enact(&mut s);
        let a = f.client_of(&s, 1);
        assert!(f.ask(&mut s, 1, a, 5, false, 0));
        assert_eq!((f.state(1), f.reply(1)), (RUN, GRANTED));
        f.release(&mut s, 0, 1);
        f.enact(&mut s);
        let b = f.client_of(&s, 0);
        assert_ne!(a, b);
        assert!(f.ask(&mut s, 0, b, 5, false, 1));
        assert_eq!(f.state(0), PARK, "blocked: parked by the DSP");
        assert_eq!(s.assigned[b], None, "on_block unlinked it");
        assert!(s.blocked_job(j(0)));
        f.release(&mut s, 2, 2);
        f.release(&mut s, 3, 3);
        assert_eq!(s.assigned[a], Some(j(1)), "the owner inherits 11 ms");
        assert_eq!(s.assigned[b], Some(j(3)));
        f.enact(&mut s);
        assert!(f.ask(&mut s, 1, a, 5, true, 6));
        assert_eq!((f.state(1), f.reply(1)), (RUN, GRANTED));
        assert!(!s.blocked_job(j(0)));
        assert_eq!(s.locks.owners(), &[Some(j(0))]);
        assert_eq!(
            s.assigned[a],
            Some(j(0)),
            "granted: linked in the owner's place"
        );
        assert_eq!(s.assigned[b], Some(j(3)));
        let live = s.tasks[0].current.as_ref().unwrap();
        assert_eq!(live.rec.blocked_ns, 5 * MS);
        use Kind::*;
        let (ca, cb) = (a as u32 + 1, b as u32 + 1);
        assert_eq!(
            f.lock_events(),
            vec![
                (LockRequest, 1, ca),
                (LockAcquire, 1, ca),
                (LockRequest, 0, cb),
                (Block, 0, cb),
                (LockRelease, 1, ca),
                (LockAcquire, 0, NO_CPU),
                (Resume, 0, NO_CPU),
            ]
        );
        assert_eq!(s.mech_errors.0, 0, "{:?}", s.mech_errors.1);
    }

    /// The grant comes while the blocked job is still in its client's `scheduled` half (the
    /// client has not given it up yet): the link swap puts it back on that client, which
    /// resumes it in place (`crate::mp::client`).
    #[test]
    fn a_waiter_granted_before_its_client_gave_it_up_is_linked_there_again() {
        let (f, mut s) = Fixture::gedf(&[10, 50]);
        f.release(&mut s, 1, 0);
        f.enact(&mut s);
        let a = f.client_of(&s, 1);
        assert!(f.ask(&mut s, 1, a, 5, false, 0));
        f.release(&mut s, 0, 1);
        f.enact(&mut s);
        let b = f.client_of(&s, 0);
        assert!(f.ask(&mut s, 0, b, 5, false, 1));
        assert_eq!(s.assigned[b], None);
        // Client b still shows τ0 (parked) in its slot: the view keeps it scheduled there.
        s.view_scheduled(b, crate::mp::slot::token(0, 0));
        assert!(f.ask(&mut s, 1, a, 5, true, 2));
        assert_eq!(
            s.assigned[b],
            Some(j(0)),
            "linked where it is still scheduled"
        );
        assert_eq!(s.assigned[a], Some(j(1)));
        assert_eq!(s.mech_errors.0, 0, "{:?}", s.mech_errors.1);
    }

    /// Refusals and aborts through the DSP: an unlock of a resource not held and a lock of an
    /// unknown one are answered `LOCK → RUN` with the refusal; a report from a client that
    /// does not run the job is a mechanism error that releases the thread without a grant.
    /// With `abort_late`, τ0 blocked on τ1's resource is aborted at its deadline: it leaves
    /// the waiters, is linked to its client for its handler, and τ1's unlock grants nothing.
    #[test]
    fn refusals_a_stray_report_and_an_aborted_waiter() {
        let (f, mut s) = Fixture::gedf(&[10, 50]);
        s.set_abort_late(true);
        f.release(&mut s, 1, 0);
        f.enact(&mut s);
        let a = f.client_of(&s, 1);
        assert!(f.ask(&mut s, 1, a, 5, true, 0));
        assert_eq!((f.state(1), f.reply(1)), (RUN, MISUSE));
        assert!(f.ask(&mut s, 1, a, 7, false, 0));
        assert_eq!((f.state(1), f.reply(1)), (RUN, UNKNOWN));
        assert!(!f.ask(&mut s, 1, 1 - a, 5, false, 0), "not its client");
        assert_eq!((f.state(1), f.reply(1)), (RUN, 0));
        assert_eq!(s.mech_errors.0, 1);
        assert!(f.ask(&mut s, 1, a, 5, false, 0));
        f.release(&mut s, 0, 1);
        f.enact(&mut s);
        let b = f.client_of(&s, 0);
        assert!(f.ask(&mut s, 0, b, 5, false, 1));
        assert_eq!(f.state(0), PARK);
        // Client b gives the blocked job up (nothing else to run there).
        s.view_scheduled(b, 0);
        f.relink(&mut s);
        s.fire_timers(&f.em(), 11 * MS);
        f.relink(&mut s);
        assert!(f.ctls[0].abort_requested(0));
        assert!(!s.blocked_job(j(0)));
        assert_eq!(s.locks.waiting(), vec![0]);
        assert_eq!(
            s.assigned[b],
            Some(j(0)),
            "linked to its client for its handler"
        );
        assert!(f.ask(&mut s, 1, a, 5, true, 12));
        assert_eq!(s.locks.owners(), &[None], "nobody was granted it");
        s.view_scheduled(b, crate::mp::slot::token(0, 0));
        f.ctls[0].state.store(crate::job::IDLE, Ordering::Release);
        assert!(s.reported_complete(&f.em(), 13 * MS, b, 0, 0, &f.ctls[0]));
        let r0 = s.records.iter().find(|r| r.task == 0).unwrap();
        assert!(r0.aborted);
        assert_eq!(r0.blocked_ns, 10 * MS);
        assert!(!f.lock_events().iter().any(|e| e.0 == Kind::Resume));
        assert_eq!(s.mech_errors.0, 1, "{:?}", s.mech_errors.1);
    }

    /// A job that completes holding a resource (a custom body that forgot its guard): the
    /// DSP releases it before `on_complete` — granting it to the waiter — and reports the
    /// error of the run, as `global-lock` does.
    #[test]
    fn a_completion_holding_a_resource_releases_it_to_the_waiter() {
        let (f, mut s) = Fixture::gedf(&[10, 50]);
        f.release(&mut s, 1, 0);
        f.enact(&mut s);
        let a = f.client_of(&s, 1);
        assert!(f.ask(&mut s, 1, a, 5, false, 0));
        f.release(&mut s, 0, 1);
        f.enact(&mut s);
        let b = f.client_of(&s, 0);
        assert!(f.ask(&mut s, 0, b, 5, false, 1));
        s.view_scheduled(b, 0);
        f.ctls[1].state.store(crate::job::IDLE, Ordering::Release);
        assert!(s.reported_complete(&f.em(), 2 * MS, a, 1, 0, &f.ctls[1]));
        f.relink(&mut s);
        assert_eq!(s.locks.owners(), &[Some(j(0))]);
        assert!(!s.blocked_job(j(0)));
        assert!(
            s.assigned.contains(&Some(j(0))),
            "the waiter is linked again"
        );
        assert!(!s.assigned.contains(&Some(j(1))));
        assert_eq!(
            s.job_errors(),
            vec!["job τ1#0 ended holding resource `5`: a resource never released"]
        );
        use Kind::*;
        let events: Vec<(Kind, u32)> = f
            .buf
            .events()
            .iter()
            .filter(|e| matches!(e.kind, LockRelease | LockAcquire | Resume | Complete))
            .map(|e| (e.kind, e.task))
            .collect();
        assert_eq!(
            events[1..],
            [
                (LockRelease, 1),
                (LockAcquire, 0),
                (Resume, 0),
                (Complete, 1)
            ]
        );
        assert_eq!(s.mech_errors.0, 0, "{:?}", s.mech_errors.1);
    }

    /// A policy that keeps a blocked job linked (it ignores `on_block`).
    struct Stubborn {
        held: Vec<JobId>,
    }

    impl Policy for Stubborn {
        fn name(&self) -> &str {
            "stubborn"
        }
        fn cpus(&self) -> u32 {
            1
        }
        fn on_release(&mut self, _: &Ctx<'_>, job: &JobInfo, _: &mut Decisions) {
            self.held.push(job.id);
        }
        fn on_complete(&mut self, _: &Ctx<'_>, job: JobId, _: &mut Decisions) {
            self.held.retain(|x| *x != job);
        }
        fn on_abort(&mut self, _: &Ctx<'_>, job: JobId, _: &mut Decisions) {
            self.held.retain(|x| *x != job);
        }
        fn linked(&self, _: CpuId) -> Option<JobId> {
            self.held.iter().copied().min_by_key(|j| j.task.0)
        }
    }

    /// The clients enact `assigned` as it is, so a blocked job a policy links anyway is taken
    /// out of the links (a mechanism error) instead of being made runnable.
    #[test]
    fn a_blocked_job_the_policy_keeps_linked_is_not_enacted() {
        let (f, mut s) = Fixture::new(&[10, 50], Box::new(Stubborn { held: Vec::new() }));
        f.release(&mut s, 1, 0);
        f.enact(&mut s);
        assert!(f.ask(&mut s, 1, 0, 5, false, 0));
        f.release(&mut s, 0, 1);
        f.enact(&mut s);
        assert_eq!(s.assigned[0], Some(j(0)));
        assert!(f.ask(&mut s, 0, 0, 5, false, 1));
        assert_eq!(f.state(0), PARK);
        assert_eq!(s.assigned[0], None, "not enacted");
        assert!(s.mech_errors.0 >= 1);
        assert!(s.mech_errors.1.as_deref().unwrap().contains("blocked"));
    }
}
