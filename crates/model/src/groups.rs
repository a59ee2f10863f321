//! Reservation groups [HCBS §3.2]: a named group of tasks with a CPU reservation of budget
//! `Q` every period `P` on each CPU it may use (one hard CBS server per CPU, the same `(Q, P)`
//! on each [HCBS §3, Fig. 1]). Groups may nest: a group with a `parent` runs inside its
//! parent's reservation, so a hierarchy of any depth up to [`MAX_GROUP_DEPTH`] is expressible.
//! Tasks name their group ([`crate::Task::group`]); a task without one is not reserved.
//!
//! Validation ([`validate_groups`], run by [`crate::TaskSet`]'s validation), each failure a
//! [`ModelError::InvalidGroup`] naming the group (a task naming an unknown group is the task's
//! [`ModelError::InvalidField`] on `group`, naming the group):
//! - at most [`MAX_GROUPS`] groups, names non-empty and distinct;
//! - `0 < Q ≤ P` (`Q = 0` would be a group that never runs);
//! - `cpus`, when given: non-empty, distinct, at most [`MAX_GROUP_CPUS`] entries (each below
//!   the platform's CPU count — checked where the platform is known, by the file reader);
//!   a child's CPUs within its parent's;
//! - `parent` names another group, the `parent` links have no cycle, and nesting is at most
//!   [`MAX_GROUP_DEPTH`] deep (a top-level group has depth 1);
//! - a child's bandwidth is within its parent's: `Q_c/P_c ≤ Q_p/P_p` per CPU, compared
//!   exactly as `Q_c·P_p ≤ Q_p·P_c` in `u128` (no overflow for `u64` operands).
//!
//! What is *not* a model error: Σ Q/P > 1 on a CPU [HCBS Eq. 17]. That is an admission
//! verdict of the analysis (`hcbs-gfp`); the simulator and the runtime refuse such sets.
//!
//! Complexity: O(g log g + n log g) for g groups and n tasks (names are looked up in a sorted
//! index; the parent walk is bounded by the depth limit).

use crate::error::ModelError;
use crate::task::Task;
use crate::time::Duration;
use std::cmp::Ordering;

/// Most groups a task set may have (input-controlled size bound).
pub const MAX_GROUPS: usize = 1024;
/// Deepest nesting of groups through `parent` (a top-level group has depth 1).
pub const MAX_GROUP_DEPTH: usize = 16;
/// Most entries a group's `cpus` list may have (the platform bound,
/// [`crate::platform::MAX_CPUS`]).
pub const MAX_GROUP_CPUS: usize = crate::platform::MAX_CPUS as usize;

/// A CPU reservation group [HCBS §3.2]: budget `Q` every period `P` on each CPU it may use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReservationGroup {
    /// Group name, unique within the set (tasks refer to it).
    pub name: String,
    /// Budget `Q` per server period (`0 < Q ≤ P`).
    pub budget: Duration,
    /// Server period `P`.
    pub period: Duration,
    /// The CPUs (0-based) it has a server on; `None`: all CPUs of the platform (for a
    /// subgroup: all of its parent's).
    pub cpus: Option<Vec<u32>>,
    /// The group it runs inside, if any.
    pub parent: Option<String>,
}

impl ReservationGroup {
    /// A top-level group on all CPUs (not validated; see [`validate_groups`]).
    pub fn new(name: impl Into<String>, budget: Duration, period: Duration) -> ReservationGroup {
        ReservationGroup {
            name: name.into(),
            budget,
            period,
            cpus: None,
            parent: None,
        }
    }

    /// Compares the bandwidths `Q/P` of two groups exactly (periods are positive once valid).
    pub fn cmp_bandwidth(&self, other: &ReservationGroup) -> Ordering {
        let l = u128::from(self.budget.as_ns()) * u128::from(other.period.as_ns());
        let r = u128::from(other.budget.as_ns()) * u128::from(self.period.as_ns());
        l.cmp(&r)
    }

    fn error(&self, message: String) -> ModelError {
        ModelError::InvalidGroup {
            group: self.name.clone(),
            message,
        }
    }
}

/// The index of the group called `name` in `index` (sorted `(name, position)` pairs).
fn find(index: &[(&str, usize)], name: &str) -> Option<usize> {
    index
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .map(|k| index[k].1)
}

/// Checks the groups and the tasks' `group` names (see the module doc for the rules).
pub fn validate_groups(groups: &[ReservationGroup], tasks: &[Task]) -> Result<(), ModelError> {
    if groups.len() > MAX_GROUPS {
        return Err(ModelError::Syntax(format!(
            "groups: {} groups is more than schedlab supports (at most {MAX_GROUPS})",
            groups.len()
        )));
    }
    let mut index: Vec<(&str, usize)> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (g.name.as_str(), i))
        .collect();
    index.sort_unstable();
    if let Some(w) = index.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(groups[w[1].1].error(format!(
            "the name is given to groups {} and {}",
            w[0].1, w[1].1
        )));
    }
    for g in groups {
        check_one(g)?;
    }
    for g in groups {
        check_parent(g, groups, &index)?;
    }
    for (i, t) in tasks.iter().enumerate() {
        if let Some(name) = &t.group {
            if find(&index, name).is_none() {
                return Err(ModelError::InvalidField {
                    task: t.reference(i),
                    field: "group".into(),
                    message: unknown_group(name, groups),
                });
            }
        }
    }
    Ok(())
}

fn unknown_group(name: &str, groups: &[ReservationGroup]) -> String {
    if groups.is_empty() {
        return format!("unknown group `{name}` (the set has no `groups`)");
    }
    let known: Vec<&str> = groups.iter().take(8).map(|g| g.name.as_str()).collect();
    let more = if groups.len() > 8 { ", …" } else { "" };
    format!(
        "unknown group `{name}` (groups: {}{more})",
        known.join(", ")
    )
}

/// The rules of one group on its own: name, `0 < Q ≤ P`, its `cpus` list.
fn check_one(g: &ReservationGroup) -> Result<(), ModelError> {
    if g.name.is_empty() {
        return Err(g.error("a group needs a non-empty `name`".into()));
    }
    if g.period.is_zero() {
        return Err(g.error("`period` must be positive".into()));
    }
    if g.budget.is_zero() {
        return Err(g.error("`budget` must be positive (a budget of 0 never runs)".into()));
    }
    if g.budget > g.period {
        return Err(g.error(format!(
            "`budget` {} exceeds `period` {} (Q ≤ P)",
            g.budget, g.period
        )));
    }
    if let Some(cpus) = &g.cpus {
        if cpus.is_empty() {
            return Err(g.error("`cpus` is empty (leave it out for all CPUs)".into()));
        }
        if cpus.len() > MAX_GROUP_CPUS {
            return Err(g.error(format!(
                "`cpus` has {} entries, more than {MAX_GROUP_CPUS}",
                cpus.len()
            )));
        }
        let mut sorted = cpus.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(g.error(format!("`cpus` lists CPU {} twice", w[0])));
        }
    }
    Ok(())
}

/// The rules of a group's `parent`: it exists, the chain has no cycle and is at most
/// [`MAX_GROUP_DEPTH`] long, and the group fits in its parent (bandwidth and CPUs).
fn check_parent(
    g: &ReservationGroup,
    groups: &[ReservationGroup],
    index: &[(&str, usize)],
) -> Result<(), ModelError> {
    let Some(parent_name) = &g.parent else {
        return Ok(());
    };
    let Some(p) = find(index, parent_name) else {
        return Err(g.error(format!("`parent`: {}", unknown_group(parent_name, groups))));
    };
    if *parent_name == g.name {
        return Err(g.error("`parent` is the group itself (a cycle)".into()));
    }
    let parent = &groups[p];
    // Walk up at most MAX_GROUP_DEPTH links: coming back to `g` is a cycle, not reaching a
    // top-level group within the bound is too deep a nesting (or a cycle above `g`, which
    // that group's own walk reports as a cycle).
    let mut at = parent;
    let mut depth = 2;
    while let Some(up) = &at.parent {
        if *up == g.name {
            return Err(g.error(format!(
                "`parent` links form a cycle (`{}` → … → `{}`)",
                g.name, g.name
            )));
        }
        depth += 1;
        if depth > MAX_GROUP_DEPTH {
            return Err(g.error(format!(
                "nested more than {MAX_GROUP_DEPTH} deep (or its ancestors form a cycle)"
            )));
        }
        match find(index, up) {
            Some(k) => at = &groups[k],
            // That ancestor's own check reports the unknown parent.
            None => break,
        }
    }
    if g.cmp_bandwidth(parent) == Ordering::Greater {
        return Err(g.error(format!(
            "bandwidth {}/{} exceeds its parent `{}`'s {}/{} per CPU",
            g.budget, g.period, parent.name, parent.budget, parent.period
        )));
    }
    if let (Some(mine), Some(theirs)) = (&g.cpus, &parent.cpus) {
        let mut theirs = theirs.clone();
        theirs.sort_unstable();
        if let Some(c) = mine.iter().find(|c| theirs.binary_search(c).is_err()) {
            return Err(g.error(format!(
                "CPU {c} is not one of its parent `{}`'s `cpus`",
                parent.name
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "groups_tests.rs"]
mod tests;
