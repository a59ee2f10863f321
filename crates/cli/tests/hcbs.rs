//! Reservation groups through the command line: `analyze --test hcbs-gfp` (the `"groups"`
//! array of its JSON result and the table's group lines), an overload [HCBS Eq. 17] as a
//! verdict with exit status 0, and `design reservations` (table, JSON, no budget that works,
//! bad input).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::{schedlab, temp_file};

use serde_json::Value;
use std::process::Output;

fn file(name: &str, text: &str) -> String {
    temp_file("hcbs-cli", name, text).display().to_string()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "schedlab failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The hand-checked group of `hcbs/gfp_tests.rs` in ms: (Q 4, P 5) on 2 CPUs, τ0 = (2, 10),
/// τ1 = (3, 20): bounds 5 and 11 ms.
const GROUP: &str = r#"{"platform": {"cpus": 2},
  "groups": [{"name": "a", "budget": "4ms", "period": "5ms"}],
  "tasks": [
    {"name": "t0", "wcet": "2ms", "period": "10ms", "group": "a"},
    {"name": "t1", "wcet": "3ms", "period": "20ms", "group": "a"}]}"#;

/// CPU 0 carries 3/5 + 3/5 > 1 [Eq. 17].
const OVERLOAD: &str = r#"{"platform": {"cpus": 2},
  "groups": [{"name": "a", "budget": "3ms", "period": "5ms"},
             {"name": "b", "budget": "3ms", "period": "5ms", "cpus": [0]}],
  "tasks": [
    {"wcet": "1ms", "period": "10ms", "group": "a"},
    {"wcet": "1ms", "period": "10ms", "group": "b"}]}"#;

fn hcbs_result(path: &str) -> Value {
    let out = stdout(&schedlab(&[
        "analyze", path, "--test", "hcbs-gfp", "--format", "json",
    ]));
    let line: Value = serde_json::from_str(out.trim()).unwrap();
    line["results"][0].clone()
}

#[test]
fn analyze_json_has_the_groups() {
    let r = hcbs_result(&file("group.json", GROUP));
    assert_eq!(r["test"], "hcbs-gfp");
    assert_eq!(r["status"], "schedulable");
    let g = &r["groups"][0];
    assert_eq!(g["name"], "a");
    assert_eq!(g["alpha"], 0.8);
    assert_eq!(g["alpha_exact"], "4000000/5000000");
    assert_eq!(g["delta_ns"], 2_000_000);
    assert_eq!(g["schedulable"], true);
    let bounds: Vec<(String, u64)> = g["response_bounds_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["name"].as_str().unwrap().to_string(),
                b["bound_ns"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        bounds,
        vec![
            ("t0".to_string(), 5_000_000),
            ("t1".to_string(), 11_000_000)
        ]
    );
    assert_eq!(
        r["response_time_bounds_ns"],
        serde_json::json!([5_000_000, 11_000_000])
    );
}

#[test]
fn an_overload_is_a_verdict_with_exit_status_zero() {
    let path = file("overload.json", OVERLOAD);
    let r = hcbs_result(&path);
    assert_eq!(r["status"], "not-shown");
    assert_eq!(r["schedulable"], false);
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason.contains("Eq. 17") && reason.contains("CPU 0"),
        "{reason}"
    );
    let groups = r["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["alpha_exact"], "3000000/5000000");
    assert_eq!(groups[1]["delta_ns"], 4_000_000);
    assert!(groups.iter().all(|g| g["schedulable"] == false));
    // The table says the same, one line per group.
    let table = stdout(&schedlab(&["analyze", &path, "--test", "hcbs-gfp"]));
    assert!(
        table.contains("group `a`") && table.contains("group `b`"),
        "{table}"
    );
    assert!(table.contains("[HCBS Eq. 17]"), "{table}");
}

#[test]
fn other_tests_have_no_groups_key_and_sets_without_groups_are_not_applicable() {
    let path = file(
        "plain.json",
        r#"{"tasks": [{"wcet": "1ms", "period": "10ms"}]}"#,
    );
    let out = stdout(&schedlab(&[
        "analyze", &path, "--cpus", "2", "--test", "hcbs-gfp", "--test", "gedf", "--format", "json",
    ]));
    let line: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(line["results"][0]["status"], "not-applicable");
    assert_eq!(line["results"][0]["groups"], serde_json::json!([]));
    assert!(line["results"][1].get("groups").is_none());
}

#[test]
fn a_group_on_a_missing_cpu_is_an_error_naming_it() {
    let path = file(
        "cpu.json",
        r#"{"groups": [{"name": "far", "budget": "1ms", "period": "5ms", "cpus": [3]}],
            "tasks": [{"wcet": "1ms", "period": "10ms", "group": "far"}]}"#,
    );
    let o = schedlab(&["analyze", &path, "--cpus", "2", "--test", "hcbs-gfp"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("far") && err.contains("CPU 3"), "{err}");
    let o = schedlab(&["design", "reservations", &path, "--cpus", "2"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("far"));
}

#[test]
fn design_proposes_the_smallest_budgets() {
    let path = file("design.json", GROUP);
    let out = stdout(&schedlab(&["design", "reservations", &path, "--json"]));
    let d: Value = serde_json::from_str(out.trim()).unwrap();
    // gfp_tests.rs: Q = 2 ms passes exactly, 1 ms does not; the search is per ns.
    assert_eq!(d["groups"][0]["budget_ns"], 2_000_000);
    assert_eq!(d["groups"][0]["alpha_exact"], "2000000/5000000");
    assert_eq!(d["admission"]["passes"], true);
    assert_eq!(d["schedulable"], true);
    assert_eq!(d["verdict"]["status"], "schedulable");
    let table = stdout(&schedlab(&["design", "reservations", &path, "--cpus", "2"]));
    assert!(table.contains("2ms") && table.contains("passes"), "{table}");
    // The example of docs/cli.md runs.
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/hcbs-groups.toml"
    );
    let table = stdout(&schedlab(&["design", "reservations", example]));
    assert!(
        table.contains("control") && table.contains("schedulable"),
        "{table}"
    );
}

#[test]
fn design_says_when_no_budget_works() {
    let path = file(
        "hopeless.json",
        r#"{"groups": [{"name": "a", "budget": "5ms", "period": "5ms"}],
            "tasks": [{"wcet": "5ms", "period": "10ms", "group": "a"},
                      {"wcet": "10ms", "period": "10ms", "group": "a"}]}"#,
    );
    let o = schedlab(&["design", "reservations", &path, "--cpus", "1", "--json"]);
    let d: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(d["groups"][0]["budget_ns"], Value::Null);
    assert!(d["groups"][0]["reason"].as_str().unwrap().contains("Q = P"));
    assert_eq!(d["admission"], Value::Null);
    assert_eq!(d["schedulable"], false);
    let table = stdout(&schedlab(&["design", "reservations", &path, "--cpus", "1"]));
    assert!(
        table.contains("none") && table.contains("no budget Q ≤ P"),
        "{table}"
    );
    // A set without groups is an error.
    let plain = file(
        "nogroups.json",
        r#"{"tasks": [{"wcet": "1ms", "period": "10ms"}]}"#,
    );
    let o = schedlab(&["design", "reservations", &plain, "--cpus", "1"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no reservation groups"));
}
