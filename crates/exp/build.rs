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
    // Re-run when HEAD moves: HEAD lives in the git folder (a worktree has one of its own, which
    // its .git file names), the branch it names and packed-refs in the common one. Only the
    // checked-out branch: other worktrees' commits leave this build alone. Only existing paths:
    // cargo reruns the script on every build for a path that does not exist.
    let head = git_path("--git-dir").map(|dir| dir.join("HEAD"));
    let common = git_path("--git-common-dir");
    let branch = head
        .as_ref()
        .and_then(|h| std::fs::read_to_string(h).ok())
        .and_then(|text| Some(text.strip_prefix("ref: ")?.trim().to_string()))
        .zip(common.as_ref())
        .map(|(name, dir)| dir.join(name));
    let packed = common.map(|dir| dir.join("packed-refs"));
    for path in [head, branch, packed].into_iter().flatten() {
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

/// `git rev-parse FLAG` as a path, if git answers.
fn git_path(flag: &str) -> Option<std::path::PathBuf> {
    let out = Command::new("git")
        .args(["rev-parse", flag])
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    let dir = dir.trim();
    (out.status.success() && !dir.is_empty()).then(|| dir.into())
}
