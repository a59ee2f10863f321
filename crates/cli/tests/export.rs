//! `schedlab export` from the command line: the formats, the files it writes, the refusals of
//! what Linux cannot express, and the exported shell script's own behaviour (exit statuses,
//! task failures, body overrides) with stand-ins for `chrt` and `taskset`, so nothing here
//! needs real-time privileges (the real runs are in `export_run.rs`). Pass/fail never depends
//! on timing.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::{schedlab, temp_file, text};
use schedlab_model::interop::rt_app::{doc::problems, import, strip_header};
use std::path::{Path, PathBuf};
use std::process::Command;

/// 0.6, 0.5, 0.2: `pedf-ffd` puts t1 and t3 on CPU 0, t2 on CPU 1.
const THREE: &str = r#"
[[tasks]]
name = "t1"
wcet = "6ms"
period = "10ms"

[[tasks]]
name = "t2"
wcet = "5ms"
period = "10ms"

[[tasks]]
name = "t3"
wcet = "4ms"
period = "20ms"
"#;

/// The set in a file of its own (tests run in parallel: one must not read another's file
/// half-written).
fn three() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = format!("three-{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let path = temp_file("export", &format!("{dir}.toml"), THREE);
    let named = path.with_file_name(format!("{dir}/three.toml"));
    std::fs::create_dir_all(named.parent().unwrap()).unwrap();
    std::fs::rename(&path, &named).unwrap();
    named
}

fn export(args: &[&str]) -> std::process::Output {
    let f = three();
    let mut all = vec!["export", f.to_str().unwrap(), "--cpus", "2"];
    all.extend_from_slice(args);
    schedlab(&all)
}

#[test]
fn the_rt_app_export_keeps_to_rt_app_s_documented_fields() {
    for policy in ["pedf", "gedf", "pfp", "gfp"] {
        let out = export(&["--policy", policy, "--to", "rt-app"]);
        assert!(out.status.success(), "{}", text(&out));
        let json = String::from_utf8(out.stdout).unwrap();
        assert!(json.starts_with("/*\n * Exported by schedlab "), "{json}");
        let doc: serde_json::Value = serde_json::from_str(strip_header(&json)).unwrap();
        assert_eq!(problems(&doc), Vec::<String>::new(), "{policy}");
        // …and reads back to the same tasks and policy.
        let back = import(&json).unwrap();
        assert_eq!(back.policy.as_deref(), Some(policy));
        let wcets: Vec<u64> = back.file.tasks.iter().map(|t| t.wcet.as_ns()).collect();
        assert_eq!(wcets, vec![6_000_000, 5_000_000, 4_000_000]);
    }
    let out = export(&["--policy", "pedf", "--to", "rt-app"]);
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(
        json.contains(" * Accepted by: pedf-ffd: schedulable\n"),
        "{json}"
    );
    assert!(json.contains(" * Margin: 500us (SCHED_DEADLINE runtime = WCET + margin"));
    assert!(json.contains("\"dl-runtime\": 6500,"));
}

/// Each policy Linux cannot express: exit status 1 and a message that says why and names the
/// `schedlab run` that runs it.
#[test]
fn policies_linux_cannot_express_are_refused_with_the_alternative() {
    for (policy, run) in [
        ("gedf-mp", "--arch message-passing --policy gedf"),
        ("pfp-ts", "--arch semi-partitioned --policy pfp-ts"),
        ("rtws", "--arch work-stealing --policy rtws"),
        ("hcbs", "--arch reservations --policy hcbs"),
        ("gmua", "--arch global-lock --policy gmua"),
        ("plbesa", "--arch partitioned --policy plbesa"),
    ] {
        let out = export(&["--policy", policy]);
        assert_eq!(out.status.code(), Some(1), "{policy}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!(
                "error: policy `{policy}` cannot be exported to Linux: "
            )),
            "{err}"
        );
        assert!(
            err.trim_end()
                .ends_with(&format!("`schedlab run FILE {run}`")),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = export(&["--policy", "hcbs"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("linux-rt-groups), is partial"));
    let out = export(&["--policy", "nope"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: unknown policy `nope`: Linux runs gedf, sd, pedf, cedf (SCHED_DEADLINE); gfp, pfp (SCHED_FIFO); every schedlab policy runs under `schedlab run --arch …`"
    );
}

#[test]
fn a_set_no_test_accepts_needs_force() {
    let f = temp_file(
        "export",
        "heavy.toml",
        "[[tasks]]\nwcet = \"9ms\"\nperiod = \"10ms\"\n[[tasks]]\nwcet = \"9ms\"\nperiod = \"10ms\"\n[[tasks]]\nwcet = \"9ms\"\nperiod = \"10ms\"\n",
    );
    let f = f.to_str().unwrap();
    let out = schedlab(&["export", f, "--cpus", "2", "--policy", "gfp"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("export it anyway with --force"));
    let out = schedlab(&["export", f, "--cpus", "2", "--policy", "gfp", "--force"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\n# NOT ACCEPTED: gfp: not-shown"));
}

#[test]
fn options_are_checked() {
    let out = export(&["--policy", "pedf", "--duration", "10"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--duration: "),
        "{}",
        text(&out)
    );
    let out = export(&["--policy", "gedf", "--test", "pedf-ffd"]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--test pedf-ffd is a partitioned test; policy gedf runs global EDF"));
    let out = export(&["--policy", "gedf", "--to", "docker"]);
    assert_eq!(out.status.code(), Some(2));
    let f = three();
    let out = schedlab(&["export", f.to_str().unwrap(), "--policy", "gedf"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --cpus"));
}

/// `-o` writes the shell script executable; `--to systemd -o DIR/` writes one file per unit,
/// which `systemd-analyze verify` accepts when it is installed.
#[test]
fn files_and_unit_directories() {
    let dir = std::env::temp_dir().join(format!("schedlab-export-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("run.sh");
    let out = export(&["--policy", "pedf", "-o", script.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&script).unwrap().permissions().mode() & 0o111,
        0o111
    );
    let units = format!("{}/units/", dir.display());
    let out = export(&[
        "--policy",
        "pedf",
        "--to",
        "systemd",
        "-o",
        &units,
        "--launcher",
        env!("CARGO_BIN_EXE_schedlab"),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let mut files: Vec<String> = std::fs::read_dir(&units)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        vec![
            "schedlab-three-cpusets.service",
            "schedlab-three-t1.service",
            "schedlab-three-t2.service",
            "schedlab-three-t3.service",
            "schedlab-three.target"
        ]
    );
    verify_units(Path::new(&units));
    let fifo_units = format!("{}/fifo/", dir.display());
    let out = export(&[
        "--policy",
        "pfp",
        "--to",
        "systemd",
        "-o",
        &fifo_units,
        "--launcher",
        env!("CARGO_BIN_EXE_schedlab"),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    verify_units(Path::new(&fifo_units));
}

fn verify_units(dir: &Path) {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let out = match Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .args(&files)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            schedlab_testkit::skip(
                "files_and_unit_directories (systemd-analyze verify)",
                &format!("systemd-analyze is not available: {e}"),
            );
            return;
        }
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "systemd-analyze verify: {err}");
    for bad in [
        "Failed to parse",
        "Unknown key",
        "ignoring",
        "is not executable",
    ] {
        assert!(!err.contains(bad), "systemd-analyze verify: {err}");
    }
}

/// A directory of stand-ins for `chrt` and `taskset` that only pass their command on, so the
/// script's own logic runs without privileges.
fn fake_tools() -> PathBuf {
    // Written once per test process: tests run in parallel, and rewriting a script while
    // another test executes it fails (ETXTBSY) or runs it half-written.
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("schedlab-export-fake-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, body: &str| {
            let p = dir.join(name);
            std::fs::write(&p, body).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        write(
            "chrt",
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in -f) shift 2; break ;; -d) shift 8; break ;; *) shift ;; esac; done\nexec \"$@\"\n",
        );
        write("taskset", "#!/bin/sh\nshift 2\nexec \"$@\"\n");
        dir
    })
    .clone()
}

fn fifo_script() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-export-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A script of its own per call, for the same reason as `fake_tools`.
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let script = dir.join(format!("fifo-{}.sh", NEXT.fetch_add(1, Ordering::Relaxed)));
    let out = export(&["--policy", "pfp", "-o", script.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    script
}

fn run_script(script: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let path = format!(
        "{}:{}",
        fake_tools().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("timeout")
        .arg("30")
        .arg("sh")
        .arg(script)
        .args(args)
        .env("PATH", path)
        .env("SCHEDLAB", "/nonexistent/schedlab")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

#[test]
fn the_script_runs_overridden_bodies_and_reports_failures() {
    let script = fifo_script();
    // Every body overridden: no schedlab needed; each sees its task's parameters.
    let out = run_script(
        &script,
        &["--duration", "5s"],
        &[
            (
                "BODY_T1",
                "echo task=$SCHEDLAB_TASK wcet=$SCHEDLAB_WCET_NS period=$SCHEDLAB_PERIOD_NS",
            ),
            ("BODY_T2", "true"),
            ("BODY_T3", "true"),
        ],
    );
    let s = text(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert!(s.contains("task=t1 wcet=6000000 period=10000000"), "{s}");
    assert!(s.contains("started t2 pid="), "{s}");
    assert!(s.ends_with("run ended\n"), "{s}");
    // A body that fails ends the run with status 1, naming the task.
    let out = run_script(
        &script,
        &["--duration", "5s"],
        &[
            ("BODY_T1", "sleep 10"),
            ("BODY_T2", "sh -c 'exit 7'"),
            ("BODY_T3", "sleep 10"),
        ],
    );
    let s = text(&out);
    assert_eq!(out.status.code(), Some(1), "{s}");
    assert!(s.contains("task t2 (pid "), "{s}");
    assert!(
        s.contains(") ended with exit status 7 before the end of the run"),
        "{s}"
    );
    // No default body without schedlab.
    let out = run_script(&script, &["--duration", "1s"], &[("BODY_T1", "true")]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out)
        .contains("schedlab not found (set SCHEDLAB to the binary, or BODY_T2 to a task body)"));
}

#[test]
fn the_script_checks_its_options() {
    let script = fifo_script();
    for (args, message) in [
        (
            vec!["--duration", "10"],
            "--duration '10': give whole ms, s, m or h (e.g. 10s), or inf",
        ),
        (vec!["--duration", "1.5s"], "give whole ms, s, m or h"),
        (vec!["--duration", "0s"], "--duration must be longer than 0"),
        (vec!["--bogus"], "unknown argument '--bogus'"),
    ] {
        let out = run_script(&script, &args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(message), "{args:?}: {}", text(&out));
    }
    let out = run_script(&script, &["--help"], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out).starts_with("Exported by schedlab "),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("Usage: sh FILE [--duration D] [--rt-app] [--help]"));
}

/// Without a cgroup-v1 cpuset hierarchy (here: a CPUSET_ROOT that does not exist) a
/// SCHED_DEADLINE script stops before starting anything, with status 3 and the reason.
#[test]
fn a_deadline_script_without_cpusets_says_why() {
    let dir = std::env::temp_dir().join(format!("schedlab-export-dl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("dl.sh");
    let out = export(&["--policy", "pedf", "-o", script.to_str().unwrap()]);
    assert!(out.status.success());
    let out = run_script(
        &script,
        &["--duration", "1s"],
        &[
            ("CPUSET_ROOT", "/nonexistent/cpuset"),
            ("BODY_T1", "true"),
            ("BODY_T2", "true"),
            ("BODY_T3", "true"),
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let s = text(&out);
    assert!(
        s.contains("needs root: SCHED_DEADLINE root domains are cpusets")
            || s.contains("no cgroup-v1 cpuset hierarchy at /nonexistent/cpuset")
            || s.contains("cgroup v2 (the unified hierarchy)"),
        "{s}"
    );
    assert!(!s.contains("started"), "{s}");
}

/// `periodic-load` releases exactly the jobs of its duration (the count is arithmetic, not
/// timing: releases at 0, 10, …, 90 ms) and checks its options.
#[test]
fn periodic_load() {
    let out = schedlab(&[
        "periodic-load",
        "--wcet",
        "1ms",
        "--period",
        "10ms",
        "--duration",
        "100ms",
        "--name",
        "pl",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.starts_with("pl: 10 jobs, "), "{s}");
    assert!(s.contains("(wcet 1ms, period 10ms, deadline 10ms)"), "{s}");
    // A start long past: its whole duration is over, no job.
    let out = schedlab(&[
        "periodic-load",
        "--wcet",
        "1ms",
        "--period",
        "10ms",
        "--duration",
        "1s",
        "--start-at",
        "1000",
    ]);
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("periodic-load: 0 jobs"),
        "{}",
        text(&out)
    );
    let out = schedlab(&["periodic-load", "--wcet", "20ms", "--period", "10ms"]);
    assert!(text(&out).contains("--wcet 20ms exceeds --period 10ms"));
    let out = schedlab(&["periodic-load", "--wcet", "1", "--period", "10ms"]);
    assert!(text(&out).contains("--wcet: "), "{}", text(&out));
    let out = schedlab(&[
        "periodic-load",
        "--wcet",
        "1ms",
        "--period",
        "10ms",
        "--wss",
        "2GiB",
    ]);
    assert!(text(&out).contains("more than the 1GiB"), "{}", text(&out));
}
