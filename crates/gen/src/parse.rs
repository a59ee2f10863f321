//! Small readers shared by the string forms (`A..B` ranges, numbers, times).

use crate::error::GenError;
use schedlab_model::time::parse_ns_with_unit;

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

/// Reads a time range `A..B` as nanoseconds. A unit written only after `B` applies to both
/// ends (`10..100ms` is 10 ms to 100 ms); `10ms..1s` stays as written; a bare `B` is an error
/// that suggests a unit. Does not check `A ≤ B`.
pub(crate) fn parse_time_range(
    kind: &'static str,
    input: &str,
    part: &str,
) -> Result<(u64, u64), GenError> {
    let (a, b) = split_range(kind, input, part)?;
    let (a, b) = (a.trim(), b.trim());
    let hi = parse_time(kind, input, b)?;
    let lo = if is_bare_number(a) {
        // `b` parsed, so it has a unit: its suffix after the number.
        let unit = &b[number_prefix_len(b)..];
        let with_unit = format!("{a}{unit}");
        parse_ns_with_unit(&with_unit)
            .map_err(|e| GenError::parse(kind, input, a, e.to_string()))?
    } else {
        parse_time(kind, input, a)?
    };
    Ok((lo, hi))
}

/// Length of the leading number (digits, `.` and `_`) of `s`.
fn number_prefix_len(s: &str) -> usize {
    s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(s.len())
}

/// Whether `s` is a number without a unit.
fn is_bare_number(s: &str) -> bool {
    !s.is_empty() && number_prefix_len(s) == s.len()
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
