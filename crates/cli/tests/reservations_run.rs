//! `schedlab run --arch reservations`: the file's groups run under `hcbs` (its default policy),
//! the JSON names the groups and servers and reports the [HCBS §5] hook operations; another
//! policy and a task outside every group are refused with messages naming them. The run is
//! 200 ms (`--allow-non-rt`: it also runs without real-time permission, then not real-time);
//! pass/fail never depends on timing.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::schedlab;

use serde_json::Value;
use std::path::PathBuf;

/// Groups `a` (4 ms / 20 ms) and `b` (6 ms / 20 ms); task `tb` in `b` unless `ungrouped`.
fn groups_file(name: &str, ungrouped: bool) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-res-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.toml"));
    let group_b = if ungrouped { "" } else { "group = \"b\"" };
    let text = format!(
        r#"
[[groups]]
name = "a"
budget = "4ms"
period = "20ms"

[[groups]]
name = "b"
budget = "6ms"
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
{group_b}
"#
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn run_args<'a>(file: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "run",
        file,
        "--cpus",
        "1",
        "--arch",
        "reservations",
        "--duration",
        "200ms",
        "--allow-non-rt",
        "--format",
        "json",
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn reservations_runs_the_groups_under_hcbs() {
    let file = groups_file("ok", false);
    let o = schedlab(&run_args(file.to_str().unwrap(), &[]));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("groups are ignored"), "{err}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["arch"], "reservations");
    assert_eq!(v["policy"], "hcbs");
    assert_eq!(
        (v["groups"].as_u64(), v["servers"].as_u64()),
        (Some(2), Some(2))
    );
    // 10 + 10 releases in 200 ms, each accounted once.
    assert_eq!(v["jobs"], 20);
    for hook in ["enqueue", "dequeue", "pick_next", "check_preempt"] {
        assert!(
            v["overheads"][hook]["count"].as_u64() > Some(0),
            "{hook}: {v}"
        );
    }
}

#[test]
fn reservations_refuses_other_policies_and_ungrouped_tasks() {
    let ok = groups_file("ok2", false);
    let o = schedlab(&run_args(ok.to_str().unwrap(), &["--policy", "gfp"]));
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--arch reservations runs policy `hcbs` (H-CBS servers), not `gfp`"),
        "{e}"
    );
    let bad = groups_file("ungrouped", true);
    let o = schedlab(&run_args(bad.to_str().unwrap(), &[]));
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("group") && e.contains("reservations"), "{e}");
    println!("{e}");
}
