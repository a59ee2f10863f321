//! Tests for parallel (fork-join) tasks [RTWS §III]: a job is a sequence of regions of
//! independent threads, of work `C` (= T1, the sum of its threads) and critical path `L`
//! (= T∞, the sum of each region's longest thread). Both tests here read `L` from the system
//! ([`crate::System::span`]; `L = C` for a sequential task), so they apply to any mix of
//! sequential and parallel tasks ([`crate::SchedTest::handles_parallel`]).
//!
//! - [`federated`] (`federated`): federated scheduling [Li, Chen, Agrawal, Lu, Gill, ECRTS
//!   2014]: each heavy task (`C > D`) gets dedicated CPUs, the light tasks share the rest as
//!   sequential tasks under another test.
//! - [`cab`] (`gedf-cab`): the capacity augmentation bound of global EDF for DAG tasks,
//!   `b = (3 + √5)/2 ≈ 2.618` [same paper].
//!
//! **What covers RTWS.** Neither test is proven for RTWS [RTWS §V] (global EDF for jobs plus
//! priority-ordered work stealing for their threads): the paper gives no analysis, and RTWS
//! is neither G-EDF over the threads (a CPU prefers its own deque and the global queue over a
//! higher-priority thread elsewhere; a stolen thread's preemption sends it to the global
//! queue) nor federated. What the simulator shows instead is the work-stealing bound for a
//! lone job: on `m` idle CPUs a job's response time is at most `T1/m + T∞` [RTWS Eq. 2]
//! (property-tested with the simulator, crates/sim).

pub mod cab;
pub mod federated;

use crate::test::SchedTest;

/// The tests of this family, with default parameters.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![
        Box::new(federated::Federated::default()),
        Box::new(cab::GedfCab),
    ]
}
