//! `linux-fifo`: kernel baseline, the workload under SCHED_FIFO with priorities from the
//! ranks (rank 0 = highest, from `--priorities`); global over the run's CPUs, or partitioned
//! when a placement of every task on a CPU is given (the `pfp` placement: `--partition`, or a
//! file that pins its tasks).
//!
//! # Protocol
//!
//! State and owners: each task's thread (`kernel::TaskThread`) owns its trace buffer and
//! records and releases its own jobs (`kernel`); no scheduling state in user space.
//!
//! Dispatch, by the kernel's real-time scheduler: thread i is SCHED_FIFO at priority
//! `98 − rank_i` (the watchdog runs at 99), its affinity all the run's CPUs or its one CPU.
//! 1. A thread wakes at its release (an absolute futex wait).
//! 2. The kernel runs the highest-priority ready threads (global: on any CPU of the run,
//!    pushing and pulling; partitioned: on its CPU).
//! 3. It burns its WCET and records.
//! 4. It sleeps until its next release.
//!
//! Preemption, by the kernel (a release of a higher-priority thread on its CPU); the burn
//! loop records what user space can see of it (`kernel`).
//!
//! A parallel (fork-join) task runs as one thread per thread slot (`kernel`'s `fork_join`),
//! every slot thread at its task's priority and with its task's affinity (partitioned: all
//! the task's threads on its CPU, where they run one after the other — the `pfp` placement
//! of a parallel task's work). Threads of equal priority are FIFO-ordered by the kernel: a
//! task's threads never preempt one another; those of a region run in parallel on
//! different CPUs when CPUs are free.

use crate::arch::kernel::{self, TaskThread};
use crate::arch::{Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::error::RuntimeError;
use crate::state::Threads;

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "linux-fifo",
    summary: "kernel baseline: SCHED_FIFO threads with RM/DM priorities, global or partitioned (--partition)",
    kernel: true,
    parallel: true,
    options: &[],
    partitioned_with: Some("pfp"),
    rt_load: RtLoad::ByPlacement,
    global_invariant: false,
    reserves_cpu0: |_| false,
    fields: |_| Vec::new(),
    note: |c| {
        let placed = c.placement.as_ref().is_some_and(|p| p.domain_size == 1);
        if placed {
            " (partitioned)".into()
        } else {
            String::new()
        }
    },
    run: crate::run::run_with::<LinuxFifo>,
};

/// `linux-fifo` shares nothing between its threads.
pub(crate) struct LinuxFifo;

impl Architecture for LinuxFifo {
    type Worker = TaskThread;
    const WATCHDOG_PRIORITY: u8 = kernel::PRIO_WATCHDOG;
    const WORKER: &'static str = "job thread";
    const NOT_REAL_TIME: &'static str = "linux-fifo not permitted: ran under SCHED_OTHER (--allow-non-rt); this is not the kernel baseline";

    fn prepare(run: &Run<'_>, _warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        kernel::check_parallel(run)?;
        let placement = run.cpu_placement()?;
        // Every slot thread of a parallel task at its task's priority.
        let classes = kernel::fifo_classes(run, DEF.name)?;
        Ok(Setup {
            arch: LinuxFifo,
            workers: kernel::task_threads(run, classes, placement),
            jobs: Jobs::None,
        })
    }

    fn thread_name(w: &TaskThread) -> String {
        kernel::thread_name(w)
    }

    fn set_up(&self, w: &TaskThread, cx: &Cx<'_>) -> Result<(), String> {
        kernel::set_up(w, cx).map_err(|e| format!("{}: {e}", kernel::who(w)))
    }

    fn work(&self, w: TaskThread, cx: &Cx<'_>) -> TaskThread {
        kernel::work(w, cx)
    }

    fn drain(&self, workers: Vec<TaskThread>, _th: &Threads<'_>, h: &mut Harvest) {
        kernel::drain(workers, h);
    }
}
