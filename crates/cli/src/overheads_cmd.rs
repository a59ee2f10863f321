//! `schedlab overheads charge FILE --cpus M --overheads OH.toml --arch ARCH
//! [--dedicated-irq-cpu] [--overhead-stat max|avg] [--granularity 1us] [-o OUT]`: the task set
//! inflated by an architecture's overheads (`schedlab_analysis::overheads`), written as an
//! ordinary task file so that any tool can analyze it, with the inflation of every task.

use crate::output::outln;
use anyhow::{anyhow, bail, Result};
use schedlab_analysis::overheads::accounting::Charged;
use schedlab_analysis::overheads::arch::account;
use schedlab_model::{file, Duration, Task, TaskSet};
use std::path::PathBuf;

/// `schedlab overheads …`.
#[derive(clap::Subcommand)]
pub(crate) enum OverheadsCommand {
    /// Write the task set inflated by an architecture's overheads (as an ordinary task file)
    /// and print each task's inflation (docs/overheads.md).
    Charge(ChargeArgs),
}

/// Arguments of `schedlab overheads charge`.
#[derive(clap::Args)]
pub(crate) struct ChargeArgs {
    /// Task-set file (.json/.toml).
    file: PathBuf,
    /// Number of CPUs (every CPU, also one the architecture keeps from jobs; default: the
    /// file's platform.cpus).
    #[arg(long)]
    cpus: Option<u32>,
    /// Overhead file (docs/overheads.md).
    #[arg(long)]
    overheads: PathBuf,
    /// Architecture: global-lock, global-lock-di, partitioned, message-passing,
    /// linux-deadline.
    #[arg(long)]
    arch: String,
    /// global-lock: a dedicated interrupt CPU (GSN-EDF-DI; reads [arch.global-lock-di]).
    #[arg(long)]
    dedicated_irq_cpu: bool,
    /// Statistic charged: max (hard real-time) or avg.
    #[arg(long, default_value = "max")]
    overhead_stat: String,
    /// Round C up and T, D down to a multiple of this (e.g. 1us).
    #[arg(long, default_value = "1ns")]
    granularity: String,
    /// Write the inflated task file here (.json or .toml).
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
}

pub(crate) fn run(command: OverheadsCommand) -> Result<()> {
    match command {
        OverheadsCommand::Charge(a) => charge(&a),
    }
}

fn charge(a: &ChargeArgs) -> Result<()> {
    let loaded = file::load(&a.file)?;
    let m = a
        .cpus
        .or(loaded.platform.as_ref().map(|p| p.cpus))
        .ok_or_else(|| anyhow!("{}: give --cpus", a.file.display()))?;
    let c = crate::analyze::charging(
        &a.overheads,
        Some(&a.arch),
        a.dedicated_irq_cpu,
        &a.overhead_stat,
        &a.granularity,
    )?;
    let (stat, m_jobs) = (c.stat, c.arch.cpus_for_jobs(m));
    if m_jobs == 0 {
        bail!(
            "--arch {} keeps one CPU from jobs, so it needs --cpus 2 or more",
            c.arch.section()
        );
    }
    let tasks = &loaded.tasks;
    let acc = account(tasks, &c.file, c.arch, stat, m, c.granularity).map_err(|e| anyhow!(e))?;
    outln!(
        "{}: {} tasks charged for {} ({} overheads) on {m} CPUs; tests run on {} CPUs",
        a.file.display(),
        tasks.len(),
        acc.arch,
        stat.key(),
        acc.cpus_for_jobs
    )?;
    let charged =
        match &acc.charged {
            Charged::Ok(t) => t,
            Charged::IrqOverload => bail!(
                "irq-overload: the tick and the release interrupts use up the CPU (uscale ≤ 0); \
             no inflated set"
            ),
            Charged::TaskInfeasible(i) => bail!(
            "task-infeasible: task {i} ({}) does not fit in its period or deadline once charged",
            tasks.get(*i).and_then(|t| t.name.clone()).unwrap_or_default()
        ),
        };
    outln!(
        "  {:>5} {:<12} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14}",
        "task",
        "name",
        "C",
        "C'",
        "T",
        "T'",
        "D",
        "D'"
    )?;
    let mut inflated = Vec::with_capacity(tasks.len());
    for (i, (t, &(c, p, d))) in tasks.iter().zip(charged).enumerate() {
        outln!(
            "  {:>5} {:<12} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14}",
            i,
            t.name.as_deref().unwrap_or(""),
            t.wcet.to_string(),
            Duration::from_ns(c).to_string(),
            t.period.to_string(),
            Duration::from_ns(p).to_string(),
            t.deadline.to_string(),
            Duration::from_ns(d).to_string()
        )?;
        let mut task: Task = t.clone();
        task.wcet = Duration::from_ns(c);
        task.period = Duration::from_ns(p);
        task.deadline = Duration::from_ns(d);
        inflated.push(task);
    }
    if let Some(out) = &a.out {
        let tasks = TaskSet::new(inflated)?;
        let platform = schedlab_model::Platform::new(acc.cpus_for_jobs).ok();
        file::save(&file::TaskFile { tasks, platform }, out)?;
        outln!(
            "wrote {} (platform.cpus = {})",
            out.display(),
            acc.cpus_for_jobs
        )?;
    }
    Ok(())
}
