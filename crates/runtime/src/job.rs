//! Job threads [ChronOS §3.3]. Thread-per-task (the default): one thread per task runs the
//! jobs of its task one after the other, each only while a dispatcher has made it runnable
//! on the CPU the job is linked to. Thread-per-job (`RunConfig::threading`): see below.
//!
//! # The control word
//! Each thread has a [`JobCtl`] shared with the dispatchers; its `state` word is the
//! thread's part of link-based scheduling ([MP §III-B]: the dispatcher's `scheduled`):
//! - `IDLE`: no job; the thread waits on the futex;
//! - `RUN`: execute job `seq` on logical CPU `cpu` (the dispatcher pinned the thread there);
//! - `PARK`: unlinked while unfinished: the dispatcher sent the preemption signal and the
//!   handler ([`Executor::on_signal`]) waits on the futex until `RUN` again;
//! - `STOP`: the run is over;
//! - `LOCK`: the job asked its CPU's dispatcher to lock or unlock a resource and waits for
//!   the answer (`crate::locks`): `LOCK → RUN` (done) or `LOCK → PARK` (blocked, made `RUN`
//!   again when granted and linked) by the dispatcher — under `message-passing` by the DSP,
//!   while the thread holds its client's step lock (`crate::mp::lock`).
//!
//! Transitions: a dispatcher (under `message-passing`: the client that owns the job) moves
//! `IDLE → RUN` (new job), `RUN → PARK` (preemption, by compare-and-swap) and `PARK → RUN`
//! (resume, possibly on another CPU); the thread itself
//! moves `RUN → IDLE` when its job completes — that store is the completion's commit point,
//! which the dispatcher of its CPU sees as `IDLE` on its next pass. Because a dispatcher runs
//! on the job's CPU at a higher priority, the thread never executes while its dispatcher
//! inspects or changes its state, so these transitions never race in practice; the
//! compare-and-swap keeps them safe anyway.
//!
//! # Thread-per-job
//! Each task keeps one control block (the dispatchers' view does not change), but its jobs
//! alternate over a pool of [`POOL_THREADS`] threads created before the run: the dispatcher
//! that hands a task its next job ([`JobCtl::hand_over`], while the task has no job on any
//! CPU: its previous job's completion was processed) makes the next thread of the pool the
//! block's executor — its `tid` (the target of pinning, preemption signals and budget
//! timers) and its pinning — and wakes it through the pool's `turn` word (a futex counting
//! hand-overs; hand-over `h ≥ 1` belongs to thread `(h − 1) mod POOL_THREADS`). A thread
//! that committed its job waits on `turn` for its next hand-over and never on the control
//! word, so a dispatcher's wake-up of the control word always reaches the executor. Two
//! threads suffice: a task's jobs are sequential, so when job `k + 1` is handed over the
//! thread of job `k − 1` has long committed it. Per job this costs a futex wake of the
//! incoming thread and, when it was last pinned elsewhere, an affinity change. What is per
//! thread rather than per block — whether the thread is inside a job, for its signal
//! handler — lives in its [`Executor`].
//!
//! Events recorded by the thread itself (its own [`TraceBuf`]): `switch-in` when its code
//! starts or resumes (and `migrate` when on another CPU than last time), `switch-out` when a
//! job ends. The dispatcher records `switch-out`/`preempt` when it parks the thread.
//!
//! # Stretches: exactly one switch-in and one switch-out each
//! Whether an execution stretch is open is a word of its own, [`JobCtl`]'s `stretch`, moved
//! only by atomic read-modify-writes, so that the thread and a dispatcher never both (or
//! neither) record an edge: a dispatcher *arms* it (`NONE → ARMED`) before it makes the
//! thread runnable; the thread *claims* the switch-in (`ARMED → OPEN`, then records it) —
//! in [`job_loop`] for a new job, in its preemption handler or after a lock operation for a
//! resumed one; whoever ends the stretch takes the word (`→ NONE`) and records the
//! switch-out only if it was `OPEN`: the dispatcher that parks the thread, or the thread
//! when its job completes. A dispatcher that parks a thread before its claim takes `ARMED`
//! and records nothing; the late claim then fails, and the thread records its switch-in
//! when it is made runnable again. (A boolean set by the thread after it saw `RUN` raced
//! with that park: a thread preempted between seeing `RUN` and setting it recorded a
//! switch-in after its park with no switch-out — its preemption signal is blocked while
//! its handler runs — and its next stretch none, since the flag was still set; a stale
//! signal in a new job's first instructions recorded two switch-ins; a park between the
//! job's own switch-out and its commit left a switch-in without end.)

use crate::arch::{Architecture, Run};
use crate::config::{run_custom, Body, JobCtx, PRIO_JOB};
use crate::mech::burn::{burn, WorkingSet};
use crate::mech::clock::{thread_cputime_ns, TickClock};
use crate::mech::futex;
use crate::mech::preempt::{self, OnPreempt};
use crate::mech::sched;
use crate::run::RunThreads;
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Kind;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// No job.
pub const IDLE: u32 = 0;
/// Execute the current job.
pub const RUN: u32 = 1;
/// Unlinked while unfinished: wait.
pub const PARK: u32 = 2;
/// The run is over.
pub const STOP: u32 = 3;
/// A lock operation waits for the dispatcher of its CPU (`crate::locks`).
pub const LOCK: u32 = 4;

/// "No CPU" in the CPU fields.
pub const NONE: u32 = u32::MAX;

/// No execution stretch: nothing to switch in or out (module doc, "Stretches").
const STRETCH_NONE: u32 = 0;
/// Made runnable: the thread records a switch-in when it claims the stretch.
const STRETCH_ARMED: u32 = 1;
/// Switched in: whoever ends the stretch records the switch-out.
const STRETCH_OPEN: u32 = 2;
/// The bits of the stretch word that hold the above; the rest is the CPU (logical, < 2^30).
const STRETCH_KIND: u32 = 3;
/// Where the CPU starts in the stretch word.
const STRETCH_CPU_SHIFT: u32 = 2;

/// What a job thread shares with the dispatchers.
#[derive(Debug)]
pub struct JobCtl {
    /// Task index.
    pub task: u32,
    /// `IDLE`, `RUN`, `PARK` or `STOP` (see the module doc).
    pub state: AtomicU32,
    /// Sequence number of the job to run (written before `IDLE → RUN`).
    pub seq: AtomicU64,
    /// Logical CPU the job is linked to (written before `→ RUN`).
    pub cpu: AtomicU32,
    /// Kernel thread id (0 until the thread started).
    pub tid: AtomicI32,
    /// Logical CPU the thread is pinned to (dispatchers only; `NONE` at first).
    pub pinned: AtomicU32,
    /// Logical CPU its code last ran on (the executing thread only).
    last_cpu: AtomicU32,
    /// The execution stretch: `STRETCH_NONE`, `STRETCH_ARMED` (made runnable, switch-in
    /// not recorded yet) or `STRETCH_OPEN` (switch-in recorded, switch-out not yet); module
    /// doc, "Stretches".
    stretch: AtomicU32,
    /// Ticks when the current job first ran.
    pub first_run: AtomicU64,
    /// Ticks when the last job completed.
    pub done_ticks: AtomicU64,
    /// CPU time the last job consumed (ns; also written when the run stops mid-job).
    pub executed: AtomicU64,
    /// The thread's trace buffer.
    pub buf: TraceBuf,
    /// Switch-ins observed on another physical CPU than the assigned one (should be 0: the
    /// dispatcher pins the thread before making it runnable).
    pub misplaced: AtomicU64,
    /// Physical CPU of each logical CPU (for the check above).
    phys: Vec<u32>,
    clock: TickClock,
    /// The run's abort flags (`crate::state`'s aborts): this task's names the job to abort.
    pub(crate) aborts: crate::state::AbortWords,
    /// The pending lock operation (`crate::locks`): resource id, top bit for an unlock.
    pub(crate) lock_op: AtomicU64,
    /// The dispatcher's answer to it (`crate::locks::GRANTED`, …).
    pub(crate) lock_reply: AtomicU32,
    /// Thread-per-job: the pool the task's jobs alternate over (`None`: thread-per-task).
    pool: Option<Pool>,
    /// Its slot: the thread index within a region of a parallel task whose threads it runs
    /// (`crate::state`'s strands; 0 for a sequential task's block).
    pub slot: u32,
    /// The strand of the current job it runs (written with `seq`, [`JobCtl::hand_over`]).
    pub strand: AtomicU32,
    /// A parallel task's first block (slot 0, at the task's index): the task's structure and
    /// the index of its slot 1 in the run's control blocks ([`ctl_of`]).
    pub(crate) par: Option<(Arc<crate::state::ParSpec>, usize)>,
}

/// The control block that runs strand `j.strand` of job `j` among a run's blocks `ctls`: task
/// i's first block is `ctls[i]`; a parallel task's slot `k ≥ 1` is `ctls[first + k − 1]`
/// where its first block says `first` (the extra slots follow the tasks' blocks).
pub fn ctl_of(ctls: &[Arc<JobCtl>], j: schedlab_policy::JobId) -> Option<&Arc<JobCtl>> {
    let head = ctls.get(j.task.0 as usize)?;
    match &head.par {
        None => (j.strand == 0).then_some(head),
        Some((spec, first)) => match spec.locate(j.strand)? {
            (_, 0) => Some(head),
            (_, k) => ctls.get(first + k as usize - 1),
        },
    }
}

/// Threads of a thread-per-job pool per task (a power of two, so the alternation survives
/// the wrap of the hand-over counter; two suffice, module doc).
pub const POOL_THREADS: u32 = 2;

/// A task's thread-per-job pool (module doc, "Thread-per-job").
#[derive(Debug)]
struct Pool {
    /// Hand-overs so far (a futex word; also changed by [`JobCtl::stop`]).
    turn: AtomicU32,
    /// Each thread's kernel id (0 until it started).
    tids: Vec<AtomicI32>,
    /// Each thread's pinning while it is not the executor (`NONE`: free over the job CPUs).
    pinned: Vec<AtomicU32>,
}

impl Pool {
    /// The pool thread of hand-over `h` (`h ≥ 1`).
    fn index(h: u32) -> usize {
        (h.wrapping_sub(1) % POOL_THREADS) as usize
    }
}

impl JobCtl {
    /// The control block of task `task`'s thread, with a trace buffer of `capacity` events;
    /// `phys` maps the run's logical CPUs to physical ones.
    pub fn new(task: u32, capacity: usize, clock: TickClock, phys: &[u32]) -> JobCtl {
        JobCtl {
            task,
            state: AtomicU32::new(IDLE),
            seq: AtomicU64::new(0),
            cpu: AtomicU32::new(NONE),
            tid: AtomicI32::new(0),
            pinned: AtomicU32::new(NONE),
            last_cpu: AtomicU32::new(NONE),
            stretch: AtomicU32::new(STRETCH_NONE),
            first_run: AtomicU64::new(0),
            done_ticks: AtomicU64::new(0),
            executed: AtomicU64::new(0),
            buf: TraceBuf::new(capacity),
            misplaced: AtomicU64::new(0),
            phys: phys.to_vec(),
            clock,
            aborts: crate::state::abort_words(0),
            lock_op: AtomicU64::new(0),
            lock_reply: AtomicU32::new(0),
            pool: None,
            slot: 0,
            strand: AtomicU32::new(0),
            par: None,
        }
    }

    /// Makes the block's jobs alternate over a pool of [`POOL_THREADS`] threads
    /// (thread-per-job), each first pinned like the block.
    pub(crate) fn with_pool(mut self) -> JobCtl {
        let pinned = self.pinned.load(Ordering::Relaxed);
        self.pool = Some(Pool {
            turn: AtomicU32::new(0),
            tids: (0..POOL_THREADS).map(|_| AtomicI32::new(0)).collect(),
            pinned: (0..POOL_THREADS).map(|_| AtomicU32::new(pinned)).collect(),
        });
        self
    }

    /// Threads that execute this block's jobs (1, or [`POOL_THREADS`]).
    pub fn threads(&self) -> u32 {
        if self.pool.is_some() {
            POOL_THREADS
        } else {
            1
        }
    }

    /// Gives the task its next job, `seq` (thread `strand` of it for a parallel task; the caller is the dispatcher that makes it
    /// runnable next; the task has no job on any CPU): its number, first run cleared, and,
    /// thread-per-job, the next thread of the pool as its executor (module doc). Must come
    /// before the executor is pinned, signalled or timed.
    pub(crate) fn hand_over(&self, seq: u64, strand: u32) {
        self.seq.store(seq, Ordering::Relaxed);
        self.strand.store(strand, Ordering::Relaxed);
        self.first_run.store(0, Ordering::Relaxed);
        let Some(pool) = &self.pool else { return };
        let outgoing = pool.turn.load(Ordering::Relaxed);
        let incoming = outgoing.wrapping_add(1);
        let (out, inc) = (Pool::index(outgoing), Pool::index(incoming));
        if outgoing != 0 {
            if let Some(p) = pool.pinned.get(out) {
                p.store(self.pinned.load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
        if let (Some(p), Some(t)) = (pool.pinned.get(inc), pool.tids.get(inc)) {
            self.pinned
                .store(p.load(Ordering::Relaxed), Ordering::Relaxed);
            self.tid.store(t.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        pool.turn.store(incoming, Ordering::Release);
        futex::wake(&pool.turn, u32::MAX);
    }

    /// Thread-per-job: waits until hand-over `h` (this thread's next) happened; false when
    /// the run stops first. Thread-per-task: true at once.
    fn await_turn(&self, h: u32) -> bool {
        let Some(pool) = &self.pool else { return true };
        loop {
            if self.stopping() {
                return false;
            }
            let t = pool.turn.load(Ordering::Acquire);
            if t == h {
                return true;
            }
            futex::wait(&pool.turn, t, None);
        }
    }

    /// Waits while the state is `from` (a lock operation's wait, `crate::locks`).
    pub(crate) fn wait_until_not(&self, from: u32) -> u32 {
        self.wait_while(from)
    }

    /// The thread continues job `seq` after it blocked on a resource: a switch-in, unless
    /// its preemption handler recorded it already (the claim fails then).
    pub(crate) fn resumed(&self, seq: u64) {
        self.switched_in(seq);
    }

    /// Whether the policy aborted job `seq` of this thread's task (its abort flag).
    pub fn abort_requested(&self, seq: u64) -> bool {
        self.aborts
            .get(self.task as usize)
            .is_some_and(|w| w.load(Ordering::Acquire) == seq.wrapping_add(1))
    }

    /// Arms the next execution stretch (a dispatcher, before it makes the thread runnable:
    /// module doc, "Stretches"). A stretch still open stays open (it has its switch-in).
    /// The word carries the CPU it is armed for: the switch-in is recorded on that CPU,
    /// the one whose dispatcher closes the stretch.
    pub(crate) fn arm(&self) {
        let cpu = self.cpu.load(Ordering::Relaxed);
        let _ = self.stretch.compare_exchange(
            STRETCH_NONE,
            STRETCH_ARMED | (cpu << STRETCH_CPU_SHIFT),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// Ends the stretch (the dispatcher parking the job, after its `RUN → PARK`): whether
    /// it was open, i.e. the switch-out is the caller's to record. A job parked before its
    /// thread claimed the switch-in has nothing to close, and its thread's late claim fails.
    pub fn take_ran(&self) -> bool {
        self.stretch.swap(STRETCH_NONE, Ordering::AcqRel) & STRETCH_KIND == STRETCH_OPEN
    }

    /// Claims the armed stretch and records that the thread's code (re)starts on its
    /// assigned CPU (`switch-in`, `migrate` if on another CPU than last time; the job's first
    /// run if it is its first); `None` (nothing recorded) if no stretch is armed: one was
    /// claimed since the thread was made runnable, or it was parked before this claim.
    /// The time is read before the claim, so it precedes the switch-out of whoever ends the
    /// stretch.
    fn switched_in(&self, seq: u64) -> Option<u64> {
        let t = self.clock.ticks();
        let armed = self.stretch.load(Ordering::Acquire);
        if armed & STRETCH_KIND != STRETCH_ARMED {
            return None;
        }
        let open = (armed & !STRETCH_KIND) | STRETCH_OPEN;
        self.stretch
            .compare_exchange(armed, open, Ordering::AcqRel, Ordering::Acquire)
            .ok()?;
        if self.first_run.load(Ordering::Relaxed) == 0 {
            self.first_run.store(t, Ordering::Relaxed);
        }
        let cpu = armed >> STRETCH_CPU_SHIFT;
        let last = self.last_cpu.swap(cpu, Ordering::Relaxed);
        let expected = self.phys.get(cpu as usize).copied();
        if expected.is_some() && crate::mech::sched::current_cpu() != expected {
            self.misplaced.fetch_add(1, Ordering::Relaxed);
        }
        let job = (self.task, seq, self.strand.load(Ordering::Relaxed));
        self.buf.record_strand(t, Kind::SwitchIn, cpu, job, 0);
        if last != NONE && last != cpu {
            self.buf
                .record_strand(t, Kind::Migrate, cpu, job, u64::from(last));
        }
        Some(t)
    }

    /// Ends the stretch of the thread's completing job (the thread itself, after it left
    /// the job: its preemption handler claims no more): records the `switch-out` at `end`
    /// if the stretch was open — not if the dispatcher parked the job meanwhile and recorded
    /// it.
    fn switched_out(&self, end: u64, seq: u64, strand: u32) {
        let was = self.stretch.swap(STRETCH_NONE, Ordering::AcqRel);
        if was & STRETCH_KIND == STRETCH_OPEN {
            let cpu = was >> STRETCH_CPU_SHIFT;
            self.buf
                .record_strand(end, Kind::SwitchOut, cpu, (self.task, seq, strand), 0);
        }
    }

    /// Waits while the state is `from` (a futex wait per wake-up).
    fn wait_while(&self, from: u32) -> u32 {
        loop {
            let s = self.state.load(Ordering::Acquire);
            if s != from {
                return s;
            }
            futex::wait(&self.state, from, None);
        }
    }

    /// Tells the thread (wherever it is) that the run is over.
    pub fn stop(&self) {
        self.state.store(STOP, Ordering::Release);
        futex::wake(&self.state, u32::MAX);
        if let Some(pool) = &self.pool {
            // A new value, so that a pool thread about to wait on `turn` does not sleep
            // through this wake-up (it then sees `STOP`).
            pool.turn.fetch_add(1 << 31, Ordering::AcqRel);
            futex::wake(&pool.turn, u32::MAX);
        }
    }

    /// Whether the run is over.
    pub fn stopping(&self) -> bool {
        self.state.load(Ordering::Relaxed) == STOP
    }
}

/// One thread executing a control block's jobs: the block and what belongs to the thread
/// (its place in the pool, whether it is inside a job). Its signal handler's object.
#[derive(Debug)]
pub struct Executor {
    /// The task's control block.
    pub ctl: Arc<JobCtl>,
    /// Its index in the pool (0 under thread-per-task).
    index: u32,
    /// Inside a job (tells the signal handler whether resuming is a switch-in).
    in_job: AtomicBool,
}

impl Executor {
    /// Thread `index` of `ctl`'s pool (0: the only thread under thread-per-task).
    pub fn new(ctl: Arc<JobCtl>, index: u32) -> Executor {
        Executor {
            ctl,
            index,
            in_job: AtomicBool::new(false),
        }
    }

    /// Records its kernel thread id where the dispatchers look for it: the block's `tid`
    /// (thread-per-task) or its pool entry (thread-per-job, the block's when handed over).
    pub fn register_tid(&self, tid: i32) {
        match &self.ctl.pool {
            Some(pool) => {
                if let Some(t) = pool.tids.get(self.index as usize) {
                    t.store(tid, Ordering::Relaxed);
                }
            }
            None => self.ctl.tid.store(tid, Ordering::Relaxed),
        }
    }
}

impl OnPreempt for Executor {
    /// The preemption signal arrived: if parked, wait until linked again; if resumed inside a
    /// job, record the switch-in. Atomics, futex and the TSC only (async-signal-safe).
    ///
    /// The state may already be `RUN` again: when the thread could not run between its park
    /// and its relink (a higher-priority thread, e.g. another program's real-time thread,
    /// held its CPU), a dispatcher — possibly of another CPU, which re-pinned it — made it
    /// runnable before the signal was delivered. The dispatcher that parked it recorded a
    /// `switch-out`, so resuming is a switch-in (on the CPU it was re-pinned to); without it
    /// the trace showed the job's later `switch-out` there with no start, i.e. an interval
    /// from the trace's start overlapping the job's earlier ones on the other CPU. A signal
    /// that finds the stretch claimed already, or parked again (its own signal follows: this
    /// one is blocked while the handler runs), is stale: the claim fails (module doc,
    /// "Stretches").
    fn on_signal(&self) {
        let ctl = &self.ctl;
        let s = match ctl.state.load(Ordering::Acquire) {
            PARK => ctl.wait_while(PARK),
            s => s,
        };
        if s == RUN && self.in_job.load(Ordering::Relaxed) {
            // Fails (records nothing) when stale: the stretch is claimed already, or parked
            // again meanwhile (that park's signal is pending: this handler runs again).
            let _ = ctl.switched_in(ctl.seq.load(Ordering::Relaxed));
        }
    }
}

/// A lock operation of a job thread (see [`JobEnv::lock`]).
pub type LockFn<'f> = dyn Fn(&JobCtl, u32, bool) -> crate::locks::Reply + Sync + 'f;

/// What the job thread needs besides its control block.
pub struct JobEnv<'a> {
    /// The job body.
    pub body: &'a Body,
    /// Execution time of each job (ns of CPU time).
    pub wcet_ns: u64,
    /// Working-set size in bytes.
    pub wss: Option<u64>,
    /// CPU time of the abort handler (ns; the task's `abort_cost`).
    pub abort_cost_ns: u64,
    /// Called after the thread committed a completion on a logical CPU: the architecture
    /// handles it in this thread (`crate::arch::Architecture::complete_inline`) or the
    /// CPU's doorbell is rung.
    pub completed: &'a (dyn Fn(&JobCtl, u32) + Sync),
    /// Performs a lock operation of the thread of a control block: resource, unlock
    /// (`crate::locks`; the architecture's `crate::arch::Architecture::lock`); `None`: the
    /// architecture manages no resources.
    pub lock: Option<&'a LockFn<'a>>,
    /// The lock and unlock points of the built-in body (`crate::locks::milestones`).
    pub milestones: &'a [crate::locks::Milestone],
    /// The run's resource names, by id.
    pub names: &'a [String],
    /// A parallel task's structure: each strand burns its own thread's time, and a custom
    /// body learns its region and thread (`crate::state`'s strands).
    pub par: Option<&'a crate::state::ParSpec>,
}

/// The control blocks of a run's job threads: task i's first block at index i (its buffer
/// sized by the run's trace capacity, pinned to logical CPU `pinned[i]` if given), then the
/// further slots of the parallel tasks, task by task ([`ctl_of`]).
pub(crate) fn control_blocks(
    run: &Run<'_>,
    pinned: &[Option<u32>],
    clock: TickClock,
) -> Vec<Arc<JobCtl>> {
    let block = |i: usize, slot: u32| {
        let cap = run.capacity.task.get(i).copied().unwrap_or(1024);
        let mut ctl = JobCtl::new(i as u32, cap, clock, &run.config.cpus);
        ctl.slot = slot;
        ctl.aborts = run.abort_words.clone();
        if let Some(c) = pinned.get(i).copied().flatten() {
            ctl.pinned.store(c, Ordering::Relaxed);
        }
        if run.config.threading == crate::config::Threading::PerJob {
            ctl = ctl.with_pool();
        }
        ctl
    };
    let mut heads: Vec<JobCtl> = (0..run.n()).map(|i| block(i, 0)).collect();
    let mut extra = Vec::new();
    for (i, head) in heads.iter_mut().enumerate() {
        let Some(spec) = run.par.get(i).cloned().flatten() else {
            continue;
        };
        head.par = Some((spec.clone(), run.n() + extra.len()));
        extra.extend((1..spec.width()).map(|k| block(i, k)));
    }
    heads.into_iter().chain(extra).map(Arc::new).collect()
}

/// Starts the job threads, one per task or [`POOL_THREADS`] per task under thread-per-job
/// (SCHED_FIFO [`PRIO_JOB`], pinned to its CPU or free over the job CPUs, the preemption
/// signal registered): each reports ready and runs [`job_loop`] until its control block says
/// `STOP`; a failing job body ends the run ([`crate::run::Shared::fail`]). A thread that
/// cannot be spawned is a setup error.
pub(crate) fn start<A: Architecture>(
    arch: &Arc<A>,
    run: &Run<'_>,
    pinned: &[Option<u32>],
    threads: &RunThreads,
) -> Vec<JoinHandle<()>> {
    let mut handles = Vec::with_capacity(threads.ctls.len());
    let executors = threads.ctls.iter().flat_map(|ctl| {
        let i = ctl.task as usize;
        let t = run.tasks.get(i);
        (0..ctl.threads()).filter_map(move |k| Some((i, t?, k, ctl.clone())))
    });
    for (i, t, k, ctl) in executors {
        let phys = &threads.phys;
        let affinity: Vec<u32> = match pinned.get(i).copied().flatten() {
            Some(c) => vec![phys.get(c as usize).copied().unwrap_or(0)],
            None => run
                .config
                .job_cpus()
                .filter_map(|c| phys.get(c as usize).copied())
                .collect(),
        };
        let arch = arch.clone();
        let body = t.body.clone();
        let (wcet_ns, wss, abort_cost_ns) = (t.wcet.as_ns(), t.wss, t.abort_cost.as_ns());
        let milestones = crate::locks::milestones(&t.critical_sections);
        let names = run.config.resources.clone();
        let par = run.par.get(i).cloned().flatten();
        let slot = match ctl.slot {
            0 => String::new(),
            s => format!("s{s}"),
        };
        let name = match ctl.threads() {
            1 => format!("sl-task{i}{slot}"),
            _ => format!("sl-task{i}{slot}.{k}"),
        };
        let spawned = threads.spawn(name, move |cx| {
            let me = Arc::new(Executor::new(ctl, k));
            me.register_tid(sched::gettid());
            let setup = sched::set_affinity(0, &affinity)
                .and_then(|()| sched::set_class(0, cx.class(PRIO_JOB)))
                .map_err(|e| format!("task {i}: {e}"));
            let _reg = preempt::Registration::new(me.clone() as Arc<dyn OnPreempt>);
            cx.shared.report_ready(setup);
            let completed = |me: &JobCtl, cpu: u32| {
                if !arch.complete_inline(me, cpu, cx) {
                    if let Some(b) = cx.shared.bells.get(cpu as usize) {
                        b.ring();
                    }
                }
            };
            let lock =
                |me: &JobCtl, resource: u32, unlock: bool| arch.lock(me, resource, unlock, cx);
            let env = JobEnv {
                body: &body,
                wcet_ns,
                wss,
                abort_cost_ns,
                completed: &completed,
                lock: (A::RESOURCES && par.is_none()).then_some(&lock as &LockFn<'_>),
                milestones: &milestones,
                names: &names,
                par: par.as_deref(),
            };
            if let Err(msg) = job_loop(&me, &env) {
                cx.shared.fail(msg);
            }
        });
        let Some(h) = spawned else { break };
        handles.push(h);
    }
    handles
}

/// The job thread's loop: wait for a job (thread-per-job: for this thread's next hand-over
/// first), run it, commit its completion, ring the CPU's dispatcher; until `STOP`. Returns
/// an error message if a custom body panicked.
pub fn job_loop(me: &Executor, env: &JobEnv<'_>) -> Result<(), String> {
    let ctl = &*me.ctl;
    let mut ws = env.wss.map(|w| WorkingSet::new(w as usize));
    let mut hand_over = me.index.wrapping_add(1);
    loop {
        if !ctl.await_turn(hand_over) {
            return Ok(());
        }
        hand_over = hand_over.wrapping_add(POOL_THREADS);
        // Wait for a new job (a PARK seen here means: preempted before it ever ran).
        let mut s = ctl.state.load(Ordering::Acquire);
        while s != RUN {
            if s == STOP {
                return Ok(());
            }
            s = ctl.wait_while(s);
        }
        let seq = ctl.seq.load(Ordering::Acquire);
        let strand = ctl.strand.load(Ordering::Acquire);
        // A strand burns its own thread's time (`crate::state`'s strands).
        let (region, thread, wcet_ns) = match env.par {
            Some(p) => {
                let (r, k) = p.locate(strand).unwrap_or((0, 0));
                (r, k, p.thread_ns(strand).unwrap_or(0))
            }
            None => (0, 0, env.wcet_ns),
        };
        if ctl.abort_requested(seq) {
            // Aborted before it ever executed: nothing to undo, no handler (`crate::state`'s
            // aborts).
            ctl.executed.store(0, Ordering::Relaxed);
            ctl.done_ticks.store(ctl.clock.ticks(), Ordering::Relaxed);
            if !commit(ctl) {
                return Ok(());
            }
            (env.completed)(ctl, ctl.cpu.load(Ordering::Acquire));
            continue;
        }
        // `migrate` is per job (docs/traces.md): a new job starting on another CPU than the
        // task's previous one did not migrate (cleared before the handler may claim).
        ctl.last_cpu.store(NONE, Ordering::Relaxed);
        me.in_job.store(true, Ordering::Relaxed);
        let cpu0 = thread_cputime_ns();
        // The job's switch-in, unless the handler of a signal that arrived since `in_job`
        // claimed it, or it was parked since it was made runnable (module doc, "Stretches").
        let started = ctl.switched_in(seq);
        // The abort points: the burn loop's passes, a custom body's `JobCtx::aborted`.
        let stop = || ctl.stopping() || ctl.abort_requested(seq);
        let aborted = || ctl.abort_requested(seq);
        let lock = |r: u32, unlock: bool| match env.lock {
            Some(f) => f(ctl, r, unlock),
            None => crate::locks::Reply::Unknown,
        };
        let outcome = match env.body {
            Body::Burn => burn_sections(env, wcet_ns, ws.as_mut(), cpu0, &stop, &lock),
            Body::Custom(f) => {
                let stopping = || ctl.stopping();
                let jc = JobCtx {
                    task: ctl.task,
                    seq,
                    region,
                    thread,
                    strand,
                    stop: &stopping,
                    aborted: &aborted,
                    lock: env.lock.map(|_| &lock as &dyn Fn(u32, bool) -> _),
                    names: env.names,
                };
                run_custom(f, &jc)
            }
        };
        if outcome.is_ok() && aborted() && !ctl.stopping() {
            abort_handler(ctl, seq, env.abort_cost_ns, ws.as_mut());
        }
        let executed = thread_cputime_ns().saturating_sub(cpu0);
        ctl.executed.store(executed, Ordering::Relaxed);
        if started.is_none() && ctl.first_run.load(Ordering::Relaxed) == 0 {
            // No claim succeeded (parked as it started, its signal not yet handled): the
            // job's record still gets a start.
            ctl.first_run.store(ctl.clock.ticks(), Ordering::Relaxed);
        }
        if ctl.stopping() {
            return outcome; // unfinished at the end of the run
        }
        outcome?;
        // Out of the job first: a preemption from here to the commit resumes no stretch
        // (the handler claims none), so the job's last stretch ends exactly once — here, or
        // at that park by its dispatcher (module doc, "Stretches").
        me.in_job.store(false, Ordering::Relaxed);
        let end = ctl.clock.ticks();
        ctl.switched_out(end, seq, strand);
        ctl.done_ticks.store(end, Ordering::Relaxed);
        // Commit: the dispatcher of `cpu` sees IDLE and processes the completion. `cpu` is
        // read after the commit: a park and relink elsewhere just before it moved the job
        // (no dispatcher moves a committed one).
        if !commit(ctl) {
            return Ok(()); // STOP arrived meanwhile
        }
        let cpu = ctl.cpu.load(Ordering::Acquire);
        (env.completed)(ctl, cpu);
    }
}

/// The built-in body: `wcet_ns` of CPU time (a strand's: its thread's time) (counted from `cpu0`, the thread's CPU time at
/// the job's start), locking and unlocking at the task's milestones (`crate::locks`). An
/// abort or the run's stop ends it early; a lock the dispatcher refuses is an error.
fn burn_sections(
    env: &JobEnv<'_>,
    wcet_ns: u64,
    mut ws: Option<&mut WorkingSet>,
    cpu0: u64,
    stop: &dyn Fn() -> bool,
    lock: &dyn Fn(u32, bool) -> crate::locks::Reply,
) -> Result<(), String> {
    use crate::locks::Reply;
    for m in env.milestones {
        let done = thread_cputime_ns().saturating_sub(cpu0);
        burn(m.offset.saturating_sub(done), ws.as_deref_mut(), stop);
        if stop() {
            return Ok(());
        }
        match lock(m.resource, m.unlock) {
            Reply::Granted => {}
            Reply::Aborted | Reply::Stopped => return Ok(()),
            r => {
                let name = crate::locks::resource_name(env.names, m.resource);
                return Err(format!("critical section on resource `{name}`: {r:?}"));
            }
        }
    }
    let done = thread_cputime_ns().saturating_sub(cpu0);
    burn(wcet_ns.saturating_sub(done), ws, stop);
    Ok(())
}

/// Commits the end of the thread's job (`RUN → IDLE`); false if the run stopped meanwhile.
fn commit(ctl: &JobCtl) -> bool {
    ctl.state
        .compare_exchange(RUN, IDLE, Ordering::AcqRel, Ordering::Acquire)
        .is_ok()
}

/// The abort handler of job `seq` [ChronOS §3.5]: `cost_ns` of CPU time on the CPU the job
/// runs on (it is not preempted meanwhile: `crate::state`'s aborts), between
/// `abort-handler-begin` (arg: the cost) and `abort-handler-end`; only the run's stop ends it
/// early.
fn abort_handler(ctl: &JobCtl, seq: u64, cost_ns: u64, ws: Option<&mut WorkingSet>) {
    let cpu = ctl.cpu.load(Ordering::Acquire);
    let task = ctl.task;
    ctl.buf.record(
        ctl.clock.ticks(),
        Kind::AbortHandlerBegin,
        cpu,
        task,
        seq,
        cost_ns,
    );
    burn(cost_ns, ws, || ctl.stopping());
    let cpu = ctl.cpu.load(Ordering::Acquire);
    ctl.buf
        .record(ctl.clock.ticks(), Kind::AbortHandlerEnd, cpu, task, seq, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A control block on logical CPUs 0 and 1 (any physical CPUs: `misplaced` is not
    /// checked here), inside job 7 of task 3.
    fn ctl() -> Executor {
        let c = JobCtl::new(3, 64, TickClock::monotonic(), &[0, 1]);
        c.seq.store(7, Ordering::Relaxed);
        let e = Executor::new(Arc::new(c), 0);
        e.in_job.store(true, Ordering::Relaxed);
        e
    }

    fn kinds(c: &JobCtl) -> Vec<(Kind, u32)> {
        c.buf.events().iter().map(|e| (e.kind, e.cpu)).collect()
    }

    /// A dispatcher makes the job runnable on `cpu` (arms its stretch, `RUN`).
    fn make_runnable(c: &JobCtl, cpu: u32) {
        c.cpu.store(cpu, Ordering::Relaxed);
        c.arm();
        c.state.store(RUN, Ordering::Relaxed);
    }

    /// A dispatcher parks the job: `RUN → PARK`, and whether it records the switch-out.
    fn park(c: &JobCtl) -> bool {
        c.state.store(PARK, Ordering::Relaxed);
        c.take_ran()
    }

    /// The interference of a competing real-time thread, replayed deterministically: the job
    /// ran on CPU 0 (switch-in), CPU 0's dispatcher parked it (it records the switch-out),
    /// and before the thread could run its handler CPU 1's dispatcher re-pinned it and set
    /// `RUN` with `cpu = 1`. The handler then finds `RUN`, not `PARK`: it must record the
    /// switch-in on CPU 1 (it used to return silently, leaving the job's later switch-out on
    /// CPU 1 without a start).
    #[test]
    fn a_job_relinked_before_its_signal_arrived_records_its_switch_in() {
        let e = ctl();
        let c = &*e.ctl;
        make_runnable(c, 0);
        assert!(c.switched_in(7).is_some());
        assert!(park(c), "the parking dispatcher sees that the job ran");
        make_runnable(c, 1);
        e.on_signal();
        assert_eq!(
            kinds(c),
            vec![(Kind::SwitchIn, 0), (Kind::SwitchIn, 1), (Kind::Migrate, 1)]
        );
        // A second (queued) signal of the same park is stale: no duplicate switch-in.
        e.on_signal();
        assert_eq!(c.buf.events().len(), 3);
        assert!(park(c), "the stretch on CPU 1 is open");
    }

    /// A job parked again before its thread ran since it was made runnable has no open
    /// stretch: the dispatcher records no switch-out.
    #[test]
    fn a_job_parked_before_it_ran_again_has_nothing_to_switch_out() {
        let e = ctl();
        let c = &*e.ctl;
        make_runnable(c, 1);
        assert!(c.switched_in(7).is_some());
        assert!(park(c));
        // Relinked (RUN) and parked again without running: nothing ran since the last park.
        make_runnable(c, 1);
        assert!(!park(c));
        assert_eq!(kinds(c), vec![(Kind::SwitchIn, 1)]);
    }

    /// The race of a budget exhausted just after the job was made runnable, replayed: the
    /// thread's handler (the signal of an earlier park is blocked while it runs) saw `RUN`
    /// on CPU 1 and was preempted before it recorded the switch-in; CPU 1's dispatcher
    /// parked the job (nothing ran: no switch-out). The handler's late switch-in must fail —
    /// it used to be recorded after the park, with no switch-out, and the job's next stretch
    /// (relinked to CPU 1) then got no switch-in at all.
    #[test]
    fn a_switch_in_claimed_after_the_park_is_not_recorded() {
        let e = ctl();
        let c = &*e.ctl;
        make_runnable(c, 0);
        assert!(c.switched_in(7).is_some());
        assert!(park(c));
        make_runnable(c, 1);
        // The handler saw RUN here; the dispatcher runs before its claim.
        assert!(!park(c), "not switched in yet: nothing to switch out");
        assert!(c.switched_in(7).is_none(), "the late claim fails");
        // The pending signal: parked, then linked to CPU 1 again; now it runs.
        make_runnable(c, 1);
        e.on_signal();
        assert!(park(c), "the second stretch is open and closed once");
        assert_eq!(
            kinds(c),
            vec![(Kind::SwitchIn, 0), (Kind::SwitchIn, 1), (Kind::Migrate, 1)]
        );
    }

    /// A signal delivered in a new job's first instructions (after `in_job`, before the
    /// loop's own switch-in): the handler's switch-in is the job's only one.
    #[test]
    fn a_stale_signal_at_a_jobs_start_records_one_switch_in() {
        let e = ctl();
        let c = &*e.ctl;
        make_runnable(c, 0);
        e.on_signal();
        assert!(c.switched_in(7).is_none(), "job_loop's claim fails");
        assert_eq!(kinds(c), vec![(Kind::SwitchIn, 0)]);
    }

    /// A park between the job's end and its commit: the stretch ends once — at the park
    /// (then the thread, out of the job, claims no switch-in when resumed and records no
    /// switch-out), or by the thread when no park came.
    #[test]
    fn a_park_before_the_commit_ends_the_stretch_once() {
        let e = ctl();
        let c = &*e.ctl;
        make_runnable(c, 0);
        assert!(c.switched_in(7).is_some());
        e.in_job.store(false, Ordering::Relaxed);
        assert!(park(c), "the dispatcher records the switch-out");
        make_runnable(c, 1);
        e.on_signal();
        c.switched_out(c.clock.ticks(), 7, 0);
        assert_eq!(kinds(c), vec![(Kind::SwitchIn, 0)]);
        // No park: the thread records it.
        e.in_job.store(true, Ordering::Relaxed);
        make_runnable(c, 1);
        assert!(c.switched_in(7).is_some());
        e.in_job.store(false, Ordering::Relaxed);
        c.switched_out(c.clock.ticks(), 7, 0);
        assert!(!park(c));
        let k = kinds(c);
        assert_eq!(
            &k[1..],
            &[
                (Kind::SwitchIn, 1),
                (Kind::Migrate, 1),
                (Kind::SwitchOut, 1)
            ]
        );
    }

    /// Thread-per-job, hand-worked: the pool's two threads registered tids 101 and 102; the
    /// first is pinned to CPU 1 like the block. Hand-over 1 (job 0) makes thread 0 the
    /// executor; the dispatcher then pins it to CPU 0. Hand-over 2 (job 1) makes thread 1
    /// the executor with its own pinning (CPU 1) and keeps thread 0's (CPU 0) for hand-over 3
    /// (job 2), which is thread 0's again.
    #[test]
    fn jobs_alternate_over_the_pool_and_each_thread_keeps_its_pinning() {
        let c = JobCtl::new(0, 64, TickClock::monotonic(), &[0, 1]);
        c.pinned.store(1, Ordering::Relaxed);
        let c = Arc::new(c.with_pool());
        let (e0, e1) = (Executor::new(c.clone(), 0), Executor::new(c.clone(), 1));
        e0.register_tid(101);
        e1.register_tid(102);
        assert_eq!(c.threads(), POOL_THREADS);
        assert_eq!(
            c.tid.load(Ordering::Relaxed),
            0,
            "no executor before a hand-over"
        );
        c.hand_over(0, 0);
        assert_eq!(c.tid.load(Ordering::Relaxed), 101);
        assert_eq!(c.pinned.load(Ordering::Relaxed), 1);
        let turn = |c: &JobCtl| c.pool.as_ref().map(|p| p.turn.load(Ordering::Relaxed));
        assert!(c.await_turn(1));
        assert_eq!(turn(&c), Some(1));
        c.pinned.store(0, Ordering::Relaxed); // the dispatcher re-pinned thread 0
        c.hand_over(1, 0);
        assert_eq!(c.tid.load(Ordering::Relaxed), 102);
        assert_eq!(c.pinned.load(Ordering::Relaxed), 1);
        assert_eq!(c.seq.load(Ordering::Relaxed), 1);
        c.hand_over(2, 0);
        assert_eq!(c.tid.load(Ordering::Relaxed), 101);
        assert_eq!(
            c.pinned.load(Ordering::Relaxed),
            0,
            "thread 0's own pinning"
        );
        assert!(c.await_turn(3));
    }

    /// The hand-over counter wraps without breaking the alternation (a power-of-two pool).
    #[test]
    fn the_alternation_survives_the_counter_wrapping() {
        let seq: Vec<usize> = [u32::MAX - 1, u32::MAX, 0, 1, 2]
            .iter()
            .map(|&h| Pool::index(h))
            .collect();
        assert_eq!(seq, vec![1, 0, 1, 0, 1]);
    }

    /// A pool thread waiting for a hand-over that never comes ends when the run stops.
    #[test]
    fn the_stop_ends_a_pool_thread_waiting_for_its_turn() {
        let c = Arc::new(JobCtl::new(0, 64, TickClock::monotonic(), &[0, 1]).with_pool());
        let waiter = {
            let c = c.clone();
            std::thread::spawn(move || c.await_turn(7))
        };
        std::thread::sleep(std::time::Duration::from_millis(20));
        c.stop();
        assert!(
            !waiter.join().unwrap_or(true),
            "await_turn returns false on stop"
        );
    }
}
