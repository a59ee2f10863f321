//! `schedlab run FILE --cpus M [--cpu-list 0-1] --policy P --arch A (the runtime's registry:
//! partitioned, semi-partitioned, global-lock, concurrent, message-passing, work-stealing, reservations,
//! linux-deadline, linux-fifo, linux-rt-groups)
//! [--lock ticket|mcs|mutex] [--abort-late]
//! [--dedicated-irq-cpu] [--dl-margin 500us] --duration 10s [--priorities dm|rm|given]
//! [--partition H] [--cluster-size K] [--release-spin 20us] [--trace F] [--jobs-csv F] [--gantt F]
//! [--perfetto F] [--format table|json] [--allow-non-rt]`: runs a task set for real on Linux
//! (`schedlab-runtime`, docs/runtime.md). Ranks and the placement are computed like
//! `schedlab simulate` does (the analysis crate's placement heuristics or the file's `cpu`
//! fields; on the CPUs that run jobs — all but the DSP / the interrupt CPU); the JSON and CSV
//! are the simulator's, with the runtime's fields added. The kernel baselines take no
//! `--policy`; `linux-fifo` is partitioned when `--partition` is given or the file pins its
//! tasks, global otherwise. A file with reservation groups is refused when it fails their
//! admission [HCBS Eq. 17]; `reservations` (H-CBS servers, policy `hcbs`) and `linux-rt-groups`
//! run the groups, the other architectures ignore
//! them with a note on standard error.

use crate::output::outln;
use crate::run_files::RunFiles;
use anyhow::{anyhow, bail, Result};
use schedlab_analysis::placement::policy_inputs;
use schedlab_analysis::Priorities;
use schedlab_model::{file, Duration};
use schedlab_policy::Placement;
use schedlab_runtime::config::{RtTask, RunConfig, Threading};
use schedlab_runtime::front::{arch_by_name, jobs_csv, primary_key, run_taskset, summary_json};
use schedlab_runtime::mech::sched::allowed_cpus;
use schedlab_runtime::request::RunRequest;
use schedlab_runtime::RunResult;
use std::path::PathBuf;

/// Arguments of `schedlab run`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Task-set file (.json/.toml).
    file: PathBuf,
    /// Number of CPUs (default: the length of --cpu-list, else the file's platform.cpus).
    #[arg(long)]
    cpus: Option<u32>,
    /// Physical CPUs to run on, e.g. 0-1 or 0,2 (default: the first M CPUs this process may
    /// use).
    #[arg(long)]
    cpu_list: Option<String>,
    /// Policy: pedf, pfp (partitioned); pfp-ts (semi-partitioned, global-lock: split tasks
    /// from the file's `split` fields or FP-TS's assignment), pfp (semi-partitioned); gedf,
    /// gnpedf, gfp, gfifo, edzl (global-lock, message-passing). Not for the kernel baselines.
    #[arg(long)]
    policy: Option<String>,
    /// Dispatch architecture (one of the runtime's registry; see `--help`).
    #[arg(long, default_value = "global-lock", long_help = arch_help())]
    arch: String,
    /// The global lock (global-lock): ticket, mcs or mutex.
    #[arg(long, default_value = "ticket")]
    lock: String,
    /// global-lock: CPU 0 takes every release timer and runs no job (GSN-EDF-DI).
    #[arg(long)]
    dedicated_irq_cpu: bool,
    /// linux-deadline: SCHED_DEADLINE runtime = WCET + this margin (capped at the deadline;
    /// see docs/runtime.md for why 500us).
    #[arg(long, default_value = "500us")]
    dl_margin: String,
    /// linux-deadline: give the run's CPUs a root domain of their own for the run (a
    /// cgroup-v1 cpuset, removed afterwards), so SCHED_DEADLINE runs on a subset of the
    /// machine's CPUs, e.g. --cpu-list 1: the client CPU of message-passing on 2 CPUs.
    #[arg(long)]
    dl_cpuset: bool,
    /// Cache-thrashing background load [MP §IV]: one SCHED_OTHER thread per CPU of the run
    /// dirtying a buffer of this size (e.g. 16MiB, about twice the last-level cache).
    #[arg(long)]
    background_load: Option<String>,
    /// Length of the run, e.g. 10s, 500ms.
    #[arg(long, default_value = "1s")]
    duration: String,
    /// Priority assignment for fixed-priority policies (and FP partitioning).
    #[arg(long, value_enum, default_value = "dm")]
    priorities: crate::PriorityArg,
    /// Packing heuristic for pedf/pfp when the file pins no task (default ffd); with
    /// linux-fifo it makes the run partitioned.
    #[arg(long)]
    partition: Option<String>,
    /// cedf: CPUs per cluster (dividing the CPUs that run jobs; default: as `simulate`).
    #[arg(long)]
    cluster_size: Option<u32>,
    /// Wake this long before each release and spin until it (e.g. 20us; default 0; the DSP
    /// of message-passing spins 150us by default, or this if longer, and its clients spin
    /// only with this).
    #[arg(long, default_value = "0")]
    release_spin: String,
    /// message-passing: the DSP sleeps until a client rings it instead of polling its
    /// mailboxes while a client runs a job (polling is bounded to 70% of the DSP's CPU).
    #[arg(long)]
    no_dsp_poll: bool,
    /// message-passing: wake the client's dispatcher to process a job's completion, instead
    /// of running the client's scheduling step in the completing job's own thread (the
    /// default: one context switch per job-to-job hand-off instead of two).
    #[arg(long)]
    no_inline_completion: bool,
    /// Without permission for SCHED_FIFO, run under SCHED_OTHER (with a warning).
    #[arg(long)]
    allow_non_rt: bool,
    /// Abort every job still unfinished at its deadline (as `simulate --abort-late`): a job
    /// that had started runs its task's abort handler (`abort_cost`) on its CPU.
    #[arg(long)]
    abort_late: bool,
    /// Which threads execute the jobs [ChronOS §3.3]: per-task (one thread runs all jobs of
    /// its task) or per-job (each job on another thread than its task's previous one, from a
    /// pool created before the run). User-space architectures only.
    #[arg(long, default_value = "per-task", value_parser = clap::builder::PossibleValuesParser::new(Threading::NAMES))]
    threading: String,
    /// Write per-job records as CSV.
    #[arg(long)]
    jobs_csv: Option<PathBuf>,
    /// Write the trace file (docs/traces.md).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Write a Gantt chart (SVG).
    #[arg(long)]
    gantt: Option<PathBuf>,
    /// Write a Perfetto / Chrome trace-event JSON file.
    #[arg(long)]
    perfetto: Option<PathBuf>,
    /// pedf/pfp/cedf: place the tasks as the overhead-aware analysis of this --arch does
    /// (`analyze --overheads OH --arch ARCH`), charging this overhead file, so that what runs
    /// is the partition that analysis accepted; pfp-ts with --arch semi-partitioned: FP-TS's
    /// overhead-aware split (docs/overheads.md).
    #[arg(long)]
    overheads: Option<PathBuf>,
    /// With --overheads: the statistic charged, max or avg.
    #[arg(long, default_value = "max", requires = "overheads")]
    overhead_stat: String,
    /// With --overheads: the rounding granularity of the accounting.
    #[arg(long, default_value = "1ns", requires = "overheads")]
    granularity: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: crate::OutputFormat,
}

/// `--arch` help: every architecture of the runtime's registry with its summary.
fn arch_help() -> String {
    let mut s = String::from("Dispatch architecture:");
    for d in schedlab_runtime::arch::REGISTRY {
        s.push_str(&format!("\n  {:<16} {}", d.name, d.summary));
    }
    s
}

/// Parses `0-3,6` into `[0, 1, 2, 3, 6]`.
fn parse_cpu_list(s: &str) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let num = |x: &str| {
            x.trim()
                .parse::<u32>()
                .map_err(|_| anyhow!("--cpu-list: `{x}` is not a CPU number"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    bail!("--cpu-list: range `{part}` is reversed");
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    if out.is_empty() {
        bail!("--cpu-list: no CPU given");
    }
    Ok(out)
}

/// Runs the command.
pub(crate) fn run_command(a: &Args) -> Result<()> {
    let loaded = file::load(&a.file)?;
    let tasks = &loaded.tasks;
    let listed = a.cpu_list.as_deref().map(parse_cpu_list).transpose()?;
    let m = a
        .cpus
        .or(listed.as_ref().map(|l| l.len() as u32))
        .or(loaded.platform.as_ref().map(|p| p.cpus))
        .ok_or_else(|| anyhow!("{}: give --cpus or --cpu-list", a.file.display()))?;
    let cpu_list = match listed {
        Some(l) if l.len() as u32 != m => {
            bail!("--cpu-list names {} CPUs but --cpus is {m}", l.len())
        }
        Some(l) => l,
        None => {
            let allowed = allowed_cpus()?;
            if (allowed.len() as u32) < m {
                bail!(
                    "--cpus {m}: this process may use only {} CPUs ({allowed:?})",
                    allowed.len()
                );
            }
            allowed.into_iter().take(m as usize).collect()
        }
    };
    // Times typed on the command line need a unit (DESIGN.md "Semantics"); 0 is 0 in any.
    let time = |text: &str, flag: &str| -> Result<Duration> {
        if text.trim() == "0" {
            return Ok(Duration::ZERO);
        }
        schedlab_model::time::parse_duration_with_unit(text).map_err(|e| anyhow!("{flag}: {e}"))
    };
    let duration = time(&a.duration, "--duration")?;
    let release_spin = time(&a.release_spin, "--release-spin")?;
    let dl_margin = time(&a.dl_margin, "--dl-margin")?;
    let arch = arch_by_name(&a.arch, &a.lock).map_err(|e| anyhow!("--{e}"))?;
    let background_load = a
        .background_load
        .as_deref()
        .map(schedlab_model::size::parse_bytes)
        .transpose()
        .map_err(|e| anyhow!("--background-load: {e}"))?;
    let request = RunRequest {
        cpus: cpu_list,
        arch,
        policy: a.policy.as_deref(),
        default_policy: None,
        partition: a.partition.as_deref(),
        duration,
        dedicated_irq_cpu: a.dedicated_irq_cpu,
        dl_cpuset: a.dl_cpuset,
        dl_margin,
        allow_non_rt: a.allow_non_rt,
        release_spin,
        dsp_poll: !a.no_dsp_poll,
        inline_completion: !a.no_inline_completion,
        background_load,
        abort_late: a.abort_late,
        threading: Threading::parse(&a.threading)
            .ok_or_else(|| anyhow!("--threading: `{}` is not per-task or per-job", a.threading))?,
    };
    let placement_overheads = match &a.overheads {
        None => None,
        Some(path) => Some(crate::analyze::charging(
            path,
            Some(&a.arch),
            a.dedicated_irq_cpu,
            &a.overhead_stat,
            &a.granularity,
        )?),
    };
    let plan = request.plan(tasks).map_err(|e| anyhow!(e))?;
    for note in plan.notes() {
        eprintln!("note: {note}");
    }
    let priorities: Priorities = a.priorities.into();
    let inputs = policy_inputs(
        plan.placement_policy(),
        tasks,
        plan.job_cpus(),
        plan.heuristic(),
        a.cluster_size,
        priorities,
        placement_overheads.as_ref(),
    )
    .map_err(|e| anyhow!(e))?;
    let policy = plan.policy().to_string();
    let (split, sizes) = (inputs.split, inputs.domain_sizes);
    let config = plan.finish(
        inputs.ranks,
        inputs.placement.map(|p| {
            Placement::from(p)
                .with_split(split)
                .with_domain_sizes(sizes)
        }),
    );
    let (result, meta) = run_taskset(tasks, &config)?;
    if !matches!(a.format, crate::OutputFormat::Table) {
        for w in &result.warnings {
            eprintln!("warning: {w}");
        }
    }
    RunFiles {
        jobs_csv: &a.jobs_csv,
        trace: &a.trace,
        perfetto: &a.perfetto,
        gantt: &a.gantt,
    }
    .write(&meta, &result.trace, || jobs_csv(&result))?;
    let rt: Vec<RtTask> = tasks.iter().map(RtTask::from).collect();
    let key = primary_key(&policy, &rt, &config.ranks);
    let summary = summary_json(&result, &config, &key);
    if matches!(a.format, crate::OutputFormat::Json) {
        outln!("{summary}")?;
        return Ok(());
    }
    print_table(a, &policy, &config, duration, &result, &summary)
}

/// The table output of a run: the summary line, the counters, the overhead statistics, the
/// invariant (global architectures) and the warnings.
fn print_table(
    a: &Args,
    policy: &str,
    config: &RunConfig,
    duration: Duration,
    result: &RunResult,
    summary: &serde_json::Value,
) -> Result<()> {
    let arch = &config.arch;
    let t = &result.totals;
    outln!(
        "{}: {} under {}{} on CPUs {:?} for {duration}{}: {} jobs, {} deadline misses (DSR {:.4}), max tardiness {}",
        a.file.display(),
        policy,
        arch.name(),
        counters_note(config.arch_note(), &result.arch_counters),
        config.cpus,
        if result.real_time { "" } else { " (NOT real-time: SCHED_OTHER)" },
        t.jobs,
        t.deadline_misses,
        t.dsr,
        t.max_tardiness
    )?;
    outln!(
        "  preemptions {}, migrations {}, steals {}, context switches {}, trace events {} ({} dropped)",
        t.preemptions,
        t.migrations,
        t.steals,
        t.context_switches,
        result.trace.len(),
        result.dropped_events
    )?;
    outln!(
        "  {:<16} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10}  (µs)",
        "overhead",
        "count",
        "min",
        "median",
        "mean",
        "p99",
        "max"
    )?;
    let us = |ns: f64| ns / 1000.0;
    for (name, s) in result.overheads.stats() {
        outln!(
            "  {:<16} {:>7} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
            name,
            s.count,
            us(s.min_ns as f64),
            us(s.median_ns as f64),
            us(s.mean_ns),
            us(s.p99_ns as f64),
            us(s.max_ns as f64)
        )?;
    }
    if let Some(inv) = summary.get("invariant").filter(|v| !v.is_null()) {
        outln!(
            "  global invariant held {:.5} of the run (worst window {} ns)",
            inv["held_fraction"].as_f64().unwrap_or(0.0),
            inv["worst_window_ns"].as_u64().unwrap_or(0)
        )?;
    }
    for w in &result.warnings {
        outln!("  WARNING: {w}")?;
    }
    Ok(())
}

/// The architecture's note followed by its counters of the run (` (pushes 12, pulls 3, …)`
/// under push-pull), if it has any.
fn counters_note(note: String, counters: &[(&str, u64)]) -> String {
    if counters.is_empty() {
        return note;
    }
    let list: Vec<String> = counters
        .iter()
        .map(|(k, v)| format!("{} {v}", k.replace('_', " ")))
        .collect();
    format!("{note} ({})", list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-1").unwrap(), vec![0, 1]);
        assert_eq!(parse_cpu_list("3, 0-1").unwrap(), vec![3, 0, 1]);
        assert!(parse_cpu_list("2-1").is_err());
        assert!(parse_cpu_list("a").is_err());
        assert!(parse_cpu_list("").is_err());
    }
}
