//! One run from start to result.
//!
//! 1. Validate: tasks, CPUs (exist and allowed by this process's affinity), policy and
//!    placement. Check that SCHED_FIFO is permitted (a clear error, or SCHED_OTHER with
//!    `allow_non_rt`).
//! 2. Calibrate the clock; preallocate every trace buffer and working set; spawn one job
//!    thread per task and one dispatcher per CPU; each sets its own class and affinity and
//!    reports ready.
//! 3. Time zero = now + 5 ms; every task's first job is released at time zero plus its offset
//!    (synchronous release [MP App. A]).
//! 4. The calling thread becomes the watchdog (SCHED_FIFO above every other thread of the
//!    run): it sleeps until the horizon, or until SIGINT/SIGTERM or a failing job body, then
//!    stops the dispatchers, then the jobs; a thread that does not finish within `grace` is
//!    left behind and reported. Overload cannot delay the end: the watchdog outranks every
//!    thread, and the kernel's RT throttling stays on.
//! 5. Drain the trace buffers (ticks → ns since time zero, merged by time), build the job
//!    records and metrics (the simulator's types and accounting) and the overheads.
//!
//! Every thread returns to SCHED_OTHER when it leaves (a guard, also on panic); the caller's
//! class is restored when the run returns.

use crate::config::{validate_tasks, Arch, RtTask, RunConfig, PRIO_DISPATCH, PRIO_JOB, PRIO_MAIN};
use crate::dispatch::{Dispatcher, Domain, Doorbell, Shared, Timing};
use crate::error::RuntimeError;
use crate::job::{job_loop, InlineCompletion, JobCtl, JobEnv};
use crate::mech::clock::{monotonic_ns, TickClock};
use crate::mech::lock::Locked;
use crate::mech::sched::{self, Class, ClassGuard};
use crate::mech::{futex, preempt, signals, MechError};
use crate::mp::client::Client;
use crate::mp::dsp::Dsp;
use crate::mp::MpShared;
use crate::state::{RawRecord, Sched, TaskSpec, Threads};
use crate::watchdog::{
    join_until, setup_outcome, start_and_watch, warn_left_behind, Flags, Outcome,
};
use schedlab_model::{Duration, Time};
use schedlab_policy::{build, Placement, PolicyTask};
use schedlab_trace::counts::{context_switches, job_counts, JobCounts};
use schedlab_trace::metrics::{summarize, JobRecord, TaskAcc, TaskMetrics, Totals};
use schedlab_trace::overheads::Overheads;
use schedlab_trace::Event;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

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
}

/// Jobs released in a run of `duration` ns (an upper bound).
fn expected_jobs(tasks: &[RtTask], duration: u64) -> usize {
    tasks
        .iter()
        .map(|t| (duration / t.period.as_ns().max(1)) as usize + 2)
        .sum()
}

/// Estimated events per job thread / dispatcher buffer.
pub(crate) fn capacities(tasks: &[RtTask], duration: u64, cfg: &RunConfig) -> (Vec<usize>, usize) {
    const CAP: usize = 1 << 21;
    let jobs: Vec<usize> = tasks
        .iter()
        .map(|t| (duration / t.period.as_ns().max(1)) as usize + 2)
        .collect();
    let per_job: Vec<usize> = jobs
        .iter()
        .map(|j| cfg.trace_capacity.unwrap_or((j * 8 + 64).min(CAP)))
        .collect();
    let total: usize = jobs.iter().sum();
    let disp = cfg
        .trace_capacity
        .unwrap_or((total.saturating_mul(32) + 4096).min(CAP));
    (per_job, disp)
}

/// Checks that the CPUs exist and are allowed; returns the allowed set (for messages).
pub(crate) fn validate_cpus(cpus: &[u32]) -> Result<(), RuntimeError> {
    if cpus.is_empty() {
        return Err(RuntimeError::InvalidConfig {
            field: "cpus",
            message: "no CPU given".into(),
        });
    }
    let allowed = sched::allowed_cpus()?;
    let list = allowed
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    for (i, c) in cpus.iter().enumerate() {
        if cpus.get(..i).is_some_and(|p| p.contains(c)) {
            return Err(RuntimeError::InvalidConfig {
                field: "cpu-list",
                message: format!("CPU {c} is listed twice"),
            });
        }
        if !allowed.contains(c) {
            return Err(RuntimeError::CpuNotAllowed {
                cpu: *c,
                allowed: list,
            });
        }
    }
    Ok(())
}

/// Runs `tasks` under `config` (see the module doc), with the cache-thrashing background load
/// of [`RunConfig::background_load`] around the run if one is asked for.
pub fn run(tasks: &[RtTask], config: &RunConfig) -> Result<RunResult, RuntimeError> {
    let Some(bytes) = config.background_load else {
        return run_architecture(tasks, config);
    };
    validate_cpus(&config.cpus)?;
    // Started before the run raises this thread to SCHED_FIFO, so the background threads are
    // created under SCHED_OTHER (they demote themselves as well).
    let mut load = crate::background::BackgroundLoad::start(&config.cpus, bytes)?;
    let result = run_architecture(tasks, config);
    load.stop();
    result
}

fn run_architecture(tasks: &[RtTask], config: &RunConfig) -> Result<RunResult, RuntimeError> {
    let started = std::time::Instant::now();
    validate_tasks(tasks)?;
    validate_cpus(&config.cpus)?;
    if config.duration.is_zero() {
        return Err(RuntimeError::InvalidConfig {
            field: "duration",
            message: "must be greater than zero".into(),
        });
    }
    let n = tasks.len();
    let m = config.m();
    if config.dedicated_irq_cpu && !matches!(config.arch, Arch::GlobalLock(_)) {
        return Err(RuntimeError::InvalidConfig {
            field: "dedicated-irq-cpu",
            message: format!(
                "applies to --arch global-lock only, not `{}` (message-passing has its DSP by design)",
                config.arch.name()
            ),
        });
    }
    if config.dl_cpuset && config.arch != Arch::LinuxDeadline {
        return Err(RuntimeError::InvalidConfig {
            field: "dl-cpuset",
            message: format!(
                "applies to --arch linux-deadline only, not `{}` (the other architectures pin their threads themselves)",
                config.arch.name()
            ),
        });
    }
    if config.ranks.len() != n {
        return Err(RuntimeError::InvalidConfig {
            field: "ranks",
            message: format!("{} priority ranks for {n} tasks", config.ranks.len()),
        });
    }
    let policy_tasks: Vec<PolicyTask> = tasks
        .iter()
        .zip(&config.ranks)
        .map(|(t, &rank)| PolicyTask {
            wcet: t.wcet,
            deadline: t.deadline,
            period: t.period,
            rank,
            utility: None,
        })
        .collect();
    let spec: Arc<[TaskSpec]> = tasks
        .iter()
        .map(|t| TaskSpec {
            wcet: t.wcet.as_ns(),
            deadline: t.deadline.as_ns(),
        })
        .collect();

    // Domains: one per CPU (partitioned) or one for all (global-lock).
    let mut warnings = Vec::new();
    let mut domains: Vec<(u32, Domain, Vec<u32>)> = Vec::new(); // (cpu, domain, releases)
    let mut pinned: Vec<Option<u32>> = vec![None; n];
    let mut mp_sched: Option<Sched> = None;
    match config.arch {
        Arch::Partitioned => {
            let Some(p) = config.placement.as_ref().filter(|p| p.domain_size == 1) else {
                return Err(RuntimeError::InvalidConfig {
                    field: "arch",
                    message: format!(
                        "`partitioned` needs a partitioned policy (pedf, pfp) with a placement of every task on a CPU, not `{}`",
                        config.policy
                    ),
                });
            };
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
            if !matches!(config.policy.as_str(), "pedf" | "pfp") {
                return Err(RuntimeError::InvalidConfig {
                    field: "policy",
                    message: format!(
                        "`partitioned` runs `pedf` or `pfp`, not `{}` (use --arch global-lock for global policies)",
                        config.policy
                    ),
                });
            }
            let local = Placement {
                domain_of_task: vec![0; n],
                domain_size: 1,
            };
            for c in 0..m {
                let policy = build(&config.policy, &policy_tasks, 1, Some(local.clone()))?;
                let mine: Vec<u32> = (0..n as u32)
                    .filter(|&i| p.domain_of_task.get(i as usize) == Some(&c))
                    .collect();
                for &i in &mine {
                    if let Some(s) = pinned.get_mut(i as usize) {
                        *s = Some(c);
                    }
                }
                let st = Sched::new(policy, c, spec.clone());
                domains.push((c, Domain::Own(Box::new(st)), mine));
            }
        }
        Arch::GlobalLock(kind) => {
            let first = config.job_cpus().start;
            let k = policy_cpus(config)?;
            let policy = build(&config.policy, &policy_tasks, k, config.placement.clone())?;
            let st = Arc::new(Locked::new(
                kind,
                m as usize,
                Sched::new(policy, first, spec.clone()),
            ));
            for c in 0..m {
                // GSN-EDF-DI: CPU 0 owns every release; else task i → CPU i mod m.
                let mine: Vec<u32> = (0..n as u32)
                    .filter(|i| if first == 1 { c == 0 } else { i % m == c })
                    .collect();
                domains.push((c, Domain::Locked(st.clone()), mine));
            }
        }
        Arch::MessagePassing => {
            let k = policy_cpus(config)?;
            if n > crate::mp::slot::MAX_TASKS {
                return Err(RuntimeError::InvalidConfig {
                    field: "arch",
                    message: format!(
                        "message-passing names at most {} tasks, the set has {n}",
                        crate::mp::slot::MAX_TASKS
                    ),
                });
            }
            let policy = build(&config.policy, &policy_tasks, k, config.placement.clone())?;
            let mut st = Sched::new(policy, 1, spec.clone());
            st.set_message_passing();
            // Room for every job record: no reallocation while the DSP handles messages.
            st.records
                .reserve(expected_jobs(tasks, config.duration.as_ns()));
            mp_sched = Some(st);
        }
        Arch::LinuxDeadline | Arch::LinuxFifo => {
            return crate::kernel::run_kernel(tasks, config, started);
        }
    }
    warnings.extend(crate::throttle::warnings(tasks, config));

    // Real-time permission (the caller's class is restored when `_restore` drops).
    let _restore = ClassGuard::new();
    let real_time = match sched::set_class(0, Class::Fifo(PRIO_MAIN)) {
        Ok(()) => true,
        Err(MechError::NotPermitted { what }) => {
            if !config.allow_non_rt {
                return Err(MechError::NotPermitted { what }.into());
            }
            warnings.push(
                "SCHED_FIFO not permitted: ran under SCHED_OTHER (--allow-non-rt); timing results are not real-time".into(),
            );
            false
        }
        Err(e) => return Err(e.into()),
    };
    preempt::install()?;
    let _capture = signals::Capture::new()?;

    let clock = TickClock::new(20_000_000);
    let duration = config.duration.as_ns();
    let (job_caps, disp_cap) = capacities(tasks, duration, config);
    let ctls: Vec<Arc<JobCtl>> = (0..n)
        .map(|i| {
            let cap = job_caps.get(i).copied().unwrap_or(1024);
            Arc::new(JobCtl::new(i as u32, cap, clock, &config.cpus))
        })
        .collect();
    for (i, p) in pinned.iter().enumerate() {
        if let (Some(c), Some(ctl)) = (p, ctls.get(i)) {
            ctl.pinned.store(*c, Ordering::Relaxed);
        }
    }
    let shared = Arc::new(Shared {
        clock,
        t0: AtomicU64::new(0),
        go: AtomicU32::new(0),
        stop: AtomicBool::new(false),
        bells: (0..m).map(|_| Doorbell::default()).collect(),
        timing: tasks
            .iter()
            .map(|t| Timing {
                offset: t.offset.as_ns(),
                period: t.period.as_ns(),
            })
            .collect(),
        horizon_ns: duration,
        release_spin_ns: config.release_spin.as_ns(),
        next_timer: (0..m).map(|_| AtomicU64::new(u64::MAX)).collect(),
    });
    let phys: Arc<Vec<u32>> = Arc::new(config.cpus.clone());
    let ready = Arc::new(AtomicU32::new(0));
    let errors: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let failed = Arc::new(AtomicBool::new(false));
    let class = |p: u8| {
        if real_time {
            Class::Fifo(p)
        } else {
            Class::Other
        }
    };
    let report = |errors: &Mutex<Vec<String>>, msg: String| {
        if let Ok(mut e) = errors.lock() {
            e.push(msg);
        }
    };

    let mut mp_state = MpShared::new(
        m.saturating_sub(1) as usize,
        n,
        // The DSP's CPU runs no job: it always spins at least the default margin.
        config
            .release_spin
            .as_ns()
            .max(crate::config::DEFAULT_DSP_SPIN_NS),
        config.release_spin.as_ns(),
        config.dsp_poll,
    );
    mp_state.inline_completion = config.arch == Arch::MessagePassing && config.inline_completion;
    let mp_shared = Arc::new(mp_state);
    // Every thread that dispatches jobs reads every control block: one shared list.
    let all_ctls: Arc<[Arc<JobCtl>]> = ctls.clone().into();
    // Job threads.
    let mut job_handles = Vec::with_capacity(n);
    for (i, t) in tasks.iter().enumerate() {
        let Some(ctl) = ctls.get(i).cloned() else {
            continue;
        };
        let (sh, phys, ready, errors, failed, mp) = (
            shared.clone(),
            phys.clone(),
            ready.clone(),
            errors.clone(),
            failed.clone(),
            mp_shared.clone(),
        );
        // The control blocks, for a completion handled inline (it dispatches the next job).
        let peers = all_ctls.clone();
        let body = t.body.clone();
        let (wcet_ns, wss) = (t.wcet.as_ns(), t.wss);
        let cls = class(PRIO_JOB);
        let affinity: Vec<u32> = match pinned.get(i).copied().flatten() {
            Some(c) => vec![phys.get(c as usize).copied().unwrap_or(0)],
            None => config
                .job_cpus()
                .filter_map(|c| phys.get(c as usize).copied())
                .collect(),
        };
        let h = std::thread::Builder::new()
            .name(format!("sl-task{i}"))
            .spawn(move || {
                let _other = ClassGuard::to_other();
                ctl.tid.store(sched::gettid(), Ordering::Relaxed);
                let setup =
                    sched::set_affinity(0, &affinity).and_then(|()| sched::set_class(0, cls));
                let _reg = preempt::Registration::new(ctl.clone() as Arc<dyn preempt::OnPreempt>);
                if let Err(e) = setup {
                    report(&errors, format!("task {i}: {e}"));
                }
                ready.fetch_add(1, Ordering::Release);
                signals::notify();
                let ring = |cpu: u32| {
                    if let Some(b) = sh.bells.get(cpu as usize) {
                        b.ring();
                    }
                };
                let inline = |me: &JobCtl, cpu: u32| {
                    let th = Threads {
                        ctls: &peers,
                        phys: &phys,
                    };
                    crate::mp::client::complete_inline(me, cpu, &sh, &mp, &th)
                };
                let env = JobEnv {
                    body: &body,
                    wcet_ns,
                    wss,
                    ring: &ring,
                    complete_inline: mp
                        .inline_completion
                        .then_some(&inline as &InlineCompletion<'_>),
                };
                if let Err(msg) = job_loop(&ctl, &env) {
                    report(&errors, msg);
                    failed.store(true, Ordering::Release);
                    signals::notify();
                }
                drop(phys);
            });
        match h {
            Ok(h) => job_handles.push(h),
            Err(e) => {
                shared.stop.store(true, Ordering::Release);
                for c in &ctls {
                    c.stop();
                }
                return Err(RuntimeError::Setup(format!(
                    "spawn the thread of task {i}: {e}"
                )));
            }
        }
    }

    // Dispatchers (or the DSP and its clients).
    let mut workers: Vec<Worker> = Vec::with_capacity(m as usize);
    let first = config.job_cpus().start;
    for (cpu, domain, releases) in domains {
        let base = match &domain {
            Domain::Own(_) => cpu,
            Domain::Locked(_) => first,
        };
        let (local, slot, timer_owner) = match &domain {
            Domain::Own(_) => (Some(0), 0, cpu),
            Domain::Locked(_) => (
                (cpu >= first).then(|| (cpu - first) as usize),
                cpu as usize,
                0,
            ),
        };
        workers.push(Worker::Disp(Dispatcher {
            cpu,
            base,
            local,
            slot,
            releases,
            timer_owner,
            timers: cpu == timer_owner,
            domain,
            buf: schedlab_trace::tracebuf::TraceBuf::new(disp_cap),
        }));
    }
    if let Some(st) = mp_sched.take() {
        let k = m.saturating_sub(1) as usize;
        workers.push(Worker::Dsp(Dsp::new(
            0,
            st,
            k,
            schedlab_trace::tracebuf::TraceBuf::new(disp_cap),
        )));
        for c in 1..m {
            workers.push(Worker::Client(Client::new(
                c,
                schedlab_trace::tracebuf::TraceBuf::new(disp_cap),
            )));
        }
    }
    let mut disp_handles = Vec::with_capacity(m as usize);
    for w in workers {
        let cpu = w.cpu();
        let (shared, ctls, phys, ready, errors, mp) = (
            shared.clone(),
            all_ctls.clone(),
            phys.clone(),
            ready.clone(),
            errors.clone(),
            mp_shared.clone(),
        );
        let cls = class(PRIO_DISPATCH);
        let h = std::thread::Builder::new()
            .name(w.thread_name())
            .spawn(move || {
                let _other = ClassGuard::to_other();
                let p = phys.get(cpu as usize).copied().unwrap_or(0);
                if let Err(e) = sched::set_affinity(0, &[p]).and_then(|()| sched::set_class(0, cls))
                {
                    report(&errors, format!("dispatcher of CPU {cpu}: {e}"));
                }
                ready.fetch_add(1, Ordering::Release);
                signals::notify();
                while shared.go.load(Ordering::Acquire) == 0 {
                    futex::wait(&shared.go, 0, None);
                }
                if shared.stop.load(Ordering::Acquire) {
                    return w;
                }
                let th = Threads {
                    ctls: &ctls,
                    phys: &phys,
                };
                match w {
                    Worker::Disp(d) => Worker::Disp(d.run(&shared, &th)),
                    Worker::Dsp(d) => Worker::Dsp(d.run(&shared, &mp, &th)),
                    Worker::Client(c) => Worker::Client(c.run(&shared, &mp, &th)),
                }
            });
        match h {
            Ok(h) => disp_handles.push(h),
            Err(e) => {
                warnings.push(format!("spawn the dispatcher of CPU {cpu}: {e}"));
                failed.store(true, Ordering::Release);
            }
        }
    }

    // Synchronous start at time zero, then the watchdog until the horizon.
    let total = (job_handles.len() + disp_handles.len()) as u32;
    let flags = Flags {
        ready: &ready,
        errors: &errors,
        failed: &failed,
        t0: &shared.t0,
        go: &shared.go,
        stop: &shared.stop,
    };
    let Outcome {
        t0,
        setup_failed,
        interrupted,
        horizon_ns,
    } = start_and_watch(&flags, total, duration);
    // Stop: dispatchers first (no new decisions), then the jobs.
    for b in &shared.bells {
        b.ring();
    }
    let grace_end = monotonic_ns() + config.grace.as_ns();
    let mut left_behind = 0usize;
    let dispatchers = join_until(
        disp_handles,
        grace_end,
        "dispatcher",
        &mut warnings,
        &mut left_behind,
    );
    for c in &ctls {
        c.stop();
    }
    join_until(
        job_handles,
        grace_end,
        "job thread",
        &mut warnings,
        &mut left_behind,
    );
    warn_left_behind(left_behind, &mut warnings);
    setup_outcome(&errors, setup_failed, &mut warnings)?;
    drop(_capture);

    // Drain.
    let mut clock = shared.clock;
    clock.refit();
    let conv = |ticks: u64| clock.to_mono_ns(ticks).saturating_sub(t0);
    let mut trace: Vec<Event> = Vec::new();
    let mut dropped = 0u64;
    let mut raw: Vec<RawRecord> = Vec::new();
    let mut calls = 0u64;
    let mut mech_errors = (0u64, None::<String>);
    let mut shared_state: Option<Arc<Locked<Sched>>> = None;
    let mut client_errors = (0u64, None::<String>);
    let mut take = |s: &mut Sched, raw: &mut Vec<RawRecord>| {
        raw.append(&mut s.records);
        raw.extend(s.unfinished(&ctls));
        calls += s.policy_calls;
        mech_errors.0 += s.mech_errors.0;
        if mech_errors.1.is_none() {
            mech_errors.1 = s.mech_errors.1.take();
        }
    };
    for w in dispatchers {
        match w {
            Worker::Disp(d) => {
                dropped += d.buf.dropped();
                trace.extend(d.buf.events());
                match d.domain {
                    Domain::Own(mut s) => take(&mut s, &mut raw),
                    Domain::Locked(l) => shared_state = Some(l),
                }
            }
            Worker::Dsp(mut d) => {
                dropped += d.buf.dropped();
                trace.extend(d.buf.events());
                take(&mut d.sched, &mut raw);
            }
            Worker::Client(c) => {
                dropped += c.buf.dropped();
                trace.extend(c.buf.events());
                client_errors.0 += c.mech_errors.0;
                if client_errors.1.is_none() {
                    client_errors.1 = c.mech_errors.1;
                }
            }
        }
    }

    if let Some(l) = shared_state {
        let mut g = l.lock(0);
        take(&mut g, &mut raw);
    }
    if let Ok(mut e) = mp_shared.inline_errors.lock() {
        client_errors.0 += e.0;
        if client_errors.1.is_none() {
            client_errors.1 = e.1.take();
        }
    }
    mech_errors.0 += client_errors.0;
    if mech_errors.1.is_none() {
        mech_errors.1 = client_errors.1.take();
    }
    let mut misplaced = 0u64;
    for c in &ctls {
        dropped += c.buf.dropped();
        trace.extend(c.buf.events());
        misplaced += c.misplaced.load(Ordering::Relaxed);
    }
    if misplaced > 0 {
        warnings.push(format!(
            "{misplaced} job switch-ins happened on another physical CPU than the one the job was dispatched to"
        ));
    }
    for e in &mut trace {
        e.time = conv(e.time);
        if e.kind == schedlab_trace::Kind::Complete {
            e.arg = conv(e.arg);
        }
    }
    trace.sort_by_key(|e| e.time);
    if dropped > 0 {
        warnings.push(format!(
            "{dropped} trace events were dropped (full buffers): overheads and trace checks are incomplete; raise the trace capacity"
        ));
    }
    if mech_errors.0 > 0 {
        warnings.push(format!(
            "{} mechanism calls failed, first: {}",
            mech_errors.0,
            mech_errors.1.unwrap_or_default()
        ));
    }

    // Records and metrics (the simulator's accounting).
    let horizon = Time::from_ns(horizon_ns);
    let (jobs, per_task, totals) = account(raw, &conv, horizon_ns, tasks, &trace);
    let overheads = Overheads::from_trace(&trace);
    Ok(RunResult {
        jobs,
        per_task,
        totals,
        trace,
        overheads,
        events_processed: calls,
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

/// A scheduler thread of a run.
enum Worker {
    /// A per-CPU dispatcher (`partitioned`, `global-lock`).
    Disp(Dispatcher),
    /// The dedicated scheduling processor (`message-passing`).
    Dsp(Dsp),
    /// A client of the DSP (`message-passing`).
    Client(Client),
}

impl Worker {
    fn cpu(&self) -> u32 {
        match self {
            Worker::Disp(d) => d.cpu,
            Worker::Dsp(d) => d.cpu,
            Worker::Client(c) => c.cpu,
        }
    }
    fn thread_name(&self) -> String {
        match self {
            Worker::Disp(d) => format!("sl-cpu{}", d.cpu),
            Worker::Dsp(_) => "sl-dsp".into(),
            Worker::Client(c) => format!("sl-client{}", c.cpu),
        }
    }
}

/// Number of CPUs the policy schedules: all, or all but logical CPU 0 (the DSP / the
/// dedicated interrupt CPU), which needs at least two CPUs.
fn policy_cpus(config: &RunConfig) -> Result<u32, RuntimeError> {
    let k = config.job_cpus().len() as u32;
    if k == 0 {
        return Err(RuntimeError::InvalidConfig {
            field: "cpus",
            message: format!(
                "{} needs at least 2 CPUs (CPU 0 schedules, the others run jobs)",
                if config.arch == Arch::MessagePassing {
                    "message-passing"
                } else {
                    "--dedicated-irq-cpu"
                }
            ),
        });
    }
    Ok(k)
}

/// The job records of the jobs released before the horizon, by (task, seq), and the
/// simulator's per-task and whole-run metrics of them. Each job's start, preemptions,
/// migrations and CPUs, and the context switches, are counted from the run's `trace` (ns,
/// time-ordered) by `schedlab_trace::counts` — the definition `schedlab trace stats` uses —
/// not by the architectures; the records give release, deadline, completion and CPU time.
///
/// A periodic job whose intended release lies before the horizon but that the run never
/// released (its releasing thread was kept off its CPU — e.g. by another program's real-time
/// thread — until the run stopped) is accounted too, as released and never started: every
/// job of the horizon is counted once, none is lost.
pub(crate) fn account(
    raw: Vec<RawRecord>,
    conv: &impl Fn(u64) -> u64,
    horizon_ns: u64,
    tasks: &[RtTask],
    trace: &[Event],
) -> (Vec<JobRecord>, Vec<TaskMetrics>, Totals) {
    let n = tasks.len();
    let horizon = Time::from_ns(horizon_ns);
    let mut counts = job_counts(trace);
    let mut jobs: Vec<JobRecord> = raw
        .into_iter()
        .filter(|r| r.release_ns < horizon_ns)
        .map(|r| {
            let c = counts.remove(&(r.task, r.seq)).unwrap_or_default();
            to_record(r, c, conv, horizon_ns)
        })
        .collect();
    let mut released = vec![0u64; n];
    for j in &jobs {
        if let Some(k) = released.get_mut(j.task as usize) {
            *k = (*k).max(j.seq + 1);
        }
    }
    for (i, (t, &k)) in tasks.iter().zip(&released).enumerate() {
        let (offset, period) = (t.offset.as_ns(), t.period.as_ns().max(1));
        let due = horizon_ns.saturating_sub(offset).div_ceil(period);
        for seq in k..due {
            let release_ns = offset.saturating_add(seq.saturating_mul(period));
            let deadline_ns = release_ns.saturating_add(t.deadline.as_ns());
            let mut rec = JobRecord::fresh(
                i as u32,
                seq,
                Time::from_ns(release_ns),
                Time::from_ns(deadline_ns),
                Vec::new(),
            );
            rec.tardiness =
                schedlab_model::Duration::from_ns(horizon_ns.saturating_sub(deadline_ns));
            jobs.push(rec);
        }
    }
    jobs.sort_unstable_by_key(|j| (j.task, j.seq));
    let mut accs = vec![TaskAcc::default(); n];
    for j in &jobs {
        if let Some(a) = accs.get_mut(j.task as usize) {
            a.add(j, horizon);
        }
    }
    let (per_task, totals) = summarize(&accs, &vec![None; n], context_switches(trace));
    (jobs, per_task, totals)
}

/// A job record from the architecture's raw record and the job's counters from the trace.
fn to_record(r: RawRecord, c: JobCounts, conv: &impl Fn(u64) -> u64, horizon: u64) -> JobRecord {
    let completion = r.completion_ticks.map(conv).filter(|&c| c <= horizon);
    let tardiness = match completion {
        Some(c) => c.saturating_sub(r.deadline_ns),
        None if r.deadline_ns <= horizon => horizon - r.deadline_ns,
        None => 0,
    };
    JobRecord {
        task: r.task,
        seq: r.seq,
        release: Time::from_ns(r.release_ns),
        deadline: Time::from_ns(r.deadline_ns),
        start: r.start_ticks.map(|t| Time::from_ns(conv(t))),
        completion: completion.map(Time::from_ns),
        cpus_used: c.cpus,
        preemptions: c.preemptions,
        migrations: c.migrations,
        executed: Duration::from_ns(r.executed_ns),
        tardiness: Duration::from_ns(tardiness),
        aborted: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_trace::Kind;

    fn raw(task: u32, seq: u64, period: u64, done: bool) -> RawRecord {
        let release_ns = seq * period;
        RawRecord {
            task,
            seq,
            release_ns,
            deadline_ns: release_ns + period,
            start_ticks: done.then_some(release_ns + 1),
            completion_ticks: done.then_some(release_ns + 2),
            executed_ns: if done { 1 } else { 0 },
        }
    }

    /// τ0 = (C 1, T = D = 10), horizon 35: releases at 0, 10, 20, 30 are due. The run
    /// processed only 0 and 10 (its releasing thread starved from then on): jobs 2 and 3 are
    /// accounted as released and never started; job 2 (deadline 30 ≤ 35) is a miss with
    /// tardiness 5, job 3 (deadline 40) is not.
    #[test]
    fn releases_the_run_never_processed_are_accounted() {
        let task = RtTask::new(
            schedlab_model::Duration::from_ns(1),
            schedlab_model::Duration::from_ns(10),
            schedlab_model::Duration::from_ns(10),
        );
        let records = vec![raw(0, 0, 10, true), raw(0, 1, 10, true)];
        let (jobs, per_task, totals) = account(records, &|t| t, 35, &[task], &[]);
        let seqs: Vec<u64> = jobs.iter().map(|j| j.seq).collect();
        assert_eq!(seqs, vec![0, 1, 2, 3]);
        assert_eq!(jobs[2].release, Time::from_ns(20));
        assert_eq!((jobs[2].start, jobs[2].completion), (None, None));
        assert_eq!(jobs[2].tardiness, schedlab_model::Duration::from_ns(5));
        assert_eq!(jobs[3].tardiness, schedlab_model::Duration::ZERO);
        assert_eq!(totals.jobs, 4);
        assert_eq!(totals.deadline_misses, 1);
        assert_eq!(per_task[0].jobs, 4);
    }

    /// Preemptions, migrations, CPUs and context switches come from the trace (one
    /// definition with `schedlab trace stats`, `schedlab_trace::counts`): job 0 ran on CPU 0,
    /// was parked (`preempt`), made runnable on CPU 1 and parked again before its thread ran
    /// there (no `switch-in`, no `preempt`: nothing executed), then ran on CPU 0 again. One
    /// preemption, no migration, CPUs [0], two context switches. (Counted by the dispatchers,
    /// as before, the record said two preemptions and two migrations.)
    #[test]
    fn counters_come_from_the_trace() {
        let task = RtTask::new(
            schedlab_model::Duration::from_ns(4),
            schedlab_model::Duration::from_ns(100),
            schedlab_model::Duration::from_ns(100),
        );
        let ev = |t, k, cpu| Event::new(t, k, cpu, 0, 0);
        let trace = [
            ev(1, Kind::SwitchIn, 0),
            ev(2, Kind::SwitchOut, 0),
            ev(2, Kind::Preempt, 0),
            ev(3, Kind::Link, 1),
            ev(4, Kind::Link, 0),
            ev(5, Kind::SwitchIn, 0),
            ev(8, Kind::SwitchOut, 0),
        ];
        let (jobs, _, totals) = account(vec![raw(0, 0, 100, true)], &|t| t, 50, &[task], &trace);
        assert_eq!((jobs[0].preemptions, jobs[0].migrations), (1, 0));
        assert_eq!(jobs[0].cpus_used, vec![0]);
        assert_eq!((totals.preemptions, totals.context_switches), (1, 2));
    }
}
