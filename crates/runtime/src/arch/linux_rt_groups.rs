//! `linux-rt-groups`: kernel baseline for reservation groups [HCBS §1–2] — the workload under
//! SCHED_FIFO (priorities from the ranks, as `linux-fifo`), each task's thread in a cgroup of
//! its group whose RT bandwidth is the group's `(Q, P)`: Linux's RT group scheduling
//! (RT throttling per cgroup, CONFIG_RT_GROUP_SCHED, cgroup v1), the mechanism [HCBS] turns
//! into a hierarchical scheduler with an analysis. What Linux does differs from H-CBS
//! (plan: `--arch reservations` and the simulator's `hcbs`):
//! - a group's runtime is **per CPU, on every CPU** of the machine: siblings' Σ Q/P is checked
//!   against the parent's whatever the groups' `cpus` (the kernel refuses what the H-CBS
//!   admission per CPU [HCBS Eq. 17] would accept when groups on different CPUs together exceed
//!   the parent); the threads' affinity confines them to their group's CPUs;
//! - groups compete by the **priority of their highest ready thread** (the group entity sits in
//!   its parent's FIFO run queue at that priority), not by the servers' deadlines (EDF); a
//!   group's throttling is a hard budget with a replenishment every period, like a hard CBS
//!   with a fixed replenishment grid [HCBS §3.2];
//! - runtime is charged at scheduler ticks and scheduling events (HZ = 250 here: 4 ms), so a
//!   group may overrun Q within a period by up to a tick; the excess is carried as debt into
//!   the next periods (`rt_time` is reduced by at most Q per period);
//! - with the scheduler feature `RT_RUNTIME_SHARE` on (off by default since Linux 5.10) a CPU
//!   whose group ran out borrows runtime of the same group on other CPUs; the JSON field
//!   `rt_runtime_share` reports the state (`null`: unknown, debugfs not mounted) and the run
//!   warns when it is on.
//!
//! # Protocol
//!
//! State and owners:
//! - each task's thread (`kernel::TaskThread`) owns its trace buffer and records and releases
//!   its own jobs (`kernel`); no shared scheduling state in user space;
//! - the run's cgroup tree ([`RtCgroups`], `crate::mech::rt_cgroup`): `schedlab-<pid>` under
//!   the root of the `cpu` hierarchy, one directory per group mirroring the `parent`
//!   hierarchy, created and configured (period, then runtime; parents before children) in
//!   `prepare`, before anything runs real-time; trees left by killed runs are removed first;
//!   each thread joins its group in its setup; undone when the run's state is dropped (also
//!   on errors and SIGINT/SIGTERM): threads back to the root cgroup, directories removed
//!   children first.
//!
//! Dispatch, by the kernel's real-time scheduler: thread i is SCHED_FIFO at `98 − rank_i`,
//! its affinity its group's CPUs (logical CPUs of the run, as the group's `cpus`).
//! 1. A thread wakes at its release (an absolute futex wait).
//! 2. The kernel picks, per CPU, the highest-priority runnable entity: a group not throttled
//!    there, recursively down to a thread.
//! 3. It burns its WCET (or runs its custom body: an overrunning body is how a misbehaving
//!    task is modelled) and records.
//! 4. It sleeps until its next release. A group that used its runtime on a CPU is throttled
//!    there until its period timer refills it.
//!
//! Every task must be in a group (an error naming the first that is not): a task outside
//! every group would run in the root cgroup, outside any reservation, which is not the
//! baseline. Parallel tasks run as `linux-fifo` runs them, every slot thread in the task's
//! group.

use crate::arch::kernel::{self, TaskThread};
use crate::arch::{Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::config::RunConfig;
use crate::error::RuntimeError;
use crate::mech::rt_cgroup::{self, GroupSpec, RtCgroups, SetupError};
use crate::mech::{sched, MechError};
use crate::state::Threads;
use schedlab_model::{Duration, GroupTree};
use serde_json::{json, Value};

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "linux-rt-groups",
    summary: "kernel baseline for reservation groups: SCHED_FIFO threads (RM/DM priorities) in one cgroup per group with cpu.rt_runtime_us = Q, cpu.rt_period_us = P (cgroup v1), on the group's CPUs",
    kernel: true,
    parallel: true,
    options: &[],
    partitioned_with: None,
    rt_load: RtLoad::Global,
    global_invariant: false,
    reserves_cpu0: |_| false,
    fields,
    note: |c| {
        let n = c.groups.as_ref().map_or(0, |g| g.groups().len());
        format!(" ({n} RT groups)")
    },
    run: crate::run::run_with::<LinuxRtGroups>,
};

/// Shortest group period accepted (µs). The kernel takes 1 µs, but each period is a timer
/// that refills the group on every CPU, and sched-rt-group.rst warns that periods below the
/// timer resolution or the refill's own cost make the system unstable.
pub const MIN_PERIOD_US: u64 = 100;

/// Largest runtime and period (ns): the kernel's bound on a group's runtime (`MAX_BW`,
/// 2^44 − 1 ns, about 4.9 h), applied to the period too.
pub const MAX_TIME_NS: u64 = (1 << 44) - 1;

/// What the task threads share: the cgroup tree, and which cgroup each task joins.
pub(crate) struct LinuxRtGroups {
    /// The run's cgroups; dropped (undone) with the run's state.
    cgroups: RtCgroups,
    /// Each task's cgroup, as an index of the cgroups' list (`specs`).
    cgroup_of_task: Vec<usize>,
}

/// Its JSON fields: `rt_groups` (per group: name, cgroup directory below the `cpu`
/// hierarchy's root, `rt_period_us`, `rt_runtime_us`, logical `cpus`) and `rt_runtime_share`
/// (the kernel feature's state; `null`: unknown).
fn fields(c: &RunConfig) -> Vec<(&'static str, Value)> {
    let groups: Vec<Value> = c.groups.as_ref().map_or_else(Vec::new, |tree| {
        let dirs = directories(tree);
        tree.groups()
            .iter()
            .zip(dirs)
            .map(|(g, dir)| {
                json!({
                    "name": g.name,
                    "cgroup": dir,
                    "rt_period_us": g.period.as_ns() / 1000,
                    "rt_runtime_us": g.budget.as_ns() / 1000,
                    "cpus": g.cpus,
                })
            })
            .collect()
    });
    vec![
        ("rt_groups", Value::from(groups)),
        ("rt_runtime_share", json!(rt_cgroup::runtime_share())),
    ]
}

/// Each group's cgroup directory relative to the hierarchy's root
/// (`schedlab-<pid>/g0-a/g2-b`), by group index.
fn directories(tree: &GroupTree) -> Vec<String> {
    let mut dirs = vec![String::new(); tree.groups().len()];
    for &g in tree.top_down() {
        let grp = &tree.groups()[g as usize];
        let parent = match grp.parent {
            Some(p) => dirs[p as usize].clone(),
            None => format!("{}{}", rt_cgroup::PREFIX, std::process::id()),
        };
        dirs[g as usize] = format!("{parent}/{}", rt_cgroup::dir_name(g as usize, &grp.name));
    }
    dirs
}

/// `t` (a group's `what`) in whole µs; an error naming the group when it is not whole µs
/// (the cgroup files take µs) or beyond [`MAX_TIME_NS`].
fn whole_us(group: &str, what: &str, t: Duration) -> Result<u64, RuntimeError> {
    let ns = t.as_ns();
    let bad = |why: String| {
        RuntimeError::invalid("groups", format!("group `{group}`: {what} {t} {why}"))
    };
    if ns % 1000 != 0 {
        return Err(bad(
            "is not a whole number of µs (cpu.rt_runtime_us and cpu.rt_period_us take µs)".into(),
        ));
    }
    if ns > MAX_TIME_NS {
        return Err(bad(format!(
            "is above the kernel's limit of {} (2^44 − 1 ns)",
            Duration::from_ns(MAX_TIME_NS)
        )));
    }
    Ok(ns / 1000)
}

/// The cgroup of each of `tree`'s groups, parents before children (the tree's top-down
/// order), with each group's position in that list (by group index): whole µs, a period of
/// at least [`MIN_PERIOD_US`], errors naming the group.
fn specs(tree: &GroupTree) -> Result<(Vec<GroupSpec>, Vec<usize>), RuntimeError> {
    let order = tree.top_down();
    let mut pos = vec![0usize; tree.groups().len()];
    for (k, &g) in order.iter().enumerate() {
        pos[g as usize] = k;
    }
    let mut out = Vec::with_capacity(order.len());
    for &i in order {
        let g = &tree.groups()[i as usize];
        let period_us = whole_us(&g.name, "period", g.period)?;
        let runtime_us = whole_us(&g.name, "budget", g.budget)?;
        if period_us < MIN_PERIOD_US {
            return Err(RuntimeError::invalid(
                "groups",
                format!(
                    "group `{}`: period {} is below {MIN_PERIOD_US} µs, the shortest RT group period linux-rt-groups accepts (the period timer refills the group on every CPU; sched-rt-group.rst warns against periods near the timer resolution)",
                    g.name, g.period
                ),
            ));
        }
        out.push(GroupSpec {
            dir: rt_cgroup::dir_name(i as usize, &g.name),
            parent: g.parent.map(|p| pos[p as usize]),
            period_us,
            runtime_us,
        });
    }
    Ok((out, pos))
}

impl Architecture for LinuxRtGroups {
    type Worker = TaskThread;
    const WATCHDOG_PRIORITY: u8 = kernel::PRIO_WATCHDOG;
    const WORKER: &'static str = "job thread";
    const NOT_REAL_TIME: &'static str = "linux-rt-groups not permitted: ran under SCHED_OTHER (--allow-non-rt); RT group bandwidth applies to real-time threads only, this is not the kernel baseline";

    fn prepare(run: &Run<'_>, warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        kernel::check_parallel(run)?;
        let Some(tree) = run.config.groups.as_deref().filter(|t| !t.is_empty()) else {
            return Err(RuntimeError::invalid(
                "groups",
                "linux-rt-groups runs the task file's reservation groups, and this set has none (give the file `groups = [{name, budget, period}]` and each task a `group`, or run --arch linux-fifo)",
            ));
        };
        let mut group_of_task = Vec::with_capacity(run.n());
        for i in 0..run.n() {
            let g = tree
                .group_of_task(i)
                .ok_or_else(|| RuntimeError::InvalidTask {
                    task: i,
                    field: "group",
                    message: "is missing: under linux-rt-groups every task runs in a reservation group (its cgroup's RT bandwidth); a task outside them would run unreserved in the root cgroup".into(),
                })?;
            group_of_task.push(g as usize);
        }
        let (specs, pos) = specs(tree)?;
        let classes = kernel::fifo_classes(run, DEF.name)?;
        let cpus = &run.config.cpus;
        let affinities = group_of_task
            .iter()
            .map(|&g| {
                tree.groups()[g]
                    .cpus
                    .iter()
                    .filter_map(|&c| cpus.get(c as usize).copied())
                    .collect()
            })
            .collect();
        load_warnings(run, tree, warnings);
        let cgroups = RtCgroups::create(&specs).map_err(|e| explain(tree, e))?;
        warnings.extend(cgroups.repaired.iter().cloned());
        if rt_cgroup::runtime_share() == Some(true) {
            warnings.push("the scheduler feature RT_RUNTIME_SHARE is on: a group that used its runtime on one CPU borrows its unused runtime on other CPUs, so a group may get more than Q per period on a CPU (echo NO_RT_RUNTIME_SHARE > /sys/kernel/debug/sched/features turns it off)".into());
        }
        Ok(Setup {
            arch: LinuxRtGroups {
                cgroups,
                cgroup_of_task: group_of_task.iter().map(|&g| pos[g]).collect(),
            },
            workers: kernel::task_threads_on(run, classes, affinities),
            jobs: Jobs::None,
        })
    }

    fn thread_name(w: &TaskThread) -> String {
        kernel::thread_name(w)
    }

    fn set_up(&self, w: &TaskThread, cx: &Cx<'_>) -> Result<(), String> {
        // Into the group first: a SCHED_OTHER thread may join any group; the kernel then
        // admits FIFO there (the group has runtime).
        let group = self.cgroup_of_task.get(w.task as usize).copied().unwrap_or(0);
        self.cgroups
            .attach(group, sched::gettid())
            .map_err(|e| format!("{}: join its RT group's cgroup: {e}", kernel::who(w)))?;
        kernel::set_up(w, cx).map_err(|e| format!("{}: {e}", kernel::who(w)))
    }

    fn work(&self, w: TaskThread, cx: &Cx<'_>) -> TaskThread {
        kernel::work(w, cx)
    }

    fn drain(&self, workers: Vec<TaskThread>, _th: &Threads<'_>, h: &mut Harvest) {
        kernel::drain(workers, h);
    }
}

/// A warning per group whose tasks' declared load Σ C/T exceeds what its reservation gives on
/// its CPUs (Q/P per CPU): its tasks will be throttled and miss even without overruns.
fn load_warnings(run: &Run<'_>, tree: &GroupTree, warnings: &mut Vec<String>) {
    for g in tree.groups() {
        let load: f64 = g
            .tasks
            .iter()
            .filter_map(|&t| run.tasks.get(t as usize))
            .map(|t| t.wcet.as_ns() as f64 / t.period.as_ns().max(1) as f64)
            .sum();
        let supply = g.bandwidth().to_f64() * g.cpus.len() as f64;
        if load > supply {
            warnings.push(format!(
                "group `{}`: its tasks need Σ C/T = {load:.3}, more than its reservation gives ({}/{} on {} CPUs = {supply:.3}): the kernel will throttle them and they will miss deadlines",
                g.name,
                g.budget,
                g.period,
                g.cpus.len()
            ));
        }
    }
}

/// A refused cgroup set-up as an error naming the group and the kernel's rule.
fn explain(tree: &GroupTree, e: SetupError) -> RuntimeError {
    let order = tree.top_down();
    let (group, file, value, error, share) = match e {
        SetupError::Mech(m) => return RuntimeError::Mech(m),
        SetupError::Refused {
            group,
            file,
            value,
            error,
            share,
        } => (group, file, value, error, share),
    };
    let Some(g) = group.and_then(|k| order.get(k)).map(|&g| g as usize) else {
        return RuntimeError::invalid(
            "groups",
            format!(
                "the run's own cgroup could not get cpu.rt_runtime_us = {value}, what the root's RT bandwidth has left after its other cgroups (another linux-rt-groups run holding it? see the directories of the cpu hierarchy's root): {error}"
            ),
        );
    };
    let grp = &tree.groups()[g];
    let einval = matches!(&error, MechError::Os { errno, .. } if *errno == libc::EINVAL);
    if !(einval && file == "cpu.rt_runtime_us") {
        return RuntimeError::invalid(
            "groups",
            format!("group `{}`: writing {value} to {file}: {error}", grp.name),
        );
    }
    let siblings: Vec<&schedlab_model::ResolvedGroup> = tree
        .groups()
        .iter()
        .filter(|s| s.parent == grp.parent)
        .collect();
    let sum: f64 = siblings.iter().map(|s| s.bandwidth().to_f64()).sum();
    let names: Vec<String> = siblings.iter().map(|s| format!("`{}`", s.name)).collect();
    let parent = match grp.parent {
        Some(p) => {
            let p = &tree.groups()[p as usize];
            format!("its parent `{}` has {:.3}", p.name, p.bandwidth().to_f64())
        }
        None => {
            let free = share.map_or_else(
                || "unknown".to_string(),
                |s| match s.runtime_us {
                    Some(r) => format!("{:.3}", r as f64 / s.period_us as f64),
                    None => "unlimited".into(),
                },
            );
            format!(
                "the run's share of the machine has {free} (the root's sched_rt_runtime_us / sched_rt_period_us minus the RT bandwidth of other cgroups)"
            )
        }
    };
    RuntimeError::invalid(
        "groups",
        format!(
            "group `{}`: the kernel refused cpu.rt_runtime_us = {value} (EINVAL): Linux requires the sibling groups' Σ Q/P ≤ their parent's, counted on every CPU whatever the groups' `cpus`; {} need Σ Q/P = {sum:.3}, and {parent}",
            grp.name,
            names.join(", ")
        ),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn group_times_must_be_whole_microseconds_within_the_kernel_limit() {
        let d = Duration::from_ns;
        assert_eq!(whole_us("a", "budget", d(3_000_000)).unwrap(), 3000);
        let e = whole_us("audio", "budget", d(1_500)).unwrap_err().to_string();
        assert!(
            e.starts_with("groups: group `audio`: budget 1.5us is not a whole number of µs"),
            "{e}"
        );
        let above = (MAX_TIME_NS / 1000 + 1) * 1000;
        let e = whole_us("b", "period", d(above)).unwrap_err().to_string();
        assert!(e.contains("group `b`: period") && e.contains("kernel's limit"), "{e}");
    }
}
