//! What a policy knows about the tasks when it is built.

use schedlab_model::{Duration, SplitPart, Task, Tuf};

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
    /// Utility (utility-accrual policies): the value of the downward-step TUF.
    pub utility: Option<f64>,
    /// The time/utility function (`tuf`, else the step of `utility`; `None`: neither given).
    pub tuf: Option<Tuf>,
    /// Whether the policy may abort its jobs [ChronOS §3.5].
    pub abortable: bool,
    /// Execution time of its abort handler.
    pub abort_cost: Duration,
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
            tuf: task.effective_tuf(),
            abortable: task.abortable,
            abort_cost: task.abort_cost,
        }
    }

    /// A task `(wcet, deadline, period)` with fixed-priority rank `rank`, no utility,
    /// abortable with no handler cost.
    pub fn new(wcet: Duration, deadline: Duration, period: Duration, rank: u32) -> PolicyTask {
        PolicyTask {
            wcet,
            deadline,
            period,
            rank,
            utility: None,
            tuf: None,
            abortable: true,
            abort_cost: Duration::ZERO,
        }
    }
}

/// How tasks are placed on CPUs for partitioned, semi-partitioned and clustered policies
/// (computed by the caller, e.g. with the analysis crate's heuristics, or read from the file's
/// `cpu`/`cluster`/`split` fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Domain (CPU for partitioned, cluster for clustered) of each task, by task index; for a
    /// split task, the CPU of its head part.
    pub domain_of_task: Vec<u32>,
    /// CPUs per domain (1 for partitioned and semi-partitioned).
    pub domain_size: u32,
    /// The parts of each split task in execution order, by task index (an empty list: the task
    /// is whole, on its domain); an empty vector: no task is split. Only `pfp-ts` runs split
    /// tasks; the other policies refuse a placement that splits one.
    pub split: Vec<Vec<SplitPart>>,
}

impl Placement {
    /// Every task whole, in the domain `domain_of_task[i]` of `domain_size` CPUs.
    pub fn new(domain_of_task: Vec<u32>, domain_size: u32) -> Placement {
        Placement {
            domain_of_task,
            domain_size,
            split: Vec::new(),
        }
    }

    /// A semi-partitioned placement on single CPUs: task `i` runs on `cpu_of_task[i]` (for a
    /// split task: the CPU of its head part) and `split[i]` lists the parts of a split task
    /// (empty for a whole task).
    pub fn semi(cpu_of_task: Vec<u32>, split: Vec<Vec<SplitPart>>) -> Placement {
        Placement {
            domain_of_task: cpu_of_task,
            domain_size: 1,
            split,
        }
    }

    /// The same placement with `split[i]` the parts of task `i` (empty: whole; module doc of
    /// [`Placement::split`]).
    pub fn with_split(mut self, split: Vec<Vec<SplitPart>>) -> Placement {
        self.split = split;
        self
    }

    /// The parts of task `task` if it is split.
    pub fn parts(&self, task: usize) -> Option<&[SplitPart]> {
        self.split
            .get(task)
            .filter(|p| !p.is_empty())
            .map(Vec::as_slice)
    }

    /// The first split task, if any.
    pub fn first_split_task(&self) -> Option<usize> {
        self.split.iter().position(|p| !p.is_empty())
    }
}

impl From<(Vec<u32>, u32)> for Placement {
    /// From `(domain of each task, domain size)`, the form the analysis crate's placement
    /// heuristics return (no task split).
    fn from((domain_of_task, domain_size): (Vec<u32>, u32)) -> Placement {
        Placement::new(domain_of_task, domain_size)
    }
}
