//! A set's reservation groups [HCBS §3.2] as the analyses read them: the groups resolved for
//! the platform ([`GroupTree`]: CPUs, parent, children, tasks, admission) and the tasks'
//! names for reports. Attached to a [`crate::System`] with
//! [`crate::System::with_reservations`]; the tests of reserved groups (`hcbs-gfp`) read it,
//! every other test ignores it.

use schedlab_model::{GroupTree, ModelError, TaskSet};
use std::sync::Arc;

/// A set's groups resolved for `m` CPUs, with the tasks' names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservations {
    /// The groups, resolved.
    pub tree: GroupTree,
    /// Each task's name (task-index order), for reports.
    pub names: Vec<Option<String>>,
}

impl Reservations {
    /// The groups of `set` on `cpus` CPUs; `None` for a set without groups (the common case
    /// costs nothing). Errors: a group names a CPU the platform does not have (naming it).
    pub fn of(set: &TaskSet, cpus: u32) -> Result<Option<Arc<Reservations>>, ModelError> {
        if set.groups().is_empty() {
            return Ok(None);
        }
        Ok(Some(Arc::new(Reservations {
            tree: GroupTree::new(set, cpus)?,
            names: set.tasks().iter().map(|t| t.name.clone()).collect(),
        })))
    }
}
