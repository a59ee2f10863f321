//! Semi-partitioned tests (family `semi-partitioned`): most tasks on one CPU, a few split
//! into parts that run on several CPUs one after the other [RTPS §III].
//!
//! - `pfp-ts` ([`fpts`]): FP-TS task splitting with exact RTA per CPU (and [`assign`] for the
//!   algorithm), optionally overhead-aware [RTPS §V].

pub mod assign;
pub mod costs;
pub mod fpts;
mod rtps_costs;
pub mod split;

#[cfg(test)]
mod overhead_tests;
#[cfg(test)]
mod tests;

use crate::test::SchedTest;

/// The tests of this family, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![Box::new(fpts::PfpTs::default())]
}
