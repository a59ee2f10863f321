//! `schedlab trace costs TRACE [TRACE…] [-o COSTS.toml] [--json] [--iterations N]`: the
//! scaling model's per-operation costs calibrated from runtime traces
//! (`schedlab_trace::costs_fit`, `schedlab_sim::scale_fit`; docs/scaling-calibration.md): the
//! direct mapping, then `--iterations` refinement steps that run the model at each trace's m
//! and n on the trace's own task set. Without `-o` the costs file is printed; the table of
//! measured vs predicted means goes to stderr (with `--json`, one object on stdout).

use crate::output::outln;
use anyhow::{Context, Result};
use schedlab_model::costs::CostsFile;
use schedlab_sim::scale_fit::{calibrate, Calibration};
use schedlab_trace::costs_fit::{CalTrace, MAX_TRACES};
use std::path::{Path, PathBuf};

/// Options of `trace costs`.
pub(crate) struct Options<'a> {
    pub files: &'a [PathBuf],
    pub out: Option<&'a Path>,
    pub json: bool,
    pub iterations: u32,
    pub seed: u64,
}

/// Reads `files` and calibrates, `[meta]` included (`iterations` = 0: the direct mapping only).
pub(crate) fn calibrate_files(
    files: &[PathBuf],
    iterations: u32,
    seed: u64,
) -> Result<Calibration> {
    if files.len() > MAX_TRACES {
        anyhow::bail!(
            "{} traces: at most {MAX_TRACES} are calibrated at once",
            files.len()
        );
    }
    let mut traces = Vec::with_capacity(files.len());
    for f in files {
        let t = schedlab_trace::file::read_file(f).with_context(|| format!("{}", f.display()))?;
        traces.push(CalTrace::from_trace(
            &f.display().to_string(),
            &t.meta,
            &t.events,
        )?);
    }
    let mut cal = calibrate(&traces, iterations, seed)?;
    let machine = schedlab_exp::store::Machine::this();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name().map_or_else(
                || f.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    cal.describe(
        &names,
        &format!(
            "{}, {} {}, {} CPUs",
            machine.hostname, machine.os, machine.arch, machine.cpus
        ),
        &schedlab_exp::store::utc(now),
        iterations,
        seed,
    );
    Ok(cal)
}

/// Runs `trace costs`.
pub(crate) fn run(o: &Options) -> Result<()> {
    let cal = calibrate_files(o.files, o.iterations, o.seed)?;
    let text = cal.costs.to_toml();
    // What is written must read back.
    CostsFile::from_toml_str(&text)
        .map_err(|e| anyhow::anyhow!("internal: calibrated costs file: {e}"))?;
    if let Some(out) = o.out {
        std::fs::write(out, &text).with_context(|| format!("cannot write {}", out.display()))?;
    }
    if o.json {
        outln!("{}", cal.to_json())?;
        return Ok(());
    }
    if o.out.is_none() {
        outln!("{}", text.trim_end())?;
    }
    report(&cal);
    Ok(())
}

/// The table of measured vs predicted means (stderr: stdout may be the costs file).
fn report(cal: &Calibration) {
    eprintln!(
        "{:<16} {:<16} {:>8} {:>12} {:>12} {:>8}",
        "arch", "overhead", "samples", "measured µs", "model µs", "error"
    );
    for (arch, by) in &cal.measured {
        let last = cal.last(arch);
        for (name, p) in by {
            let pred = last.and_then(|i| i.errors.get(name)).map(|&(_, pr)| pr);
            eprintln!(
                "{:<16} {:<16} {:>8} {:>12.2} {:>12} {:>8}",
                arch,
                name,
                p.count,
                p.avg_ns / 1000.0,
                pred.map_or("—".into(), |x| format!("{:.2}", x / 1000.0)),
                pred.map_or("—".into(), |x| format!(
                    "{:+.1}%",
                    100.0 * (x - p.avg_ns) / p.avg_ns.max(1.0)
                ))
            );
        }
    }
    for (k, v) in &cal.costs.meta {
        if k.starts_with("convergence_") {
            eprintln!("{k}: {v}");
        }
    }
}
