//! Clustered tests (family `clustered`): `cedf-k<k>` assigns tasks to clusters of `k` CPUs and
//! runs the global-EDF battery (`gedf`) in each cluster.

pub mod cedf;
mod cedf_charged;

use crate::test::SchedTest;

/// The clustered test for a parametric name such as `cedf-k4` (`k ≥ 1`, decimal, no sign or
/// leading zeros); `None` for anything else.
pub(crate) fn parse(name: &str) -> Option<Box<dyn SchedTest>> {
    let digits = name.strip_prefix("cedf-k")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
        return None;
    }
    let k: u32 = digits.parse().ok()?;
    Some(Box::new(cedf::Cedf::new(k)?))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_cluster_sizes() {
        assert_eq!(
            parse("cedf-k4").map(|t| t.name()),
            Some("cedf-k4".to_string())
        );
        assert_eq!(
            parse("cedf-k1").map(|t| t.name()),
            Some("cedf-k1".to_string())
        );
        assert_eq!(
            parse("cedf-k16").map(|t| t.name()),
            Some("cedf-k16".to_string())
        );
        for junk in [
            "cedf-k0",
            "cedf-kx",
            "cedf-k",
            "cedf-k-1",
            "cedf-k+2",
            "cedf-k04",
            "cedf-k2x",
            "cedf-k 2",
            "gedf-k2",
            "cedf-k99999999999",
            "cedf-k٣",
        ] {
            assert!(parse(junk).is_none(), "{junk}");
        }
    }

    #[test]
    fn registry_resolves_cluster_names() {
        assert_eq!(
            crate::registry::by_name("cedf-k2").unwrap().name(),
            "cedf-k2"
        );
        assert!(crate::registry::by_name("cedf-k0").is_err());
    }
}
