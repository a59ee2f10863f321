//! Interoperation with other tools' formats: task sets read from SimSo configurations
//! ([`simso`]) and SchedCAT-style CSV task lists ([`csv`]), dispatched by [`import`].
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
pub mod error;
pub mod import;
pub mod simso;

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
