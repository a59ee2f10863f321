//! # schedlab-exp
//!
//! Experiments: a declarative TOML file ([`schema`], `docs/experiments.md`) names platforms, a
//! generator, a swept variable with its points, and the analyses and simulations to run on
//! every generated task set. One pure function evaluates one chunk of task sets
//! ([`chunk::evaluate_chunk`]); the [`runner`] runs chunks on all local cores, the Python
//! package runs the same function on a Dask cluster, and both hand finished chunks to the
//! durable [`store`], so an interrupted experiment resumes where it stopped. [`summary`]
//! aggregates stored results (acceptance ratios with Wilson intervals, means of the
//! simulation metrics), [`plot`] draws the [`metric`]s the file asks for (SVG and PNG) and [`report`] writes `report.md` and a self-contained `report.html`.

// Tests may unwrap (the workspace warns on unwrap/expect in library code only).
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod chronos;
pub mod chunk;
pub mod config;
pub mod error;
pub mod metric;
pub mod plot;
mod reader;
pub mod report;
pub mod runner;
pub mod schema;
pub mod store;
pub mod summary;

pub use chunk::{chunks, evaluate_chunk, Chunk, Outcome, SetResult};
pub use config::{Cell, EvalKind, Evaluation, Experiment, Variable};
pub use error::{ExpError, Problem, Problems};
pub use metric::Metric;
pub use runner::{resume_note, run_local, stopped_note, Progress, RunOptions, RunOutcome};
pub use store::{Manifest, Store};
