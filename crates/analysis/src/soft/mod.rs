//! Bounded-tardiness (soft real-time) tests: a "schedulable" verdict means every task's
//! tardiness is bounded, and the verdict carries per-task tardiness bounds (ns, rounded up).
//!
//! | name | scheduler | bound |
//! |---|---|---|
//! | `gedf-soft` | preemptive G-EDF | Devi & Anderson, Devi diss. Cor. 4.11 [ChronOS Eq. 6.4] |
//! | `gedf-soft-closed` | preemptive G-EDF | closed form [ChronOS Eq. 6.3] |
//! | `gnpedf-soft` | non-preemptive G-EDF | Devi & Anderson EDF-P-NP [ChronOS Eq. 6.6] |
//! | `gnpedf-soft-closed` | non-preemptive G-EDF | closed form [ChronOS Eq. 6.7] |
//! | `gfifo-soft` | G-FIFO | GEL compliant-vector bound with priority points at release |
//!
//! All of them are exact about *whether* tardiness is bounded (`U ≤ m` and every `uᵢ ≤ 1`),
//! so `U > m` is answered "unschedulable".

mod common;
pub mod gedf_soft;
pub mod gedf_soft_closed;
pub mod gfifo_soft;
pub mod gnpedf_soft;
pub mod gnpedf_soft_closed;

use crate::test::SchedTest;

/// The tests of this family, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![
        Box::new(gedf_soft::GedfSoft),
        Box::new(gedf_soft_closed::GedfSoftClosed),
        Box::new(gnpedf_soft::GnpedfSoft),
        Box::new(gnpedf_soft_closed::GnpedfSoftClosed),
        Box::new(gfifo_soft::GfifoSoft::default()),
    ]
}
