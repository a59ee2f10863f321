//! `schedlab simulate FILE --cpus M --policy NAME [--priorities dm|rm|given] --duration 10s
//! [--seed S] [--partition H] [--cluster-size K] [--arrivals A] [--exec E] [--abort-late]
//! [--overheads F [--overhead-arch NAME] [--overhead-stat avg|max]]
//! [--jobs-csv F] [--trace F] [--gantt F] [--perfetto F] [--format table|json]`.

use crate::output::outln;
use crate::run_files::RunFiles;
use anyhow::{anyhow, bail, Result};
use schedlab_analysis::placement::policy_inputs;
use schedlab_analysis::Priorities;
use schedlab_model::overheads::{OverheadFile, Stat};
use schedlab_model::time::parse_duration_with_unit;
use schedlab_model::{file, Duration};
use schedlab_policy::Placement;
use schedlab_sim::{jobs_csv, run, summary_json, Arrivals, ExecTime, Overheads, SimConfig};
use std::path::PathBuf;
use std::time::Instant;

/// Options of `schedlab simulate`.
pub(crate) struct Options {
    pub(crate) file: PathBuf,
    pub(crate) cpus: Option<u32>,
    pub(crate) policy: String,
    pub(crate) priorities: Priorities,
    pub(crate) duration: String,
    pub(crate) seed: u64,
    pub(crate) partition: String,
    pub(crate) cluster_size: Option<u32>,
    pub(crate) arrivals: String,
    pub(crate) exec: String,
    pub(crate) abort_late: bool,
    pub(crate) overheads: Option<PathBuf>,
    pub(crate) overhead_arch: Option<String>,
    pub(crate) overhead_stat: String,
    pub(crate) jobs_csv: Option<PathBuf>,
    pub(crate) trace: Option<PathBuf>,
    pub(crate) gantt: Option<PathBuf>,
    pub(crate) perfetto: Option<PathBuf>,
    pub(crate) json: bool,
}

/// Runs the command.
pub(crate) fn run_command(o: &Options) -> Result<()> {
    let loaded = file::load(&o.file)?;
    let cpus = o
        .cpus
        .or(loaded.platform.as_ref().map(|p| p.cpus))
        .ok_or_else(|| {
            anyhow!(
                "{}: give --cpus (the file has no platform.cpus)",
                o.file.display()
            )
        })?;
    if let Some(k) = schedlab_exp::schema::cluster_size_in_policy_name(&o.policy) {
        bail!(
            "unknown policy `{}`: clustered EDF is `--policy cedf --cluster-size {k}`",
            o.policy
        );
    }
    let duration = parse_duration_with_unit(&o.duration).map_err(|e| anyhow!("--duration: {e}"))?;
    let tasks = &loaded.tasks;
    let inputs = policy_inputs(
        &o.policy,
        tasks,
        cpus,
        &o.partition,
        o.cluster_size,
        o.priorities,
        None,
    )
    .map_err(|e| anyhow!(e))?;
    // `pfp-ts` also gets the split parts of its tasks, `federated` its domain sizes (empty for
    // every other policy).
    let (split, sizes) = (inputs.split, inputs.domain_sizes);
    let (ranks, placement) = (
        inputs.ranks,
        inputs.placement.map(|p| {
            Placement::from(p)
                .with_split(split)
                .with_domain_sizes(sizes)
        }),
    );
    let mut config = SimConfig::new(cpus, duration);
    config.arrivals = Arrivals::parse(&o.arrivals)?;
    config.exec = ExecTime::parse(&o.exec)?;
    config.abort_late = o.abort_late;
    config.seed = o.seed;
    let files = RunFiles {
        jobs_csv: &o.jobs_csv,
        trace: &o.trace,
        perfetto: &o.perfetto,
        gantt: &o.gantt,
    };
    config.record_trace = files.need_trace();
    config.record_jobs = o.jobs_csv.is_some();
    if let Some(path) = &o.overheads {
        let file = OverheadFile::load(path)?;
        config.overheads = Some(Overheads::from_file(
            &file,
            &path.display().to_string(),
            o.overhead_arch.as_deref(),
            Stat::parse(&o.overhead_stat)?,
            tasks.len() as u64,
            cpus,
        )?);
    } else if o.overhead_arch.is_some() {
        bail!("--overhead-arch needs --overheads FILE");
    }
    let started = Instant::now();
    let (result, meta) = run(tasks, &o.policy, &ranks, placement, &config)?;
    // After the groups' admission check in `run` (a refused set gets no note).
    if let Some(note) = schedlab_sim::groups_note(tasks, &o.policy) {
        eprintln!("{note}");
    }
    let wall = started.elapsed().as_secs_f64();

    files.write(&meta, &result.trace, || jobs_csv(&result))?;
    let summary = summary_json(&result, &o.policy, cpus, wall);
    if o.json {
        outln!("{summary}")?;
        return Ok(());
    }
    let t = &result.totals;
    outln!(
        "{}: {} on {cpus} CPUs for {duration}: {} jobs, {} deadline misses (DSR {:.4}), max tardiness {}",
        o.file.display(),
        o.policy,
        t.jobs,
        t.deadline_misses,
        t.dsr,
        t.max_tardiness
    )?;
    outln!(
        "  preemptions {}, migrations {}{}, context switches {}{}",
        t.preemptions,
        t.migrations,
        // Threads of parallel jobs taken from another CPU's local queue (`rtws`).
        if t.steals > 0 {
            format!(", steals {}", t.steals)
        } else {
            String::new()
        },
        t.context_switches,
        t.aur.map(|a| format!(", AUR {a:.4}")).unwrap_or_default()
    )?;
    if let Some(oh) = &result.overheads {
        let c = oh.charged;
        outln!(
            "  overheads ({}, {}{}): release {}, dispatch {}, cpmd {}, interrupt {}",
            oh.source,
            if oh.arch.is_empty() {
                "no arch"
            } else {
                &oh.arch
            },
            format_args!(", {}", oh.stat.key()),
            Duration::from_ns(c.release),
            Duration::from_ns(c.dispatch),
            Duration::from_ns(c.cpmd),
            Duration::from_ns(c.interrupt)
        )?;
    }
    outln!(
        "  {:>5} {:>8} {:>7} {:>14} {:>14}",
        "task",
        "jobs",
        "misses",
        "max response",
        "max tardiness"
    )?;
    for p in &result.per_task {
        outln!(
            "  {:>5} {:>8} {:>7} {:>14} {:>14}",
            p.task,
            p.jobs,
            p.misses,
            p.max_response
                .map(|d| d.to_string())
                .unwrap_or_else(|| "—".into()),
            p.max_tardiness.to_string()
        )?;
    }
    outln!(
        "  {:.3} s wall, {:.0} jobs/s",
        wall,
        if wall > 0.0 {
            t.jobs as f64 / wall
        } else {
            0.0
        }
    )?;
    Ok(())
}
