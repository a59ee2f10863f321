//! `schedlab overheads charge FILE --cpus M --overheads OH.toml --arch ARCH
//! [--dedicated-irq-cpu] [--overhead-stat max|avg] [--granularity 1us] [-o OUT]`: the task set
//! inflated by an architecture's overheads (`schedlab_analysis::overheads`), written as an
//! ordinary task file so that any tool can analyze it, with the inflation of every task.

use crate::output::outln;
use anyhow::{anyhow, bail, Result};
use schedlab_analysis::overheads::accounting::{Charged, Explanation, Rule};
use schedlab_analysis::overheads::arch::{account, explain_account, in_file};
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

/// The rule and its terms, in words and numbers, for a person to check each C'' by hand.
fn describe(e: &Explanation, n: usize, granularity: u64) -> Vec<String> {
    let o = &e.overheads;
    if e.rule == Rule::SemiPartitioned {
        return vec![
            format!(
                "overheads at n = {n} (ns): sch {} cnt {} tmr {} S_add {} S_take {} R_add_l {} R_add_r {} R_take {}",
                o.schedule,
                o.context_switch,
                o.timer,
                o.sleep_add,
                o.sleep_take,
                o.ready_add_local,
                o.ready_add_remote,
                o.ready_take
            ),
            format!(
                "every task as a non-split one [RTPS §V]: C̄ = C + sch + S_take + S_add + R_add_l + 2·R_take + tmr + 2·cnt + ch_l, the margin = {} (split parts: analyze --test pfp-ts)",
                e.per_job
            ),
            format!(
                "T, D unchanged; C̄ rounded up, T and D down, to {granularity} ns; ch_l = the preemption CPMD at the largest working set (0 bytes if none)"
            ),
        ];
    }
    let mut lines = vec![format!(
        "overheads at n = {n} (ns): Δev {} Δrel {} Δsch {} Δcxs {} Δipi {} Δtck {} every Q = {}{}",
        o.release_latency,
        o.release,
        o.schedule,
        o.context_switch,
        o.ipi,
        o.tick,
        o.tick_period,
        match e.rule {
            Rule::MessagePassing => format!(" Δreq {} Δdsp {}", o.request, o.dsp),
            _ => String::new(),
        }
    )];
    match e.rule {
        Rule::PreemptionCentric {
            dedicated_irq,
            partition,
            cpus,
        } => {
            lines.push(format!(
                "u_tck = Δtck/Q = {:.6}; u_rel = Σ Δrel/T = {:.6}{}; uscale = 1 − u_tck − u_rel = {:.6}",
                e.u_tck,
                e.u_rel,
                if dedicated_irq { " (dedicated interrupt CPU)" } else { "" },
                e.uscale
            ));
            lines.push(format!(
                "cpre = (Δtck + Δev·u_tck{})/uscale = {:.3}",
                if dedicated_irq {
                    ""
                } else {
                    " + n·Δrel + Δev·u_rel"
                },
                e.cpre
            ));
            let x = if dedicated_irq {
                "Δipi + Δrel (dedicated interrupt CPU)".to_string()
            } else if cpus > 1 && !partition {
                format!("Δipi (M = {cpus} CPUs)")
            } else {
                "0 (one CPU or a partition)".to_string()
            };
            lines.push(format!(
                "C' = (C + 2(Δsch + Δcxs) + Δcpd)/uscale + 2·cpre + X, X = {x} = {}",
                e.extra
            ));
        }
        Rule::MessagePassing => {
            lines.push(format!(
                "u_tck = Δtck/Q = {:.6}; cpre = (Δtck + Δev·u_tck)/(1 − u_tck) = {:.3}",
                e.u_tck, e.cpre
            ));
            lines.push(format!(
                "C' = (C + 3(Δsch + Δcxs) + Δcpd)/(1 − u_tck) + 2·cpre + Δreq + Δdsp + 2·Δipi + Δrel, the last four = {}  [MP App. B]",
                e.extra
            ));
        }
        Rule::SemiPartitioned => {}
    }
    lines.push(format!(
        "T' = T − Δev, D' = D − Δev; C' rounded up, T' and D' down, to {granularity} ns; Δcpd = CPMD of the largest other working set"
    ));
    lines
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
    let named = |e: String| anyhow!(in_file(&e, &c.source));
    let acc = account(tasks, &c.file, c.arch, stat, m, c.granularity).map_err(named)?;
    outln!(
        "{}: {} tasks charged for {} ({} overheads) on {m} CPUs; tests run on {} CPU{}",
        a.file.display(),
        tasks.len(),
        acc.arch,
        stat.key(),
        acc.cpus_for_jobs,
        if acc.cpus_for_jobs == 1 { "" } else { "s" }
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
    let terms = explain_account(tasks, &c.file, c.arch, stat, m).map_err(named)?;
    for line in describe(&terms, tasks.len(), c.granularity) {
        outln!("  {line}")?;
    }
    let k = if matches!(terms.rule, Rule::MessagePassing) {
        3
    } else {
        2
    };
    outln!(
        "  {:>5} {:<12} {:>12} {:>12} {:>10} {:>16} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "task",
        "name",
        "C",
        format!("+{k}(Δsch+Δcxs)"),
        "+Δcpd",
        "C' exact",
        "C''",
        "T",
        "T''",
        "D",
        "D''"
    )?;
    let mut inflated = Vec::with_capacity(tasks.len());
    for (i, (t, &(c, p, d))) in tasks.iter().zip(charged).enumerate() {
        outln!(
            "  {:>5} {:<12} {:>12} {:>12} {:>10} {:>16.3} {:>12} {:>12} {:>12} {:>12} {:>12}",
            i,
            t.name.as_deref().unwrap_or(""),
            t.wcet.as_ns(),
            terms.per_job,
            terms.cpmd.get(i).copied().unwrap_or(0),
            terms.inflated(i, t.wcet.as_ns()),
            c,
            t.period.as_ns(),
            p,
            t.deadline.as_ns(),
            d
        )?;
        let mut task: Task = t.clone();
        task.wcet = Duration::from_ns(c);
        task.period = Duration::from_ns(p);
        task.deadline = Duration::from_ns(d);
        inflated.push(task);
    }
    outln!("  (all times in ns)")?;
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
