//! A small map from active jobs to per-job state, indexed by task.
//!
//! Jobs of one task are handed over in order (the [`crate::Policy`] contract), so a task has at
//! most one active job per strand: a per-task short vector gives O(1) lookups without hashing.
//! Jobs of task indices beyond the task set the policy was built for (a contract violation the
//! policy must survive without panicking) go to an ordered fallback map.

use crate::ids::JobId;
use std::collections::BTreeMap;

/// Per-job state `V` of the active jobs.
#[derive(Debug)]
pub(crate) struct JobTable<V> {
    per_task: Vec<Vec<(JobId, V)>>,
    other: BTreeMap<JobId, V>,
}

impl<V> JobTable<V> {
    /// A table for tasks `0..n_tasks` (others are accepted but slower).
    pub(crate) fn new(n_tasks: usize) -> JobTable<V> {
        let mut per_task = Vec::with_capacity(n_tasks);
        per_task.resize_with(n_tasks, Vec::new);
        JobTable {
            per_task,
            other: BTreeMap::new(),
        }
    }

    fn slot(&self, id: JobId) -> Option<&Vec<(JobId, V)>> {
        usize::try_from(id.task.0)
            .ok()
            .and_then(|t| self.per_task.get(t))
    }

    fn slot_mut(&mut self, id: JobId) -> Option<&mut Vec<(JobId, V)>> {
        usize::try_from(id.task.0)
            .ok()
            .and_then(|t| self.per_task.get_mut(t))
    }

    fn in_range(&self, id: JobId) -> bool {
        usize::try_from(id.task.0).is_ok_and(|t| t < self.per_task.len())
    }

    /// The state of `id`.
    pub(crate) fn get(&self, id: JobId) -> Option<&V> {
        match self.slot(id) {
            Some(v) => v.iter().find(|(j, _)| *j == id).map(|(_, s)| s),
            None => self.other.get(&id),
        }
    }

    /// The state of `id`, mutably.
    pub(crate) fn get_mut(&mut self, id: JobId) -> Option<&mut V> {
        if !self.in_range(id) {
            return self.other.get_mut(&id);
        }
        self.slot_mut(id)?
            .iter_mut()
            .find(|(j, _)| *j == id)
            .map(|(_, s)| s)
    }

    /// Whether `id` is present.
    pub(crate) fn contains(&self, id: JobId) -> bool {
        self.get(id).is_some()
    }

    /// Inserts or replaces the state of `id`.
    pub(crate) fn insert(&mut self, id: JobId, value: V) {
        match self.slot_mut(id) {
            Some(v) => match v.iter_mut().find(|(j, _)| *j == id) {
                Some(entry) => entry.1 = value,
                None => v.push((id, value)),
            },
            None => {
                self.other.insert(id, value);
            }
        }
    }

    /// Removes `id`, returning its state.
    pub(crate) fn remove(&mut self, id: JobId) -> Option<V> {
        match self.slot_mut(id) {
            Some(v) => {
                let pos = v.iter().position(|(j, _)| *j == id)?;
                Some(v.swap_remove(pos).1)
            }
            None => self.other.remove(&id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TaskId;

    #[test]
    fn in_range_and_out_of_range_tasks() {
        let mut t = JobTable::new(2);
        let a = JobId::new(TaskId(1), 0);
        let b = JobId::new(TaskId(7), 3);
        t.insert(a, 1);
        t.insert(b, 2);
        t.insert(a, 5);
        assert_eq!(t.get(a), Some(&5));
        assert_eq!(t.get(b), Some(&2));
        assert_eq!(t.remove(a), Some(5));
        assert!(!t.contains(a));
        assert_eq!(t.remove(b), Some(2));
        assert_eq!(t.remove(b), None);
    }
}
