//! The command line as a user drives it: the JSON contract of `analyze`, errors and exit
//! codes, folders, `gen` → `analyze`, `tests`.

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
    let dir = std::env::temp_dir().join(format!("schedlab-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const DHALL: &str = r#"{"platform": {"cpus": 2}, "tasks": [
  {"name": "l0", "wcet": "2ms", "period": "10ms"},
  {"name": "l1", "wcet": "2ms", "period": "10ms"},
  {"name": "h", "wcet": "10ms", "period": "11ms"}]}"#;

#[test]
fn analyze_json_has_the_documented_shape() {
    let dir = temp_dir("shape");
    let f = write(&dir, "dhall.json", DHALL);
    let out = schedlab(&[
        "analyze", &f, "--format", "json", "--test", "gedf", "--test", "pedf-ffd", "--test",
        "fp-rta",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["file"], Value::from(f.clone()));
    assert_eq!(line["cpus"], 2);
    assert_eq!(line["tasks"], 3);
    assert!((line["utilization"].as_f64().unwrap() - (0.4 + 10.0 / 11.0)).abs() < 1e-12);
    let results = line["results"].as_array().unwrap();
    let keys = [
        "test",
        "status",
        "schedulable",
        "applicable",
        "reason",
        "response_time_bounds_ns",
        "tardiness_bounds_ns",
        "partition",
    ];
    for r in results {
        let obj = r.as_object().unwrap();
        assert_eq!(obj.len(), keys.len(), "{r}");
        for k in keys {
            assert!(obj.contains_key(k), "missing {k} in {r}");
        }
    }
    assert_eq!(results[0]["test"], "gedf");
    assert_eq!(results[0]["status"], "not-shown");
    assert_eq!(results[1]["status"], "schedulable");
    assert_eq!(results[1]["partition"].as_array().unwrap().len(), 2);
    assert_eq!(results[2]["status"], "not-applicable");
    assert_eq!(results[2]["applicable"], false);
    assert!(results[2]["reason"].as_str().unwrap().contains("m = 1"));
}

#[test]
fn several_files_and_folders_give_one_line_each_in_order() {
    let dir = temp_dir("bulk");
    write(&dir, "b.json", DHALL);
    write(
        &dir,
        "a.toml",
        "[[tasks]]\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
    );
    write(&dir, "notes.txt", "not a task set");
    let out = schedlab(&[
        "analyze",
        dir.to_str().unwrap(),
        "--cpus",
        "2",
        "--test",
        "gedf-gfb",
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["file"].as_str().unwrap().ends_with("a.toml"));
    assert!(lines[1]["file"].as_str().unwrap().ends_with("b.json"));
}

#[test]
fn bad_input_is_a_message_and_a_failing_exit_code() {
    let dir = temp_dir("bad");
    let bad = write(
        &dir,
        "bad.json",
        r#"{"tasks": [{"name": "t1", "wcet": "2ms", "perod": "10ms"}]}"#,
    );
    let good = write(&dir, "good.json", DHALL);
    let out = schedlab(&[
        "analyze", &bad, &good, "--format", "json", "--test", "gedf-gfb",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("task 0 (`t1`): unknown field `perod` (did you mean `period`?)"),
        "{err}"
    );
    // The good file is still analysed.
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);

    let no_cpus = write(
        &dir,
        "nocpus.json",
        r#"{"tasks": [{"wcet": 1, "period": 2}]}"#,
    );
    let out = schedlab(&["analyze", &no_cpus]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cpus"));

    let out = schedlab(&["analyze", &good, "--test", "gedf-bcll"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown test `gedf-bcll`"));

    let out = schedlab(&["analyze", &dir.join("missing.json").display().to_string()]);
    assert!(!out.status.success());
}

#[test]
fn tardiness_flag_fills_bounds() {
    let dir = temp_dir("tardiness");
    let f = write(&dir, "dhall.json", DHALL);
    let json = |extra: &[&str]| -> Value {
        let mut args = vec![
            "analyze",
            f.as_str(),
            "--format",
            "json",
            "--test",
            "gedf-soft",
            "--test",
            "pedf-ffd",
        ];
        args.extend_from_slice(extra);
        serde_json::from_slice(&schedlab(&args).stdout).unwrap()
    };
    let plain = json(&[]);
    assert!(plain["results"][0]["tardiness_bounds_ns"].is_null());
    let with = json(&["--tardiness"]);
    let soft = with["results"][0]["tardiness_bounds_ns"]
        .as_array()
        .unwrap();
    assert_eq!(soft.len(), 3);
    let hard = with["results"][1]["tardiness_bounds_ns"]
        .as_array()
        .unwrap();
    assert!(hard.iter().all(|b| b == 0));
}

#[test]
fn generated_files_analyse_and_are_reproducible() {
    let dir = temp_dir("gen");
    let a = dir.join("a.json").display().to_string();
    let b = dir.join("b.json").display().to_string();
    for out in [&a, &b] {
        let o = schedlab(&[
            "gen",
            "--tasks",
            "12",
            "--utilization",
            "3",
            "--seed",
            "9",
            "--cpus",
            "4",
            "--out",
            out,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let out = schedlab(&["analyze", &a, "--format", "json", "--test", "gedf"]);
    assert!(out.status.success());
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["cpus"], 4);
    assert_eq!(line["tasks"], 12);

    let many = dir.join("many");
    let o = schedlab(&[
        "gen",
        "--utilization",
        "2",
        "--util-dist",
        "uni-medium",
        "--count",
        "3",
        "--out",
        many.to_str().unwrap(),
        "--format",
        "toml",
    ]);
    assert!(o.status.success());
    assert_eq!(std::fs::read_dir(&many).unwrap().count(), 3);

    let o = schedlab(&["gen", "--tasks", "3", "--utilization", "5"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("exceeds"));
}

/// `gen --utility` gives every task a utility in the range and changes nothing else.
#[test]
fn generated_utilities_leave_the_timing_alone() {
    let base = [
        "gen",
        "--utilization",
        "2",
        "--util-dist",
        "uni-medium",
        "--seed",
        "4",
    ];
    let plain = schedlab(&base);
    let with: Vec<&str> = base
        .iter()
        .copied()
        .chain(["--utility", "uniform:1..100"])
        .collect();
    let with = schedlab(&with);
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    let (plain, with): (Value, Value) = (
        serde_json::from_slice(&plain.stdout).unwrap(),
        serde_json::from_slice(&with.stdout).unwrap(),
    );
    let (p, w) = (
        plain["tasks"].as_array().unwrap(),
        with["tasks"].as_array().unwrap(),
    );
    assert_eq!(p.len(), w.len());
    for (p, w) in p.iter().zip(w) {
        let mut w = w.clone();
        let u = w.as_object_mut().unwrap().remove("utility").unwrap();
        assert!((1.0..=100.0).contains(&u.as_f64().unwrap()), "{u}");
        assert_eq!(*p, w);
    }
    let bad = schedlab(&[
        "gen",
        "--tasks",
        "2",
        "--utilization",
        "1",
        "--utility",
        "uniform:5..1",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("utility distribution"));
}

#[test]
fn tests_lists_every_test_with_a_citation() {
    let out = schedlab(&["tests", "--format", "json"]);
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() >= 45);
    for l in &lines {
        assert!(!l["citation"].as_str().unwrap().is_empty(), "{l}");
        assert!(["exact", "sufficient", "soft"].contains(&l["kind"].as_str().unwrap()));
    }
    assert!(lines.iter().any(|l| l["test"] == "cedf-k<size>"));
}

#[test]
fn simulate_reports_the_documented_json_and_files() {
    let dir = temp_dir("simulate");
    let f = write(
        &dir,
        "t62.json",
        r#"{"platform": {"cpus": 4}, "tasks": [
        {"wcet": 51, "period": 100}, {"wcet": 51, "period": 100}, {"wcet": 51, "period": 100},
        {"wcet": 51, "period": 100}, {"wcet": 100, "period": 1000, "deadline": 10000}]}"#,
    );
    let csv = dir.join("jobs.csv");
    let svg = dir.join("g.svg");
    let out = schedlab(&[
        "simulate",
        &f,
        "--policy",
        "gnpedf",
        "--duration",
        "1us",
        "--format",
        "json",
        "--jobs-csv",
        csv.to_str().unwrap(),
        "--gantt",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "policy",
        "cpus",
        "duration_ns",
        "jobs",
        "deadline_misses",
        "dsr",
        "schedulable",
        "max_tardiness_ns",
        "preemptions",
        "migrations",
        "context_switches",
        "aur",
        "per_task",
        "wall_seconds",
        "jobs_per_second",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["deadline_misses"], 1);
    assert_eq!(v["max_tardiness_ns"], 2);
    let csv = std::fs::read_to_string(csv).unwrap();
    assert!(csv.starts_with("task,seq,release_ns,deadline_ns,start_ns,completion_ns,preemptions,migrations,tardiness_ns"));
    assert!(
        csv.lines().any(|l| l.starts_with("3,1,100,200,151,202,")),
        "{csv}"
    );
    assert!(std::fs::read_to_string(svg).unwrap().starts_with("<svg"));

    let out = schedlab(&["simulate", &f, "--policy", "pedf", "--partition", "xyz"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown packing heuristic `xyz`"));
}

#[test]
fn simulate_charges_overheads_from_the_example_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let set = root.join("examples/avionics.toml");
    let oh = root.join("examples/overheads/illustrative.toml");
    let (set, oh) = (set.to_str().unwrap(), oh.to_str().unwrap());
    let args = [
        "simulate",
        set,
        "--policy",
        "gedf",
        "--duration",
        "200ms",
        "--format",
        "json",
    ];
    let out = schedlab(&args);
    assert!(out.status.success());
    let plain: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plain["overheads"], Value::Null);

    let mut with = args.to_vec();
    with.extend(["--overheads", oh, "--overhead-arch", "message-passing"]);
    let out = schedlab(&with);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &v["overheads"];
    assert_eq!(o["file"], oh);
    assert_eq!(o["arch"], "message-passing");
    assert_eq!(o["stat"], "avg");
    for kind in ["release", "dispatch"] {
        assert!(o["charged_ns"][kind].as_u64().unwrap() > 0, "{o}");
    }
    assert_eq!(o["charged_ns"]["interrupt"], 0, "the DSP shields the jobs");
    assert_eq!(v["jobs"], plain["jobs"]);
    // Overheads delay jobs: the worst response time cannot shrink below the plain one here
    // (no job starts earlier; every dispatch costs time).
    assert!(v["max_response_ns"].as_u64() > plain["max_response_ns"].as_u64());

    let mut several = args.to_vec();
    several.extend(["--overheads", oh]);
    let out = schedlab(&several);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "describes several architectures (global-lock, message-passing, partitioned); choose one"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    several.extend(["--overhead-stat", "median"]);
    let out = schedlab(&several);
    assert!(String::from_utf8_lossy(&out.stderr).contains("`median` is neither `avg` nor `max`"));
}

/// `schedlab run`: the options of the kernel baselines and of message-passing are checked
/// before anything runs, with messages that say what to do.
#[test]
fn run_rejects_misplaced_options() {
    let dir = temp_dir("run-opts");
    let f = write(&dir, "dhall.json", DHALL);
    let err = |args: &[&str]| {
        let out = schedlab(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let e = err(&["run", &f, "--arch", "linux-deadline", "--policy", "gedf"]);
    assert!(
        e.contains("does not apply to the kernel baseline linux-deadline"),
        "{e}"
    );
    let e = err(&["run", &f, "--arch", "message-passing"]);
    assert!(
        e.contains("--policy is required with --arch message-passing"),
        "{e}"
    );
    let e = err(&[
        "run",
        &f,
        "--arch",
        "partitioned",
        "--policy",
        "pedf",
        "--dedicated-irq-cpu",
    ]);
    assert!(
        e.contains("--dedicated-irq-cpu applies to --arch global-lock only"),
        "{e}"
    );
    let e = err(&["run", &f, "--arch", "pull-push", "--policy", "gedf"]);
    assert!(
        e.contains(
            "message-passing, work-stealing, push-pull, reservations, linux-deadline, linux-fifo"
        ),
        "{e}"
    );
    let e = err(&["run", &f, "--arch", "push-pull", "--policy", "gfp"]);
    assert!(
        e.contains("--policy gedf or sd (the same run), not `gfp`"),
        "{e}"
    );
    let e = err(&[
        "run",
        &f,
        "--cpus",
        "1",
        "--arch",
        "message-passing",
        "--policy",
        "gedf",
    ]);
    assert!(e.contains("needs at least 2 CPUs"), "{e}");
}

/// A short real message-passing run (skipped loudly on fewer than 2 CPUs or without permission
/// for real-time scheduling): the run is real-time, the JSON names the DSP
/// and has the G-EDF-MP overheads; no job ran on the DSP's CPU (logical CPU 0).
#[test]
fn run_message_passing_json() {
    let cpus = schedlab_runtime::mech::sched::allowed_cpus().unwrap_or_default();
    if cpus.len() < 2 {
        let reason = format!("needs 2 CPUs, this process may use {cpus:?}");
        schedlab_testkit::skip("run_message_passing_json", &reason);
        return;
    }
    let rt = std::thread::spawn(|| {
        use schedlab_runtime::mech::sched::{set_class, Class, ClassGuard};
        let _other = ClassGuard::to_other();
        set_class(0, Class::Fifo(1)).is_ok()
    })
    .join()
    .unwrap_or(false);
    if !rt {
        let reason =
            "real-time scheduling (SCHED_FIFO) is not permitted: the run would not be real-time";
        schedlab_testkit::skip("run_message_passing_json", reason);
        return;
    }
    let dir = temp_dir("run-mp");
    let f = write(
        &dir,
        "light.json",
        r#"{"tasks": [{"wcet": "1ms", "period": "10ms"}, {"wcet": "2ms", "period": "15ms"}]}"#,
    );
    let out = schedlab(&[
        "run",
        &f,
        "--cpus",
        "2",
        "--arch",
        "message-passing",
        "--policy",
        "gedf",
        "--duration",
        "300ms",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["real_time"], true);
    assert_eq!(v["arch"], "message-passing");
    assert!(v["dsp_cpu"].is_u64());
    assert_eq!(v["jobs"], 50); // 30 + 20 releases in 300 ms
    for k in ["release_latency", "dsp", "request", "release_to_run"] {
        assert!(v["overheads"][k]["count"].as_u64().unwrap() > 0, "{k}");
    }
    assert!(v["per_task"].as_array().unwrap().len() == 2);
}

#[test]
fn summary_counts_what_each_test_accepts_over_all_files() {
    let dir = temp_dir("summary");
    write(&dir, "a.json", DHALL);
    write(
        &dir,
        "b.json",
        r#"{"tasks": [{"wcet": "1ms", "period": "4ms"}, {"wcet": "1ms", "period": "4ms"}]}"#,
    );
    write(&dir, "c.json", r#"{"tasks": [{"wcet": 1, "perod": 2}]}"#);
    let args = [
        "analyze",
        dir.to_str().unwrap(),
        "--cpus",
        "2",
        "--test",
        "gedf",
        "--test",
        "pedf-ffd",
        "--summary",
    ];
    let out = schedlab(&[&args[..], &["--format", "json"]].concat());
    // A file failed to load: the exit code says so, the summary counts it.
    assert!(!out.status.success());
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["files"], 3);
    assert_eq!(summary["analysed"], 2);
    assert_eq!(summary["failed"], 1);
    let tests = summary["tests"].as_array().unwrap();
    assert_eq!(tests[0]["test"], "gedf");
    // Dhall's set is not shown schedulable by G-EDF; the light set is.
    assert_eq!(tests[0]["accepted"], 1);
    assert_eq!(tests[0]["fraction"], 0.5);
    assert_eq!(tests[0]["statuses"]["not-shown"], 1);
    assert_eq!(tests[1]["test"], "pedf-ffd");
    assert_eq!(tests[1]["accepted"], 2);
    assert_eq!(tests[1]["fraction"], 1.0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("c.json"));

    let out = schedlab(&args);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.starts_with("summary: 3 files, 2 analysed, 1 failed"),
        "{table}"
    );
    assert!(table.contains("  gedf      "), "{table}");
    assert!(table.contains("1/2    0.5000"), "{table}");
    assert!(table.contains("2/2    1.0000"), "{table}");
    // No per-file output with --summary.
    assert!(!table.contains("a.json"), "{table}");
}

#[test]
fn an_empty_task_set_is_refused_by_every_command() {
    let dir = temp_dir("empty");
    let empty = write(
        &dir,
        "empty.json",
        r#"{"tasks": [], "platform": {"cpus": 2}}"#,
    );
    let message = "empty task set: a task set needs at least one task";
    let out = schedlab(&["analyze", &empty]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(message));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("-0.0000"));
    let out = schedlab(&["simulate", &empty, "--policy", "gedf", "--duration", "1ms"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(message));
}

#[test]
fn an_implicit_deadline_is_named_as_the_period() {
    let dir = temp_dir("implicit");
    let f = write(
        &dir,
        "x.json",
        r#"{"tasks": [{"name": "x", "wcet": "20ms", "period": "10ms"}]}"#,
    );
    let out = schedlab(&["analyze", &f, "--cpus", "1"]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("task 0 (`x`): wcet 20ms exceeds period 10ms (the implicit deadline)"));
}

#[test]
fn the_benchmark_workload_written_as_files_analyses_alike_in_both_shapes() {
    let dir = temp_dir("write-sets");
    let mut verdicts = Vec::new();
    for shape in ["pretty", "compact"] {
        let sets = dir.join(shape);
        let out = schedlab(&[
            "bench",
            "analysis",
            "--cpus",
            "16",
            "--tasks",
            "40",
            "--sets",
            "12",
            "--write-sets",
            sets.to_str().unwrap(),
            "--shape",
            shape,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut names: Vec<String> = std::fs::read_dir(&sets)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names.len(), 12);
        assert_eq!(
            (names[0].as_str(), names[11].as_str()),
            ("set-0000.json", "set-0011.json")
        );
        let out = schedlab(&[
            "analyze",
            sets.to_str().unwrap(),
            "--test",
            "gedf",
            "--test",
            "gedf-bcl",
            "--format",
            "json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 12);
        // platform.cpus is written, so no --cpus is needed.
        assert!(lines.iter().all(|l| l["cpus"] == 16 && l["tasks"] == 40));
        verdicts.push(
            lines
                .iter()
                .map(|l| l["results"].clone())
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(verdicts[0], verdicts[1]);
    let out = schedlab(&["bench", "analysis", "--tasks", "40,80", "--write-sets", "x"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("one --tasks value"));
}
