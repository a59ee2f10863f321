//! `schedlab showcase`: a quick comparison of scheduler families by schedulability analysis
//! alone (global EDF, global FP, partitioned EDF/FP, clustered EDF, soft G-EDF) on one
//! platform, over a utilization sweep — seconds, any `--cpus`, `--sets`, `--seed`.
//!
//! It is an experiment like any other, run by the experiment engine (validated, resumable,
//! with `summary.csv`, plots and `report.html`), written into its own folder,
//! `out/showcase-analysis` by default. The README's main job, `./scripts/showcase.sh`, is a
//! different and larger experiment (`examples/experiments/showcase.toml`: analysis *and*
//! simulation with overheads) in `out/showcase`; the two never share a folder, so their files
//! cannot mix.

use crate::output::{out, outln};
use anyhow::Result;
use schedlab_exp::{report, run_local, schema, RunOptions, RunOutcome, Store};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The default output folder (distinct from `./scripts/showcase.sh`'s `out/showcase`).
pub(crate) const DEFAULT_OUT: &str = "out/showcase-analysis";

/// Options of `schedlab showcase`.
pub(crate) struct Options {
    pub(crate) out: PathBuf,
    pub(crate) cpus: u32,
    pub(crate) sets: u64,
    pub(crate) seed: u64,
}

/// The analyses compared on `m` CPUs: the G-EDF tests, G-FP, partitioned EDF/FP, clustered EDF
/// with the largest cluster size `k ≤ m/2` dividing `m` (if any), and soft G-EDF.
fn analyses(m: u32) -> Vec<String> {
    let mut names: Vec<String> = [
        "gedf-gfb", "gedf-bcl", "gedf-rta", "gedf", "gfp", "pedf-ffd", "pedf-wfd", "pfp-ffd",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if let Some(k) = (2..m).rev().find(|k| m % k == 0 && *k <= m / 2) {
        names.push(format!("cedf-k{k}"));
    }
    names.push("gedf-soft".into());
    names
}

/// The experiment file of the showcase: n = 5m tasks, UUniFast-Discard utilizations (every
/// u ≤ 1) summing to U/m = 0.2, 0.3, …, 1.0, periods log-uniform in [10, 1000] ms (whole ms),
/// implicit deadlines.
fn experiment_text(o: &Options) -> String {
    let mut text = format!(
        "title = \"schedlab showcase (analysis only): which scheduler holds the deadlines on {m} CPUs?\"\n\
         seed = {seed}\nsamples = {sets}\nchunk_size = {chunk}\n\n\
         [platform]\ncpus = [{m}]\n\n\
         [generator]\nshape = \"fixed-sum\"\nmethod = \"uunifast-discard\"\ntasks_per_cpu = 5\n\
         periods = \"loguniform:10..1000ms/1ms\"\ndeadlines = \"implicit\"\n\n\
         [sweep]\nvariable = \"utilization_per_cpu\"\nfrom = 0.2\nto = 1.0\nstep = 0.1\n",
        m = o.cpus,
        seed = o.seed,
        sets = o.sets,
        chunk = o.sets.clamp(1, 50),
    );
    for name in analyses(o.cpus) {
        let _ = write!(text, "\n[[analysis]]\ntest = \"{name}\"\n");
    }
    text
}

/// Runs the showcase.
pub(crate) fn run(o: &Options) -> Result<()> {
    let started = Instant::now();
    let experiment = schema::parse(
        &experiment_text(o),
        "schedlab showcase",
        "showcase",
        Path::new("."),
    )?;
    outln!(
        "schedlab showcase (analysis only): m = {m} CPUs, n = {n} tasks, {} sets per point, UUniFast-Discard, periods log-uniform [10, 1000] ms, implicit deadlines, seed {}",
        o.sets,
        o.seed,
        m = o.cpus,
        n = 5 * u64::from(o.cpus),
    )?;
    outln!(
        "output folder: {} (./scripts/showcase.sh, the full showcase with simulations, writes out/showcase)",
        o.out.display()
    )?;
    let (store, manifest) = Store::create_or_open(&o.out, &experiment, "schedlab showcase")?;
    let outcome = run_local(
        &experiment,
        &store,
        RunOptions {
            jobs: 0,
            stop: None,
            progress: None,
        },
    )?;
    if outcome != RunOutcome::Finished {
        anyhow::bail!("the showcase stopped before finishing; rerun the same command to resume");
    }
    let elapsed = started.elapsed().as_secs_f64();
    let outputs = report::finish(&store, &manifest, Some(elapsed))?;

    // The acceptance table: one row per U/m, one column per analysis.
    let labels: Vec<&str> = experiment
        .evaluations
        .iter()
        .map(|e| e.label.as_str())
        .collect();
    outln!("\nAcceptance ratio (fraction of task sets each analysis shows schedulable):\n")?;
    let mut table = String::from("| U/m | U (realised) |");
    for l in &labels {
        let _ = write!(table, " {l} |");
    }
    let _ = write!(table, "\n|---|---|{}\n", "---|".repeat(labels.len()));
    for (p, x) in experiment.points.iter().enumerate() {
        let at = |label: &str| {
            outputs
                .rows
                .iter()
                .find(|r| r.point == p && r.evaluation == label)
        };
        let realised = labels
            .first()
            .and_then(|l| at(l))
            .map_or(0.0, |r| r.mean_utilization);
        let _ = write!(table, "| {x:.1} | {realised:.3} |");
        for l in &labels {
            let _ = write!(table, " {:.2} |", at(l).map_or(0.0, |r| r.ratio));
        }
        table.push('\n');
    }
    out!("{table}")?;
    outln!(
        "\n{} task sets analysed in {elapsed:.1} s",
        experiment.samples * experiment.points.len() as u64
    )?;
    outln!("report: {}", outputs.report_html.display())?;
    outln!("data:   {}", outputs.summary_csv.display())?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_experiment_is_valid_for_any_platform() {
        for cpus in [1, 2, 8, 12] {
            let o = Options {
                out: PathBuf::from(DEFAULT_OUT),
                cpus,
                sets: 3,
                seed: 1,
            };
            let e = schema::parse(&experiment_text(&o), "t", "t", Path::new(".")).unwrap();
            assert_eq!(e.cpus, [cpus]);
            assert_eq!(e.points.len(), 9);
            assert_eq!(e.evaluations.len(), analyses(cpus).len());
        }
    }
}
