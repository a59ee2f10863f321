//! `schedlab measure curves`: overheads as functions of the number of tasks n at a fixed
//! number of CPUs m, like [MP Fig. 7] (there m = 32, n ∈ {m, 2m, …, 10m}; here m = 2 by
//! default and n ∈ {2, 5, 10, 20, 40, 60, 80, 100}).
//!
//! For every n, `--sets` task sets are generated as in [MP §IV]: Emberson et al.'s
//! RandFixedSum utilizations summing to `--util-per-cpu` × the CPUs that run jobs (m, or m − 1
//! when message-passing is among the architectures: its DSP runs none), each at most
//! `--max-task-util`
//! (0.9: a task above the kernel's RT throttling limit of 95% of a CPU would miss for that
//! reason alone), log-uniform periods (default 10–100 ms), implicit deadlines; a set that
//! worst-fit decreasing cannot partition onto the m CPUs (with `partitioned` among the
//! architectures), or in which FP-TS splits no task (with `semi-partitioned`: a set without a
//! split task never exercises the remote queue operations nor the budget timers [RTPS §V];
//! FP-TS splits only when a CPU is nearly full, so give `--util-per-cpu 0.85` or so) is
//! replaced by the next one of the batch (so every architecture runs the same sets;
//! `partitioned` runs the WFD placement, which balances the load at about `--util-per-cpu`
//! per CPU). `--wss` gives every task a working set (the "MA" tasks of [RTPS §VI]). Each
//! set runs for `--duration` under every architecture of `--arch` (`partitioned` with
//! `pedf`, `semi-partitioned` with `pfp-ts` on FP-TS's assignment, any other with `gedf`),
//! each run a separate `schedlab run` process of this same
//! binary writing a trace; an architecture this build does not know (the run fails with
//! "unknown architecture") is skipped with a note, so new architectures plug in by name.
//! Then the traces are fitted ([`schedlab_trace::fit`]) into `OUT/overheads.toml`
//! (merged into an existing file), the raw points are written to `OUT/curves.csv`, and one
//! figure per overhead (average and maximum against n side by side, one line per
//! architecture) to `OUT/NAME.svg` and `.png`.

use crate::output::outln;
use anyhow::{anyhow, bail, Context, Result};
use schedlab_analysis::placement::{for_policy, semi_partition};
use schedlab_analysis::Priorities;
use schedlab_exp::plot::{png_row, svg_row, LineChart};
use schedlab_gen::util_vec::VecMethod;
use schedlab_gen::{GenSpec, PeriodDist, Shape};
use schedlab_model::file::{self, Format, TaskFile};
use schedlab_model::overheads::OverheadFile;
use schedlab_trace::fit::{fit, merge, Measurement};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Arguments of `schedlab measure curves`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Output folder: overheads.toml (merged), curves.csv, one SVG+PNG plot per overhead.
    #[arg(long, default_value = "docs/overheads")]
    out: PathBuf,
    /// Folder for the generated task sets and the traces (large; not for committing).
    #[arg(long, default_value = "target/overhead-curves")]
    work: PathBuf,
    /// Architectures (comma-separated); unavailable ones are skipped with a note.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "partitioned,global-lock,message-passing"
    )]
    arch: Vec<String>,
    /// Number of CPUs m.
    #[arg(long, default_value_t = 2)]
    cpus: u32,
    /// Numbers of tasks n (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "2,5,10,20,40,60,80,100")]
    tasks: Vec<usize>,
    /// Total utilization per CPU that runs jobs: m CPUs, or m − 1 when an architecture of
    /// `--arch` keeps one CPU for scheduling (message-passing's DSP), so that every
    /// architecture runs the same sets without overload.
    #[arg(long, default_value_t = 0.6)]
    util_per_cpu: f64,
    /// Largest utilization of one task (below the kernel's RT throttling limit of 0.95, so
    /// no single task is throttled).
    #[arg(long, default_value_t = 0.9)]
    max_task_util: f64,
    /// Period distribution.
    #[arg(long, default_value = "loguniform:10ms..100ms/1ms")]
    periods: String,
    /// Task sets per n.
    #[arg(long, default_value_t = 1)]
    sets: u64,
    /// Length of each run.
    #[arg(long, default_value = "3s")]
    duration: String,
    /// Random seed of the task sets.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// ft-tools convention: equal sample counts per overhead across all points before fitting.
    #[arg(long)]
    equal_samples: bool,
    /// Run under SCHED_OTHER when SCHED_FIFO is not permitted (results flagged).
    #[arg(long)]
    allow_non_rt: bool,
    /// Working-set size of every task (e.g. 1MiB: the memory-accessing tasks of [RTPS §VI],
    /// which sweep their set while they run); none by default.
    #[arg(long)]
    wss: Option<String>,
    /// Reuse the traces already in --work (same options): only fit and plot again.
    #[arg(long)]
    reuse_traces: bool,
    /// Also measure the tick (Δtck) on this kernel, spinning PER_CPU on each CPU (default
    /// 1s), and write `tick_period` and a `tick` curve for every architecture measured
    /// (docs/overheads.md) — the analysis needs both.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "1s", value_name = "PER_CPU")]
    measure_tick: Option<String>,
}

/// The policy an architecture runs.
fn policy_for(arch: &str) -> &'static str {
    match arch {
        "partitioned" => "pedf",
        "semi-partitioned" => "pfp-ts",
        _ => "gedf",
    }
}

/// Whether every architecture of `a` can run `set`: WFD partitions it (`partitioned`), FP-TS
/// accepts it and splits a task (`semi-partitioned`).
fn fits(a: &Args, set: &schedlab_model::TaskSet) -> bool {
    let has = |name: &str| a.arch.iter().any(|x| x == name);
    let wfd = || for_policy("pedf", set, a.cpus, "wfd", None, Priorities::Dm, None).is_ok();
    let split = || {
        semi_partition(set, a.cpus, Priorities::Dm, None)
            .is_ok_and(|p| p.split.iter().any(|parts| !parts.is_empty()))
    };
    (!has("partitioned") || wfd()) && (!has("semi-partitioned") || split())
}

/// Task sets for n: `sets` partitionable sets of the batch (`seed`, one batch per n).
fn task_sets(a: &Args, n: usize) -> Result<Vec<TaskFile>> {
    let dedicated = a.arch.iter().any(|x| x == "message-passing");
    let job_cpus = if dedicated {
        a.cpus.saturating_sub(1).max(1)
    } else {
        a.cpus
    };
    let total = a.util_per_cpu * f64::from(job_cpus);
    let spec = GenSpec::new(
        Shape::FixedSum {
            n,
            total,
            method: VecMethod::parse(&format!("randfixedsum:0..{}", a.max_task_util))?,
        },
        PeriodDist::parse(&a.periods)?,
    )
    .seed(a.seed.wrapping_add(n as u64));
    let g = spec.generator()?;
    let wss = a
        .wss
        .as_deref()
        .map(schedlab_model::size::parse_bytes)
        .transpose()
        .map_err(|e| anyhow!("--wss: {e}"))?;
    let mut out = Vec::new();
    let mut index = 0u64;
    while (out.len() as u64) < a.sets {
        if index >= 100 * a.sets {
            bail!(
                "n = {n}: no set among the first {index} of the batch that every architecture can run (partitioned: WFD-partitionable; semi-partitioned: FP-TS splits a task — try a higher --util-per-cpu)"
            );
        }
        let mut set = g.generate(index)?.tasks;
        index += 1;
        if let Some(w) = wss {
            let mut tasks = set.into_tasks();
            for t in &mut tasks {
                t.wss = Some(w);
            }
            set = schedlab_model::TaskSet::new(tasks)?;
        }
        if fits(a, &set) {
            out.push(TaskFile {
                tasks: set,
                platform: None,
            });
        }
    }
    Ok(out)
}

/// Runs the command.
pub(crate) fn run(a: &Args) -> Result<()> {
    if a.cpus < 2 {
        bail!("--cpus: overhead curves need at least 2 CPUs");
    }
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot create {}", a.out.display()))?;
    std::fs::create_dir_all(&a.work)
        .with_context(|| format!("cannot create {}", a.work.display()))?;
    let exe = std::env::current_exe().context("cannot find the schedlab binary")?;
    let mut skipped: BTreeMap<String, String> = BTreeMap::new();
    let mut traces: Vec<PathBuf> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for &n in &a.tasks {
        for (k, set) in task_sets(a, n)?.iter().enumerate() {
            let set_path = a.work.join(format!("n{n}-set{k}.json"));
            std::fs::write(&set_path, file::to_string(set, Format::Json)?)
                .with_context(|| format!("cannot write {}", set_path.display()))?;
            for arch in &a.arch {
                if skipped.contains_key(arch) {
                    continue;
                }
                let trace = a.work.join(format!("n{n}-set{k}-{arch}.trace"));
                if a.reuse_traces && trace.exists() {
                    traces.push(trace);
                    continue;
                }
                let mut cmd = Command::new(&exe);
                cmd.arg("run")
                    .arg(&set_path)
                    .args(["--cpus", &a.cpus.to_string()])
                    .args([
                        "--policy",
                        policy_for(arch),
                        "--arch",
                        arch,
                        "--partition",
                        "wfd",
                    ])
                    .args(["--duration", &a.duration, "--format", "json"])
                    .arg("--trace")
                    .arg(&trace);
                if a.allow_non_rt {
                    cmd.arg("--allow-non-rt");
                }
                let out = cmd.output().context("cannot start schedlab run")?;
                let stderr = String::from_utf8_lossy(&out.stderr);
                if !out.status.success() {
                    if stderr.contains("unknown architecture") {
                        eprintln!("note: skipping architecture `{arch}`: {}", stderr.trim());
                        skipped.insert(arch.clone(), stderr.trim().to_string());
                        continue;
                    }
                    bail!("n = {n}, set {k}, {arch}: {}", stderr.trim());
                }
                let v: serde_json::Value = serde_json::from_slice(&out.stdout)
                    .map_err(|e| anyhow!("n = {n}, {arch}: bad JSON from schedlab run: {e}"))?;
                let misses = v["deadline_misses"].as_u64().unwrap_or(0);
                let line = format!(
                    "n = {n:>3}, set {k}, {arch:<16}: {} jobs, {misses} misses, real-time {}, {} dropped events",
                    v["jobs"], v["real_time"], v["dropped_events"]
                );
                eprintln!("{line}");
                notes.push(line);
                traces.push(trace);
            }
        }
    }
    if traces.is_empty() {
        bail!("no architecture could run (see the notes above)");
    }
    let mut ms = Vec::with_capacity(traces.len());
    for t in &traces {
        let tr = schedlab_trace::file::read_file(t).with_context(|| t.display().to_string())?;
        ms.push(Measurement::from_trace(&tr.meta, &tr.events, None)?);
    }
    let fitted = fit(&ms, a.equal_samples.then_some(a.seed))?;
    let oh_path = a.out.join("overheads.toml");
    let mut file = if oh_path.exists() {
        OverheadFile::load(&oh_path).map_err(|e| anyhow!("{e}"))?
    } else {
        OverheadFile::default()
    };
    let sections = fitted.sections()?;
    let archs: Vec<String> = sections.keys().cloned().collect();
    merge(&mut file, sections);
    if let Some(per_cpu) = &a.measure_tick {
        crate::trace_cmd::measure_tick_into(&mut file, per_cpu, archs.iter().map(String::as_str))?;
    }
    file.meta.insert(
        "curves".into(),
        format!(
            "schedlab measure curves: m = {}, n = {:?}, U = {} per CPU, periods {}, {} per run, {} set(s) per n{}",
            a.cpus,
            a.tasks,
            a.util_per_cpu,
            a.periods,
            a.duration,
            a.sets,
            a.wss
                .as_deref()
                .map_or(String::new(), |w| format!(", working set {w} per task"))
        ),
    );
    file.save(&oh_path).map_err(|e| anyhow!("{e}"))?;

    let mut csv = String::from("arch,overhead,n,count,avg_ns,max_ns\n");
    for ((arch, name), pts) in &fitted.points {
        for p in pts {
            let _ = writeln!(
                csv,
                "{arch},{},{},{},{},{}",
                name.key(),
                p.n,
                p.count,
                p.avg_ns,
                p.max_ns
            );
        }
    }
    write_file(&a.out.join("curves.csv"), csv.as_bytes())?;
    // One figure per overhead: the average (left) and the maximum (right) against n, one
    // line per architecture, like the insets of [MP Fig. 7].
    type Lines = Vec<(String, Vec<(f64, f64)>)>;
    let mut by_name: BTreeMap<&str, (Lines, Lines)> = BTreeMap::new();
    let us = |v: u64| v as f64 / 1000.0;
    for ((arch, name), pts) in &fitted.points {
        let (avg, max) = by_name.entry(name.key()).or_default();
        avg.push((
            arch.clone(),
            pts.iter().map(|p| (p.n as f64, us(p.avg_ns))).collect(),
        ));
        max.push((
            arch.clone(),
            pts.iter().map(|p| (p.n as f64, us(p.max_ns))).collect(),
        ));
    }
    for (name, (avg, max)) in by_name {
        let chart = |stat: &str, series: Lines| LineChart {
            title: format!("{name}, {stat} (m = {}, {} per run)", a.cpus, a.duration),
            x_desc: "number of tasks n".into(),
            y_desc: format!("{stat} {name} (µs)"),
            series,
        };
        let charts = [chart("average", avg), chart("maximum", max)];
        let svg = svg_row(&charts).map_err(|e| anyhow!("plot {name}: {e}"))?;
        write_file(&a.out.join(format!("{name}.svg")), svg.as_bytes())?;
        let png = png_row(&charts).map_err(|e| anyhow!("plot {name}: {e}"))?;
        write_file(&a.out.join(format!("{name}.png")), &png)?;
    }
    outln!(
        "{}: {} runs fitted into {}; plots and curves.csv in {}",
        a.work.display(),
        traces.len(),
        oh_path.display(),
        a.out.display()
    )?;
    for (arch, why) in &skipped {
        outln!("  skipped {arch}: {why}")?;
    }
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
