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
//! Cost: linear in the number of keys.

use std::collections::BTreeMap;
use std::fmt;

/// The schema version this module reads and writes.
pub const SCHEMA: i64 = 1;

/// How a global lock hands itself over [ChronOS §7, Figs. 7.1–7.2].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LockSemantics {
    /// FIFO ticket lock: every waiter spins on the one shared line, so each handoff costs
    /// `lock_handoff + lock_per_waiter × waiters` (the release invalidates every spinner's copy).
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
}

/// Declares [`CostName`] with its keys, defaults, units and meanings: one line per cost.
macro_rules! costs {
    ($($(#[$doc:meta])* $variant:ident = $key:literal, $default:literal, $unit:ident;)*) => {
        /// One per-operation cost of the costs file.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum CostName {
            $($(#[$doc])* $variant,)*
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
    /// Noise: the largest such delay; a delayed path takes an extra uniform in [0, this].
    NoiseMax = "noise_max", 0, Ns;
}

impl CostName {
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

impl CostsFile {
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

#[cfg(test)]
mod tests {
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
