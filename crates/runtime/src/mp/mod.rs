//! `message-passing`: G-EDF-MP [MP §III] — the policy of the registry (`gedf`, `gfp`,
//! `gfifo`, `gnpedf`, `edzl`, …) run by a dedicated scheduling processor.
//!
//! - Logical CPU 0 is the **DSP** ([`dsp`]): its thread owns the whole scheduling state — the
//!   policy instance with its ready queue, the release heap and every release timer, the
//!   copies of the clients' states — and touches it without any lock. It sleeps until
//!   shortly before its next release (the kernel throttles a SCHED_FIFO thread that never
//!   sleeps) and spins the rest, polling the mailboxes; a client wakes it through its
//!   doorbell (a futex) only when it sleeps.
//! - Logical CPUs 1..m are the **clients** ([`client`]), the policy's CPUs 0..m−1; real-time
//!   jobs run only there. A client's dispatcher enacts the DSP's decisions: on a ring (the
//!   runtime's IPI) it checks `linked` and updates `scheduled` atomically ([`slot`]), parks
//!   the old job and makes the new one runnable; when its job completes it reports it through
//!   its wait-free mailbox ([`crate::mailbox`]) and invalidates `linked`.
//! - The DSP links jobs to clients through the per-client slots, shared pairwise, with link
//!   swaps for jobs still scheduled elsewhere [MP §III-C].
//! - Scheduler-managed mutexes [ChronOS §3.6]: a job's lock operation is a message to the
//!   DSP, sent by the job's own thread under its client's step lock ([`lock`]); the DSP
//!   applies it to its state as `global-lock`'s dispatchers do (`crate::state`'s locks).
//!
//! Overheads traced ([MP §IV-A], docs/runtime.md): `release_latency`, `release` (DSP),
//! `request` (client `message-send` → DSP `message-receive`), `dsp` (`dsp-begin` →
//! `dsp-end`, one per message: completions and lock operations alike), `ipi` (DSP `ipi-send` →
//! client `sched-begin`), `schedule` and `context_switch` (client), `release_to_run`.

pub mod client;
pub mod dsp;
pub mod lock;
pub mod slot;
pub mod steplock;

use crate::mailbox::Mailbox;
use slot::ClientSlot;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use steplock::StepLock;

/// What the DSP and its clients share besides the run's [`crate::run::Shared`] (whose
/// doorbell 0 is the DSP's and doorbell `c` client `c`'s).
#[derive(Debug)]
pub struct MpShared {
    /// One slot per client (index = logical CPU − 1).
    pub slots: Vec<ClientSlot>,
    /// One mailbox per client.
    pub boxes: Vec<Mailbox>,
    /// Messages of each client the DSP has handled, counted once the slots show the
    /// decision they led to (a client or job thread waiting for the DSP's answer stops
    /// polling once its messages are handled).
    pub handled: Vec<AtomicU64>,
    /// The DSP's next release (ns since time zero; `u64::MAX`: none), for clients that wake
    /// before releases.
    pub next_release: AtomicU64,
    /// The latest release the DSP has handled (ns since time zero).
    pub released_upto: AtomicU64,
    /// The DSP sleeps until this long before a release and spins the rest (ns).
    pub dsp_spin_ns: u64,
    /// Clients wake this long before every release and poll their slot until the DSP handled
    /// it (0: they sleep until rung).
    pub client_spin_ns: u64,
    /// An idle client that reported a completion polls its slot this long for the DSP's
    /// answer before it sleeps (ns).
    pub idle_poll_ns: u64,
    /// The DSP polls its mailboxes while a client runs a job (within its spin budget), so a
    /// completion is answered without the futex wake-up of a halted CPU (~30 µs here).
    pub dsp_poll: bool,
    /// A completing job thread runs its client's step itself ([`client::complete_inline`])
    /// instead of waking the client's dispatcher.
    pub inline_completion: bool,
    /// Per client: held while a step runs, by its dispatcher or by a job thread completing
    /// inline, so the client's side of the protocol stays one actor at a time; a
    /// notification that finds it held is deferred to the holder ([`steplock`]).
    pub step_locks: Vec<StepLock>,
    /// Per client: the token whose completion was reported last.
    reported: Vec<AtomicU32>,
    /// Per client: messages sent.
    sent: Vec<AtomicU64>,
    /// Mechanism failures of inline steps: count and first message.
    pub inline_errors: Mutex<(u64, Option<String>)>,
}

impl MpShared {
    /// The state of `clients` clients for `n` tasks.
    pub fn new(
        clients: usize,
        n: usize,
        dsp_spin_ns: u64,
        client_spin_ns: u64,
        dsp_poll: bool,
    ) -> MpShared {
        MpShared {
            slots: (0..clients).map(|_| ClientSlot::default()).collect(),
            boxes: (0..clients).map(|_| Mailbox::for_tasks(n)).collect(),
            handled: (0..clients).map(|_| AtomicU64::new(0)).collect(),
            next_release: AtomicU64::new(u64::MAX),
            released_upto: AtomicU64::new(0),
            dsp_spin_ns,
            client_spin_ns,
            idle_poll_ns: 300_000,
            dsp_poll,
            inline_completion: false,
            step_locks: (0..clients).map(|_| StepLock::new()).collect(),
            reported: (0..clients).map(|_| AtomicU32::new(0)).collect(),
            sent: (0..clients).map(|_| AtomicU64::new(0)).collect(),
            inline_errors: Mutex::new((0, None)),
        }
    }

    /// Takes client `c`'s step lock if free.
    pub fn try_lock(&self, c: usize) -> bool {
        self.step_locks.get(c).is_some_and(StepLock::try_lock)
    }

    /// Releases client `c`'s step lock; returns whether a notification was deferred
    /// meanwhile (then the caller looks for work).
    pub fn unlock(&self, c: usize) -> bool {
        self.step_locks.get(c).is_some_and(StepLock::unlock)
    }

    /// Records a deferred notification for client `c` (its dispatcher found the lock held).
    pub fn note_pending(&self, c: usize) {
        if let Some(l) = self.step_locks.get(c) {
            l.notify();
        }
    }

    /// The DSP's notification of client `c`: true if the caller must ring the client's
    /// dispatcher; false if a step holds the lock (with inline completions: a job thread
    /// that enacts the change itself), in which case the notification is deferred to the
    /// holder's release.
    pub fn notify_or_defer(&self, c: usize) -> bool {
        !self.inline_completion || self.step_locks.get(c).is_none_or(StepLock::notify)
    }

    /// The token whose completion client `c` reported last.
    pub fn reported_of(&self, c: usize) -> u32 {
        self.reported
            .get(c)
            .map_or(0, |r| r.load(Ordering::Relaxed))
    }

    /// Sets it (under the step lock).
    pub fn set_reported(&self, c: usize, tok: u32) {
        if let Some(r) = self.reported.get(c) {
            r.store(tok, Ordering::Relaxed);
        }
    }

    /// Messages client `c` has sent.
    pub fn sent_of(&self, c: usize) -> u64 {
        self.sent.get(c).map_or(0, |x| x.load(Ordering::Relaxed))
    }

    /// Counts one more (under the step lock).
    pub fn count_sent(&self, c: usize) {
        if let Some(x) = self.sent.get(c) {
            x.fetch_add(1, Ordering::Relaxed);
        }
    }
}
