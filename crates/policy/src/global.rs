//! Global job-level fixed-priority (JLFP) scheduling on `k` CPUs: `gedf`, `gnpedf`, `gfp`,
//! `gfifo` ([ChronOS §6.2–6.5]; G-EDF as in GSN-EDF / G-EDF-MP, [MP §III-B–C]).
//!
//! State, as in LITMUS^RT's GSN-EDF and the DSP state of G-EDF-MP [MP §III-B]: one *linked*
//! job per CPU and a ready queue of jobs that are ready but not linked. The ready queue is a
//! binary heap ordered by [`crate::prio`] (O(log n) insert and pop; stale entries of aborted or
//! re-keyed jobs are skipped lazily and compacted when they outnumber the live ones). The idle
//! CPUs are a bitset; the lowest-priority linked job is found by a scan of the CPUs up to 128
//! of them and kept in a tournament tree above (O(log k) per link change).
//!
//! Mapping. ChronOS maps the `k` jobs a global scheduler selects to CPUs with a two-pass
//! execution- and migration-optimal algorithm [ChronOS §5.6.5, Algorithm 1] and notes that for
//! JLFP policies at most one job of the selection changes per event. This module does the
//! incremental form of that algorithm directly, with at most one link change per event:
//! - **release**: an idle CPU takes the job — the CPU its task last ran on if that one is idle
//!   (cache-warm, no migration), else the lowest-numbered idle CPU; otherwise, if the job
//!   preempts the lowest-priority linked job (strictly smaller primary key, the equal-key rule of
//!   [`crate::prio`]; the victim is the linked job with the largest full key), it takes that
//!   job's CPU and the victim returns to the ready queue. No other link moves (execution
//!   optimality, Definition 2) and at most the one new job lands on a CPU it did not occupy
//!   (migration optimality, Definition 1).
//! - **completion / abort** of a linked job: its CPU takes the highest-priority ready job (or
//!   idles). Abort of a waiting job changes no link.
//!
//! Non-preemptive mode (`gnpedf`, [ChronOS §6.5]): a released job only fills idle CPUs; it
//! never preempts a job that has started. One refinement, so that the schedule equals "the
//! scheduling decision after all events of the instant" (DESIGN.md, "Event order"): a job
//! that was linked at the *current* instant and has not executed yet (e.g. linked by a
//! completion at `t` just before a release at `t`) has not started, so a waiting job with a
//! smaller full key may still take its CPU.

use crate::cpuset::CpuSet;
use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{CpuId, JobId, ResourceId, TimerId};
use crate::lowest::LowestTree;
use crate::policy::{ParallelSupport, Policy};
use crate::prio::{JobKey, Primary};
use crate::table::JobTable;
use crate::task::PolicyTask;
use schedlab_model::{Duration, Time};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// A priority key the engine can order jobs by (smaller = higher priority).
pub(crate) trait EngineKey: Ord + Copy + std::fmt::Debug + Send {
    /// Whether a waiting job with this key may preempt a linked job with key `linked`.
    fn preempts(&self, linked: &Self) -> bool;
}

impl EngineKey for JobKey {
    fn preempts(&self, linked: &JobKey) -> bool {
        JobKey::preempts(self, linked)
    }
}

/// Whether linked jobs may be preempted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preemption {
    /// A waiting job preempts the lowest-priority linked job it beats.
    Preemptive,
    /// A started job runs to completion.
    NonPreemptive,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    Ready,
    Linked(u32),
}

#[derive(Clone, Copy, Debug)]
struct Entry<K> {
    key: K,
    loc: Loc,
    info: JobInfo,
}

#[derive(Clone, Copy, Debug)]
struct Slot<K> {
    id: JobId,
    key: K,
    since: Time,
}

const NO_CPU: u32 = u32::MAX;

/// Up to this many CPUs the lowest-priority linked job is found by scanning the CPUs; above,
/// a tournament tree keeps it (`crate::lowest`). Measured (docs/benchmarks.md): the scan
/// wins at U = 0.7m up to 1024 CPUs (the victim is needed only when no CPU is idle, the tree
/// pays log m on every link change) and at U = 0.95m up to about 128; the tree wins at
/// U = 0.95m, m = 256 (486 vs 510 ns per job). A `BTreeSet` was slower than both.
const SCAN_CPUS: u32 = 128;

/// The global scheduling engine shared by the JLFP policies and EDZL.
#[derive(Debug)]
pub(crate) struct Engine<K> {
    mode: Preemption,
    cpus: Vec<Option<Slot<K>>>,
    /// The CPU of the lowest-priority linked job (the preemption victim), kept above
    /// [`SCAN_CPUS`] CPUs; below, a scan of `cpus` is cheaper (measured).
    order: Option<LowestTree>,
    idle: CpuSet,
    ready: BinaryHeap<Reverse<(K, JobId)>>,
    live_ready: usize,
    jobs: JobTable<Entry<K>>,
    /// CPU each task last ran on (`NO_CPU`: never), by task index.
    last_cpu: Vec<u32>,
    /// Jobs that were linked or queued since the owner last drained this (if tracking).
    moves: Vec<JobId>,
    track_moves: bool,
    /// CPUs linked at `fresh_at` (candidates for "not started yet": undone first, in both
    /// modes, rather than displacing a running job).
    fresh: Vec<u32>,
    fresh_at: Time,
}

impl<K: EngineKey> Engine<K> {
    pub(crate) fn new(cpus: u32, n_tasks: usize, mode: Preemption, track_moves: bool) -> Self {
        Engine {
            mode,
            cpus: (0..cpus).map(|_| None).collect(),
            order: (cpus > SCAN_CPUS).then(|| LowestTree::new(cpus as usize)),
            idle: CpuSet::full(cpus),
            ready: BinaryHeap::new(),
            live_ready: 0,
            jobs: JobTable::new(n_tasks),
            last_cpu: vec![NO_CPU; n_tasks],
            moves: Vec::new(),
            track_moves,
            fresh: Vec::new(),
            fresh_at: Time::ZERO,
        }
    }

    pub(crate) fn cpu_count(&self) -> u32 {
        u32::try_from(self.cpus.len()).unwrap_or(u32::MAX)
    }

    pub(crate) fn linked(&self, cpu: CpuId) -> Option<JobId> {
        let i = usize::try_from(cpu.0).ok()?;
        self.cpus.get(i).copied().flatten().map(|s| s.id)
    }

    /// The key of the job linked to `cpu`, if any.
    pub(crate) fn linked_key(&self, cpu: CpuId) -> Option<K> {
        let i = usize::try_from(cpu.0).ok()?;
        self.cpus.get(i).copied().flatten().map(|s| s.key)
    }

    /// The key and facts of a waiting job (None if it is linked or unknown).
    pub(crate) fn waiting(&self, id: JobId) -> Option<(K, JobInfo)> {
        self.jobs
            .get(id)
            .filter(|e| e.loc == Loc::Ready)
            .map(|e| (e.key, e.info))
    }

    /// Jobs linked or queued since the last call.
    pub(crate) fn take_moves(&mut self, into: &mut Vec<JobId>) {
        into.clear();
        into.append(&mut self.moves);
    }

    /// Makes `info` an active job with `key`, not yet in the ready queue nor linked.
    fn enter(&mut self, info: &JobInfo, key: K) {
        self.jobs.insert(
            info.id,
            Entry {
                key,
                loc: Loc::Ready,
                info: *info,
            },
        );
    }

    /// A new job (ignored if a job with this id is already active).
    pub(crate) fn release(&mut self, ctx: &Ctx<'_>, info: &JobInfo, key: K, out: &mut Decisions) {
        if self.jobs.contains(info.id) {
            return;
        }
        self.enter(info, key);
        // Fast paths, equal in effect to `push_ready` + `rebalance` because the invariant held
        // before this event (idle CPUs only if nothing waits; no waiting job preempts a
        // linked one), so only the new job can change a link.
        if self.live_ready == 0 && !self.idle.is_empty() {
            let cpu = self.preferred_idle_cpu(info.id);
            self.live_ready += 1;
            if self.track_moves {
                self.moves.push(info.id);
            }
            self.link(ctx, cpu, key, info.id, out);
            return;
        }
        if self.idle.is_empty() {
            match self.mode {
                Preemption::Preemptive => {
                    // A waiting job never beats the victim's successor as lowest-priority
                    // linked job (it did not beat the victim), and the victim, now waiting,
                    // beats no linked job: one link change restores the invariant.
                    match self.victim(ctx, &key) {
                        Some(cpu) => {
                            // Straight to the CPU, without a round trip through the queue.
                            self.live_ready += 1;
                            if self.track_moves {
                                self.moves.push(info.id);
                            }
                            self.displace(cpu);
                            self.link(ctx, cpu, key, info.id, out);
                        }
                        None => self.push_ready(key, info.id),
                    }
                    return;
                }
                Preemption::NonPreemptive if self.fresh_at != ctx.now => {
                    self.push_ready(key, info.id);
                    return;
                }
                Preemption::NonPreemptive => {}
            }
        }
        self.push_ready(key, info.id);
        self.rebalance(ctx, out);
    }

    /// Returns the job linked to `cpu` to the ready queue (the caller links another).
    fn displace(&mut self, cpu: u32) {
        if let Some(old) = self.cpus.get_mut(cpu as usize).and_then(Option::take) {
            self.order_update(cpu);
            if let Some(e) = self.jobs.get_mut(old.id) {
                e.loc = Loc::Ready;
            }
            self.push_ready(old.key, old.id);
        }
    }

    /// The idle CPU a job of `id`'s task should take: the one its task last ran on if idle
    /// (cache-warm, no migration), else the lowest-numbered idle CPU.
    fn preferred_idle_cpu(&self, id: JobId) -> u32 {
        let last = usize::try_from(id.task.0)
            .ok()
            .and_then(|t| self.last_cpu.get(t))
            .copied()
            .unwrap_or(NO_CPU);
        if self.idle.contains(last) {
            last
        } else {
            self.idle.first().unwrap_or(NO_CPU)
        }
    }

    /// A job left (completion or abort); its CPU, if any, takes the best ready job.
    pub(crate) fn remove(&mut self, ctx: &Ctx<'_>, id: JobId, out: &mut Decisions) {
        let Some(entry) = self.jobs.remove(id) else {
            return;
        };
        match entry.loc {
            Loc::Ready => self.live_ready = self.live_ready.saturating_sub(1),
            Loc::Linked(cpu) => {
                if let Some(slot) = self.cpus.get_mut(cpu as usize) {
                    *slot = None;
                }
                self.order_update(cpu);
                self.idle.insert(cpu);
                // The best waiting job takes the freed CPU (the only idle one if anything
                // waits); the invariant then holds again without a further pass: the next
                // waiting job beats neither the new lowest-priority linked job nor (NP mode)
                // any job linked earlier at this instant, or it would have before.
                if let Some((key, next)) = self.peek_ready() {
                    let to = self.preferred_idle_cpu(next);
                    self.ready.pop();
                    self.link(ctx, to, key, next, out);
                }
                if self.cpus.get(cpu as usize).copied().flatten().is_none() {
                    out.unlink(CpuId(cpu));
                }
            }
        }
    }

    /// The CPU `id` is linked to, if it is linked.
    pub(crate) fn cpu_of(&self, id: JobId) -> Option<u32> {
        match self.jobs.get(id)?.loc {
            Loc::Linked(c) => Some(c),
            Loc::Ready => None,
        }
    }

    /// Whether `cpu` has no linked job.
    pub(crate) fn is_idle(&self, cpu: u32) -> bool {
        self.idle.contains(cpu)
    }

    /// Whether no job waits in the ready queue.
    pub(crate) fn ready_is_empty(&self) -> bool {
        self.live_ready == 0
    }

    /// Links a job that is not in the engine (e.g. a thread from a policy's own queue,
    /// [`crate::rtws`]) to the idle `cpu`; ignored if `cpu` is not idle or the job is known.
    pub(crate) fn adopt(
        &mut self,
        ctx: &Ctx<'_>,
        cpu: u32,
        info: &JobInfo,
        key: K,
        out: &mut Decisions,
    ) {
        if !self.idle.contains(cpu) || self.jobs.contains(info.id) {
            return;
        }
        self.enter(info, key);
        // `link` counts the job out of the ready queue it never entered.
        self.live_ready += 1;
        self.link(ctx, cpu, key, info.id, out);
    }

    /// Removes `id` from the engine; if it was linked, its CPU becomes idle *without* taking a
    /// waiting job or deciding an unlink (the caller links the CPU, or unlinks it, in the same
    /// callback). The CPU it was linked to, if any.
    pub(crate) fn vacate(&mut self, id: JobId) -> Option<u32> {
        let entry = self.jobs.remove(id)?;
        match entry.loc {
            Loc::Ready => {
                self.live_ready = self.live_ready.saturating_sub(1);
                None
            }
            Loc::Linked(cpu) => {
                if let Some(slot) = self.cpus.get_mut(cpu as usize) {
                    *slot = None;
                }
                self.order_update(cpu);
                self.idle.insert(cpu);
                Some(cpu)
            }
        }
    }

    /// The idle `cpu` takes the highest-priority waiting job, if any (true if it did).
    pub(crate) fn fill(&mut self, ctx: &Ctx<'_>, cpu: u32, out: &mut Decisions) -> bool {
        if !self.idle.contains(cpu) {
            return false;
        }
        match self.peek_ready() {
            Some((key, next)) => {
                self.ready.pop();
                self.link(ctx, cpu, key, next, out);
                true
            }
            None => false,
        }
    }

    /// The facts and current key of an active job (linked or waiting).
    pub(crate) fn entry(&self, id: JobId) -> Option<(K, JobInfo)> {
        self.jobs.get(id).map(|e| (e.key, e.info))
    }

    /// Gives an active job a new key, linked or waiting (priority inheritance); call
    /// [`Engine::rebalance`] afterwards.
    pub(crate) fn rekey(&mut self, id: JobId, key: K) {
        let Some(entry) = self.jobs.get_mut(id) else {
            return;
        };
        match entry.loc {
            Loc::Ready => self.rekey_waiting(id, key),
            Loc::Linked(cpu) => {
                entry.key = key;
                if let Some(Some(slot)) = self.cpus.get_mut(cpu as usize) {
                    slot.key = key;
                }
                self.order_update(cpu);
            }
        }
    }

    /// Gives a waiting job a new key (no effect on linked or unknown jobs); call
    /// [`Engine::rebalance`] afterwards.
    pub(crate) fn rekey_waiting(&mut self, id: JobId, key: K) {
        let Some(entry) = self.jobs.get_mut(id) else {
            return;
        };
        if entry.loc != Loc::Ready {
            return;
        }
        entry.key = key;
        // The old heap entry is now stale (its key differs); push the new one.
        self.ready.push(Reverse((key, id)));
        self.compact();
    }

    fn push_ready(&mut self, key: K, id: JobId) {
        self.ready.push(Reverse((key, id)));
        self.live_ready += 1;
        if self.track_moves {
            self.moves.push(id);
        }
        self.compact();
    }

    fn is_live(&self, key: &K, id: JobId) -> bool {
        self.jobs
            .get(id)
            .is_some_and(|e| e.loc == Loc::Ready && e.key == *key)
    }

    fn compact(&mut self) {
        if self.ready.len() > 2 * self.live_ready + 64 {
            let old = std::mem::take(&mut self.ready).into_vec();
            let live: Vec<_> = old
                .into_iter()
                .filter(|Reverse((k, id))| self.is_live(k, *id))
                .collect();
            self.ready = BinaryHeap::from(live);
        }
    }

    /// The highest-priority waiting job, dropping stale heap entries on the way.
    fn peek_ready(&mut self) -> Option<(K, JobId)> {
        loop {
            let Reverse((k, id)) = *self.ready.peek()?;
            if self.is_live(&k, id) {
                return Some((k, id));
            }
            self.ready.pop();
        }
    }

    /// CPU `cpu`'s link changed: updates the victim tree (if kept).
    fn order_update(&mut self, cpu: u32) {
        if let Some(order) = &mut self.order {
            let cpus = &self.cpus;
            order.update(cpu, |c| {
                cpus.get(c as usize).copied().flatten().map(|s| s.key)
            });
        }
    }

    /// The linked job with the largest key (lowest priority) and its CPU.
    fn lowest_linked(&self) -> Option<(K, u32)> {
        match &self.order {
            Some(order) => {
                let c = order.max_cpu()?;
                let s = self.cpus.get(c as usize).copied().flatten()?;
                Some((s.key, c))
            }
            None => {
                // Keys are unique (they contain the job id), so the largest key decides.
                let mut best: Option<(&K, usize)> = None;
                for (c, slot) in self.cpus.iter().enumerate() {
                    if let Some(s) = slot {
                        if best.is_none_or(|(k, _)| s.key > *k) {
                            best = Some((&s.key, c));
                        }
                    }
                }
                best.map(|(k, c)| (*k, c as u32))
            }
        }
    }

    /// The linked job a waiting job with key `top` may take the CPU of, if any.
    fn victim(&self, ctx: &Ctx<'_>, top: &K) -> Option<u32> {
        match self.mode {
            Preemption::Preemptive => {
                let (vk, cpu) = self.lowest_linked()?;
                let (vk, cpu) = (&vk, &cpu);
                if !top.preempts(vk) {
                    return None;
                }
                // DESIGN.md: a running job is never displaced in favour of a job with an equal
                // key. If the lowest-priority linked job is running and a job with an equal
                // key was linked at this very instant and has not started, undo that link
                // instead: the same jobs run, without preempting a running one (SimSo's
                // G-EDF agrees; found comparing schedules job by job).
                if self.fresh_at == ctx.now && !self.unstarted(ctx, *cpu) {
                    let fresh_equal = self
                        .fresh
                        .iter()
                        .filter(|c| self.unstarted(ctx, **c))
                        .filter_map(|&c| {
                            let s = self.cpus.get(c as usize).copied().flatten()?;
                            let equal = !s.key.preempts(vk) && !vk.preempts(&s.key);
                            (equal && top.preempts(&s.key)).then_some((s.key, c))
                        })
                        .max();
                    if let Some((_, c)) = fresh_equal {
                        return Some(c);
                    }
                }
                Some(*cpu)
            }
            Preemption::NonPreemptive => {
                // Only jobs linked at this instant that have not executed (not started).
                if self.fresh_at != ctx.now {
                    return None;
                }
                let (vk, cpu) = self
                    .fresh
                    .iter()
                    .filter(|cpu| self.unstarted(ctx, **cpu))
                    .filter_map(|&cpu| {
                        let s = self.cpus.get(cpu as usize).copied().flatten()?;
                        Some((s.key, cpu))
                    })
                    .max()?;
                (*top < vk).then_some(cpu)
            }
        }
    }

    fn unstarted(&self, ctx: &Ctx<'_>, cpu: u32) -> bool {
        self.cpus
            .get(cpu as usize)
            .copied()
            .flatten()
            .is_some_and(|s| s.since == ctx.now && ctx.progress.executed(s.id) == Duration::ZERO)
    }

    /// Restores "idle CPUs only if nothing waits" and "no waiting job preempts a linked one",
    /// one link change at a time (for JLFP policies a single event needs at most one).
    pub(crate) fn rebalance(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        // Each step links a job that strictly beats what it displaces; keys never get worse,
        // so this terminates; the bound is a safety net against a broken key order.
        let mut budget = 4 * (self.cpus.len() + self.live_ready) + 4;
        while budget > 0 {
            budget -= 1;
            let Some((key, id)) = self.peek_ready() else {
                return;
            };
            if !self.idle.is_empty() {
                let cpu = self.preferred_idle_cpu(id);
                self.ready.pop();
                self.link(ctx, cpu, key, id, out);
                continue;
            }
            let Some(cpu) = self.victim(ctx, &key) else {
                return;
            };
            self.ready.pop();
            self.displace(cpu);
            self.link(ctx, cpu, key, id, out);
        }
    }

    fn link(&mut self, ctx: &Ctx<'_>, cpu: u32, key: K, id: JobId, out: &mut Decisions) {
        let Some(slot) = self.cpus.get_mut(cpu as usize) else {
            return;
        };
        *slot = Some(Slot {
            id,
            key,
            since: ctx.now,
        });
        self.order_update(cpu);
        self.idle.remove(cpu);
        if let Some(e) = self.jobs.get_mut(id) {
            e.loc = Loc::Linked(cpu);
        }
        self.live_ready = self.live_ready.saturating_sub(1);
        if let Some(l) = usize::try_from(id.task.0)
            .ok()
            .and_then(|t| self.last_cpu.get_mut(t))
        {
            *l = cpu;
        }
        if self.track_moves {
            self.moves.push(id);
        }
        if self.fresh_at != ctx.now {
            self.fresh.clear();
            self.fresh_at = ctx.now;
        }
        self.fresh.push(cpu);
        out.link(CpuId(cpu), id);
    }
}

/// A global JLFP policy: `gedf`, `gnpedf`, `gfp` or `gfifo` (see the module doc).
#[derive(Debug)]
pub struct GlobalJlfp {
    name: &'static str,
    primary: Primary,
    tasks: Arc<[PolicyTask]>,
    engine: Engine<JobKey>,
    /// Blocked jobs and inherited priorities (`inherit`).
    pi: inherit::Inheritance,
}

impl GlobalJlfp {
    /// A global policy named `name` on `cpus` CPUs ordering jobs by `primary`.
    pub fn new(
        name: &'static str,
        primary: Primary,
        preemption: Preemption,
        tasks: impl Into<Arc<[PolicyTask]>>,
        cpus: u32,
    ) -> GlobalJlfp {
        let tasks = tasks.into();
        GlobalJlfp {
            name,
            primary,
            engine: Engine::new(cpus, tasks.len(), preemption, false),
            tasks,
            pi: inherit::Inheritance::default(),
        }
    }

    /// G-EDF [ChronOS §6.4].
    pub fn gedf(tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> GlobalJlfp {
        GlobalJlfp::new(
            "gedf",
            Primary::Deadline,
            Preemption::Preemptive,
            tasks,
            cpus,
        )
    }

    /// G-NP-EDF [ChronOS §6.5].
    pub fn gnpedf(tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> GlobalJlfp {
        GlobalJlfp::new(
            "gnpedf",
            Primary::Deadline,
            Preemption::NonPreemptive,
            tasks,
            cpus,
        )
    }

    /// G-FP by task rank (G-RMS/G-DM) [ChronOS §6.3].
    pub fn gfp(tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> GlobalJlfp {
        GlobalJlfp::new("gfp", Primary::Rank, Preemption::Preemptive, tasks, cpus)
    }

    /// G-FIFO [ChronOS §6.2]: by release time; since a new job never has an earlier release
    /// than a linked one, it never preempts.
    pub fn gfifo(tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> GlobalJlfp {
        GlobalJlfp::new(
            "gfifo",
            Primary::Release,
            Preemption::Preemptive,
            tasks,
            cpus,
        )
    }
}

impl Policy for GlobalJlfp {
    fn name(&self) -> &str {
        self.name
    }
    fn cpus(&self) -> u32 {
        self.engine.cpu_count()
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        let key = JobKey::of(self.primary, job, &self.tasks);
        self.engine.release(ctx, job, key, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.engine.remove(ctx, job, out);
        self.forget_blocked(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.engine.remove(ctx, job, out);
        self.forget_blocked(ctx, job, out);
    }
    fn on_timer(&mut self, _ctx: &Ctx<'_>, _timer: TimerId, _out: &mut Decisions) {}
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.park(ctx, job, out);
    }
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.unpark(ctx, job, out);
    }
    fn grant(&self, _ctx: &Ctx<'_>, _resource: ResourceId, waiters: &[JobId]) -> usize {
        self.pi.pick(waiters)
    }
    /// Threads as jobs (the default `on_fork`): every strand is a job of its own in the one
    /// ready queue, keyed like a job ([`JobKey`] ends with the strand).
    fn parallel_support(&self) -> ParallelSupport {
        ParallelSupport::ThreadsAsJobs
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.engine.linked(cpu)
    }
}

mod inherit;
#[cfg(test)]
mod tests;
