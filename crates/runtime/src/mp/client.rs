//! A client CPU of `message-passing` [MP §III-C, operations 2 and 3]: its dispatcher thread
//! (pinned to the client, above every job) carries out the DSP's decisions and reports its
//! job's completions. It never touches the scheduling state. With inline completion (the
//! default), a completing job's own thread runs the same step for its completion
//! ([`complete_inline`]); a per-client step lock ([`super::steplock`]) keeps the client's
//! side one actor at a time.
//!
//! Its step (`sched-begin` … `sched-end`), run when rung by the DSP (a link change: the
//! runtime's IPI) or by its own job thread (a completion):
//! 1. If the job it owns (its `scheduled` half) has completed — its thread committed
//!    `RUN → IDLE` — push a completion message into its mailbox (`message-send`) and ring
//!    the DSP if it sleeps (operation 3: before the slot changes, see [`super::slot`]).
//! 2. If `linked` differs from `scheduled` (or the job completed): park the old job (`RUN →
//!    PARK` + the preemption signal) while still owning it, then CAS the word to
//!    `scheduled = linked` (a completion with `linked` still naming it invalidates `linked`:
//!    the client is idle). A failed CAS means the DSP changed `linked` meanwhile: look again
//!    (resuming the old job if it was linked back).
//! 3. Make the new job runnable here: pin its thread to this CPU if needed, `→ RUN`, wake it.
//!
//! A job that blocks on a resource (`super::lock`) stays in `scheduled`, parked by the DSP,
//! until a step gives it up as in 2. (no preemption: the DSP recorded its `switch-out` and
//! `block`) — or, if its grant linked it here again first, resumes it (`PARK → RUN`). Its own
//! thread usually runs that step. A job whose lock operation waits for the DSP (`LOCK`) is
//! never given up: its thread holds the step lock meanwhile.
//!
//! Waiting: an idle client that reported a completion polls its slot (a shared cache line,
//! ~0.2 µs reaction) until the DSP handled its message or `idle_poll_ns` passed; an idle
//! client also wakes the DSP's spin margin before each release and polls until the DSP
//! handled it (it has nothing to run, so this costs no job time and saves the cross-CPU
//! futex wake-up of a halted vCPU, ~14 µs); a busy client does the same only with
//! `client_spin_ns` (`--release-spin`); otherwise it sleeps on its doorbell.

use super::slot::{linked, pack, scheduled, token, token_task};
use super::MpShared;
use crate::job::{IDLE, LOCK, PARK, RUN, STOP};
use crate::mailbox::{kind, Message};
use crate::mech::clock::{monotonic_ns, sleep_until};
use crate::mech::{futex, preempt, sched};
use crate::run::Shared;
use crate::state::Threads;
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::borrow::Borrow;
use std::sync::atomic::Ordering;

/// A client's scheduler: the dispatcher thread's state (`B = TraceBuf`, its own buffer), or,
/// with `inline_completion`, a completing job thread acting for its client for one step
/// (`B = &TraceBuf`, the job thread's buffer; see [`complete_inline`]).
pub struct Client<B: Borrow<TraceBuf> = TraceBuf> {
    /// Logical CPU (1..m).
    pub cpu: u32,
    /// Its trace buffer.
    pub buf: B,
    /// Mechanism failures: count and first message.
    pub mech_errors: (u64, Option<String>),
}

impl Client {
    /// The client of logical CPU `cpu` (≥ 1).
    pub fn new(cpu: u32, buf: TraceBuf) -> Client {
        Client {
            cpu,
            buf,
            mech_errors: (0, None),
        }
    }
}

impl<B: Borrow<TraceBuf>> Client<B> {
    pub(super) fn local(&self) -> usize {
        self.cpu.saturating_sub(1) as usize
    }

    pub(super) fn error(&mut self, msg: String) {
        self.mech_errors.0 += 1;
        self.mech_errors.1.get_or_insert(msg);
    }

    /// One scheduling step under the client's step lock (see [`MpShared::step_lock`]).
    /// Returns `None` when the lock is held by a job thread completing inline: then the
    /// holder re-rings this client's dispatcher if work is left when it lets go.
    fn locked_step(
        &mut self,
        shared: &Shared,
        mp: &MpShared,
        th: &Threads<'_>,
        wake_ticks: u64,
    ) -> Option<bool> {
        let local = self.local();
        if !mp.try_lock(local) {
            mp.note_pending(local);
            if !mp.try_lock(local) {
                return None;
            }
        }
        self.buf
            .borrow()
            .record(wake_ticks, Kind::SchedBegin, self.cpu, u32::MAX, 0, 0);
        let switched = self.step(shared, mp, th, wake_ticks);
        self.buf.borrow().record(
            shared.clock.ticks(),
            Kind::SchedEnd,
            self.cpu,
            u32::MAX,
            0,
            u64::from(switched),
        );
        self.unlock(shared, mp, th);
        Some(switched)
    }

    /// Releases the step lock; if a notification arrived meanwhile and work is left, rings
    /// the client's dispatcher (the DSP skipped its ring while the lock was held).
    pub(super) fn unlock(&self, shared: &Shared, mp: &MpShared, th: &Threads<'_>) {
        let local = self.local();
        if mp.unlock(local) {
            let w = mp.slots.get(local).map_or(0, |s| s.load());
            if self.has_work(w, th) {
                if let Some(b) = shared.bells.get(self.cpu as usize) {
                    b.ring();
                }
            }
        }
    }
}

impl Client {
    /// The client's loop, until `shared.stop` (call after time zero was published).
    pub fn run(mut self, shared: &Shared, mp: &MpShared, th: &Threads<'_>) -> Client {
        let clock = shared.clock;
        let t0 = shared.t0.load(Ordering::Acquire);
        let (Some(bell), Some(slot)) = (
            shared.bells.get(self.cpu as usize),
            mp.slots.get(self.local()),
        ) else {
            return self;
        };
        sleep_until(t0);
        while !shared.stop.load(Ordering::Acquire) {
            let seen = bell.seen();
            let wake_ticks = clock.ticks();
            if self.has_work(slot.load(), th)
                && self.locked_step(shared, mp, th, wake_ticks).is_none()
            {
                // A completing job thread holds the step lock: it rings when it lets go.
                bell.sleep(seen, None);
                continue;
            }
            if bell.seen() != seen || shared.stop.load(Ordering::Acquire) {
                continue;
            }
            let w = slot.load();
            if self.has_work(w, th) {
                continue;
            }
            // Idle and waiting for the DSP's answer to a report: poll the slot.
            let handled = mp.handled.get(self.local());
            if scheduled(w) == 0
                && handled.is_some_and(|h| h.load(Ordering::Acquire) < mp.sent_of(self.local()))
            {
                let until = monotonic_ns().saturating_add(mp.idle_poll_ns);
                while slot.load() == w
                    && handled.is_some_and(|h| h.load(Ordering::Acquire) < mp.sent_of(self.local()))
                    && bell.seen() == seen
                    && monotonic_ns() < until
                    && !shared.stop.load(Ordering::Relaxed)
                {
                    std::hint::spin_loop();
                }
                if slot.load() != w || bell.seen() != seen {
                    continue;
                }
            }
            // Before a release: wake early and poll until the DSP handled it — always when
            // idle (nothing to run here, so polling costs no job time: the DSP's margin),
            // and when busy only with `client_spin_ns` (the job loses that time).
            let mut deadline = None;
            let spin_ns = if mp.client_spin_ns > 0 {
                mp.client_spin_ns
            } else if scheduled(w) == 0 {
                mp.dsp_spin_ns
            } else {
                0
            };
            if spin_ns > 0 {
                let next = mp.next_release.load(Ordering::Acquire);
                if next != u64::MAX {
                    let at = t0.saturating_add(next);
                    let wake = at.saturating_sub(spin_ns);
                    if monotonic_ns() >= wake {
                        let until = at.saturating_add(spin_ns);
                        while slot.load() == w
                            && mp.released_upto.load(Ordering::Acquire) < next
                            && mp.next_release.load(Ordering::Acquire) == next
                            && bell.seen() == seen
                            && monotonic_ns() < until
                            && !shared.stop.load(Ordering::Relaxed)
                        {
                            std::hint::spin_loop();
                        }
                        if slot.load() != w || bell.seen() != seen {
                            continue;
                        }
                        // The release passed without a change here: wait for the next one.
                        if mp.next_release.load(Ordering::Acquire) == next {
                            deadline = Some(until.saturating_add(spin_ns));
                        }
                    } else {
                        deadline = Some(wake);
                    }
                }
            }
            bell.sleep(seen, deadline);
        }
        self
    }
}

impl<B: Borrow<TraceBuf>> Client<B> {
    /// Whether the slot or the owned job needs a step: `linked` differs from `scheduled`,
    /// or the owned job completed, or it is parked (blocked on a resource, `super::lock`)
    /// and linked here again.
    fn has_work(&self, w: u64, th: &Threads<'_>) -> bool {
        let s = scheduled(w);
        linked(w) != s || (s != 0 && self.completed_or_parked(s, th))
    }

    /// Whether the owned job of token `s` has committed its completion or is parked.
    fn completed_or_parked(&self, s: u32, th: &Threads<'_>) -> bool {
        token_task(s)
            .and_then(|t| th.ctls.get(t as usize))
            .is_some_and(|ctl| matches!(ctl.state.load(Ordering::Acquire), IDLE | PARK))
    }

    /// The scheduling step (see the module doc); returns whether a job was switched in.
    pub(super) fn step(
        &mut self,
        shared: &Shared,
        mp: &MpShared,
        th: &Threads<'_>,
        wake_ticks: u64,
    ) -> bool {
        let local = self.local();
        let Some(slot) = mp.slots.get(local) else {
            return false;
        };
        let mut parked = false;
        for _ in 0..64 {
            let w = slot.load();
            let (l, s) = (linked(w), scheduled(w));
            let old = token_task(s).and_then(|t| th.ctls.get(t as usize));
            let done = old.is_some_and(|c| c.state.load(Ordering::Acquire) == IDLE);
            if done && mp.reported_of(local) != s {
                if let Some(ctl) = old {
                    self.report(shared, mp, ctl.task, ctl.seq.load(Ordering::Relaxed));
                }
                mp.set_reported(local, s);
            }
            let invalidate = done && l == s;
            let target = if invalidate { 0 } else { l };
            if target == s && !done {
                // Linked back while being parked in this step (its thread has not run since:
                // this step holds the CPU), or a job that blocked on a resource here and was
                // granted it (or aborted) and linked here again before this client gave it
                // up (`super::lock`): resume it.
                if let Some(ctl) = old {
                    if ctl
                        .state
                        .compare_exchange(PARK, RUN, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                    {
                        futex::wake(&ctl.state, 1);
                    }
                }
                return false;
            }
            if let (Some(ctl), false, false) = (old, done, parked) {
                match ctl
                    .state
                    .compare_exchange(RUN, PARK, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => {
                        parked = true;
                        if let Err(e) = preempt::send(ctl.tid.load(Ordering::Relaxed)) {
                            self.error(e.to_string());
                        }
                    }
                    Err(IDLE) => continue, // it completed just now: report it first
                    Err(STOP) => return false,
                    Err(LOCK) => {
                        // Never given up while its lock operation waits for the DSP (its
                        // thread holds the step lock then: `super::lock`, so not reached).
                        self.error(format!(
                            "message-passing client {}: task {}'s job waits for a lock operation",
                            self.cpu, ctl.task
                        ));
                        return false;
                    }
                    // PARK: blocked on a resource (the DSP parked it, `super::lock`).
                    Err(_) => parked = true,
                }
            }
            if slot.cas(w, pack(target, target)).is_err() {
                continue;
            }
            if let (Some(ctl), false) = (old, done) {
                let seq = ctl.seq.load(Ordering::Relaxed);
                // Only a job whose code (re)started since it was made runnable has an
                // interval to close (see `JobCtl::on_signal`).
                if ctl.take_ran() {
                    self.buf.borrow().record(
                        wake_ticks,
                        Kind::SwitchOut,
                        self.cpu,
                        ctl.task,
                        seq,
                        0,
                    );
                    self.buf
                        .borrow()
                        .record(wake_ticks, Kind::Preempt, self.cpu, ctl.task, seq, 0);
                }
            }
            return target != 0 && self.dispatch(th, target);
        }
        self.error("message-passing client: the slot did not settle within 64 rounds".into());
        false
    }

    /// Reports the completion of job `seq` of `task` to the DSP.
    fn report(&mut self, shared: &Shared, mp: &MpShared, task: u32, seq: u64) {
        let Some(b) = mp.boxes.get(self.local()) else {
            return;
        };
        let sent = shared.clock.ticks();
        self.buf.borrow().record(
            sent,
            Kind::MessageSend,
            self.cpu,
            task,
            seq,
            u64::from(kind::COMPLETE),
        );
        let m = Message {
            kind: kind::COMPLETE,
            task,
            seq,
            sent,
        };
        // The ring cannot fill (Mailbox::for_tasks); if it ever did, wait for the DSP rather
        // than lose a completion.
        while b.push(m).is_err() && !shared.stop.load(Ordering::Relaxed) {
            std::hint::spin_loop();
        }
        mp.count_sent(self.local());
        if let Some(d) = shared.bells.first() {
            d.ring();
        }
    }

    /// Makes the job of token `tok` runnable on this CPU.
    fn dispatch(&mut self, th: &Threads<'_>, tok: u32) -> bool {
        let Some(ctl) = token_task(tok).and_then(|t| th.ctls.get(t as usize)) else {
            return false;
        };
        let seq = ctl.seq.load(Ordering::Relaxed);
        if token(ctl.task, seq) != tok {
            self.error(format!(
                "message-passing client {}: linked token {tok:#x} does not name task {}'s job {seq}",
                self.cpu, ctl.task
            ));
            return false;
        }
        let state = ctl.state.load(Ordering::Acquire);
        if state == IDLE && ctl.first_run.load(Ordering::Relaxed) != 0 {
            self.error(format!(
                "message-passing client {}: task {}'s job {seq} was linked after it completed",
                self.cpu, ctl.task
            ));
            return false;
        }
        if ctl.pinned.load(Ordering::Relaxed) != self.cpu {
            let phys = th.phys.get(self.cpu as usize).copied().unwrap_or(0);
            match sched::set_affinity(ctl.tid.load(Ordering::Relaxed), &[phys]) {
                Ok(()) => ctl.pinned.store(self.cpu, Ordering::Relaxed),
                Err(e) => self.error(e.to_string()),
            }
        }
        ctl.cpu.store(self.cpu, Ordering::Release);
        // Its switch-in is the thread's to record (`crate::job`, "Stretches").
        ctl.arm();
        let prev = ctl.state.swap(RUN, Ordering::AcqRel);
        if prev == STOP {
            ctl.state.store(prev, Ordering::Release);
            return false;
        }
        futex::wake(&ctl.state, 1);
        true
    }
}

/// A completion handled in the completing job's own thread (`inline_completion`): the thread
/// of the job `me`, which has just committed its completion on client CPU `cpu`, runs the
/// client's step itself — it reports the completion, polls its slot for the DSP's answer
/// (the DSP polls its mailboxes, so it answers in ~2 µs) and switches the next job in — and
/// then parks, so the next job's thread runs after one context switch; the dispatcher,
/// which would otherwise be woken (one switch) and put back to sleep (another), is not
/// involved. [MP §III-C] leaves open which thread executes a client's scheduling: in a
/// kernel it is the completing task's context, as here.
///
/// The client's side of the protocol stays one actor at a time through the step lock
/// ([`MpShared::try_lock`]): the dispatcher takes it for its steps; the DSP does not ring a
/// client whose lock is held (the holder enacts what it sees and looks for work when it
/// lets go, [`MpShared::notify_or_defer`]), which spares the dispatcher's wake-up on
/// exactly the link change the completing thread waits for. Ownership is as in
/// [`super::slot`], with "the client" being whichever thread holds the lock.
///
/// Returns false (the caller rings the dispatcher) only if the lock was held.
pub fn complete_inline(
    me: &crate::job::JobCtl,
    cpu: u32,
    shared: &Shared,
    mp: &MpShared,
    th: &Threads<'_>,
) -> bool {
    let mut client = Client {
        cpu,
        buf: &me.buf,
        mech_errors: (0, None),
    };
    let local = client.local();
    let Some(slot) = mp.slots.get(local) else {
        return false;
    };
    if !mp.try_lock(local) {
        return false;
    }
    let begin = shared.clock.ticks();
    client
        .buf
        .record(begin, Kind::SchedBegin, cpu, u32::MAX, 0, 0);
    let seq = me.seq.load(Ordering::Relaxed);
    let mine = token(me.task, seq);
    let w = slot.load();
    let mut switched = false;
    // Still this client's job (a dispatcher step may have handled it meanwhile, when the
    // dispatcher preempted this thread between its commit and here).
    if scheduled(w) == mine && me.state.load(Ordering::Acquire) == IDLE {
        if mp.reported_of(local) != mine {
            client.report(shared, mp, me.task, seq);
            mp.set_reported(local, mine);
        }
        let handled = mp.handled.get(local);
        let until = monotonic_ns().saturating_add(mp.idle_poll_ns);
        while slot.load() == w
            && handled.is_some_and(|h| h.load(Ordering::Acquire) < mp.sent_of(local))
            && monotonic_ns() < until
            && !shared.stop.load(Ordering::Relaxed)
        {
            std::hint::spin_loop();
        }
        switched = client.step(shared, mp, th, begin);
    }
    client.buf.record(
        shared.clock.ticks(),
        Kind::SchedEnd,
        cpu,
        u32::MAX,
        0,
        u64::from(switched),
    );
    client.unlock(shared, mp, th);
    // Left idle (no job to switch to): wake the dispatcher, which then polls before the
    // next release as an idle client does — off the critical path, since nothing waits here.
    if scheduled(slot.load()) == 0 {
        if let Some(b) = shared.bells.get(cpu as usize) {
            b.ring();
        }
    }
    if client.mech_errors.0 > 0 {
        if let Ok(mut e) = mp.inline_errors.lock() {
            e.0 += client.mech_errors.0;
            if e.1.is_none() {
                e.1 = client.mech_errors.1.take();
            }
        }
    }
    true
}
