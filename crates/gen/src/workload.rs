//! The analysis benchmark workload: the task sets on which schedlab's speed is measured and
//! compared with SchedCAT's C++ core (`schedlab bench analysis`, `benches/gedf.rs`).
//!
//! Per set: `U = min(m · Uniform(0.25, 0.75), 0.3 · n)`; utilizations by UUniFast-Discard
//! (every `u ≤ 1`); periods uniform integers in `[10, 1000]` (the time unit is 1 ns here, so
//! the numbers match the reference setting exactly); implicit deadlines; `C = max(1, ⌊u·T⌋)`.
//! Set `k` of seed `s` is the same however many sets are drawn. Cost: O(n) per set (plus the
//! discard retries of UUniFast-Discard, rare at `U ≤ 0.3 n`).

use crate::error::GenError;
use crate::period::PeriodDist;
use crate::rng::{rng_for, unit};
use crate::spec::{GenSpec, Shape};
use crate::util_vec::VecMethod;
use crate::DeadlineSpec;
use schedlab_model::TaskSet;

/// Set `index` of the benchmark workload for `cpus` CPUs and `tasks` tasks.
pub fn analysis_benchmark(
    cpus: u32,
    tasks: usize,
    seed: u64,
    index: u64,
) -> Result<TaskSet, GenError> {
    // The total utilization comes from its own stream so that it does not depend on how the
    // set generator consumes randomness.
    let mut rng = rng_for(seed ^ 0x05ee_d0f7_u64, index);
    let drawn = f64::from(cpus) * (0.25 + 0.5 * unit(&mut rng));
    let total = drawn.min(0.3 * tasks as f64);
    let periods = PeriodDist::parse("uniform:10ns..1000ns")?;
    let spec = GenSpec::new(
        Shape::FixedSum {
            n: tasks,
            total,
            method: VecMethod::UUniFastDiscard { lo: 0.0, hi: 1.0 },
        },
        periods,
    )
    .deadlines(DeadlineSpec::Implicit)
    .seed(seed);
    Ok(spec.generate(index)?.tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_recipe() {
        // n = 20 makes the 0.3·n cap bind (6 < 16·0.25); n = 160 leaves U = m·Uniform(.25,.75).
        for (n, lo, hi) in [(20usize, 0.0, 6.0), (160, 0.0, 12.0)] {
            for k in 0..20 {
                let set = analysis_benchmark(16, n, 1, k).unwrap();
                assert_eq!(set.len(), n);
                let u = set.utilization();
                assert!(u > lo && u <= hi + 1e-9, "n = {n}: U = {u}");
                for t in set.iter() {
                    assert!((10..=1000).contains(&t.period.as_ns()));
                    assert_eq!(t.deadline, t.period);
                    assert!(t.wcet.as_ns() >= 1);
                }
            }
        }
        assert_eq!(
            analysis_benchmark(16, 50, 3, 7).unwrap(),
            analysis_benchmark(16, 50, 3, 7).unwrap()
        );
    }

    #[test]
    fn periods_are_the_reference_integers() {
        // The distribution the workload always had (`uniform:10..1000` when bare numbers were
        // ns): the same value, so the same draws and the same sets as before time strings
        // needed a unit.
        assert_eq!(
            PeriodDist::parse("uniform:10ns..1000ns").unwrap(),
            PeriodDist::Uniform {
                lo: 10,
                hi: 1000,
                granularity: 1
            }
        );
    }
}
