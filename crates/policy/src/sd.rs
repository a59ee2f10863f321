//! `sd`: a model of Linux SCHED_DEADLINE's global EDF — per-CPU EDF run queues kept globally
//! consistent by wake-up placement, *push* and *pull* — the baseline of [RTWS §VI] ("SD",
//! SCHED_DEADLINE with its bandwidth management disabled), at the simulator's decision level.
//!
//! # What is modelled (mainline `kernel/sched/deadline.c`, `cpudeadline.c`; read, not copied)
//! - **Run queues.** Each CPU has an EDF run queue; it runs the earliest job of its own queue
//!   (`pick_next_task_dl`). A job enqueued on a CPU whose running job has a strictly later
//!   deadline preempts it at once (`check_preempt_curr_dl`, `dl_entity_preempt` is strict);
//!   the displaced job waits in that CPU's queue.
//! - **Threads.** A job's previous CPU belongs to the *thread* that runs it. A sequential task
//!   is one thread. A parallel task runs its threads as jobs ([`ParallelSupport::ThreadsAsJobs`],
//!   the paper's "SD" with one SCHED_DEADLINE thread per thread slot): thread `k` of every
//!   region (its strand minus the region's first strand) is the task's thread slot `k`, the
//!   same OS thread in every region and every job — slot 0 is the master, which runs the
//!   sequential segments (OpenMP's reading: the master is thread 0 of a parallel region).
//! - **Wake-up** (`select_task_rq_dl`): a released job (or a thread whose region starts) goes
//!   to its thread's previous CPU `c` — the CPU whose run queue it was last on — if `c` is
//!   idle or the job preempts `c`'s running job, *even if other CPUs are idle* ("SCHED_DEADLINE
//!   blindly assigns new jobs of a task to the core where the last job of that task was
//!   executed" [RTWS §VI]). Otherwise `find_later_rq` looks for a better CPU through `cpudl`:
//!   an idle CPU if there is one, else the CPU whose running deadline is the latest if the job
//!   is strictly earlier than it; if none, the job waits in `c`'s queue.
//! - **Push** (`push_dl_task`, after a wake-up that did not preempt and after a preemption):
//!   while a CPU's earliest *waiting* job can go to an idle CPU, or is strictly earlier than
//!   the latest running deadline of the other CPUs, it moves there and preempts (the displaced
//!   job waits on that CPU, which then tries to push in turn).
//! - **Pull** (`pull_dl_task` from `balance_dl`, when a CPU's running job leaves — completion,
//!   abort, block — so that it goes idle or lowers its priority): after the CPU picks its own
//!   next job, it takes the earliest waiting job of the other CPUs' queues if that one is
//!   strictly earlier than what it would run (or if it would idle).
//!
//! After every callback no CPU idles while a job waits, and every waiting job's deadline is at
//! least every running job's: the set of running jobs is G-EDF's (the `m` earliest deadlines,
//! modulo ties). `sd` differs from `gedf` in *where* jobs run and in the preemptions on the
//! way — a released job preempts on its previous CPU and the victim is pushed on, where
//! `gedf` takes an idle CPU or preempts the latest-deadline job directly — so migrations and
//! context switches differ, and so can the schedule at equal deadlines.
//!
//! # Tie rules (deterministic; the kernel's are arbitrary or FIFO)
//! - A queue orders jobs by [`crate::prio`] (deadline, task index, job, strand); a running job
//!   is never preempted by an equal deadline (the project's equal-key rule; the kernel's
//!   `check_preempt_equal_dl` may instead swap equal-deadline jobs when one can move).
//! - Idle CPUs: the thread's previous CPU first, else the lowest-numbered idle CPU
//!   (`find_later_rq` prefers `task_cpu`, then the waker's CPU — busy in every case here —
//!   then `cpumask_any`, the first of the mask in the kernels of [RTWS]'s time).
//! - Latest running deadline (`cpudl_maximum`): among equal deadlines the lowest CPU index.
//! - Pull: the waiting job with the smallest key over all other CPUs (a kernel pull may move
//!   several jobs in one pass, each earlier than the last; the model moves the earliest only,
//!   which is the one that ends up running).
//! - A thread that never ran: a forked one's previous CPU is the forking CPU (its master woke
//!   it there); a job of region 0 that never ran goes where `find_later_rq` sends it, else
//!   waits on the CPU with the latest running deadline.
//! - Placements, pushes and pulls of one callback run in a fixed order: the event's own
//!   placement, then the pull of a CPU whose job left, then pushes from the CPUs whose queues
//!   gained a waiting job, lowest index first, until none moves.
//!
//! # Not modelled
//! No CBS bandwidth enforcement or replenishment (the paper disabled it, [RTWS §VI]), no tick,
//! no overheads: push and pull are instantaneous and never race (the kernel's `DL_MAX_TRIES`,
//! double locking and `dlo_mask` staleness do not exist here). No affinity masks, no capacity
//! awareness, no root domains (one domain of all CPUs). Resources: a blocked job leaves like a
//! completed one and comes back like a release, without priority inheritance.
//!
//! # Cost
//! `m` CPUs, `q` jobs on one queue: a placement, a push or a pull scans the `m` CPUs
//! (`O(m + log q)`; the kernel's `cpudl` heap is `O(log m)`); a callback performs at most one
//! placement per released job and a chain of pushes that ends (each push strictly lowers one
//! running deadline or fills an idle CPU); links are emitted by comparing the `m` CPUs before
//! and after (`O(m)`).

use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{CpuId, JobId, TimerId};
use crate::policy::{ParallelSupport, Policy};
use crate::prio::{JobKey, Primary};
use crate::task::PolicyTask;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One CPU's run queue: the running job and the waiting ones.
#[derive(Debug, Default)]
struct RunQueue {
    curr: Option<(JobKey, JobInfo)>,
    waiting: BTreeMap<JobKey, JobInfo>,
}

impl RunQueue {
    /// The earliest waiting job.
    fn first_waiting(&self) -> Option<(JobKey, JobInfo)> {
        self.waiting.first_key_value().map(|(k, i)| (*k, *i))
    }
}

/// The thread identity of a job: (task index, thread slot) (module doc, "Threads").
type Thread = (u32, u32);

/// The SCHED_DEADLINE model on `m` CPUs (module doc).
#[derive(Debug)]
pub struct Sd {
    tasks: Arc<[PolicyTask]>,
    rq: Vec<RunQueue>,
    /// The CPU whose queue holds each live job (running or waiting).
    on: BTreeMap<JobId, u32>,
    /// The thread slot of each live strand of a later region (absent: region 0, slot = strand).
    slot: BTreeMap<JobId, u32>,
    /// Each thread's previous CPU (`task_cpu`): the CPU whose queue it was last on.
    prev: BTreeMap<Thread, u32>,
    /// CPUs whose queues gained a waiting job in this callback (push candidates).
    to_push: Vec<u32>,
    /// What each CPU ran when the callback began (links are emitted for the differences).
    before: Vec<Option<JobId>>,
}

impl Sd {
    /// SCHED_DEADLINE's global EDF on `cpus` CPUs.
    pub fn new(tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> Sd {
        Sd {
            tasks: tasks.into(),
            rq: (0..cpus).map(|_| RunQueue::default()).collect(),
            on: BTreeMap::new(),
            slot: BTreeMap::new(),
            prev: BTreeMap::new(),
            to_push: Vec::new(),
            before: Vec::new(),
        }
    }

    fn key(&self, info: &JobInfo) -> JobKey {
        JobKey::of(Primary::Deadline, info, &self.tasks)
    }

    fn thread(&self, id: JobId) -> Thread {
        (id.task.0, self.slot.get(&id).copied().unwrap_or(id.strand))
    }

    fn count(&self) -> u32 {
        u32::try_from(self.rq.len()).unwrap_or(u32::MAX)
    }

    fn curr_key(&self, cpu: u32) -> Option<JobKey> {
        self.rq.get(cpu as usize)?.curr.map(|(k, _)| k)
    }

    fn is_idle(&self, cpu: u32) -> bool {
        self.rq.get(cpu as usize).is_some_and(|q| q.curr.is_none())
    }

    /// `find_later_rq` through `cpudl`: the lowest-numbered idle CPU, else the CPU with the
    /// latest running deadline (ties: lowest index) if `key` is strictly earlier than it.
    /// `except` is never chosen (the pushing CPU). (The thread's previous CPU, preferred when
    /// idle, is handled by [`Sd::select`]: when this is called it is busy.)
    fn find_later(&self, key: &JobKey, except: Option<u32>) -> Option<u32> {
        let mut others = (0..self.count()).filter(|&c| Some(c) != except);
        if let Some(idle) = others.find(|&c| self.is_idle(c)) {
            return Some(idle);
        }
        let latest = self.latest(except)?;
        let k = self.curr_key(latest)?;
        key.preempts(&k).then_some(latest)
    }

    /// The CPU with the latest running deadline, ties to the lowest index (`cpudl_maximum`).
    fn latest(&self, except: Option<u32>) -> Option<u32> {
        let mut best: Option<(u64, u32)> = None;
        for c in (0..self.count()).filter(|&c| Some(c) != except) {
            if let Some(k) = self.curr_key(c) {
                if best.is_none_or(|(d, _)| k.primary > d) {
                    best = Some((k.primary, c));
                }
            }
        }
        best.map(|(_, c)| c)
    }

    /// `select_task_rq_dl` for a waking job of a thread whose previous CPU is `prev`.
    fn select(&self, key: &JobKey, prev: Option<u32>) -> u32 {
        if let Some(c) = prev.filter(|&c| c < self.count()) {
            match self.curr_key(c) {
                None => return c,
                Some(k) if key.preempts(&k) => return c,
                Some(_) => return self.find_later(key, None).unwrap_or(c),
            }
        }
        self.find_later(key, None)
            .or_else(|| self.latest(None))
            .unwrap_or(0)
    }

    /// Puts `info` on `cpu`'s queue: it runs if the CPU idles or it preempts the running job
    /// (which then waits there); otherwise it waits. A waiting job makes `cpu` a push
    /// candidate.
    fn enqueue(&mut self, cpu: u32, key: JobKey, info: JobInfo) {
        let thread = self.thread(info.id);
        let Some(q) = self.rq.get_mut(cpu as usize) else {
            return;
        };
        let waits = match q.curr {
            None => {
                q.curr = Some((key, info));
                false
            }
            Some((k, old)) if key.preempts(&k) => {
                q.waiting.insert(k, old);
                q.curr = Some((key, info));
                true
            }
            Some(_) => {
                q.waiting.insert(key, info);
                true
            }
        };
        self.on.insert(info.id, cpu);
        self.prev.insert(thread, cpu);
        if waits && !self.to_push.contains(&cpu) {
            self.to_push.push(cpu);
        }
    }

    /// A job wakes (release, resume, or its region starts) with `fallback` as its thread's
    /// previous CPU if the thread never ran.
    fn wake(&mut self, info: &JobInfo, fallback: Option<u32>) {
        if self.on.contains_key(&info.id) {
            return; // already held: a contract violation the policy survives
        }
        let key = self.key(info);
        let prev = self.prev.get(&self.thread(info.id)).copied().or(fallback);
        let cpu = self.select(&key, prev);
        self.enqueue(cpu, key, *info);
    }

    /// `push_dl_task`, repeated: `cpu`'s earliest waiting job moves to a later CPU while one
    /// exists. True if anything moved.
    fn push(&mut self, cpu: u32) -> bool {
        let mut moved = false;
        loop {
            let Some((key, info)) = self.rq.get(cpu as usize).and_then(RunQueue::first_waiting)
            else {
                return moved;
            };
            let Some(target) = self.find_later(&key, Some(cpu)) else {
                return moved;
            };
            if let Some(q) = self.rq.get_mut(cpu as usize) {
                q.waiting.remove(&key);
            }
            self.enqueue(target, key, info);
            moved = true;
        }
    }

    /// `pull_dl_task` on `cpu` after its running job left: it takes the earliest waiting job
    /// of the other CPUs if that is strictly earlier than what it runs now (or it idles).
    fn pull(&mut self, cpu: u32) {
        let mut best: Option<(JobKey, u32)> = None;
        for c in (0..self.count()).filter(|&c| c != cpu) {
            if let Some((k, _)) = self.rq.get(c as usize).and_then(RunQueue::first_waiting) {
                if best.is_none_or(|(b, _)| k < b) {
                    best = Some((k, c));
                }
            }
        }
        let Some((key, src)) = best else {
            return;
        };
        if self.curr_key(cpu).is_some_and(|k| !key.preempts(&k)) {
            return;
        }
        let Some(info) = self
            .rq
            .get_mut(src as usize)
            .and_then(|q| q.waiting.remove(&key))
        else {
            return;
        };
        self.enqueue(cpu, key, info);
    }

    /// Pushes from every candidate CPU, lowest index first, until nothing moves. Each move
    /// strictly lowers a running deadline or fills an idle CPU, so this ends; the bound is a
    /// guard.
    fn balance(&mut self) {
        let bound = self
            .on
            .len()
            .saturating_add(1)
            .saturating_mul(self.rq.len() + 1);
        for _ in 0..bound {
            self.to_push.sort_unstable();
            let Some(&cpu) = self.to_push.first() else {
                return;
            };
            self.to_push.remove(0);
            self.push(cpu);
        }
        debug_assert!(self.to_push.is_empty(), "sd: push chain did not settle");
        self.to_push.clear();
    }

    /// `id` leaves (completion, abort, block): out of its queue; if it ran, its CPU takes
    /// its own next job and pulls.
    fn leave(&mut self, id: JobId) {
        self.slot.remove(&id);
        let Some(cpu) = self.on.remove(&id) else {
            return;
        };
        let Some(q) = self.rq.get_mut(cpu as usize) else {
            return;
        };
        if q.curr.is_some_and(|(_, i)| i.id == id) {
            q.curr = q.waiting.pop_first();
            self.pull(cpu);
        } else {
            q.waiting.retain(|_, i| i.id != id);
        }
    }

    fn begin(&mut self) {
        self.before.clear();
        self.before
            .extend(self.rq.iter().map(|q| q.curr.map(|(_, i)| i.id)));
        self.to_push.clear();
    }

    /// Settles pushes and emits a link for every CPU whose running job changed.
    fn finish(&mut self, out: &mut Decisions) {
        self.balance();
        for (c, (q, was)) in self.rq.iter().zip(&self.before).enumerate() {
            let now = q.curr.map(|(_, i)| i.id);
            if now != *was {
                let cpu = CpuId(u32::try_from(c).unwrap_or(u32::MAX));
                match now {
                    Some(j) => out.link(cpu, j),
                    None => out.unlink(cpu),
                }
            }
        }
    }
}

impl Policy for Sd {
    fn name(&self) -> &str {
        "sd"
    }
    fn cpus(&self) -> u32 {
        self.count()
    }
    fn on_release(&mut self, _ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.begin();
        self.wake(job, None);
        self.finish(out);
    }
    fn on_complete(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.begin();
        self.leave(job);
        self.finish(out);
    }
    fn on_abort(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.begin();
        self.leave(job);
        self.finish(out);
    }
    fn on_timer(&mut self, _ctx: &Ctx<'_>, _timer: TimerId, _out: &mut Decisions) {}
    /// A blocked job leaves like a finished one (module doc, "Not modelled").
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.on_complete(ctx, job, out);
    }
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.on_release(ctx, job, out);
    }
    /// Threads as jobs: each thread of the new region wakes (in strand order) as its slot's
    /// thread; a slot that never ran wakes with the forking CPU as its previous CPU.
    fn on_fork(&mut self, _ctx: &Ctx<'_>, cpu: CpuId, strands: &[JobInfo], out: &mut Decisions) {
        self.begin();
        let first = strands.iter().map(|s| s.id.strand).min().unwrap_or(0);
        let fork_cpu = (cpu.0 < self.count()).then_some(cpu.0);
        for s in strands {
            self.slot.insert(s.id, s.id.strand.saturating_sub(first));
            self.wake(s, fork_cpu);
        }
        self.finish(out);
    }
    fn parallel_support(&self) -> ParallelSupport {
        ParallelSupport::ThreadsAsJobs
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.rq.get(cpu.0 as usize)?.curr.map(|(_, i)| i.id)
    }
}

#[cfg(test)]
mod tests;
