//! The accepting test of a deployment and the placement it vouches for.
//!
//! - Global policies: the test (default `gedf` / `gfp`, the batteries; `--test` may name
//!   another test of the same family) on the whole set, charged with the overheads if given
//!   (as `analyze --overheads`: `ChargedAnalysis`).
//! - Partitioned and clustered policies: the placement is [`crate::placement::for_policy`]'s
//!   (the same heuristics and pins as `simulate`/`run`), and the test is the one that placement
//!   comes from — `pedf-<h>`, `pfp-<h>`, `cedf-k<K>` — run the same way (with overheads: the
//!   per-bin charging of the overhead-aware packing). A file that pins every task is checked
//!   domain by domain instead: the exact `edf` or `fp-rta` on each CPU, the `gedf` battery on
//!   each cluster.

use super::mapping::Mapping;
use super::{DeployError, DeployRequest};
use crate::overheads::context::ChargedAnalysis;
use crate::placement::for_policy;
use crate::{analyze, registry, SchedTest, Status, System, Verdict};

/// What the accepting test said and where it puts the tasks.
pub(crate) struct Accepted {
    /// The CPUs of each domain (a CPU, a cluster, or all CPUs), logical, ascending.
    pub(crate) domains: Vec<Vec<u32>>,
    /// Each task's domain.
    pub(crate) domain_of_task: Vec<usize>,
    /// How the tasks were placed, for the header.
    pub(crate) placement: String,
    /// The test that decided.
    pub(crate) test: String,
    /// Its verdict, for the header.
    pub(crate) verdict: String,
    /// Whether it accepted the set.
    pub(crate) accepted: bool,
}

fn verdict_text(v: &Verdict) -> String {
    match &v.reason {
        Some(r) if !r.is_empty() => format!("{} ({r})", v.status.name()),
        _ => v.status.name().to_string(),
    }
}

fn test_by_name(name: &str) -> Result<Box<dyn SchedTest>, DeployError> {
    registry::by_name(name).map_err(|e| DeployError::Invalid(format!("--test: {e}")))
}

/// The verdict of `test` on the request's set (charged with its overheads, if any).
fn run_test(req: &DeployRequest<'_>, test: &dyn SchedTest) -> Result<Verdict, DeployError> {
    match req.overheads {
        Some(setup) => {
            let charged = ChargedAnalysis::new(req.tasks, req.cpus, req.priorities, setup)
                .map_err(DeployError::Invalid)?;
            Ok(charged.verdict(test))
        }
        None => {
            let sys = System::new(req.tasks, req.cpus, req.priorities)
                .map_err(|e| DeployError::Invalid(e.to_string()))?;
            Ok(analyze(test, &sys))
        }
    }
}

/// `what k (CPUs …): a, b; …` for the header.
fn describe(names: &[String], domains: &[Vec<u32>], of_task: &[usize], what: &str) -> String {
    domains
        .iter()
        .enumerate()
        .map(|(d, cpus)| {
            let members: Vec<&str> = of_task
                .iter()
                .zip(names)
                .filter(|(&dt, _)| dt == d)
                .map(|(_, n)| n.as_str())
                .collect();
            let label = if what == "CPU" {
                format!("CPU {d}")
            } else {
                format!(
                    "{what} {d} (CPUs {})",
                    schedlab_model::interop::deploy::cpu_list(cpus)
                )
            };
            format!(
                "{label}: {}",
                if members.is_empty() {
                    "(none)".to_string()
                } else {
                    members.join(", ")
                }
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Global policies: one domain of every CPU and the test on the whole set.
fn global(
    req: &DeployRequest<'_>,
    mapping: Mapping,
    names: &[String],
) -> Result<Accepted, DeployError> {
    let (default, family, kind) = if mapping.deadline() {
        ("gedf", "global-edf", "global EDF")
    } else {
        ("gfp", "global-fp", "global fixed priority")
    };
    let name = req.test.unwrap_or(default);
    let test = test_by_name(name)?;
    if test.info().family != family {
        return Err(DeployError::Invalid(format!(
            "--test {name} is a {} test; policy {} runs {kind}: name a {family} test (e.g. {default})",
            test.info().family,
            req.policy
        )));
    }
    let v = run_test(req, test.as_ref())?;
    let all: Vec<u32> = (0..req.cpus).collect();
    Ok(Accepted {
        placement: format!(
            "global over CPUs {} (no placement); {} tasks: {}",
            schedlab_model::interop::deploy::cpu_list(&all),
            names.len(),
            names.join(", ")
        ),
        domains: vec![all],
        domain_of_task: vec![0; req.tasks.len()],
        test: test.name(),
        accepted: v.is_schedulable(),
        verdict: verdict_text(&v),
    })
}

/// Partitioned and clustered policies (module documentation).
pub(crate) fn accept(
    req: &DeployRequest<'_>,
    mapping: Mapping,
    names: &[String],
) -> Result<Accepted, DeployError> {
    let policy = match mapping {
        Mapping::GlobalDeadline | Mapping::GlobalFifo => return global(req, mapping, names),
        Mapping::PartitionedDeadline => "pedf",
        Mapping::PartitionedFifo => "pfp",
        Mapping::ClusteredDeadline => "cedf",
    };
    let placed = for_policy(
        policy,
        req.tasks,
        req.cpus,
        req.partition,
        req.cluster_size,
        req.priorities,
        req.overheads,
    )
    .map_err(DeployError::Placement)?;
    let Some((of_task, size)) = placed else {
        return Err(DeployError::Placement(format!(
            "policy `{policy}` has no placement"
        )));
    };
    let size = size.max(1);
    let domains: Vec<Vec<u32>> = (0..req.cpus / size)
        .map(|d| (d * size..(d + 1) * size).collect())
        .collect();
    let of_task: Vec<usize> = of_task.iter().map(|&d| d as usize).collect();
    let (what, field) = if size == 1 {
        ("CPU", "cpu")
    } else {
        ("cluster", "cluster")
    };
    let pinned = req.tasks.iter().all(|t| {
        if size == 1 {
            t.cpu.is_some()
        } else {
            t.cluster.is_some()
        }
    });
    let layout = describe(names, &domains, &of_task, what);
    if pinned {
        return by_domain(req, domains, of_task, size, field, layout);
    }
    let name = if size == 1 {
        format!("{policy}-{}", req.partition)
    } else {
        format!("cedf-k{size}")
    };
    if let Some(t) = req.test.filter(|t| *t != name) {
        return Err(DeployError::Invalid(format!(
            "--test {t}: the placement of policy `{policy}` is `{name}`'s, so `{name}` decides (choose the packing with --partition)"
        )));
    }
    let test = test_by_name(&name)?;
    let v = run_test(req, test.as_ref())?;
    let how = match (size, policy) {
        (1, "pfp") => "bin packing with exact response-time admission per CPU",
        (1, _) => "bin packing with exact EDF admission per CPU",
        _ => "worst-fit decreasing into clusters, the G-EDF battery per cluster",
    };
    Ok(Accepted {
        placement: format!("{name} ({how}): {layout}"),
        domains,
        domain_of_task: of_task,
        test: name,
        accepted: v.is_schedulable(),
        verdict: verdict_text(&v),
    })
}

/// A file that pins every task: the exact uniprocessor test on each CPU (or the G-EDF battery
/// on each cluster) of the file's placement.
fn by_domain(
    req: &DeployRequest<'_>,
    domains: Vec<Vec<u32>>,
    of_task: Vec<usize>,
    size: u32,
    field: &str,
    layout: String,
) -> Result<Accepted, DeployError> {
    if req.overheads.is_some() {
        return Err(DeployError::Invalid(format!(
            "the file pins every task (`{field}` fields), but the overhead-aware analysis places the tasks itself: drop the pins, or --overheads"
        )));
    }
    let name = match (size, req.test) {
        (_, Some(t)) => {
            return Err(DeployError::Invalid(format!(
                "--test {t}: the file pins every task (`{field}` fields), so each {field}'s tasks are checked by the exact uniprocessor test (G-EDF battery per cluster)"
            )))
        }
        (1, None) if req.policy == "pfp" => "fp-rta",
        (1, None) => "edf",
        (_, None) => "gedf",
    };
    let test = test_by_name(name)?;
    let sys = System::new(req.tasks, req.cpus, req.priorities)
        .map_err(|e| DeployError::Invalid(e.to_string()))?;
    let mut first_failure = None;
    for (d, _) in domains.iter().enumerate() {
        let members: Vec<usize> = (0..of_task.len()).filter(|&i| of_task[i] == d).collect();
        if members.is_empty() {
            continue;
        }
        let sub = sys
            .subset(&members, size)
            .map_err(|e| DeployError::Invalid(e.to_string()))?;
        let v = analyze(test.as_ref(), &sub);
        if v.status != Status::Schedulable && first_failure.is_none() {
            first_failure = Some(format!("{} on {field} {d}", verdict_text(&v)));
        }
    }
    Ok(Accepted {
        placement: format!("the file's `{field}` fields: {layout}"),
        domains,
        domain_of_task: of_task,
        test: format!("{name} on each {field}"),
        accepted: first_failure.is_none(),
        verdict: first_failure.unwrap_or_else(|| format!("schedulable on every {field}")),
    })
}
