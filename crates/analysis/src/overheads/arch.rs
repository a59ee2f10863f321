//! Which overheads an architecture pays and how its CPUs are counted: from an overhead file,
//! an architecture name and `--cpus M` to the [`accounting`](super::accounting) of a whole
//! task set.
//!
//! | `--arch` | file section | rule | CPUs for jobs | CPMD curve |
//! |---|---|---|---|---|
//! | `global-lock` | `[arch.global-lock]` | preemption-centric, interrupts on all CPUs, one cluster of M | M | `migration` |
//! | `global-lock --dedicated-irq-cpu` (alias `global-lock-di`) | `[arch.global-lock-di]` | preemption-centric, dedicated interrupt CPU | M − 1 | `migration` |
//! | `partitioned` | `[arch.partitioned]` | preemption-centric, one CPU (a partition) | M | `preemption` |
//! | `message-passing` | `[arch.message-passing]` | [MP App. B] | M − 1 | `migration` |
//! | `linux-deadline` | `[arch.linux-deadline]` | preemption-centric, interrupts on all CPUs [MP §V-A] | M | `migration` |
//! | `push-pull` | `[arch.push-pull]` | as `linux-deadline` (SD-style per-CPU queues, push and pull: the runtime's and the scaling model's) | M | `migration` |
//! | `semi-partitioned` | `[arch.semi-partitioned]` | [RTPS §V]: non-split `C̄` for the set and per bin; split parts per CPU (`crate::semi::rtps_costs`) | M | `preemption` (ch_l), and `migration` (ch_r) for split parts |
//!
//! Required curves (a missing one is an error naming it): `release_latency`, `release`,
//! `schedule`, `context_switch`, `tick` (and the file's `tick_period`) for every architecture
//! but `semi-partitioned`; `ipi` for the global ones; `request` and `dsp` for
//! `message-passing`; for `semi-partitioned` (event-driven, no tick [RTPS §IV-A]) `schedule`
//! (sch), `context_switch` (cnt), `timer`, `sleep_add`, `sleep_take`, `ready_add_local`,
//! `ready_add_remote` and `ready_take`, and both CPMD curves when a task has a working set. The CPMD curve is
//! required when a task has a working set. Every overhead is evaluated once, at n = the number
//! of tasks charged together. For the set as a whole, the global architectures charge it as one
//! cluster on M CPUs and `partitioned` as one CPU (what a uniprocessor test sees); partitioned
//! and clustered tests charge each bin themselves.

use super::accounting::{charge, explain, Charged, Explanation, Overheads, Rule, TaskIn};
use schedlab_model::overheads::{CpmdKind, OverheadFile, OverheadName, Stat};
use schedlab_model::TaskSet;
use serde_json::{json, Value};

/// A dispatch architecture as the accounting sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchKind {
    /// GSN-EDF: one global lock, interrupts on all CPUs.
    GlobalLock,
    /// GSN-EDF-DI: one global lock, a dedicated interrupt CPU.
    GlobalLockDi,
    /// PSN-EDF: one scheduler per CPU.
    Partitioned,
    /// G-EDF-MP: a dedicated scheduling CPU (DSP) and clients.
    MessagePassing,
    /// Linux SCHED_DEADLINE (push/pull).
    LinuxDeadline,
    /// SD-style push/pull of this project (runtime `--arch push-pull`, `schedlab scale`).
    PushPull,
    /// RTPS: per-CPU schedulers, split tasks migrating at budget exhaustion (FP-TS).
    SemiPartitioned,
}

/// The names `--arch` takes.
pub const ARCH_NAMES: [&str; 7] = [
    "global-lock",
    "global-lock-di",
    "partitioned",
    "message-passing",
    "linux-deadline",
    "push-pull",
    "semi-partitioned",
];

impl ArchKind {
    /// `name` with `--dedicated-irq-cpu` (only `global-lock` takes it; `global-lock-di` is the
    /// same as `global-lock` with it).
    pub fn parse(name: &str, dedicated_irq_cpu: bool) -> Result<ArchKind, String> {
        let kind = match name {
            "global-lock" if dedicated_irq_cpu => ArchKind::GlobalLockDi,
            "global-lock" => ArchKind::GlobalLock,
            "global-lock-di" => ArchKind::GlobalLockDi,
            "partitioned" => ArchKind::Partitioned,
            "message-passing" => ArchKind::MessagePassing,
            "linux-deadline" => ArchKind::LinuxDeadline,
            "push-pull" => ArchKind::PushPull,
            "semi-partitioned" => ArchKind::SemiPartitioned,
            other => {
                return Err(format!(
                    "unknown architecture `{other}`{} (known: {})",
                    schedlab_model::error::suggest(other, &ARCH_NAMES)
                        .map(|s| format!(" (did you mean `{s}`?)"))
                        .unwrap_or_default(),
                    ARCH_NAMES.join(", ")
                ))
            }
        };
        if dedicated_irq_cpu && !matches!(name, "global-lock" | "global-lock-di") {
            return Err(format!(
                "--dedicated-irq-cpu applies to --arch global-lock only, not `{name}`"
            ));
        }
        Ok(kind)
    }

    /// The section of the overhead file it reads.
    pub fn section(self) -> &'static str {
        match self {
            ArchKind::GlobalLock => "global-lock",
            ArchKind::GlobalLockDi => "global-lock-di",
            ArchKind::Partitioned => "partitioned",
            ArchKind::MessagePassing => "message-passing",
            ArchKind::LinuxDeadline => "linux-deadline",
            ArchKind::PushPull => "push-pull",
            ArchKind::SemiPartitioned => "semi-partitioned",
        }
    }

    /// The CPUs left for jobs out of `m` (one less where a CPU only handles interrupts or
    /// schedules).
    pub fn cpus_for_jobs(self, m: u32) -> u32 {
        match self {
            ArchKind::GlobalLockDi | ArchKind::MessagePassing => m.saturating_sub(1),
            _ => m,
        }
    }

    fn required(self) -> Vec<OverheadName> {
        use OverheadName::*;
        if self == ArchKind::SemiPartitioned {
            return OverheadName::RTPS.to_vec();
        }
        let mut names = vec![ReleaseLatency, Release, Schedule, ContextSwitch, Tick];
        match self {
            ArchKind::Partitioned => {}
            ArchKind::MessagePassing => names.extend([Ipi, Request, Dsp]),
            _ => names.push(Ipi),
        }
        names
    }

    pub(crate) fn cpmd_kind(self) -> CpmdKind {
        match self {
            ArchKind::Partitioned | ArchKind::SemiPartitioned => CpmdKind::Preemption,
            _ => CpmdKind::Migration,
        }
    }

    /// The rule for one cluster of `m` CPUs (the whole set, or one bin of a partitioned or
    /// clustered test; `partitioned` charges one CPU whatever `m`).
    pub(crate) fn rule(self, m: u32) -> Rule {
        match self {
            ArchKind::GlobalLock | ArchKind::LinuxDeadline | ArchKind::PushPull => {
                Rule::PreemptionCentric {
                    dedicated_irq: false,
                    partition: false,
                    cpus: m,
                }
            }
            ArchKind::GlobalLockDi => Rule::PreemptionCentric {
                dedicated_irq: true,
                partition: false,
                cpus: m,
            },
            ArchKind::Partitioned => Rule::PreemptionCentric {
                dedicated_irq: false,
                partition: true,
                cpus: 1,
            },
            ArchKind::MessagePassing => Rule::MessagePassing,
            ArchKind::SemiPartitioned => Rule::SemiPartitioned,
        }
    }
}

/// The accounting of one task set for one architecture: what `--overheads` adds to the JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accounting {
    /// The architecture's section name.
    pub arch: &'static str,
    /// The statistic charged.
    pub stat: Stat,
    /// The CPUs the tests run on.
    pub cpus_for_jobs: u32,
    /// The outcome.
    pub charged: Charged,
}

impl Accounting {
    /// The `"accounting"` object of `analyze --format json`.
    pub fn to_json(&self) -> Value {
        let (failed, tasks) = match &self.charged {
            Charged::Ok(t) => (
                Value::Null,
                json!(t.iter().map(|&(c, t, d)| [c, t, d]).collect::<Vec<_>>()),
            ),
            Charged::IrqOverload => (Value::Null, Value::Null),
            Charged::TaskInfeasible(i) => (json!(i), Value::Null),
        };
        json!({
            "arch": self.arch,
            "stat": self.stat.key(),
            "cpus_for_jobs": self.cpus_for_jobs,
            "status": self.charged.status(),
            "failed_task": failed,
            "tasks": tasks,
        })
    }
}

/// The largest overhead value the analysis accepts: one hour. Anything larger is not an
/// overhead but a unit mistake (e.g. a value in ps, or a period pasted in), reported as an
/// error rather than charged.
pub const MAX_OVERHEAD_NS: u64 = 3_600_000_000_000;

/// Overheads only one architecture pays: a curve of them in another architecture's section
/// means the section (or the curve) belongs elsewhere.
const ONLY_MESSAGE_PASSING: [OverheadName; 2] = [OverheadName::Request, OverheadName::Dsp];

/// Names the overhead file in an error of this module or of the file's model, all of which
/// start with `overhead file: `.
pub fn in_file(message: &str, source: &str) -> String {
    match message.strip_prefix("overhead file: ") {
        Some(rest) if !source.is_empty() => format!("overhead file {source}: {rest}"),
        _ => message.to_string(),
    }
}

/// The overheads `arch` pays for `n` tasks on a machine of `m` CPUs, from `file`'s section
/// `<arch>@m<m>` if it has one, else `<arch>` ([`OverheadFile::section_at`]); every required
/// curve present, none that belongs to another architecture, every value at most
/// [`MAX_OVERHEAD_NS`].
pub fn overheads_for(
    file: &OverheadFile,
    arch: ArchKind,
    stat: Stat,
    n: u64,
    m: u32,
) -> Result<Overheads, String> {
    let section = file.section_at(arch.section(), m).unwrap_or(arch.section());
    if arch != ArchKind::MessagePassing {
        if let Ok(curves) = file.arch(section) {
            if let Some(name) = ONLY_MESSAGE_PASSING.iter().find(|k| curves.contains_key(k)) {
                return Err(format!(
                    "overhead file: arch `{section}` has a `{}` curve, an overhead only message-passing pays (is the section meant for another architecture?)",
                    name.key()
                ));
            }
        }
    }
    let value = |name: OverheadName| -> Result<u64, String> {
        match file.value(section, name, stat, n) {
            Ok(Some(d)) if d.as_ns() > MAX_OVERHEAD_NS => Err(format!(
                "overhead file: arch `{section}`, overhead `{}`, field `{}`: {} ns at n = {n} is more than an hour, not an overhead (a unit mistake?)",
                name.key(),
                stat.key(),
                d.as_ns()
            )),
            Ok(Some(d)) => Ok(d.as_ns()),
            Ok(None) => Err(format!(
                "overhead file: arch `{section}` has no `{}` curve, which the analysis of {section} needs",
                name.key()
            )),
            Err(e) => Err(e.to_string()),
        }
    };
    let mut oh = Overheads::default();
    for name in arch.required() {
        let v = value(name)?;
        match name {
            OverheadName::ReleaseLatency => oh.release_latency = v,
            OverheadName::Release => oh.release = v,
            OverheadName::Schedule => oh.schedule = v,
            OverheadName::ContextSwitch => oh.context_switch = v,
            OverheadName::Tick => oh.tick = v,
            OverheadName::Ipi => oh.ipi = v,
            OverheadName::Request => oh.request = v,
            OverheadName::Dsp => oh.dsp = v,
            OverheadName::Timer => oh.timer = v,
            OverheadName::SleepAdd => oh.sleep_add = v,
            OverheadName::SleepTake => oh.sleep_take = v,
            OverheadName::ReadyAddLocal => oh.ready_add_local = v,
            OverheadName::ReadyAddRemote => oh.ready_add_remote = v,
            OverheadName::ReadyTake => oh.ready_take = v,
            _ => {}
        }
    }
    if arch == ArchKind::SemiPartitioned {
        // Event-driven (high-resolution timers), no tick to charge [RTPS §IV-A].
        return Ok(oh);
    }
    oh.tick_period = file.tick_period.map_or(0, |q| q.as_ns());
    if oh.tick_period == 0 {
        return Err(
            "overhead file: no `tick_period` (the tick quantum Q), which the analysis needs".into(),
        );
    }
    if oh.tick_period > MAX_OVERHEAD_NS {
        return Err(format!(
            "overhead file: `tick_period` = {} ns is more than an hour, not a tick quantum",
            oh.tick_period
        ));
    }
    Ok(oh)
}

/// The tasks as the accounting reads them: parameters in ns and working sets.
pub fn task_ins(tasks: &TaskSet) -> Vec<TaskIn> {
    tasks
        .iter()
        .map(|t| TaskIn {
            c: t.wcet.as_ns(),
            t: t.period.as_ns(),
            d: t.deadline.as_ns(),
            wss: t.wss,
        })
        .collect()
}

/// The inputs of the whole-set accounting: the tasks, their overheads and the CPMD curve
/// (checked present when a task has a working set).
fn whole_set(
    tasks: &TaskSet,
    file: &OverheadFile,
    arch: ArchKind,
    stat: Stat,
    m: u32,
) -> Result<(Vec<TaskIn>, Overheads), String> {
    let ins = task_ins(tasks);
    let oh = overheads_for(file, arch, stat, ins.len() as u64, m)?;
    let kind = arch.cpmd_kind();
    // The curve is checked once (present, with this statistic) before it is evaluated per
    // task, so evaluation cannot fail later.
    if let Some(largest) = ins.iter().filter_map(|t| t.wss).max() {
        match file.cpmd(kind, stat, largest).map_err(|e| e.to_string())? {
            None => {
                return Err(format!(
                    "overhead file: no `[cpmd.{}]` curve, which tasks with a working set need under {}",
                    kind.key(),
                    arch.section()
                ))
            }
            // Curves are monotone, so the largest working set gives the largest value.
            Some(d) if d.as_ns() > MAX_OVERHEAD_NS => {
                return Err(format!(
                    "overhead file: cpmd `{}`, field `{}`: {} ns at {largest} bytes is more than an hour, not an overhead (a unit mistake?)",
                    kind.key(),
                    stat.key(),
                    d.as_ns()
                ))
            }
            Some(_) => {}
        }
    }
    Ok((ins, oh))
}

/// The architecture's CPMD curve as a function of the working set (0 where absent: callers
/// check its presence first).
pub(crate) fn cpmd_curve(
    file: &OverheadFile,
    arch: ArchKind,
    stat: Stat,
) -> impl Fn(u64) -> u64 + '_ {
    let kind = arch.cpmd_kind();
    move |wss: u64| match file.cpmd(kind, stat, wss) {
        Ok(Some(d)) => d.as_ns(),
        _ => 0,
    }
}

/// Charges the whole set `tasks` for `arch` on `cpus` CPUs (module documentation).
pub fn account(
    tasks: &TaskSet,
    file: &OverheadFile,
    arch: ArchKind,
    stat: Stat,
    cpus: u32,
    granularity: u64,
) -> Result<Accounting, String> {
    let (ins, oh) = whole_set(tasks, file, arch, stat, cpus)?;
    let cpmd = cpmd_curve(file, arch, stat);
    let charged =
        charge(&ins, &oh, arch.rule(cpus), Some(&cpmd), granularity).map_err(|e| e.to_string())?;
    Ok(Accounting {
        arch: arch.section(),
        stat,
        cpus_for_jobs: arch.cpus_for_jobs(cpus),
        charged,
    })
}

/// The terms of [`account`] for a person ([`explain`]).
pub fn explain_account(
    tasks: &TaskSet,
    file: &OverheadFile,
    arch: ArchKind,
    stat: Stat,
    cpus: u32,
) -> Result<Explanation, String> {
    let (ins, oh) = whole_set(tasks, file, arch, stat, cpus)?;
    let cpmd = cpmd_curve(file, arch, stat);
    explain(&ins, &oh, arch.rule(cpus), Some(&cpmd)).map_err(|e| e.to_string())
}
