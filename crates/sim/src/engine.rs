//! The discrete-event engine: drives a [`Policy`] in virtual time and enacts its link
//! decisions instantly (zero overheads) — the simulator's side of link-based scheduling
//! [MP §III-B]: the policy decides which job is *linked* to each CPU, the engine makes the
//! *scheduled* job equal to it at the same instant.
//!
//! # Events and their order
//! The engine jumps from event to event (no time stepping). Pending events are totally ordered
//! by `(time, class, order, arg)` and kept in the `queue` module (arrivals in a heap with one entry
//! per task, completions in a tournament tree with one per CPU, the rest in a general heap), so
//! each event costs `O(log n + log m)`. Classes at one instant, in this order (DESIGN.md "Event
//! order at one instant"):
//! 1. **completions**, by task index (threads of one parallel job: by CPU), with the
//!    joins and forks of parallel jobs (below, "Strands");
//! 2. **aborts** of late jobs (engine-internal, only with `abort_late`), by task index —
//!    after completions, so a job that completes exactly at its deadline meets it;
//! 3. **abort-handler ends** (engine-internal), by CPU — the aborted job's resources are
//!    released (which may grant them to waiters: `on_resume`), the CPU's held-back link is
//!    enacted with the instant's other links;
//! 4. **releases**, by task index — a job's arrival, and the hand-over of a job that waited
//!    for its predecessor (jobs of one task are sequential: job k+1 is given to the policy
//!    only when job k has completed or was aborted);
//! 5. **timers** the policy armed, in request order (a cancelled or re-armed timer never fires;
//!    within one callback's decisions the cancels are applied before the new timers, so
//!    arming an id again simply re-arms it; a timer requested in the past fires at once);
//! 6. **lock milestones** (engine-internal; see "Resources"), by task index: unlocks and
//!    lock requests at the instant a job reaches a section boundary in executed time;
//! 7. **budget exhaustions**, by task index — after everything else, so a job that completes
//!    at the instant its budget runs out completes, with no exhaustion.
//!
//! Timer and budget requests take effect at once. Link decisions are folded per CPU (a later link
//! overrides an earlier one) and enacted once, after the last event of the instant — the
//! "scheduling decision" step of DESIGN.md — so a job linked by a completion and displaced by a
//! release at the same instant never starts, and is not counted as preempted.
//!
//! # Applying decisions
//! At the end of an instant, for
//! every CPU whose link differs from what it runs: the old job is switched out (its executed
//! time accumulated; a *preemption* if it is unfinished), then the new job is switched in (a
//! *migration* if it last ran on another CPU; a *context switch* in any case) and its
//! completion is scheduled at `now + remaining`; switching a job out removes its pending
//! completion (and a completion is still checked, when it fires, to belong to the task's current
//! job with exactly its demand executed). A policy that links a job it
//! does not hold (finished, not yet handed over), links one job to two CPUs, or names a CPU
//! outside `0..cpus` stops the run with [`SimError::PolicyViolation`].
//!
//! # Budgets
//! A budget request ([`schedlab_policy::Decisions::budget`]) sets the *executed time* at which
//! the job's budget runs out: what it has executed at the request plus the amount. While the
//! job runs, its exhaustion is queued at `segment start + (limit − executed before the
//! segment)` (a dispatch delay or a release handler's interference moves it, as they move the
//! completion); switching the job out supersedes the queued exhaustion (stale ones are
//! recognised by a serial), switching it in on any CPU queues it again. When it fires, the
//! budget is removed, `budget-exhausted` is recorded and the policy's `on_budget_exhausted`
//! runs while the job is still on its CPU. Setting a budget records `budget-replenished`;
//! clearing it, completion and abort remove it. A request for a job the engine does not hold
//! is ignored.
//! A policy's server events ([`schedlab_policy::Decisions::server`], reservation servers of
//! `hcbs`) are recorded as `budget-replenished`, `budget-exhausted` or `budget-throttled` with
//! `task` = `u32::MAX` and `seq` = the group; during `on_complete`/`on_abort` the
//! [`Progress`] view still reports the finished job's executed time.
//!
//! # Aborts
//! A policy's [`schedlab_policy::Decisions::abort`]s are applied after the links of the same
//! callback, in order: the job leaves its CPU (its execution so far counted), is recorded as
//! aborted (`abort` in the trace, with `deadline-miss` if its deadline has passed; it accrues
//! no utility) and its successor, if waiting, is handed over at the same instant. Aborting a
//! job of a task with `abortable = false` stops the run with [`SimError::PolicyViolation`];
//! aborting a job the engine does not hold is ignored. A job that had executed runs its
//! abort handler (`SimTask::abort_cost`) on the CPU it last executed on, ahead of whatever
//! that CPU runs (`engine/aborts.rs`): the CPU is busy until the handler ends (`abort-handler-begin`
//! … `abort-handler-end`; handlers on one CPU queue up), and the job the policy links there
//! starts when it ends — like a dispatch delay, but the switch-in itself waits, so the
//! trace's execution intervals stay exact. Engine aborts under `abort_late` run the handler
//! of a started job the same way. The handler's end releases the job's resources.
//!
//! # Resources
//! A task's critical sections ([`SimTask::critical_sections`]) lock their resource when the
//! job has *executed* `start` and unlock it at `start + length` (`engine/resources.rs`):
//! execution milestones, queued while the job runs like budget exhaustions (class 6 above; a
//! job that completes at the instant a section ends completes first and releases the
//! resource at completion). A request for a held resource blocks the job: it leaves its CPU
//! (`block`, not a preemption), the policy's `on_block` runs and must unlink it — a policy
//! that keeps a blocked job linked, or links it before its `on_resume`, stops the run with
//! [`SimError::PolicyViolation`]. On release, [`schedlab_policy::Policy::grant`] picks among
//! the waiters (in blocking order), the chosen one becomes the owner and `on_resume` runs.
//! Every callback's [`Ctx::resources`] shows owners and waits. Resources still held are
//! released at completion (with demands below the WCET a job can complete inside a
//! section) before `on_complete`, and for an aborted job at the end of its abort handler
//! (without one, right after the callback that aborted it; before `on_abort` for an engine
//! abort). Sections on one resource may nest or overlap (a recursive mutex).
//!
//! With [`SimConfig::overheads`], the hooks at the end of this file charge them
//! ([`crate::overheads`]): a release reaches the policy later (an engine-internal `VISIBLE`
//! release event; its handler's interference is an `IRQ` release event), a switch-in starts a
//! dispatch (the job's execution segment starts `δ` later, its demand may grow by CPMD), and
//! the trace brackets each dispatch with SchedBegin/SchedEnd.
//!
//! # Strands (parallel fork-join tasks [RTWS §III])
//! A task with a [`SimTask::parallel`] structure runs each job as its regions in order, each
//! region's threads as *strands* (`JobId::strand`: region `r`'s thread `k` is strand
//! `Σ_{r' < r} width(r') + k`). Per strand the engine keeps the execution state a sequential
//! job has (demand — drawn per thread from the task's execution-time stream, in strand order —,
//! executed time, CPU, segment); per job the record, the CPU it last executed on and its
//! counters. A policy may run several strands of one job on different CPUs at once.
//! - **Release**: region 0's threads are handed to the policy one by one (`on_release`, in
//!   strand order), with the job's release and deadline and the thread's time as `wcet`.
//! - **Thread completion** (class 1): the thread leaves its CPU (`switch-out`, no
//!   `preempt`). Before the last thread of its region: `on_complete(strand)`. At the last one
//!   (the **join**): `join` (`arg` = the region) is recorded; if a region follows, it starts
//!   at this instant on this CPU — its threads' demands are drawn, `fork` (`arg` = its width)
//!   is recorded, the policy hears `on_fork(cpu, new strands)` (release = now, the job's
//!   deadline) and only then `on_complete` of the joining strand, which is still linked
//!   during `on_fork`. After the last region's join the job completes (`complete`, one
//!   [`JobRecord`] per job: start = first thread start, executed = Σ, preemptions, migrations
//!   and steals summed over its threads); then `on_complete(strand)`. At the horizon nothing
//!   forks: a job whose region joined exactly there is unfinished.
//! - **Migration** (one definition for every policy, `schedlab_trace::counts`): a thread that
//!   starts or resumes on another CPU than the one where its job last executed *for it*: a
//!   resumed thread, where it last ran; a thread's first start, the CPU where its job forked
//!   it (the region's join CPU); a stolen thread, the victim's CPU (so a steal is always a
//!   migration, and a thread run where its job forked it never is). A job's first region has
//!   no forking CPU: its threads' first starts are no migrations, like a sequential job's
//!   first start. For a sequential job this is the previous switch-in's CPU, as before.
//! - **Steals**: a policy's [`schedlab_policy::Decisions::steal`] names a strand it linked in
//!   the same callback (the thief is that link's CPU); the steal is recorded — a `steal`
//!   event (`arg` = the victim CPU) right before the thread's `switch-in`, and one more in its
//!   job's `steals` — when the link is enacted; a steal whose link was overridden in the same
//!   instant never happened. A steal without a link, or from a CPU that does not exist or is
//!   the thief, stops the run with [`SimError::PolicyViolation`].
//! - **Aborts**: `--abort-late` aborts the whole job at its deadline (every running thread
//!   leaves; the policy hears `on_abort` for each thread it holds, in strand order). A
//!   policy's abort of one thread aborts the whole job; the policy forgets all its threads in
//!   the same callback (linking another of them later is a policy violation).
//! - A policy that does not take parallel tasks
//!   ([`schedlab_policy::Policy::parallel_support`]) is refused before the run
//!   ([`SimError::ParallelTask`], naming the policies that take them), as are overheads with a
//!   parallel task ([`SimError::ParallelOverheads`]: their charging models sequential
//!   dispatches). Budgets apply to sequential jobs only (a request for a parallel job is
//!   ignored); parallel tasks have no critical sections (a task error).
//!
//! Sequential tasks run exactly as before: one strand, no `fork`/`join`/`steal` events.
//!
//! # Horizon
//! Arrivals at `t < duration` are simulated; at `t = duration` only completions and aborts
//! are recorded (so a job completing exactly at the horizon is complete), without calling the
//! policy (nothing can execute any more), then the run stops.
//! Events beyond the horizon are never queued. Overloaded systems (U > m) terminate: jobs just
//! queue up behind their predecessors until the horizon.

use crate::config::{validate_task, ExecTime, SimConfig, SimTask, TaskRng};
use crate::error::SimError;
use crate::metrics::{summarize, JobRecord, TaskAcc, TaskMetrics, Totals};
use crate::overheads::{OverheadReport, PendingSwitchIn, Source, State as OverheadState};
use crate::queue::{
    Ev, EventQueue, Source as QueueSource, ABORT, ARRIVAL, BUDGET, COMPLETION, HANDLER, HANDOVER,
    IRQ, LOCK, RELEASE, TIMER, VISIBLE,
};
use schedlab_model::{Duration, Time, Tuf};
use schedlab_policy::{CpuId, Ctx, Decisions, JobId, JobInfo, Policy, Progress, TaskId, TimerId};
use schedlab_trace::{Event, Kind, NO_CPU};
use std::collections::{HashMap, VecDeque};

mod aborts;
mod resources;
use aborts::CpuHold;
use resources::{LockState, Mutexes};

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    /// Per-job records, ordered by (task, seq) (empty if `record_jobs` is off).
    pub jobs: Vec<JobRecord>,
    /// Per-task metrics, by task index.
    pub per_task: Vec<TaskMetrics>,
    /// Whole-run metrics.
    pub totals: Totals,
    /// Trace events in time order (empty unless `record_trace`).
    pub trace: Vec<Event>,
    /// Events delivered to the policy (releases, completions, aborts, timers).
    pub events_processed: u64,
    /// The horizon (`duration`).
    pub horizon: Time,
    /// What overheads were charged (`None` without [`SimConfig::overheads`]).
    pub overheads: Option<OverheadReport>,
}

/// Simulates `tasks` under `policy` for `config.duration` of virtual time.
///
/// The policy must be fresh (built for these tasks and `config.cpus` CPUs, not yet driven).
/// Deterministic: the same tasks, policy and configuration give the same result bit for bit.
pub fn simulate(
    tasks: &[SimTask],
    policy: &mut dyn Policy,
    config: &SimConfig,
) -> Result<SimResult, SimError> {
    simulate_with_sink(tasks, policy, config, None)
}

/// [`simulate`], also handing every trace event, in time order, to `sink` as it happens
/// (whether or not [`SimConfig::record_trace`] keeps them): a consumer that streams the
/// schedule (the scaling model, [`crate::scale`]) needs no stored trace.
pub fn simulate_with_sink(
    tasks: &[SimTask],
    policy: &mut dyn Policy,
    config: &SimConfig,
    sink: Option<&mut dyn FnMut(&Event)>,
) -> Result<SimResult, SimError> {
    config.validate()?;
    if tasks.is_empty() {
        return Err(SimError::NoTasks);
    }
    if u32::try_from(tasks.len()).is_err() {
        return Err(SimError::TooManyTasks(tasks.len()));
    }
    for (i, t) in tasks.iter().enumerate() {
        validate_task(i, t)?;
    }
    if let Some(task) = tasks.iter().position(|t| t.parallel.is_some()) {
        if !policy.parallel_support().accepts() {
            return Err(SimError::ParallelTask {
                task,
                policy: policy.name().to_string(),
                accepted: schedlab_policy::parallel_policies(),
            });
        }
        if config.overheads.is_some() {
            return Err(SimError::ParallelOverheads { task });
        }
    }
    if policy.cpus() != config.cpus {
        return Err(SimError::CpuMismatch {
            policy: policy.name().to_string(),
            policy_cpus: policy.cpus(),
            cpus: config.cpus,
        });
    }
    let mut engine = Engine::new(tasks, policy, config);
    if let Some(sink) = sink {
        // Shortens the trait object's lifetime to the engine's (an unsizing coercion).
        engine.sink = Some(sink as &mut dyn FnMut(&Event));
    }
    engine.run()?;
    Ok(engine.finish())
}

/// The job a task has handed to the policy (at most one per task).
struct Live {
    rec: JobRecord,
    /// The CPU it last executed on (any strand; switch-in and, for a parallel job, switch-out).
    last_cpu: Option<u32>,
    /// Its budget, if the policy gave it one.
    budget: Option<Budget>,
    /// Its critical sections' progress, what it holds and what it waits for.
    locks: LockState,
    /// The execution state of the current region's first thread (of the job, if sequential).
    e: Exec,
    /// The current region's other threads (empty for a sequential job).
    more: Vec<Exec>,
    /// Strand number of `e` (module doc, "Strands").
    offset: u32,
    /// The current region (0-based).
    region: u32,
    /// Threads of the current region not yet finished.
    left: u32,
    /// Whether its task is parallel.
    parallel: bool,
}

/// The execution state of one strand (thread) of the current job.
#[derive(Clone, Copy, Debug)]
struct Exec {
    demand: Duration,
    /// Executed before the current segment.
    executed: Duration,
    running_on: Option<u32>,
    /// Start of the current execution segment (valid while `running_on` is set).
    seg_start: Time,
    /// Linked with a dispatch delay that has not yet been realised (see [`Live::leave`]).
    dispatch_pending: bool,
    /// When that dispatch ends (its `switch-in` in the trace); interference during the
    /// dispatch moves it later.
    dispatch_end: Time,
    /// The thread has finished (its region has not joined yet).
    done: bool,
    /// Where a migration of this strand is measured from (`schedlab_trace::counts`): the CPU
    /// of its last realised dispatch (`switch-in`); before its first, the CPU that forked
    /// it (none for a job's first region: a job's first start is no migration).
    home: Option<u32>,
}

impl Exec {
    fn new(demand: Duration, now: Time, home: Option<u32>) -> Exec {
        Exec {
            home,
            demand,
            executed: Duration::ZERO,
            running_on: None,
            seg_start: now,
            dispatch_pending: false,
            dispatch_end: now,
            done: false,
        }
    }

    fn executed_at(&self, now: Time) -> Duration {
        match self.running_on {
            Some(_) => self.executed + now.saturating_since(self.seg_start),
            None => self.executed,
        }
    }
}

/// A job's budget (module doc, "Budgets").
#[derive(Clone, Copy, Debug)]
struct Budget {
    /// The executed time at which it runs out.
    limit: Duration,
    /// The amount requested (the `arg` of `budget-exhausted`).
    amount: Duration,
    /// The serial of its queued exhaustion event (0: none queued, the job is not running).
    serial: u64,
}

impl Live {
    /// Strand `strand`'s state, if it is a thread of the current region.
    fn exec(&self, strand: u32) -> Option<&Exec> {
        match strand.checked_sub(self.offset)? {
            0 => Some(&self.e),
            k => self.more.get(k as usize - 1),
        }
    }

    fn exec_mut(&mut self, strand: u32) -> Option<&mut Exec> {
        match strand.checked_sub(self.offset)? {
            0 => Some(&mut self.e),
            k => self.more.get_mut(k as usize - 1),
        }
    }

    /// Whether `strand` is an unfinished thread of the current region (the policy holds it).
    fn holds(&self, strand: u32) -> bool {
        self.exec(strand).is_some_and(|x| !x.done)
    }

    /// The unfinished threads of the current region, in strand order.
    fn live_strands(&self) -> impl Iterator<Item = u32> + '_ {
        let width = u32::try_from(self.more.len()).map_or(u32::MAX, |w| w.saturating_add(1));
        (0..width)
            .map(move |k| self.offset.saturating_add(k))
            .filter(move |&s| self.holds(s))
    }

    /// The strands running now: (strand, CPU).
    fn running(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (k, x) in std::iter::once(&self.e).chain(&self.more).enumerate() {
            if let Some(c) = x.running_on {
                let k = u32::try_from(k).unwrap_or(u32::MAX);
                out.push((self.offset.saturating_add(k), c));
            }
        }
        out
    }

    /// Counts a dispatch of `strand` — a `switch-in` in the trace — with the one definition
    /// of `schedlab_trace::counts`: a context switch; a migration if the strand was stolen
    /// from CPU `stolen` (always one), else if its home (where it last ran; before its first
    /// run, the CPU that forked it) is another CPU; the CPU among those it used. The CPU it
    /// migrated from, if it did.
    fn switched_in(
        &mut self,
        strand: u32,
        cpu: u32,
        context_switches: &mut u64,
        stolen: Option<u32>,
    ) -> Option<u32> {
        *context_switches += 1;
        if !self.rec.cpus_used.contains(&cpu) {
            self.rec.cpus_used.push(cpu);
        }
        let x = self.exec_mut(strand)?;
        let from = stolen.or(x.home.filter(|&h| h != cpu));
        x.home = Some(cpu);
        if from.is_some() {
            self.rec.migrations += 1;
        }
        from
    }

    /// `strand` leaves its CPU at `now`: a dispatch with a delay (overheads) happened only if
    /// it had ended (`dispatch_end < now`); one cut short at or before its end is cancelled,
    /// and the trace shows no `switch-in` for it either.
    fn leave(&mut self, strand: u32, now: Time, context_switches: &mut u64) {
        let Some(x) = self.exec_mut(strand) else {
            return;
        };
        let (pending, end, on) = (
            std::mem::take(&mut x.dispatch_pending),
            x.dispatch_end,
            x.running_on,
        );
        if pending && end < now {
            if let Some(cpu) = on {
                self.switched_in(strand, cpu, context_switches, None);
            }
        }
    }

    /// Ends `strand`'s execution segment at `now` (its executed time and the job's grow);
    /// the CPU it ran on, if it was running. A parallel job last executed there.
    fn end_segment(&mut self, strand: u32, now: Time) -> Option<u32> {
        let x = self.exec_mut(strand)?;
        let cpu = x.running_on.take()?;
        let d = now.saturating_since(x.seg_start);
        x.executed += d;
        let strand_executed = x.executed;
        self.rec.executed += d;
        if strand_executed.is_zero() && !self.parallel {
            self.rec.start = None; // taken off during its dispatch (overheads)
        }
        if self.parallel {
            self.last_cpu = Some(cpu);
        }
        Some(cpu)
    }

    /// Executed time of `strand` at `now`.
    fn executed_at(&self, strand: u32, now: Time) -> Duration {
        self.exec(strand)
            .map_or(Duration::ZERO, |x| x.executed_at(now))
    }
}

/// A released job still waiting for its predecessor.
#[derive(Clone, Copy)]
struct Waiting {
    seq: u64,
    release: Time,
    deadline: Time,
}

struct TaskRt {
    next_seq: u64,
    /// The last job it finished (completed or aborted) — its sequence number and executed
    /// time — which [`View`] still reports during the policy's `on_complete`/`on_abort`
    /// (sequential jobs only).
    finished: Option<(u64, Duration)>,
    backlog: VecDeque<Waiting>,
    /// The current job, valid while `active` (kept in place between jobs so that handing
    /// over and retiring a job moves no record and reuses its `cpus_used` buffer).
    live: Live,
    active: bool,
    /// Released jobs not yet visible to the policy (overheads: release delay).
    in_flight: VecDeque<Waiting>,
    rng: TaskRng,
    acc: TaskAcc,
}

impl TaskRt {
    fn current(&self) -> Option<&Live> {
        self.active.then_some(&self.live)
    }
    fn current_mut(&mut self) -> Option<&mut Live> {
        self.active.then_some(&mut self.live)
    }
}

/// The [`Progress`] view a callback sees: exact executed time at `now`.
struct View<'a> {
    tasks: &'a [TaskRt],
    now: Time,
    res: &'a Mutexes,
}

impl Progress for View<'_> {
    fn executed(&self, job: JobId) -> Duration {
        match self
            .tasks
            .get(job.task.0 as usize)
            .and_then(TaskRt::current)
        {
            Some(live) if live.rec.seq == job.seq => live.executed_at(job.strand, self.now),
            Some(_) => Duration::ZERO,
            None => match self.tasks.get(job.task.0 as usize).and_then(|t| t.finished) {
                Some((seq, executed)) if seq == job.seq && job.strand == 0 => executed,
                _ => Duration::ZERO,
            },
        }
    }
}

struct Engine<'a> {
    tasks: &'a [SimTask],
    policy: &'a mut dyn Policy,
    cfg: &'a SimConfig,
    horizon: Time,
    rt: Vec<TaskRt>,
    /// The (task, strand) whose current job's thread runs on each CPU.
    running: Vec<Option<(u32, u32)>>,
    /// Steals decided in the current instant: (strand, thief, victim), recorded when the
    /// thief's link is enacted (module doc, "Strands").
    steals: Vec<(JobId, u32, u32)>,
    queue: EventQueue,
    /// Armed timers: id → serial of the arming that is still valid.
    timers: HashMap<u64, u64>,
    timer_serial: u64,
    /// Serial of the last queued budget exhaustion.
    budget_serial: u64,
    /// A budget exhaustion was queued since the run loop last enacted links (then it peeks
    /// every queue again, not only the completions).
    queued_budget: bool,
    out: Decisions,
    desired: Vec<Option<JobId>>,
    touched: Vec<u32>,
    touched_flag: Vec<bool>,
    trace: Vec<Event>,
    jobs: Vec<JobRecord>,
    context_switches: u64,
    events_processed: u64,
    /// Overhead charging (`None`: zero overheads).
    oh: Option<OverheadState<'a>>,
    /// Each task's time/utility function (`SimTask::effective_tuf`).
    tufs: Vec<Option<Tuf>>,
    /// Abort handlers queued on each CPU, and the link they hold back (module doc, "Aborts").
    holds: Vec<CpuHold>,
    /// The mutexes (module doc, "Resources").
    res: Mutexes,
    /// Where every emitted event also goes ([`simulate_with_sink`]).
    sink: Option<&'a mut dyn FnMut(&Event)>,
}

impl<'a> Engine<'a> {
    fn new(tasks: &'a [SimTask], policy: &'a mut dyn Policy, cfg: &'a SimConfig) -> Engine<'a> {
        let m = cfg.cpus as usize;
        let horizon = Time::from_ns(cfg.duration.as_ns());
        let mut queue = EventQueue::new(tasks.len(), m);
        let rt = tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let first = Time::ZERO + t.offset;
                if first < horizon {
                    queue.push_arrival(first.as_ns(), i as u32);
                }
                TaskRt {
                    next_seq: 0,
                    finished: None,
                    backlog: VecDeque::new(),
                    live: Live {
                        rec: JobRecord::fresh(i as u32, 0, Time::ZERO, Time::ZERO, Vec::new()),
                        last_cpu: None,
                        budget: None,
                        locks: LockState::default(),
                        e: Exec::new(Duration::ZERO, Time::ZERO, None),
                        more: Vec::new(),
                        offset: 0,
                        region: 0,
                        left: 0,
                        parallel: t.parallel.is_some(),
                    },
                    active: false,
                    in_flight: VecDeque::new(),
                    rng: TaskRng::new(cfg.seed, i as u32),
                    acc: TaskAcc::default(),
                }
            })
            .collect();
        Engine {
            tasks,
            policy,
            cfg,
            horizon,
            rt,
            running: vec![None; m],
            steals: Vec::new(),
            queue,
            timers: HashMap::new(),
            timer_serial: 0,
            budget_serial: 0,
            queued_budget: false,
            out: Decisions::new(),
            desired: vec![None; m],
            touched: Vec::with_capacity(m),
            touched_flag: vec![false; m],
            trace: Vec::new(),
            jobs: Vec::new(),
            context_switches: 0,
            events_processed: 0,
            oh: cfg
                .overheads
                .as_ref()
                .map(|o| OverheadState::new(o, tasks, cfg.cpus)),
            tufs: tasks.iter().map(SimTask::effective_tuf).collect(),
            holds: (0..m).map(|_| CpuHold::default()).collect(),
            res: Mutexes::new(tasks),
            sink: None,
        }
    }

    /// Queues an abort, hand-over or timer event.
    fn push(&mut self, time: Time, class: u8, order: u64, arg: u64) {
        self.queue.push_other(Ev {
            time: time.as_ns(),
            class,
            order,
            arg,
        });
    }

    #[inline]
    fn emit(&mut self, time: Time, kind: Kind, cpu: u32, task: u32, seq: u64, arg: u64) {
        self.emit_strand(time, kind, cpu, (task, seq, 0), arg);
    }

    /// [`Engine::emit`] for strand `job.2` of job (`job.0`, `job.1`).
    #[inline]
    fn emit_strand(&mut self, time: Time, kind: Kind, cpu: u32, job: (u32, u64, u32), arg: u64) {
        if let Some(sink) = self.sink.as_mut() {
            let (task, seq, strand) = job;
            sink(
                &Event::new(time.as_ns(), kind, cpu, task, seq)
                    .with_arg(arg)
                    .with_strand(strand),
            );
        }
        if self.cfg.record_trace {
            if self.oh.as_ref().is_some_and(|o| o.pending_n > 0) {
                self.flush_dispatches(time.as_ns());
            }
            let (task, seq, strand) = job;
            self.trace.push(
                Event::new(time.as_ns(), kind, cpu, task, seq)
                    .with_arg(arg)
                    .with_strand(strand),
            );
        }
    }

    fn violation(&self, now: Time, message: String) -> SimError {
        SimError::PolicyViolation {
            policy: self.policy.name().to_string(),
            time: now,
            message,
        }
    }

    fn run(&mut self) -> Result<(), SimError> {
        let h = self.horizon.as_ns();
        // The instant whose events are being processed; its links are enacted once, after
        // its last event (DESIGN.md: completions, releases, timers, *then* the decision).
        let mut instant: Option<u64> = None;
        loop {
            let mut next = self.queue.peek();
            if let Some(t) = instant {
                if next.is_none_or(|(ev, _)| ev.time > t) {
                    self.enact(Time::from_ns(t))?;
                    // Enacting sets and clears completions, and queues the budget exhaustions
                    // of the jobs it switches in.
                    next = if std::mem::take(&mut self.queued_budget) {
                        self.queue.peek()
                    } else {
                        self.queue.repeek_completions(next)
                    };
                }
            }
            let Some((ev, source)) = next else { break };
            if ev.time > h || (ev.time == h && ev.class > ABORT) {
                break;
            }
            // An arrival stays queued until `release` knows the task's next arrival time and
            // replaces it (one sift-down instead of a pop and a push).
            if source != QueueSource::Arrival {
                self.queue.pop(source);
            }
            instant = Some(ev.time);
            let now = Time::from_ns(ev.time);
            let task = ev.order as usize;
            match ev.class {
                COMPLETION => {
                    if let QueueSource::Completion(cpu) = source {
                        self.complete(now, task, ev.arg, cpu)?;
                    }
                }
                ABORT => self.abort(now, task, ev.arg)?,
                HANDLER => self.handler_end(now, ev.order as u32)?,
                RELEASE => self.release(now, task, ev.arg)?,
                TIMER => self.timer(now, ev.order, ev.arg)?,
                LOCK => self.lock_milestone(now, task, ev.arg)?,
                _ => self.budget_exhausted(now, task, ev.arg)?,
            }
        }
        Ok(())
    }

    /// Runs one policy callback and records its decisions (timers at once; links are folded
    /// per CPU and enacted at the end of the instant).
    fn call(
        &mut self,
        now: Time,
        f: impl FnOnce(&mut dyn Policy, &Ctx<'_>, &mut Decisions),
    ) -> Result<(), SimError> {
        self.events_processed += 1;
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
        f(&mut *self.policy, &ctx, &mut self.out);
        self.apply(now)?;
        // Resources of jobs the policy aborted without a handler (module doc, "Resources").
        self.flush_releases(now)
    }

    /// The thread running on `cpu`, of job `seq` of `task`, completes at `now` (a stale
    /// event — the thread was switched out since, or its job finished — is ignored). Before
    /// its region's join the policy hears `on_complete` only; at the join of a region with a
    /// successor the next region forks on `cpu` (module doc, "Strands"); at the last join the
    /// job completes.
    fn complete(&mut self, now: Time, task: usize, seq: u64, cpu: u32) -> Result<(), SimError> {
        let strand = match self.running.get(cpu as usize).copied().flatten() {
            Some((t, s)) if t as usize == task => s,
            _ => return Ok(()),
        };
        let due = |x: &Exec| x.executed_at(now) == x.demand;
        match self.rt.get(task).and_then(TaskRt::current) {
            Some(live) if live.rec.seq == seq && live.exec(strand).is_some_and(due) => {}
            _ => return Ok(()), // stale: preempted since, or already finished
        }
        self.stop_strand(now, task, strand);
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Ok(());
        };
        if let Some(x) = live.exec_mut(strand) {
            x.done = true;
        }
        live.left = live.left.saturating_sub(1);
        let (left, parallel, region) = (live.left, live.parallel, live.region);
        let t = task as u32;
        let id = JobId {
            task: TaskId(t),
            seq,
            strand,
        };
        if left > 0 {
            // A thread finished before its region's join.
            if now < self.horizon {
                self.call(now, |p, ctx, out| p.on_complete(ctx, id, out))?;
            }
            return Ok(());
        }
        if parallel {
            self.emit_strand(now, Kind::Join, cpu, (t, seq, strand), u64::from(region));
            if self.fork(now, task, cpu, id)? {
                return Ok(());
            }
        }
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Ok(());
        };
        if let Some(oh) = &mut self.oh {
            oh.finished(task, live.last_cpu, live.last_cpu);
        }
        live.rec.completion = Some(now);
        live.rec.tardiness = now.saturating_since(live.rec.deadline);
        if let (Some(tuf), Some(spec)) = (
            self.tufs.get(task).and_then(Option::as_ref),
            self.tasks.get(task),
        ) {
            live.rec.utility = tuf.value_at(now.saturating_since(live.rec.release), spec.deadline);
        }
        let cpu = live.last_cpu.unwrap_or(NO_CPU);
        let d = live.rec.deadline;
        self.emit_strand(now, Kind::Complete, cpu, (t, seq, strand), 0);
        if now > d {
            self.emit(now, Kind::DeadlineMiss, cpu, t, seq, d.as_ns());
        }
        let held = self.take_resources(now, task);
        self.retire(task);
        if !held.is_empty() {
            self.release_held(now, id, cpu, held)?;
        }
        if now < self.horizon {
            self.call(now, |p, ctx, out| p.on_complete(ctx, id, out))?;
            self.after_finish(now, task);
        }
        Ok(())
    }

    /// The join of a parallel job's region on `cpu` at `now`, `joining` its thread that
    /// completed last: if another region follows, it starts — its threads' demands are drawn,
    /// `fork` is recorded, the policy hears `on_fork` and then `on_complete(joining)` — and
    /// true is returned. At the horizon nothing forks (nothing could execute): the job stays
    /// unfinished, and true is returned too. False: that was the last region.
    fn fork(&mut self, now: Time, task: usize, cpu: u32, joining: JobId) -> Result<bool, SimError> {
        let tasks = self.tasks;
        let exec_model = self.cfg.exec;
        let Some(regions) = tasks
            .get(task)
            .and_then(|t| t.parallel.as_ref())
            .map(|p| p.regions())
        else {
            return Ok(false);
        };
        let Some(live) = self.rt.get(task).and_then(TaskRt::current) else {
            return Ok(false);
        };
        let next = live.region as usize + 1;
        let (Some(prev), Some(region)) = (regions.get(next - 1), regions.get(next)) else {
            return Ok(false);
        };
        if now >= self.horizon {
            return Ok(true);
        }
        let Some(rt) = self.rt.get_mut(task) else {
            return Ok(false);
        };
        let width = u32::try_from(region.width()).unwrap_or(u32::MAX);
        let offset = rt
            .live
            .offset
            .saturating_add(u32::try_from(prev.width()).unwrap_or(u32::MAX));
        start_region(rt, &region.threads, (offset, Some(cpu)), now, exec_model);
        rt.live.region = next as u32;
        let (seq, deadline) = (rt.live.rec.seq, rt.live.rec.deadline);
        let infos: Vec<JobInfo> = region
            .threads
            .iter()
            .zip(offset..)
            .map(|(&wcet, strand)| JobInfo {
                id: JobId {
                    task: TaskId(task as u32),
                    seq,
                    strand,
                },
                release: now,
                deadline,
                wcet,
            })
            .collect();
        let job = (task as u32, seq, offset);
        self.emit_strand(now, Kind::Fork, cpu, job, u64::from(width));
        self.call(now, |p, ctx, out| p.on_fork(ctx, CpuId(cpu), &infos, out))?;
        self.call(now, |p, ctx, out| p.on_complete(ctx, joining, out))?;
        Ok(true)
    }

    /// The engine aborts a late job at its deadline (`abort_late`).
    /// A parallel job is aborted as a whole: every thread the policy holds (the current
    /// region's unfinished ones) leaves, and the policy hears `on_abort` for each, in strand
    /// order.
    fn abort(&mut self, now: Time, task: usize, seq: u64) -> Result<(), SimError> {
        let strands: Vec<u32> = match self.rt.get(task).and_then(TaskRt::current) {
            Some(live) if live.rec.seq == seq => live.live_strands().collect(),
            _ => return Ok(()), // completed in time
        };
        self.drop_job(now, task)?;
        self.flush_releases(now)?;
        if now < self.horizon {
            for strand in strands {
                let id = JobId {
                    task: TaskId(task as u32),
                    seq,
                    strand,
                };
                self.call(now, |p, ctx, out| p.on_abort(ctx, id, out))?;
            }
            self.after_finish(now, task);
        }
        Ok(())
    }

    /// After a job of `task` finished: its successor, if waiting, is handed over among the
    /// releases of this instant.
    fn after_finish(&mut self, now: Time, task: usize) {
        if self.rt.get(task).is_some_and(|rt| !rt.backlog.is_empty()) {
            self.push(now, RELEASE, task as u64, HANDOVER);
        }
    }

    /// Takes every running thread of the current job of `task` off its CPU
    /// (engine-initiated: abort, block, the horizon).
    fn stop_running(&mut self, now: Time, task: usize) {
        let running = self
            .rt
            .get(task)
            .and_then(TaskRt::current)
            .map(Live::running)
            .unwrap_or_default();
        for (strand, _) in running {
            self.stop_strand(now, task, strand);
        }
    }

    /// Takes thread `strand` of the current job of `task` off its CPU (engine-initiated:
    /// completion, abort, block).
    fn stop_strand(&mut self, now: Time, task: usize, strand: u32) {
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return;
        };
        live.leave(strand, now, &mut self.context_switches);
        if let Some(c) = live.end_segment(strand, now) {
            let seq = live.rec.seq;
            if let Some(slot) = self.running.get_mut(c as usize) {
                *slot = None;
            }
            self.queue.clear_completion(c);
            self.emit_switch_out(now, c, (task as u32, seq, strand));
        }
    }

    /// Accounts the current job of `task`, finished (or, at the horizon, unfinished), and
    /// ends it.
    fn retire(&mut self, task: usize) {
        let Some(rt) = self.rt.get_mut(task) else {
            return;
        };
        rt.active = false;
        rt.finished = (!rt.live.parallel).then_some((rt.live.rec.seq, rt.live.rec.executed));
        rt.acc.add(&rt.live.rec, self.horizon);
        if self.cfg.record_jobs {
            self.jobs.push(rt.live.rec.take());
        } else {
            rt.live.rec.cpus_used.clear();
        }
    }

    fn release(&mut self, now: Time, task: usize, kind: u64) -> Result<(), SimError> {
        let Some(spec) = self.tasks.get(task) else {
            return Ok(());
        };
        let (arrivals, horizon) = (self.cfg.arrivals, self.horizon);
        if kind == IRQ {
            return self.interfere(now, task);
        }
        if kind == VISIBLE {
            self.make_visible(now, task);
        }
        let release_delay = self
            .oh
            .as_ref()
            .map_or(Duration::ZERO, |o| o.model.release_delay());
        let Some(rt) = self.rt.get_mut(task) else {
            return Ok(());
        };
        let mut direct_job = None;
        if kind == ARRIVAL {
            let seq = rt.next_seq;
            rt.next_seq += 1;
            let deadline = now
                .checked_add(spec.deadline)
                .ok_or(SimError::Overflow("an absolute deadline"))?;
            let job = Waiting {
                seq,
                release: now,
                deadline,
            };
            // A job whose task is idle goes straight to the policy (no queueing).
            let direct =
                (release_delay.is_zero() && !rt.active && rt.backlog.is_empty()).then_some(job);
            if !release_delay.is_zero() {
                rt.in_flight.push_back(job);
            } else if direct.is_none() {
                rt.backlog.push_back(job);
            }
            let delay = rt.rng.delay(arrivals);
            // Past 2^64 ns is past any horizon: no further arrival.
            let next = now
                .checked_add(spec.period)
                .and_then(|t| t.checked_add(delay));
            self.queue
                .advance_arrival(next.filter(|&t| t < horizon).map(Time::as_ns));
            if !release_delay.is_zero() {
                return self.delay_release(now, task, release_delay);
            }
            self.emit(now, Kind::Release, NO_CPU, task as u32, seq, now.as_ns());
            direct_job = direct;
        }
        if let Some(oh) = &mut self.oh {
            oh.source = if kind == HANDOVER {
                oh.handover_source(task)
            } else {
                oh.release_source(task)
            };
        }
        match direct_job {
            Some(job) => self.start(now, task, spec, job),
            None => self.hand_over(now, task, spec),
        }
    }

    /// Gives the oldest waiting job of `task` to the policy if the task has no current job.
    fn hand_over(&mut self, now: Time, task: usize, spec: &SimTask) -> Result<(), SimError> {
        let Some(rt) = self.rt.get_mut(task) else {
            return Ok(());
        };
        if rt.active {
            return Ok(());
        }
        match rt.backlog.pop_front() {
            Some(w) => self.start(now, task, spec, w),
            None => Ok(()),
        }
    }

    /// Makes `w` the current job of `task` (which has none) and hands it to the policy.
    fn start(
        &mut self,
        now: Time,
        task: usize,
        spec: &SimTask,
        w: Waiting,
    ) -> Result<(), SimError> {
        let (exec, abort_late) = (self.cfg.exec, self.cfg.abort_late);
        let Some(rt) = self.rt.get_mut(task) else {
            return Ok(());
        };
        let cpus_used = std::mem::take(&mut rt.live.rec.cpus_used);
        let mut rec = JobRecord::fresh(task as u32, w.seq, w.release, w.deadline, cpus_used);
        rec.termination = termination(self.tufs.get(task), spec, &w);
        let live = &mut rt.live;
        live.rec = rec;
        live.last_cpu = None;
        live.budget = None;
        live.locks = LockState::default();
        live.region = 0;
        let region0 = spec
            .parallel
            .as_ref()
            .and_then(|p| p.regions().first())
            .filter(|_| live.parallel);
        match region0 {
            None => {
                let demand = rt.rng.demand(exec, spec.wcet);
                let live = &mut rt.live;
                live.e = Exec::new(demand, now, None);
                live.more.clear();
                live.offset = 0;
                live.left = 1;
            }
            Some(r) => start_region(rt, &r.threads, (0, None), now, exec),
        }
        rt.active = true;
        let id = JobId::new(TaskId(task as u32), w.seq);
        match region0 {
            None => {
                let info = JobInfo {
                    id,
                    release: w.release,
                    deadline: w.deadline,
                    wcet: spec.wcet,
                };
                self.call(now, |p, ctx, out| p.on_release(ctx, &info, out))?;
            }
            // Region 0's threads, each released like a job (module doc, "Strands").
            Some(r) => {
                for (&wcet, strand) in r.threads.iter().zip(0u32..) {
                    let info = JobInfo {
                        id: JobId { strand, ..id },
                        release: w.release,
                        deadline: w.deadline,
                        wcet,
                    };
                    self.call(now, |p, ctx, out| p.on_release(ctx, &info, out))?;
                }
            }
        }
        if abort_late && w.deadline <= self.horizon {
            self.push(w.deadline.max(now), ABORT, task as u64, w.seq);
        }
        Ok(())
    }

    fn timer(&mut self, now: Time, serial: u64, id: u64) -> Result<(), SimError> {
        if self.timers.get(&id) != Some(&serial) {
            return Ok(()); // cancelled or re-armed
        }
        self.timers.remove(&id);
        if let Some(oh) = &mut self.oh {
            oh.source = Source::Remote;
        }
        self.call(now, |p, ctx, out| p.on_timer(ctx, TimerId(id), out))
    }

    /// Records the decisions in `self.out`: timers take effect now; links are folded per CPU
    /// into `desired` (a later link overrides an earlier one) until [`Engine::enact`].
    fn apply(&mut self, now: Time) -> Result<(), SimError> {
        for i in 0..self.out.cancels.len() {
            let id = self.out.cancels[i].0;
            self.timers.remove(&id);
        }
        for i in 0..self.out.timers.len() {
            let req = self.out.timers[i];
            self.timer_serial += 1;
            self.timers.insert(req.id.0, self.timer_serial);
            let at = req.at.max(now);
            if at < self.horizon {
                self.push(at, TIMER, self.timer_serial, req.id.0);
            }
        }
        for i in 0..self.out.budgets.len() {
            let req = self.out.budgets[i];
            self.set_budget(now, req.job, req.amount);
        }
        for i in 0..self.out.servers.len() {
            self.server_event(now, self.out.servers[i]);
        }
        let m = self.running.len();
        for i in 0..self.out.links.len() {
            let link = self.out.links[i];
            let c = link.cpu.0 as usize;
            if c >= m {
                self.out.clear();
                return Err(self.violation(
                    now,
                    format!("linked CPU {} but there are {m} CPUs", link.cpu.0),
                ));
            }
            if !self.touched_flag[c] {
                self.touched_flag[c] = true;
                self.touched.push(c as u32);
            }
            self.desired[c] = link.job;
            if let Some(oh) = &mut self.oh {
                oh.link_source[c] = oh.source;
            }
        }
        if let Err(e) = self.record_steals(now) {
            self.out.clear();
            return Err(e);
        }
        let result = self.apply_aborts(now);
        self.out.clear();
        result
    }

    /// Keeps the steals of the last callback until the end of the instant (module doc,
    /// "Strands"): the thief is the CPU the same callback linked the stolen strand to.
    fn record_steals(&mut self, now: Time) -> Result<(), SimError> {
        let m = self.running.len();
        for i in 0..self.out.steals.len() {
            let st = self.out.steals[i];
            let thief = self
                .out
                .links
                .iter()
                .rev()
                .find(|l| l.job == Some(st.job))
                .map(|l| l.cpu.0);
            let Some(thief) = thief else {
                let msg = format!("stole {} without linking it to a CPU", st.job);
                return Err(self.violation(now, msg));
            };
            if st.victim.0 as usize >= m || st.victim.0 == thief {
                let msg = format!(
                    "stole {} from CPU {} for CPU {thief} ({m} CPUs)",
                    st.job, st.victim.0
                );
                return Err(self.violation(now, msg));
            }
            self.steals.push((st.job, thief, st.victim.0));
        }
        Ok(())
    }

    /// Enacts the links decided during the instant `now` (see the module doc).
    fn enact(&mut self, now: Time) -> Result<(), SimError> {
        let result = self.enact_links(now);
        for &c in &self.touched {
            self.touched_flag[c as usize] = false;
            self.desired[c as usize] = None;
        }
        self.touched.clear();
        self.steals.clear();
        result
    }

    fn enact_links(&mut self, now: Time) -> Result<(), SimError> {
        // Every linked job must be a job the policy holds.
        for &c in &self.touched {
            if let Some(j) = self.desired[c as usize] {
                let held = self
                    .rt
                    .get(j.task.0 as usize)
                    .and_then(TaskRt::current)
                    .is_some_and(|live| live.rec.seq == j.seq && live.holds(j.strand));
                if !held {
                    return Err(self.violation(
                        now,
                        format!("linked {j} to CPU {c}, but that job is not released, or already finished"),
                    ));
                }
                if self.is_blocked(j) {
                    let msg = format!("linked {j} to CPU {c} while it is blocked on a resource");
                    return Err(self.violation(now, msg));
                }
            }
        }
        // Switch out first, so a job can move between CPUs within one decision.
        for k in 0..self.touched.len() {
            let c = self.touched[k] as usize;
            let want = self.desired[c].map(|j| (j.task.0, j.strand));
            if let Some(old) = self.running[c] {
                if want != Some(old) {
                    self.switch_out(now, old, c as u32);
                }
            }
        }
        for k in 0..self.touched.len() {
            let c = self.touched[k] as usize;
            if self.hold_link(c) {
                continue;
            }
            if let Some(j) = self.desired[c] {
                if self.running[c] != Some((j.task.0, j.strand)) {
                    let cpu = c as u32;
                    let stolen = self
                        .steals
                        .iter()
                        .find(|&&(s, thief, _)| s == j && thief == cpu)
                        .map(|&(_, _, victim)| victim);
                    self.switch_in(now, (j.task.0 as usize, j.strand), cpu, stolen)?;
                }
            }
        }
        Ok(())
    }

    /// Switches thread `strand` of `task`'s job (`running[cpu]`) out of `cpu`: a preemption
    /// if it is unfinished.
    fn switch_out(&mut self, now: Time, (task, strand): (u32, u32), cpu: u32) {
        if let Some(slot) = self.running.get_mut(cpu as usize) {
            *slot = None;
        }
        self.queue.clear_completion(cpu);
        let Some(live) = self.rt.get_mut(task as usize).and_then(TaskRt::current_mut) else {
            return;
        };
        live.leave(strand, now, &mut self.context_switches);
        if let Some(b) = &mut live.budget {
            b.serial = 0; // its queued exhaustion is stale now
        }
        live.locks.clear_serial(); // and its queued milestone
        live.end_segment(strand, now);
        let seq = live.rec.seq;
        let unfinished = live.exec(strand).is_some_and(|x| x.executed < x.demand);
        if unfinished {
            live.rec.preemptions += 1;
        }
        self.emit_switch_out(now, cpu, (task, seq, strand));
        if unfinished {
            self.emit_strand(now, Kind::Preempt, cpu, (task, seq, strand), 0);
        }
    }

    /// Switches thread `strand` of `task`'s job in on `cpu` (`stolen`: the victim CPU of a
    /// steal decided in this instant).
    fn switch_in(
        &mut self,
        now: Time,
        (task, strand): (usize, u32),
        cpu: u32,
        stolen: Option<u32>,
    ) -> Result<(), SimError> {
        let horizon = self.horizon;
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Ok(());
        };
        let seq = live.rec.seq;
        let Some(x) = live.exec(strand) else {
            return Ok(());
        };
        if let Some(other) = x.running_on {
            let j = JobId {
                task: TaskId(task as u32),
                seq,
                strand,
            };
            return Err(self.violation(
                now,
                format!("linked {j} to CPU {cpu} while it stays linked to CPU {other}"),
            ));
        }
        let started = !x.executed.is_zero();
        // Overheads (crate::overheads, rules 2 and 3): dispatch delay, cache reload.
        let (delay, reload) = match &mut self.oh {
            Some(oh) => oh.switch_in(task, cpu, live.last_cpu, started),
            None => (Duration::ZERO, Duration::ZERO),
        };
        let seg_start = now
            .checked_add(delay)
            .ok_or(SimError::Overflow("the end of a dispatch"))?;
        let Some(x) = live.exec_mut(strand) else {
            return Ok(());
        };
        x.demand = x
            .demand
            .checked_add(reload)
            .ok_or(SimError::Overflow("a demand with CPMD"))?;
        x.running_on = Some(cpu);
        x.seg_start = seg_start;
        if !delay.is_zero() {
            x.dispatch_pending = true;
            x.dispatch_end = seg_start;
        }
        let done_at = seg_start.checked_add(x.demand.saturating_sub(x.executed));
        if live.rec.start.is_none() {
            live.rec.start = Some(seg_start);
        }
        if stolen.is_some() {
            live.rec.steals += 1;
        }
        // Counted when the dispatch happens (a `switch-in`): now, or when the job leaves the
        // CPU after its segment began.
        let counted_from = if delay.is_zero() {
            live.switched_in(strand, cpu, &mut self.context_switches, stolen)
        } else {
            None
        };
        // The `migrate` event: a sequential job's from the CPU it was last linked to (as
        // counted, without overheads), a parallel job's as counted (module doc, "Strands").
        let from = if live.parallel {
            counted_from
        } else {
            live.last_cpu.filter(|&l| l != cpu)
        };
        live.last_cpu = Some(cpu);
        let budgeted = live.budget.is_some();
        if let Some(slot) = self.running.get_mut(cpu as usize) {
            *slot = Some((task as u32, strand));
        }
        match done_at.filter(|&t| t <= horizon) {
            Some(t) => self.queue.set_completion(cpu, t.as_ns(), task as u32, seq),
            None => self.queue.clear_completion(cpu),
        }
        if budgeted {
            self.arm_budget(task);
        }
        self.arm_lock(task);
        let job = (task as u32, seq, strand);
        if let Some(victim) = stolen {
            self.emit_strand(now, Kind::Steal, cpu, job, u64::from(victim));
        }
        self.emit_strand(now, Kind::Link, cpu, job, 0);
        if delay.is_zero() {
            self.emit_strand(now, Kind::SwitchIn, cpu, job, 0);
        } else {
            self.begin_dispatch(now, cpu, task as u32, seq, seg_start);
        }
        if let Some(l) = from {
            self.emit_strand(now, Kind::Migrate, cpu, job, u64::from(l));
        }
        Ok(())
    }

    /// Applies one budget request for `job` at `now` (module doc, "Budgets"); ignored if the
    /// engine does not hold the job.
    #[cold]
    fn set_budget(&mut self, now: Time, job: JobId, amount: Option<Duration>) {
        let task = job.task.0 as usize;
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return;
        };
        // Budgets are for sequential jobs (module doc, "Strands").
        if live.rec.seq != job.seq || job.strand != 0 || live.parallel {
            return;
        }
        let Some(amount) = amount else {
            live.budget = None;
            return;
        };
        // A limit beyond 2^64 ns of execution is never reached.
        let limit = live
            .e
            .executed_at(now)
            .checked_add(amount)
            .unwrap_or(Duration::MAX);
        live.budget = Some(Budget {
            limit,
            amount,
            serial: 0,
        });
        let cpu = live.e.running_on.unwrap_or(NO_CPU);
        let (t, seq) = (job.task.0, job.seq);
        self.emit(now, Kind::BudgetReplenished, cpu, t, seq, amount.as_ns());
        self.arm_budget(task);
    }

    /// Records a reservation server's event (`schedlab_policy::event`, "Server events"):
    /// `task` = `u32::MAX`, `seq` = the group.
    #[cold]
    fn server_event(&mut self, now: Time, ev: schedlab_policy::ServerEvent) {
        use schedlab_policy::ServerChange;
        let kind = match ev.change {
            ServerChange::Replenished => Kind::BudgetReplenished,
            ServerChange::Exhausted => Kind::BudgetExhausted,
            ServerChange::Throttled => Kind::BudgetThrottled,
        };
        self.emit(now, kind, ev.cpu.0, u32::MAX, u64::from(ev.group), ev.arg);
    }

    /// Queues the exhaustion of `task`'s budget if its job is running (superseding any queued
    /// one): at the start of its segment plus what is left of the budget then.
    #[cold]
    fn arm_budget(&mut self, task: usize) {
        let horizon = self.horizon;
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return;
        };
        let Some(b) = &mut live.budget else {
            return;
        };
        b.serial = 0;
        if live.e.running_on.is_none() || live.parallel {
            return;
        }
        let left = b.limit.saturating_sub(live.e.executed);
        let Some(at) = live.e.seg_start.checked_add(left).filter(|&t| t < horizon) else {
            return; // past the horizon: never observed
        };
        self.budget_serial += 1;
        b.serial = self.budget_serial;
        let serial = self.budget_serial;
        self.push(at, BUDGET, task as u64, serial);
        self.queued_budget = true;
    }

    /// The budget of `task`'s job runs out at `now` (unless the event is stale: the job
    /// finished, stopped running, or got another budget since).
    fn budget_exhausted(&mut self, now: Time, task: usize, serial: u64) -> Result<(), SimError> {
        let Some(live) = self.rt.get_mut(task).and_then(TaskRt::current_mut) else {
            return Ok(());
        };
        let Some(b) = live.budget.filter(|b| b.serial == serial && serial != 0) else {
            return Ok(());
        };
        debug_assert_eq!(live.e.executed_at(now), b.limit, "budget of task {task}");
        live.budget = None;
        let (cpu, seq) = (live.e.running_on.unwrap_or(NO_CPU), live.rec.seq);
        self.emit(
            now,
            Kind::BudgetExhausted,
            cpu,
            task as u32,
            seq,
            b.amount.as_ns(),
        );
        let id = JobId::new(TaskId(task as u32), seq);
        self.call(now, |p, ctx, out| p.on_budget_exhausted(ctx, id, out))
    }

    /// Stops at the horizon: accounts the unfinished and the waiting jobs, builds the result.
    fn finish(mut self) -> SimResult {
        let h = self.horizon;
        for task in 0..self.rt.len() {
            // A job still blocked at the horizon: its blocking time counts up to it.
            drop(self.take_resources(h, task));
            // Close the execution intervals in the trace (the run ends; not a preemption; a
            // job still in its dispatch, with overheads, has not started).
            self.stop_running(h, task);
            let mut pending: Vec<JobRecord> = Vec::new();
            if let Some(rt) = self.rt.get_mut(task) {
                if rt.active {
                    rt.active = false;
                    pending.push(rt.live.rec.take());
                }
                let not_started = rt.backlog.drain(..).chain(rt.in_flight.drain(..));
                let (tuf, spec) = (self.tufs.get(task), self.tasks.get(task));
                pending.extend(not_started.map(|w| {
                    let mut rec =
                        JobRecord::fresh(task as u32, w.seq, w.release, w.deadline, Vec::new());
                    if let Some(spec) = spec {
                        rec.termination = termination(tuf, spec, &w);
                    }
                    rec
                }));
            }
            for mut rec in pending {
                if rec.deadline <= h {
                    rec.tardiness = h.saturating_since(rec.deadline);
                    let d = rec.deadline.as_ns();
                    self.emit(h, Kind::DeadlineMiss, NO_CPU, rec.task, rec.seq, d);
                }
                if let Some(rt) = self.rt.get_mut(task) {
                    rt.acc.add(&rec, h);
                }
                if self.cfg.record_jobs {
                    self.jobs.push(rec);
                }
            }
        }
        self.jobs.sort_unstable_by_key(|j| (j.task, j.seq));
        let accs: Vec<TaskAcc> = self.rt.iter().map(|rt| rt.acc.clone()).collect();
        let (per_task, totals) = summarize(&accs, &self.tufs, self.context_switches);
        SimResult {
            jobs: self.jobs,
            per_task,
            totals,
            trace: self.trace,
            events_processed: self.events_processed,
            horizon: h,
            overheads: self.oh.as_ref().map(OverheadState::report),
        }
    }
}

/// Makes `threads` (strands `offset…`) the current region of `rt`'s job at `now`: each
/// thread's demand drawn from the task's execution-time stream, in strand order.
fn start_region(
    rt: &mut TaskRt,
    threads: &[Duration],
    (offset, forked_on): (u32, Option<u32>),
    now: Time,
    exec: ExecTime,
) {
    let live = &mut rt.live;
    let mut demands = threads.iter().map(|&c| rt.rng.demand(exec, c));
    live.e = Exec::new(demands.next().unwrap_or(Duration::ZERO), now, forked_on);
    live.more.clear();
    live.more
        .extend(demands.map(|d| Exec::new(d, now, forked_on)));
    live.offset = offset;
    live.left = u32::try_from(threads.len()).unwrap_or(u32::MAX);
}

/// The termination time of job `w` of a task with TUF `tuf` (`JobRecord::termination`): its
/// deadline for a step TUF or none, `release + TM` otherwise (saturating: past 2^64 ns it is
/// beyond any horizon anyway).
fn termination(tuf: Option<&Option<Tuf>>, spec: &SimTask, w: &Waiting) -> Time {
    match tuf.and_then(Option::as_ref) {
        Some(t) if !t.is_step() => w
            .release
            .checked_add(t.termination(spec.deadline))
            .unwrap_or(Time::from_ns(u64::MAX)),
        _ => w.deadline,
    }
}

/// The hooks of overhead charging (crate::overheads; no-ops without overheads).
impl Engine<'_> {
    /// Rule 1: a job released at `now` becomes visible after `delay`; rule 4: its handler
    /// interferes with the job on the handler CPU from `now + Δev`.
    #[cold]
    fn delay_release(&mut self, now: Time, task: usize, delay: Duration) -> Result<(), SimError> {
        let Some(oh) = &self.oh else {
            return Ok(());
        };
        let (latency, interference) = (oh.model.release_latency, oh.model.interference());
        if !interference.is_zero() {
            if latency.is_zero() {
                self.interfere(now, task)?;
            } else if let Some(t) = now.checked_add(latency).filter(|&t| t < self.horizon) {
                self.push(t, RELEASE, task as u64, IRQ);
            }
        }
        if let Some(t) = now.checked_add(delay).filter(|&t| t < self.horizon) {
            self.push(t, RELEASE, task as u64, VISIBLE);
        }
        Ok(())
    }

    /// Rule 1: the oldest delayed release of `task` reaches the ready queue.
    #[cold]
    fn make_visible(&mut self, now: Time, task: usize) {
        let Some(rt) = self.rt.get_mut(task) else {
            return;
        };
        let Some(w) = rt.in_flight.pop_front() else {
            return;
        };
        let (seq, release) = (w.seq, w.release);
        rt.backlog.push_back(w);
        if let Some(oh) = &mut self.oh {
            let d = oh.model.release_delay().as_ns();
            oh.charged.release = oh.charged.release.saturating_add(d);
        }
        // Release: `arg` = the intended release time, `time` = when the handler finished.
        self.emit(
            now,
            Kind::Release,
            NO_CPU,
            task as u32,
            seq,
            release.as_ns(),
        );
    }

    /// Rule 4: the job executing on the CPU that handles `task`'s release makes no progress
    /// for Δrel from `now` (its completion moves later).
    #[cold]
    fn interfere(&mut self, now: Time, task: usize) -> Result<(), SimError> {
        let Some(oh) = &mut self.oh else {
            return Ok(());
        };
        let d = oh.model.interference();
        let h = oh.irq_cpu(task);
        let Some((j, strand)) = self.running.get(h as usize).copied().flatten() else {
            return Ok(()); // an idle CPU absorbs the handler
        };
        let Some(live) = self.rt.get_mut(j as usize).and_then(TaskRt::current_mut) else {
            return Ok(());
        };
        let seq = live.rec.seq;
        let Some(x) = live.exec_mut(strand) else {
            return Ok(());
        };
        // Still in its dispatch (`now ≤` its end): the handler delays the dispatch's end, and
        // the `switch-in` owed in the trace moves with it. Past its end, the `switch-in` stays
        // where the dispatch ended and the handler delays the execution.
        let in_dispatch = x.dispatch_pending && now <= x.dispatch_end;
        let mut ran = Duration::ZERO;
        if now > x.seg_start {
            ran = now.saturating_since(x.seg_start);
            x.executed += ran;
            x.seg_start = now;
        }
        x.seg_start = x
            .seg_start
            .checked_add(d)
            .ok_or(SimError::Overflow("an interrupted execution"))?;
        if in_dispatch && x.dispatch_pending {
            x.dispatch_end = x.seg_start;
        }
        let (seg_start, left) = (x.seg_start, x.demand.saturating_sub(x.executed));
        live.rec.executed += ran;
        if live.rec.executed.is_zero() && live.rec.start.is_some() {
            live.rec.start = Some(seg_start);
        }
        oh.charged.interrupt = oh.charged.interrupt.saturating_add(d.as_ns());
        if in_dispatch {
            if let Some(Some(p)) = oh.pending.get_mut(h as usize) {
                p.time = seg_start.as_ns();
            }
        }
        let done_at = seg_start.checked_add(left);
        match done_at.filter(|&t| t <= self.horizon) {
            Some(t) => self.queue.set_completion(h, t.as_ns(), j, seq),
            None => self.queue.clear_completion(h),
        }
        self.arm_budget(j as usize);
        self.arm_lock(j as usize);
        Ok(())
    }

    /// Trace of rule 2: the dispatch on `cpu` runs from `now` (SchedBegin) to `end` (SchedEnd,
    /// then SwitchIn, emitted once time passes `end`).
    #[cold]
    fn begin_dispatch(&mut self, now: Time, cpu: u32, task: u32, seq: u64, end: Time) {
        if !self.cfg.record_trace {
            return;
        }
        self.emit(now, Kind::SchedBegin, cpu, task, seq, 0);
        if let Some(oh) = &mut self.oh {
            if let Some(slot) = oh.pending.get_mut(cpu as usize) {
                if slot.is_none() {
                    oh.pending_n += 1;
                }
                *slot = Some(PendingSwitchIn {
                    time: end.as_ns(),
                    task,
                    seq,
                });
            }
        }
    }

    /// Emits the SwitchIns owed before `time` (each after its SchedEnd).
    #[cold]
    fn flush_dispatches(&mut self, time: u64) {
        let Some(oh) = &mut self.oh else {
            return;
        };
        for (cpu, p) in oh.take_pending_before(time) {
            for kind in [Kind::SchedEnd, Kind::SwitchIn] {
                self.trace
                    .push(Event::new(p.time, kind, cpu, p.task, p.seq));
            }
        }
    }

    /// The end of an execution on `cpu` in the trace: SwitchOut, or SchedEnd if the job is
    /// taken off before its dispatch ended (it never executed there).
    #[inline]
    fn emit_switch_out(&mut self, now: Time, cpu: u32, job: (u32, u64, u32)) {
        if self.cfg.record_trace
            && self.oh.as_ref().is_some_and(|oh| oh.pending_n > 0)
            && self.cancel_dispatch(now, cpu)
        {
            self.emit_strand(now, Kind::SchedEnd, cpu, job, 0);
        } else {
            self.emit_strand(now, Kind::SwitchOut, cpu, job, 0);
        }
    }

    #[cold]
    fn cancel_dispatch(&mut self, now: Time, cpu: u32) -> bool {
        self.oh
            .as_mut()
            .is_some_and(|oh| oh.cancel_pending(cpu, now.as_ns()))
    }
}
