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

/// The methods a [`SemiAssignment`] names.
pub const METHODS: [&str; 3] = ["fp-ts", "ffd", "wfd"];

impl PartKind {
    /// The kind named `name` (`whole`, `head`, `body`, `tail`).
    pub fn parse(name: &str) -> Option<PartKind> {
        [
            PartKind::Whole,
            PartKind::Head,
            PartKind::Body,
            PartKind::Tail,
        ]
        .into_iter()
        .find(|k| k.name() == name)
    }
}

impl SemiAssignment {
    /// Reads back `method` and the JSON of [`SemiAssignment::split_tasks_json`] (Python
    /// rebuilds results from their dicts); the error names the offending field.
    pub fn from_json(method: &str, split_tasks: &Value) -> Result<SemiAssignment, String> {
        let method = METHODS
            .into_iter()
            .find(|m| *m == method)
            .ok_or_else(|| format!("assignment: `{method}` is none of {}", METHODS.join(", ")))?;
        let list = split_tasks
            .as_array()
            .ok_or("split_tasks: expected a list of {task, parts}")?;
        let mut out = Vec::with_capacity(list.len());
        for (i, entry) in list.iter().enumerate() {
            let task = entry["task"]
                .as_u64()
                .and_then(|t| usize::try_from(t).ok())
                .ok_or_else(|| format!("split_tasks[{i}].task: expected a task index"))?;
            let parts = entry["parts"]
                .as_array()
                .ok_or_else(|| format!("split_tasks[{i}].parts: expected a list"))?
                .iter()
                .enumerate()
                .map(|(k, p)| {
                    let at = |f: &str| format!("split_tasks[{i}].parts[{k}].{f}");
                    Ok(SplitPart {
                        cpu: p["cpu"]
                            .as_u64()
                            .and_then(|c| u32::try_from(c).ok())
                            .ok_or_else(|| at("cpu") + ": expected a CPU index")?,
                        budget_ns: p["budget_ns"]
                            .as_u64()
                            .ok_or_else(|| at("budget_ns") + ": expected ns")?,
                        kind: p["kind"]
                            .as_str()
                            .and_then(PartKind::parse)
                            .ok_or_else(|| at("kind") + ": expected head, body or tail")?,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            out.push(SplitTask { task, parts });
        }
        Ok(SemiAssignment {
            method,
            split_tasks: out,
        })
    }

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
