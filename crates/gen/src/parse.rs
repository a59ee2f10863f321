//! Small readers shared by the string forms (`A..B` ranges, numbers, times).

use crate::error::GenError;
use schedlab_model::time::{parse_ns_with_unit, parse_range_with_unit};

/// Reads a finite number.
pub(crate) fn parse_f64(kind: &'static str, input: &str, part: &str) -> Result<f64, GenError> {
    let p = part.trim();
    match p.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(GenError::parse(kind, input, p, "expected a finite number")),
    }
}

/// Reads `A..B` with numbers `A ≤ B`.
pub(crate) fn parse_f64_range(
    kind: &'static str,
    input: &str,
    part: &str,
) -> Result<(f64, f64), GenError> {
    let (a, b) = split_range(kind, input, part)?;
    let (a, b) = (parse_f64(kind, input, a)?, parse_f64(kind, input, b)?);
    if a > b {
        return Err(GenError::parse(
            kind,
            input,
            part.trim(),
            "the range is empty (A > B)",
        ));
    }
    Ok((a, b))
}

/// Splits `A..B` at `..`.
pub(crate) fn split_range<'a>(
    kind: &'static str,
    input: &str,
    part: &'a str,
) -> Result<(&'a str, &'a str), GenError> {
    part.split_once("..")
        .ok_or_else(|| GenError::parse(kind, input, part.trim(), "expected a range A..B"))
}

/// Reads a time a person typed (`10ms`, `1.5ms`, `250us`, `2s`) as nanoseconds. A bare number
/// is an error that suggests a unit (DESIGN.md "Semantics": on the command line, in keyword
/// arguments and in generator strings a time needs a unit; only task files keep bare ns).
pub(crate) fn parse_time(kind: &'static str, input: &str, part: &str) -> Result<u64, GenError> {
    let p = part.trim();
    parse_ns_with_unit(p).map_err(|e| GenError::parse(kind, input, p, e.to_string()))
}

/// Reads a time range `A..B` as nanoseconds ([`parse_range_with_unit`]: a unit written only
/// after `B` applies to both ends, `10..100ms` is 10 ms to 100 ms). Does not check `A ≤ B`.
pub(crate) fn parse_time_range(
    kind: &'static str,
    input: &str,
    part: &str,
) -> Result<(u64, u64), GenError> {
    split_range(kind, input, part)?;
    parse_range_with_unit(part).map_err(|(p, e)| GenError::parse(kind, input, &p, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_unit_after_the_range_applies_to_both_ends() {
        let range = |s: &str| parse_time_range("period distribution", s, s);
        assert_eq!(range("10..100ms").unwrap(), (10 * MS, 100 * MS));
        assert_eq!(range("1.5..2ms").unwrap(), (1_500_000, 2 * MS));
        assert_eq!(range("10ms..1s").unwrap(), (10 * MS, 1_000 * MS));
        assert_eq!(range("250us..1ms").unwrap(), (250_000, MS));
        assert_eq!(range("10ns..1000ns").unwrap(), (10, 1000));
    }

    #[test]
    fn a_bare_number_is_an_error_that_suggests_a_unit() {
        for (text, part) in [("10..100", "100"), ("10ms..100", "100"), ("5", "5")] {
            let e = if text.contains("..") {
                parse_time_range("period distribution", text, text).unwrap_err()
            } else {
                parse_time("period distribution", text, text).unwrap_err()
            };
            match &e {
                GenError::Parse {
                    part: p, message, ..
                } => {
                    assert_eq!(p, part, "{text}");
                    assert!(message.contains("needs a unit"), "{text}: {message}");
                    assert!(
                        message.contains(&format!("`{part}ms`")),
                        "{text}: {message}"
                    );
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        // A unit only at the start does not carry over to the end.
        assert!(parse_time_range("p", "10ms..100", "10ms..100").is_err());
        // A bad unit at the end is reported, not silently applied.
        assert!(parse_time_range("p", "10..100xs", "10..100xs").is_err());
    }
}
