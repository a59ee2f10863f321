//! Per-task utilization distributions, named and parameterised, read from one string.
//!
//! | string | distribution | source |
//! |---|---|---|
//! | `uniform:A..B` | uniform on `[A, B]` (`0 ≤ A ≤ B ≤ 1`, `B > 0`) | |
//! | `exp:MEAN` | exponential with mean `MEAN`, draws outside `(0, 1]` redrawn | SchedCAT `exponential(0, 1, mean)` |
//! | `uni-light` | uniform `[0.001, 0.1]` | ChronOS §8.4; SchedCAT `NAMED_UTILIZATIONS` |
//! | `uni-medium` | uniform `[0.1, 0.4]` | same |
//! | `uni-heavy` | uniform `[0.5, 0.9]` | same |
//! | `bimo-light` | `[0.001, 0.5]` w.p. 8/9, else `[0.5, 0.9]` | same |
//! | `bimo-medium` | `[0.001, 0.5]` w.p. 6/9, else `[0.5, 0.9]` | same |
//! | `bimo-heavy` | `[0.001, 0.5]` w.p. 4/9, else `[0.5, 0.9]` | same |
//! | `exp-light` / `exp-medium` / `exp-heavy` | `exp:0.1` / `exp:0.25` / `exp:0.5` | SchedCAT names |
//!
//! ChronOS = M. A. Dellinger, "An Experimental Evaluation of the Scalability of Real-Time
//! Scheduling Algorithms on Large-Scale Multicore Platforms", MS thesis, Virginia Tech, 2011,
//! §8.4 "Baker Tasksets" (after Brandenburg et al.). MP = Cerqueira, Vanga & Brandenburg,
//! "Scaling Global Scheduling with Message Passing", RTAS 2014, §V-A: its six distributions
//! (three exponential over `[0, 1]` with means 0.1, 0.25, 0.5; three uniform over
//! `[0.1, 0.2]`, `[0.1, 0.4]`, `[0.5, 0.9]`) are the strings `exp:0.1`, `exp:0.25`, `exp:0.5`,
//! `uniform:0.1..0.2`, `uniform:0.1..0.4`, `uniform:0.5..0.9`.
//!
//! Exponential draws use inversion, `−MEAN·ln V` with `V` uniform on (0, 1); a draw outside
//! `(0, 1]` is redrawn, at most `max_attempts` times (then [`GenError::AttemptsExhausted`]).
//! The bimodal choice compares an exact integer draw in `0..9` with the weight, so the mode
//! probabilities are exactly 8/9, 6/9, 4/9. Each draw is O(1).

use crate::detmath::ln;
use crate::error::GenError;
use crate::parse::{parse_f64, parse_f64_range};
use crate::rng::{below, unit, unit_open};
use rand_chacha::rand_core::RngCore;
use std::fmt;

/// A per-task utilization distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UtilDist {
    /// Uniform on `[lo, hi]`.
    Uniform {
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
    },
    /// Exponential with the given mean, restricted to `(0, 1]` by redrawing.
    Exponential {
        /// Mean of the unrestricted exponential.
        mean: f64,
    },
    /// Two uniform modes: `[first.0, first.1]` with probability `first_weight / total_weight`,
    /// else `[second.0, second.1]`.
    Bimodal {
        /// The first mode's interval.
        first: (f64, f64),
        /// The second mode's interval.
        second: (f64, f64),
        /// Weight of the first mode.
        first_weight: u32,
        /// Sum of both weights.
        total_weight: u32,
    },
}

/// Named distributions accepted by [`UtilDist::parse`] (besides `uniform:` and `exp:`).
pub const UTIL_DIST_NAMES: [&str; 9] = [
    "uni-light",
    "uni-medium",
    "uni-heavy",
    "bimo-light",
    "bimo-medium",
    "bimo-heavy",
    "exp-light",
    "exp-medium",
    "exp-heavy",
];

const KIND: &str = "utilization distribution";
const LIGHT_MODE: (f64, f64) = (0.001, 0.5);
const HEAVY_MODE: (f64, f64) = (0.5, 0.9);

impl UtilDist {
    /// Reads a distribution string (see the module table).
    ///
    /// ```
    /// use schedlab_gen::UtilDist;
    /// assert_eq!(UtilDist::parse("uniform:0.1..0.4").unwrap(), UtilDist::parse("uni-medium").unwrap());
    /// assert_eq!(UtilDist::parse("exp:0.25").unwrap(), UtilDist::Exponential { mean: 0.25 });
    /// let err = UtilDist::parse("uniform:0.1..1.4").unwrap_err().to_string();
    /// assert!(err.contains("1.4"), "{err}");
    /// ```
    pub fn parse(text: &str) -> Result<UtilDist, GenError> {
        let s = text.trim();
        let bimodal = |w: u32| UtilDist::Bimodal {
            first: LIGHT_MODE,
            second: HEAVY_MODE,
            first_weight: w,
            total_weight: 9,
        };
        match s.to_ascii_lowercase().as_str() {
            "uni-light" => return Ok(UtilDist::Uniform { lo: 0.001, hi: 0.1 }),
            "uni-medium" => return Ok(UtilDist::Uniform { lo: 0.1, hi: 0.4 }),
            "uni-heavy" => return Ok(UtilDist::Uniform { lo: 0.5, hi: 0.9 }),
            "bimo-light" => return Ok(bimodal(8)),
            "bimo-medium" => return Ok(bimodal(6)),
            "bimo-heavy" => return Ok(bimodal(4)),
            "exp-light" => return Ok(UtilDist::Exponential { mean: 0.1 }),
            "exp-medium" => return Ok(UtilDist::Exponential { mean: 0.25 }),
            "exp-heavy" => return Ok(UtilDist::Exponential { mean: 0.5 }),
            _ => {}
        }
        let Some((name, arg)) = s.split_once(':') else {
            return Err(unknown(text, s));
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "uniform" | "uni" => {
                let (lo, hi) = parse_f64_range(KIND, text, arg)?;
                if lo < 0.0 || hi > 1.0 || hi <= 0.0 {
                    return Err(GenError::parse(
                        KIND,
                        text,
                        arg.trim(),
                        "a utilization range must lie in [0, 1] and have an upper end > 0",
                    ));
                }
                Ok(UtilDist::Uniform { lo, hi })
            }
            "exp" | "exponential" => {
                let mean = parse_f64(KIND, text, arg)?;
                if mean <= 0.0 {
                    return Err(GenError::parse(
                        KIND,
                        text,
                        arg.trim(),
                        "the mean must be > 0",
                    ));
                }
                Ok(UtilDist::Exponential { mean })
            }
            _ => Err(unknown(text, name.trim())),
        }
    }

    /// One utilization in `(0, 1]` (uniform ranges may include 0 if `lo = 0`).
    pub fn sample<R: RngCore + ?Sized>(
        &self,
        rng: &mut R,
        max_attempts: u64,
    ) -> Result<f64, GenError> {
        match *self {
            UtilDist::Uniform { lo, hi } => Ok(lo + (hi - lo) * unit(rng)),
            UtilDist::Exponential { mean } => {
                for _ in 0..max_attempts {
                    let x = -mean * ln(unit_open(rng));
                    if x > 0.0 && x <= 1.0 {
                        return Ok(x);
                    }
                }
                Err(GenError::AttemptsExhausted {
                    method: "exponential utilization",
                    attempts: max_attempts,
                    hint: "the mean is so large that draws rarely fall in (0, 1]",
                })
            }
            UtilDist::Bimodal {
                first,
                second,
                first_weight,
                total_weight,
            } => {
                let (lo, hi) = if below(rng, u64::from(total_weight)) < u64::from(first_weight) {
                    first
                } else {
                    second
                };
                Ok(lo + (hi - lo) * unit(rng))
            }
        }
    }

    /// The mean of the distribution (of the restricted exponential for `Exponential`).
    pub fn mean(&self) -> f64 {
        match *self {
            UtilDist::Uniform { lo, hi } => (lo + hi) / 2.0,
            UtilDist::Exponential { mean } => {
                // E[X | X ≤ 1] for X ~ Exp(mean): mean − e^(−1/mean)/(1 − e^(−1/mean)).
                let q = crate::detmath::exp(-1.0 / mean);
                mean - q / (1.0 - q)
            }
            UtilDist::Bimodal {
                first,
                second,
                first_weight,
                total_weight,
            } => {
                let p = f64::from(first_weight) / f64::from(total_weight.max(1));
                p * (first.0 + first.1) / 2.0 + (1.0 - p) * (second.0 + second.1) / 2.0
            }
        }
    }
}

fn unknown(text: &str, part: &str) -> GenError {
    GenError::parse(
        KIND,
        text,
        part,
        format!(
            "unknown distribution; expected uniform:A..B, exp:MEAN or one of {}",
            UTIL_DIST_NAMES.join(", ")
        ),
    )
}

impl fmt::Display for UtilDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UtilDist::Uniform { lo, hi } => write!(f, "uniform:{lo}..{hi}"),
            UtilDist::Exponential { mean } => write!(f, "exp:{mean}"),
            UtilDist::Bimodal {
                first,
                second,
                first_weight,
                total_weight,
            } => {
                let standard = *first == LIGHT_MODE && *second == HEAVY_MODE && *total_weight == 9;
                match (standard, first_weight) {
                    (true, 8) => write!(f, "bimo-light"),
                    (true, 6) => write!(f, "bimo-medium"),
                    (true, 4) => write!(f, "bimo-heavy"),
                    _ => write!(
                        f,
                        "bimodal(uniform:{}..{} w.p. {first_weight}/{total_weight}, else uniform:{}..{})",
                        first.0, first.1, second.0, second.1
                    ),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::rng_for;

    fn sample_mean(d: &UtilDist, runs: usize) -> (f64, f64, f64) {
        let mut rng = rng_for(41, 0);
        let (mut m, mut lo, mut hi) = (0.0, f64::INFINITY, 0.0f64);
        for _ in 0..runs {
            let x = d.sample(&mut rng, 10_000).unwrap();
            m += x / runs as f64;
            lo = lo.min(x);
            hi = hi.max(x);
        }
        (m, lo, hi)
    }

    #[test]
    fn every_name_parses_and_samples_near_its_mean() {
        for name in UTIL_DIST_NAMES {
            let d = UtilDist::parse(name).unwrap();
            let (m, lo, hi) = sample_mean(&d, 20_000);
            assert!(lo > 0.0 && hi <= 1.0, "{name}: [{lo}, {hi}]");
            assert!((m - d.mean()).abs() < 0.01, "{name}: {m} vs {}", d.mean());
        }
    }

    #[test]
    fn bimodal_weights_are_the_published_ones() {
        // bimo-medium: mean = 6/9·0.2505 + 3/9·0.7 = 0.167 + 0.2333 = 0.40033…
        let d = UtilDist::parse("bimo-medium").unwrap();
        assert!((d.mean() - (6.0 / 9.0 * 0.2505 + 3.0 / 9.0 * 0.7)).abs() < 1e-12);
        let mut rng = rng_for(42, 0);
        let heavy = (0..9000)
            .filter(|_| d.sample(&mut rng, 1).unwrap() > 0.5)
            .count();
        assert!((2700..3300).contains(&heavy), "{heavy}");
    }

    #[test]
    fn mp_distributions_map_to_strings() {
        assert_eq!(
            UtilDist::parse("exp:0.1").unwrap(),
            UtilDist::parse("exp-light").unwrap()
        );
        assert_eq!(
            UtilDist::parse("uniform:0.1..0.2").unwrap(),
            UtilDist::Uniform { lo: 0.1, hi: 0.2 }
        );
    }

    #[test]
    fn errors_name_the_bad_part() {
        let e = UtilDist::parse("uniform:0.5..0.2").unwrap_err();
        assert!(
            matches!(&e, GenError::Parse { part, .. } if part == "0.5..0.2"),
            "{e}"
        );
        let e = UtilDist::parse("exp:abc").unwrap_err();
        assert!(
            matches!(&e, GenError::Parse { part, .. } if part == "abc"),
            "{e}"
        );
        let e = UtilDist::parse("gauss:1").unwrap_err();
        assert!(
            matches!(&e, GenError::Parse { part, .. } if part == "gauss"),
            "{e}"
        );
        assert!(UtilDist::parse("exp:-1").is_err());
        assert!(UtilDist::parse("uniform:0.1").is_err());
        assert!(UtilDist::parse("bimo-extreme").is_err());
    }

    #[test]
    fn huge_exponential_mean_gives_up_with_typed_error() {
        let d = UtilDist::Exponential { mean: 1e9 };
        let mut rng = rng_for(43, 0);
        assert!(matches!(
            d.sample(&mut rng, 5),
            Err(GenError::AttemptsExhausted { .. })
        ));
    }
}
