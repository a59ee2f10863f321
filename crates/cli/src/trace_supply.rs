//! `schedlab trace supply TRACE --tasks FILE [--cpus M] [--tolerance D] [--period-loss D]
//! [--max-points N] [--format table|json]`: the H-CBS reservation guarantees checked on a trace of either
//! engine (`schedlab_trace::supply`, whose module doc defines backlog, service and the windows
//! checked): per server (group, CPU), service ≥ Z(t) [HCBS Eq. 4] in every window of a
//! continuously backlogged interval, and ≤ Q between consecutive replenishments.
//!
//! Real traces: a runtime loses a little of every server period to dispatching (switching the
//! CPU between groups, a replenishment timer that fires late), a loss that adds up over the
//! periods of a long window; a constant `--tolerance` cannot cover it. `--period-loss D`
//! checks against the supply of a server `(Q − D, P)` instead — the guarantee the
//! implementation gives when each period costs it `D` — and `--tolerance` covers what is left
//! (one late timer, one late switch). Both are 0 for simulated traces.
//!
//! Exit status: 0 when every check passed, 2 when one failed (the table or JSON says which),
//! 1 on an error (unreadable files, a trace that does not fit the task file).

use crate::exit::Status;
use crate::output::outln;
use anyhow::{anyhow, Context, Result};
use schedlab_analysis::hcbs::supply::Server;
use schedlab_model::{file, GroupTree};
use schedlab_trace::supply::{check, ServerReport, SupplyOptions, SupplyReport};
use serde_json::{json, Value};
use std::path::Path;

/// Exit status of a failed check (errors are 1).
pub(crate) const CHECK_FAILED: u8 = 2;

/// Options of `trace supply`.
pub(crate) struct Options<'a> {
    pub(crate) trace: &'a Path,
    pub(crate) tasks: &'a Path,
    pub(crate) cpus: Option<u32>,
    pub(crate) tolerance: &'a str,
    pub(crate) period_loss: &'a str,
    pub(crate) max_points: usize,
    pub(crate) json: bool,
}

/// Runs the command (module doc).
pub(crate) fn run(o: &Options<'_>) -> Result<Status> {
    let t = schedlab_trace::file::read_file(o.trace)
        .with_context(|| format!("{}", o.trace.display()))?;
    let loaded = file::load(o.tasks).with_context(|| format!("{}", o.tasks.display()))?;
    let cpus = o
        .cpus
        .or(t.meta.cpus)
        .or(loaded.platform.as_ref().map(|p| p.cpus))
        .ok_or_else(|| {
            anyhow!("give --cpus (neither the trace's metadata nor the task file names a number of CPUs)")
        })?;
    let tree =
        GroupTree::new(&loaded.tasks, cpus).map_err(|e| anyhow!("{}: {e}", o.tasks.display()))?;
    let names: Vec<String> = loaded
        .tasks
        .tasks()
        .iter()
        .enumerate()
        .map(|(i, t)| t.name.clone().unwrap_or_else(|| format!("τ{i}")))
        .collect();
    if !t.meta.tasks.is_empty() && t.meta.tasks.len() != names.len() {
        anyhow::bail!(
            "{} has {} tasks, {} has {}: give the task file the trace was made from",
            o.trace.display(),
            t.meta.tasks.len(),
            o.tasks.display(),
            names.len()
        );
    }
    let tolerance = schedlab_model::time::parse_duration_with_unit(o.tolerance)
        .map_err(|e| anyhow!("--tolerance: {e}"))?;
    let loss = schedlab_model::time::parse_duration_with_unit(o.period_loss)
        .map_err(|e| anyhow!("--period-loss: {e}"))?;
    let servers: Vec<Server> = tree
        .groups()
        .iter()
        .map(|g| Server {
            budget: g.budget.as_ns().saturating_sub(loss.as_ns()),
            period: g.period.as_ns(),
        })
        .collect();
    let horizon = t
        .meta
        .extra
        .get("duration_ns")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let opts = SupplyOptions {
        tolerance_ns: tolerance.as_ns(),
        max_points: o.max_points,
    };
    let report = check(&t.events, &tree, &names, horizon, opts, |g, len| {
        servers.get(g as usize).map_or(0, |s| s.supply(len))
    })
    .with_context(|| format!("{}", o.trace.display()))?;
    if o.json {
        outln!("{}", to_json(o.trace, &report, loss.as_ns()))?;
    } else {
        print_table(o.trace, &report, loss.as_ns())?;
    }
    Ok(if report.passed() {
        Status::SUCCESS
    } else {
        Status::from(CHECK_FAILED)
    })
}

fn clamp(x: i128) -> i64 {
    i64::try_from(x).unwrap_or(if x < 0 { i64::MIN } else { i64::MAX })
}

fn server_json(s: &ServerReport) -> Value {
    json!({
        "group": s.name, "group_index": s.group, "cpu": s.cpu,
        "budget_ns": s.budget_ns, "period_ns": s.period_ns,
        "backlogged_intervals": s.backlogged_intervals, "backlogged_ns": s.backlogged_ns,
        "longest_backlog_ns": s.longest_backlog_ns, "service_ns": s.service_ns,
        "windows": s.windows,
        "min_slack_ns": s.min_slack().map(clamp),
        "worst_window": s.worst_window.map(|w| json!({"start_ns": w.start, "end_ns": w.end,
            "service_ns": w.service, "supply_ns": w.supply})),
        "replenishments": s.replenishments,
        "max_service_per_period_ns": s.max_segment.map(|m| m.service),
        "max_period": s.max_segment.map(|m| json!({"start_ns": m.start, "end_ns": m.end})),
        "supply_ok": s.supply_ok, "budget_ok": s.budget_ok, "passed": s.passed(),
    })
}

fn to_json(trace: &Path, r: &SupplyReport, loss_ns: u64) -> Value {
    json!({
        "file": trace.display().to_string(),
        "horizon_ns": r.horizon,
        "tolerance_ns": r.tolerance_ns,
        "period_loss_ns": loss_ns,
        "passed": r.passed(),
        "servers": r.servers.iter().map(server_json).collect::<Vec<_>>(),
        "outside": r.outside.iter().map(|o| json!({"group_index": o.group, "cpu": o.cpu, "ns": o.ns})).collect::<Vec<_>>(),
        "unchecked_budget": r.unchecked().count(),
    })
}

fn print_table(trace: &Path, r: &SupplyReport, loss_ns: u64) -> Result<()> {
    outln!(
        "{}: H-CBS supply check, horizon {} ns, tolerance {} ns, period loss {} ns",
        trace.display(),
        r.horizon,
        r.tolerance_ns,
        loss_ns
    )?;
    outln!(
        "  {:<12} {:>4} {:>10} {:>10} {:>12} {:>10} {:>12} {:>8} {:>12} {:>6}",
        "group",
        "cpu",
        "Q ns",
        "P ns",
        "backlog ns",
        "windows",
        "min slack",
        "periods",
        "max/period",
        "result"
    )?;
    for s in &r.servers {
        let slack = s.min_slack().map_or("—".into(), |x| x.to_string());
        let per = s.max_segment.map_or("—".into(), |m| m.service.to_string());
        let result = match (s.supply_ok, s.budget_ok) {
            (true, Some(true)) => "pass",
            (true, None) => "pass*",
            (false, Some(false)) => "FAIL Z,Q",
            (false, _) => "FAIL Z",
            (true, Some(false)) => "FAIL Q",
        };
        outln!(
            "  {:<12} {:>4} {:>10} {:>10} {:>12} {:>10} {:>12} {:>8} {:>12} {:>6}",
            s.name,
            s.cpu,
            s.budget_ns,
            s.period_ns,
            s.backlogged_ns,
            s.windows,
            slack,
            s.replenishments,
            per,
            result
        )?;
        if let (false, Some(w)) = (s.supply_ok, s.worst_window) {
            outln!(
                "    worst window [{}, {}) ns: service {} < Z({}) = {}",
                w.start,
                w.end,
                w.service,
                w.end - w.start,
                w.supply
            )?;
        }
        if let (Some(false), Some(m)) = (s.budget_ok, s.max_segment) {
            outln!(
                "    [{}, {}) ns between replenishments: service {} > Q = {}",
                m.start,
                m.end,
                m.service,
                s.budget_ns
            )?;
        }
    }
    for o in &r.outside {
        let name = r
            .servers
            .iter()
            .find(|s| s.group == o.group)
            .map_or_else(|| o.group.to_string(), |s| s.name.clone());
        outln!(
            "  FAIL: group {name} ran {} ns on CPU {}, where it has no server",
            o.ns,
            o.cpu
        )?;
    }
    if r.unchecked().next().is_some() {
        outln!("  * the trace has no server events of this server: Q per period not checked")?;
    }
    outln!(
        "  {}",
        if r.passed() {
            "all checks passed"
        } else {
            "a check FAILED"
        }
    )?;
    Ok(())
}
