//! The scaling model: predicts the run-time overheads of a dispatch architecture at core
//! counts this machine does not have ([MP §IV, Figs. 6–7]; `schedlab scale`,
//! docs/scaling.md) by executing the architecture's scheduler *code paths* on simulated CPUs.
//!
//! # Model = policy simulator + mechanism overlay
//! 1. The **policy simulator** ([`crate::engine`], zero overheads) decides *what* happens
//!    when: releases, completions, which CPUs' jobs change — `gedf` for `global-lock`,
//!    `global-lock-di` and `message-passing`, `sd` (the decision-level model of
//!    SCHED_DEADLINE, `schedlab_policy::sd`) for `push-pull`, `pedf` on the caller's
//!    placement for `partitioned`. Its events are streamed
//!    ([`crate::engine::simulate_with_sink`]), grouped into instants ([`feed`]); no trace is
//!    kept.
//! 2. The **overlay** executes, for each instant, the architecture's code paths
//!    ([`arch`]: one file per architecture, each listing its paths and their costs) on
//!    simulated CPUs in continuous time ([`machine`]): a CPU runs one path at a time with
//!    interrupts off; locks are FIFO with ticket or MCS handoff costs [ChronOS §7, Figs.
//!    7.1–7.2]; the DSP serves per-client mailboxes in order of arrival [MP §III, App. B];
//!    IPIs take `ipi_latency`; release timers fire on every CPU (the task's previous CPU) or
//!    on a dedicated one (`global-lock-di`, and the DSP under `message-passing`); push-pull
//!    runs `kernel/sched/deadline.c`'s wake-up placement, push and pull with cpudl lookups,
//!    double locking and retries ([`arch`]'s `push_pull`).
//! 3. Each overhead is a **span** of the overlay ([`stats::Span`]): Δev (timer expiry →
//!    handler start), Δrel (handler, lock waiting included), Δipi (send → the receiver's path
//!    starts), Δsch (scheduler path, lock waiting included, as [MP §IV-A]), Δcxs, Δreq
//!    (client send → DSP dequeue), Δdsp (DSP handler), and lock waiting. Each cost of the
//!    costs file ([`schedlab_model::costs`]) is one step of a path, so a measured span maps
//!    onto a sum of costs plus the waiting the model computes.
//! 4. **Noise** (`noise_ppm`, `noise_max`; off by default): a noisy path is stopped for a
//!    seeded uniform delay before one of its timed steps chosen uniformly, so the delay can
//!    show in any span, and in the waiters of a lock it holds ([`machine`], "Noise").
//!
//! `--cpus M` counts every CPU: jobs run on `M − 1` CPUs under `message-passing` (CPU 0 is
//! the DSP) and `global-lock-di` (CPU 0 takes every release interrupt), on `M` otherwise.
//!
//! # Assumption: one-way coupling (overheads ≪ job lengths)
//! The overlay never delays the schedule: jobs start and complete where the zero-overhead
//! policy simulator puts them, and the overlay's paths run beside them. With µs overheads and
//! 10–100 ms periods this holds (the schedule moves by far less than a job). It breaks when a
//! span approaches job lengths — thousands of µs of lock contention at m ≥ 64 under a global
//! lock, a saturated DSP: the predicted overheads are then those of the zero-overhead
//! schedule, an underestimate of the feedback (a late release delays the next decision), and
//! a saturated resource shows as a growing backlog: [`ScaleReport::saturated`] when a path
//! waited longer than the shortest period, [`ScaleError::Overloaded`] past
//! [`MAX_PATHS_IN_FLIGHT`] paths in flight.
//!
//! # Cost
//! `O(E (log n + log m))` for the policy simulator's `E` events, plus `O(P log P)` for the
//! overlay's `P` steps (a binary heap of pending machine events; a path costs `O(1)` steps
//! per job or link it handles). Memory: `O(n + m)` plus the paths in flight.

pub(crate) mod arch;
pub(crate) mod feed;
pub(crate) mod machine;
mod output;
pub mod stats;

#[cfg(test)]
mod tests;

pub use output::{overhead_file, overhead_value, report_json, section};
pub use stats::{Span, SpanStats, Stats};

use crate::config::SimConfig;
use crate::front::{run_with_sink, RunError};
use arch::ArchModel;
use feed::{Feed, Mirror};
use machine::{Costs, Machine};
use schedlab_model::costs::{CostsFile, LockSemantics, OpCosts};
use schedlab_model::overheads::OverheadName;
use schedlab_model::{Duration, TaskSet};
use schedlab_policy::Placement;
use schedlab_trace::Event;

/// The largest `--cpus` of the model.
pub const MAX_CPUS: u32 = 1024;
/// The most paths waiting or running at once before the model reports an overloaded
/// mechanism (about 1 GB at the worst).
pub const MAX_PATHS_IN_FLIGHT: usize = 4_000_000;

/// The most jobs one run may release (`Σ ⌈duration / T_i⌉`): a bound on the run's time.
pub const MAX_JOBS: u64 = 200_000_000;

/// An architecture of the model (`--arch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScaleArch {
    /// GSN-EDF: one global lock, release interrupts on every CPU.
    GlobalLock,
    /// GSN-EDF-DI: one global lock, CPU 0 takes every release interrupt.
    GlobalLockDi,
    /// G-EDF-MP: CPU 0 is the DSP.
    MessagePassing,
    /// P-EDF: one scheduler per CPU.
    Partitioned,
    /// SCHED_DEADLINE-style per-CPU run queues with push and pull.
    PushPull,
}

impl ScaleArch {
    /// Every architecture, in `--arch` order.
    pub const ALL: [ScaleArch; 5] = [
        ScaleArch::GlobalLock,
        ScaleArch::GlobalLockDi,
        ScaleArch::MessagePassing,
        ScaleArch::Partitioned,
        ScaleArch::PushPull,
    ];
    /// The `--arch` name (and the overhead file's section).
    pub fn key(self) -> &'static str {
        match self {
            ScaleArch::GlobalLock => "global-lock",
            ScaleArch::GlobalLockDi => "global-lock-di",
            ScaleArch::MessagePassing => "message-passing",
            ScaleArch::Partitioned => "partitioned",
            ScaleArch::PushPull => "push-pull",
        }
    }
    /// The architecture named `key`.
    pub fn from_key(key: &str) -> Option<ScaleArch> {
        ScaleArch::ALL.into_iter().find(|a| a.key() == key)
    }
    /// All names.
    pub fn names() -> Vec<&'static str> {
        ScaleArch::ALL.iter().map(|a| a.key()).collect()
    }
    /// The policy the policy simulator runs.
    pub fn policy(self) -> &'static str {
        match self {
            ScaleArch::Partitioned => "pedf",
            ScaleArch::PushPull => "sd",
            _ => "gedf",
        }
    }
    /// The CPUs that run jobs out of `m`.
    pub fn job_cpus(self, m: u32) -> u32 {
        match self {
            ScaleArch::GlobalLockDi | ScaleArch::MessagePassing => m.saturating_sub(1),
            _ => m,
        }
    }
    /// The overheads it produces (written even when no sample was taken, as 0).
    pub fn overheads(self) -> &'static [OverheadName] {
        use OverheadName::*;
        match self {
            ScaleArch::Partitioned => &[ReleaseLatency, Release, Schedule, ContextSwitch, LockWait],
            ScaleArch::MessagePassing => &[
                ReleaseLatency,
                Release,
                Ipi,
                Schedule,
                ContextSwitch,
                Request,
                Dsp,
            ],
            _ => &[
                ReleaseLatency,
                Release,
                Ipi,
                Schedule,
                ContextSwitch,
                LockWait,
            ],
        }
    }
}

/// What to model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleConfig {
    /// The architecture.
    pub arch: ScaleArch,
    /// `M`, every CPU (`2..=MAX_CPUS`; at least 2 where CPU 0 runs no jobs).
    pub cpus: u32,
    /// Simulated time.
    pub duration: Duration,
    /// The operation costs.
    pub costs: OpCosts,
    /// The global lock's semantics (also push-pull's run-queue locks).
    pub lock: LockSemantics,
    /// Seed of the noise (and of the policy simulator's draws).
    pub seed: u64,
}

impl ScaleConfig {
    /// Default costs, a ticket lock, seed 0.
    pub fn new(arch: ScaleArch, cpus: u32, duration: Duration) -> ScaleConfig {
        ScaleConfig {
            arch,
            cpus,
            duration,
            costs: OpCosts::default(),
            lock: LockSemantics::Ticket,
            seed: 0,
        }
    }
    /// The costs and lock semantics of a costs file for this architecture
    /// ([`CostsFile::for_arch`]).
    pub fn with_costs_file(mut self, file: &CostsFile) -> ScaleConfig {
        self.costs = file.for_arch(self.arch.key());
        self.lock = file.lock;
        self
    }
}

/// The model's result for one task set at one `M`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleReport {
    /// The architecture.
    pub arch: ScaleArch,
    /// `M`.
    pub cpus: u32,
    /// `n`.
    pub tasks: usize,
    /// Every span's statistics.
    pub stats: Stats,
    /// Events the policy simulator handed to its policy.
    pub events: u64,
    /// Jobs completed.
    pub jobs: u64,
    /// Code paths the overlay executed.
    pub paths: u64,
    /// Abnormal-path counters of the architecture (push retries, …).
    pub counters: Vec<(String, u64)>,
    /// A path waited for its CPU longer than the shortest period (the largest Δev, Δipi or
    /// Δreq): the mechanism did not keep up, one-way coupling does not hold and the spans
    /// grow with the simulated time (module doc, "Assumption").
    pub saturated: bool,
}

impl ScaleReport {
    /// (overhead, statistics) of every overhead the architecture has, in file order.
    pub fn overheads(&self) -> Vec<(OverheadName, SpanStats)> {
        self.arch
            .overheads()
            .iter()
            .filter_map(|&o| {
                Span::ALL
                    .into_iter()
                    .find(|s| s.overhead() == o)
                    .map(|s| (o, self.stats.get(s)))
            })
            .collect()
    }
}

/// Why the model could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScaleError {
    /// The policy simulator refused the input.
    #[error(transparent)]
    Run(#[from] RunError),
    /// `--cpus` out of range.
    #[error("--cpus {cpus}: {arch} needs {min} to {max} CPUs")]
    Cpus {
        /// The architecture.
        arch: &'static str,
        /// As given.
        cpus: u32,
        /// The fewest it takes.
        min: u32,
        /// [`MAX_CPUS`].
        max: u32,
    },
    /// `partitioned` without a placement.
    #[error("partitioned needs a placement of the tasks on the CPUs")]
    NoPlacement,
    /// The placement does not fit.
    #[error("placement: {0}")]
    Placement(String),
    /// The run would release more than [`MAX_JOBS`] jobs.
    #[error("the run would release {0} jobs (the tasks' duration/period summed), more than the model's limit of {MAX_JOBS}: shorten the duration")]
    TooManyJobs(u64),
    /// The mechanism cannot keep up (module doc, "Assumption").
    #[error("{arch} at {cpus} CPUs: more than {limit} code paths waiting at t = {time_ns} ns: the mechanism is overloaded (it cannot keep up with the events of this task set; one-way coupling no longer holds)")]
    Overloaded {
        /// The architecture.
        arch: &'static str,
        /// `M`.
        cpus: u32,
        /// [`MAX_PATHS_IN_FLIGHT`].
        limit: usize,
        /// When.
        time_ns: u64,
    },
}

/// Builds the architecture's mechanism.
fn model(
    cfg: &ScaleConfig,
    tasks: &TaskSet,
    placement: Option<&Placement>,
) -> Result<Box<dyn ArchModel>, ScaleError> {
    let job_cpus = cfg.arch.job_cpus(cfg.cpus);
    Ok(match cfg.arch {
        ScaleArch::GlobalLock => Box::new(arch::global_lock::GlobalLock::new(false)),
        ScaleArch::GlobalLockDi => Box::new(arch::global_lock::GlobalLock::new(true)),
        ScaleArch::MessagePassing => Box::new(arch::message_passing::MessagePassing),
        ScaleArch::Partitioned => {
            let p = placement.ok_or(ScaleError::NoPlacement)?;
            if p.domain_of_task.len() != tasks.len()
                || p.domain_of_task.iter().any(|&c| c >= job_cpus)
            {
                return Err(ScaleError::Placement(format!(
                    "needs one CPU below {job_cpus} for each of the {} tasks",
                    tasks.len()
                )));
            }
            Box::new(arch::partitioned::Partitioned::new(
                p.domain_of_task.clone(),
                job_cpus,
            ))
        }
        ScaleArch::PushPull => Box::new(arch::push_pull::PushPull::new(job_cpus)),
    })
}

/// The overlay fed by the policy simulator's events (module doc).
struct Overlay {
    feed: Feed,
    mirror: Mirror,
    machine: Machine,
    model: Box<dyn ArchModel>,
    overloaded: Option<u64>,
    horizon: u64,
}

impl Overlay {
    fn event(&mut self, e: &Event) {
        // The engine closes the running segments at the horizon (switch-outs that are no
        // scheduling); only completions there are real.
        if e.time >= self.horizon && e.kind != schedlab_trace::Kind::Complete {
            return;
        }
        if self.feed.starts_new(e) {
            self.close();
        }
        self.feed.add(e);
    }

    /// Executes the open instant's paths.
    fn close(&mut self) {
        if !self.feed.is_open() || self.overloaded.is_some() {
            self.feed.reset();
            return;
        }
        self.feed.close(&self.mirror);
        let t = self.feed.inst.t;
        self.machine.run_until(t);
        self.model
            .instant(&self.feed.inst, &self.mirror, &mut self.machine);
        self.mirror.apply(&self.feed.inst);
        self.feed.reset();
        if self.machine.in_flight() > MAX_PATHS_IN_FLIGHT {
            self.overloaded = Some(t);
        }
    }
}

/// Runs the model of `config.arch` on `tasks` (`ranks`: fixed-priority ranks, unused by the
/// EDF policies but required by the simulator's front; `placement`: each task's CPU for
/// `partitioned`, among the `M` CPUs).
pub fn scale(
    tasks: &TaskSet,
    ranks: &[u32],
    placement: Option<Placement>,
    config: &ScaleConfig,
) -> Result<ScaleReport, ScaleError> {
    let arch = config.arch;
    let min = if arch.job_cpus(2) == 1 { 2 } else { 1 };
    if config.cpus < min || config.cpus > MAX_CPUS {
        return Err(ScaleError::Cpus {
            arch: arch.key(),
            cpus: config.cpus,
            min,
            max: MAX_CPUS,
        });
    }
    let d = config.duration.as_ns();
    let jobs = tasks
        .iter()
        .map(|t| d.div_ceil(t.period.as_ns().max(1)))
        .fold(0u64, u64::saturating_add);
    if jobs > MAX_JOBS {
        return Err(ScaleError::TooManyJobs(jobs));
    }
    let job_cpus = arch.job_cpus(config.cpus);
    let model = model(config, tasks, placement.as_ref())?;
    let locks = if arch == ScaleArch::Partitioned || arch == ScaleArch::PushPull {
        config.cpus + 1
    } else {
        1
    };
    let costs = Costs::from_op(&config.costs);
    let mut overlay = Overlay {
        feed: Feed::new(job_cpus),
        mirror: Mirror::new(tasks.len(), job_cpus),
        machine: Machine::new(config.cpus, locks, costs, config.lock, config.seed),
        model,
        overloaded: None,
        horizon: config.duration.as_ns(),
    };
    let mut sim = SimConfig::new(job_cpus, config.duration);
    sim.seed = config.seed;
    sim.record_jobs = false;
    let mut sink = |e: &Event| overlay.event(e);
    let (result, _) = run_with_sink(
        tasks,
        arch.policy(),
        ranks,
        placement,
        &sim,
        Some(&mut sink),
    )?;
    overlay.close();
    if let Some(time_ns) = overlay.overloaded {
        return Err(ScaleError::Overloaded {
            arch: arch.key(),
            cpus: config.cpus,
            limit: MAX_PATHS_IN_FLIGHT,
            time_ns,
        });
    }
    overlay.machine.run_until(u64::MAX);
    let stats = &overlay.machine.stats;
    let lag = [Span::ReleaseLatency, Span::Ipi, Span::Request]
        .into_iter()
        .map(|s| stats.get(s).max_ns)
        .max()
        .unwrap_or(0);
    let shortest = tasks
        .iter()
        .map(|t| t.period.as_ns())
        .min()
        .unwrap_or(u64::MAX);
    Ok(ScaleReport {
        saturated: lag > shortest,
        arch,
        cpus: config.cpus,
        tasks: tasks.len(),
        stats: overlay.machine.stats.clone(),
        events: result.events_processed,
        jobs: overlay.mirror.jobs,
        paths: overlay.machine.paths_run,
        counters: overlay
            .model
            .counters()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    })
}
