//! What a policy knows about the tasks when it is built.

use schedlab_model::{Duration, Task};

/// Per-task parameters a policy may use.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyTask {
    /// WCET.
    pub wcet: Duration,
    /// Relative deadline.
    pub deadline: Duration,
    /// Period / minimum inter-arrival time.
    pub period: Duration,
    /// Fixed-priority rank, 0 = highest (from `--priorities dm|rm|given`, ties by index).
    pub rank: u32,
    /// Utility (utility-accrual policies).
    pub utility: Option<f64>,
}

impl PolicyTask {
    /// From a model task and its fixed-priority rank.
    pub fn from_task(task: &Task, rank: u32) -> PolicyTask {
        PolicyTask {
            wcet: task.wcet,
            deadline: task.deadline,
            period: task.period,
            rank,
            utility: task.utility,
        }
    }
}

/// How tasks are placed on CPUs for partitioned and clustered policies (computed by the caller,
/// e.g. with the analysis crate's heuristics, or read from the file's `cpu`/`cluster` fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Domain (CPU for partitioned, cluster for clustered) of each task, by task index.
    pub domain_of_task: Vec<u32>,
    /// CPUs per domain (1 for partitioned).
    pub domain_size: u32,
}

impl From<(Vec<u32>, u32)> for Placement {
    /// From `(domain of each task, domain size)`, the form the analysis crate's placement
    /// heuristics return.
    fn from((domain_of_task, domain_size): (Vec<u32>, u32)) -> Placement {
        Placement {
            domain_of_task,
            domain_size,
        }
    }
}
