//! Period distributions, in integer nanoseconds, read from one string.
//!
//! | string | distribution |
//! |---|---|
//! | `uniform:A..B[/G]` | uniform over the multiples of `G` in `[A, B]` (`G` = 1 ns if omitted) |
//! | `loguniform:A..B[/G]` (also `log-uniform`) | `exp(U(ln A, ln B))`, rounded to the nearest multiple of `G`, kept in `[A, B]` |
//! | `set:P1,P2,…` | uniform choice among the listed periods; `P=W` gives an integer weight `W` |
//! | `harmonic` | uniform over {10, 20, 40, 80, 160, 320, 640, 1280} ms (10 ms · 2^k, k = 0..7) |
//! | `harmonic:A..B` | uniform over `A·2^k ≤ B` |
//! | `automotive` | {1, 2, 5, 10, 20, 50, 100, 200, 1000} ms with weights 3, 2, 2, 25, 25, 3, 20, 1, 4 |
//!
//! Every time needs a unit (`10ms`, `1.5ms`, `250us`, `2s`, `500ns`): a bare number is an error
//! that suggests one. A unit written after a range applies to both ends: `loguniform:10..100ms`
//! is 10 ms to 100 ms (`uniform:10ms..1s` stays as written). (Task files, unlike these strings,
//! keep bare integers as nanoseconds.)
//!
//! `automotive`: Kramer, Ziegenbein & Hamann, "Real world automotive benchmarks for free",
//! WATERS 2015, Table III (share of runnables per period, in percent: 1 ms 3, 2 ms 2, 5 ms 2,
//! 10 ms 25, 20 ms 25, 50 ms 3, 100 ms 20, 200 ms 1, 1000 ms 4, angle-synchronous 15). The
//! angle-synchronous share (no fixed period) is excluded, so the weights are the published
//! percentages renormalised over 85.
//!
//! Log-uniform (used by Emberson et al. 2010 and MP §V): the logarithm of the period is uniform,
//! so each decade is equally likely. Rounding to the granularity may move a draw by at most
//! `G/2`; draws are clamped to the multiples of `G` inside `[A, B]`.
//!
//! Each draw is O(1), except `set`, which is O(log k) for `k` listed periods.

use crate::detmath::{exp, ln};
use crate::error::GenError;
use crate::parse::{parse_time, parse_time_range};
use crate::rng::{below, between, unit};
use rand_chacha::rand_core::RngCore;
use schedlab_model::time::format_ns;
use std::fmt;

const KIND: &str = "period distribution";
const MS: u64 = 1_000_000;

/// A period distribution (all values in ns).
#[derive(Clone, Debug, PartialEq)]
pub enum PeriodDist {
    /// Uniform over the multiples of `granularity` in `[lo, hi]`.
    Uniform {
        /// Smallest period.
        lo: u64,
        /// Largest period.
        hi: u64,
        /// Periods are multiples of this (≥ 1).
        granularity: u64,
    },
    /// Log-uniform over `[lo, hi]`, rounded to multiples of `granularity`.
    LogUniform {
        /// Smallest period.
        lo: u64,
        /// Largest period.
        hi: u64,
        /// Periods are multiples of this (≥ 1).
        granularity: u64,
    },
    /// A weighted discrete set.
    Set {
        /// `(period, weight)` pairs, weight ≥ 1.
        choices: Vec<(u64, u64)>,
        /// The preset name, if this came from one (`harmonic`, `automotive`), for display.
        preset: Option<&'static str>,
    },
}

/// Published shares of Kramer, Ziegenbein & Hamann (WATERS 2015), angle-synchronous excluded.
pub const AUTOMOTIVE_SHARES: [(u64, u64); 9] = [
    (1, 3),
    (2, 2),
    (5, 2),
    (10, 25),
    (20, 25),
    (50, 3),
    (100, 20),
    (200, 1),
    (1000, 4),
];

impl PeriodDist {
    /// Reads a period-distribution string (see the module table).
    ///
    /// ```
    /// use schedlab_gen::PeriodDist;
    /// let p = PeriodDist::parse("uniform:10ms..100ms/1ms").unwrap();
    /// assert_eq!(p, PeriodDist::Uniform { lo: 10_000_000, hi: 100_000_000, granularity: 1_000_000 });
    /// assert!(PeriodDist::parse("automotive").is_ok());
    /// assert!(PeriodDist::parse("set:10ms,20ms=3").is_ok());
    /// let e = PeriodDist::parse("loguniform:1ms..10xs").unwrap_err().to_string();
    /// assert!(e.contains("10xs"), "{e}");
    /// ```
    pub fn parse(text: &str) -> Result<PeriodDist, GenError> {
        let s = text.trim();
        let lower = s.to_ascii_lowercase();
        match lower.as_str() {
            "harmonic" => return harmonic(text, 10 * MS, 1280 * MS),
            "automotive" => {
                return Ok(PeriodDist::Set {
                    choices: AUTOMOTIVE_SHARES
                        .iter()
                        .map(|&(p, w)| (p * MS, w))
                        .collect(),
                    preset: Some("automotive"),
                })
            }
            _ => {}
        }
        let Some((name, arg)) = s.split_once(':') else {
            return Err(unknown(text, s));
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "uniform" | "uni" => {
                let (lo, hi, granularity) = range_with_granularity(text, arg)?;
                Ok(PeriodDist::Uniform {
                    lo,
                    hi,
                    granularity,
                })
            }
            "loguniform" | "log-uniform" => {
                let (lo, hi, granularity) = range_with_granularity(text, arg)?;
                Ok(PeriodDist::LogUniform {
                    lo,
                    hi,
                    granularity,
                })
            }
            "set" => {
                let mut choices = Vec::new();
                for item in arg.split(',') {
                    let (p, w) = match item.split_once('=') {
                        Some((p, w)) => {
                            let w = w.trim().parse::<u64>().ok().filter(|&w| w > 0).ok_or_else(
                                || {
                                    GenError::parse(
                                        KIND,
                                        text,
                                        w.trim(),
                                        "a weight is an integer ≥ 1",
                                    )
                                },
                            )?;
                            (p, w)
                        }
                        None => (item, 1),
                    };
                    let p = positive_time(text, p)?;
                    choices.push((p, w));
                }
                if choices
                    .iter()
                    .try_fold(0u64, |acc, &(_, w)| acc.checked_add(w))
                    .is_none()
                {
                    return Err(GenError::parse(
                        KIND,
                        text,
                        arg.trim(),
                        "the weights sum past 2^64",
                    ));
                }
                Ok(PeriodDist::Set {
                    choices,
                    preset: None,
                })
            }
            "harmonic" => {
                let (a, b) = parse_time_range(KIND, text, arg)?;
                harmonic(text, positive(text, arg, a)?, positive(text, arg, b)?)
            }
            _ => Err(unknown(text, name.trim())),
        }
    }

    /// One period in ns (> 0).
    pub fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> u64 {
        match self {
            PeriodDist::Uniform {
                lo,
                hi,
                granularity,
            } => {
                let (klo, khi) = multiples(*lo, *hi, *granularity);
                between(rng, klo, khi).saturating_mul(*granularity)
            }
            PeriodDist::LogUniform {
                lo,
                hi,
                granularity,
            } => {
                let g = (*granularity).max(1);
                let (klo, khi) = multiples(*lo, *hi, g);
                let (a, b) = (ln(*lo as f64), ln(*hi as f64));
                let x = exp(a + (b - a) * unit(rng));
                // Nearest multiple of g; `as` saturates, the clamp keeps it in range.
                let k = ((x / g as f64) + 0.5).floor() as u64;
                k.clamp(klo, khi).saturating_mul(g)
            }
            PeriodDist::Set { choices, .. } => {
                let total = choices
                    .iter()
                    .fold(0u64, |acc, &(_, w)| acc.saturating_add(w));
                let mut r = below(rng, total);
                for &(p, w) in choices {
                    if r < w {
                        return p;
                    }
                    r -= w;
                }
                choices.last().map_or(1, |&(p, _)| p)
            }
        }
    }
}

/// `[⌈lo/g⌉, ⌊hi/g⌋]` (non-empty by construction in `parse`).
fn multiples(lo: u64, hi: u64, g: u64) -> (u64, u64) {
    let g = g.max(1);
    let klo = lo.div_ceil(g).max(1);
    // `max(klo)` keeps a hand-built inverted range from making `clamp` panic.
    (klo, (hi / g).max(klo))
}

fn harmonic(text: &str, base: u64, max: u64) -> Result<PeriodDist, GenError> {
    if base > max {
        return Err(GenError::parse(
            KIND,
            text,
            text.trim(),
            "harmonic base exceeds the maximum",
        ));
    }
    let mut choices = Vec::new();
    let mut p = base;
    while p <= max {
        choices.push((p, 1));
        match p.checked_mul(2) {
            Some(q) => p = q,
            None => break,
        }
    }
    let preset = (base == 10 * MS && max == 1280 * MS).then_some("harmonic");
    Ok(PeriodDist::Set { choices, preset })
}

fn positive_time(text: &str, part: &str) -> Result<u64, GenError> {
    positive(text, part, parse_time(KIND, text, part)?)
}

/// `ns`, if it is > 0 (else an error at `part`).
fn positive(text: &str, part: &str, ns: u64) -> Result<u64, GenError> {
    if ns == 0 {
        return Err(GenError::parse(
            KIND,
            text,
            part.trim(),
            "a period must be > 0",
        ));
    }
    Ok(ns)
}

/// `A..B[/G]` with `0 < A ≤ B`, `G ≥ 1` and at least one multiple of `G` in `[A, B]`.
fn range_with_granularity(text: &str, arg: &str) -> Result<(u64, u64, u64), GenError> {
    let (range, granularity) = match arg.split_once('/') {
        Some((r, g)) => (r, positive_time(text, g)?),
        None => (arg, 1),
    };
    let (lo, hi) = parse_time_range(KIND, text, range)?;
    let (lo, hi) = (positive(text, range, lo)?, positive(text, range, hi)?);
    if lo > hi {
        return Err(GenError::parse(
            KIND,
            text,
            range.trim(),
            "the range is empty (A > B)",
        ));
    }
    if lo.div_ceil(granularity) > hi / granularity {
        return Err(GenError::parse(
            KIND,
            text,
            arg.trim(),
            "no multiple of the granularity lies in the range",
        ));
    }
    Ok((lo, hi, granularity))
}

fn unknown(text: &str, part: &str) -> GenError {
    GenError::parse(
        KIND,
        text,
        part,
        "unknown period distribution; expected uniform:A..B[/G], loguniform:A..B[/G], \
         set:P1,P2,…, harmonic[:A..B] or automotive",
    )
}

impl fmt::Display for PeriodDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let range = |f: &mut fmt::Formatter<'_>, name: &str, lo: u64, hi: u64, g: u64| {
            write!(f, "{name}:{}..{}", format_ns(lo), format_ns(hi))?;
            if g > 1 {
                write!(f, "/{}", format_ns(g))?;
            }
            Ok(())
        };
        match self {
            PeriodDist::Uniform {
                lo,
                hi,
                granularity,
            } => range(f, "uniform", *lo, *hi, *granularity),
            PeriodDist::LogUniform {
                lo,
                hi,
                granularity,
            } => range(f, "loguniform", *lo, *hi, *granularity),
            PeriodDist::Set {
                preset: Some(name), ..
            } => write!(f, "{name}"),
            PeriodDist::Set { choices, .. } => {
                write!(f, "set:")?;
                for (i, (p, w)) in choices.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "," };
                    if *w == 1 {
                        write!(f, "{sep}{}", format_ns(*p))?;
                    } else {
                        write!(f, "{sep}{}={w}", format_ns(*p))?;
                    }
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::rng_for;

    #[test]
    fn uniform_respects_granularity_and_range() {
        let p = PeriodDist::parse("uniform:10ms..100ms/1ms").unwrap();
        let mut rng = rng_for(51, 0);
        let mut mean = 0.0;
        for _ in 0..10_000 {
            let t = p.sample(&mut rng);
            assert!(t % MS == 0 && (10 * MS..=100 * MS).contains(&t));
            mean += t as f64 / 10_000.0;
        }
        assert!((mean / MS as f64 - 55.0).abs() < 1.0, "{mean}");
    }

    #[test]
    fn loguniform_median_is_geometric_mean() {
        // ln T uniform on [ln 1ms, ln 1000ms] ⇒ median √(1·1000) ms ≈ 31.6 ms.
        let p = PeriodDist::parse("loguniform:1ms..1000ms").unwrap();
        let mut rng = rng_for(52, 0);
        let mut v: Vec<u64> = (0..10_001).map(|_| p.sample(&mut rng)).collect();
        assert!(v.iter().all(|&t| (MS..=1000 * MS).contains(&t)));
        v.sort_unstable();
        let median = v[5000] as f64 / MS as f64;
        assert!((median - 31.62).abs() < 3.0, "{median}");
    }

    #[test]
    fn automotive_shares() {
        let p = PeriodDist::parse("automotive").unwrap();
        let mut rng = rng_for(53, 0);
        let runs = 85_000;
        let ten = (0..runs).filter(|_| p.sample(&mut rng) == 10 * MS).count();
        // Expected 25/85 of the draws = 25 000.
        assert!((ten as f64 - 25_000.0).abs() < 600.0, "{ten}");
        assert_eq!(p.to_string(), "automotive");
    }

    #[test]
    fn harmonic_and_sets() {
        let p = PeriodDist::parse("harmonic").unwrap();
        let PeriodDist::Set { choices, .. } = &p else {
            panic!("harmonic is a set")
        };
        assert_eq!(choices.len(), 8);
        assert_eq!(choices[7].0, 1280 * MS);
        let q = PeriodDist::parse("harmonic:1ms..8ms").unwrap();
        assert_eq!(q.to_string(), "set:1ms,2ms,4ms,8ms");
        let s = PeriodDist::parse("set:10ms,20ms=3").unwrap();
        assert_eq!(s.to_string(), "set:10ms,20ms=3");
        assert_eq!(PeriodDist::parse(&p.to_string()).unwrap(), p);
        let u = PeriodDist::parse("uniform:10ms..1000ms/1ms").unwrap();
        assert_eq!(PeriodDist::parse(&u.to_string()).unwrap(), u);
    }

    #[test]
    fn a_unit_after_a_range_applies_to_both_ends() {
        // Issue 10: `loguniform:10..100ms` gave periods of 741 ns (the 10 was read as 10 ns).
        let p = PeriodDist::parse("loguniform:10..100ms").unwrap();
        assert_eq!(p, PeriodDist::parse("loguniform:10ms..100ms").unwrap());
        let mut rng = rng_for(54, 0);
        assert!((0..1000).all(|_| (10 * MS..=100 * MS).contains(&p.sample(&mut rng))));
        assert_eq!(
            PeriodDist::parse("uniform:10ms..1s/1ms").unwrap(),
            PeriodDist::Uniform {
                lo: 10 * MS,
                hi: 1000 * MS,
                granularity: MS
            }
        );
        assert_eq!(
            PeriodDist::parse("harmonic:1..8ms").unwrap().to_string(),
            "set:1ms,2ms,4ms,8ms"
        );
        let e = PeriodDist::parse("loguniform:10..100")
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs a unit") && e.contains("`100ms`"), "{e}");
    }

    #[test]
    fn errors_name_the_bad_part() {
        for (input, part) in [
            ("uniform:10ms", "10ms"),
            ("uniform:100ms..10ms", "100ms..10ms"),
            ("uniform:11ms..14ms/5ms", "11ms..14ms/5ms"),
            ("set:10ms,0", "0"),
            ("set:10ms=x", "x"),
            ("weird:1", "weird"),
            ("loguniform:0..1ms", "0..1ms"),
            ("loguniform:10..100", "100"),
            ("uniform:10ms..100ms/1", "1"),
            ("set:10ms,20", "20"),
            ("harmonic:1..8", "8"),
            (
                "set:1ms=18446744073709551615,2ms=1",
                "1ms=18446744073709551615,2ms=1",
            ),
        ] {
            match PeriodDist::parse(input) {
                Err(GenError::Parse { part: p, .. }) => assert_eq!(p, part, "{input}"),
                other => panic!("{input}: {other:?}"),
            }
        }
    }
}
