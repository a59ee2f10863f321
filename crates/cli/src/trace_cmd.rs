//! `schedlab trace stats|gantt|perfetto|overheads`: tools that read trace files (docs/traces.md)
//! of either engine — measured by `schedlab run` or simulated by `schedlab simulate`.
//!
//! - `stats FILE... [--equal-samples] [--format table|json] [--jobs-csv F]`: overhead
//!   statistics [MP §IV-A] and per-job metrics (`schedlab_trace::stats`);
//! - `gantt FILE -o out.svg`, `perfetto FILE -o out.json`: the exports of `schedlab simulate`;
//! - `overheads FILE... -o overheads.toml [--arch NAME] [--equal-samples]
//!   [--measure-tick[=PER_CPU] [--tick-cpus LIST]]`: fits measured overheads into the overhead
//!   file (`schedlab_trace::fit`), merging into an existing one; writes `tick_period` (the
//!   traces' kernel's, from their metadata, else this kernel's) and, with `--measure-tick`,
//!   measures Δtck here (`schedlab_runtime::tick`) into a `tick` curve of each section written;
//! - `costs FILE... [-o costs.toml] [--json] [--iterations N] [--seed S] [--check TRACE...]`: the scaling model's
//!   costs calibrated from runtime traces (`crate::trace_costs`);
//! - `supply FILE --tasks TASKS [--cpus M] [--tolerance D] [--period-loss D] [--max-points N]`: the H-CBS
//!   reservation guarantees on the trace (`crate::trace_supply`; exit status 2 when one fails).

use crate::exit::Status;
use crate::output::outln;
use anyhow::{anyhow, bail, Context, Result};
use schedlab_model::overheads::OverheadFile;
use schedlab_runtime::mech::sched::allowed_cpus;
use schedlab_runtime::tick::{
    kernel_tick, measure as measure_tick, merge as merge_tick, KernelTick, TickConfig, TickResult,
    TickSource,
};
use schedlab_trace::fit::{fit, merge, Measurement};
use schedlab_trace::gantt::{to_svg, GanttOptions, Rows};
use schedlab_trace::overheads::Overheads;
use schedlab_trace::stats::{self, analyze, equalize_traces, report_order, TraceStats};
use schedlab_trace::Trace;
use std::path::{Path, PathBuf};

/// Subcommands of `schedlab trace`.
#[derive(clap::Subcommand)]
pub(crate) enum TraceCommand {
    /// Overhead statistics and per-job metrics of trace files (runtime or simulated).
    Stats {
        /// Trace files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// ft-tools convention: shuffle each overhead's sample sets of the given files and
        /// truncate them to the smallest count before computing statistics (maxima of equal
        /// sample counts are comparable). With one file it changes nothing.
        #[arg(long)]
        equal_samples: bool,
        /// Seed of the shuffle of --equal-samples.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the rebuilt per-job records as CSV (one file only).
        #[arg(long)]
        jobs_csv: Option<PathBuf>,
        /// Output format (json: one object per file, an array for several files).
        #[arg(long, value_enum, default_value = "table")]
        format: crate::OutputFormat,
    },
    /// A Gantt chart (SVG) of a trace file.
    Gantt {
        /// Trace file.
        file: PathBuf,
        /// Output SVG file.
        #[arg(short = 'o', long)]
        out: PathBuf,
        /// One row per task instead of one per CPU.
        #[arg(long)]
        per_task: bool,
        /// Width in pixels.
        #[arg(long, default_value_t = 1200)]
        width: u32,
        /// Only this window, e.g. 0..100ms.
        #[arg(long)]
        window: Option<String>,
    },
    /// A Perfetto / Chrome trace-event JSON file of a trace file (open in ui.perfetto.dev).
    Perfetto {
        /// Trace file.
        file: PathBuf,
        /// Output JSON file.
        #[arg(short = 'o', long)]
        out: PathBuf,
    },
    /// Fit the measured overheads of runtime traces into an overhead file (docs/overheads.md).
    Overheads {
        /// Runtime trace files (different n, same or different architectures).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Overhead file to write; an existing one is merged into (its other sections kept).
        #[arg(short = 'o', long)]
        out: PathBuf,
        /// Architecture section to write (default: each trace's own, from its metadata).
        #[arg(long)]
        arch: Option<String>,
        /// ft-tools convention: equal sample counts per overhead across all (arch, n) points.
        #[arg(long)]
        equal_samples: bool,
        /// Seed of the shuffle of --equal-samples.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also measure the kernel tick's cost Δtck on this machine — a SCHED_FIFO thread
        /// spinning PER_CPU on each CPU (default 1s; `--measure-tick=2s`) — and write it as a
        /// `tick` curve into every architecture section written (run it on the machine that
        /// ran the traces).
        #[arg(long, value_name = "PER_CPU", num_args = 0..=1, require_equals = true, default_missing_value = "1s")]
        measure_tick: Option<String>,
        /// CPUs of --measure-tick (default: every CPU this process may use).
        #[arg(long, value_delimiter = ',', requires = "measure_tick")]
        tick_cpus: Vec<u32>,
        /// Output format of the fitted points.
        #[arg(long, value_enum, default_value = "table")]
        format: crate::OutputFormat,
    },
    /// Calibrate the scaling model's per-operation costs from runtime traces (their metadata
    /// names the architecture and m): the direct mapping, then model runs at each trace's m
    /// and n until the model's means meet the measured ones (docs/scaling-calibration.md).
    Costs {
        /// Runtime trace files (one or more per architecture).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Costs file to write (TOML); without it the file is printed.
        #[arg(short = 'o', long)]
        out: Option<PathBuf>,
        /// Print the calibration as JSON (costs, measured, iterations, converged).
        #[arg(long)]
        json: bool,
        /// Refinement iterations of the model (0: the direct mapping only).
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=50))]
        iterations: u32,
        /// Seed of the model's noise.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Holdout traces (not calibrated on): print the model with the calibrated costs
        /// against each, mean and maximum per overhead (`check` in --json).
        #[arg(long, num_args = 1.., value_name = "TRACE")]
        check: Vec<PathBuf>,
    },
    /// Check the H-CBS reservation guarantees on a trace: per (group, CPU), service ≥ Z(t)
    /// [HCBS Eq. 4] in every window of a backlogged interval, ≤ Q between replenishments.
    /// Exit status 2 when a check fails.
    Supply {
        /// Trace file (`schedlab simulate --policy hcbs --trace`, or a runtime trace).
        file: PathBuf,
        /// The task file the trace was made from (its `groups` and each task's `group`).
        #[arg(long)]
        tasks: PathBuf,
        /// Number of CPUs (default: the trace's metadata, else the task file's platform).
        #[arg(long)]
        cpus: Option<u32>,
        /// Allowed shortfall below Z and excess over Q, with a unit (real traces: dispatch
        /// latencies); 0 for simulated traces.
        #[arg(long, default_value = "0ns")]
        tolerance: String,
        /// Budget each server period is assumed to lose to dispatching, with a unit (real
        /// traces): Z is that of a server `(Q − loss, P)`; 0 for simulated traces.
        #[arg(long, default_value = "0ns")]
        period_loss: String,
        /// At most this many service stretches per backlogged interval of a server (the window
        /// check is quadratic in them).
        #[arg(long, default_value_t = schedlab_trace::supply::DEFAULT_MAX_POINTS)]
        max_points: usize,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: crate::OutputFormat,
    },
}

fn read(path: &Path) -> Result<Trace> {
    schedlab_trace::file::read_file(path).with_context(|| format!("{}", path.display()))
}

/// Runs a `trace` subcommand.
pub(crate) fn run(cmd: TraceCommand) -> Result<Status> {
    if let TraceCommand::Supply {
        file,
        tasks,
        cpus,
        tolerance,
        period_loss,
        max_points,
        format,
    } = &cmd
    {
        return crate::trace_supply::run(&crate::trace_supply::Options {
            trace: file,
            tasks,
            cpus: *cpus,
            tolerance,
            period_loss,
            max_points: *max_points,
            json: matches!(format, crate::OutputFormat::Json),
        });
    }
    run_tool(cmd).map(|()| Status::SUCCESS)
}

/// The subcommands that succeed or fail with an error.
fn run_tool(cmd: TraceCommand) -> Result<()> {
    match cmd {
        TraceCommand::Stats {
            files,
            equal_samples,
            seed,
            jobs_csv,
            format,
        } => stats_command(&files, equal_samples, seed, jobs_csv.as_deref(), format),
        TraceCommand::Gantt {
            file,
            out,
            per_task,
            width,
            window,
        } => {
            let t = read(&file)?;
            let opts = GanttOptions {
                width,
                rows: if per_task {
                    Rows::PerTask
                } else {
                    Rows::PerCpu
                },
                window: window.as_deref().map(parse_window).transpose()?,
                ..GanttOptions::default()
            };
            std::fs::write(&out, to_svg(&t.meta, &t.events, &opts))
                .with_context(|| format!("cannot write {}", out.display()))
        }
        TraceCommand::Perfetto { file, out } => {
            let t = read(&file)?;
            std::fs::write(
                &out,
                schedlab_trace::perfetto::to_perfetto_string(&t.meta, &t.events),
            )
            .with_context(|| format!("cannot write {}", out.display()))
        }
        TraceCommand::Overheads {
            files,
            out,
            arch,
            equal_samples,
            seed,
            measure_tick,
            tick_cpus,
            format,
        } => {
            let tick = match measure_tick {
                None => None,
                Some(per_cpu) => Some(tick_config(&per_cpu, &tick_cpus)?),
            };
            overheads_command(
                &files,
                &out,
                arch.as_deref(),
                equal_samples.then_some(seed),
                tick,
                format,
            )
        }
        TraceCommand::Costs {
            files,
            out,
            json,
            iterations,
            seed,
            check,
        } => crate::trace_costs::run(&crate::trace_costs::Options {
            files: &files,
            out: out.as_deref(),
            json,
            iterations,
            seed,
            check: &check,
        }),
        TraceCommand::Supply { .. } => Ok(()), // handled by `run`
    }
}

/// Parses `A..B` (times with units) into a window in ns.
fn parse_window(s: &str) -> Result<(u64, u64)> {
    if !s.contains("..") {
        bail!("--window: `{s}` is not START..END (e.g. 0..100ms)");
    }
    // Times with units; a unit after the range applies to both ends (`0..100ms`).
    let (a, b) = schedlab_model::time::parse_range_with_unit(s)
        .map_err(|(part, e)| anyhow!("--window: `{part}`: {e}"))?;
    if a >= b {
        bail!("--window: the end must be after the start");
    }
    Ok((a, b))
}

fn stats_command(
    files: &[PathBuf],
    equal_samples: bool,
    seed: u64,
    jobs_csv: Option<&Path>,
    format: crate::OutputFormat,
) -> Result<()> {
    let mut all: Vec<TraceStats> = Vec::with_capacity(files.len());
    for f in files {
        let t = read(f)?;
        all.push(analyze(&t.meta, &t.events).with_context(|| format!("{}", f.display()))?);
    }
    if equal_samples {
        let mut sets: Vec<Overheads> = all.iter().map(|s| s.overheads.clone()).collect();
        equalize_traces(&mut sets, seed);
        for (s, o) in all.iter_mut().zip(sets) {
            s.overheads = o;
        }
    }
    if let Some(path) = jobs_csv {
        let [one] = all.as_slice() else {
            bail!("--jobs-csv takes one trace file");
        };
        std::fs::write(path, schedlab_trace::metrics::jobs_csv(&one.jobs))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if matches!(format, crate::OutputFormat::Json) {
        let mut vals: Vec<serde_json::Value> = all.iter().map(TraceStats::to_json).collect();
        for (v, f) in vals.iter_mut().zip(files) {
            if let Some(o) = v.as_object_mut() {
                o.insert("file".into(), f.display().to_string().into());
                o.insert("equal_samples".into(), equal_samples.into());
            }
        }
        let out = match vals.as_slice() {
            [one] => one.clone(),
            _ => serde_json::Value::from(vals),
        };
        outln!("{out}")?;
        return Ok(());
    }
    for (s, f) in all.iter().zip(files) {
        print_stats(f, s, equal_samples)?;
    }
    Ok(())
}

fn print_stats(file: &Path, s: &TraceStats, equal_samples: bool) -> Result<()> {
    let t = &s.totals;
    let opt = |x: &Option<String>| x.clone().unwrap_or_else(|| "?".into());
    outln!(
        "{}: {} trace, policy {}, arch {}, {} CPUs, {} tasks, horizon {}",
        file.display(),
        opt(&s.engine),
        opt(&s.policy),
        opt(&s.arch),
        s.cpus.map_or("?".into(), |c| c.to_string()),
        s.n,
        s.horizon
    )?;
    outln!(
        "  jobs {}, completed {}, deadline misses {} (DSR {:.4}), max tardiness {}, preemptions {}, migrations {}{}, context switches {}",
        t.jobs,
        t.completed,
        t.deadline_misses,
        t.dsr,
        t.max_tardiness,
        t.preemptions,
        t.migrations,
        if t.steals > 0 {
            format!(", steals {}", t.steals)
        } else {
            String::new()
        },
        t.context_switches
    )?;
    let us = |ns: f64| ns / 1000.0;
    outln!(
        "  {:<16} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  (µs{})",
        "",
        "count",
        "min",
        "mean",
        "median",
        "p99",
        "p99.9",
        "max",
        if equal_samples { ", equal samples" } else { "" }
    )?;
    let row = |name: &str, st: &schedlab_trace::OverheadStats| {
        outln!(
            "  {:<16} {:>8} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
            name,
            st.count,
            us(st.min_ns as f64),
            us(st.mean_ns),
            us(st.median_ns as f64),
            us(st.p99_ns as f64),
            us(st.p999_ns as f64),
            us(st.max_ns as f64)
        )
    };
    let oh = s.overheads.stats();
    for name in report_order(oh.keys().copied()) {
        if let Some(st) = oh.get(name) {
            row(name, st)?;
        }
    }
    if let Some(r) = stats::response_times(&s.jobs) {
        row("response time", &r)?;
    }
    if let Some(r) = stats::tardiness(&s.jobs, s.horizon) {
        row("tardiness", &r)?;
    }
    outln!(
        "  {:>6} {:>7} {:>7} {:>12} {:>12} {:>12} {:>8} {:>8}",
        "task",
        "jobs",
        "misses",
        "max resp µs",
        "mean resp µs",
        "max tard µs",
        "preempt",
        "migr"
    )?;
    for p in &s.per_task {
        outln!(
            "  {:>6} {:>7} {:>7} {:>12.1} {:>12.1} {:>12.1} {:>8} {:>8}",
            p.task,
            p.jobs,
            p.misses,
            p.max_response.map_or(0.0, |d| us(d.as_ns() as f64)),
            p.mean_response.map_or(0.0, us),
            us(p.max_tardiness.as_ns() as f64),
            p.preemptions,
            p.migrations
        )?;
    }
    Ok(())
}

/// Writes a measured tick into `file`: the period, a `tick` curve in each of `archs`, and
/// how both were obtained (`meta.tick_period`, `meta.tick`).
fn merge_measured_tick<'a>(
    file: &mut OverheadFile,
    r: &TickResult,
    archs: impl IntoIterator<Item = &'a str>,
) -> Result<()> {
    let m = r
        .measured()?
        .ok_or_else(|| anyhow!("--measure-tick: no tick was seen on any CPU (see the warnings)"))?;
    merge_tick(file, r.tick.period, &m, archs);
    file.meta.insert(
        "tick_period".into(),
        format!("{} Hz, {}", r.tick.hz, r.tick.source.describe()),
    );
    file.meta.insert("tick".into(), r.describe());
    Ok(())
}

/// Measures the tick on this kernel (`--measure-tick=PER_CPU` on every allowed CPU) and
/// writes it into `file` for `archs` (`schedlab measure curves --measure-tick`).
pub(crate) fn measure_tick_into<'a>(
    file: &mut OverheadFile,
    per_cpu: &str,
    archs: impl IntoIterator<Item = &'a str>,
) -> Result<()> {
    let mut cfg = tick_config(per_cpu, &[])?;
    cfg.tick = kernel_tick();
    let r = measure_tick(&cfg)?;
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
    merge_measured_tick(file, &r, archs)
}

/// The configuration of `--measure-tick[=PER_CPU]` and `--tick-cpus`.
fn tick_config(per_cpu: &str, cpus: &[u32]) -> Result<TickConfig> {
    let cpus = if cpus.is_empty() {
        allowed_cpus()?
    } else {
        cpus.to_vec()
    };
    let mut cfg = TickConfig::new(cpus);
    cfg.per_cpu = schedlab_model::time::parse_duration_with_unit(per_cpu)
        .map_err(|e| anyhow!("--measure-tick: {e}"))?;
    Ok(cfg)
}

/// The kernel tick rate the traces' metadata records (`kernel_hz`, written by `schedlab run`):
/// `None` if no trace records one; an error if two traces disagree.
fn traces_hz(metas: &[(PathBuf, Option<u64>)]) -> Result<Option<u32>> {
    let mut seen: Option<(u64, &Path)> = None;
    for (f, hz) in metas {
        let Some(hz) = *hz else { continue };
        match seen {
            Some((h, g)) if h != hz => bail!(
                "{} was measured on a kernel with {h} Hz, {} on one with {hz} Hz: fit traces of one kernel at a time",
                g.display(),
                f.display()
            ),
            _ => seen = Some((hz, f)),
        }
    }
    seen.map(|(hz, _)| u32::try_from(hz).map_err(|_| anyhow!("kernel_hz {hz} out of range")))
        .transpose()
}

/// The tick period to write and where it came from: the traces' kernel, else this one's.
fn tick_period_of(traces: Option<u32>, here: Option<KernelTick>) -> Option<(KernelTick, String)> {
    match traces {
        Some(hz) => KernelTick::of_hz(
            hz,
            TickSource::Recorded("the traces' metadata (kernel_hz)".into()),
        )
        .map(|k| {
            let why = format!("{hz} Hz, {}", k.source.describe());
            (k, why)
        }),
        None => here.map(|k| {
            let why = format!(
                "{} Hz, {} on the machine that fitted (the traces record no kernel_hz)",
                k.hz,
                k.source.describe()
            );
            (k, why)
        }),
    }
}

fn overheads_command(
    files: &[PathBuf],
    out: &Path,
    arch: Option<&str>,
    equal_samples: Option<u64>,
    tick: Option<TickConfig>,
    format: crate::OutputFormat,
) -> Result<()> {
    let mut ms = Vec::with_capacity(files.len());
    let mut hz = Vec::with_capacity(files.len());
    for f in files {
        let t = read(f)?;
        ms.push(
            Measurement::from_trace(&t.meta, &t.events, arch)
                .with_context(|| format!("{}", f.display()))?,
        );
        hz.push((
            f.clone(),
            t.meta.extra.get("kernel_hz").and_then(|v| v.as_u64()),
        ));
    }
    let fitted = fit(&ms, equal_samples)?;
    let sections = fitted.sections()?;
    let traces_hz = traces_hz(&hz)?;
    // Read before measuring: a bad file fails at once.
    let mut file = if out.exists() {
        OverheadFile::load(out).map_err(|e| anyhow!("{e}"))?
    } else {
        OverheadFile::default()
    };
    // This kernel's tick: needed when the traces record none, or to measure here.
    let here = (traces_hz.is_none() || tick.is_some())
        .then(kernel_tick)
        .flatten();
    let period = tick_period_of(traces_hz, here.clone());
    // Δtck, measured here: only meaningful on the kernel that ran the traces.
    let measured_tick = match tick {
        None => None,
        Some(mut cfg) => {
            if let (Some(t), Some(h)) = (traces_hz, &here) {
                if t != h.hz {
                    bail!(
                        "--measure-tick: the traces were measured on a kernel with {t} Hz, this one has {} Hz ({}): measure the tick on the machine that ran them",
                        h.hz,
                        h.source.describe()
                    );
                }
            }
            cfg.tick = here.or_else(|| period.as_ref().map(|p| p.0.clone()));
            let r = measure_tick(&cfg)?;
            for w in &r.warnings {
                eprintln!("warning: {w}");
            }
            Some(r)
        }
    };
    let archs: Vec<String> = sections.keys().cloned().collect();
    merge(&mut file, sections);
    file.meta.insert(
        "fitted_from".into(),
        format!(
            "{} runtime trace(s) (schedlab trace overheads)",
            files.len()
        ),
    );
    match (&period, &measured_tick) {
        // The measurement's own period (this kernel's, equal to the traces' when they say).
        (_, Some(r)) => merge_measured_tick(&mut file, r, archs.iter().map(String::as_str))?,
        (Some((k, why)), None) => {
            file.tick_period = Some(k.period);
            file.meta.insert("tick_period".into(), why.clone());
        }
        (None, None) => eprintln!(
            "warning: no tick_period written: the traces record no kernel_hz and this kernel's HZ could not be read"
        ),
    }
    // The file must read back and be usable by the simulator before it is written.
    let text = file.to_toml();
    OverheadFile::parse_toml(&text).map_err(|e| anyhow!("internal: fitted file: {e}"))?;
    std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
    if matches!(format, crate::OutputFormat::Json) {
        let pts: Vec<serde_json::Value> = fitted
            .points
            .iter()
            .flat_map(|((a, name), ps)| {
                ps.iter().map(move |p| {
                    serde_json::json!({"arch": a, "overhead": name.key(), "n": p.n,
                        "count": p.count, "avg_ns": p.avg_ns, "max_ns": p.max_ns})
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::json!({"file": out.display().to_string(), "points": pts, "skipped": fitted.skipped,
                "tick_period_ns": file.tick_period.map(|q| q.as_ns()),
                "tick_period_source": file.meta.get("tick_period"),
                "tick": measured_tick.as_ref().map(TickResult::to_json)})
        )?;
        return Ok(());
    }
    outln!(
        "{}: fitted {} (architecture, overhead) curves from {} trace(s){}",
        out.display(),
        fitted.points.len(),
        files.len(),
        if equal_samples.is_some() {
            " (equal samples)"
        } else {
            ""
        }
    )?;
    outln!(
        "  {:<16} {:<16} {:>5} {:>8} {:>10} {:>10}  (raw points, µs)",
        "arch",
        "overhead",
        "n",
        "count",
        "avg",
        "max"
    )?;
    for ((a, name), ps) in &fitted.points {
        for p in ps {
            outln!(
                "  {:<16} {:<16} {:>5} {:>8} {:>10.1} {:>10.1}",
                a,
                name.key(),
                p.n,
                p.count,
                p.avg_ns as f64 / 1000.0,
                p.max_ns as f64 / 1000.0
            )?;
        }
    }
    if !fitted.skipped.is_empty() {
        outln!(
            "  skipped (not overhead-file names): {}",
            fitted.skipped.join(", ")
        )?;
    }
    if let (Some(q), Some(why)) = (file.tick_period, file.meta.get("tick_period")) {
        outln!("  tick_period {q} ({why})")?;
    }
    if let Some(r) = &measured_tick {
        print_tick(r)?;
    }
    Ok(())
}

/// The per-CPU table of a tick measurement (µs).
fn print_tick(r: &TickResult) -> Result<()> {
    outln!(
        "  tick (Δtck): gaps > {} ns at the tick's phase, {:.1} s",
        r.threshold_ns,
        r.wall_seconds
    )?;
    outln!(
        "  {:>4} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10}  (µs)",
        "cpu",
        "expected",
        "samples",
        "avg",
        "median",
        "p99",
        "max",
        "other",
        "other max"
    )?;
    let us = |x: f64| x / 1000.0;
    for c in &r.cpus {
        let a = &c.analysis;
        let t = schedlab_trace::OverheadStats::of(&a.ticks);
        let o = schedlab_trace::OverheadStats::of(&a.other);
        outln!(
            "  {:>4} {:>9} {:>8} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8} {:>10.2}{}",
            c.raw.cpu,
            a.expected,
            a.ticks.len(),
            t.map_or(0.0, |s| us(s.mean_ns)),
            t.map_or(0.0, |s| us(s.median_ns as f64)),
            t.map_or(0.0, |s| us(s.p99_ns as f64)),
            t.map_or(0.0, |s| us(s.max_ns as f64)),
            a.other.len(),
            o.map_or(0.0, |s| us(s.max_ns as f64)),
            if c.raw.real_time {
                ""
            } else {
                "  (SCHED_OTHER)"
            }
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The traces' HZ: none recorded → `None`; the traces that record one must agree.
    #[test]
    fn traces_must_agree_on_their_kernel_hz() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(traces_hz(&[(p("a"), None)]).unwrap(), None);
        assert_eq!(
            traces_hz(&[(p("a"), Some(250)), (p("b"), None), (p("c"), Some(250))]).unwrap(),
            Some(250)
        );
        let e = traces_hz(&[(p("a"), Some(250)), (p("b"), Some(1000))]).unwrap_err();
        assert!(
            e.to_string()
                .contains("a was measured on a kernel with 250 Hz, b on one with 1000 Hz"),
            "{e}"
        );
        let (k, why) = tick_period_of(Some(300), None).unwrap();
        assert_eq!(k.period.as_ns(), 3_333_333);
        assert!(why.contains("kernel_hz"), "{why}");
    }
}
