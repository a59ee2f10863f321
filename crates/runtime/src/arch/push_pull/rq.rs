//! `push-pull`'s per-CPU EDF run queues and the SCHED_DEADLINE-style protocol between them
//! (`super`'s module doc has the whole protocol): wake-up placement (`select_task_rq_dl`,
//! `find_later_rq`), push (`push_dl_task` with `find_lock_later_rq`'s bounded retries) and
//! pull (`pull_dl_task` over the overloaded CPUs), modelled on Linux's
//! `kernel/sched/deadline.c` (read, not copied). Nothing here touches a job thread: the
//! queues say which job each CPU *should* run (`curr`, traced as `link`/`unlink`); each
//! CPU's dispatcher enacts it (`super`).
//!
//! Priorities: a job's absolute deadline; in a queue, ties by task index then job number
//! (the project's rule, `schedlab_policy::prio`). A job preempts, is pushed or pulled only
//! with a *strictly* earlier deadline (`dl_time_before`; the equal-key rule).
//!
//! Cost (m CPUs, q jobs in one queue): an enqueue or removal `O(log q)`, a publish `O(log m)`
//! (the cpudl heap), a wake-up `O(m)` (the free-CPU scan) plus one push, a push attempt up to
//! [`DL_MAX_TRIES`] lookups, a pull one pass over the m CPUs' overload flags with a double
//! lock per overloaded CPU that may give an earlier job.

use super::cpudl::Cpudl;
use crate::mech::clock::TickClock;
use crate::mech::lock::{Guard, LockKind, Locked};
use schedlab_policy::JobId;
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// Lookups a push makes before giving up (the kernel's `DL_MAX_TRIES`): each finds a later
/// CPU, double-locks it and re-checks; a job left behind is pulled when some CPU lowers its
/// priority.
pub(crate) const DL_MAX_TRIES: u32 = 3;

/// "No deadline": an idle CPU's running deadline, an empty queue's earliest waiting one.
const NONE: u64 = u64::MAX;

/// A job's place in a queue: (absolute deadline ns, task, job).
pub(crate) type Key = (u64, u32, u64);

/// A released job in some CPU's run queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    /// The job.
    pub(crate) id: JobId,
    /// Its absolute deadline (ns since time zero).
    pub(crate) deadline: u64,
    /// Its intended release (ns since time zero).
    pub(crate) release: u64,
    /// Handed to its thread already (its first switch-in happened or is under way).
    pub(crate) dispatched: bool,
}

impl Item {
    fn key(&self) -> Key {
        (self.deadline, self.id.task.0, self.id.seq)
    }
}

/// Whether deadline `d` is strictly earlier than `than` (`None` or [`NONE`]: an empty queue,
/// which every job beats) — the kernel's `dl_task_is_earliest_deadline`.
fn earlier(d: u64, than: u64) -> bool {
    d < than
}

/// One CPU's run queue (behind its own lock).
#[derive(Debug)]
pub(crate) struct Rq {
    cpu: u32,
    /// The job the CPU should run: the queue's earliest (strictly earlier jobs preempt it).
    /// `None` only when the queue is empty.
    pub(crate) curr: Option<Item>,
    /// The other jobs, earliest first.
    waiting: BTreeMap<Key, Item>,
    /// The job the CPU's dispatcher made runnable and has not parked (written by that
    /// dispatcher alone): while it waits here after a preemption it is not pushable — its
    /// thread may still execute on this CPU (the kernel's `task_on_cpu`).
    pub(crate) on_cpu: Option<JobId>,
}

impl Rq {
    fn new(cpu: u32) -> Rq {
        Rq {
            cpu,
            curr: None,
            waiting: BTreeMap::new(),
            on_cpu: None,
        }
    }

    /// The deadline it runs ([`NONE`] when empty).
    fn earliest(&self) -> u64 {
        self.curr.map_or(NONE, |i| i.deadline)
    }

    /// The earliest waiting job that may move (not still on this CPU).
    pub(crate) fn pushable(&self) -> Option<Item> {
        self.waiting
            .values()
            .find(|i| Some(i.id) != self.on_cpu)
            .copied()
    }

    /// Whether a waiting job may move.
    pub(crate) fn has_pushable(&self) -> bool {
        self.pushable().is_some()
    }

    /// Adds `it`: it becomes `curr` if the queue is empty or it is strictly earlier than
    /// `curr` (which then waits); returns whether it did (`curr` changed: the CPU must
    /// reschedule).
    fn enqueue(&mut self, it: Item, log: &mut Log<'_>) -> bool {
        match self.curr {
            Some(c) if !earlier(it.deadline, c.deadline) => {
                self.waiting.insert(it.key(), it);
                false
            }
            old => {
                if let Some(c) = old {
                    self.waiting.insert(c.key(), c);
                }
                self.curr = Some(it);
                log.stage(Kind::Link, self.cpu, it.id, 0);
                true
            }
        }
    }

    /// Removes job `j` (completed): if it was `curr`, the earliest waiting job takes its
    /// place (`link`, or `unlink` when none). Whether `j` was here.
    pub(crate) fn remove(&mut self, j: JobId, log: &mut Log<'_>) -> bool {
        if self.on_cpu == Some(j) {
            self.on_cpu = None;
        }
        if self.curr.is_some_and(|c| c.id == j) {
            let next = self.waiting.pop_first().map(|(_, i)| i);
            self.curr = next;
            match next {
                Some(n) => log.stage(Kind::Link, self.cpu, n.id, 0),
                None => log.stage(Kind::Unlink, self.cpu, j, 0),
            }
            return true;
        }
        let key = self.waiting.values().find(|i| i.id == j).map(Item::key);
        key.and_then(|k| self.waiting.remove(&k)).is_some()
    }

    /// Marks `curr` handed to its thread.
    pub(crate) fn set_dispatched(&mut self) {
        if let Some(c) = self.curr.as_mut() {
            c.dispatched = true;
        }
    }

    /// Every job in the queue (the end of a run).
    pub(crate) fn jobs(&self) -> impl Iterator<Item = &Item> {
        self.curr.iter().chain(self.waiting.values())
    }
}

/// Where the protocol records: the calling dispatcher's buffer, the run's clock, its CPU,
/// and the decision events of the current critical section, written with one timestamp
/// when it ends ([`Log::flush`]) so that the trace shows each decision atomically.
pub(crate) struct Log<'a> {
    pub(crate) buf: &'a TraceBuf,
    pub(crate) clock: &'a TickClock,
    pub(crate) me: u32,
    staged: Vec<(Kind, u32, JobId, u64)>,
}

impl<'a> Log<'a> {
    /// The log of dispatcher `me`.
    pub(crate) fn new(buf: &'a TraceBuf, clock: &'a TickClock, me: u32) -> Log<'a> {
        Log {
            buf,
            clock,
            me,
            staged: Vec::with_capacity(8),
        }
    }

    /// Stages a decision event about `j` on `cpu`.
    pub(crate) fn stage(&mut self, kind: Kind, cpu: u32, j: JobId, arg: u64) {
        self.staged.push((kind, cpu, j, arg));
    }

    /// Records the staged events with one timestamp (now; call before unlocking).
    pub(crate) fn flush(&mut self) {
        if self.staged.is_empty() {
            return;
        }
        let t = self.clock.ticks();
        for &(kind, cpu, j, arg) in &self.staged {
            self.buf.record(t, kind, cpu, j.task.0, j.seq, arg);
        }
        self.staged.clear();
    }

    fn now(&self, kind: Kind) {
        self.buf
            .record(self.clock.ticks(), kind, self.me, u32::MAX, 0, 0);
    }
}

/// Push and pull counters of a run (JSON fields of the summary, `super::DEF`).
#[derive(Debug, Default)]
pub(crate) struct Stats {
    /// Jobs moved by a push.
    pub(crate) pushes: AtomicU64,
    /// Extra lookups of a push (its 2nd and 3rd tries).
    pub(crate) push_retries: AtomicU64,
    /// Pushes that found a later CPU and gave up after the re-checks (the job stayed).
    pub(crate) push_failures: AtomicU64,
    /// Jobs moved by a pull.
    pub(crate) pulls: AtomicU64,
    /// Overloaded CPUs double-locked by a pull that moved nothing (the re-check failed).
    pub(crate) pull_failures: AtomicU64,
}

/// The queues and the structures read across CPUs (module doc, `super`'s protocol).
#[derive(Debug)]
pub(crate) struct Core {
    rqs: Vec<Locked<Rq>>,
    cpudl: Locked<Cpudl>,
    /// `dlo_mask`: CPUs whose queue has a waiting job; and their number (`dlo_count`).
    overloaded: Vec<AtomicBool>,
    dlo_count: AtomicU32,
    /// Per CPU, read without its lock: the deadline it runs (`rq->curr`) and its earliest
    /// waiting one (`earliest_dl.next`); [`NONE`] for none.
    curr_dl: Vec<AtomicU64>,
    next_dl: Vec<AtomicU64>,
    /// Per task, the CPU whose queue its job was last put on (`task_cpu`); `u32::MAX`: never.
    prev: Vec<AtomicU32>,
    /// The counters.
    pub(crate) stats: Stats,
}

impl Core {
    /// `m` CPUs with empty queues behind locks of `kind`, for `n` tasks.
    pub(crate) fn new(m: u32, n: usize, kind: LockKind) -> Core {
        let slots = m as usize;
        Core {
            rqs: (0..m).map(|c| Locked::new(kind, slots, Rq::new(c))).collect(),
            cpudl: Locked::new(LockKind::Ticket, slots, Cpudl::new(slots)),
            overloaded: (0..m).map(|_| AtomicBool::new(false)).collect(),
            dlo_count: AtomicU32::new(0),
            curr_dl: (0..m).map(|_| AtomicU64::new(NONE)).collect(),
            next_dl: (0..m).map(|_| AtomicU64::new(NONE)).collect(),
            prev: (0..n).map(|_| AtomicU32::new(u32::MAX)).collect(),
            stats: Stats::default(),
        }
    }

    /// Number of CPUs.
    pub(crate) fn m(&self) -> u32 {
        self.rqs.len() as u32
    }

    /// CPU `c`'s queue, its lock wait recorded (`lock-wait-begin` … `-end` on the caller's
    /// CPU).
    pub(crate) fn lock(&self, log: &Log<'_>, c: u32) -> Option<Guard<'_, Rq>> {
        let l = self.rqs.get(c as usize)?;
        log.now(Kind::LockWaitBegin);
        let g = l.lock(log.me as usize);
        log.now(Kind::LockWaitEnd);
        Some(g)
    }

    /// Both queues, locked in CPU-index order (`double_lock_balance` without a held lock).
    fn lock2(&self, log: &Log<'_>, a: u32, b: u32) -> Option<(Guard<'_, Rq>, Guard<'_, Rq>)> {
        if a < b {
            let ga = self.lock(log, a)?;
            let gb = self.lock(log, b)?;
            Some((ga, gb))
        } else {
            let gb = self.lock(log, b)?;
            let ga = self.lock(log, a)?;
            Some((ga, gb))
        }
    }

    /// Publishes queue `rq`'s state for the other CPUs (call holding its lock, after every
    /// change): its running and earliest waiting deadlines, its overload flag, its cpudl
    /// entry. The overload flag is stored before the cpudl update and a pull reads the
    /// flags after its own cpudl update, so a waiting job and a CPU going idle always see
    /// each other (one of them moves the job).
    pub(crate) fn publish(&self, rq: &Rq, slot: u32) {
        let c = rq.cpu as usize;
        if let Some(a) = self.curr_dl.get(c) {
            a.store(rq.earliest(), Ordering::SeqCst);
        }
        if let Some(a) = self.next_dl.get(c) {
            let next = rq.waiting.values().next().map_or(NONE, |i| i.deadline);
            a.store(next, Ordering::SeqCst);
        }
        let over = !rq.waiting.is_empty();
        if let Some(f) = self.overloaded.get(c) {
            if f.swap(over, Ordering::SeqCst) != over {
                if over {
                    self.dlo_count.fetch_add(1, Ordering::SeqCst);
                } else {
                    self.dlo_count.fetch_sub(1, Ordering::SeqCst);
                }
            }
        }
        let mut h = self.cpudl.lock(slot as usize);
        match rq.curr {
            Some(i) => h.set(rq.cpu, i.deadline),
            None => h.clear(rq.cpu),
        }
    }

    fn curr_of(&self, c: u32) -> u64 {
        self.curr_dl
            .get(c as usize)
            .map_or(0, |a| a.load(Ordering::SeqCst))
    }

    fn prev_of(&self, j: JobId) -> Option<u32> {
        let p = self.prev.get(j.task.0 as usize)?.load(Ordering::Relaxed);
        (p != u32::MAX).then_some(p)
    }

    fn set_prev(&self, j: JobId, cpu: u32) {
        if let Some(p) = self.prev.get(j.task.0 as usize) {
            p.store(cpu, Ordering::Relaxed);
        }
    }

    /// `find_later_rq` through cpudl: a free CPU (`prefer` first) other than `except`, else
    /// the CPU with the latest running deadline if `deadline` is strictly earlier and it is
    /// not `except`.
    fn find_later(&self, slot: u32, deadline: u64, prefer: Option<u32>, except: Option<u32>) -> Option<u32> {
        let h = self.cpudl.lock(slot as usize);
        if let Some(f) = h.free(prefer, except) {
            return Some(f);
        }
        let (cpu, dl) = h.maximum()?;
        (Some(cpu) != except && earlier(deadline, dl)).then_some(cpu)
    }

    /// `select_task_rq_dl` for a waking job: its previous CPU if that idles or the job
    /// preempts it — even when another CPU idles, as the kernel does — else a later CPU
    /// from cpudl if the job beats what runs there, else the previous CPU. A job whose task
    /// never ran goes where cpudl sends it, else to the CPU with the latest deadline, else
    /// to the caller's.
    fn select(&self, slot: u32, it: &Item) -> u32 {
        match self.prev_of(it.id) {
            Some(p) => {
                if earlier(it.deadline, self.curr_of(p)) {
                    return p;
                }
                match self.find_later(slot, it.deadline, Some(p), None) {
                    Some(t) if earlier(it.deadline, self.curr_of(t)) => t,
                    _ => p,
                }
            }
            None => self
                .find_later(slot, it.deadline, None, None)
                .or_else(|| self.cpudl.lock(slot as usize).maximum().map(|(c, _)| c))
                .unwrap_or(slot),
        }
    }

    /// A job wakes (its release handed over, `ready`): placed by [`Core::select`] and
    /// enqueued there under that CPU's lock; the CPU is put into `rings` if its `curr`
    /// changed; if the job waits, that CPU's queue is pushed (`task_woken_dl`).
    pub(crate) fn wake(&self, log: &mut Log<'_>, it: Item, rings: &mut Vec<u32>) {
        let t = self.select(log.me, &it);
        let Some(mut g) = self.lock(log, t) else {
            return;
        };
        log.stage(Kind::Ready, log.me, it.id, it.release);
        let runs = g.enqueue(it, log);
        self.set_prev(it.id, t);
        self.publish(&g, log.me);
        log.flush();
        drop(g);
        if runs {
            rings.push(t);
        } else {
            self.push(log, t, rings);
        }
    }

    /// `push_dl_tasks` on CPU `src`: pushes while a job moves.
    pub(crate) fn push(&self, log: &mut Log<'_>, src: u32, rings: &mut Vec<u32>) {
        // Each move fills a free CPU or strictly lowers a running deadline: bounded by
        // the queue; the cap guards against a protocol error, never reached.
        for _ in 0..4096 {
            if !self.push_one(log, src, rings) {
                return;
            }
        }
    }

    /// `push_dl_task` with `find_lock_later_rq`: `src`'s earliest pushable job goes to a
    /// CPU where it would run (free, or running a strictly later deadline) — both queues
    /// locked in CPU order (when the target's index is lower, `src`'s lock is dropped and
    /// retaken, and the job re-checked); at most [`DL_MAX_TRIES`] lookups. Whether it moved.
    fn push_one(&self, log: &mut Log<'_>, src: u32, rings: &mut Vec<u32>) -> bool {
        let Some(mut gs) = self.lock(log, src) else {
            return false;
        };
        let Some(mut x) = gs.pushable() else {
            return false;
        };
        let mut tried = false;
        for tries in 0..DL_MAX_TRIES {
            let Some(t) = self.find_later(log.me, x.deadline, self.prev_of(x.id), Some(src)) else {
                break;
            };
            // The target runs an equal or earlier deadline already: retrying would see the
            // same (the kernel's early exit).
            if !earlier(x.deadline, self.curr_of(t)) {
                break;
            }
            if tries > 0 {
                self.stats.push_retries.fetch_add(1, Ordering::Relaxed);
            }
            tried = true;
            let gt = if t > src {
                match self.lock(log, t) {
                    Some(g) => g,
                    None => break,
                }
            } else {
                drop(gs);
                let Some(g) = self.lock(log, t) else {
                    return false;
                };
                gs = match self.lock(log, src) {
                    Some(g) => g,
                    None => return false,
                };
                // The lock was dropped: the job may have moved, run or been overtaken.
                if gs.pushable() != Some(x) {
                    drop(g);
                    match gs.pushable() {
                        Some(y) => {
                            x = y;
                            continue;
                        }
                        None => return false,
                    }
                }
                g
            };
            let mut gt = gt;
            if earlier(x.deadline, gt.earliest()) {
                gs.waiting.remove(&x.key());
                gt.enqueue(x, log);
                self.set_prev(x.id, t);
                self.publish(&gs, log.me);
                self.publish(&gt, log.me);
                log.flush();
                self.stats.pushes.fetch_add(1, Ordering::Relaxed);
                rings.push(t);
                return true;
            }
        }
        if tried {
            self.stats.push_failures.fetch_add(1, Ordering::Relaxed);
        }
        false
    }

    /// `pull_dl_task` on CPU `me`, which lowered its priority (its job completed): from each
    /// overloaded CPU whose earliest waiting deadline (read without its lock) beats what
    /// `me` runs, double-lock, re-check and take its earliest pushable job if strictly
    /// earlier than `me`'s and than every job pulled before in this pass. Whether a job
    /// came (`me` must then reschedule).
    pub(crate) fn pull(&self, log: &mut Log<'_>, me: u32) -> bool {
        if self.dlo_count.load(Ordering::SeqCst) == 0 {
            return false;
        }
        let mut dmin = NONE;
        let mut pulled = false;
        for c in 0..self.m() {
            let over = self
                .overloaded
                .get(c as usize)
                .is_some_and(|f| f.load(Ordering::SeqCst));
            if c == me || !over {
                continue;
            }
            let next = self
                .next_dl
                .get(c as usize)
                .map_or(NONE, |a| a.load(Ordering::SeqCst));
            // Racy, and fine (the kernel's words): a stale read costs one pass at most.
            if !earlier(next, self.curr_of(me)) {
                continue;
            }
            let Some((mut gm, mut gc)) = self.lock2(log, me, c) else {
                continue;
            };
            match gc.pushable() {
                Some(p) if earlier(p.deadline, dmin) && earlier(p.deadline, gm.earliest()) => {
                    gc.waiting.remove(&p.key());
                    gm.enqueue(p, log);
                    self.set_prev(p.id, me);
                    self.publish(&gc, log.me);
                    self.publish(&gm, log.me);
                    log.flush();
                    dmin = p.deadline;
                    pulled = true;
                    self.stats.pulls.fetch_add(1, Ordering::Relaxed);
                }
                _ => {
                    self.stats.pull_failures.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        pulled
    }

    /// Every CPU's queue, for the end of a run (call when no dispatcher runs).
    pub(crate) fn queues(&self) -> impl Iterator<Item = &Locked<Rq>> {
        self.rqs.iter()
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
