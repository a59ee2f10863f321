//! # schedlab-sim
//!
//! The discrete-event simulator: drives any [`schedlab_policy::Policy`] in virtual time with
//! exact integer-nanosecond arithmetic and (by default) zero overheads, enacting its link decisions at once
//! (link-based scheduling, [MP §III-B]), and measures the schedule with the metrics of
//! [ChronOS §8.6] (DSR, AUR with general time/utility functions, schedulability, tardiness) plus response times, preemptions,
//! migrations and context switches.
//!
//! - [`config`]: the tasks ([`SimTask`]), arrivals (periodic with offsets, or sporadic with
//!   seeded extra delays), execution times (WCET, uniform fraction, capped normal) and options.
//! - [`engine`]: the event loop ([`simulate`]); its module doc fixes the same-instant event
//!   order, the decision semantics, the horizon rules, and the engine offers to every
//!   policy: budgets, aborts with abort handlers [ChronOS §3.5] and resources (mutexes at
//!   execution offsets, blocking, grants) [ChronOS §3.6].
//! - [`metrics`]: per-job records and per-task / whole-run metrics.
//! - [`overheads`]: run-time overheads from an overhead file, charged as delays in virtual
//!   time (off by default) [MP §IV-A, App. B; RTPS §V].
//! - [`front`]: one call from a task set and a policy name to a result ([`run`]), and the
//!   report formats of `schedlab simulate` (JSON summary, jobs CSV).
//!
//! Same input and seed → the same [`SimResult`], bit for bit.
//!
//! Dhall's effect [ChronOS Table 6.1] under G-EDF on 4 CPUs — task 5 starts at 10 and misses
//! its deadline 101 by 1:
//!
//! ```
//! use schedlab_model::{Duration, Task, TaskSet};
//! use schedlab_sim::{run, SimConfig};
//! let ns = Duration::from_ns;
//! let mut tasks = vec![Task::implicit(ns(10), ns(100)).unwrap(); 4];
//! tasks.push(Task::implicit(ns(92), ns(101)).unwrap());
//! let tasks = TaskSet::new(tasks).unwrap();
//! let ranks = [0, 1, 2, 3, 4]; // fixed-priority ranks; unused by G-EDF
//! let (result, _trace_meta) = run(&tasks, "gedf", &ranks, None, &SimConfig::new(4, ns(202))).unwrap();
//! let t5 = result.jobs.iter().find(|j| j.task == 4 && j.seq == 0).unwrap();
//! assert_eq!((t5.start, t5.completion), (Some(schedlab_model::Time::from_ns(10)), Some(schedlab_model::Time::from_ns(102))));
//! assert_eq!(t5.tardiness, ns(1));
//! ```

pub mod config;
pub mod engine;
pub mod error;
pub mod front;
/// Per-job records and metrics: shared with the runtime, so they live in `schedlab-trace`.
pub use schedlab_trace::metrics;
pub mod overheads;
mod parse;
mod queue;
pub mod scale;
pub mod scale_fit;

#[cfg(test)]
mod abort_tests;
#[cfg(test)]
mod budget_tests;
#[cfg(test)]
mod resource_tests;
#[cfg(test)]
mod test_policy;
#[cfg(test)]
mod tests;

pub use config::{Arrivals, ExecTime, SimConfig, SimTask};
pub use engine::{simulate, SimResult};
pub use error::SimError;
pub use front::{groups_note, jobs_csv, run, summary_json, RunError};
pub use metrics::{JobRecord, TaskMetrics, Totals};
pub use overheads::{Charged, Interrupts, OverheadReport, Overheads};
