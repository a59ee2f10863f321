//! What the kernel baselines ([`super::linux_deadline`], [`super::linux_fifo`]) share: the
//! same workload scheduled by Linux itself, for comparison with the user-space
//! architectures. No dispatcher runs and there are no job threads of the runtime: each
//! task's thread is the architecture's worker and releases its own jobs like the benchmark
//! tasks of [MP App. A, Fig. 9]: it sleeps until the job's release (an absolute
//! CLOCK_MONOTONIC futex wait on the run's stop word — the same hrtimer sleep as
//! `clock_nanosleep`, which also ends early when the run stops), burns the job's WCET of CPU
//! time, records it, and sleeps until the next release. All tasks release their first job at
//! a common time zero plus their offset.
//!
//! What user space can observe, traced with the runtime's events: `release` (time = the
//! thread woke, `arg` = the intended release: `release_latency`), `switch-in` when the job's
//! code starts (`release_to_run`), and, from the burn loop's passes (each reads the TSC and
//! the CPU together, [`crate::mech::clock::TickClock::ticks_and_cpu`], ~1 µs apart), a `switch-out`, `preempt`,
//! `switch-in` triple around every gap longer than [`GAP_NS`] (another thread, an interrupt
//! or a host stall took the CPU) or move to another CPU (then with a `migrate`); `switch-out`
//! and `complete` when the job ends. The kernel's own release handling, scheduling and
//! context switches are not visible separately.

mod fork_join;

pub(crate) use fork_join::{check_parallel, slot_demand, slots};

use crate::arch::{Cx, Harvest, Run};
use crate::config::{run_custom, Body, JobCtx, RtTask};
use crate::error::RuntimeError;
use crate::mech::burn::{burn, WorkingSet};
use crate::mech::clock::{monotonic_ns, thread_cputime_ns};
use crate::mech::sched::{self, Class};
use crate::mech::{futex, MechError};
use crate::state::RawRecord;
use fork_join::ForkJoin;
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// An execution gap longer than this between two passes of the burn loop counts as a
/// preemption (a pass takes well under a microsecond; timer ticks cost a few).
pub(crate) const GAP_NS: u64 = 20_000;

/// The watchdog's SCHED_FIFO priority under the kernel baselines (above every job priority
/// of `linux-fifo`).
pub(crate) const PRIO_WATCHDOG: u8 = 99;

/// A task thread reserves room for at most this many job records before the run (then its
/// record vector grows, between two of its jobs).
const RECORDS_RESERVED_MAX: u64 = 1 << 20;

/// How a task's thread is scheduled by the kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ThreadClass {
    /// SCHED_DEADLINE (ns).
    Deadline {
        /// Reserved runtime per period.
        runtime: u64,
        /// Relative deadline.
        deadline: u64,
        /// Period.
        period: u64,
    },
    /// SCHED_FIFO at this priority.
    Fifo(u8),
}

/// A kernel baseline's worker: one task's thread (a parallel task's: one per thread slot)
/// and what it records.
pub(crate) struct TaskThread {
    /// Task index.
    pub(crate) task: u32,
    /// Its thread slot: 0 for a sequential task and for the releasing thread of a parallel
    /// one; slot k of a parallel task runs the k-th thread of every region that has one.
    pub(crate) slot: u32,
    /// The fork-join state the slot threads of a parallel task share (`None`: sequential).
    fj: Option<Arc<ForkJoin>>,
    /// The task.
    t: RtTask,
    /// Its scheduling class.
    pub(crate) class: ThreadClass,
    /// Physical CPUs it may run on.
    affinity: Vec<u32>,
    /// Its trace buffer.
    buf: TraceBuf,
    /// Its jobs (slot 0 only).
    records: Vec<RawRecord>,
}

/// The task threads of a run: task i's slot k (0 for a sequential task) scheduled as
/// `classes[i][k]`, on physical CPU `cpus[p[i]]` with a placement `p`, else on all the
/// run's CPUs. A parallel task's slot threads share one [`ForkJoin`]; each has a trace
/// buffer of its own, sized for the threads it runs ([`fork_join::slot_capacities`]).
pub(crate) fn task_threads(
    run: &Run<'_>,
    classes: Vec<Vec<ThreadClass>>,
    placement: Option<&[u32]>,
) -> Vec<TaskThread> {
    let cpus = &run.config.cpus;
    let affinities = (0..run.n())
        .map(|i| match placement.and_then(|p| p.get(i)) {
            Some(&c) => vec![cpus.get(c as usize).copied().unwrap_or(0)],
            None => cpus.clone(),
        })
        .collect();
    task_threads_on(run, classes, affinities)
}

/// [`task_threads`] with each task's threads on the physical CPUs `affinities[i]` (a
/// reservation group's CPUs, `linux-rt-groups`).
pub(crate) fn task_threads_on(
    run: &Run<'_>,
    classes: Vec<Vec<ThreadClass>>,
    affinities: Vec<Vec<u32>>,
) -> Vec<TaskThread> {
    let capacity = fork_join::slot_capacities(run);
    let mut out = Vec::new();
    for (i, ((t, classes), affinity)) in run.tasks.iter().zip(classes).zip(affinities).enumerate() {
        let jobs = run.jobs.get(i).copied().unwrap_or(0).saturating_add(1);
        let fj = t.parallel.as_ref().map(|p| Arc::new(ForkJoin::new(p)));
        for (k, class) in classes.into_iter().enumerate() {
            let cap = capacity
                .get(i)
                .and_then(|c| c.get(k))
                .copied()
                .unwrap_or(1024);
            out.push(TaskThread {
                task: i as u32,
                slot: k as u32,
                fj: fj.clone(),
                t: t.clone(),
                class,
                affinity: affinity.clone(),
                buf: TraceBuf::new(cap),
                records: if k == 0 {
                    Vec::with_capacity(jobs.min(RECORDS_RESERVED_MAX) as usize)
                } else {
                    Vec::new()
                },
            });
        }
    }
    out
}

/// The SCHED_FIFO class of each task's threads from the run's ranks (rank 0 = highest):
/// priority `98 − rank` (the watchdog runs at 99), every slot thread of a parallel task at its
/// task's priority; `arch` names the baseline in the error of a rank beyond 97.
pub(crate) fn fifo_classes(
    run: &Run<'_>,
    arch: &str,
) -> Result<Vec<Vec<ThreadClass>>, RuntimeError> {
    let mut classes = Vec::with_capacity(run.n());
    for ((i, &rank), t) in run.config.ranks.iter().enumerate().zip(run.tasks) {
        let prio = 98u32.checked_sub(rank).filter(|&p| p >= 1).ok_or_else(|| {
            RuntimeError::InvalidTask {
                task: i,
                field: "priority",
                message: format!(
                    "has rank {rank}: {arch} maps ranks 0..=97 to SCHED_FIFO priorities 98..=1"
                ),
            }
        })?;
        classes.push(vec![ThreadClass::Fifo(prio as u8); slots(t)]);
    }
    Ok(classes)
}

/// The thread's name.
pub(crate) fn thread_name(w: &TaskThread) -> String {
    match w.slot {
        0 => format!("sl-task{}", w.task),
        k => format!("sl-task{}.{k}", w.task),
    }
}

/// The thread's name in messages: `task 3`, or `task 3 thread slot 1` for a parallel task.
pub(crate) fn who(w: &TaskThread) -> String {
    match (&w.fj, w.slot) {
        (None, _) => format!("task {}", w.task),
        (Some(_), k) => format!("task {} thread slot {k}", w.task),
    }
}

/// Sets the calling thread (task `w`'s) to its affinity and class; under SCHED_OTHER
/// (`allow_non_rt`) only its affinity.
pub(crate) fn set_up(w: &TaskThread, cx: &Cx<'_>) -> Result<(), MechError> {
    sched::set_affinity(0, &w.affinity)?;
    if !cx.real_time() {
        return Ok(());
    }
    match w.class {
        ThreadClass::Deadline {
            runtime,
            deadline,
            period,
        } => sched::set_deadline(0, runtime, deadline, period),
        ThreadClass::Fifo(p) => sched::set_class(0, Class::Fifo(p)),
    }
}

/// The thread's loop (see the module doc) until the horizon or the stop; a custom body that
/// panicked ends the run ([`crate::run::Shared::fail`]).
pub(crate) fn work(mut w: TaskThread, cx: &Cx<'_>) -> TaskThread {
    if let (Some(fj), 1..) = (w.fj.clone(), w.slot) {
        fork_join::slot_loop(&w, &fj, cx);
        return w;
    }
    if let Err(msg) = task_loop(&mut w, cx) {
        cx.shared.fail(msg);
    }
    w
}

/// The threads' buffers and records, in task order.
pub(crate) fn drain(workers: Vec<TaskThread>, h: &mut Harvest) {
    for mut w in workers {
        h.trace(&w.buf);
        h.records.append(&mut w.records);
    }
}

/// Release, run, record each job of the task until the horizon or the stop; then the
/// releases before the horizon that never ran. (A parallel task's slot-0 thread: its jobs
/// fork and join with the other slots, `fork_join`; at the end it closes them.)
fn task_loop(w: &mut TaskThread, cx: &Cx<'_>) -> Result<(), String> {
    let sh = cx.shared;
    let mut ws = w.t.wss.map(|b| WorkingSet::new(b as usize));
    let t0 = sh.t0.load(Ordering::Acquire);
    let (period, deadline) = (w.t.period.as_ns(), w.t.deadline.as_ns());
    let mut rel = w.t.offset.as_ns();
    let mut seq = 0u64;
    let mut outcome = Ok(());
    let stopping = || sh.stop.load(Ordering::Relaxed);
    while rel < sh.horizon_ns && !stopping() {
        // Release: sleep until it (unless late already).
        let at = t0.saturating_add(rel);
        let seen = sh.stop_word.load(Ordering::Acquire);
        while monotonic_ns() < at && !stopping() {
            futex::wait(&sh.stop_word, seen, Some(at));
        }
        if stopping() {
            break;
        }
        let (woke, phys) = sh.clock.ticks_and_cpu();
        w.buf
            .record(woke, Kind::Release, logical(cx, phys), w.task, seq, rel);
        let job = match w.fj.clone() {
            Some(fj) => fork_join::job(w, &fj, cx, seq),
            None => sequential_job(w, cx, seq, ws.as_mut()),
        };
        w.records.push(RawRecord {
            task: w.task,
            seq,
            release_ns: rel,
            deadline_ns: rel.saturating_add(deadline),
            start_ticks: job.start,
            completion_ticks: job.completion,
            executed_ns: job.executed_ns,
            ..RawRecord::default()
        });
        seq += 1;
        rel = rel.saturating_add(period);
        if job.outcome.is_err() {
            outcome = job.outcome;
            break;
        }
    }
    if let Some(fj) = &w.fj {
        fj.close();
    }
    while rel < sh.horizon_ns {
        w.records.push(RawRecord {
            task: w.task,
            seq,
            release_ns: rel,
            deadline_ns: rel.saturating_add(deadline),
            ..RawRecord::default()
        });
        seq += 1;
        rel = rel.saturating_add(period);
    }
    outcome
}

/// A job as its task's thread(s) saw it, for its record.
struct Done {
    /// Ticks when its code first ran (`None`: the run stopped before).
    start: Option<u64>,
    /// Ticks when it completed (`None`: cut by the stop, or its body failed).
    completion: Option<u64>,
    /// CPU time its thread(s) consumed.
    executed_ns: u64,
    /// A custom body's panic.
    outcome: Result<(), String>,
}

/// Job `seq` of a sequential task: run, then `switch-out` and (unless cut by the stop or
/// failed) `complete`.
fn sequential_job(w: &TaskThread, cx: &Cx<'_>, seq: u64, ws: Option<&mut WorkingSet>) -> Done {
    let stopping = || cx.shared.stop.load(Ordering::Relaxed);
    let job = run_job(w, cx, seq, ws);
    let finished = !stopping() && job.outcome.is_ok();
    w.buf
        .record(job.end, Kind::SwitchOut, job.cpu, w.task, seq, 0);
    if finished {
        w.buf
            .record(job.end, Kind::Complete, job.cpu, w.task, seq, job.end);
    }
    Done {
        start: Some(job.start),
        completion: finished.then_some(job.end),
        executed_ns: job.executed_ns,
        outcome: job.outcome,
    }
}

/// One job as the thread saw it.
struct Job {
    /// Ticks when its code started.
    start: u64,
    /// Ticks when it ended (the burn loop's last observation).
    end: u64,
    /// Logical CPU it ended on.
    cpu: u32,
    /// CPU time it consumed.
    executed_ns: u64,
    /// A custom body's panic.
    outcome: Result<(), String>,
}

/// Runs job `seq` of `w`'s task: `switch-in`, the body — a burn loop that records the job's
/// losses of its CPU (module doc) — and the CPU time it took.
fn run_job(w: &TaskThread, cx: &Cx<'_>, seq: u64, ws: Option<&mut WorkingSet>) -> Job {
    let sh = cx.shared;
    let task = w.task;
    let stopping = || sh.stop.load(Ordering::Relaxed);
    match &w.t.body {
        Body::Burn => burn_strand(&w.buf, cx, (task, seq, 0), w.t.wcet.as_ns(), ws),
        // Custom bodies are not observed inside: one interval on the CPU they started on.
        Body::Custom(f) => {
            let cpu_start = thread_cputime_ns();
            let (start, phys) = sh.clock.ticks_and_cpu();
            let cpu = logical(cx, phys);
            w.buf.record(start, Kind::SwitchIn, cpu, task, seq, 0);
            // The kernel schedules: no policy, nothing aborts.
            let jc = JobCtx {
                task,
                seq,
                region: 0,
                thread: 0,
                strand: 0,
                stop: &stopping,
                aborted: &|| false,
                lock: None,
                names: &[],
            };
            let outcome = run_custom(f, &jc);
            Job {
                start,
                end: sh.clock.ticks(),
                cpu,
                executed_ns: thread_cputime_ns().saturating_sub(cpu_start),
                outcome,
            }
        }
    }
}

/// Burns `cpu_ns` of CPU time as strand `strand` of job `task`/`seq` (`id`), recording into
/// `buf` its `switch-in` and, from the burn loop's passes, every loss of its CPU (module
/// doc); the caller records the final `switch-out` at the returned `end`.
fn burn_strand(
    buf: &TraceBuf,
    cx: &Cx<'_>,
    id: (u32, u64, u32),
    cpu_ns: u64,
    ws: Option<&mut WorkingSet>,
) -> Job {
    let (task, seq, strand) = id;
    let sh = cx.shared;
    let gap_ticks = ((sh.clock.frequency_hz() * GAP_NS as f64 / 1e9) as u64).max(1);
    let stopping = || sh.stop.load(Ordering::Relaxed);
    let rec = |t, k, c, arg| buf.record_strand(t, k, c, (task, seq, strand), arg);
    let cpu_start = thread_cputime_ns();
    let (start, phys) = sh.clock.ticks_and_cpu();
    let cpu_run = logical(cx, phys);
    rec(start, Kind::SwitchIn, cpu_run, 0);
    let cur = Cell::new(cpu_run);
    let last = Cell::new(start);
    let observe = || {
        // One read for both: a preemption between a time and a CPU read would pair one
        // CPU's instant with the next CPU.
        let (now, phys) = sh.clock.ticks_and_cpu();
        let c = logical(cx, phys);
        let prev = cur.get();
        // The job lost its CPU (a gap: another thread, an interrupt or a host stall took
        // it; or a move to another CPU, which the kernel makes only with the job off its
        // CPU): one preemption (`schedlab_trace::counts`), and a migration if it moved.
        if c != prev || now.saturating_sub(last.get()) > gap_ticks {
            rec(last.get(), Kind::SwitchOut, prev, 0);
            rec(last.get(), Kind::Preempt, prev, 0);
            rec(now, Kind::SwitchIn, c, 0);
            if c != prev {
                rec(now, Kind::Migrate, c, u64::from(prev));
                cur.set(c);
            }
        }
        last.set(now);
        stopping()
    };
    burn(cpu_ns, ws, observe);
    // A last look: a preemption or migration after the burn loop's last pass ends the
    // interval there (else the job's `switch-out` would claim a CPU that ran another thread
    // meanwhile).
    observe();
    Job {
        start,
        end: last.get(),
        cpu: cur.get(),
        executed_ns: thread_cputime_ns().saturating_sub(cpu_start),
        outcome: Ok(()),
    }
}

/// The logical CPU of physical CPU `phys` (`u32::MAX` if it is not one of the run's).
fn logical(cx: &Cx<'_>, phys: Option<u32>) -> u32 {
    phys.and_then(|p| cx.th.phys.iter().position(|&c| c == p))
        .map_or(u32::MAX, |c| c as u32)
}
