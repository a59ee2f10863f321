//! Global EDF: sufficient hard real-time tests, one file per test.

use crate::test::SchedTest;

pub mod bar;
mod dbf;
pub mod ffdbf;
pub mod load;

/// The tests of this family, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![
        Box::new(bar::Bar::default()),
        Box::new(ffdbf::FfDbf::default()),
        Box::new(load::Load::default()),
    ]
}
