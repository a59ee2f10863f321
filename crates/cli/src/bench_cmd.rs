//! `schedlab bench analysis`: task sets per second for each test on the benchmark workload
//! (`schedlab_gen::workload::analysis_benchmark`), one thread, wall-clock time per set; or, with
//! `--write-sets DIR`, the workload written as task files, so that the file path
//! (`schedlab analyze DIR`) can be timed on exactly the same sets (`tools/analyze_speed.sh`).

use crate::output::outln;
use anyhow::{bail, Context, Result};
use schedlab_analysis::{analyze, registry, Priorities, SchedTest, System};
use schedlab_gen::workload::analysis_benchmark;
use schedlab_model::file::{self, Format, TaskFile};
use schedlab_model::{Platform, TaskSet};
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of `schedlab bench analysis`.
pub(crate) struct Options {
    pub(crate) cpus: Vec<u32>,
    pub(crate) tasks: Vec<usize>,
    pub(crate) sets: u64,
    pub(crate) seed: u64,
    pub(crate) tests: Vec<String>,
    pub(crate) json: bool,
    /// Write the sets into this folder instead of timing the tests.
    pub(crate) write_sets: Option<PathBuf>,
    /// The text shape of the written files.
    pub(crate) shape: SetShape,
}

/// How `--write-sets` writes a task set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SetShape {
    /// Pretty-printed JSON with unit strings (`"period": "393ns"`), as `schedlab gen` writes.
    Pretty,
    /// One line of JSON with integer nanoseconds (`{"tasks":[{"name":"t0","wcet":3,"period":17}]}`).
    Compact,
}

/// One line of JSON with integer nanoseconds: `{"platform":{"cpus":16},"tasks":[{"name":"t0",
/// "wcet":3,"period":17},…]}` (`deadline` only where it differs from the period).
fn compact_json(tasks: &TaskSet, cpus: u32) -> String {
    let mut out = format!("{{\"platform\":{{\"cpus\":{cpus}}},\"tasks\":[");
    for (i, t) in tasks.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('{');
        if let Some(name) = &t.name {
            // Generated names are `t<i>`; serde_json quotes any other name correctly.
            let _ = write!(out, "\"name\":{},", serde_json::Value::from(name.as_str()));
        }
        let _ = write!(
            out,
            "\"wcet\":{},\"period\":{}",
            t.wcet.as_ns(),
            t.period.as_ns()
        );
        if t.deadline != t.period {
            let _ = write!(out, ",\"deadline\":{}", t.deadline.as_ns());
        }
        out.push('}');
    }
    out.push_str("]}\n");
    out
}

/// Writes sets `0..o.sets` of the workload for one `m` and one `n` into `dir` as
/// `set-0000.json`, `set-0001.json`, … (zero-padded so that they sort in order).
fn write_sets(o: &Options, dir: &Path) -> Result<()> {
    let (&[m], &[n]) = (o.cpus.as_slice(), o.tasks.as_slice()) else {
        bail!("--write-sets writes one workload: give one --cpus value and one --tasks value");
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let width = o.sets.saturating_sub(1).to_string().len().max(4);
    for k in 0..o.sets {
        let tasks = analysis_benchmark(m, n, o.seed, k)?;
        let text = match o.shape {
            SetShape::Pretty => file::to_string(
                &TaskFile {
                    tasks,
                    platform: Some(Platform::new(m)?),
                },
                Format::Json,
            )?,
            SetShape::Compact => compact_json(&tasks, m),
        };
        let path = dir.join(format!("set-{k:0width$}.json"));
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    outln!(
        "wrote {} task sets (m = {m}, n = {n}, seed {}) to {}",
        o.sets,
        o.seed,
        dir.display()
    )?;
    Ok(())
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
    if let Some(dir) = &o.write_sets {
        return write_sets(o, dir);
    }
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
