//! The per-CPU dispatcher threads: each logical CPU of a run has one, pinned to it at the
//! highest SCHED_FIFO priority of the jobs' run (above every job thread). A dispatcher is
//! that CPU's "kernel scheduler": it sleeps on its doorbell futex until the next release it
//! owns (absolute CLOCK_MONOTONIC deadline) or until rung (a job on its CPU completed, or
//! another CPU changed its link — the runtime's IPI), and then
//! 1. handles its due releases (`release` … `release-end`): hands the job to the policy;
//! 2. fires due policy timers (the first CPU of a domain owns them);
//! 3. runs its scheduling step if needed (`sched-begin` … `sched-end`): processes a
//!    completion on its CPU and makes its CPU's scheduled job equal the assigned one
//!    ([`Sched::schedule`]);
//! 4. rings the dispatchers of other CPUs whose link changed (`ipi-send`).
//!
//! How a dispatcher reaches its [`Sched`] is its [`Domain`], the architecture's part:
//! under `global-lock` the state is shared behind a lock (`lock-wait-begin` … `lock-wait-end`
//! around each acquisition, [`crate::arch::global_lock`]); under `partitioned` each
//! dispatcher owns its own and takes no lock ([`crate::arch::partitioned`]). The loop is
//! generic over it (no dynamic dispatch on the hot path).
//!
//! Releases: the dispatcher of the task's CPU under `partitioned`; task `i` → CPU `i mod m`
//! under `global-lock` (release timers spread over the CPUs, like GSN-EDF without a
//! dedicated interrupt CPU); with a dedicated interrupt CPU (GSN-EDF-DI) CPU 0 owns every
//! release and the policy's timers, and schedules no job (its `local` is `None`; the policy
//! runs on CPUs 1..m). Optionally it wakes `release_spin` early and spins until the
//! release time (the kernel's timer wake-up latency is then hidden, at the price of CPU time).

use crate::mech::clock::monotonic_ns;
use crate::mech::futex;
use crate::run::Shared;
use crate::state::{Emit, Sched, Threads};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// A dispatcher's doorbell: a counter bumped by whoever needs it to look, its futex, and
/// whether its owner sleeps on it — a ringer makes the wake-up system call only then, so
/// ringing a spinning (or running) owner costs one atomic add.
///
/// Lost wake-ups are impossible: the sleeper publishes `waiting` and then waits with the
/// counter value it saw (the kernel compares it atomically); the ringer bumps the counter
/// and then reads `waiting`, both sequentially consistent, so either the ringer sees
/// `waiting` (and wakes) or the sleeper's futex call sees the new counter (and returns).
#[derive(Debug, Default)]
pub struct Doorbell {
    word: AtomicU32,
    waiting: AtomicBool,
}

impl Doorbell {
    /// Asks the owner to look (run its scheduling step).
    pub fn ring(&self) {
        self.word.fetch_add(1, Ordering::SeqCst);
        if self.waiting.load(Ordering::SeqCst) {
            futex::wake(&self.word, 1);
        }
    }

    /// The counter now (compare with a later value to see whether it was rung).
    pub fn seen(&self) -> u32 {
        self.word.load(Ordering::Acquire)
    }

    /// Sleeps (owner only) until rung after `seen` was read, or until CLOCK_MONOTONIC
    /// reaches `deadline_ns`.
    pub fn sleep(&self, seen: u32, deadline_ns: Option<u64>) -> futex::Woken {
        self.waiting.store(true, Ordering::SeqCst);
        let r = if self.word.load(Ordering::SeqCst) == seen {
            futex::wait(&self.word, seen, deadline_ns)
        } else {
            futex::Woken::Maybe
        };
        self.waiting.store(false, Ordering::Relaxed);
        r
    }
}

/// How a dispatcher reaches its scheduling state (the architecture's part of the
/// dispatcher, see the module doc).
pub trait Domain: Send + 'static {
    /// Runs `f` on the state — the `Synced` state of an architecture with a lock, passed as
    /// `&mut`: the lock is held exactly while `f` runs — and returns its result and the
    /// state's earliest policy timer. `em` records on the calling dispatcher's buffer
    /// (e.g. the lock wait).
    fn with<R>(
        &mut self,
        em: &Emit<'_>,
        f: impl FnOnce(&mut Sched, &Emit<'_>) -> R,
    ) -> (R, Option<u64>);
}

/// One dispatcher.
pub struct Dispatcher<D: Domain> {
    /// Logical CPU.
    pub cpu: u32,
    /// First logical CPU of its domain (local CPU `c` of the domain is logical `base + c`).
    pub base: u32,
    /// Its CPU's index in the domain, or `None` for a CPU that schedules no job (the
    /// dedicated interrupt CPU of GSN-EDF-DI: it only handles releases and timers).
    pub local: Option<usize>,
    /// Tasks whose releases it owns.
    pub releases: Vec<u32>,
    /// The logical CPU that owns the domain's policy timers.
    pub timer_owner: u32,
    /// Whether it owns its domain's policy timers.
    pub timers: bool,
    /// Its state.
    pub domain: D,
    /// Its trace buffer.
    pub buf: TraceBuf,
}

/// Runs `f` on the state (through the domain), then publishes the domain's earliest policy
/// timer (ringing its owner if it moved earlier).
fn with_state<D: Domain, R>(
    d: &mut Dispatcher<D>,
    shared: &Shared,
    f: impl FnOnce(&mut Sched, &Emit<'_>) -> R,
) -> R {
    let em = Emit {
        buf: &d.buf,
        clock: &shared.clock,
        cpu: d.cpu,
    };
    let (r, next) = d.domain.with(&em, f);
    let owner = d.timer_owner as usize;
    if let Some(slot) = shared.next_timer.get(owner) {
        let v = next.unwrap_or(u64::MAX);
        let old = slot.swap(v, Ordering::AcqRel);
        if v < old && owner as u32 != d.cpu {
            if let Some(b) = shared.bells.get(owner) {
                b.ring();
            }
        }
    }
    r
}

/// Takes the CPUs marked in `need` other than `me` (local indices) into `rings`, and
/// whether `me` itself is marked.
fn drain_need(s: &mut Sched, me: Option<usize>, rings: &mut Vec<u32>) -> bool {
    let mut mine = false;
    for (c, n) in s.need.iter_mut().enumerate() {
        if *n {
            if Some(c) == me {
                mine = true;
            } else {
                *n = false;
                rings.push(c as u32);
            }
        }
    }
    mine
}

impl<D: Domain> Dispatcher<D> {
    /// The dispatcher's loop, until `shared.stop` (call after time zero was published).
    pub fn run(mut self, shared: &Shared, th: &Threads<'_>) -> Dispatcher<D> {
        let clock = shared.clock;
        let t0 = shared.t0.load(Ordering::Acquire);
        let me = self.local;
        let bell = match shared.bells.get(self.cpu as usize) {
            Some(b) => b,
            None => return self,
        };
        let mut heap: BinaryHeap<Reverse<(u64, u32, u64)>> = self
            .releases
            .iter()
            .filter_map(|&t| {
                let off = shared.timing.get(t as usize)?.offset;
                (off < shared.horizon_ns).then_some(Reverse((off, t, 0)))
            })
            .collect();
        // Nothing happens before time zero.
        crate::mech::clock::sleep_until(t0);
        let mut rings: Vec<u32> = Vec::new();
        let mut last_seen = bell.word.load(Ordering::Acquire);
        let mut need_self = false;
        while !shared.stop.load(Ordering::Acquire) {
            let seen = bell.word.load(Ordering::Acquire);
            if seen != last_seen {
                need_self = true;
                last_seen = seen;
            }
            let wake_ticks = clock.ticks();
            // Decisions use CLOCK_MONOTONIC (vDSO): the tick clock's frequency is only
            // known precisely after the run (its final fit converts the trace).
            let mut now = monotonic_ns().saturating_sub(t0);
            // 1. Releases.
            while let Some(&Reverse((rel, task, seq))) = heap.peek() {
                if rel > now {
                    break;
                }
                heap.pop();
                self.buf
                    .record(clock.ticks(), Kind::Release, self.cpu, task, seq, rel);
                let mine = with_state(&mut self, shared, |s, em| {
                    s.release(em, now, task, seq, rel);
                    drain_need(s, me, &mut rings)
                });
                need_self |= mine;
                self.buf
                    .record(clock.ticks(), Kind::ReleaseEnd, self.cpu, task, seq, 0);
                if let Some(tm) = shared.timing.get(task as usize) {
                    let next = rel.saturating_add(tm.period);
                    if next < shared.horizon_ns {
                        heap.push(Reverse((next, task, seq + 1)));
                    }
                }
                now = monotonic_ns().saturating_sub(t0);
            }
            // 2. Policy timers.
            if self.timers {
                let due = shared
                    .next_timer
                    .get(self.cpu as usize)
                    .is_some_and(|t| t.load(Ordering::Acquire) <= now);
                if due {
                    need_self |= with_state(&mut self, shared, |s, em| {
                        s.fire_timers(em, now);
                        drain_need(s, me, &mut rings)
                    });
                }
            }
            // 3. Scheduling step.
            if let (true, Some(me)) = (need_self, me) {
                need_self = false;
                self.buf
                    .record(clock.ticks(), Kind::SchedBegin, self.cpu, u32::MAX, 0, 0);
                let switched = with_state(&mut self, shared, |s, em| {
                    let sw = s.schedule(em, th, me, now, wake_ticks);
                    drain_need(s, Some(me), &mut rings);
                    sw
                });
                self.buf.record(
                    clock.ticks(),
                    Kind::SchedEnd,
                    self.cpu,
                    u32::MAX,
                    0,
                    u64::from(switched),
                );
            }
            // 4. Notify the other CPUs.
            for c in rings.drain(..) {
                let target = self.base + c;
                self.buf.record(
                    clock.ticks(),
                    Kind::IpiSend,
                    target,
                    u32::MAX,
                    0,
                    u64::from(self.cpu),
                );
                if let Some(b) = shared.bells.get(target as usize) {
                    b.ring();
                }
            }
            // Sleep until the next release / timer, or a ring.
            let next_rel = heap.peek().map(|Reverse((r, _, _))| *r);
            let next_timer = if self.timers {
                shared
                    .next_timer
                    .get(self.cpu as usize)
                    .map(|t| t.load(Ordering::Acquire))
                    .filter(|&t| t != u64::MAX)
            } else {
                None
            };
            let next = match (next_rel, next_timer) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if bell.word.load(Ordering::Acquire) != last_seen || shared.stop.load(Ordering::Acquire)
            {
                continue;
            }
            let deadline =
                next.map(|n| t0.saturating_add(n.saturating_sub(shared.release_spin_ns)));
            let woken = bell.sleep(last_seen, deadline);
            if woken == futex::Woken::TimedOut && shared.release_spin_ns > 0 {
                if let Some(n) = next {
                    let target = t0.saturating_add(n);
                    while monotonic_ns() < target
                        && bell.word.load(Ordering::Acquire) == last_seen
                        && !shared.stop.load(Ordering::Relaxed)
                    {
                        std::hint::spin_loop();
                    }
                }
            }
        }
        self
    }
}
