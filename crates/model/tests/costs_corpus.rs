//! Every file in `tests/corpus/costs/bad/` must be rejected with a message that names the
//! costs file and where in it the problem is, never a panic; every file in
//! `tests/corpus/costs/good/` and `examples/costs/` (also fuzzing seeds) must read, and write
//! back to the same costs file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_model::costs::CostsFile;
use std::path::{Path, PathBuf};

fn files_in(dir: &str) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("toml" | "json")
            )
        })
        .collect();
    out.sort();
    out
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_bad_costs_file_gets_a_clear_error() {
    let bad = files_in("tests/corpus/costs/bad");
    assert!(bad.len() >= 30, "corpus too small: {}", bad.len());
    for path in bad {
        let err = CostsFile::read(&path).expect_err(&format!("{} was accepted", path.display()));
        let message = err.to_string();
        assert!(
            message.contains("costs file") && message.len() > 30,
            "{}: vague message {message:?}",
            path.display()
        );
        // Quoted input stays short (long names are shortened).
        assert!(message.len() < 600, "{}: message too long", path.display());
        println!("{}: {message}", name(&path));
    }
}

#[test]
fn every_good_costs_file_reads_and_round_trips() {
    let good = files_in("tests/corpus/costs/good");
    assert!(good.len() >= 3, "corpus too small: {}", good.len());
    let examples = files_in("examples/costs");
    if examples.is_empty() {
        println!("SKIP part: examples/costs/ holds no costs file yet; only the corpus is checked");
    }
    for path in good.into_iter().chain(examples) {
        let f = CostsFile::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let printed = f.to_toml();
        assert_eq!(
            CostsFile::from_toml_str(&printed).unwrap(),
            f,
            "{}:\n{printed}",
            name(&path)
        );
    }
}
