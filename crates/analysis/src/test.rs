//! The one interface every test implements (cf. SchedCAT's `SchedulabilityTest`), and the
//! static description `schedlab tests` prints.

use crate::param::Param;
use crate::system::System;
use crate::verdict::Verdict;

/// What kind of answer a test gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Necessary and sufficient: answers schedulable or unschedulable.
    Exact,
    /// Sufficient only: answers schedulable or not-shown.
    Sufficient,
    /// Bounded tardiness (soft real-time): schedulable means tardiness is bounded.
    Soft,
}

impl Kind {
    /// `exact`, `sufficient` or `soft`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Exact => "exact",
            Kind::Sufficient => "sufficient",
            Kind::Soft => "soft",
        }
    }
}

/// Static description of a test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestInfo {
    /// Canonical name (`gedf-bcl`, `pedf-ffd`, `cedf-k4`, …).
    pub name: String,
    /// Scheduler family: `uniprocessor`, `global-edf`, `global-np-edf`, `global-fp`,
    /// `global-fifo`, `partitioned`, `clustered`.
    pub family: &'static str,
    /// Exact, sufficient or soft.
    pub kind: Kind,
    /// Paper, section and equation.
    pub citation: &'static str,
    /// Deadline model and other assumptions.
    pub assumptions: &'static str,
    /// Time complexity in `n` (tasks) and `m` (CPUs).
    pub complexity: &'static str,
}

/// A schedulability test: a pure function of a [`System`].
///
/// `check` states the preconditions; [`analyze`] calls `run` only when they hold, so `run` may
/// assume them. Neither may panic on any valid `System`.
pub trait SchedTest: Send + Sync {
    /// Static description (name, citation, assumptions, complexity).
    fn info(&self) -> TestInfo;
    /// `Err(reason)` if the test does not apply to this system.
    fn check(&self, sys: &System) -> Result<(), String>;
    /// The verdict, assuming `check` passed.
    fn run(&self, sys: &System) -> Verdict;
    /// Canonical name (from `info`).
    fn name(&self) -> String {
        self.info().name
    }
    /// The test's parameters with their current values (none by default).
    fn params(&self) -> Vec<Param> {
        Vec::new()
    }
    /// Does the test charge overheads per bin itself (partitioned and clustered tests)? Such
    /// a test runs on the original set with the [`System::overheads`] context; every other
    /// test runs on the set charged as a whole (`crate::overheads::context`).
    fn charges_per_bin(&self) -> bool {
        false
    }
    /// Sets a parameter from text; `Err` names the problem (unknown name, bad value).
    fn set_param(&mut self, name: &str, _value: &str) -> Result<(), String> {
        Err(crate::param::unknown(&self.name(), name, &self.params()))
    }
    /// Does the test analyse parallel (fork-join) tasks [RTWS §III]? No by default: every
    /// test here assumes sequential tasks (a job never runs on two CPUs at once), which a
    /// parallel task breaks, so [`analyze`] answers "not applicable" for a system with one
    /// instead of analysing it as a sequential task of length `wcet`. A test for parallel
    /// tasks says yes and reads their structure itself.
    fn handles_parallel(&self) -> bool {
        false
    }
}

/// Runs `test` on `sys`: "not applicable" with the reason if its preconditions fail, or if
/// the system has a parallel task and the test does not handle parallel tasks
/// ([`SchedTest::handles_parallel`]).
pub fn analyze(test: &dyn SchedTest, sys: &System) -> Verdict {
    if let Some(i) = sys.parallel_task().filter(|_| !test.handles_parallel()) {
        return Verdict::not_applicable(format!(
            "task {i} is parallel (field `parallel`): this test assumes sequential tasks; parallel tasks are not analysed by it"
        ));
    }
    match test.check(sys) {
        Ok(()) => test.run(sys),
        Err(reason) => Verdict::not_applicable(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::Priorities;
    use crate::verdict::Status;
    use schedlab_model::{Duration, ParallelStructure, Task};

    fn ms(x: u64) -> Duration {
        Duration::from_ms(x).unwrap_or(Duration::MAX)
    }

    /// Two sequential tasks and a parallel one (work 4 ms, two threads of 1 ms after 2 ms).
    fn with_a_parallel_task() -> Vec<Task> {
        let p = ParallelStructure::from_threads(vec![vec![ms(2)], vec![ms(1), ms(1)]])
            .unwrap_or_else(|e| panic!("{e}"));
        let task = |c| Task::implicit(ms(c), ms(20)).unwrap_or_else(|e| panic!("{e}"));
        vec![task(1), task(2), task(4).with_parallel(p)]
    }

    /// No test of sequential tasks analyses a set with a parallel task as if it were
    /// sequential: every registered test (composites and parametric ones included) but the
    /// two of `crate::parallel` says "not applicable", naming the task.
    #[test]
    fn every_test_refuses_a_parallel_task() {
        let tasks = with_a_parallel_task();
        let sys = System::new(&tasks, 2, Priorities::Dm).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sys.parallel_task(), Some(2));
        let (parallel, tests): (Vec<_>, Vec<_>) = crate::registry::all_for(2)
            .into_iter()
            .partition(|t| t.handles_parallel());
        let names: Vec<String> = parallel.iter().map(|t| t.name()).collect();
        assert_eq!(names, vec!["federated", "gedf-cab"]);
        assert!(tests.len() > 20, "{}", tests.len());
        for test in tests {
            let v = analyze(test.as_ref(), &sys);
            assert_eq!(v.status, Status::NotApplicable, "{}", test.name());
            assert_eq!(
                v.reason.as_deref(),
                Some("task 2 is parallel (field `parallel`): this test assumes sequential tasks; parallel tasks are not analysed by it"),
                "{}",
                test.name()
            );
        }
        // Without the structure, the same task is analysed.
        let mut plain = tasks;
        plain[2].parallel = None;
        let sys = System::new(&plain, 2, Priorities::Dm).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sys.parallel_task(), None);
        let gfb = crate::registry::by_name("gedf-gfb").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(analyze(gfb.as_ref(), &sys).status, Status::Schedulable);
    }

    /// A test that handles parallel tasks runs on them (and a configured one keeps saying so).
    #[test]
    fn a_test_for_parallel_tasks_runs() {
        struct Parallel;
        impl SchedTest for Parallel {
            fn info(&self) -> TestInfo {
                TestInfo {
                    name: "parallel".into(),
                    family: "global-edf",
                    kind: Kind::Sufficient,
                    citation: "",
                    assumptions: "",
                    complexity: "",
                }
            }
            fn check(&self, _sys: &System) -> Result<(), String> {
                Ok(())
            }
            fn run(&self, _sys: &System) -> Verdict {
                Verdict::not_shown()
            }
            fn handles_parallel(&self) -> bool {
                true
            }
        }
        let sys = System::new(&with_a_parallel_task(), 2, Priorities::Dm)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(analyze(&Parallel, &sys).status, Status::NotShown);
    }
}
