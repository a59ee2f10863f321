//! The per-CPU dispatcher threads: each logical CPU of a run has one, pinned to it at the
//! highest SCHED_FIFO priority of the jobs' run (above every job thread). A dispatcher is
//! that CPU's "kernel scheduler": it sleeps on its doorbell futex until the next release it
//! owns, its domain's next policy timer or its CPU's budget expiry (absolute CLOCK_MONOTONIC
//! deadlines) or until rung (a job on its CPU completed, another CPU changed its link or
//! handed it a job — the runtime's IPI), and then
//! 0. takes what other CPUs handed to it ([`Domain::arrivals`]: `semi-partitioned`'s
//!    migration queue; nothing elsewhere);
//! 1. handles its due releases (`release` … `release-end`): hands the job to the policy, or
//!    to the CPU whose policy takes it ([`Domain::hand_release`]: a split task's head CPU);
//! 2. fires due policy timers (the first CPU of a domain owns them);
//! 3. checks its CPU's budget timer if it expired ([`Sched::check_budget`]: engine budgets,
//!    `crate::state`), which may end a job's budget;
//! 4. runs its scheduling step if needed (`sched-begin` … `sched-end`): processes a
//!    completion on its CPU and makes its CPU's scheduled job equal the assigned one
//!    ([`Sched::schedule`]); then sends what left its CPU ([`Domain::after_schedule`]);
//! 5. rings the dispatchers of other CPUs whose link changed or that were handed a job
//!    (`ipi-send`).
//!
//! How a dispatcher reaches its [`Sched`] is its [`Domain`], the architecture's part:
//! under `global-lock` the state is shared behind a lock (`lock-wait-begin` … `lock-wait-end`
//! around each acquisition, [`crate::arch::global_lock`]); under `partitioned` each
//! dispatcher owns its own and takes no lock ([`crate::arch::partitioned`]); under
//! `semi-partitioned` each owns its CPU's shard and reaches the other CPUs' migration queues
//! ([`crate::arch::semi_partitioned`]). The loop is generic over it (no dynamic dispatch on
//! the hot path).
//!
//! Releases: the dispatcher of the task's CPU under `partitioned` (under `semi-partitioned`
//! a split task's tail CPU); task `i` → CPU `i mod m`
//! under `global-lock` (release timers spread over the CPUs, like GSN-EDF without a
//! dedicated interrupt CPU); with a dedicated interrupt CPU (GSN-EDF-DI) CPU 0 owns every
//! release and the policy's timers, and schedules no job (its `local` is `None`; the policy
//! runs on CPUs 1..m). Optionally it wakes `release_spin` early and spins until the
//! release time (the kernel's timer wake-up latency is then hidden, at the price of CPU time).

use crate::mech::clock::monotonic_ns;
use crate::mech::futex;
use crate::run::Shared;
use crate::state::{Emit, Sched, Threads};
use schedlab_policy::{JobId, TaskId};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::{Kind, Op};
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

    /// Whether the dispatcher traces its sleep-queue operations (`sleep_take`, `sleep_add`:
    /// the RTPS overheads of `semi-partitioned`).
    const TRACE_SLEEP_QUEUE: bool = false;

    /// Step 0, before the releases: takes in what other CPUs handed to this one
    /// (`semi-partitioned`: its migration queue); returns whether its CPU must reschedule.
    /// `rings` collects other logical CPUs to ring.
    fn arrivals(&mut self, _em: &Emit<'_>, _now: u64, _rings: &mut Vec<u32>) -> bool {
        false
    }

    /// A release this dispatcher owns, of a task whose jobs another CPU hands to its policy
    /// (`semi-partitioned`: a split task's tail CPU releases into the head CPU): handed
    /// there (true), or `false` for a release of its own domain.
    fn hand_release(
        &mut self,
        _em: &Emit<'_>,
        _task: u32,
        _seq: u64,
        _release_ns: u64,
        _rings: &mut Vec<u32>,
    ) -> bool {
        false
    }

    /// After the scheduling step: sends what left this CPU (`semi-partitioned`: jobs whose
    /// part ended, to the next part's CPU).
    fn after_schedule(&mut self, _em: &Emit<'_>, _rings: &mut Vec<u32>) {}
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

/// A dispatcher's loop state besides the dispatcher itself.
struct Pass<'a> {
    shared: &'a Shared,
    th: &'a Threads<'a>,
    /// Its sleep queue: (release ns, task, job).
    heap: BinaryHeap<Reverse<(u64, u32, u64)>>,
    /// Logical CPUs to ring after this pass.
    rings: Vec<u32>,
    /// Its own CPU must run its scheduling step.
    need_self: bool,
    /// Its CPU's budget timer (ns since time zero), as the state said last.
    budget_at: Option<u64>,
}

/// Where a dispatcher of logical CPU `cpu` records: its buffer and the run's clock.
fn emit<'a>(buf: &'a TraceBuf, shared: &'a Shared, cpu: u32) -> Emit<'a> {
    Emit {
        buf,
        clock: &shared.clock,
        cpu,
    }
}

/// Takes the CPUs marked in `need` other than `me` (local indices) into `rings` as logical
/// CPUs (`base + c`), and whether `me` itself is marked.
fn drain_need(s: &mut Sched, base: u32, me: Option<usize>, rings: &mut Vec<u32>) -> bool {
    let mut mine = false;
    for (c, n) in s.need.iter_mut().enumerate() {
        if *n {
            if Some(c) == me {
                mine = true;
            } else {
                *n = false;
                rings.push(base + c as u32);
            }
        }
    }
    mine
}

impl<D: Domain> Dispatcher<D> {
    /// Runs `f` on the state (through the domain); then publishes the domain's earliest
    /// policy timer (ringing its owner if it moved earlier), notes this CPU's budget timer
    /// and takes the CPUs to ring.
    fn with_state<R>(&mut self, p: &mut Pass<'_>, f: impl FnOnce(&mut Sched, &Emit<'_>) -> R) -> R {
        let em = Emit {
            buf: &self.buf,
            clock: &p.shared.clock,
            cpu: self.cpu,
        };
        let (me, base) = (self.local, self.base);
        let rings = &mut p.rings;
        let ((r, budget_at, mine), next) = self.domain.with(&em, |s, em| {
            let r = f(s, em);
            let mine = drain_need(s, base, me, rings);
            (r, me.and_then(|c| s.budget_deadline(c)), mine)
        });
        p.budget_at = budget_at;
        p.need_self |= mine;
        let owner = self.timer_owner as usize;
        if let Some(slot) = p.shared.next_timer.get(owner) {
            let v = next.unwrap_or(u64::MAX);
            let old = slot.swap(v, Ordering::AcqRel);
            if v < old && owner as u32 != self.cpu {
                if let Some(b) = p.shared.bells.get(owner) {
                    b.ring();
                }
            }
        }
        r
    }

    fn em<'a>(&'a self, shared: &'a Shared) -> Emit<'a> {
        emit(&self.buf, shared, self.cpu)
    }

    /// Step 1: the due releases of its sleep queue.
    fn releases(&mut self, p: &mut Pass<'_>, mut now: u64) {
        let (clock, t0) = (p.shared.clock, p.shared.t0.load(Ordering::Acquire));
        while let Some(&Reverse((rel, task, seq))) = p.heap.peek() {
            if rel > now {
                break;
            }
            self.buf
                .record(clock.ticks(), Kind::Release, self.cpu, task, seq, rel);
            let sleep_op = D::TRACE_SLEEP_QUEUE.then(|| JobId::new(TaskId(task), seq));
            if let Some(j) = sleep_op {
                self.em(p.shared).op_begin(Op::SleepTake, Some(j));
            }
            p.heap.pop();
            if let Some(j) = sleep_op {
                self.em(p.shared).op_end(Op::SleepTake, Some(j));
            }
            let em = emit(&self.buf, p.shared, self.cpu);
            let handed = self.domain.hand_release(&em, task, seq, rel, &mut p.rings);
            if !handed {
                self.with_state(p, |s, em| s.release(em, now, task, seq, rel));
            }
            if let Some(tm) = p.shared.timing.get(task as usize) {
                let next = rel.saturating_add(tm.period);
                if next < p.shared.horizon_ns {
                    if let Some(j) = sleep_op {
                        self.em(p.shared).op_begin(Op::SleepAdd, Some(j));
                    }
                    p.heap.push(Reverse((next, task, seq + 1)));
                    if let Some(j) = sleep_op {
                        self.em(p.shared).op_end(Op::SleepAdd, Some(j));
                    }
                }
            }
            self.buf
                .record(clock.ticks(), Kind::ReleaseEnd, self.cpu, task, seq, 0);
            now = monotonic_ns().saturating_sub(t0);
        }
    }

    /// Steps 2 and 3: the policy timers due (timer owner) and this CPU's budget timer.
    fn timers(&mut self, p: &mut Pass<'_>, now: u64) {
        if self.timers {
            let due = p
                .shared
                .next_timer
                .get(self.cpu as usize)
                .is_some_and(|t| t.load(Ordering::Acquire) <= now);
            if due {
                self.with_state(p, |s, em| s.fire_timers(em, now));
            }
        }
        if let (Some(me), Some(at)) = (self.local, p.budget_at) {
            if at <= now {
                let th = p.th;
                self.with_state(p, |s, em| s.check_budget(em, th, me, now));
            }
        }
    }

    /// Step 4: the scheduling step, then what left the CPU.
    fn schedule(&mut self, p: &mut Pass<'_>, now: u64, wake_ticks: u64) {
        let clock = p.shared.clock;
        if let (true, Some(me)) = (p.need_self, self.local) {
            p.need_self = false;
            self.buf
                .record(clock.ticks(), Kind::SchedBegin, self.cpu, u32::MAX, 0, 0);
            let th = p.th;
            let switched = self.with_state(p, |s, em| s.schedule(em, th, me, now, wake_ticks));
            // The step itself needs no second pass for its own CPU.
            p.need_self = false;
            self.buf.record(
                clock.ticks(),
                Kind::SchedEnd,
                self.cpu,
                u32::MAX,
                0,
                u64::from(switched),
            );
        }
        let em = emit(&self.buf, p.shared, self.cpu);
        self.domain.after_schedule(&em, &mut p.rings);
    }

    /// Step 5: rings the other CPUs (the runtime's IPI).
    fn ring(&mut self, p: &mut Pass<'_>) {
        let clock = p.shared.clock;
        for target in p.rings.drain(..) {
            if target == self.cpu {
                p.need_self = true;
                continue;
            }
            self.buf.record(
                clock.ticks(),
                Kind::IpiSend,
                target,
                u32::MAX,
                0,
                u64::from(self.cpu),
            );
            if let Some(b) = p.shared.bells.get(target as usize) {
                b.ring();
            }
        }
    }

    /// Sleeps until the next release, policy timer or budget expiry, or a ring (spinning the
    /// last `release_spin` before a release or timer).
    fn sleep(&self, p: &Pass<'_>, bell: &Doorbell, last_seen: u32) {
        let (shared, t0) = (p.shared, p.shared.t0.load(Ordering::Acquire));
        let next_rel = p.heap.peek().map(|Reverse((r, _, _))| *r);
        let next_timer = if self.timers {
            shared
                .next_timer
                .get(self.cpu as usize)
                .map(|t| t.load(Ordering::Acquire))
                .filter(|&t| t != u64::MAX)
        } else {
            None
        };
        let next = [next_rel, next_timer].into_iter().flatten().min();
        if bell.word.load(Ordering::Acquire) != last_seen
            || shared.stop.load(Ordering::Acquire)
            || p.need_self
        {
            return;
        }
        let spun = next.map(|n| t0.saturating_add(n.saturating_sub(shared.release_spin_ns)));
        // A budget expiry is not spun for: it is no release, and the job runs meanwhile; the
        // job gets the CPU for a moment at least (`crate::state`, "Budgets": a check that
        // came at once again would keep it from ever running).
        let budget = p.budget_at.map(|b| {
            t0.saturating_add(b)
                .max(monotonic_ns().saturating_add(crate::state::BUDGET_MIN_SLEEP_NS))
        });
        let deadline = [spun, budget].into_iter().flatten().min();
        let woken = bell.sleep(last_seen, deadline);
        if woken == futex::Woken::TimedOut && shared.release_spin_ns > 0 && deadline == spun {
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

    /// The dispatcher's loop, until `shared.stop` (call after time zero was published).
    pub fn run(mut self, shared: &Shared, th: &Threads<'_>) -> Dispatcher<D> {
        let clock = shared.clock;
        let t0 = shared.t0.load(Ordering::Acquire);
        let bell = match shared.bells.get(self.cpu as usize) {
            Some(b) => b,
            None => return self,
        };
        let mut p = Pass {
            shared,
            th,
            heap: self
                .releases
                .iter()
                .filter_map(|&t| {
                    let off = shared.timing.get(t as usize)?.offset;
                    (off < shared.horizon_ns).then_some(Reverse((off, t, 0)))
                })
                .collect(),
            rings: Vec::new(),
            need_self: false,
            budget_at: None,
        };
        // The doorbell's value before time zero: a ring from another CPU that came before
        // this thread woke from the sleep below is then still seen. (Read after the sleep, it
        // was swallowed: under `concurrent`, where an idle CPU is rung only when its link
        // changes, CPU 0 then never ran its first job — a whole run with one CPU.)
        let mut last_seen = bell.word.load(Ordering::Acquire);
        // Nothing happens before time zero.
        crate::mech::clock::sleep_until(t0);
        while !shared.stop.load(Ordering::Acquire) {
            let seen = bell.word.load(Ordering::Acquire);
            if seen != last_seen {
                p.need_self = true;
                last_seen = seen;
            }
            let wake_ticks = clock.ticks();
            // Decisions use CLOCK_MONOTONIC (vDSO): the tick clock's frequency is only
            // known precisely after the run (its final fit converts the trace).
            let now = monotonic_ns().saturating_sub(t0);
            // 0. What other CPUs handed over.
            let em = emit(&self.buf, shared, self.cpu);
            p.need_self |= self.domain.arrivals(&em, now, &mut p.rings);
            // 1. Releases.
            self.releases(&mut p, now);
            let now = monotonic_ns().saturating_sub(t0);
            // 2., 3. Policy timers, the budget timer.
            self.timers(&mut p, now);
            // 4. Scheduling step, then what left the CPU.
            self.schedule(&mut p, now, wake_ticks);
            // 5. Notify the other CPUs.
            self.ring(&mut p);
            self.sleep(&p, bell, last_seen);
        }
        self
    }
}
