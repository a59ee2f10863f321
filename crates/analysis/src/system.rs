//! The input of every test: a task system on `m` identical CPUs with a priority assignment.
//!
//! Tests read the compact [`Params`] `(C, D, T)` of each task in nanoseconds, not the full
//! [`schedlab_model::Task`], so that partitioning and clustering can form sub-systems cheaply.

use crate::error::AnalysisError;
use crate::overheads::context::OverheadContext;
use crate::reservations::Reservations;
use schedlab_model::Task;
use std::sync::{Arc, OnceLock};

/// Timing parameters of one sporadic task, in nanoseconds, all positive; `c ≤ d` except for a
/// parallel task, whose work `c` may exceed its deadline (a heavy task, [`TaskValue::span`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    /// WCET `Ci`.
    pub c: u64,
    /// Relative deadline `Di`.
    pub d: u64,
    /// Period `Ti`.
    pub t: u64,
    /// Given fixed priority (smaller = higher), if any.
    pub prio: Option<u32>,
}

impl Params {
    /// `(C, D, T)` without a given priority.
    pub const fn new(c: u64, d: u64, t: u64) -> Params {
        Params {
            c,
            d,
            t,
            prio: None,
        }
    }
    /// `min(D, T)`.
    pub fn min_dt(&self) -> u64 {
        self.d.min(self.t)
    }
    /// `D ≤ T`.
    pub fn constrained(&self) -> bool {
        self.d <= self.t
    }
}

impl From<&Task> for Params {
    fn from(t: &Task) -> Params {
        Params {
            c: t.wcet.as_ns(),
            d: t.deadline.as_ns(),
            t: t.period.as_ns(),
            prio: t.priority,
        }
    }
}

/// How fixed priorities are assigned for fixed-priority tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Priorities {
    /// Deadline monotonic: shorter relative deadline = higher priority (the default).
    #[default]
    Dm,
    /// Rate monotonic: shorter period = higher priority.
    Rm,
    /// The tasks' `priority` fields (smaller = higher).
    Given,
}

impl Priorities {
    /// Canonical name: `dm`, `rm` or `given`.
    pub fn name(self) -> &'static str {
        match self {
            Priorities::Dm => "dm",
            Priorities::Rm => "rm",
            Priorities::Given => "given",
        }
    }
    /// Parses `dm`, `rm` or `given`.
    pub fn parse(s: &str) -> Result<Priorities, AnalysisError> {
        match s {
            "dm" => Ok(Priorities::Dm),
            "rm" => Ok(Priorities::Rm),
            "given" => Ok(Priorities::Given),
            other => Err(AnalysisError::UnknownPriorities(other.to_string())),
        }
    }
}

/// What the utility-accrual analysis (`crate::ua`) reads of a task besides `(C, D, T)`.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskValue {
    /// The utility of a job that completes by its deadline: the value of its downward-step
    /// TUF, or 1 for a task without `utility`/`tuf` (the project's rule, docs/policies.md).
    pub utility: f64,
    /// Why the task is outside the model of independent tasks with downward-step TUFs, if it
    /// is: a non-step TUF, critical sections, a parallel structure or an affinity.
    pub outside: Option<&'static str>,
    /// Whether the task is parallel (fork-join regions of threads [RTWS §III]): a test that
    /// assumes sequential tasks does not apply ([`crate::test::analyze`]).
    pub parallel: bool,
    /// The critical path `L` (ns): the time a job needs on infinitely many CPUs (`T∞`, Σ of
    /// each region's longest thread); the WCET for a sequential task.
    pub span: u64,
}

impl From<&Task> for TaskValue {
    fn from(t: &Task) -> TaskValue {
        let tuf = t.effective_tuf();
        let outside = if tuf.as_ref().is_some_and(|f| !f.is_step()) {
            Some("has a non-step time/utility function")
        } else if !t.critical_sections.is_empty() {
            Some("has critical sections")
        } else if t.parallel.is_some() {
            Some("is parallel")
        } else if t.affinity.is_some() || t.split.is_some() {
            Some("is restricted to some CPUs")
        } else {
            None
        };
        TaskValue {
            utility: tuf.map_or(1.0, |f| f.max_value()),
            outside,
            parallel: t.parallel.is_some(),
            span: t
                .parallel
                .as_ref()
                .map_or(t.wcet, |p| p.critical_path())
                .as_ns(),
        }
    }
}

/// A task system to analyse: tasks, CPU count and priority assignment.
#[derive(Debug)]
pub struct System {
    params: Vec<Params>,
    cpus: u32,
    priorities: Priorities,
    order: OnceLock<Result<Vec<usize>, String>>,
    /// Overheads that tests which charge per bin apply themselves (`None`: free scheduling).
    overheads: Option<Arc<OverheadContext>>,
    /// Per task, what the utility-accrual analysis reads (`None`: built from bare parameters,
    /// every task worth 1 per job and inside the model).
    values: Option<Arc<[TaskValue]>>,
    /// The set's reservation groups, if it has any and they were attached
    /// ([`System::with_reservations`]); sub-systems do not inherit them.
    reservations: Option<Arc<Reservations>>,
}

impl Clone for System {
    fn clone(&self) -> System {
        System {
            params: self.params.clone(),
            cpus: self.cpus,
            priorities: self.priorities,
            order: OnceLock::new(),
            overheads: self.overheads.clone(),
            values: self.values.clone(),
            reservations: self.reservations.clone(),
        }
    }
}

impl System {
    /// A system of the given (already validated) tasks on `cpus ≥ 1` CPUs.
    pub fn new(tasks: &[Task], cpus: u32, priorities: Priorities) -> Result<System, AnalysisError> {
        let heavy_allowed = |i: usize| tasks.get(i).is_some_and(|t| t.parallel.is_some());
        let params = tasks.iter().map(Params::from).collect();
        let sys = System::checked(params, cpus, priorities, heavy_allowed)?;
        Ok(sys.with_values(tasks.iter().map(TaskValue::from).collect()))
    }

    /// A system from raw parameters; checks `1 ≤ cpus ≤`
    /// [`MAX_CPUS`](schedlab_model::platform::MAX_CPUS) and `0 < c ≤ d`, `t > 0` for each task.
    pub fn from_params(
        params: Vec<Params>,
        cpus: u32,
        priorities: Priorities,
    ) -> Result<System, AnalysisError> {
        System::checked(params, cpus, priorities, |_| false)
    }

    /// [`System::from_params`], where task `i` may have `c > d` if `heavy_allowed(i)` (a
    /// parallel task).
    fn checked(
        params: Vec<Params>,
        cpus: u32,
        priorities: Priorities,
        heavy_allowed: impl Fn(usize) -> bool,
    ) -> Result<System, AnalysisError> {
        if cpus == 0 {
            return Err(AnalysisError::NoCpus);
        }
        schedlab_model::platform::check_cpu_count(cpus)?;
        for (i, p) in params.iter().enumerate() {
            if p.c == 0 || p.d == 0 || p.t == 0 || (p.c > p.d && !heavy_allowed(i)) {
                return Err(AnalysisError::InvalidTask {
                    index: i,
                    message: format!(
                        "needs 0 < wcet ≤ deadline and period > 0, got C={} D={} T={}",
                        p.c, p.d, p.t
                    ),
                });
            }
        }
        Ok(System {
            params,
            cpus,
            priorities,
            order: OnceLock::new(),
            overheads: None,
            values: None,
            reservations: None,
        })
    }

    /// The same system with the set's reservation groups resolved for its CPUs
    /// ([`Reservations::of`]; `None` leaves it without). Sub-systems do not inherit them.
    pub fn with_reservations(mut self, reservations: Option<Arc<Reservations>>) -> System {
        self.reservations = reservations;
        self
    }

    /// The reservation groups, if attached.
    pub fn reservations(&self) -> Option<&Reservations> {
        self.reservations.as_deref()
    }

    /// The same system with an overhead context: tests that charge per bin
    /// ([`SchedTest::charges_per_bin`](crate::SchedTest::charges_per_bin)) charge each bin
    /// from these original parameters (`crate::overheads::context`). Sub-systems
    /// ([`System::subset`], [`System::with_cpus`]) do not inherit it.
    pub fn with_overheads(mut self, ctx: Arc<OverheadContext>) -> System {
        self.overheads = Some(ctx);
        self
    }

    /// The same system with what the utility-accrual analysis reads of each task (in task
    /// order; [`System::new`] sets it from the tasks). A list of another length is ignored.
    pub fn with_values(mut self, values: Arc<[TaskValue]>) -> System {
        if values.len() == self.params.len() {
            self.values = Some(values);
        }
        self
    }

    /// What the utility-accrual analysis reads of each task, if the system was built from
    /// tasks (`None` for bare parameters: every task worth 1 per job).
    pub fn values(&self) -> Option<&[TaskValue]> {
        self.values.as_deref()
    }

    /// What task `i` carries besides `(C, D, T)`, if the system was built from tasks.
    pub fn task_value(&self, i: usize) -> Option<&TaskValue> {
        self.values.as_deref()?.get(i)
    }

    /// Task `i`'s critical path `L` (ns): its [`TaskValue::span`], or `C` for a system built
    /// from bare parameters (sequential tasks).
    pub fn span(&self, i: usize) -> u64 {
        match self.task_value(i) {
            Some(v) => v.span,
            None => self.params.get(i).map_or(0, |p| p.c),
        }
    }

    /// The first parallel task (fork-join [RTWS §III]), if the system was built from tasks
    /// and has one: the tests of sequential tasks do not apply to it
    /// ([`crate::test::analyze`]). O(n).
    pub fn parallel_task(&self) -> Option<usize> {
        self.values()?.iter().position(|v| v.parallel)
    }

    /// The overhead context, if any.
    pub fn overheads(&self) -> Option<&OverheadContext> {
        self.overheads.as_deref()
    }

    /// The tasks' parameters, in task-index order.
    pub fn params(&self) -> &[Params] {
        &self.params
    }
    /// Number of tasks `n`.
    pub fn len(&self) -> usize {
        self.params.len()
    }
    /// No tasks at all.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }
    /// Number of CPUs `m`.
    pub fn cpus(&self) -> u32 {
        self.cpus
    }
    /// The priority assignment.
    pub fn priorities(&self) -> Priorities {
        self.priorities
    }

    /// The same tasks on another number of CPUs.
    pub fn with_cpus(&self, cpus: u32) -> Result<System, AnalysisError> {
        let parallel = |i: usize| self.task_value(i).is_some_and(|v| v.parallel);
        let mut sys = System::checked(self.params.clone(), cpus, self.priorities, parallel)?;
        sys.values = self.values.clone();
        Ok(sys)
    }

    /// The sub-system of the tasks `indices` on `cpus` CPUs (for partitioning and clustering).
    pub fn subset(&self, indices: &[usize], cpus: u32) -> Result<System, AnalysisError> {
        let mut params = Vec::with_capacity(indices.len());
        for &i in indices {
            params.push(*self.params.get(i).ok_or(AnalysisError::InvalidTask {
                index: i,
                message: "no such task".into(),
            })?);
        }
        let parallel = |k: usize| {
            let original = indices.get(k).copied().unwrap_or(usize::MAX);
            self.task_value(original).is_some_and(|v| v.parallel)
        };
        let mut sys = System::checked(params, cpus, self.priorities, parallel)?;
        if let Some(values) = &self.values {
            let picked: Option<Vec<TaskValue>> =
                indices.iter().map(|&i| values.get(i).cloned()).collect();
            sys.values = picked.map(Arc::from);
        }
        Ok(sys)
    }

    /// Task indices from highest to lowest priority under the system's assignment. Ties are
    /// broken by task index (DESIGN.md, "Priority order"). An error (the reason, for a
    /// "not applicable" verdict) when priorities are `given` and a task has none.
    pub fn priority_order(&self) -> Result<&[usize], String> {
        self.order
            .get_or_init(|| priority_order(&self.params, self.priorities))
            .as_deref()
            .map_err(Clone::clone)
    }

    /// Each task's fixed-priority rank (0 = highest) under the system's assignment, by task
    /// index; `Err` as [`System::priority_order`].
    pub fn priority_ranks(&self) -> Result<Vec<u32>, String> {
        let order = self.priority_order()?;
        let mut ranks = vec![0u32; order.len()];
        for (r, &i) in order.iter().enumerate() {
            if let Some(slot) = ranks.get_mut(i) {
                *slot = u32::try_from(r).unwrap_or(u32::MAX);
            }
        }
        Ok(ranks)
    }

    /// Every task has `D ≤ T`.
    pub fn constrained(&self) -> bool {
        self.params.iter().all(Params::constrained)
    }
    /// Every task has `D = T`.
    pub fn implicit(&self) -> bool {
        self.params.iter().all(|p| p.d == p.t)
    }
    /// Precondition helper: `Err(reason)` naming the first task with `D > T`.
    pub fn require_constrained(&self) -> Result<(), String> {
        match self.params.iter().position(|p| !p.constrained()) {
            None => Ok(()),
            Some(i) => Err(format!(
                "assumes constrained deadlines (D ≤ T), but task {i} has D > T"
            )),
        }
    }
    /// Precondition helper: `Err(reason)` naming the first task with `D ≠ T`.
    pub fn require_implicit(&self) -> Result<(), String> {
        match self.params.iter().position(|p| p.d != p.t) {
            None => Ok(()),
            Some(i) => Err(format!(
                "assumes implicit deadlines (D = T), but task {i} has D ≠ T"
            )),
        }
    }
}

fn priority_order(params: &[Params], priorities: Priorities) -> Result<Vec<usize>, String> {
    let mut order: Vec<usize> = (0..params.len()).collect();
    match priorities {
        Priorities::Dm => order.sort_by_key(|&i| (params[i].d, i)),
        Priorities::Rm => order.sort_by_key(|&i| (params[i].t, i)),
        Priorities::Given => {
            if let Some(i) = params.iter().position(|p| p.prio.is_none()) {
                return Err(format!(
                    "priorities are `given` but task {i} has no `priority` field"
                ));
            }
            order.sort_by_key(|&i| (params[i].prio, i));
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_with_index_tie_break() {
        let p = vec![
            Params::new(1, 10, 20),
            Params::new(1, 5, 30),
            Params::new(1, 10, 10),
        ];
        let dm = System::from_params(p.clone(), 1, Priorities::Dm).unwrap();
        assert_eq!(dm.priority_order().unwrap(), &[1, 0, 2]);
        let rm = System::from_params(p.clone(), 1, Priorities::Rm).unwrap();
        assert_eq!(rm.priority_order().unwrap(), &[2, 0, 1]);
        let given = System::from_params(p, 1, Priorities::Given).unwrap();
        assert!(given.priority_order().unwrap_err().contains("task 0"));
    }

    #[test]
    fn rejects_bad_systems() {
        assert!(System::from_params(vec![], 0, Priorities::Dm).is_err());
        let max = schedlab_model::platform::MAX_CPUS;
        assert!(System::from_params(vec![], max, Priorities::Dm).is_ok());
        let err = System::from_params(vec![], max + 1, Priorities::Dm).unwrap_err();
        assert_eq!(
            err.to_string(),
            "4097 CPUs is more than schedlab supports (at most 4096)"
        );
        let one = System::from_params(vec![Params::new(1, 2, 2)], 1, Priorities::Dm).unwrap();
        assert!(one.with_cpus(u32::MAX).is_err());
        assert!(System::from_params(vec![Params::new(5, 4, 10)], 1, Priorities::Dm).is_err());
    }
}
