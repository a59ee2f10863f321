//! `schedlab trace stats|gantt|perfetto|overheads` as a user drives them, on a simulated
//! trace and on traces of two short real runs (0.5 s each, `--allow-non-rt`, so they work
//! without real-time permission; pass/fail never depends on timing).

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

fn ok(out: &Output) -> &Output {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-trace-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// U = 1.1, periods 10–30 ms.
const SET: &str = r#"{"tasks": [
  {"name": "a", "wcet": "3ms", "period": "10ms"}, {"name": "b", "wcet": "4ms", "period": "20ms"},
  {"name": "c", "wcet": "7.5ms", "period": "25ms"}, {"name": "d", "wcet": "9ms", "period": "30ms"}]}"#;

#[test]
fn stats_of_a_simulated_trace_match_the_simulation_and_exports_work() {
    let dir = temp_dir("sim");
    let f = write(&dir, "set.json", SET);
    let tr = dir.join("s.trace");
    let tr = tr.to_str().unwrap();
    let sim = ok(&schedlab(&[
        "simulate",
        &f,
        "--cpus",
        "1",
        "--policy",
        "gedf",
        "--duration",
        "200ms",
        "--trace",
        tr,
        "--format",
        "json",
    ]))
    .stdout
    .clone();
    let sim: Value = serde_json::from_slice(&sim).unwrap();
    let st = ok(&schedlab(&["trace", "stats", tr, "--format", "json"]))
        .stdout
        .clone();
    let st: Value = serde_json::from_slice(&st).unwrap();
    assert_eq!(st["engine"], "sim");
    for key in [
        "jobs",
        "deadline_misses",
        "max_tardiness_ns",
        "preemptions",
        "migrations",
    ] {
        assert_eq!(st[key], sim[key], "{key}");
    }
    assert!(sim["deadline_misses"].as_u64().unwrap() > 0); // U = 1.1 on one CPU
    assert!(st["response_time"]["count"].as_u64().unwrap() > 0);
    let table = ok(&schedlab(&["trace", "stats", tr])).stdout.clone();
    assert!(String::from_utf8_lossy(&table).contains("response time"));

    let svg = dir.join("g.svg");
    ok(&schedlab(&[
        "trace",
        "gantt",
        tr,
        "-o",
        svg.to_str().unwrap(),
        "--window",
        "0..50ms",
    ]));
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    let pf = dir.join("p.json");
    ok(&schedlab(&[
        "trace",
        "perfetto",
        tr,
        "-o",
        pf.to_str().unwrap(),
    ]));
    let pf: Value = serde_json::from_str(&std::fs::read_to_string(pf).unwrap()).unwrap();
    assert!(pf["traceEvents"].as_array().is_some_and(|a| !a.is_empty()));

    let out = schedlab(&[
        "trace",
        "overheads",
        tr,
        "-o",
        dir.join("o.toml").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a runtime trace"));
    let out = schedlab(&["trace", "gantt", tr, "-o", "x.svg", "--window", "5ms..1ms"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--window"));
}

/// Two real runs (partitioned, global-lock) → fitted into a file that already has a CPMD
/// section → the section is kept, both architectures are there, and the simulator accepts
/// the file for each of them.
/// A fork-join set [RTWS §V-A] (`examples/parallel.toml`) under `rtws`: the JSON summary
/// reports `"steals"` next to `"migrations"` (in total and per task), the trace read back by
/// `trace stats` counts the same, the Perfetto export names the threads `τi#j.s`, and a
/// policy that does not take parallel tasks is refused naming those that do.
#[test]
fn parallel_tasks_report_steals_in_the_summary_and_the_trace() {
    let dir = temp_dir("parallel");
    let set = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/parallel.toml")
        .display()
        .to_string();
    let trace = dir.join("p.trace").display().to_string();
    let perfetto = dir.join("p.json").display().to_string();
    let out = schedlab(&[
        "simulate",
        &set,
        "--policy",
        "rtws",
        "--duration",
        "100ms",
        "--format",
        "json",
        "--trace",
        &trace,
        "--perfetto",
        &perfetto,
    ]);
    let sim: Value = serde_json::from_slice(&ok(&out).stdout).unwrap();
    let steals = sim["steals"].as_u64().unwrap();
    assert!(
        steals > 0 && sim["migrations"].as_u64().unwrap() > 0,
        "{sim}"
    );
    let per_task: u64 = sim["per_task"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["steals"].as_u64().unwrap())
        .sum();
    assert_eq!(per_task, steals);
    let out = schedlab(&["trace", "stats", &trace, "--format", "json"]);
    let stats: Value = serde_json::from_slice(&ok(&out).stdout).unwrap();
    for key in [
        "jobs",
        "migrations",
        "steals",
        "preemptions",
        "context_switches",
    ] {
        assert_eq!(stats[key], sim[key], "{key}");
    }
    let json = std::fs::read_to_string(&perfetto).unwrap();
    assert!(json.contains("\"name\":\"τ1#0.4\"") && json.contains("\"cat\":\"steal\""));
    let out = schedlab(&["simulate", &set, "--policy", "gmua", "--duration", "100ms"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "policy `gmua` does not schedule parallel tasks; the policies that do: rtws, federated (natively)"
        ),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fitted_overheads_of_real_runs_round_trip_into_the_simulator() {
    let dir = temp_dir("fit");
    let f = write(&dir, "set.json", SET);
    let mut traces = Vec::new();
    for (arch, policy) in [("partitioned", "pedf"), ("global-lock", "gedf")] {
        let tr = dir.join(format!("{arch}.trace")).display().to_string();
        let run = ok(&schedlab(&[
            "run",
            &f,
            "--cpus",
            "2",
            "--policy",
            policy,
            "--arch",
            arch,
            "--duration",
            "500ms",
            "--allow-non-rt",
            "--trace",
            &tr,
            "--format",
            "json",
        ]))
        .stdout
        .clone();
        let run: Value = serde_json::from_slice(&run).unwrap();
        let st = ok(&schedlab(&["trace", "stats", &tr, "--format", "json"]))
            .stdout
            .clone();
        let st: Value = serde_json::from_slice(&st).unwrap();
        assert_eq!(st["arch"], arch);
        // One definition of the counters (schedlab_trace::counts): `trace stats` on the run's
        // trace says what the run said.
        for k in ["preemptions", "migrations", "context_switches"] {
            assert_eq!(st[k], run[k], "{arch}: {k}");
        }
        assert!(
            st["overheads"]["release_latency"]["count"]
                .as_u64()
                .unwrap()
                > 0
        );
        traces.push(tr);
    }
    let oh = write(
        &dir,
        "oh.toml",
        "schema = 1\n[cpmd.preemption]\navg = [[0, 0], [4096, 1000]]\n",
    );
    let mut args = vec!["trace", "overheads"];
    args.extend(traces.iter().map(String::as_str));
    args.extend(["-o", &oh, "--equal-samples", "--format", "json"]);
    let fitted = ok(&schedlab(&args)).stdout.clone();
    let fitted: Value = serde_json::from_slice(&fitted).unwrap();
    assert!(fitted["points"]
        .as_array()
        .is_some_and(|p| p.iter().all(|p| p["n"] == 4)));
    let text = std::fs::read_to_string(&oh).unwrap();
    assert!(text.contains("[cpmd.preemption]"), "{text}");
    assert!(
        text.contains("[arch.partitioned.release_latency]"),
        "{text}"
    );
    assert!(
        text.contains("[arch.global-lock.release_latency]"),
        "{text}"
    );
    for arch in ["partitioned", "global-lock"] {
        let policy = if arch == "partitioned" {
            "pedf"
        } else {
            "gedf"
        };
        let out = ok(&schedlab(&[
            "simulate",
            &f,
            "--cpus",
            "2",
            "--policy",
            policy,
            "--duration",
            "200ms",
            "--overheads",
            &oh,
            "--overhead-arch",
            arch,
            "--format",
            "json",
        ]))
        .stdout
        .clone();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert!(v["overheads"]["charged_ns"]["release"].as_u64().unwrap() > 0);
    }
}

/// `trace overheads` writes the measuring kernel's `tick_period` (from the run's metadata,
/// `kernel_hz`) without measuring anything; with `--measure-tick=100ms` it also writes a `tick`
/// curve, constant in n, into every architecture section it fits. Both files parse back with
/// `OverheadFile::parse_toml`. Structure only, never timing.
#[test]
fn trace_overheads_writes_the_tick_period_and_the_measured_tick() {
    let test = "trace_overheads_writes_the_tick_period_and_the_measured_tick";
    let dir = temp_dir("tick");
    let f = write(&dir, "set.json", SET);
    let tr = dir.join("gl.trace").display().to_string();
    ok(&schedlab(&[
        "run",
        &f,
        "--cpus",
        "2",
        "--policy",
        "gedf",
        "--arch",
        "global-lock",
        "--duration",
        "300ms",
        "--allow-non-rt",
        "--trace",
        &tr,
    ]));
    let oh = dir.join("oh.toml").display().to_string();
    let out = ok(&schedlab(&[
        "trace",
        "overheads",
        &tr,
        "-o",
        &oh,
        "--format",
        "json",
    ]))
    .stdout
    .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let text = std::fs::read_to_string(&oh).unwrap();
    let file = schedlab_model::overheads::OverheadFile::parse_toml(&text).unwrap();
    if file.tick_period.is_none() {
        schedlab_testkit::skip(
            test,
            "this kernel's HZ is readable neither from its configuration nor from /proc/timer_list",
        );
        return;
    }
    assert_eq!(
        v["tick_period_ns"].as_u64(),
        file.tick_period.map(|q| q.as_ns())
    );
    assert!(v["tick"].is_null());
    assert!(text.contains("tick_period = "), "{text}");
    assert!(!text.contains("[arch.global-lock.tick]"), "{text}");

    let out = schedlab(&[
        "trace",
        "overheads",
        &tr,
        "-o",
        &oh,
        "--measure-tick=100ms",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("no tick was seen") {
        schedlab_testkit::skip(test, &format!("no tick seen on any CPU: {stderr}"));
        return;
    }
    ok(&out);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = std::fs::read_to_string(&oh).unwrap();
    let file = schedlab_model::overheads::OverheadFile::parse_toml(&text).unwrap();
    let tick = &file.arch["global-lock"][&schedlab_model::overheads::OverheadName::Tick];
    for c in [&tick.avg, &tick.max] {
        assert_eq!(c.as_ref().map(|c| c.points().len()), Some(1), "{text}");
        assert_eq!(c.as_ref().map(|c| c.points()[0].0), Some(0), "{text}");
    }
    assert_eq!(
        v["tick"]["tick_period_ns"].as_u64(),
        file.tick_period.map(|q| q.as_ns())
    );
    let cpus = v["tick"]["cpus"].as_array().unwrap();
    assert!(!cpus.is_empty());
    assert!(cpus.iter().all(|c| c["expected"].as_u64() > Some(0)));
    assert!(file.meta["tick"].contains("spinning thread"), "{text}");

    // --tick-cpus needs --measure-tick; a bad duration is named.
    let bad = schedlab(&["trace", "overheads", &tr, "-o", &oh, "--tick-cpus", "0"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--measure-tick"));
    let bad = schedlab(&["trace", "overheads", &tr, "-o", &oh, "--measure-tick=10"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--measure-tick"));
}

/// `measure cpmd` merges CPMD curves into an existing file (its other sections kept); the
/// curves start at (0, 0) and have one point per size. Structure only, never timing.
#[test]
fn measure_cpmd_merges_into_the_overhead_file() {
    let dir = temp_dir("cpmd");
    let oh = write(
        &dir,
        "oh.toml",
        "schema = 1\n[arch.partitioned.release]\navg = [[2, 500]]\n",
    );
    let out = schedlab(&[
        "measure",
        "cpmd",
        "-o",
        &oh,
        "--wss",
        "4KiB,64KiB",
        "--samples",
        "3",
        "--pollute",
        "1MiB",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("needs two CPUs") {
        schedlab_testkit::skip("measure_cpmd_merges_into_the_overhead_file", &stderr);
        return;
    }
    ok(&out);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["rows"][0]["preemption"]["count"], 3);
    let text = std::fs::read_to_string(&oh).unwrap();
    assert!(text.contains("[arch.partitioned.release]"), "{text}");
    assert!(text.contains("[cpmd.preemption]") && text.contains("[cpmd.migration]"));
    assert!(text.contains("avg = [[0, 0], [4096, "), "{text}");
    let bad = schedlab(&["measure", "cpmd", "-o", &oh, "--wss", "lots"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--wss"));
}

/// `measure curves` on a tiny sweep (n = 2 and 3, 200 ms runs): an unknown architecture is
/// skipped with a note, the known one is fitted and plotted.
#[test]
fn measure_curves_skips_unknown_architectures_and_plots() {
    let dir = temp_dir("curves");
    let (out_dir, work) = (dir.join("out"), dir.join("work"));
    let out = ok(&schedlab(&[
        "measure",
        "curves",
        "--out",
        out_dir.to_str().unwrap(),
        "--work",
        work.to_str().unwrap(),
        "--arch",
        "no-such-arch,partitioned",
        "--tasks",
        "2,3",
        "--duration",
        "200ms",
        "--allow-non-rt",
    ]))
    .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("skipped no-such-arch"), "{stdout}");
    let csv = std::fs::read_to_string(out_dir.join("curves.csv")).unwrap();
    assert!(
        csv.lines()
            .any(|l| l.starts_with("partitioned,release_latency,2,")),
        "{csv}"
    );
    assert!(
        csv.lines()
            .any(|l| l.starts_with("partitioned,release_latency,3,")),
        "{csv}"
    );
    let svg = std::fs::read_to_string(out_dir.join("release_latency.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(out_dir.join("release_latency.png").exists());
    let toml = std::fs::read_to_string(out_dir.join("overheads.toml")).unwrap();
    assert!(
        toml.contains("[arch.partitioned.release_latency]"),
        "{toml}"
    );
}
