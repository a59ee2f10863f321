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

use crate::arch::kernel::{self, TaskThread, ThreadClass};
use crate::arch::{Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
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
    parallel: false,
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
            let runtime = t.wcet.as_ns().saturating_add(margin).min(d).max(1024);
            reserved += runtime as f64 / p.max(1) as f64;
            classes.push(ThreadClass::Deadline {
                runtime,
                deadline: d,
                period: p,
            });
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

impl LinuxDeadline {
    /// Explains a failed SCHED_DEADLINE setup of `w`'s task.
    fn explain(&self, w: &TaskThread, e: &MechError) -> String {
        let i = w.task;
        let ThreadClass::Deadline {
            runtime, period, ..
        } = w.class
        else {
            return format!("task {i}: {e}");
        };
        let online = sched::configured_cpus();
        match e {
            MechError::NotPermitted { .. } => format!(
                "task {i}: SCHED_DEADLINE refused (EPERM). As root this means the thread's affinity does not span its root domain: deadline threads are scheduled globally over a root domain (all {online} CPUs of this machine unless cpusets split it), and the run's CPUs are {:?}; run linux-deadline on every CPU of the root domain, or pass --dl-cpuset to give the run's CPUs a root domain of their own. Without root, CAP_SYS_NICE is needed.",
                self.cpus
            ),
            MechError::Os { errno, .. } if *errno == libc::EBUSY => {
                let limit = crate::throttle::rt_limit().map_or(1.0, |l| l.0);
                format!(
                    "task {i}: SCHED_DEADLINE admission control refused runtime {runtime} ns / period {period} ns (EBUSY): the set reserves Σ runtime/period = {:.3}, the kernel admits at most {limit:.2} per CPU of the root domain ({online} CPUs), minus what other deadline threads hold; lower --dl-margin or the load",
                    self.reserved
                )
            }
            other => format!("task {i}: {other}"),
        }
    }
}
