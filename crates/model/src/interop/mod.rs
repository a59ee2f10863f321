//! Other tools' formats, both ways.
//! - **Export:** what schedlab decided, written so that Linux and its tools run it ([`deploy`]
//!   and the writers [`rt_app`], [`shell`], [`systemd`], docs/export.md).
//! - **Import:** task sets read from SimSo configurations ([`simso`]), SchedCAT-style CSV task
//!   lists ([`csv`]) and rt-app JSON ([`rt_app::import`]), dispatched by [`import`]
//!   (docs/import.md).
//!
//! The writers only write text: which Linux policy, parameters and CPUs each task gets is
//! decided by the analysis crate's `deploy` module (which runs the test that accepts the set)
//! and handed over as a [`deploy::Deployment`]; this crate stays free of Linux calls. Every
//! output starts with the deployment's header (what analysis accepted it, with which overheads
//! and margin, [`deploy::Deployment::header`]).
//!
//! Every reader returns an [`Imported`]: a task file validated like any other (the same
//! checks and messages as [`crate::file`]), the schedlab policy the source's scheduler maps
//! to, and one line for each element or field of the source that did not map. Nothing is
//! dropped silently: a reader either maps a field exactly, maps it with a stated rounding
//! (in `unmapped`), reports it as not mapped, or refuses the input with an
//! [`InteropError`] that names the format, the place (element, task, line) and the field.
//! Every input-controlled size is bounded ([`import::MAX_IMPORT_BYTES`],
//! [`import::MAX_IMPORT_TASKS`]).

pub mod csv;
pub mod deploy;
pub mod error;
pub mod import;
pub mod rt_app;
pub mod shell;
pub mod simso;
pub mod systemd;

mod cpuset;
#[cfg(test)]
pub(crate) mod fixtures;

pub use error::InteropError;

/// A task file read from another tool's format, with what that format said about how to run it.
pub struct Imported {
    /// The task set and platform, validated like any task file (a task's `cpu` carries a partition).
    pub file: crate::file::TaskFile,
    /// The schedlab policy name (as `simulate --policy` takes it) the source's scheduler maps to.
    pub policy: Option<String>,
    /// Every element or field of the source that did not map, one human-readable line each.
    pub unmapped: Vec<String>,
}
