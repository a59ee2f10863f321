//! `schedlab showcase`: the README's main job. Generates task sets over a utilization sweep on
//! one platform, runs a comparison of scheduler families by analysis (global EDF, global FP,
//! partitioned EDF/FP, clustered EDF, soft G-EDF), prints the acceptance-ratio table and writes
//! `summary.csv` and `report.md` into the output folder.

use crate::output::{out, outln};
use anyhow::{Context, Result};
use rayon::prelude::*;
use schedlab_analysis::{analyze, registry, Priorities, SchedTest, System};
use schedlab_gen::util_vec::VecMethod;
use schedlab_gen::{DeadlineSpec, GenSpec, PeriodDist, Shape};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Options of `schedlab showcase`.
pub(crate) struct Options {
    pub(crate) out: PathBuf,
    pub(crate) cpus: u32,
    pub(crate) sets: u64,
    pub(crate) seed: u64,
}

fn evaluations(m: u32) -> Vec<String> {
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

/// Runs the showcase.
pub(crate) fn run(o: &Options) -> Result<()> {
    let started = Instant::now();
    let m = o.cpus;
    let n = 5 * m as usize;
    let points: Vec<f64> = (2..=10).map(|k| f64::from(k) / 10.0).collect();
    let names = evaluations(m);
    let tests: Vec<Box<dyn SchedTest>> = names
        .iter()
        .map(|t| registry::by_name(t))
        .collect::<Result<_, _>>()?;
    let periods = PeriodDist::parse("loguniform:10ms..1000ms/1ms")?;
    outln!(
        "schedlab showcase: m = {m} CPUs, n = {n} tasks, {} sets per point, UUniFast-Discard, periods log-uniform [10, 1000] ms, implicit deadlines, seed {}",
        o.sets, o.seed
    )?;
    // accepted[point][test]
    let mut accepted = vec![vec![0u64; tests.len()]; points.len()];
    let mut realised = vec![0.0f64; points.len()];
    for (pi, &per_cpu) in points.iter().enumerate() {
        let spec = GenSpec::new(
            Shape::FixedSum {
                n,
                total: per_cpu * f64::from(m),
                method: VecMethod::UUniFastDiscard { lo: 0.0, hi: 1.0 },
            },
            periods.clone(),
        )
        .deadlines(DeadlineSpec::Implicit)
        .seed(o.seed.wrapping_add(pi as u64 * 1_000_003));
        let generator = spec.generator()?;
        let rows: Vec<(Vec<bool>, f64)> = (0..o.sets)
            .into_par_iter()
            .map(|k| -> Result<(Vec<bool>, f64)> {
                let g = generator.generate(k)?;
                let sys = System::new(&g.tasks, m, Priorities::Dm)?;
                let verdicts = tests
                    .iter()
                    .map(|t| analyze(t.as_ref(), &sys).is_schedulable())
                    .collect();
                Ok((verdicts, g.utilization))
            })
            .collect::<Result<_>>()?;
        for (verdicts, u) in rows {
            realised[pi] += u / o.sets as f64;
            for (ti, ok) in verdicts.into_iter().enumerate() {
                accepted[pi][ti] += u64::from(ok);
            }
        }
    }
    let elapsed = started.elapsed().as_secs_f64();

    // The table, for the terminal and the report.
    let mut table = String::new();
    let _ = write!(table, "| U/m | U (realised) |");
    for name in &names {
        let _ = write!(table, " {name} |");
    }
    table.push('\n');
    let _ = write!(table, "|---|---|");
    for _ in &names {
        table.push_str("---|");
    }
    table.push('\n');
    let mut csv = String::from("evaluation,x,x_per_cpu,ratio,sets\n");
    for (pi, &per_cpu) in points.iter().enumerate() {
        let _ = write!(table, "| {per_cpu:.1} | {:.3} |", realised[pi]);
        for (ti, name) in names.iter().enumerate() {
            let ratio = accepted[pi][ti] as f64 / o.sets as f64;
            let _ = write!(table, " {ratio:.2} |");
            let _ = writeln!(
                csv,
                "{name},{:.4},{per_cpu:.4},{ratio:.4},{}",
                per_cpu * f64::from(m),
                o.sets
            );
        }
        table.push('\n');
    }
    // Where each analysis stops accepting everything / half of the sets.
    let last_at = |ti: usize, at_least: f64| {
        points
            .iter()
            .enumerate()
            .filter(|&(pi, _)| accepted[pi][ti] as f64 / o.sets as f64 >= at_least)
            .map(|(_, &x)| x)
            .fold(None, |acc: Option<f64>, x| {
                Some(acc.map_or(x, |a| a.max(x)))
            })
    };
    let mut summary = String::from("| analysis | highest U/m with 100% accepted | highest U/m with ≥ 50% accepted |\n|---|---|---|\n");
    let fmt = |v: Option<f64>| v.map_or("—".to_string(), |x| format!("{x:.1}"));
    for (ti, name) in names.iter().enumerate() {
        let _ = writeln!(
            summary,
            "| {name} | {} | {} |",
            fmt(last_at(ti, 1.0)),
            fmt(last_at(ti, 0.5))
        );
    }
    outln!("\nAcceptance ratio (fraction of task sets each analysis shows schedulable):\n")?;
    out!("{table}")?;
    outln!("\n{summary}")?;

    std::fs::create_dir_all(&o.out)
        .with_context(|| format!("cannot create {}", o.out.display()))?;
    let mut report = String::new();
    let _ = writeln!(
        report,
        "# schedlab showcase: which scheduler holds the deadlines?\n"
    );
    let _ = writeln!(
        report,
        "{} task sets per point on m = {m} CPUs, n = {n} tasks each; utilizations by UUniFast-Discard \
         (every u ≤ 1), periods log-uniform in [10, 1000] ms (whole ms), implicit deadlines, \
         C = ⌊u·T⌋; seed {}. Each cell is the fraction of sets the analysis shows schedulable \
         (hard real-time, except `gedf-soft`: bounded tardiness).\n",
        o.sets, o.seed
    );
    report.push_str(&table);
    let _ = writeln!(report, "\n## Where each analysis stops accepting\n");
    report.push_str(&summary);
    let _ = writeln!(report, "\n## The analyses\n");
    for t in &tests {
        let i = t.info();
        let _ = writeln!(
            report,
            "- `{}` ({}, {}): {}",
            i.name,
            i.family,
            i.kind.name(),
            i.citation
        );
    }
    let _ = writeln!(
        report,
        "\nComputed by schedlab {} in {elapsed:.1} s on {} threads.",
        env!("CARGO_PKG_VERSION"),
        rayon::current_num_threads()
    );
    std::fs::write(o.out.join("summary.csv"), csv)?;
    let report_path = o.out.join("report.md");
    std::fs::write(&report_path, report)?;
    outln!(
        "\n{} task sets analysed in {elapsed:.1} s",
        o.sets * points.len() as u64
    )?;
    outln!("report: {}", report_path.display())?;
    outln!("data:   {}", o.out.join("summary.csv").display())?;
    Ok(())
}
