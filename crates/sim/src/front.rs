//! One call from a task set to a finished simulation, and the report formats shared by the
//! CLI and Python: the JSON summary and the jobs CSV of `schedlab simulate`.
//!
//! Fixed-priority ranks and the placement of partitioned/clustered policies are inputs
//! (computed by the caller, e.g. with the analysis crate), so this crate never depends on the
//! analysis (DESIGN.md).

use crate::config::{SimConfig, SimTask};
use crate::engine::SimResult;
use crate::error::SimError;
use schedlab_model::{GroupTree, TaskSet};
use schedlab_policy::{build, Placement, PolicyError, PolicyTask};
use schedlab_trace::Meta;
use serde_json::{json, Value};
use std::sync::Arc;

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The policy could not be built.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// The simulation rejected its input.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// `ranks` does not have one entry per task.
    #[error("{0} priority ranks for {1} tasks")]
    Ranks(usize, usize),
    /// The reservation groups do not fit the platform, or fail admission [HCBS Eq. 17].
    #[error(transparent)]
    Groups(#[from] schedlab_model::ModelError),
    /// `hcbs` and a task outside every group.
    #[error("task {task}{name}: no reservation group (field `group`); policy `hcbs` runs every task inside a group")]
    Ungrouped {
        /// The task's index.
        task: usize,
        /// ` (`name`)` if it has a name.
        name: String,
    },
}

/// Whether the set uses reservation groups (any group, or any task naming one).
fn grouped(tasks: &TaskSet) -> bool {
    !tasks.groups().is_empty() || tasks.iter().any(|t| t.group.is_some())
}

/// The note a front end prints (stderr) when policy `policy` runs a set with reservation
/// groups and ignores them (every policy but `hcbs`), else `None`.
pub fn groups_note(tasks: &TaskSet, policy: &str) -> Option<String> {
    (grouped(tasks) && policy != "hcbs")
        .then(|| format!("note: groups are ignored by policy {policy}; use --policy hcbs"))
}

/// The reservation groups for the run (docs/simulation.md, "Reservations"): a set with
/// groups must fit the platform and pass admission [HCBS Eq. 17] under every policy; `hcbs`
/// needs every task in a group and gets the resolved groups as its placement.
fn reservations(
    tasks: &TaskSet,
    policy: &str,
    cpus: u32,
    placement: Option<Placement>,
) -> Result<Option<Placement>, RunError> {
    if !grouped(tasks) && policy != "hcbs" {
        return Ok(placement);
    }
    let tree = GroupTree::new(tasks, cpus)?;
    tree.check_admission()?;
    if policy != "hcbs" {
        return Ok(placement);
    }
    if let Some(task) = (0..tasks.len()).find(|&i| tree.group_of_task(i).is_none()) {
        let name = tasks
            .tasks()
            .get(task)
            .and_then(|t| t.name.as_deref())
            .map(|n| format!(" (`{n}`)"))
            .unwrap_or_default();
        return Err(RunError::Ungrouped { task, name });
    }
    Ok(Some(Placement::reservations(Arc::new(tree), tasks.len())))
}

/// Simulates `tasks` under policy `policy` (see `schedlab_policy::NAMES`); `ranks[i]` is task
/// i's fixed-priority rank (0 = highest), `placement` the domain of each task for `pedf`,
/// `pfp`, `cedf` and `federated`, and also the split parts for `pfp-ts`. Returns the result and the trace
/// metadata (task names and deadlines, and the parts of split tasks).
pub fn run(
    tasks: &TaskSet,
    policy: &str,
    ranks: &[u32],
    placement: Option<Placement>,
    config: &SimConfig,
) -> Result<(SimResult, Meta), RunError> {
    run_with_sink(tasks, policy, ranks, placement, config, None)
}

/// [`run`], streaming every trace event to `sink` as the engine emits it
/// ([`crate::engine::simulate_with_sink`]).
pub fn run_with_sink(
    tasks: &TaskSet,
    policy: &str,
    ranks: &[u32],
    placement: Option<Placement>,
    config: &SimConfig,
    sink: Option<&mut dyn FnMut(&schedlab_trace::Event)>,
) -> Result<(SimResult, Meta), RunError> {
    if ranks.len() != tasks.len() {
        return Err(RunError::Ranks(ranks.len(), tasks.len()));
    }
    // Before the policy is built: it allocates per-CPU state for `config.cpus` CPUs.
    config.validate()?;
    let placement = reservations(tasks, policy, config.cpus, placement)?;
    let policy_tasks: Vec<PolicyTask> = tasks
        .iter()
        .zip(ranks)
        .map(|(t, &r)| PolicyTask::from_task(t, r))
        .collect();
    // A task's home CPU (where its first release interrupt lands when release handlers run
    // on the jobs' CPUs): the first CPU of its partition or cluster.
    let home: Vec<Option<u32>> = match &placement {
        // `hcbs`'s groups place no task on a CPU.
        Some(p) if p.groups.is_none() => p.domain_of_task.iter().map(|&d| p.first_cpu(d)).collect(),
        _ => tasks.iter().map(|t| t.cpu).collect(),
    };
    let split: Vec<Vec<(u32, u64)>> = placement.as_ref().map_or_else(Vec::new, |p| {
        p.split
            .iter()
            .map(|parts| parts.iter().map(|q| (q.cpu, q.budget.as_ns())).collect())
            .collect()
    });
    let mut p = build(policy, &policy_tasks, config.cpus, placement)?;
    let sim_tasks: Vec<SimTask> = tasks
        .iter()
        .zip(home)
        .map(|(t, home_cpu)| SimTask {
            home_cpu,
            ..SimTask::from(t)
        })
        .collect();
    let result = crate::engine::simulate_with_sink(&sim_tasks, p.as_mut(), config, sink)?;
    // Task names and deadlines, and the horizon, so that trace tools account jobs as the
    // simulator did.
    let mut meta = Meta::of_run("sim", policy, config.cpus, tasks, config.duration);
    for (task, parts) in split.into_iter().enumerate() {
        meta.set_split(task, parts);
    }
    Ok((result, meta))
}

/// The JSON summary of `schedlab simulate --format json` (stable; tools read it): the
/// metrics of [`crate::metrics::metrics_json`] plus the run's own fields.
pub fn summary_json(result: &SimResult, policy: &str, cpus: u32, wall_seconds: f64) -> Value {
    let mut map = crate::metrics::metrics_json(&result.per_task, &result.totals, result.horizon);
    let jobs = result.totals.jobs;
    let own = json!({
        "policy": policy,
        "cpus": cpus,
        "overheads": result.overheads.as_ref().map(|o| json!({
            "file": o.source,
            "arch": (!o.arch.is_empty()).then_some(&o.arch),
            "stat": o.stat.key(),
            "charged_ns": {
                "release": o.charged.release,
                "dispatch": o.charged.dispatch,
                "cpmd": o.charged.cpmd,
                "interrupt": o.charged.interrupt,
            },
        })),
        "events": result.events_processed,
        "wall_seconds": wall_seconds,
        "jobs_per_second": if wall_seconds > 0.0 { jobs as f64 / wall_seconds } else { 0.0 },
    });
    if let Value::Object(own) = own {
        map.extend(own);
    }
    Value::Object(map)
}

/// The jobs CSV (see [`crate::metrics::jobs_csv`]).
pub fn jobs_csv(result: &SimResult) -> String {
    crate::metrics::jobs_csv(&result.jobs)
}
