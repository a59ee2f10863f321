//! What the command-line test files share: running the built `schedlab` binary, a scratch file
//! of this test process, and the whole output of a run for assertion messages.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `schedlab` binary of this build with `args`.
pub(crate) fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("run schedlab")
}

/// Writes `text` to `name` in this process's scratch directory for `tag`
/// (`$TMP/schedlab-{tag}-{pid}`), and returns the file's path.
pub(crate) fn temp_file(tag: &str, name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("scratch file");
    path
}

/// Standard output then standard error, for assertion messages.
pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
