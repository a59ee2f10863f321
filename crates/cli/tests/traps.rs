//! The traps a new user fell into (issue 10, item 6), each retried the way the user hit it:
//! times without units, unknown names without a hint, experiment folders.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("run schedlab")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-traps-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const SET: &str = r#"{"tasks": [
  {"name": "a", "wcet": "2ms", "period": "10ms"},
  {"name": "b", "wcet": "3ms", "period": "15ms"}]}"#;

/// A command that must fail with a message containing every one of `needles`.
fn fails_with(args: &[&str], needles: &[&str]) {
    let out = schedlab(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    let err = stderr(&out);
    for n in needles {
        assert!(err.contains(n), "{args:?}: `{n}` not in: {err}");
    }
}

#[test]
fn a_time_without_a_unit_is_an_error_that_suggests_one() {
    let dir = temp_dir("units");
    let f = write(&dir, "set.json", SET);
    // `--duration 10` used to simulate 10 ns.
    let sim = ["simulate", &f, "--cpus", "2", "--policy", "gedf"];
    fails_with(
        &[&sim[..], &["--duration", "10"]].concat(),
        &["--duration", "needs a unit", "`10ms`"],
    );
    fails_with(
        &[&sim[..], &["--duration", "1s", "--arrivals", "sporadic:5"]].concat(),
        &["needs a unit", "`5ms`"],
    );
    fails_with(
        &["bench", "sim", "--cpus", "2", "--duration", "100"],
        &["--duration", "needs a unit"],
    );
    fails_with(
        &[
            "gen",
            "--tasks",
            "3",
            "--utilization",
            "1",
            "--periods",
            "loguniform:10..100",
        ],
        &["needs a unit", "`100ms`"],
    );
    // With units, the same commands work.
    let out = schedlab(&[&sim[..], &["--duration", "30ms", "--format", "json"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["duration_ns"], 30_000_000);
}

#[test]
fn a_unit_after_a_range_applies_to_both_ends() {
    // `--periods loguniform:10..100ms` gave periods of 741 ns: 10 was read as 10 ns.
    let out = schedlab(&[
        "gen",
        "--tasks",
        "40",
        "--utilization",
        "4",
        "--periods",
        "loguniform:10..100ms",
        "--seed",
        "7",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let set: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tasks = set["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 40);
    for t in tasks {
        let p = t["period"].as_str().unwrap();
        let ns = schedlab_model::time::parse_ns(p).unwrap();
        assert!((10_000_000..=100_000_000).contains(&ns), "period {p}");
    }
}

const SMALL_EXPERIMENT: &str = r#"
title = "traps"
samples = 4
chunk_size = 2

[platform]
cpus = [2]

[generator]
shape = "fixed-sum"
tasks = 4
periods = "uniform:10..100ms/10ms"

[sweep]
variable = "utilization"
points = [1.0, 1.5]

[[analysis]]
test = "gedf"
"#;

#[test]
fn a_missing_experiment_file_is_reported_once() {
    for args in [
        &["experiment", "no-such-file.toml", "--out", "no-such-out"][..],
        &["experiment", "no-such-file.toml", "--check"][..],
        &["experiment", "plot", "no-such-folder"][..],
    ] {
        let out = schedlab(args);
        assert!(!out.status.success());
        let err = stderr(&out);
        assert_eq!(err.matches("os error 2").count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn plotting_an_interrupted_folder_says_how_to_resume() {
    let dir = temp_dir("resume");
    let file = write(&dir, "small.toml", SMALL_EXPERIMENT);
    let out_dir = dir.join("out").display().to_string();
    let run = ["experiment", &file, "--out", &out_dir];
    let out = schedlab(&run);
    assert!(out.status.success(), "{}", stderr(&out));
    // An interrupted run leaves chunks unstored: take one away (interrupt.rs interrupts real
    // runs with SIGINT and SIGKILL; here the folder must be incomplete for sure).
    let chunks = dir.join("out/chunks");
    let mut stored: Vec<_> = std::fs::read_dir(&chunks)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    stored.sort();
    assert_eq!(stored.len(), 4, "{stored:?}");
    std::fs::remove_file(&stored[1]).unwrap();
    let plot = schedlab(&["experiment", "plot", &out_dir]);
    assert!(!plot.status.success());
    let err = stderr(&plot);
    assert!(
        err.contains("is incomplete: 1 of 4 chunks are missing"),
        "{err}"
    );
    let resume = format!("`schedlab experiment {file} --out {out_dir}`");
    assert!(err.contains(&resume), "{err}");
    assert!(!err.contains("os error"), "{err}");
    // The command it names resumes the run, and then plotting works.
    let out = schedlab(&run);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("3 of 4 chunks already stored"));
    let plot = schedlab(&["experiment", "plot", &out_dir]);
    assert!(plot.status.success(), "{}", stderr(&plot));
}

#[test]
fn unknown_parameterised_names_get_a_hint() {
    let dir = temp_dir("hints");
    let f = write(&dir, "set.json", SET);
    fails_with(
        &["analyze", &f, "--cpus", "4", "--test", "cedf-4"],
        &["unknown test `cedf-4` (did you mean `cedf-k4`?)"],
    );
    fails_with(
        &["analyze", &f, "--cpus", "4", "--test", "gedf-rta rounds=3"],
        &["did you mean `gedf-rta:rounds=3`?"],
    );
    fails_with(
        &["simulate", &f, "--cpus", "4", "--policy", "cedf-k2"],
        &["clustered EDF is `--policy cedf --cluster-size 2`"],
    );
}

#[test]
fn the_showcase_command_has_its_own_folder() {
    // `schedlab showcase` and ./scripts/showcase.sh both wrote out/showcase and mixed files.
    let help = schedlab(&["showcase", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    assert!(help.contains("[default: out/showcase-analysis]"), "{help}");
    let script = include_str!("../../../scripts/showcase.sh");
    assert!(
        script.contains("OUT=\"$ROOT/out/showcase\""),
        "the script's folder moved"
    );
    // An experiment folder of its own: rerunning resumes, the report says where it is.
    let dir = temp_dir("showcase");
    let out_dir = dir.join("sc").display().to_string();
    for _ in 0..2 {
        let out = schedlab(&["showcase", "--cpus", "2", "--sets", "2", "--out", &out_dir]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            text.contains(&format!("report: {out_dir}/report.html")),
            "{text}"
        );
    }
    for f in [
        "manifest.json",
        "summary.csv",
        "acceptance.png",
        "report.html",
    ] {
        assert!(dir.join("sc").join(f).is_file(), "{f}");
    }
}

#[test]
fn every_command_line_time_needs_a_unit() {
    let dir = temp_dir("cli-times");
    let f = write(&dir, "set.json", SET);
    // `run` checks its times before it touches the machine.
    for (flag, bare) in [
        ("--duration", "3"),
        ("--dl-margin", "500"),
        ("--release-spin", "20"),
    ] {
        let mut args = vec!["run", f.as_str(), "--cpus", "1", "--policy", "gedf"];
        args.extend([flag, bare]);
        fails_with(&args, &[flag, "needs a unit"]);
    }
    let trace = dir.join("t.trace").display().to_string();
    let out = schedlab(&[
        "simulate",
        &f,
        "--cpus",
        "2",
        "--policy",
        "gedf",
        "--duration",
        "40ms",
        "--trace",
        &trace,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = dir.join("g.svg").display().to_string();
    fails_with(
        &["trace", "gantt", &trace, "-o", &svg, "--window", "0..20"],
        &["--window", "needs a unit"],
    );
    // A unit after the window applies to both ends.
    let out = schedlab(&["trace", "gantt", &trace, "-o", &svg, "--window", "10..20ms"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains(">10</text>") && text.contains(">20</text>"),
        "axis 10..20 ms"
    );
}
