//! Every file of the bad-experiment corpus (`crates/exp/tests/bad/`) through the command line:
//! a non-zero exit without a panic, each expected problem on standard error as `FILE:LINE:
//! message`, and no output folder created.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::process::Command;

#[test]
fn bad_files_fail_cleanly_and_leave_no_output_folder() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../exp/tests/bad");
    let out = std::env::temp_dir().join(format!("schedlab-bad-out-{}", std::process::id()));
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let _ = std::fs::remove_dir_all(&out);
        let run = Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .arg("experiment")
            .arg(&path)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        let name = path.display().to_string();
        assert!(!run.status.success(), "{name}: accepted");
        assert_ne!(run.status.code(), Some(101), "{name}: panicked: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(!out.exists(), "{name}: created the output folder");
        let text = std::fs::read_to_string(&path).unwrap();
        for rest in text
            .lines()
            .filter_map(|l| l.strip_prefix("# expect: line "))
        {
            let (line, message) = rest.split_once(": ").unwrap();
            assert!(
                stderr
                    .lines()
                    .any(|l| l.contains(&format!("{name}:{line}: ")) && l.contains(message)),
                "{name}: expected `{line}: {message}` in\n{stderr}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} bad files");
}

/// `--samples`: 0 and a chunk count over the limit are refused before any folder exists; a
/// valid override runs that many sets per point, the manifest records the file's own value,
/// and resuming the folder without the override is refused (another experiment).
#[test]
fn samples_override_is_checked_and_recorded() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/experiments/mp-fig8b.toml");
    let out = std::env::temp_dir().join(format!("schedlab-samples-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let go = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .arg("experiment")
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    for (n, message) in [
        (
            "0",
            "--samples: the number of task sets per point must be at least 1",
        ),
        ("18446744073709551615", "more than the limit"),
    ] {
        let run = go(&["--samples", n]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            !run.status.success() && stderr.contains(message),
            "{n}: {stderr}"
        );
        assert!(!out.exists(), "{n}: created the output folder");
    }
    let run = go(&["--samples", "2", "--jobs", "1"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"samples\": 2"), "{manifest}");
    assert!(manifest.contains("\"file_samples\": "), "{manifest}");
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let sets_col = summary
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|h| h == "sets")
        .unwrap();
    for line in summary.lines().skip(1) {
        assert_eq!(line.split(',').nth(sets_col), Some("2"), "{line}");
    }
    let full = go(&["--jobs", "1"]);
    assert!(!full.status.success());
    assert!(String::from_utf8_lossy(&full.stderr).contains("different experiment"));
    let _ = std::fs::remove_dir_all(&out);
}
