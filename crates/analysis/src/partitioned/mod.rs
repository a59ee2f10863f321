//! Partitioned tests (family `partitioned`): bin-packing heuristics with exact uniprocessor
//! admission (`pedf-*`, `pfp-*`) and the López et al. utilization bounds (`pedf-lopez`,
//! `pfp-lopez`).

pub mod admission;
pub mod binpack;
pub mod charged_pack;
pub mod lopez_edf;
pub mod lopez_fp;
pub mod pack_test;

use crate::test::SchedTest;
use binpack::Heuristic;
use pack_test::{Local, Partitioned};

/// The tests of this family, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    let mut tests: Vec<Box<dyn SchedTest>> = Vec::new();
    for local in [Local::Edf, Local::Fp] {
        for h in [
            Heuristic::FirstFit,
            Heuristic::BestFit,
            Heuristic::WorstFit,
            Heuristic::NextFit,
        ] {
            for decreasing in [false, true] {
                tests.push(Box::new(Partitioned::new(local, h, decreasing)));
            }
        }
    }
    tests.push(Box::new(lopez_edf::PedfLopez));
    tests.push(Box::new(lopez_fp::PfpLopez));
    tests
}
