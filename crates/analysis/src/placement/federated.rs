//! The placement of `--policy federated` (`schedlab_policy::federated`): exactly the
//! allocation of `analyze --test federated:light=pedf-<h>` [Li, Chen, Agrawal, Lu, Gill,
//! Saifullah, ECRTS 2014, §3], as domains of different sizes.
//!
//! Domains are runs of consecutive CPUs in CPU order (the policy crate's `Placement`): one per
//! heavy task, of its `nᵢ = ⌈(Cᵢ − Lᵢ)/(Dᵢ − Lᵢ)⌉` dedicated CPUs, in task order (CPUs
//! `0 .. n₁`, then the next `n₂`, …, as [`crate::parallel::federated::Allocation`] numbers
//! them), then one domain per CPU left, holding the light tasks the light test packed there
//! (a CPU may hold none). The light test is partitioned EDF with exact admission and the
//! packing heuristic `h` (`ff`, `ffd` — the default, as the test's — `bf`, …), because the
//! policy runs EDF on each light CPU; the utilization rules `chronos*` do not apply.
//!
//! Refused, with a [`FederatedPlacementError`] naming the task: pinned (`cpu`) or split tasks
//! (the allocation is the algorithm's), arbitrary deadlines (`D > T`; the test assumes
//! `D ≤ T`), a heavy task whose critical path reaches its deadline, heavy tasks that need more
//! CPUs than the platform has, light tasks with no CPU left or that the light test does not
//! place. **Complexity**: that of the `federated` test (`O(n)` plus the light packing).

use crate::parallel::federated::{allocate, AllocationError, Federated};
use crate::system::{Priorities, System};
use crate::test::{analyze, SchedTest};
use schedlab_model::{Duration, TaskSet};

/// The heuristics the light packing takes (exact EDF admission).
pub const LIGHT_HEURISTICS: [&str; 8] = ["ff", "ffd", "bf", "bfd", "wf", "wfd", "nf", "nfd"];

/// Where `federated` runs each task (module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FederatedPlacement {
    /// The domain of each task, by task index.
    pub domain_of_task: Vec<u32>,
    /// The CPUs of each domain, in domain (= CPU) order: the heavy tasks' `nᵢ`, then 1 per
    /// light CPU; they sum to the platform's CPUs.
    pub domain_sizes: Vec<u32>,
}

/// Why `federated` cannot place a task set; the messages name the task (`task 2 (`fj`)`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FederatedPlacementError {
    /// A packing heuristic without exact EDF admission.
    #[error("`federated` packs its light tasks with exact EDF admission: the heuristic must be one of {known}, not `{0}`", known = LIGHT_HEURISTICS.join(", "))]
    Heuristic(String),
    /// A task pinned to a CPU or split.
    #[error("{task} has a `{field}` field: `federated` places every task itself (heavy tasks on CPUs of their own, light ones by partitioned EDF); remove the `{field}` fields")]
    Pinned {
        /// The task (index and name).
        task: String,
        /// `cpu` or `split`.
        field: &'static str,
    },
    /// `D > T`.
    #[error("{task} has deadline {deadline} > period {period}: federated scheduling assumes constrained deadlines (D ≤ T)")]
    ArbitraryDeadline {
        /// The task.
        task: String,
        /// Its deadline.
        deadline: Duration,
        /// Its period.
        period: Duration,
    },
    /// A heavy task with `L ≥ D`.
    #[error("{task} is heavy (work {work} > deadline {deadline}) and its critical path {span} is not below its deadline: no number of dedicated CPUs meets it")]
    SpanReachesDeadline {
        /// The task.
        task: String,
        /// `C`.
        work: Duration,
        /// `L`.
        span: Duration,
        /// `D`.
        deadline: Duration,
    },
    /// The heavy tasks do not fit the platform.
    #[error("{task} is heavy and needs {needs} dedicated CPUs (⌈(C − L)/(D − L)⌉), but {left} of the {cpus} CPUs are left for it (the heavy tasks need {total} in all)")]
    TooFewCpus {
        /// The first heavy task that does not fit.
        task: String,
        /// Its `⌈(C − L)/(D − L)⌉`.
        needs: u64,
        /// The CPUs left for it.
        left: u64,
        /// What all heavy tasks need.
        total: u64,
        /// The platform's CPUs.
        cpus: u32,
    },
    /// Light tasks but every CPU dedicated to a heavy task.
    #[error("the heavy tasks take all {cpus} CPUs: none is left for the {light} light tasks ({first} first)")]
    NoLightCpu {
        /// The platform's CPUs.
        cpus: u32,
        /// How many light tasks there are.
        light: usize,
        /// The first light task.
        first: String,
    },
    /// The light test does not place the light tasks.
    #[error("`{test}` does not place the light tasks ({light}) on the {cpus} CPUs the heavy tasks leave: {reason} (the light test numbers the light tasks among themselves)")]
    Light {
        /// The light test (`pedf-<h>`).
        test: String,
        /// The light tasks (the first few).
        light: String,
        /// The CPUs left to them.
        cpus: u32,
        /// The federated verdict's reason.
        reason: String,
    },
    /// The task set is not valid for analysis (the analysis crate's message).
    #[error("{0}")]
    Invalid(String),
}

/// The placement of `federated` for `tasks` on `cpus` CPUs with the light packing heuristic
/// `heuristic` (module doc); `priorities` only matter to the system's validation.
pub fn federated_placement(
    tasks: &TaskSet,
    cpus: u32,
    heuristic: &str,
    priorities: Priorities,
) -> Result<FederatedPlacement, FederatedPlacementError> {
    use FederatedPlacementError as E;
    if !LIGHT_HEURISTICS.contains(&heuristic) {
        return Err(E::Heuristic(heuristic.to_string()));
    }
    let refer = |i: usize| {
        tasks
            .tasks()
            .get(i)
            .map_or_else(|| format!("task {i}"), |t| t.reference(i).to_string())
    };
    for (i, t) in tasks.iter().enumerate() {
        let field = match (t.cpu, &t.split) {
            (Some(_), _) => "cpu",
            (None, Some(_)) => "split",
            (None, None) => continue,
        };
        return Err(E::Pinned {
            task: refer(i),
            field,
        });
    }
    if let Some((i, t)) = tasks
        .iter()
        .enumerate()
        .find(|(_, t)| t.deadline > t.period)
    {
        return Err(E::ArbitraryDeadline {
            task: refer(i),
            deadline: t.deadline,
            period: t.period,
        });
    }
    let sys = System::new(tasks, cpus, priorities).map_err(|e| E::Invalid(e.to_string()))?;
    let allocation = allocate(&sys).map_err(|e| match e {
        AllocationError::SpanReachesDeadline {
            task,
            work,
            span,
            deadline,
        } => E::SpanReachesDeadline {
            task: refer(task),
            work: Duration::from_ns(work),
            span: Duration::from_ns(span),
            deadline: Duration::from_ns(deadline),
        },
        AllocationError::TooFewCpus {
            task,
            needs,
            left,
            total,
            cpus,
        } => E::TooFewCpus {
            task: refer(task),
            needs,
            left,
            total,
            cpus,
        },
    })?;
    if let (Some(&first), 0) = (allocation.light.first(), allocation.light_cpus) {
        return Err(E::NoLightCpu {
            cpus,
            light: allocation.light.len(),
            first: refer(first),
        });
    }
    let light_test = format!("pedf-{heuristic}");
    let mut test = Federated::default();
    test.set_param("light", &light_test).map_err(E::Invalid)?;
    let verdict = analyze(&test, &sys);
    let light_error = |reason: Option<String>| E::Light {
        test: light_test.clone(),
        light: listed(&allocation.light, &refer),
        cpus: allocation.light_cpus,
        reason: reason.unwrap_or_else(|| verdict.status.name().to_string()),
    };
    let per_cpu = match (&verdict.partition, verdict.is_schedulable()) {
        (Some(p), true) => p,
        _ => return Err(light_error(verdict.reason.clone())),
    };
    domains_of(tasks.len(), &allocation, per_cpu)
        .ok_or_else(|| light_error(Some("a light task is not on exactly one CPU".into())))
}

/// The first few of `tasks` by reference, for messages.
fn listed(tasks: &[usize], refer: &dyn Fn(usize) -> String) -> String {
    const SHOWN: usize = 4;
    let mut out: Vec<String> = tasks.iter().take(SHOWN).map(|&i| refer(i)).collect();
    if tasks.len() > SHOWN {
        out.push(format!("… {} in all", tasks.len()));
    }
    out.join(", ")
}

/// The domains of a schedulable allocation from the verdict's per-CPU task lists: each heavy
/// task's CPUs as one domain, then each light CPU as one. `None` unless every light task is
/// on exactly one light CPU (a partitioned light test).
fn domains_of(
    n: usize,
    allocation: &crate::parallel::federated::Allocation,
    per_cpu: &[Vec<usize>],
) -> Option<FederatedPlacement> {
    let mut domain_of_task: Vec<Option<u32>> = vec![None; n];
    let mut domain_sizes =
        Vec::with_capacity(allocation.heavy.len() + allocation.light_cpus as usize);
    for (d, &(task, k)) in (0u32..).zip(&allocation.heavy) {
        *domain_of_task.get_mut(task)? = Some(d);
        domain_sizes.push(k);
    }
    let dedicated: usize = allocation.heavy.iter().map(|&(_, k)| k as usize).sum();
    let first_light = u32::try_from(allocation.heavy.len()).ok()?;
    for (c, tasks) in (0u32..).zip(per_cpu.get(dedicated..)?) {
        domain_sizes.push(1);
        for &t in tasks {
            let slot = domain_of_task.get_mut(t)?;
            if slot.is_some() {
                return None;
            }
            *slot = Some(first_light + c);
        }
    }
    Some(FederatedPlacement {
        domain_of_task: domain_of_task.into_iter().collect::<Option<Vec<u32>>>()?,
        domain_sizes,
    })
}
