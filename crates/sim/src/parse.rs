//! Text forms of the arrival and execution-time models (CLI `--arrivals`, `--exec`; Python).
//!
//! - arrivals: `periodic`, or `sporadic:MAXDELAY` (a time such as `sporadic:5ms`);
//! - execution times: `wcet`, `uniform:LO..HI` (fractions of the WCET, `0 ≤ LO ≤ HI ≤ 1`),
//!   `normal:MEAN,SD` (fractions of the WCET, capped at the WCET), `overrun:PROB,FACTOR` (with
//!   probability PROB a job executes FACTOR × its WCET, FACTOR ≥ 1; otherwise its WCET).

use crate::config::{Arrivals, ExecTime};
use crate::error::SimError;
use schedlab_model::time::parse_duration_with_unit;
use schedlab_model::Duration;

fn invalid(field: &'static str, message: String) -> SimError {
    SimError::InvalidConfig { field, message }
}

impl Arrivals {
    /// Parses `periodic` or `sporadic:MAXDELAY`.
    pub fn parse(text: &str) -> Result<Arrivals, SimError> {
        let t = text.trim();
        if t == "periodic" {
            return Ok(Arrivals::Periodic);
        }
        match t.split_once(':') {
            Some(("sporadic", delay)) => {
                // A time typed by a person needs a unit (DESIGN.md "Semantics").
                let max_delay: Duration = parse_duration_with_unit(delay)
                    .map_err(|e| invalid("arrivals", format!("`{text}`: {e}")))?;
                Ok(Arrivals::Sporadic { max_delay })
            }
            _ => Err(invalid(
                "arrivals",
                format!("unknown arrival model `{text}` (use periodic or sporadic:MAXDELAY, e.g. sporadic:5ms)"),
            )),
        }
    }
}

fn fraction(field: &'static str, text: &str, whole: &str) -> Result<f64, SimError> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| invalid(field, format!("`{whole}`: `{text}` is not a number")))?;
    if !(0.0..=1.0).contains(&v) {
        return Err(invalid(
            field,
            format!("`{whole}`: {v} is not a fraction of the WCET in [0, 1]"),
        ));
    }
    Ok(v)
}

impl ExecTime {
    /// Parses `wcet`, `uniform:LO..HI`, `normal:MEAN,SD` or `overrun:PROB,FACTOR`.
    pub fn parse(text: &str) -> Result<ExecTime, SimError> {
        let t = text.trim();
        if t == "wcet" {
            return Ok(ExecTime::Wcet);
        }
        match t.split_once(':') {
            Some(("uniform", range)) => {
                let (lo, hi) = range
                    .split_once("..")
                    .ok_or_else(|| invalid("exec", format!("`{text}`: expected uniform:LO..HI")))?;
                let (lo, hi) = (fraction("exec", lo, text)?, fraction("exec", hi, text)?);
                if lo > hi {
                    return Err(invalid("exec", format!("`{text}`: LO > HI")));
                }
                Ok(ExecTime::UniformFraction { lo, hi })
            }
            Some(("normal", params)) => {
                let (mean, sd) = params
                    .split_once(',')
                    .ok_or_else(|| invalid("exec", format!("`{text}`: expected normal:MEAN,SD")))?;
                let mean = fraction("exec", mean, text)?;
                let sd: f64 = sd
                    .trim()
                    .parse()
                    .map_err(|_| invalid("exec", format!("`{text}`: SD is not a number")))?;
                if !(sd.is_finite() && sd >= 0.0) {
                    return Err(invalid("exec", format!("`{text}`: SD must be ≥ 0")));
                }
                Ok(ExecTime::NormalCapped { mean, sd })
            }
            Some(("overrun", params)) => {
                let (prob, factor) = params.split_once(',').ok_or_else(|| {
                    invalid("exec", format!("`{text}`: expected overrun:PROB,FACTOR"))
                })?;
                let prob: f64 = prob.trim().parse().map_err(|_| {
                    invalid("exec", format!("`{text}`: PROB is not a number"))
                })?;
                if !(0.0..=1.0).contains(&prob) {
                    return Err(invalid(
                        "exec",
                        format!("`{text}`: PROB must be a probability in [0, 1]"),
                    ));
                }
                let factor: f64 = factor.trim().parse().map_err(|_| {
                    invalid("exec", format!("`{text}`: FACTOR is not a number"))
                })?;
                if !(factor.is_finite() && factor >= 1.0) {
                    return Err(invalid(
                        "exec",
                        format!("`{text}`: FACTOR must be ≥ 1 (a multiple of the WCET)"),
                    ));
                }
                Ok(ExecTime::Overrun { prob, factor })
            }
            _ => Err(invalid(
                "exec",
                format!("unknown execution-time model `{text}` (use wcet, uniform:LO..HI, normal:MEAN,SD or overrun:PROB,FACTOR)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert_eq!(Arrivals::parse("periodic").ok(), Some(Arrivals::Periodic));
        assert_eq!(
            Arrivals::parse("sporadic:5ms").ok(),
            Some(Arrivals::Sporadic {
                max_delay: Duration::from_ns(5_000_000)
            })
        );
        assert!(Arrivals::parse("bursty").is_err());
        assert!(Arrivals::parse("sporadic:-1ms").is_err());
        // A delay typed without a unit is an error that suggests one, never 5 ns.
        let e = Arrivals::parse("sporadic:5").unwrap_err().to_string();
        assert!(e.contains("needs a unit") && e.contains("`5ms`"), "{e}");
        assert_eq!(ExecTime::parse("wcet").ok(), Some(ExecTime::Wcet));
        assert_eq!(
            ExecTime::parse("uniform:0.5..1").ok(),
            Some(ExecTime::UniformFraction { lo: 0.5, hi: 1.0 })
        );
        assert_eq!(
            ExecTime::parse("normal:0.8,0.1").ok(),
            Some(ExecTime::NormalCapped { mean: 0.8, sd: 0.1 })
        );
        assert_eq!(
            ExecTime::parse("overrun:0.05,1.5").ok(),
            Some(ExecTime::Overrun {
                prob: 0.05,
                factor: 1.5
            })
        );
        for bad in [
            "uniform:0.9..0.1",
            "uniform:0..2",
            "normal:0.5",
            "normal:0.5,-1",
            "overrun:0.1",
            "overrun:1.5,2",
            "overrun:0.1,0.9",
            "overrun:x,2",
            "fast",
        ] {
            assert!(ExecTime::parse(bad).is_err(), "{bad}");
        }
    }
}
