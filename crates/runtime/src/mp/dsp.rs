//! The dedicated scheduling processor of `message-passing` [MP §III]: one thread, pinned to
//! logical CPU 0 above every job, owning the [`Sched`] (policy, ready queue, release heap,
//! copies of the client states) without a lock.
//!
//! Its loop:
//! 1. **Messages** (round-robin over the clients' mailboxes, one message per client per
//!    round so none starves): `message-receive`, then the handler `dsp-begin` … `dsp-end`
//!    (a completion: tell the policy, hand over the task's next job, relink, update the
//!    clients' slots; a lock operation: apply it to the state — grant, block with
//!    `on_block`, or unlock with `grant` and `on_resume` — answer the waiting thread,
//!    relink, update the slots; `crate::mp::lock`). A message counts as handled
//!    (`MpShared::handled`) once the slots show its decision, so a client or job thread that
//!    waits for it sees the links that follow from it.
//! 2. **Releases** due (`release` … `release-end`): hand the job to the policy, relink,
//!    update the slots, ring the clients whose link changed (`ipi-send`).
//! 3. **Policy timers** due.
//! 4. **Wait**: until shortly before the next release or timer (`dsp_spin_ns`) it sleeps on
//!    its doorbell (a client that posts a message rings it); the rest it spins, polling the
//!    mailboxes and the clock, so a release is handled within the polling delay instead of
//!    the kernel's timer wake-up latency. While a client runs a job (`dsp_poll`) it polls
//!    instead of sleeping, so the round trip after a completion [MP §III-C, operation 3,
//!    Fig. 5] costs the polling delay instead of the futex wake-up of a halted CPU
//!    (~30 µs on this machine, docs/runtime.md). Both kinds of spinning share a budget per
//!    100 ms ([`SpinBudget`]) that keeps the DSP below the kernel's RT throttling limit.
//!
//! Every decision ends in `Dsp::settle`: read every client slot, process any pending
//! message first (see the ownership argument in [`crate::mp::slot`]), refresh the view of
//! the clients' `scheduled` jobs, relink with link swaps, then write the changed `linked`
//! halves with compare-and-swap against the words read (a failed CAS — a client changed its
//! `scheduled` meanwhile — starts over).

use super::slot::{linked, pack, scheduled};
use super::MpShared;
use crate::mailbox::{kind, Message};
use crate::mech::clock::{monotonic_ns, sleep_until, TickClock};
use crate::run::{Shared, Timing};
use crate::state::{Emit, Sched, Threads};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::Ordering;

/// The DSP thread's state.
pub struct Dsp {
    /// Logical CPU (0).
    pub cpu: u32,
    /// The scheduling state (the policy on the clients).
    pub sched: Box<Sched>,
    /// Its trace buffer.
    pub buf: TraceBuf,
    /// Slot words as last read (one per client).
    snap: Vec<u64>,
    /// Desired `linked` token per client (scratch).
    want: Vec<u32>,
    /// Clients whose slot must change (scratch).
    pending: Vec<usize>,
    /// Clients whose `linked` changed in the current decision (to ring), with the ticks
    /// just before the change was published (the notification's send time: a polling client
    /// may see the change before the DSP rings it).
    changed: Vec<(usize, u64)>,
    /// Next mailbox to serve.
    rr: usize,
    /// Per client: messages handled whose decision is not yet in the slots (acknowledged
    /// through `MpShared::handled` at the end of `Dsp::settle`).
    unacked: Vec<u64>,
}

impl Dsp {
    /// The DSP of logical CPU `cpu` with `sched` (built on the clients) for `clients` clients.
    pub fn new(cpu: u32, sched: Sched, clients: usize, buf: TraceBuf) -> Dsp {
        Dsp {
            cpu,
            sched: Box::new(sched),
            buf,
            snap: vec![0; clients],
            want: vec![0; clients],
            pending: Vec::with_capacity(clients),
            changed: Vec::with_capacity(clients),
            rr: 0,
            unacked: vec![0; clients],
        }
    }

    /// The DSP's loop, until `shared.stop` (call after time zero was published).
    pub fn run(mut self, shared: &Shared, mp: &MpShared, th: &Threads<'_>) -> Dsp {
        let cx = Cx {
            clock: shared.clock,
            shared,
            mp,
            th,
            t0: shared.t0.load(Ordering::Acquire),
        };
        let t0 = cx.t0;
        let Some(bell) = shared.bells.get(self.cpu as usize) else {
            return self;
        };
        let mut heap: BinaryHeap<Reverse<(u64, u32, u64)>> = shared
            .timing
            .iter()
            .enumerate()
            .filter(|(_, t)| t.offset < shared.horizon_ns)
            .map(|(i, t)| Reverse((t.offset, i as u32, 0)))
            .collect();
        mp.next_release.store(
            heap.peek().map_or(u64::MAX, |Reverse((r, _, _))| *r),
            Ordering::Release,
        );
        let mut batch: Vec<(u64, u32, u64)> = Vec::with_capacity(shared.timing.len());
        let mut spin = SpinBudget::default();
        sleep_until(t0);
        while !shared.stop.load(Ordering::Acquire) {
            let seen = bell.seen();
            // 1. Messages.
            self.serve_messages(&cx, true);
            // 2. Releases: every job due now is one batch (one timer interrupt of the
            //    paper): each gets a `release` stamped when the batch's handler starts and a
            //    `release-end` when the batch (links and notifications included) is done.
            let now = monotonic_ns().saturating_sub(t0);
            if heap.peek().is_some_and(|Reverse((r, _, _))| *r <= now) {
                let start = cx.clock.ticks();
                batch.clear();
                while let Some(&Reverse((rel, task, seq))) = heap.peek() {
                    if rel > now {
                        break;
                    }
                    heap.pop();
                    batch.push((rel, task, seq));
                    if let Some(Timing { period, .. }) = shared.timing.get(task as usize) {
                        let next = rel.saturating_add(*period);
                        if next < shared.horizon_ns {
                            heap.push(Reverse((next, task, seq + 1)));
                        }
                    }
                }
                self.refresh_view(mp);
                for &(rel, task, seq) in &batch {
                    self.buf
                        .record(start, Kind::Release, self.cpu, task, seq, rel);
                    let em = Emit {
                        buf: &self.buf,
                        clock: &cx.clock,
                        cpu: self.cpu,
                    };
                    self.sched.release(&em, now, task, seq, rel);
                }
                self.settle(&cx);
                let end = cx.clock.ticks();
                for &(rel, task, seq) in &batch {
                    self.buf
                        .record(end, Kind::ReleaseEnd, self.cpu, task, seq, 0);
                    mp.released_upto.fetch_max(rel, Ordering::Release);
                }
            }
            let now = monotonic_ns().saturating_sub(t0);
            // 3. Policy timers.
            if self.sched.next_timer().is_some_and(|t| t <= now) {
                self.refresh_view(mp);
                {
                    let em = Emit {
                        buf: &self.buf,
                        clock: &cx.clock,
                        cpu: self.cpu,
                    };
                    self.sched.fire_timers(&em, now);
                }
                self.settle(&cx);
            }
            // 4. Wait.
            let next_rel = heap.peek().map(|Reverse((r, _, _))| *r);
            mp.next_release
                .store(next_rel.unwrap_or(u64::MAX), Ordering::Release);
            let next = match (next_rel, self.sched.next_timer()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if bell.seen() != seen
                || shared.stop.load(Ordering::Acquire)
                || mp.boxes.iter().any(|b| b.has_message())
            {
                continue;
            }
            // Poll while a completion can come (a client runs or is about to run a job), so
            // it is answered within the polling delay instead of a futex wake-up.
            let now = monotonic_ns();
            let poll = mp.dsp_poll && self.client_busy(mp) && spin.poll_allowed(now);
            let target = next.map_or(u64::MAX, |n| t0.saturating_add(n));
            let margin = if spin.allowed(now) { mp.dsp_spin_ns } else { 0 };
            let wake = target.saturating_sub(margin);
            if !poll && now < wake {
                bell.sleep(seen, next.map(|_| wake));
                continue;
            }
            // Polling spins in slices so the budget and the clients' state are rechecked.
            let until = if poll && now < wake {
                target.min(now.saturating_add(POLL_SLICE_NS))
            } else {
                target
            };
            let from = now;
            let mut at = from;
            while at < until
                && bell.seen() == seen
                && !mp.boxes.iter().any(|b| b.has_message())
                && !shared.stop.load(Ordering::Relaxed)
            {
                std::hint::spin_loop();
                at = monotonic_ns();
            }
            spin.spent(from, at);
        }
        self
    }

    /// Whether some client runs a job or has one linked (a completion message may come).
    fn client_busy(&self, mp: &MpShared) -> bool {
        mp.slots.iter().any(|s| {
            let w = s.load();
            linked(w) != 0 || scheduled(w) != 0
        })
    }

    /// Reads every client slot and sets the scheduler's view of the clients' `scheduled`.
    fn refresh_view(&mut self, mp: &MpShared) {
        for (c, s) in mp.slots.iter().enumerate() {
            let w = s.load();
            if let Some(x) = self.snap.get_mut(c) {
                *x = w;
            }
            self.sched.view_scheduled(c, scheduled(w));
        }
    }

    /// Handles every pending message, round-robin (one per client per round). With
    /// `settle_each`, each handler also updates the clients' slots (a top-level handler:
    /// `dsp` covers the link changes it causes); inside `Dsp::settle` the caller does.
    fn serve_messages(&mut self, cx: &Cx<'_>, settle_each: bool) {
        let k = cx.mp.boxes.len();
        loop {
            let mut got = false;
            for i in 0..k {
                let c = (self.rr + i) % k;
                let Some(m) = cx.mp.boxes.get(c).and_then(|b| b.pop()) else {
                    continue;
                };
                got = true;
                self.handle(cx, c, m, settle_each);
            }
            self.rr = (self.rr + 1) % k.max(1);
            if !got {
                return;
            }
        }
    }

    /// One message of client `c` (local index).
    fn handle(&mut self, cx: &Cx<'_>, c: usize, m: Message, settle: bool) {
        let client = c as u32 + 1;
        let t = cx.clock.ticks();
        self.buf.record(
            t,
            Kind::MessageReceive,
            self.cpu,
            m.task,
            m.seq,
            u64::from(m.kind),
        );
        self.buf.record(
            t,
            Kind::DspBegin,
            self.cpu,
            m.task,
            m.seq,
            u64::from(m.kind),
        );
        let now = monotonic_ns().saturating_sub(cx.t0);
        if settle {
            self.refresh_view(cx.mp);
        }
        let em = Emit {
            buf: &self.buf,
            clock: &cx.clock,
            cpu: self.cpu,
        };
        // Not flushed here: the decision's events and the links that follow it are recorded
        // together by the relink of `settle` (one atomic decision in the trace).
        match m.kind {
            kind::COMPLETE => {
                if let Some(ctl) = cx.th.ctls.get(m.task as usize) {
                    if !self
                        .sched
                        .reported_complete(&em, now, c, m.task, m.seq, ctl)
                    {
                        self.sched.note_mech_error(format!(
                            "message-passing: client {client} reported job {} of task {} complete, which the DSP does not hold",
                            m.seq, m.task
                        ));
                    }
                }
            }
            // A refused one is counted by the state and its thread released.
            kind::LOCK => {
                self.sched
                    .reported_lock(&em, cx.th, c, (m.task, m.seq), now);
            }
            k => self.sched.note_mech_error(format!(
                "message-passing: client {client} sent a message of unknown kind {k}"
            )),
        }
        if let Some(u) = self.unacked.get_mut(c) {
            *u += 1;
        }
        if settle {
            self.settle(cx);
        }
        self.buf
            .record(cx.clock.ticks(), Kind::DspEnd, self.cpu, m.task, m.seq, 0);
    }

    /// Brings the clients' slots in line with the scheduler's links (see the module doc)
    /// and rings the clients whose `linked` changed (`ipi-send`).
    fn settle(&mut self, cx: &Cx<'_>) {
        self.changed.clear();
        let mut done = false;
        for _ in 0..64 {
            self.refresh_view(cx.mp);
            if cx.mp.boxes.iter().any(|b| b.has_message()) {
                self.serve_messages(cx, false);
                continue;
            }
            {
                let em = Emit {
                    buf: &self.buf,
                    clock: &cx.clock,
                    cpu: self.cpu,
                };
                self.sched.relink(&em);
            }
            self.sched.prepare_fresh(cx.th.ctls);
            if self.apply(&cx.clock, cx.mp) {
                done = true;
                break;
            }
        }
        if !done {
            self.sched.note_mech_error(
                "message-passing: the client slots did not settle within 64 rounds".into(),
            );
        }
        // The messages of this decision are handled: their clients may look at the slots.
        for (c, u) in self.unacked.iter_mut().enumerate() {
            if *u > 0 {
                if let Some(h) = cx.mp.handled.get(c) {
                    h.fetch_add(*u, Ordering::Release);
                }
                *u = 0;
            }
        }
        // One notification per client: the first change of this decision.
        self.changed.sort_by_key(|&(c, t)| (c, t));
        self.changed.dedup_by_key(|&mut (c, _)| c);
        for &(c, sent) in &self.changed {
            let client = c as u32 + 1;
            if !cx.mp.notify_or_defer(c) {
                continue; // a job thread completing inline enacts it (no IPI)
            }
            self.buf.record(
                sent,
                Kind::IpiSend,
                client,
                u32::MAX,
                0,
                u64::from(self.cpu),
            );
            if let Some(b) = cx.shared.bells.get(client as usize) {
                b.ring();
            }
        }
    }

    /// Writes the desired `linked` halves into the slots read by the last
    /// [`Dsp::refresh_view`], each by a CAS against that word. A job moving from one client's
    /// `linked` to another's is first removed from the old one (a cycle of moves is broken
    /// by unlinking one client for a moment), so no job is ever in two `linked` halves.
    /// Returns false if a CAS failed (a client changed its word: read again).
    fn apply(&mut self, clock: &TickClock, mp: &MpShared) -> bool {
        self.pending.clear();
        for c in 0..self.snap.len() {
            let want = self.sched.assigned_token(c);
            if let Some(w) = self.want.get_mut(c) {
                *w = want;
            }
            if self.snap.get(c).map(|&w| linked(w)) != Some(want) {
                self.pending.push(c);
            }
        }
        while !self.pending.is_empty() {
            let mut progress = false;
            let mut i = 0;
            while i < self.pending.len() {
                let Some(&c) = self.pending.get(i) else {
                    break;
                };
                let want = self.want.get(c).copied().unwrap_or(0);
                let held_elsewhere = want != 0
                    && self
                        .pending
                        .iter()
                        .any(|&o| o != c && self.snap.get(o).is_some_and(|&w| linked(w) == want));
                if held_elsewhere {
                    i += 1;
                    continue;
                }
                if !self.write_linked(clock, mp, c, want) {
                    return false;
                }
                self.pending.swap_remove(i);
                progress = true;
            }
            if !progress {
                let Some(&c) = self.pending.first() else {
                    break;
                };
                if !self.write_linked(clock, mp, c, 0) {
                    return false;
                }
            }
        }
        true
    }

    /// CAS of client `c`'s `linked` half to `tok` against the word last read.
    fn write_linked(&mut self, clock: &TickClock, mp: &MpShared, c: usize, tok: u32) -> bool {
        let (Some(slot), Some(old)) = (mp.slots.get(c), self.snap.get(c).copied()) else {
            return false;
        };
        let new = pack(tok, scheduled(old));
        let sent = clock.ticks();
        match slot.cas(old, new) {
            Ok(_) => {
                if let Some(x) = self.snap.get_mut(c) {
                    *x = new;
                }
                self.changed.push((c, sent));
                true
            }
            Err(_) => false,
        }
    }
}

/// How long one polling spin lasts before the DSP looks at its budget and clients again.
const POLL_SLICE_NS: u64 = 1_000_000;

/// The DSP's spinning is bounded so the kernel's RT throttling (95 % of a CPU per second)
/// never stops it: per [`SpinBudget::WINDOW_NS`] it spins before releases until
/// [`SpinBudget::MAX_NS`] is spent, and polls for completions only until
/// [`SpinBudget::POLL_MAX_NS`] is (polling may not starve the release margin). Past the
/// budget it sleeps until the release itself, or until a client rings it, until the next
/// window (timer and futex latency instead of polling latency).
#[derive(Debug, Default)]
struct SpinBudget {
    window_start: u64,
    spun: u64,
}

impl SpinBudget {
    const WINDOW_NS: u64 = 100_000_000;
    const MAX_NS: u64 = 80_000_000;
    const POLL_MAX_NS: u64 = 70_000_000;

    fn roll(&mut self, now: u64) {
        if now.saturating_sub(self.window_start) >= Self::WINDOW_NS {
            self.window_start = now;
            self.spun = 0;
        }
    }

    fn allowed(&mut self, now: u64) -> bool {
        self.roll(now);
        self.spun < Self::MAX_NS
    }

    fn poll_allowed(&mut self, now: u64) -> bool {
        self.roll(now);
        self.spun < Self::POLL_MAX_NS
    }

    fn spent(&mut self, from: u64, to: u64) {
        self.spun += to.saturating_sub(from);
    }
}

/// What the DSP's handlers need besides its own state.
struct Cx<'a> {
    clock: TickClock,
    shared: &'a Shared,
    mp: &'a MpShared,
    th: &'a Threads<'a>,
    t0: u64,
}
