//! Small exact-arithmetic helpers shared by the tests.

pub mod budget;
pub mod math;
