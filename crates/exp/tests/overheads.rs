//! Overhead-aware simulation in experiments: the overhead file reaches the simulator of every
//! set (evaluated at the set's number of tasks), an all-zero file changes nothing, and the
//! file's contents travel with the validated experiment.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_exp::{chunks, evaluate_chunk, schema, Experiment};
use std::path::{Path, PathBuf};

/// Two CPUs, two tasks of utilization 0.2 each (U = 0.4 over n = 2): whatever the policy,
/// each task runs on a CPU of its own, so the overhead-free simulation meets every deadline.
const BASE: &str = r#"
seed = 3
samples = 6
chunk_size = 4
OVERHEADS

[platform]
cpus = [2]

[generator]
shape = "fixed-sum"
method = "uunifast-discard"
tasks = 2
periods = "uniform:10ms..50ms/10ms"

[sweep]
variable = "utilization"
points = [0.4]

[[simulation]]
policy = "gedf"
label = "ideal"
duration = "300ms"
overheads = false

[[simulation]]
policy = "gedf"
label = "charged"
duration = "300ms"
"#;

/// A fresh folder for one test; each test needs its own `name` (the tests of this binary run in
/// parallel threads of one process, so a shared name lets one test delete the other's files).
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-exp-oh-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn experiment(dir: &Path, overheads: &str) -> Experiment {
    std::fs::write(dir.join("ovh.toml"), overheads).unwrap();
    let text = BASE.replace("OVERHEADS", "overheads = \"ovh.toml\"");
    schema::parse(&text, "exp.toml", "exp", dir).unwrap()
}

fn outcomes(e: &Experiment) -> Vec<(bool, bool)> {
    chunks(e)
        .iter()
        .flat_map(|c| evaluate_chunk(e, c).unwrap())
        .map(|r| (r.outcomes[0].schedulable, r.outcomes[1].schedulable))
        .collect()
}

#[test]
fn a_release_later_than_every_deadline_misses_every_deadline() {
    // Δev = 60 ms: a job released at r reaches the policy at r + 60 ms, after its deadline
    // r + T ≤ r + 50 ms (rule 1 of docs/overheads.md), so every set misses deadlines when
    // charged, none when not.
    let dir = folder("late");
    let e = experiment(
        &dir,
        "schema = 1\n[arch.global-lock.release_latency]\navg = [[1, 60000000]]\n",
    );
    let got = outcomes(&e);
    assert_eq!(got.len(), 6);
    assert!(
        got.iter().all(|&(ideal, charged)| ideal && !charged),
        "{got:?}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_all_zero_file_changes_nothing() {
    let dir = folder("zero");
    let e = experiment(
        &dir,
        "schema = 1\n[arch.global-lock.schedule]\navg = [[1, 0]]\n[cpmd.preemption]\navg = [[0, 0]]\n",
    );
    for c in chunks(&e) {
        for r in evaluate_chunk(&e, &c).unwrap() {
            assert_eq!(r.outcomes[0], r.outcomes[1]);
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_file_travels_with_the_experiment_and_its_hash() {
    let dir = folder("hash");
    let a = experiment(
        &dir,
        "schema = 1\n[arch.global-lock.schedule]\navg = [[1, 1000]]\n",
    );
    // A worker receives the JSON; it needs no access to the file.
    let json = a.canonical_json();
    std::fs::remove_file(dir.join("ovh.toml")).unwrap();
    let back: Experiment = serde_json::from_str(&json).unwrap();
    assert_eq!(outcomes(&back), outcomes(&a));
    // Another overhead file is another experiment.
    let b = experiment(
        &dir,
        "schema = 1\n[arch.global-lock.schedule]\navg = [[1, 2000]]\n",
    );
    assert_ne!(a.config_hash(), b.config_hash());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_config_hash_does_not_depend_on_how_the_file_is_named() {
    // `./scripts/showcase.sh` names the experiment by its absolute path; a user resuming it
    // with `schedlab experiment examples/…` must find the same experiment, not "a different
    // experiment" because the overhead file's path was spelled another way.
    let dir = folder("hash-spelling");
    let file =
        |ns: u64| format!("schema = 1\n[arch.global-lock.release_latency]\navg = [[1, {ns}]]\n");
    std::fs::write(dir.join("ovh.toml"), file(5)).unwrap();
    let text = BASE.replace("OVERHEADS", "overheads = \"ovh.toml\"");
    let a = schema::parse(&text, "exp.toml", "exp", &dir).unwrap();
    let b = schema::parse(&text, "exp.toml", "exp", &dir.join(".").join(".")).unwrap();
    assert_eq!(a.config_hash(), b.config_hash());
    assert_eq!(a.overheads.as_deref(), Some(Path::new("ovh.toml")));
    // The contents are part of the experiment: a changed file is another experiment.
    std::fs::write(dir.join("ovh.toml"), file(6)).unwrap();
    let c = schema::parse(&text, "exp.toml", "exp", &dir).unwrap();
    assert_ne!(a.config_hash(), c.config_hash());
    std::fs::remove_dir_all(dir).unwrap();
}

/// Overhead-aware analysis in experiments: per curve an `arch` (the whole set charged as
/// `schedlab analyze --overheads` charges it) and `reserved_cpus` (the zero-overhead "on
/// m − 1" curve of [MP Fig. 8]).
mod analysis {
    use super::*;

    const ANALYSES: &str = r#"
seed = 5
samples = 8
chunk_size = 4
overheads = "ovh.toml"

[platform]
cpus = [3]

[generator]
shape = "fixed-sum"
method = "uunifast-discard"
tasks = 6
periods = "uniform:10ms..50ms/10ms"

[sweep]
variable = "utilization"
points = [1.0, 2.0, 2.6]

[[analysis]]
test = "gedf-bcl"
label = "free"

[[analysis]]
test = "gedf-bcl"
label = "gsn-edf"
arch = "global-lock"

[[analysis]]
test = "gedf-bcl"
label = "free on m - 1"
reserved_cpus = 1

[[analysis]]
test = "gedf-bcl"
label = "g-edf-mp"
arch = "message-passing"
overhead_stat = "max"
granularity = "1us"
"#;

    fn file(value: u64) -> String {
        let mut text = String::from("schema = 1\ntick_period = \"4ms\"\n");
        for arch in ["global-lock", "message-passing"] {
            for name in [
                "release_latency",
                "release",
                "schedule",
                "context_switch",
                "ipi",
                "tick",
                "request",
                "dsp",
            ] {
                if matches!(name, "request" | "dsp") && arch != "message-passing" {
                    continue;
                }
                text.push_str(&format!("[arch.{arch}.{name}]\nmax = [[1, {value}]]\n"));
            }
        }
        text
    }

    fn rows(value: u64, name: &str) -> Vec<[bool; 4]> {
        let dir = folder(name);
        std::fs::write(dir.join("ovh.toml"), file(value)).unwrap();
        let e = schema::parse(ANALYSES, "exp.toml", "exp", &dir).unwrap();
        let out = chunks(&e)
            .iter()
            .flat_map(|c| evaluate_chunk(&e, c).unwrap())
            .map(|r| std::array::from_fn(|i| r.outcomes[i].schedulable))
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        out
    }

    #[test]
    fn zero_overheads_match_the_free_curves_on_m_and_m_minus_1() {
        let got = rows(0, "analysis-zero");
        assert_eq!(got.len(), 24);
        for r in &got {
            assert_eq!(
                r[0], r[1],
                "global-lock with zero overheads = free on m: {got:?}"
            );
            assert_eq!(
                r[2], r[3],
                "message-passing with zero overheads = free on m − 1"
            );
        }
        // The sweep reaches sets that m accepts and m − 1 does not.
        assert!(got.iter().any(|r| r[0] && !r[2]), "{got:?}");
    }

    #[test]
    fn a_release_latency_past_every_period_accepts_nothing() {
        let got = rows(60_000_000, "analysis-late");
        assert!(got.iter().all(|r| !r[1] && !r[3]), "{got:?}");
        assert!(got.iter().any(|r| r[0]));
    }
}
