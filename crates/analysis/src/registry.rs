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
    tests.extend(crate::semi::tests());
    tests.extend(crate::ua::tests());
    tests.extend(crate::parallel::tests());
    tests.extend(crate::hcbs::tests());
    tests.extend(crate::mpr::tests());
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

/// The test described by `spec`: a canonical name (`gedf-rta`, `cedf-k4`), optionally followed
/// by parameters, `NAME:key=value,key=value` (e.g. `gedf-rta:rounds=50`,
/// `gedf-ffdbf:epsilon=1/20,sigma_step=1/100`). A configured test reports the whole spec as its
/// name, so results of differently configured runs of one test stay apart.
pub fn by_name(spec: &str) -> Result<Box<dyn SchedTest>, AnalysisError> {
    let Some((name, settings)) = spec.split_once(':') else {
        return base_by_name(spec);
    };
    let mut test = base_by_name(name.trim()).map_err(|e| match e {
        // Keep the parameters in the suggestion: `gedf-rtaa:rounds=3` → `gedf-rta:rounds=3`.
        AnalysisError::UnknownTest { suggestion, .. } => AnalysisError::UnknownTest {
            name: spec.to_string(),
            suggestion: suggestion.map(|s| format!("{s}:{}", settings.trim())),
        },
        other => other,
    })?;
    let base = test.name();
    for setting in settings.split(',').filter(|s| !s.trim().is_empty()) {
        let invalid = |parameter: &str, message: String| AnalysisError::InvalidParameter {
            test: base.clone(),
            parameter: parameter.to_string(),
            message,
        };
        let (key, value) = setting.split_once('=').ok_or_else(|| {
            invalid(
                setting.trim(),
                format!("expected name=value, got `{setting}`"),
            )
        })?;
        test.set_param(key.trim(), value.trim())
            .map_err(|m| invalid(key.trim(), m))?;
    }
    Ok(Box::new(Configured {
        spec: format!("{base}:{}", settings.trim()),
        inner: test,
    }))
}

/// A test with parameters set from a spec; named by the spec.
struct Configured {
    spec: String,
    inner: Box<dyn SchedTest>,
}

impl SchedTest for Configured {
    fn info(&self) -> crate::test::TestInfo {
        let mut info = self.inner.info();
        info.name = self.spec.clone();
        info
    }
    fn check(&self, sys: &crate::System) -> Result<(), String> {
        self.inner.check(sys)
    }
    fn run(&self, sys: &crate::System) -> crate::Verdict {
        self.inner.run(sys)
    }
    fn params(&self) -> Vec<crate::Param> {
        self.inner.params()
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.inner.set_param(name, value)
    }
    fn charges_per_bin(&self) -> bool {
        self.inner.charges_per_bin()
    }
    fn handles_parallel(&self) -> bool {
        self.inner.handles_parallel()
    }
}

/// The test called `name` (including parametric names such as `cedf-k4`), default parameters.
fn base_by_name(name: &str) -> Result<Box<dyn SchedTest>, AnalysisError> {
    if let Some(t) = all().into_iter().find(|t| t.name() == name) {
        return Ok(t);
    }
    if let Some(t) = clustered::parse(name) {
        return Ok(t);
    }
    Err(AnalysisError::UnknownTest {
        name: name.to_string(),
        suggestion: suggestion(name),
    })
}

/// The parametric family of clustered tests: `cedf-k<K>`, `K` CPUs per cluster.
const CLUSTERED_PREFIX: &str = "cedf-k";

/// The "did you mean" of an unknown test name: a parameterised name written another way
/// (`cedf-4`, `cedf4`, `CEDF-K4` → `cedf-k4`; `cedf` → `cedf-k<K>`), parameters written without
/// the `:` (`gedf-rta rounds=3`, `gedf-rta(rounds=3)` → `gedf-rta:rounds=3`), else the closest
/// canonical name by edit distance (a typo).
fn suggestion(name: &str) -> Option<String> {
    let lower = name.trim().to_ascii_lowercase();
    let known = names();
    if lower.contains('=') {
        return parameters_without_colon(&lower, &known);
    }
    // Cluster sizes: the digits the user wrote, on the clustered family's prefix.
    let stem = lower.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &lower[stem.len()..];
    let stem = stem.trim_end_matches(['-', '_', ' ', '=']);
    let clustered = schedlab_model::error::suggest(stem, &[CLUSTERED_PREFIX]).is_some();
    if clustered && stem.starts_with('c') {
        return Some(if digits.is_empty() || digits.starts_with('0') {
            format!("{CLUSTERED_PREFIX}<K> (K = CPUs per cluster, e.g. {CLUSTERED_PREFIX}4)")
        } else {
            format!("{CLUSTERED_PREFIX}{digits}")
        });
    }
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    schedlab_model::error::suggest(&lower, &known)
}

/// `gedf-rta rounds=3`, `gedf-rta(rounds=3)`, `gedf-rta-rounds=3` → `gedf-rta:rounds=3`: the
/// longest test name that starts `spec`, followed by a separator, with the rest as parameters.
fn parameters_without_colon(spec: &str, known: &[String]) -> Option<String> {
    let base = known
        .iter()
        .map(String::as_str)
        .chain(clustered_base(spec))
        .filter(|k| {
            spec.strip_prefix(k)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|c| matches!(c, ' ' | '(' | '[' | ',' | '/' | '-' | '_' | ';'))
        })
        .max_by_key(|k| k.len())?;
    let rest = spec[base.len() + 1..]
        .trim()
        .trim_end_matches([')', ']'])
        .trim();
    Some(format!("{base}:{rest}"))
}

/// `cedf-k<digits>` at the start of `spec`, if any.
fn clustered_base(spec: &str) -> Option<&str> {
    let digits = spec.strip_prefix(CLUSTERED_PREFIX)?;
    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
    (n > 0).then(|| &spec[..CLUSTERED_PREFIX.len() + n])
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
    fn specs_set_parameters() {
        let t = by_name("gedf-rta:rounds=3, min_step=1").unwrap();
        assert_eq!(t.name(), "gedf-rta:rounds=3, min_step=1");
        let rounds = t.params().into_iter().find(|p| p.name == "rounds").unwrap();
        assert_eq!(rounds.value, "3");
        let f = by_name("gedf-ffdbf:epsilon=1/20,sigma_step=1/100,resume=true").unwrap();
        let values: Vec<String> = f.params().into_iter().map(|p| p.value).collect();
        assert_eq!(values[..2], ["1/20".to_string(), "1/100".to_string()]);
        for (bad, needle) in [
            ("gedf-rta:round=3", "no parameter `round`"),
            ("gedf-rta:rounds=-3", "non-negative integer"),
            ("gedf-rta:rounds", "expected name=value"),
            ("gedf-ffdbf:epsilon=3/2", "0 < a/b < 1"),
            ("gedf-ffdbf:sigma_step=2/7", "1/k"),
            ("gedf-gfb:x=1", "has no parameters"),
            ("gedf-rtaa:rounds=3", "unknown test"),
        ] {
            let e = by_name(bad).err().unwrap().to_string();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn parameters_change_answers() {
        use crate::{analyze, Params, Priorities, Status, System};
        // Found with `schedlab gen` + `analyze`: on m = 2 this set needs a second slack round.
        let p = [
            (1, 13, 13),
            (1, 18, 18),
            (1, 5, 5),
            (3, 17, 17),
            (4, 13, 13),
            (4, 11, 11),
        ];
        let p = p.iter().map(|&(c, d, t)| Params::new(c, d, t)).collect();
        let sys = System::from_params(p, 2, Priorities::Dm).unwrap();
        let status = |spec: &str| analyze(by_name(spec).unwrap().as_ref(), &sys).status;
        assert_eq!(status("gedf-rta"), Status::Schedulable);
        assert_eq!(status("gedf-rta:rounds=1"), Status::NotShown);
        assert_eq!(status("gedf-bcl-iter"), Status::Schedulable);
        assert_eq!(status("gedf-bcl-iter:rounds=1"), Status::GaveUp);
        let one = System::from_params(vec![Params::new(1, 2, 3)], 1, Priorities::Dm).unwrap();
        assert_eq!(
            analyze(by_name("edf:limit=0").unwrap().as_ref(), &one).status,
            Status::GaveUp
        );
    }

    #[test]
    fn parameterised_names_are_suggested() {
        let hint = |spec: &str| match by_name(spec) {
            Err(AnalysisError::UnknownTest { suggestion, .. }) => suggestion,
            Err(other) => panic!("{spec}: {other}"),
            Ok(_) => panic!("{spec} is a test"),
        };
        // Issue 10: `unknown test 'cedf-4'` gave no hint of `cedf-k4`.
        for (spec, expected) in [
            ("cedf-4", "cedf-k4"),
            ("cedf4", "cedf-k4"),
            ("cedf-16", "cedf-k16"),
            ("cedfk2", "cedf-k2"),
            ("cedf-k-8", "cedf-k8"),
            ("gedf-rta rounds=3", "gedf-rta:rounds=3"),
            ("gedf-rta(rounds=3)", "gedf-rta:rounds=3"),
            (
                "gedf-rta-rounds=3,min_step=1",
                "gedf-rta:rounds=3,min_step=1",
            ),
            ("gedf-ffdbf epsilon=1/20", "gedf-ffdbf:epsilon=1/20"),
            ("cedf-k4 x=1", "cedf-k4:x=1"),
            ("gedf-rtaa:rounds=3", "gedf-rta:rounds=3"),
            ("cedf-4:x=1", "cedf-k4:x=1"),
            ("gedf-bcll", "gedf-bcl"),
        ] {
            assert_eq!(hint(spec).as_deref(), Some(expected), "{spec}");
        }
        let cedf = hint("cedf").unwrap();
        assert!(cedf.starts_with("cedf-k<K>"), "{cedf}");
        assert_eq!(hint("quantum-annealing"), None);
        let message = by_name("cedf-4").err().unwrap().to_string();
        assert_eq!(message, "unknown test `cedf-4` (did you mean `cedf-k4`?)");
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

    /// A configured test is the base test with other parameters: it keeps every property the
    /// engine asks of the base, e.g. that it charges overheads per bin (a configured
    /// `pedf-ffd:limit=…` used to be charged as a whole set) and whether it handles parallel
    /// tasks.
    #[test]
    fn a_configured_test_keeps_the_base_test_s_properties() {
        for spec in [
            "pedf-ffd:limit=100",
            "pfp-ts:fallback=0",
            "federated:light=gedf",
        ] {
            let configured = by_name(spec).unwrap();
            let base = by_name(spec.split(':').next().unwrap()).unwrap();
            assert_eq!(
                configured.charges_per_bin(),
                base.charges_per_bin(),
                "{spec}"
            );
            assert_eq!(
                configured.handles_parallel(),
                base.handles_parallel(),
                "{spec}"
            );
        }
        assert!(by_name("pedf-ffd:limit=100").unwrap().charges_per_bin());
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
