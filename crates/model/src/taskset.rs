//! Task sets: an ordered list of tasks (the order is the task index used everywhere: files, CSV,
//! tie-breaking) with set-wide invariants (at least one task, unique names) and aggregate
//! quantities.
//!
//! A set also names the resources its tasks' critical sections use [ChronOS §3.6]: ids are
//! dense `u32`s (`0..resources().len()`), given by files in order of first appearance, and
//! [`TaskSet::resources`] holds their names so that outputs and messages can say `bus` rather
//! than `0`. A set built from tasks alone ([`TaskSet::new`]) has no names; its resources are
//! named by their ids.
//!
//! A set also holds its reservation groups [HCBS §3.2] ([`crate::groups`]): tasks name their
//! group, and the set's validation checks the groups and those names together.
//!
//! One rule for every front end: a task set has at least one task. Files, the CLI (`analyze`,
//! `simulate`, `run`) and Python all build their task sets through [`TaskSet::new`], which
//! refuses an empty list with [`ModelError::EmptyTaskSet`].

use crate::error::ModelError;
use crate::exact::{cmp_sum, Frac};
use crate::groups::ReservationGroup;
use crate::task::Task;
use crate::time::Duration;
use std::cmp::Ordering;
use std::ops::Deref;

/// An ordered set of sporadic tasks. Dereferences to `[Task]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskSet {
    tasks: Vec<Task>,
    /// Names of the resources, by id (empty: named by their ids).
    resources: Vec<String>,
    /// Reservation groups, in file order (empty: no task is reserved).
    groups: Vec<ReservationGroup>,
}

impl TaskSet {
    /// A validated task set: at least one task, every task valid, names unique.
    pub fn new(tasks: Vec<Task>) -> Result<TaskSet, ModelError> {
        TaskSet::with_resources(tasks, Vec::new())
    }

    /// A validated task set whose resource `r` is named `resources[r]`: as [`TaskSet::new`],
    /// and the names are distinct and non-empty, and name every resource a critical section
    /// uses (when any name is given).
    pub fn with_resources(tasks: Vec<Task>, resources: Vec<String>) -> Result<TaskSet, ModelError> {
        TaskSet::with_groups(tasks, resources, Vec::new())
    }

    /// A validated task set with resource names (as [`TaskSet::with_resources`]) and
    /// reservation groups: the groups are valid and every task's `group` names one of them
    /// ([`crate::groups::validate_groups`]).
    pub fn with_groups(
        tasks: Vec<Task>,
        resources: Vec<String>,
        groups: Vec<ReservationGroup>,
    ) -> Result<TaskSet, ModelError> {
        let set = TaskSet {
            tasks,
            resources,
            groups,
        };
        set.validate()?;
        Ok(set)
    }

    /// The reservation groups, in file order.
    pub fn groups(&self) -> &[ReservationGroup] {
        &self.groups
    }

    /// The group called `name`, if any.
    pub fn group(&self, name: &str) -> Option<&ReservationGroup> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// A task set without validation (callers that construct valid tasks by design).
    pub fn new_unchecked(tasks: Vec<Task>) -> TaskSet {
        TaskSet {
            tasks,
            resources: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// The names of the resources, by id (empty for a set built without names).
    pub fn resources(&self) -> &[String] {
        &self.resources
    }

    /// The name of resource `id`: its name, else its id in decimal.
    pub fn resource_name(&self, id: u32) -> String {
        match self.resources.get(id as usize) {
            Some(name) => name.clone(),
            None => id.to_string(),
        }
    }

    /// How many resources ids cover: one more than the largest id a critical section uses,
    /// and at least the number of names (0 without critical sections).
    pub fn resource_count(&self) -> usize {
        let used = self
            .tasks
            .iter()
            .flat_map(|t| t.critical_sections.iter())
            .map(|cs| cs.resource as usize + 1)
            .max()
            .unwrap_or(0);
        used.max(self.resources.len())
    }

    /// Checks that there is at least one task, every task, and that names are unique.
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.tasks.is_empty() {
            return Err(ModelError::EmptyTaskSet);
        }
        for (i, t) in self.tasks.iter().enumerate() {
            t.validate_in(i, &self.resources)?;
        }
        self.validate_resource_names()?;
        crate::groups::validate_groups(&self.groups, &self.tasks)?;
        match crate::names::first_repeated_name(&self.tasks) {
            None => Ok(()),
            Some((first, second)) => Err(ModelError::DuplicateName {
                name: self.tasks[second].name.clone().unwrap_or_default(),
                first,
                second,
            }),
        }
    }

    /// The resource names are distinct and non-empty, and name every id in use (if any
    /// name is given).
    fn validate_resource_names(&self) -> Result<(), ModelError> {
        if self.resources.is_empty() {
            return Ok(());
        }
        let bad = |message: String| Err(ModelError::Syntax(format!("resources: {message}")));
        if let Some(k) = self.resources.iter().position(String::is_empty) {
            return bad(format!("resource {k} has an empty name"));
        }
        let mut sorted: Vec<&String> = self.resources.iter().collect();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return bad(format!("the name `{}` is given twice", w[0]));
        }
        for (i, t) in self.tasks.iter().enumerate() {
            if let Some(cs) = t
                .critical_sections
                .iter()
                .find(|cs| cs.resource as usize >= self.resources.len())
            {
                return Err(ModelError::InvalidField {
                    task: t.reference(i),
                    field: "critical_sections".to_string(),
                    message: format!(
                        "resource {} has no name (the set names {} resources)",
                        cs.resource,
                        self.resources.len()
                    ),
                });
            }
        }
        Ok(())
    }

    /// The tasks.
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }
    /// Consumes the set, giving back its tasks.
    pub fn into_tasks(self) -> Vec<Task> {
        self.tasks
    }

    /// Total utilization `Σ Ci/Ti` as a float (reports only). Summed from `+0.0` (an empty
    /// float sum is `-0.0`, which prints as `-0.0000`).
    pub fn utilization(&self) -> f64 {
        self.tasks
            .iter()
            .map(Task::utilization)
            .fold(0.0, |a, b| a + b)
    }
    /// Total density `Σ Ci/min(Di,Ti)` as a float (reports only), summed from `+0.0`.
    pub fn density(&self) -> f64 {
        self.tasks.iter().map(Task::density).fold(0.0, |a, b| a + b)
    }
    /// Largest task utilization as a float (reports only).
    pub fn max_utilization(&self) -> f64 {
        self.tasks.iter().map(Task::utilization).fold(0.0, f64::max)
    }
    /// Exact comparison of the total utilization with `bound`.
    pub fn cmp_utilization(&self, bound: Frac) -> Ordering {
        cmp_sum(
            || {
                self.tasks
                    .iter()
                    .map(|t| Frac::ratio(t.wcet.as_ns(), t.period.as_ns()))
            },
            bound,
        )
    }
    /// Exact comparison of the total density with `bound`.
    pub fn cmp_density(&self, bound: Frac) -> Ordering {
        cmp_sum(
            || {
                self.tasks
                    .iter()
                    .map(|t| Frac::ratio(t.wcet.as_ns(), t.min_deadline_period().as_ns()))
            },
            bound,
        )
    }
    /// Every task has `D = T`.
    pub fn has_only_implicit_deadlines(&self) -> bool {
        self.tasks.iter().all(Task::has_implicit_deadline)
    }
    /// Every task has `D ≤ T`.
    pub fn has_only_constrained_deadlines(&self) -> bool {
        self.tasks.iter().all(Task::has_constrained_deadline)
    }
    /// The first task (index) with `D > T`, if any.
    pub fn first_arbitrary_deadline(&self) -> Option<usize> {
        self.tasks
            .iter()
            .position(|t| !t.has_constrained_deadline())
    }

    /// Least common multiple of the periods, or an overflow error.
    pub fn hyperperiod(&self) -> Result<Duration, ModelError> {
        let mut h: u64 = 1;
        for (i, t) in self.tasks.iter().enumerate() {
            let p = t.period.as_ns();
            h = lcm(h, p).ok_or_else(|| {
                ModelError::Overflow(format!(
                    "the hyperperiod exceeds 2^64-1 ns at {} (period {})",
                    t.reference(i),
                    t.period
                ))
            })?;
        }
        Ok(Duration::from_ns(h))
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn lcm(a: u64, b: u64) -> Option<u64> {
    if a == 0 || b == 0 {
        return Some(0);
    }
    (a / gcd(a, b)).checked_mul(b)
}

impl Deref for TaskSet {
    type Target = [Task];
    fn deref(&self) -> &[Task] {
        &self.tasks
    }
}

impl From<TaskSet> for Vec<Task> {
    fn from(s: TaskSet) -> Vec<Task> {
        s.tasks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(c: u64, d: u64, p: u64) -> Task {
        Task::new_unchecked(
            Duration::from_ns(c),
            Duration::from_ns(d),
            Duration::from_ns(p),
        )
    }

    #[test]
    fn hyperperiod_and_overflow() {
        let s = TaskSet::new(vec![t(1, 4, 4), t(1, 6, 6)]).unwrap();
        assert_eq!(s.hyperperiod().unwrap(), Duration::from_ns(12));
        let big = TaskSet::new(vec![
            t(1, u64::MAX - 1, u64::MAX - 1),
            t(1, u64::MAX - 2, u64::MAX - 2),
        ])
        .unwrap();
        let err = big.hyperperiod().unwrap_err().to_string();
        assert!(
            err.contains("hyperperiod") && err.contains("task 1"),
            "{err}"
        );
    }

    #[test]
    fn duplicate_names_are_named() {
        let s = TaskSet::new(vec![t(1, 4, 4).named("a"), t(1, 4, 4).named("a")]);
        assert_eq!(
            s.unwrap_err().to_string(),
            "duplicate task name `a` (tasks 0 and 1)"
        );
    }

    #[test]
    fn a_task_set_needs_a_task() {
        let err = TaskSet::new(Vec::new()).unwrap_err();
        assert_eq!(err, ModelError::EmptyTaskSet);
        assert_eq!(
            err.to_string(),
            "empty task set: a task set needs at least one task"
        );
        // Unchecked sets (generators) may be empty; their sums are +0, never -0.
        let empty = TaskSet::new_unchecked(Vec::new());
        assert!(empty.utilization().is_sign_positive());
        assert_eq!(format!("{:.4}", empty.density()), "0.0000");
    }

    #[test]
    fn exact_utilization() {
        let s = TaskSet::new(vec![t(1, 3, 3), t(1, 3, 3), t(1, 3, 3)]).unwrap();
        assert_eq!(s.cmp_utilization(Frac::ONE), Ordering::Equal);
        assert_eq!(s.cmp_density(Frac::ratio(99, 100)), Ordering::Greater);
    }
}
