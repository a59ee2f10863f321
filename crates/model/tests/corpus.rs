//! Every file in `tests/corpus/bad/` must be rejected with a clear message, never a panic; every
//! file in `examples/` must load.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_model::file;
use std::path::PathBuf;

fn files_in(dir: &str) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(dir);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| file::Format::from_path(p).is_some())
        .collect();
    out.sort();
    out
}

#[test]
fn every_bad_file_gets_a_clear_error() {
    let bad = files_in("tests/corpus/bad");
    assert!(bad.len() >= 30, "corpus too small: {}", bad.len());
    for path in bad {
        let err = file::load(&path).expect_err(&format!("{} was accepted", path.display()));
        let message = err.to_string();
        assert!(
            message.len() > 10,
            "{}: vague message {message:?}",
            path.display()
        );
        println!("{}: {message}", path.file_name().unwrap().to_string_lossy());
    }
}

#[test]
fn every_example_task_set_loads() {
    for path in files_in("examples") {
        file::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
