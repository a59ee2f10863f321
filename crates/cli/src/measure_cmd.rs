//! `schedlab measure cpmd|curves`: measurements on this machine that feed the overhead file
//! (docs/overheads.md).
//!
//! - `cpmd -o overheads.toml [--wss 4KiB,…] [--cpus 0,1] [--samples N] [--pollute SIZE]
//!   [--max-time 10s]`: the cache-related preemption and migration delay as a function of the
//!   working-set size ([RTPS §VI-B], [ChronOS §9.2]; `schedlab_runtime::cpmd`), merged into
//!   the file's `[cpmd.*]` sections;
//! - `curves` ([`crate::curves_cmd`]): overheads as functions of n [MP Fig. 7];
//! - `sched-cost` ([`crate::sched_cost_cmd`]): per-algorithm scheduling cost against n
//!   [ChronOS §9.1];
//! - `timing [--model per-task|per-job|both] [--intervals 10us,…] [--samples N] [--cpu C]
//!   [--allow-non-rt]`: the timing accuracy of the threading models [ChronOS §3.3, §9.4]
//!   (`schedlab_runtime::timing`): how late a job's code starts after its release, by
//!   release interval.

use crate::output::outln;
use anyhow::{anyhow, bail, Result};
use schedlab_model::overheads::OverheadFile;
use schedlab_model::size::{format_bytes, parse_bytes};
use schedlab_runtime::cpmd::{measure, merge, CpmdConfig};
use schedlab_runtime::mech::sched::allowed_cpus;
use std::path::PathBuf;

/// Subcommands of `schedlab measure`.
#[derive(clap::Subcommand)]
pub(crate) enum MeasureCommand {
    /// Cache-related preemption and migration delay by working-set size, into an overhead file.
    Cpmd {
        /// Overhead file to write; an existing one is merged into (its other sections kept).
        #[arg(short = 'o', long)]
        out: PathBuf,
        /// Working-set sizes (comma-separated; default 4KiB,8KiB,…,4MiB).
        #[arg(long, value_delimiter = ',')]
        wss: Vec<String>,
        /// The home CPU and the migration target (default: the first two allowed CPUs).
        #[arg(long, value_delimiter = ',')]
        cpus: Vec<u32>,
        /// Samples per size and kind (at most).
        #[arg(long, default_value_t = 20)]
        samples: u32,
        /// Bytes the competing thread writes during a preemption (default: twice the largest
        /// cache of the home CPU).
        #[arg(long)]
        pollute: Option<String>,
        /// Bound on the whole measurement.
        #[arg(long, default_value = "10s")]
        max_time: String,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: crate::OutputFormat,
    },
    /// Overhead curves as functions of n at fixed m [MP Fig. 7]: real runs, plots, a fitted file.
    Curves(crate::curves_cmd::Args),
    /// Scheduling cost per algorithm against n [ChronOS §9.1, Figs. 9.1–9.3]: real runs of
    /// every policy under its ChronOS architecture, the policy callback and Δsch.
    SchedCost(crate::sched_cost_cmd::Args),
    /// System-call, clock, futex and lock costs of the runtime's primitives [ChronOS §9.3,
    /// Fig. 9.14], and the load at which per-job system calls fill the machine (Table 9.2).
    Syscalls {
        /// The measuring CPU and the second one (default: the first two allowed CPUs).
        #[arg(long, value_delimiter = ',')]
        cpus: Vec<u32>,
        /// Batches per primitive (median and minimum over them).
        #[arg(long, default_value_t = 200)]
        samples: u32,
        /// Calls per batch.
        #[arg(long, default_value_t = 1000)]
        batch: u32,
    },
    /// Timing accuracy of the threading models [ChronOS §9.4]: release-to-start error by
    /// release interval, thread-per-task and thread-per-job.
    Timing {
        /// per-task, per-job or both.
        #[arg(long, default_value = "both")]
        model: String,
        /// Release intervals (comma-separated, with units).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "10us,50us,100us,500us,1ms,10ms,100ms"
        )]
        intervals: Vec<String>,
        /// Samples per interval.
        #[arg(long, default_value_t = 200)]
        samples: u32,
        /// The CPU to measure on (default: the last one this process may use).
        #[arg(long)]
        cpu: Option<u32>,
        /// Without permission for SCHED_FIFO, measure under SCHED_OTHER (flagged).
        #[arg(long)]
        allow_non_rt: bool,
    },
}

/// `schedlab measure syscalls`: one row per primitive (`schedlab_runtime::syscost`), then
/// the per-job cost of the runtime's system calls and the load at which it fills m CPUs for
/// some mean execution times ([ChronOS Table 9.2]: there `begin_rt_seg` + `end_rt_seg` per
/// job; here a job costs a park/unpark round trip — the dispatcher wakes the job thread, the
/// thread wakes it back at completion —, one `sched_setaffinity` re-pin and two
/// CLOCK_MONOTONIC reads). Each job then occupies C + c_sys, so the load L = ΣC/T at which
/// ΣC(1 + c_sys/C)/T = m is m·C̄/(C̄ + c_sys) for a mean execution time C̄.
fn syscalls(cpus: Vec<u32>, samples: u32, batch: u32) -> Result<()> {
    let cpus = if cpus.is_empty() {
        allowed_cpus()?.into_iter().take(2).collect()
    } else {
        cpus
    };
    let costs =
        std::thread::spawn(move || schedlab_runtime::syscost::measure(&cpus, samples, batch))
            .join()
            .map_err(|_| anyhow!("the measuring thread panicked"))?;
    outln!(
        "  {:<46} {:>12} {:>12}",
        "primitive",
        "median (ns)",
        "min (ns)"
    )?;
    for c in &costs {
        outln!("  {:<46} {:>12.1} {:>12.1}", c.name, c.median_ns, c.min_ns)?;
    }
    let get = |prefix: &str| {
        costs
            .iter()
            .find(|c| c.name.starts_with(prefix))
            .map_or(0.0, |c| c.median_ns)
    };
    let per_job =
        get("futex park/unpark") + get("sched_setaffinity") + 2.0 * get("clock_gettime(MONOTONIC)");
    outln!("  per-job system-call cost c_sys = {per_job:.0} ns")?;
    for (label, mean_c) in [
        ("C̄ = 100 µs", 100_000.0),
        ("C̄ = 1 ms", 1_000_000.0),
        ("C̄ = 2.78 ms (ChronOS BLU)", 2_780_000.0),
    ] {
        let full = |m: f64| m * mean_c / (mean_c + per_job);
        outln!(
            "  {label:<28} fully loaded at L = {:.3} (m = 2), {:.2} (m = 8), {:.2} (m = 48)",
            full(2.0),
            full(8.0),
            full(48.0)
        )?;
    }
    Ok(())
}

/// `schedlab measure timing` (see the module doc): one table row per model and interval.
fn timing(
    model: &str,
    intervals: &[String],
    samples: u32,
    cpu: Option<u32>,
    allow_non_rt: bool,
) -> Result<()> {
    use schedlab_runtime::timing::{measure, Model, TimingConfig};
    let models = match model {
        "both" => vec![Model::PerTask, Model::PerJob],
        m => vec![Model::parse(m)
            .ok_or_else(|| anyhow!("--model: per-task, per-job or both, not `{m}`"))?],
    };
    let intervals_ns = intervals
        .iter()
        .map(|i| {
            schedlab_model::time::parse_duration_with_unit(i.trim())
                .map(|d| d.as_ns())
                .map_err(|e| anyhow!("--intervals: {e}"))
        })
        .collect::<Result<Vec<u64>>>()?;
    let cpu = match cpu {
        Some(c) => c,
        None => *allowed_cpus()?
            .last()
            .ok_or_else(|| anyhow!("no CPU this process may use"))?,
    };
    outln!(
        "  {:>9} {:>10} {:>7} {:>10} {:>10} {:>10} {:>10}  (error: start − release, µs)",
        "model",
        "interval",
        "samples",
        "mean",
        "median",
        "p99",
        "max"
    )?;
    for model in models {
        let cfg = TimingConfig {
            model,
            intervals_ns: intervals_ns.clone(),
            samples,
            cpu,
            allow_non_rt,
        };
        let t = measure(&cfg)?;
        if !t.real_time {
            eprintln!("warning: SCHED_FIFO not permitted: measured under SCHED_OTHER");
        }
        for row in &t.rows {
            let Some(s) = schedlab_trace::OverheadStats::of(&row.errors_ns) else {
                continue;
            };
            let us = |x: f64| x / 1000.0;
            outln!(
                "  {:>9} {:>10} {:>7} {:>10.2} {:>10.2} {:>10.2} {:>10.2}",
                model.name(),
                schedlab_model::Duration::from_ns(row.interval_ns).to_string(),
                s.count,
                us(s.mean_ns),
                us(s.median_ns as f64),
                us(s.p99_ns as f64),
                us(s.max_ns as f64)
            )?;
        }
    }
    Ok(())
}

/// Runs a `measure` subcommand.
pub(crate) fn run(cmd: MeasureCommand) -> Result<()> {
    match cmd {
        MeasureCommand::Timing {
            model,
            intervals,
            samples,
            cpu,
            allow_non_rt,
        } => timing(&model, &intervals, samples, cpu, allow_non_rt),
        MeasureCommand::Cpmd {
            out,
            wss,
            cpus,
            samples,
            pollute,
            max_time,
            format,
        } => {
            let (a, b) = match cpus.as_slice() {
                [] => match allowed_cpus()?.as_slice() {
                    [a, b, ..] => (*a, *b),
                    _ => bail!("measuring CPMD needs two CPUs this process may use"),
                },
                [a, b] => (*a, *b),
                other => bail!("--cpus: give two CPUs (home,target), not {other:?}"),
            };
            let mut cfg = CpmdConfig::new(a, b);
            if !wss.is_empty() {
                cfg.wss = wss
                    .iter()
                    .map(|w| parse_bytes(w.trim()).map_err(|e| anyhow!("--wss: {e}")))
                    .collect::<Result<_>>()?;
            }
            if let Some(p) = pollute {
                cfg.pollute = parse_bytes(p.trim()).map_err(|e| anyhow!("--pollute: {e}"))?;
            }
            cfg.samples = samples;
            cfg.max_time = schedlab_model::time::parse_duration_with_unit(&max_time)
                .map_err(|e| anyhow!("--max-time: {e}"))?;
            let r = measure(&cfg)?;
            for w in &r.warnings {
                eprintln!("warning: {w}");
            }
            let mut file = if out.exists() {
                OverheadFile::load(&out).map_err(|e| anyhow!("{e}"))?
            } else {
                OverheadFile::default()
            };
            merge(&mut file, r.curves()?);
            file.meta.insert(
                "cpmd".into(),
                format!(
                    "schedlab measure cpmd: CPUs {a} (home) and {b}, pollution {}, {}",
                    format_bytes(r.pollute),
                    if r.real_time {
                        "SCHED_FIFO"
                    } else {
                        "SCHED_OTHER"
                    }
                ),
            );
            file.save(&out).map_err(|e| anyhow!("{e}"))?;
            if matches!(format, crate::OutputFormat::Json) {
                outln!("{}", r.to_json())?;
                return Ok(());
            }
            outln!(
                "{}: CPMD on CPUs {a} → {b}, pollution {}, {:.1} s{}",
                out.display(),
                format_bytes(r.pollute),
                r.wall_seconds,
                if r.real_time {
                    ""
                } else {
                    " (NOT real-time: SCHED_OTHER)"
                }
            )?;
            outln!(
                "  {:>10} {:>7} {:>10} {:>12} {:>12} {:>12} {:>12}  (µs)",
                "wss",
                "samples",
                "warm med",
                "preempt avg",
                "preempt max",
                "migrate avg",
                "migrate max"
            )?;
            let us = |x: f64| x / 1000.0;
            for row in &r.rows {
                let st = schedlab_trace::OverheadStats::of;
                let (w, p, m) = (st(&row.warm), st(&row.preemption), st(&row.migration));
                outln!(
                    "  {:>10} {:>7} {:>10.2} {:>12.2} {:>12.2} {:>12.2} {:>12.2}",
                    format_bytes(row.wss),
                    row.preemption.len(),
                    w.map_or(0.0, |s| us(s.median_ns as f64)),
                    p.map_or(0.0, |s| us(s.mean_ns)),
                    p.map_or(0.0, |s| us(s.max_ns as f64)),
                    m.map_or(0.0, |s| us(s.mean_ns)),
                    m.map_or(0.0, |s| us(s.max_ns as f64))
                )?;
            }
            Ok(())
        }
        MeasureCommand::Curves(args) => crate::curves_cmd::run(&args),
        MeasureCommand::SchedCost(args) => crate::sched_cost_cmd::run(&args),
        MeasureCommand::Syscalls {
            cpus,
            samples,
            batch,
        } => syscalls(cpus, samples, batch),
    }
}
