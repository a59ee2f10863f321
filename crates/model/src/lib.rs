//! # schedlab-model
//!
//! The vocabulary every other schedlab crate speaks: integer-nanosecond [`Time`] and
//! [`Duration`], the sporadic [`Task`] `(C, D, T)` with its optional attributes (among them
//! the fork-join structure of a parallel task, [`parallel`]), ordered
//! [`TaskSet`]s (with their reservation groups, [`groups`]), [`Platform`]s of identical CPUs, task-set files in JSON and TOML ([`file`]),
//! exact rational comparison ([`exact`]), the per-operation costs of the scaling model
//! ([`costs`]), the overhead file of measured run-time overheads
//! ([`overheads`]) and the typed [`ModelError`].
//!
//! ```
//! use schedlab_model::file::{parse_str, Format};
//! let f = parse_str(r#"{"tasks": [{"name": "t1", "wcet": "2ms", "period": "10ms", "deadline": "8ms"}]}"#,
//!                   Format::Json).unwrap();
//! assert_eq!(f.tasks[0].deadline.to_string(), "8ms");
//! assert!((f.tasks.utilization() - 0.2).abs() < 1e-12);
//! ```

pub mod costs;
pub mod error;
pub mod exact;
pub mod extensions;
pub mod file;
pub mod group_tree;
pub mod groups;
pub mod interop;
mod names;
pub mod overheads;
pub mod parallel;
pub mod platform;
pub mod size;
pub mod task;
pub mod taskset;
pub mod time;
pub mod tuf;

pub use error::{ModelError, TaskRef};
pub use exact::Frac;
pub use group_tree::{GroupTree, Overload, ResolvedGroup};
pub use groups::ReservationGroup;
pub use parallel::{ParallelError, ParallelRegion, ParallelStructure};
pub use platform::Platform;
pub use task::{SplitPart, Task};
pub use taskset::TaskSet;
pub use time::{Duration, Time};
pub use tuf::Tuf;
