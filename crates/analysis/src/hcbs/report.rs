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

    /// The report from its [`GroupResult::to_json`] object (Python's pickling and
    /// `Result(groups=…)`); `alpha`, `alpha_exact` and `delta_ns` are recomputed from `Q`, `P`.
    /// `Err` names the field.
    pub fn from_json(v: &Value) -> Result<GroupResult, String> {
        let field = |k: &str| v.get(k).ok_or_else(|| format!("groups: missing `{k}`"));
        let uint = |k: &str| {
            field(k)?
                .as_u64()
                .ok_or_else(|| format!("groups: `{k}` must be a non-negative integer"))
        };
        let text = |k: &str| -> Result<Option<String>, String> {
            match v.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!("groups: `{k}` must be a string or null")),
            }
        };
        let cpus = field("cpus")?
            .as_array()
            .ok_or("groups: `cpus` must be a list")?
            .iter()
            .map(|c| {
                c.as_u64()
                    .and_then(|c| u32::try_from(c).ok())
                    .ok_or_else(|| "groups: `cpus` must hold CPU numbers".to_string())
            })
            .collect::<Result<Vec<u32>, String>>()?;
        let mut response_bounds = Vec::new();
        let bounds = field("response_bounds_ns")?
            .as_array()
            .ok_or("groups: `response_bounds_ns` must be a list")?;
        for b in bounds {
            let task = b
                .get("task")
                .and_then(Value::as_u64)
                .and_then(|t| usize::try_from(t).ok())
                .ok_or("groups: a bound needs `task` (an index)")?;
            let name = b.get("name").and_then(Value::as_str).map(str::to_string);
            let bound_ns = match b.get("bound_ns") {
                None | Some(Value::Null) => None,
                Some(x) => Some(x.as_u64().ok_or("groups: `bound_ns` must be ns or null")?),
            };
            response_bounds.push(TaskBound {
                task,
                name,
                bound_ns,
            });
        }
        Ok(GroupResult {
            name: text("name")?.ok_or("groups: `name` must be a string")?,
            budget_ns: uint("budget_ns")?,
            period_ns: uint("period_ns")?,
            cpus,
            parent: text("parent")?,
            schedulable: field("schedulable")?
                .as_bool()
                .ok_or("groups: `schedulable` must be a bool")?,
            reason: text("reason")?,
            response_bounds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips_and_eq8_is_reported() {
        let g = GroupResult {
            name: "video".into(),
            budget_ns: 2_000_000,
            period_ns: 5_000_000,
            cpus: vec![0, 1],
            parent: None,
            schedulable: false,
            reason: Some("why".into()),
            response_bounds: vec![
                TaskBound {
                    task: 3,
                    name: Some("decode".into()),
                    bound_ns: Some(7),
                },
                TaskBound {
                    task: 4,
                    name: None,
                    bound_ns: None,
                },
            ],
        };
        let v = g.to_json();
        assert_eq!(v["alpha"], 0.4);
        assert_eq!(v["alpha_exact"], "2000000/5000000");
        assert_eq!(v["delta_ns"], 6_000_000);
        assert_eq!(GroupResult::from_json(&v), Ok(g));
        let e = GroupResult::from_json(&serde_json::json!({"name": "x"})).err();
        assert!(e.unwrap_or_default().contains("groups: missing"));
    }
}
