//! `message-passing`: G-EDF-MP [MP §III] — any global policy of the registry run by a
//! dedicated scheduling processor (DSP) on logical CPU 0 for client CPUs 1..m.
//!
//! # Protocol
//!
//! State and owners (details in [`crate::mp`]):
//! - the `Sched` (policy, ready queue, the release heap and every release timer, the policy
//!   timers, the job records, its copy of each client's `linked`/`scheduled`): owned by the
//!   DSP thread alone, no lock ([`crate::mp::dsp`]);
//! - client c's slot, one 64-bit word `linked | scheduled` ([`crate::mp::slot`]): `linked`
//!   written by the DSP by CAS against the word it read, `scheduled` by client c by CAS;
//!   client c *owns* the job in its `scheduled` half (only it parks or resumes that job);
//! - client c's mailbox ([`crate::mailbox`]): single producer (whoever holds c's step lock:
//!   its dispatcher, or a job thread on c completing inline or asking for a lock operation),
//!   single consumer (the DSP), wait-free;
//! - client c's step lock ([`crate::mp::steplock`]): held by whoever runs c's step — its
//!   dispatcher or, with `inline_completion`, the job thread that just completed there — and
//!   by a job thread on c for the whole of a lock operation;
//! - doorbell 0 (the DSP's) rung by clients that post a message while it sleeps; doorbell c
//!   rung by the DSP when `linked` changed (the runtime's IPI), unless c's step lock is held.
//!
//! Dispatch:
//! 1. (DSP) messages round-robin, one per client per round: a completion is handed to the
//!    policy, the task's next job handed over;
//! 2. (DSP) releases due, as one batch: hand the jobs to the policy;
//! 3. (DSP) after each decision, settle: read every slot, serve pending messages first,
//!    relink with link swaps against the clients' `scheduled`, write the changed `linked`
//!    halves by CAS (a failed CAS reads again), ring the clients whose link changed;
//! 4. (client c, on a ring or its job's completion) its step: report a completed job
//!    (`message-send`, before giving it up), park the old job, CAS `scheduled := linked`,
//!    pin and make the linked job runnable;
//! 5. (a job thread on client c, holding c's step lock) a lock operation of its job
//!    [ChronOS §3.6]: `RUN → LOCK`, a `LOCK` message to the DSP, which applies it to the
//!    state as `global-lock`'s dispatchers do and answers `LOCK → RUN` (granted) or
//!    `LOCK → PARK` (blocked: `on_block` unlinks it; the thread runs c's step, which gives
//!    the job up). A granted waiter is linked by `on_resume` and resumed by the client it is
//!    linked to ([`crate::mp::lock`]).
//!
//! Preemption: the DSP changes `linked` of c and rings it; c's dispatcher (above its job, on
//! c) parks the running job (`RUN → PARK` + the preemption signal) *before* its CAS gives it
//! up, so a job is runnable on at most one client; the DSP links a job only where no
//! `scheduled` holds it, else it swaps links.

use crate::arch::{Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::error::RuntimeError;
use crate::job::JobCtl;
use crate::locks::Reply;
use crate::mp::client::{complete_inline, Client};
use crate::mp::dsp::Dsp;
use crate::mp::MpShared;
use crate::state::Threads;
use schedlab_trace::tracebuf::TraceBuf;
use serde_json::Value;

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "message-passing",
    summary: "G-EDF-MP: a dedicated scheduling CPU (logical CPU 0) owns all state, clients report through wait-free mailboxes (any global policy; --no-dsp-poll, --no-inline-completion)",
    kernel: false,
    parallel: false,
    options: &["dsp-poll", "inline-completion", "threading"],
    partitioned_with: None,
    rt_load: RtLoad::Global,
    global_invariant: true,
    reserves_cpu0: |_| true,
    fields: |c| {
        vec![
            ("dsp_cpu", Value::from(c.cpus.first().copied())),
            ("dsp_poll", Value::from(c.dsp_poll)),
            ("inline_completion", Value::from(c.inline_completion)),
        ]
    },
    note: |c| format!(" (DSP: CPU {})", c.cpus.first().copied().unwrap_or(0)),
    run: crate::run::run_with::<MessagePassing>,
};

/// The DSP reserves room for at most this many job records before the run (then its record
/// vector grows by doubling, one copy per doubling in its loop): about 300 MB.
const RECORDS_RESERVED_MAX: u64 = 1 << 22;

/// What the DSP and its clients share.
pub(crate) struct MessagePassing {
    mp: MpShared,
}

/// A thread of `message-passing`.
pub(crate) enum Worker {
    /// The dedicated scheduling processor.
    Dsp(Dsp),
    /// A client CPU's dispatcher.
    Client(Client),
}

impl Architecture for MessagePassing {
    const RESOURCES: bool = true;

    type Worker = Worker;

    fn prepare(run: &Run<'_>, _warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        let config = run.config;
        let k = run.policy_cpus("message-passing")?;
        let n = run.n();
        if schedlab_policy::needs_engine_budgets(&config.policy) {
            // The clients would need the budget timers (docs/runtime.md, "Budgets").
            return Err(RuntimeError::invalid(
                "policy",
                format!(
                    "policy `{}` needs execution budgets, which `message-passing` does not offer yet; run it under --arch semi-partitioned (its own architecture, RTPS) or global-lock",
                    config.policy
                ),
            ));
        }
        if n > crate::mp::slot::MAX_TASKS {
            return Err(RuntimeError::InvalidConfig {
                field: "arch",
                message: format!(
                    "message-passing names at most {} tasks, the set has {n}",
                    crate::mp::slot::MAX_TASKS
                ),
            });
        }
        let mut sched = run.sched(k, config.placement.clone(), 1)?;
        sched.set_message_passing();
        // Room for the job records: no reallocation while the DSP handles messages.
        let jobs = run.jobs.iter().fold(0u64, |a, &j| a.saturating_add(j + 1));
        sched
            .records
            .reserve(jobs.min(RECORDS_RESERVED_MAX) as usize);
        let clients = k as usize;
        let mut mp = MpShared::new(
            clients,
            n,
            // The DSP's CPU runs no job: it always spins at least the default margin.
            config
                .release_spin
                .as_ns()
                .max(crate::config::DEFAULT_DSP_SPIN_NS),
            config.release_spin.as_ns(),
            config.dsp_poll,
        );
        mp.inline_completion = config.inline_completion;
        let cap = run.capacity.scheduler;
        let mut workers = vec![Worker::Dsp(Dsp::new(0, sched, clients, TraceBuf::new(cap)))];
        workers.extend((1..run.m).map(|c| Worker::Client(Client::new(c, TraceBuf::new(cap)))));
        Ok(Setup {
            arch: MessagePassing { mp },
            workers,
            jobs: Jobs::Threads {
                pinned: vec![None; n],
            },
        })
    }

    fn thread_name(w: &Worker) -> String {
        match w {
            Worker::Dsp(_) => "sl-dsp".into(),
            Worker::Client(c) => format!("sl-client{}", c.cpu),
        }
    }

    fn set_up(&self, w: &Worker, cx: &Cx<'_>) -> Result<(), String> {
        cx.pin_scheduler(match w {
            Worker::Dsp(d) => d.cpu,
            Worker::Client(c) => c.cpu,
        })
    }

    fn work(&self, w: Worker, cx: &Cx<'_>) -> Worker {
        match w {
            Worker::Dsp(d) => Worker::Dsp(d.run(cx.shared, &self.mp, &cx.th)),
            Worker::Client(c) => Worker::Client(c.run(cx.shared, &self.mp, &cx.th)),
        }
    }

    fn complete_inline(&self, me: &JobCtl, cpu: u32, cx: &Cx<'_>) -> bool {
        self.mp.inline_completion && complete_inline(me, cpu, cx.shared, &self.mp, &cx.th)
    }

    fn lock(&self, me: &JobCtl, resource: u32, unlock: bool, cx: &Cx<'_>) -> Reply {
        crate::mp::lock::request(me, resource, unlock, cx.shared, &self.mp, &cx.th)
    }

    fn drain(&self, workers: Vec<Worker>, th: &Threads<'_>, h: &mut Harvest) {
        let mut clients = Vec::new();
        for w in workers {
            match w {
                Worker::Dsp(mut d) => {
                    h.trace(&d.buf);
                    h.sched(&mut d.sched, th);
                }
                Worker::Client(c) => clients.push(c),
            }
        }
        for c in clients {
            h.trace(&c.buf);
            h.mech_errors(c.mech_errors.0, c.mech_errors.1);
        }
        if let Ok(mut e) = self.mp.inline_errors.lock() {
            let (count, first) = std::mem::take(&mut *e);
            h.mech_errors(count, first);
        }
    }
}
