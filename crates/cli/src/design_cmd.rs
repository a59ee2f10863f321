//! `schedlab design reservations FILE --cpus M [--priorities dm|rm|given] [--format
//! table|json | --json]`: for each reservation group and its period `P`, the smallest budget
//! `Q` with which `hcbs-gfp` accepts the group (`schedlab_analysis::hcbs::design`), and whether
//! the proposed set passes the admission test [HCBS Eq. 17] and `hcbs-gfp` as a whole.
//!
//! Exit status: 0 when the question was answered (also "no budget works", which is an answer),
//! 1 on bad input.

use anyhow::{bail, Result};
use schedlab_analysis::hcbs::design::{design_reservations, Design};
use schedlab_analysis::Priorities;
use schedlab_model::{file, Duration};
use std::path::PathBuf;

/// Options of `schedlab design reservations`.
pub(crate) struct Options {
    /// The task file.
    pub(crate) path: PathBuf,
    /// `--cpus`, wins over the file's platform.
    pub(crate) cpus: Option<u32>,
    /// Priority assignment inside the groups.
    pub(crate) priorities: Priorities,
    /// JSON instead of a table.
    pub(crate) json: bool,
}

/// Runs the command.
pub(crate) fn run(opts: &Options) -> Result<()> {
    let loaded = file::load(&opts.path).map_err(|e| {
        let message = e.to_string();
        let path = opts.path.display().to_string();
        if message.contains(&path) {
            anyhow::anyhow!(message)
        } else {
            anyhow::anyhow!("{path}: {message}")
        }
    })?;
    let cpus = match (opts.cpus, &loaded.platform) {
        (Some(m), _) => m,
        (None, Some(p)) => p.cpus,
        (None, None) => bail!(
            "{}: the number of CPUs is given neither by --cpus nor by the file's platform.cpus",
            opts.path.display()
        ),
    };
    let design = design_reservations(&loaded.tasks, cpus, opts.priorities)
        .map_err(|e| anyhow::anyhow!("{}: {e}", opts.path.display()))?;
    if opts.json {
        let mut value = design.to_json();
        if let serde_json::Value::Object(map) = &mut value {
            map.insert("file".into(), opts.path.display().to_string().into());
            map.insert("cpus".into(), cpus.into());
            map.insert("priorities".into(), opts.priorities.name().into());
        }
        println!("{value}");
    } else {
        print!("{}", table(&opts.path.display().to_string(), cpus, &design));
    }
    Ok(())
}

/// The human form.
fn table(file: &str, cpus: u32, d: &Design) -> String {
    let ns = Duration::from_ns;
    let mut out = format!("{file}: smallest budgets for hcbs-gfp on m = {cpus}\n");
    let width = d
        .groups
        .iter()
        .map(|g| g.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    out += &format!(
        "  {:<width$}  {:>10}  {:>10}  {:>10}  {:>8}\n",
        "group", "period", "given Q", "proposed Q", "alpha"
    );
    for g in &d.groups {
        let (q, alpha) = match g.budget_ns {
            Some(q) => (
                ns(q).to_string(),
                format!("{:.4}", q as f64 / g.period_ns.max(1) as f64),
            ),
            None => ("none".into(), "-".into()),
        };
        out += &format!(
            "  {:<width$}  {:>10}  {:>10}  {:>10}  {:>8}\n",
            g.name,
            ns(g.period_ns).to_string(),
            ns(g.given_budget_ns).to_string(),
            q,
            alpha
        );
        if let Some(r) = &g.reason {
            out += &format!("      {}: {r}\n", g.name);
        }
    }
    match (&d.proposed, d.overloads.first()) {
        (None, _) => out += "admission [HCBS Eq. 17]: not checked (some group has no budget)\n",
        (Some(_), None) => out += "admission [HCBS Eq. 17]: passes\n",
        (Some(_), Some(first)) => out += &format!("admission [HCBS Eq. 17]: fails: {first}\n"),
    }
    if let Some(v) = &d.verdict {
        out += &format!("hcbs-gfp on the proposed set: {}", v.status.name());
        if let Some(r) = &v.reason {
            out += &format!(" ({r})");
        }
        out.push('\n');
    }
    out
}
