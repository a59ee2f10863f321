//! Which schedlab policies Linux runs natively, how, and what to do for the others.
//!
//! | policy | Linux | accepting test (default) |
//! |---|---|---|
//! | `gedf` (and `sd`, the simulator's model of the same kernel scheduler) | `SCHED_DEADLINE`, one root domain of all M CPUs | `gedf` (the G-EDF battery) |
//! | `pedf` | `SCHED_DEADLINE`, one root domain per CPU | `pedf-<partition>` (exact EDF admission per CPU) |
//! | `cedf` | `SCHED_DEADLINE`, one root domain per cluster | `cedf-k<K>` |
//! | `gfp` | `SCHED_FIFO` over all M CPUs | `gfp` (the G-FP battery) |
//! | `pfp` | `SCHED_FIFO` pinned to its CPU | `pfp-<partition>` (exact response-time admission per CPU) |
//!
//! Everything else is refused with the reason and the `schedlab run` command that runs it
//! ([`REFUSED`]): Linux has no scheduler that decides the way those policies do.

/// How a policy runs under Linux.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// `SCHED_DEADLINE` over all CPUs (global EDF).
    GlobalDeadline,
    /// `SCHED_DEADLINE` in one root domain per CPU (partitioned EDF).
    PartitionedDeadline,
    /// `SCHED_DEADLINE` in one root domain per cluster (clustered EDF).
    ClusteredDeadline,
    /// `SCHED_FIFO` over all CPUs (global fixed priority).
    GlobalFifo,
    /// `SCHED_FIFO` pinned to one CPU each (partitioned fixed priority).
    PartitionedFifo,
}

impl Mapping {
    /// Whether the tasks run under `SCHED_DEADLINE`.
    pub fn deadline(self) -> bool {
        matches!(
            self,
            Mapping::GlobalDeadline | Mapping::PartitionedDeadline | Mapping::ClusteredDeadline
        )
    }
}

/// The policies Linux runs, with their mapping.
pub const MAPPED: &[(&str, Mapping)] = &[
    ("gedf", Mapping::GlobalDeadline),
    ("sd", Mapping::GlobalDeadline),
    ("pedf", Mapping::PartitionedDeadline),
    ("cedf", Mapping::ClusteredDeadline),
    ("gfp", Mapping::GlobalFifo),
    ("pfp", Mapping::PartitionedFifo),
];

/// A policy Linux cannot express: its names, why, and the `schedlab run` options that run it.
#[derive(Clone, Copy, Debug)]
pub struct Refused {
    /// The policy's names (the canonical one first).
    pub names: &'static [&'static str],
    /// Why Linux cannot run it.
    pub why: &'static str,
    /// `--arch … --policy …` of `schedlab run`.
    pub run: &'static str,
}

const UA_WHY: &str = "a utility-accrual policy [ChronOS] decides by utility densities and aborts jobs under overload; Linux has no such scheduling class";

/// Every policy refused, with the alternative (the CLI's tests check that `schedlab run`
/// accepts each `run`).
pub const REFUSED: &[Refused] = &[
    Refused {
        names: &["gedf-mp", "g-edf-mp"],
        why: "G-EDF-MP [MP] schedules every CPU from a dedicated scheduling CPU through message passing; the kernel has no such dispatcher",
        run: "--arch message-passing --policy gedf",
    },
    Refused {
        names: &["pfp-ts", "fp-ts"],
        why: "FP-TS [RTPS] splits tasks across CPUs and migrates a job when a part's budget runs out; Linux cannot move a SCHED_FIFO thread at a budget",
        run: "--arch semi-partitioned --policy pfp-ts",
    },
    Refused {
        names: &["rtws"],
        why: "RTWS [RTWS] runs parallel jobs by G-EDF with priority work stealing among per-CPU deques; Linux has no work-stealing scheduler",
        run: "--arch work-stealing --policy rtws",
    },
    Refused {
        names: &["hcbs", "h-cbs"],
        why: "H-CBS [HCBS] serves task groups with hard CBS servers scheduled by EDF per CPU. Linux's nearest, RT group scheduling (schedlab run --arch linux-rt-groups), is partial: groups compete by the priority of their highest ready thread, not by server deadlines; a group's budget is refilled on a fixed grid of periods, with no CBS deadline postponement; runtime is charged at ticks, so a group overruns its budget by up to a tick; and the kernel counts a group's bandwidth on every CPU, whatever its CPUs",
        run: "--arch reservations --policy hcbs",
    },
    Refused {
        names: &["federated"],
        why: "federated scheduling gives each heavy parallel task CPUs of its own and runs its threads there; this export runs one sequential thread per task",
        run: "--arch global-lock --policy federated",
    },
    Refused {
        names: &["gnpedf"],
        why: "non-preemptive global EDF never preempts a running job; SCHED_DEADLINE always preempts for an earlier deadline",
        run: "--arch concurrent --policy gnpedf",
    },
    Refused {
        names: &["gfifo"],
        why: "global FIFO runs jobs in release order without preemption; SCHED_FIFO orders threads by priority, not jobs by release",
        run: "--arch concurrent --policy gfifo",
    },
    Refused {
        names: &["edzl"],
        why: "EDZL raises a job to the highest priority when its laxity reaches zero; Linux has no laxity-driven scheduler",
        run: "--arch global-lock --policy edzl",
    },
    Refused {
        names: &["ghvdf"],
        why: UA_WHY,
        run: "--arch global-lock --policy ghvdf",
    },
    Refused {
        names: &["gnphvdf"],
        why: UA_WHY,
        run: "--arch concurrent --policy gnphvdf",
    },
    Refused {
        names: &["gmua"],
        why: UA_WHY,
        run: "--arch global-lock --policy gmua",
    },
    Refused {
        names: &["nggua"],
        why: UA_WHY,
        run: "--arch global-lock --policy nggua",
    },
    Refused {
        names: &["ggua"],
        why: UA_WHY,
        run: "--arch global-lock --policy ggua",
    },
    Refused {
        names: &["phvdf"],
        why: UA_WHY,
        run: "--arch partitioned --policy phvdf",
    },
    Refused {
        names: &["plbesa"],
        why: UA_WHY,
        run: "--arch partitioned --policy plbesa",
    },
    Refused {
        names: &["pdasa"],
        why: UA_WHY,
        run: "--arch partitioned --policy pdasa",
    },
];

/// The mapping of `policy`, or the refusal that names it.
pub fn mapping(policy: &str) -> Result<Mapping, Option<&'static Refused>> {
    if let Some(&(_, m)) = MAPPED.iter().find(|(name, _)| *name == policy) {
        return Ok(m);
    }
    Err(REFUSED.iter().find(|r| r.names.contains(&policy)))
}

/// The names Linux runs, for messages: `gedf, sd, pedf, cedf (SCHED_DEADLINE); gfp, pfp
/// (SCHED_FIFO)`.
pub fn mapped_names() -> String {
    let of = |deadline: bool| {
        MAPPED
            .iter()
            .filter(|(_, m)| m.deadline() == deadline)
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("{} (SCHED_DEADLINE); {} (SCHED_FIFO)", of(true), of(false))
}
