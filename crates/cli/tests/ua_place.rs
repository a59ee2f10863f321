//! The utility-accrual pieces of the command line: `analyze --test gnphvdf-uab` (its JSON
//! fields and table), the placement of [ChronOS §8.5] (`--partition chronos` for `pedf`, the
//! best-effort policies in overload), and every utility-accrual policy name through `simulate`
//! and `bench sim` — table-driven, so each name is exercised as soon as its policy is
//! registered.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("run schedlab")
}

fn file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("schedlab-ua-place-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "schedlab failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The hand-worked set of `ua/gnphvdf_uab_tests.rs` in ms: densities 5, 4, 1, 0.5; k = 2
/// (8 ≤ min(8, 9)); value rates 1, 1, 0.25, 0.1 per ms.
const UAB: &str = r#"{"platform": {"cpus": 2}, "tasks": [
  {"wcet": "2ms", "period": "10ms", "utility": 10},
  {"wcet": "3ms", "period": "12ms", "utility": 12},
  {"wcet": "5ms", "period": "20ms", "utility": 5},
  {"wcet": "8ms", "period": "40ms", "utility": 4}]}"#;

/// U = 0.9 × 3 on 2 CPUs: 1.35 per CPU, overloaded; no admission test can place it.
const OVERLOAD: &str = r#"{"platform": {"cpus": 2}, "tasks": [
  {"wcet": "9ms", "period": "10ms", "utility": 3},
  {"wcet": "9ms", "period": "10ms", "utility": 2},
  {"wcet": "9ms", "period": "10ms", "utility": 1}]}"#;

#[test]
fn analyze_reports_the_utility_accrual_bound() {
    let f = file("uab.json", UAB);
    let out = stdout(&schedlab(&[
        "analyze",
        &f,
        "--test",
        "gnphvdf-uab",
        "--format",
        "json",
    ]));
    let line: Value = serde_json::from_str(out.trim()).unwrap();
    let r = &line["results"][0];
    assert_eq!(r["test"], "gnphvdf-uab");
    assert_eq!(r["status"], "not-shown");
    assert_eq!(r["k"], 2);
    assert_eq!(r["guaranteed_tasks"], serde_json::json!([0, 1]));
    assert_eq!(r["utility_fraction"]["k_over_n"], 0.5);
    let vw = r["utility_fraction"]["value_weighted"].as_f64().unwrap();
    assert!((vw - 2.0 / 2.35).abs() < 1e-12, "{vw}");
    let table = stdout(&schedlab(&["analyze", &f, "--test", "gnphvdf-uab"]));
    assert!(
        table.contains("k = 2, guaranteed [0, 1], value-weighted utility ≥ 0.851"),
        "{table}"
    );
    // Other tests carry none of the three fields.
    let out = stdout(&schedlab(&[
        "analyze", &f, "--test", "gedf-gfb", "--format", "json",
    ]));
    let line: Value = serde_json::from_str(out.trim()).unwrap();
    let r = line["results"][0].as_object().unwrap();
    assert!(!r.contains_key("k") && !r.contains_key("utility_fraction"));
}

fn simulate(f: &str, policy: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "simulate",
        f,
        "--policy",
        policy,
        "--duration",
        "100ms",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    schedlab(&args)
}

#[test]
fn pedf_runs_overload_only_with_the_chronos_placement() {
    let f = file("overload.json", OVERLOAD);
    let refused = simulate(&f, "pedf", &[]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("found no placement"), "{err}");
    let ran = stdout(&simulate(&f, "pedf", &["--partition", "chronos"]));
    let v: Value = serde_json::from_str(ran.trim()).unwrap();
    assert_eq!(v["policy"], "pedf");
    assert!(v["deadline_misses"].as_u64().unwrap() > 0, "{v}");
}

/// The utility-accrual policies of issue 13 ([ChronOS §6]).
const UA_POLICIES: [&str; 8] = [
    "ghvdf", "gnphvdf", "gmua", "nggua", "ggua", "phvdf", "plbesa", "pdasa",
];

/// Every utility-accrual name runs an overloaded set through `simulate` and `bench sim` once
/// its policy is registered. A name not registered in this build is reported on stderr
/// (loudly) and must then fail as an unknown policy — never pass silently as if it ran.
#[test]
fn every_ua_policy_runs_overload_from_the_command_line() {
    let f = file("overload-ua.json", OVERLOAD);
    let mut ran = 0;
    for policy in UA_POLICIES {
        let out = simulate(&f, policy, &[]);
        if !schedlab_policy::NAMES.contains(&policy) {
            eprintln!(
                "NOT EXERCISED: policy `{policy}` is not registered in this build (schedlab_policy::NAMES)"
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("unknown policy"), "{policy}: {err}");
            continue;
        }
        let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(v["policy"], policy);
        assert!(v["jobs"].as_u64().unwrap() > 0, "{policy}: {v}");
        let bench = stdout(&schedlab(&[
            "bench",
            "sim",
            "--cpus",
            "2",
            "--tasks-per-cpu",
            "2",
            "--policies",
            policy,
            "--duration",
            "50ms",
        ]));
        assert!(bench.contains(policy), "{bench}");
        ran += 1;
    }
    eprintln!(
        "{ran} of {} utility-accrual policies exercised",
        UA_POLICIES.len()
    );
}

/// `run --cluster-size` reaches C-EDF's placement (checked before any thread starts, so no
/// real-time permission is needed): a cluster size that does not divide the CPUs that run
/// jobs is an error naming it — 3 on 2 CPUs under `global-lock`, 2 on message-passing's one
/// client CPU of 2.
#[test]
fn run_cluster_size_reaches_cedf_placement() {
    let set = file(
        "cedf-run.json",
        r#"{"tasks": [{"wcet": "1ms", "period": "10ms"}, {"wcet": "1ms", "period": "10ms"}]}"#,
    );
    for (arch, k, cpus) in [("global-lock", "3", "2"), ("message-passing", "2", "1")] {
        let o = schedlab(&[
            "run",
            &set,
            "--cpus",
            "2",
            "--arch",
            arch,
            "--policy",
            "cedf",
            "--cluster-size",
            k,
            "--duration",
            "10ms",
        ]);
        assert!(!o.status.success(), "{arch} k={k}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains(&format!("cluster size {k}")) && e.contains(&format!("CPU count {cpus}")),
            "{arch}: {e}"
        );
    }
}
