//! Where partitioned and clustered policies put each task: the file's `cpu` / `cluster` fields
//! when every task has one, else a packing heuristic of the analysis crate (DESIGN.md: the
//! simulator takes the placement as an input and never depends on the analysis).

use anyhow::{bail, Context, Result};
use schedlab_analysis::{analyze, registry, Priorities, System};
use schedlab_model::TaskSet;
use schedlab_policy::Placement;

/// Placement for `policy` (`pedf`, `pfp`, `cedf`), or `None` for global policies.
pub(crate) fn for_policy(
    policy: &str,
    tasks: &TaskSet,
    cpus: u32,
    priorities: Priorities,
    heuristic: &str,
    cluster_size: Option<u32>,
) -> Result<Option<Placement>> {
    let (pinned, size, test): (Vec<Option<u32>>, u32, String) = match policy {
        "pedf" | "pfp" => (
            tasks.iter().map(|t| t.cpu).collect(),
            1,
            format!("{policy}-{heuristic}"),
        ),
        "cedf" => {
            let k = cluster_size.context("policy `cedf` needs --cluster-size K")?;
            if k == 0 || cpus % k != 0 {
                bail!("--cluster-size {k} must divide --cpus {cpus}");
            }
            (tasks.iter().map(|t| t.cluster).collect(), k, format!("cedf-k{k}"))
        }
        _ => return Ok(None),
    };
    let domains = cpus / size;
    if pinned.iter().all(Option::is_some) && !pinned.is_empty() {
        let mut domain_of_task = Vec::with_capacity(pinned.len());
        for (i, d) in pinned.iter().enumerate() {
            let d = d.unwrap_or(0);
            if d >= domains {
                bail!(
                    "{}: pinned to {} {d}, but there are only {domains} (0-based)",
                    tasks[i].reference(i),
                    if size == 1 { "CPU" } else { "cluster" }
                );
            }
            domain_of_task.push(d);
        }
        return Ok(Some(Placement {
            domain_of_task,
            domain_size: size,
        }));
    }
    if let Some(i) = pinned.iter().position(Option::is_some) {
        if let Some(j) = pinned.iter().position(Option::is_none) {
            bail!(
                "{} is pinned but {} is not: pin every task or none",
                tasks[i].reference(i),
                tasks[j].reference(j)
            );
        }
    }
    let sys = System::new(tasks, cpus, priorities)?;
    // Clusters: the worst-fit-decreasing assignment itself (it exists whether or not the
    // per-cluster G-EDF battery then accepts). CPUs: the packing heuristic with exact
    // uniprocessor admission.
    let found = if size > 1 {
        schedlab_analysis::clustered::cedf::assign(sys.params(), domains as usize, size)
            .ok_or_else(|| "some task fits in no cluster (utilization)".to_string())
    } else {
        let verdict = analyze(registry::by_name(&test)?.as_ref(), &sys);
        verdict
            .partition
            .ok_or_else(|| verdict.reason.unwrap_or_else(|| verdict.status.name().to_string()))
    };
    let partition = match found {
        Ok(p) => p,
        Err(why) => {
            bail!(
                "`{test}` found no placement of the tasks on {domains} {} ({why}); pin tasks with `{}` fields or use another --partition heuristic",
                if size == 1 { "CPUs" } else { "clusters" },
                if size == 1 { "cpu" } else { "cluster" }
            );
        }
    };
    let mut domain_of_task = vec![0u32; tasks.len()];
    for (d, members) in partition.iter().enumerate() {
        for &t in members {
            if let Some(slot) = domain_of_task.get_mut(t) {
                *slot = u32::try_from(d).unwrap_or(u32::MAX);
            }
        }
    }
    Ok(Some(Placement {
        domain_of_task,
        domain_size: size,
    }))
}
