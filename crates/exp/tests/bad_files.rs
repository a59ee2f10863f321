//! The corpus of bad experiment files: each file under `tests/bad/` starts with
//! `# expect: line N: TEXT` comments, and validating it must fail with a problem on line N
//! whose message contains TEXT (for each comment) — no panic, nothing written.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_exp::{schema, ExpError};
use std::path::Path;

#[test]
fn every_bad_file_gets_its_messages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 8);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let expected: Vec<(usize, String)> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# expect: line "))
            .map(|rest| {
                let (n, msg) = rest.split_once(": ").unwrap();
                (n.parse().unwrap(), msg.to_string())
            })
            .collect();
        assert!(!expected.is_empty(), "{}: no expectations", path.display());
        let problems = match schema::load(&path) {
            Err(ExpError::Invalid(p)) => p.problems,
            other => panic!("{}: expected problems, got {other:?}", path.display()),
        };
        for (line, msg) in &expected {
            assert!(
                problems
                    .iter()
                    .any(|p| p.line == *line && p.message.contains(msg.as_str())),
                "{}: no problem on line {line} containing `{msg}`; got:\n{}",
                path.display(),
                problems
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}

#[test]
fn ranges_give_exact_decimal_points() {
    let text = "samples = 1\n[platform]\ncpus = [2]\n[generator]\nshape = \"fixed-sum\"\ntasks = 4\n[sweep]\nvariable = \"utilization_per_cpu\"\nfrom = 0.1\nto = 1.0\nstep = 0.1\n[[analysis]]\ntest = \"gedf\"\n";
    let e = schema::parse(text, "t.toml", "t", Path::new(".")).unwrap();
    // 0.1 + 2·0.1 is 0.30000000000000004 in f64; points are rounded to 12 significant digits.
    let expected: Vec<f64> = (1..=10).map(|k| f64::from(k) / 10.0).collect();
    assert_eq!(e.points, expected);
    assert_eq!(e.title, "t");
    assert_eq!(e.chunk_size, schema::DEFAULT_CHUNK_SIZE);
}
