//! End-to-end properties of running experiments: the same results whatever the number of
//! threads or the chunking, resumption that recomputes nothing stored, refusal of a folder
//! of another experiment, and binning of growing sequences.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_exp::report::finish;
use schedlab_exp::{
    chunks, evaluate_chunk, run_local, schema, Chunk, ExpError, Experiment, RunOptions, RunOutcome,
    Store,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const SMALL: &str = r#"
title = "test"
seed = 7
samples = 12
chunk_size = 5

[platform]
cpus = [2, 4]

[generator]
shape = "fixed-sum"
method = "uunifast-discard"
tasks_per_cpu = 3
periods = "uniform:10ms..50ms/10ms"

[sweep]
variable = "utilization_per_cpu"
points = [0.4, 0.7, 0.9]

[[analysis]]
test = "gedf"

[[analysis]]
test = "pedf-ffd"

[[analysis]]
test = "gedf-soft"

[[simulation]]
policy = "gedf"
duration = "300ms"
exec = "uniform:0.5..1"
"#;

fn parse(text: &str) -> Experiment {
    schema::parse(text, "test.toml", "test", Path::new(".")).unwrap()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-exp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(e: &Experiment, dir: &Path, jobs: usize) -> Store {
    let (store, manifest) = Store::create_or_open(dir, e, "test.toml").unwrap();
    let outcome = run_local(
        e,
        &store,
        RunOptions {
            jobs,
            ..RunOptions::default()
        },
    )
    .unwrap();
    assert_eq!(outcome, RunOutcome::Finished);
    finish(&store, &manifest, None).unwrap();
    store
}

/// Every stored file of a folder except the manifest (which has a start time) and the report
/// (which names the run's time), by relative path.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for sub in ["", "chunks"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let p = entry.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_file() && !name.starts_with("manifest") && !name.starts_with("report") {
                out.insert(format!("{sub}/{name}"), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn same_results_with_one_or_two_threads_and_after_resumption() {
    let e = parse(SMALL);
    let (a, b) = (temp("jobs1"), temp("jobs2"));
    run(&e, &a, 1);
    run(&e, &b, 2);
    let ca = contents(&a);
    assert_eq!(ca, contents(&b));
    // 2 platforms × 3 points × ⌈12/5⌉ chunks.
    assert_eq!(ca.keys().filter(|k| k.starts_with("chunks/")).count(), 18);

    // Simulate a crash: two chunks lost, one temporary file left behind.
    let lost = chunks(&e)[4];
    std::fs::remove_file(a.join("chunks").join(lost.file_name())).unwrap();
    std::fs::remove_file(a.join("chunks").join(chunks(&e)[11].file_name())).unwrap();
    std::fs::write(a.join("chunks/.x.jsonl.tmp-1-1"), "{half").unwrap();
    let (store, _) = Store::create_or_open(&a, &e, "test.toml").unwrap();
    assert_eq!(store.pending(&chunks(&e)).unwrap().len(), 2);
    let kept = chunks(&e)[0].file_name();
    let before = std::fs::metadata(a.join("chunks").join(&kept))
        .unwrap()
        .modified()
        .unwrap();
    run(&e, &a, 2);
    let after = std::fs::metadata(a.join("chunks").join(&kept))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "a stored chunk was computed again");
    assert_eq!(contents(&a), contents(&b));

    // Another experiment in the same folder is refused.
    let other = parse(&SMALL.replace("seed = 7", "seed = 8"));
    assert!(matches!(
        Store::create_or_open(&a, &other, "test.toml"),
        Err(ExpError::DifferentExperiment { .. })
    ));
    for d in [a, b] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_creation_killed_before_its_manifest_is_resumed_but_a_foreign_folder_is_refused() {
    let e = parse(SMALL);
    let dir = temp("killed-creation");
    // What a SIGKILL between creating the folder and renaming the manifest leaves behind.
    std::fs::create_dir_all(dir.join("chunks")).unwrap();
    std::fs::write(dir.join(".manifest.json.tmp-99-0"), "{half").unwrap();
    let (store, _) = Store::create_or_open(&dir, &e, "test.toml").unwrap();
    assert_eq!(store.pending(&chunks(&e)).unwrap().len(), chunks(&e).len());
    assert!(dir.join("manifest.json").exists());
    assert!(!dir.join(".manifest.json.tmp-99-0").exists());
    std::fs::remove_dir_all(&dir).unwrap();

    // Anything else in a folder without a manifest: not an experiment folder.
    for foreign in ["notes.txt", "chunks/set.jsonl"] {
        let dir = temp(&format!("foreign-{}", foreign.len()));
        std::fs::create_dir_all(dir.join("chunks")).unwrap();
        std::fs::write(dir.join(foreign), "mine").unwrap();
        let refused = Store::create_or_open(&dir, &e, "test.toml");
        assert!(
            matches!(&refused, Err(ExpError::Corrupt { message, .. }) if message.contains("no manifest.json")),
            "{foreign}: {:?}",
            refused.map(|_| ())
        );
        assert!(Store::check_resumable(&dir, &e).is_err(), "{foreign}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn set_results_do_not_depend_on_chunking() {
    let e = parse(SMALL);
    let cell = chunks(&e)[3].cell;
    let whole = evaluate_chunk(
        &e,
        &Chunk {
            cell,
            start: 0,
            end: 12,
        },
    )
    .unwrap();
    let part = evaluate_chunk(
        &e,
        &Chunk {
            cell,
            start: 7,
            end: 10,
        },
    )
    .unwrap();
    assert_eq!(&whole[7..10], &part[..]);
    let rechunked = parse(&SMALL.replace("chunk_size = 5", "chunk_size = 7"));
    let again = evaluate_chunk(
        &rechunked,
        &Chunk {
            cell,
            start: 7,
            end: 12,
        },
    )
    .unwrap();
    assert_eq!(&whole[7..12], &again[..]);
    // The same cell under another seed draws other sets.
    let reseeded = parse(&SMALL.replace("seed = 7", "seed = 9"));
    let other = evaluate_chunk(
        &reseeded,
        &Chunk {
            cell,
            start: 0,
            end: 12,
        },
    )
    .unwrap();
    assert_ne!(whole, other);
    // A chunk outside the experiment is refused.
    assert!(evaluate_chunk(
        &e,
        &Chunk {
            cell,
            start: 10,
            end: 13
        }
    )
    .is_err());
}

#[test]
fn outcomes_are_consistent() {
    let e = parse(SMALL);
    for chunk in chunks(&e).iter().step_by(3) {
        for r in evaluate_chunk(&e, chunk).unwrap() {
            assert_eq!(r.outcomes.len(), 4);
            let (gedf, soft, sim) = (&r.outcomes[0], &r.outcomes[2], &r.outcomes[3]);
            // A hard G-EDF acceptance is never contradicted by a simulated schedule, and
            // implies bounded tardiness (soft test, U ≤ m holds).
            if gedf.schedulable {
                assert!(sim.schedulable, "m = {}, set {}", r.cpus, r.set);
                assert_eq!(gedf.max_tardiness_ns, Some(0));
            }
            // U ≤ m ⇒ G-EDF tardiness is bounded [Devi & Anderson].
            assert!(soft.schedulable);
            assert!(soft.max_tardiness_ns.is_some());
            assert!(sim.dsr.is_some_and(|d| (0.0..=1.0).contains(&d)));
        }
    }
}

#[test]
fn growing_sequences_are_binned_by_realised_utilization() {
    let text = r#"
samples = 6
chunk_size = 4
[platform]
cpus = [4]
[generator]
shape = "grow"
util_dist = "uniform:0.1..0.3"
periods = "uniform:10ms..100ms/1ms"
[sweep]
variable = "utilization"
from = 1.0
to = 4.0
step = 0.5
[[analysis]]
test = "pedf-ffd"
[[analysis]]
test = "pedf-wfd"
"#;
    let e = parse(text);
    assert_eq!(e.points, vec![1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]);
    let all = chunks(&e);
    assert_eq!(all.len(), 2);
    let results = evaluate_chunk(&e, &all[0]).unwrap();
    // m + 1 = 5 tasks of u ≥ 0.1 ⇒ U ≥ 0.5; each point owns ±0.25 around it.
    for r in &results {
        let x = e.points[r.point];
        assert!(
            (r.utilization - x).abs() <= 0.25 + 1e-9,
            "{} in {x}",
            r.utilization
        );
        assert!(r.tasks >= 5 && r.utilization <= 4.0);
    }
    // Steps of a sequence are in order, and sequences 0..4 all appear.
    let sets: std::collections::BTreeSet<u64> = results.iter().map(|r| r.set).collect();
    assert_eq!(sets.into_iter().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
}
