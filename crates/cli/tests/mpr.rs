//! `analyze --test mpr-gfp` from the command line: a file with groups (the example), an
//! overloaded CPU as a verdict [HCBS Eq. 17] (exit 0), and a file without groups.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::{schedlab, temp_file};

use serde_json::Value;

fn file(name: &str, text: &str) -> String {
    temp_file("mpr", name, text).display().to_string()
}

/// The one result of `--test mpr-gfp --format json` on `path`.
fn result(path: &str, extra: &[&str]) -> Value {
    let mut args = vec!["analyze", path, "--test", "mpr-gfp", "--format", "json"];
    args.extend_from_slice(extra);
    let out = schedlab(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    line["results"][0].clone()
}

#[test]
fn the_example_is_schedulable_with_bounds() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/mpr-groups.toml"
    );
    let r = result(example, &[]);
    assert_eq!(r["status"], "schedulable", "{r}");
    assert_eq!(
        r["response_time_bounds_ns"].as_array().unwrap().len(),
        5,
        "{r}"
    );
    // The groups array, in the shape hcbs-gfp reports: (α, Δ) of Eq. 8 per group.
    let groups = r["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{r}");
    assert_eq!(groups[0]["name"], "control");
    assert_eq!(groups[0]["alpha_exact"], "2000000/5000000");
    assert_eq!(groups[0]["delta_ns"], 6_000_000);
    assert_eq!(groups[0]["schedulable"], true);
    assert_eq!(groups[1]["response_bounds_ns"].as_array().unwrap().len(), 3);
}

#[test]
fn an_overloaded_cpu_is_a_verdict_naming_eq_17() {
    let path = file(
        "overloaded.toml",
        r#"
[[groups]]
name = "a"
budget = "6ms"
period = "10ms"
[[groups]]
name = "b"
budget = "5ms"
period = "10ms"
cpus = [1]
[[tasks]]
wcet = "1ms"
period = "100ms"
group = "a"
[[tasks]]
wcet = "1ms"
period = "100ms"
group = "b"
"#,
    );
    let r = result(&path, &["--cpus", "2"]);
    assert_eq!(r["status"], "not-shown", "{r}");
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason.contains("CPU 1") && reason.contains("Eq. 17"),
        "{reason}"
    );
    // Every group is still reported when admission fails.
    assert_eq!(r["groups"].as_array().unwrap().len(), 2, "{r}");
}

#[test]
fn a_file_without_groups_is_not_applicable() {
    let path = file(
        "plain.toml",
        "[[tasks]]\nwcet = \"1ms\"\nperiod = \"10ms\"\n",
    );
    let r = result(&path, &["--cpus", "2"]);
    assert_eq!(r["status"], "not-applicable", "{r}");
}
