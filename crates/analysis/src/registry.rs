//! Every test by its canonical name (the names of the CLI, JSON and Python), in the order
//! `schedlab tests` lists them and `schedlab analyze` runs them.

use crate::error::AnalysisError;
use crate::test::SchedTest;
use crate::{clustered, gedf, gfp, partitioned, soft, uni};

/// Every test with default parameters, except the parametric clustered ones (see [`all_for`]).
pub fn all() -> Vec<Box<dyn SchedTest>> {
    let mut tests = Vec::new();
    tests.extend(uni::tests());
    tests.extend(gedf::tests());
    tests.extend(soft::tests());
    tests.extend(crate::gnpedf::tests());
    tests.extend(gfp::tests());
    tests.extend(partitioned::tests());
    tests
}

/// Every test for an `m`-CPU platform: [`all`] plus `cedf-k<k>` for every cluster size `k`
/// with `1 < k < m` that divides `m`.
pub fn all_for(cpus: u32) -> Vec<Box<dyn SchedTest>> {
    let mut tests = all();
    for k in 2..cpus {
        if cpus % k == 0 {
            if let Some(t) = clustered::parse(&format!("cedf-k{k}")) {
                tests.push(t);
            }
        }
    }
    tests
}

/// Canonical names of [`all`].
pub fn names() -> Vec<String> {
    all().iter().map(|t| t.name()).collect()
}

/// The test called `name` (including parametric names such as `cedf-k4`).
pub fn by_name(name: &str) -> Result<Box<dyn SchedTest>, AnalysisError> {
    if let Some(t) = all().into_iter().find(|t| t.name() == name) {
        return Ok(t);
    }
    if let Some(t) = clustered::parse(name) {
        return Ok(t);
    }
    let known = names();
    let suggestion = known
        .iter()
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.clone());
    Err(AnalysisError::UnknownTest {
        name: name.to_string(),
        suggestion,
    })
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_resolvable() {
        let names = names();
        let unique: HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "duplicate test names");
        for n in &names {
            assert_eq!(&by_name(n).unwrap().name(), n);
        }
    }

    #[test]
    fn unknown_names_get_suggestions() {
        match by_name("gedf-bcll") {
            Err(AnalysisError::UnknownTest { suggestion, .. }) => {
                assert!(suggestion.is_some());
            }
            _ => panic!("expected UnknownTest"),
        }
    }
}

#[cfg(test)]
mod docs_tests {
    /// docs/analysis.md lists every test: regenerate its catalogue with
    /// `schedlab tests --format json` when adding one.
    #[test]
    fn the_user_guide_lists_every_test() {
        let guide = include_str!("../../../docs/analysis.md");
        for name in super::names() {
            assert!(
                guide.contains(&format!("`{name}`")),
                "docs/analysis.md lacks `{name}`"
            );
        }
    }
}
