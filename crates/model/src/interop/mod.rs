//! Other tools' formats, both ways: what schedlab decided, written so that Linux and its tools
//! run it ([`deploy`] and the writers [`rt_app`], [`shell`], [`systemd`], docs/export.md), and
//! task sets read from other tools' files ([`Imported`]; rt-app's JSON by [`rt_app::import`]).
//!
//! The writers only write text: which Linux policy, parameters and CPUs each task gets is
//! decided by the analysis crate's `deploy` module (which runs the test that accepts the set)
//! and handed over as a [`deploy::Deployment`]; this crate stays free of Linux calls. Every
//! output starts with the deployment's header (what analysis accepted it, with which overheads
//! and margin, [`deploy::Deployment::header`]). Errors are [`InteropError`]s naming the format,
//! the element and the field.

pub mod deploy;
pub mod error;
pub mod rt_app;
pub mod shell;
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
