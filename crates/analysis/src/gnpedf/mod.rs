//! Hard-real-time tests for global non-preemptive EDF (G-NP-EDF). The bounded-tardiness
//! tests for G-NP-EDF (`gnpedf-soft`, `gnpedf-soft-closed`) live in [`crate::soft`].

pub mod bar;

use crate::test::SchedTest;

/// The tests of this family, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![Box::new(bar::GnpedfBar)]
}
