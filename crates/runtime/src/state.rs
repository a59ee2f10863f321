//! The scheduling state an architecture drives a policy with: the policy itself, the jobs it
//! holds, the hand-over of jobs to it, and the two link maps of link-based scheduling
//! [MP §III-B] — `assigned` (what each CPU *should* run) and `scheduled` (what its dispatcher
//! has made runnable there).
//!
//! `global-lock` keeps one [`Sched`] for all CPUs behind its lock; `partitioned` gives each
//! CPU its own (a policy instance on one CPU, only that CPU's tasks), owned by that CPU's
//! dispatcher. Every method is called by the dispatcher of a CPU of the domain, with
//! exclusive access.
//!
//! # Semantics (the simulator's, DESIGN.md)
//! - Jobs of a task are handed to the policy in order: a release while the task's previous
//!   job is unfinished waits in the task's backlog and is handed over (`ready`) when that job
//!   completes; a late job keeps running to completion.
//! - After every policy callback, `assigned` is the policy's links with *link swaps*: a
//!   linked job that is still scheduled on another CPU of the domain stays there and the two
//!   CPUs exchange links (as GSN-EDF and G-EDF-MP do [MP §III-C]), so a job is never made
//!   runnable on two CPUs and never migrates needlessly. The set of linked jobs is the
//!   policy's.
//! - Trace: `ready`, `link`/`unlink` (on `assigned` changes) and `complete` are recorded at
//!   decision time under the lock, all events of one operation (a release, a timer, a
//!   scheduling step) with one timestamp taken at its end — they become visible to the other
//!   CPUs atomically, when the lock is released — so the trace shows the scheduler's view as
//!   it changed; [`schedlab_trace::check::invariant`] checks the global scheduling invariant on it.
//! - **Link swaps** only where the domain's CPUs are interchangeable for a job (global and
//!   clustered policies); a policy that places jobs on CPUs (partitioned, semi-partitioned:
//!   a placement of single CPUs) moves a job where it links it. Either way a job is made
//!   runnable on a CPU only after the CPU it was scheduled on parked it (that CPU then
//!   rings the new one).
//! - **Budgets** (the engine offer of DESIGN.md, the contract of `schedlab_policy::event`):
//!   counted in the job thread's own CPU time with one budget timer per CPU, reset on every
//!   switch as RTPS does [RTPS §IV-A] (`state/budget.rs`).
//! - **Shards**: under `semi-partitioned` each CPU has a `Sched` of its own, a shard of the
//!   run's policy (`state/shard.rs`); jobs move between shards when the policy moves them.

use crate::job::{JobCtl, IDLE, PARK, RUN};
use crate::mech::{futex, preempt, sched};
use schedlab_model::Duration;
use schedlab_policy::{
    CpuId, Ctx, Decisions, JobId, JobInfo, Policy, Progress, ServerChange, TaskId, TimerId,
};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::{Kind, Op};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::Ordering;

mod abort;
mod budget;
mod locks;
mod mp;
mod pull;
#[cfg(test)]
mod server_tests;
mod shard;
mod strands;

pub use abort::{abort_words, AbortWords};
pub(crate) use budget::MIN_SLEEP_NS as BUDGET_MIN_SLEEP_NS;
pub(crate) use locks::section_ids;
pub(crate) use shard::{Migrant, Shard};
pub use strands::ParSpec;

/// A staged decision event: kind, CPU, (task, seq, strand), arg.
type Staged = (Kind, u32, (u32, u64, u32), u64);

/// Static facts of a task.
#[derive(Clone, Copy, Debug)]
pub struct TaskSpec {
    /// WCET (ns).
    pub wcet: u64,
    /// Relative deadline (ns).
    pub deadline: u64,
}

/// A job's record while the run is live (times of the thread in raw ticks, converted at
/// the end).
#[derive(Clone, Debug, Default)]
pub struct RawRecord {
    /// Task index.
    pub task: u32,
    /// Job number.
    pub seq: u64,
    /// Intended release, ns since time zero.
    pub release_ns: u64,
    /// Absolute deadline, ns since time zero.
    pub deadline_ns: u64,
    /// Ticks when the job's code first ran.
    pub start_ticks: Option<u64>,
    /// Ticks when it completed.
    pub completion_ticks: Option<u64>,
    /// CPU time it consumed (ns).
    pub executed_ns: u64,
    /// Aborted by the policy (`state/abort.rs`): no completion.
    pub aborted: bool,
    /// Time blocked on resources (ns, `state/locks.rs`).
    pub blocked_ns: u64,
}

#[derive(Debug)]
struct Live {
    rec: RawRecord,
    /// Given to its thread (`seq` written) already.
    dispatched: bool,
    /// Dispatcher-side estimate of executed time: sum of closed run segments …
    acc_ns: u64,
    /// … plus the open one since this time (ns since time zero).
    since_ns: Option<u64>,
    /// Its budget, if the policy gave it one (`state/budget.rs`).
    budget: Option<budget::Budget>,
    /// Budget exhaustions reported for the job so far (a shard that receives the job
    /// replays them, `state/shard.rs`).
    exhaustions: u32,
    /// The policy aborted it; its thread runs (or will run) its handler (`state/abort.rs`).
    aborting: bool,
    /// The local CPU it was last made runnable on.
    last_cpu: Option<usize>,
    /// Which thread of its job it is (`state/strands.rs`; 0 for a sequential job, whose
    /// `Live` is the job's).
    strand: u32,
}

impl Live {
    /// A job (or one thread of it) not handed to a thread yet.
    fn new(rec: RawRecord, strand: u32) -> Live {
        Live {
            rec,
            dispatched: false,
            acc_ns: 0,
            since_ns: None,
            budget: None,
            exhaustions: 0,
            aborting: false,
            last_cpu: None,
            strand,
        }
    }
}

#[derive(Debug, Default)]
struct TaskRun {
    /// The current job (of a parallel task: its record; its threads are in `par`).
    current: Option<Live>,
    backlog: VecDeque<(u64, u64)>,
    /// A parallel task's current job: region, join count, live threads (`state/strands.rs`).
    par: Option<strands::ParRun>,
    /// Its last completed sequential job: number and the dispatcher-side executed estimate,
    /// which [`View`] still reports during the policy's `on_complete` (the simulator's
    /// contract, `schedlab_policy::event`: `hcbs` charges its servers with it).
    finished: Option<(u64, u64)>,
}

/// Where a dispatcher records events: its buffer, its clock and its logical CPU.
pub struct Emit<'a> {
    /// Trace buffer of the calling dispatcher.
    pub buf: &'a TraceBuf,
    /// The run's clock.
    pub clock: &'a crate::mech::clock::TickClock,
    /// Logical CPU of the calling dispatcher.
    pub cpu: u32,
}

impl Emit<'_> {
    /// Records an event now; returns the ticks.
    pub fn now(&self, kind: Kind, cpu: u32, task: u32, seq: u64, arg: u64) -> u64 {
        let t = self.clock.ticks();
        self.buf.record(t, kind, cpu, task, seq, arg);
        t
    }

    /// Records that operation `op` about job `j` (if any) begins now on this CPU
    /// (`op-begin`, docs/traces.md).
    pub fn op_begin(&self, op: Op, j: Option<JobId>) {
        let (task, seq) = j.map_or((u32::MAX, 0), |j| (j.task.0, j.seq));
        self.now(Kind::OpBegin, self.cpu, task, seq, op.code());
    }

    /// Records that operation `op` ends now on this CPU (`op-end`).
    pub fn op_end(&self, op: Op, j: Option<JobId>) {
        let (task, seq) = j.map_or((u32::MAX, 0), |j| (j.task.0, j.seq));
        self.now(Kind::OpEnd, self.cpu, task, seq, op.code());
    }
}

/// The view of the threads the state needs to enact decisions.
pub struct Threads<'a> {
    /// Control blocks by task index.
    pub ctls: &'a [std::sync::Arc<JobCtl>],
    /// Physical CPU of each logical CPU.
    pub phys: &'a [u32],
}

/// The record of a job that did not complete, with the CPU time its thread reported if it
/// ran.
fn unfinished_record(mut live: Live, ctl: Option<&std::sync::Arc<JobCtl>>) -> RawRecord {
    live.rec.aborted = live.aborting;
    if let (true, Some(ctl)) = (live.dispatched, ctl) {
        // Reset to 0 when the job was dispatched: non-zero only if it ran.
        let fr = ctl.first_run.load(Ordering::Relaxed);
        if fr != 0 {
            live.rec.start_ticks = Some(fr);
            live.rec.executed_ns = ctl.executed.load(Ordering::Relaxed);
        }
    }
    live.rec
}

/// A scheduling domain's state (see the module doc).
pub struct Sched {
    policy: Box<dyn Policy>,
    /// First logical CPU of the domain.
    base: u32,
    assigned: Vec<Option<JobId>>,
    scheduled: Vec<Option<JobId>>,
    tasks: Vec<TaskRun>,
    spec: std::sync::Arc<[TaskSpec]>,
    out: Decisions,
    /// Armed timers: (at ns, serial) → id, and id → (at, serial).
    timers: BTreeMap<(u64, u64), u64>,
    timer_of: HashMap<u64, (u64, u64)>,
    timer_serial: u64,
    /// Finished jobs.
    pub records: Vec<RawRecord>,

    /// Policy callbacks made.
    pub policy_calls: u64,
    /// Wall time of each policy callback (ns, CLOCK_MONOTONIC around the call alone, lock
    /// wait and link enactment excluded: what [ChronOS §9.1] times around its scheduling
    /// algorithm), the first [`MAX_COST_SAMPLES`] of the run's calls on this state
    /// (preallocated: recording never allocates).
    pub policy_ns: Vec<u64>,
    /// Mechanism failures (e.g. a failed `sched_setaffinity`), counted, first message kept.
    pub mech_errors: (u64, Option<String>),
    /// Local CPUs whose dispatcher must reschedule (filled by the methods, drained by the
    /// caller).
    pub need: Vec<bool>,
    /// Decision events of the current operation, recorded with one timestamp at its end
    /// (preallocated: pushing within the capacity does not allocate).
    staged: Vec<Staged>,
    /// `message-passing` mode (the DSP's state, see `state/mp.rs`): clients enact the
    /// links, per-job counters live in the job control blocks, and the executed-time
    /// estimate follows the links.
    mp: bool,
    /// `message-passing`: tasks whose job was just handed over (their control block gets
    /// the job's number before the job is linked).
    fresh: Vec<u32>,
    /// The time of the latest policy call (ns since time zero).
    last_now: u64,
    /// Scratch links of `remap`.
    scratch: Vec<Option<JobId>>,
    /// Pull mode: the second scratch of `remap` (`state/pull.rs`).
    pull_scratch: Vec<Option<JobId>>,
    /// Link swaps on (interchangeable CPUs; see the module doc).
    swaps: bool,
    /// `semi-partitioned`: this state is one CPU's shard of the policy (`state/shard.rs`).
    shard: Option<Shard>,
    /// `concurrent`: pull mode, every CPU enacts only its own link (`state/pull.rs`).
    pull: bool,
    /// Pull mode: the calling dispatcher's local CPU during a decision.
    caller: Option<usize>,
    /// The logical CPU whose dispatcher makes the current decision (trace events of aborts).
    op_cpu: u32,
    /// Policy aborts (`state/abort.rs`).
    aborts: abort::Aborts,
    /// Scheduler-managed mutexes (`state/locks.rs`).
    locks: locks::Mutexes,
    /// The tasks' fork-join structures, by task (`state/strands.rs`; empty: all sequential).
    par: std::sync::Arc<[Option<std::sync::Arc<ParSpec>>]>,
    /// Steals decided and not enacted yet: (strand, the victim's logical CPU).
    steals: Vec<(JobId, u32)>,
    /// Records the scheduler hooks of [HCBS §5] as operations (`schedlab_trace::Op::HOOKS`;
    /// `reservations`).
    hooks: bool,
}

/// Policy-callback timings kept per scheduling state (8 bytes each: 512 KiB per state).
pub const MAX_COST_SAMPLES: usize = 1 << 16;

struct View<'a> {
    tasks: &'a [TaskRun],
    now: u64,
    locks: &'a locks::Mutexes,
}

/// The dispatcher-side executed estimate of `l` at `now` ([`View`]).
fn estimate(l: &Live, now: u64) -> u64 {
    l.acc_ns + l.since_ns.map_or(0, |s| now.saturating_sub(s).max(1))
}

impl Progress for View<'_> {
    /// Dispatcher-side estimate: time between switch-in and switch-out decisions. A job made
    /// runnable counts as having executed (at least 1 ns) from that instant: its dispatcher
    /// cannot tell whether its code ran yet, and a non-preemptive policy must not take its
    /// CPU back. (The policies' "linked at this instant and not started" refinement is for
    /// simultaneous events of the simulator; here another CPU's operation can carry the very
    /// nanosecond of a switch-in, and G-FIFO then displaced a job already running under
    /// `concurrent`: found by its guard, 1 in 9 506 jobs.)
    fn executed(&self, job: JobId) -> Duration {
        let live = self
            .tasks
            .get(job.task.0 as usize)
            .and_then(|t| match &t.par {
                Some(p) => p.live(job),
                None => t.current.as_ref().filter(|_| job.strand == 0),
            });
        match live {
            Some(l) if l.rec.seq == job.seq => Duration::from_ns(estimate(l, self.now)),
            Some(_) => Duration::ZERO,
            None => match self.tasks.get(job.task.0 as usize).and_then(|t| t.finished) {
                Some((seq, ns)) if seq == job.seq && job.strand == 0 => Duration::from_ns(ns),
                _ => Duration::ZERO,
            },
        }
    }
}

impl Sched {
    /// The state of a domain of `policy.cpus()` CPUs starting at logical CPU `base`, for
    /// tasks `spec` (all tasks of the run, by index).
    pub fn new(policy: Box<dyn Policy>, base: u32, spec: std::sync::Arc<[TaskSpec]>) -> Sched {
        let k = policy.cpus() as usize;
        Sched {
            policy,
            base,
            assigned: vec![None; k],
            scheduled: vec![None; k],
            tasks: (0..spec.len()).map(|_| TaskRun::default()).collect(),
            spec,
            out: Decisions::new(),
            timers: BTreeMap::new(),
            timer_of: HashMap::new(),
            timer_serial: 0,
            records: Vec::new(),
            policy_calls: 0,
            policy_ns: Vec::with_capacity(MAX_COST_SAMPLES),
            mech_errors: (0, None),
            need: vec![false; k],
            staged: Vec::with_capacity(64 + 4 * k),
            mp: false,
            fresh: Vec::new(),
            last_now: 0,
            scratch: Vec::with_capacity(k),
            pull_scratch: Vec::with_capacity(k),
            swaps: true,
            shard: None,
            pull: false,
            caller: None,
            op_cpu: base,
            aborts: abort::Aborts::new(k),
            locks: locks::Mutexes::default(),
            par: std::sync::Arc::from(Vec::new()),
            steals: Vec::new(),
            hooks: false,
        }
    }

    /// Records the scheduler hooks of [HCBS §5] (`enqueue`, `dequeue`, `pick_next`,
    /// `put_prev`, `budget_update`, `check_preempt`) as `op-begin`/`op-end` pairs.
    pub fn set_hooks(&mut self, on: bool) {
        self.hooks = on;
    }

    /// `op-begin` of hook `op` on the calling dispatcher's CPU, if hooks are recorded.
    fn hook_begin(&self, em: &Emit<'_>, op: Op, j: Option<JobId>) {
        if self.hooks {
            em.op_begin(op, j);
        }
    }

    /// `op-end` of hook `op`, if hooks are recorded.
    fn hook_end(&self, em: &Emit<'_>, op: Op, j: Option<JobId>) {
        if self.hooks {
            em.op_end(op, j);
        }
    }

    /// Turns link swaps off (a policy that places jobs on CPUs, see the module doc).
    pub fn set_link_swaps(&mut self, on: bool) {
        self.swaps = on;
    }

    fn stage(&mut self, kind: Kind, cpu: u32, task: u32, seq: u64, arg: u64) {
        self.staged.push((kind, cpu, (task, seq, 0), arg));
    }

    /// Stages an event about strand `j.strand` of job `j`.
    fn stage_job(&mut self, kind: Kind, cpu: u32, j: JobId, arg: u64) {
        self.staged
            .push((kind, cpu, (j.task.0, j.seq, j.strand), arg));
    }

    /// Records the staged decision events with one timestamp (now).
    fn flush(&mut self, em: &Emit<'_>) {
        if self.staged.is_empty() {
            return;
        }
        let t = em.clock.ticks();
        for &(kind, cpu, job, arg) in &self.staged {
            em.buf.record_strand(t, kind, cpu, job, arg);
        }
        self.staged.clear();
        self.raise_aborts();
    }

    /// Number of CPUs of the domain.
    pub fn k(&self) -> u32 {
        self.assigned.len() as u32
    }

    /// The earliest armed policy timer, or watched deadline under `abort_late` (ns since
    /// time zero).
    pub fn next_timer(&self) -> Option<u64> {
        let policy = self.timers.keys().next().map(|(at, _)| *at);
        [policy, self.next_deadline()].into_iter().flatten().min()
    }

    fn call(&mut self, now: u64, f: impl FnOnce(&mut dyn Policy, &Ctx<'_>, &mut Decisions)) {
        self.policy_calls += 1;
        // A dispatcher reads the clock before it waits for the lock, so another CPU's
        // operation may have come in between with a later time: the policy's time never goes
        // back (policies assume it, as the simulator's event order guarantees).
        let now = now.max(self.last_now);
        self.last_now = now;
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
        self.out.clear();
        let t0 = crate::mech::clock::monotonic_ns();
        f(&mut *self.policy, &ctx, &mut self.out);
        self.take_steals();
        if self.policy_ns.len() < MAX_COST_SAMPLES {
            let dt = crate::mech::clock::monotonic_ns().saturating_sub(t0);
            self.policy_ns.push(dt);
        }
        // A shard forgets the jobs its policy moved to other CPUs (`state/shard.rs`), each
        // with a callback of its own, whose decisions are taken in too.
        for _ in 0..=self.tasks.len() {
            self.absorb(now);
            let Some(j) = self.next_departure() else {
                break;
            };
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
            self.policy_calls += 1;
            self.out.clear();
            self.policy.on_abort(&ctx, j, &mut self.out);
        }
        // The policy's aborts, after its links (`state/abort.rs`).
        self.take_aborts(now);
        // The links themselves are read back from the policy by `remap`.
    }

    /// Takes in a callback's timer and budget requests.
    fn absorb(&mut self, now: u64) {
        for c in std::mem::take(&mut self.out.cancels) {
            if let Some(k) = self.timer_of.remove(&c.0) {
                self.timers.remove(&k);
            }
        }
        for r in std::mem::take(&mut self.out.timers) {
            if let Some(k) = self.timer_of.remove(&r.id.0) {
                self.timers.remove(&k);
            }
            self.timer_serial += 1;
            let key = (r.at.as_ns().max(now), self.timer_serial);
            self.timers.insert(key, r.id.0);
            self.timer_of.insert(r.id.0, key);
        }
        for i in 0..self.out.budgets.len() {
            if let Some(&r) = self.out.budgets.get(i) {
                self.set_budget(now, r);
            }
        }
        self.stage_servers();
    }

    /// Stages a callback's reservation server events as the simulator records them
    /// (`schedlab_policy::event`, "Server events"): `task` = `u32::MAX`, `seq` = the group,
    /// `cpu` = the server's logical CPU.
    fn stage_servers(&mut self) {
        // A shard's policy numbers every CPU of the run; a domain's its own from `base`.
        let first = if self.shard.is_some() { 0 } else { self.base };
        for i in 0..self.out.servers.len() {
            let Some(&ev) = self.out.servers.get(i) else {
                continue;
            };
            let kind = match ev.change {
                ServerChange::Replenished => Kind::BudgetReplenished,
                ServerChange::Exhausted => Kind::BudgetExhausted,
                ServerChange::Throttled => Kind::BudgetThrottled,
            };
            let cpu = first + ev.cpu.0;
            self.stage(kind, cpu, u32::MAX, u64::from(ev.group), ev.arg);
        }
        self.out.servers.clear();
    }

    /// A job of `task` arrived (intended release `release_ns`): hand it over now or queue it
    /// behind the task's unfinished job.
    pub fn release(&mut self, em: &Emit<'_>, now: u64, task: u32, seq: u64, release_ns: u64) {
        self.enter(em.cpu);
        let j = JobId::new(TaskId(task), seq);
        let add = self.shard_op_begin(em, Op::ReadyAddLocal, j);
        self.hook_begin(em, Op::Enqueue, Some(j));
        if let Some(t) = self.tasks.get_mut(task as usize) {
            t.backlog.push_back((seq, release_ns));
        }
        self.hand_over(em, now, task);
        self.hook_end(em, Op::Enqueue, Some(j));
        self.hook_begin(em, Op::CheckPreempt, Some(j));
        self.remap();
        self.hook_end(em, Op::CheckPreempt, Some(j));
        self.op_end(em, add, j);
        self.flush(em);
    }

    fn hand_over(&mut self, em: &Emit<'_>, now: u64, task: u32) {
        self.hand_over_on(em.cpu, now, task);
    }

    /// Hands `task`'s next waiting job to the policy (if its previous one ended), recorded
    /// on logical CPU `cpu`.
    fn hand_over_on(&mut self, cpu: u32, now: u64, task: u32) {
        let Some(spec) = self.spec.get(task as usize).copied() else {
            return;
        };
        let Some(t) = self.tasks.get_mut(task as usize) else {
            return;
        };
        if t.current.is_some() {
            return;
        }
        let Some(&(seq, release_ns)) = t.backlog.front() else {
            return;
        };
        // A shard hands a job over only once the task's previous one completed, wherever
        // it ran (`state/shard.rs`).
        if let Some(sh) = self.shard.as_mut() {
            if !sh.predecessor_done(task, seq) {
                return;
            }
        }
        t.backlog.pop_front();
        let deadline_ns = release_ns.saturating_add(spec.deadline);
        let rec = RawRecord {
            task,
            seq,
            release_ns,
            deadline_ns,
            ..RawRecord::default()
        };
        t.current = Some(Live::new(rec, 0));
        self.stage(Kind::Ready, cpu, task, seq, release_ns);
        if let Some(par) = self.par_spec(task) {
            // Region 0's threads, one by one (`state/strands.rs`).
            let _ = par;
            self.start_region(now, (task, seq), 0, release_ns, None);
            return;
        }
        self.watch_deadline(deadline_ns, task, seq);
        if self.mp {
            self.fresh.push(task);
        }
        let info = JobInfo {
            id: JobId::new(TaskId(task), seq),
            release: schedlab_model::Time::from_ns(release_ns),
            deadline: schedlab_model::Time::from_ns(deadline_ns),
            wcet: Duration::from_ns(spec.wcet),
        };
        self.call(now, |p, ctx, out| p.on_release(ctx, &info, out));
    }

    /// Fires the policy timers due at `now`.
    pub fn fire_timers(&mut self, em: &Emit<'_>, now: u64) {
        self.enter(em.cpu);
        // The engine's aborts of late jobs come first at an instant (the simulator's order).
        self.abort_late_jobs(now);
        while let Some((&(at, serial), &id)) = self.timers.iter().next() {
            if at > now {
                break;
            }
            self.timers.remove(&(at, serial));
            self.timer_of.remove(&id);
            self.hook_begin(em, Op::BudgetUpdate, None);
            self.call(now, |p, ctx, out| p.on_timer(ctx, TimerId(id), out));
            self.remap();
            self.hook_end(em, Op::BudgetUpdate, None);
        }
        self.flush(em);
    }

    /// Recomputes `assigned` from the policy's links with link swaps, records link changes
    /// and marks the CPUs that must reschedule in `need`.
    fn remap(&mut self) {
        let k = self.assigned.len();
        // The scratch vector keeps its capacity: no allocation per decision.
        let mut a = std::mem::take(&mut self.scratch);
        a.clear();
        let first = self.shard.as_ref().map_or(0, Shard::cpu);
        a.extend((0..k as u32).map(|c| self.policy.linked(CpuId(first + c))));
        if self.pull {
            self.pull_map(&mut a);
        }
        // Link swaps: each swap settles one job on the CPU it is scheduled on (≤ k swaps).
        let mut budget = if self.swaps && !self.pull {
            2 * k + 2
        } else {
            0
        };
        let mut c = 0;
        while c < k && budget > 0 {
            let here = a.get(c).copied().flatten();
            let elsewhere = here.and_then(|j| {
                self.scheduled
                    .iter()
                    .position(|s| *s == Some(j))
                    .filter(|&s| s != c)
            });
            match elsewhere {
                Some(s) if a.get(s).copied().flatten() != here => {
                    a.swap(c, s);
                    budget -= 1;
                }
                _ => c += 1,
            }
        }
        if self.mp {
            self.handler_links(&mut a);
            self.unlink_blocked(&mut a);
        }
        for (c, &new) in a.iter().enumerate() {
            let Some(old) = self.assigned.get(c).copied() else {
                continue;
            };
            let changed = old != new;
            if changed {
                if self.mp {
                    self.account_link_change(old, new);
                    if let Some(l) = new.and_then(|j| self.live_mut(j)) {
                        l.last_cpu = Some(c);
                    }
                }
                let cpu = self.base + c as u32;
                match (old, new) {
                    (_, Some(j)) => self.stage_job(Kind::Link, cpu, j, 0),
                    (Some(j), None) => self.stage_job(Kind::Unlink, cpu, j, 0),
                    (None, None) => {}
                }
                if let Some(slot) = self.assigned.get_mut(c) {
                    *slot = new;
                }
            }
            let differs = self.scheduled.get(c).copied() != Some(new) && self.may_ring(c, changed);
            if let Some(n) = self.need.get_mut(c) {
                *n |= differs;
            }
        }
        self.scratch = a;
    }

    /// The job scheduled on local CPU `c` completed (its thread committed): account it, tell
    /// the policy, hand over the task's next job.
    fn complete(&mut self, em: &Emit<'_>, now: u64, c: usize, ctl: &JobCtl) {
        let Some(j) = self.scheduled.get_mut(c).and_then(Option::take) else {
            return;
        };
        if self.is_aborting(j) {
            let ended = (
                ctl.first_run.load(Ordering::Relaxed),
                ctl.executed.load(Ordering::Relaxed),
            );
            self.end_aborted(now, j, Some(ended));
            self.remap();
            return;
        }
        if self.par_spec(j.task.0).is_some() {
            self.complete_strand(em, now, c, j, ctl);
            return;
        }
        let cpu = self.base + c as u32;
        // A job that ends holding a resource: an error of the run; released before
        // `on_complete`, as the simulator does (`state/locks.rs`).
        self.release_held(now, j, cpu, true);
        let est_now = now.max(self.last_now);
        let Some(t) = self.tasks.get_mut(j.task.0 as usize) else {
            return;
        };
        let Some(mut live) = t.current.take() else {
            return;
        };
        t.finished = Some((live.rec.seq, estimate(&live, est_now)));
        self.hook_begin(em, Op::Dequeue, Some(j));
        let done = ctl.done_ticks.load(Ordering::Relaxed);
        live.rec.completion_ticks = Some(done);
        live.rec.start_ticks = Some(ctl.first_run.load(Ordering::Relaxed));
        live.rec.executed_ns = ctl.executed.load(Ordering::Relaxed);
        self.stage(Kind::Complete, cpu, j.task.0, j.seq, done);
        self.unwatch_deadline(live.rec.deadline_ns, j.task.0, j.seq);
        self.records.push(live.rec);
        let take = self.shard_op_begin(em, Op::ReadyTake, j);
        if let Some(sh) = self.shard.as_mut() {
            sh.completed(j.task.0);
        }
        self.call(now, |p, ctx, out| p.on_complete(ctx, j, out));
        self.hand_over(em, now, j.task.0);
        self.remap();
        self.op_end(em, take, j);
        self.hook_end(em, Op::Dequeue, Some(j));
    }

    /// The scheduling step of the dispatcher of local CPU `c` (the CPU it runs on): process a
    /// completion of the job scheduled there, then make `scheduled` equal `assigned` —
    /// park the old job (state `PARK` + preemption signal), pin and release the new one.
    /// Returns whether a job was switched in. `wake_ticks` is when the dispatcher got the
    /// CPU (the moment the old job stopped executing).
    pub fn schedule(
        &mut self,
        em: &Emit<'_>,
        th: &Threads<'_>,
        c: usize,
        now: u64,
        wake_ticks: u64,
    ) -> bool {
        self.enter(em.cpu);
        let switched = self.schedule_step(em, th, c, now, wake_ticks);
        self.flush(em);
        switched
    }

    fn schedule_step(
        &mut self,
        em: &Emit<'_>,
        th: &Threads<'_>,
        c: usize,
        now: u64,
        wake_ticks: u64,
    ) -> bool {
        if let Some(n) = self.need.get_mut(c) {
            *n = false;
        }
        let cpu = self.base + c as u32;
        // A completed job: its thread moved RUN → IDLE.
        for _ in 0..4 {
            let Some(j) = self.scheduled.get(c).copied().flatten() else {
                break;
            };
            let Some(ctl) = crate::job::ctl_of(th.ctls, j) else {
                break;
            };
            if ctl.state.load(Ordering::Acquire) != IDLE {
                break;
            }
            self.complete(em, now, c, ctl);
        }
        // A lock operation of the job running here (`state/locks.rs`); it may block the job.
        self.lock_op(em, th, c, now);
        let old = self.scheduled.get(c).copied().flatten();
        // An aborted job's handler comes before the link (`state/abort.rs`).
        let new = self.next_on(c);
        if old == new {
            return false;
        }
        if let Some(a) = old {
            if self.is_aborting(a) {
                // It runs its handler: it keeps the CPU until its thread ends it.
                return false;
            }
            if self.pull {
                // Nobody preempts under `concurrent` (`state/pull.rs`, "Guard").
                self.mech_error(format!(
                    "the policy unlinked running job {a:?} under a non-preemptive architecture"
                ));
                return false;
            }
            if let Some(ctl) = crate::job::ctl_of(th.ctls, a) {
                match ctl
                    .state
                    .compare_exchange(RUN, PARK, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => {
                        let tid = ctl.tid.load(Ordering::Relaxed);
                        if let Err(e) = preempt::send(tid) {
                            self.mech_error(e.to_string());
                        }
                    }
                    Err(IDLE) => {
                        // Completed after all (cannot happen while this dispatcher holds
                        // the CPU, handled anyway): account it and start over.
                        self.complete(em, now, c, ctl);
                        return self.schedule_step(em, th, c, now, wake_ticks);
                    }
                    Err(crate::job::LOCK) => {
                        // A lock operation came in meanwhile (same: not while this
                        // dispatcher holds the CPU): answer it and start over.
                        self.lock_op(em, th, c, now);
                        return self.schedule_step(em, th, c, now, wake_ticks);
                    }
                    Err(_) => {}
                }
            }
            self.hook_begin(em, Op::PutPrev, Some(a));
            if let Some(slot) = self.scheduled.get_mut(c) {
                *slot = None;
            }
            self.disarm_budget(em, a);
            if let Some(live) = self.live_mut(a) {
                if let Some(s) = live.since_ns.take() {
                    live.acc_ns += now.saturating_sub(s);
                }
            }
            // A job linked to another CPU of the domain waited for this park (module doc).
            if let Some(d) = self.assigned.iter().position(|x| *x == Some(a)) {
                if let (true, Some(n)) = (d != c, self.need.get_mut(d)) {
                    *n = true;
                }
            }
            // Only a job whose code (re)started since it was made runnable has an interval
            // to close (see `JobCtl::on_signal`).
            if crate::job::ctl_of(th.ctls, a).is_some_and(|c| c.take_ran()) {
                let job = (a.task.0, a.seq, a.strand);
                em.buf
                    .record_strand(wake_ticks, Kind::SwitchOut, cpu, job, 0);
                em.buf.record_strand(wake_ticks, Kind::Preempt, cpu, job, 0);
            }
            self.hook_end(em, Op::PutPrev, Some(a));
        }
        self.hook_begin(em, Op::PickNext, new);
        let ready = new.and_then(|b| self.prepare_in(em, th, c, b, now).map(|ctl| (b, ctl)));
        self.hook_end(em, Op::PickNext, new);
        let Some((b, ctl)) = ready else {
            return false;
        };
        ctl.cpu.store(cpu, Ordering::Release);
        // Its switch-in is the thread's to record (`crate::job`, "Stretches").
        ctl.arm();
        let prev = ctl.state.swap(RUN, Ordering::AcqRel);
        if prev == crate::job::STOP {
            ctl.state.store(prev, Ordering::Release);
            return false;
        }
        futex::wake(&ctl.state, 1);
        if let Some(slot) = self.scheduled.get_mut(c) {
            *slot = Some(b);
        }
        true
    }

    /// Prepares job `b` to run on local CPU `c` (the scheduling step's switch-in, up to its
    /// wake-up): its thread handed the job and pinned to the CPU, its estimate and budget
    /// timer started; `None` if it cannot run there now (blocked, still scheduled on another
    /// CPU, or gone).
    fn prepare_in<'t>(
        &mut self,
        em: &Emit<'_>,
        th: &Threads<'t>,
        c: usize,
        b: JobId,
        now: u64,
    ) -> Option<&'t std::sync::Arc<JobCtl>> {
        let cpu = self.base + c as u32;
        // A blocked job runs only when granted (or aborted, for its handler).
        if self.blocked_job(b) {
            self.mech_error(format!(
                "the policy linked {b:?} while it is blocked on a resource (not enacted)"
            ));
            return None;
        }
        // Still scheduled on another CPU of the domain: that CPU parks it first and rings
        // this one (module doc).
        if self.scheduled.contains(&Some(b)) {
            return None;
        }
        let ctl = crate::job::ctl_of(th.ctls, b)?;
        let live = self.live_mut(b)?;
        if !live.dispatched {
            // A new job (or thread of one): its number, and under thread-per-job its thread
            // (`crate::job`), before that thread is pinned.
            ctl.hand_over(b.seq, b.strand);
            live.dispatched = true;
        }
        if ctl.pinned.load(Ordering::Relaxed) != cpu {
            let phys = th.phys.get(cpu as usize).copied().unwrap_or(0);
            match sched::set_affinity(ctl.tid.load(Ordering::Relaxed), &[phys]) {
                Ok(()) => ctl.pinned.store(cpu, Ordering::Relaxed),
                Err(e) => self.mech_error(e.to_string()),
            }
        }
        let live = self.live_mut(b)?;
        live.since_ns = Some(now);
        live.last_cpu = Some(c);
        if let Some(victim) = self.steal_on(b, cpu) {
            // A steal is enacted with its switch-in (`state/strands.rs`).
            let job = (b.task.0, b.seq, b.strand);
            em.buf
                .record_strand(em.clock.ticks(), Kind::Steal, cpu, job, u64::from(victim));
        }
        self.arm_budget(em, c, b, ctl.tid.load(Ordering::Relaxed), now);
        Some(ctl)
    }

    fn live_mut(&mut self, j: JobId) -> Option<&mut Live> {
        let t = self.tasks.get_mut(j.task.0 as usize)?;
        match &mut t.par {
            Some(p) => p.live_mut(j),
            None => t
                .current
                .as_mut()
                .filter(|l| l.rec.seq == j.seq && j.strand == 0),
        }
    }

    /// Makes room for `n` job records and writes every page of it once now, so recording a
    /// finished job during the run neither allocates nor faults a page in.
    pub fn preallocate_records(&mut self, n: usize) {
        self.records.reserve(n);
        self.records.resize(n, RawRecord::default());
        self.records.clear();
    }

    /// Counts a mechanism failure (the first message is kept for the run's warnings).
    pub(crate) fn note_mech_error(&mut self, msg: String) {
        self.mech_error(msg);
    }

    fn mech_error(&mut self, msg: String) {
        self.mech_errors.0 += 1;
        self.mech_errors.1.get_or_insert(msg);
    }

    /// At the end of the run: the unfinished jobs (current and waiting), with the CPU time
    /// their threads reported.
    pub fn unfinished(&mut self, ctls: &[std::sync::Arc<JobCtl>]) -> Vec<RawRecord> {
        let mut out = Vec::new();
        // A job still blocked: blocked until the horizon, as the simulator counts it.
        let horizon = self.locks.horizon_ns;
        for (i, t) in self.tasks.iter_mut().enumerate() {
            if let Some(mut live) = t.current.take() {
                if let Some((_, since)) = self.locks.blocked.get_mut(i).and_then(Option::take) {
                    live.rec.blocked_ns += horizon.saturating_sub(since);
                }
                match t.par.take() {
                    Some(p) => out.push(Sched::unfinished_par(&p, live, ctls)),
                    None => out.push(unfinished_record(live, ctls.get(i))),
                }
            }
            let spec = self.spec.get(i).copied();
            for (seq, release_ns) in t.backlog.drain(..) {
                out.push(RawRecord {
                    task: i as u32,
                    seq,
                    release_ns,
                    deadline_ns: release_ns.saturating_add(spec.map_or(0, |s| s.deadline)),
                    ..RawRecord::default()
                });
            }
        }
        out
    }
}
