//! `rtws`: global EDF for jobs plus priority-based work stealing for the threads of parallel
//! (fork-join) jobs — RTWS [RTWS §V, rules A–F; §IV, Definitions 1–2].
//!
//! # Rules (as implemented)
//! - **A** — one global ready queue ordered by absolute deadline: every released job (each
//!   thread of its region 0, [`crate::Policy::on_release`]) enters it; a job released while
//!   a CPU is idle takes that CPU; otherwise it preempts the lowest-priority running job or
//!   thread if its deadline is strictly earlier ([RTWS §V]: "verifies if the core executing
//!   the lowest priority job/thread … has a higher deadline than the newly arrived job"), or
//!   equal and the running entity is a thread (below, "Ties").
//! - **B** — the threads of a job's next region ([`crate::Policy::on_fork`]) never enter the
//!   global queue: they are pushed, in strand order, onto the *bottom* of a deque in the local
//!   queue of the CPU on which the previous region joined.
//! - **C** — each CPU's local queue is a priority queue of deques, one per job (key: the
//!   job's deadline, then the tie rule below); a CPU that needs work first pops the *bottom*
//!   thread of its highest-priority non-empty deque — even when the global queue holds a job
//!   with an earlier deadline (the paper's locality rule; such a job waits for a release-time
//!   preemption or a CPU without local work).
//! - **D** — with an empty local queue it takes the highest-priority job of the global queue.
//! - **E** — with nothing there either it steals the *top* thread of the highest-priority
//!   deque of the victim chosen by Definition 2: among the CPUs with a non-empty local queue
//!   (Definition 1), the one whose highest-priority deque's top has the earliest deadline,
//!   ties to the lowest CPU index (the paper's "first on the list"). The thief records the
//!   steal ([`crate::Decisions::steal`]).
//! - **F** — a running thread preempted by a released job goes back to the bottom of its
//!   deque on the CPU it ran on if it was local, to the global queue if it was stolen (or came
//!   from the global queue). A stolen thread displaced at the very instant of its steal,
//!   before it executed, goes back to the top of its victim's deque instead: the steal never
//!   took effect (the engine does not count it either).
//!
//! The policy is work-conserving: no CPU idles while any local queue or the global queue holds
//! a thread or job (an idle CPU steals at once; after every callback an idle CPU means that
//! nothing waits anywhere). Idle CPUs act in increasing index order.
//!
//! # Decisions the paper leaves open (and the project's rules)
//! - **Ties.** At equal deadlines a job (or a thread of a job's first region, released like
//!   one) ranks above a thread its CPU took from its own deque, which ranks above a stolen
//!   thread ([`RtwsKey`]: deadline, class, then the project's one priority rule
//!   [`crate::prio`] — task index, job sequence number, strand — instead of the paper's
//!   FIFO), in the global queue, between deques, and for the preemption victim (the running
//!   entity with the largest key). The policy key of the equal-key rule is (deadline, class):
//!   a running job is never preempted by a job of equal deadline (G-EDF's rule, so the
//!   schedule of a set without parallel tasks is G-EDF's), but a running thread is by a job
//!   of its deadline, a stolen thread first. This is the paper's own worked example [RTWS
//!   §V-A]: "at t = 10, a job from task τ1 is released and preempts w³ [a stolen thread of
//!   τ2, of the same deadline 20], which has a lower priority", while a local thread of τ2
//!   keeps its core (`crates/sim/tests/rtws.rs` derives the whole example by hand). The
//!   paper's Rule F speaks of "a new arriving job with a shorter deadline"; its example needs
//!   the classes, and they change nothing where deadlines differ.
//! - **Order in a deque.** A region's threads are pushed in strand order, so the forking CPU
//!   runs the last-created thread first (bottom) and thieves take the first-created (top), as
//!   in Cilk-style work stealing [RTWS §IV].
//! - **The join.** The engine calls `on_fork` while the region's last thread is still linked
//!   to its CPU and `on_complete` for it right after (`crate::policy`, item 8): `on_fork` only
//!   pushes, and at `on_complete` that CPU continues with the bottom of its own new deque
//!   (Rule C) before idle CPUs steal the rest (Rule E) — the joining CPU is the first to need
//!   work at that instant, so a one-thread region (the sequential part after a join) is never
//!   stolen, and the CPU never takes global work in between.
//! - **Region 0** of a job with several threads: each thread is released into the global
//!   queue like a job (there is no forking CPU yet).
//! - **Resources** (sequential tasks only; parallel tasks have no critical sections): a
//!   blocked job leaves like a completed one and comes back at `on_resume` like a release; no
//!   priority inheritance.
//!
//! Without parallel tasks the local queues stay empty and no thread is ever stolen: every
//! callback is the very operation of `gedf` on the shared global engine ([`crate::global`]),
//! so the schedule equals G-EDF's job by job (for sets without critical sections, where
//! `gedf` inherits priorities; `crates/sim/tests/rtws.rs` checks this on random sets).
//!
//! # Cost
//! With `n` jobs and threads in the global queue, `q` deques in a CPU's local queue and `m`
//! CPUs: a release is `O(log n + log m)` (the global engine); taking local work
//! `O(log q)`; a steal `O(m + log q)` (Definition 2 scans the `m` local queues' heads); a
//! completion `O(log n + log q + m)`; a fork of `w` threads `O(w log q)` plus one steal per
//! idle CPU. The engine's per-task job table holds one entry per live strand, so operations
//! on a job with `w` live threads cost `O(w)` more (a linear scan of its task's entries).

use crate::event::{Ctx, Decisions, JobInfo};
use crate::global::{Engine, EngineKey, Preemption};
use crate::ids::{CpuId, JobId, TimerId};
use crate::policy::{ParallelSupport, Policy};
use crate::task::PolicyTask;
use schedlab_model::{Duration, Time};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// The priority of a deque: its job's (deadline, task, seq) — the strand-free part of
/// [`RtwsKey`] (all threads of one deque belong to one job).
type DequeKey = (u64, u32, u64);

fn deque_key(info: &JobInfo) -> DequeKey {
    (info.deadline.as_ns(), info.id.task.0, info.id.seq)
}

/// The class of a job or thread at equal deadlines (module doc, "Ties"): a job (or a thread
/// of a job's first region, released like one) before a thread its own CPU took from its
/// deque, before a stolen thread.
const JOB: u8 = 0;
const LOCAL: u8 = 1;
const STOLEN: u8 = 2;

/// An entity's priority under RTWS: smaller is higher, fields compared in order. The
/// project's key ([`crate::prio::JobKey`]: deadline, task, job, strand) with the class
/// between the deadline and the tie-breaks; the *policy key* of the equal-key rule is
/// (deadline, class): a job never preempts a job of equal deadline (G-EDF exactly), but it
/// preempts a running thread of equal deadline, a stolen one first [RTWS §V-A].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct RtwsKey {
    deadline: u64,
    class: u8,
    task: u32,
    seq: u64,
    strand: u32,
}

impl EngineKey for RtwsKey {
    fn preempts(&self, linked: &RtwsKey) -> bool {
        (self.deadline, self.class) < (linked.deadline, linked.class)
    }
}

/// Where a linked thread came from, when not from the global queue (Rule F).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Popped from the local queue of `cpu`, the CPU it is linked to (a linked thread never
    /// moves to another CPU without being displaced first).
    Local { cpu: u32 },
    /// Stolen from `victim`'s local queue at `at`.
    Stolen { victim: u32, at: Time },
}

/// One CPU's local priority queue of deques (Rule C).
#[derive(Debug, Default)]
struct LocalQueue {
    deques: BTreeMap<DequeKey, VecDeque<JobInfo>>,
}

impl LocalQueue {
    fn is_empty(&self) -> bool {
        self.deques.is_empty()
    }

    fn push_bottom(&mut self, info: JobInfo) {
        self.deques
            .entry(deque_key(&info))
            .or_default()
            .push_back(info);
    }

    fn push_top(&mut self, info: JobInfo) {
        self.deques
            .entry(deque_key(&info))
            .or_default()
            .push_front(info);
    }

    /// The bottom thread of the highest-priority deque (Rule C).
    fn pop_bottom(&mut self) -> Option<JobInfo> {
        let mut first = self.deques.first_entry()?;
        let info = first.get_mut().pop_back();
        if first.get().is_empty() {
            first.remove();
        }
        info
    }

    /// The top thread of the highest-priority deque (Rule E).
    fn pop_top(&mut self) -> Option<JobInfo> {
        let mut first = self.deques.first_entry()?;
        let info = first.get_mut().pop_front();
        if first.get().is_empty() {
            first.remove();
        }
        info
    }

    /// The deadline of the top thread of the highest-priority deque (Definition 2).
    fn top_deadline(&self) -> Option<u64> {
        self.deques.first_key_value().map(|(k, _)| k.0)
    }

    /// Removes `id` (in the deque `key`), if it is there.
    fn remove(&mut self, key: DequeKey, id: JobId) -> bool {
        let Some(d) = self.deques.get_mut(&key) else {
            return false;
        };
        let Some(pos) = d.iter().position(|i| i.id == id) else {
            return false;
        };
        d.remove(pos);
        if d.is_empty() {
            self.deques.remove(&key);
        }
        true
    }
}

/// The RTWS policy on `m` CPUs (module doc).
#[derive(Debug)]
pub struct Rtws {
    /// The global EDF queue and the CPU links (Rules A, D).
    engine: Engine<RtwsKey>,
    /// Each CPU's local queue (Rules B, C, E).
    local: Vec<LocalQueue>,
    /// Linked threads that came from a local queue (absent: from the global queue).
    origin: BTreeMap<JobId, Origin>,
    /// Threads waiting in a local queue: the CPU and the deque.
    queued: BTreeMap<JobId, (u32, DequeKey)>,
    moved: Vec<JobId>,
}

impl Rtws {
    /// RTWS on `cpus` CPUs.
    pub fn new(tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> Rtws {
        let tasks: Arc<[PolicyTask]> = tasks.into();
        Rtws {
            engine: Engine::new(cpus, tasks.len(), Preemption::Preemptive, true),
            local: (0..cpus).map(|_| LocalQueue::default()).collect(),
            origin: BTreeMap::new(),
            queued: BTreeMap::new(),
            moved: Vec::new(),
        }
    }

    fn key(info: &JobInfo, class: u8) -> RtwsKey {
        RtwsKey {
            deadline: info.deadline.as_ns(),
            class,
            task: info.id.task.0,
            seq: info.id.seq,
            strand: info.id.strand,
        }
    }

    fn cpu_count(&self) -> u32 {
        self.engine.cpu_count()
    }

    fn push_bottom(&mut self, cpu: u32, info: JobInfo) {
        if let Some(q) = self.local.get_mut(cpu as usize) {
            q.push_bottom(info);
            self.queued.insert(info.id, (cpu, deque_key(&info)));
        }
    }

    /// Links `info` to the idle `cpu` from a local queue (`origin`).
    fn adopt(
        &mut self,
        ctx: &Ctx<'_>,
        cpu: u32,
        info: JobInfo,
        origin: Origin,
        out: &mut Decisions,
    ) {
        self.queued.remove(&info.id);
        let class = match origin {
            Origin::Local { .. } => LOCAL,
            Origin::Stolen { .. } => STOLEN,
        };
        let key = Self::key(&info, class);
        self.engine.adopt(ctx, cpu, &info, key, out);
        self.origin.insert(info.id, origin);
    }

    /// The idle `cpu` looks for work: its local queue (Rule C), the global queue (Rule D),
    /// then a steal (Rule E). True if it found some.
    fn dispatch(&mut self, ctx: &Ctx<'_>, cpu: u32, out: &mut Decisions) -> bool {
        if let Some(info) = self
            .local
            .get_mut(cpu as usize)
            .and_then(LocalQueue::pop_bottom)
        {
            self.adopt(ctx, cpu, info, Origin::Local { cpu }, out);
            return true;
        }
        if self.engine.fill(ctx, cpu, out) {
            return true;
        }
        self.steal(ctx, cpu, out)
    }

    /// Rule E with Definition 2: the thief `cpu` takes the top thread of the highest-priority
    /// deque of the victim whose such top has the earliest deadline (ties: lowest CPU).
    fn steal(&mut self, ctx: &Ctx<'_>, thief: u32, out: &mut Decisions) -> bool {
        let victim = self
            .local
            .iter()
            .enumerate()
            .filter(|(c, _)| *c != thief as usize)
            .filter_map(|(c, q)| q.top_deadline().map(|d| (d, c)))
            .min();
        let Some((_, v)) = victim else {
            return false;
        };
        let Some(info) = self.local.get_mut(v).and_then(LocalQueue::pop_top) else {
            return false;
        };
        let victim = u32::try_from(v).unwrap_or(u32::MAX);
        let origin = Origin::Stolen {
            victim,
            at: ctx.now,
        };
        self.adopt(ctx, thief, info, origin, out);
        out.steal(info.id, CpuId(victim));
        true
    }

    /// Every idle CPU, in index order, looks for work (work conservation).
    fn fill_idle(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        for cpu in 0..self.cpu_count() {
            if self.engine.is_idle(cpu) && !self.dispatch(ctx, cpu, out) {
                // Nothing waits anywhere any more: the other idle CPUs stay idle too.
                if self.engine.ready_is_empty() && self.local.iter().all(LocalQueue::is_empty) {
                    return;
                }
            }
        }
    }

    /// Rule F for the threads a release displaced into the global queue: a local one goes
    /// back to the bottom of its deque on the CPU it ran on, a stolen one that had not
    /// started back to the top of its victim's deque; any other stays in the global queue.
    fn settle(&mut self, ctx: &Ctx<'_>) {
        self.engine.take_moves(&mut self.moved);
        if self.origin.is_empty() {
            return; // every linked job came from the global queue: nothing to send back
        }
        let moved = std::mem::take(&mut self.moved);
        for &id in &moved {
            let Some((_, info)) = self.engine.waiting(id) else {
                continue; // linked (the new job), or gone
            };
            let Some(origin) = self.origin.remove(&id) else {
                continue; // from the global queue: back there
            };
            match origin {
                Origin::Local { cpu } => {
                    self.engine.vacate(id);
                    self.push_bottom(cpu, info);
                }
                Origin::Stolen { victim, at }
                    if at == ctx.now && ctx.progress.executed(id) == Duration::ZERO =>
                {
                    self.engine.vacate(id);
                    if let Some(q) = self.local.get_mut(victim as usize) {
                        q.push_top(info);
                        self.queued.insert(id, (victim, deque_key(&info)));
                    }
                }
                Origin::Stolen { .. } => {} // stays in the global queue
            }
        }
        self.moved = moved;
    }

    /// `id` leaves (completion, abort, block): out of its local queue if it waits there;
    /// else out of the engine, and its CPU looks for work (local first).
    fn leave(&mut self, ctx: &Ctx<'_>, id: JobId, out: &mut Decisions) {
        if let Some((cpu, key)) = self.queued.remove(&id) {
            if let Some(q) = self.local.get_mut(cpu as usize) {
                q.remove(key, id);
            }
            return;
        }
        self.origin.remove(&id);
        let cpu = self.engine.cpu_of(id);
        let local_work = |c: u32| self.local.get(c as usize).is_some_and(|q| !q.is_empty());
        // With its own local queue empty, any thread waiting in a local queue is another
        // CPU's: stealable.
        let stealable = !self.queued.is_empty();
        match cpu {
            Some(c) if local_work(c) || (self.engine.ready_is_empty() && stealable) => {
                self.engine.vacate(id);
                self.dispatch(ctx, c, out);
            }
            // Exactly `gedf`'s step: the freed CPU takes the best global job, or idles.
            _ => self.engine.remove(ctx, id, out),
        }
        // A join's new threads beyond the one the joining CPU took (`on_fork`): idle CPUs
        // steal them now (Rule E).
        if !self.queued.is_empty() {
            self.fill_idle(ctx, out);
        }
        // The engine's moves of this step are links only (nothing displaced).
        self.engine.take_moves(&mut self.moved);
    }
}

impl Policy for Rtws {
    fn name(&self) -> &str {
        "rtws"
    }
    fn cpus(&self) -> u32 {
        self.cpu_count()
    }
    /// Rule A: a released job (thread of region 0) enters the global queue or preempts.
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        let key = Self::key(job, JOB);
        self.engine.release(ctx, job, key, out);
        self.settle(ctx);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.leave(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.leave(ctx, job, out);
    }
    fn on_timer(&mut self, _ctx: &Ctx<'_>, _timer: TimerId, _out: &mut Decisions) {}
    /// A blocked job leaves like a finished one (module doc, "Resources").
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.leave(ctx, job, out);
    }
    /// A resumed job comes back like a released one.
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.on_release(ctx, job, out);
    }
    /// Rule B: the new region's threads go onto the bottom of a deque of `cpu`'s local queue.
    /// Nothing is decided yet: `on_complete` of the joining thread follows in the same instant
    /// (the engines' contract), where `cpu` pops its bottom thread first (Rule C) and idle
    /// CPUs then steal the rest (Rule E) — so a region of one thread stays where it was
    /// forked rather than being stolen by a CPU that happened to be idle a moment earlier.
    fn on_fork(&mut self, _ctx: &Ctx<'_>, cpu: CpuId, strands: &[JobInfo], _out: &mut Decisions) {
        let c = if cpu.0 < self.cpu_count() { cpu.0 } else { 0 };
        for s in strands {
            self.push_bottom(c, *s);
        }
    }
    fn parallel_support(&self) -> ParallelSupport {
        ParallelSupport::Native
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.engine.linked(cpu)
    }
}

#[cfg(test)]
mod tests;
