//! # schedlab-sim
//!
//! The discrete-event simulator: drives any [`schedlab_policy::Policy`] in virtual time with
//! exact integer-nanosecond arithmetic and zero overheads, enacting its link decisions at once
//! (link-based scheduling, [MP §III-B]), and measures the schedule with the metrics of
//! [ChronOS §8.6] (DSR, AUR, schedulability, tardiness) plus response times, preemptions,
//! migrations and context switches.
//!
//! - [`config`]: the tasks ([`SimTask`]), arrivals (periodic with offsets, or sporadic with
//!   seeded extra delays), execution times (WCET, uniform fraction, capped normal) and options.
//! - [`engine`]: the event loop ([`simulate`]); its module doc fixes the same-instant event
//!   order, the decision semantics and the horizon rules.
//! - [`metrics`]: per-job records and per-task / whole-run metrics.
//!
//! Same input and seed → the same [`SimResult`], bit for bit.
//!
//! ```ignore
//! let cfg = SimConfig::new(4, Duration::from_ms(10).unwrap());
//! let result = simulate(&tasks, &mut policy, &cfg)?;
//! println!("{} jobs, {} misses", result.totals.jobs, result.totals.deadline_misses);
//! ```

pub mod config;
pub mod engine;
pub mod error;
pub mod front;
pub mod metrics;
mod parse;

#[cfg(test)]
mod test_policy;
#[cfg(test)]
mod tests;

pub use config::{Arrivals, ExecTime, SimConfig, SimTask};
pub use engine::{simulate, SimResult};
pub use error::SimError;
pub use front::{jobs_csv, run, summary_json, RunError};
pub use metrics::{JobRecord, TaskMetrics, Totals};
