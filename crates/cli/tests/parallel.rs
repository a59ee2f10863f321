//! Parallel (fork-join) tasks on the command line: `gen --rtws`, `--parallel` and
//! `--util-window` write files that read back with their structures; `run` executes them
//! under the architectures that take them (`work-stealing`, `global-lock`); and every command
//! that cannot handle parallel tasks says so (`analyze`: not applicable, naming the task;
//! `simulate` and `run` under a policy or architecture that does not take them: an error and a
//! failing exit code), instead of treating them as sequential.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use schedlab_model::file;
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
    let dir = std::env::temp_dir().join(format!("schedlab-par-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/parallel.toml")
        .display()
        .to_string()
}

#[test]
fn gen_rtws_writes_table_i_sets_reproducibly() {
    let dir = temp_dir("rtws");
    let out = dir.join("sets");
    let args = |out: &str| {
        vec![
            "gen".to_string(),
            "--rtws".into(),
            "0.58..0.60".into(),
            "--cpus".into(),
            "4".into(),
            "--count".into(),
            "3".into(),
            "--seed".into(),
            "7".into(),
            "--out".into(),
            out.into(),
        ]
    };
    let run = |out: &Path| {
        let a = args(out.to_str().unwrap());
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        ok(&schedlab(&a));
    };
    run(&out);
    let again = dir.join("again");
    run(&again);
    for k in 0..3 {
        let name = format!("set-{k:04}.json");
        let (a, b) = (out.join(&name), again.join(&name));
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let f = file::load(&a).unwrap();
        assert_eq!(f.platform.map(|p| p.cpus), Some(4));
        let u = f.tasks.utilization();
        assert!((2.32..=2.40).contains(&u), "{u}");
        for t in f.tasks.iter() {
            let p = t.parallel.as_ref().unwrap();
            assert_eq!((p.region_count(), p.work()), (3, t.wcet));
            assert!((1..=8).contains(&p.regions()[1].width()));
        }
    }
    // --rtws needs --cpus and excludes the shape options.
    let o = schedlab(&["gen", "--rtws", "0.38..0.40"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--cpus"));
    let o = schedlab(&["gen", "--rtws", "0.38..0.40", "--cpus", "2", "--tasks", "3"]);
    assert!(!o.status.success());
    let o = schedlab(&["gen", "--rtws", "0.38..1.5", "--cpus", "2"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("utilization window"));
}

#[test]
fn gen_parallel_and_util_window_compose_with_the_other_shapes() {
    let o = schedlab(&[
        "gen",
        "--util-window",
        "1.0..1.1",
        "--util-dist",
        "uni-medium",
        "--parallel",
        "forkjoin:regions=2..3,threads=1..4,lengths=equal",
        "--periods",
        "uniform:10ms..20ms",
        "--seed",
        "2",
        "--format",
        "toml",
    ]);
    let text = ok(&o);
    let f = file::parse_str(&text, file::Format::Toml).unwrap();
    assert!((1.0..=1.1).contains(&f.tasks.utilization()));
    for t in f.tasks.iter() {
        let p = t.parallel.as_ref().unwrap();
        assert!((2..=3).contains(&p.region_count()));
        assert_eq!(p.work(), t.wcet);
    }
    for (args, says) in [
        (
            vec![
                "gen",
                "--tasks",
                "2",
                "--utilization",
                "1",
                "--parallel",
                "rtws:0",
            ],
            "cannot read parallel structure",
        ),
        (
            vec![
                "gen",
                "--util-window",
                "1..2",
                "--tasks",
                "3",
                "--util-dist",
                "uni-medium",
            ],
            "--util-window LO..HI needs --util-dist",
        ),
        (
            vec!["gen", "--util-window", "2..1", "--util-dist", "uni-medium"],
            "utilization window",
        ),
    ] {
        let o = schedlab(&args);
        assert!(!o.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(says), "{args:?}: {e}");
    }
}

/// `analyze` answers "not applicable" for every test of sequential tasks, naming the parallel
/// task, and runs the two tests of parallel tasks (`federated`, `gedf-cab`); it exits
/// successfully: the file was read and analysed.
#[test]
fn analyze_says_every_test_does_not_apply_to_a_parallel_task() {
    let out = ok(&schedlab(&["analyze", &example(), "--format", "json"]));
    let line: Value = serde_json::from_str(&out).unwrap();
    let results = line["results"].as_array().unwrap();
    assert!(results.len() > 20);
    let (parallel, sequential): (Vec<&Value>, Vec<&Value>) = results
        .iter()
        .partition(|r| r["test"] == "federated" || r["test"] == "gedf-cab");
    assert_eq!(parallel.len(), 2);
    // §V-A's set: light tasks only, 1.21 on two CPUs under pedf-ffd; L1 = 4 > 10/2.618.
    assert_eq!(parallel[0]["status"], "schedulable", "{}", parallel[0]);
    assert_eq!(parallel[1]["status"], "not-shown", "{}", parallel[1]);
    for r in sequential {
        assert_eq!(r["status"], "not-applicable", "{r}");
        assert_eq!(
            r["reason"],
            "task 0 is parallel (field `parallel`): this test assumes sequential tasks; parallel tasks are not analysed by it",
        );
    }
}

/// `simulate` refuses a parallel task under a policy that does not schedule parallel tasks
/// (naming those that do) and where the placement cannot place it; `run` refuses it under an
/// architecture or a policy that does not take parallel tasks (naming those that do); each
/// with a failing exit code. `rtws` and `gedf` (threads
/// as jobs; `pedf` and `pfp` on the task's CPU) simulate it.
#[test]
fn simulate_and_run_refuse_parallel_tasks() {
    let f = example();
    for policy in ["rtws", "gedf"] {
        ok(&schedlab(&[
            "simulate",
            &f,
            "--policy",
            policy,
            "--duration",
            "100ms",
        ]));
    }
    for (args, says) in [
        (
            vec!["simulate", &f, "--policy", "ghvdf", "--duration", "100ms"],
            "task 0 is parallel (field `parallel`), and policy `ghvdf` does not schedule parallel tasks; the policies that do: rtws, federated (natively)",
        ),
        (
            vec!["simulate", &f, "--policy", "plbesa", "--duration", "100ms"],
            "task 0 (`tau1`) is parallel (field `parallel`): `plbesa` places sequential tasks on CPUs; of the policies with a placement only pedf, pfp, cedf take parallel tasks",
        ),
        (
            vec![
                "run",
                &f,
                "--policy",
                "gedf",
                "--arch",
                "message-passing",
                "--duration",
                "100ms",
            ],
            "task 0 is parallel (field `parallel`): --arch message-passing does not run parallel tasks; the architectures that do: global-lock, concurrent, work-stealing, linux-deadline, linux-fifo",
        ),
        (
            vec!["run", &f, "--policy", "ghvdf", "--duration", "100ms"],
            "task 0 is parallel (field `parallel`): policy `ghvdf` does not schedule parallel tasks; the policies that do: rtws, federated (natively)",
        ),
    ] {
        let o = schedlab(&args);
        assert!(!o.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(says), "{args:?}: {e}");
    }
}

fn federated_example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/federated.toml")
        .display()
        .to_string()
}

/// `simulate --policy federated` runs the allocation `analyze --test federated` reports
/// (examples/federated.toml: the heavy task on CPUs 0–1, the light ones on CPU 2) without a
/// miss over the hyperperiod, the heavy task's jobs ending at 8 ms (its deadline; Graham's
/// bound 4 + 8/2); it refuses what the allocation cannot place, naming the task and the CPUs
/// it needs against those left, a heuristic without exact admission, and pinned tasks.
#[test]
fn simulate_federated_runs_the_analysis_allocation() {
    let f = federated_example();
    let a: Value = serde_json::from_str(&ok(&schedlab(&[
        "analyze",
        &f,
        "--test",
        "federated",
        "--format",
        "json",
    ])))
    .unwrap();
    let r = &a["results"][0];
    assert_eq!(r["status"], "schedulable", "{a}");
    assert_eq!(r["partition"], serde_json::json!([[0], [0], [1, 2]]), "{a}");
    let s: Value = serde_json::from_str(&ok(&schedlab(&[
        "simulate",
        &f,
        "--policy",
        "federated",
        "--duration",
        "24ms",
        "--format",
        "json",
    ])))
    .unwrap();
    assert_eq!(
        (
            &s["policy"],
            &s["jobs"],
            &s["deadline_misses"],
            &s["steals"]
        ),
        (
            &serde_json::json!("federated"),
            &serde_json::json!(11),
            &serde_json::json!(0),
            &serde_json::json!(0)
        ),
        "{s}"
    );
    assert_eq!(s["per_task"][0]["max_response_ns"], 8_000_000, "{s}");
    assert_eq!(s["per_task"][1]["migrations"], 0, "{s}");
    let dir = temp_dir("federated");
    let pinned = dir.join("pinned.toml");
    std::fs::write(
        &pinned,
        "[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\ncpu = 0\n",
    )
    .unwrap();
    let pinned = pinned.display().to_string();
    for (args, says) in [
        (
            vec!["--cpus", "2"],
            "the heavy tasks take all 2 CPUs: none is left for the 2 light tasks (task 1 (`light`) first)",
        ),
        (
            vec!["--cpus", "1"],
            "task 0 (`heavy`) is heavy and needs 2 dedicated CPUs (⌈(C − L)/(D − L)⌉), but 1 of the 1 CPUs are left for it (the heavy tasks need 2 in all)",
        ),
        (
            vec!["--partition", "chronos"],
            "`federated` packs its light tasks with exact EDF admission",
        ),
    ] {
        let mut all = vec!["simulate", &f, "--policy", "federated", "--duration", "24ms"];
        all.extend(args);
        let o = schedlab(&all);
        assert!(!o.status.success(), "{all:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(says), "{all:?}: {e}");
    }
    let o = schedlab(&[
        "simulate",
        &pinned,
        "--cpus",
        "2",
        "--policy",
        "federated",
        "--duration",
        "4ms",
    ]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("task 0 (`a`) has a `cpu` field: `federated` places every task itself"),
        "{e}"
    );
}

/// `run FILE --arch work-stealing --cpus 2` runs the parallel example (its policy, rtws, is
/// the default there) and reports steals next to migrations; `global-lock` runs it under
/// `rtws` too. `--allow-non-rt`: the run happens without permission for SCHED_FIFO as well
/// (the counts are checked, not the timing); bounded to 100 ms.
#[test]
fn run_executes_parallel_tasks_under_work_stealing_and_global_lock() {
    let f = example();
    for (arch, policy) in [("work-stealing", None), ("global-lock", Some("rtws"))] {
        let mut args = vec![
            "run",
            &f,
            "--arch",
            arch,
            "--cpus",
            "2",
            "--duration",
            "100ms",
            "--allow-non-rt",
            "--format",
            "json",
        ];
        if let Some(p) = policy {
            args.extend(["--policy", p]);
        }
        let out = ok(&schedlab(&args));
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["policy"], "rtws", "{arch}");
        assert_eq!(v["arch"], arch);
        // Releases before 100 ms: τ1 at 0…90 (10), τ2 at 0…80 (5), τ3 at 0…95 (6).
        assert_eq!(v["jobs"], 21, "{arch}");
        assert!(v["steals"].as_u64().is_some(), "{arch}: {v}");
        assert!(v["migrations"].as_u64() >= v["steals"].as_u64(), "{arch}");
        assert!(v["invariant"].is_null(), "{arch}");
    }
    let o = schedlab(&[
        "run",
        &f,
        "--arch",
        "work-stealing",
        "--policy",
        "gedf",
        "--cpus",
        "2",
        "--duration",
        "100ms",
    ]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("it runs --policy rtws only, not `gedf`"), "{e}");
}

/// `run --policy federated` under `global-lock`: one heavy task (1 ms, five threads of 2 ms,
/// 1 ms every 10 ms: C = 12 > D = 10, L = 4, ⌈(12 − 4)/(10 − 4)⌉ = 2 CPUs) runs its threads on
/// both CPUs; no throttling warning although U = 1.2 (at least 0.6 on one CPU); no steals.
/// Counts only (`--allow-non-rt`, 200 ms: 20 jobs), not timing.
#[test]
fn run_executes_a_heavy_task_under_federated() {
    let dir = temp_dir("federated-run");
    let f = dir.join("heavy.toml");
    std::fs::write(
        &f,
        "[[tasks]]\nname = \"heavy\"\nperiod = \"10ms\"\nparallel = [[\"1ms\"], [\"2ms\", \"2ms\", \"2ms\", \"2ms\", \"2ms\"], [\"1ms\"]]\n",
    )
    .unwrap();
    let f = f.display().to_string();
    let out = ok(&schedlab(&[
        "run",
        &f,
        "--policy",
        "federated",
        "--arch",
        "global-lock",
        "--cpus",
        "2",
        "--duration",
        "200ms",
        "--allow-non-rt",
        "--format",
        "json",
    ]));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&v["policy"], &v["jobs"], &v["steals"]),
        (
            &serde_json::json!("federated"),
            &serde_json::json!(20),
            &serde_json::json!(0)
        ),
        "{v}"
    );
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        !warnings
            .iter()
            .any(|w| w.as_str().unwrap_or("").contains("alone")),
        "{v}"
    );
}
