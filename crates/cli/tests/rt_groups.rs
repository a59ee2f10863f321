//! `schedlab run` on files with reservation groups: a set failing admission [HCBS Eq. 17] is
//! refused by every architecture; an architecture that does not run groups ignores them with
//! one note on standard error; `--arch linux-rt-groups` interrupted by SIGTERM mid-run
//! restores every cgroup setting, and after a SIGKILL (its cgroups left behind) the next run
//! repairs them. The real runs are bounded (the test kills what it started within seconds) and
//! skipped loudly without real-time permission or the cgroup-v1 `cpu` hierarchy with RT group
//! files. Pass/fail never depends on timing.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::schedlab;

use schedlab_runtime::mech::rt_cgroup;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Groups `a` (4 ms / 20 ms) and `b` (`b_budget` / 20 ms) with one task each.
fn groups_file(name: &str, b_budget: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-rtg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.toml"));
    let text = format!(
        r#"
[[groups]]
name = "a"
budget = "4ms"
period = "20ms"

[[groups]]
name = "b"
budget = "{b_budget}"
period = "20ms"

[[tasks]]
name = "ta"
wcet = "1ms"
period = "20ms"
group = "a"

[[tasks]]
name = "tb"
wcet = "2ms"
period = "20ms"
group = "b"
"#
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn groups_failing_admission_are_refused_by_every_architecture() {
    let file = groups_file("over", "17ms");
    let f = file.to_str().unwrap();
    for arch in schedlab_runtime::arch::names() {
        let mut args = vec![
            "run",
            f,
            "--cpus",
            "1",
            "--arch",
            arch,
            "--duration",
            "10ms",
        ];
        args.push("--allow-non-rt");
        if !schedlab_runtime::arch::REGISTRY
            .iter()
            .any(|d| d.name == arch && d.kernel)
        {
            args.extend(["--policy", "gfp"]);
        }
        let o = schedlab(&args);
        let e = stderr(&o);
        assert!(!o.status.success(), "{arch}: {e}");
        assert!(
            e.contains("CPU 0: the groups' servers need Σ Q/P > 1") && e.contains("[HCBS Eq. 17]"),
            "{arch}: {e}"
        );
    }
}

#[test]
fn architectures_without_groups_note_that_they_ignore_them() {
    let file = groups_file("ok", "6ms");
    let o = schedlab(&[
        "run",
        file.to_str().unwrap(),
        "--cpus",
        "1",
        "--arch",
        "linux-fifo",
        "--duration",
        "40ms",
        "--allow-non-rt",
        "--format",
        "json",
    ]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    let note =
        "note: groups are ignored by --arch linux-fifo; use --arch reservations or linux-rt-groups";
    assert_eq!(e.matches(note).count(), 1, "{e}");
}

/// Whether a real linux-rt-groups run is possible here; else `test` is skipped loudly.
fn can_run(test: &str) -> Option<PathBuf> {
    let rt = std::thread::spawn(|| {
        use schedlab_runtime::mech::sched::{set_class, Class, ClassGuard};
        let _other = ClassGuard::to_other();
        set_class(0, Class::Fifo(1)).is_ok()
    })
    .join()
    .unwrap_or(false);
    if !rt {
        schedlab_testkit::skip(test, "real-time scheduling is not permitted");
        return None;
    }
    let root = rt_cgroup::hierarchy();
    if root.is_none() {
        schedlab_testkit::skip(
            test,
            "no cgroup-v1 cpu hierarchy with cpu.rt_runtime_us (CONFIG_RT_GROUP_SCHED)",
        );
    }
    root
}

/// Kills the child when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a 20 s linux-rt-groups run of `file` and waits (at most 10 s) until its thread of
/// group `a` is in its cgroup.
fn start_run(file: &Path) -> (Killed, PathBuf) {
    let child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", file.to_str().unwrap(), "--cpus", "1"])
        .args([
            "--arch",
            "linux-rt-groups",
            "--duration",
            "20s",
            "--format",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start schedlab");
    let root = rt_cgroup::hierarchy().unwrap();
    let dir = root.join(format!("{}{}", rt_cgroup::PREFIX, child.id()));
    let tasks = dir.join("g0-a").join("tasks");
    let until = Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&tasks).map_or(true, |t| t.trim().is_empty()) {
        assert!(
            Instant::now() < until,
            "the run's cgroup {} never filled",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (Killed(child), dir)
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig}");
}

/// Waits (at most 10 s) for the child to end; its output.
fn finish(mut k: Killed) -> Output {
    let until = Instant::now() + Duration::from_secs(10);
    while k.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < until, "the run did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = String::new();
    let mut err = String::new();
    use std::io::Read;
    if let Some(mut s) = k.0.stdout.take() {
        s.read_to_string(&mut out).unwrap();
    }
    if let Some(mut s) = k.0.stderr.take() {
        s.read_to_string(&mut err).unwrap();
    }
    let status = k.0.wait().unwrap();
    Output {
        status,
        stdout: out.into_bytes(),
        stderr: err.into_bytes(),
    }
}

fn rt_settings(root: &Path) -> (String, String) {
    let read = |f: &str| std::fs::read_to_string(root.join(f)).unwrap();
    (read("cpu.rt_runtime_us"), read("cpu.rt_period_us"))
}

#[test]
fn sigterm_restores_the_cgroups_and_a_killed_runs_are_repaired_by_the_next_run() {
    let test = "sigterm_restores_the_cgroups_and_a_killed_runs_are_repaired_by_the_next_run";
    let Some(root) = can_run(test) else {
        return;
    };
    let before = rt_settings(&root);
    let file = groups_file("signals", "6ms");
    // SIGTERM mid-run: the run ends early, reports, and removes its cgroups.
    let (run, dir) = start_run(&file);
    signal(&run.0, "-TERM");
    let o = finish(run);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["interrupted"], Value::Bool(true));
    assert!(!dir.exists(), "{} left after SIGTERM", dir.display());
    assert_eq!(rt_settings(&root), before);
    // SIGKILL mid-run leaves the tree; the next run removes it and says so.
    let (run, dir) = start_run(&file);
    let pid = run.0.id();
    signal(&run.0, "-KILL");
    drop(finish(run));
    assert!(dir.join("g0-a").exists(), "a killed run cannot clean up");
    let o = schedlab(&[
        "run",
        file.to_str().unwrap(),
        "--cpus",
        "1",
        "--arch",
        "linux-rt-groups",
        "--duration",
        "200ms",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains(&format!("left by a killed run (pid {pid})")),
        "{warnings}"
    );
    assert!(!dir.exists());
    assert!(
        rt_cgroup::leftovers().is_empty(),
        "{:?}",
        rt_cgroup::leftovers()
    );
    assert_eq!(rt_settings(&root), before);
}
