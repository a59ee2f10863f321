//! `hcbs-gfp`: global fixed priority inside H-CBS reservation groups [HCBS §3.3.4,
//! Eq. 4, 11–15, 17], with the Eq. 16 misprint corrected (see `super::interference`).
//!
//! Per group `g` with budget `Q`, period `P` and `m_g` CPUs: the virtual platform is one
//! server `(Q, P)` per CPU of the group; its tasks (priority = rank under `--priorities`, as
//! the other FP tests) pass Eq. 14 with the exact supply Eq. 4 (`super::group_test`).
//! The supply is guaranteed when:
//! - **top level**: the per-CPU admission [Eq. 17] holds on each of the group's CPUs
//!   (`GroupTree::overloads`); an overload is a verdict (not shown, the reason names Eq. 17
//!   and the CPU), every group is still reported, and groups not on an overloaded CPU are
//!   still analysed;
//! - **subgroups**: the parent's supply is guaranteed, the children's bandwidth fits the
//!   parent's, and the children's servers are EDF-schedulable inside the parent's server on
//!   each CPU (`super::nesting`); a child's supply is then its own Eq. 4.
//!
//! Tasks placed directly in a group that has subgroups get no supply guarantee in [HCBS] (they
//! run when no child takes the CPU): such a group is *not shown*, its tasks without bounds.
//! A set without groups, or with a task outside every group, is *not applicable* (the reason
//! names the task); so are non-constrained deadlines (Eq. 12 assumes `D ≤ T`). Every group is
//! reported whenever the set has groups ([`crate::hcbs::report::GroupResult`]).
//!
//! Verdict: schedulable (with every task's bound `C_k + ⌈Ī_k⌉`) when every group is; else
//! not shown, or gave up when the only obstacle is the nesting check's work limit.
//! Complexity: O(Σ_g (n_g² + n_g·m log m)) for the groups, plus the nesting checks
//! (at most `nesting::MAX_POINTS` test points each).

use super::group_test::{test_group, TaskOutcome};
use super::nesting::{children_fit, Nesting};
use super::report::{GroupResult, TaskBound};
use super::supply::Server;
use crate::reservations::Reservations;
use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use schedlab_model::{Duration, GroupTree};

/// The scheduler family of reservation tests.
pub const FAMILY: &str = "reservations";

/// `hcbs-gfp` [HCBS §3.3].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HcbsGfp;

impl SchedTest for HcbsGfp {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "hcbs-gfp".into(),
            family: FAMILY,
            kind: Kind::Sufficient,
            citation: "F. Checconi, T. Cucinotta, D. Faggioli, G. Lipari, \"Hierarchical \
                       Multiprocessor CPU Reservations for the Linux Kernel\" [HCBS] §3.3: exact \
                       supply Eq. 4, workload Eq. 11-12, interference Eq. 13 (Bini, Buttazzo, \
                       Bertogna, RTCSA 2009), test Eq. 14-15, admission Eq. 17; Eq. 16 as printed \
                       is a misprint (Ī = L0 + min(Lm, W/m))",
            assumptions: "sporadic tasks with constrained deadlines, every task in a reservation \
                          group (budget Q, period P per CPU, hard CBS under per-CPU EDF); global \
                          preemptive fixed priorities inside each group; subgroups EDF-scheduled \
                          inside their parent's servers",
            complexity: "O(Σ_g n_g² + n_g·m log m) per set, plus pseudo-polynomial nesting \
                         checks (at most 10^6 test points each)",
        }
    }

    /// Always applies: the preconditions are checked in `run`, so that every group is reported
    /// even when the test does not apply.
    fn check(&self, _sys: &System) -> Result<(), String> {
        Ok(())
    }

    fn run(&self, sys: &System) -> Verdict {
        let Some(res) = sys.reservations() else {
            return Verdict::not_applicable(
                "the set has no reservation groups (`groups`): hcbs-gfp analyses tasks inside \
                 H-CBS reservations",
            )
            .with_groups(Vec::new());
        };
        evaluate(sys, res)
    }
}

/// A problem and whether it is only a work limit (gave up) rather than a failed check.
type Problem = Option<(String, bool)>;

/// One group's state while the set is evaluated.
#[derive(Clone, Debug, Default)]
struct State {
    /// Why its supply is not guaranteed (an overload, its parent's problem, or subgroups that
    /// do not fit in the parent), if so.
    supply: Problem,
    /// Its own problem: a failed task, tasks beside subgroups, subgroups that do not fit.
    problem: Problem,
    /// Bounds of its own tasks, by position in its task list.
    bounds: Vec<Option<u64>>,
}

impl State {
    fn reason(&self) -> Option<&(String, bool)> {
        self.supply.as_ref().or(self.problem.as_ref())
    }
}

/// The verdict of `hcbs-gfp` for `sys` with the groups of `res` (module doc).
pub(crate) fn evaluate(sys: &System, res: &Reservations) -> Verdict {
    let tree = &res.tree;
    let mut states = vec![State::default(); tree.groups().len()];
    if let Some(reason) = not_applicable(sys, tree) {
        let groups = reports(res, &states, Some(&reason));
        return Verdict::not_applicable(reason).with_groups(groups);
    }
    let overloads = admission(tree, &mut states);
    for &g in tree.top_down() {
        analyse_group(sys, tree, g as usize, &mut states);
    }
    let groups = reports(res, &states, None);
    let failed = states
        .iter()
        .filter_map(State::reason)
        .any(|(_, limit)| !limit);
    overall(sys, groups, &overloads, failed)
}

/// Why `hcbs-gfp` does not apply to `sys`, if it does not.
fn not_applicable(sys: &System, tree: &GroupTree) -> Option<String> {
    if tree.cpus() != sys.cpus() {
        return Some(format!(
            "the groups were resolved for {} CPUs, the analysis runs on {}",
            tree.cpus(),
            sys.cpus()
        ));
    }
    if let Some(i) = (0..sys.len()).find(|&i| tree.group_of_task(i).is_none()) {
        return Some(format!(
            "task {i} is in no reservation group: hcbs-gfp analyses sets whose every task has a \
             `group`"
        ));
    }
    if let Err(reason) = sys.require_constrained() {
        return Some(format!("hcbs-gfp (Eq. 12) {reason}"));
    }
    sys.priority_order().err()
}

/// Marks the groups whose supply an overload [Eq. 17] leaves unguaranteed (and a parent whose
/// subgroups overload it); returns the overloads' descriptions (`GroupTree::describe`, the
/// messages `simulate` and `run` give).
fn admission(tree: &GroupTree, states: &mut [State]) -> Vec<String> {
    let mut out = Vec::new();
    for o in tree.overloads() {
        let text = tree.describe(&o);
        for &g in &o.groups {
            if let Some(s) = states.get_mut(g as usize) {
                s.supply.get_or_insert_with(|| (text.clone(), false));
            }
        }
        if let Some(p) = o.parent.and_then(|p| states.get_mut(p as usize)) {
            p.problem.get_or_insert_with(|| (text.clone(), false));
        }
        out.push(text);
    }
    out
}

/// Analyses group `g` (its parent already done): inherits an unguaranteed supply, checks its
/// subgroups' servers inside its own, and runs Eq. 14 on its own tasks.
fn analyse_group(sys: &System, tree: &GroupTree, g: usize, states: &mut [State]) {
    let Some(group) = tree.groups().get(g) else {
        return;
    };
    if let Some(p) = group.parent.map(|p| p as usize) {
        let inherited = states.get(p).and_then(|s| s.supply.clone()).map(|(r, l)| {
            (
                format!(
                    "the supply of its parent `{}` is not guaranteed: {r}",
                    tree.groups()[p].name
                ),
                l,
            )
        });
        if let (Some(reason), Some(s)) = (inherited, states.get_mut(g)) {
            s.supply.get_or_insert(reason);
        }
    }
    let server = server_of(tree, g);
    if !group.children.is_empty() {
        nest_children(tree, g, server, states);
    }
    let Some(state) = states.get_mut(g) else {
        return;
    };
    let tasks: Vec<usize> = group.tasks.iter().map(|&t| t as usize).collect();
    state.bounds = vec![None; tasks.len()];
    if tasks.is_empty() {
        return;
    }
    if !group.children.is_empty() {
        state.problem.get_or_insert_with(|| {
            let text = format!(
                "not shown: tasks directly in `{}`, which has subgroups, run only when no \
                 subgroup takes the CPU; [HCBS] gives them no supply guarantee",
                group.name
            );
            (text, false)
        });
        return;
    }
    let order = group_order(sys, &tasks);
    let servers = vec![server; group.cpus.len()];
    let outcomes = test_group(sys.params(), &order, &servers);
    for (&k, outcome) in order.iter().zip(&outcomes) {
        let pos = tasks.iter().position(|&t| t == k).unwrap_or(0);
        match outcome {
            TaskOutcome::Bound(b) => state.bounds[pos] = Some(*b),
            TaskOutcome::Fails(ik) => {
                let p = sys.params()[k];
                let text = format!(
                    "task {k}: C + Ī = {} + {} > D = {} [HCBS Eq. 14] on {} servers {}/{} \
                     (Z(D) = {})",
                    p.c,
                    fmt_interference(*ik),
                    p.d,
                    servers.len(),
                    server.budget,
                    server.period,
                    server.supply(p.d)
                );
                state.problem.get_or_insert((text, false));
            }
            TaskOutcome::After => {}
        }
    }
}

/// The subgroups of `g` on each of its CPUs must be EDF-schedulable inside its server there
/// (`super::nesting`); marks them (and `g`) otherwise.
fn nest_children(tree: &GroupTree, g: usize, server: Server, st: &mut [State]) {
    let Some(group) = tree.groups().get(g) else {
        return;
    };
    let mut seen: Vec<Vec<u32>> = Vec::new();
    for &cpu in &group.cpus {
        let kids: Vec<u32> = group
            .children
            .iter()
            .copied()
            .filter(|&c| tree.groups()[c as usize].has_cpu(cpu))
            .collect();
        // Children already refused by an overload inside g: reported there.
        let overloaded = kids.iter().any(|&c| st[c as usize].supply.is_some());
        if kids.is_empty() || overloaded || seen.contains(&kids) {
            continue;
        }
        let servers: Vec<Server> = kids.iter().map(|&c| server_of(tree, c as usize)).collect();
        let (reason, gave_up) = match children_fit(server, &servers) {
            Nesting::Fits => {
                seen.push(kids);
                continue;
            }
            Nesting::Overflows { t, demand, supply } => (
                format!(
                    "CPU {cpu}: the subgroups' servers are not EDF-schedulable inside `{}`'s \
                     server {}/{}: in a window of {t} ns they demand {demand} ns, the server \
                     supplies {supply} ns [HCBS Eq. 4]",
                    group.name, server.budget, server.period
                ),
                false,
            ),
            Nesting::GaveUp { points } => (
                format!(
                    "CPU {cpu}: gave up checking the subgroups' servers inside `{}`: {points} \
                     test points exceed the limit of {}",
                    group.name,
                    super::nesting::MAX_POINTS
                ),
                true,
            ),
        };
        for &c in &kids {
            if let Some(s) = st.get_mut(c as usize) {
                s.supply.get_or_insert_with(|| (reason.clone(), gave_up));
            }
        }
        if let Some(s) = st.get_mut(g) {
            s.problem.get_or_insert((reason, gave_up));
        }
        seen.push(kids);
    }
}

/// The server `(Q, P)` of group `g`.
pub(crate) fn server_of(tree: &GroupTree, g: usize) -> Server {
    tree.groups().get(g).map_or(
        Server {
            budget: 0,
            period: 1,
        },
        |x| Server {
            budget: x.budget.as_ns(),
            period: x.period.as_ns().max(1),
        },
    )
}

/// `tasks` (a group's, by index) from highest to lowest priority under the system's order.
pub(crate) fn group_order(sys: &System, tasks: &[usize]) -> Vec<usize> {
    match sys.priority_order() {
        Ok(order) => order
            .iter()
            .copied()
            .filter(|i| tasks.contains(i))
            .collect(),
        Err(_) => tasks.to_vec(),
    }
}

fn fmt_interference(ik: super::interference::Interference) -> String {
    if ik.rest == 0 {
        ik.whole.to_string()
    } else {
        format!("{} + {}/{}", ik.whole, ik.rest, ik.parts)
    }
}

/// The group reports from the states (`na`: the test does not apply, nothing analysed).
fn reports(res: &Reservations, states: &[State], na: Option<&str>) -> Vec<GroupResult> {
    let tree = &res.tree;
    let groups = tree.groups();
    groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            let state = states.get(g).cloned().unwrap_or_default();
            let reason = match na {
                Some(na) => Some(format!("not analysed: {na}")),
                None => state.reason().map(|(r, _)| r.clone()),
            };
            let guaranteed = na.is_none() && state.supply.is_none();
            let response_bounds = group
                .tasks
                .iter()
                .enumerate()
                .map(|(pos, &t)| TaskBound {
                    task: t as usize,
                    name: res.names.get(t as usize).cloned().flatten(),
                    bound_ns: state
                        .bounds
                        .get(pos)
                        .copied()
                        .flatten()
                        .filter(|_| guaranteed),
                })
                .collect();
            GroupResult {
                name: group.name.clone(),
                budget_ns: group.budget.as_ns(),
                period_ns: group.period.as_ns(),
                cpus: group.cpus.clone(),
                parent: group
                    .parent
                    .and_then(|p| groups.get(p as usize))
                    .map(|p| p.name.clone()),
                schedulable: reason.is_none(),
                reason,
                response_bounds,
            }
        })
        .collect()
}

/// The set's verdict from the group reports (module doc); `failed`: some group failed a
/// check (else the only problems are work limits).
fn overall(sys: &System, groups: Vec<GroupResult>, overloads: &[String], failed: bool) -> Verdict {
    if let Some(first) = overloads.first() {
        let more = match overloads.len() {
            1 => String::new(),
            n => format!(" (and {} more overloads)", n - 1),
        };
        return Verdict::not_shown()
            .because(format!("admission fails: {first}{more}"))
            .with_groups(groups);
    }
    if let Some(g) = groups.iter().find(|g| !g.schedulable) {
        let reason = format!("group `{}`: {}", g.name, g.reason.as_deref().unwrap_or(""));
        let v = if failed {
            Verdict::not_shown().because(reason)
        } else {
            Verdict::gave_up(reason)
        };
        return v.with_groups(groups);
    }
    let mut bounds = vec![Duration::ZERO; sys.len()];
    for b in groups.iter().flat_map(|g| &g.response_bounds) {
        if let (Some(slot), Some(ns)) = (bounds.get_mut(b.task), b.bound_ns) {
            *slot = Duration::from_ns(ns);
        }
    }
    Verdict::schedulable()
        .with_response_times(bounds)
        .with_groups(groups)
}

#[cfg(test)]
#[path = "gfp_tests.rs"]
pub(crate) mod tests;
