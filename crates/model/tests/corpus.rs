//! Every file in `tests/corpus/bad/` must be rejected with a clear message, never a panic; every
//! file in `examples/` and `tests/corpus/task-files/` (fuzzing seeds) must load, and print and
//! read back to the same task set.

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
    let good = files_in("examples")
        .into_iter()
        .chain(files_in("tests/corpus/task-files"));
    for path in good {
        let f = file::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for format in [file::Format::Json, file::Format::Toml] {
            let printed = file::to_string(&f, format).unwrap();
            assert_eq!(file::parse_str(&printed, format).unwrap(), f, "{printed}");
        }
    }
}
