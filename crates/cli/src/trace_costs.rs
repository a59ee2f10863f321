//! `schedlab trace costs TRACE [TRACE…] [-o COSTS.toml] [--json] [--iterations N]`: the
//! scaling model's per-operation costs calibrated from runtime traces
//! (`schedlab_trace::costs_fit`, `schedlab_sim::scale_fit`; docs/scaling-calibration.md): the
//! direct mapping, then `--iterations` refinement steps that run the model at each trace's m
//! and n on the trace's own task set. Without `-o` the costs file is printed; the table of
//! measured vs predicted means goes to stderr (with `--json`, one object on stdout).

use crate::output::outln;
use anyhow::{Context, Result};
use schedlab_model::costs::CostsFile;
use schedlab_sim::scale_fit::{
    calibrate_files, check, check_json, read_traces, Calibration, Checked,
};
use std::path::{Path, PathBuf};

/// Options of `trace costs`.
pub(crate) struct Options<'a> {
    pub files: &'a [PathBuf],
    pub out: Option<&'a Path>,
    pub json: bool,
    pub iterations: u32,
    pub seed: u64,
    /// Holdout traces: the model with the calibrated costs against each.
    pub check: &'a [PathBuf],
}

/// This machine and the time now, for `[meta]`.
pub(crate) fn machine_and_date() -> (String, String) {
    let machine = schedlab_exp::store::Machine::this();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (
        format!(
            "{}, {} {}, {} CPUs",
            machine.hostname, machine.os, machine.arch, machine.cpus
        ),
        schedlab_exp::store::utc(now),
    )
}

/// Runs `trace costs`.
pub(crate) fn run(o: &Options) -> Result<()> {
    let (machine, date) = machine_and_date();
    let cal = calibrate_files(o.files, o.iterations, o.seed, &machine, &date)?;
    let text = cal.costs.to_toml();
    // What is written must read back.
    CostsFile::from_toml_str(&text)
        .map_err(|e| anyhow::anyhow!("internal: calibrated costs file: {e}"))?;
    if let Some(out) = o.out {
        std::fs::write(out, &text).with_context(|| format!("cannot write {}", out.display()))?;
    }
    let checked = if o.check.is_empty() {
        Vec::new()
    } else {
        check(&cal.costs, &read_traces(o.check)?, o.seed)?
    };
    if o.json {
        let mut v = cal.to_json();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("check".into(), check_json(&checked));
        }
        outln!("{v}")?;
        return Ok(());
    }
    if o.out.is_none() {
        outln!("{}", text.trim_end())?;
    }
    report(&cal);
    report_check(&checked);
    Ok(())
}

/// The holdout table: per trace and overhead, measured vs model mean and maximum (stderr).
fn report_check(rows: &[Checked]) {
    if rows.is_empty() {
        return;
    }
    eprintln!(
        "\ncheck: the model with these costs against other traces\n{:<24} {:<16} {:>11} {:>11} {:>8} {:>11} {:>11} {:>8}",
        "trace", "overhead", "avg meas µs", "avg model", "error", "max meas µs", "max model", "ratio"
    );
    for c in rows {
        let name = std::path::Path::new(&c.trace)
            .file_name()
            .map_or_else(|| c.trace.clone(), |n| n.to_string_lossy().into_owned());
        for (k, r) in &c.overheads {
            let m = r.measured;
            let (avg, err, max, ratio) = match r.model {
                Some(p) => (
                    format!("{:.2}", p.avg_ns / 1000.0),
                    format!("{:+.1}%", 100.0 * (p.avg_ns - m.avg_ns) / m.avg_ns.max(1.0)),
                    format!("{:.1}", p.max_ns as f64 / 1000.0),
                    format!("{:.2}", p.max_ns as f64 / (m.max_ns as f64).max(1.0)),
                ),
                None => ("—".into(), "—".into(), "—".into(), "—".into()),
            };
            eprintln!(
                "{:<24} {:<16} {:>11.2} {:>11} {:>8} {:>11.1} {:>11} {:>8}",
                name,
                k,
                m.avg_ns / 1000.0,
                avg,
                err,
                m.max_ns as f64 / 1000.0,
                max,
                ratio
            );
        }
    }
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
