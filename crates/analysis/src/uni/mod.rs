//! Uniprocessor tests (family `uniprocessor`): exact EDF (processor demand with QPA), exact
//! fixed-priority response-time analysis, and the Liu & Layland and hyperbolic utilization
//! bounds for rate-monotonic priorities.
//!
//! Every test here applies only to `m = 1`. The exact tests also expose reusable functions
//! ([`edf::edf_feasible`], [`rta::fp_response_times`]) that the partitioned tests call as
//! per-CPU admission tests.

pub mod edf;
pub mod hb;
pub mod ll;
pub mod qpa;
pub mod root2;
pub mod rta;

use crate::system::System;
use crate::test::SchedTest;

/// The answer of an exact uniprocessor analysis used as a building block (admission tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every deadline is met.
    Schedulable,
    /// Some deadline can be missed.
    Unschedulable,
    /// The deterministic work limit was reached; the string says which limit.
    GaveUp(String),
}

impl Outcome {
    /// `Outcome::Schedulable`?
    pub fn is_schedulable(&self) -> bool {
        matches!(self, Outcome::Schedulable)
    }
}

/// The tests of this family, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![
        Box::new(edf::EdfExact::default()),
        Box::new(rta::FpRta::default()),
        Box::new(ll::FpLiuLayland),
        Box::new(hb::FpHyperbolic),
    ]
}

/// Precondition shared by the whole family: exactly one CPU.
pub(crate) fn require_uniprocessor(sys: &System) -> Result<(), String> {
    if sys.cpus() == 1 {
        Ok(())
    } else {
        Err(format!(
            "uniprocessor test: needs m = 1, but the platform has m = {} CPUs",
            sys.cpus()
        ))
    }
}

/// Precondition of the rate-monotonic utilization bounds: implicit deadlines and a priority
/// order in which periods never decrease (`rm`, `dm` on implicit deadlines, or a `given`
/// order that happens to be rate monotonic).
pub(crate) fn require_rate_monotonic(sys: &System) -> Result<(), String> {
    sys.require_implicit()?;
    let order = sys.priority_order()?;
    let params = sys.params();
    let mut prev = 0u64;
    for &i in order {
        let t = params.get(i).map_or(0, |p| p.t);
        if t < prev {
            return Err(format!(
                "assumes rate-monotonic priorities, but the `{}` order gives task {i} (T = {t}) \
                 a lower priority than a task with a longer period",
                sys.priorities().name()
            ));
        }
        prev = t;
    }
    Ok(())
}
