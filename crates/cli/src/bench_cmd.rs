//! `schedlab bench analysis`: task sets per second for each test on the benchmark workload
//! (`schedlab_gen::workload::analysis_benchmark`), one thread, wall-clock time per set.

use crate::output::outln;
use anyhow::Result;
use schedlab_analysis::{analyze, registry, Priorities, SchedTest, System};
use schedlab_gen::workload::analysis_benchmark;
use serde_json::json;
use std::time::Instant;

/// Options of `schedlab bench analysis`.
pub(crate) struct Options {
    pub(crate) cpus: Vec<u32>,
    pub(crate) tasks: Vec<usize>,
    pub(crate) sets: u64,
    pub(crate) seed: u64,
    pub(crate) tests: Vec<String>,
    pub(crate) json: bool,
}

/// The G-EDF tests benchmarked by default: every member of the `gedf` battery, then the
/// battery itself.
fn default_tests() -> Vec<String> {
    let battery = schedlab_analysis::gedf::battery();
    let mut names: Vec<String> = battery.members.iter().map(|t| t.name()).collect();
    names.push(battery.info.name);
    names
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Runs the benchmark and prints one row per (m, n, test).
pub(crate) fn run(o: &Options) -> Result<()> {
    let names: Vec<String> = if o.tests.is_empty() {
        default_tests()
    } else {
        o.tests.clone()
    };
    let tests: Vec<Box<dyn SchedTest>> = names
        .iter()
        .map(|n| registry::by_name(n))
        .collect::<Result<_, _>>()?;
    if !o.json {
        outln!(
            "{:>4} {:>5}  {:<14} {:>12} {:>12} {:>12} {:>9}",
            "m",
            "n",
            "test",
            "median µs",
            "mean µs",
            "sets/s",
            "accepted"
        )?;
    }
    for &m in &o.cpus {
        for &n in &o.tasks {
            let systems: Vec<System> = (0..o.sets)
                .map(|k| {
                    let set = analysis_benchmark(m, n, o.seed, k)?;
                    Ok(System::new(&set, m, Priorities::Dm)?)
                })
                .collect::<Result<_>>()?;
            for test in &tests {
                let mut micros = Vec::with_capacity(systems.len());
                let mut accepted = 0;
                let start = Instant::now();
                for sys in &systems {
                    let t0 = Instant::now();
                    let v = analyze(test.as_ref(), sys);
                    micros.push(t0.elapsed().as_secs_f64() * 1e6);
                    accepted += usize::from(v.is_schedulable());
                }
                let total = start.elapsed().as_secs_f64();
                let mean = micros.iter().sum::<f64>() / micros.len().max(1) as f64;
                let med = median(&mut micros);
                let rate = systems.len() as f64 / total.max(1e-12);
                if o.json {
                    outln!(
                        "{}",
                        json!({"cpus": m, "tasks": n, "test": test.name(), "sets": systems.len(),
                               "median_us": med, "mean_us": mean, "sets_per_second": rate,
                               "accepted": accepted})
                    )?;
                } else {
                    outln!(
                        "{m:>4} {n:>5}  {:<14} {med:>12.1} {mean:>12.1} {rate:>12.0} {accepted:>5}/{}",
                        test.name(),
                        systems.len()
                    )?;
                }
            }
        }
    }
    Ok(())
}
