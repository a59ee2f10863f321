//! The spans the overlay measures and their statistics: each span is one sample of an overhead
//! of [MP §IV-A] (Fig. 5), named as in the overhead file.
//!
//! Cost: `O(1)` per sample; memory constant (count, sum, maximum).

use schedlab_model::overheads::OverheadName;

/// A measured overhead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Span {
    /// Δev: a release timer's expiry → its handler's start (the CPU busy with interrupts off,
    /// then the interrupt entry `timer_irq`).
    ReleaseLatency = 0,
    /// Δrel: the release handler, lock waiting included.
    Release = 1,
    /// Δipi: an IPI's send → the receiver's path starts.
    Ipi = 2,
    /// Δsch: a scheduler invocation, lock waiting included [MP §IV-A].
    Schedule = 3,
    /// Δcxs: a context switch.
    ContextSwitch = 4,
    /// Δreq: a client's message send → the DSP has dequeued it.
    Request = 5,
    /// Δdsp: the DSP's handler of one message.
    Dsp = 6,
    /// Waiting for a lock (request → holding it): part of Δrel and Δsch.
    LockWait = 7,
}

impl Span {
    /// How many spans there are.
    pub const COUNT: usize = 8;
    /// Every span, in file order.
    pub const ALL: [Span; Span::COUNT] = [
        Span::ReleaseLatency,
        Span::Release,
        Span::Ipi,
        Span::Schedule,
        Span::ContextSwitch,
        Span::Request,
        Span::Dsp,
        Span::LockWait,
    ];
    /// The overhead file's name.
    pub fn overhead(self) -> OverheadName {
        match self {
            Span::ReleaseLatency => OverheadName::ReleaseLatency,
            Span::Release => OverheadName::Release,
            Span::Ipi => OverheadName::Ipi,
            Span::Schedule => OverheadName::Schedule,
            Span::ContextSwitch => OverheadName::ContextSwitch,
            Span::Request => OverheadName::Request,
            Span::Dsp => OverheadName::Dsp,
            Span::LockWait => OverheadName::LockWait,
        }
    }
}

/// Count, sum and maximum of one span's samples (ns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpanStats {
    /// Samples.
    pub count: u64,
    /// Their sum.
    pub sum_ns: u128,
    /// The largest.
    pub max_ns: u64,
}

impl SpanStats {
    /// The average, rounded up (0 without samples).
    pub fn avg_ns(&self) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let c = u128::from(self.count);
        u64::try_from(self.sum_ns.div_ceil(c)).unwrap_or(u64::MAX)
    }
    /// Adds one sample.
    pub fn add(&mut self, ns: u64) {
        self.count += 1;
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }
    /// Both runs' samples together.
    pub fn merge(&mut self, other: &SpanStats) {
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.max_ns = self.max_ns.max(other.max_ns);
    }
}

/// Every span's statistics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// By [`Span`] index.
    pub spans: [SpanStats; Span::COUNT],
}

impl Stats {
    /// Adds one sample of `span`.
    pub fn add(&mut self, span: Span, ns: u64) {
        if let Some(s) = self.spans.get_mut(span as usize) {
            s.add(ns);
        }
    }
    /// The statistics of `span`.
    pub fn get(&self, span: Span) -> SpanStats {
        self.spans.get(span as usize).copied().unwrap_or_default()
    }
}
