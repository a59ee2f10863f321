//! # schedlab-testkit
//!
//! Support for schedlab's tests, used as a dev-dependency only.
//!
//! A test that cannot run on this machine (no real-time privileges, not exactly two CPUs, no
//! cgroup-v1 cpuset, …) must not pass silently: it calls [`skip`] with its reason and returns.
//! [`skip`] prints the reason to standard error and, when the environment variable
//! `SCHEDLAB_SKIP_LOG` names a file, appends one line `test<TAB>reason` to it.
//! `scripts/test.sh` sets that variable and prints the count and the reasons at the end of the
//! run, so every skip is seen even though cargo captures the output of passing tests.
//!
//! ```
//! # // This example is not a real skip: keep it out of the run's skip log.
//! # std::env::remove_var(schedlab_testkit::SKIP_LOG_VAR);
//! fn needs_two_cpus(cpus: usize) -> bool {
//!     if cpus != 2 {
//!         schedlab_testkit::skip("needs_two_cpus", &format!("needs 2 CPUs, this machine has {cpus}"));
//!         return false;
//!     }
//!     true
//! }
//! assert!(!needs_two_cpus(1));
//! ```

use std::io::Write;

/// The environment variable naming the file that collects skips.
pub const SKIP_LOG_VAR: &str = "SCHEDLAB_SKIP_LOG";

/// Records that `test` was skipped because of `reason`: printed to standard error, and
/// appended to the file named by `SCHEDLAB_SKIP_LOG` if set. Failing to write the log is itself
/// reported on standard error (never a panic: the skip is still printed).
pub fn skip(test: &str, reason: &str) {
    let reason = reason.replace(['\n', '\t'], " ");
    eprintln!("SKIPPED {test}: {reason}");
    if let Some(path) = std::env::var_os(SKIP_LOG_VAR) {
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| writeln!(f, "{test}\t{reason}"));
        if let Err(e) = written {
            eprintln!(
                "cannot append the skip to {}: {e}",
                std::path::Path::new(&path).display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_one_line_per_skip() {
        let dir = std::env::temp_dir().join(format!("schedlab-testkit-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let log = dir.join("skips.log");
        let _ = std::fs::remove_file(&log);
        // Only in this crate run this one test that touches the variable.
        std::env::set_var(SKIP_LOG_VAR, &log);
        skip("a", "first\treason");
        skip("b", "second");
        std::env::remove_var(SKIP_LOG_VAR);
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        assert_eq!(text, "a\tfirst reason\nb\tsecond\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
