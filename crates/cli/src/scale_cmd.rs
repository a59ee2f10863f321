//! `schedlab scale FILE [FILE…] --arch A --cpus M[,M…] [--costs C.toml] [-o OVERHEADS.toml]
//! [--duration 10s] [--lock ticket|mcs] [--seed S] [--json] [--priorities dm|rm|given]
//! [--partition H]`: the scaling model (`schedlab_sim::scale`, docs/scaling.md) — predicted
//! overheads of architecture A at each M, one point per task file at its n.
//!
//! Without `-o`, a table (overhead × M: avg / max µs, per file); with `-o`, the overhead file
//! (sections `[arch.<A>]` for one M, `[arch."<A>@m<M>"]` for several); `--json`, one row per
//! (file, M, overhead).

use crate::output::outln;
use anyhow::{anyhow, bail, Context, Result};
use schedlab_analysis::placement::policy_inputs;
use schedlab_analysis::Priorities;
use schedlab_model::costs::{CostsFile, LockSemantics};
use schedlab_model::file;
use schedlab_model::time::parse_duration_with_unit;
use schedlab_policy::Placement;
use schedlab_sim::scale::{
    overhead_file, report_json, scale, ScaleArch, ScaleConfig, ScaleReport, MAX_CPUS,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The most task files of one command.
pub(crate) const MAX_FILES: usize = 64;
/// The most `--cpus` values.
pub(crate) const MAX_CPU_VALUES: usize = 64;
/// The longest simulated time (1 h).
pub(crate) const MAX_DURATION_NS: u64 = 3_600_000_000_000;

/// Options of `schedlab scale`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Task-set files (.json/.toml): one point each, at its number of tasks n.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Architecture: global-lock, global-lock-di, message-passing, partitioned, push-pull.
    #[arg(long)]
    arch: String,
    /// CPUs M, every CPU counted (the DSP, the interrupt CPU): one value or a list (2,8,64).
    #[arg(long)]
    cpus: String,
    /// Costs file (docs/scaling.md, "The costs file"); default: every cost at its default.
    #[arg(long)]
    costs: Option<PathBuf>,
    /// Write the predicted overheads as an overhead file (docs/overheads.md).
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    /// Simulated time per run, e.g. 10s, 500ms.
    #[arg(long, default_value = "10s")]
    duration: String,
    /// Lock semantics (overrides the costs file's `lock`): ticket or mcs.
    #[arg(long)]
    lock: Option<String>,
    /// Seed (the noise of the costs file, the policy simulator's draws).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// One JSON row per file, M and overhead.
    #[arg(long)]
    json: bool,
    /// Priority assignment (unused by the EDF policies; for a file that pins priorities).
    #[arg(long, default_value = "dm")]
    priorities: String,
    /// Packing heuristic of partitioned when the file pins no task (as simulate).
    #[arg(long, default_value = "ffd")]
    partition: String,
}

/// Reads `--costs` (the one place that knows the costs file's reader).
fn read_costs(path: Option<&Path>) -> Result<CostsFile> {
    match path {
        None => Ok(CostsFile::default()),
        Some(p) => CostsFile::read(p).map_err(|e| anyhow!("{}: {e}", p.display())),
    }
}

/// `M[,M…]`, each in range, no duplicates.
fn parse_cpus(text: &str) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let m: u32 = part
            .trim()
            .parse()
            .map_err(|_| anyhow!("--cpus: `{part}` is not a whole number of CPUs"))?;
        if m == 0 || m > MAX_CPUS {
            bail!("--cpus: {m} is out of range (1 to {MAX_CPUS})");
        }
        if out.contains(&m) {
            bail!("--cpus: {m} is given twice");
        }
        out.push(m);
        if out.len() > MAX_CPU_VALUES {
            bail!("--cpus: at most {MAX_CPU_VALUES} values");
        }
    }
    Ok(out)
}

fn priorities(text: &str) -> Result<Priorities> {
    Ok(match text {
        "dm" => Priorities::Dm,
        "rm" => Priorities::Rm,
        "given" => Priorities::Given,
        other => bail!("--priorities: `{other}` is none of dm, rm, given"),
    })
}

/// Runs the command.
pub(crate) fn run_command(a: &Args) -> Result<()> {
    let arch = ScaleArch::from_key(&a.arch).ok_or_else(|| {
        let names = ScaleArch::names();
        anyhow!(
            "--arch: unknown architecture `{}`{} (known: {})",
            a.arch,
            schedlab_model::error::suggest(&a.arch, &names)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default(),
            names.join(", ")
        )
    })?;
    if a.files.len() > MAX_FILES {
        bail!("at most {MAX_FILES} task files ({} given)", a.files.len());
    }
    let cpus = parse_cpus(&a.cpus)?;
    let duration = parse_duration_with_unit(&a.duration).map_err(|e| anyhow!("--duration: {e}"))?;
    if duration.as_ns() > MAX_DURATION_NS {
        bail!("--duration: at most 1h of simulated time");
    }
    let costs = read_costs(a.costs.as_deref())?;
    let prio = priorities(&a.priorities)?;
    let mut reports: Vec<(PathBuf, ScaleReport, f64)> = Vec::new();
    for path in &a.files {
        let loaded = file::load(path).with_context(|| format!("{}", path.display()))?;
        let tasks = &loaded.tasks;
        for &m in &cpus {
            let mut cfg = ScaleConfig::new(arch, m, duration).with_costs_file(&costs);
            cfg.seed = a.seed;
            if let Some(l) = &a.lock {
                cfg.lock = LockSemantics::from_key(l)
                    .ok_or_else(|| anyhow!("--lock: `{l}` is neither ticket nor mcs"))?;
            }
            let job_cpus = arch.job_cpus(m).max(1);
            let inputs = policy_inputs(
                arch.policy(),
                tasks,
                job_cpus,
                &a.partition,
                None,
                prio,
                None,
            )
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
            let placement = inputs.placement.map(Placement::from);
            let started = Instant::now();
            let r = scale(tasks, &inputs.ranks, placement, &cfg)
                .map_err(|e| anyhow!("{}: {e}", path.display()))?;
            if r.saturated {
                eprintln!(
                    "warning: {}: {} at M = {m} is saturated: a code path waited longer than the shortest period, so the predicted overheads grow with --duration (docs/scaling.md, \"Saturation\")",
                    path.display(),
                    arch.key()
                );
            }
            reports.push((path.clone(), r, started.elapsed().as_secs_f64() * 1e3));
        }
    }
    if let Some(out) = &a.out {
        let all: Vec<ScaleReport> = reports.iter().map(|(_, r, _)| r.clone()).collect();
        let mut f = overhead_file(&all, cpus.len() > 1)?;
        if let Some(c) = &a.costs {
            f.meta.insert("costs".into(), c.display().to_string());
        }
        f.meta.insert("duration".into(), duration.to_string());
        f.save(out)?;
    }
    if a.json {
        for (path, r, wall) in &reports {
            for mut row in report_json(r, *wall) {
                if let Some(o) = row.as_object_mut() {
                    o.insert("file".into(), path.display().to_string().into());
                }
                outln!("{row}")?;
            }
        }
        return Ok(());
    }
    print_table(&reports)
}

/// The table: per file, one line per overhead, avg / max µs per M.
fn print_table(reports: &[(PathBuf, ScaleReport, f64)]) -> Result<()> {
    let mut i = 0;
    while i < reports.len() {
        let path = &reports[i].0;
        let group: Vec<_> = reports[i..]
            .iter()
            .take_while(|(p, _, _)| p == path)
            .collect();
        let first = &group[0].1;
        outln!(
            "{}: {} (n = {}), predicted overheads, avg / max µs",
            path.display(),
            first.arch.key(),
            first.tasks
        )?;
        let mut head = format!("  {:<26}", "overhead");
        for (_, r, _) in &group {
            head.push_str(&format!(" {:>20}", format!("M = {}", r.cpus)));
        }
        outln!("{head}")?;
        for (k, (name, _)) in first.overheads().iter().enumerate() {
            let mut line = format!("  {:<26}", format!("{} {}", name.symbol(), name.key()));
            for (_, r, _) in &group {
                let s = r.overheads().get(k).map(|x| x.1).unwrap_or_default();
                // No sample (e.g. no IPI was needed at this M) is not a zero overhead.
                let cell = if s.count == 0 {
                    "—".to_string()
                } else {
                    format!(
                        "{:.2} / {:.2}",
                        s.avg_ns() as f64 / 1e3,
                        s.max_ns as f64 / 1e3
                    )
                };
                line.push_str(&format!(" {cell:>20}"));
            }
            outln!("{line}")?;
        }
        let mut foot = format!("  {:<26}", "jobs, wall ms");
        for (_, r, wall) in &group {
            foot.push_str(&format!(" {:>20}", format!("{} {:.0}", r.jobs, wall)));
        }
        outln!("{foot}")?;
        i += group.len();
    }
    Ok(())
}
