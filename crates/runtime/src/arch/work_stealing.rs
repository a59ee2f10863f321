//! `work-stealing`: RTWS [RTWS §V, rules A–F] as a concurrent architecture — a global EDF
//! queue of jobs behind a short lock, a local priority queue of deques per CPU for the threads
//! its jobs fork, and per-CPU dispatchers that take work locally first, then globally, then by
//! stealing. It is the `rtws` policy's schedule made concurrent (`--policy rtws`, the default
//! here; `schedlab_policy::Rtws` states the rules and the project's tie rule), running the
//! engines' strands (`crate::state`'s strands: numbering, release, join, fork, one record per
//! job) with the same trace events. Without parallel tasks the local queues stay empty and it
//! schedules as G-EDF: a release preempts the lowest-priority running job, a CPU that frees
//! up takes the global queue's head.
//!
//! # Protocol
//!
//! State and owners:
//! - **global** (`Locked<Global>`, `--lock ticket|mcs|mutex`, `lock-wait-begin` … `-end`
//!   around each acquisition): the global EDF queue (`queues::GlobalQueue`) and the job
//!   bookkeeping (`jobs::Jobs`: current jobs, backlogs, regions, records);
//! - **per CPU c** (`Locked<Local>`, a ticket lock — a short one: a few queue operations):
//!   c's local queue of deques, the priority key of what c runs (`running`) and a pending
//!   preemption request (`claim`). Only c's dispatcher pushes into c's queue (a fork on c,
//!   Rule B; a preempted local thread, Rule F) and pops its bottom (Rule C); other
//!   dispatchers take its top (Rule E) and read `running` to choose whom a release preempts;
//! - **per task**: `jobs::Progress`, the current job's join counter (atomics): a thread that
//!   is not its region's last completes without the global lock;
//! - `idle[c]` (atomic): c found no work and sleeps (or is about to);
//! - job thread control blocks: as in [`crate::job`]; one per slot of a parallel task
//!   (`crate::job::ctl_of`); a thread runs where the dispatcher that took its item pins it.
//!
//! Lock order: global, then CPU locks in increasing CPU order; a thief holds one CPU lock at
//! a time and never the global lock while stealing.
//!
//! Dispatch (dispatcher of c; each pass on a ring or a due release):
//! 1. **releases** it owns (task i → CPU i mod m) under the global lock: the job is handed
//!    over (or waits in its task's backlog), its region 0's threads enter the global queue,
//!    and each is **placed** (Rule A): a CPU without work takes it (an idle one is rung); else
//!    the CPU running the lowest-priority job or thread gets a `claim` and is rung, if that
//!    one's key is larger (later deadline, or the tie rule);
//! 2. **scheduling step** (`sched-begin` … `sched-end`): (a) the item on c completed (its
//!    thread committed `IDLE`): a thread that is not its region's last only counts down its
//!    job's `Progress`; the last one joins under the global lock — the next region's threads
//!    are pushed, in strand order, onto the bottom of c's local queue (Rule B, `fork`, idle
//!    CPUs rung to steal), or the job completes (`complete`, its record) and the task's next
//!    job is released into the global queue and placed; a sequential job completes likewise;
//!    (b) a claim: if the global queue's head has a smaller key than c's item, c parks it
//!    (`RUN → PARK` + the preemption signal, `switch-out` + `preempt`) and puts it back —
//!    a local thread to the bottom of its deque on c, a stolen thread or a job to the global
//!    queue (Rule F) — and runs the head; (c) c without an item takes the bottom of its own
//!    highest-priority deque (Rule C), else the global queue's head (Rule D), else steals
//!    the top of the highest-priority deque of the victim whose top has the earliest deadline
//!    (ties: the lowest CPU, Definition 2; `steal` recorded, cpu = thief, `arg` = victim)
//!    (Rule E); with nothing anywhere it marks itself idle and looks once more (so a push it
//!    raced with rings it); a found item is made runnable on c (pinned first);
//! 3. it rings the CPUs marked in the pass (`ipi-send`) and sleeps until its next release or
//!    a ring.
//!
//! **The join** (Rule B, "the forking core continues with its own deque"): the joining CPU is
//! free when it forks, so it pops the bottom of its new deque itself; only the other threads
//! wake idle CPUs to steal — as the `rtws` policy does under the engines (the simulator, or
//! `global-lock`), where `on_fork` only pushes and the joining thread's `on_complete` lets its
//! CPU pop first.
//!
//! Preemption only at releases (Rule A, via claims) — never of a running item by a thread,
//! as in the paper: an unlinked item executes no instruction after its CPU's dispatcher
//! started running (the dispatcher runs above its jobs on its CPU). A steal is a migration
//! (`schedlab_trace::counts`).
//!
//! The local queue's lock rather than a lock-free deque per priority level: the priority
//! queue of deques needs an ordered index over the levels that both the owner and thieves
//! change (a deque empties and goes away, a fork adds one), which a lock-free Chase–Lev
//! deque per level does not give; a thief must compare every CPU's best top (Definition 2)
//! anyway. The lock is held for one `BTreeMap` operation (no allocation after a level's first
//! use); measured in docs/runtime.md ("work-stealing").
//!
//! Complexity: a release O(log n + m) (the global queue, placement over m CPUs); a thread
//! completion O(1) without the lock, a join O(w) for w forked threads; a local pop O(log q),
//! a steal O(m + log q) (m CPU locks taken one at a time).

mod jobs;
mod queues;

use crate::arch::{lock_field, Architecture, ArchDef, Cx, Harvest, Jobs as JobThreads, RtLoad, Run, Setup};
use crate::error::RuntimeError;
use crate::job::{ctl_of, JobCtl, IDLE, PARK, RUN, STOP};
use crate::mech::clock::monotonic_ns;
use crate::mech::lock::{Guard, LockKind, Locked};
use crate::mech::{futex, preempt, sched};
use crate::state::Threads;
use jobs::{Joined, Progress, Rec};
use queues::{GlobalQueue, Item, Key, LocalQueue};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};

/// The policy it implements (the only one it takes; the default with `--arch work-stealing`).
pub const POLICY: &str = "rtws";

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "work-stealing",
    summary: "RTWS: a global EDF queue of jobs behind a short lock, per-CPU priority queues of deques for the threads of parallel jobs, idle CPUs steal (policy rtws; --lock ticket|mcs|mutex for the global queue)",
    kernel: false,
    parallel: true,
    options: &["lock", "threading"],
    partitioned_with: None,
    rt_load: RtLoad::Global,
    global_invariant: false,
    reserves_cpu0: |_| false,
    fields: |c| vec![("lock", lock_field(c))],
    note: |_| String::new(),
    run: crate::run::run_with::<WorkStealing>,
};

/// What the global lock guards.
#[derive(Debug)]
struct Global {
    queue: GlobalQueue,
    jobs: jobs::Jobs,
}

/// What a CPU's own lock guards.
#[derive(Debug, Default)]
struct Local {
    queue: LocalQueue,
    /// The key of the item the CPU runs.
    running: Option<Key>,
    /// A release asks the CPU to run the global queue's head (of this key) instead.
    claim: Option<Key>,
}

/// The state every dispatcher shares.
pub(crate) struct WorkStealing {
    global: Locked<Global>,
    locals: Vec<Locked<Local>>,
    idle: Vec<AtomicBool>,
    progress: Vec<Progress>,
    /// Number of dispatchers (one per CPU).
    m: usize,
}

/// Where the item a CPU runs came from (Rule F).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Its own local queue.
    Local,
    /// The global queue, or stolen.
    Global,
}

/// A dispatcher: one per CPU.
pub(crate) struct Worker {
    cpu: u32,
    releases: Vec<u32>,
    buf: TraceBuf,
    /// The item it runs and where it came from.
    cur: Option<(Item, Origin)>,
    /// Failed mechanism calls: count and the first message.
    mech_errors: (u64, Option<String>),
}

impl Architecture for WorkStealing {
    type Worker = Worker;

    fn prepare(run: &Run<'_>, _warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        let config = run.config;
        if config.policy != POLICY {
            return Err(RuntimeError::invalid(
                "policy",
                format!(
                    "--arch work-stealing is the RTWS scheduler itself (rules A–F): it runs --policy {POLICY} only, not `{}`; run other policies under --arch global-lock",
                    config.policy
                ),
            ));
        }
        if config.placement.is_some() {
            return Err(RuntimeError::invalid(
                "placement",
                "--arch work-stealing schedules globally: it takes no placement of tasks on CPUs",
            ));
        }
        let m = run.m as usize;
        let kind = config.arch.lock().unwrap_or(LockKind::Ticket);
        let global = Global {
            queue: GlobalQueue::default(),
            jobs: jobs::Jobs::new(run.spec.clone(), run.par.clone()),
        };
        let arch = WorkStealing {
            global: Locked::new(kind, m, global),
            locals: (0..m)
                .map(|_| Locked::new(LockKind::Ticket, m, Local::default()))
                .collect(),
            idle: (0..m).map(|_| AtomicBool::new(false)).collect(),
            progress: (0..run.n()).map(|_| Progress::default()).collect(),
            m,
        };
        let workers = (0..run.m)
            .map(|cpu| Worker {
                cpu,
                releases: (0..run.n() as u32).filter(|i| i % run.m == cpu).collect(),
                buf: TraceBuf::new(run.capacity.scheduler),
                cur: None,
                mech_errors: (0, None),
            })
            .collect();
        Ok(Setup {
            arch,
            workers,
            jobs: JobThreads::Threads {
                pinned: vec![None; run.n()],
            },
        })
    }

    fn thread_name(w: &Worker) -> String {
        format!("sl-cpu{}", w.cpu)
    }

    fn set_up(&self, w: &Worker, cx: &Cx<'_>) -> Result<(), String> {
        cx.pin_scheduler(w.cpu)
    }

    fn work(&self, w: Worker, cx: &Cx<'_>) -> Worker {
        w.run(self, cx)
    }

    fn drain(&self, workers: Vec<Worker>, th: &Threads<'_>, h: &mut Harvest) {
        for w in &workers {
            h.trace(&w.buf);
            h.mech_errors(w.mech_errors.0, w.mech_errors.1.clone());
        }
        // A dispatcher left running past the grace period might hold the lock (the run
        // warned): then the records stay where they are.
        if workers.len() == self.m {
            let mut g = self.global.lock(0);
            h.records.append(&mut g.jobs.records);
            h.records
                .extend(g.jobs.unfinished(&self.progress, th.ctls));
        }
    }
}

/// One pass's context: the run, the CPUs to ring after it, the ticks the dispatcher got the
/// CPU.
struct Pass<'a, 'c> {
    cx: &'a Cx<'c>,
    rings: Vec<u32>,
    wake_ticks: u64,
}

impl WorkStealing {
    /// Wakes up to `n` idle CPUs other than `me` (work arrived they may take or steal).
    fn wake_idle(&self, me: usize, n: usize, rings: &mut Vec<u32>) {
        let mut left = n;
        for (d, flag) in self.idle.iter().enumerate() {
            if left == 0 {
                break;
            }
            if d != me && flag.swap(false, Ordering::SeqCst) {
                rings.push(d as u32);
                left -= 1;
            }
        }
    }

    /// Rule A for items just put into the global queue (`keys`, any order), under the
    /// global lock: a CPU without work takes one by itself (idle ones are rung); for the
    /// rest, the CPU running the lowest-priority item — by its claim if it has one — is
    /// asked to preempt it (a claim and a ring) when its key is larger.
    fn place(&self, me: usize, keys: &mut [Key], rings: &mut Vec<u32>) {
        keys.sort_unstable();
        // Per CPU: the key it runs or is claimed for (`None`: it has no work).
        let mut eff: Vec<Option<Key>> = self
            .locals
            .iter()
            .map(|l| {
                let l = l.lock(me);
                match (l.running, l.claim) {
                    (Some(r), Some(c)) => Some(r.min(c)),
                    // Between two items: it takes its local work first (Rule C).
                    (None, None) => l.queue.top().map(Item::key),
                    (r, c) => r.or(c),
                }
            })
            .collect();
        let mut free = eff.iter().filter(|e| e.is_none()).count();
        for &k in keys.iter() {
            if free > 0 {
                free -= 1;
                self.wake_idle(me, 1, rings);
                continue;
            }
            let lowest = eff
                .iter()
                .enumerate()
                .filter_map(|(d, e)| e.map(|e| (e, d)))
                .max();
            let Some((worst, d)) = lowest else { break };
            if !queues::preempts(&k, &worst) {
                break; // every CPU runs something at least as urgent (keys are sorted)
            }
            if let Some(l) = self.locals.get(d) {
                l.lock(me).claim = Some(k);
            }
            if let Some(e) = eff.get_mut(d) {
                *e = Some(k);
            }
            rings.push(d as u32);
        }
    }

    /// The global lock, its wait recorded on `w`'s buffer.
    fn lock_global<'s>(&'s self, w: &Worker, cx: &Cx<'_>) -> Guard<'s, Global> {
        let clock = &cx.shared.clock;
        w.buf
            .record(clock.ticks(), Kind::LockWaitBegin, w.cpu, u32::MAX, 0, 0);
        let g = self.global.lock(w.cpu as usize);
        w.buf
            .record(clock.ticks(), Kind::LockWaitEnd, w.cpu, u32::MAX, 0, 0);
        g
    }
}

impl Worker {
    fn rec<'a>(&'a self, cx: &'a Cx<'_>) -> Rec<'a> {
        Rec {
            buf: &self.buf,
            clock: &cx.shared.clock,
            cpu: self.cpu,
        }
    }

    fn me(&self) -> usize {
        self.cpu as usize
    }

    fn mech_error(&mut self, msg: String) {
        self.mech_errors.0 += 1;
        self.mech_errors.1.get_or_insert(msg);
    }

    /// Step 1: a due release of job `seq` of `task` (intended at `rel`).
    fn release(&mut self, ws: &WorkStealing, p: &mut Pass<'_, '_>, task: u32, seq: u64, rel: u64) {
        let Some(prog) = ws.progress.get(task as usize) else {
            return;
        };
        let mut g = ws.lock_global(self, p.cx);
        let items = g.jobs.release(&self.rec(p.cx), prog, (task, seq), rel);
        let mut keys: Vec<Key> = items.iter().map(Item::key).collect();
        for it in items {
            g.queue.push(it);
        }
        ws.place(self.me(), &mut keys, &mut p.rings);
    }

    /// Step 2a: the item `it` this CPU ran completed (its thread `ctl` committed).
    fn completed(&mut self, ws: &WorkStealing, p: &mut Pass<'_, '_>, it: Item, ctl: &JobCtl) {
        let Some(prog) = ws.progress.get(it.id.task.0 as usize) else {
            return;
        };
        let first = ctl.first_run.load(Ordering::Relaxed);
        let executed = ctl.executed.load(Ordering::Relaxed);
        if !prog.thread_done(first, executed) {
            return; // not its region's last thread: no lock
        }
        let done = ctl.done_ticks.load(Ordering::Relaxed);
        let me = self.me();
        let mut g = ws.lock_global(self, p.cx);
        match g.jobs.join(&self.rec(p.cx), prog, it.id, done) {
            Joined::Fork(items) => {
                let n = items.len();
                if let Some(l) = ws.locals.get(me) {
                    let mut l = l.lock(me);
                    for item in items {
                        l.queue.push_bottom(item);
                    }
                }
                drop(g);
                // This CPU pops one; the others may steal the rest.
                ws.wake_idle(me, n.saturating_sub(1), &mut p.rings);
            }
            Joined::Done(items) => {
                let mut keys: Vec<Key> = items.iter().map(Item::key).collect();
                for item in items {
                    g.queue.push(item);
                }
                ws.place(me, &mut keys, &mut p.rings);
            }
        }
    }

    /// Step 2 (module doc): completion, claim, taking work. Returns whether an item was
    /// switched in.
    fn step(&mut self, ws: &WorkStealing, p: &mut Pass<'_, '_>) -> bool {
        let th = &p.cx.th;
        // (a) completion.
        if let Some((it, _)) = self.cur {
            if let Some(ctl) = ctl_of(th.ctls, it.id) {
                if ctl.state.load(Ordering::Acquire) == IDLE {
                    self.cur = None;
                    self.set_running(ws, None);
                    self.completed(ws, p, it, ctl);
                }
            }
        }
        // (b) a claim (Rule A) and Rule F.
        let me = self.me();
        let claimed = ws.locals.get(me).and_then(|l| l.lock(me).claim.take());
        let mut switched = false;
        if let (Some(_), Some((it, origin))) = (claimed, self.cur) {
            let mut g = ws.lock_global(self, p.cx);
            if g.queue.head().is_some_and(|h| queues::preempts(&h, &it.key())) {
                match self.park(p, it) {
                    Parked::Yes => {
                        match origin {
                            Origin::Local => {
                                if let Some(l) = ws.locals.get(me) {
                                    l.lock(me).queue.push_bottom(it);
                                }
                            }
                            Origin::Global => g.queue.push(it),
                        }
                        // The preempted item may go to a CPU that idles.
                        ws.wake_idle(me, 1, &mut p.rings);
                        let head = g.queue.pop();
                        self.cur = None;
                        if let Some(h) = head {
                            self.set_running(ws, Some(h.key()));
                            drop(g);
                            switched |= self.switch_in(p, h, Origin::Global);
                        }
                    }
                    Parked::Completed => {
                        drop(g);
                        if let Some(ctl) = ctl_of(th.ctls, it.id) {
                            self.cur = None;
                            self.set_running(ws, None);
                            self.completed(ws, p, it, ctl);
                        }
                    }
                }
            }
        }
        // (c) work.
        if self.cur.is_none() {
            if let Some((it, origin)) = self.take_work(ws, p) {
                switched |= self.switch_in(p, it, origin);
            }
        }
        switched
    }

    fn set_running(&self, ws: &WorkStealing, key: Option<Key>) {
        if let Some(l) = ws.locals.get(self.me()) {
            l.lock(self.me()).running = key;
        }
    }

    /// Rules C, D, E (module doc, step 2c); with nothing anywhere, marks the CPU idle and
    /// looks once more.
    fn take_work(&mut self, ws: &WorkStealing, p: &mut Pass<'_, '_>) -> Option<(Item, Origin)> {
        let me = self.me();
        // Rule C: only this CPU pushes into its own queue, so it is looked at once.
        if let Some(l) = ws.locals.get(me) {
            let mut l = l.lock(me);
            if let Some(it) = l.queue.pop_bottom() {
                l.running = Some(it.key());
                return Some((it, Origin::Local));
            }
        }
        for round in 0..2 {
            // Rule D.
            {
                let mut g = ws.lock_global(self, p.cx);
                if let Some(it) = g.queue.pop() {
                    self.set_running(ws, Some(it.key()));
                    drop(g);
                    if let Some(f) = ws.idle.get(me) {
                        f.store(false, Ordering::SeqCst);
                    }
                    return Some((it, Origin::Global));
                }
            }
            // Rule E.
            if let Some(it) = self.steal(ws, p) {
                if let Some(f) = ws.idle.get(me) {
                    f.store(false, Ordering::SeqCst);
                }
                return Some((it, Origin::Global));
            }
            if round == 0 {
                if let Some(f) = ws.idle.get(me) {
                    f.store(true, Ordering::SeqCst);
                }
            }
        }
        None
    }

    /// Rule E with Definition 2: the top of the highest-priority deque of the CPU whose top
    /// has the earliest deadline (ties: the lowest CPU); retried while the chosen top was
    /// taken meanwhile (bounded by the CPUs' queued threads).
    fn steal(&mut self, ws: &WorkStealing, p: &mut Pass<'_, '_>) -> Option<Item> {
        let me = self.me();
        for _ in 0..=ws.m * 4 {
            let tops: Vec<Option<queues::DequeKey>> = ws
                .locals
                .iter()
                .map(|l| l.lock(me).queue.top().map(Item::deque_key))
                .collect();
            let v = queues::victim(&tops, me)?;
            let taken = ws.locals.get(v).and_then(|l| l.lock(me).queue.steal_top());
            if let Some(mut it) = taken {
                it.class = queues::STOLEN;
                self.set_running(ws, Some(it.key()));
                let job = (it.id.task.0, it.id.seq, it.id.strand);
                let t = p.cx.shared.clock.ticks();
                self.buf
                    .record_strand(t, Kind::Steal, self.cpu, job, v as u64);
                return Some(it);
            }
        }
        None
    }

    /// Makes `it` runnable on this CPU (module doc): its thread handed the job or strand if
    /// new, pinned here, `RUN`.
    fn switch_in(&mut self, p: &Pass<'_, '_>, mut it: Item, origin: Origin) -> bool {
        let th = &p.cx.th;
        let cpu = self.cpu;
        let Some(ctl) = ctl_of(th.ctls, it.id) else {
            return false;
        };
        if !it.dispatched {
            ctl.hand_over(it.id.seq, it.id.strand);
            it.dispatched = true;
        }
        if ctl.pinned.load(Ordering::Relaxed) != cpu {
            let phys = th.phys.get(cpu as usize).copied().unwrap_or(0);
            match sched::set_affinity(ctl.tid.load(Ordering::Relaxed), &[phys]) {
                Ok(()) => ctl.pinned.store(cpu, Ordering::Relaxed),
                Err(e) => self.mech_error(e.to_string()),
            }
        }
        ctl.cpu.store(cpu, Ordering::Release);
        // Its switch-in is the thread's to record (`crate::job`, "Stretches").
        ctl.arm();
        let prev = ctl.state.swap(RUN, Ordering::AcqRel);
        if prev == STOP {
            ctl.state.store(prev, Ordering::Release);
            return false;
        }
        futex::wake(&ctl.state, 1);
        self.cur = Some((it, origin));
        true
    }

    /// Parks `it`, running here (Rule F's first half): `RUN → PARK` and the preemption
    /// signal; `switch-out` and `preempt` if its code ran since it was made runnable.
    fn park(&mut self, p: &Pass<'_, '_>, it: Item) -> Parked {
        let Some(ctl) = ctl_of(p.cx.th.ctls, it.id) else {
            return Parked::Yes;
        };
        match ctl
            .state
            .compare_exchange(RUN, PARK, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => {
                if let Err(e) = preempt::send(ctl.tid.load(Ordering::Relaxed)) {
                    self.mech_error(e.to_string());
                }
                if ctl.take_ran() {
                    let job = (it.id.task.0, it.id.seq, it.id.strand);
                    let (t, cpu) = (p.wake_ticks, self.cpu);
                    self.buf.record_strand(t, Kind::SwitchOut, cpu, job, 0);
                    self.buf.record_strand(t, Kind::Preempt, cpu, job, 0);
                }
                Parked::Yes
            }
            Err(IDLE) => Parked::Completed,
            Err(_) => Parked::Yes,
        }
    }

    /// The dispatcher's loop, until the run stops (module doc).
    fn run(mut self, ws: &WorkStealing, cx: &Cx<'_>) -> Worker {
        let shared = cx.shared;
        let clock = shared.clock;
        let t0 = shared.t0.load(Ordering::Acquire);
        let Some(bell) = shared.bells.get(self.cpu as usize) else {
            return self;
        };
        let mut heap: BinaryHeap<Reverse<(u64, u32, u64)>> = self
            .releases
            .iter()
            .filter_map(|&t| {
                let off = shared.timing.get(t as usize)?.offset;
                (off < shared.horizon_ns).then_some(Reverse((off, t, 0)))
            })
            .collect();
        crate::mech::clock::sleep_until(t0);
        while !shared.stop.load(Ordering::Acquire) {
            // Read before the pass: a ring during it makes the sleep below return at once.
            let last_seen = bell.seen();
            let wake_ticks = clock.ticks();
            let mut p = Pass {
                cx,
                rings: Vec::new(),
                wake_ticks,
            };
            // 1. Releases.
            let mut now = monotonic_ns().saturating_sub(t0);
            while let Some(&Reverse((rel, task, seq))) = heap.peek() {
                if rel > now {
                    break;
                }
                heap.pop();
                self.buf
                    .record(clock.ticks(), Kind::Release, self.cpu, task, seq, rel);
                self.release(ws, &mut p, task, seq, rel);
                if let Some(tm) = shared.timing.get(task as usize) {
                    let next = rel.saturating_add(tm.period);
                    if next < shared.horizon_ns {
                        heap.push(Reverse((next, task, seq + 1)));
                    }
                }
                self.buf
                    .record(clock.ticks(), Kind::ReleaseEnd, self.cpu, task, seq, 0);
                now = monotonic_ns().saturating_sub(t0);
            }
            // 2. The scheduling step.
            self.buf
                .record(clock.ticks(), Kind::SchedBegin, self.cpu, u32::MAX, 0, 0);
            let switched = self.step(ws, &mut p);
            self.buf.record(
                clock.ticks(),
                Kind::SchedEnd,
                self.cpu,
                u32::MAX,
                0,
                u64::from(switched),
            );
            // 3. Rings, sleep.
            let mut again = false;
            for target in p.rings.drain(..) {
                if target == self.cpu {
                    again = true;
                    continue;
                }
                self.buf
                    .record(clock.ticks(), Kind::IpiSend, target, u32::MAX, 0, u64::from(self.cpu));
                if let Some(b) = shared.bells.get(target as usize) {
                    b.ring();
                }
            }
            if again || shared.stop.load(Ordering::Acquire) {
                continue;
            }
            let next = heap.peek().map(|Reverse((r, _, _))| *r);
            let spun = next.map(|n| t0.saturating_add(n.saturating_sub(shared.release_spin_ns)));
            let woken = bell.sleep(last_seen, spun);
            if woken == futex::Woken::TimedOut && shared.release_spin_ns > 0 {
                if let Some(n) = next {
                    let target = t0.saturating_add(n);
                    while monotonic_ns() < target
                        && bell.seen() == last_seen
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

/// What parking found.
enum Parked {
    /// Parked (or the run stopped).
    Yes,
    /// Its thread had committed its completion.
    Completed,
}
