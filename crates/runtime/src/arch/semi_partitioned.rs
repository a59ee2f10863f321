//! `semi-partitioned`: RTPS's mechanism [RTPS §IV] for semi-partitioned fixed-priority
//! scheduling (FP-TS, `pfp-ts`; also `pfp`, which splits nothing) — one scheduler per CPU,
//! sleep queues and timers local, only the ready queues shared, a split task's job handed
//! from one part's CPU to the next when the part's budget runs out.
//!
//! # Protocol
//!
//! State and owners:
//! - the **shard** of CPU c ([`Sched`] in shard mode, `state/shard.rs`): an instance of the
//!   run's policy built on all CPUs with the whole placement, of which it decides only CPU c
//!   — c's ready queue and running job, the jobs present on c (their records, budgets and
//!   exhaustion counts), c's budget timer [RTPS §IV-A]. Owned by c's dispatcher alone, no
//!   lock (`ShardDomain`);
//! - the **sleep queue** of c: the release heap of c's dispatcher, holding the tasks whose
//!   releases c owns — its whole tasks, and the split tasks whose *tail* part is on c (RTPS
//!   keeps a split task's sleep-queue entry and release timer on its tail CPU, §IV-B). Local;
//! - the **migration queue** of c: the part of c's ready queue other CPUs add to — a vector
//!   of `Arrival`s behind a ticket spin lock of its own, plus a "not empty" flag read
//!   without the lock. The only scheduler state shared between CPUs (with the doorbells
//!   and the job threads' control blocks);
//! - per task, the number of its jobs whose completion was processed (an atomic counter,
//!   written by the shard where the job completed, read by the shard that hands the task's
//!   jobs to its policy);
//! - job thread i's control block moves as in [`crate::job`]; a whole task's thread is
//!   pinned to its CPU for the run, a split task's is re-pinned by the dispatcher that makes
//!   it runnable.
//!
//! Dispatch (the dispatcher of c, [`crate::dispatch`], SCHED_FIFO above c's jobs; each step
//! records the RTPS operation it is, docs/overheads.md):
//! 0. if its migration queue is flagged: take it (lock, swap out, unlock: `ready_take`);
//!    each arrival enters c's shard (`ready_add_local`): a released job is handed to the
//!    policy (`on_release`) once the task's previous job has completed; a migrated job
//!    brings its record and budget and the shard replays its release and exhaustions;
//!    jobs that waited for a predecessor completed elsewhere are handed over now;
//! 1. its due releases (`sleep_take`, then `sleep_add` of the task's next release): a whole
//!    task's job enters c's shard (`ready_add_local`); a split task's job is put straight
//!    into its **head** CPU's migration queue (`ready_add_remote`) and the head CPU is rung —
//!    it never passes through the head's sleep queue [RTPS §IV-B];
//! 2. c's policy timers, if due (none for `pfp-ts`);
//! 3. c's **budget timer**, if it expired: the running job's CPU clock is read (`timer`);
//!    a used-up budget is an exhaustion — the policy (FP-TS) moves the job to its next
//!    part's CPU: the shard forgets it and keeps its record for the hand-over (`ready_take`);
//! 4. the scheduling step (`sched-begin` … `sched-end`): a completion on c is processed
//!    (`ready_take`), the parked job's budget timer cancelled and the new job's armed
//!    (`timer`), `scheduled` made equal to `assigned`;
//! 5. each job that left c and is now parked goes into its next CPU's migration queue
//!    (`ready_add_remote`); that CPU is rung; so is the head CPU of a split task whose job
//!    completed on c (its next job may be waiting for that);
//! 6. the doorbells of step 1 and 5 are rung (`ipi-send`, the runtime's IPI).
//!
//! Preemption: a job entering c's queue with a higher priority than c's running job takes
//! c (in step 0 or 1, on c itself), the running one is parked by c's dispatcher (`RUN →
//! PARK` and the preemption signal). A migrating job is parked by the CPU it leaves (its
//! dispatcher runs on that CPU above it, so it executes nothing more there) before any other
//! CPU can see it, and made runnable on the next CPU by that CPU's dispatcher, which pins
//! its thread there first: a job never runs on two CPUs.
//!
//! The placement is an input (the tasks' `cpu`/`split` fields, or FP-TS's assignment,
//! computed by the caller as `analyze --test pfp-ts` does).

use crate::arch::{Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::dispatch::{Dispatcher, Domain};
use crate::error::RuntimeError;
use crate::mech::lock::{LockKind, Locked};
use crate::state::{Emit, Migrant, RawRecord, Sched, Shard, Threads};
use schedlab_policy::{build, JobId, Placement, TaskId};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Op;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "semi-partitioned",
    summary: "one scheduler per CPU, local sleep queues and timers, shared ready queues; split tasks move at budget exhaustion (RTPS; pfp-ts, pfp)",
    kernel: false,
    parallel: false,
    options: &["threading"],
    partitioned_with: None,
    rt_load: RtLoad::ByPlacement,
    global_invariant: false,
    reserves_cpu0: |_| false,
    fields: |_| Vec::new(),
    note: |_| String::new(),
    run: crate::run::run_with::<SemiPartitioned>,
};

/// The policies it runs.
const POLICIES: [&str; 2] = ["pfp-ts", "pfp"];

/// What enters a CPU's ready queue from another CPU.
#[derive(Debug)]
pub(crate) enum Arrival {
    /// A split task's job released by its tail CPU, for its head CPU.
    Release {
        /// Task index.
        task: u32,
        /// Job number.
        seq: u64,
        /// Intended release (ns since time zero).
        release_ns: u64,
    },
    /// A job whose part on another CPU ended.
    Migrated(Migrant),
}

/// A CPU's migration queue: arrivals behind a spin lock, and whether there are any.
#[derive(Debug)]
pub(crate) struct Queue {
    arrivals: Locked<Vec<Arrival>>,
    pending: AtomicBool,
}

impl Queue {
    fn new(cpus: usize, capacity: usize) -> Queue {
        Queue {
            arrivals: Locked::new(LockKind::Ticket, cpus, Vec::with_capacity(capacity)),
            pending: AtomicBool::new(false),
        }
    }

    /// Adds `a` (the caller then rings the queue's CPU).
    fn push(&self, slot: usize, a: Arrival) {
        let mut q = self.arrivals.lock(slot);
        q.push(a);
        self.pending.store(true, Ordering::Release);
    }

    /// Whether arrivals may be waiting (read without the lock).
    fn pending(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    /// Moves every arrival into `out` (empty; owner only, or anyone after the run).
    fn take(&self, slot: usize, out: &mut Vec<Arrival>) {
        let mut q = self.arrivals.lock(slot);
        self.pending.store(false, Ordering::Relaxed);
        std::mem::swap(&mut *q, out);
    }
}

/// The state shared by the dispatchers: the migration queues (also reached through each
/// dispatcher's domain).
pub(crate) struct SemiPartitioned {
    queues: Arc<[Queue]>,
    /// Static facts of each task (deadlines of the jobs left in a queue at the end).
    spec: Arc<[crate::state::TaskSpec]>,
}

/// A dispatcher's way to its state: its own shard (no lock), every CPU's migration queue.
pub(crate) struct ShardDomain {
    sched: Box<Sched>,
    me: u32,
    queues: Arc<[Queue]>,
    /// Per task, the CPU whose shard takes its jobs in (a split task's head CPU).
    head: Arc<[u32]>,
    /// Scratch, kept to avoid allocating: arrivals taken, jobs leaving.
    taken: Vec<Arrival>,
    leaving: Vec<Migrant>,
}

impl ShardDomain {
    /// Puts `a` into CPU `to`'s migration queue (`ready_add_remote`) and rings it.
    fn send(&self, em: &Emit<'_>, to: u32, j: JobId, a: Arrival, rings: &mut Vec<u32>) {
        let Some(q) = self.queues.get(to as usize) else {
            return;
        };
        em.op_begin(Op::ReadyAddRemote, Some(j));
        q.push(self.me as usize, a);
        em.op_end(Op::ReadyAddRemote, Some(j));
        rings.push(to);
    }
}

impl Domain for ShardDomain {
    fn with<R>(
        &mut self,
        em: &Emit<'_>,
        f: impl FnOnce(&mut Sched, &Emit<'_>) -> R,
    ) -> (R, Option<u64>) {
        let r = f(&mut self.sched, em);
        (r, self.sched.next_timer())
    }

    const TRACE_SLEEP_QUEUE: bool = true;

    fn arrivals(&mut self, em: &Emit<'_>, now: u64, _rings: &mut Vec<u32>) -> bool {
        let me = self.me as usize;
        if let Some(q) = self.queues.get(me).filter(|q| q.pending()) {
            em.op_begin(Op::ReadyTake, None);
            q.take(me, &mut self.taken);
            em.op_end(Op::ReadyTake, None);
        }
        for a in self.taken.drain(..) {
            match a {
                Arrival::Release {
                    task,
                    seq,
                    release_ns,
                } => self.sched.release(em, now, task, seq, release_ns),
                Arrival::Migrated(m) => self.sched.arrive(em, now, m),
            }
        }
        self.sched.retry_gated(em, now);
        self.sched.need.first().copied().unwrap_or(false)
    }

    fn hand_release(
        &mut self,
        em: &Emit<'_>,
        task: u32,
        seq: u64,
        release_ns: u64,
        rings: &mut Vec<u32>,
    ) -> bool {
        let head = self.head.get(task as usize).copied().unwrap_or(self.me);
        if head == self.me {
            return false;
        }
        let j = JobId::new(TaskId(task), seq);
        let a = Arrival::Release {
            task,
            seq,
            release_ns,
        };
        self.send(em, head, j, a, rings);
        true
    }

    fn after_schedule(&mut self, em: &Emit<'_>, rings: &mut Vec<u32>) {
        self.sched.take_departures(&mut self.leaving);
        let mut leaving = std::mem::take(&mut self.leaving);
        for m in leaving.drain(..) {
            let (to, j) = (m.to(), m.job());
            self.send(em, to, j, Arrival::Migrated(m), rings);
        }
        self.leaving = leaving;
        self.sched.take_rings(rings);
    }
}

/// The CPU that owns each task's releases: a split task's tail CPU, a whole task's CPU.
fn release_cpus(place: &Placement) -> Vec<u32> {
    (0..place.domain_of_task.len())
        .map(|i| match place.parts(i).and_then(<[_]>::last) {
            Some(tail) => tail.cpu,
            None => place.domain_of_task.get(i).copied().unwrap_or(0),
        })
        .collect()
}

impl Architecture for SemiPartitioned {
    type Worker = Dispatcher<ShardDomain>;

    fn prepare(run: &Run<'_>, _warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        let policy = run.config.policy.as_str();
        if !POLICIES.contains(&policy) {
            return Err(RuntimeError::invalid(
                "policy",
                format!(
                    "`semi-partitioned` runs `pfp-ts` (and `pfp`, which splits no task), not `{policy}`"
                ),
            ));
        }
        if run.cpu_placement()?.is_none() {
            return Err(RuntimeError::invalid(
                "placement",
                format!(
                    "`semi-partitioned` needs a placement of every task on a CPU (FP-TS's assignment, or the tasks' `cpu`/`split` fields) for `{policy}`"
                ),
            ));
        }
        let place = run
            .config
            .placement
            .clone()
            .unwrap_or_else(|| Placement::new(Vec::new(), 1));
        let (n, m) = (run.n(), run.m);
        let head: Arc<[u32]> = place.domain_of_task.clone().into();
        let owner = release_cpus(&place);
        let done: Arc<[AtomicU64]> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let queues: Arc<[Queue]> = (0..m).map(|_| Queue::new(m as usize, 2 * n + 4)).collect();
        let mut workers = Vec::with_capacity(m as usize);
        for cpu in 0..m {
            // The policy is checked (and its split parts) when each shard builds it.
            let p = build(policy, &run.policy_tasks, m, Some(place.clone()))?;
            let shard = Shard::new(cpu, done.clone(), head.clone());
            workers.push(Dispatcher {
                cpu,
                base: cpu,
                local: Some(0),
                releases: (0..n as u32)
                    .filter(|&i| owner.get(i as usize) == Some(&cpu))
                    .collect(),
                timer_owner: cpu,
                timers: true,
                domain: ShardDomain {
                    sched: Box::new(Sched::new_shard(p, run.spec.clone(), shard)),
                    me: cpu,
                    queues: queues.clone(),
                    head: head.clone(),
                    taken: Vec::with_capacity(2 * n + 4),
                    leaving: Vec::with_capacity(n),
                },
                buf: TraceBuf::new(run.capacity.scheduler),
            });
        }
        let pinned = (0..n)
            .map(|i| match place.parts(i) {
                Some(_) => None,
                None => place.domain_of_task.get(i).copied(),
            })
            .collect();
        Ok(Setup {
            arch: SemiPartitioned {
                queues,
                spec: run.spec.clone(),
            },
            workers,
            jobs: Jobs::Threads { pinned },
        })
    }

    fn thread_name(w: &Dispatcher<ShardDomain>) -> String {
        format!("sl-cpu{}", w.cpu)
    }

    fn set_up(&self, w: &Dispatcher<ShardDomain>, cx: &Cx<'_>) -> Result<(), String> {
        cx.pin_scheduler(w.cpu)
    }

    fn work(&self, w: Dispatcher<ShardDomain>, cx: &Cx<'_>) -> Dispatcher<ShardDomain> {
        w.run(cx.shared, &cx.th)
    }

    fn drain(&self, workers: Vec<Dispatcher<ShardDomain>>, th: &Threads<'_>, h: &mut Harvest) {
        for mut d in workers {
            h.trace(&d.buf);
            h.sched(&mut d.domain.sched, th);
        }
        // Jobs still in a migration queue when the run stopped.
        let mut left = Vec::new();
        for (cpu, q) in self.queues.iter().enumerate() {
            let mut one = Vec::new();
            q.take(cpu, &mut one);
            left.append(&mut one);
        }
        for a in left {
            h.records.push(match a {
                Arrival::Release {
                    task,
                    seq,
                    release_ns,
                } => RawRecord {
                    task,
                    seq,
                    release_ns,
                    deadline_ns: release_ns.saturating_add(
                        self.spec.get(task as usize).map_or(0, |s| s.deadline),
                    ),
                    ..RawRecord::default()
                },
                Arrival::Migrated(m) => m.record(th.ctls),
            });
        }
    }
}
