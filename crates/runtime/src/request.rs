//! One set-up of a run for every front end: the options of `schedlab run` and
//! `schedlab.run`, checked the same way and turned into a [`RunConfig`].
//!
//! The checks and decisions that used to live in the CLI only (and that Python's `run` did
//! not make): a kernel baseline takes no policy; an option belongs to the architectures that
//! take it; the policy schedules the CPUs that run jobs — all but CPU 0 when the architecture
//! reserves it (the DSP of message-passing, the interrupt CPU of GSN-EDF-DI) — so ranks and
//! the placement are computed for that many CPUs; `linux-fifo` is partitioned (placed as
//! `pfp`) when a partition heuristic is given or the file pins its tasks.
//!
//! Ranks and the placement come from the analysis crate, which this crate does not depend on
//! (DESIGN.md): [`RunRequest::plan`] says what to compute them for ([`RunPlan`]); the caller
//! computes them (`schedlab_analysis::placement::policy_inputs`) and hands them to
//! [`RunPlan::finish`]:
//!
//! ```text
//! let plan = request.plan(&tasks)?;
//! let inputs = policy_inputs(plan.placement_policy(), &tasks, plan.job_cpus(), plan.heuristic(), None, priorities, None)?;
//! let config = plan.finish(inputs.ranks, inputs.placement.map(Placement::from));
//! ```

use crate::arch::taking;
use crate::config::{Arch, RunConfig};
use schedlab_model::{Duration, GroupTree, TaskSet};

/// The policy of a user-space architecture when none is named (Python's default; the CLI
/// requires `--policy`).
pub const DEFAULT_POLICY: &str = "gedf";

/// What a front end was asked for, parsed (times and sizes already in ns and bytes).
#[derive(Clone, Debug)]
pub struct RunRequest<'a> {
    /// The physical CPUs of the run.
    pub cpus: Vec<u32>,
    /// The architecture.
    pub arch: Arch,
    /// The policy; `None`: the kernel baseline's own name, or `default_policy` for a
    /// user-space architecture (an error if that is `None` too).
    pub policy: Option<&'a str>,
    /// The policy to use when none is named (Python: [`DEFAULT_POLICY`]; the CLI: none).
    pub default_policy: Option<&'a str>,
    /// The packing heuristic for partitioned policies; `Some` also makes `linux-fifo`
    /// partitioned.
    pub partition: Option<&'a str>,
    /// Length of the run.
    pub duration: Duration,
    /// global-lock: CPU 0 takes every release and runs no job (GSN-EDF-DI).
    pub dedicated_irq_cpu: bool,
    /// linux-deadline: a root domain of the run's own CPUs.
    pub dl_cpuset: bool,
    /// linux-deadline: runtime = WCET + this margin.
    pub dl_margin: Duration,
    /// Run under SCHED_OTHER when real-time scheduling is not permitted.
    pub allow_non_rt: bool,
    /// Wake this long before each release and spin until it.
    pub release_spin: Duration,
    /// message-passing: the DSP polls its mailboxes while a client runs a job.
    pub dsp_poll: bool,
    /// message-passing: a completing job runs its client's scheduling step itself.
    pub inline_completion: bool,
    /// Size of the cache-thrashing background load per CPU, in bytes.
    pub background_load: Option<u64>,
    /// The engine aborts jobs unfinished at their deadline (`RunConfig::abort_late`).
    pub abort_late: bool,
    /// Which threads execute the jobs (`RunConfig::threading`).
    pub threading: crate::config::Threading,
}

/// A checked request: what to compute ranks and the placement for, then the configuration.
#[derive(Debug)]
pub struct RunPlan {
    config: RunConfig,
    placement_policy: String,
    heuristic: String,
    notes: Vec<String>,
}

/// The architectures that run a task file's reservation groups [HCBS §3.2]; every other one
/// ignores them (after the admission check, with a note: [`RunPlan::notes`]).
pub const GROUP_ARCHS: [&str; 2] = ["reservations", "linux-rt-groups"];

/// The policy whose ranks the group architectures take: inside a group, global fixed
/// priority (`--priorities dm|rm|given`).
const GROUP_RANKS_POLICY: &str = "gfp";

/// Default packing heuristic (as `schedlab simulate`).
const DEFAULT_HEURISTIC: &str = "ffd";

/// The architectures whose dispatchers offer engine budgets (`crate::state`, "Budgets"):
/// `semi-partitioned` (RTPS's own, per-CPU) and `global-lock` (one lock for all CPUs) — and
/// `reservations`, which runs only `hcbs` ([`GROUP_POLICY`]). `partitioned` runs `pedf`/`pfp`
/// only, `message-passing` has no budget timers yet, the kernel baselines take no policy.
pub const BUDGET_ARCHS: [&str; 2] = ["semi-partitioned", "global-lock"];

/// The policy of reservation groups in user space and the one architecture that runs it
/// (nothing else).
pub const GROUP_POLICY: (&str, &str) = ("hcbs", "reservations");

impl RunRequest<'_> {
    /// Checks the request against the architecture and the task set; the messages name the
    /// CLI's options (`--policy`, `--dedicated-irq-cpu`, …), which are Python's keywords
    /// with `-` for `_`.
    pub fn plan(&self, tasks: &TaskSet) -> Result<RunPlan, String> {
        let arch = self.arch;
        // First: a set failing admission is refused whatever else is asked.
        let m = u32::try_from(self.cpus.len()).unwrap_or(u32::MAX);
        let groups = admitted_groups(tasks, m)?;
        let policy = match (self.policy, arch.is_kernel()) {
            (Some(p), false) => p.to_string(),
            (None, false) => match crate::arch::own_policy(arch.name()).or(self.default_policy) {
                Some(p) => p.to_string(),
                None => return Err(format!("--policy is required with --arch {}", arch.name())),
            },
            (Some(p), true) => {
                return Err(format!(
                "--policy `{p}` does not apply to the kernel baseline {} (the kernel schedules)",
                arch.name()
            ))
            }
            (None, true) => arch.name().to_string(),
        };
        let (group_policy, group_arch) = GROUP_POLICY;
        match (policy == group_policy, arch.name() == group_arch) {
            (true, false) => {
                return Err(format!(
                    "policy `{group_policy}` runs under --arch {group_arch} (its servers' budget timers and the task file's groups), not --arch {}",
                    arch.name()
                ))
            }
            (false, true) => {
                return Err(format!(
                    "--arch {group_arch} runs policy `{group_policy}` (H-CBS servers), not `{policy}`"
                ))
            }
            (true, true) => {}
            (false, false) => {
                if schedlab_policy::needs_engine_budgets(&policy)
                    && !BUDGET_ARCHS.contains(&arch.name())
                {
                    return Err(format!(
                        "policy `{policy}` needs execution budgets from the engine (its split tasks move to their next CPU when a part's budget runs out), which --arch {} does not offer; run it under --arch {}",
                        arch.name(),
                        BUDGET_ARCHS.join(" or ")
                    ));
                }
            }
        }
        let per_job = self.threading == crate::config::Threading::PerJob;
        for (option, on, shown) in [
            (
                "dedicated-irq-cpu",
                self.dedicated_irq_cpu,
                "--dedicated-irq-cpu",
            ),
            ("dl-cpuset", self.dl_cpuset, "--dl-cpuset"),
            ("threading", per_job, "--threading per-job"),
        ] {
            if on && !arch.takes(option) {
                return Err(format!(
                    "{shown} applies to --arch {} only",
                    taking(option).join(", ")
                ));
            }
        }
        let mut config =
            RunConfig::new(self.cpus.clone(), arch, &policy, tasks.len(), self.duration);
        config.dedicated_irq_cpu = self.dedicated_irq_cpu;
        if config.job_cpus().is_empty() {
            return Err(format!(
                "--arch {} needs at least 2 CPUs (CPU 0 schedules, the others run jobs)",
                arch.name()
            ));
        }
        config.allow_non_rt = self.allow_non_rt;
        config.release_spin = self.release_spin;
        config.dsp_poll = self.dsp_poll;
        config.dl_cpuset = self.dl_cpuset;
        config.inline_completion = self.inline_completion;
        config.dl_margin = self.dl_margin;
        config.background_load = self.background_load;
        config.abort_late = self.abort_late;
        config.threading = self.threading;
        config.resources = tasks.resources().to_vec();
        let pinned = tasks.iter().any(|t| t.cpu.is_some());
        let runs_groups = GROUP_ARCHS.contains(&arch.name());
        let placement_policy = match arch.def().partitioned_with {
            _ if runs_groups => GROUP_RANKS_POLICY.to_string(),
            Some(p) if self.partition.is_some() || pinned => p.to_string(),
            _ => policy,
        };
        let mut notes = Vec::new();
        if let Some(tree) = groups {
            if runs_groups {
                config.groups = Some(std::sync::Arc::new(tree));
            } else {
                notes.push(format!(
                    "groups are ignored by --arch {}; use --arch {}",
                    arch.name(),
                    GROUP_ARCHS.join(" or ")
                ));
            }
        }
        Ok(RunPlan {
            config,
            placement_policy,
            heuristic: self.partition.unwrap_or(DEFAULT_HEURISTIC).to_string(),
            notes,
        })
    }
}

/// The set's reservation groups resolved for the run's `m` CPUs, if it has any; an error for
/// a group CPU the run does not have, or a set failing admission (Σ Q/P > 1 on a CPU, or
/// subgroups above their parent [HCBS Eq. 17]) — every architecture refuses such a set.
fn admitted_groups(tasks: &TaskSet, m: u32) -> Result<Option<GroupTree>, String> {
    if tasks.groups().is_empty() {
        return Ok(None);
    }
    let tree = GroupTree::new(tasks, m).map_err(|e| e.to_string())?;
    tree.check_admission().map_err(|e| e.to_string())?;
    Ok(Some(tree))
}

impl RunPlan {
    /// The policy whose ranks and placement the run needs (`pfp` for a partitioned
    /// `linux-fifo`, else the run's policy).
    pub fn placement_policy(&self) -> &str {
        &self.placement_policy
    }

    /// The number of CPUs the policy schedules (those that run jobs).
    pub fn job_cpus(&self) -> u32 {
        self.config.job_cpus().len() as u32
    }

    /// The packing heuristic.
    pub fn heuristic(&self) -> &str {
        &self.heuristic
    }

    /// The run's policy.
    pub fn policy(&self) -> &str {
        &self.config.policy
    }

    /// What the front end should tell the user on standard error before the run (one line
    /// each, `note: …`): reservation groups that the architecture ignores.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The configuration, with the ranks and the placement computed for
    /// [`placement_policy`](Self::placement_policy) on [`job_cpus`](Self::job_cpus) CPUs.
    pub fn finish(
        mut self,
        ranks: Vec<u32>,
        placement: Option<schedlab_policy::Placement>,
    ) -> RunConfig {
        self.config.ranks = ranks;
        self.config.placement = placement;
        self.config
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use schedlab_model::Task;

    /// A policy that needs engine budgets (`pfp-ts`) is refused under an architecture
    /// without them, saying where it runs; it is planned under those with them.
    #[test]
    fn policies_needing_budgets_run_where_budgets_are() {
        let ms = |x| Duration::from_ms(x).unwrap();
        let tasks = TaskSet::new(vec![Task::implicit(ms(1), ms(10)).unwrap()]).unwrap();
        let request = RunRequest {
            cpus: vec![0, 1],
            arch: Arch::named("partitioned", "ticket").unwrap(),
            policy: Some("pfp-ts"),
            default_policy: None,
            partition: None,
            duration: ms(100),
            dedicated_irq_cpu: false,
            dl_cpuset: false,
            dl_margin: Duration::ZERO,
            allow_non_rt: true,
            release_spin: Duration::ZERO,
            dsp_poll: true,
            inline_completion: true,
            background_load: None,
            abort_late: false,
            threading: Default::default(),
        };
        let e = request.clone().plan(&tasks).unwrap_err();
        assert!(
            e.starts_with("policy `pfp-ts` needs execution budgets from the engine")
                && e.ends_with("which --arch partitioned does not offer; run it under --arch semi-partitioned or global-lock"),
            "{e}"
        );
        let pfp = RunRequest {
            policy: Some("pfp"),
            ..request.clone()
        };
        assert!(pfp.plan(&tasks).is_ok());
        for arch in BUDGET_ARCHS {
            let r = RunRequest {
                arch: Arch::named(arch, "ticket").unwrap(),
                ..request.clone()
            };
            let plan = r.plan(&tasks).unwrap();
            assert_eq!(
                (plan.policy(), plan.placement_policy()),
                ("pfp-ts", "pfp-ts")
            );
        }
        let mp = RunRequest {
            arch: Arch::named("message-passing", "ticket").unwrap(),
            ..request
        };
        assert!(mp
            .plan(&tasks)
            .unwrap_err()
            .contains("--arch message-passing does not offer"));
    }

    /// Thread-per-job is a user-space architecture's choice: planned there, refused for the
    /// kernel baselines (their tasks are their own threads) with the architectures that take
    /// it.
    #[test]
    fn per_job_threading_is_planned_for_user_space_architectures_only() {
        let ms = |x| Duration::from_ms(x).unwrap();
        let tasks = TaskSet::new(vec![Task::implicit(ms(1), ms(10)).unwrap()]).unwrap();
        let request = |arch: &str, policy: Option<&'static str>| RunRequest {
            cpus: vec![0, 1],
            arch: Arch::named(arch, "ticket").unwrap(),
            policy,
            default_policy: None,
            partition: None,
            duration: ms(100),
            dedicated_irq_cpu: false,
            dl_cpuset: false,
            dl_margin: Duration::ZERO,
            allow_non_rt: true,
            release_spin: Duration::ZERO,
            dsp_poll: true,
            inline_completion: true,
            background_load: None,
            abort_late: false,
            threading: crate::config::Threading::PerJob,
        };
        let plan = request("global-lock", Some("gedf")).plan(&tasks).unwrap();
        assert_eq!(plan.config.threading, crate::config::Threading::PerJob);
        for kernel in ["linux-fifo", "linux-deadline"] {
            let e = request(kernel, None).plan(&tasks).unwrap_err();
            assert!(
                e.starts_with("--threading per-job applies to --arch ")
                    && e.contains("global-lock")
                    && !e.contains("linux-"),
                "{e}"
            );
        }
    }

    /// Two groups on 2 CPUs: `a` 3/10 and `b` (`b_budget`)/10 ms, one task in each.
    fn grouped(b_budget: u64, b_cpus: Option<Vec<u32>>) -> TaskSet {
        use schedlab_model::ReservationGroup;
        let ms = |x| Duration::from_ms(x).unwrap();
        let mut t0 = Task::implicit(ms(1), ms(10)).unwrap();
        t0.group = Some("a".into());
        let mut t1 = Task::implicit(ms(1), ms(20)).unwrap();
        t1.group = Some("b".into());
        let a = ReservationGroup::new("a", ms(3), ms(10));
        let mut b = ReservationGroup::new("b", ms(b_budget), ms(10));
        b.cpus = b_cpus;
        TaskSet::with_groups(vec![t0, t1], Vec::new(), vec![a, b]).unwrap()
    }

    fn request_for(arch: &str) -> RunRequest<'static> {
        RunRequest {
            cpus: vec![0, 1],
            arch: Arch::named(arch, "ticket").unwrap(),
            policy: (!Arch::named(arch, "ticket").unwrap().is_kernel()).then_some("gfp"),
            default_policy: None,
            partition: None,
            duration: Duration::from_ms(100).unwrap(),
            dedicated_irq_cpu: false,
            dl_cpuset: false,
            dl_margin: Duration::ZERO,
            allow_non_rt: true,
            release_spin: Duration::ZERO,
            dsp_poll: true,
            inline_completion: true,
            background_load: None,
            abort_late: false,
            threading: Default::default(),
        }
    }

    /// Admission [HCBS Eq. 17] is checked for every architecture: 3/10 + 8/10 > 1 on both
    /// CPUs is refused, naming the CPU and the rule; so is a group CPU the run lacks.
    #[test]
    fn every_architecture_refuses_groups_failing_admission() {
        let over = grouped(8, None);
        let beyond = grouped(2, Some(vec![2]));
        for arch in crate::arch::names() {
            let e = request_for(arch).plan(&over).unwrap_err();
            assert!(
                e.contains("CPU 0") && e.contains("[HCBS Eq. 17]"),
                "{arch}: {e}"
            );
            let e = request_for(arch).plan(&beyond).unwrap_err();
            assert!(
                e.contains("group `b`") && e.contains("CPU 2 does not exist"),
                "{arch}: {e}"
            );
        }
    }

    /// An admitted set: `linux-rt-groups` gets the resolved groups and G-FP ranks; every other
    /// architecture runs without them and says so once.
    #[test]
    fn groups_go_to_the_group_architectures_and_are_noted_elsewhere() {
        let ok = grouped(7, None);
        let plan = request_for("linux-rt-groups").plan(&ok).unwrap();
        assert!(plan.notes().is_empty());
        assert_eq!(plan.placement_policy(), "gfp");
        let config = plan.finish(vec![0, 1], None);
        let tree = config.groups.unwrap();
        assert_eq!(tree.groups().len(), 2);
        assert_eq!(tree.group_of_task(1), Some(1));
        for arch in ["linux-deadline", "linux-fifo", "global-lock"] {
            let plan = request_for(arch).plan(&ok).unwrap();
            assert_eq!(
                plan.notes(),
                [format!(
                    "groups are ignored by --arch {arch}; use --arch reservations or linux-rt-groups"
                )]
            );
            assert!(plan.finish(vec![0, 1], None).groups.is_none());
        }
        // A set without groups: no note anywhere.
        let ms = |x| Duration::from_ms(x).unwrap();
        let plain = TaskSet::new(vec![Task::implicit(ms(1), ms(10)).unwrap()]).unwrap();
        assert!(request_for("linux-fifo")
            .plan(&plain)
            .unwrap()
            .notes()
            .is_empty());
    }

    /// `reservations` runs `hcbs` (its default) with the resolved groups and G-FP ranks;
    /// `hcbs` elsewhere and another policy under `reservations` are refused, naming where
    /// each runs.
    #[test]
    fn hcbs_runs_under_reservations_only() {
        let ok = grouped(7, None);
        let r = RunRequest {
            policy: None,
            ..request_for("reservations")
        };
        let plan = r.plan(&ok).unwrap();
        assert_eq!((plan.policy(), plan.placement_policy()), ("hcbs", "gfp"));
        assert!(plan.notes().is_empty());
        assert_eq!(
            plan.finish(vec![0, 1], None).groups.unwrap().groups().len(),
            2
        );
        let e = request_for("reservations").plan(&ok).unwrap_err();
        assert_eq!(
            e,
            "--arch reservations runs policy `hcbs` (H-CBS servers), not `gfp`"
        );
        let hcbs = RunRequest {
            policy: Some("hcbs"),
            ..request_for("global-lock")
        };
        let e = hcbs.plan(&ok).unwrap_err();
        assert!(
            e.starts_with("policy `hcbs` runs under --arch reservations")
                && e.ends_with("not --arch global-lock"),
            "{e}"
        );
    }
}
