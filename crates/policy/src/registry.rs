//! The policies by name.
//!
//! | name | policy | placement |
//! |---|---|---|
//! | `gedf` | G-EDF [ChronOS §6.4] | ignored |
//! | `gnpedf` | G-NP-EDF [ChronOS §6.5] | ignored |
//! | `gfp` | G-FP by [`PolicyTask::rank`] (G-RMS/G-DM, [ChronOS §6.3]) | ignored |
//! | `gfifo` | G-FIFO [ChronOS §6.2] | ignored |
//! | `edzl` | EDZL (Cho, Ravindran, Jensen 2002), [`crate::edzl`] | ignored |
//! | `pedf` | P-EDF [ChronOS §6.12]: G-EDF in domains of 1 CPU | required, `domain_size = 1` |
//! | `pfp` | P-FP (P-RMS/P-DM) [ChronOS §6.11]: G-FP in domains of 1 CPU | required, `domain_size = 1` |
//! | `cedf` | C-EDF [ChronOS §6.16]: G-EDF in clusters | required, `domain_size` = cluster size |
//! | `gmua` | gMUA [ChronOS §6.8, Alg. 2] (Cho, Ravindran, Jensen 2010), [`crate::gua`] | ignored |
//! | `nggua` | NG-GUA [ChronOS §6.9] (Garyali 2010): gMUA with dependency chains, [`crate::gua`] | ignored |
//! | `ggua` | G-GUA [ChronOS §6.10, Alg. 3] (Garyali 2010), [`crate::gua`] | ignored |
//! | `rtws` | RTWS [RTWS §V, rules A–F]: G-EDF for jobs plus priority work stealing for the threads of parallel jobs ([`crate::rtws`]) | ignored |
//! | `sd` | a model of Linux SCHED_DEADLINE's global EDF: per-CPU run queues, wake-up on the previous CPU, push and pull (the "SD" baseline of [RTWS §VI], [`crate::sd`]) | ignored |
//! | `pfp-ts` | FP-TS [RTPS §III, §IV]: per-CPU FP by rank, split tasks migrate part by part at budget exhaustion ([`crate::fpts`]) | required, `domain_size = 1`, with [`Placement::split`] |
//! | `ghvdf` | G-HVDF [ChronOS §6.6] ([`crate::ua::ghvdf`]) | ignored |
//! | `gnphvdf` | G-NP-HVDF [ChronOS §6.7] ([`crate::ua::gnphvdf`]) | ignored |
//! | `phvdf` | P-HVDF [ChronOS §6.13] ([`crate::ua::phvdf`]) | required, `domain_size = 1` |
//! | `plbesa` | P-LBESA [ChronOS §6.14, Alg. 4; Locke 1986] ([`crate::ua::lbesa`]; maximum allowable overload 0) | required, `domain_size = 1` |
//! | `pdasa` | P-DASA [ChronOS §6.15, Alg. 5; Clark 1990], DASA-ND without resources ([`crate::ua::dasa`]) | required, `domain_size = 1` |
//! | `hcbs` | H-CBS reservations [HCBS §3.2]: per (group, CPU) a hard CBS server, EDF among the servers on each CPU, global FP by rank inside each group, subgroups recursively ([`crate::hcbs`]) | the reservation groups ([`Placement::groups`], [`Placement::reservations`]); every task in a group |
//! | `federated` | federated scheduling [Li et al., ECRTS 2014, §3]: each heavy task greedy on its dedicated CPUs, light tasks by partitioned EDF ([`crate::federated`]) | required, domains of different sizes ([`Placement::domain_sizes`]) |
//!
//! Only `pfp-ts` runs split tasks: every other policy refuses a placement that splits one.
//! `pfp-ts` and `hcbs` (its servers' budgets) rely on the engines' budgets ([`crate::Decisions::budget`]):
//! [`needs_engine_budgets`] says so, for an engine that does not offer them yet.
//!
//! **Parallel (fork-join) tasks** [RTWS §III] ([`parallel_support`], [`PARALLEL`]): `rtws`
//! schedules their threads natively; the global JLFP policies `gedf`, `gnpedf`, `gfp`,
//! `gfifo`, EDZL (`edzl`: per-thread laxity from the thread's own time) and the domain
//! policies `pedf`, `pfp`, `cedf` (every thread of a task in its task's domain) run them as
//! threads as jobs (the default [`crate::Policy::on_fork`]: each thread released when its
//! region starts, with the job's deadline), and so does `sd` (its own `on_fork` also
//! records each thread's slot, the OS thread that runs it). They keep per-job state only (the ready queues and
//! [`crate::table`]'s per-task lists hold one entry per strand; the per-task "last CPU" of the
//! global engine is a placement preference, not an assumption). The others refuse them:
//! `pfp-ts` (budgets per job of a split task), the utility-accrual policies (their value
//! densities, abort decisions and feasibility lists are per job of a task, assuming one job
//! per task at a time), and `hcbs` (its servers charge one job per task and CPU).
//! `federated` ([`crate::federated`]) takes them natively too: a heavy task's threads run in
//! parallel on its dedicated CPUs, a light task's as jobs on its CPU.

use crate::domains::Domains;
use crate::edzl::Edzl;
use crate::error::PolicyError;
use crate::federated::Federated;
use crate::fpts::FpTs;
use crate::global::GlobalJlfp;
use crate::gua::{Gua, Variant as GuaVariant};
use crate::hcbs::Hcbs;
use crate::policy::{ParallelSupport, Policy};
use crate::rtws::Rtws;
use crate::sd::Sd;
use crate::task::{Placement, PolicyTask};
use crate::ua::dasa::Dasa;
use crate::ua::ghvdf::GHvdf;
use crate::ua::gnphvdf::GNpHvdf;
use crate::ua::lbesa::Lbesa;
use crate::ua::phvdf::Hvdf;
use crate::ua::uni::Uni;
use schedlab_model::Duration;
use std::sync::Arc;

/// The canonical policy names [`build`] knows.
// By family, several per line (rustfmt would list one per line: `"federated"` is longer than
// its short-element threshold).
#[rustfmt::skip]
pub const NAMES: &[&str] = &[
    "gedf", "gnpedf", "gfp", "gfifo", "edzl", "pedf", "pfp", "cedf", "pfp-ts",
    // Utility accrual, per CPU and global without feasibility lists [ChronOS §6.6, §6.7, §6.13–6.15].
    "ghvdf", "gnphvdf", "phvdf", "plbesa", "pdasa",
    // The global utility-accrual schedulers with feasibility lists: [ChronOS §6.8–6.10].
    "gmua", "nggua", "ggua",
    // Parallel fork-join tasks: G-EDF + priority work stealing [RTWS §V].
    "rtws",
    // Linux SCHED_DEADLINE's push/pull global EDF (the SD baseline of [RTWS §VI]).
    "sd",
    // Parallel tasks: federated scheduling [Li et al., ECRTS 2014].
    "federated",
    // Reservations: H-CBS servers per group and CPU [HCBS §3.2].
    "hcbs",
];

/// How each policy of [`NAMES`] schedules parallel (fork-join) tasks (module doc): the one
/// table; each built policy answers the same through [`Policy::parallel_support`].
pub const PARALLEL: &[(&str, ParallelSupport)] = &[
    ("gedf", ParallelSupport::ThreadsAsJobs),
    ("gnpedf", ParallelSupport::ThreadsAsJobs),
    ("gfp", ParallelSupport::ThreadsAsJobs),
    ("gfifo", ParallelSupport::ThreadsAsJobs),
    ("edzl", ParallelSupport::ThreadsAsJobs),
    ("pedf", ParallelSupport::ThreadsAsJobs),
    ("pfp", ParallelSupport::ThreadsAsJobs),
    ("cedf", ParallelSupport::ThreadsAsJobs),
    ("pfp-ts", ParallelSupport::Refused),
    ("ghvdf", ParallelSupport::Refused),
    ("gnphvdf", ParallelSupport::Refused),
    ("phvdf", ParallelSupport::Refused),
    ("plbesa", ParallelSupport::Refused),
    ("pdasa", ParallelSupport::Refused),
    ("gmua", ParallelSupport::Refused),
    ("nggua", ParallelSupport::Refused),
    ("ggua", ParallelSupport::Refused),
    ("rtws", ParallelSupport::Native),
    ("sd", ParallelSupport::ThreadsAsJobs),
    ("federated", ParallelSupport::Native),
    ("hcbs", ParallelSupport::Refused),
];

/// How policy `name` schedules parallel tasks (`None`: no such policy).
pub fn parallel_support(name: &str) -> Option<ParallelSupport> {
    PARALLEL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, support)| support)
}

/// The policies that take parallel tasks, for error messages:
/// `"rtws (natively); gedf, gnpedf, … (threads as jobs)"`.
pub fn parallel_policies() -> String {
    let of = |want: ParallelSupport| -> Vec<&str> {
        PARALLEL
            .iter()
            .filter(|(_, s)| *s == want)
            .map(|&(n, _)| n)
            .collect()
    };
    format!(
        "{} (natively); {} (threads as jobs)",
        of(ParallelSupport::Native).join(", "),
        of(ParallelSupport::ThreadsAsJobs).join(", ")
    )
}

/// Whether policy `name` asks the engine for execution budgets ([`crate::Decisions::budget`]),
/// so that an engine without them can refuse it rather than run it wrongly.
pub fn needs_engine_budgets(name: &str) -> bool {
    matches!(name, "pfp-ts" | "hcbs")
}

/// Builds policy `name` for `tasks` on `cpus` CPUs. Partitioned (`pedf`, `pfp`),
/// semi-partitioned (`pfp-ts`) and clustered (`cedf`) policies need a `placement`; global ones
/// ignore it.
///
/// `hcbs` needs the reservation groups ([`Placement::reservations`]).
///
/// Errors: [`PolicyError::UnknownPolicy`], [`PolicyError::Groups`] (`hcbs`), [`PolicyError::InvalidPlatform`] (`cpus = 0` or
/// above [`MAX_CPUS`](schedlab_model::platform::MAX_CPUS)),
/// [`PolicyError::MissingPlacement`], [`PolicyError::InvalidPlacement`].
pub fn build(
    name: &str,
    tasks: &[PolicyTask],
    cpus: u32,
    placement: Option<Placement>,
) -> Result<Box<dyn Policy>, PolicyError> {
    let Some(&canonical) = NAMES.iter().find(|n| **n == name) else {
        return Err(PolicyError::UnknownPolicy {
            name: name.to_string(),
            known: NAMES.join(", "),
        });
    };
    if cpus == 0 {
        return Err(PolicyError::InvalidPlatform(format!(
            "policy `{canonical}` needs at least one CPU"
        )));
    }
    // Policies allocate per-CPU state: the one limit of the model.
    schedlab_model::platform::check_cpu_count(cpus)
        .map_err(|e| PolicyError::InvalidPlatform(e.to_string()))?;
    let shared: Arc<[PolicyTask]> = tasks.into();
    let n = tasks.len();
    let placed = |needs_one: bool| -> Result<Placement, PolicyError> {
        let p = placement
            .clone()
            .ok_or_else(|| PolicyError::MissingPlacement(canonical.to_string()))?;
        if let (Some(i), false) = (p.first_split_task(), canonical == "pfp-ts") {
            return Err(PolicyError::InvalidPlacement(format!(
                "task {i} is split, but policy `{canonical}` runs whole tasks only (split tasks run under `pfp-ts`)"
            )));
        }
        if needs_one && p.domain_size != 1 {
            return Err(PolicyError::InvalidPlacement(format!(
                "policy `{canonical}` is partitioned: domain size must be 1, not {}",
                p.domain_size
            )));
        }
        Ok(p)
    };
    Ok(match canonical {
        "gedf" => Box::new(GlobalJlfp::gedf(shared, cpus)),
        "gnpedf" => Box::new(GlobalJlfp::gnpedf(shared, cpus)),
        "gfp" => Box::new(GlobalJlfp::gfp(shared, cpus)),
        "gfifo" => Box::new(GlobalJlfp::gfifo(shared, cpus)),
        "edzl" => Box::new(Edzl::new(shared, cpus)),
        "pedf" => Box::new(Domains::new("pedf", cpus, n, placed(true)?, |k| {
            GlobalJlfp::gedf(shared.clone(), k)
        })?),
        "pfp" => Box::new(Domains::new("pfp", cpus, n, placed(true)?, |k| {
            GlobalJlfp::gfp(shared.clone(), k)
        })?),
        "pfp-ts" => Box::new(FpTs::new(shared, cpus, placed(true)?)?),
        // Utility accrual, helper ua1.
        "ghvdf" => Box::new(GHvdf::new(shared, cpus)),
        "gnphvdf" => Box::new(GNpHvdf::new(shared, cpus)),
        "phvdf" => Box::new(Domains::new("phvdf", cpus, n, placed(true)?, |_| {
            Uni::new("phvdf", shared.clone(), Hvdf)
        })?),
        "plbesa" => Box::new(Domains::new("plbesa", cpus, n, placed(true)?, |_| {
            Uni::new("plbesa", shared.clone(), Lbesa::new(Duration::ZERO))
        })?),
        "pdasa" => Box::new(Domains::new("pdasa", cpus, n, placed(true)?, |_| {
            Uni::new("pdasa", shared.clone(), Dasa::new())
        })?),
        // ua2: the global utility-accrual schedulers.
        "gmua" => Box::new(Gua::new(GuaVariant::Gmua, shared, cpus)),
        "nggua" => Box::new(Gua::new(GuaVariant::NgGua, shared, cpus)),
        "ggua" => Box::new(Gua::new(GuaVariant::GGua, shared, cpus)),
        "rtws" => Box::new(Rtws::new(shared, cpus)),
        "sd" => Box::new(Sd::new(shared, cpus)),
        "federated" => Box::new(Federated::new(shared, cpus, placed(false)?)?),
        "hcbs" => Box::new(Hcbs::new(shared, cpus, placement.as_ref())?),
        _ => Box::new(Domains::new("cedf", cpus, n, placed(false)?, |k| {
            GlobalJlfp::gedf(shared.clone(), k)
        })?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::task;

    #[test]
    fn every_name_builds_and_reports_itself() {
        let tasks = vec![task(1, 10, 10, 0), task(2, 10, 10, 1)];
        for name in NAMES {
            let placement = match *name {
                "cedf" => Some(Placement::new(vec![0, 1], 2)),
                "hcbs" => Some(crate::testutil::one_group(2, 4)),
                _ => Some(Placement::new(vec![0, 3], 1)),
            };
            let p = build(name, &tasks, 4, placement).unwrap();
            assert_eq!(p.name(), *name);
            assert_eq!(p.cpus(), 4);
        }
    }

    /// The table covers every name once, and every built policy answers as the table says.
    #[test]
    fn parallel_support_table_matches_the_policies() {
        let tasks = vec![task(1, 10, 10, 0), task(2, 10, 10, 1)];
        assert_eq!(PARALLEL.len(), NAMES.len());
        for name in NAMES {
            let placement = match *name {
                "cedf" => Some(Placement::new(vec![0, 1], 2)),
                "hcbs" => Some(crate::testutil::one_group(2, 4)),
                _ => Some(Placement::new(vec![0, 3], 1)),
            };
            let p = build(name, &tasks, 4, placement).unwrap();
            assert_eq!(Some(p.parallel_support()), parallel_support(name), "{name}");
        }
        assert_eq!(parallel_support("llf"), None);
        assert_eq!(
            parallel_policies(),
            "rtws, federated (natively); gedf, gnpedf, gfp, gfifo, edzl, pedf, pfp, cedf, sd (threads as jobs)"
        );
    }

    #[test]
    fn errors() {
        let tasks = vec![task(1, 10, 10, 0)];
        assert!(matches!(
            build("llf", &tasks, 2, None),
            Err(PolicyError::UnknownPolicy { .. })
        ));
        assert!(matches!(
            build("pedf", &tasks, 2, None),
            Err(PolicyError::MissingPlacement(_))
        ));
        assert!(matches!(
            build("gedf", &tasks, 0, None),
            Err(PolicyError::InvalidPlatform(_))
        ));
        assert_eq!(
            build("gedf", &tasks, u32::MAX, None)
                .err()
                .map(|e| e.to_string()),
            Some("4294967295 CPUs is more than schedlab supports (at most 4096)".to_string())
        );
        let two = Placement::new(vec![0], 2);
        assert!(matches!(
            build("pfp", &tasks, 2, Some(two.clone())),
            Err(PolicyError::InvalidPlacement(_))
        ));
        assert!(build("cedf", &tasks, 2, Some(two)).is_ok());
    }

    #[test]
    fn only_pfp_ts_runs_split_tasks() {
        let tasks = vec![task(1, 10, 10, 0), task(4, 10, 10, 1)];
        let parts = vec![
            schedlab_model::SplitPart {
                cpu: 1,
                budget: schedlab_model::Duration::from_ns(3),
            },
            schedlab_model::SplitPart {
                cpu: 0,
                budget: schedlab_model::Duration::from_ns(1),
            },
        ];
        let semi = Placement::semi(vec![0, 1], vec![vec![], parts]);
        let p = build("pfp-ts", &tasks, 2, Some(semi.clone())).unwrap();
        assert_eq!((p.name(), p.cpus()), ("pfp-ts", 2));
        for other in ["pfp", "pedf", "cedf"] {
            let e = build(other, &tasks, 2, Some(semi.clone()))
                .err()
                .map(|e| e.to_string());
            assert_eq!(
                e.as_deref(),
                Some(format!("invalid placement: task 1 is split, but policy `{other}` runs whole tasks only (split tasks run under `pfp-ts`)").as_str())
            );
        }
        assert!(matches!(
            build("pfp-ts", &tasks, 2, None),
            Err(PolicyError::MissingPlacement(_))
        ));
        assert!(needs_engine_budgets("pfp-ts") && !needs_engine_budgets("pfp"));
    }
}
