//! The sporadic task `τi = (Ci, Di, Ti)` and its optional attributes.
//!
//! A task releases jobs at least `period` apart (exactly `period` apart if periodic); each job
//! executes for at most `wcet` and must complete within `deadline` of its release. `deadline`
//! may be smaller than (constrained), equal to (implicit) or larger than (arbitrary) `period`.
//!
//! A task may be *split* for semi-partitioned scheduling [RTPS §III]: [`Task::split`] lists its
//! parts (subtasks) in execution order — head, bodies, tail — each on its own CPU with an
//! execution budget; the budgets add up to the WCET. [`split_problem`] is the one check of a
//! split (the file reader and the `pfp-ts` policy both use it; O(p²) in the number of parts,
//! which is at most the number of CPUs).
//!
//! A task may be *parallel* [RTWS §III]: [`Task::parallel`] gives its fork-join structure
//! (regions of threads, [`crate::parallel`]), and its `wcet` is the structure's work `T1` (the
//! sum of all threads), so utilization-based code keeps working. [`parallel_problem`] checks a
//! structure against the task's timing (O(k) for `k` threads); a parallel task has no
//! `critical_sections` and no `split` (not supported together).

use crate::error::{ModelError, TaskRef};
use crate::extensions::{CriticalSection, MAX_CRITICAL_SECTIONS};
use crate::parallel::ParallelStructure;
use crate::time::Duration;
use crate::tuf::Tuf;

/// A sporadic real-time task.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// Optional human-readable name, unique within a task set.
    pub name: Option<String>,
    /// Worst-case execution time `Ci` (> 0).
    pub wcet: Duration,
    /// Relative deadline `Di` (> 0, ≥ `wcet`).
    pub deadline: Duration,
    /// Period or minimum inter-arrival time `Ti` (> 0).
    pub period: Duration,
    /// Release offset of the first job (periodic simulation); zero by default.
    pub offset: Duration,
    /// Fixed priority for `--priorities given`: smaller is higher.
    pub priority: Option<u32>,
    /// Utility of a job that completes by its deadline (downward-step time/utility function).
    pub utility: Option<f64>,
    /// Working-set size in bytes.
    pub wss: Option<u64>,
    /// CPU the task is pinned to by partitioned policies (0-based).
    pub cpu: Option<u32>,
    /// Cluster the task is pinned to by clustered policies (0-based).
    pub cluster: Option<u32>,
    /// The parts of a split task in execution order (`None`: not split). Excludes `cpu`.
    pub split: Option<Vec<SplitPart>>,
    /// CPUs the task may run on; `None` means all.
    pub affinity: Option<Vec<u32>>,
    /// Parallel (fork-join) structure [RTWS §III]; `None` for a sequential task. Its work
    /// equals `wcet` ([`Task::with_parallel`] sets both). Excludes `critical_sections` and
    /// `split`.
    pub parallel: Option<ParallelStructure>,
    /// The name of the reservation group the task runs in [HCBS §3.2], if any: one of its
    /// set's [`crate::TaskSet::groups`] (checked by the set's validation).
    pub group: Option<String>,
    /// Critical sections of each job, in execution order [ChronOS §3.6].
    pub critical_sections: Vec<CriticalSection>,
    /// A general time/utility function [ChronOS §3.4] (`None`: the downward step of
    /// `utility`, if any). Excludes `utility`.
    pub tuf: Option<Tuf>,
    /// Whether a scheduler may abort its jobs [ChronOS §3.5] (default `true`).
    pub abortable: bool,
    /// Execution time of the abort handler of a job aborted after it started (default 0;
    /// ChronOS assumes short handlers [§3.5]); below the period.
    pub abort_cost: Duration,
}

/// One part (subtask) of a split task [RTPS §III]: it executes on `cpu` for at most `budget`,
/// after the previous part and before the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitPart {
    /// The CPU that hosts the part (0-based).
    pub cpu: u32,
    /// Its execution budget (> 0).
    pub budget: Duration,
}

/// What is wrong with a split of a task with WCET `wcet`, or `None` if nothing is: fewer than
/// two parts (one part is no split), a zero budget, a CPU that hosts two parts (a cyclic
/// split), or budgets that do not add up to the WCET. The message names the parts by their
/// 0-based position; the caller adds the task and the field.
pub fn split_problem(parts: &[SplitPart], wcet: Duration) -> Option<String> {
    match parts {
        [] => return Some("a split needs at least two parts, got none".to_string()),
        [only] => {
            return Some(format!(
                "a split on one CPU is no split; use `cpu = {}`",
                only.cpu
            ))
        }
        _ => {}
    }
    if let Some(k) = parts.iter().position(|p| p.budget.is_zero()) {
        return Some(format!(
            "part {k} (CPU {}): budget must be greater than zero",
            parts[k].cpu
        ));
    }
    for (j, b) in parts.iter().enumerate() {
        if let Some(i) = parts[..j].iter().position(|a| a.cpu == b.cpu) {
            return Some(format!(
                "parts {i} and {j} are both on CPU {} (a cyclic split: each part needs its own CPU)",
                b.cpu
            ));
        }
    }
    let sum = parts
        .iter()
        .try_fold(0u64, |acc, p| acc.checked_add(p.budget.as_ns()));
    match sum {
        Some(s) if s == wcet.as_ns() => None,
        Some(s) => Some(format!(
            "the part budgets add up to {}, but wcet is {wcet}",
            Duration::from_ns(s)
        )),
        None => Some(format!(
            "the part budgets add up to more than 2^64-1 ns, but wcet is {wcet}"
        )),
    }
}

/// The message for a zero timing field.
pub const MUST_BE_POSITIVE: &str = "must be greater than zero";

/// The first of a task's timing fields that is zero, by its name in files (`wcet`, `period`,
/// `deadline`), or `None`. Every engine needs the three positive; the simulator's and the
/// runtime's task types check them with this, as [`Task::validate`] does.
pub fn zero_timing_field(
    wcet: Duration,
    period: Duration,
    deadline: Duration,
) -> Option<&'static str> {
    [("wcet", wcet), ("period", period), ("deadline", deadline)]
        .into_iter()
        .find(|(_, d)| d.is_zero())
        .map(|(f, _)| f)
}

/// What is wrong with the fork-join structure of a task with WCET `wcet` and period `period`,
/// or `None` [RTWS §III]: a thread longer than the period (a job could not even run one thread
/// within a period), or a WCET other than the structure's work `T1` (`parallel` disagrees with
/// `wcet`: the WCET of a parallel task is the sum of its threads). The message names the
/// thread by its 0-based region and position and says both numbers; the caller adds the task
/// and the field. O(k) for `k` threads.
pub fn parallel_problem(p: &ParallelStructure, wcet: Duration, period: Duration) -> Option<String> {
    if let Some((r, k, length)) = p.threads().find(|&(.., length)| length > period) {
        return Some(format!(
            "region {r}, thread {k} is {length} long, a thread longer than the period {period}"
        ));
    }
    (p.work() != wcet).then(|| {
        format!(
            "`parallel` disagrees with `wcet`: the threads add up to {} (the work), but wcet is {wcet}; give the sum as wcet, or leave wcet out",
            p.work()
        )
    })
}

/// How a message names resource `id` of a set whose resources are named `names`:
/// "resource `bus`", or "resource 3" for an id without a name.
pub fn resource_label(id: u32, names: &[String]) -> String {
    match names.get(id as usize) {
        Some(name) => format!("resource `{name}`"),
        None => format!("resource {id}"),
    }
}

/// What is wrong with a job's critical sections [ChronOS §3.6], or `None`: more than
/// [`MAX_CRITICAL_SECTIONS`], a section of length 0, longer than the job (`wcet`), or ending
/// after the job's WCET (the job would never release the resource), or two sections of one
/// resource that overlap (a job would request a mutex it already holds: resources are
/// single-unit, non-recursive; sections that merely touch, one ending where the other starts,
/// are fine). Sections of different resources may nest and overlap freely. The message names
/// the section by its 0-based position and the resource by [`resource_label`]; the caller adds
/// the task and the field. O(s log s) for `s` sections (no allocation for `s ≤ 1`).
pub fn critical_sections_problem(
    sections: &[CriticalSection],
    wcet: Duration,
    names: &[String],
) -> Option<String> {
    if sections.len() > MAX_CRITICAL_SECTIONS {
        return Some(format!(
            "{} sections is more than the {MAX_CRITICAL_SECTIONS} allowed per task",
            sections.len()
        ));
    }
    for (k, cs) in sections.iter().enumerate() {
        let label = || resource_label(cs.resource, names);
        if cs.length.is_zero() {
            return Some(format!(
                "section {k} ({}): length must be greater than zero",
                label()
            ));
        }
        if cs.length > wcet {
            return Some(format!(
                "section {k} ({}) is {} long, longer than the job (wcet {wcet})",
                label(),
                cs.length
            ));
        }
        if cs.start.checked_add(cs.length).is_none_or(|e| e > wcet) {
            return Some(format!(
                "section {k} ({}) starts at {} and ends after the job's wcet {wcet}: the job would never release the resource",
                label(),
                cs.start
            ));
        }
    }
    if sections.len() < 2 {
        return None;
    }
    // Sorted by (resource, start), an overlap of one resource is between neighbours.
    let mut order: Vec<usize> = (0..sections.len()).collect();
    order.sort_by_key(|&k| (sections[k].resource, sections[k].start, k));
    order.windows(2).find_map(|w| {
        let (a, b) = (&sections[w[0]], &sections[w[1]]);
        // Both ends are within the WCET (checked above), so the sum does not overflow.
        let a_end = a.start.checked_add(a.length)?;
        (a.resource == b.resource && b.start < a_end).then(|| {
            let (i, j) = (w[0].min(w[1]), w[0].max(w[1]));
            format!(
                "sections {i} and {j} both hold {} at {}: a job cannot lock a resource it already holds",
                resource_label(a.resource, names),
                b.start
            )
        })
    })
}

impl Task {
    /// A task with the given parameters and no optional attributes, validated.
    ///
    /// ```
    /// use schedlab_model::{Duration, Task};
    /// let t = Task::new(Duration::from_ns(2), Duration::from_ns(8), Duration::from_ns(10)).unwrap();
    /// assert!(t.has_constrained_deadline());
    /// assert!(Task::new(Duration::from_ns(9), Duration::from_ns(8), Duration::from_ns(10)).is_err());
    /// ```
    pub fn new(wcet: Duration, deadline: Duration, period: Duration) -> Result<Task, ModelError> {
        let task = Task::new_unchecked(wcet, deadline, period);
        task.validate(0)?;
        Ok(task)
    }

    /// A task with the given parameters, not validated (generators that guarantee validity).
    pub fn new_unchecked(wcet: Duration, deadline: Duration, period: Duration) -> Task {
        Task {
            name: None,
            wcet,
            deadline,
            period,
            offset: Duration::ZERO,
            priority: None,
            utility: None,
            wss: None,
            cpu: None,
            cluster: None,
            split: None,
            affinity: None,
            parallel: None,
            group: None,
            critical_sections: Vec::new(),
            tuf: None,
            abortable: true,
            abort_cost: Duration::ZERO,
        }
    }

    /// The task's time/utility function: its `tuf`, else the downward step of its `utility`,
    /// else `None` (no utility given).
    pub fn effective_tuf(&self) -> Option<Tuf> {
        match (&self.tuf, self.utility) {
            (Some(t), _) => Some(t.clone()),
            (None, Some(value)) => Some(Tuf::Step { value }),
            (None, None) => None,
        }
    }

    /// An implicit-deadline task `(C, T, T)`, validated (a WCET above the period is reported
    /// as exceeding "period (the implicit deadline)").
    pub fn implicit(wcet: Duration, period: Duration) -> Result<Task, ModelError> {
        Task::new(wcet, period, period).map_err(ModelError::with_implicit_deadline)
    }

    /// Builder: sets the name.
    pub fn named(mut self, name: impl Into<String>) -> Task {
        self.name = Some(name.into());
        self
    }

    /// Builder: makes the task parallel with structure `p` [RTWS §III], its WCET the
    /// structure's work `T1` (not validated: [`Task::validate`] checks the threads against the
    /// period).
    pub fn with_parallel(mut self, p: ParallelStructure) -> Task {
        self.wcet = p.work();
        self.parallel = Some(p);
        self
    }

    /// Builder: sets the fixed priority (smaller = higher).
    pub fn with_priority(mut self, priority: u32) -> Task {
        self.priority = Some(priority);
        self
    }

    /// How this task is named in messages, given its index.
    pub fn reference(&self, index: usize) -> TaskRef {
        TaskRef {
            index,
            name: self.name.clone(),
        }
    }

    /// Checks the invariants of one task (`index` is used in messages; resources are named
    /// by their ids).
    pub fn validate(&self, index: usize) -> Result<(), ModelError> {
        self.validate_in(index, &[])
    }

    /// [`Task::validate`] for a task of a set whose resources are named `resources` (id `r`
    /// is `resources[r]`; an id past the list is named by its number), so that messages say
    /// "resource `bus`" as the file does.
    pub fn validate_in(&self, index: usize, resources: &[String]) -> Result<(), ModelError> {
        let zero = self.wcet.is_zero() || self.period.is_zero() || self.deadline.is_zero();
        if let Some(field) = zero
            .then(|| zero_timing_field(self.wcet, self.period, self.deadline))
            .flatten()
        {
            return Err(ModelError::InvalidField {
                task: self.reference(index),
                field: field.to_string(),
                message: MUST_BE_POSITIVE.to_string(),
            });
        }
        self.validate_parallel(index)?;
        // A parallel task's work may exceed its deadline (a *heavy* task, C > D, runs on
        // several CPUs at once: federated scheduling [Li et al., ECRTS 2014]); its threads
        // may not exceed the period (`parallel_problem`).
        if self.wcet > self.deadline && self.parallel.is_none() {
            return Err(ModelError::WcetExceedsDeadline {
                task: self.reference(index),
                wcet: self.wcet.to_string(),
                deadline: self.deadline.to_string(),
                implicit: false,
            });
        }
        if let Some(u) = self.utility {
            if !(u.is_finite() && u >= 0.0) {
                return Err(ModelError::InvalidField {
                    task: self.reference(index),
                    field: "utility".to_string(),
                    message: format!("must be a finite number ≥ 0, got {u}"),
                });
            }
        }
        self.validate_utility_accrual(index, resources)?;
        if let Some(parts) = &self.split {
            let invalid = |message: String| ModelError::InvalidField {
                task: self.reference(index),
                field: "split".to_string(),
                message,
            };
            if let Some(cpu) = self.cpu {
                return Err(invalid(format!(
                    "a task has either `cpu` (here {cpu}) or `split`, not both: give `split` alone for a split task, `cpu` alone for a whole one"
                )));
            }
            if let Some(m) = split_problem(parts, self.wcet) {
                return Err(invalid(m));
            }
        }
        if let Some(name) = &self.name {
            if name.is_empty() {
                return Err(ModelError::InvalidField {
                    task: self.reference(index),
                    field: "name".to_string(),
                    message: "must not be empty".to_string(),
                });
            }
        }
        Ok(())
    }

    /// The checks of a parallel task [RTWS §III]: no `critical_sections` or `split` with it,
    /// then [`parallel_problem`]. Before the WCET is compared with the deadline, so that a
    /// file whose `wcet` was derived from `parallel` hears about its threads first.
    fn validate_parallel(&self, index: usize) -> Result<(), ModelError> {
        let Some(p) = &self.parallel else {
            return Ok(());
        };
        let invalid = |message: String| ModelError::InvalidField {
            task: self.reference(index),
            field: "parallel".to_string(),
            message,
        };
        if !self.critical_sections.is_empty() {
            return Err(invalid(
                "a parallel task with `critical_sections` is not supported: parallel threads are independent [RTWS §III]; give either `parallel` or `critical_sections`".to_string(),
            ));
        }
        if self.split.is_some() {
            return Err(invalid(
                "a parallel task with `split` is not supported: a split task is sequential; give either `parallel` or `split`".to_string(),
            ));
        }
        match parallel_problem(p, self.wcet, self.period) {
            Some(m) => Err(invalid(m)),
            None => Ok(()),
        }
    }

    /// The checks of [ChronOS §3.4–3.6] attributes: a valid TUF (not together with
    /// `utility`), an abort cost below the period, critical sections as
    /// [`critical_sections_problem`] states.
    fn validate_utility_accrual(
        &self,
        index: usize,
        resources: &[String],
    ) -> Result<(), ModelError> {
        let invalid = |field: &str, message: String| ModelError::InvalidField {
            task: self.reference(index),
            field: field.to_string(),
            message,
        };
        if let Some(tuf) = &self.tuf {
            if self.utility.is_some() {
                return Err(invalid(
                    "tuf",
                    "give either `utility` (a downward step) or `tuf`, not both".to_string(),
                ));
            }
            if let Some(m) = tuf.problem() {
                return Err(invalid("tuf", m));
            }
        }
        if self.abort_cost >= self.period {
            return Err(invalid(
                "abort_cost",
                format!(
                    "{} is not below the period {}: an abort handler must be shorter than a period",
                    self.abort_cost, self.period
                ),
            ));
        }
        if !self.abortable && !self.abort_cost.is_zero() {
            return Err(invalid(
                "abort_cost",
                "a task with `abortable = false` is never aborted: drop `abort_cost`".to_string(),
            ));
        }
        match critical_sections_problem(&self.critical_sections, self.wcet, resources) {
            Some(m) => Err(invalid("critical_sections", m)),
            None => Ok(()),
        }
    }

    /// `Di == Ti`.
    pub fn has_implicit_deadline(&self) -> bool {
        self.deadline == self.period
    }
    /// `Di ≤ Ti`.
    pub fn has_constrained_deadline(&self) -> bool {
        self.deadline <= self.period
    }
    /// `min(Di, Ti)`.
    pub fn min_deadline_period(&self) -> Duration {
        self.deadline.min(self.period)
    }
    /// Utilization `Ci / Ti` as a float (reports and generators only).
    pub fn utilization(&self) -> f64 {
        self.wcet.as_ns() as f64 / self.period.as_ns() as f64
    }
    /// Density `Ci / min(Di, Ti)` as a float (reports and generators only).
    pub fn density(&self) -> f64 {
        self.wcet.as_ns() as f64 / self.min_deadline_period().as_ns() as f64
    }
}
