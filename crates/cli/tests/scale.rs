//! `schedlab scale` from the command line: the table, `--json`, an overhead file with
//! `<arch>@m<M>` sections that `analyze --overheads --arch push-pull` reads, and bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::{schedlab, temp_file, text};
use serde_json::Value;

const SET: &str = r#"{"tasks": [
  {"wcet": "2ms", "period": "10ms"}, {"wcet": "3ms", "period": "15ms"},
  {"wcet": "5ms", "period": "40ms"}, {"wcet": "1ms", "period": "12ms"},
  {"wcet": "4ms", "period": "25ms"}, {"wcet": "2ms", "period": "30ms"}]}"#;

#[test]
fn json_rows_and_an_overhead_file_per_m() {
    let set = temp_file("scale", "set.json", SET).display().to_string();
    let out = schedlab(&[
        "scale",
        &set,
        "--arch",
        "message-passing",
        "--cpus",
        "3",
        "--duration",
        "500ms",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let rows: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["overhead"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "release_latency",
            "release",
            "ipi",
            "schedule",
            "context_switch",
            "request",
            "dsp"
        ]
    );
    assert!(rows.iter().all(|r| r["n"] == 6 && r["cpus"] == 3));

    let toml = temp_file("scale", "pp.toml", "").display().to_string();
    let out = schedlab(&[
        "scale",
        &set,
        "--arch",
        "push-pull",
        "--cpus",
        "2,4",
        "--duration",
        "500ms",
        "-o",
        &toml,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let written = std::fs::read_to_string(&toml).unwrap();
    assert!(
        written.contains("[arch.\"push-pull@m4\".schedule]"),
        "{written}"
    );
    let out = schedlab(&[
        "analyze",
        &set,
        "--cpus",
        "4",
        "--overheads",
        &toml,
        "--arch",
        "push-pull",
        "--test",
        "gedf-gfb",
    ]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn bad_input_is_refused_with_a_message() {
    let set = temp_file("scale", "set2.json", SET).display().to_string();
    for (args, needle) in [
        (
            vec!["--arch", "global-lok", "--cpus", "4"],
            "did you mean `global-lock`",
        ),
        (
            vec!["--arch", "global-lock", "--cpus", "4,4"],
            "given twice",
        ),
        (
            vec!["--arch", "global-lock", "--cpus", "5000"],
            "out of range",
        ),
        (
            vec!["--arch", "message-passing", "--cpus", "1"],
            "needs 2 to",
        ),
        (
            vec!["--arch", "global-lock", "--cpus", "2", "--lock", "spin"],
            "neither ticket nor mcs",
        ),
        (
            vec!["--arch", "global-lock", "--cpus", "2", "--duration", "10"],
            "--duration",
        ),
    ] {
        let mut all = vec!["scale", set.as_str()];
        all.extend(args);
        let out = schedlab(&all);
        assert!(!out.status.success());
        assert!(text(&out).contains(needle), "{needle}: {}", text(&out));
    }
}

#[test]
fn the_table_marks_an_overhead_without_samples() {
    // Six tasks on 8 CPUs: every released job finds an idle CPU where its release is handled,
    // so no IPI is ever sent; the table must say so rather than print a zero overhead.
    let set = temp_file("scale", "set3.json", SET).display().to_string();
    let out = schedlab(&[
        "scale",
        &set,
        "--arch",
        "global-lock",
        "--cpus",
        "2,8",
        "--duration",
        "1s",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let table = text(&out);
    let ipi = table
        .lines()
        .find(|l| l.contains("Δipi"))
        .unwrap_or_else(|| panic!("no Δipi line: {table}"));
    assert!(ipi.trim_end().ends_with('—'), "{ipi}");
    let sch = table.lines().find(|l| l.contains("Δsch")).unwrap();
    assert!(!sch.contains('—'), "{sch}");
}
