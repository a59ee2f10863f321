//! Small readers shared by the string forms (`A..B` ranges, numbers, times).

use crate::error::GenError;
use schedlab_model::time::parse_ns;

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

/// Reads a time (`10ms`, `1.5ms`, `250us`, bare integer = ns) as nanoseconds.
pub(crate) fn parse_time(kind: &'static str, input: &str, part: &str) -> Result<u64, GenError> {
    let p = part.trim();
    parse_ns(p).map_err(|e| GenError::parse(kind, input, p, e.to_string()))
}
