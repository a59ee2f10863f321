//! Test parameters: work limits, round limits, ε, σ step. Every parametric test lists its
//! parameters with their current values ([`crate::SchedTest::params`]) and accepts new values
//! as text ([`crate::SchedTest::set_param`]); the registry reads them from a test spec such as
//! `gedf-rta:rounds=50` or `gedf-ffdbf:epsilon=1/20,sigma_step=1/100` (CLI `--test`, Python
//! `tests=`).

/// One parameter of a test, for catalogues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Name as written in specs.
    pub name: &'static str,
    /// Current value, as text a spec accepts.
    pub value: String,
    /// What it controls.
    pub about: &'static str,
}

impl Param {
    /// A parameter description.
    pub fn new(name: &'static str, value: impl ToString, about: &'static str) -> Param {
        Param {
            name,
            value: value.to_string(),
            about,
        }
    }
}

/// A non-negative integer.
pub fn parse_u64(name: &str, text: &str) -> Result<u64, String> {
    text.trim()
        .replace('_', "")
        .parse()
        .map_err(|_| format!("parameter `{name}` takes a non-negative integer, got `{text}`"))
}

/// A non-negative integer that fits 32 bits.
pub fn parse_u32(name: &str, text: &str) -> Result<u32, String> {
    u32::try_from(parse_u64(name, text)?).map_err(|_| {
        format!(
            "parameter `{name}` must be at most {}, got `{text}`",
            u32::MAX
        )
    })
}

/// `true` or `false`.
pub fn parse_bool(name: &str, text: &str) -> Result<bool, String> {
    match text.trim() {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(format!(
            "parameter `{name}` takes true or false, got `{text}`"
        )),
    }
}

/// A fraction `a/b` with `0 < a/b < 1` (ε, σ steps), as `(a, b)`.
pub fn parse_unit_fraction(name: &str, text: &str) -> Result<(u32, u32), String> {
    let bad = || {
        format!(
            "parameter `{name}` takes a fraction a/b with 0 < a/b < 1, such as 1/10, got `{text}`"
        )
    };
    let (a, b) = text.trim().split_once('/').ok_or_else(bad)?;
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a == 0 || a >= b {
        return Err(bad());
    }
    Ok((a, b))
}

/// The error for a name the test does not have.
pub fn unknown(test: &str, name: &str, known: &[Param]) -> String {
    if known.is_empty() {
        format!("`{test}` has no parameters (asked for `{name}`)")
    } else {
        let names: Vec<&str> = known.iter().map(|p| p.name).collect();
        format!(
            "no parameter `{name}`; the parameters of `{test}` are {}",
            names.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_values() {
        assert_eq!(parse_u64("x", "1_000"), Ok(1000));
        assert!(parse_u64("x", "-1").is_err());
        assert!(parse_u32("x", "5000000000").is_err());
        assert_eq!(parse_bool("x", "true"), Ok(true));
        assert_eq!(parse_unit_fraction("eps", "1/10"), Ok((1, 10)));
        assert!(parse_unit_fraction("eps", "2/2").is_err());
        assert!(parse_unit_fraction("eps", "0/5").is_err());
        assert!(parse_unit_fraction("eps", "0.1").is_err());
    }
}
