//! Which job each CPU runs (plan decision 5, [HCBS §3.2]): recomputed from scratch at every
//! decision point, so the outcome depends only on the state, never on the history of
//! decisions (determinism, and the same code in both engines).
//!
//! A *holder* (the root, which holds every CPU, or a group, which holds the CPUs its servers
//! won) hands its CPUs out in two steps:
//! 1. **servers**: the pairs (CPU, server of a child) with the server eligible (budget left,
//!    not throttled), its CPU held and its child's subtree holding jobs, are taken greedily in
//!    the order (deadline, group index, CPU) — EDF among the servers [HCBS §3.2]. A pair is
//!    taken if the CPU is still free and the child can use one CPU more: the child, holding
//!    its CPUs so far plus this one, would run a job on each of them ([`Hcbs::count`], the same
//!    two steps inside the child). So on each CPU the earliest-deadline server that has work
//!    for it wins;
//! 2. **own jobs**: the CPUs no child took run the holder's own jobs by global fixed priority
//!    (the `k` highest-priority ones for `k` such CPUs [HCBS §3.2]), a job that already runs
//!    on one of those CPUs staying there (no needless migration), the others on the free
//!    CPUs in increasing order.
//!
//! Complexity: for a flat set of groups (no subgroups) one decision is `O(s log s + m)` for
//! `s` servers (a child without subgroups answers [`Hcbs::count`] in `O(1)`); a subgroup level
//! repeats step 1 inside every trial of its parent, `O(s^depth)` at worst — hierarchies are
//! shallow (at most 16 levels, [`schedlab_model::groups::MAX_GROUP_DEPTH`]) and small.

use super::Hcbs;
use crate::prio::JobKey;
use schedlab_model::Time;

/// The CPUs each child took (in child order) and the CPUs left to the holder's own jobs.
pub(super) struct Split {
    pub(super) taken: Vec<(u32, Vec<u32>)>,
    pub(super) left: Vec<u32>,
}

impl Hcbs {
    /// Step 1 for the children `children` of a holder that holds `held` (sorted).
    pub(super) fn split(&self, children: &[u32], held: &[u32]) -> Split {
        let mut pairs: Vec<(Time, u32, u32)> = Vec::new();
        for &c in children {
            let Some(g) = self.groups.get(c as usize) else {
                continue;
            };
            if g.backlog == 0 {
                continue;
            }
            for &(cpu, s) in &g.servers {
                let eligible = self.servers.get(s as usize).is_some_and(|s| s.eligible());
                if eligible && held.binary_search(&cpu).is_ok() {
                    let d = self.servers.get(s as usize).map_or(Time::ZERO, |s| s.d);
                    pairs.push((d, c, cpu));
                }
            }
        }
        pairs.sort_unstable();
        let mut free = vec![true; held.len()];
        let mut taken: Vec<(u32, Vec<u32>)> = Vec::new();
        for (_, c, cpu) in pairs {
            let Ok(pos) = held.binary_search(&cpu) else {
                continue;
            };
            if !free[pos] {
                continue;
            }
            let slot = match taken.iter().position(|(g, _)| *g == c) {
                Some(i) => i,
                None => {
                    taken.push((c, Vec::new()));
                    taken.len() - 1
                }
            };
            let mut trial = taken[slot].1.clone();
            if let Err(at) = trial.binary_search(&cpu) {
                trial.insert(at, cpu);
            }
            if self.count(c, &trial) == trial.len() {
                taken[slot].1 = trial;
                free[pos] = false;
            }
        }
        taken.retain(|(_, cpus)| !cpus.is_empty());
        let left = held
            .iter()
            .zip(&free)
            .filter(|(_, &f)| f)
            .map(|(&c, _)| c)
            .collect();
        Split { taken, left }
    }

    /// How many of `held` (sorted) group `g` would run a job on.
    pub(super) fn count(&self, g: u32, held: &[u32]) -> usize {
        let Some(group) = self.groups.get(g as usize) else {
            return 0;
        };
        if group.children.is_empty() {
            return held.len().min(group.ready.len());
        }
        let split = self.split(&group.children, held);
        let by_children: usize = split.taken.iter().map(|(_, c)| c.len()).sum();
        by_children + split.left.len().min(group.ready.len())
    }

    /// Fills `desired[cpu]` for the CPUs `held` (sorted) of holder `g` (`None`: the root).
    pub(super) fn place(
        &self,
        g: Option<u32>,
        held: &[u32],
        desired: &mut [Option<(JobKey, u32)>],
    ) {
        let children: &[u32] = match g {
            None => &self.roots,
            Some(g) => self.groups.get(g as usize).map_or(&[], |x| &x.children),
        };
        let split = if children.is_empty() {
            Split {
                taken: Vec::new(),
                left: held.to_vec(),
            }
        } else {
            self.split(children, held)
        };
        for (c, cpus) in &split.taken {
            self.place(Some(*c), cpus, desired);
        }
        let (Some(g), false) = (g, split.left.is_empty()) else {
            return;
        };
        let Some(group) = self.groups.get(g as usize) else {
            return;
        };
        let mut free = split.left;
        let mut rest: Vec<JobKey> = Vec::new();
        for &key in group.ready.iter().take(free.len()) {
            let here = self.where_.get(key.task as usize).copied().flatten();
            match here.and_then(|cpu| free.binary_search(&cpu).ok()) {
                Some(pos) => {
                    if let Some(slot) = desired.get_mut(free[pos] as usize) {
                        *slot = Some((key, g));
                    }
                    free.remove(pos);
                }
                None => rest.push(key),
            }
        }
        for (key, cpu) in rest.into_iter().zip(free) {
            if let Some(slot) = desired.get_mut(cpu as usize) {
                *slot = Some((key, g));
            }
        }
    }
}
