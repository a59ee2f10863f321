//! `schedlab run FILE --arch linux-deadline` on a file with parallel (fork-join) tasks: the
//! kernel baseline runs one SCHED_DEADLINE thread per thread slot (the RTWS "SD"
//! comparison). A real run of 300 ms, skipped loudly where it cannot run (not exactly two
//! CPUs for this process — SCHED_DEADLINE's affinity spans the root domain — or no
//! real-time permission). Pass/fail never depends on timing.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn can_run_deadline(test: &str) -> bool {
    let cpus = schedlab_runtime::mech::sched::allowed_cpus().unwrap_or_default();
    if cpus.len() != 2 {
        let reason = format!(
            "needs exactly 2 CPUs (SCHED_DEADLINE's affinity spans the root domain), this process may use {cpus:?}"
        );
        schedlab_testkit::skip(test, &reason);
        return false;
    }
    let rt = std::thread::spawn(|| {
        use schedlab_runtime::mech::sched::{set_class, Class, ClassGuard};
        let _other = ClassGuard::to_other();
        set_class(0, Class::Fifo(1)).is_ok()
    })
    .join()
    .unwrap_or(false);
    if !rt {
        schedlab_testkit::skip(
            test,
            "real-time scheduling is not permitted: the run would not be real-time",
        );
    }
    rt
}

/// examples/parallel.toml ([RTWS §V-A]: τ1 = (5, 10) ms [[3], [1, 1]], τ2 = (10, 20) ms
/// [[2], [1, 3, 1, 3]], τ3 = (4, 19) ms sequential) for 300 ms: 30 + 15 + 16 jobs, each
/// accounted once (completed, or cut at the horizon), counted per job in the JSON as
/// `trace stats` counts them from the trace written alongside.
#[test]
fn run_linux_deadline_runs_a_parallel_file() {
    let test = "run_linux_deadline_runs_a_parallel_file";
    if !can_run_deadline(test) {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let f = root.join("examples/parallel.toml");
    let dir = std::env::temp_dir().join(format!("schedlab-kpar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("run.trace");
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", f.to_str().unwrap(), "--arch", "linux-deadline"])
        .args(["--cpus", "2", "--duration", "300ms", "--format", "json"])
        .args(["--trace", trace.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!(
        "{test}: misses {} migrations {} context switches {} warnings {}",
        v["deadline_misses"], v["migrations"], v["context_switches"], v["warnings"]
    );
    assert_eq!(v["real_time"], true);
    assert_eq!(v["arch"], "linux-deadline");
    assert_eq!(v["jobs"], 61);
    assert_eq!(v["dropped_events"], 0);
    let stats = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["trace", "stats", trace.to_str().unwrap()])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&stats.stdout);
    let line = format!(
        "migrations {}, context switches {}",
        v["migrations"], v["context_switches"]
    );
    assert!(s.contains(&line), "{line} not in {s}");
    let _ = std::fs::remove_dir_all(&dir);
}
