//! The overhead file: measured run-time overheads per dispatch architecture, the one exchange
//! format between measurement (the runtime writes it), simulation (charges it) and
//! overhead-aware analysis (inflates parameters with it). Documented in `docs/overheads.md`.
//!
//! ```toml
//! schema = 1
//! tick_period = "4ms"                      # the tick quantum Q (needed with a `tick` curve)
//! [meta]                                   # optional free-form strings
//! machine = "AMD EPYC, 2 vCPU"
//! [arch.message-passing.release_latency]   # Δev, points (n tasks, ns)
//! avg = [[2, 3100], [100, 4200]]
//! max = [[2, 15000], [100, 42000]]
//! [cpmd.preemption]                        # Δcpd, points (wss bytes, ns)
//! avg = [[0, 0], [65536, 12000]]
//! ```
//!
//! Overhead names follow [MP §IV-A] (Fig. 5): release event latency Δev, release Δrel, IPI
//! latency Δipi, scheduling Δsch, context switch Δcxs, client request latency Δreq, DSP
//! handler Δdsp, tick Δtck — plus the runtime's `lock_wait` and `release_to_run`, and the
//! semi-partitioned scheduler's [RTPS §V] timer `tmr` (`timer`), sleep-queue `S_add`/`S_take`
//! (`sleep_add`, `sleep_take`) and ready-queue `R_add_l`/`R_add_r`/`R_take`
//! (`ready_add_local`, `ready_add_remote`, `ready_take`: single operations without
//! contention, [RTPS §VI-A]); its `sch` and `cnt` are `schedule` and `context_switch`; CPMD Δcpd
//! [MP §IV-A; RTPS §V: ch_l, ch_r] is split into `preemption` (resume on the same CPU) and
//! `migration` (resume on another CPU), as a function of the working-set size [RTPS §VI-B,
//! Table II; ChronOS §9.2]. Each overhead has an `avg` and/or a `max` [`Curve`] (see
//! [`curve`] for the evaluation rule: piecewise-linear on the running maximum, last segment
//! extended, rounded up).
//!
//! A section may be specific to a core count: `[arch."global-lock@m64"]` holds what
//! `global-lock` costs on 64 CPUs (the scaling model, `schedlab scale --cpus 8,64`, writes one
//! per M). Consumers pick a section with [`OverheadFile::arch_at`]: `<name>@m<M>` for their
//! run's M first, then `<name>`. After `@` a section name must be `m` and a positive integer
//! of at most [`MAX_SECTION_CPUS`] without leading zeros; anything else is an error naming the
//! section.
//!
//! Parsing reads TOML (or an equivalent JSON value, e.g. a Python dict) into one JSON value
//! and validates it ([`OverheadFile::from_value`]); unknown keys are errors that suggest the
//! intended key; messages name the architecture, the overhead and the field. [`OverheadFile::to_toml`]
//! writes a file that reads back to the same value. Cost: linear in the file size.

pub mod curve;
mod parse;
pub(crate) mod write;

#[cfg(test)]
mod tests;

pub use curve::{Curve, CurveError, MAX_POINT};

use crate::time::Duration;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// The schema version this module reads and writes.
pub const SCHEMA: i64 = 1;

/// The largest core count an `<arch>@m<M>` section may name.
pub const MAX_SECTION_CPUS: u32 = 1024;

/// The section name of architecture `arch` on `m` CPUs: `"<arch>@m<m>"`.
pub fn section_at_m(arch: &str, m: u32) -> String {
    format!("{arch}@m{m}")
}

/// Splits a section name into its architecture and core count: `global-lock@m64` →
/// `("global-lock", Some(64))`, `global-lock` → `("global-lock", None)`; `Err` says what is
/// wrong after `@` (not `m` and a positive integer ≤ [`MAX_SECTION_CPUS`] without leading
/// zeros, or an empty architecture).
pub fn split_section(name: &str) -> Result<(&str, Option<u32>), String> {
    let Some((arch, suffix)) = name.split_once('@') else {
        return Ok((name, None));
    };
    let bad = || {
        format!(
            "after `@` a section name needs `m` and a CPU count 1..={MAX_SECTION_CPUS} (e.g. `{}@m64`), got `@{suffix}`",
            if arch.is_empty() { "global-lock" } else { arch }
        )
    };
    let digits = suffix.strip_prefix('m').ok_or_else(bad)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
        return Err(bad());
    }
    let m: u32 = digits.parse().map_err(|_| bad())?;
    if m > MAX_SECTION_CPUS {
        return Err(bad());
    }
    if arch.is_empty() {
        return Err("the architecture before `@m` must not be empty".into());
    }
    Ok((arch, Some(m)))
}

/// A per-event overhead [MP §IV-A], named as in the file (and in the runtime's JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OverheadName {
    /// Δev: release event latency (interrupt delayed because interrupts were disabled).
    ReleaseLatency,
    /// Δrel: release overhead (interrupt handler: ready queue update, preemption check, links).
    Release,
    /// Δipi: latency of a rescheduling inter-processor interrupt.
    Ipi,
    /// Δsch: scheduling overhead (selecting the next job, incl. blocking on scheduler state).
    Schedule,
    /// Δcxs: context-switch overhead.
    ContextSwitch,
    /// Δreq: client request latency (message to the DSP until the DSP dequeues it).
    Request,
    /// Δdsp: DSP handler overhead (the DSP processing one message).
    Dsp,
    /// Δtck: periodic timer tick.
    Tick,
    /// Time spent waiting for the scheduler lock (runtime measure; part of Δsch).
    LockWait,
    /// From the intended release to the job running (runtime end-to-end measure).
    ReleaseToRun,
    /// `release_to_run` without queueing: from an intended release instant at which a CPU
    /// that runs jobs was idle to the first job of that instant running (runtime measure).
    DispatchLatency,
    /// tmr: inserting or removing an event of the per-CPU timer (semi-partitioned, [RTPS §V]).
    Timer,
    /// S_add: inserting a job into a CPU's sleep queue [RTPS §V].
    SleepAdd,
    /// S_take: finding and removing a job from a CPU's sleep queue [RTPS §V].
    SleepTake,
    /// R_add_l: inserting a job into the local CPU's ready queue, uncontended [RTPS §V, §VI-A].
    ReadyAddLocal,
    /// R_add_r: inserting a job into another CPU's ready queue, uncontended [RTPS §V, §VI-A].
    ReadyAddRemote,
    /// R_take: finding and removing a job from a ready queue, uncontended [RTPS §V, §VI-A].
    ReadyTake,
}

impl OverheadName {
    /// Every name, in file order.
    pub const ALL: [OverheadName; 17] = [
        OverheadName::ReleaseLatency,
        OverheadName::Release,
        OverheadName::Ipi,
        OverheadName::Schedule,
        OverheadName::ContextSwitch,
        OverheadName::Request,
        OverheadName::Dsp,
        OverheadName::Tick,
        OverheadName::LockWait,
        OverheadName::ReleaseToRun,
        OverheadName::DispatchLatency,
        OverheadName::Timer,
        OverheadName::SleepAdd,
        OverheadName::SleepTake,
        OverheadName::ReadyAddLocal,
        OverheadName::ReadyAddRemote,
        OverheadName::ReadyTake,
    ];
    /// The overheads [RTPS §V] charges to the semi-partitioned scheduler, in RTPS's order:
    /// sch, cnt, tmr, S_add, S_take, R_add_l, R_add_r, R_take.
    pub const RTPS: [OverheadName; 8] = [
        OverheadName::Schedule,
        OverheadName::ContextSwitch,
        OverheadName::Timer,
        OverheadName::SleepAdd,
        OverheadName::SleepTake,
        OverheadName::ReadyAddLocal,
        OverheadName::ReadyAddRemote,
        OverheadName::ReadyTake,
    ];
    /// The key in the file.
    pub fn key(self) -> &'static str {
        match self {
            OverheadName::ReleaseLatency => "release_latency",
            OverheadName::Release => "release",
            OverheadName::Ipi => "ipi",
            OverheadName::Schedule => "schedule",
            OverheadName::ContextSwitch => "context_switch",
            OverheadName::Request => "request",
            OverheadName::Dsp => "dsp",
            OverheadName::Tick => "tick",
            OverheadName::LockWait => "lock_wait",
            OverheadName::ReleaseToRun => "release_to_run",
            OverheadName::DispatchLatency => "dispatch_latency",
            OverheadName::Timer => "timer",
            OverheadName::SleepAdd => "sleep_add",
            OverheadName::SleepTake => "sleep_take",
            OverheadName::ReadyAddLocal => "ready_add_local",
            OverheadName::ReadyAddRemote => "ready_add_remote",
            OverheadName::ReadyTake => "ready_take",
        }
    }
    /// The paper's symbol [MP §IV-A] (or the key for the runtime's own measures).
    pub fn symbol(self) -> &'static str {
        match self {
            OverheadName::ReleaseLatency => "Δev",
            OverheadName::Release => "Δrel",
            OverheadName::Ipi => "Δipi",
            OverheadName::Schedule => "Δsch",
            OverheadName::ContextSwitch => "Δcxs",
            OverheadName::Request => "Δreq",
            OverheadName::Dsp => "Δdsp",
            OverheadName::Tick => "Δtck",
            OverheadName::LockWait => "lock_wait",
            OverheadName::ReleaseToRun => "release_to_run",
            OverheadName::DispatchLatency => "dispatch_latency",
            OverheadName::Timer => "tmr",
            OverheadName::SleepAdd => "S_add",
            OverheadName::SleepTake => "S_take",
            OverheadName::ReadyAddLocal => "R_add_l",
            OverheadName::ReadyAddRemote => "R_add_r",
            OverheadName::ReadyTake => "R_take",
        }
    }
    /// The name with file key `key`.
    pub fn from_key(key: &str) -> Option<OverheadName> {
        OverheadName::ALL.into_iter().find(|n| n.key() == key)
    }
    /// All file keys.
    pub fn keys() -> Vec<&'static str> {
        OverheadName::ALL.iter().map(|n| n.key()).collect()
    }
}

/// Cache-related preemption/migration delay Δcpd: where a preempted job resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CpmdKind {
    /// Resumes on the CPU it last ran on (RTPS `ch_l`).
    Preemption,
    /// Resumes on another CPU (RTPS `ch_r`).
    Migration,
}

impl CpmdKind {
    /// Both kinds, in file order.
    pub const ALL: [CpmdKind; 2] = [CpmdKind::Preemption, CpmdKind::Migration];
    /// The key in the file.
    pub fn key(self) -> &'static str {
        match self {
            CpmdKind::Preemption => "preemption",
            CpmdKind::Migration => "migration",
        }
    }
}

/// Which statistic of a measured overhead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Stat {
    /// The average (typical behaviour; simulation's default).
    #[default]
    Avg,
    /// The maximum observed (worst case; hard real-time analysis).
    Max,
}

impl Stat {
    /// The key in the file (`avg`, `max`).
    pub fn key(self) -> &'static str {
        match self {
            Stat::Avg => "avg",
            Stat::Max => "max",
        }
    }
    /// Parses `avg` or `max`.
    pub fn parse(text: &str) -> Result<Stat, OverheadError> {
        match text {
            "avg" => Ok(Stat::Avg),
            "max" => Ok(Stat::Max),
            other => Err(OverheadError::Invalid {
                place: "statistic".into(),
                message: format!("`{other}` is neither `avg` nor `max`"),
            }),
        }
    }
}

/// One measured overhead: its average and/or maximum curve (at least one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measured {
    /// Average, if known.
    pub avg: Option<Curve>,
    /// Maximum, if known.
    pub max: Option<Curve>,
}

impl Measured {
    /// The curve of `stat`, if known.
    pub fn get(&self, stat: Stat) -> Option<&Curve> {
        match stat {
            Stat::Avg => self.avg.as_ref(),
            Stat::Max => self.max.as_ref(),
        }
    }
    /// Both statistics equal to one constant.
    pub fn constant(value_ns: u64) -> Result<Measured, CurveError> {
        let c = Curve::constant(value_ns)?;
        Ok(Measured {
            avg: Some(c.clone()),
            max: Some(c),
        })
    }
}

/// The contents of an overhead file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OverheadFile {
    /// Free-form strings (machine, date, source).
    pub meta: BTreeMap<String, String>,
    /// The tick quantum Q of the measuring kernel (`tick_period = "4ms"` for HZ = 250):
    /// required when any architecture has a `tick` curve (overhead-aware analysis charges
    /// `Δtck/Q` of every CPU).
    pub tick_period: Option<Duration>,
    /// Per architecture (any name; DESIGN.md's `global-lock`, `message-passing`,
    /// `partitioned`, …): the measured overheads. An overhead absent here is not measured.
    pub arch: BTreeMap<String, BTreeMap<OverheadName, Measured>>,
    /// Δcpd as a function of the working-set size in bytes.
    pub cpmd: BTreeMap<CpmdKind, Measured>,
}

/// An invalid overhead file, or a question it cannot answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OverheadError {
    /// Not well-formed TOML/JSON, or not a table where one is needed.
    #[error("overhead file: {0}")]
    Syntax(String),
    /// An unknown key, with the likely intended one.
    #[error("overhead file: {place}: unknown {what} `{key}`{}", match .suggestion { Some(s) => format!(" (did you mean `{s}`?)"), None => format!(" (known: {})", .known) })]
    UnknownKey {
        /// Where (`top level`, `arch.global-lock`, …).
        place: String,
        /// What kind of key (`key`, `overhead`, `CPMD kind`, `field`).
        what: &'static str,
        /// The key as written.
        key: String,
        /// The closest known key.
        suggestion: Option<String>,
        /// All known keys, comma-separated.
        known: String,
    },
    /// A value is unusable.
    #[error("overhead file: {place}: {message}")]
    Invalid {
        /// Where (`arch.global-lock.release`, field `avg`, …).
        place: String,
        /// What is wrong.
        message: String,
    },
    /// A statistic was asked for that the file does not give.
    #[error("overhead file: arch `{arch}`, overhead `{name}`: no `{stat}` values (the file gives only `{other}`)")]
    MissingStat {
        /// Architecture (or `cpmd`).
        arch: String,
        /// Overhead name.
        name: String,
        /// The statistic asked for.
        stat: &'static str,
        /// The one it gives.
        other: &'static str,
    },
    /// An architecture was asked for that the file does not describe.
    #[error("overhead file: no architecture `{arch}`{}; it describes: {known}", match .suggestion { Some(s) => format!(" (did you mean `{s}`?)"), None => String::new() })]
    UnknownArch {
        /// The name asked for.
        arch: String,
        /// The closest described one.
        suggestion: Option<String>,
        /// The described ones, comma-separated (or `none`).
        known: String,
    },
    /// The file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The operating system's message.
        message: String,
    },
}

impl OverheadFile {
    /// Parses TOML text.
    pub fn parse_toml(text: &str) -> Result<OverheadFile, OverheadError> {
        let value: serde_json::Value = toml::from_str(text).map_err(|e| {
            OverheadError::Syntax(format!("malformed TOML: {}", e.to_string().trim_end()))
        })?;
        OverheadFile::from_value(&value)
    }

    /// Builds and validates from an already-parsed value of the same shape (JSON text, a
    /// Python dict).
    pub fn from_value(value: &serde_json::Value) -> Result<OverheadFile, OverheadError> {
        parse::from_value(value)
    }

    /// Reads a TOML file (or JSON, if the text starts with `{`).
    pub fn load(path: &Path) -> Result<OverheadFile, OverheadError> {
        let text = std::fs::read_to_string(path).map_err(|e| OverheadError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let parsed = if text.trim_start().starts_with('{') {
            serde_json::from_str(&text)
                .map_err(|e| OverheadError::Syntax(format!("malformed JSON: {e}")))
                .and_then(|v| OverheadFile::from_value(&v))
        } else {
            OverheadFile::parse_toml(&text)
        };
        parsed.map_err(|e| match e {
            OverheadError::Syntax(m) => OverheadError::Syntax(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// The file as TOML text (reads back to an equal [`OverheadFile`]).
    pub fn to_toml(&self) -> String {
        write::to_toml(self)
    }

    /// Writes the file as TOML.
    pub fn save(&self, path: &Path) -> Result<(), OverheadError> {
        std::fs::write(path, self.to_toml()).map_err(|e| OverheadError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })
    }

    /// The architecture names, sorted.
    pub fn arch_names(&self) -> Vec<&str> {
        self.arch.keys().map(String::as_str).collect()
    }

    /// The section of architecture `name` for a run on `m` CPUs: `"<name>@m<m>"` if the file
    /// has it, else `name`'s, else `None`.
    pub fn arch_at(&self, name: &str, m: u32) -> Option<&BTreeMap<OverheadName, Measured>> {
        self.section_at(name, m).and_then(|s| self.arch.get(s))
    }

    /// The name of the section [`OverheadFile::arch_at`] picks (to pass to
    /// [`OverheadFile::value`] and [`OverheadFile::arch`]).
    pub fn section_at(&self, name: &str, m: u32) -> Option<&str> {
        let specific = section_at_m(name, m);
        self.arch
            .get_key_value(&specific)
            .or_else(|| self.arch.get_key_value(name))
            .map(|(k, _)| k.as_str())
    }

    /// The architectures the file describes, without `@m<M>` suffixes, sorted and distinct.
    pub fn base_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .arch
            .keys()
            .map(|k| split_section(k).map_or(k.as_str(), |(a, _)| a))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The section of architecture `name` on `m` CPUs ([`OverheadFile::section_at`]), or an
    /// error listing the described ones.
    pub fn arch_section_at(&self, name: &str, m: u32) -> Result<&str, OverheadError> {
        self.section_at(name, m)
            .ok_or_else(|| self.unknown_arch(name))
    }

    fn unknown_arch(&self, arch: &str) -> OverheadError {
        let names = self.arch_names();
        OverheadError::UnknownArch {
            arch: arch.to_string(),
            suggestion: crate::error::suggest(arch, &names),
            known: if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            },
        }
    }

    /// The section of `arch`, or an error listing the described ones.
    pub fn arch(&self, arch: &str) -> Result<&BTreeMap<OverheadName, Measured>, OverheadError> {
        self.arch.get(arch).ok_or_else(|| self.unknown_arch(arch))
    }

    /// Overhead `name` of `arch` for `n` tasks, statistic `stat`: `Ok(None)` if the file does
    /// not measure it for that architecture, an error if it does but not that statistic.
    pub fn value(
        &self,
        arch: &str,
        name: OverheadName,
        stat: Stat,
        n: u64,
    ) -> Result<Option<Duration>, OverheadError> {
        match self.arch(arch)?.get(&name) {
            None => Ok(None),
            Some(m) => eval(m, stat, arch, name.key(), n).map(Some),
        }
    }

    /// Δcpd of `kind` for a working set of `wss` bytes: `Ok(None)` if the file has no such
    /// curve, an error if it has one but not for that statistic.
    pub fn cpmd(
        &self,
        kind: CpmdKind,
        stat: Stat,
        wss: u64,
    ) -> Result<Option<Duration>, OverheadError> {
        match self.cpmd.get(&kind) {
            None => Ok(None),
            Some(m) => eval(m, stat, "cpmd", kind.key(), wss).map(Some),
        }
    }
}

/// Evaluates the `stat` curve of `m` at `x`.
fn eval(
    m: &Measured,
    stat: Stat,
    arch: &str,
    name: &str,
    x: u64,
) -> Result<Duration, OverheadError> {
    match m.get(stat) {
        Some(c) => Ok(Duration::from_ns(c.eval(x))),
        None => Err(OverheadError::MissingStat {
            arch: arch.to_string(),
            name: name.to_string(),
            stat: stat.key(),
            other: match stat {
                Stat::Avg => "max",
                Stat::Max => "avg",
            },
        }),
    }
}

impl fmt::Display for OverheadName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}
