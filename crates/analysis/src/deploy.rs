//! From an analysed configuration to a Linux deployment (`schedlab export`, docs/export.md).
//!
//! [`plan`] takes a task set, a platform, a policy and how to place and prioritise it
//! ([`DeployRequest`]), runs the test that accepts it (the placement heuristics and
//! tests of `analyze`/`simulate`/`run`, with the overhead file if given), and builds the
//! [`Deployment`] that the writers of `schedlab_model::interop` turn into rt-app JSON, a
//! shell script or systemd units:
//!
//! 1. the policy's Linux mapping ([`mapping`]): `gedf`/`sd`, `pedf`, `cedf` → `SCHED_DEADLINE`
//!    in one, per-CPU or per-cluster root domains; `gfp`, `pfp` → `SCHED_FIFO`. Every other
//!    policy is refused with the reason and the `schedlab run --arch … --policy …` that runs
//!    it ([`mapping::REFUSED`]);
//! 2. what the exported load cannot emulate (parallel, split, affinity, critical sections) or
//!    `SCHED_DEADLINE` cannot express (`D > T`, periods outside the kernel's range) is refused
//!    naming the task and the field ([`linux::check_tasks`]);
//! 3. the accepting test and the placement it vouches for; a set it does not accept is refused
//!    unless `force` (the header then says NOT ACCEPTED);
//! 4. each task's parameters ([`linux`]): runtime = WCET + margin (capped at the deadline),
//!    FIFO priorities 99 downward per domain in the analysis's order; the kernel's admission
//!    per root domain (refused unless `force` when over 0.95 per CPU).
//!
//! Assumptions: independent sequential sporadic tasks; logical CPU k is the machine's CPU k.
//! Complexity: that of the accepting test, plus O(n log n).

mod accept;
pub mod linux;
pub mod mapping;

use crate::overheads::context::OverheadSetup;
use crate::Priorities;
use mapping::{mapped_names, mapping, Mapping};
use schedlab_model::interop::deploy::{idents, Deployment, Provenance};
use schedlab_model::{Duration, TaskRef, TaskSet};

/// The tool named in every header.
pub const TOOL: &str = concat!("schedlab ", env!("CARGO_PKG_VERSION"));

/// The default `SCHED_DEADLINE` runtime margin (docs/runtime.md, "Kernel baselines").
pub const DEFAULT_DL_MARGIN: Duration = Duration::from_ns(500_000);

/// What to deploy and how.
#[derive(Clone, Copy, Debug)]
pub struct DeployRequest<'a> {
    /// The task set.
    pub tasks: &'a TaskSet,
    /// The number of CPUs (logical `0..cpus`).
    pub cpus: u32,
    /// The schedlab policy (`simulate --policy`'s names).
    pub policy: &'a str,
    /// The packing heuristic of `pedf`/`pfp` (`ff`, `ffd`, …) when the file pins no task.
    pub partition: &'a str,
    /// The fixed-priority assignment (`pfp`, `gfp`).
    pub priorities: Priorities,
    /// The cluster size of `cedf`.
    pub cluster_size: Option<u32>,
    /// Another accepting test (global policies only; the packing's own test otherwise).
    pub test: Option<&'a str>,
    /// The overheads the analysis charges, if any.
    pub overheads: Option<&'a OverheadSetup>,
    /// `SCHED_DEADLINE` runtime = WCET + this.
    pub dl_margin: Duration,
    /// Export even what the test does not accept or the kernel's defaults refuse.
    pub force: bool,
    /// The default run length of the exported files (`None`: until stopped).
    pub duration: Option<Duration>,
    /// Where the set came from (a file name), for the header.
    pub source: &'a str,
}

/// Why a configuration cannot be deployed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeployError {
    /// The policy has no Linux equivalent.
    #[error("policy `{policy}` cannot be exported to Linux: {why}. Run it with schedlab's own runtime instead: `schedlab run FILE {run}`")]
    Unexpressible {
        /// The policy asked for.
        policy: String,
        /// Why Linux cannot run it.
        why: String,
        /// The `schedlab run` options that run it.
        run: String,
    },
    /// A name that is no policy.
    #[error("unknown policy `{policy}`: Linux runs {mapped}; every schedlab policy runs under `schedlab run --arch …`")]
    UnknownPolicy {
        /// The name given.
        policy: String,
        /// The policies that map.
        mapped: String,
    },
    /// A task the export cannot emulate or the kernel cannot take.
    #[error("{task}: field `{field}`: {message}")]
    Task {
        /// The task.
        task: TaskRef,
        /// The field, as in task files.
        field: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// No placement to export (the partitioning failed).
    #[error("nothing to export: {0}")]
    Placement(String),
    /// The accepting test does not accept the set.
    #[error("{test} does not accept the set ({verdict}): a deployment of it may miss deadlines; export it anyway with --force (its header then says NOT ACCEPTED)")]
    NotAccepted {
        /// The test.
        test: String,
        /// Its verdict.
        verdict: String,
    },
    /// A limit of the kernel (admission, priorities).
    #[error("{0}")]
    Limit(String),
    /// Options that do not go together.
    #[error("{0}")]
    Invalid(String),
}

/// The refusal of `policy` (mapped policies are `Ok`).
pub fn linux_mapping(policy: &str) -> Result<Mapping, DeployError> {
    mapping(policy).map_err(|refused| match refused {
        Some(r) => DeployError::Unexpressible {
            policy: policy.to_string(),
            why: r.why.to_string(),
            run: r.run.to_string(),
        },
        None => DeployError::UnknownPolicy {
            policy: policy.to_string(),
            mapped: mapped_names(),
        },
    })
}

/// The overheads line of the header.
fn overheads_text(setup: &OverheadSetup) -> String {
    format!(
        "{} (arch {}, statistic {}, granularity {} ns)",
        if setup.source.is_empty() {
            "a dict"
        } else {
            setup.source.as_str()
        },
        setup.arch.section(),
        setup.stat.key(),
        setup.granularity
    )
}

/// The deployment of `req` (module documentation), or why there is none.
pub fn plan(req: &DeployRequest<'_>) -> Result<Deployment, DeployError> {
    let mapping = linux_mapping(req.policy)?;
    let mut notes = linux::check_tasks(req, mapping)?;
    let names = idents(req.tasks.iter().map(|t| t.name.as_deref()));
    let accepted = accept::accept(req, mapping, &names)?;
    if !accepted.accepted && !req.force {
        return Err(DeployError::NotAccepted {
            test: accepted.test,
            verdict: accepted.verdict,
        });
    }
    let linux = linux::linux_tasks(req, mapping, &accepted, &names)?;
    notes.extend(linux.notes);
    Ok(Deployment {
        provenance: Provenance {
            tool: TOOL.to_string(),
            source: req.source.to_string(),
            policy: req.policy.to_string(),
            placement: accepted.placement,
            linux: linux.linux,
            test: accepted.test,
            verdict: accepted.verdict,
            accepted: accepted.accepted,
            overheads: req.overheads.map(overheads_text),
            dl_margin: mapping.deadline().then_some(req.dl_margin),
            admission: linux.admission,
            notes,
        },
        cpus: req.cpus,
        domains: linux.domains,
        tasks: linux.tasks,
        duration: req.duration,
    })
}

#[cfg(test)]
mod tests;
