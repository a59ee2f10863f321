//! Where a partitioned or clustered scheduler puts each task (for the simulator and the
//! runtime, which take a placement as input and never depend on this crate — DESIGN.md).
//!
//! The file's `cpu` (partitioned) or `cluster` (clustered) fields win when every task has
//! one; otherwise partitioned placements come from a bin-packing heuristic with exact
//! uniprocessor admission (`pedf-<h>` / `pfp-<h>`), clustered ones from the worst-fit
//! decreasing assignment of `cedf-k<size>` (which exists whether or not the per-cluster G-EDF
//! battery then accepts the clusters).
//!
//! The best-effort partitioned policies (`plbesa`, `pdasa`, `phvdf`) are placed by the
//! utilization rules of [ChronOS §8.5] ([`chronos`]), which never fail — overloaded sets must
//! run. The same rules are the named heuristics `chronos` (the thesis's rule for the policy:
//! first fit with the 0.95 cap for `pedf`, least utilization for `pfp` and for `cedf`'s
//! clusters), `chronos-ff` and `chronos-lu`; the default heuristics of `pedf`/`pfp`/`cedf`
//! are unchanged. [`POLICY_PLACEMENT`] is the one table of which policy is placed how.
//!
//! `federated` is placed apart ([`federated`]): in domains of different sizes (each heavy
//! task's dedicated CPUs, then one per light CPU), the allocation of `analyze --test
//! federated`.
//!
//! With overheads ([`OverheadSetup`]), the placement is the one the overhead-aware analysis
//! accepts (`analyze --overheads --arch …`: per-CPU charging with rollback for `partitioned`,
//! per-cluster charging for `cedf` under `global-lock`; `crate::overheads::context`), so that
//! what runs is what was analysed — the overhead-free packing can differ and then miss
//! deadlines the analysis accounted for (docs/overheads.md, "Validation").

use crate::overheads::context::{OverheadContext, OverheadSetup};
use crate::system::{Priorities, System};
use crate::test::analyze;
use schedlab_model::{Duration, SplitPart, TaskSet};
use std::sync::Arc;

pub mod chronos;
pub mod federated;
pub use federated::{federated_placement, FederatedPlacement, FederatedPlacementError};
#[cfg(test)]
mod federated_tests;
#[cfg(test)]
mod policy_tests;

/// The packing heuristics `place` accepts: bin packing with exact admission (`ff` … `nfd`)
/// and the utilization rules of [ChronOS §8.5] ([`chronos`]).
pub const HEURISTICS: [&str; 11] = [
    "ff",
    "ffd",
    "bf",
    "bfd",
    "wf",
    "wfd",
    "nf",
    "nfd",
    "chronos",
    "chronos-ff",
    "chronos-lu",
];

/// How a policy's tasks are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementKind {
    /// One CPU per task, packed with exact admission of the local scheduler (or the named
    /// heuristic, `chronos*` included).
    Partitioned(LocalScheduler),
    /// One CPU per task by a rule of [ChronOS §8.5] that never fails (best-effort policies);
    /// the heuristic argument picks `chronos-ff`/`chronos-lu` explicitly, anything else means
    /// this rule.
    BestEffort(chronos::Rule),
    /// Clusters of `--cluster-size` CPUs (worst-fit decreasing, or `chronos`).
    Clustered,
    /// Semi-partitioned with split tasks ([`semi_placement`]).
    Semi,
}

/// Every policy that needs a placement, and how it is placed [ChronOS §8.5]; a policy not
/// listed is global and needs none.
pub const POLICY_PLACEMENT: &[(&str, PlacementKind)] = &[
    ("pedf", PlacementKind::Partitioned(LocalScheduler::Edf)),
    ("pfp", PlacementKind::Partitioned(LocalScheduler::Fp)),
    ("cedf", PlacementKind::Clustered),
    ("pfp-ts", PlacementKind::Semi),
    ("plbesa", PlacementKind::BestEffort(chronos::Rule::FirstFit)),
    ("pdasa", PlacementKind::BestEffort(chronos::Rule::FirstFit)),
    (
        "phvdf",
        PlacementKind::BestEffort(chronos::Rule::LeastUtilization),
    ),
];

/// How `policy` is placed (`None`: a global policy, or an unknown name).
pub fn placement_kind(policy: &str) -> Option<PlacementKind> {
    POLICY_PLACEMENT
        .iter()
        .find(|(name, _)| *name == policy)
        .map(|&(_, kind)| kind)
}

/// The local scheduler of each domain, which decides the admission test of the packing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalScheduler {
    /// EDF: exact EDF admission.
    Edf,
    /// Fixed priority: exact response-time admission.
    Fp,
}

/// The domain (CPU, or cluster of `domain_size` CPUs) of every task, by task index.
///
/// `heuristic` is a packing heuristic name (`ff`, `ffd`, `bf`, `bfd`, `wf`, `wfd`, `nf`,
/// `nfd`) used for `domain_size = 1` when the tasks are not pinned; `overheads` makes the
/// packing overhead-aware (module documentation). `chronos-ff`, `chronos-lu` and `chronos`
/// (first fit for EDF, least utilization for FP) are the rules of [ChronOS §8.5]
/// ([`chronos`]): for every domain size, never failing, overheads ignored. The error is a
/// message naming the task or the reason.
pub fn place(
    tasks: &TaskSet,
    cpus: u32,
    domain_size: u32,
    local: LocalScheduler,
    heuristic: &str,
    priorities: Priorities,
    overheads: Option<&OverheadSetup>,
) -> Result<Vec<u32>, String> {
    if !HEURISTICS.contains(&heuristic) {
        return Err(format!(
            "unknown packing heuristic `{heuristic}` (use one of {})",
            HEURISTICS.join(", ")
        ));
    }
    if domain_size == 0 || cpus == 0 || cpus % domain_size != 0 {
        return Err(format!(
            "the cluster size {domain_size} must be at least 1 and divide the CPU count {cpus}"
        ));
    }
    let domains = cpus / domain_size;
    let (what, field) = if domain_size == 1 {
        ("CPU", "cpu")
    } else {
        ("cluster", "cluster")
    };
    let pinned: Vec<Option<u32>> = tasks
        .iter()
        .map(|t| if domain_size == 1 { t.cpu } else { t.cluster })
        .collect();
    if !pinned.is_empty() && pinned.iter().all(Option::is_some) {
        let mut out = Vec::with_capacity(pinned.len());
        for (i, (task, d)) in tasks.iter().zip(&pinned).enumerate() {
            let d = d.unwrap_or(0);
            if d >= domains {
                return Err(format!(
                    "{}: `{field}` = {d}, but there are only {domains} {what}s (0-based)",
                    task.reference(i)
                ));
            }
            out.push(d);
        }
        return Ok(out);
    }
    if let (Some(i), Some(j)) = (
        pinned.iter().position(Option::is_some),
        pinned.iter().position(Option::is_none),
    ) {
        return Err(format!(
            "{} has a `{field}` field but {} has none: pin every task or none",
            tasks[i].reference(i),
            tasks[j].reference(j)
        ));
    }
    let sys = System::new(tasks, cpus, priorities).map_err(|e| e.to_string())?;
    let rule = match (heuristic, local) {
        ("chronos-ff", _) | ("chronos", LocalScheduler::Edf) => Some(chronos::Rule::FirstFit),
        ("chronos-lu", _) | ("chronos", LocalScheduler::Fp) => {
            Some(chronos::Rule::LeastUtilization)
        }
        _ => None,
    };
    let groups = match rule {
        // [ChronOS §8.5]: utilization rules that never fail and ignore overheads (its 0.95
        // cap is the allowance for them); clusters group the least-utilization partition.
        Some(_) if domain_size > 1 => {
            chronos::clusters(sys.params(), domains as usize, domain_size as usize)
        }
        Some(rule) => chronos::partition(sys.params(), domains as usize, rule),
        None => admitted_groups(&sys, tasks, domain_size, local, heuristic, overheads)?,
    };
    let mut out = vec![0u32; tasks.len()];
    for (d, members) in groups.iter().enumerate() {
        for &t in members {
            if let Some(slot) = out.get_mut(t) {
                *slot = u32::try_from(d).unwrap_or(u32::MAX);
            }
        }
    }
    Ok(out)
}

/// The groups of the packing with exact admission (`pedf-<h>`/`pfp-<h>`, worst-fit
/// decreasing clusters, or their overhead-aware versions); an error names what did not fit.
fn admitted_groups(
    sys: &System,
    tasks: &TaskSet,
    domain_size: u32,
    local: LocalScheduler,
    heuristic: &str,
    overheads: Option<&OverheadSetup>,
) -> Result<Vec<Vec<usize>>, String> {
    let domains = sys.cpus() / domain_size.max(1);
    let sys = sys.clone();
    Ok(match overheads {
        Some(setup) => charged_groups(tasks, sys, domain_size, local, heuristic, setup)?,
        None if domain_size > 1 => {
            crate::clustered::cedf::assign(sys.params(), domains as usize, domain_size).ok_or_else(
                || "worst-fit decreasing found no cluster for some task (utilization)".to_string(),
            )?
        }
        None => {
            let name = packing_test(local, heuristic);
            let test = crate::registry::by_name(&name).map_err(|e| e.to_string())?;
            let verdict = analyze(test.as_ref(), &sys);
            verdict.partition.ok_or_else(|| {
                format!(
                    "`{name}` found no placement on {domains} CPUs ({}); pin tasks with `cpu` fields or try another heuristic",
                    verdict.reason.unwrap_or_else(|| verdict.status.name().to_string())
                )
            })?
        }
    })
}

/// `pedf-<h>` or `pfp-<h>`.
fn packing_test(local: LocalScheduler, heuristic: &str) -> String {
    let prefix = match local {
        LocalScheduler::Edf => "pedf",
        LocalScheduler::Fp => "pfp",
    };
    format!("{prefix}-{heuristic}")
}

/// The groups of the overhead-aware packing (`pedf-<h>`/`pfp-<h>`, or `cedf-k<size>`, run on
/// the system with the overhead context); an error when the test does not apply to the
/// architecture or some task fits nowhere once charged.
fn charged_groups(
    tasks: &TaskSet,
    sys: System,
    domain_size: u32,
    local: LocalScheduler,
    heuristic: &str,
    setup: &OverheadSetup,
) -> Result<Vec<Vec<usize>>, String> {
    let ctx = OverheadContext::new(tasks, setup, sys.cpus());
    let sys = sys.with_overheads(Arc::new(ctx));
    let name = if domain_size > 1 {
        format!("cedf-k{domain_size}")
    } else {
        packing_test(local, heuristic)
    };
    let test = crate::registry::by_name(&name).map_err(|e| e.to_string())?;
    let verdict = analyze(test.as_ref(), &sys);
    if verdict.status == crate::verdict::Status::NotApplicable {
        return Err(format!(
            "no overhead-aware placement: `{name}`: {}",
            verdict.reason.unwrap_or_default()
        ));
    }
    let misfits = verdict
        .accounting
        .as_ref()
        .map(|a| a.misfits.clone())
        .unwrap_or_default();
    match (verdict.partition, misfits.is_empty()) {
        (Some(p), true) => Ok(p),
        (_, false) => Err(format!(
            "`{name}` with the `{}` overheads fits task{} {} nowhere; pin tasks with `{}` fields or try another heuristic",
            setup.arch.section(),
            if misfits.len() == 1 { "" } else { "s" },
            misfits.iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
            if domain_size > 1 { "cluster" } else { "cpu" }
        )),
        (None, true) => Err(format!(
            "`{name}` found no overhead-aware placement ({})",
            verdict.reason.unwrap_or_else(|| verdict.status.name().to_string())
        )),
    }
}

/// The placement a scheduling policy needs, by policy name ([`POLICY_PLACEMENT`]): `pedf`
/// (EDF admission) and `pfp` (FP admission) on single CPUs by `heuristic`, `cedf` on clusters
/// of `cluster_size` CPUs, the best-effort `plbesa`/`pdasa` (first fit, 0.95 cap) and `phvdf`
/// (least utilization) by [ChronOS §8.5] whatever the load; `None` for global policies.
/// Returns the domain of each task and the domain size. The file's `cpu`/`cluster` pins win
/// when every task has one.
pub fn for_policy(
    policy: &str,
    tasks: &TaskSet,
    cpus: u32,
    heuristic: &str,
    cluster_size: Option<u32>,
    priorities: Priorities,
    overheads: Option<&OverheadSetup>,
) -> Result<Option<(Vec<u32>, u32)>, String> {
    let (size, local, heuristic) = match placement_kind(policy) {
        Some(PlacementKind::Partitioned(local)) => (1, local, heuristic),
        // The thesis's rule unless `chronos-ff`/`chronos-lu` is asked for: the admission
        // heuristics (the CLI's default `ffd` included) fail on the overloaded sets these
        // policies exist for.
        Some(PlacementKind::BestEffort(rule)) => {
            if !HEURISTICS.contains(&heuristic) {
                return Err(format!(
                    "unknown packing heuristic `{heuristic}` (use one of {})",
                    HEURISTICS.join(", ")
                ));
            }
            let named = match (heuristic, rule) {
                ("chronos-ff" | "chronos-lu", _) => heuristic,
                (_, chronos::Rule::FirstFit) => "chronos-ff",
                (_, chronos::Rule::LeastUtilization) => "chronos-lu",
            };
            (1, LocalScheduler::Edf, named)
        }
        Some(PlacementKind::Clustered) => (
            cluster_size
                .ok_or_else(|| format!("policy `{policy}` needs a cluster size (--cluster-size K)"))?,
            LocalScheduler::Edf,
            heuristic,
        ),
        // Domains of different sizes: a domain size alone cannot say them.
        None if policy == "federated" => {
            return Err(
                "policy `federated` is placed in domains of different sizes: use placement::federated_placement (or policy_inputs)".to_string(),
            )
        }
        // Its parts are part of the placement: a list of CPUs alone would run split tasks whole.
        Some(PlacementKind::Semi) => {
            return Err(format!(
                "policy `{policy}` is placed with its split parts: use placement::semi_placement (or policy_inputs)"
            ))
        }
        None if overheads.is_some() => {
            return Err(format!(
                "overhead-aware placement is for the partitioned, semi-partitioned and clustered policies (pedf, pfp, pfp-ts, cedf); `{policy}` needs no placement"
            ))
        }
        None => return Ok(None),
    };
    if let Some(i) = tasks.iter().position(|t| t.split.is_some()) {
        return Err(format!(
            "{} has a `split` field: split tasks run under `--policy pfp-ts`, not `{policy}`",
            tasks[i].reference(i)
        ));
    }
    place(tasks, cpus, size, local, heuristic, priorities, overheads).map(|d| Some((d, size)))
}

/// The semi-partitioned placement of `pfp-ts` (FP-TS, [RTPS §III]): every task's CPU (a
/// split task's head CPU) and the parts of the split tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemiPlacement {
    /// The CPU of each task; for a split task, the CPU of its head.
    pub cpu_of_task: Vec<u32>,
    /// Per task, its parts in execution order; empty when it is whole.
    pub split: Vec<Vec<SplitPart>>,
}

/// The assignment `analyze --test pfp-ts` reports for the same CPUs, priorities and
/// overheads (with `overheads`, charged as `--arch semi-partitioned` requires), as the
/// simulator and the runtime take it. Pins in the file are the caller's business (this
/// always computes the assignment). The error says why no assignment exists.
pub fn semi_partition(
    tasks: &TaskSet,
    cpus: u32,
    priorities: Priorities,
    overheads: Option<&OverheadSetup>,
) -> Result<SemiPlacement, String> {
    let mut sys = System::new(tasks, cpus, priorities).map_err(|e| e.to_string())?;
    if let Some(setup) = overheads {
        sys = sys.with_overheads(Arc::new(OverheadContext::new(tasks, setup, cpus)));
    }
    let verdict = analyze(&crate::semi::fpts::PfpTs::default(), &sys);
    let why = || {
        verdict
            .reason
            .clone()
            .unwrap_or_else(|| verdict.status.name().to_string())
    };
    let (Some(partition), Some(semi), true) =
        (&verdict.partition, &verdict.semi, verdict.is_schedulable())
    else {
        return Err(format!(
            "`pfp-ts` found no assignment on {cpus} CPUs ({}); pin tasks with `cpu` and `split` fields",
            why()
        ));
    };
    let mut split = vec![Vec::new(); tasks.len()];
    let mut cpu_of_task = vec![0u32; tasks.len()];
    for (cpu, members) in partition.iter().enumerate() {
        for &t in members {
            if let Some(slot) = cpu_of_task.get_mut(t) {
                *slot = u32::try_from(cpu).unwrap_or(u32::MAX);
            }
        }
    }
    for s in &semi.split_tasks {
        if let (Some(parts), Some(head), Some(first)) = (
            split.get_mut(s.task),
            cpu_of_task.get_mut(s.task),
            s.parts.first(),
        ) {
            *parts = s
                .parts
                .iter()
                .map(|p| SplitPart {
                    cpu: p.cpu,
                    budget: Duration::from_ns(p.budget_ns),
                })
                .collect();
            *head = first.cpu;
        }
    }
    Ok(SemiPlacement { cpu_of_task, split })
}

/// The placement `pfp-ts` runs: the file's when it pins every task — whole tasks with `cpu`,
/// split ones with `split` (each task has one or the other, never both: the task validator
/// sees to that) — else exactly the assignment of `analyze --test pfp-ts`
/// ([`semi_partition`], with `overheads` as there). Errors name the task: a CPU or a part's
/// CPU beyond `cpus`, some tasks pinned and others not (one of each is named), or no
/// assignment.
pub fn semi_placement(
    tasks: &TaskSet,
    cpus: u32,
    priorities: Priorities,
    overheads: Option<&OverheadSetup>,
) -> Result<SemiPlacement, String> {
    let pinned = |t: &schedlab_model::Task| t.cpu.is_some() || t.split.is_some();
    let first_pinned = tasks.iter().position(pinned);
    let first_free = tasks.iter().position(|t| !pinned(t));
    match (first_pinned, first_free) {
        (None, _) => semi_partition(tasks, cpus, priorities, overheads),
        (Some(i), Some(j)) => Err(format!(
            "{} has a `cpu` or `split` field but {} has neither: pin every task (whole ones with `cpu`, split ones with `split`) or none",
            tasks[i].reference(i),
            tasks[j].reference(j)
        )),
        (Some(_), None) => {
            let mut placement = SemiPlacement {
                cpu_of_task: Vec::with_capacity(tasks.len()),
                split: Vec::with_capacity(tasks.len()),
            };
            for (i, t) in tasks.iter().enumerate() {
                let parts: Vec<SplitPart> = t.split.iter().flatten().copied().collect();
                if let Some((k, p)) = parts.iter().enumerate().find(|(_, p)| p.cpu >= cpus) {
                    return Err(format!(
                        "{}: `split` part {k} is on CPU {}, but there are only {cpus} CPUs (0-based)",
                        t.reference(i),
                        p.cpu
                    ));
                }
                if let Some(cpu) = t.cpu.filter(|&c| c >= cpus) {
                    return Err(format!(
                        "{}: `cpu` = {cpu}, but there are only {cpus} CPUs (0-based)",
                        t.reference(i)
                    ));
                }
                let cpu = t.cpu.or(parts.first().map(|p| p.cpu)).unwrap_or(0);
                placement.cpu_of_task.push(cpu);
                placement.split.push(parts);
            }
            Ok(placement)
        }
    }
}

/// What an engine (simulator or runtime) needs from the analysis side to run `policy`: the
/// fixed-priority rank of each task and, for partitioned, semi-partitioned and clustered
/// policies, the placement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyInputs {
    /// Rank of each task (0 = highest priority) under `priorities`; all zero when the
    /// priorities cannot be derived and the policy does not use them.
    pub ranks: Vec<u32>,
    /// Domain of each task and the domain size, for `pedf`/`pfp`/`cedf` and the best-effort
    /// `plbesa`/`pdasa`/`phvdf` ([`for_policy`], [`POLICY_PLACEMENT`]);
    /// for `pfp-ts` each task's CPU (a split task's head CPU) and 1 ([`semi_placement`]);
    /// for `federated` each task's domain and 0: the sizes are in `domain_sizes`.
    pub placement: Option<(Vec<u32>, u32)>,
    /// For `pfp-ts`: the parts of each split task in execution order (empty for a whole
    /// task); empty for every other policy.
    pub split: Vec<Vec<SplitPart>>,
    /// For `federated`: the CPUs of each domain in domain order, which differ
    /// ([`federated_placement`]; the policy crate's `Placement::with_domain_sizes`); empty
    /// for every other policy.
    pub domain_sizes: Vec<u32>,
}

/// The policies with a placement that take parallel tasks: they run the threads as jobs on
/// the task's CPU (`pedf`, `pfp`) or cluster (`cedf`), the parent's deadline for each.
pub const PLACES_PARALLEL: [&str; 3] = ["pedf", "pfp", "cedf"];

/// For a policy with a placement and a set with parallel tasks: the set to place, each
/// parallel task as a sequential task of its work (`Ok(None)`: place `tasks` as they are).
/// An error names the task for a policy that does not take parallel tasks, or a heavy one.
fn placed_sequentially(policy: &str, tasks: &TaskSet) -> Result<Option<TaskSet>, String> {
    let parallel = tasks.iter().enumerate().find(|(_, t)| t.parallel.is_some());
    let (Some(_), Some((i, t))) = (placement_kind(policy), parallel) else {
        return Ok(None);
    };
    if !PLACES_PARALLEL.contains(&policy) {
        return Err(format!(
            "{} is parallel (field `parallel`): `{policy}` places sequential tasks on CPUs; of the policies with a placement only {} take parallel tasks (their threads as jobs)",
            t.reference(i),
            PLACES_PARALLEL.join(", ")
        ));
    }
    if let Some((i, t)) = tasks
        .iter()
        .enumerate()
        .find(|(_, t)| t.parallel.is_some() && t.wcet > t.deadline)
    {
        return Err(format!(
            "{} is a heavy parallel task (work {} > deadline {}): `{policy}` runs all its threads on one {}, where it cannot meet its deadline; federated scheduling gives a heavy task CPUs of its own (`analyze --test federated`)",
            t.reference(i),
            t.wcet,
            t.deadline,
            if policy == "cedf" { "cluster" } else { "CPU" }
        ));
    }
    let sequential: Vec<_> = tasks
        .iter()
        .map(|t| {
            let mut t = t.clone();
            t.parallel = None;
            t
        })
        .collect();
    TaskSet::with_resources(sequential, tasks.resources().to_vec())
        .map(Some)
        .map_err(|e| e.to_string())
}

/// The ranks and placement `policy` needs on `cpus` CPUs (see [`for_policy`], and
/// [`semi_placement`] for `pfp-ts`). Errors name what is missing: priorities a fixed-priority
/// policy (`gfp`, `pfp`, `pfp-ts`) cannot do without, a cluster size for `cedf`, a partition
/// or assignment that does not fit (never for the best-effort `plbesa`/`pdasa`/`phvdf`, whose
/// [ChronOS §8.5] placement places every set). The utility-accrual policies need no ranks.
/// Parallel tasks [RTWS §III]: `pedf`, `pfp` and `cedf` run a parallel task's threads as jobs
/// on the task's CPU or cluster ([`PLACES_PARALLEL`]), so they place it as a sequential task
/// of its work (`C ≤ D`: a heavy task, `C > D`, cannot meet its deadline on one CPU and is
/// refused; federated scheduling gives it CPUs of its own); every other policy with a
/// placement refuses parallel tasks. `federated` gets [`federated_placement`] (the allocation
/// of `analyze --test federated:light=pedf-<heuristic>`) as each task's domain and
/// [`PolicyInputs::domain_sizes`].
pub fn policy_inputs(
    policy: &str,
    tasks: &TaskSet,
    cpus: u32,
    heuristic: &str,
    cluster_size: Option<u32>,
    priorities: Priorities,
    overheads: Option<&OverheadSetup>,
) -> Result<PolicyInputs, String> {
    let sequential;
    let tasks = match placed_sequentially(policy, tasks)? {
        Some(s) => {
            sequential = s;
            &sequential
        }
        None => tasks,
    };
    let sys = System::new(tasks, cpus, priorities).map_err(|e| e.to_string())?;
    let ranks = match sys.priority_ranks() {
        Ok(r) => r,
        // Fixed-priority policies need ranks (`linux-fifo`: the runtime's SCHED_FIFO baseline).
        Err(reason) if matches!(policy, "gfp" | "pfp" | "pfp-ts" | "linux-fifo") => {
            return Err(reason)
        }
        Err(_) => vec![0; tasks.len()],
    };
    if placement_kind(policy) == Some(PlacementKind::Semi) {
        let semi = semi_placement(tasks, cpus, priorities, overheads)?;
        return Ok(PolicyInputs {
            ranks,
            placement: Some((semi.cpu_of_task, 1)),
            split: semi.split,
            domain_sizes: Vec::new(),
        });
    }
    if policy == "federated" {
        if overheads.is_some() {
            return Err(
                "`federated`'s placement is overhead-free (the `federated` test charges no overheads)".to_string(),
            );
        }
        let p =
            federated_placement(tasks, cpus, heuristic, priorities).map_err(|e| e.to_string())?;
        return Ok(PolicyInputs {
            ranks,
            placement: Some((p.domain_of_task, 0)),
            split: Vec::new(),
            domain_sizes: p.domain_sizes,
        });
    }
    let placement = for_policy(
        policy,
        tasks,
        cpus,
        heuristic,
        cluster_size,
        priorities,
        overheads,
    )?;
    Ok(PolicyInputs {
        ranks,
        placement,
        split: Vec::new(),
        domain_sizes: Vec::new(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use schedlab_model::{Duration, Task};

    fn set(tasks: &[(u64, u64)]) -> TaskSet {
        TaskSet::new(
            tasks
                .iter()
                .map(|&(c, t)| Task::implicit(Duration::from_ns(c), Duration::from_ns(t)).unwrap())
                .collect(),
        )
        .unwrap()
    }

    /// `pedf`, `pfp` and `cedf` place a light parallel task as a sequential task of its work
    /// (threads as jobs on its CPU or cluster) and refuse a heavy one; the other policies
    /// with a placement refuse parallel tasks by name; a global policy needs no placement
    /// and gets its ranks.
    #[test]
    fn placements_of_parallel_tasks() {
        let ns = Duration::from_ns;
        let fj = |threads: Vec<u64>, d: u64| {
            let p = schedlab_model::ParallelStructure::from_threads(vec![threads
                .into_iter()
                .map(ns)
                .collect()])
            .unwrap();
            Task::new(ns(1), ns(d), ns(10))
                .unwrap()
                .named("fj")
                .with_parallel(p)
        };
        // Work 6 of 10 beside 5 of 10: they do not share a CPU; first fit decreasing puts
        // the parallel task (0.6) on CPU 0.
        let light = TaskSet::new(vec![
            Task::implicit(ns(5), ns(10)).unwrap(),
            fj(vec![3, 3], 10),
        ])
        .unwrap();
        for policy in ["pedf", "pfp"] {
            let inputs =
                policy_inputs(policy, &light, 2, "ffd", None, Priorities::Dm, None).unwrap();
            assert_eq!(inputs.placement, Some((vec![1, 0], 1)), "{policy}");
        }
        let c = policy_inputs("cedf", &light, 2, "ffd", Some(2), Priorities::Dm, None).unwrap();
        assert_eq!(c.placement, Some((vec![0, 0], 2)));
        // Work 6 > deadline 4: heavy.
        let heavy = TaskSet::new(vec![
            Task::implicit(ns(1), ns(10)).unwrap(),
            fj(vec![3, 3], 4),
        ])
        .unwrap();
        let e = policy_inputs("pedf", &heavy, 2, "ffd", None, Priorities::Dm, None)
            .err()
            .unwrap();
        assert!(
            e.starts_with("task 1 (`fj`) is a heavy parallel task (work 6ns > deadline 4ns)"),
            "{e}"
        );
        let tasks = TaskSet::new(vec![
            Task::implicit(ns(1), ns(10)).unwrap(),
            fj(vec![1, 1], 10),
        ])
        .unwrap();
        for policy in ["pfp-ts", "plbesa"] {
            let e = policy_inputs(policy, &tasks, 2, "ffd", Some(2), Priorities::Dm, None)
                .err()
                .unwrap();
            assert!(
                e.starts_with("task 1 (`fj`) is parallel (field `parallel`): `"),
                "{policy}: {e}"
            );
        }
        let global = policy_inputs("gedf", &tasks, 2, "ffd", None, Priorities::Dm, None).unwrap();
        assert_eq!((global.ranks.len(), global.placement), (2, None));
    }

    /// `semi_partition` is `pfp-ts`'s assignment (the hand-worked split of `semi::tests`).
    #[test]
    fn semi_partition_is_the_analysis_split() {
        let s = set(&[(30, 50), (60, 100), (120, 200)]);
        let p = semi_partition(&s, 2, Priorities::Dm, None).unwrap();
        assert_eq!(p.cpu_of_task, vec![0, 1, 0]);
        let part = |cpu, ns| SplitPart {
            cpu,
            budget: Duration::from_ns(ns),
        };
        assert_eq!(
            p.split,
            vec![vec![part(0, 20), part(1, 10)], vec![], vec![]]
        );
        let over = set(&[(9, 10), (9, 10), (9, 10)]);
        let e = semi_partition(&over, 2, Priorities::Dm, None).unwrap_err();
        assert!(e.contains("no assignment on 2 CPUs"), "{e}");
    }

    /// `pfp-ts`'s inputs: the analysis assignment when nothing is pinned; the file's `cpu` and
    /// `split` fields when every task has one; errors for mixed pins and CPUs beyond the
    /// platform, naming the tasks.
    #[test]
    fn pfp_ts_inputs_from_the_analysis_or_the_file() {
        let s = set(&[(30, 50), (60, 100), (120, 200)]);
        let i = policy_inputs("pfp-ts", &s, 2, "ffd", None, Priorities::Dm, None).unwrap();
        assert_eq!(i.ranks, vec![0, 1, 2]);
        assert_eq!(i.placement, Some((vec![0, 1, 0], 1)));
        let ns = Duration::from_ns;
        let part = |cpu, b| SplitPart { cpu, budget: ns(b) };
        assert_eq!(
            i.split,
            vec![vec![part(0, 20), part(1, 10)], vec![], vec![]]
        );
        let mut tasks = s.clone().into_tasks();
        tasks[0].split = Some(vec![part(1, 10), part(0, 20)]);
        tasks[1].cpu = Some(0);
        tasks[2].cpu = Some(1);
        let pinned = TaskSet::new(tasks.clone()).unwrap();
        let i = policy_inputs("pfp-ts", &pinned, 2, "ffd", None, Priorities::Dm, None).unwrap();
        assert_eq!(i.placement, Some((vec![1, 0, 1], 1)));
        assert_eq!(
            i.split,
            vec![vec![part(1, 10), part(0, 20)], vec![], vec![]]
        );
        let e = semi_placement(&pinned, 1, Priorities::Dm, None).unwrap_err();
        assert_eq!(
            e,
            "task 0: `split` part 0 is on CPU 1, but there are only 1 CPUs (0-based)"
        );
        tasks[0].split = Some(vec![part(0, 10), part(1, 20)]);
        let e = semi_placement(
            &TaskSet::new(tasks.clone()).unwrap(),
            1,
            Priorities::Dm,
            None,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "task 0: `split` part 1 is on CPU 1, but there are only 1 CPUs (0-based)"
        );
        tasks[2].cpu = None;
        let e = semi_placement(&TaskSet::new(tasks).unwrap(), 2, Priorities::Dm, None).unwrap_err();
        assert!(
            e.starts_with("task 0 has a `cpu` or `split` field but task 2 has neither"),
            "{e}"
        );
        let e = for_policy("pfp-ts", &s, 2, "ffd", None, Priorities::Dm, None).unwrap_err();
        assert!(e.contains("semi_placement"), "{e}");
        let e = for_policy("pfp", &pinned, 2, "ffd", None, Priorities::Dm, None).unwrap_err();
        assert_eq!(
            e,
            "task 0 has a `split` field: split tasks run under `--policy pfp-ts`, not `pfp`"
        );
    }

    #[test]
    fn packs_pins_and_rejects() {
        // Dhall: the heavy task alone, the light ones together (FFD).
        let s = set(&[(2, 10), (2, 10), (10, 11)]);
        let p = place(&s, 2, 1, LocalScheduler::Edf, "ffd", Priorities::Dm, None).unwrap();
        assert_ne!(p[2], p[0]);
        assert_eq!(p[0], p[1]);
        let mut pinned = s.clone().into_tasks();
        for (i, t) in pinned.iter_mut().enumerate() {
            t.cpu = Some(u32::try_from(i % 2).unwrap());
        }
        let pinned = TaskSet::new(pinned).unwrap();
        assert_eq!(
            place(
                &pinned,
                2,
                1,
                LocalScheduler::Fp,
                "ffd",
                Priorities::Dm,
                None
            )
            .unwrap(),
            vec![0, 1, 0]
        );
        assert!(place(
            &pinned,
            1,
            1,
            LocalScheduler::Fp,
            "ffd",
            Priorities::Dm,
            None
        )
        .unwrap_err()
        .contains("task 1"));
        let overloaded = set(&[(9, 10), (9, 10), (9, 10)]);
        assert!(place(
            &overloaded,
            2,
            1,
            LocalScheduler::Edf,
            "ffd",
            Priorities::Dm,
            None
        )
        .is_err());
        assert!(place(&s, 4, 3, LocalScheduler::Edf, "ffd", Priorities::Dm, None).is_err());
        let clusters = place(&s, 4, 2, LocalScheduler::Edf, "ffd", Priorities::Dm, None).unwrap();
        assert!(clusters.iter().all(|&d| d < 2));
    }

    /// The hand-worked overheads of `partitioned::charged_pack`'s tests (`C'' = C + 10n` on
    /// one CPU) for `arch`.
    fn schedule_5n(arch: &str) -> OverheadSetup {
        use crate::overheads::fixtures;
        let kind = crate::overheads::arch::ArchKind::parse(arch, false).unwrap();
        fixtures::setup(fixtures::schedule_5n(arch), kind)
    }

    /// With overheads the placement is the overhead-aware packing's: C = 40, 30, 30, 20
    /// (T = 100) under FFD packs [[0, 3], [1, 2]] once charged, [[0, 1, 2], [3]] without.
    #[test]
    fn overheads_place_as_the_overhead_aware_analysis() {
        let s = set(&[(40, 100), (30, 100), (30, 100), (20, 100)]);
        let oh = schedule_5n("partitioned");
        let free = place(&s, 2, 1, LocalScheduler::Edf, "ffd", Priorities::Dm, None).unwrap();
        assert_eq!(free, vec![0, 0, 0, 1]);
        let charged = place(
            &s,
            2,
            1,
            LocalScheduler::Edf,
            "ffd",
            Priorities::Dm,
            Some(&oh),
        )
        .unwrap();
        assert_eq!(charged, vec![0, 1, 1, 0]);
        assert_eq!(
            for_policy("pfp", &s, 2, "ffd", None, Priorities::Dm, Some(&oh)).unwrap(),
            Some((vec![0, 1, 1, 0], 1))
        );
        // C-EDF (clusters of 2 on 4 CPUs) is charged per cluster under global-lock: the
        // placement is the partition of `cedf-k2` run with the overheads.
        let gl = schedule_5n("global-lock");
        let (domains, size) = for_policy("cedf", &s, 4, "ffd", Some(2), Priorities::Dm, Some(&gl))
            .unwrap()
            .unwrap();
        assert_eq!(size, 2);
        let ctx = OverheadContext::new(&s, &gl, 4);
        let sys = System::new(&s, 4, Priorities::Dm)
            .unwrap()
            .with_overheads(Arc::new(ctx));
        let v = analyze(crate::registry::by_name("cedf-k2").unwrap().as_ref(), &sys);
        let partition = v.partition.unwrap();
        for (c, members) in partition.iter().enumerate() {
            for &t in members {
                assert_eq!(domains[t] as usize, c);
            }
        }
        // Pinned tasks stay where the file puts them.
        let mut pinned: Vec<Task> = s.iter().cloned().collect();
        for (t, cpu) in pinned.iter_mut().zip([1, 1, 0, 0]) {
            t.cpu = Some(cpu);
        }
        let pinned = TaskSet::new(pinned).unwrap();
        assert_eq!(
            place(
                &pinned,
                2,
                1,
                LocalScheduler::Edf,
                "ffd",
                Priorities::Dm,
                Some(&oh)
            )
            .unwrap(),
            vec![1, 1, 0, 0]
        );
    }

    #[test]
    fn overhead_aware_placement_errors_name_the_problem() {
        let oh = schedule_5n("partitioned");
        // C = 60, 50, 45, 5: task 2 fits nowhere once charged (CPU 0: 80 + 65, CPU 1: 70 + 65).
        let s = set(&[(60, 100), (50, 100), (45, 100), (5, 100)]);
        let e = place(
            &s,
            2,
            1,
            LocalScheduler::Edf,
            "ffd",
            Priorities::Dm,
            Some(&oh),
        )
        .unwrap_err();
        assert!(
            e.contains("`pedf-ffd` with the `partitioned` overheads fits task 2 nowhere"),
            "{e}"
        );
        // A global policy needs no placement; a partitioned one under a global architecture
        // has no overhead-aware packing.
        let e = for_policy("gedf", &s, 2, "ffd", None, Priorities::Dm, Some(&oh)).unwrap_err();
        assert!(e.contains("`gedf` needs no placement"), "{e}");
        let gl = schedule_5n("global-lock");
        let e = for_policy("pedf", &s, 2, "ffd", None, Priorities::Dm, Some(&gl)).unwrap_err();
        assert!(
            e.contains("charged per CPU under --arch partitioned"),
            "{e}"
        );
    }
}
