//! Random task utilities (the values of downward-step time/utility functions [ChronOS §3.4])
//! for the overload experiments of [ChronOS §8], read from one string.
//!
//! | string | utility of a task with period `T` |
//! |---|---|
//! | `uniform:A..B` | uniform on `[A, B]` (`0 ≤ A ≤ B`, finite) |
//! | `chronos` | a uniform integer in `[0, ⌊T / 1µs⌋)` (0 if `T < 2µs`) |
//!
//! `chronos` is the thesis's rule [ChronOS §8.4, last paragraph]: "Utilities were assigned to
//! tasks by taking the modulo of a randomly generated number and the period of the taskset",
//! which makes the expected value density `utility / C` about `1 / (2u)`: a bias toward
//! light tasks and none with respect to periods (the thesis reports correlations of −0.23 to
//! −0.54 between utilization and value density). Assumptions: the period is taken in
//! microseconds (the unit of the ChronOS test application's task files, which is not stated),
//! and the "randomly generated number" is uniform over a range much larger than the period,
//! so that the modulo is uniform; here it is exactly uniform (Lemire's method, [`below`]).
//!
//! Reproducibility: the utilities of set `k` are drawn, in task index order, from a stream of
//! their own ([`utility_rng`]), not from the stream that draws the set's utilizations,
//! periods and deadlines. So turning utilities on changes no task's timing (a batch with and
//! without `--utility` has the same tasks), and the utility of task `i` does not depend on how
//! many tasks follow (growing sequences keep their utilities as they grow). O(1) per task.

use crate::error::GenError;
use crate::parse::parse_f64_range;
use crate::rng::{below, unit, GenRng};
use rand_chacha::rand_core::SeedableRng;
use std::fmt;

/// How task utilities are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UtilityDist {
    /// Uniform on `[lo, hi]`.
    Uniform {
        /// Lower end (≥ 0).
        lo: f64,
        /// Upper end (≥ `lo`).
        hi: f64,
    },
    /// [ChronOS §8.4]: a uniform integer in `[0, ⌊T/1µs⌋)`.
    Chronos,
}

const KIND: &str = "utility distribution";

impl UtilityDist {
    /// Reads `uniform:A..B` or `chronos`.
    ///
    /// ```
    /// use schedlab_gen::UtilityDist;
    /// assert_eq!(UtilityDist::parse("uniform:1..100").unwrap(), UtilityDist::Uniform { lo: 1.0, hi: 100.0 });
    /// assert_eq!(UtilityDist::parse("chronos").unwrap(), UtilityDist::Chronos);
    /// assert!(UtilityDist::parse("uniform:-1..2").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<UtilityDist, GenError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("chronos") {
            return Ok(UtilityDist::Chronos);
        }
        let Some(range) = t.strip_prefix("uniform:") else {
            return Err(GenError::parse(
                KIND,
                text,
                t,
                "expected uniform:A..B or chronos",
            ));
        };
        let (lo, hi) = parse_f64_range(KIND, text, range)?;
        if lo < 0.0 {
            return Err(GenError::parse(
                KIND,
                text,
                range,
                "utilities are ≥ 0 (A must be ≥ 0)",
            ));
        }
        Ok(UtilityDist::Uniform { lo, hi })
    }

    /// The utility of a task with period `period_ns`.
    pub fn sample(&self, rng: &mut GenRng, period_ns: u64) -> f64 {
        match *self {
            UtilityDist::Uniform { lo, hi } => {
                // `unit` is below 1, so the draw stays ≤ hi; clamp against rounding anyway.
                (lo + (hi - lo) * unit(rng)).min(hi)
            }
            UtilityDist::Chronos => below(rng, period_ns / 1_000) as f64,
        }
    }
}

impl fmt::Display for UtilityDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UtilityDist::Uniform { lo, hi } => write!(f, "uniform:{lo}..{hi}"),
            UtilityDist::Chronos => f.write_str("chronos"),
        }
    }
}

/// The stream the utilities of set `index` of the batch seeded `seed` are drawn from: ChaCha8
/// stream `index` under a key of its own (the key of [`crate::rng::rng_for`] with every byte
/// XORed with `0x55`), so it is independent of the set's other draws.
pub fn utility_rng(seed: u64, index: u64) -> GenRng {
    let mut key = crate::rng::key_for(seed);
    for b in &mut key {
        *b ^= 0x55;
    }
    let mut rng = GenRng::from_seed(key);
    rng.set_stream(index);
    rng
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::rng_for;
    use rand_chacha::rand_core::RngCore;

    #[test]
    fn reads_and_prints_the_forms() {
        for text in ["uniform:1..100", "chronos", "uniform:0.5..0.5"] {
            let d = UtilityDist::parse(text).unwrap();
            assert_eq!(UtilityDist::parse(&d.to_string()).unwrap(), d);
        }
        for bad in ["uniform:5..1", "uniform:a..b", "step", "uniform:1", ""] {
            assert!(UtilityDist::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn draws_stay_in_range() {
        let mut rng = utility_rng(3, 0);
        let d = UtilityDist::parse("uniform:2..5").unwrap();
        let draws: Vec<f64> = (0..1000).map(|_| d.sample(&mut rng, 1)).collect();
        assert!(draws.iter().all(|u| (2.0..=5.0).contains(u)));
        let mean = draws.iter().sum::<f64>() / 1000.0;
        assert!((3.3..3.7).contains(&mean), "{mean}");
        // chronos: integers below the period in µs (10 ms → 0..10000), mean about 5000.
        let c: Vec<f64> = (0..1000)
            .map(|_| UtilityDist::Chronos.sample(&mut rng, 10_000_000))
            .collect();
        assert!(c
            .iter()
            .all(|u| u.fract() == 0.0 && (0.0..10_000.0).contains(u)));
        let mean = c.iter().sum::<f64>() / 1000.0;
        assert!((4500.0..5500.0).contains(&mean), "{mean}");
        // A period below 1 µs has no room for a positive utility.
        assert_eq!(UtilityDist::Chronos.sample(&mut rng, 999), 0.0);
    }

    #[test]
    fn the_utility_stream_is_not_the_set_stream() {
        let (mut a, mut b) = (utility_rng(7, 2), rng_for(7, 2));
        assert_ne!(a.next_u64(), b.next_u64());
        let (mut a, mut b) = (utility_rng(7, 2), utility_rng(7, 2));
        assert_eq!(a.next_u64(), b.next_u64());
    }
}
