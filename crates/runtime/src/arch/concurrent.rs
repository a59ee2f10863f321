//! `concurrent`: ChronOS's application-concurrent architecture [ChronOS §5.6.4, Fig. 5.8]
//! for the non-preemptive global policies G-FIFO (`gfifo`), G-NP-EDF (`gnpedf`) and
//! G-NP-HVDF (`gnphvdf`): one lock-protected global ready queue; each CPU schedules only for
//! itself — a CPU whose job ended locks the queue and pulls its head — so global scheduling
//! happens "without interrupting the application on remote cores". Stop-the-world (every
//! CPU schedules for the system, any policy) is `global-lock`.
//!
//! # Protocol
//!
//! State and owners:
//! - the one [`Sched`] (the policy instance on all m CPUs: its ready queue is the global
//!   queue; `assigned`/`scheduled` per CPU; the policy timers; the job records) lives in a
//!   [`Locked`] (`--lock ticket|mcs|mutex`) in **pull mode** (`state/pull.rs`): every access
//!   holds the lock, and a dispatcher enacts only its own CPU's link;
//! - releases: task i's belong to CPU `i mod m` (as under `global-lock`); the policy timers
//!   (G-NP-HVDF's deadline aborts) to CPU 0;
//! - job thread control blocks: as in [`crate::job`]; a job thread may run on any CPU and is
//!   re-pinned by the dispatcher that pulls its job (the thesis's "task puller").
//!
//! Dispatch (dispatcher of c, [`crate::dispatch`]):
//! 1. its due releases: take the lock, insert the job into the queue (the policy's
//!    `on_release`); if c is idle the policy's new link becomes c's own (pull mode prefers
//!    the caller), else the job goes to an idle CPU, which is woken (`ipi-send`: the thesis's
//!    scheduling IPI to an idle processor, Fig. 5.8's second job of `T7`), or it waits in the
//!    queue; release the lock;
//! 2. (CPU 0) the policy timers due, likewise;
//! 3. its scheduling step (`sched-begin` … `sched-end`) under the lock, when its job
//!    completed (its thread rang it) or it was woken: the completion goes to the policy,
//!    which links the queue's head to c — the idle CPU pulls for itself — and c makes it
//!    runnable (pinning its thread to c first); nothing else changes;
//! 4. no other CPU is rung, except an idle one that received a job in step 1 or 2.
//!
//! Preemption: none. A running job is never unlinked by these policies; a policy that did
//! would be refused by the pull-mode guard (the job keeps its CPU, a mechanism error is
//! counted). Preemptive policies (`gedf`, `gfp`, `edzl`, …) are refused by `prepare`: their
//! schedule of all CPUs changes at every event, which needs stop-the-world (`global-lock`)
//! [ChronOS §5.6.4, "Stop-The-World Architecture"].
//!
//! Complexity: one lock acquisition per release and per completion, O(policy) inside; no
//! link swaps between busy CPUs, no IPIs to busy CPUs.

use crate::arch::{lock_field, Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::dispatch::Dispatcher;
use crate::error::RuntimeError;
use crate::mech::lock::{LockKind, Locked};
use crate::state::{Sched, Threads};
use schedlab_policy::{GlobalJlfp, Policy, PolicyTask, Preemption, Primary};
use schedlab_trace::tracebuf::TraceBuf;
use std::sync::Arc;

use super::global_lock::LockedState;

/// The policies `concurrent` runs: the non-preemptive global ones [ChronOS §6.2, §6.5, §6.6].
pub const POLICIES: &[&str] = &["gfifo", "gnpedf", "gnphvdf"];

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "concurrent",
    summary: "ChronOS application-concurrent: one locked global queue, each idle CPU pulls its own next job, no preemption (gfifo, gnpedf, gnphvdf; --lock ticket|mcs|mutex)",
    kernel: false,
    parallel: true,
    options: &["lock", "threading"],
    partitioned_with: None,
    rt_load: RtLoad::Global,
    global_invariant: true,
    reserves_cpu0: |_| false,
    fields: |c| vec![("lock", lock_field(c))],
    note: |_| String::new(),
    run: crate::run::run_with::<Concurrent>,
};

/// The state every dispatcher shares: the locked global queue.
pub(crate) struct Concurrent {
    state: Arc<Locked<Sched>>,
    /// Number of dispatchers (one per CPU).
    dispatchers: usize,
}

/// Checks that `policy` runs under `concurrent`: a non-preemptive global policy of the
/// registry. The error names what is missing.
pub(crate) fn check_policy(policy: &str) -> Result<(), RuntimeError> {
    if !POLICIES.contains(&policy) {
        return Err(RuntimeError::invalid(
            "policy",
            format!(
                "`concurrent` runs the non-preemptive global policies ({}), not `{policy}`: each CPU schedules only for itself and never preempts another (use --arch global-lock, stop-the-world, for preemptive policies)",
                POLICIES.join(", ")
            ),
        ));
    }
    if !schedlab_policy::NAMES.contains(&policy) {
        return Err(RuntimeError::invalid(
            "policy",
            format!("`{policy}` is not in this build's policy registry (schedlab_policy::NAMES)"),
        ));
    }
    Ok(())
}

/// The policy instance of a `concurrent` run: the registry's, except G-FIFO, built
/// non-preemptive. The registry's `gfifo` orders jobs by release time in preemptive mode,
/// relying on a new job never having an earlier release than a linked one; a job handed to
/// the policy late — behind its task's unfinished predecessor, or by a dispatcher the host
/// kept off its CPU past later releases — breaks that, and it then preempts (seen in real
/// runs here: the pull-mode guard fired). ChronOS's G-FIFO runs the head of the queue to
/// completion [ChronOS §6.2, §5.6.4], which is G-FIFO in non-preemptive mode.
pub(crate) fn policy(
    name: &str,
    tasks: &[PolicyTask],
    m: u32,
) -> Result<Box<dyn Policy>, RuntimeError> {
    if name == "gfifo" {
        return Ok(Box::new(GlobalJlfp::new(
            "gfifo",
            Primary::Release,
            Preemption::NonPreemptive,
            tasks.to_vec(),
            m,
        )));
    }
    Ok(schedlab_policy::build(name, tasks, m, None)?)
}

impl Architecture for Concurrent {
    type Worker = Dispatcher<LockedState>;

    fn prepare(run: &Run<'_>, _warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        let config = run.config;
        check_policy(&config.policy)?;
        let kind = config.arch.lock().unwrap_or(LockKind::Ticket);
        let policy = policy(&config.policy, &run.policy_tasks, run.m)?;
        let mut sched = run.sched_with(policy, 0);
        sched.set_pull();
        let state = Arc::new(Locked::new(kind, run.m as usize, sched));
        let m = run.m;
        let workers = (0..m)
            .map(|cpu| Dispatcher {
                cpu,
                base: 0,
                local: Some(cpu as usize),
                releases: (0..run.n() as u32).filter(|i| i % m == cpu).collect(),
                timer_owner: 0,
                timers: cpu == 0,
                domain: LockedState::new(state.clone(), cpu as usize),
                buf: TraceBuf::new(run.capacity.scheduler),
            })
            .collect();
        Ok(Setup {
            arch: Concurrent {
                state,
                dispatchers: m as usize,
            },
            workers,
            jobs: Jobs::Threads {
                pinned: vec![None; run.n()],
            },
        })
    }

    fn thread_name(w: &Dispatcher<LockedState>) -> String {
        format!("sl-cpu{}", w.cpu)
    }

    fn set_up(&self, w: &Dispatcher<LockedState>, cx: &Cx<'_>) -> Result<(), String> {
        cx.pin_scheduler(w.cpu)
    }

    fn work(&self, w: Dispatcher<LockedState>, cx: &Cx<'_>) -> Dispatcher<LockedState> {
        w.run(cx.shared, &cx.th)
    }

    fn drain(&self, workers: Vec<Dispatcher<LockedState>>, th: &Threads<'_>, h: &mut Harvest) {
        for d in &workers {
            h.trace(&d.buf);
        }
        // A dispatcher left running past the grace period might hold the lock.
        if workers.len() == self.dispatchers {
            let mut synced = self.state.lock(0);
            h.sched(&mut synced, th);
        }
    }
}
