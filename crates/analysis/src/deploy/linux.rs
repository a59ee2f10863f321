//! Each task's Linux parameters, and the kernel's limits checked before anything runs.
//!
//! - `SCHED_DEADLINE`: runtime = WCET + margin, capped at the deadline (as the runtime's
//!   `linux-deadline` baseline, docs/runtime.md: the kernel charges the reservation for the
//!   thread's whole CPU time, its own per-job work included); deadline = D, period = T. The
//!   kernel requires `1024 ns ≤ runtime ≤ deadline ≤ period` (so `D > T` cannot be
//!   expressed), a period within `sched_deadline_period_{min,max}_us` (100 µs and 4.194304 s
//!   by default), and per root domain Σ runtime/period ≤ its CPUs ×
//!   `sched_rt_runtime_us / sched_rt_period_us` (0.95 by default; EBUSY otherwise), compared
//!   exactly ([`schedlab_model::exact::cmp_sum`]).
//! - `SCHED_FIFO`: in each domain (a CPU for `pfp`, all CPUs for `gfp`) the task of highest
//!   priority under `--priorities` gets 99, the next 98, and so on: the order is the
//!   analysis's, ties in the key broken by task index as everywhere in schedlab (DESIGN.md),
//!   so no two tasks of a domain share a Linux priority; more than 99 tasks in a domain is
//!   refused.

use super::accept::Accepted;
use super::mapping::Mapping;
use super::{DeployError, DeployRequest};
use crate::System;
use schedlab_model::exact::{cmp_sum, Frac};
use schedlab_model::interop::deploy::{cpu_list, DeployedTask, LinuxPolicy, RootDomain, FIFO_MAX};
use schedlab_model::time::format_ns;
use schedlab_model::{Duration, Task};
use std::cmp::Ordering;

/// The smallest `SCHED_DEADLINE` runtime the kernel takes (`1 << DL_SCALE` ns).
pub const DL_MIN_RUNTIME_NS: u64 = 1024;
/// The kernel's default smallest `SCHED_DEADLINE` period (`sched_deadline_period_min_us`).
pub const DL_PERIOD_MIN_NS: u64 = 100_000;
/// The kernel's default largest `SCHED_DEADLINE` period (`sched_deadline_period_max_us`,
/// 2^22 µs).
pub const DL_PERIOD_MAX_NS: u64 = 4_194_304_000;
/// The kernel's default real-time bandwidth per CPU (`sched_rt_runtime_us /
/// sched_rt_period_us` = 950000 / 1000000), the limit of `SCHED_DEADLINE` admission.
pub const RT_BANDWIDTH: (i128, i128) = (95, 100);

fn task_error(t: &Task, i: usize, field: &str, message: String) -> DeployError {
    DeployError::Task {
        task: t.reference(i),
        field: field.to_string(),
        message,
    }
}

/// Refuses what the exported load cannot emulate or the kernel cannot take; returns notes for
/// what is ignored or forced.
pub(crate) fn check_tasks(
    req: &DeployRequest<'_>,
    mapping: Mapping,
) -> Result<Vec<String>, DeployError> {
    let mut notes = Vec::new();
    if !mapping.deadline() {
        // Before the test: without ranks no fixed-priority test applies, and the message
        // would be theirs instead of this one.
        System::new(req.tasks, req.cpus, req.priorities)
            .map_err(|e| DeployError::Invalid(e.to_string()))?
            .priority_ranks()
            .map_err(|r| {
                DeployError::Invalid(format!("--priorities {}: {r}", req.priorities.name()))
            })?;
    }
    for (i, t) in req.tasks.iter().enumerate() {
        if t.parallel.is_some() {
            return Err(task_error(t, i, "parallel", "the export runs one sequential thread per task; parallel (fork-join) tasks run with one thread per slot under `schedlab run --arch linux-deadline` or `--arch linux-fifo`".into()));
        }
        if t.split.is_some() {
            return Err(task_error(t, i, "split", "split tasks run under pfp-ts, which Linux cannot express: `schedlab run FILE --arch semi-partitioned --policy pfp-ts`".into()));
        }
        if t.affinity.is_some() {
            return Err(task_error(t, i, "affinity", "the export places tasks by the policy (`cpu`/`cluster` fields or a heuristic); an arbitrary affinity is not analysed by its tests".into()));
        }
        if !t.critical_sections.is_empty() {
            return Err(task_error(t, i, "critical_sections", "the exported load takes no locks, and the accepting tests assume independent tasks; `schedlab run` emulates critical sections".into()));
        }
        if !mapping.deadline() {
            continue;
        }
        if t.deadline > t.period {
            return Err(task_error(t, i, "deadline", format!(
                "SCHED_DEADLINE needs deadline ≤ period, but the deadline {} exceeds the period {}; export it under SCHED_FIFO (--policy gfp or pfp)",
                t.deadline, t.period
            )));
        }
        let p = t.period.as_ns();
        if !(DL_PERIOD_MIN_NS..=DL_PERIOD_MAX_NS).contains(&p) {
            let message = format!(
                "the period {} is outside the kernel's default SCHED_DEADLINE periods, {} to {} (/proc/sys/kernel/sched_deadline_period_min_us and _max_us)",
                t.period,
                format_ns(DL_PERIOD_MIN_NS),
                format_ns(DL_PERIOD_MAX_NS)
            );
            if !req.force {
                return Err(task_error(
                    t,
                    i,
                    "period",
                    format!("{message}; change them there and export with --force"),
                ));
            }
            notes.push(format!(
                "{}: {message} (exported with --force)",
                t.reference(i)
            ));
        }
    }
    if !req.tasks.groups().is_empty() {
        notes.push("the file's reservation groups are ignored (Linux RT group scheduling: `schedlab run --arch linux-rt-groups`)".to_string());
    }
    if let Some(i) = req.tasks.iter().position(|t| t.wss.is_some()) {
        notes.push(format!(
            "working sets (`wss`, e.g. {}) are written by the default body on every job",
            req.tasks[i].reference(i)
        ));
    }
    Ok(notes)
}

/// The `SCHED_FIFO` priority of each task: 99 downward in each domain by the analysis's order.
fn fifo_priorities(req: &DeployRequest<'_>, accepted: &Accepted) -> Result<Vec<u8>, DeployError> {
    let sys = System::new(req.tasks, req.cpus, req.priorities)
        .map_err(|e| DeployError::Invalid(e.to_string()))?;
    let ranks = sys.priority_ranks().map_err(|r| {
        DeployError::Invalid(format!("--priorities {}: {r}", req.priorities.name()))
    })?;
    let mut prio = vec![0u8; req.tasks.len()];
    for (d, cpus) in accepted.domains.iter().enumerate() {
        let mut members: Vec<usize> = (0..req.tasks.len())
            .filter(|&i| accepted.domain_of_task.get(i) == Some(&d))
            .collect();
        members.sort_by_key(|&i| ranks.get(i).copied().unwrap_or(u32::MAX));
        if members.len() > usize::from(FIFO_MAX) {
            return Err(DeployError::Limit(format!(
                "{} tasks share CPUs {}: SCHED_FIFO has {FIFO_MAX} priorities (1–{FIFO_MAX}), too few to keep the analysis's order without ties",
                members.len(),
                cpu_list(cpus)
            )));
        }
        for (pos, &i) in members.iter().enumerate() {
            // pos < 99, so FIFO_MAX - pos is 1..=99.
            prio[i] = FIFO_MAX - u8::try_from(pos).unwrap_or(FIFO_MAX - 1);
        }
    }
    Ok(prio)
}

/// The tasks as Linux runs them, the root domains (`SCHED_DEADLINE`), the header's Linux
/// sentence and admission line, and notes.
pub(crate) struct LinuxTasks {
    pub(crate) tasks: Vec<DeployedTask>,
    pub(crate) domains: Vec<RootDomain>,
    pub(crate) linux: String,
    pub(crate) admission: Option<String>,
    pub(crate) notes: Vec<String>,
}

pub(crate) fn linux_tasks(
    req: &DeployRequest<'_>,
    mapping: Mapping,
    accepted: &Accepted,
    idents: &[String],
) -> Result<LinuxTasks, DeployError> {
    let fifo = if mapping.deadline() {
        Vec::new()
    } else {
        fifo_priorities(req, accepted)?
    };
    let mut tasks = Vec::with_capacity(req.tasks.len());
    let mut notes = Vec::new();
    for (i, t) in req.tasks.iter().enumerate() {
        let d = accepted.domain_of_task.get(i).copied().unwrap_or(0);
        let cpus = accepted.domains.get(d).cloned().unwrap_or_default();
        let policy = if mapping.deadline() {
            let runtime = t
                .wcet
                .checked_add(req.dl_margin)
                .unwrap_or(Duration::MAX)
                .min(t.deadline);
            if runtime.as_ns() < DL_MIN_RUNTIME_NS {
                return Err(task_error(t, i, "wcet", format!(
                    "the SCHED_DEADLINE runtime {} (wcet + --dl-margin) is below the kernel's smallest, 1024ns",
                    runtime
                )));
            }
            if runtime < t.wcet.checked_add(req.dl_margin).unwrap_or(Duration::MAX) {
                notes.push(format!(
                    "{}: runtime capped at the deadline {} (wcet {} + margin {} is longer)",
                    idents.get(i).map_or("?", String::as_str),
                    t.deadline,
                    t.wcet,
                    req.dl_margin
                ));
            }
            LinuxPolicy::Deadline {
                runtime,
                deadline: t.deadline,
                period: t.period,
            }
        } else {
            LinuxPolicy::Fifo {
                priority: fifo.get(i).copied().unwrap_or(1),
            }
        };
        tasks.push(DeployedTask {
            index: i,
            ident: idents.get(i).cloned().unwrap_or_else(|| format!("task{i}")),
            policy,
            cpus,
            domain: mapping.deadline().then_some(d),
            wcet: t.wcet,
            period: t.period,
            deadline: t.deadline,
            offset: t.offset,
            wss: t.wss,
        });
    }
    let domains: Vec<RootDomain> = if mapping.deadline() {
        accepted
            .domains
            .iter()
            .map(|c| RootDomain { cpus: c.clone() })
            .collect()
    } else {
        Vec::new()
    };
    let admission = if mapping.deadline() {
        Some(admission(req, &tasks, &domains, &mut notes)?)
    } else {
        None
    };
    Ok(LinuxTasks {
        linux: linux_sentence(req, mapping, accepted),
        tasks,
        domains,
        admission,
        notes,
    })
}

/// The header's sentence on how the policy maps to Linux.
fn linux_sentence(req: &DeployRequest<'_>, mapping: Mapping, accepted: &Accepted) -> String {
    let all = cpu_list(&(0..req.cpus).collect::<Vec<_>>());
    let fifo = |scope: &str| {
        format!(
            "SCHED_FIFO, priorities {} ({}) {scope}: the highest → 99, the next → 98, …; ties in the key broken by task index, as the analysis does; RT throttling (sched_rt_runtime_us) left as configured",
            req.priorities.name(),
            match req.priorities.name() {
                "dm" => "deadline monotonic",
                "rm" => "rate monotonic",
                _ => "the file's `priority` fields, smaller is higher",
            }
        )
    };
    match mapping {
        Mapping::GlobalDeadline => format!(
            "SCHED_DEADLINE, one root domain of CPUs {all} (an exclusive cgroup-v1 cpuset): the kernel's global EDF (push/pull between per-CPU queues)"
        ),
        Mapping::PartitionedDeadline => "SCHED_DEADLINE, one root domain per CPU (an exclusive cgroup-v1 cpuset each, the root cpuset's sched_load_balance off): partitioned EDF".to_string(),
        Mapping::ClusteredDeadline => format!(
            "SCHED_DEADLINE, one root domain per cluster of {} CPUs (an exclusive cgroup-v1 cpuset each, the root cpuset's sched_load_balance off): clustered EDF",
            accepted.domains.first().map_or(0, Vec::len)
        ),
        Mapping::GlobalFifo => fifo(&format!("over CPUs {all}")),
        Mapping::PartitionedFifo => fifo("per CPU, each task pinned to its CPU"),
    }
}

/// The kernel's admission test per root domain; refused (unless `--force`) when a domain's
/// Σ runtime/period exceeds its CPUs × 0.95.
fn admission(
    req: &DeployRequest<'_>,
    tasks: &[DeployedTask],
    domains: &[RootDomain],
    notes: &mut Vec<String>,
) -> Result<String, DeployError> {
    let mut parts = Vec::new();
    for (d, dom) in domains.iter().enumerate() {
        let members: Vec<&DeployedTask> = tasks.iter().filter(|t| t.domain == Some(d)).collect();
        let terms = || {
            members.iter().filter_map(|t| match t.policy {
                LinuxPolicy::Deadline {
                    runtime, period, ..
                } => Some(Frac::ratio(runtime.as_ns(), period.as_ns())),
                LinuxPolicy::Fifo { .. } => None,
            })
        };
        let k = i128::try_from(dom.cpus.len()).unwrap_or(i128::MAX);
        let limit = Frac::new(RT_BANDWIDTH.0.saturating_mul(k), RT_BANDWIDTH.1);
        // A fold from +0.0: `Sum for f64` starts at −0.0, which an empty domain would print.
        let sum = terms().map(Frac::to_f64).fold(0.0, |a, b| a + b);
        let label = if dom.cpus.len() == 1 {
            format!("CPU {}", cpu_list(&dom.cpus))
        } else {
            format!("CPUs {}", cpu_list(&dom.cpus))
        };
        parts.push(format!("{label}: Σ runtime/period = {sum:.3}"));
        if cmp_sum(terms, limit) == Ordering::Greater {
            let message = format!(
                "root domain {label}: Σ runtime/period = {sum:.3} with the {} margin exceeds the kernel's default limit {:.2} ({} × sched_rt_runtime_us / sched_rt_period_us): the kernel would refuse a task (EBUSY)",
                req.dl_margin,
                limit.to_f64(),
                dom.cpus.len()
            );
            if !req.force {
                return Err(DeployError::Limit(format!(
                    "{message}; use a smaller --dl-margin, or raise the limit and export with --force"
                )));
            }
            notes.push(format!("{message} (exported with --force)"));
        }
    }
    Ok(format!(
        "{} (the kernel's limit: 0.95 per CPU of each root domain by default, sched_rt_runtime_us / sched_rt_period_us)",
        parts.join("; ")
    ))
}
