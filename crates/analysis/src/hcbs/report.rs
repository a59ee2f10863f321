//! What `hcbs-gfp` reports per group (the `"groups"` array of its JSON result, the Python
//! result's `groups`, the table's group lines): the server `(Q, P)`, its `(α, Δ)` [HCBS
//! Eq. 8], the group's verdict and its tasks' response-time bounds.

use super::supply::Server;
use serde_json::{json, Value};

/// One task of a group and its response-time bound, if shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskBound {
    /// The task's index in the set.
    pub task: usize,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// `C_k + ⌈Ī_k⌉` (ns) when Eq. 14 holds for it and its group's supply is guaranteed.
    pub bound_ns: Option<u64>,
}

/// One group's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupResult {
    /// The group's name.
    pub name: String,
    /// Budget `Q` (ns), as given.
    pub budget_ns: u64,
    /// Period `P` (ns), as given.
    pub period_ns: u64,
    /// The CPUs it has a server on.
    pub cpus: Vec<u32>,
    /// Its parent's name, if any.
    pub parent: Option<String>,
    /// Whether every task of it is shown to meet its deadlines (and its subgroups' servers
    /// fit inside its own), with its supply guaranteed.
    pub schedulable: bool,
    /// Why not (or a note), if anything.
    pub reason: Option<String>,
    /// Its own tasks (not its subgroups'), in task-index order.
    pub response_bounds: Vec<TaskBound>,
}

impl GroupResult {
    /// The server `(Q, P)`.
    pub fn server(&self) -> Server {
        Server {
            budget: self.budget_ns,
            period: self.period_ns,
        }
    }

    /// `α = Q/P` as a number (reports only; the verdicts are exact).
    pub fn alpha(&self) -> f64 {
        self.budget_ns as f64 / self.period_ns.max(1) as f64
    }

    /// `α` exactly, as `"Q/P"` with `Q` and `P` in ns as given (not reduced, so the server
    /// stays readable: `"2000000/5000000"`).
    pub fn alpha_exact(&self) -> String {
        format!("{}/{}", self.budget_ns, self.period_ns)
    }

    /// `Δ = 2(P − Q)` in ns [HCBS Eq. 8] (saturated at `u64::MAX`, reached only for `P` above
    /// 2^63 ns).
    pub fn delta_ns(&self) -> u64 {
        u64::try_from(self.server().delay()).unwrap_or(u64::MAX)
    }

    /// `{"name", "budget_ns", "period_ns", "cpus", "parent", "alpha", "alpha_exact",
    /// "delta_ns", "schedulable", "reason", "response_bounds_ns": [{"task", "name",
    /// "bound_ns"}]}`.
    pub fn to_json(&self) -> Value {
        let bounds: Vec<Value> = self
            .response_bounds
            .iter()
            .map(|b| json!({"task": b.task, "name": b.name, "bound_ns": b.bound_ns}))
            .collect();
        json!({
            "name": self.name,
            "budget_ns": self.budget_ns,
            "period_ns": self.period_ns,
            "cpus": self.cpus,
            "parent": self.parent,
            "alpha": self.alpha(),
            "alpha_exact": self.alpha_exact(),
            "delta_ns": self.delta_ns(),
            "schedulable": self.schedulable,
            "reason": self.reason,
            "response_bounds_ns": bounds,
        })
    }
}
