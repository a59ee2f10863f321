//! The architecture models: for each instant of the policy simulator, the code paths an
//! architecture executes and on which CPUs ([`ArchModel::instant`]). One file per
//! architecture; each documents its paths with their costs.

pub(crate) mod global_lock;
pub(crate) mod message_passing;
pub(crate) mod partitioned;
pub(crate) mod push_pull;

use super::feed::{Instant, Mirror};
use super::machine::{Machine, Step};
use super::stats::Span;

/// One architecture's mechanism.
pub(crate) trait ArchModel {
    /// Submits the code paths of instant `inst` (the mirror is the schedule before it).
    fn instant(&mut self, inst: &Instant, mir: &Mirror, m: &mut Machine);
    /// Abnormal-path counters (name, count), e.g. push retries.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// Appends a context switch (Δcxs) to `steps`.
pub(crate) fn context_switch(steps: &mut Vec<Step>, cost: u64) {
    steps.extend([
        Step::Begin(Span::ContextSwitch),
        Step::Work(cost),
        Step::End(Span::ContextSwitch),
    ]);
}

/// Appends the Δev part of a release handler: from the timer's expiry (the path's origin)
/// through the interrupt entry `timer_irq`; then starts Δrel.
pub(crate) fn timer_entry(steps: &mut Vec<Step>, timer_irq: u64) {
    steps.extend([
        Step::BeginAtOrigin(Span::ReleaseLatency),
        Step::Work(timer_irq),
        Step::End(Span::ReleaseLatency),
        Step::Begin(Span::Release),
    ]);
}

/// Appends the Δipi sample of a path caused by an IPI (its origin is the send).
pub(crate) fn ipi_received(steps: &mut Vec<Step>) {
    steps.extend([Step::BeginAtOrigin(Span::Ipi), Step::End(Span::Ipi)]);
}
