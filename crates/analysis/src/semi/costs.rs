//! What a part of a task costs on its CPU beyond its budget: nothing without overheads, the
//! RTPS accounting [RTPS §V, formulas A–E] with them (`crate::semi::rtps_costs`).
//!
//! The cost of a part depends on where it and its neighbours run: ready-queue operations are
//! charged once per split task hosted by the CPU whose queue they operate on [RTPS §VI-A], so
//! every cost is a function of the part's site and of the number of split tasks per CPU.

use super::split::PartKind;

/// Where a part runs and where its job comes from and goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    /// Whole, head, body or tail.
    pub kind: PartKind,
    /// The CPU that runs the part.
    pub own: usize,
    /// The CPU of the task's next part (heads and bodies): whose ready queue the job is sent
    /// to at budget exhaustion.
    pub next: Option<usize>,
    /// The CPU of the task's head (tails): whose ready queue the tail CPU releases the next
    /// job into [RTPS §IV-B].
    pub head: usize,
}

/// What the costs of a part may depend on besides its site, per CPU.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CpuFacts<'x> {
    /// Split tasks hosted by each CPU.
    pub splits: &'x [u32],
    /// The largest working set (bytes) among each CPU's parts (0 if none).
    pub max_wss: &'x [u64],
    /// The number of parts on each CPU (the `n` overheads are evaluated at).
    pub pieces: &'x [usize],
}

/// The per-part overhead model of a semi-partitioned test.
pub(crate) trait Costs {
    /// The time (ns) added to the part's budget at `site`. Must not decrease when a CPU gains
    /// a split task, a part or a larger working set.
    fn extra(&self, site: &Site, facts: &CpuFacts<'_>) -> u64;
    /// Task `task`'s working set in bytes (0 if unknown).
    fn wss(&self, _task: usize) -> u64 {
        0
    }
    /// Charged costs are rounded up, deadlines and periods down, to this (ns, ≥ 1).
    fn granularity(&self) -> u64 {
        1
    }
    /// Every part costs exactly its budget (no overheads): lets the assignment skip the
    /// re-verification of other CPUs when split counts change.
    fn is_zero(&self) -> bool {
        false
    }
}

/// No overheads.
pub(crate) struct NoCosts;

impl Costs for NoCosts {
    fn extra(&self, _site: &Site, _facts: &CpuFacts<'_>) -> u64 {
        0
    }
    fn is_zero(&self) -> bool {
        true
    }
}
