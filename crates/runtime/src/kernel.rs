//! Kernel baselines: the same workload scheduled by Linux itself, for comparison with the
//! user-space architectures. No dispatcher runs; each task's thread releases its own jobs
//! like the benchmark tasks of [MP App. A, Fig. 9]: it sleeps until the job's release
//! (an absolute CLOCK_MONOTONIC futex wait — the same hrtimer sleep as `clock_nanosleep`,
//! which also ends early when the run stops), burns the job's WCET of CPU time, records it,
//! and sleeps until the next release. All tasks release their first job at a common time
//! zero plus their offset.
//!
//! - `linux-deadline`: each thread is SCHED_DEADLINE with runtime = WCET + `dl_margin`
//!   (capped at the deadline), the task's relative deadline and period, and affinity over
//!   all CPUs of the run (global EDF by the kernel's push/pull; the kernel requires the
//!   affinity to span the thread's root domain). Admission control failures are reported.
//!   With `dl_cpuset` the run's CPUs get a root domain of their own for the run
//!   ([`crate::mech::cpuset`]), so the kernel's EDF runs on them only (e.g. on the client
//!   CPUs of `message-passing`, for a comparison on equal job CPUs).
//! - `linux-fifo`: each thread is SCHED_FIFO with priority `98 − rank` (rank 0 = highest,
//!   from `--priorities`); global over the run's CPUs, or pinned to its CPU when a
//!   placement is given (partitioned fixed priority).
//!
//! What user space can observe, traced with the runtime's events: `release` (time = the
//! thread woke, `arg` = the intended release: `release_latency`), `switch-in` when the job's
//! code starts (`release_to_run`), and, from the burn loop's passes (each reads the TSC and
//! the CPU together, [`TickClock::ticks_and_cpu`], ~1 µs apart), a `switch-out`/`switch-in`
//! pair around every gap longer than
//! [`GAP_NS`] (counted as a preemption: another thread, an interrupt or a host stall took the
//! CPU) and a `migrate` when the CPU changed (counted as a migration); `switch-out` and
//! `complete` when the job ends. The kernel's own release handling, scheduling and context
//! switches are not visible separately.

use crate::config::{validate_tasks, Arch, Body, JobCtx, RtTask, RunConfig, PRIO_MAIN};
use crate::error::RuntimeError;
use crate::mech::burn::{burn, WorkingSet};
use crate::mech::clock::{monotonic_ns, thread_cputime_ns, TickClock};
use crate::mech::cpuset::RootDomain;
use crate::mech::sched::{self, Class, ClassGuard};
use crate::mech::{futex, signals, MechError};
use crate::run::{account, validate_cpus, RunResult};
use crate::state::RawRecord;
use crate::watchdog::{
    join_until, setup_outcome, start_and_watch, warn_left_behind, Flags, Outcome,
};
use schedlab_model::Time;
use schedlab_trace::overheads::Overheads;
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::{Event, Kind};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// An execution gap longer than this between two passes of the burn loop counts as a
/// preemption (a pass takes well under a microsecond; timer ticks cost a few).
pub const GAP_NS: u64 = 20_000;

/// The watchdog's SCHED_FIFO priority under `linux-fifo` (above every job priority).
const PRIO_WATCHDOG_FIFO: u8 = 99;

/// How a task's thread is scheduled.
#[derive(Clone, Copy, Debug)]
enum Policy {
    Deadline {
        runtime: u64,
        deadline: u64,
        period: u64,
    },
    Fifo(u8),
    Other,
}

/// What a job thread shares with the run.
struct Env {
    clock: TickClock,
    t0: AtomicU64,
    go: AtomicU32,
    stop: AtomicBool,
    /// Futex word the sleeping threads wait on (bumped at the stop).
    stop_word: AtomicU32,
    horizon_ns: u64,
    cpus: Vec<u32>,
    gap_ticks: u64,
}

impl Env {
    fn logical(&self, phys: Option<u32>) -> u32 {
        phys.and_then(|p| self.cpus.iter().position(|&c| c == p))
            .map_or(u32::MAX, |c| c as u32)
    }
}

/// What a job thread returns.
struct Done {
    buf: TraceBuf,
    records: Vec<RawRecord>,
}

fn policies(tasks: &[RtTask], config: &RunConfig) -> Result<Vec<Policy>, RuntimeError> {
    let mut out = Vec::with_capacity(tasks.len());
    for (i, t) in tasks.iter().enumerate() {
        match config.arch {
            Arch::LinuxDeadline => {
                let (d, p) = (t.deadline.as_ns(), t.period.as_ns());
                if d > p {
                    return Err(RuntimeError::InvalidTask {
                        task: i,
                        field: "deadline",
                        message: format!(
                            "is {d} ns, above the period {p} ns: SCHED_DEADLINE needs deadline ≤ period"
                        ),
                    });
                }
                let runtime = t
                    .wcet
                    .as_ns()
                    .saturating_add(config.dl_margin.as_ns())
                    .min(d)
                    .max(1024);
                out.push(Policy::Deadline {
                    runtime,
                    deadline: d,
                    period: p,
                });
            }
            _ => {
                let rank = config.ranks.get(i).copied().unwrap_or(0);
                let prio = 98u32.checked_sub(rank).filter(|&p| p >= 1).ok_or_else(|| {
                    RuntimeError::InvalidTask {
                        task: i,
                        field: "priority",
                        message: format!(
                            "has rank {rank}: linux-fifo maps ranks 0..=97 to SCHED_FIFO priorities 98..=1"
                        ),
                    }
                })?;
                out.push(Policy::Fifo(prio as u8));
            }
        }
    }
    Ok(out)
}

/// Explains a failed SCHED_DEADLINE setup of task `i`.
fn explain_dl(i: usize, e: &MechError, p: Policy, config: &RunConfig, tasks: &[RtTask]) -> String {
    let Policy::Deadline {
        runtime, period, ..
    } = p
    else {
        return format!("task {i}: {e}");
    };
    let online = sched::configured_cpus();
    match e {
        MechError::NotPermitted { .. } => format!(
            "task {i}: SCHED_DEADLINE refused (EPERM). As root this means the thread's affinity does not span its root domain: deadline threads are scheduled globally over a root domain (all {online} CPUs of this machine unless cpusets split it), and the run's CPUs are {:?}; run linux-deadline on every CPU of the root domain, or pass --dl-cpuset to give the run's CPUs a root domain of their own. Without root, CAP_SYS_NICE is needed.",
            config.cpus
        ),
        MechError::Os { errno, .. } if *errno == libc::EBUSY => {
            let total: f64 = tasks
                .iter()
                .map(|t| {
                    (t.wcet.as_ns() + config.dl_margin.as_ns()).min(t.deadline.as_ns()) as f64
                        / t.period.as_ns().max(1) as f64
                })
                .sum();
            let limit = crate::throttle::rt_limit().map_or(1.0, |l| l.0);
            format!(
                "task {i}: SCHED_DEADLINE admission control refused runtime {runtime} ns / period {period} ns (EBUSY): the set reserves Σ runtime/period = {total:.3}, the kernel admits at most {limit:.2} per CPU of the root domain ({online} CPUs), minus what other deadline threads hold; lower --dl-margin or the load"
            )
        }
        other => format!("task {i}: {other}"),
    }
}

/// Runs `tasks` under a kernel baseline (see the module doc). `started` is when the caller
/// began (for the wall time).
pub(crate) fn run_kernel(
    tasks: &[RtTask],
    config: &RunConfig,
    started: std::time::Instant,
) -> Result<RunResult, RuntimeError> {
    validate_tasks(tasks)?;
    validate_cpus(&config.cpus)?;
    let n = tasks.len();
    let m = config.m();
    let placement = match (config.arch, config.placement.as_ref()) {
        (Arch::LinuxFifo, Some(p)) if p.domain_size == 1 => {
            if p.domain_of_task.len() != n {
                return Err(RuntimeError::InvalidConfig {
                    field: "placement",
                    message: format!("{} entries for {n} tasks", p.domain_of_task.len()),
                });
            }
            if let Some((i, c)) = p.domain_of_task.iter().enumerate().find(|(_, c)| **c >= m) {
                return Err(RuntimeError::InvalidTask {
                    task: i,
                    field: "cpu",
                    message: format!("is {c}, but the run has CPUs 0..{m}"),
                });
            }
            Some(p.domain_of_task.clone())
        }
        _ => None,
    };
    let mut pols = policies(tasks, config)?;
    let mut warnings = crate::throttle::warnings(tasks, config);
    // Split the root domain before anything runs real-time; undone when this returns.
    let domain = if config.dl_cpuset && config.arch == Arch::LinuxDeadline {
        let d = RootDomain::isolate(&config.cpus)?;
        warnings.extend(d.repaired.iter().cloned());
        Some(Arc::new(d))
    } else {
        None
    };

    let _restore = ClassGuard::new();
    let real_time = match sched::set_class(0, Class::Fifo(PRIO_WATCHDOG_FIFO.max(PRIO_MAIN))) {
        Ok(()) => true,
        Err(MechError::NotPermitted { what }) => {
            if !config.allow_non_rt {
                return Err(MechError::NotPermitted { what }.into());
            }
            warnings.push(format!(
                "{} not permitted: ran under SCHED_OTHER (--allow-non-rt); this is not the kernel baseline",
                config.arch.name()
            ));
            pols.iter_mut().for_each(|p| *p = Policy::Other);
            false
        }
        Err(e) => return Err(e.into()),
    };
    let _capture = signals::Capture::new()?;
    let clock = TickClock::new(20_000_000);
    let duration = config.duration.as_ns();
    let gap_ticks = (clock.frequency_hz() * GAP_NS as f64 / 1e9) as u64;
    let env = Arc::new(Env {
        clock,
        t0: AtomicU64::new(0),
        go: AtomicU32::new(0),
        stop: AtomicBool::new(false),
        stop_word: AtomicU32::new(0),
        horizon_ns: duration,
        cpus: config.cpus.clone(),
        gap_ticks: gap_ticks.max(1),
    });
    let ready = Arc::new(AtomicU32::new(0));
    let errors: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let failed = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::with_capacity(n);
    for (i, t) in tasks.iter().enumerate() {
        let pol = pols.get(i).copied().unwrap_or(Policy::Other);
        let affinity: Vec<u32> = match placement.as_ref().and_then(|p| p.get(i)) {
            Some(&c) => vec![config.cpus.get(c as usize).copied().unwrap_or(0)],
            None => config.cpus.clone(),
        };
        let jobs = (duration.saturating_sub(t.offset.as_ns())).div_ceil(t.period.as_ns().max(1))
            as usize
            + 1;
        let cap = config
            .trace_capacity
            .unwrap_or((jobs * 16 + 256).min(1 << 21));
        let (tenv, ready, errors, failed, domain) = (
            env.clone(),
            ready.clone(),
            errors.clone(),
            failed.clone(),
            domain.clone(),
        );
        let t = t.clone();
        let setup_err = {
            let config = config.clone();
            let tasks: Vec<RtTask> = tasks.to_vec();
            move |e: MechError| explain_dl(i, &e, pol, &config, &tasks)
        };
        let h = std::thread::Builder::new()
            .name(format!("sl-task{i}"))
            .spawn(move || {
                let _other = ClassGuard::to_other();
                let setup = domain
                    .as_ref()
                    .map_or(Ok(()), |d| d.attach(sched::gettid()))
                    .and_then(|()| sched::set_affinity(0, &affinity))
                    .and_then(|()| match pol {
                        Policy::Deadline {
                            runtime,
                            deadline,
                            period,
                        } => sched::set_deadline(0, runtime, deadline, period),
                        Policy::Fifo(p) => sched::set_class(0, Class::Fifo(p)),
                        Policy::Other => Ok(()),
                    });
                if let Err(e) = setup {
                    if let Ok(mut v) = errors.lock() {
                        v.push(setup_err(e));
                    }
                }
                ready.fetch_add(1, Ordering::Release);
                signals::notify();
                while tenv.go.load(Ordering::Acquire) == 0 {
                    futex::wait(&tenv.go, 0, None);
                }
                let done = task_loop(i as u32, &t, &tenv, cap, jobs);
                if let Err(msg) = &done.1 {
                    if let Ok(mut v) = errors.lock() {
                        v.push(msg.clone());
                    }
                    failed.store(true, Ordering::Release);
                    signals::notify();
                }
                done.0
            });
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                env.stop.store(true, Ordering::Release);
                env.go.store(1, Ordering::Release);
                futex::wake(&env.go, u32::MAX);
                return Err(RuntimeError::Setup(format!(
                    "spawn the thread of task {i}: {e}"
                )));
            }
        }
    }
    // Setup, time zero, go.
    let total = handles.len() as u32;
    let flags = Flags {
        ready: &ready,
        errors: &errors,
        failed: &failed,
        t0: &env.t0,
        go: &env.go,
        stop: &env.stop,
    };
    let Outcome {
        t0,
        setup_failed,
        interrupted,
        horizon_ns,
    } = start_and_watch(&flags, total, duration);
    env.stop_word.fetch_add(1, Ordering::Release);
    futex::wake(&env.stop_word, u32::MAX);
    let grace_end = monotonic_ns() + config.grace.as_ns();
    let mut left_behind = 0usize;
    let finished = join_until(
        handles,
        grace_end,
        "job thread",
        &mut warnings,
        &mut left_behind,
    );
    warn_left_behind(left_behind, &mut warnings);
    setup_outcome(&errors, setup_failed, &mut warnings)?;
    drop(_capture);

    let mut clock = env.clock;
    clock.refit();
    let conv = |ticks: u64| clock.to_mono_ns(ticks).saturating_sub(t0);
    let mut trace: Vec<Event> = Vec::new();
    let mut raw: Vec<RawRecord> = Vec::new();
    let mut dropped = 0u64;
    for mut d in finished {
        dropped += d.buf.dropped();
        trace.extend(d.buf.events());
        raw.append(&mut d.records);
    }
    for e in &mut trace {
        e.time = conv(e.time);
        if e.kind == Kind::Complete {
            e.arg = conv(e.arg);
        }
    }
    trace.sort_by_key(|e| e.time);
    if dropped > 0 {
        warnings.push(format!(
            "{dropped} trace events were dropped (full buffers): overheads and trace checks are incomplete; raise the trace capacity"
        ));
    }
    let horizon = Time::from_ns(horizon_ns);
    let (jobs, per_task, totals) = account(raw, &conv, horizon_ns, tasks, &trace);
    let overheads = Overheads::from_trace(&trace);
    Ok(RunResult {
        jobs,
        per_task,
        totals,
        trace,
        overheads,
        events_processed: 0,
        horizon,
        real_time,
        interrupted,
        dropped_events: dropped,
        tick_hz: clock.frequency_hz(),
        tsc: clock.is_tsc(),
        wall_seconds: started.elapsed().as_secs_f64(),
        warnings,
    })
}

/// The loop of task `task`'s thread: release, run, record, until the horizon or the stop.
/// Returns its buffer and records, and an error message if a custom body panicked.
fn task_loop(
    task: u32,
    t: &RtTask,
    env: &Env,
    cap: usize,
    jobs: usize,
) -> (Done, Result<(), String>) {
    let buf = TraceBuf::new(cap);
    let mut records: Vec<RawRecord> = Vec::with_capacity(jobs);
    let mut ws = t.wss.map(|w| WorkingSet::new(w as usize));
    let t0 = env.t0.load(Ordering::Acquire);
    let (period, deadline, wcet) = (t.period.as_ns(), t.deadline.as_ns(), t.wcet.as_ns());
    let mut rel = t.offset.as_ns();
    let mut seq = 0u64;
    let mut outcome = Ok(());
    let stopping = || env.stop.load(Ordering::Relaxed);
    while rel < env.horizon_ns && !stopping() {
        // Release: sleep until it (unless late already).
        let seen = env.stop_word.load(Ordering::Acquire);
        while monotonic_ns() < t0 + rel && !stopping() {
            futex::wait(&env.stop_word, seen, Some(t0 + rel));
        }
        if stopping() {
            break;
        }
        let (woke, phys0) = env.clock.ticks_and_cpu();
        let cpu0 = env.logical(phys0);
        buf.record(woke, Kind::Release, cpu0, task, seq, rel);
        // Run.
        let cpu_start = thread_cputime_ns();
        let (start, phys_run) = env.clock.ticks_and_cpu();
        let cpu_run = env.logical(phys_run);
        buf.record(start, Kind::SwitchIn, cpu_run, task, seq, 0);
        let cur = Cell::new(cpu_run);
        let last = Cell::new(start);
        let observe = || {
            // One read for both: a preemption between a time and a CPU read would pair one
            // CPU's instant with the next CPU.
            let (now, phys) = env.clock.ticks_and_cpu();
            let c = env.logical(phys);
            let prev = cur.get();
            // The job lost its CPU (a gap: another thread, an interrupt or a host stall took
            // it; or a move to another CPU, which the kernel makes only with the job off its
            // CPU): one preemption (`schedlab_trace::counts`), and a migration if it moved.
            if c != prev || now.saturating_sub(last.get()) > env.gap_ticks {
                buf.record(last.get(), Kind::SwitchOut, prev, task, seq, 0);
                buf.record(last.get(), Kind::Preempt, prev, task, seq, 0);
                buf.record(now, Kind::SwitchIn, c, task, seq, 0);
                if c != prev {
                    buf.record(now, Kind::Migrate, c, task, seq, u64::from(prev));
                    cur.set(c);
                }
            }
            last.set(now);
            stopping()
        };
        match &t.body {
            Body::Burn => {
                burn(wcet, ws.as_mut(), observe);
            }
            Body::Custom(f) => {
                let stop = || stopping();
                let jc = JobCtx {
                    task,
                    seq,
                    stop: &stop,
                };
                if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&jc))) {
                    let msg = p
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a panic".into());
                    outcome = Err(format!(
                        "task {task} job {seq}: the job body panicked: {msg}"
                    ));
                }
            }
        }
        let executed = thread_cputime_ns().saturating_sub(cpu_start);
        let end = match &t.body {
            // A last look: a preemption or migration after the burn loop's last pass ends
            // the interval there (else the job's `switch-out` would claim a CPU that ran
            // another thread meanwhile).
            Body::Burn => {
                observe();
                last.get()
            }
            // Custom bodies are not observed inside: one interval on the CPU they started on.
            Body::Custom(_) => env.clock.ticks(),
        };
        let finished = !stopping() && outcome.is_ok();
        buf.record(end, Kind::SwitchOut, cur.get(), task, seq, 0);
        if finished {
            buf.record(end, Kind::Complete, cur.get(), task, seq, end);
        }
        records.push(RawRecord {
            task,
            seq,
            release_ns: rel,
            deadline_ns: rel.saturating_add(deadline),
            start_ticks: Some(start),
            completion_ticks: finished.then_some(end),
            executed_ns: executed,
        });
        seq += 1;
        rel = rel.saturating_add(period);
        if outcome.is_err() {
            break;
        }
    }
    // Releases before the horizon that never ran.
    while rel < env.horizon_ns {
        records.push(RawRecord {
            task,
            seq,
            release_ns: rel,
            deadline_ns: rel.saturating_add(deadline),
            ..RawRecord::default()
        });
        seq += 1;
        rel = rel.saturating_add(period);
    }
    (Done { buf, records }, outcome)
}
