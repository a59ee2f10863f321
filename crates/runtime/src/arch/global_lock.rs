//! `global-lock`: one lock (ticket, MCS or futex mutex [ChronOS §7]) guards the policy state;
//! every CPU schedules for the system (GSN-EDF, ChronOS stop-the-world, [MP §II-B]). With
//! `dedicated_irq_cpu`, logical CPU 0 takes every release and policy timer and runs no job
//! (GSN-EDF-DI, [MP §IV]).
//!
//! # Protocol
//!
//! State and owners:
//! - the one [`Sched`] (a policy instance on the job CPUs, the ready queue, `assigned` and
//!   `scheduled` per CPU, the policy timers, the job records) is the `Synced` state: it lives
//!   in a [`Locked`], and every access holds the lock — the dispatchers reach it only through
//!   [`LockedState::with`](Domain::with), which passes it as `&mut Sched` while the lock is held (the type
//!   system checks the rule) and records the wait (`lock-wait-begin` … `lock-wait-end`);
//! - releases: task i's belong to CPU `i mod m` (release timers spread like GSN-EDF's
//!   without a dedicated interrupt CPU); with `dedicated_irq_cpu` all of them, and the
//!   policy timers, to CPU 0, which has no local CPU in the policy (its dispatcher never
//!   schedules a job); otherwise CPU 0 owns the policy timers;
//! - `Shared::next_timer[owner]`: the earliest policy timer, written by whichever dispatcher
//!   changed the state (under the lock), read by the owner to sleep;
//! - job thread control blocks: as in [`crate::job`]; a job thread may run on any job CPU and
//!   is re-pinned by the dispatcher that makes it runnable.
//!
//! Dispatch (dispatcher of c, [`crate::dispatch`]):
//! 1. its due releases: take the lock, hand the job to the policy, recompute `assigned` with
//!    link swaps (a linked job still scheduled elsewhere stays there and the CPUs exchange
//!    links [MP §III-C]), mark the CPUs whose link changed (`need`), release the lock;
//! 2. (timer owner) the policy timers due, likewise;
//! 3. its scheduling step (`sched-begin` … `sched-end`) under the lock: a completion on c is
//!    processed; `scheduled[c]` is made equal to `assigned[c]`;
//! 4. after releasing the lock, it rings the doorbells of the other CPUs marked in `need`
//!    (`ipi-send`, the runtime's IPI).
//!
//! Preemption: a CPU whose link changed is rung; its dispatcher — on that CPU, above its job —
//! takes the lock, parks the unlinked job (`RUN → PARK` and the preemption signal) and makes
//! the linked one runnable (pinning its thread to c first), so an unlinked job executes no
//! instruction after its CPU's dispatcher started running.

use crate::arch::{lock_field, Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::dispatch::{Dispatcher, Domain};
use crate::error::RuntimeError;
use crate::mech::lock::{LockKind, Locked};
use crate::state::{Emit, Sched, Threads};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use serde_json::Value;
use std::sync::Arc;

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "global-lock",
    summary: "one lock guards the policy state, every CPU schedules for the system (any global policy; --lock ticket|mcs|mutex, --dedicated-irq-cpu)",
    kernel: false,
    parallel: true,
    options: &["lock", "dedicated-irq-cpu", "threading"],
    partitioned_with: None,
    rt_load: RtLoad::Global,
    global_invariant: true,
    reserves_cpu0: |c| c.dedicated_irq_cpu,
    fields: |c| {
        vec![
            ("lock", lock_field(c)),
            ("dedicated_irq_cpu", Value::from(c.dedicated_irq_cpu)),
        ]
    },
    note: |c| {
        if c.dedicated_irq_cpu {
            format!(" (interrupt CPU {})", c.cpus.first().copied().unwrap_or(0))
        } else {
            String::new()
        }
    },
    run: crate::run::run_with::<GlobalLock>,
};

/// The state every dispatcher shares.
pub(crate) struct GlobalLock {
    state: Arc<Locked<Sched>>,
    /// Number of dispatchers (one per CPU).
    dispatchers: usize,
}

/// A dispatcher's way to the shared state: the lock and its slot in it (its MCS node).
pub(crate) struct LockedState {
    state: Arc<Locked<Sched>>,
    slot: usize,
}

impl LockedState {
    /// Caller `slot`'s way to `state` (also `concurrent`'s).
    pub(crate) fn new(state: Arc<Locked<Sched>>, slot: usize) -> LockedState {
        LockedState { state, slot }
    }
}

impl Domain for LockedState {
    fn with<R>(
        &mut self,
        em: &Emit<'_>,
        f: impl FnOnce(&mut Sched, &Emit<'_>) -> R,
    ) -> (R, Option<u64>) {
        em.now(Kind::LockWaitBegin, em.cpu, u32::MAX, 0, 0);
        let mut synced = self.state.lock(self.slot);
        em.now(Kind::LockWaitEnd, em.cpu, u32::MAX, 0, 0);
        let r = f(&mut synced, em);
        (r, synced.next_timer())
    }
}

impl Architecture for GlobalLock {
    const RESOURCES: bool = true;

    type Worker = Dispatcher<LockedState>;

    fn prepare(run: &Run<'_>, _warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        let config = run.config;
        let first = config.job_cpus().start;
        let k = run.policy_cpus("--dedicated-irq-cpu")?;
        let kind = config.arch.lock().unwrap_or(LockKind::Ticket);
        let sched = run.sched(k, config.placement.clone(), first)?;
        let state = Arc::new(Locked::new(kind, run.m as usize, sched));
        let m = run.m;
        let workers = (0..m)
            .map(|cpu| Dispatcher {
                cpu,
                base: first,
                local: (cpu >= first).then(|| (cpu - first) as usize),
                // GSN-EDF-DI: CPU 0 owns every release; else task i → CPU i mod m.
                releases: (0..run.n() as u32)
                    .filter(|i| if first == 1 { cpu == 0 } else { i % m == cpu })
                    .collect(),
                timer_owner: 0,
                timers: cpu == 0,
                domain: LockedState {
                    state: state.clone(),
                    slot: cpu as usize,
                },
                buf: TraceBuf::new(run.capacity.scheduler),
            })
            .collect();
        Ok(Setup {
            arch: GlobalLock {
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
        // A dispatcher left running past the grace period might hold the lock: then the
        // records stay where they are (the run warned that a thread was left behind).
        if workers.len() == self.dispatchers {
            let mut synced = self.state.lock(0);
            h.sched(&mut synced, th);
        }
    }
}
