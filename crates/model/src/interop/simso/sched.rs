//! SimSo's scheduler classes (`simso/schedulers/*.py`, read at SimSo ddfc1b5) and the schedlab
//! policy each maps to. A class maps when schedlab's policy makes the same decisions given
//! the same task parameters (the same priority order among jobs, the same kind of placement);
//! where SimSo's packer for a partitioned class differs from schedlab's default heuristic,
//! the mapping says which `--partition` reproduces it. Classes SimSo has but schedlab does
//! not (fluid, Pfair, laxity-based, semi-partitioned and DVFS schedulers) are refused with
//! what schedlab offers instead.

use crate::interop::InteropError;

/// How a mapped policy orders tasks by fixed priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Priorities {
    /// Not a fixed-priority policy.
    None,
    /// Rate monotonic: shorter period, higher priority (SimSo RM, P_RM, RM_mono).
    Rm,
    /// The task's `priority` data field, larger = higher in SimSo (SimSo FP).
    Given,
}

/// Where a mapped policy runs each task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Global: any CPU.
    Global,
    /// Partitioned by SimSo's own packer (`what`), which schedlab's `--partition heuristic`
    /// reproduces (or comes closest to, as `what` says), unless the XML pins the tasks.
    Packed {
        /// What SimSo's packer does.
        what: &'static str,
        /// The schedlab heuristic.
        heuristic: &'static str,
        /// When the two give the same placement.
        agreement: &'static str,
    },
    /// Partitioned by each task's `cpu` data field (a processor id): required.
    Pinned,
    /// A uniprocessor class: SimSo runs every job on the first processor.
    FirstCpu,
}

/// A SimSo class that maps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mapping {
    /// SimSo's class name (the last component of `simso.schedulers.NAME`).
    pub(crate) class: &'static str,
    /// The schedlab policy for a platform of more than one CPU (partitioned for
    /// [`Placement::FirstCpu`]).
    pub(crate) policy: &'static str,
    /// The schedlab policy on one CPU (global and partitioned are the same there).
    pub(crate) uni_policy: &'static str,
    /// Fixed priorities.
    pub(crate) priorities: Priorities,
    /// Placement.
    pub(crate) placement: Placement,
    /// What the mapping does not carry over, if anything.
    pub(crate) note: Option<&'static str>,
}

const fn global(
    class: &'static str,
    policy: &'static str,
    priorities: Priorities,
    note: Option<&'static str>,
) -> Mapping {
    Mapping {
        class,
        policy,
        uni_policy: policy,
        priorities,
        placement: Placement::Global,
        note,
    }
}

const fn packed(
    class: &'static str,
    policy: &'static str,
    priorities: Priorities,
    what: &'static str,
    heuristic: &'static str,
    agreement: &'static str,
) -> Mapping {
    Mapping {
        class,
        policy,
        uni_policy: policy,
        priorities,
        placement: Placement::Packed {
            what,
            heuristic,
            agreement,
        },
        note: None,
    }
}

const FIT: &str = "the same placement whenever schedlab's exact admission test and SimSo's utilization test agree, always for EDF with implicit deadlines";
const LEAST: &str = "the same placement whenever the least loaded CPU admits each task";

/// The classes that map, in the order messages list them.
pub(crate) const MAPPED: &[Mapping] = &[
    global("EDF", "gedf", Priorities::None, None),
    global(
        "EDF2",
        "gedf",
        Priorities::None,
        Some("EDF2 is SimSo's second G-EDF implementation (it keeps a job on its CPU); schedlab's gedf makes the same choice of jobs"),
    ),
    global("G_EDF", "gedf", Priorities::None, None),
    global("RM", "gfp", Priorities::Rm, None),
    global("G_RM", "gfp", Priorities::Rm, None),
    global("FP", "gfp", Priorities::Given, None),
    global("G_FP", "gfp", Priorities::Given, None),
    global("EDZL", "edzl", Priorities::None, None),
    global(
        "SCHED_DEADLINE",
        "sd",
        Priorities::None,
        Some("SCHED_DEADLINE: schedlab's sd models Linux's global EDF with push/pull but not the CBS throttling of SimSo's cbs_* servers (for tasks within their WCET the servers never throttle)"),
    ),
    packed(
        "P_EDF",
        "pedf",
        Priorities::None,
        "first fit by decreasing utilization",
        "ffd",
        FIT,
    ),
    packed(
        "P_EDF2",
        "pedf",
        Priorities::None,
        "first fit in task order",
        "ff",
        FIT,
    ),
    packed(
        "P_EDF_WF",
        "pedf",
        Priorities::None,
        "its decreasing_worst_fit, which runs next fit over decreasing utilization",
        "nfd",
        "the closest schedlab heuristic: SimSo's next fit wraps around to the first processor, schedlab's never goes back",
    ),
    packed(
        "LB_P_EDF",
        "pedf",
        Priorities::None,
        "the least loaded processor in task order, without an admission test",
        "wf",
        LEAST,
    ),
    packed(
        "P_RM",
        "pfp",
        Priorities::Rm,
        "the least loaded processor in task order, without an admission test",
        "wf",
        LEAST,
    ),
    Mapping {
        class: "Fixed_PEDF",
        policy: "pedf",
        uni_policy: "pedf",
        priorities: Priorities::None,
        placement: Placement::Pinned,
        note: None,
    },
    Mapping {
        class: "EDF_mono",
        policy: "pedf",
        uni_policy: "gedf",
        priorities: Priorities::None,
        placement: Placement::FirstCpu,
        note: None,
    },
    Mapping {
        class: "RM_mono",
        policy: "pfp",
        uni_policy: "gfp",
        priorities: Priorities::Rm,
        placement: Placement::FirstCpu,
        note: None,
    },
];

/// The classes SimSo has that schedlab has no policy for: (class, what it is, instead).
pub(crate) const UNSUPPORTED: &[(&str, &str, &str)] = &[
    (
        "LLF",
        "global least laxity first",
        "edzl (EDF until zero laxity) or gedf",
    ),
    ("MLLF", "modified least laxity first", "edzl or gedf"),
    ("EDCL", "EDF with critical laxity", "edzl"),
    ("G_FL", "global fair lateness", "gedf"),
    (
        "G_FL_ZL",
        "global fair lateness until zero laxity",
        "edzl or gedf",
    ),
    (
        "EDF_US",
        "EDF-US[m/(2m-1)]: heavy tasks first, then EDF",
        "gedf, or gfp with `priority` fields that put the heavy tasks first",
    ),
    (
        "PriD",
        "priority-driven EDF with heavy tasks first",
        "gedf, or gfp with `priority` fields",
    ),
    ("U_EDF", "U-EDF (optimal, budget-based)", "gedf or pedf"),
    ("WC_U_EDF", "work-conserving U-EDF", "gedf or pedf"),
    (
        "RUN",
        "RUN (reduction to uniprocessor)",
        "pedf (partitioned EDF) or gedf",
    ),
    ("WC_RUN", "work-conserving RUN", "pedf or gedf"),
    (
        "EKG",
        "EKG (semi-partitioned EDF)",
        "pfp-ts (semi-partitioned FP with split tasks) or pedf",
    ),
    ("EDHS", "EDHS (semi-partitioned EDF)", "pfp-ts or pedf"),
    ("PD2", "PD² (Pfair)", "gedf or pedf"),
    ("ER_PD2", "early-release PD² (Pfair)", "gedf or pedf"),
    (
        "EPDF",
        "earliest pseudo-deadline first (Pfair)",
        "gedf or pedf",
    ),
    ("LLREF", "LLREF (fluid)", "gedf or pedf"),
    ("LLREF2", "LLREF (fluid)", "gedf or pedf"),
    ("LRE_TL", "LRE-TL (fluid)", "gedf or pedf"),
    ("DP_WRAP", "DP-Wrap (DP-fair)", "gedf or pedf"),
    ("BF", "Boundary Fair", "gedf or pedf"),
    ("NVNLF", "NVNLF (fluid)", "gedf or pedf"),
    ("LSTR", "least slack time rate first", "edzl or gedf"),
    (
        "CC_EDF",
        "cycle-conserving EDF (DVFS)",
        "gedf: schedlab has no processor speeds",
    ),
    (
        "Static_EDF",
        "static-speed EDF (DVFS)",
        "gedf on one CPU: schedlab has no processor speeds",
    ),
];

/// Each SimSo class that maps with its schedlab policy on several CPUs and on one:
/// `(class, policy, policy on one CPU)`, in the order of the mapping table.
pub fn table() -> Vec<(&'static str, &'static str, &'static str)> {
    MAPPED
        .iter()
        .map(|m| (m.class, m.policy, m.uni_policy))
        .collect()
}

/// The classes SimSo has that schedlab has no policy for: `(class, what it is, instead)`.
pub fn unsupported() -> &'static [(&'static str, &'static str, &'static str)] {
    UNSUPPORTED
}

/// The classes that map, for messages: `EDF, EDF2, …`.
pub(crate) fn known() -> String {
    MAPPED
        .iter()
        .map(|m| m.class)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The class name of `simso.schedulers.NAME`, `NAME`, or a scheduler file
/// `path/to/NAME.py` (SimSo's `className` attribute).
pub(crate) fn class_name(written: &str) -> &str {
    let w = written.trim();
    let file = w.rsplit(['/', '\\']).next().unwrap_or(w);
    if let Some(stem) = file.strip_suffix(".py") {
        return stem;
    }
    w.rsplit('.').next().unwrap_or(w)
}

/// The mapping of the class `written` (any of [`class_name`]'s forms; exact case first, else
/// case-insensitively), or the error that says what maps.
pub(crate) fn resolve(written: &str) -> Result<&'static Mapping, InteropError> {
    let name = class_name(written);
    let exact = MAPPED.iter().find(|m| m.class == name);
    if let Some(m) = exact.or_else(|| MAPPED.iter().find(|m| m.class.eq_ignore_ascii_case(name))) {
        return Ok(m);
    }
    if let Some((_, what, instead)) = UNSUPPORTED
        .iter()
        .find(|(c, ..)| c.eq_ignore_ascii_case(name))
    {
        return Err(InteropError::UnsupportedScheduler {
            class: written.trim().to_string(),
            what: (*what).to_string(),
            instead: (*instead).to_string(),
            known: known(),
        });
    }
    Err(InteropError::UnknownScheduler {
        class: written.trim().to_string(),
        known: known(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_in_every_form() {
        assert_eq!(class_name("simso.schedulers.EDF"), "EDF");
        assert_eq!(class_name("EDF"), "EDF");
        assert_eq!(class_name("../schedulers/P_EDF.py"), "P_EDF");
        assert_eq!(class_name("C:\\s\\RM.py"), "RM");
    }

    #[test]
    fn every_mapped_policy_is_a_schedlab_policy_name() {
        // The policy crate is above this one; its names are repeated here and checked by the
        // CLI's tests against `schedlab_policy::NAMES`.
        for m in MAPPED {
            for p in [m.policy, m.uni_policy] {
                assert!(
                    ["gedf", "gfp", "edzl", "sd", "pedf", "pfp"].contains(&p),
                    "{}: {p}",
                    m.class
                );
            }
        }
        for (c, ..) in UNSUPPORTED {
            assert!(MAPPED.iter().all(|m| m.class != *c), "{c}");
        }
    }

    #[test]
    fn resolve_maps_refuses_and_names_what_maps() {
        assert_eq!(resolve("simso.schedulers.EDF").unwrap().policy, "gedf");
        assert_eq!(resolve("simso.schedulers.p_edf").unwrap().policy, "pedf");
        let e = resolve("simso.schedulers.Foo").unwrap_err().to_string();
        assert!(
            e.starts_with(
                "unknown SimSo scheduler `simso.schedulers.Foo`; schedulers that map: EDF, EDF2,"
            ),
            "{e}"
        );
        let e = resolve("simso.schedulers.LLF").unwrap_err().to_string();
        assert!(
            e.contains("least laxity first") && e.contains("edzl"),
            "{e}"
        );
        assert!(e.contains("Schedulers that map: EDF"), "{e}");
    }
}
