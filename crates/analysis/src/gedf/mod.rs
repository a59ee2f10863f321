//! Global EDF (family `global-edf`): sufficient hard real-time schedulability tests for
//! preemptive global EDF on `m` identical processors.
//!
//! | name | test | deadlines |
//! |---|---|---|
//! | `gedf-gfb` | Goossens, Funk & Baruah 2003, density form | constrained |
//! | `gedf-bak` | Baker 2003, `λ = Ck/Dk` | arbitrary |
//! | `gedf-bcl` | Bertogna, Cirinei & Lipari 2005 | constrained |
//! | `gedf-bcl-iter` | Bertogna, Cirinei & Lipari 2009, slack iteration | constrained |
//! | `gedf-rta` | Bertogna & Cirinei 2007, response-time analysis (bounds) | constrained |
//! | `gedf-sb` | Srinivasan & Baruah 2002 utilization bound | implicit |
//!
//! Every test first rejects trivially infeasible sets (`u > 1` or `U > m`) as *not shown*
//! (`precheck.rs`), as SchedCAT's native tests do. The interfering-workload bounds shared by the
//! window-based tests live in `workload.rs`.

use crate::test::SchedTest;

pub mod bak;
pub mod bcl;
pub mod bcl_iter;
pub mod gfb;
pub(crate) mod precheck;
pub mod rta;
pub mod sb;
pub(crate) mod workload;

#[cfg(test)]
mod bench;
#[cfg(test)]
mod props;
#[cfg(test)]
pub(crate) mod testutil;

pub use bak::Bak;
pub use bcl::Bcl;
pub use bcl_iter::BclIter;
pub use gfb::Gfb;
pub use rta::Rta;
pub use sb::Sb;

/// The tests of this family, in listing order (cheap tests first).
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![
        Box::new(Gfb),
        Box::new(Sb),
        Box::new(Bak),
        Box::new(Bcl),
        Box::new(BclIter::default()),
        Box::new(Rta::default()),
    ]
}
