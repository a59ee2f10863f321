//! Where a partitioned or clustered scheduler puts each task (for the simulator and the
//! runtime, which take a placement as input and never depend on this crate — DESIGN.md).
//!
//! The file's `cpu` (partitioned) or `cluster` (clustered) fields win when every task has
//! one; otherwise partitioned placements come from a bin-packing heuristic with exact
//! uniprocessor admission (`pedf-<h>` / `pfp-<h>`), clustered ones from the worst-fit
//! decreasing assignment of `cedf-k<size>` (which exists whether or not the per-cluster G-EDF
//! battery then accepts the clusters).

use crate::system::{Priorities, System};
use crate::test::analyze;
use schedlab_model::TaskSet;

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
/// `nfd`) used for `domain_size = 1` when the tasks are not pinned. The error is a message
/// naming the task or the reason.
pub fn place(
    tasks: &TaskSet,
    cpus: u32,
    domain_size: u32,
    local: LocalScheduler,
    heuristic: &str,
    priorities: Priorities,
) -> Result<Vec<u32>, String> {
    const HEURISTICS: [&str; 8] = ["ff", "ffd", "bf", "bfd", "wf", "wfd", "nf", "nfd"];
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
    let groups = if domain_size > 1 {
        crate::clustered::cedf::assign(sys.params(), domains as usize, domain_size).ok_or_else(
            || "worst-fit decreasing found no cluster for some task (utilization)".to_string(),
        )?
    } else {
        let prefix = match local {
            LocalScheduler::Edf => "pedf",
            LocalScheduler::Fp => "pfp",
        };
        let name = format!("{prefix}-{heuristic}");
        let test = crate::registry::by_name(&name).map_err(|e| e.to_string())?;
        let verdict = analyze(test.as_ref(), &sys);
        verdict.partition.ok_or_else(|| {
            format!(
                "`{name}` found no placement on {domains} CPUs ({}); pin tasks with `cpu` fields or try another heuristic",
                verdict.reason.unwrap_or_else(|| verdict.status.name().to_string())
            )
        })?
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

/// The placement a scheduling policy needs, by policy name: `pedf` (EDF admission) and `pfp`
/// (FP admission) on single CPUs, `cedf` on clusters of `cluster_size` CPUs; `None` for global
/// policies. Returns the domain of each task and the domain size.
pub fn for_policy(
    policy: &str,
    tasks: &TaskSet,
    cpus: u32,
    heuristic: &str,
    cluster_size: Option<u32>,
    priorities: Priorities,
) -> Result<Option<(Vec<u32>, u32)>, String> {
    let (size, local) = match policy {
        "pedf" => (1, LocalScheduler::Edf),
        "pfp" => (1, LocalScheduler::Fp),
        "cedf" => (
            cluster_size.ok_or("policy `cedf` needs a cluster size (--cluster-size K)")?,
            LocalScheduler::Edf,
        ),
        _ => return Ok(None),
    };
    place(tasks, cpus, size, local, heuristic, priorities).map(|d| Some((d, size)))
}

/// What an engine (simulator or runtime) needs from the analysis side to run `policy`: the
/// fixed-priority rank of each task and, for partitioned/clustered policies, the placement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyInputs {
    /// Rank of each task (0 = highest priority) under `priorities`; all zero when the
    /// priorities cannot be derived and the policy does not use them.
    pub ranks: Vec<u32>,
    /// Domain of each task and the domain size, for `pedf`/`pfp`/`cedf` ([`for_policy`]).
    pub placement: Option<(Vec<u32>, u32)>,
}

/// The ranks and placement `policy` needs on `cpus` CPUs (see [`for_policy`]). Errors name
/// what is missing: priorities a fixed-priority policy (`gfp`, `pfp`) cannot do without, a
/// cluster size for `cedf`, a partition that does not fit.
pub fn policy_inputs(
    policy: &str,
    tasks: &TaskSet,
    cpus: u32,
    heuristic: &str,
    cluster_size: Option<u32>,
    priorities: Priorities,
) -> Result<PolicyInputs, String> {
    let sys = System::new(tasks, cpus, priorities).map_err(|e| e.to_string())?;
    let ranks = match sys.priority_ranks() {
        Ok(r) => r,
        // Fixed-priority policies need ranks (`linux-fifo`: the runtime's SCHED_FIFO baseline).
        Err(reason) if matches!(policy, "gfp" | "pfp" | "linux-fifo") => return Err(reason),
        Err(_) => vec![0; tasks.len()],
    };
    let placement = for_policy(policy, tasks, cpus, heuristic, cluster_size, priorities)?;
    Ok(PolicyInputs { ranks, placement })
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

    #[test]
    fn packs_pins_and_rejects() {
        // Dhall: the heavy task alone, the light ones together (FFD).
        let s = set(&[(2, 10), (2, 10), (10, 11)]);
        let p = place(&s, 2, 1, LocalScheduler::Edf, "ffd", Priorities::Dm).unwrap();
        assert_ne!(p[2], p[0]);
        assert_eq!(p[0], p[1]);
        let mut pinned = s.clone().into_tasks();
        for (i, t) in pinned.iter_mut().enumerate() {
            t.cpu = Some(u32::try_from(i % 2).unwrap());
        }
        let pinned = TaskSet::new(pinned).unwrap();
        assert_eq!(
            place(&pinned, 2, 1, LocalScheduler::Fp, "ffd", Priorities::Dm).unwrap(),
            vec![0, 1, 0]
        );
        assert!(
            place(&pinned, 1, 1, LocalScheduler::Fp, "ffd", Priorities::Dm)
                .unwrap_err()
                .contains("task 1")
        );
        let overloaded = set(&[(9, 10), (9, 10), (9, 10)]);
        assert!(place(
            &overloaded,
            2,
            1,
            LocalScheduler::Edf,
            "ffd",
            Priorities::Dm
        )
        .is_err());
        assert!(place(&s, 4, 3, LocalScheduler::Edf, "ffd", Priorities::Dm).is_err());
        let clusters = place(&s, 4, 2, LocalScheduler::Edf, "ffd", Priorities::Dm).unwrap();
        assert!(clusters.iter().all(|&d| d < 2));
    }
}
