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
