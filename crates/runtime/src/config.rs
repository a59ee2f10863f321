//! What to run: the tasks as the runtime sees them ([`RtTask`]), their job bodies
//! ([`Body`]), the dispatch architecture ([`Arch`], from [`crate::arch::REGISTRY`]) and the
//! run options ([`RunConfig`]).

pub use crate::arch::Arch;
use crate::error::RuntimeError;
use schedlab_model::extensions::CriticalSection;
use schedlab_model::{Duration, GroupTree, ParallelStructure, Task, Tuf};
use schedlab_policy::Placement;
use std::sync::Arc;

/// What a job of a task does.
#[derive(Clone)]
pub enum Body {
    /// Consume exactly the task's WCET of CPU time, walking its working set if it has one
    /// ([`crate::mech::burn`]).
    Burn,
    /// Run a closure once per job — for a parallel task once per *thread* of each job, on
    /// that thread's own job thread, with [`JobCtx::region`] and [`JobCtx::thread`] saying
    /// which (the threads of a region may run at once on different CPUs; region `r + 1`'s
    /// calls start only after every call of region `r` returned: the join). It may be preempted anywhere (the preemption is enforced,
    /// see [`crate::mech::preempt`]); it should return when [`JobCtx::stop_requested`]
    /// becomes true, or the run waits for it (bounded by [`RunConfig::grace`]).
    Custom(Arc<dyn Fn(&JobCtx) + Send + Sync>),
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Body::Burn => f.write_str("Burn"),
            Body::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

/// What a custom job body can see.
pub struct JobCtx<'a> {
    /// Task index.
    pub task: u32,
    /// Job sequence number.
    pub seq: u64,
    /// The region of a parallel task's job this call runs a thread of (0-based; 0 for a
    /// sequential task) [RTWS §III].
    pub region: u32,
    /// The thread's index within its region (0-based; 0 for a sequential task).
    pub thread: u32,
    /// The thread's strand: region `r`'s thread `k` is `Σ_{r' < r} width(r') + k` (the trace's
    /// `strand`; 0 for a sequential task).
    pub strand: u32,
    pub(crate) stop: &'a dyn Fn() -> bool,
    pub(crate) aborted: &'a dyn Fn() -> bool,
    /// Locks (`false`) or unlocks (`true`) a resource through the scheduling state
    /// (`crate::locks`); `None` where the architecture has no scheduler-managed mutexes.
    pub(crate) lock: Option<&'a dyn Fn(u32, bool) -> crate::locks::Reply>,
    /// The run's resource names, by id.
    pub(crate) names: &'a [String],
}

impl<'a> JobCtx<'a> {
    /// The run is ending: return soon.
    pub fn stop_requested(&self) -> bool {
        (self.stop)()
    }

    /// The policy aborted this job [ChronOS §3.5]: an *abort point*. The body should undo
    /// what it must and return soon; the runtime then runs the task's abort handler (its
    /// `abort_cost` of CPU time) and the job ends as aborted. Checking it costs one atomic
    /// load.
    pub fn aborted(&self) -> bool {
        (self.aborted)()
    }

    /// Locks the scheduler-managed resource `resource` (an id of the run's resources:
    /// [`RunConfig::resources`] or a task's critical sections) [ChronOS §3.6]: returns at once
    /// if it is free, else the job *blocks* — the scheduling state records it, the policy
    /// (`on_block`) unlinks it and its CPU runs something else — until the resource is granted
    /// to it (`grant`, `on_resume`) and the policy links it again. The guard unlocks it when
    /// dropped (or call [`ResourceGuard::unlock`]). A job that ends holding a resource is an
    /// error of the run (`RunResult::job_errors`); the runtime releases the resource.
    pub fn lock(&self, resource: u32) -> Result<ResourceGuard<'_, 'a>, crate::locks::LockError> {
        let name = || crate::locks::resource_name(self.names, resource);
        let Some(f) = self.lock else {
            return Err(crate::locks::LockError::Unsupported);
        };
        match f(resource, false) {
            crate::locks::Reply::Granted => Ok(ResourceGuard {
                ctx: self,
                resource,
                held: true,
            }),
            r => Err(crate::locks::LockError::from_reply(r, name())),
        }
    }

    /// [`JobCtx::lock`] by the resource's name (`RunConfig::resources`).
    pub fn lock_named(&self, name: &str) -> Result<ResourceGuard<'_, 'a>, crate::locks::LockError> {
        match self.names.iter().position(|n| n == name) {
            Some(id) => self.lock(id as u32),
            None => Err(crate::locks::LockError::Unknown(name.to_string())),
        }
    }

    /// Unlocks `resource` (held by this job), granting it to a waiter the policy picks.
    pub fn unlock(&self, resource: u32) -> Result<(), crate::locks::LockError> {
        let Some(f) = self.lock else {
            return Err(crate::locks::LockError::Unsupported);
        };
        match f(resource, true) {
            crate::locks::Reply::Granted => Ok(()),
            r => Err(crate::locks::LockError::from_reply(
                r,
                crate::locks::resource_name(self.names, resource),
            )),
        }
    }
}

/// A held scheduler-managed resource ([`JobCtx::lock`]); unlocks it when dropped.
pub struct ResourceGuard<'c, 'a> {
    ctx: &'c JobCtx<'a>,
    resource: u32,
    held: bool,
}

impl ResourceGuard<'_, '_> {
    /// The resource id.
    pub fn resource(&self) -> u32 {
        self.resource
    }

    /// Unlocks now (an error if the run stopped meanwhile).
    pub fn unlock(mut self) -> Result<(), crate::locks::LockError> {
        self.held = false;
        self.ctx.unlock(self.resource)
    }
}

impl Drop for ResourceGuard<'_, '_> {
    fn drop(&mut self) {
        if self.held {
            // Only the run's stop or an abort can make the unlock fail; the job's end then
            // releases the resource anyway.
            let _ = self.ctx.unlock(self.resource);
        }
    }
}

/// Runs a custom job body once; a panic becomes the message that ends the run.
pub(crate) fn run_custom(
    f: &Arc<dyn Fn(&JobCtx) + Send + Sync>,
    jc: &JobCtx<'_>,
) -> Result<(), String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(jc))).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        let thread = if jc.strand == 0 {
            String::new()
        } else {
            format!(" (region {} thread {})", jc.region, jc.thread)
        };
        format!(
            "task {} job {}{thread}: the job body panicked: {msg}",
            jc.task, jc.seq
        )
    })
}

/// A task as the runtime runs it: periodic jobs released at `offset + k·period`.
#[derive(Clone, Debug)]
pub struct RtTask {
    /// Execution time of every job (CPU time consumed by [`Body::Burn`]).
    pub wcet: Duration,
    /// Relative deadline.
    pub deadline: Duration,
    /// Period.
    pub period: Duration,
    /// First release, after time zero.
    pub offset: Duration,
    /// Working-set size in bytes, walked by [`Body::Burn`].
    pub wss: Option<u64>,
    /// The job body.
    pub body: Body,
    /// Utility of a job completed by its deadline (utility-accrual policies; `None`: 1).
    pub utility: Option<f64>,
    /// Time/utility function (`None`: the step of `utility`), as the model's
    /// `Task::effective_tuf`.
    pub tuf: Option<Tuf>,
    /// Whether a policy may abort its jobs [ChronOS §3.5].
    pub abortable: bool,
    /// CPU time its abort handler burns (the built-in body's handler; a custom body's
    /// handler is its own code) [ChronOS §3.5].
    pub abort_cost: Duration,
    /// Critical sections [ChronOS §3.6]: the built-in body locks `resource` when it has
    /// executed `start` and unlocks it at `start + length` (scheduler-managed mutexes,
    /// `crate::locks`); a custom body locks through [`JobCtx::lock`] instead.
    pub critical_sections: Vec<CriticalSection>,
    /// The fork-join structure of a parallel task [RTWS §III] (`None`: sequential): each
    /// thread of a job runs as a strand on a job thread of its own, [`Body::Burn`] burning
    /// that thread's time, [`Body::Custom`] called once per thread (`crate::state`'s
    /// strands; the kernel baselines: one kernel thread per thread slot). Architectures without `ArchDef::parallel` and policies that do not take
    /// parallel tasks refuse it ([`RuntimeError::ParallelTask`]) rather than run it
    /// sequentially.
    pub parallel: Option<ParallelStructure>,
}

impl RtTask {
    /// A burn task `(C, D, T)`.
    pub fn new(wcet: Duration, deadline: Duration, period: Duration) -> RtTask {
        RtTask {
            wcet,
            deadline,
            period,
            offset: Duration::ZERO,
            wss: None,
            body: Body::Burn,
            utility: None,
            tuf: None,
            abortable: true,
            abort_cost: Duration::ZERO,
            critical_sections: Vec::new(),
            parallel: None,
        }
    }

    /// What a policy knows about the task (with its fixed-priority rank): timing, utility,
    /// TUF, abortability and abort cost.
    pub fn policy_task(&self, rank: u32) -> schedlab_policy::PolicyTask {
        let mut p = schedlab_policy::PolicyTask::new(self.wcet, self.deadline, self.period, rank);
        p.utility = self.utility;
        p.tuf = self
            .tuf
            .clone()
            .or_else(|| self.utility.map(|value| Tuf::Step { value }));
        p.abortable = self.abortable;
        p.abort_cost = self.abort_cost;
        p
    }
}

impl From<&Task> for RtTask {
    fn from(t: &Task) -> RtTask {
        RtTask {
            wcet: t.wcet,
            deadline: t.deadline,
            period: t.period,
            offset: t.offset,
            wss: t.wss,
            body: Body::Burn,
            utility: t.utility,
            tuf: t.tuf.clone(),
            abortable: t.abortable,
            abort_cost: t.abort_cost,
            critical_sections: t.critical_sections.clone(),
            parallel: t.parallel.clone(),
        }
    }
}

/// Default margin added to the WCET for the SCHED_DEADLINE runtime of `linux-deadline`:
/// 500 µs. The kernel throttles a deadline thread whose runtime is used up until its next
/// period, so the margin must cover what the kernel charges beyond the job's own CPU time
/// (its wake-up and sleep system calls, interrupts taken while it runs, and — measured on a
/// KVM guest with HZ = 250 — occasional jumps of the charged runtime: with 50–100 µs about
/// 1–12 % of a U = 0.6 set's jobs were throttled and missed their deadlines, with 200 µs
/// ~1 %, with 300 µs and more none, docs/runtime.md). 500 µs per 10 ms period reserves 5 %
/// more bandwidth per task; the margin is reported with the results.
pub const DEFAULT_DL_MARGIN_NS: u64 = 500_000;

/// Spin margin of the DSP of `message-passing` (or `release_spin` if larger): it sleeps until
/// this long before the next release and spins the rest. Timer wake-ups come
/// ~15 µs late at the median and ~45 µs at p99 on an idle machine of this kind and later under
/// load (a 60 µs margin left 1–2 % of releases late by more than it while other programs
/// compiled, docs/runtime.md); the DSP's CPU runs no job, so spinning there costs only its
/// RT-throttling budget, which the DSP caps (40 % of every 100 ms).
pub const DEFAULT_DSP_SPIN_NS: u64 = 150_000;

/// SCHED_FIFO priority of job threads.
pub const PRIO_JOB: u8 = 10;
/// SCHED_FIFO priority of the per-CPU dispatchers (above every job).
pub const PRIO_DISPATCH: u8 = 20;
/// SCHED_FIFO priority of the run's main thread (the watchdog: it must be able to end the
/// run whatever the load).
pub const PRIO_MAIN: u8 = 30;

/// Run options.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The physical CPUs to run on; logical CPU `i` of the policy and the trace is
    /// `cpus[i]`.
    pub cpus: Vec<u32>,
    /// Dispatch architecture.
    pub arch: Arch,
    /// Policy name (`schedlab_policy::NAMES`).
    pub policy: String,
    /// Fixed-priority rank of each task (0 = highest).
    pub ranks: Vec<u32>,
    /// Placement of tasks on CPUs (required by `partitioned` and by `pedf`/`pfp`/`cedf`).
    pub placement: Option<Placement>,
    /// Length of the run: releases at `t < duration` after time zero.
    pub duration: Duration,
    /// Without permission for SCHED_FIFO, run under SCHED_OTHER (results are flagged).
    pub allow_non_rt: bool,
    /// Events per trace buffer (default: estimated from the task set).
    pub trace_capacity: Option<usize>,
    /// Dispatchers wake this long before a release and spin until it (lower release latency,
    /// at the price of CPU time taken from jobs).
    pub release_spin: Duration,
    /// After the horizon, how long to wait for threads to finish before giving up on them.
    pub grace: Duration,
    /// `global-lock` only: logical CPU 0 takes every release timer and runs no real-time
    /// job; the policy schedules the other CPUs (GSN-EDF-DI [MP §IV]).
    pub dedicated_irq_cpu: bool,
    /// `linux-deadline`: SCHED_DEADLINE runtime = WCET + this (capped at the deadline).
    pub dl_margin: Duration,
    /// Cache-thrashing background load [MP §IV]: one SCHED_OTHER thread per CPU of the run
    /// dirtying a buffer of this many bytes (see [`crate::background`]); `None`: none.
    pub background_load: Option<u64>,
    /// `message-passing`: the DSP polls its mailboxes while a client runs a job, within its
    /// spin budget (see [`crate::mp::dsp`]); off, it sleeps until a client rings it.
    pub dsp_poll: bool,
    /// `linux-deadline`: give the run's CPUs a root domain of their own for the run
    /// ([`crate::mech::cpuset`]), so SCHED_DEADLINE runs on a subset of the machine's CPUs
    /// (e.g. the client CPUs of `message-passing`, for a comparison on equal job CPUs).
    pub dl_cpuset: bool,
    /// `message-passing`: a completing job thread runs its client's scheduling step itself
    /// (report, the DSP's answer, the switch to the next job) instead of waking the client's
    /// dispatcher: one context switch per job-to-job hand-off instead of two
    /// ([`crate::mp::client::complete_inline`]). On by default.
    pub inline_completion: bool,
    /// The engine aborts every job still unfinished at its deadline (as `schedlab simulate
    /// --abort-late`): the policy is told (`on_abort`), a job that had started runs its
    /// abort handler (`crate::state`'s aborts). Not under `semi-partitioned` (refused).
    pub abort_late: bool,
    /// Names of the run's resources by id (a task set's `TaskSet::resources`), for
    /// [`JobCtx::lock_named`] and messages; ids beyond them are known by number only.
    pub resources: Vec<String>,
    /// Which threads execute the jobs [ChronOS §3.3] (user-space architectures only; the
    /// kernel baselines' tasks are their own threads): see [`Threading`].
    pub threading: Threading,
    /// The set's reservation groups [HCBS §3.2] resolved for the run's CPUs (logical), their
    /// admission checked (`crate::request::RunRequest::plan`); `None`: the set has none, or
    /// the architecture ignores them. Run by `linux-rt-groups`.
    pub groups: Option<Arc<GroupTree>>,
}

/// A threading model [ChronOS §3.3]: which thread executes a job.
///
/// - `PerTask`: one thread per task runs all its jobs, one after the other.
/// - `PerJob`: every job runs on another thread than its task's previous job. ChronOS
///   creates a thread per job at its release; the runtime takes the job's thread from a pool
///   created before the run ([`crate::job`], "Thread-per-job"), so the cost of creating a
///   thread stays out of the run (`schedlab measure timing` measures it) while the hand-over
///   between threads — waking another thread, setting its affinity — is paid per job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Threading {
    /// One thread per task.
    #[default]
    PerTask,
    /// Another thread for each job.
    PerJob,
}

impl Threading {
    /// The names, as the CLI and Python take them.
    pub const NAMES: [&'static str; 2] = ["per-task", "per-job"];

    /// Its name (`per-task`, `per-job`).
    pub fn name(self) -> &'static str {
        match self {
            Threading::PerTask => "per-task",
            Threading::PerJob => "per-job",
        }
    }

    /// The model named `s`.
    pub fn parse(s: &str) -> Option<Threading> {
        match s {
            "per-task" => Some(Threading::PerTask),
            "per-job" => Some(Threading::PerJob),
            _ => None,
        }
    }
}

impl RunConfig {
    /// A run of `policy` under `arch` on `cpus` for `duration`, ranks by task index.
    pub fn new(
        cpus: Vec<u32>,
        arch: Arch,
        policy: &str,
        n_tasks: usize,
        duration: Duration,
    ) -> RunConfig {
        RunConfig {
            cpus,
            arch,
            policy: policy.to_string(),
            ranks: (0..n_tasks as u32).collect(),
            placement: None,
            duration,
            allow_non_rt: false,
            trace_capacity: None,
            release_spin: Duration::ZERO,
            grace: Duration::from_ns(2_000_000_000),
            dedicated_irq_cpu: false,
            dl_margin: Duration::from_ns(DEFAULT_DL_MARGIN_NS),
            background_load: None,
            dsp_poll: true,
            dl_cpuset: false,
            inline_completion: true,
            abort_late: false,
            resources: Vec::new(),
            threading: Threading::PerTask,
            groups: None,
        }
    }

    /// Number of CPUs of the run.
    pub fn m(&self) -> u32 {
        u32::try_from(self.cpus.len()).unwrap_or(u32::MAX)
    }

    /// The logical CPUs real-time jobs run on: all of them, except logical CPU 0 under
    /// `message-passing` (the DSP) and under `global-lock` with a dedicated interrupt CPU.
    pub fn job_cpus(&self) -> std::ops::Range<u32> {
        let first = u32::from(self.reserves_cpu0());
        first..self.m()
    }

    /// The overhead-file section this run's traces measure (trace metadata `architecture`,
    /// which `trace overheads` and `measure curves` fit under): the architecture's name, but
    /// `global-lock-di` for `global-lock` with a dedicated interrupt CPU — GSN-EDF-DI's
    /// overheads are not GSN-EDF's, and overhead-aware analysis reads them from
    /// `[arch.global-lock-di]`.
    pub fn overhead_arch(&self) -> &'static str {
        if self.dedicated_irq_cpu && self.arch.name() == "global-lock" {
            "global-lock-di"
        } else {
            self.arch.name()
        }
    }

    /// Whether logical CPU 0 runs no real-time job (the DSP, or GSN-EDF-DI's interrupt CPU).
    pub fn reserves_cpu0(&self) -> bool {
        (self.arch.def().reserves_cpu0)(self)
    }

    /// The architecture's note for the first line of a run's table (e.g. ` (DSP: CPU 0)`),
    /// and ` (thread-per-job)` under that threading model.
    pub fn arch_note(&self) -> String {
        let mut note = (self.arch.def().note)(self);
        if self.threading == Threading::PerJob {
            note.push_str(" (thread-per-job)");
        }
        note
    }
}

/// Checks the tasks.
pub(crate) fn validate_tasks(tasks: &[RtTask]) -> Result<(), RuntimeError> {
    if tasks.is_empty() {
        return Err(RuntimeError::NoTasks);
    }
    for (i, t) in tasks.iter().enumerate() {
        let bad = |field, message: &str| {
            Err(RuntimeError::InvalidTask {
                task: i,
                field,
                message: message.to_string(),
            })
        };
        if let Some(f) = schedlab_model::task::zero_timing_field(t.wcet, t.period, t.deadline) {
            return bad(f, schedlab_model::task::MUST_BE_POSITIVE);
        }
        if t.wss.is_some_and(|w| w > (1 << 32)) {
            return bad("wss", "is larger than 4 GiB");
        }
        // The model's rules (`schedlab_model::Task::validate`), for tasks built in code.
        if t.abort_cost >= t.period {
            return bad("abort_cost", "must be below the period");
        }
        if !t.abortable && !t.abort_cost.is_zero() {
            return bad(
                "abort_cost",
                "a task with `abortable = false` is never aborted",
            );
        }
        if let Some(p) = t.tuf.as_ref().and_then(Tuf::problem) {
            return bad("tuf", &p);
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod overhead_arch_tests {
    use super::*;

    #[test]
    fn dedicated_interrupt_cpu_runs_measure_global_lock_di() {
        let arch = |name: &str| Arch::named(name, "ticket").unwrap();
        let mut c = RunConfig::new(
            vec![0, 1],
            arch("global-lock"),
            "gedf",
            2,
            Duration::from_ns(1),
        );
        assert_eq!(c.overhead_arch(), "global-lock");
        c.dedicated_irq_cpu = true;
        assert_eq!(c.overhead_arch(), "global-lock-di");
        let c = RunConfig::new(
            vec![0, 1],
            arch("message-passing"),
            "gedf",
            2,
            Duration::from_ns(1),
        );
        assert_eq!(c.overhead_arch(), "message-passing");
    }
}
