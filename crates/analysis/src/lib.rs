//! # schedlab-analysis
//!
//! Schedulability tests for independent sporadic tasks on identical multiprocessors, as pure
//! functions with exact integer/rational arithmetic. One module per test, each citing its paper
//! and equation; every test implements [`SchedTest`] and is listed in [`registry`] under its
//! canonical name.
//!
//! ```
//! use schedlab_analysis::{registry, System, Priorities, analyze};
//! use schedlab_model::{Task, Duration};
//! let ms = |x| Duration::from_ms(x).unwrap();
//! let tasks = vec![Task::implicit(ms(2), ms(10)).unwrap(), Task::implicit(ms(3), ms(15)).unwrap()];
//! let sys = System::new(&tasks, 2, Priorities::Dm).unwrap();
//! for test in registry::all() {
//!     let verdict = analyze(test.as_ref(), &sys);
//!     let _ = (test.name(), verdict.status);
//! }
//! ```

pub mod battery;
pub mod clustered;
pub mod deploy;
pub mod error;
pub mod gedf;
pub mod gfp;
pub mod gnpedf;
pub mod hcbs;
pub mod json;
pub mod mpr;
pub mod overheads;
pub mod parallel;
pub mod param;
pub mod partitioned;
pub mod placement;
pub mod registry;
pub mod reservations;
pub mod semi;
pub mod soft;
pub mod system;
pub mod test;
pub mod ua;
pub mod uni;
pub mod util;
pub mod verdict;

pub use error::AnalysisError;
pub use param::Param;
pub use system::{Params, Priorities, System, TaskValue};
pub use test::{analyze, Kind, SchedTest, TestInfo};
pub use verdict::{Status, Verdict};
