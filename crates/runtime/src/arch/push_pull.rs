//! `push-pull`: a user-space SCHED_DEADLINE-style global EDF ("SD" of [MP §IV], [RTWS §VI])
//! — per-CPU EDF run queues, each behind its own lock, kept globally consistent by wake-up
//! placement, *push* and *pull*, as Linux's `kernel/sched/deadline.c` and `cpudeadline.c`
//! do (read, not copied; `push_pull/rq.rs`, `push_pull/cpudl.rs`). The same mechanism at the
//! decision level, without overheads or races, is the simulator's `sd` policy
//! (`schedlab_policy::sd`, whose rules this follows); here it runs for real, traced with the
//! overhead names of the other architectures (`release`, `schedule`, `lock_wait` — the
//! run-queue locks —, `context_switch`, `ipi`, `release_latency`).
//!
//! Policies: `gedf` and `sd` name the same run: the schedule push-pull keeps is G-EDF's
//! (the `m` earliest deadlines run, up to the transients below), the way it keeps it is
//! `sd`'s. Any other policy is refused (it runs EDF by deadline only).
//!
//! # Protocol
//!
//! State and owners:
//! - **run queue of CPU c** (`rq::Rq` in a `Locked`, ticket by default, `--lock` switches
//!   it): `curr` (the earliest job: what c should run, traced `link`/`unlink`), the waiting
//!   jobs in EDF order, and `on_cpu` (the job c's dispatcher made runnable and has not
//!   parked — written by c's dispatcher alone, under the lock);
//! - **published per CPU** (atomics, written under c's lock, read by anyone without it):
//!   c's running deadline (the kernel's racy `rq->curr` read), its earliest waiting
//!   deadline (`earliest_dl.next`), its overload flag and the overload count (`dlo_mask`,
//!   `dlo_count`: c has a waiting job);
//! - **cpudl** (`cpudl::Cpudl` behind its own ticket lock): the running deadlines of busy
//!   CPUs in a max-heap and the free CPUs, updated with every queue change;
//! - **per task**: its job bookkeeping (current job's record, backlog; `Book`, behind a
//!   lock of its own) and its previous CPU (`task_cpu`, an atomic);
//! - job thread control blocks: as in [`crate::job`]; a job's thread is pinned by the
//!   dispatcher that makes it runnable.
//!
//! Lock order: run queues in increasing CPU index; then cpudl, or a task's book; never a
//! run queue while holding cpudl or a book.
//!
//! Dispatch (the dispatcher of c, SCHED_FIFO above c's jobs; a pass on a ring or a due
//! release):
//! 1. **releases** it owns (task i → CPU i mod m; `release` … `release-end`): the job is
//!    handed over (or waits in its task's backlog) and **wakes** (`select_task_rq_dl`): to
//!    its task's previous CPU p if p idles or the job's deadline is strictly earlier than
//!    p's running one; else to a CPU cpudl finds — a free one (p first), else the one
//!    running the latest deadline if the job beats it — if the job beats what runs there;
//!    else to p. A task that never ran goes where cpudl says, else to the latest deadline.
//!    Enqueued under that CPU's lock (`ready` and, if it runs, `link`, one timestamp); a
//!    CPU whose `curr` changed is rung; a job that waits makes its queue **push**;
//! 2. **scheduling step** (`sched-begin` … `sched-end`), under c's lock: (a) a completion —
//!    `on_cpu`'s thread committed `IDLE` — removes the job (`complete`, and `link` of the
//!    next waiting job or `unlink`); its record is closed and the task's next job (if
//!    released) wakes, with c as its previous CPU; then, the priority having dropped, c
//!    **pulls**; (b) c enacts `curr`: parks `on_cpu` (`RUN → PARK` + the preemption
//!    signal; `switch-out`, `preempt`) and makes `curr` runnable (pinned first); (c) if c's
//!    queue has a pushable waiting job (the one just preempted, once parked), c **pushes**;
//! 3. it rings the CPUs marked in the pass (`ipi-send`: the runtime's IPI, a doorbell
//!    futex) and sleeps until its next release or a ring.
//!
//! **Push** (`push_dl_task`, repeated while a job moves): c's earliest pushable job X (a
//! waiting job not `on_cpu`: a preempted one moves only after its CPU parked it) goes to the
//! CPU t cpudl finds if X's deadline is strictly earlier than t's running one; both queues
//! locked in CPU-index order (t < c: c's lock is dropped and retaken, and X re-checked — if
//! another job became c's first pushable, the try goes on with it); under both locks, if X
//! still beats t's `curr`, X moves and becomes t's `curr` (`link`), t is rung; else the
//! next try, at most `DL_MAX_TRIES` = 3 lookups; a job left behind is pulled later.
//!
//! **Pull** (`pull_dl_task`, on a completion): if any CPU is overloaded, for each
//! overloaded d ≠ c whose earliest waiting deadline (read without d's lock) is earlier than
//! c's running one: both locks in CPU order, and d's earliest pushable job moves to c if
//! strictly earlier than c's `curr` and than every job this pass pulled already.
//!
//! **No lost job**: a CPU that gets a waiting job sets its overload flag before it looks
//! into cpudl (under cpudl's lock); a CPU that empties updates cpudl (under the same lock)
//! before it reads the overload flags. Whichever comes second sees the other: the job is
//! pushed to the free CPU or pulled by it.
//!
//! **Preemption** of a remote CPU is ringing it: the CPU that changed t's `curr` (a wake-up,
//! a push) rings t's doorbell (`ipi-send`); t's dispatcher — on t, above its job — parks the
//! job, so an unlinked job executes no instruction after its CPU's dispatcher started
//! running, and a job is made runnable on a CPU only after the CPU it ran on parked it:
//! never on two CPUs.
//!
//! **Global invariant** [MP §II-A] (`ArchDef::global_invariant`; checked on the trace's
//! `ready`/`link`/`unlink`/`complete`): after every pass has settled, the `curr`s are the
//! `m` earliest deadlines (tested sequentially in `push_pull/tests.rs`). It is violated for
//! the documented **transients** of SD: (i) a job preempted on c (a release or a push
//! displaced it) while a later deadline runs elsewhere or a CPU idles waits until c's
//! dispatcher has parked it and pushed it (one ring and one scheduling step of c); (ii)
//! a wake-up placed with a stale cpudl or running-deadline read waits until the push that
//! follows it; (iii) a push that gave up after `DL_MAX_TRIES` leaves its job until the next
//! pull — the next completion anywhere; (iv) between a job's completion on c and c's step.
//! The kernel's SD has the same windows (its push and pull are asynchronous to the
//! decisions too).
//!
//! Counters (JSON fields of the run, the table's note): `pushes`, `push_retries` (2nd and
//! 3rd lookups), `push_failures` (gave up), `pulls`, `pull_failures` (a double lock that
//! moved nothing).
//!
//! Not modelled: CBS bandwidth enforcement and admission (none, as in [RTWS §VI]'s SD),
//! affinity masks, root domains, the tick; resources, budgets, aborts and parallel tasks
//! (refused by the skeleton for an architecture without them).
//!
//! Complexity: a release `O(m + log q)` (the free-CPU scan, the heap, the queue) plus its
//! push; a push try `O(m)`; a pull `O(m)` flag reads plus one double lock per overloaded CPU
//! that may give an earlier job.

mod cpudl;
mod rq;

use crate::arch::{Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::error::RuntimeError;
use crate::job::{ctl_of, JobCtl, IDLE, PARK, RUN, STOP};
use crate::mech::clock::monotonic_ns;
use crate::mech::lock::{LockKind, Locked};
use crate::mech::{futex, preempt, sched};
use crate::state::{RawRecord, TaskSpec, Threads};
use rq::{Core, Item, Log, Rq};
use schedlab_policy::{JobId, TaskId};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The policies it runs (module doc: the same run).
const POLICIES: [&str; 2] = ["gedf", "sd"];

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "push-pull",
    summary: "SCHED_DEADLINE-style global EDF in user space: per-CPU EDF run queues behind per-CPU locks, wake-up placement through a cpudl max-heap, push and pull with double locking (gedf, sd; --lock for the run-queue locks)",
    kernel: false,
    parallel: false,
    options: &["lock", "threading"],
    partitioned_with: None,
    rt_load: RtLoad::Global,
    global_invariant: true,
    reserves_cpu0: |_| false,
    fields: |c| vec![("lock", crate::arch::lock_field(c))],
    note: |_| String::new(),
    run: crate::run::run_with::<PushPull>,
};

/// The names of its counters, in report order (JSON fields, table note).
pub const COUNTERS: [&str; 5] = [
    "pushes",
    "push_retries",
    "push_failures",
    "pulls",
    "pull_failures",
];

/// A task's jobs: the current one's record and the released ones waiting for it.
#[derive(Debug, Default)]
struct Book {
    current: Option<RawRecord>,
    backlog: VecDeque<(u64, u64)>,
}

/// The state every dispatcher shares.
pub(crate) struct PushPull {
    core: Core,
    books: Vec<Locked<Book>>,
    spec: Arc<[TaskSpec]>,
    /// Number of dispatchers (one per CPU).
    m: usize,
}

/// A dispatcher: one per CPU.
pub(crate) struct Worker {
    cpu: u32,
    releases: Vec<u32>,
    buf: TraceBuf,
    /// Jobs whose completion it processed.
    records: Vec<RawRecord>,
    /// Failed mechanism calls: count and the first message.
    mech_errors: (u64, Option<String>),
}

impl Architecture for PushPull {
    type Worker = Worker;

    fn prepare(run: &Run<'_>, _warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        let config = run.config;
        let policy = config.policy.as_str();
        if !POLICIES.contains(&policy) {
            return Err(RuntimeError::invalid(
                "policy",
                format!(
                    "--arch push-pull runs global EDF the SCHED_DEADLINE way (per-CPU EDF queues, push and pull): --policy gedf or sd (the same run), not `{policy}`; run other policies under --arch global-lock"
                ),
            ));
        }
        if config.placement.is_some() {
            return Err(RuntimeError::invalid(
                "placement",
                "--arch push-pull schedules globally: it takes no placement of tasks on CPUs",
            ));
        }
        let (m, n) = (run.m, run.n());
        let kind = config.arch.lock().unwrap_or(LockKind::Ticket);
        // Room for the records of a usual run without allocating while it runs (bounded:
        // a run may have up to `MAX_RUN_JOBS` jobs, and any CPU may complete all of them).
        let jobs: u64 = run.jobs.iter().sum::<u64>().min(1 << 16);
        let workers = (0..m)
            .map(|cpu| Worker {
                cpu,
                releases: (0..n as u32).filter(|i| i % m == cpu).collect(),
                buf: TraceBuf::new(run.capacity.scheduler),
                records: Vec::with_capacity(usize::try_from(jobs).unwrap_or(0)),
                mech_errors: (0, None),
            })
            .collect();
        let arch = PushPull {
            core: Core::new(m, n, kind),
            books: (0..n)
                .map(|_| Locked::new(LockKind::Ticket, m as usize, Book::default()))
                .collect(),
            spec: run.spec.clone(),
            m: m as usize,
        };
        Ok(Setup {
            arch,
            workers,
            jobs: Jobs::Threads {
                pinned: vec![None; n],
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
        let s = &self.core.stats;
        h.counters = [
            &s.pushes,
            &s.push_retries,
            &s.push_failures,
            &s.pulls,
            &s.pull_failures,
        ]
        .iter()
        .zip(COUNTERS)
        .map(|(v, k)| (k, v.load(Ordering::Relaxed)))
        .collect();
        // A dispatcher left running past the grace period might hold a lock (the run
        // warned): then the records stay where they are.
        if workers.len() != self.m {
            return;
        }
        for mut w in workers {
            h.records.append(&mut w.records);
        }
        self.unfinished(th, h);
    }
}

impl PushPull {
    /// Job `seq` of `task` is released (intended at `release_ns`): its item if it is handed
    /// over now, else it waits for the task's current job.
    fn release(&self, w: &Worker, task: u32, seq: u64, release_ns: u64) -> Option<Item> {
        let mut b = self.books.get(task as usize)?.lock(w.cpu as usize);
        b.backlog.push_back((seq, release_ns));
        self.hand_over(&mut b, task)
    }

    /// The task's next released job, if its previous one ended.
    fn hand_over(&self, b: &mut Book, task: u32) -> Option<Item> {
        if b.current.is_some() {
            return None;
        }
        let (seq, release_ns) = b.backlog.pop_front()?;
        let deadline_ns = release_ns.saturating_add(self.spec.get(task as usize)?.deadline);
        b.current = Some(RawRecord {
            task,
            seq,
            release_ns,
            deadline_ns,
            ..RawRecord::default()
        });
        Some(Item {
            id: JobId::new(TaskId(task), seq),
            deadline: deadline_ns,
            release: release_ns,
            dispatched: false,
        })
    }

    /// Job `j` completed (its thread `ctl` committed): its record closed into `w`'s, and
    /// the task's next job if it was released.
    fn complete(&self, w: &mut Worker, j: JobId, ctl: &JobCtl) -> Option<Item> {
        let mut b = self.books.get(j.task.0 as usize)?.lock(w.cpu as usize);
        if let Some(mut r) = b.current.take_if(|r| r.seq == j.seq) {
            r.completion_ticks = Some(ctl.done_ticks.load(Ordering::Relaxed));
            r.start_ticks = Some(ctl.first_run.load(Ordering::Relaxed));
            r.executed_ns = ctl.executed.load(Ordering::Relaxed);
            w.records.push(r);
        }
        self.hand_over(&mut b, j.task.0)
    }

    /// At the end of the run: the unfinished jobs, current (with the CPU time their threads
    /// reported if they were handed over) and waiting.
    fn unfinished(&self, th: &Threads<'_>, h: &mut Harvest) {
        let mut dispatched = vec![false; self.books.len()];
        for q in self.core.queues() {
            for it in q.lock(0).jobs() {
                if let Some(d) = dispatched.get_mut(it.id.task.0 as usize) {
                    *d |= it.dispatched;
                }
            }
        }
        for (i, book) in self.books.iter().enumerate() {
            let mut b = book.lock(0);
            if let Some(mut r) = b.current.take() {
                let ctl = th.ctls.get(i);
                if let (true, Some(ctl)) = (dispatched.get(i) == Some(&true), ctl) {
                    let fr = ctl.first_run.load(Ordering::Relaxed);
                    if fr != 0 {
                        r.start_ticks = Some(fr);
                        r.executed_ns = ctl.executed.load(Ordering::Relaxed);
                    }
                }
                h.records.push(r);
            }
            let deadline = self.spec.get(i).map_or(0, |s| s.deadline);
            for (seq, release_ns) in b.backlog.drain(..) {
                h.records.push(RawRecord {
                    task: i as u32,
                    seq,
                    release_ns,
                    deadline_ns: release_ns.saturating_add(deadline),
                    ..RawRecord::default()
                });
            }
        }
    }
}

/// What enacting a CPU's `curr` found.
#[derive(Default)]
struct Enacted {
    /// A job was made runnable.
    switched: bool,
    /// The job made runnable before had completed (removed from the queue; its record and
    /// the task's next job are the caller's).
    completed: Option<JobId>,
    /// The queue has a pushable waiting job.
    pushable: bool,
}

impl Worker {
    fn mech_error(&mut self, msg: String) {
        self.mech_errors.0 += 1;
        self.mech_errors.1.get_or_insert(msg);
    }

    /// Under c's lock: removes `on_cpu` if its thread committed its completion (`complete`
    /// staged with the thread's end time).
    fn take_completion(g: &mut Rq, th: &Threads<'_>, log: &mut Log<'_>) -> Option<JobId> {
        let j = g.on_cpu?;
        let ctl = ctl_of(th.ctls, j)?;
        if ctl.state.load(Ordering::Acquire) != IDLE {
            return None;
        }
        log.stage(Kind::Complete, log.me, j, ctl.done_ticks.load(Ordering::Relaxed));
        g.remove(j, log);
        Some(j)
    }

    /// Step 2 (a) and (b) under c's lock: a completion, else `curr` enacted.
    fn enact(&mut self, pp: &PushPull, cx: &Cx<'_>, wake_ticks: u64) -> Enacted {
        let th = &cx.th;
        let (cpu, clock) = (self.cpu, &cx.shared.clock);
        let mut out = Enacted::default();
        let mut errors: Vec<String> = Vec::new();
        {
            let mut log = Log::new(&self.buf, clock, cpu);
            let Some(mut g) = pp.core.lock(&log, cpu) else {
                return out;
            };
            out.completed = Worker::take_completion(&mut g, th, &mut log);
            let want = g.curr.map(|i| i.id);
            if out.completed.is_none() && g.on_cpu != want {
                if let Some(a) = g.on_cpu {
                    match park(th, a, &mut errors) {
                        Parked::Yes => {
                            g.on_cpu = None;
                            if ctl_of(th.ctls, a).is_some_and(|c| c.take_ran()) {
                                let job = (a.task.0, a.seq, 0);
                                self.buf.record_strand(wake_ticks, Kind::SwitchOut, cpu, job, 0);
                                self.buf.record_strand(wake_ticks, Kind::Preempt, cpu, job, 0);
                            }
                        }
                        Parked::Completed => {
                            log.stage(Kind::Complete, cpu, a, done_ticks(th, a));
                            g.remove(a, &mut log);
                            out.completed = Some(a);
                        }
                    }
                }
                if out.completed.is_none() {
                    if let Some(b) = g.curr {
                        out.switched = switch_in(th, &mut g, b, cpu, &mut errors);
                    }
                }
            }
            out.pushable = g.has_pushable();
            pp.core.publish(&g, cpu);
            log.flush();
        }
        for e in errors {
            self.mech_error(e);
        }
        out
    }

    /// Step 2 (`sched-begin` … `sched-end`): completions (each followed by the next job's
    /// wake-up and a pull), the enactment, and a push of what waits here.
    fn step(&mut self, pp: &PushPull, cx: &Cx<'_>, wake_ticks: u64, rings: &mut Vec<u32>) {
        let clock = &cx.shared.clock;
        self.buf
            .record(clock.ticks(), Kind::SchedBegin, self.cpu, u32::MAX, 0, 0);
        let mut switched = false;
        // A completion, a pull or a wake-up onto this CPU asks for another enactment; each
        // completes a job or moves one strictly earlier here: bounded, capped anyway.
        for _ in 0..64 {
            let e = self.enact(pp, cx, wake_ticks);
            switched |= e.switched;
            let mut again = false;
            if let Some(j) = e.completed {
                let next = ctl_of(cx.th.ctls, j).and_then(|ctl| pp.complete(self, j, ctl));
                let mut log = Log::new(&self.buf, clock, self.cpu);
                if let Some(it) = next {
                    pp.core.wake(&mut log, it, rings);
                }
                // The priority dropped: pull (then enact again in any case: `curr` changed).
                pp.core.pull(&mut log, self.cpu);
                again = true;
            } else if e.pushable {
                let mut log = Log::new(&self.buf, clock, self.cpu);
                pp.core.push(&mut log, self.cpu, rings);
            }
            if let Some(k) = rings.iter().position(|&c| c == self.cpu) {
                rings.swap_remove(k);
                again = true;
            }
            if !again {
                break;
            }
        }
        self.buf.record(
            clock.ticks(),
            Kind::SchedEnd,
            self.cpu,
            u32::MAX,
            0,
            u64::from(switched),
        );
    }

    /// The dispatcher's loop, until the run stops (module doc).
    fn run(mut self, pp: &PushPull, cx: &Cx<'_>) -> Worker {
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
        // The doorbell's value before time zero: a ring before this thread woke is seen.
        let mut last_seen = bell.seen();
        let mut need = false;
        let mut rings: Vec<u32> = Vec::with_capacity(self.releases.len() + pp.m);
        crate::mech::clock::sleep_until(t0);
        while !shared.stop.load(Ordering::Acquire) {
            let seen = bell.seen();
            if seen != last_seen {
                need = true;
                last_seen = seen;
            }
            let wake_ticks = clock.ticks();
            // 1. Releases.
            let mut now = monotonic_ns().saturating_sub(t0);
            while let Some(&Reverse((rel, task, seq))) = heap.peek() {
                if rel > now {
                    break;
                }
                heap.pop();
                self.buf
                    .record(clock.ticks(), Kind::Release, self.cpu, task, seq, rel);
                if let Some(it) = pp.release(&self, task, seq, rel) {
                    let mut log = Log::new(&self.buf, &clock, self.cpu);
                    pp.core.wake(&mut log, it, &mut rings);
                }
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
            if let Some(k) = rings.iter().position(|&c| c == self.cpu) {
                rings.swap_remove(k);
                need = true;
            }
            // 2. The scheduling step.
            if need {
                need = false;
                self.step(pp, cx, wake_ticks, &mut rings);
            }
            // 3. Rings (the runtime's IPI), sleep.
            rings.sort_unstable();
            rings.dedup();
            for target in rings.drain(..) {
                if target == self.cpu {
                    need = true;
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
                if let Some(b) = shared.bells.get(target as usize) {
                    b.ring();
                }
            }
            if need || shared.stop.load(Ordering::Acquire) {
                continue;
            }
            self.sleep(cx, bell, last_seen, heap.peek().map(|Reverse((r, _, _))| *r));
        }
        self
    }

    /// Sleeps until `next` (a release; spinning its last `release_spin`) or a ring.
    fn sleep(&self, cx: &Cx<'_>, bell: &crate::dispatch::Doorbell, last_seen: u32, next: Option<u64>) {
        let shared = cx.shared;
        let t0 = shared.t0.load(Ordering::Acquire);
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
}

/// What parking found.
enum Parked {
    /// Parked (or the run stopped).
    Yes,
    /// Its thread had committed its completion.
    Completed,
}

/// Parks `a`, made runnable on the calling dispatcher's CPU: `RUN → PARK` and the
/// preemption signal.
fn park(th: &Threads<'_>, a: JobId, errors: &mut Vec<String>) -> Parked {
    let Some(ctl) = ctl_of(th.ctls, a) else {
        return Parked::Yes;
    };
    match ctl
        .state
        .compare_exchange(RUN, PARK, Ordering::AcqRel, Ordering::Acquire)
    {
        Ok(_) => {
            if let Err(e) = preempt::send(ctl.tid.load(Ordering::Relaxed)) {
                errors.push(e.to_string());
            }
            Parked::Yes
        }
        Err(IDLE) => Parked::Completed,
        Err(_) => Parked::Yes,
    }
}

/// The completion time `a`'s thread measured.
fn done_ticks(th: &Threads<'_>, a: JobId) -> u64 {
    ctl_of(th.ctls, a).map_or(0, |c| c.done_ticks.load(Ordering::Relaxed))
}

/// Makes `b` (c's `curr`) runnable on logical CPU `cpu`: its thread handed the job if new,
/// pinned there, `RUN`; `on_cpu` set. Whether it was (not when the run stops).
fn switch_in(th: &Threads<'_>, g: &mut Rq, b: Item, cpu: u32, errors: &mut Vec<String>) -> bool {
    let Some(ctl) = ctl_of(th.ctls, b.id) else {
        return false;
    };
    if !b.dispatched {
        ctl.hand_over(b.id.seq, 0);
        g.set_dispatched();
    }
    if ctl.pinned.load(Ordering::Relaxed) != cpu {
        let phys = th.phys.get(cpu as usize).copied().unwrap_or(0);
        match sched::set_affinity(ctl.tid.load(Ordering::Relaxed), &[phys]) {
            Ok(()) => ctl.pinned.store(cpu, Ordering::Relaxed),
            Err(e) => errors.push(e.to_string()),
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
    g.on_cpu = Some(b.id);
    true
}
