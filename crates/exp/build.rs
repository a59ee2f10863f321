//! Records the git revision of the build (for experiment manifests), `unknown` outside a git
//! checkout or without git.

use std::process::Command;

fn main() {
    let revision = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SCHEDLAB_GIT_REVISION={revision}");
    println!("cargo:rerun-if-env-changed=SCHEDLAB_GIT_REVISION");
    // Re-run when HEAD moves (a worktree's .git is a file naming the real folder).
    if let Ok(out) = Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .output()
    {
        if let Ok(dir) = String::from_utf8(out.stdout) {
            let dir = dir.trim();
            if !dir.is_empty() {
                println!("cargo:rerun-if-changed={dir}/HEAD");
                println!("cargo:rerun-if-changed={dir}/refs/heads");
            }
        }
    }
}
