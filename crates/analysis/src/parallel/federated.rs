//! `federated`: federated scheduling of parallel tasks.
//!
//! **Paper.** J. Li, J.-J. Chen, K. Agrawal, C. Lu, C. Gill, A. Saifullah, "Analysis of
//! federated and global scheduling for parallel real-time tasks", ECRTS 2014, §3 (federated
//! scheduling, capacity augmentation bound 2). A task with work `C` and critical path `L`:
//! - **heavy** (`C > D`, "high-utilization" for implicit deadlines): `nᵢ = ⌈(Cᵢ − Lᵢ)/(Dᵢ − Lᵢ)⌉`
//!   CPUs of its own, on which any greedy (work-conserving) scheduler finishes each job within
//!   `L + (C − L)/nᵢ ≤ D` (Graham's bound; a job never overlaps the next one since `D ≤ T`);
//!   a heavy task with `L ≥ D` meets its deadline on no number of CPUs;
//! - **light** (`C ≤ D`): executed as a sequential task of WCET `C` on the `m − Σ nᵢ` CPUs
//!   left, under a multiprocessor test for sequential tasks — the parameter `light`
//!   (default `pedf-ffd`, partitioned EDF first-fit decreasing: the paper's analysis allows
//!   any scheduler that schedules the light tasks; its bound-2 proof uses a partitioned one).
//!
//! The verdict's `partition` gives, per CPU (length `m`), the tasks that run there: a heavy
//! task on each of its CPUs, the light tasks as the light test placed them (all light tasks
//! on every light CPU for a global light test); the reason names the allocation.
//!
//! **Assumptions.** Sporadic fork-join (DAG) or sequential tasks, constrained deadlines
//! (`D ≤ T`), CPUs dedicated to heavy tasks, the light tasks' assumptions those of the light
//! test; no overheads (a charged light test charges only the light tasks). It does not cover
//! RTWS (module [`crate::parallel`]). **Complexity.** `O(n)` plus the light test's.

use crate::param::Param;
use crate::system::{System, TaskValue};
use crate::test::{analyze, Kind, SchedTest, TestInfo};
use crate::verdict::{Status, Verdict};
use std::sync::Arc;

/// The light test's default.
pub const DEFAULT_LIGHT: &str = "pedf-ffd";

/// Federated scheduling (`federated`, parameter `light`).
#[derive(Clone, Debug)]
pub struct Federated {
    /// The test of the light tasks (a registry spec).
    light: String,
}

impl Default for Federated {
    fn default() -> Federated {
        Federated {
            light: DEFAULT_LIGHT.to_string(),
        }
    }
}

/// How the CPUs are shared out (module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// Each heavy task with its number of dedicated CPUs, in task order; their CPUs are
    /// numbered from 0 in that order.
    pub heavy: Vec<(usize, u32)>,
    /// The light tasks, in task order.
    pub light: Vec<usize>,
    /// CPUs left for the light tasks (the last ones).
    pub light_cpus: u32,
}

/// The dedicated CPUs of a heavy task: `⌈(C − L)/(D − L)⌉`; `None` when `L ≥ D`.
pub fn dedicated_cpus(work: u64, span: u64, deadline: u64) -> Option<u64> {
    let slack = deadline.checked_sub(span).filter(|s| *s > 0)?;
    Some(work.saturating_sub(span).div_ceil(slack))
}

/// Why no federated allocation exists; the test's *not shown* reason is its message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AllocationError {
    /// A heavy task's critical path reaches its deadline: no number of CPUs helps.
    #[error("task {task} is heavy (C = {work} ns > D = {deadline} ns) with critical path {span} ns ≥ D: no number of CPUs meets its deadline")]
    SpanReachesDeadline {
        /// The task's index.
        task: usize,
        /// Its work `C`.
        work: u64,
        /// Its critical path `L`.
        span: u64,
        /// Its relative deadline `D`.
        deadline: u64,
    },
    /// The heavy tasks need more CPUs than the platform has; `task` is the first one that
    /// does not fit (in task order).
    #[error("the heavy tasks need {total} dedicated CPUs, the platform has {cpus}: task {task} needs {needs} with {left} left")]
    TooFewCpus {
        /// The first heavy task that does not fit.
        task: usize,
        /// Its `⌈(C − L)/(D − L)⌉`.
        needs: u64,
        /// The CPUs the heavy tasks before it leave.
        left: u64,
        /// What all heavy tasks need.
        total: u64,
        /// The platform's CPUs.
        cpus: u32,
    },
}

/// Splits `sys` into heavy and light tasks and gives each heavy task its CPUs; the error says
/// why no allocation exists (a heavy task with `L ≥ D`, or more CPUs than `m` needed).
pub fn allocate(sys: &System) -> Result<Allocation, AllocationError> {
    let (mut heavy, mut light) = (Vec::new(), Vec::new());
    let mut used: u64 = 0;
    let m = u64::from(sys.cpus());
    let mut overflow = None;
    for (i, p) in sys.params().iter().enumerate() {
        if p.c <= p.d {
            light.push(i);
            continue;
        }
        let span = sys.span(i);
        let n = dedicated_cpus(p.c, span, p.d).ok_or(AllocationError::SpanReachesDeadline {
            task: i,
            work: p.c,
            span,
            deadline: p.d,
        })?;
        if overflow.is_none() && used.saturating_add(n) > m {
            overflow = Some((i, n, m.saturating_sub(used)));
        }
        used = used.saturating_add(n);
        heavy.push((i, u32::try_from(n).unwrap_or(u32::MAX)));
    }
    if let Some((task, needs, left)) = overflow {
        return Err(AllocationError::TooFewCpus {
            task,
            needs,
            left,
            total: used,
            cpus: sys.cpus(),
        });
    }
    Ok(Allocation {
        heavy,
        light,
        light_cpus: u32::try_from(m - used).unwrap_or(0),
    })
}

impl Federated {
    /// The light tasks as sequential tasks on the CPUs left, under the light test.
    fn light_verdict(&self, sys: &System, a: &Allocation) -> Result<Verdict, String> {
        let test = crate::registry::by_name(&self.light).map_err(|e| e.to_string())?;
        let sub = sys
            .subset(&a.light, a.light_cpus)
            .map_err(|e| e.to_string())?;
        // Executed sequentially: the light test sees sequential tasks of WCET C.
        let values: Option<Arc<[TaskValue]>> = a
            .light
            .iter()
            .map(|&i| {
                sys.task_value(i).map(|v| TaskValue {
                    parallel: false,
                    outside: if v.parallel { None } else { v.outside },
                    span: sys.params().get(i).map_or(0, |p| p.c),
                    ..v.clone()
                })
            })
            .collect();
        let sub = match values {
            Some(v) => sub.with_values(v),
            None => sub,
        };
        Ok(analyze(test.as_ref(), &sub))
    }

    /// The per-CPU task lists of a schedulable allocation (module doc).
    fn per_cpu(sys: &System, a: &Allocation, light: &Verdict) -> Vec<Vec<usize>> {
        let mut cpus: Vec<Vec<usize>> = Vec::with_capacity(sys.cpus() as usize);
        for &(i, n) in &a.heavy {
            cpus.extend((0..n).map(|_| vec![i]));
        }
        match &light.partition {
            Some(bins) if bins.len() == a.light_cpus as usize => {
                cpus.extend(bins.iter().map(|bin| {
                    bin.iter()
                        .filter_map(|&k| a.light.get(k).copied())
                        .collect()
                }))
            }
            _ => cpus.extend((0..a.light_cpus).map(|_| a.light.clone())),
        }
        cpus
    }
}

impl SchedTest for Federated {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "federated".into(),
            family: "federated",
            kind: Kind::Sufficient,
            citation:
                "Li, Chen, Agrawal, Lu, Gill & Saifullah, ECRTS 2014, §3: heavy task (C > D) on \
                       ⌈(C−L)/(D−L)⌉ dedicated CPUs, light tasks sequential on the rest",
            assumptions:
                "sporadic fork-join (DAG) or sequential tasks, constrained deadlines (D ≤ T), \
                          greedy scheduling on dedicated CPUs, light tasks under the `light` test; \
                          not proven for RTWS",
            complexity: "O(n) plus the light test",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_constrained()
    }

    fn run(&self, sys: &System) -> Verdict {
        let a = match allocate(sys) {
            Ok(a) => a,
            Err(e) => return Verdict::not_shown().because(e.to_string()),
        };
        let heavy: Vec<String> = a
            .heavy
            .iter()
            .map(|(i, n)| format!("task {i} on {n} CPUs"))
            .collect();
        let heavy = if heavy.is_empty() {
            "no heavy task".to_string()
        } else {
            heavy.join(", ")
        };
        if a.light.is_empty() {
            let empty = Verdict::not_shown();
            return Verdict::schedulable()
                .because(format!("{heavy}; no light task"))
                .with_partition(Federated::per_cpu(sys, &a, &empty));
        }
        if a.light_cpus == 0 {
            return Verdict::not_shown().because(format!(
                "{heavy}; no CPU left for the {} light tasks",
                a.light.len()
            ));
        }
        let light = match self.light_verdict(sys, &a) {
            Ok(v) => v,
            Err(reason) => return Verdict::not_applicable(reason),
        };
        let placed = format!(
            "{heavy}; {} light tasks on {} CPUs under {}",
            a.light.len(),
            a.light_cpus,
            self.light
        );
        match light.status {
            Status::Schedulable => Verdict::schedulable()
                .because(placed)
                .with_partition(Federated::per_cpu(sys, &a, &light)),
            _ => Verdict::not_shown().because(format!(
                "{placed}: {}{}",
                light.status.name(),
                light.reason.map(|r| format!(" ({r})")).unwrap_or_default()
            )),
        }
    }

    fn params(&self) -> Vec<Param> {
        vec![Param::new(
            "light",
            &self.light,
            "the test of the light tasks, run as sequential tasks on the CPUs left (a test name, e.g. pedf-ffd, gedf)",
        )]
    }

    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "light" => {
                let test = crate::registry::by_name(value).map_err(|e| e.to_string())?;
                if test.handles_parallel() {
                    return Err(format!(
                        "`{value}` analyses parallel tasks itself; the light test must be one for sequential tasks"
                    ));
                }
                self.light = value.to_string();
                Ok(())
            }
            _ => Err(crate::param::unknown(&self.name(), name, &self.params())),
        }
    }

    fn handles_parallel(&self) -> bool {
        true
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::system::Priorities;
    use schedlab_model::{Duration, ParallelStructure, Task};

    fn ms(x: u64) -> Duration {
        Duration::from_ms(x).unwrap()
    }

    /// A fork-join task: `pre` alone, then `width` threads of `len`, period = deadline `t`.
    fn fj(pre: u64, width: usize, len: u64, t: u64) -> Task {
        let p = ParallelStructure::from_threads(vec![vec![ms(pre)], vec![ms(len); width]]).unwrap();
        Task::implicit(ms(1), ms(t)).unwrap().with_parallel(p)
    }

    fn seq(c: u64, t: u64) -> Task {
        Task::implicit(ms(c), ms(t)).unwrap()
    }

    fn verdict(tasks: &[Task], m: u32, test: &Federated) -> Verdict {
        let sys = System::new(tasks, m, Priorities::Dm).unwrap();
        analyze(test, &sys)
    }

    #[test]
    fn dedicated_cpus_is_graham_s_bound_solved_for_n() {
        // C = 100, L = 20, D = 50: ⌈80/30⌉ = 3, and 20 + 80/3 = 46.7 ≤ 50 (2 CPUs: 60 > 50).
        assert_eq!(dedicated_cpus(100, 20, 50), Some(3));
        assert_eq!(dedicated_cpus(60, 30, 40), Some(3));
        assert_eq!(dedicated_cpus(100, 50, 50), None);
        assert_eq!(dedicated_cpus(100, 60, 50), None);
    }

    /// Hand-worked on 6 CPUs: τ0 = 10 then 9 × 10 per 50 (C = 100, L = 20 → ⌈80/30⌉ = 3
    /// CPUs 0–2), τ1 = 10 then 4 × 10 per 30 (C = 50 > 30, L = 20 → ⌈30/10⌉ = 3 CPUs 3–5):
    /// nothing left for τ2 = 5/10 → not shown; on 7 CPUs τ2 gets CPU 6 → schedulable.
    #[test]
    fn hand_worked_allocation() {
        let tasks = [fj(10, 9, 10, 50), fj(10, 4, 10, 30), seq(5, 10)];
        let six = verdict(&tasks, 6, &Federated::default());
        assert_eq!(six.status, Status::NotShown);
        assert_eq!(
            six.reason.as_deref(),
            Some("task 0 on 3 CPUs, task 1 on 3 CPUs; no CPU left for the 1 light tasks")
        );
        let seven = verdict(&tasks, 7, &Federated::default());
        assert_eq!(seven.status, Status::Schedulable, "{seven:?}");
        assert_eq!(
            seven.partition.unwrap(),
            vec![
                vec![0],
                vec![0],
                vec![0],
                vec![1],
                vec![1],
                vec![1],
                vec![2]
            ]
        );
    }

    /// Light tasks, parallel or not, run sequentially under the light test: a light
    /// fork-join task of work 8 per 10 and a sequential 5/10 do not fit one CPU (1.3) but two
    /// (first fit decreasing: 0.8 | 0.5). Under `light=gedf` both light CPUs list both.
    #[test]
    fn light_tasks_are_sequential_under_the_light_test() {
        let tasks = [fj(2, 3, 2, 10), seq(5, 10)];
        assert_eq!(
            verdict(&tasks, 1, &Federated::default()).status,
            Status::NotShown
        );
        let two = verdict(&tasks, 2, &Federated::default());
        assert_eq!(two.status, Status::Schedulable, "{two:?}");
        assert_eq!(two.partition.unwrap(), vec![vec![0], vec![1]]);
        let mut global = Federated::default();
        global.set_param("light", "gedf").unwrap();
        let g = verdict(&tasks, 2, &global);
        assert_eq!(g.status, Status::Schedulable, "{g:?}");
        assert_eq!(g.partition.unwrap(), vec![vec![0, 1], vec![0, 1]]);
    }

    /// A heavy task whose critical path reaches its deadline is never schedulable; the light
    /// test must be one for sequential tasks; constrained deadlines only.
    #[test]
    fn refusals() {
        // C = 10 + 4·10 = 50 > D = 20, L = 20 = D.
        let v = verdict(&[fj(10, 4, 10, 20)], 8, &Federated::default());
        assert_eq!(v.status, Status::NotShown);
        assert!(v
            .reason
            .unwrap()
            .contains("no number of CPUs meets its deadline"));
        // τ0 of `hand_worked_allocation` needs 3 CPUs, τ1 3 more: on 4, τ1 has 1 left.
        let two = verdict(
            &[fj(10, 9, 10, 50), fj(10, 4, 10, 30)],
            4,
            &Federated::default(),
        );
        assert_eq!(
            two.reason.as_deref(),
            Some("the heavy tasks need 6 dedicated CPUs, the platform has 4: task 1 needs 3 with 1 left")
        );
        let mut f = Federated::default();
        assert!(f.set_param("light", "federated").is_err());
        assert!(f.set_param("light", "gedf-cab").is_err());
        assert!(f.set_param("light", "nonsense").is_err());
        let arbitrary = Task::new(ms(1), ms(20), ms(10)).unwrap();
        assert_eq!(verdict(&[arbitrary], 2, &f).status, Status::NotApplicable);
    }
}
