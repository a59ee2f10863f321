//! The costs file: the per-operation costs of the scheduler code paths that the scaling model
//! (`schedlab scale`, `schedlab_sim::scale`) executes on simulated CPUs to predict run-time
//! overheads at core counts this machine does not have [MP §IV, Figs. 6–7]. Documented in
//! `docs/scaling.md`.
//!
//! ```toml
//! schema = 1
//! lock = "ticket"                 # the global lock's semantics: ticket or mcs
//! [meta]                          # optional free-form strings
//! machine = "Xeon, 2 vCPU"
//! [costs]                         # every architecture (ns, or a time with a unit)
//! schedule = "1.5us"
//! lock_handoff = 150
//! [arch.message-passing]          # overrides for one architecture (same keys)
//! schedule = "900ns"
//! ```
//!
//! A cost is the time one CPU spends in one operation *without contention*: what contention
//! adds (lock waiting, a DSP's queue, an interrupt arriving at a busy CPU) is what the model
//! computes. Every key has a default ([`OpCosts::default`], of the order of this project's
//! user-space runtime on a 2-CPU Xeon KVM guest); a file sets only what it knows. The model
//! reads one [`OpCosts`] per architecture, [`CostsFile::for_arch`]: the defaults, then
//! `[costs]`, then `[arch.<name>]`.
//!
//! Reading: TOML ([`CostsFile::from_toml_str`]), JSON or a Python dict
//! ([`CostsFile::from_value`]), or a path by its extension ([`CostsFile::read`]); all go through
//! one JSON value and one validator (`parse.rs`). Values are integers (ns) or times with a unit
//! (`"1.5us"`) for [`CostUnit::Ns`], at most [`MAX_COST_NS`] (10 s); bare integers at most
//! 1,000,000 for [`CostUnit::PerMillion`]. Unknown keys are errors that suggest the nearest
//! one; every message names the table and the key ([`CostsError`]). Every input-controlled
//! size is bounded ([`MAX_ARCH_SECTIONS`], [`MAX_NAME_BYTES`], [`MAX_META_ENTRIES`],
//! [`MAX_META_VALUE_BYTES`], [`MAX_FILE_BYTES`]). Writing ([`CostsFile::to_toml`], `write.rs`)
//! is deterministic and reads back to an equal [`CostsFile`].
//!
//! Cost: linear in the number of keys (and in the file size for reading).

mod parse;
mod write;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// The model's architectures, the only names an `[arch.<name>]` section may have (the
/// scaling model's `--arch`).
pub const ARCHS: &[&str] = &[
    "global-lock",
    "global-lock-di",
    "message-passing",
    "partitioned",
    "push-pull",
];

/// The largest cost in ns a file may give: 10 s (a per-operation cost beyond it is a unit
/// mistake, not a cost).
pub const MAX_COST_NS: u64 = 10_000_000_000;
/// The largest per-million value.
pub const MAX_PER_MILLION: u64 = 1_000_000;

/// The largest [`CostUnit::Millionths`] value: 100.
pub const MAX_MILLIONTHS: u64 = 100_000_000;
/// The most `[arch.<name>]` sections.
pub const MAX_ARCH_SECTIONS: usize = 64;
/// The longest architecture or `[meta]` key, in bytes.
pub const MAX_NAME_BYTES: usize = 64;
/// The most `[meta]` entries.
pub const MAX_META_ENTRIES: usize = 64;
/// The longest `[meta]` value, in bytes.
pub const MAX_META_VALUE_BYTES: usize = 4096;
/// The largest file [`CostsFile::read`] reads, in bytes (1 MiB; a full file is about 1 KiB).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The schema version this module reads and writes.
pub const SCHEMA: i64 = 1;

/// How a global lock hands itself over [ChronOS §7, Figs. 7.1–7.2].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LockSemantics {
    /// FIFO ticket lock: every waiter spins on the one shared line, so each handoff costs
    /// `lock_handoff + lock_per_waiter × (w − 1)` with w CPUs spinning (the release invalidates
    /// the copy of every CPU still spinning after the handoff).
    #[default]
    Ticket,
    /// MCS queue lock: each waiter spins on its own line, so a handoff costs `lock_handoff`
    /// whatever the number of waiters.
    Mcs,
}

impl LockSemantics {
    /// Both, in file order.
    pub const ALL: [LockSemantics; 2] = [LockSemantics::Ticket, LockSemantics::Mcs];
    /// The file and CLI name.
    pub fn key(self) -> &'static str {
        match self {
            LockSemantics::Ticket => "ticket",
            LockSemantics::Mcs => "mcs",
        }
    }
    /// The semantics named `key`.
    pub fn from_key(key: &str) -> Option<LockSemantics> {
        LockSemantics::ALL.into_iter().find(|l| l.key() == key)
    }
}

impl fmt::Display for LockSemantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// The unit of a cost's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostUnit {
    /// Nanoseconds (a file may write a time with a unit: `"1.5us"`).
    Ns,
    /// A count per million (a bare integer in the file).
    PerMillion,
    /// A dimensionless number in millionths (a bare integer in the file: 2500000 is 2.5), at
    /// most [`MAX_MILLIONTHS`].
    Millionths,
}

/// Declares [`CostName`] with its keys, defaults, units and meanings: one line per cost.
macro_rules! costs {
    ($($(#[doc = $doc:literal])* $variant:ident = $key:literal, $default:literal, $unit:ident;)*) => {
        /// One per-operation cost of the costs file.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum CostName {
            $($(#[doc = $doc])* $variant,)*
        }

        impl CostName {
            /// Every cost, in file order.
            pub const ALL: &'static [CostName] = &[$(CostName::$variant),*];
            /// The key in the file.
            pub fn key(self) -> &'static str {
                match self {
                    $(CostName::$variant => $key,)*
                }
            }
            /// The default value (ns, or per million for [`CostUnit::PerMillion`]).
            pub fn default_value(self) -> u64 {
                match self {
                    $(CostName::$variant => $default,)*
                }
            }
            /// The unit of the value.
            pub fn unit(self) -> CostUnit {
                match self {
                    $(CostName::$variant => CostUnit::$unit,)*
                }
            }
            /// The meaning (the variant's doc comment, one line per doc line).
            fn doc_lines(self) -> &'static [&'static str] {
                match self {
                    $(CostName::$variant => &[$($doc),*],)*
                }
            }
        }
    };
}

costs! {
    /// Interrupt entry and exit of a release timer, before its handler runs (part of Δev).
    TimerIrq = "timer_irq", 1_000, Ns;
    /// A release handler's fixed work per released job, outside queue operations (Δrel).
    Release = "release", 500, Ns;
    /// One ready-queue (or release-queue) insertion or removal: constant part.
    QueueOp = "queue_op", 150, Ns;
    /// One ready-queue insertion or removal: per log2 of the queue's length.
    QueueOpLog = "queue_op_log", 25, Ns;
    /// A preemption check: per CPU examined (the O(m) scan of [MP §IV-B]).
    PreemptCheckCpu = "preempt_check_cpu", 10, Ns;
    /// A scheduler invocation's fixed work on its CPU, outside locks and queue operations (Δsch).
    Schedule = "schedule", 1_000, Ns;
    /// One link change: a CPU's linked job updated [MP §III-B].
    Link = "link", 100, Ns;
    /// A context switch (Δcxs).
    ContextSwitch = "context_switch", 5_000, Ns;
    /// Sending one inter-processor interrupt (sender's side).
    IpiSend = "ipi_send", 300, Ns;
    /// Delivery of one IPI to a CPU that has interrupts enabled (Δipi without blocking).
    IpiLatency = "ipi_latency", 2_000, Ns;
    /// One cache-line transfer between CPUs: shared scheduler state touched by another CPU
    /// than the last writer.
    CacheLine = "cache_line", 100, Ns;
    /// Acquiring and releasing a free lock.
    LockAcquire = "lock_acquire", 50, Ns;
    /// Handing a held lock to the next waiter (one cache-line transfer).
    LockHandoff = "lock_handoff", 150, Ns;
    /// Ticket lock: extra cost of a handoff per CPU still spinning (the release invalidates
    /// every spinner's copy of the line); unused by MCS.
    LockPerWaiter = "lock_per_waiter", 50, Ns;
    /// Message passing: a client posting one message to its mailbox.
    MessageSend = "message_send", 200, Ns;
    /// Message passing: the DSP dequeuing one message (Δreq's service part).
    DspDequeue = "dsp_dequeue", 200, Ns;
    /// Message passing: a DSP handler's fixed work per message, outside queue operations (Δdsp).
    DspHandler = "dsp_handler", 800, Ns;
    /// Message passing: the DSP polling one client mailbox that is empty.
    DspPollClient = "dsp_poll_client", 20, Ns;
    /// Push/pull: one lookup or update of the cpudl max-heap: constant part.
    Cpudl = "cpudl", 100, Ns;
    /// Push/pull: one cpudl lookup or update: per log2(m).
    CpudlLog = "cpudl_log", 20, Ns;
    /// Noise: the chance per code path that something outside the model (a host interrupt,
    /// a cache miss storm) delays it, per million paths.
    NoisePpm = "noise_ppm", 0, PerMillion;
    /// Noise: the largest such delay.
    NoiseMax = "noise_max", 0, Ns;
    /// Noise: the smallest such delay.
    NoiseMin = "noise_min", 0, Ns;
    /// Noise: the delay's shape: 0, uniform in [noise_min, noise_max]; α × 10⁶ > 0, a
    /// Pareto of index α truncated to [noise_min, noise_max] (small α: a heavy tail).
    NoiseShape = "noise_shape", 0, Millionths;
    /// Timer noise: the chance per release timer's expiry that something outside the model (a
    /// halted vCPU woken late, a preempted thread) delivers it late, per million expiries.
    TimerNoisePpm = "timer_noise_ppm", 0, PerMillion;
    /// Timer noise: the largest such delay.
    TimerNoiseMax = "timer_noise_max", 0, Ns;
    /// Timer noise: the smallest such delay.
    TimerNoiseMin = "timer_noise_min", 0, Ns;
    /// Timer noise: the delay's shape, as `noise_shape`.
    TimerNoiseShape = "timer_noise_shape", 0, Millionths;
    /// IPI noise: the chance per IPI (or wake-up of a sleeping CPU or thread) that it is
    /// delivered late, per million IPIs.
    IpiNoisePpm = "ipi_noise_ppm", 0, PerMillion;
    /// IPI noise: the largest such delay.
    IpiNoiseMax = "ipi_noise_max", 0, Ns;
    /// IPI noise: the smallest such delay.
    IpiNoiseMin = "ipi_noise_min", 0, Ns;
    /// IPI noise: the delay's shape, as `noise_shape`.
    IpiNoiseShape = "ipi_noise_shape", 0, Millionths;
}

impl CostName {
    /// What the cost is (its doc comment on one line).
    pub fn meaning(self) -> String {
        let words: Vec<&str> = self.doc_lines().iter().map(|l| l.trim()).collect();
        words.join(" ")
    }
    /// The cost with file key `key`.
    pub fn from_key(key: &str) -> Option<CostName> {
        CostName::ALL.iter().copied().find(|c| c.key() == key)
    }
    /// All file keys, in file order.
    pub fn keys() -> Vec<&'static str> {
        CostName::ALL.iter().map(|c| c.key()).collect()
    }
}

impl fmt::Display for CostName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// One architecture's operation costs: a value for every [`CostName`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpCosts {
    values: BTreeMap<CostName, u64>,
}

impl Default for OpCosts {
    /// Every cost at its default ([`CostName::default_value`]).
    fn default() -> OpCosts {
        OpCosts {
            values: CostName::ALL
                .iter()
                .map(|&c| (c, c.default_value()))
                .collect(),
        }
    }
}

impl OpCosts {
    /// The value of `name`.
    pub fn get(&self, name: CostName) -> u64 {
        self.values
            .get(&name)
            .copied()
            .unwrap_or_else(|| name.default_value())
    }
    /// Sets `name` to `value`.
    pub fn set(&mut self, name: CostName, value: u64) {
        self.values.insert(name, value);
    }
    /// Every (name, value), in file order.
    pub fn iter(&self) -> impl Iterator<Item = (CostName, u64)> + '_ {
        CostName::ALL.iter().map(|&c| (c, self.get(c)))
    }
}

/// A costs file: defaults for every architecture plus per-architecture overrides.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CostsFile {
    /// The global lock's semantics (`lock`; ticket when absent).
    pub lock: LockSemantics,
    /// Free-form strings (`[meta]`): the machine, the source of the values.
    pub meta: BTreeMap<String, String>,
    /// `[costs]`: values set for every architecture (unset keys keep their defaults).
    pub common: BTreeMap<CostName, u64>,
    /// `[arch.<name>]`: values set for one architecture, over `common`.
    pub arch: BTreeMap<String, BTreeMap<CostName, u64>>,
}

/// An invalid costs file, or one that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CostsError {
    /// Not well-formed TOML/JSON, or not a table where one is needed.
    #[error("costs file: {0}")]
    Syntax(String),
    /// An unknown key, with the likely intended one.
    #[error("costs file: {place}: unknown {what} `{key}`{}", match .suggestion { Some(s) => format!(" (did you mean `{s}`?)"), None => format!(" (known: {})", .known) })]
    UnknownKey {
        /// The table (`top level`, `[costs]`, `[arch.global-lock]`).
        place: String,
        /// What kind of key (`key`, `cost`, `architecture`).
        what: &'static str,
        /// The key as written.
        key: String,
        /// The closest known key.
        suggestion: Option<String>,
        /// All known keys, comma-separated.
        known: String,
    },
    /// A value is unusable.
    #[error("costs file: {place}: {message}")]
    Invalid {
        /// The table and key (`[costs] schedule`, `lock`, …).
        place: String,
        /// What is wrong.
        message: String,
    },
    /// The file could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// What went wrong.
        message: String,
    },
}

impl CostsFile {
    /// Parses TOML text.
    pub fn from_toml_str(text: &str) -> Result<CostsFile, CostsError> {
        let value: serde_json::Value = toml::from_str(text).map_err(|e| {
            CostsError::Syntax(format!("malformed TOML: {}", e.to_string().trim_end()))
        })?;
        CostsFile::from_value(&value)
    }

    /// Builds and validates from an already-parsed value of the same shape (JSON text, a
    /// Python dict): `{"schema": 1, "lock": "mcs", "costs": {"schedule": "1.5us"}, …}`.
    pub fn from_value(value: &serde_json::Value) -> Result<CostsFile, CostsError> {
        parse::from_value(value)
    }

    /// Parses JSON text.
    pub fn from_json_str(text: &str) -> Result<CostsFile, CostsError> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| CostsError::Syntax(format!("malformed JSON: {e}")))?;
        CostsFile::from_value(&value)
    }

    /// Reads `path`: TOML for `.toml`, JSON for `.json` (other extensions are an error), at
    /// most [`MAX_FILE_BYTES`].
    pub fn read(path: &Path) -> Result<CostsFile, CostsError> {
        parse::read(path)
    }

    /// The file as TOML text (reads back to an equal [`CostsFile`]; costs in integer ns).
    pub fn to_toml(&self) -> String {
        write::to_toml(self)
    }

    /// The costs of architecture `arch`: the defaults, then `[costs]`, then `[arch.<arch>]`.
    pub fn for_arch(&self, arch: &str) -> OpCosts {
        let mut costs = OpCosts::default();
        for (&name, &value) in &self.common {
            costs.set(name, value);
        }
        if let Some(over) = self.arch.get(arch) {
            for (&name, &value) in over {
                costs.set(name, value);
            }
        }
        costs
    }
}

/// The table of every cost (key, unit, default, meaning) as `docs/scaling.md` shows it, in
/// file order: generated here so the page cannot drift from [`CostName::ALL`] (a test compares
/// them).
pub fn markdown_table() -> String {
    let mut out = String::from("| key | unit | default | meaning |\n|---|---|---|---|\n");
    for &c in CostName::ALL {
        let (unit, default) = match c.unit() {
            CostUnit::Ns => ("ns", crate::time::format_ns(c.default_value())),
            CostUnit::PerMillion => ("per million", c.default_value().to_string()),
            CostUnit::Millionths => ("millionths", c.default_value().to_string()),
        };
        out.push_str(&format!(
            "| `{}` | {unit} | {default} | {} |\n",
            c.key(),
            c.meaning()
        ));
    }
    out
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_round_trip() {
        let keys = CostName::keys();
        let unique: std::collections::BTreeSet<_> = keys.iter().collect();
        assert_eq!(unique.len(), keys.len());
        for &c in CostName::ALL {
            assert_eq!(CostName::from_key(c.key()), Some(c));
        }
        assert_eq!(CostName::from_key("nope"), None);
    }

    #[test]
    fn arch_overrides_common_overrides_defaults() {
        let mut f = CostsFile::default();
        f.common.insert(CostName::Schedule, 7);
        f.common.insert(CostName::Link, 8);
        f.arch
            .entry("message-passing".into())
            .or_default()
            .insert(CostName::Schedule, 3);
        let mp = f.for_arch("message-passing");
        let gl = f.for_arch("global-lock");
        assert_eq!((mp.get(CostName::Schedule), mp.get(CostName::Link)), (3, 8));
        assert_eq!(gl.get(CostName::Schedule), 7);
        assert_eq!(
            gl.get(CostName::CacheLine),
            CostName::CacheLine.default_value()
        );
        assert_eq!(LockSemantics::from_key("mcs"), Some(LockSemantics::Mcs));
    }
}
