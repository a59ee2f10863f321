//! Small exact-arithmetic helpers shared by the tests.

pub mod math;
