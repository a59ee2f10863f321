//! Task sets: an ordered list of tasks (the order is the task index used everywhere: files, CSV,
//! tie-breaking) with set-wide invariants (at least one task, unique names) and aggregate
//! quantities.
//!
//! One rule for every front end: a task set has at least one task. Files, the CLI (`analyze`,
//! `simulate`, `run`) and Python all build their task sets through [`TaskSet::new`], which
//! refuses an empty list with [`ModelError::EmptyTaskSet`].

use crate::error::ModelError;
use crate::exact::{cmp_sum, Frac};
use crate::task::Task;
use crate::time::Duration;
use std::cmp::Ordering;
use std::ops::Deref;

/// An ordered set of sporadic tasks. Dereferences to `[Task]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskSet {
    tasks: Vec<Task>,
}

impl TaskSet {
    /// A validated task set: at least one task, every task valid, names unique.
    pub fn new(tasks: Vec<Task>) -> Result<TaskSet, ModelError> {
        let set = TaskSet { tasks };
        set.validate()?;
        Ok(set)
    }

    /// A task set without validation (callers that construct valid tasks by design).
    pub fn new_unchecked(tasks: Vec<Task>) -> TaskSet {
        TaskSet { tasks }
    }

    /// Checks that there is at least one task, every task, and that names are unique.
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.tasks.is_empty() {
            return Err(ModelError::EmptyTaskSet);
        }
        for (i, t) in self.tasks.iter().enumerate() {
            t.validate(i)?;
        }
        match crate::names::first_repeated_name(&self.tasks) {
            None => Ok(()),
            Some((first, second)) => Err(ModelError::DuplicateName {
                name: self.tasks[second].name.clone().unwrap_or_default(),
                first,
                second,
            }),
        }
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
