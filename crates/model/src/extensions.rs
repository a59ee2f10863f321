//! Task attributes beyond `(C, D, T)` that some capabilities give meaning to: parallel
//! (fork-join) structure [RTWS §III] (its own module, [`crate::parallel`], re-exported here),
//! reservation groups [HCBS §3.2] (their own module, [`crate::groups`], re-exported here) and
//! critical sections [ChronOS §3.6]. They are part of the model so that the task type does not
//! change shape when those capabilities land. Files accept critical sections
//! (`critical_sections`), parallel structure (`parallel`) and reservation groups (`groups`,
//! a task's `group`; docs/task-files.md); the analyses of independent sequential tasks refuse
//! parallel tasks (not applicable) and ignore the other attributes where a task carries none.

pub use crate::groups::ReservationGroup;
pub use crate::parallel::{ParallelRegion, ParallelStructure};
use crate::time::Duration;

/// Most critical sections a task may have (input-controlled size bound).
pub const MAX_CRITICAL_SECTIONS: usize = 1024;

/// A critical section on a shared single-unit resource (a mutex) [ChronOS §3.6]: the job
/// requests `resource` when it has executed `start`, and releases it when it has executed
/// `start + length`. Sections of one job may nest or overlap (sections of one resource may
/// not: a job cannot lock a mutex it holds; see [`crate::task::critical_sections_problem`]).
/// In files, resources are named; a task set numbers them densely from 0 in order of first
/// appearance and keeps the names ([`crate::TaskSet::resources`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CriticalSection {
    /// Resource identifier.
    pub resource: u32,
    /// Offset from the job's start of execution at which the section begins.
    pub start: Duration,
    /// Length of the section.
    pub length: Duration,
}
