//! Composite tests: "accepted by any of these", running the members in the given order (cheap
//! tests first) and stopping at the first acceptance, as SchedCAT's combined G-EDF test does
//! (`native/src/edf/gedf.cpp`). Members that do not apply are skipped; if none accepts and any
//! gave up, the composite gave up too (a work limit is never reported as a verdict).

use crate::system::System;
use crate::test::{analyze, Kind, SchedTest, TestInfo};
use crate::verdict::{Status, Verdict};

/// "Schedulable if any member says so".
pub struct AnyOf {
    /// Static description of the composite.
    pub info: TestInfo,
    /// Members in the order they are tried.
    pub members: Vec<Box<dyn SchedTest>>,
}

impl SchedTest for AnyOf {
    fn info(&self) -> TestInfo {
        self.info.clone()
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        let mut reasons = Vec::new();
        for m in &self.members {
            match m.check(sys) {
                Ok(()) => return Ok(()),
                Err(r) => reasons.push(format!("{}: {r}", m.name())),
            }
        }
        Err(format!("no member test applies ({})", reasons.join("; ")))
    }
    fn run(&self, sys: &System) -> Verdict {
        let mut gave_up = Vec::new();
        for m in &self.members {
            let v = analyze(m.as_ref(), sys);
            match v.status {
                Status::Schedulable => {
                    let name = m.name();
                    return v.because(format!("accepted by {name}"));
                }
                Status::GaveUp => {
                    gave_up.push(format!("{} ({})", m.name(), v.reason.unwrap_or_default()))
                }
                // An exact member's "unschedulable" settles it.
                Status::Unschedulable if m.info().kind == Kind::Exact => return v,
                _ => {}
            }
        }
        if gave_up.is_empty() {
            Verdict::not_shown()
        } else {
            Verdict::gave_up(format!(
                "no member accepted and some gave up: {}",
                gave_up.join(", ")
            ))
        }
    }
}
