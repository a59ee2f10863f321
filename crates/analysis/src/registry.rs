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

/// The test described by `spec`: a canonical name (`gedf-rta`, `cedf-k4`), optionally followed
/// by parameters, `NAME:key=value,key=value` (e.g. `gedf-rta:rounds=50`,
/// `gedf-ffdbf:epsilon=1/20,sigma_step=1/100`). A configured test reports the whole spec as its
/// name, so results of differently configured runs of one test stay apart.
pub fn by_name(spec: &str) -> Result<Box<dyn SchedTest>, AnalysisError> {
    let Some((name, settings)) = spec.split_once(':') else {
        return base_by_name(spec);
    };
    let mut test = base_by_name(name.trim())?;
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
}

/// The test called `name` (including parametric names such as `cedf-k4`), default parameters.
fn base_by_name(name: &str) -> Result<Box<dyn SchedTest>, AnalysisError> {
    if let Some(t) = all().into_iter().find(|t| t.name() == name) {
        return Ok(t);
    }
    if let Some(t) = clustered::parse(name) {
        return Ok(t);
    }
    let known = names();
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let suggestion = schedlab_model::error::suggest(name, &known);
    Err(AnalysisError::UnknownTest {
        name: name.to_string(),
        suggestion,
    })
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
