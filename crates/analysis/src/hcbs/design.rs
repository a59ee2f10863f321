//! The inverse of `hcbs-gfp`: for each group and its given period `P`, the smallest budget
//! `Q` (integer ns, `1 ≤ Q ≤ P`) with which `hcbs-gfp` accepts the group (`schedlab design
//! reservations`, Python `schedlab.design_reservations`).
//!
//! Per group, bottom-up (subgroups first, their budgets then fixed): the predicate "the
//! group's own tasks pass Eq. 14 on `m_g` servers `(Q, P)`, and its subgroups' servers fit
//! inside `(Q, P)` on each CPU (bandwidth, then `super::nesting`)", found by binary search on
//! `Q`. Top-level admission [Eq. 17] is not part of the predicate: it depends on the other
//! groups, and is reported for the proposed set as a whole.
//!
//! **Monotonicity in `Q`** (what makes the binary search exact): for fixed `P` and `t`, the
//! supply `Z(t)` [Eq. 4] is non-decreasing in `Q` (the worst-case blackout `2(P − Q)` shrinks
//! and each period serves more; property-tested in `supply_tests.rs`). With equal servers,
//! `Ī = L_0 + min(L_m, W/m) = D − Z + min(Z, W/m)`, and raising `Z` by `δ` lowers `D − Z` by
//! `δ` and raises `min(Z, W/m)` by at most `δ`: `Ī` is non-increasing in `Z`, so Eq. 14 is
//! monotone in `Q` (`W` does not depend on `Q`). The nesting check `dbf(t) ≤ Z_p(t)` and the
//! bandwidth check `Σ Q_c/P_c ≤ Q/P` are monotone in `Q` as well. Property-tested in
//! `design_tests.rs`.
//!
//! A group with no task and no subgroup is accepted with any budget: its proposal is `Q = 1`
//! ns. Complexity: O(log P) evaluations of the group's test per group.

use super::gfp::{evaluate, group_order, server_of};
use super::group_test::passes;
use super::nesting::{children_fit, Nesting};
use super::supply::Server;
use crate::error::AnalysisError;
use crate::json::result_json;
use crate::reservations::Reservations;
use crate::system::{Priorities, System};
use crate::verdict::Verdict;
use schedlab_model::exact::{cmp_sum, Frac};
use schedlab_model::{Duration, GroupTree, ModelError, ReservationGroup, TaskSet};
use serde_json::{json, Value};
use std::cmp::Ordering;

/// Why no design can be made for a set (bad requests, not "no budget works").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DesignError {
    /// The analysis refused the request (CPUs, task parameters).
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// The groups do not fit the platform.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The set has no groups.
    #[error("the set has no reservation groups (`groups`): nothing to design")]
    NoGroups,
    /// `hcbs-gfp` does not apply to the set (the reason names the task).
    #[error("hcbs-gfp does not apply: {0}")]
    NotApplicable(String),
}

/// The proposal for one group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupDesign {
    /// The group's name.
    pub name: String,
    /// Its period `P` (ns), as given.
    pub period_ns: u64,
    /// Its budget in the file (ns).
    pub given_budget_ns: u64,
    /// The smallest budget `Q ≤ P` (ns) with which `hcbs-gfp` accepts it; `None` if none.
    pub budget_ns: Option<u64>,
    /// Why no budget works, if none does.
    pub reason: Option<String>,
}

/// The proposal for a set.
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    /// One proposal per group, in file order.
    pub groups: Vec<GroupDesign>,
    /// The proposed set (the file's with the proposed budgets), when every group has one.
    pub proposed: Option<TaskSet>,
    /// The admission violations of the proposed set [Eq. 17] (empty: admitted).
    pub overloads: Vec<String>,
    /// `hcbs-gfp` on the proposed set.
    pub verdict: Option<Verdict>,
}

impl Design {
    /// Whether every group has a budget and the proposed set passes admission [Eq. 17].
    pub fn admitted(&self) -> bool {
        self.proposed.is_some() && self.overloads.is_empty()
    }

    /// Whether `hcbs-gfp` accepts the proposed set (every group has a budget, admission holds).
    pub fn schedulable(&self) -> bool {
        self.verdict.as_ref().is_some_and(Verdict::is_schedulable)
    }

    /// `{"groups": [{"name", "period_ns", "given_budget_ns", "budget_ns" (null: none works),
    /// "alpha", "alpha_exact", "delta_ns" (null with budget_ns), "reason"}], "admission":
    /// {"passes", "overloads"} (null unless every group has a budget), "schedulable",
    /// "verdict" (the `hcbs-gfp` result object on the proposed set, or null)}`.
    pub fn to_json(&self) -> Value {
        let groups: Vec<Value> = self
            .groups
            .iter()
            .map(|g| {
                let server = g.budget_ns.map(|q| Server {
                    budget: q,
                    period: g.period_ns,
                });
                json!({
                    "name": g.name,
                    "period_ns": g.period_ns,
                    "given_budget_ns": g.given_budget_ns,
                    "budget_ns": g.budget_ns,
                    "alpha": server.map(|s| s.budget as f64 / s.period.max(1) as f64),
                    "alpha_exact": server.map(|s| format!("{}/{}", s.budget, s.period)),
                    "delta_ns": server.map(|s| u64::try_from(s.delay()).unwrap_or(u64::MAX)),
                    "reason": g.reason,
                })
            })
            .collect();
        let admission = self
            .proposed
            .as_ref()
            .map(|_| json!({"passes": self.overloads.is_empty(), "overloads": self.overloads}));
        json!({
            "groups": groups,
            "admission": admission,
            "schedulable": self.schedulable(),
            "verdict": self.verdict.as_ref().map(|v| result_json("hcbs-gfp", v)),
        })
    }
}

/// Proposes budgets for `set`'s groups on `cpus` CPUs under `priorities` (module doc).
pub fn design_reservations(
    set: &TaskSet,
    cpus: u32,
    priorities: Priorities,
) -> Result<Design, DesignError> {
    let sys = System::new(set.tasks(), cpus, priorities)?;
    let res = Reservations::of(set, cpus)?.ok_or(DesignError::NoGroups)?;
    let sys = sys.with_reservations(Some(res.clone()));
    let probe = evaluate(&sys, &res);
    if probe.status == crate::Status::NotApplicable {
        return Err(DesignError::NotApplicable(probe.reason.unwrap_or_default()));
    }
    let tree = &res.tree;
    let mut budgets: Vec<Option<u64>> = vec![None; tree.groups().len()];
    let mut reasons: Vec<Option<String>> = vec![None; tree.groups().len()];
    for &g in tree.top_down().iter().rev() {
        let g = g as usize;
        match design_group(&sys, tree, g, &budgets) {
            Ok(q) => budgets[g] = Some(q),
            Err(reason) => reasons[g] = Some(reason),
        }
    }
    let groups: Vec<GroupDesign> = tree
        .groups()
        .iter()
        .enumerate()
        .map(|(g, group)| GroupDesign {
            name: group.name.clone(),
            period_ns: group.period.as_ns(),
            given_budget_ns: group.budget.as_ns(),
            budget_ns: budgets[g],
            reason: reasons[g].clone(),
        })
        .collect();
    let Some(all) = budgets.iter().copied().collect::<Option<Vec<u64>>>() else {
        return Ok(Design {
            groups,
            proposed: None,
            overloads: Vec::new(),
            verdict: None,
        });
    };
    let proposed = with_budgets(set, &all)?;
    let tree = GroupTree::new(&proposed, cpus)?;
    let overloads = tree.overloads().iter().map(|o| tree.describe(o)).collect();
    let res = Reservations::of(&proposed, cpus)?.ok_or(DesignError::NoGroups)?;
    let sys = System::new(proposed.tasks(), cpus, priorities)?.with_reservations(Some(res));
    let verdict = crate::analyze(&super::HcbsGfp, &sys);
    Ok(Design {
        groups,
        proposed: Some(proposed),
        overloads,
        verdict: Some(verdict),
    })
}

/// `set` with group `g`'s budget replaced by `budgets[g]`.
fn with_budgets(set: &TaskSet, budgets: &[u64]) -> Result<TaskSet, ModelError> {
    let groups: Vec<ReservationGroup> = set
        .groups()
        .iter()
        .zip(budgets)
        .map(|(g, &q)| ReservationGroup {
            budget: Duration::from_ns(q),
            ..g.clone()
        })
        .collect();
    TaskSet::with_groups(set.tasks().to_vec(), set.resources().to_vec(), groups)
}

/// The smallest budget of group `g` (its subgroups' budgets in `budgets`), or why none.
fn design_group(
    sys: &System,
    tree: &GroupTree,
    g: usize,
    budgets: &[Option<u64>],
) -> Result<u64, String> {
    let group = &tree.groups()[g];
    if !group.children.is_empty() && !group.tasks.is_empty() {
        return Err(format!(
            "tasks directly in `{}`, which has subgroups, get no supply guarantee in [HCBS]: \
             no budget makes hcbs-gfp accept it",
            group.name
        ));
    }
    let mut kids = Vec::with_capacity(group.children.len());
    for &c in &group.children {
        let Some(q) = budgets.get(c as usize).copied().flatten() else {
            let name = &tree.groups()[c as usize].name;
            return Err(format!("its subgroup `{name}` has no budget that works"));
        };
        let period = server_of(tree, c as usize).period;
        kids.push((c, Server { budget: q, period }));
    }
    let tasks: Vec<usize> = group.tasks.iter().map(|&t| t as usize).collect();
    let order = group_order(sys, &tasks);
    let period = server_of(tree, g).period;
    let accepts = |q: u64| -> Result<(), String> {
        let server = Server { budget: q, period };
        if !passes(sys.params(), &order, &vec![server; group.cpus.len()]) {
            return Err("its tasks fail Eq. 14".into());
        }
        children_inside(tree, group.cpus.as_slice(), server, &kids)
    };
    if let Err(why) = accepts(period) {
        return Err(format!(
            "no budget Q ≤ P = {period} ns works: even with Q = P (a whole CPU per server) {why}"
        ));
    }
    // Smallest q in [1, P] with accepts(q): accepts(hi) holds throughout, monotone in q.
    let (mut lo, mut hi) = (1u64, period);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if accepts(mid).is_ok() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(hi)
}

/// Whether the subgroups `kids` (index, server) fit inside `server` on each of `cpus`.
fn children_inside(
    tree: &GroupTree,
    cpus: &[u32],
    server: Server,
    kids: &[(u32, Server)],
) -> Result<(), String> {
    let mut checked: Vec<Vec<Server>> = Vec::new();
    for &cpu in cpus {
        let here: Vec<Server> = kids
            .iter()
            .filter(|(c, _)| tree.groups()[*c as usize].has_cpu(cpu))
            .map(|(_, s)| *s)
            .collect();
        // CPUs with the same subgroups give the same answer (the parent's server is the same).
        if checked.contains(&here) {
            continue;
        }
        let sum = || here.iter().map(|s| Frac::ratio(s.budget, s.period));
        if cmp_sum(sum, Frac::ratio(server.budget, server.period)) == Ordering::Greater {
            return Err(format!("its subgroups need more bandwidth on CPU {cpu}"));
        }
        match children_fit(server, &here) {
            Nesting::Fits => checked.push(here),
            Nesting::Overflows { t, .. } => {
                return Err(format!(
                    "its subgroups' servers are not EDF-schedulable inside it on CPU {cpu} (window {t} ns)"
                ))
            }
            Nesting::GaveUp { points } => {
                return Err(format!(
                    "gave up on its subgroups on CPU {cpu} ({points} test points)"
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "design_tests.rs"]
mod tests;
