//! # schedlab-gen
//!
//! Random task-set generators for schedulability experiments, reproducible bit for bit from an
//! explicit `u64` seed on every platform.
//!
//! * [`util_vec`]: utilization vectors with a fixed sum — UUniFast (Bini & Buttazzo 2005),
//!   UUniFast-Discard (Davis & Burns 2009), RandFixedSum (Stafford; Emberson, Stafford & Davis
//!   2010), Dirichlet-Rescale (Griffin, Bate & Davis 2020).
//! * [`UtilDist`]: per-task utilization distributions (`uniform:A..B`, `exp:MEAN`,
//!   `uni-light` … `bimo-heavy`).
//! * [`PeriodDist`]: periods (`uniform:A..B[/G]`, `loguniform:A..B[/G]`, `set:…`,
//!   `harmonic`, `automotive`).
//! * [`DeadlineSpec`], [`Rounding`]: deadlines and integer execution times.
//! * [`UtilityDist`]: random task utilities for utility-accrual experiments (`uniform:A..B`,
//!   `chronos` [ChronOS §8.4]), from a stream of their own.
//! * [`GenSpec`] / [`Generator`]: whole task sets ([`Shape`]: fixed n and U, n draws,
//!   fill-to-U, growing sequences, utilization windows), set `k` of a batch independent of how
//!   many are generated.
//! * [`ParallelDist`]: fork-join structures of parallel tasks [RTWS §III] (`rtws:M`,
//!   `forkjoin:…`), from a stream of their own; [`parallel::rtws_spec`]: the task sets of
//!   [RTWS §VI, Table I].
//! * [`rng`]: the random source (ChaCha8, SplitMix64 key derivation, one stream per set) and
//!   the reproducibility contract; [`detmath`]: portable `ln`/`exp`.
//!
//! ```
//! use schedlab_gen::{GenSpec, PeriodDist, Shape, util_vec::VecMethod, DeadlineSpec};
//! let spec = GenSpec::new(
//!     Shape::FixedSum { n: 8, total: 3.0, method: VecMethod::parse("randfixedsum").unwrap() },
//!     PeriodDist::parse("loguniform:10ms..100ms/1ms").unwrap(),
//! )
//! .deadlines(DeadlineSpec::Constrained)
//! .seed(2024);
//! let set = spec.generate(0).unwrap();
//! assert_eq!(set.tasks.len(), 8);
//! assert_eq!(set.tasks[0].name.as_deref(), Some("t0"));
//! assert!((set.drawn.iter().sum::<f64>() - 3.0).abs() < 1e-9);
//! assert!(set.utilization <= 3.0); // C = ⌊u·T⌋ rounds down
//! assert!(set.tasks.iter().all(|t| t.wcet <= t.deadline && t.deadline <= t.period));
//! assert_eq!(set, spec.generate(0).unwrap()); // same seed, same set
//! ```

// Tests may unwrap (the workspace warns on unwrap/expect in library code only).
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod deadline;
pub mod detmath;
pub mod dist;
pub mod error;
pub mod grow;
pub mod parallel;
mod parse;
pub mod period;
pub mod rng;
pub mod spec;
pub mod util_vec;
pub mod utility;
pub mod workload;

pub use deadline::{DeadlineSpec, Rounding};
pub use dist::UtilDist;
pub use error::GenError;
pub use grow::GrowingSets;
pub use parallel::{ParallelDist, ThreadLengths};
pub use period::PeriodDist;
pub use spec::{GenSpec, GeneratedSet, Generator, Shape};
pub use utility::UtilityDist;

/// The user guide `docs/generators.md`, compiled so that its examples are tested.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/generators.md")]
struct GeneratorsGuide;
