//! One run from start to result: the one skeleton every architecture goes through
//! (`run_with`, instantiated per architecture by its registry entry, `crate::arch`).
//!
//! 1. **Validate** (`validate`): tasks, CPUs (exist and allowed by this process's
//!    affinity), duration, ranks, options of other architectures, the run's size
//!    ([`MAX_RUN_JOBS`], [`MAX_TRACE_BYTES`]); then the architecture's own checks and state
//!    (`Architecture::prepare`). Throttling warnings.
//! 2. **Start synchronously**: the calling thread becomes the watchdog (SCHED_FIFO above every
//!    other thread of the run; a clear error without permission, or SCHED_OTHER with
//!    `allow_non_rt`); the clock is calibrated; every trace buffer and working set is
//!    preallocated; one job thread per task (if the architecture has them) and one thread per
//!    worker start, each sets its own class and affinity and reports ready. Time zero = now +
//!    5 ms; every task's first job is released at time zero plus its offset (synchronous
//!    release [MP App. A]).
//! 3. **Watchdog** (`crate::watchdog`): it sleeps until the horizon, or until
//!    SIGINT/SIGTERM or a failing job body, then raises the stop flag and rings every
//!    doorbell and the stop word; workers are joined first (no new decisions), then the job
//!    threads are stopped and joined; a thread that does not finish within `grace` is left
//!    behind and reported. Overload cannot delay the end: the watchdog outranks every thread,
//!    and the kernel's RT throttling stays on.
//! 4. **Drain**: the architecture's buffers and records (`Architecture::drain`) and the job
//!    threads' buffers; ticks → ns since time zero, merged by time.
//! 5. **Account** (`account`) with the simulator's types and metrics, the counters from the
//!    trace (`schedlab_trace::counts`), the overheads; the result.
//!
//! Every thread returns to SCHED_OTHER when it leaves (a guard, also on panic); the caller's
//! class is restored when the run returns.

mod account;
mod validate;

pub(crate) use account::account;
pub(crate) use validate::{validate, validate_cpus};
pub use validate::{MAX_EVENTS_PER_BUFFER, MAX_JOB_THREADS, MAX_RUN_JOBS, MAX_TRACE_BYTES};

use crate::arch::{Architecture, Cx, Harvest, Jobs, Setup};
use crate::config::{RtTask, RunConfig};
use crate::dispatch::Doorbell;
use crate::error::RuntimeError;
use crate::job::JobCtl;
use crate::mech::clock::{monotonic_ns, TickClock};
use crate::mech::sched::{self, Class, ClassGuard};
use crate::mech::{futex, preempt, signals, MechError};
use crate::state::Threads;
use crate::watchdog::{
    join_until, setup_outcome, start_and_watch, warn_left_behind, Flags, Outcome,
};
use schedlab_model::Time;
use schedlab_trace::metrics::{JobRecord, TaskMetrics, Totals};
use schedlab_trace::overheads::Overheads;
use schedlab_trace::{Event, Kind};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Per-job records, ordered by (task, seq).
    pub jobs: Vec<JobRecord>,
    /// Per-task metrics.
    pub per_task: Vec<TaskMetrics>,
    /// Whole-run metrics.
    pub totals: Totals,
    /// The trace, ns since time zero, in time order.
    pub trace: Vec<Event>,
    /// Overhead samples by name (see [`schedlab_trace::overheads`]).
    pub overheads: Overheads,
    /// Policy callbacks made.
    pub events_processed: u64,
    /// The policy callbacks' own cost (ns, the callback alone: no lock wait, no link
    /// enactment; up to `state::MAX_COST_SAMPLES` per scheduling state), the scheduling
    /// cost [ChronOS §9.1] times; `None` under the kernel baselines (no user-space policy).
    pub policy_cost: Option<schedlab_trace::overheads::OverheadStats>,
    /// The horizon (the run's duration).
    pub horizon: Time,
    /// Whether threads ran under SCHED_FIFO (false: `allow_non_rt` fallback).
    pub real_time: bool,
    /// Ended early by SIGINT/SIGTERM.
    pub interrupted: bool,
    /// Trace events lost to full buffers.
    pub dropped_events: u64,
    /// Clock ticks per second (TSC frequency, or 1e9 for CLOCK_MONOTONIC).
    pub tick_hz: f64,
    /// Whether the TSC was used.
    pub tsc: bool,
    /// Wall time of the run (setup to results), seconds.
    pub wall_seconds: f64,
    /// Problems that did not stop the run (the result is still valid, but look).
    pub warnings: Vec<String>,
    /// Errors of jobs that did not stop the run: a job that ended holding a resource ("job
    /// τi#k ended holding resource `bus`: a resource never released"; the runtime released
    /// it). Each is also a warning.
    pub job_errors: Vec<String>,
    /// The architecture's own counters of the run, in its report order (`push-pull`:
    /// `pushes`, `push_retries`, `push_failures`, `pulls`, `pull_failures`; empty for the
    /// others): JSON fields of the summary and the trace metadata, and the table's note.
    pub arch_counters: Vec<(&'static str, u64)>,
}

/// A periodic task's release timing.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// First release after time zero (ns).
    pub offset: u64,
    /// Period (ns).
    pub period: u64,
}

/// What all threads of a run share.
pub struct Shared {
    /// The run's clock.
    pub clock: TickClock,
    /// Time zero, CLOCK_MONOTONIC ns (valid once `go` was bumped).
    pub t0: AtomicU64,
    /// Bumped once when time zero is set.
    pub go: AtomicU32,
    /// The run is over.
    pub stop: AtomicBool,
    /// Bumped once at the stop (after `stop`): threads sleeping on it wake.
    pub stop_word: AtomicU32,
    /// One doorbell per logical CPU.
    pub bells: Vec<Doorbell>,
    /// Release timing by task.
    pub timing: Vec<Timing>,
    /// Releases at `t < horizon_ns` (ns since time zero).
    pub horizon_ns: u64,
    /// Early wake-up before a release (ns).
    pub release_spin_ns: u64,
    /// Earliest armed policy timer per logical CPU that owns timers (`u64::MAX`: none).
    pub next_timer: Vec<AtomicU64>,
    /// Threads run under SCHED_FIFO (false: SCHED_OTHER, `allow_non_rt`).
    pub real_time: bool,
    /// Threads count up here when set up.
    ready: AtomicU32,
    /// Setup errors of the threads, and failures during the run.
    errors: Mutex<Vec<String>>,
    /// A thread failed during the run: end it.
    failed: AtomicBool,
}

impl Shared {
    pub(crate) fn new(
        clock: TickClock,
        tasks: &[RtTask],
        config: &RunConfig,
        real_time: bool,
    ) -> Shared {
        let m = config.cpus.len();
        Shared {
            clock,
            t0: AtomicU64::new(0),
            go: AtomicU32::new(0),
            stop: AtomicBool::new(false),
            stop_word: AtomicU32::new(0),
            bells: (0..m).map(|_| Doorbell::default()).collect(),
            timing: tasks
                .iter()
                .map(|t| Timing {
                    offset: t.offset.as_ns(),
                    period: t.period.as_ns(),
                })
                .collect(),
            horizon_ns: config.duration.as_ns(),
            release_spin_ns: config.release_spin.as_ns(),
            next_timer: (0..m).map(|_| AtomicU64::new(u64::MAX)).collect(),
            real_time,
            ready: AtomicU32::new(0),
            errors: Mutex::new(Vec::new()),
            failed: AtomicBool::new(false),
        }
    }

    /// A thread finished its setup (`Err`: why it failed, naming the thread).
    pub(crate) fn report_ready(&self, setup: Result<(), String>) {
        if let Err(msg) = setup {
            self.error(msg);
        }
        self.ready.fetch_add(1, Ordering::Release);
        signals::notify();
    }

    /// Waits for time zero; false if the run stopped before it started.
    pub(crate) fn wait_go(&self) -> bool {
        while self.go.load(Ordering::Acquire) == 0 {
            futex::wait(&self.go, 0, None);
        }
        !self.stop.load(Ordering::Acquire)
    }

    /// A thread failed during the run (e.g. a custom job body panicked): the watchdog ends
    /// the run now and `msg` becomes a warning.
    pub(crate) fn fail(&self, msg: String) {
        self.error(msg);
        self.failed.store(true, Ordering::Release);
        signals::notify();
    }

    /// Records an error of a thread (before time zero: the run does not start).
    pub(crate) fn error(&self, msg: String) {
        if let Ok(mut e) = self.errors.lock() {
            e.push(msg);
        }
    }

    fn flags(&self) -> Flags<'_> {
        Flags {
            ready: &self.ready,
            errors: &self.errors,
            failed: &self.failed,
            t0: &self.t0,
            go: &self.go,
            stop: &self.stop,
        }
    }

    /// After the watchdog raised `stop`: wakes every sleeping worker.
    fn wake_all(&self) {
        for b in &self.bells {
            b.ring();
        }
        self.stop_word.fetch_add(1, Ordering::Release);
        futex::wake(&self.stop_word, u32::MAX);
    }
}

/// Runs `tasks` under `config` (see the module doc), with the cache-thrashing background load
/// of [`RunConfig::background_load`] around the run if one is asked for.
pub fn run(tasks: &[RtTask], config: &RunConfig) -> Result<RunResult, RuntimeError> {
    let run_arch = config.arch.def().run;
    let Some(bytes) = config.background_load else {
        return run_arch(tasks, config);
    };
    validate_cpus(&config.cpus)?;
    validate::background_load(bytes)?;
    // Started before the run raises this thread to SCHED_FIFO, so the background threads are
    // created under SCHED_OTHER (they demote themselves as well).
    let mut load = crate::background::BackgroundLoad::start(&config.cpus, bytes)?;
    let result = run_arch(tasks, config);
    load.stop();
    result
}

/// The run skeleton (module doc), for architecture `A`.
pub(crate) fn run_with<A: Architecture>(
    tasks: &[RtTask],
    config: &RunConfig,
) -> Result<RunResult, RuntimeError> {
    let started = std::time::Instant::now();
    // 1. Validate, prepare.
    let input = validate(tasks, config)?;
    let mut warnings = crate::throttle::warnings(tasks, config);
    let Setup {
        arch,
        workers,
        jobs,
    } = A::prepare(&input, &mut warnings)?;
    let arch = Arc::new(arch);

    // 2. Start: the watchdog's class (the caller's is restored when `_restore` drops), the
    //    threads.
    let _restore = ClassGuard::new();
    let real_time = become_watchdog(A::WATCHDOG_PRIORITY, config)?;
    if !real_time {
        warnings.push(A::NOT_REAL_TIME.into());
    }
    if matches!(jobs, Jobs::Threads { .. }) {
        preempt::install()?;
    }
    let capture = signals::Capture::new()?;
    let shared = Arc::new(Shared::new(
        TickClock::new(20_000_000),
        tasks,
        config,
        real_time,
    ));
    let threads = RunThreads {
        ctls: match &jobs {
            Jobs::Threads { pinned } => crate::job::control_blocks(&input, pinned, shared.clock),
            Jobs::None => Vec::new(),
        }
        .into(),
        shared,
        phys: config.cpus.clone().into(),
    };
    let job_threads = match &jobs {
        Jobs::Threads { pinned } => crate::job::start(&arch, &input, pinned, &threads),
        Jobs::None => Vec::new(),
    };
    let worker_threads = start_workers(&arch, workers, &threads);
    let RunThreads { shared, ctls, phys } = threads;

    // 3. Watchdog, stop, join.
    let total = (job_threads.len() + worker_threads.len()) as u32;
    let Outcome {
        t0,
        setup_failed,
        interrupted,
        horizon_ns,
    } = start_and_watch(&shared.flags(), total, config.duration.as_ns());
    shared.wake_all();
    let grace_end = monotonic_ns().saturating_add(config.grace.as_ns());
    let mut left_behind = 0usize;
    let workers = join_until(
        worker_threads,
        grace_end,
        A::WORKER,
        &mut warnings,
        &mut left_behind,
    );
    for c in ctls.iter() {
        c.stop();
    }
    join_until(
        job_threads,
        grace_end,
        "job thread",
        &mut warnings,
        &mut left_behind,
    );
    warn_left_behind(left_behind, &mut warnings);
    setup_outcome(&shared.errors, setup_failed, &mut warnings)?;
    drop(capture);

    // 4. Drain.
    let th = Threads {
        ctls: &ctls,
        phys: &phys,
    };
    let mut h = Harvest::default();
    arch.drain(workers, &th, &mut h);
    let mut misplaced = 0u64;
    for c in ctls.iter() {
        h.trace(&c.buf);
        misplaced += c.misplaced.load(Ordering::Relaxed);
    }
    drain_warnings(&mut h, misplaced, &mut warnings);
    let job_errors = std::mem::take(&mut h.job_errors);
    let mut clock = shared.clock;
    clock.refit();
    let conv = |ticks: u64| clock.to_mono_ns(ticks).saturating_sub(t0);
    let trace = trace_of(std::mem::take(&mut h.events), &conv);

    // 5. Account.
    let records = std::mem::take(&mut h.records);
    let (jobs, per_task, totals) = account(records, &conv, horizon_ns, tasks, &trace);
    let overheads = Overheads::from_trace(&trace);
    Ok(RunResult {
        jobs,
        per_task,
        totals,
        trace,
        overheads,
        events_processed: h.policy_calls,
        policy_cost: schedlab_trace::overheads::OverheadStats::of(&h.policy_ns),
        horizon: Time::from_ns(horizon_ns),
        real_time,
        interrupted,
        dropped_events: h.dropped,
        tick_hz: clock.frequency_hz(),
        tsc: clock.is_tsc(),
        wall_seconds: started.elapsed().as_secs_f64(),
        warnings,
        job_errors,
        arch_counters: std::mem::take(&mut h.counters),
    })
}

/// The warnings of what the drain found: job switch-ins on another CPU than dispatched to,
/// dropped trace events, failed mechanism calls.
fn drain_warnings(h: &mut Harvest, misplaced: u64, warnings: &mut Vec<String>) {
    if misplaced > 0 {
        warnings.push(format!(
            "{misplaced} job switch-ins happened on another physical CPU than the one the job was dispatched to"
        ));
    }
    if h.dropped > 0 {
        warnings.push(format!(
            "{} trace events were dropped (full buffers): overheads, trace checks and the preemption, migration and context-switch counts are incomplete; raise the trace capacity",
            h.dropped
        ));
    }
    for e in &h.job_errors {
        warnings.push(format!("error: {e}"));
    }
    if h.mech_errors.0 > 0 {
        warnings.push(format!(
            "{} mechanism calls failed, first: {}",
            h.mech_errors.0,
            h.mech_errors.1.take().unwrap_or_default()
        ));
    }
}

/// The drained events as the run's trace: ticks → ns since time zero (`conv`; also the `arg`
/// of `complete`, the completion time the job's thread measured), merged by time (a stable
/// sort: events of one instant keep their drain order).
fn trace_of(mut events: Vec<Event>, conv: &impl Fn(u64) -> u64) -> Vec<Event> {
    for e in &mut events {
        e.time = conv(e.time);
        if e.kind == Kind::Complete {
            e.arg = conv(e.arg);
        }
    }
    events.sort_by_key(|e| e.time);
    events
}

/// Raises the calling thread to SCHED_FIFO `priority` (the watchdog); returns whether the run
/// is real-time: without permission it is an error, or false with `allow_non_rt`.
fn become_watchdog(priority: u8, config: &RunConfig) -> Result<bool, RuntimeError> {
    match sched::set_class(0, Class::Fifo(priority)) {
        Ok(()) => Ok(true),
        Err(MechError::NotPermitted { what }) if !config.allow_non_rt => {
            Err(MechError::NotPermitted { what }.into())
        }
        Err(MechError::NotPermitted { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The threads' view of a run: its shared state, the job threads' control blocks and the
/// physical CPU of each logical CPU.
pub(crate) struct RunThreads {
    pub(crate) shared: Arc<Shared>,
    pub(crate) ctls: Arc<[Arc<JobCtl>]>,
    pub(crate) phys: Arc<[u32]>,
}

impl RunThreads {
    /// Spawns a thread of the run named `name`: it returns to SCHED_OTHER when it leaves
    /// (also on panic) and runs `f` with the run's context. A thread that cannot be spawned
    /// is a setup error (the run does not start); then `None`.
    pub(crate) fn spawn<T: Send + 'static>(
        &self,
        name: String,
        f: impl FnOnce(&Cx<'_>) -> T + Send + 'static,
    ) -> Option<JoinHandle<T>> {
        let (sh, ctls, phys) = (self.shared.clone(), self.ctls.clone(), self.phys.clone());
        let spawned = std::thread::Builder::new()
            .name(name.clone())
            .spawn(move || {
                let _other = ClassGuard::to_other();
                f(&Cx {
                    shared: &sh,
                    th: Threads {
                        ctls: &ctls,
                        phys: &phys,
                    },
                })
            });
        spawned
            .map_err(|e| self.shared.error(format!("spawn the thread {name}: {e}")))
            .ok()
    }
}

/// Starts one thread per worker: it sets itself up (`Architecture::set_up`), reports ready,
/// waits for time zero and works until the stop.
fn start_workers<A: Architecture>(
    arch: &Arc<A>,
    workers: Vec<A::Worker>,
    threads: &RunThreads,
) -> Vec<JoinHandle<A::Worker>> {
    let mut handles = Vec::with_capacity(workers.len());
    for w in workers {
        let arch = arch.clone();
        let spawned = threads.spawn(A::thread_name(&w), move |cx| {
            cx.shared.report_ready(arch.set_up(&w, cx));
            if !cx.shared.wait_go() {
                return w;
            }
            arch.work(w, cx)
        });
        let Some(h) = spawned else { break };
        handles.push(h);
    }
    handles
}
