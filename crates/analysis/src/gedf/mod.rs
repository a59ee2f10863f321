//! Global EDF (family `global-edf`): sufficient hard real-time schedulability tests for
//! preemptive global EDF on `m` identical processors, and the `gedf` battery.
//!
//! | name | test | deadlines |
//! |---|---|---|
//! | `gedf-gfb` | Goossens, Funk & Baruah 2003, density form | constrained |
//! | `gedf-bak` | Baker 2003, `λ = Ck/Dk` | arbitrary |
//! | `gedf-bcl` | Bertogna, Cirinei & Lipari 2005 | constrained |
//! | `gedf-bcl-iter` | Bertogna, Cirinei & Lipari 2009, slack iteration | constrained |
//! | `gedf-rta` | Bertogna & Cirinei 2007, response-time analysis (bounds) | constrained |
//! | `gedf-bar` | Baruah 2007, integer-time correction | constrained |
//! | `gedf-ffdbf` | Baruah, Bonifaci, Marchetti-Spaccamela & Stiller 2010 | constrained |
//! | `gedf-load` | Baker & Baruah 2009, LOAD | arbitrary |
//! | `gedf-sb` | Srinivasan & Baruah 2002 utilization bound | implicit |
//! | `gedf` | any of the above, cheap tests first | arbitrary |
//!
//! Every test first rejects trivially infeasible sets (`u > 1` or `U > m`) as *not shown*
//! (`precheck.rs`), as SchedCAT's native tests do. The interfering-workload bounds shared by the
//! window-based tests live in `workload.rs`; exact demand-bound helpers in `dbf.rs`.

use crate::battery::AnyOf;
use crate::test::{Kind, SchedTest, TestInfo};

pub mod bak;
pub mod bar;
pub mod bcl;
pub mod bcl_iter;
mod dbf;
pub mod ffdbf;
pub mod gfb;
pub mod load;
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
pub use bar::Bar;
pub use bcl::Bcl;
pub use bcl_iter::BclIter;
pub use ffdbf::FfDbf;
pub use gfb::Gfb;
pub use load::Load;
pub use rta::Rta;
pub use sb::Sb;

/// The `gedf` battery: accepted by any member, tried cheapest first (measured on the
/// benchmark workload, docs/benchmarks.md): the closed-form bounds, then the O(n²) window
/// tests, then the iterative and pseudo-polynomial ones.
pub fn battery() -> AnyOf {
    AnyOf {
        info: TestInfo {
            name: "gedf".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation: "accepted by any of gedf-gfb, gedf-sb, gedf-bak, gedf-bcl, gedf-load, \
                       gedf-bcl-iter, gedf-ffdbf, gedf-bar, gedf-rta (cf. SchedCAT's combined \
                       GlobalEDF test, which runs BAK, GFB, RTA and BAR)",
            assumptions: "sporadic tasks; each member applies its own assumptions, members \
                          that do not apply are skipped",
            complexity: "that of the members tried until one accepts; pseudo-polynomial \
                         members last, bounded in work (gave-up only if no member accepts)",
        },
        members: vec![
            Box::new(Gfb),
            Box::new(Sb),
            Box::new(Bak),
            Box::new(Bcl),
            Box::new(Load::default()),
            Box::new(BclIter {
                screen: rta::SCREEN_PASSES,
                ..BclIter::default()
            }),
            Box::new(FfDbf::default()),
            Box::new(Bar::default()),
            Box::new(Rta {
                screen: rta::SCREEN_PASSES,
                ..Rta::default()
            }),
        ],
    }
}

/// The tests of this family, in listing order (cheap tests first, the battery last).
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![
        Box::new(Gfb),
        Box::new(Sb),
        Box::new(Bak),
        Box::new(Bcl),
        Box::new(BclIter::default()),
        Box::new(Rta::default()),
        Box::new(Bar::default()),
        Box::new(FfDbf::default()),
        Box::new(Load::default()),
        Box::new(battery()),
    ]
}
