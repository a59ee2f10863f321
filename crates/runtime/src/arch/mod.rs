//! Dispatch architectures: *how* a policy's decisions are computed and enacted with real
//! threads on real CPUs (DESIGN.md). Each architecture is one module behind one interface,
//! `Architecture`, and every run of every architecture — the user-space ones and the kernel
//! baselines — goes through one skeleton, [`crate::run`](mod@crate::run):
//!
//! 1. **validate** the tasks and the options the skeleton knows (CPUs, duration, the
//!    run's size: [`crate::run::MAX_RUN_JOBS`], the trace budget), then
//!    `Architecture::prepare`: the architecture checks what is its own and builds its
//!    state — per CPU or shared — and its scheduler threads' state (`Setup`); nothing runs
//!    yet;
//! 2. **start synchronously**: the caller becomes the watchdog (SCHED_FIFO above every thread
//!    of the run, `Architecture::WATCHDOG_PRIORITY`); the skeleton starts the runtime's job
//!    threads (if the architecture has them, `Jobs`) and one thread per worker, which sets
//!    itself up (`Architecture::set_up`: pinning, scheduling class), reports ready and waits
//!    for time zero, then runs `Architecture::work`;
//! 3. **watchdog**: until the horizon, an interrupt or a failure; then the stop flag, every
//!    doorbell and the stop word; workers are joined first (no new decisions), then job
//!    threads, each within the grace period;
//! 4. **drain**: `Architecture::drain` hands the workers' trace buffers, job records and
//!    counters to the `Harvest`; the skeleton adds the job threads' buffers, converts ticks
//!    to ns and merges the trace by time;
//! 5. **account** (the simulator's metrics; preemptions, migrations and context switches
//!    counted from the trace by `schedlab_trace::counts`) and **result**.
//!
//! Besides the trait, each architecture has a registry entry, [`ArchDef`]: its name, what
//! it says about a run (JSON fields, table note), which options are its own, and which
//! instance of the skeleton runs it. [`REGISTRY`] is the one table of architectures: `--arch`
//! (its help and its check), [`crate::front::arch_by_name`] and Python read it.
//!
//! # The interface
//!
//! | | what it decides | called |
//! |---|---|---|
//! | `prepare` | validation of its options; its state per CPU or shared; its workers; where job threads may run | once, caller's thread, before anything runs real-time |
//! | `set_up` | a worker thread's CPU and class (`cx.real_time()` false: SCHED_OTHER) | once per worker, on its thread |
//! | `work` | a worker's loop: releases, scheduling, enacting — until `cx.shared.stop` | once per worker, from time zero |
//! | `complete_inline` | whether a job thread that committed its completion handles it itself (else it rings its CPU's doorbell) | per completion, on the job thread |
//! | `lock` | how a job thread's lock operation reaches the scheduling state (default: its CPU's dispatcher) | per lock or unlock, on the job thread (`RESOURCES` only) |
//! | `drain` | what its workers and its shared state recorded | once, after every thread was joined |
//!
//! Shared pieces an architecture builds on: [`crate::state::Sched`] (a policy instance, the
//! link maps, job hand-over and records: the `Synced` state of an architecture with a lock,
//! passed as `&mut Sched`), [`crate::dispatch::Dispatcher`] (a per-CPU dispatcher loop over a
//! [`crate::dispatch::Domain`]: how it reaches its `Sched`), [`crate::job`] (the job
//! threads, enforced preemption), `kernel` (self-releasing task threads of the kernel
//! baselines), [`crate::mp`] (DSP, clients, slots, mailboxes).
//!
//! # The architectures, and how a new one plugs in
//!
//! Built: [`partitioned`], [`semi_partitioned`] (RTPS: per-CPU shards of the policy, local
//! sleep queues and timers, per-CPU locked migration queues; the engine's budgets end a split
//! task's part, `crate::state`), [`global_lock`] (with the dedicated interrupt CPU option),
//! [`concurrent`] (ChronOS application-concurrent: the locked `Sched` in pull mode, each CPU
//! enacting only its own link, `crate::state`),
//! [`message_passing`], [`work_stealing`] (RTWS: a global EDF queue behind the run's lock,
//! per-CPU priority queues of deques behind short per-CPU locks, per-CPU dispatchers that
//! steal), [`push_pull`] (SCHED_DEADLINE-style global EDF in user space: per-CPU EDF run
//! queues behind per-CPU locks, wake-up placement through a cpudl max-heap, push and pull
//! with double locking in CPU order and `DL_MAX_TRIES` bounded retries; its push and pull
//! counts as the run's counters, `Harvest::counters`), [`reservations`] (H-CBS
//! [HCBS §3.2]: the `hcbs` policy's per-CPU servers, their budgets as the engine's budget
//! timers and their replenishments as policy timers, behind
//! one lock as `global-lock`; the scheduler hooks of [HCBS §5] traced as operations),
//! [`linux_deadline`], [`linux_fifo`], [`linux_rt_groups`] (reservation groups as
//! cgroups with RT bandwidth). Each file opens with its
//! *Protocol*: who owns each field, what protects it, the numbered dispatch and preemption
//! steps. Parallel (fork-join) tasks run as the engines' strands (`crate::state`'s strands,
//! one job thread per slot, `crate::job::ctl_of`) under the architectures whose
//! [`ArchDef::parallel`] is set. Every architecture planned in DESIGN.md is built.
//!
//! None of them changed the skeleton: each is a new file with a type implementing
//! `Architecture`, a `pub(crate) static DEF: ArchDef`, and its name in `registry!`. (The
//! engine offers some of them use — budgets (built: `state/budget.rs`), strands (built:
//! `state/strands.rs`), hierarchy —
//! are added once for every policy, in `crate::state` and `crate::job`, as DESIGN.md asks.)
//!
//! # Adding an architecture
//!
//! 1. Create `src/arch/<name>.rs` (module name in snake case): a module doc with its
//!    *Protocol*; a state type `impl Architecture` (`prepare` returns the per-CPU workers
//!    and where job threads may run; `set_up` usually `cx.pin_scheduler(cpu)`; `work` its
//!    loop; `drain` its buffers and records); and
//!    `pub(crate) static DEF: ArchDef = ArchDef { name: "<name>", run: crate::run::run_with::<YourType>, .. }`.
//! 2. Add the module's name to the `registry!` list below (one line).
//!
//! `--arch <name>` (its help lists the registry), `schedlab.run(arch="<name>")`,
//! `schedlab measure curves --arch <name>`, the JSON summary and the trace metadata then
//! know it.

use crate::config::{RtTask, RunConfig, PRIO_DISPATCH, PRIO_MAIN};
use crate::error::RuntimeError;
use crate::job::JobCtl;
use crate::locks::Reply;
use crate::mech::lock::LockKind;
use crate::mech::sched::{self, Class};
use crate::run::{RunResult, Shared};
use crate::state::{RawRecord, Sched, TaskSpec, Threads};
use schedlab_policy::{build, Placement, PolicyTask};
use schedlab_trace::tracebuf::TraceBuf;
use schedlab_trace::Event;
use serde_json::{Map, Value};
use std::sync::Arc;

pub(crate) mod kernel;

/// Declares the architecture modules and [`REGISTRY`], in `--arch` help order: one line per
/// architecture.
macro_rules! registry {
    ($($module:ident),* $(,)?) => {
        $(pub mod $module;)*
        /// Every architecture (the one table: `--arch`, [`crate::front::arch_by_name`],
        /// Python).
        pub static REGISTRY: &[&ArchDef] = &[$(&$module::DEF),*];
    };
}

registry! {
    partitioned,
    semi_partitioned,
    global_lock,
    concurrent,
    message_passing,
    work_stealing,
    push_pull,
    reservations,
    linux_deadline,
    linux_fifo,
    linux_rt_groups,
}

/// How the skeleton warns about the kernel's real-time throttling ([`crate::throttle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtLoad {
    /// Per CPU when the run has a placement of every task on a CPU, else over all job CPUs.
    ByPlacement,
    /// Over all job CPUs (global scheduling).
    Global,
    /// Not checked here: the kernel's admission control does (SCHED_DEADLINE).
    Admission,
}

/// An architecture's registry entry: what the front ends and the skeleton need to know
/// about it without running it.
pub struct ArchDef {
    /// `--arch` name.
    pub name: &'static str,
    /// One line for `--arch` help and Python.
    pub summary: &'static str,
    /// The kernel schedules (`--policy` does not apply; the run is named after the
    /// architecture).
    pub kernel: bool,
    /// It runs parallel (fork-join) tasks [RTWS §III] — each thread of a job as a strand on a
    /// job thread of its own (`crate::state`, "Strands"; the kernel baselines: a kernel
    /// thread per parallel thread). The skeleton refuses a parallel task under an
    /// architecture without it (`crate::run::validate`, naming [`parallel_archs`]).
    pub parallel: bool,
    /// Run options only it takes (`lock`, `dedicated-irq-cpu`, `dl-margin`, `dl-cpuset`,
    /// `dsp-poll`, `inline-completion`, `threading` — per-job, the user-space ones): the
    /// skeleton refuses a switched-on option of another architecture.
    pub options: &'static [&'static str],
    /// The placement policy it takes when asked to run partitioned (`--partition`, or a
    /// file that pins its tasks) although it has no policy of its own (`linux-fifo`: `pfp`).
    pub partitioned_with: Option<&'static str>,
    /// Which real-time load it warns about.
    pub rt_load: RtLoad,
    /// The global scheduling invariant [MP §II-A] applies to its runs (checked on the trace:
    /// JSON `invariant`).
    pub global_invariant: bool,
    /// Whether logical CPU 0 runs no job under `config` (a dedicated scheduling or interrupt
    /// CPU).
    pub reserves_cpu0: fn(&RunConfig) -> bool,
    /// Its own fields of the JSON summary and of the trace metadata.
    pub fields: fn(&RunConfig) -> Vec<(&'static str, Value)>,
    /// Its note in the table's first line (e.g. ` (DSP: CPU 0)`), or empty.
    pub note: fn(&RunConfig) -> String,
    /// The skeleton instantiated for it: `crate::run::run_with::<Its type>`.
    pub(crate) run: fn(&[RtTask], &RunConfig) -> Result<RunResult, RuntimeError>,
}

impl std::fmt::Debug for ArchDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// An architecture chosen for a run: its registry entry, and the lock for one that takes
/// `--lock` (ignored by the others).
#[derive(Clone, Copy)]
pub struct Arch {
    def: &'static ArchDef,
    lock: LockKind,
}

impl Arch {
    /// The architecture named `name` with lock `lock` (`ticket`, `mcs`, `mutex`; checked only
    /// for an architecture that takes `--lock`).
    pub fn named(name: &str, lock: &str) -> Result<Arch, RuntimeError> {
        let Some(def) = REGISTRY.iter().copied().find(|d| d.name == name) else {
            return Err(RuntimeError::InvalidConfig {
                field: "arch",
                message: format!("unknown architecture `{name}` ({})", names().join(", ")),
            });
        };
        let lock = if def.options.contains(&"lock") {
            LockKind::parse(lock).ok_or_else(|| RuntimeError::InvalidConfig {
                field: "lock",
                message: format!("unknown lock `{lock}` (ticket, mcs, mutex)"),
            })?
        } else {
            LockKind::Ticket
        };
        Ok(Arch { def, lock })
    }

    /// This architecture with lock `lock` (for one that takes `--lock`).
    pub fn with_lock(self, lock: LockKind) -> Arch {
        Arch { lock, ..self }
    }

    /// Its registry entry.
    pub fn def(self) -> &'static ArchDef {
        self.def
    }

    /// `--arch` name.
    pub fn name(self) -> &'static str {
        self.def.name
    }

    /// Whether the kernel schedules (no user-space policy, `--policy` does not apply).
    pub fn is_kernel(self) -> bool {
        self.def.kernel
    }

    /// The lock, for an architecture that takes one.
    pub fn lock(self) -> Option<LockKind> {
        self.def.options.contains(&"lock").then_some(self.lock)
    }

    /// Whether `option` (e.g. `dedicated-irq-cpu`) is one of its own.
    pub fn takes(self, option: &str) -> bool {
        self.def.options.contains(&option)
    }
}

impl PartialEq for Arch {
    fn eq(&self, other: &Arch) -> bool {
        self.name() == other.name() && self.lock() == other.lock()
    }
}

impl Eq for Arch {}

impl std::fmt::Debug for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.lock() {
            Some(l) => write!(f, "{}({})", self.name(), l.name()),
            None => f.write_str(self.name()),
        }
    }
}

/// The architectures' names, in registry order.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|d| d.name).collect()
}

/// The policy an architecture implements itself, its default when `--policy` is left out
/// (`work-stealing`: `rtws`; `reservations`: `hcbs`); `None` for the others, which take a
/// policy.
pub fn own_policy(arch: &str) -> Option<&'static str> {
    if arch == work_stealing::DEF.name {
        Some(work_stealing::POLICY)
    } else if arch == reservations::DEF.name {
        Some(reservations::POLICY)
    } else {
        None
    }
}

/// The architectures that run parallel tasks ([`ArchDef::parallel`]), in registry order.
pub fn parallel_archs() -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|d| d.parallel)
        .map(|d| d.name)
        .collect()
}

/// The architectures that take run option `option`.
pub fn taking(option: &str) -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|d| d.options.contains(&option))
        .map(|d| d.name)
        .collect()
}

/// The run as an architecture sees it in `Architecture::prepare`: the checked input and
/// what the skeleton derived from it.
pub(crate) struct Run<'a> {
    /// The tasks (validated).
    pub(crate) tasks: &'a [RtTask],
    /// The options (validated as far as the skeleton knows them).
    pub(crate) config: &'a RunConfig,
    /// Number of logical CPUs.
    pub(crate) m: u32,
    /// The policy's view of each task (ranks from the configuration).
    pub(crate) policy_tasks: Vec<PolicyTask>,
    /// Static facts of each task for [`Sched`].
    pub(crate) spec: Arc<[TaskSpec]>,
    /// Jobs each task releases before the horizon (bounded by
    /// [`crate::run::MAX_RUN_JOBS`] in total).
    pub(crate) jobs: Vec<u64>,
    /// Events each task's thread buffers, and each scheduler thread (within the trace
    /// budget, [`crate::run::MAX_TRACE_BYTES`]).
    pub(crate) capacity: Capacity,
    /// The tasks' abort flags, shared by the scheduling states and the job threads
    /// (`crate::state`'s aborts).
    pub(crate) abort_words: crate::state::AbortWords,
    /// Each task's fork-join structure (`None`: sequential; `crate::state`'s strands).
    pub(crate) par: Arc<[Option<Arc<crate::state::ParSpec>>]>,
}

/// Trace buffer capacities of a run (events).
#[derive(Clone, Debug)]
pub(crate) struct Capacity {
    /// Per task's thread.
    pub(crate) task: Vec<usize>,
    /// Per scheduler thread (a dispatcher, the DSP, a client).
    pub(crate) scheduler: usize,
}

impl Run<'_> {
    /// Number of tasks.
    pub(crate) fn n(&self) -> usize {
        self.tasks.len()
    }

    /// The scheduling state of a domain of `k` CPUs whose first logical CPU is `base`, with
    /// the configured policy built on it (`placement`: the policy's domains).
    pub(crate) fn sched(
        &self,
        k: u32,
        placement: Option<Placement>,
        base: u32,
    ) -> Result<Sched, RuntimeError> {
        // Link swaps only where the domain's CPUs are interchangeable (crate::state): not
        // under a placement of single CPUs, nor under a policy that keeps work per CPU
        // (`rtws`'s local queues: a strand forked on CPU c must be offered to c).
        let native = schedlab_policy::parallel_support(&self.config.policy)
            == Some(schedlab_policy::ParallelSupport::Native);
        let swaps = placement.as_ref().is_none_or(|p| p.domain_size > 1) && !native;
        let policy = build(&self.config.policy, &self.policy_tasks, k, placement)?;
        let mut s = self.sched_with(policy, base);
        s.set_link_swaps(swaps);
        Ok(s)
    }

    /// The scheduling state of `policy` (built by the caller) whose first logical CPU is
    /// `base`, with the run's abort flags and engine aborts.
    pub(crate) fn sched_with(&self, policy: Box<dyn schedlab_policy::Policy>, base: u32) -> Sched {
        let mut s = Sched::new(policy, base, self.spec.clone());
        s.set_parallel(self.par.clone());
        let abortable = self.tasks.iter().map(|t| t.abortable).collect();
        s.set_aborts(self.abort_words.clone(), abortable);
        s.set_abort_late(self.config.abort_late);
        // Every resource of the run (a partitioned domain narrows them to its own tasks').
        let mut ids = crate::state::section_ids(self.tasks.iter());
        ids.extend(0..self.config.resources.len() as u32);
        s.set_resources(ids, &self.config.resources, self.config.duration.as_ns());
        s
    }

    /// The number of CPUs the policy schedules (the job CPUs); an error naming `what` (the
    /// architecture or option that reserves CPU 0) when there are none.
    pub(crate) fn policy_cpus(&self, what: &str) -> Result<u32, RuntimeError> {
        let k = self.config.job_cpus().len() as u32;
        if k == 0 {
            return Err(RuntimeError::InvalidConfig {
                field: "cpus",
                message: format!(
                    "{what} needs at least 2 CPUs (CPU 0 schedules, the others run jobs)"
                ),
            });
        }
        Ok(k)
    }

    /// The placement of every task on one CPU (a partitioned run), checked against the
    /// tasks and CPUs; `None` if the configuration has none.
    pub(crate) fn cpu_placement(&self) -> Result<Option<&[u32]>, RuntimeError> {
        let Some(p) = self
            .config
            .placement
            .as_ref()
            .filter(|p| p.domain_size == 1)
        else {
            return Ok(None);
        };
        let n = self.n();
        if p.domain_of_task.len() != n {
            return Err(RuntimeError::InvalidConfig {
                field: "placement",
                message: format!("{} entries for {n} tasks", p.domain_of_task.len()),
            });
        }
        let m = self.m;
        if let Some((i, c)) = p.domain_of_task.iter().enumerate().find(|(_, c)| **c >= m) {
            return Err(RuntimeError::InvalidTask {
                task: i,
                field: "cpu",
                message: format!("is {c}, but the run has CPUs 0..{m}"),
            });
        }
        Ok(Some(&p.domain_of_task))
    }
}

/// Where the runtime's job threads run.
pub(crate) enum Jobs {
    /// None: the architecture's workers run the jobs themselves (kernel baselines).
    None,
    /// One per task; task i pinned to logical CPU `pinned[i]` for good, or free over the job
    /// CPUs (re-pinned by whoever makes it runnable) where `None`.
    Threads {
        /// Per task.
        pinned: Vec<Option<u32>>,
    },
}

/// What `Architecture::prepare` builds.
pub(crate) struct Setup<A: Architecture> {
    /// The architecture's state shared by all its threads.
    pub(crate) arch: A,
    /// One per scheduler thread, each started on its own thread.
    pub(crate) workers: Vec<A::Worker>,
    /// The job threads.
    pub(crate) jobs: Jobs,
}

/// What a run's threads see: the run's shared state and the job threads' control blocks.
pub(crate) struct Cx<'a> {
    /// Clock, time zero, stop flag, doorbells, release timing, …
    pub(crate) shared: &'a Shared,
    /// The job threads' control blocks and the physical CPU of each logical CPU.
    pub(crate) th: Threads<'a>,
}

impl Cx<'_> {
    /// Whether threads run real-time (false: SCHED_OTHER, `allow_non_rt`).
    pub(crate) fn real_time(&self) -> bool {
        self.shared.real_time
    }

    /// The class of a thread at SCHED_FIFO priority `prio` in this run.
    pub(crate) fn class(&self, prio: u8) -> Class {
        if self.real_time() {
            Class::Fifo(prio)
        } else {
            Class::Other
        }
    }

    /// Pins the calling thread, a scheduler thread of logical CPU `cpu`, to that CPU, above
    /// every job ([`PRIO_DISPATCH`]); the error names the dispatcher.
    pub(crate) fn pin_scheduler(&self, cpu: u32) -> Result<(), String> {
        let phys = self.th.phys.get(cpu as usize).copied().unwrap_or(0);
        sched::set_affinity(0, &[phys])
            .and_then(|()| sched::set_class(0, self.class(PRIO_DISPATCH)))
            .map_err(|e| format!("dispatcher of CPU {cpu}: {e}"))
    }
}

/// What the architectures' threads recorded, gathered after the run (see
/// `Architecture::drain`).
#[derive(Default)]
pub(crate) struct Harvest {
    /// Trace events, times in raw ticks.
    pub(crate) events: Vec<Event>,
    /// Events lost to full buffers.
    pub(crate) dropped: u64,
    /// Job records.
    pub(crate) records: Vec<RawRecord>,
    /// Policy callbacks made.
    pub(crate) policy_calls: u64,
    /// Wall time of policy callbacks (ns; `Sched::policy_ns` of every state).
    pub(crate) policy_ns: Vec<u64>,
    /// Failed mechanism calls: count and the first message.
    pub(crate) mech_errors: (u64, Option<String>),
    /// Errors of jobs (a resource never released, `crate::state`'s locks).
    pub(crate) job_errors: Vec<String>,
    /// The architecture's own counters of the run (`push-pull`: pushes, pulls, …), for
    /// [`RunResult::arch_counters`].
    pub(crate) counters: Vec<(&'static str, u64)>,
}

impl Harvest {
    /// A thread's trace buffer.
    pub(crate) fn trace(&mut self, buf: &TraceBuf) {
        self.dropped += buf.dropped();
        self.events.extend(buf.events());
    }

    /// A scheduling state's records (finished, then unfinished with the CPU time the job
    /// threads reported), policy calls and mechanism errors.
    pub(crate) fn sched(&mut self, s: &mut Sched, th: &Threads<'_>) {
        self.records.append(&mut s.records);
        self.records.extend(s.unfinished(th.ctls));
        self.policy_calls += s.policy_calls;
        self.job_errors.extend(s.job_errors());
        self.policy_ns.append(&mut s.policy_ns);
        let (count, first) = std::mem::take(&mut s.mech_errors);
        self.mech_errors(count, first);
    }

    /// Mechanism failures counted elsewhere (clients, …).
    pub(crate) fn mech_errors(&mut self, count: u64, first: Option<String>) {
        self.mech_errors.0 += count;
        if self.mech_errors.1.is_none() {
            self.mech_errors.1 = first;
        }
    }
}

/// A dispatch architecture (see the module doc). The type is the architecture's state
/// shared by its threads for the whole run.
pub(crate) trait Architecture: Sized + Send + Sync + 'static {
    /// A scheduler thread's own state (a dispatcher, the DSP, a client, a kernel baseline's
    /// task thread); the thread returns it when it ends.
    type Worker: Send + 'static;

    /// SCHED_FIFO priority of the watchdog (the caller's thread while the run lasts): above
    /// every thread of the architecture.
    const WATCHDOG_PRIORITY: u8 = PRIO_MAIN;

    /// Whether it manages resources (scheduler-managed mutexes, `crate::locks`): a job
    /// thread's lock operation goes through `Architecture::lock`. Runs with critical
    /// sections are refused elsewhere (`crate::run::validate`).
    const RESOURCES: bool = false;

    /// What its workers are called in the warnings of the end of a run (a worker that
    /// panicked or was left running).
    const WORKER: &'static str = "dispatcher";

    /// The warning of a run that fell back to SCHED_OTHER (`allow_non_rt`).
    const NOT_REAL_TIME: &'static str =
        "SCHED_FIFO not permitted: ran under SCHED_OTHER (--allow-non-rt); timing results are not real-time";

    /// Checks the run for this architecture and builds its state, workers and job-thread
    /// placement. Called once on the caller's thread, before anything runs real-time;
    /// `warnings` collects what does not stop the run.
    fn prepare(run: &Run<'_>, warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError>;

    /// The name of a worker's thread (`sl-cpu1`, `sl-dsp`, `sl-task3`, …).
    fn thread_name(w: &Self::Worker) -> String;

    /// Sets up the calling thread, a new worker's, before it reports ready: affinity and
    /// scheduling class ([`Cx::pin_scheduler`] for a per-CPU scheduler). An error stops
    /// the run before time zero; its message names the thread.
    fn set_up(&self, w: &Self::Worker, cx: &Cx<'_>) -> Result<(), String>;

    /// The worker's loop, from time zero until `cx.shared.stop`; returns the worker for
    /// `Architecture::drain`. A failure that must end the run early (a custom job body
    /// that panicked) is reported with [`Shared::fail`].
    fn work(&self, w: Self::Worker, cx: &Cx<'_>) -> Self::Worker;

    /// A job thread committed the completion of `me`'s job on logical CPU `cpu`: whether
    /// it handled the completion itself (`message-passing`'s inline completion); if not
    /// (the default), it rings the doorbell of `cpu`.
    fn complete_inline(&self, _me: &JobCtl, _cpu: u32, _cx: &Cx<'_>) -> bool {
        false
    }

    /// A lock operation of the job thread of `me` (`crate::locks`), called on that thread
    /// (only if `RESOURCES`): by default its CPU's dispatcher processes it, rung through its
    /// doorbell (`crate::locks::request`); `message-passing` sends it to the DSP.
    fn lock(&self, me: &JobCtl, resource: u32, unlock: bool, cx: &Cx<'_>) -> Reply {
        let ring = |cpu: u32| {
            if let Some(b) = cx.shared.bells.get(cpu as usize) {
                b.ring();
            }
        };
        crate::locks::request(me, &ring, resource, unlock)
    }

    /// After every thread was joined: the workers' (and the shared state's) trace buffers,
    /// job records and counters. A worker left running past the grace period is missing.
    fn drain(&self, workers: Vec<Self::Worker>, th: &Threads<'_>, h: &mut Harvest);
}

/// The JSON value of a lock kind.
pub(crate) fn lock_field(config: &RunConfig) -> Value {
    Value::from(config.arch.lock().map(LockKind::name))
}

/// Its fields as a JSON map (for the summary and the trace metadata).
pub(crate) fn fields_map(config: &RunConfig) -> Map<String, Value> {
    (config.arch.def().fields)(config)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}
