//! Every file in `tests/corpus/simso/bad/` and `tests/corpus/csv/bad/` must be refused with a
//! message that names the format (or the scheduler) and says what is wrong, never a panic;
//! every file in `tests/corpus/{simso,csv}/good/` and `examples/simso/` (also fuzzing seeds)
//! must import, and a CSV import must write back and read to the same tasks.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_model::interop::csv;
use schedlab_model::interop::import::{import_file, Source};
use std::path::PathBuf;

fn files_in(dir: &str, ext: &str) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(dir);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(ext))
        .collect();
    out.sort();
    out
}

fn name(p: &std::path::Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_bad_simso_file_gets_a_clear_error() {
    let bad = files_in("tests/corpus/simso/bad", "xml");
    assert!(bad.len() >= 30, "corpus too small: {}", bad.len());
    for path in bad {
        let err = import_file(&path, Some(Source::Simso))
            .map(|_| ())
            .expect_err(&format!("{} was accepted", path.display()));
        let message = err.to_string();
        assert!(
            (message.contains("SimSo") || message.contains("UTF-8")) && message.len() > 30,
            "{}: vague message {message:?}",
            path.display()
        );
        assert!(message.len() < 1200, "{}: message too long", path.display());
        println!("{}: {message}", name(&path));
    }
}

#[test]
fn every_bad_csv_file_gets_a_clear_error() {
    let bad = files_in("tests/corpus/csv/bad", "csv");
    assert!(bad.len() >= 20, "corpus too small: {}", bad.len());
    for path in bad {
        let err = import_file(&path, None)
            .map(|_| ())
            .expect_err(&format!("{} was accepted", path.display()));
        let message = err.to_string();
        assert!(
            (message.starts_with("CSV: ") || message.contains("UTF-8")) && message.len() > 15,
            "{}: vague message {message:?}",
            path.display()
        );
        println!("{}: {message}", name(&path));
    }
}

#[test]
fn every_good_file_imports() {
    let simso = files_in("tests/corpus/simso/good", "xml")
        .into_iter()
        .chain(files_in("examples/simso", "xml"));
    let mut n = 0;
    for path in simso {
        // The extension decides the format.
        let (source, imported) =
            import_file(&path, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(source, Source::Simso);
        assert!(imported.policy.is_some(), "{}", path.display());
        // Every SimSo file says at least which duration to simulate.
        assert!(
            imported.unmapped.iter().any(|l| l.contains("--duration")),
            "{}",
            path.display()
        );
        n += 1;
    }
    assert!(n >= 6, "{n} SimSo files");
    let good = files_in("tests/corpus/csv/good", "csv");
    assert!(good.len() >= 3);
    for path in good {
        let (source, imported) =
            import_file(&path, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(source, Source::Csv);
        let written = csv::to_csv(&imported.file).unwrap();
        let back = csv::import(&written).unwrap();
        assert_eq!(back.file, imported.file, "{}:\n{written}", path.display());
    }
}
