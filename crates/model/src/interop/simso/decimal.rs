//! SimSo's times are Python floats printed in milliseconds (`str(float)`: `7.0`, `0.1`,
//! `1e-05`, `1.5e+16`). They are read here as the decimals they are written as — never
//! through a binary float — and converted to whole nanoseconds exactly where the decimal
//! allows; where it does not (more than six fractional digits of a millisecond), the value is
//! rounded to the nearest nanosecond (halves up) and the caller reports the rounding.
//! O(length of the text).

/// Significant digits a time may have (Python prints at most 17).
const MAX_DIGITS: usize = 36;
/// The largest exponent magnitude read (`1e-9999`).
const MAX_EXPONENT: i64 = 9_999;

/// A decimal converted to whole nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ns {
    /// The value in nanoseconds (rounded to the nearest when `rounded`).
    pub(crate) ns: u64,
    /// The decimal was not a whole number of nanoseconds.
    pub(crate) rounded: bool,
}

/// Reads `text`, a non-negative decimal number of units of `10^scale` ns (`scale = 6`:
/// milliseconds), as nanoseconds. The error says what is wrong, without the place (the
/// caller adds the element and attribute).
pub(crate) fn to_ns(text: &str, scale: u32) -> Result<Ns, String> {
    let s = text.trim();
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = s.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return Err(format!("`{}` is not a finite number", text.trim()));
    }
    let malformed = || format!("`{}` is not a decimal number", text.trim());
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (lower.as_str(), None),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if !digits_only(int_part) || !digits_only(frac_part) || int_part.len() + frac_part.len() == 0 {
        return Err(malformed());
    }
    let exp: i64 = match exponent {
        None => 0,
        Some(e) => {
            let (sign, body) = match e.as_bytes().first() {
                Some(b'-') => (-1, &e[1..]),
                Some(b'+') => (1, &e[1..]),
                _ => (1, e),
            };
            if body.is_empty() || !digits_only(body) {
                return Err(malformed());
            }
            let trimmed = body.trim_start_matches('0');
            if trimmed.len() > 4 {
                return Err(format!(
                    "`{}`: the exponent is outside ±{MAX_EXPONENT}",
                    text.trim()
                ));
            }
            sign * trimmed.parse::<i64>().unwrap_or(0)
        }
    };
    let all: String = int_part.chars().chain(frac_part.chars()).collect();
    let significant = all.trim_start_matches('0');
    if significant.len() > MAX_DIGITS {
        return Err(format!(
            "`{}` has more than {MAX_DIGITS} significant digits",
            text.trim()
        ));
    }
    let mantissa: u128 = if significant.is_empty() {
        0
    } else {
        significant.parse().map_err(|_| malformed())?
    };
    if mantissa == 0 {
        return Ok(Ns {
            ns: 0,
            rounded: false,
        });
    }
    if negative {
        return Err(format!("`{}` is negative", text.trim()));
    }
    // value = mantissa · 10^e ns.
    let frac_len = i64::try_from(frac_part.len()).unwrap_or(i64::MAX);
    let e = exp - frac_len + i64::from(scale);
    let too_large = || format!("`{}` is too large (more than 2^64-1 ns)", text.trim());
    if e >= 0 {
        let ns = u32::try_from(e)
            .ok()
            .and_then(|e| 10u128.checked_pow(e))
            .and_then(|p| mantissa.checked_mul(p))
            .and_then(|v| u64::try_from(v).ok())
            .ok_or_else(too_large)?;
        return Ok(Ns { ns, rounded: false });
    }
    // A divisor above 10^38 leaves less than half a nanosecond (mantissa < 10^36).
    let Some(p) = u32::try_from(-e).ok().and_then(|k| 10u128.checked_pow(k)) else {
        return Ok(Ns {
            ns: 0,
            rounded: true,
        });
    };
    let (q, r) = (mantissa / p, mantissa % p);
    // Halves round up: r ≥ p/2 ⇔ 2r ≥ p (2r < 2·10^38 fits in u128).
    let q = if 2 * r >= p { q + 1 } else { q };
    let ns = u64::try_from(q).map_err(|_| too_large())?;
    Ok(Ns {
        ns,
        rounded: r != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(text: &str) -> Result<(u64, bool), String> {
        to_ns(text, 6).map(|n| (n.ns, n.rounded))
    }

    #[test]
    fn what_python_prints_reads_exactly() {
        assert_eq!(ms("7.0"), Ok((7_000_000, false)));
        assert_eq!(ms("7"), Ok((7_000_000, false)));
        assert_eq!(ms("0.1"), Ok((100_000, false)));
        // 0.7 ms: SimSo's int(0.7 * 1e6) is 699999 cycles; the decimal is 700 µs.
        assert_eq!(ms("0.7"), Ok((700_000, false)));
        assert_eq!(ms("1e-05"), Ok((10, false)));
        assert_eq!(ms("1.5e+3"), Ok((1_500_000_000, false)));
        assert_eq!(ms("1E2"), Ok((100_000_000, false)));
        assert_eq!(ms("+2.5"), Ok((2_500_000, false)));
        assert_eq!(ms(" 0.000001 "), Ok((1, false)));
        assert_eq!(ms("0"), Ok((0, false)));
        assert_eq!(ms("-0.0"), Ok((0, false)));
        assert_eq!(ms(".5"), Ok((500_000, false)));
        assert_eq!(ms("5."), Ok((5_000_000, false)));
    }

    #[test]
    fn sub_nanosecond_digits_round_to_nearest_halves_up() {
        assert_eq!(ms("0.0000004"), Ok((0, true)));
        assert_eq!(ms("0.0000005"), Ok((1, true)));
        assert_eq!(ms("3.3333333333"), Ok((3_333_333, true)));
        assert_eq!(ms("6.6666666666"), Ok((6_666_667, true)));
        assert_eq!(ms("1e-300"), Ok((0, true)));
        assert_eq!(ms("1.0000000000"), Ok((1_000_000, false)));
    }

    #[test]
    fn what_is_not_a_time_is_an_error() {
        for (text, part) in [
            ("-1", "negative"),
            ("inf", "finite"),
            ("nan", "finite"),
            ("", "not a decimal"),
            ("1.2.3", "not a decimal"),
            ("1ms", "not a decimal"),
            ("e5", "not a decimal"),
            ("1e", "not a decimal"),
            ("1e+", "not a decimal"),
            ("0x10", "not a decimal"),
            ("1_000", "not a decimal"),
            ("1e99999", "exponent"),
            ("1e30", "too large"),
            ("18446744073709.551616", "too large"),
        ] {
            let e = ms(text).expect_err(text);
            assert!(e.contains(part), "{text}: {e}");
        }
        assert_eq!(ms("18446744073709.551615"), Ok((u64::MAX, false)));
        let long = format!("1{}", "0".repeat(40));
        assert!(ms(&long).unwrap_err().contains("significant digits"));
    }

    proptest! {
        /// Whole nanoseconds written as ms with up to six decimals read back exactly.
        #[test]
        fn printed_milliseconds_read_back(ns in 0u64..=u64::MAX / 2) {
            let text = format!("{}.{:06}", ns / 1_000_000, ns % 1_000_000);
            prop_assert_eq!(ms(&text), Ok((ns, false)));
            let sci = format!("{ns}e-6");
            prop_assert_eq!(ms(&sci), Ok((ns, false)));
        }

        /// Any text: a value or an error, never a panic.
        #[test]
        fn never_panics(s in "[-+0-9.eE]{0,30}|\\PC{0,20}") {
            let _ = ms(&s);
        }
    }
}
