//! Hierarchical multiprocessor reservations (H-CBS) [HCBS §3]: a task group gets one hard
//! CBS server `(Q, P)` per CPU it may use, and global fixed priority inside the group runs on
//! the virtual processors those servers provide.
//!
//! - [`supply`]: the exact supply function of one server [HCBS §3.3.1, Eq. 4] and its linear
//!   `(α, Δ)` abstraction [HCBS §3.3.2, Eq. 7–8], in integer nanoseconds and exact rationals.
//! - [`interference`]: workload [Eq. 11–12], lengths [Eq. 15] and interference [Eq. 13]; the
//!   misprint of Eq. 16 and its correct form.
//! - [`group_test`]: one group's tasks on its servers [Eq. 14].
//! - [`nesting`]: subgroups' servers EDF-schedulable inside their parent's.
//! - [`gfp`]: the test `hcbs-gfp` over a set's groups (admission [Eq. 17], nesting, reports).
//! - [`design`]: the smallest budget per group that `hcbs-gfp` accepts (`schedlab design
//!   reservations`).
//! - [`report`]: what is reported per group.

pub mod design;
pub mod gfp;
pub mod group_test;
pub mod interference;
pub mod nesting;
pub mod report;
pub mod supply;

pub use gfp::HcbsGfp;

use crate::test::SchedTest;

/// The tests of this family, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![Box::new(HcbsGfp)]
}
