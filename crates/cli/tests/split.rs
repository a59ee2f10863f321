//! `schedlab simulate --policy pfp-ts` as a user drives it [RTPS §III, §IV]: without `cpu` /
//! `split` fields it runs exactly the assignment `schedlab analyze --test pfp-ts` reports; with
//! them, the file's; and the 2-second run, read back from its Perfetto export against the
//! analysis's `split_tasks`, has no deadline miss, no job on two CPUs at once and no part
//! running longer than its budget on its CPU.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("run schedlab")
}

fn ok(out: &Output) -> &[u8] {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    &out.stdout
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-split-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The example with its `cpu` / `split` lines (`pinned`), or without them.
fn example(dir: &Path, pinned: bool) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("examples/split.toml")).unwrap();
    let text: String = text
        .lines()
        .filter(|l| pinned || !(l.starts_with("cpu = ") || l.starts_with("split = ")))
        .map(|l| format!("{l}\n"))
        .collect();
    let path = dir.join(if pinned { "pinned.toml" } else { "free.toml" });
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The analysis's `split_tasks`: task → [(cpu, budget_ns, kind)].
fn analysis_split(file: &str) -> BTreeMap<u64, Vec<(u64, u64, String)>> {
    let out = schedlab(&["analyze", file, "--test", "pfp-ts", "--format", "json"]);
    let v: Value = serde_json::from_slice(ok(&out)).unwrap();
    let r = &v["results"][0];
    assert_eq!(r["schedulable"], true);
    r["split_tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let parts = s["parts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p["cpu"].as_u64().unwrap(),
                        p["budget_ns"].as_u64().unwrap(),
                        p["kind"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            (s["task"].as_u64().unwrap(), parts)
        })
        .collect()
}

/// µs with three decimals → ns.
fn ns_of(v: &Value) -> u64 {
    (v.as_f64().unwrap() * 1000.0).round() as u64
}

/// Checks a Perfetto export against `split`; returns the number of (split job, CPU) pairs.
fn check(perfetto: &Path, split: &BTreeMap<u64, Vec<(u64, u64, String)>>) -> usize {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(perfetto).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    assert!(!events.iter().any(|e| e["cat"] == "deadline-miss"));
    // (task, seq) → [(start, end, cpu)]; (task, seq, cpu) → executed.
    type Slices = Vec<(u64, u64, u64)>;
    let mut by_job: BTreeMap<(u64, u64), Slices> = BTreeMap::new();
    let mut used: BTreeMap<(u64, u64, u64), u64> = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] == "X" && e["pid"] == 0) {
        let (task, seq) = (
            e["args"]["task"].as_u64().unwrap(),
            e["args"]["seq"].as_u64().unwrap(),
        );
        let (start, cpu) = (ns_of(&e["ts"]), e["tid"].as_u64().unwrap());
        let end = start + ns_of(&e["dur"]);
        by_job
            .entry((task, seq))
            .or_default()
            .push((start, end, cpu));
        if split.contains_key(&task) {
            *used.entry((task, seq, cpu)).or_default() += end - start;
        }
    }
    for (job, ivs) in &mut by_job {
        ivs.sort_unstable();
        for w in ivs.windows(2) {
            assert!(w[1].0 >= w[0].1, "{job:?} on two CPUs: {w:?}");
        }
    }
    for ((task, seq, cpu), ran) in &used {
        let part = split[task].iter().find(|p| p.0 == *cpu);
        let budget = part.map_or(0, |p| p.1);
        assert!(
            *ran <= budget,
            "τ{task}#{seq} ran {ran} ns on CPU {cpu}, its part there has {budget}"
        );
    }
    used.len()
}

#[test]
fn pfp_ts_runs_the_analysis_split_and_keeps_parts_in_budget() {
    let dir = temp_dir("run");
    let (free, pinned) = (example(&dir, false), example(&dir, true));
    let split = analysis_split(&free);
    assert_eq!(
        split,
        BTreeMap::from([(
            0,
            vec![
                (0, 2_000_000, "head".to_string()),
                (1, 1_000_000, "tail".to_string())
            ]
        )])
    );
    let mut exports = Vec::new();
    for file in [&free, &pinned] {
        let p = dir.join(format!("{}.json", exports.len()));
        let out = schedlab(&[
            "simulate",
            file,
            "--policy",
            "pfp-ts",
            "--duration",
            "2s",
            "--format",
            "json",
            "--perfetto",
            p.to_str().unwrap(),
        ]);
        let v: Value = serde_json::from_slice(ok(&out)).unwrap();
        assert_eq!(v["deadline_misses"], 0);
        assert_eq!(v["per_task"][0]["jobs"], 400);
        // 400 jobs of the split task, each on both of its CPUs.
        assert_eq!(check(&p, &split), 800);
        let e: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let parts: Vec<(u64, u64)> = e["otherData"]["tasks"][0]["split"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| (q["cpu"].as_u64().unwrap(), q["budget_ns"].as_u64().unwrap()))
            .collect();
        assert_eq!(parts, vec![(0, 2_000_000), (1, 1_000_000)]);
        exports.push(e["traceEvents"].clone());
    }
    assert_eq!(exports[0], exports[1], "the file's split is the analysis's");
}

#[test]
fn pins_and_cpus_are_checked_with_the_tasks_named() {
    let dir = temp_dir("errors");
    let pinned = example(&dir, true);
    let out = schedlab(&["simulate", &pinned, "--policy", "pfp-ts", "--cpus", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("task 0 (`fast`): `split` part 1 is on CPU 1, but there are only 1 CPUs"),
        "{err}"
    );
    let text = std::fs::read_to_string(&pinned).unwrap();
    let mixed = dir.join("mixed.toml");
    std::fs::write(&mixed, text.replacen("cpu = 0\n", "", 1)).unwrap();
    let out = schedlab(&["simulate", mixed.to_str().unwrap(), "--policy", "pfp-ts"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "task 0 (`fast`) has a `cpu` or `split` field but task 2 (`slow`) has neither"
        ),
        "{err}"
    );
    // Only pfp-ts runs split tasks; the runtime does not offer budgets yet.
    let out = schedlab(&["simulate", &pinned, "--policy", "pfp"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("task 0 (`fast`) has a `split` field: split tasks run under `--policy pfp-ts`, not `pfp`"),
        "{err}"
    );
    let out = schedlab(&[
        "run",
        &pinned,
        "--policy",
        "pfp-ts",
        "--arch",
        "partitioned",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("policy `pfp-ts` needs execution budgets"),
        "{err}"
    );
}
