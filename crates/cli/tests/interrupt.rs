//! `schedlab experiment` interrupted at random moments (seeded) by SIGINT and by SIGKILL, then
//! rerun until it finishes: the final results are byte-identical to an uninterrupted run, and
//! no chunk that had been stored is ever written again (its inode and modification time stay
//! the same; a rewrite goes through a new temporary file and a rename, so it would get a new
//! inode).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A quick experiment with many small chunks (a few seconds in a debug build): analyses and a
/// simulation on 2 platforms × 4 points × 24 sets in chunks of 2.
const EXPERIMENT: &str = r#"
title = "interrupt test"
seed = 11
samples = 24
chunk_size = 2

[platform]
cpus = [2, 4]

[generator]
shape = "fixed-sum"
method = "uunifast-discard"
tasks_per_cpu = 3
periods = "uniform:10ms..100ms/10ms"

[sweep]
variable = "utilization_per_cpu"
points = [0.5, 0.7, 0.85, 0.95]

[[analysis]]
test = "gedf"

[[analysis]]
test = "pedf-ffd"

[[simulation]]
policy = "gedf"
duration = "400ms"
exec = "uniform:0.5..1"
"#;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-int-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Starts the experiment; its standard error goes to `log` (shown when a run ends badly).
fn start(file: &Path, out: &Path, log: &Path) -> Child {
    let stderr = std::fs::File::create(log).expect("create the log file");
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["experiment", &file.display().to_string(), "--out"])
        .arg(out)
        .args(["--jobs", "2"])
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("start schedlab")
}

fn log_text(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// (inode, modification time) of every stored chunk.
fn chunk_ids(out: &Path) -> BTreeMap<String, (u64, i64, i64)> {
    let mut ids = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir(out.join("chunks")) {
        for e in entries {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".jsonl") && !name.starts_with('.') {
                let m = std::fs::metadata(&p).unwrap();
                ids.insert(name, (m.ino(), m.mtime(), m.mtime_nsec()));
            }
        }
    }
    ids
}

/// The results: every chunk file and the summary and per-set tables.
fn results(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    for name in ["summary.csv", "sets.csv"] {
        all.insert(name.to_string(), std::fs::read(out.join(name)).unwrap());
    }
    for name in chunk_ids(out).keys() {
        all.insert(
            format!("chunks/{name}"),
            std::fs::read(out.join("chunks").join(name)).unwrap(),
        );
    }
    all
}

/// SplitMix64: the seeded source of interruption moments and signals.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn interrupted_runs_end_with_the_uninterrupted_results_and_recompute_nothing() {
    let base = folder("base");
    std::fs::create_dir_all(&base).unwrap();
    let file = base.join("exp.toml");
    std::fs::write(&file, EXPERIMENT).unwrap();

    let log = base.join("stderr.log");
    let reference = base.join("reference");
    let started = Instant::now();
    let status = start(&file, &reference, &log).wait().unwrap();
    assert!(
        status.success(),
        "uninterrupted run: {status:?}\n{}",
        log_text(&log)
    );
    // Interruption moments spread over the reference run time.
    let span_ms = (started.elapsed().as_millis() as u64).max(50);
    let expected = results(&reference);

    let out = base.join("interrupted");
    let mut rng = 0x5eed_u64;
    let mut kinds = Vec::new();
    let mut finished = false;
    for round in 0..12 {
        let before = chunk_ids(&out);
        let mut child = start(&file, &out, &log);
        std::thread::sleep(Duration::from_millis(next(&mut rng) % (span_ms / 4) + 10));
        let sigkill = round % 2 == 0 || next(&mut rng) % 3 == 0;
        if sigkill {
            let _ = child.kill();
        } else {
            // The shell's `kill` builtin (no unsafe code outside the runtime crate).
            let sent = Command::new("sh")
                .args(["-c", &format!("kill -INT {}", child.id())])
                .status()
                .unwrap();
            assert!(sent.success());
        }
        let status = child.wait().unwrap();
        kinds.push(if sigkill { "KILL" } else { "INT" });
        if !sigkill {
            // Ctrl-C: the chunks in progress are stored, exit 130 (0 if it had finished; a
            // signal death if it came before the handler was installed).
            assert!(
                matches!(status.code(), Some(130) | Some(0) | None),
                "SIGINT: {status:?}\n{}",
                log_text(&log)
            );
        }
        let after = chunk_ids(&out);
        eprintln!(
            "round {round}: SIG{} → {status:?}, {} of {} chunks stored",
            kinds[round],
            after.len(),
            chunk_ids(&reference).len()
        );
        for (name, id) in &before {
            assert_eq!(
                after.get(name),
                Some(id),
                "round {round}: stored chunk {name} was written again"
            );
        }
        if status.success() {
            finished = true;
            break;
        }
    }
    // Rerun to the end; what was stored stays untouched.
    let before = chunk_ids(&out);
    if !finished || !out.join("summary.csv").exists() {
        let status = start(&file, &out, &log).wait().unwrap();
        assert!(
            status.success(),
            "final run: {status:?}\n{}",
            log_text(&log)
        );
    }
    let after = chunk_ids(&out);
    for (name, id) in &before {
        assert_eq!(after.get(name), Some(id), "final run rewrote {name}");
    }
    assert!(kinds.contains(&"KILL"), "{kinds:?}");
    assert_eq!(results(&out), expected, "interruptions: {kinds:?}");
    std::fs::remove_dir_all(base).unwrap();
}
