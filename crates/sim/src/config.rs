//! What to simulate: the tasks as the simulator sees them ([`SimTask`]), how jobs arrive
//! ([`Arrivals`]), how long they execute ([`ExecTime`]) and the run options ([`SimConfig`]).
//!
//! Randomness (sporadic delays, execution times) comes from ChaCha8 streams seeded by
//! [`SimConfig::seed`], one stream per task and purpose, so a task's draws do not depend on how
//! its events interleave with other tasks' events: the same seed gives the same schedule bit
//! for bit, and adding a task does not change the draws of the others.

use crate::error::SimError;
use crate::overheads::Overheads;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schedlab_model::extensions::{CriticalSection, MAX_CRITICAL_SECTIONS};
use schedlab_model::{Duration, ParallelStructure, Task, Tuf};

/// A task as the simulator sees it: `(C, D, T)`, the first release offset, an optional
/// utility (downward-step time/utility function: earned iff the job meets its deadline) or a
/// general time/utility function, its abort handler, its critical sections, and its fork-join
/// structure if it is parallel (engine module doc, "Strands").
#[derive(Clone, Debug, PartialEq)]
pub struct SimTask {
    /// WCET `C` (> 0).
    pub wcet: Duration,
    /// Relative deadline `D` (> 0; may be smaller or larger than `T`).
    pub deadline: Duration,
    /// Period or minimum inter-arrival time `T` (> 0).
    pub period: Duration,
    /// Release time of the first job.
    pub offset: Duration,
    /// Utility of a job that meets its deadline (for AUR).
    pub utility: Option<f64>,
    /// Working-set size in bytes (CPMD with overheads; `None` counts as 0).
    pub wss: Option<u64>,
    /// The CPU whose interrupts the task's first release uses when release handlers run on
    /// the jobs' CPUs (overheads only; `None` = CPU 0): the first CPU of its partition.
    pub home_cpu: Option<u32>,
    /// A general time/utility function (overrides `utility`; [`SimTask::effective_tuf`]).
    pub tuf: Option<Tuf>,
    /// Whether a policy may abort its jobs (aborting one that is not is a policy error).
    pub abortable: bool,
    /// The execution time of its abort handler (engine module doc, "Aborts").
    pub abort_cost: Duration,
    /// Critical sections of each job (engine module doc, "Resources").
    pub critical_sections: Vec<CriticalSection>,
    /// The fork-join structure of a parallel task [RTWS §III] (`None`: sequential): its
    /// threads run as strands (engine module doc, "Strands"), under a policy that takes
    /// parallel tasks (else [`SimError::ParallelTask`]); `wcet` must equal its work.
    pub parallel: Option<ParallelStructure>,
}

impl SimTask {
    /// A task `(C, D, T)` with offset zero and no utility.
    pub fn new(wcet: Duration, deadline: Duration, period: Duration) -> SimTask {
        SimTask {
            wcet,
            deadline,
            period,
            offset: Duration::ZERO,
            utility: None,
            wss: None,
            home_cpu: None,
            tuf: None,
            abortable: true,
            abort_cost: Duration::ZERO,
            critical_sections: Vec::new(),
            parallel: None,
        }
    }
    /// The same task with its first release at `offset`.
    pub fn with_offset(mut self, offset: Duration) -> SimTask {
        self.offset = offset;
        self
    }
    /// The same task with a working-set size in bytes.
    pub fn with_wss(mut self, wss: u64) -> SimTask {
        self.wss = Some(wss);
        self
    }
    /// The same task with a utility.
    pub fn with_utility(mut self, utility: f64) -> SimTask {
        self.utility = Some(utility);
        self
    }
    /// The same task with an abort handler of `cost`.
    pub fn with_abort_cost(mut self, cost: Duration) -> SimTask {
        self.abort_cost = cost;
        self
    }
    /// The same task with a critical section on `resource` from `start` for `length` of its
    /// execution.
    pub fn with_section(mut self, resource: u32, start: Duration, length: Duration) -> SimTask {
        self.critical_sections.push(CriticalSection {
            resource,
            start,
            length,
        });
        self
    }
    /// Its time/utility function: `tuf`, else the downward step of `utility`, else none.
    pub fn effective_tuf(&self) -> Option<Tuf> {
        match (&self.tuf, self.utility) {
            (Some(t), _) => Some(t.clone()),
            (None, Some(value)) => Some(Tuf::Step { value }),
            (None, None) => None,
        }
    }
}

impl From<&Task> for SimTask {
    fn from(t: &Task) -> SimTask {
        SimTask {
            wcet: t.wcet,
            deadline: t.deadline,
            period: t.period,
            offset: t.offset,
            utility: t.utility,
            wss: t.wss,
            home_cpu: t.cpu,
            tuf: t.tuf.clone(),
            abortable: t.abortable,
            abort_cost: t.abort_cost,
            critical_sections: t.critical_sections.clone(),
            parallel: t.parallel.clone(),
        }
    }
}

/// How jobs arrive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Arrivals {
    /// Job k of a task arrives at `offset + k·T` (synchronous when all offsets are zero).
    #[default]
    Periodic,
    /// Job k+1 arrives `T + δ` after job k, δ drawn uniformly from the integers
    /// `[0, max_delay]` (seeded), so arrivals are never closer than `T`.
    Sporadic {
        /// Largest extra delay.
        max_delay: Duration,
    },
}

/// How long a job executes (its demand; policies never learn it before completion).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ExecTime {
    /// Every job executes exactly its WCET.
    #[default]
    Wcet,
    /// Uniform over the integers `[⌈lo·C⌉, ⌊hi·C⌋]`, clamped to `[1, C]` (`0 ≤ lo ≤ hi ≤ 1`).
    UniformFraction {
        /// Smallest fraction of the WCET.
        lo: f64,
        /// Largest fraction of the WCET.
        hi: f64,
    },
    /// `round(x·C)` with `x ~ Normal(mean, sd)`, clamped to `[1, C]` (normal capped at WCET).
    NormalCapped {
        /// Mean, as a fraction of the WCET.
        mean: f64,
        /// Standard deviation, as a fraction of the WCET (≥ 0).
        sd: f64,
    },
    /// Overruns: with probability `prob` a job executes `⌈factor·C⌉` (`factor ≥ 1`), otherwise
    /// exactly `C` — a WCET that is occasionally exceeded, to see how a policy contains the
    /// damage (the late job keeps running unless `abort_late`; its successors wait for it).
    Overrun {
        /// Probability of an overrun per job, in `[0, 1]`.
        prob: f64,
        /// Demand of an overrunning job, as a multiple of the WCET (≥ 1).
        factor: f64,
    },
}

/// Run options.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// Number of CPUs (must equal the policy's).
    pub cpus: u32,
    /// The horizon: releases at `t < duration` are simulated; the run stops at `duration`.
    pub duration: Duration,
    /// Arrival model.
    pub arrivals: Arrivals,
    /// Execution-time model.
    pub exec: ExecTime,
    /// Abort a job at its deadline if it has not completed (otherwise it runs to completion).
    pub abort_late: bool,
    /// Seed of all random draws.
    pub seed: u64,
    /// Record trace events into [`crate::SimResult::trace`].
    pub record_trace: bool,
    /// Keep per-job records in [`crate::SimResult::jobs`] (metrics are computed either way;
    /// turn off for long benchmark runs to keep memory constant).
    pub record_jobs: bool,
    /// Run-time overheads to charge (`None`: zero overheads, the default); see
    /// [`crate::overheads`].
    pub overheads: Option<Overheads>,
}

impl SimConfig {
    /// Periodic arrivals, WCET execution, no aborts, seed 0, job records kept, no trace.
    pub fn new(cpus: u32, duration: Duration) -> SimConfig {
        SimConfig {
            cpus,
            duration,
            arrivals: Arrivals::Periodic,
            exec: ExecTime::Wcet,
            abort_late: false,
            seed: 0,
            record_trace: false,
            record_jobs: true,
            overheads: None,
        }
    }

    /// Checks the options that do not depend on the tasks: `1 ≤ cpus ≤`
    /// [`MAX_CPUS`](schedlab_model::platform::MAX_CPUS) (the engine and the policy allocate
    /// per-CPU state), a positive duration, well-formed execution-time parameters.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.cpus == 0 {
            return Err(SimError::NoCpus);
        }
        schedlab_model::platform::check_cpu_count(self.cpus)?;
        if self.duration.is_zero() {
            return Err(SimError::ZeroDuration);
        }
        let bad = |field, message: String| Err(SimError::InvalidConfig { field, message });
        match self.exec {
            ExecTime::Wcet => {}
            ExecTime::UniformFraction { lo, hi } => {
                if !(lo.is_finite() && hi.is_finite() && 0.0 <= lo && lo <= hi && hi <= 1.0) {
                    return bad(
                        "exec",
                        format!("uniform fraction needs 0 ≤ lo ≤ hi ≤ 1, got lo = {lo}, hi = {hi}"),
                    );
                }
            }
            ExecTime::Overrun { prob, factor } => {
                if !((0.0..=1.0).contains(&prob) && factor.is_finite() && factor >= 1.0) {
                    return bad(
                        "exec",
                        format!(
                            "overrun needs 0 ≤ probability ≤ 1 and a factor ≥ 1, got {prob}, {factor}"
                        ),
                    );
                }
            }
            ExecTime::NormalCapped { mean, sd } => {
                if !(mean.is_finite() && sd.is_finite() && sd >= 0.0) {
                    return bad(
                        "exec",
                        format!(
                            "normal needs a finite mean and sd ≥ 0, got mean = {mean}, sd = {sd}"
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}

/// Checks one task.
pub(crate) fn validate_task(index: usize, t: &SimTask) -> Result<(), SimError> {
    let bad = |field, message: &str| {
        Err(SimError::InvalidTask {
            task: index,
            field,
            message: message.to_string(),
        })
    };
    if let Some(f) = schedlab_model::task::zero_timing_field(t.wcet, t.period, t.deadline) {
        return bad(f, schedlab_model::task::MUST_BE_POSITIVE);
    }
    if let Some(p) = &t.parallel {
        if p.work() != t.wcet {
            return bad(
                "parallel",
                &format!(
                    "adds up to {} of work, but `wcet` is {} (the wcet of a parallel task is the sum of its threads)",
                    p.work(),
                    t.wcet
                ),
            );
        }
        if !t.critical_sections.is_empty() {
            return bad(
                "critical_sections",
                "are not supported on a parallel task (its threads are independent, [RTWS §III])",
            );
        }
    }
    if let Some(u) = t.utility {
        if !(u.is_finite() && u >= 0.0) {
            return bad("utility", "must be a finite number ≥ 0");
        }
    }
    if let Some(m) = t.tuf.as_ref().and_then(Tuf::problem) {
        return bad("tuf", &m);
    }
    if !t.abortable && !t.abort_cost.is_zero() {
        return bad("abort_cost", "must be 0 for a task that is not abortable");
    }
    validate_sections(t).map_or(Ok(()), |m| bad("critical_sections", m))
}

/// What is wrong with `t`'s critical sections (the checks of `Task::validate`: at most
/// [`MAX_CRITICAL_SECTIONS`], each of positive length and ending within the WCET, so every
/// job that executes its WCET releases what it locked).
fn validate_sections(t: &SimTask) -> Option<&'static str> {
    if t.critical_sections.len() > MAX_CRITICAL_SECTIONS {
        return Some("has more sections than allowed per task");
    }
    let bad = |cs: &CriticalSection| {
        cs.length.is_zero() || cs.start.checked_add(cs.length).is_none_or(|e| e > t.wcet)
    };
    t.critical_sections
        .iter()
        .any(bad)
        .then_some("need a positive length and must end within the wcet")
}

/// The two random streams of one task.
pub(crate) struct TaskRng {
    exec: ChaCha8Rng,
    arrival: ChaCha8Rng,
}

impl TaskRng {
    /// Streams `2i` (execution times) and `2i+1` (arrival delays) of the seed.
    pub(crate) fn new(seed: u64, task: u32) -> TaskRng {
        let mut exec = ChaCha8Rng::seed_from_u64(seed);
        exec.set_stream(2 * u64::from(task));
        let mut arrival = ChaCha8Rng::seed_from_u64(seed);
        arrival.set_stream(2 * u64::from(task) + 1);
        TaskRng { exec, arrival }
    }

    /// The extra sporadic delay in `[0, max_delay]`.
    pub(crate) fn delay(&mut self, arrivals: Arrivals) -> Duration {
        match arrivals {
            Arrivals::Periodic => Duration::ZERO,
            Arrivals::Sporadic { max_delay } => {
                Duration::from_ns(self.arrival.random_range(0..=max_delay.as_ns()))
            }
        }
    }

    /// The execution demand of the next job: in `[1, wcet]`, or up to `⌈factor·wcet⌉` under
    /// the overrun model (saturating at the largest representable time).
    pub(crate) fn demand(&mut self, exec: ExecTime, wcet: Duration) -> Duration {
        let c = wcet.as_ns();
        let ns = match exec {
            ExecTime::Wcet => c,
            ExecTime::UniformFraction { lo, hi } => {
                let cf = c as f64;
                let lo_ns = ((lo * cf).ceil() as u64).clamp(1, c);
                let hi_ns = ((hi * cf).floor() as u64).clamp(lo_ns, c);
                self.exec.random_range(lo_ns..=hi_ns)
            }
            ExecTime::NormalCapped { mean, sd } => {
                let x = mean + sd * standard_normal(&mut self.exec);
                // `as` saturates (negative → 0, NaN → 0), then the clamp applies the cap.
                ((x * c as f64).round() as u64).clamp(1, c)
            }
            ExecTime::Overrun { prob, factor } => {
                if self.exec.random::<f64>() < prob {
                    // `as` saturates; an overrun never executes less than the WCET.
                    ((factor * c as f64).ceil() as u64).max(c)
                } else {
                    c
                }
            }
        };
        Duration::from_ns(ns)
    }
}

/// One standard normal variate by the Box–Muller transform (one per call; deterministic).
fn standard_normal(rng: &mut ChaCha8Rng) -> f64 {
    // u1 in (0, 1] so that ln(u1) is finite.
    let u1 = 1.0 - rng.random::<f64>();
    let u2 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}
