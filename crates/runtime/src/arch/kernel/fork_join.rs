//! Parallel (fork-join) tasks [RTWS §III, Fig. 1] under the kernel baselines: one kernel
//! thread per **thread slot**. Slot k runs the k-th thread of every region that has one, so
//! a task has as many slot threads as its widest region ([`ParallelStructure::max_width`]);
//! slot 0 has a thread in every region (no region is empty) and releases the jobs. The
//! kernel schedules the slot threads like any other of its threads: this is the "SD"
//! baseline of [RTWS §VI] (SCHED_DEADLINE with the threads of a job as threads of their
//! own) and its SCHED_FIFO twin.
//!
//! # Protocol
//!
//! State ([`ForkJoin`], one per parallel task, shared by its slot threads) and who writes it:
//! - `seq`, `left`, `executed`, `first_start`, `completion`, `ended` describe the current
//!   job. Slot 0 sets them at a release before it hands out any thread; the **joiner** (the
//!   thread whose decrement of `left` reached zero) sets `left` at a fork, and `completion`
//!   and `ended` at the final join, before it hands anything out. The others add to
//!   `executed` and lower `first_start` before their decrement of `left` (AcqRel: the
//!   joiner sees every thread's contribution) and read `seq` after taking a hand-over.
//! - `go[k]`: slot k's futex word; its *value* is the hand-over: 0 nothing, `r + 1` "run
//!   your thread of region r", `ENDED` (slot 0 only) "the job completed", `CLOSED` "leave".
//!   The giver stores it (Release) and wakes the slot; the slot takes it with a swap to 0
//!   (Acquire) and sleeps while it reads 0. Each hand-over is taken exactly once, so one
//!   that arrives late (its giver was preempted or throttled between its state updates and
//!   the store) cannot be mistaken for a later one. At most one is pending per slot: slot
//!   k's next thread is handed out only at a join its current thread takes part in, and
//!   slot 0 waits for `ENDED` before it releases the next job.
//! - The close hands `CLOSED` to every slot: at the stop, or when slot 0 has released its
//!   last job; every slot thread then leaves.
//!
//! One job, numbered steps:
//! 1. Slot 0 wakes at the release (kernel.rs), records `release`, resets the job state
//!    (`left` = region 0's width) and hands region 0 to every other slot of region 0.
//! 2. Each thread of the region — slot 0 at once, slot k when it takes its hand-over —
//!    records `switch-in` (strand `offset(r) + k`, the simulator's numbering:
//!    docs/traces.md), burns its thread's time (recording what user space sees of its
//!    preemptions and migrations, kernel.rs), records `switch-out`, adds its CPU time and
//!    decrements `left`.
//! 3. The joiner records `join` (arg = the region). If another region follows it records
//!    `fork` (arg = the new region's width, strand = its first strand), sets `left`, hands
//!    the new region to every other slot of it and, if it has a thread there itself, runs
//!    it at once (step 2) — no thread waits busily, and a slot thread that joins a region
//!    does not sleep before its thread of the next.
//! 4. After the last region the joiner records `complete` (strand = its own, `arg` = the
//!    join's ticks) and sets `completion` and `ended`; a joiner other than slot 0 hands
//!    `ENDED` to slot 0, which waits on `go[0]` whenever it has finished its thread and is
//!    not the joiner. Slot 0 writes the job's one record (response time from the release to
//!    the final join; the deadline miss is the accounting's), then sleeps until the next
//!    release.
//!
//! Stop: a thread burning when the run stops returns at once (the burn loop watches the
//! stop) and still decrements `left`; a joiner that sees the stop does not fork but closes
//! the task (`CLOSED` to every slot), so every slot thread waiting on its `go` wakes and leaves, and slot 0 records
//! the job as not completed. While a job is in progress one of its threads is always
//! running or runnable, so the close comes within a burn-loop pass of the stop; between
//! jobs slot 0 sleeps on the run's stop word and closes when it wakes.
//!
//! Complexity: per job O(threads) wake-ups and trace records; per region one atomic
//! decrement per thread and one futex wake per thread woken.

use super::{burn_strand, logical, Done, TaskThread};
use crate::arch::{Cx, Run};
use crate::config::{Body, RtTask};
use crate::error::RuntimeError;
use crate::mech::futex;
use crate::run::{MAX_EVENTS_PER_BUFFER, MAX_TRACE_BYTES};
use schedlab_model::ParallelStructure;
use schedlab_trace::file::RECORD_SIZE;
use schedlab_trace::Kind;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// The most slot threads of one run (all parallel tasks together, slot 0 included): each is
/// a kernel thread created before time zero, with a trace buffer of its own.
pub(crate) const MAX_SLOT_THREADS: usize = 1024;

/// What the slot threads of one parallel task share (module doc, *Protocol*).
pub(crate) struct ForkJoin {
    /// Thread lengths (ns) of each region, in order.
    regions: Vec<Vec<u64>>,
    /// Strand of each region's first thread: `Σ_{r' < r} width(r')`.
    offsets: Vec<u32>,
    /// The current job.
    seq: AtomicU64,
    /// Threads of the current region that have not finished: the join counter.
    left: AtomicU32,
    /// CPU time of the current job's threads so far (ns).
    executed: AtomicU64,
    /// Ticks of the current job's first `switch-in` (`u64::MAX`: none yet).
    first_start: AtomicU64,
    /// Ticks of the current job's final join (valid once `ended`).
    completion: AtomicU64,
    /// The current job completed (its final join).
    ended: AtomicBool,
    /// Per slot: its futex word, holding its hand-over (module doc: 0, `r + 1`, [`ENDED`],
    /// [`CLOSED`]).
    go: Box<[AtomicU32]>,
}

impl ForkJoin {
    /// The state of a task of structure `p`, before its first job.
    pub(crate) fn new(p: &ParallelStructure) -> ForkJoin {
        let regions: Vec<Vec<u64>> = p
            .regions()
            .iter()
            .map(|r| r.threads.iter().map(|d| d.as_ns()).collect())
            .collect();
        // At most MAX_PARALLEL_THREADS (2^16) threads: the offsets fit in u32.
        let offsets = regions
            .iter()
            .scan(0u32, |acc, r| {
                let at = *acc;
                *acc = acc.saturating_add(r.len() as u32);
                Some(at)
            })
            .collect();
        ForkJoin {
            go: (0..p.max_width()).map(|_| AtomicU32::new(0)).collect(),
            regions,
            offsets,
            seq: AtomicU64::new(0),
            left: AtomicU32::new(0),
            executed: AtomicU64::new(0),
            first_start: AtomicU64::new(u64::MAX),
            completion: AtomicU64::new(0),
            ended: AtomicBool::new(false),
        }
    }

    /// Width of region `r` (0 past the last).
    fn width(&self, r: usize) -> u32 {
        self.regions.get(r).map_or(0, |t| t.len() as u32)
    }

    /// Hands `what` (module doc: `r + 1`, [`ENDED`], [`CLOSED`]) to slot `k`.
    fn hand(&self, k: usize, what: u32) {
        if let Some(g) = self.go.get(k) {
            g.store(what, Ordering::Release);
            futex::wake(g, 1);
        }
    }

    /// Every slot thread leaves (idempotent).
    pub(crate) fn close(&self) {
        for k in 0..self.go.len() {
            self.hand(k, CLOSED);
        }
    }

    /// Takes slot `k`'s next hand-over, sleeping until there is one.
    fn take(&self, k: usize) -> Handed {
        let Some(g) = self.go.get(k) else {
            return Handed::Closed;
        };
        loop {
            match g.swap(0, Ordering::AcqRel) {
                0 => {
                    futex::wait(g, 0, None);
                }
                CLOSED => return Handed::Closed,
                ENDED => return Handed::Ended,
                r => return Handed::Region(r as usize - 1),
            }
        }
    }
}

/// `go` value: the job completed (to slot 0).
const ENDED: u32 = u32::MAX - 1;
/// `go` value: leave.
const CLOSED: u32 = u32::MAX;

/// What a slot thread was handed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handed {
    /// Its thread of this region of the current job.
    Region(usize),
    /// The current job completed (slot 0).
    Ended,
    /// Leave.
    Closed,
}

/// Job `seq` of a parallel task, run by its slot-0 thread `w` (module doc, steps 1–4): its
/// record's start, completion and CPU time (summed over its threads).
pub(super) fn job(w: &TaskThread, fj: &ForkJoin, cx: &Cx<'_>, seq: u64) -> Done {
    fj.seq.store(seq, Ordering::Relaxed);
    fj.left.store(fj.width(0), Ordering::Relaxed);
    fj.executed.store(0, Ordering::Relaxed);
    fj.first_start.store(u64::MAX, Ordering::Relaxed);
    fj.ended.store(false, Ordering::Relaxed);
    for k in 1..fj.width(0) as usize {
        fj.hand(k, 1);
    }
    let mut done = run_threads(w, fj, cx, seq, 0);
    while !done {
        match fj.take(0) {
            Handed::Region(r) => done = run_threads(w, fj, cx, seq, r),
            Handed::Ended | Handed::Closed => break,
        }
    }
    let first = fj.first_start.load(Ordering::Relaxed);
    Done {
        start: (first != u64::MAX).then_some(first),
        completion: fj
            .ended
            .load(Ordering::Acquire)
            .then(|| fj.completion.load(Ordering::Relaxed)),
        executed_ns: fj.executed.load(Ordering::Relaxed),
        outcome: Ok(()),
    }
}

/// The loop of slot thread `w` (slot ≥ 1): take a thread of a region, run it (and the next
/// regions' while it is their joiner), until the close.
pub(super) fn slot_loop(w: &TaskThread, fj: &ForkJoin, cx: &Cx<'_>) {
    let k = w.slot as usize;
    while let Handed::Region(r) = fj.take(k) {
        let seq = fj.seq.load(Ordering::Relaxed);
        run_threads(w, fj, cx, seq, r);
    }
}

/// Runs slot `w.slot`'s thread of region `r` of job `seq` (module doc, steps 2–4), and goes
/// on with the next region's while this thread is the joiner and has a thread there. True
/// if this thread made the final join (the job completed).
fn run_threads(w: &TaskThread, fj: &ForkJoin, cx: &Cx<'_>, seq: u64, mut r: usize) -> bool {
    let sh = cx.shared;
    let k = w.slot as usize;
    let stopping = || sh.stop.load(Ordering::Relaxed);
    loop {
        let strand = fj
            .offsets
            .get(r)
            .copied()
            .unwrap_or(0)
            .saturating_add(k as u32);
        let length = fj.regions.get(r).and_then(|t| t.get(k)).copied();
        // A thread handed over as the run stops does not start (nothing would execute).
        if let (Some(length), false) = (length, stopping()) {
            let t = burn_strand(&w.buf, cx, (w.task, seq, strand), length, None);
            w.buf
                .record_strand(t.end, Kind::SwitchOut, t.cpu, (w.task, seq, strand), 0);
            fj.first_start.fetch_min(t.start, Ordering::Relaxed);
            fj.executed.fetch_add(t.executed_ns, Ordering::Relaxed);
        }
        if fj.left.fetch_sub(1, Ordering::AcqRel) != 1 {
            return false; // another thread of the region is still running: it joins
        }
        let (now, phys) = sh.clock.ticks_and_cpu();
        let cpu = logical(cx, phys);
        let rec = |kind, strand, arg| {
            w.buf
                .record_strand(now, kind, cpu, (w.task, seq, strand), arg)
        };
        rec(Kind::Join, strand, r as u64);
        if stopping() {
            fj.close();
            return false;
        }
        let next = r + 1;
        let width = fj.width(next);
        if width == 0 {
            // The final join: the job completes.
            rec(Kind::Complete, strand, now);
            fj.completion.store(now, Ordering::Relaxed);
            fj.ended.store(true, Ordering::Release);
            if k != 0 {
                fj.hand(0, ENDED);
            }
            return true;
        }
        let first = fj.offsets.get(next).copied().unwrap_or(0);
        rec(Kind::Fork, first, u64::from(width));
        fj.left.store(width, Ordering::Relaxed);
        for j in (0..width as usize).filter(|&j| j != k) {
            fj.hand(j, next as u32 + 1);
        }
        if k >= width as usize {
            return false;
        }
        r = next;
    }
}

/// Slot `k`'s demand per job of structure `p`: the sum of its threads' lengths (ns) and how
/// many threads it runs (the regions wider than `k`). O(regions).
pub(crate) fn slot_demand(p: &ParallelStructure, k: usize) -> (u64, u64) {
    p.regions()
        .iter()
        .filter_map(|r| r.threads.get(k))
        .fold((0u64, 0u64), |(sum, n), d| {
            (sum.saturating_add(d.as_ns()), n + 1)
        })
}

/// Checks what the kernel baselines need of a run's parallel tasks: at most
/// [`MAX_SLOT_THREADS`] slot threads in all; the built-in burn body and no working set (a
/// custom body runs once per job, and the threads of one job would walk one working set
/// concurrently: neither is built for threads yet).
pub(crate) fn check_parallel(run: &Run<'_>) -> Result<(), RuntimeError> {
    let mut slots = 0usize;
    for (i, t) in run.tasks.iter().enumerate() {
        let Some(p) = &t.parallel else { continue };
        let bad = |field, message: String| RuntimeError::InvalidTask {
            task: i,
            field,
            message,
        };
        slots = slots.saturating_add(p.max_width());
        if slots > MAX_SLOT_THREADS {
            return Err(bad(
                "parallel",
                format!(
                    "has a region of {} threads: the kernel baselines run one kernel thread per thread slot (the widest region's width), at most {MAX_SLOT_THREADS} in a run, and the parallel tasks up to this one need {slots}",
                    p.max_width()
                ),
            ));
        }
        if matches!(t.body, Body::Custom(_)) {
            return Err(bad(
                "body",
                "is a custom job body: a custom body runs once per job, and a parallel task's threads burn their lengths under the kernel baselines".into(),
            ));
        }
        if t.wss.is_some() {
            return Err(bad(
                "wss",
                "is set on a parallel task: its threads would walk one working set at once; the kernel baselines run parallel tasks without a working set".into(),
            ));
        }
    }
    Ok(())
}

/// Trace buffer capacities of the kernel baselines' threads, by task and slot: the
/// skeleton's estimate per task (`Run::capacity`: 16 events per job — per region of a
/// parallel job, as a slot runs at most one thread per region — and 4 per job or thread of
/// every other task), plus 4 events per job and millisecond of the slot's demand — a burn loop
/// records a `switch-out`, `preempt`, `switch-in` (and `migrate`) at every loss of its CPU,
/// which on a long job comes with the timer ticks and other threads, not once per job (a
/// 5 s run of RTWS-like tasks with threads of tens of ms overflowed the per-job estimate).
/// Each is at most [`MAX_EVENTS_PER_BUFFER`]; when together with the scheduler buffers
/// they exceed [`MAX_TRACE_BYTES`], every one shrinks by the same factor (at least 64
/// events). An explicit `trace_capacity` is every buffer's. O(tasks + slots).
pub(crate) fn slot_capacities(run: &Run<'_>) -> Vec<Vec<usize>> {
    if let Some(c) = run.config.trace_capacity {
        // The caller's own capacity for every buffer (the skeleton checked it per task).
        return run.tasks.iter().map(|t| vec![c; slots(t)]).collect();
    }
    let base = |i: usize| run.capacity.task.get(i).copied().unwrap_or(1024) as u64;
    let per_ms = |i: usize, demand_ns: u64| {
        let jobs = run.jobs.get(i).copied().unwrap_or(0);
        jobs.saturating_mul(4)
            .saturating_mul(demand_ns.div_ceil(1_000_000))
    };
    let desired: Vec<Vec<u64>> = run
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let slots: Vec<(u64, u64)> = match &t.parallel {
                None => vec![(t.wcet.as_ns(), 1)],
                Some(p) => (0..p.max_width()).map(|k| slot_demand(p, k)).collect(),
            };
            slots
                .into_iter()
                .map(|(demand, _threads)| {
                    // The skeleton's estimate already counts a parallel job once per region.
                    base(i)
                        .saturating_add(per_ms(i, demand))
                        .min(MAX_EVENTS_PER_BUFFER)
                })
                .collect()
        })
        .collect();
    let budget = MAX_TRACE_BYTES / RECORD_SIZE as u64;
    let room = budget.saturating_sub(run.capacity.scheduler as u64 * u64::from(run.m));
    let total = desired
        .iter()
        .flatten()
        .fold(0u64, |a, &c| a.saturating_add(c));
    desired
        .into_iter()
        .map(|slots| {
            slots
                .into_iter()
                .map(|c| {
                    let c = if total > room {
                        (u128::from(c) * u128::from(room) / u128::from(total)) as u64
                    } else {
                        c
                    };
                    usize::try_from(c.max(64)).unwrap_or(usize::MAX)
                })
                .collect()
        })
        .collect()
}

/// The slot threads task `t` runs as (1 for a sequential task).
pub(crate) fn slots(t: &RtTask) -> usize {
    t.parallel.as_ref().map_or(1, ParallelStructure::max_width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::Duration;

    fn structure(regions: &[&[u64]]) -> ParallelStructure {
        ParallelStructure::from_threads(
            regions
                .iter()
                .map(|r| r.iter().map(|&x| Duration::from_ns(x)).collect())
                .collect(),
        )
        .expect("a valid structure")
    }

    /// [[2], [1, 1, 1], [1]]: slot 0 runs 2 + 1 + 1 = 4 in three threads, slots 1 and 2 one
    /// thread of 1 each; strands 0 | 1 2 3 | 4 (offsets 0, 1, 4).
    #[test]
    fn slots_demands_and_strand_offsets() {
        let p = structure(&[&[2], &[1, 1, 1], &[1]]);
        assert_eq!(slot_demand(&p, 0), (4, 3));
        assert_eq!(slot_demand(&p, 1), (1, 1));
        assert_eq!(slot_demand(&p, 2), (1, 1));
        assert_eq!(slot_demand(&p, 3), (0, 0));
        let fj = ForkJoin::new(&p);
        assert_eq!(fj.offsets, vec![0, 1, 4]);
        assert_eq!(fj.go.len(), 3);
        assert_eq!(
            (fj.width(0), fj.width(1), fj.width(2), fj.width(3)),
            (1, 3, 1, 0)
        );
    }

    /// τ0 = [[2], [1, 1, 1], [1]] ms every 20 ms and τ1 = (3, 10) ms for 1 s: 50 and 100
    /// jobs; the skeleton's estimates (a parallel job once per region for its own buffers,
    /// once per thread — 5 — for the others') 50·3·16 + 100·4 + 256 = 3056 and 100·16 +
    /// 250·4 + 256 = 2856. Slot 0 of τ0 (4 ms of work per job): 3056 + 50·4·4 = 3856; slots 1
    /// and 2 (1 ms): 3056 + 50·4 = 3256; τ1: 2856 + 100·4·3 = 4056.
    #[test]
    fn slot_buffers_grow_with_threads_and_demand() {
        let ms = |x: u64| Duration::from_ns(x * 1_000_000);
        let p = ParallelStructure::from_threads(vec![vec![ms(2)], vec![ms(1); 3], vec![ms(1)]])
            .expect("a valid structure");
        let mut par = RtTask::new(p.work(), ms(20), ms(20));
        par.parallel = Some(p);
        let tasks = [par, RtTask::new(ms(3), ms(10), ms(10))];
        let arch = crate::arch::Arch::named("linux-deadline", "ticket").expect("registered");
        let config = crate::config::RunConfig::new(vec![0], arch, "linux-deadline", 2, ms(1000));
        let run = crate::run::validate(&tasks, &config).expect("a valid run");
        assert_eq!(run.capacity.task, vec![3056, 2856]);
        assert_eq!(
            slot_capacities(&run),
            vec![vec![3856, 3256, 3256], vec![4056]]
        );
        let mut config = config;
        config.trace_capacity = Some(500);
        let run = crate::run::validate(&tasks, &config).expect("a valid run");
        assert_eq!(slot_capacities(&run), vec![vec![500; 3], vec![500]]);
    }

    /// A hand-over wakes its waiter and is taken exactly once; one that arrives while no
    /// one waits stays until taken (never lost, never taken twice); the close reaches every
    /// slot.
    #[test]
    fn go_words_hand_over_once() {
        let fj = std::sync::Arc::new(ForkJoin::new(&structure(&[&[1, 1]])));
        let f = fj.clone();
        let waiter = std::thread::spawn(move || f.take(1));
        fj.hand(1, 3);
        assert_eq!(waiter.join().expect("the waiter"), Handed::Region(2));
        fj.hand(0, ENDED);
        assert_eq!(fj.take(0), Handed::Ended);
        assert_eq!(fj.go[0].load(Ordering::Relaxed), 0);
        fj.close();
        assert_eq!(fj.take(0), Handed::Closed);
        assert_eq!(fj.take(1), Handed::Closed);
    }
}
