//! Byte sizes such as working-set sizes: `"64KiB"`, `"1MiB"`, `"4096"`, `"64KB"`, `"2GB"`.
//! Binary units (KiB, MiB, GiB) are powers of 1024, decimal units (KB, MB, GB) powers of 1000,
//! a bare integer or `B` is bytes. The value must be a whole number of bytes.

/// Parses a byte size; the error is a human-readable reason.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let s = text.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" | "K" => 1 << 10,
        "MiB" | "M" => 1 << 20,
        "GiB" | "G" => 1 << 30,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        other => {
            return Err(format!(
                "cannot read `{s}` as a size: unknown unit `{other}` (use B, KiB, MiB, GiB, KB, MB or GB)"
            ))
        }
    };
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    if int_part.is_empty() && frac_part.is_empty() || frac_part.contains('.') {
        return Err(format!("cannot read `{s}` as a size"));
    }
    let int: u128 = if int_part.is_empty() {
        0
    } else {
        int_part
            .parse()
            .map_err(|_| format!("size `{s}` is too large"))?
    };
    let mut bytes = int
        .checked_mul(u128::from(scale))
        .ok_or(format!("size `{s}` is too large"))?;
    if !frac_part.is_empty() {
        let digits = u32::try_from(frac_part.len()).map_err(|_| format!("cannot read `{s}`"))?;
        let denominator = 10u128
            .checked_pow(digits)
            .ok_or(format!("cannot read `{s}`: too many digits"))?;
        let numerator: u128 = frac_part
            .parse()
            .map_err(|_| format!("cannot read `{s}`"))?;
        let scaled = numerator * u128::from(scale);
        if scaled % denominator != 0 {
            return Err(format!("size `{s}` is not a whole number of bytes"));
        }
        bytes += scaled / denominator;
    }
    u64::try_from(bytes).map_err(|_| format!("size `{s}` is too large"))
}

/// Formats a byte count in the largest binary unit that divides it exactly.
pub fn format_bytes(bytes: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    format!("{bytes}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sizes() {
        assert_eq!(parse_bytes("64KiB"), Ok(65_536));
        assert_eq!(parse_bytes("1.5MiB"), Ok(1_572_864));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("64KB"), Ok(64_000));
        assert!(parse_bytes("1.1B").is_err());
        assert!(parse_bytes("12 parsecs").is_err());
        assert!(parse_bytes("99999999999GiB").is_err());
        assert_eq!(format_bytes(65_536), "64KiB");
        assert_eq!(format_bytes(1000), "1000B");
    }
}
