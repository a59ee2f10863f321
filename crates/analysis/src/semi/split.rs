//! What a semi-partitioned assignment reports: the split tasks, each as its parts in execution
//! order with the CPU and the execution budget of every part [RTPS §III, Fig. 1].

use serde_json::{json, Value};

/// The role of a part in its task [RTPS §III]: the first part of a split task is its *head*,
/// the last its *tail*, the others *bodies*; a task that is not split is *whole*.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartKind {
    /// The task is not split.
    Whole,
    /// First part of a split task.
    Head,
    /// A middle part.
    Body,
    /// Last part.
    Tail,
}

impl PartKind {
    /// `whole`, `head`, `body`, `tail` (the JSON and CLI names).
    pub fn name(self) -> &'static str {
        match self {
            PartKind::Whole => "whole",
            PartKind::Head => "head",
            PartKind::Body => "body",
            PartKind::Tail => "tail",
        }
    }

    /// The kind of part `index` of a task with `count` parts, when the task is completely
    /// assigned (`complete`) or still being split (its last part is then not a tail).
    pub fn of(index: usize, count: usize, complete: bool) -> PartKind {
        let last = index + 1 == count;
        match (index, last && complete) {
            (0, true) => PartKind::Whole,
            (0, false) => PartKind::Head,
            (_, true) => PartKind::Tail,
            (_, false) => PartKind::Body,
        }
    }
}

/// One part of a split task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitPart {
    /// The CPU that runs it.
    pub cpu: u32,
    /// Its execution budget (ns); the budgets of a task's parts add up to its WCET.
    pub budget_ns: u64,
    /// Head, body or tail.
    pub kind: PartKind,
}

/// A task split over several CPUs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SplitTask {
    /// The task's index.
    pub task: usize,
    /// Its parts, in execution order.
    pub parts: Vec<SplitPart>,
}

/// How a semi-partitioned test placed the tasks: which method found the assignment and the
/// split tasks (empty when every task is whole).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SemiAssignment {
    /// `fp-ts` (the task-splitting assignment), or `ffd`/`wfd` when the test fell back to a
    /// split-free partition (`crate::semi::fpts`).
    pub method: &'static str,
    /// The split tasks in task-index order.
    pub split_tasks: Vec<SplitTask>,
}

impl SemiAssignment {
    /// `[{"task", "parts": [{"cpu", "budget_ns", "kind"}, …]}, …]`.
    pub fn split_tasks_json(&self) -> Value {
        Value::from(
            self.split_tasks
                .iter()
                .map(|s| {
                    let parts: Vec<Value> = s
                        .parts
                        .iter()
                        .map(|p| json!({"cpu": p.cpu, "budget_ns": p.budget_ns, "kind": p.kind.name()}))
                        .collect();
                    json!({"task": s.task, "parts": parts})
                })
                .collect::<Vec<Value>>(),
        )
    }
}
