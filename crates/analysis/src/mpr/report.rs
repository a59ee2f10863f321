//! `mpr-gfp` over a set's groups: preconditions, admission [HCBS Eq. 17], one
//! [`GroupReport`] per group (file order) and the set's verdict.
//!
//! The reports are what a `"groups"` array of the result would list: the group, its MPR
//! `(Π, Θ, m')`, whether its tasks are shown schedulable and each task's bound.

use super::gfp::{response_bound, Outcome};
use super::supply::Mpr;
use crate::system::{Params, System};
use crate::util::budget::Budget;
use crate::verdict::{Status, Verdict};
use schedlab_model::Duration;

/// One task of a group and its response-time bound, if shown (the least `R ≤ D` with (★),
/// [`super::gfp`]); the same record as `hcbs-gfp`'s, so both report groups alike.
pub use crate::hcbs::report::TaskBound;

/// One group's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupReport {
    /// The group's name.
    pub name: String,
    /// Budget `Q` (ns).
    pub budget_ns: u64,
    /// Period `P` (ns).
    pub period_ns: u64,
    /// Its CPUs.
    pub cpus: Vec<u32>,
    /// Its parent's name, if any.
    pub parent: Option<String>,
    /// Its MPR `(P, m·Q, m)`, `None` if it has no CPUs.
    pub mpr: Option<Mpr>,
    /// `Schedulable`, `NotShown` or `GaveUp`.
    pub status: Status,
    /// Why not (or a note).
    pub reason: Option<String>,
    /// Its own tasks, in task-index order.
    pub response_bounds: Vec<TaskBound>,
}

impl GroupReport {
    /// Whether every own task is shown to meet its deadlines, with the supply guaranteed.
    pub fn schedulable(&self) -> bool {
        self.status == Status::Schedulable
    }

    /// The report in the shape every reservation analysis gives (`Verdict::groups`, the JSON
    /// `"groups"` array): `hcbs-gfp`'s, with `schedulable` from the status.
    pub fn to_group_result(&self) -> crate::hcbs::report::GroupResult {
        crate::hcbs::report::GroupResult {
            name: self.name.clone(),
            budget_ns: self.budget_ns,
            period_ns: self.period_ns,
            cpus: self.cpus.clone(),
            parent: self.parent.clone(),
            schedulable: self.schedulable(),
            reason: self.reason.clone(),
            response_bounds: self.response_bounds.clone(),
        }
    }
}

/// The set's verdict and its groups' reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The verdict (response-time bounds for every task when schedulable).
    pub verdict: Verdict,
    /// One report per group, in file order (also when admission fails).
    pub groups: Vec<GroupReport>,
}

/// Preconditions: groups attached and present, every task in one, constrained deadlines,
/// a priority order.
pub fn check(sys: &System) -> Result<(), String> {
    let Some(res) = sys.reservations().filter(|r| !r.tree.is_empty()) else {
        return Err(
            "the set has no reservation groups (`groups` and each task's `group`): \
                    mpr-gfp analyses tasks in groups"
                .into(),
        );
    };
    let label = |i: usize| match res.names.get(i).cloned().flatten() {
        Some(n) => format!("task {i} (`{n}`)"),
        None => format!("task {i}"),
    };
    if let Some(i) = (0..sys.len()).find(|&i| res.tree.group_of_task(i).is_none()) {
        return Err(format!(
            "{} is in no group: mpr-gfp analyses a set whose every task is in a group",
            label(i)
        ));
    }
    if let Some(i) = sys.params().iter().position(|p| !p.constrained()) {
        return Err(format!(
            "assumes constrained deadlines (D ≤ T), but {} has D > T",
            label(i)
        ));
    }
    sys.priority_order().map(|_| ())
}

/// The verdict and reports (module doc of [`crate::mpr`]); `check` must hold (otherwise the
/// verdict is "not applicable").
pub fn analyse(sys: &System, budget: &mut Budget) -> Analysis {
    let not_applicable = |reason: String| Analysis {
        verdict: Verdict::not_applicable(reason),
        groups: Vec::new(),
    };
    if let Err(reason) = check(sys) {
        return not_applicable(reason);
    }
    let (Some(res), Ok(order)) = (sys.reservations(), sys.priority_order()) else {
        return not_applicable("no groups or no priority order".into());
    };
    let tree = &res.tree;
    let overloads = tree.overloads();
    let mut groups = Vec::with_capacity(tree.groups().len());
    for (g, group) in tree.groups().iter().enumerate() {
        let overload = overloads
            .iter()
            .find(|o| o.groups.contains(&(g as u32)) || o.parent.is_some_and(|p| p as usize == g));
        let mpr = Mpr::of_group(
            group.budget.as_ns(),
            group.period.as_ns(),
            u32::try_from(group.cpus.len()).unwrap_or(u32::MAX),
        );
        let own: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&i| tree.group_of_task(i) == Some(g as u32))
            .collect();
        let (status, reason, bounds) = match mpr {
            None => (
                Status::NotShown,
                Some("the group has no CPUs".to_string()),
                vec![None; own.len()],
            ),
            Some(mpr) => analyse_group(sys.params(), &own, mpr, budget),
        };
        let (status, reason) = if let Some(o) = overload {
            (Status::NotShown, Some(tree.describe(o)))
        } else if status == Status::Schedulable && group.parent.is_some() {
            let parent = group
                .parent
                .and_then(|p| tree.groups().get(p as usize))
                .map_or("?", |p| p.name.as_str());
            let note = format!(
                "subgroup of `{parent}`: its bounds hold if its servers receive (Q, P) inside `{parent}`'s servers, which mpr-gfp does not check (no MPR composition)"
            );
            (Status::NotShown, Some(note))
        } else if status == Status::Schedulable && !group.children.is_empty() && !own.is_empty() {
            let note = "its own tasks run only in what its subgroups leave: no supply guarantee";
            (Status::NotShown, Some(note.to_string()))
        } else {
            (status, reason)
        };
        let mut response_bounds: Vec<TaskBound> = own
            .iter()
            .zip(bounds)
            .map(|(&task, bound_ns)| TaskBound {
                task,
                name: res.names.get(task).cloned().flatten(),
                bound_ns,
            })
            .collect();
        response_bounds.sort_by_key(|b| b.task);
        groups.push(GroupReport {
            name: group.name.clone(),
            budget_ns: group.budget.as_ns(),
            period_ns: group.period.as_ns(),
            cpus: group.cpus.clone(),
            parent: group
                .parent
                .and_then(|p| tree.groups().get(p as usize))
                .map(|p| p.name.clone()),
            mpr,
            status,
            reason,
            response_bounds,
        });
    }
    let verdict = set_verdict(
        sys.len(),
        &groups,
        overloads.first().map(|o| tree.describe(o)),
    );
    Analysis { verdict, groups }
}

/// One group's own tasks (indices, highest priority first) on `mpr`: status, reason and each
/// task's bound (same order). A task after the first unshown one gets no bound: the workload
/// of lower-priority tasks assumes the higher-priority ones meet their deadlines.
fn analyse_group(
    params: &[Params],
    own: &[usize],
    mpr: Mpr,
    budget: &mut Budget,
) -> (Status, Option<String>, Vec<Option<u64>>) {
    let mut bounds = vec![None; own.len()];
    let mut hp: Vec<Params> = Vec::with_capacity(own.len());
    for (slot, &k) in own.iter().enumerate() {
        let Some(task) = params.get(k) else {
            return (Status::NotShown, Some(format!("no task {k}")), bounds);
        };
        match response_bound(&hp, task, mpr, budget) {
            Outcome::Bound(r) => {
                if let Some(b) = bounds.get_mut(slot) {
                    *b = Some(r);
                }
                hp.push(*task);
            }
            Outcome::Miss => {
                let why = format!("no response-time bound ≤ D for task {k} on its MPR");
                return (Status::NotShown, Some(why), bounds);
            }
            Outcome::Limit => {
                let why = format!(
                    "max_steps = {} response-time steps reached at task {k}",
                    budget.limit
                );
                return (Status::GaveUp, Some(why), bounds);
            }
        }
    }
    (Status::Schedulable, None, bounds)
}

/// The set's verdict from its groups: the first overload (its description names the CPU and
/// Eq. 17), else gave-up if any group gave up, else not-shown naming the first group not
/// shown, else schedulable with every task's bound.
fn set_verdict(n: usize, groups: &[GroupReport], overload: Option<String>) -> Verdict {
    if let Some(reason) = overload {
        return Verdict::not_shown().because(format!("admission fails: {reason}"));
    }
    let first = |s: Status| groups.iter().find(|g| g.status == s);
    let explain = |g: &GroupReport| {
        format!(
            "group `{}`: {}",
            g.name,
            g.reason.as_deref().unwrap_or(g.status.name())
        )
    };
    if let Some(g) = first(Status::GaveUp) {
        return Verdict::gave_up(explain(g));
    }
    if let Some(g) = first(Status::NotShown) {
        return Verdict::not_shown().because(explain(g));
    }
    let mut bounds = vec![Duration::ZERO; n];
    for b in groups.iter().flat_map(|g| &g.response_bounds) {
        if let (Some(slot), Some(r)) = (bounds.get_mut(b.task), b.bound_ns) {
            *slot = Duration::from_ns(r);
        }
    }
    Verdict::schedulable().with_response_times(bounds)
}
