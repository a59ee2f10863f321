//! Timing accuracy of the two threading models [ChronOS §3.3, §9.4]: how late a job's code
//! starts after its intended release, for a range of release intervals.
//!
//! - **Thread-per-task** (the runtime's model, `crate::job`): one thread sleeps until each
//!   release (an absolute CLOCK_MONOTONIC `clock_nanosleep`, as the kernel baselines' task
//!   threads and the dispatchers do) and runs the job when it wakes. The thesis measured it
//!   with `usleep()` in a loop.
//! - **Thread-per-job**: at each release a *new* thread is created that runs the job and
//!   ends. The thesis used a `timer_create(SIGEV_THREAD)` timer, whose glibc implementation
//!   has a helper thread wait for the expiry and `pthread_create` one thread per expiry; here
//!   a releasing thread waits for the release the same way and creates the job's thread
//!   (`std::thread::spawn`: `clone` + the thread's start-up), which reads the clock first.
//!
//! A sample's error is `start of the job's code − intended release` (ns, never negative: an
//! absolute sleep does not return early). The measuring threads are pinned to one CPU at a
//! SCHED_FIFO priority above the runtime's ([`PRIO`]; a new thread inherits its creator's
//! class and affinity), or SCHED_OTHER with `allow_non_rt` (reported).
//!
//! Bounds: at most [`MAX_INTERVALS`] intervals, each at most [`MAX_INTERVAL_NS`], at most
//! [`MAX_SAMPLES`] per interval, and a planned sleeping time (interval × samples, summed) of
//! at most [`MAX_TOTAL_NS`]. Cost: one sleep (and, per job, one thread creation) per sample.

use crate::error::RuntimeError;
use crate::mech::clock::{monotonic_ns, sleep_until};
use crate::mech::sched::{self, Class};

/// Most intervals of one measurement.
pub const MAX_INTERVALS: usize = 64;
/// Longest interval (10 s).
pub const MAX_INTERVAL_NS: u64 = 10_000_000_000;
/// Most samples per interval.
pub const MAX_SAMPLES: u32 = 100_000;
/// Most planned sleeping time of one measurement (10 min).
pub const MAX_TOTAL_NS: u64 = 600_000_000_000;
/// SCHED_FIFO priority of the measuring threads.
pub const PRIO: u8 = 40;

/// A threading model [ChronOS §3.3] (the run's [`crate::config::Threading`]).
pub use crate::config::Threading as Model;

/// What to measure.
#[derive(Clone, Debug)]
pub struct TimingConfig {
    /// The threading model.
    pub model: Model,
    /// Release intervals (ns).
    pub intervals_ns: Vec<u64>,
    /// Samples per interval.
    pub samples: u32,
    /// The physical CPU the threads run on.
    pub cpu: u32,
    /// Without permission for SCHED_FIFO, measure under SCHED_OTHER.
    pub allow_non_rt: bool,
}

/// The errors measured for one interval.
#[derive(Clone, Debug)]
pub struct Row {
    /// The interval (ns).
    pub interval_ns: u64,
    /// Per sample: start of the job's code − intended release (ns).
    pub errors_ns: Vec<u64>,
}

/// A measurement's result.
#[derive(Clone, Debug)]
pub struct Timing {
    /// The model measured.
    pub model: Model,
    /// Whether the threads ran under SCHED_FIFO.
    pub real_time: bool,
    /// One row per interval, in the order given.
    pub rows: Vec<Row>,
}

/// Checks the configuration's bounds (module doc).
fn check(cfg: &TimingConfig) -> Result<(), RuntimeError> {
    if cfg.intervals_ns.is_empty() || cfg.intervals_ns.len() > MAX_INTERVALS {
        return Err(RuntimeError::invalid(
            "intervals",
            format!(
                "give 1 to {MAX_INTERVALS} intervals, not {}",
                cfg.intervals_ns.len()
            ),
        ));
    }
    if let Some(i) = cfg
        .intervals_ns
        .iter()
        .find(|&&i| i == 0 || i > MAX_INTERVAL_NS)
    {
        return Err(RuntimeError::invalid(
            "intervals",
            format!("{i} ns is not in 1 ns ..= {MAX_INTERVAL_NS} ns"),
        ));
    }
    if cfg.samples == 0 || cfg.samples > MAX_SAMPLES {
        return Err(RuntimeError::invalid(
            "samples",
            format!("must be 1 ..= {MAX_SAMPLES}, not {}", cfg.samples),
        ));
    }
    let total: u128 = cfg
        .intervals_ns
        .iter()
        .map(|&i| u128::from(i) * u128::from(cfg.samples))
        .sum();
    if total > u128::from(MAX_TOTAL_NS) {
        return Err(RuntimeError::invalid(
            "samples",
            format!(
                "the intervals × samples plan {total} ns of sleeping, more than {MAX_TOTAL_NS} ns"
            ),
        ));
    }
    Ok(())
}

/// Measures (see the module doc) on a thread of its own, which ends with the measurement.
pub fn measure(cfg: &TimingConfig) -> Result<Timing, RuntimeError> {
    check(cfg)?;
    let cfg = cfg.clone();
    let worker = std::thread::Builder::new()
        .name("sl-timing".into())
        .spawn(move || -> Result<Timing, RuntimeError> {
            sched::set_affinity(0, &[cfg.cpu])
                .map_err(|e| RuntimeError::invalid("cpu", e.to_string()))?;
            let real_time = match sched::set_class(0, Class::Fifo(PRIO)) {
                Ok(()) => true,
                Err(_) if cfg.allow_non_rt => false,
                Err(e) => {
                    return Err(RuntimeError::invalid(
                        "real-time",
                        format!("{e} (allow_non_rt measures under SCHED_OTHER)"),
                    ))
                }
            };
            let mut rows = Vec::with_capacity(cfg.intervals_ns.len());
            for &interval in &cfg.intervals_ns {
                let mut errors = Vec::with_capacity(cfg.samples as usize);
                for _ in 0..cfg.samples {
                    let release = monotonic_ns().saturating_add(interval);
                    let start = match cfg.model {
                        Model::PerTask => {
                            sleep_until(release);
                            monotonic_ns()
                        }
                        Model::PerJob => {
                            sleep_until(release);
                            let job = std::thread::Builder::new()
                                .spawn(monotonic_ns)
                                .map_err(|e| RuntimeError::invalid("per-job", e.to_string()))?;
                            job.join().map_err(|_| {
                                RuntimeError::invalid("per-job", "the job thread panicked")
                            })?
                        }
                    };
                    errors.push(start.saturating_sub(release));
                }
                rows.push(Row {
                    interval_ns: interval,
                    errors_ns: errors,
                });
            }
            Ok(Timing {
                model: cfg.model,
                real_time,
                rows,
            })
        })
        .map_err(|e| RuntimeError::invalid("timing", e.to_string()))?;
    worker
        .join()
        .map_err(|_| RuntimeError::invalid("timing", "the measuring thread panicked"))?
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cfg(model: Model) -> TimingConfig {
        TimingConfig {
            model,
            intervals_ns: vec![10_000, 200_000],
            samples: 5,
            cpu: sched::allowed_cpus().unwrap()[0],
            allow_non_rt: true,
        }
    }

    /// Both models give one row per interval with every sample (values are not asserted:
    /// timing; docs/runtime.md reports them).
    #[test]
    fn both_models_measure_every_sample() {
        for model in [Model::PerTask, Model::PerJob] {
            let t = measure(&cfg(model)).unwrap();
            assert_eq!(t.model, model);
            let shape: Vec<(u64, usize)> = t
                .rows
                .iter()
                .map(|r| (r.interval_ns, r.errors_ns.len()))
                .collect();
            assert_eq!(shape, vec![(10_000, 5), (200_000, 5)]);
        }
    }

    #[test]
    fn bounds_are_errors_naming_the_limit() {
        let mut c = cfg(Model::PerTask);
        c.samples = MAX_SAMPLES + 1;
        assert!(measure(&c).unwrap_err().to_string().contains("100000"));
        let mut c = cfg(Model::PerTask);
        c.intervals_ns = vec![MAX_INTERVAL_NS, MAX_INTERVAL_NS];
        c.samples = 31;
        assert!(measure(&c).unwrap_err().to_string().contains("sleeping"));
        let mut c = cfg(Model::PerJob);
        c.intervals_ns = vec![0];
        assert!(measure(&c).is_err());
        assert_eq!(Model::parse("per-job"), Some(Model::PerJob));
        assert_eq!(Model::parse("per-process"), None);
    }
}
