//! `linux-deadline`: kernel baseline, the workload under SCHED_DEADLINE (global EDF by the
//! kernel's push/pull over the run's CPUs).
//!
//! # Protocol
//!
//! State and owners:
//! - each task's thread (`kernel::TaskThread`) owns its trace buffer and records and
//!   releases its own jobs (`kernel`); there is no shared scheduling state in user space:
//!   the kernel's runqueues decide;
//! - the root domain of `dl_cpuset` ([`RootDomain`]): created here before anything runs
//!   real-time, joined by each thread in its setup, undone when the run's state is dropped
//!   (also on errors and SIGINT/SIGTERM).
//!
//! Dispatch, by the kernel: each thread is SCHED_DEADLINE with runtime = WCET +
//! `dl_margin` (capped at the deadline), the task's relative deadline and period, and
//! affinity over all CPUs of the run (the kernel requires it to span the thread's root
//! domain).
//! 1. A thread wakes at its release (an absolute futex wait).
//! 2. The kernel's EDF picks it among the ready deadline threads of the root domain.
//! 3. It burns its WCET and records.
//! 4. It sleeps until its next release.
//!
//! Preemption, by the kernel (a release of an earlier deadline, or throttling when the
//! runtime is used up); the burn loop records what user space can see of it (a gap or a move
//! to another CPU, `kernel`). Admission control failures (EBUSY) and a root domain the
//! affinity does not span (EPERM) are explained.
//!
//! # Parallel tasks: the "SD" baseline of [RTWS §VI]
//!
//! A parallel (fork-join) task runs as one SCHED_DEADLINE thread per thread slot (slot k
//! runs the k-th thread of every region that has one; `kernel`'s `fork_join` has the
//! fork/join protocol): the threads of a job are threads of their own that the kernel's
//! global EDF places, pushes and pulls like any other — what RTWS compared its scheduler
//! with ("SCHED_DEADLINE", Figs. 3–4, Tables II–III). Each slot thread has the task's
//! deadline and period and, as runtime, the slot's **demand per job**: the sum of its
//! threads' lengths plus `dl_margin` per thread, capped at the deadline. Not the slot's
//! longest thread: a slot thread runs once per region it has a thread in, all within one
//! reservation period (slot 0 runs in every region), and the CBS keeps the remaining
//! runtime and the deadline across its sleeps within the period (a wake-up refills only
//! when the remainder would exceed the reserved bandwidth until the deadline), so a runtime
//! of its longest thread would throttle the slot in its second region until its deadline.
//! Admission: Σ over all threads of runtime/period, which for a parallel task is
//! (work + margin·threads)/period, must pass the kernel's test (≤ 0.95 per CPU of the root
//! domain), else the setup fails with EBUSY, explained per thread slot.
//!
//! **Whose deadline.** The kernel's CBS gives each thread a deadline of its own: at a
//! wake-up after its previous deadline (or when the remaining runtime no longer fits),
//! `now + deadline`. So a slot woken at a fork competes with the fork time + D, not with
//! its job's absolute deadline (release + D) as the threads-as-jobs baseline of the
//! simulator does (the parent's deadline inherited, [RTWS §III]); slot 0, running since the
//! release, usually keeps release + D. A late region therefore looks less urgent to the
//! kernel than its job is, and the kernel meeting every thread's own deadline says nothing
//! about the job's: a job can miss although no thread does. The job's record measures
//! what counts — release to final join against release + D. Two more differences from the
//! paper's SD: RTWS ran SCHED_DEADLINE with bandwidth management **disabled** ("to set
//! equal grounds"), so threads there were never throttled; here the CBS is on (the stock
//! kernel has no per-thread switch, and the run keeps the kernel's RT limits), so a thread
//! that overruns its runtime waits for its next period. And the paper counted migrations
//! and context switches in the kernel; here they are what user space sees of its threads
//! (`kernel`), counted per job over its strands by `schedlab_trace::counts`.

use crate::arch::kernel::{self, TaskThread, ThreadClass};
use crate::arch::{Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::config::RtTask;
use crate::error::RuntimeError;
use crate::mech::cpuset::RootDomain;
use crate::mech::{sched, MechError};
use crate::state::Threads;
use serde_json::Value;

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "linux-deadline",
    summary: "kernel baseline: SCHED_DEADLINE threads, runtime = WCET + --dl-margin (--dl-cpuset: on a root domain of the run's CPUs)",
    kernel: true,
    parallel: true,
    options: &["dl-margin", "dl-cpuset"],
    partitioned_with: None,
    rt_load: RtLoad::Admission,
    global_invariant: false,
    reserves_cpu0: |_| false,
    fields: |c| {
        vec![
            ("dl_margin_ns", Value::from(c.dl_margin.as_ns())),
            ("dl_cpuset", Value::from(c.dl_cpuset)),
        ]
    },
    note: |c| format!(" (runtime = WCET + {})", c.dl_margin),
    run: crate::run::run_with::<LinuxDeadline>,
};

/// What the task threads share.
pub(crate) struct LinuxDeadline {
    /// The run's own root domain (`dl_cpuset`).
    domain: Option<RootDomain>,
    /// The run's physical CPUs (for the messages).
    cpus: Vec<u32>,
    /// Σ runtime/period of the set (for the admission-control message).
    reserved: f64,
}

impl Architecture for LinuxDeadline {
    type Worker = TaskThread;
    const WATCHDOG_PRIORITY: u8 = kernel::PRIO_WATCHDOG;
    const WORKER: &'static str = "job thread";
    const NOT_REAL_TIME: &'static str = "linux-deadline not permitted: ran under SCHED_OTHER (--allow-non-rt); this is not the kernel baseline";

    fn prepare(run: &Run<'_>, warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        kernel::check_parallel(run)?;
        let margin = run.config.dl_margin.as_ns();
        let mut classes = Vec::with_capacity(run.n());
        let mut reserved = 0.0;
        for (i, t) in run.tasks.iter().enumerate() {
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
            let slots = slot_runtimes(t, margin);
            for &runtime in &slots {
                reserved += runtime as f64 / p.max(1) as f64;
            }
            classes.push(
                slots
                    .into_iter()
                    .map(|runtime| ThreadClass::Deadline {
                        runtime,
                        deadline: d,
                        period: p,
                    })
                    .collect(),
            );
        }
        // Split the root domain before anything runs real-time; undone when the run's
        // state drops.
        let domain = if run.config.dl_cpuset {
            let d = RootDomain::isolate(&run.config.cpus)?;
            warnings.extend(d.repaired.iter().cloned());
            Some(d)
        } else {
            None
        };
        let workers = kernel::task_threads(run, classes, None);
        Ok(Setup {
            arch: LinuxDeadline {
                domain,
                cpus: run.config.cpus.clone(),
                reserved,
            },
            workers,
            jobs: Jobs::None,
        })
    }

    fn thread_name(w: &TaskThread) -> String {
        kernel::thread_name(w)
    }

    fn set_up(&self, w: &TaskThread, cx: &Cx<'_>) -> Result<(), String> {
        self.domain
            .as_ref()
            .map_or(Ok(()), |d| d.attach(sched::gettid()))
            .and_then(|()| kernel::set_up(w, cx))
            .map_err(|e| self.explain(w, &e))
    }

    fn work(&self, w: TaskThread, cx: &Cx<'_>) -> TaskThread {
        kernel::work(w, cx)
    }

    fn drain(&self, workers: Vec<TaskThread>, _th: &Threads<'_>, h: &mut Harvest) {
        kernel::drain(workers, h);
    }
}

/// The SCHED_DEADLINE runtime of each of task `t`'s threads (one for a sequential task, one
/// per thread slot of a parallel one), with `margin` (ns) per job the thread runs: a
/// sequential task's WCET + margin; slot k of a parallel task the sum of its threads'
/// lengths + margin per thread (module doc: it runs once per region it has a thread in, all
/// within one reservation period), each capped at the deadline and at least 1024 ns (the
/// kernel's minimum). O(threads).
fn slot_runtimes(t: &RtTask, margin: u64) -> Vec<u64> {
    let d = t.deadline.as_ns();
    let cap = |runtime: u64| runtime.min(d).max(1024);
    match &t.parallel {
        None => vec![cap(t.wcet.as_ns().saturating_add(margin))],
        Some(p) => (0..p.max_width())
            .map(|k| {
                let (work, threads) = kernel::slot_demand(p, k);
                cap(work.saturating_add(margin.saturating_mul(threads)))
            })
            .collect(),
    }
}

impl LinuxDeadline {
    /// Explains a failed SCHED_DEADLINE setup of `w`'s task.
    fn explain(&self, w: &TaskThread, e: &MechError) -> String {
        let i = kernel::who(w);
        let ThreadClass::Deadline {
            runtime, period, ..
        } = w.class
        else {
            return format!("{i}: {e}");
        };
        let online = sched::configured_cpus();
        match e {
            MechError::NotPermitted { .. } => format!(
                "{i}: SCHED_DEADLINE refused (EPERM). As root this means the thread's affinity does not span its root domain: deadline threads are scheduled globally over a root domain (all {online} CPUs of this machine unless cpusets split it), and the run's CPUs are {:?}; run linux-deadline on every CPU of the root domain, or pass --dl-cpuset to give the run's CPUs a root domain of their own. Without root, CAP_SYS_NICE is needed.",
                self.cpus
            ),
            MechError::Os { errno, .. } if *errno == libc::EBUSY => {
                let limit = crate::throttle::rt_limit().map_or(1.0, |l| l.0);
                format!(
                    "{i}: SCHED_DEADLINE admission control refused runtime {runtime} ns / period {period} ns (EBUSY): the set reserves Σ runtime/period = {:.3} (over every thread, a parallel task's thread slots included), the kernel admits at most {limit:.2} per CPU of the root domain ({online} CPUs), minus what other deadline threads hold; lower --dl-margin or the load",
                    self.reserved
                )
            }
            other => format!("{i}: {other}"),
        }
    }
}
