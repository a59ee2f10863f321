//! Reservation groups resolved for a platform [HCBS §3.2–3.3]: what every consumer (the
//! `hcbs-gfp` analysis, the simulator's `hcbs` policy, the runtime's `reservations`
//! architecture) needs from a set's [`ReservationGroup`]s once the number of CPUs is known —
//! each group's CPUs (a missing `cpus` resolved to all CPUs, or to its parent's), its parent and
//! children by index, its tasks, and the **admission** per CPU.
//!
//! Admission [HCBS Eq. 17]: on every CPU, the servers that share it directly must fit. At the
//! top level that is Σ Q/P ≤ 1 over the top-level groups with a server on the CPU (the H-CBS
//! admission test, necessary and sufficient for hard CBS servers under EDF); inside a group `p`,
//! the children's servers on a CPU run inside `p`'s server there, so the same rule reads
//! Σ Q_c/P_c ≤ Q_p/P_p (a necessary condition; the analysis then checks that the children's
//! servers are EDF-schedulable on `p`'s periodic supply). Sums are compared exactly
//! ([`crate::exact::cmp_sum`]). An overload is not a model error: [`GroupTree::overloads`]
//! lists them for the analysis to report as a verdict, and [`GroupTree::check_admission`]
//! turns the first into [`ModelError::Overloaded`] for the engines that refuse such sets.
//!
//! Complexity: [`GroupTree::new`] O(g·m + n) for g groups, m CPUs and n tasks (plus the name
//! lookups, O((g + n) log g)); [`GroupTree::overloads`] O(g·m).

use crate::error::ModelError;
use crate::exact::{cmp_sum, Frac};
use crate::groups::ReservationGroup;
use crate::taskset::TaskSet;
use crate::time::Duration;
use std::cmp::Ordering;

/// One group with its references resolved to indices (into [`GroupTree::groups`], in the
/// set's file order) and its CPUs resolved for the platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedGroup {
    /// The group's name.
    pub name: String,
    /// Budget `Q` per server period.
    pub budget: Duration,
    /// Server period `P`.
    pub period: Duration,
    /// The CPUs it has a server on, ascending (its `cpus`, else its parent's, else all).
    pub cpus: Vec<u32>,
    /// Its parent group, if any.
    pub parent: Option<u32>,
    /// Its subgroups, in file order.
    pub children: Vec<u32>,
    /// The tasks (indices into the set) that name it as their `group`, in index order.
    pub tasks: Vec<u32>,
    /// Nesting depth: 1 for a top-level group.
    pub depth: u32,
}

impl ResolvedGroup {
    /// Its bandwidth `Q/P` on each of its CPUs, exact.
    pub fn bandwidth(&self) -> Frac {
        Frac::ratio(self.budget.as_ns(), self.period.as_ns().max(1))
    }

    /// Whether it has a server on CPU `cpu`.
    pub fn has_cpu(&self, cpu: u32) -> bool {
        self.cpus.binary_search(&cpu).is_ok()
    }
}

/// One violated admission rule: the servers sharing `cpu` directly (the top-level groups when
/// `parent` is `None`, else `parent`'s children) need more than the capacity there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overload {
    /// The CPU.
    pub cpu: u32,
    /// The group whose server is shared (`None`: the CPU itself, [HCBS Eq. 17]).
    pub parent: Option<u32>,
    /// The groups sharing it, in file order.
    pub groups: Vec<u32>,
}

/// A set's reservation groups resolved for `cpus` CPUs (module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupTree {
    groups: Vec<ResolvedGroup>,
    task_group: Vec<Option<u32>>,
    top_down: Vec<u32>,
    cpus: u32,
}

impl GroupTree {
    /// Resolves `set`'s groups (already validated by the set) for a platform of `cpus` CPUs.
    ///
    /// Errors: [`ModelError::InvalidGroup`] when a group lists a CPU the platform does not
    /// have (the file reader checks this only when the file gives a platform).
    pub fn new(set: &TaskSet, cpus: u32) -> Result<GroupTree, ModelError> {
        let defs = set.groups();
        let mut sorted: Vec<(&str, u32)> = Vec::with_capacity(defs.len());
        for (i, g) in defs.iter().enumerate() {
            let i = u32::try_from(i).map_err(|_| too_many(defs.len()))?;
            sorted.push((g.name.as_str(), i));
        }
        sorted.sort_unstable();
        let find = |name: &str| -> Option<u32> {
            sorted
                .binary_search_by(|(n, _)| (*n).cmp(name))
                .ok()
                .map(|k| sorted[k].1)
        };
        let mut groups: Vec<ResolvedGroup> = Vec::with_capacity(defs.len());
        for g in defs {
            if let Some(c) = g.cpus.iter().flatten().find(|&&c| c >= cpus) {
                return Err(cpu_missing(g, *c, cpus));
            }
            groups.push(ResolvedGroup {
                name: g.name.clone(),
                budget: g.budget,
                period: g.period,
                cpus: Vec::new(),
                parent: g.parent.as_deref().and_then(find),
                children: Vec::new(),
                tasks: Vec::new(),
                depth: 1,
            });
        }
        let top_down = order_top_down(&mut groups)?;
        // Parents before children: a child without `cpus` inherits its parent's, resolved.
        for &i in &top_down {
            let i = i as usize;
            let own = defs[i].cpus.clone();
            groups[i].cpus = match (own, groups[i].parent) {
                (Some(mut list), _) => {
                    list.sort_unstable();
                    list
                }
                (None, Some(p)) => groups[p as usize].cpus.clone(),
                (None, None) => (0..cpus).collect(),
            };
        }
        let mut task_group = Vec::with_capacity(set.tasks().len());
        for (t, task) in set.tasks().iter().enumerate() {
            let g = task.group.as_deref().and_then(find);
            if let Some(g) = g {
                let t = u32::try_from(t).map_err(|_| too_many(set.tasks().len()))?;
                groups[g as usize].tasks.push(t);
            }
            task_group.push(g);
        }
        Ok(GroupTree {
            groups,
            task_group,
            top_down,
            cpus,
        })
    }

    /// The groups, in the set's file order.
    pub fn groups(&self) -> &[ResolvedGroup] {
        &self.groups
    }

    /// Whether the set has no groups.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The group of task `task` (index into the set), if it has one.
    pub fn group_of_task(&self, task: usize) -> Option<u32> {
        self.task_group.get(task).copied().flatten()
    }

    /// Every group index, parents before their children.
    pub fn top_down(&self) -> &[u32] {
        &self.top_down
    }

    /// The number of CPUs the tree was resolved for.
    pub fn cpus(&self) -> u32 {
        self.cpus
    }

    /// The top-level groups, in file order.
    pub fn roots(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.groups.len() as u32).filter(|&g| self.groups[g as usize].parent.is_none())
    }

    /// Every violated admission rule (module doc), by CPU, then top level before groups in
    /// file order. Empty: the set is admitted.
    pub fn overloads(&self) -> Vec<Overload> {
        let mut out = Vec::new();
        for cpu in 0..self.cpus {
            let roots: Vec<u32> = self
                .roots()
                .filter(|&g| self.groups[g as usize].has_cpu(cpu))
                .collect();
            if self.sum_exceeds(&roots, Frac::ONE) {
                out.push(Overload {
                    cpu,
                    parent: None,
                    groups: roots,
                });
            }
            for (p, parent) in self.groups.iter().enumerate() {
                if !parent.has_cpu(cpu) || parent.children.is_empty() {
                    continue;
                }
                let kids: Vec<u32> = parent
                    .children
                    .iter()
                    .copied()
                    .filter(|&c| self.groups[c as usize].has_cpu(cpu))
                    .collect();
                if self.sum_exceeds(&kids, parent.bandwidth()) {
                    out.push(Overload {
                        cpu,
                        parent: Some(p as u32),
                        groups: kids,
                    });
                }
            }
        }
        out
    }

    /// The first overload as [`ModelError::Overloaded`], for engines that refuse such sets.
    pub fn check_admission(&self) -> Result<(), ModelError> {
        match self.overloads().first() {
            None => Ok(()),
            Some(o) => Err(ModelError::Overloaded(self.describe(o))),
        }
    }

    /// A sentence naming the CPU, the rule and the groups of an overload.
    pub fn describe(&self, o: &Overload) -> String {
        let terms: Vec<String> = o
            .groups
            .iter()
            .map(|&g| {
                let g = &self.groups[g as usize];
                format!("`{}` {}/{}", g.name, g.budget, g.period)
            })
            .collect();
        match o.parent {
            None => format!(
                "CPU {}: the groups' servers need Σ Q/P > 1 ({}), which violates the H-CBS admission test Σ Q/P ≤ 1 [HCBS Eq. 17]",
                o.cpu,
                terms.join(" + ")
            ),
            Some(p) => {
                let p = &self.groups[p as usize];
                format!(
                    "CPU {}: the subgroups of `{}` need Σ Q/P > {}/{} ({}), more than their parent's server provides [HCBS Eq. 17 inside `{}`]",
                    o.cpu,
                    p.name,
                    p.budget,
                    p.period,
                    terms.join(" + "),
                    p.name
                )
            }
        }
    }

    fn sum_exceeds(&self, members: &[u32], capacity: Frac) -> bool {
        let terms = || members.iter().map(|&g| self.groups[g as usize].bandwidth());
        cmp_sum(terms, capacity) == Ordering::Greater
    }
}

/// Fills `children` and `depth` and returns the groups parents-first. The set's validation
/// rules out cycles; a cycle here (a set built unchecked) is reported, not looped on.
fn order_top_down(groups: &mut [ResolvedGroup]) -> Result<Vec<u32>, ModelError> {
    for i in 0..groups.len() {
        if let Some(p) = groups[i].parent {
            groups[p as usize].children.push(i as u32);
        }
    }
    let mut order: Vec<u32> = (0..groups.len() as u32)
        .filter(|&g| groups[g as usize].parent.is_none())
        .collect();
    let mut next = 0;
    while next < order.len() {
        let g = order[next] as usize;
        let depth = groups[g].depth + 1;
        let kids = groups[g].children.clone();
        for c in kids {
            groups[c as usize].depth = depth;
            order.push(c);
        }
        next += 1;
    }
    if order.len() != groups.len() {
        let stuck = (0..groups.len())
            .find(|&g| !order.contains(&(g as u32)))
            .map(|g| groups[g].name.clone())
            .unwrap_or_default();
        return Err(ModelError::InvalidGroup {
            group: stuck,
            message: "`parent` links form a cycle".into(),
        });
    }
    Ok(order)
}

fn cpu_missing(g: &ReservationGroup, cpu: u32, cpus: u32) -> ModelError {
    ModelError::InvalidGroup {
        group: g.name.clone(),
        message: format!(
            "`cpus`: CPU {cpu} does not exist (the platform has {cpus} CPUs, 0 to {})",
            cpus.saturating_sub(1)
        ),
    }
}

fn too_many(n: usize) -> ModelError {
    ModelError::Syntax(format!("{n} entries do not fit a 32-bit index"))
}

#[cfg(test)]
#[path = "group_tree_tests.rs"]
mod tests;
