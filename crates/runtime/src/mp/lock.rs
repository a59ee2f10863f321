//! Scheduler-managed mutexes under `message-passing` [ChronOS §3.6; MP §III]: the job
//! thread's side. The semantics are `crate::locks`' (the simulator's); what differs is the
//! road to the scheduling state, which the DSP owns: a lock operation is a message.
//!
//! # Protocol (one operation at a time per thread; client c = the CPU the job runs on)
//! 1. **Own the step.** The thread takes c's step lock ([`super::steplock`]), checks that c
//!    still owns its job (c's `scheduled` half names it and the job's CPU is c) and moves
//!    its word `RUN → LOCK`. While it holds the lock, nobody else runs c's step, so c cannot
//!    park or give the job up, and DSP notifications for c are deferred to the lock's release
//!    (the dispatcher, above the job on c, finds the lock held and leaves the step to it). If
//!    c no longer owns the job (it was preempted just now), the thread lets go and waits to
//!    run again, possibly on another client.
//! 2. **Send.** It pushes a `LOCK` message into c's mailbox (`message-send`, arg 2; the
//!    operation itself is in its control block, `JobCtl::lock_op`), counts it sent and rings
//!    the DSP's doorbell (a no-op unless the DSP sleeps).
//! 3. **Wait for the answer.** It polls `MpShared::handled` (the DSP polls its mailboxes while
//!    a client runs a job, so the answer takes the polling delay and one handler); after
//!    `idle_poll_ns` it sleeps on its control word while that is `LOCK`. The DSP
//!    (`crate::state`'s `Sched::reported_lock`) applies the operation with the code of
//!    `global-lock`'s dispatchers and answers the same way: `LOCK → RUN` with the reply
//!    (granted, unknown, misuse; an abort decided meanwhile: no reply) or `LOCK → PARK`
//!    (blocked: `switch-out`, `block`, `on_block`); it counts the message handled once the
//!    slots show the links that follow.
//! 4. **Continue.** `RUN`: the thread lets the step lock go (which rings c's dispatcher if
//!    the DSP changed c's link meanwhile: the job may be preempted right away) and returns the
//!    reply. `PARK`: it runs c's step itself, as a completing thread does
//!    ([`super::client::complete_inline`]) — which gives its job up and switches in what the
//!    DSP linked to c, or, if the grant already linked it to c again, resumes it — lets the
//!    lock go and waits while `PARK`. The grant (or an abort) makes it `RUN` again where the
//!    policy links it; it records its own `switch-in` then.
//!
//! Nothing here waits for another CPU while holding anything the DSP needs: the DSP never
//! waits for a client (a slot it writes by CAS is not changed by c while the thread holds c's
//! step lock), so the wait in 3 ends when the DSP handles the message.
//!
//! Cost of an operation that does not block: two cache-line round trips to the DSP (the
//! mailbox and the answer), its handler (the policy callbacks, a relink) and no context
//! switch; a block costs the DSP's decision plus one context switch to the next job.
//! Measured against `global-lock` in docs/runtime.md ("Resources").

use super::client::Client;
use super::slot::{scheduled, token};
use super::MpShared;
use crate::job::{JobCtl, LOCK, PARK, RUN, STOP};
use crate::locks::{outcome, write_op, Reply};
use crate::mailbox::{kind, Message};
use crate::mech::clock::monotonic_ns;
use crate::run::Shared;
use crate::state::Threads;
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::sync::atomic::Ordering;

/// Rounds of step 1 (the job not owned by the CPU it last ran on) before the thread gives up
/// with a mechanism error: each round waits for the thread to run again, so only a broken
/// ownership invariant can exhaust them.
const MAX_OWN_ROUNDS: u32 = 100_000;

/// Performs the operation on `resource` (`unlock`: an unlock) for the thread of `me`, running
/// its job on a client of `mp` (module doc).
pub fn request(
    me: &JobCtl,
    resource: u32,
    unlock: bool,
    shared: &Shared,
    mp: &MpShared,
    th: &Threads<'_>,
) -> Reply {
    let seq = write_op(me, resource, unlock);
    let Some(cpu) = own(me, seq, shared, mp, th) else {
        return Reply::Stopped;
    };
    let mut client = Client {
        cpu,
        buf: &me.buf,
        mech_errors: (0, None),
    };
    let sent = send(&client, me, seq, shared, mp);
    let handled = wait_handled(me, client.local(), sent, shared, mp);
    let reply = match me.state.load(Ordering::Acquire) {
        RUN if handled => {
            client.unlock(shared, mp, th);
            outcome(me, seq, false)
        }
        PARK if handled => {
            give_up(&mut client, shared, mp, th);
            loop {
                match me.state.load(Ordering::Acquire) {
                    RUN => break outcome(me, seq, true),
                    STOP => break Reply::Stopped,
                    s => {
                        me.wait_until_not(s);
                    }
                }
            }
        }
        // The run stopped while the DSP had not answered.
        _ => {
            client.unlock(shared, mp, th);
            Reply::Stopped
        }
    };
    if client.mech_errors.0 > 0 {
        note_errors(mp, client.mech_errors);
    }
    reply
}

/// Step 1: takes the step lock of the client that runs job `seq` of `me` and moves `RUN →
/// LOCK`; returns the client's logical CPU (holding its step lock), or `None` if the run
/// stopped (or the ownership invariant broke: a mechanism error).
fn own(me: &JobCtl, seq: u64, shared: &Shared, mp: &MpShared, th: &Threads<'_>) -> Option<u32> {
    let tok = token(me.task, seq);
    for _ in 0..MAX_OWN_ROUNDS {
        if shared.stop.load(Ordering::Acquire) {
            return None;
        }
        let cpu = me.cpu.load(Ordering::Acquire);
        let Some(local) = cpu
            .checked_sub(1)
            .map(|c| c as usize)
            .filter(|&c| c < mp.slots.len())
        else {
            break;
        };
        if !mp.try_lock(local) {
            // Held by a thread that cannot run while this one does on the same CPU (see
            // `super::client::complete_inline`); let it finish.
            std::thread::yield_now();
            continue;
        }
        let owned = mp.slots.get(local).map(|s| scheduled(s.load())) == Some(tok)
            && me.cpu.load(Ordering::Acquire) == cpu;
        if owned {
            match me
                .state
                .compare_exchange(RUN, LOCK, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(cpu),
                Err(PARK) => {}
                Err(_) => {
                    release(cpu, &me.buf, shared, mp, th);
                    return None;
                }
            }
        }
        // Preempted just now (its signal is on its way): wait to run again, wherever.
        release(cpu, &me.buf, shared, mp, th);
        match me.state.load(Ordering::Acquire) {
            PARK => {
                me.wait_until_not(PARK);
            }
            STOP => return None,
            _ => std::thread::yield_now(),
        }
    }
    note_errors(
        mp,
        (
            1,
            Some(format!(
                "message-passing: task {}'s job {seq} asked for a lock operation but no client owns it",
                me.task
            )),
        ),
    );
    None
}

/// Lets client `cpu`'s step lock go (ringing its dispatcher if a notification was deferred
/// and work is left).
fn release(cpu: u32, buf: &TraceBuf, shared: &Shared, mp: &MpShared, th: &Threads<'_>) {
    let client = Client {
        cpu,
        buf,
        mech_errors: (0, None),
    };
    client.unlock(shared, mp, th);
}

/// Step 2: the `LOCK` message of job `seq` into the client's mailbox; returns the client's
/// count of sent messages including it.
fn send(client: &Client<&TraceBuf>, me: &JobCtl, seq: u64, shared: &Shared, mp: &MpShared) -> u64 {
    let local = client.local();
    let sent = shared.clock.ticks();
    me.buf.record(
        sent,
        Kind::MessageSend,
        client.cpu,
        me.task,
        seq,
        u64::from(kind::LOCK),
    );
    let m = Message {
        kind: kind::LOCK,
        task: me.task,
        seq,
        sent,
    };
    if let Some(b) = mp.boxes.get(local) {
        // The ring cannot fill (Mailbox::for_tasks); if it ever did, wait for the DSP.
        while b.push(m).is_err() && !shared.stop.load(Ordering::Relaxed) {
            std::hint::spin_loop();
        }
    }
    mp.count_sent(local);
    if let Some(d) = shared.bells.first() {
        d.ring();
    }
    mp.sent_of(local)
}

/// Step 3: waits until client `local`'s first `sent` messages are handled; false if the run
/// stopped first.
fn wait_handled(me: &JobCtl, local: usize, sent: u64, shared: &Shared, mp: &MpShared) -> bool {
    let Some(handled) = mp.handled.get(local) else {
        return false;
    };
    let done = || handled.load(Ordering::Acquire) >= sent;
    let stopped = || shared.stop.load(Ordering::Relaxed) || me.stopping();
    let until = monotonic_ns().saturating_add(mp.idle_poll_ns);
    while !done() && !stopped() && monotonic_ns() < until {
        std::hint::spin_loop();
    }
    if !done() && !stopped() {
        // The DSP sleeps (its spin budget is spent): it answers with a futex wake of the
        // control word, and counts the message handled a few µs later.
        me.wait_until_not(LOCK);
        while !done() && !stopped() {
            std::hint::spin_loop();
        }
    }
    done()
}

/// Step 4 for a blocked job: runs the client's step (giving the job up, or resuming it if
/// linked here again), lets the step lock go, and leaves a client without a job to its
/// dispatcher (which then polls before the next release, as after a completion).
fn give_up(client: &mut Client<&TraceBuf>, shared: &Shared, mp: &MpShared, th: &Threads<'_>) {
    let cpu = client.cpu;
    let begin = shared.clock.ticks();
    client
        .buf
        .record(begin, Kind::SchedBegin, cpu, u32::MAX, 0, 0);
    let switched = client.step(shared, mp, th, begin);
    client.buf.record(
        shared.clock.ticks(),
        Kind::SchedEnd,
        cpu,
        u32::MAX,
        0,
        u64::from(switched),
    );
    client.unlock(shared, mp, th);
    let idle = mp
        .slots
        .get(client.local())
        .is_some_and(|s| scheduled(s.load()) == 0);
    if idle {
        if let Some(b) = shared.bells.get(cpu as usize) {
            b.ring();
        }
    }
}

/// Adds mechanism failures of a job thread to the run's.
fn note_errors(mp: &MpShared, (count, first): (u64, Option<String>)) {
    if let Ok(mut e) = mp.inline_errors.lock() {
        e.0 += count;
        if e.1.is_none() {
            e.1 = first;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    //! The thread's side against a scripted DSP: a plain thread that takes the message out of
    //! client 1's mailbox and answers as `Sched::reported_lock` does (the control word, the
    //! reply, the slot's `linked` half, then `handled`). No real-time threads, no dispatcher:
    //! the test's own thread is the job thread of τ0, running job 0 on client 1.
    use super::*;
    use crate::config::{Arch, RtTask, RunConfig};
    use crate::locks::GRANTED;
    use crate::mech::clock::TickClock;
    use crate::mech::futex;
    use crate::mp::slot::{linked, pack};
    use crate::state::abort_words;
    use schedlab_model::Duration;
    use std::sync::Arc;

    struct Fixture {
        shared: Shared,
        mp: MpShared,
        ctls: Vec<Arc<JobCtl>>,
    }

    impl Fixture {
        /// τ0's job 0 runs on client 1 (linked and scheduled there); τ1 is idle.
        fn new() -> Fixture {
            let clock = TickClock::monotonic();
            let ms = Duration::from_ns(1_000_000);
            let tasks = vec![RtTask::new(ms, ms, ms), RtTask::new(ms, ms, ms)];
            let arch = Arch::named("message-passing", "ticket").unwrap();
            let config = RunConfig::new(vec![0, 1], arch, "gedf", 2, ms);
            let words = abort_words(2);
            let ctls: Vec<Arc<JobCtl>> = (0..2)
                .map(|i| {
                    let mut c = JobCtl::new(i, 64, clock, &[0, 0]);
                    c.aborts = words.clone();
                    c.pinned.store(1, Ordering::Relaxed);
                    c.cpu.store(1, Ordering::Relaxed);
                    Arc::new(c)
                })
                .collect();
            ctls[0].state.store(RUN, Ordering::Release);
            let mp = MpShared::new(1, 2, 0, 0, true);
            let own = token(0, 0);
            mp.slots[0].cas(0, pack(own, own)).unwrap();
            Fixture {
                shared: Shared::new(clock, &tasks, &config, false),
                mp,
                ctls,
            }
        }

        fn th(&self) -> Threads<'_> {
            Threads {
                ctls: &self.ctls,
                phys: &[0, 0],
            }
        }

        /// τ0's request, on the test's thread.
        fn request(&self, resource: u32, unlock: bool) -> Reply {
            request(
                &self.ctls[0],
                resource,
                unlock,
                &self.shared,
                &self.mp,
                &self.th(),
            )
        }

        /// The scripted DSP: waits for the message, checks it, runs `answer`, counts it
        /// handled.
        fn dsp(&self, answer: impl FnOnce(&Fixture)) {
            let m = loop {
                if let Some(m) = self.mp.boxes[0].pop() {
                    break m;
                }
                std::thread::yield_now();
            };
            assert_eq!((m.kind, m.task, m.seq), (kind::LOCK, 0, 0));
            assert!(!self.mp.try_lock(0), "the thread holds the step lock");
            assert_eq!(self.ctls[0].state.load(Ordering::Acquire), LOCK);
            answer(self);
            self.mp.handled[0].fetch_add(1, Ordering::Release);
        }

        /// Moves τ0's word `LOCK → to` (the DSP's answer) and wakes it.
        fn answer(&self, to: u32) {
            let s = &self.ctls[0].state;
            assert!(s
                .compare_exchange(LOCK, to, Ordering::AcqRel, Ordering::Acquire)
                .is_ok());
            futex::wake(s, 1);
        }

        /// The DSP relinks client 1 to the job of `tok` (0: none).
        fn link(&self, tok: u32) {
            let w = self.mp.slots[0].load();
            self.mp.slots[0].cas(w, pack(tok, scheduled(w))).unwrap();
        }

        /// Waits until client 1 schedules `tok` (its step ran).
        fn until_scheduled(&self, tok: u32) {
            while scheduled(self.mp.slots[0].load()) != tok {
                std::thread::yield_now();
            }
        }

        /// A client makes τ0 runnable again on client 1 (after its grant or abort).
        fn resume(&self) {
            let s = &self.ctls[0].state;
            self.ctls[0].arm();
            s.store(RUN, Ordering::Release);
            futex::wake(s, 1);
        }

        fn kinds(&self) -> Vec<(Kind, u64)> {
            let b = &self.ctls[0].buf;
            b.events().iter().map(|e| (e.kind, e.arg)).collect()
        }

        /// The step lock was let go.
        fn lock_free(&self) -> bool {
            let free = self.mp.try_lock(0);
            if free {
                self.mp.unlock(0);
            }
            free
        }
    }

    /// Granted: the thread sends one `LOCK` message holding the step lock, continues on
    /// `LOCK → RUN` with the DSP's reply, no step, no switch; the lock is let go.
    #[test]
    fn a_granted_operation_is_one_message_and_no_switch() {
        let f = Fixture::new();
        std::thread::scope(|sc| {
            sc.spawn(|| {
                f.dsp(|f| {
                    assert_eq!(f.ctls[0].lock_op.load(Ordering::Acquire), 5);
                    f.ctls[0].lock_reply.store(GRANTED, Ordering::Release);
                    f.answer(RUN);
                })
            });
            assert_eq!(f.request(5, false), Reply::Granted);
        });
        assert_eq!(f.ctls[0].state.load(Ordering::Acquire), RUN);
        assert_eq!(f.mp.sent_of(0), 1);
        assert_eq!(f.kinds(), vec![(Kind::MessageSend, u64::from(kind::LOCK))]);
        assert!(f.lock_free());
    }

    /// Blocked: the DSP parks τ0 and links τ1 to client 1; τ0's thread runs the client's
    /// step itself (gives τ0 up, switches τ1 in: `sched-end` arg 1) and waits; the grant and
    /// a client's resume make it continue with `Granted` and its own `switch-in`.
    #[test]
    fn a_blocked_thread_gives_its_client_up_and_resumes_when_granted() {
        let f = Fixture::new();
        let next = token(1, 0);
        std::thread::scope(|sc| {
            sc.spawn(|| {
                f.dsp(|f| {
                    f.answer(PARK);
                    f.link(next);
                });
                f.until_scheduled(next);
                f.resume();
            });
            assert_eq!(f.request(5, false), Reply::Granted);
        });
        assert_eq!(f.ctls[1].state.load(Ordering::Acquire), RUN, "τ1 runs");
        let w = f.mp.slots[0].load();
        assert_eq!((linked(w), scheduled(w)), (next, next));
        use Kind::*;
        assert_eq!(
            f.kinds(),
            vec![
                (MessageSend, u64::from(kind::LOCK)),
                (SchedBegin, 0),
                (SchedEnd, 1),
                (SwitchIn, 0),
            ]
        );
        assert!(f.lock_free());
    }

    /// A waiter aborted (a deadlock broken by the policy) is made runnable for its handler:
    /// the request says `Aborted`.
    #[test]
    fn an_aborted_waiter_returns_aborted() {
        let f = Fixture::new();
        std::thread::scope(|sc| {
            sc.spawn(|| {
                f.dsp(|f| {
                    f.answer(PARK);
                    f.link(0);
                });
                f.until_scheduled(0);
                f.ctls[0].aborts[0].store(1, Ordering::Release);
                f.resume();
            });
            assert_eq!(f.request(5, false), Reply::Aborted);
        });
        assert!(f.lock_free());
    }

    /// The thread finds its job not owned by the client it last ran on (preempted there just
    /// now: parked, given up): it lets the step lock go and waits; once a client owns it and
    /// makes it runnable again, the operation goes through.
    #[test]
    fn a_job_preempted_before_its_request_waits_and_retries() {
        let f = Fixture::new();
        f.mp.slots[0].cas(f.mp.slots[0].load(), 0).unwrap();
        f.ctls[0].state.store(PARK, Ordering::Release);
        std::thread::scope(|sc| {
            sc.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(5));
                assert!(
                    f.mp.boxes[0].pop().is_none(),
                    "nothing sent while not owned"
                );
                let own = token(0, 0);
                f.mp.slots[0].cas(0, pack(own, own)).unwrap();
                f.resume();
                f.dsp(|f| {
                    f.ctls[0].lock_reply.store(GRANTED, Ordering::Release);
                    f.answer(RUN);
                });
            });
            assert_eq!(f.request(5, true), Reply::Granted);
        });
        assert_eq!(
            f.ctls[0].lock_op.load(Ordering::Acquire),
            5 | crate::locks::UNLOCK_BIT
        );
        assert!(f.lock_free());
    }

    /// The run stops while the DSP has not answered: `Stopped`, the step lock let go.
    #[test]
    fn the_stop_ends_a_wait_for_the_dsp() {
        let f = Fixture::new();
        std::thread::scope(|sc| {
            sc.spawn(|| {
                while !f.mp.boxes[0].has_message() {
                    std::thread::yield_now();
                }
                f.shared.stop.store(true, Ordering::Release);
                f.ctls[0].stop();
            });
            assert_eq!(f.request(5, false), Reply::Stopped);
        });
        assert!(f.lock_free());
    }

    /// A client's step resumes the job it still schedules, parked by a block, once that job
    /// is linked to it again (granted before the client gave it up).
    #[test]
    fn a_step_resumes_a_parked_job_linked_to_it_again() {
        let f = Fixture::new();
        f.ctls[0].state.store(PARK, Ordering::Release);
        let mut client = Client {
            cpu: 1,
            buf: &f.ctls[1].buf,
            mech_errors: (0, None),
        };
        assert!(f.mp.try_lock(0));
        assert!(!client.step(&f.shared, &f.mp, &f.th(), 0));
        client.unlock(&f.shared, &f.mp, &f.th());
        assert_eq!(f.ctls[0].state.load(Ordering::Acquire), RUN);
        assert_eq!(client.mech_errors.0, 0);
    }
}
