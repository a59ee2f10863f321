//! The metric plots of an experiment (`plots = [...]`), the aborts per set, and the
//! `--samples` override: what they write, and that experiments without them keep their config
//! hash (the manifest of a folder started before they existed still matches its file).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_exp::report::finish;
use schedlab_exp::{run_local, schema, Experiment, Metric, RunOptions, Store};
use std::path::{Path, PathBuf};

/// A small overloaded utility-accrual experiment: 2 CPUs, loads 1 and 3 (3 is 1.5× the
/// platform), G-EDF (never aborts: no `abort_late`) and P-LBESA (aborts what it cannot finish).
const TINY: &str = r#"title = "tiny UA"
seed = 3
samples = 6
chunk_size = 3

[platform]
cpus = [2]

[generator]
shape = "fill"
util_dist = "uni-medium"
periods = "uniform:10ms..50ms/10ms"
utility = "chronos"

[sweep]
variable = "utilization"
points = [1.0, 3.0]

[[simulation]]
policy = "gedf"
duration = "200ms"

[[simulation]]
policy = "plbesa"
duration = "200ms"
"#;

fn parse(text: &str) -> Experiment {
    schema::parse(text, "tiny.toml", "tiny", Path::new(".")).unwrap()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-plots-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn with_plots(plots: &str) -> String {
    TINY.replacen(
        "chunk_size = 3\n",
        &format!("chunk_size = 3\nplots = {plots}\n"),
        1,
    )
}

#[test]
fn files_without_plots_keep_their_config_hash() {
    let plain = parse(TINY);
    // The hash `schedlab experiment` of main (before `plots`, aborts and `--samples`)
    // recorded for this file.
    assert_eq!(plain.config_hash(), "5cee10a6d25fdaf2");
    assert_eq!(plain.plots, vec![Metric::Acceptance]);
    assert!(!plain.canonical_json().contains("plots"));
    assert!(!plain.canonical_json().contains("file_samples"));
    // Writing the default explicitly is the same experiment; asking for more is another.
    let explicit = parse(&with_plots(r#"["acceptance"]"#));
    assert_eq!(explicit.config_hash(), plain.config_hash());
    let more = parse(&with_plots(r#"["dsr", "aborts"]"#));
    assert_ne!(more.config_hash(), plain.config_hash());
    assert_eq!(more.plots, vec![Metric::Dsr, Metric::Aborts]);
}

#[test]
fn every_requested_metric_is_plotted_and_reported() {
    let e = parse(&with_plots(
        r#"["acceptance", "dsr", "aur", "max_tardiness", "preemptions", "migrations", "aborts", "context_switches", "steals"]"#,
    ));
    let dir = temp("all");
    let (store, manifest) = Store::create_or_open(&dir, &e, "tiny.toml").unwrap();
    run_local(&e, &store, RunOptions::default()).unwrap();
    let out = finish(&store, &manifest, None).unwrap();
    let md = std::fs::read_to_string(&out.report_md).unwrap();
    let html = std::fs::read_to_string(&out.report_html).unwrap();
    for m in Metric::ALL {
        let svg = std::fs::read_to_string(dir.join(format!("{}.svg", m.name()))).unwrap();
        assert!(svg.contains(m.y_desc()), "{}: axis label missing", m.name());
        assert!(dir.join(format!("{}.png", m.name())).is_file());
        assert!(md.contains(&format!("]({}.svg)", m.name())), "{}", m.name());
        assert!(html.contains(&format!("<h2>{}</h2>", m.heading())));
    }
    assert!(md.contains("plots: acceptance, dsr, aur"));
    // Aborts per set: G-EDF never aborts (no `abort_late`); P-LBESA at load 3 on 2 CPUs
    // (overloaded) aborts, at load 1 (every CPU ≤ 0.95 after first fit) it does not need to.
    let summary = std::fs::read_to_string(&out.summary_csv).unwrap();
    let header: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|&h| h == "mean_aborts").unwrap();
    let aborts = |label: &str, x: &str| -> f64 {
        summary
            .lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|f| f[0] == label && f[2] == x)
            .map(|f| f[col].parse().unwrap())
            .unwrap()
    };
    assert_eq!(aborts("sim-gedf", "1"), 0.0);
    assert_eq!(aborts("sim-gedf", "3"), 0.0);
    assert_eq!(aborts("sim-plbesa", "1"), 0.0);
    assert!(aborts("sim-plbesa", "3") > 0.0);
    let sets = std::fs::read_to_string(dir.join("sets.csv")).unwrap();
    assert!(sets
        .lines()
        .next()
        .unwrap()
        .ends_with(",jobs,aborted,context_switches,steals"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_without_plots_writes_the_acceptance_plot_alone() {
    let e = parse(TINY);
    let dir = temp("default");
    let (store, manifest) = Store::create_or_open(&dir, &e, "tiny.toml").unwrap();
    run_local(&e, &store, RunOptions::default()).unwrap();
    let out = finish(&store, &manifest, None).unwrap();
    assert!(dir.join("acceptance.svg").is_file());
    for m in &Metric::ALL[1..] {
        assert!(
            !dir.join(format!("{}.svg", m.name())).exists(),
            "{}",
            m.name()
        );
    }
    let md = std::fs::read_to_string(&out.report_md).unwrap();
    assert!(md.contains("## Acceptance ratio\n\n![acceptance ratio](acceptance.svg)"));
    assert!(!md.contains("plots:"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn samples_override_is_recorded_and_hashed() {
    let file = parse(TINY);
    let mut e = file.clone();
    e.override_samples(2).unwrap();
    assert_eq!((e.samples, e.file_samples), (2, Some(6)));
    assert_ne!(e.config_hash(), file.config_hash());
    assert_eq!(schedlab_exp::chunks(&e).len(), 2); // 2 points × ⌈2/3⌉ chunks
                                                   // Overriding again keeps the file's value; the file's own value is no override.
    e.override_samples(4).unwrap();
    assert_eq!((e.samples, e.file_samples), (4, Some(6)));
    e.override_samples(6).unwrap();
    assert_eq!(e, file);
    assert!(e.override_samples(0).is_err());
    assert!(e.override_samples(u64::MAX).is_err());
    assert_eq!(e, file, "a refused override changes nothing");
    // The report says so, and an interrupted reduced run says how to resume it.
    let mut reduced = file.clone();
    reduced.override_samples(3).unwrap();
    let dir = temp("override");
    let (store, manifest) = Store::create_or_open(&dir, &reduced, "tiny.toml").unwrap();
    let err = finish(&store, &manifest, None).unwrap_err().to_string();
    assert!(err.contains("tiny.toml --samples 3 --out"), "{err}");
    run_local(&reduced, &store, RunOptions::default()).unwrap();
    let out = finish(&store, &manifest, None).unwrap();
    let md = std::fs::read_to_string(&out.report_md).unwrap();
    assert!(md.contains("3 task sets per point and platform (`--samples 3` on the command line; the file asks for 6)"), "{md}");
    // The folder belongs to the reduced run: the full file is a different experiment.
    assert!(Store::check_resumable(&dir, &file).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The ChronOS §8.7–§8.11 files (docs/reproductions.md): 6 distributions × m = 8, 16, 48,
/// each valid, with the 16 algorithms, 1,000 sets per load, loads 1 … 2m, 1 s per set, the
/// six metric plots, task utilities, and `abort_late` nowhere (§8.3: the non-UA algorithms
/// did not abort; the UA ones abort by themselves).
#[test]
fn the_chronos_ua_files_are_the_thesis_setup() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/experiments/chronos-ua");
    let mut n = 0;
    for d in ["bhu", "bmu", "blu", "bhb", "bmb", "blb"] {
        for m in [8u32, 16, 48] {
            let e = schema::load(&dir.join(format!("{d}-m{m}.toml"))).unwrap();
            assert_eq!((e.samples, e.cpus.clone()), (1000, vec![m]), "{d}-m{m}");
            let expected: Vec<f64> = (1..=2 * m).map(f64::from).collect();
            assert_eq!(e.points, expected, "{d}-m{m}");
            assert_eq!(e.generator.utility.as_deref(), Some("chronos"));
            assert_eq!(e.plots.len(), 6);
            let mut policies: Vec<&str> = Vec::new();
            for ev in &e.evaluations {
                let schedlab_exp::EvalKind::Simulation {
                    policy,
                    duration,
                    abort_late,
                    ..
                } = &ev.kind
                else {
                    panic!("{d}-m{m}: {} is not a simulation", ev.label)
                };
                assert_eq!(duration, "1s");
                assert!(!abort_late, "{d}-m{m}: {}", ev.label);
                policies.push(policy);
            }
            policies.sort_unstable();
            policies.dedup();
            assert_eq!(e.evaluations.len(), 16);
            assert_eq!(policies.len(), 15, "SCHED_FIFO and G-RMS share `gfp`");
            n += 1;
        }
    }
    assert_eq!(n, 18);
}
