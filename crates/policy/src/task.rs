//! What a policy knows about the tasks when it is built.

use schedlab_model::{Duration, GroupTree, SplitPart, Task, Tuf};
use std::sync::Arc;

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

/// How tasks are placed on CPUs for partitioned, semi-partitioned, clustered and federated
/// policies (computed by the caller, e.g. with the analysis crate's heuristics, or read from
/// the file's `cpu`/`cluster`/`split` fields).
///
/// Domains are runs of consecutive CPUs, numbered in CPU order: domain `d` owns the CPUs after
/// those of domains `0..d`. They all have `domain_size` CPUs (partitioned, clustered), or, for
/// `federated`, the sizes listed in [`Placement::domain_sizes`] (each heavy task's dedicated
/// CPUs, then one CPU per light partition).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Domain (CPU for partitioned, cluster for clustered) of each task, by task index; for a
    /// split task, the CPU of its head part.
    pub domain_of_task: Vec<u32>,
    /// CPUs per domain (1 for partitioned and semi-partitioned); 0 when the domains differ in
    /// size ([`Placement::domain_sizes`]), so that code reading it as "every domain has this
    /// many CPUs" (`== 1`: partitioned) never mistakes such a placement for a uniform one.
    pub domain_size: u32,
    /// The size of each domain, in domain order, when they differ (`federated`); empty: every
    /// domain has `domain_size` CPUs.
    pub domain_sizes: Vec<u32>,
    /// The parts of each split task in execution order, by task index (an empty list: the task
    /// is whole, on its domain); an empty vector: no task is split. Only `pfp-ts` runs split
    /// tasks; the other policies refuse a placement that splits one.
    pub split: Vec<Vec<SplitPart>>,
    /// The reservation groups resolved for the platform ([`GroupTree`], [HCBS §3.2]): the
    /// servers and the tasks' groups of `hcbs` (which needs them and ignores the rest);
    /// every other policy ignores them.
    pub groups: Option<Arc<GroupTree>>,
}

impl Placement {
    /// Every task whole, in the domain `domain_of_task[i]` of `domain_size` CPUs.
    pub fn new(domain_of_task: Vec<u32>, domain_size: u32) -> Placement {
        Placement {
            domain_of_task,
            domain_size,
            domain_sizes: Vec::new(),
            split: Vec::new(),
            groups: None,
        }
    }

    /// A semi-partitioned placement on single CPUs: task `i` runs on `cpu_of_task[i]` (for a
    /// split task: the CPU of its head part) and `split[i]` lists the parts of a split task
    /// (empty for a whole task).
    pub fn semi(cpu_of_task: Vec<u32>, split: Vec<Vec<SplitPart>>) -> Placement {
        Placement {
            domain_of_task: cpu_of_task,
            domain_size: 1,
            domain_sizes: Vec::new(),
            split,
            groups: None,
        }
    }

    /// The reservation groups of `hcbs` for `tasks` tasks (no domains: every task in domain 0
    /// of `domain_size` 0, which no other policy takes as a placement).
    pub fn reservations(tree: Arc<GroupTree>, tasks: usize) -> Placement {
        Placement {
            domain_of_task: vec![0; tasks],
            domain_size: 0,
            domain_sizes: Vec::new(),
            split: Vec::new(),
            groups: Some(tree),
        }
    }

    /// Task `i` in the domain `domain_of_task[i]`, domain `d` of `sizes[d]` consecutive CPUs
    /// (struct doc); uniform sizes give the same placement as [`Placement::new`].
    pub fn sized(domain_of_task: Vec<u32>, sizes: Vec<u32>) -> Placement {
        Placement::new(domain_of_task, 1).with_domain_sizes(sizes)
    }

    /// The same placement with domain `d` of `sizes[d]` CPUs (empty: unchanged). Uniform
    /// sizes are stored as `domain_size` (nothing changes for partitioned or clustered
    /// code), different ones in [`Placement::domain_sizes`] with `domain_size` 0.
    pub fn with_domain_sizes(mut self, sizes: Vec<u32>) -> Placement {
        let Some(&first) = sizes.first() else {
            return self;
        };
        if sizes.iter().all(|&k| k == first) {
            self.domain_size = first;
            self.domain_sizes = Vec::new();
        } else {
            self.domain_size = 0;
            self.domain_sizes = sizes;
        }
        self
    }

    /// The size of every domain, in domain order, for `cpus` CPUs: [`Placement::domain_sizes`]
    /// when given, else `cpus / domain_size` domains of `domain_size` (none when it is 0).
    pub fn sizes(&self, cpus: u32) -> Vec<u32> {
        if !self.domain_sizes.is_empty() {
            return self.domain_sizes.clone();
        }
        match self.domain_size {
            0 => Vec::new(),
            k => vec![k; (cpus / k) as usize],
        }
    }

    /// The first CPU of domain `d` (`None` beyond `u32` or, for different sizes, beyond the
    /// listed domains).
    pub fn first_cpu(&self, d: u32) -> Option<u32> {
        if self.domain_sizes.is_empty() {
            return d.checked_mul(self.domain_size);
        }
        let before = self.domain_sizes.get(..d as usize)?;
        before.iter().try_fold(0u32, |acc, &k| acc.checked_add(k))
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
