//! `schedlab trace costs TRACE [TRACE…] [-o COSTS.toml] [--json] [--iterations N]`: the
//! scaling model's per-operation costs calibrated from runtime traces
//! (`schedlab_trace::costs_fit`, docs/scaling-calibration.md): the direct mapping, then
//! `--iterations` refinement steps that run the model (`schedlab_sim::scale`) at each trace's
//! m and n on the trace's own task set. Without `-o` the costs file is printed; the table of
//! measured vs predicted means goes to stderr (stdout with `--json`, as one object).

use crate::output::outln;
use anyhow::{Context, Result};
use schedlab_model::costs::{CostName, CostsFile};
use schedlab_trace::costs_fit::{self, CalTrace, Iteration, Pooled, Refine, MAX_TRACES};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Options of `trace costs`.
pub(crate) struct Options<'a> {
    pub files: &'a [PathBuf],
    pub out: Option<&'a Path>,
    pub json: bool,
    pub iterations: u32,
    pub seed: u64,
}

/// The result of a calibration, for the CLI and Python.
pub(crate) struct Calibration {
    pub costs: CostsFile,
    pub measured: BTreeMap<String, BTreeMap<&'static str, Pooled>>,
    pub iterations: Vec<Iteration>,
    pub converged: BTreeMap<String, bool>,
}

/// Reads `files` and calibrates (`iterations` = 0: the direct mapping only).
pub(crate) fn calibrate(files: &[PathBuf], iterations: u32, seed: u64) -> Result<Calibration> {
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
    let start = costs_fit::direct(&traces)?;
    let measured = costs_fit::measured(&traces);
    let (mut costs, iters, converged) = if iterations == 0 {
        (start, Vec::new(), BTreeMap::new())
    } else {
        let settings = Refine {
            iterations,
            ..Refine::default()
        };
        let r = costs_fit::refine(start, &traces, settings, |c, t| {
            crate::scale_predict::predict(c, t, seed)
        })?;
        (r.costs, r.iterations, r.converged)
    };
    let machine = schedlab_exp::store::Machine::this();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    costs.meta.insert(
        "machine".into(),
        format!(
            "{}, {} {}, {} CPUs",
            machine.hostname, machine.os, machine.arch, machine.cpus
        ),
    );
    costs
        .meta
        .insert("date".into(), schedlab_exp::store::utc(now));
    costs.meta.insert("traces".into(), trace_names(files));
    costs.meta.insert(
        "method".into(),
        if iterations == 0 {
            "schedlab trace costs: direct mapping (no model run)".to_string()
        } else {
            format!("schedlab trace costs: direct mapping, then up to {iterations} secant iterations of the model (seed {seed})")
        },
    );
    for (arch, ok) in &converged {
        let its: Vec<&Iteration> = iters.iter().filter(|i| &i.arch == arch).collect();
        let path: Vec<String> = its
            .iter()
            .map(|i| format!("{:.1}%", 100.0 * i.worst_relative()))
            .collect();
        costs.meta.insert(
            format!("convergence_{arch}"),
            format!(
                "largest |model − measured| / measured mean per iteration: {}; {}",
                path.join(" → "),
                if *ok { "converged" } else { "not converged" }
            ),
        );
    }
    Ok(Calibration {
        costs,
        measured,
        iterations: iters,
        converged,
    })
}

/// The traces' file names for `[meta]`, cut to the file's bound on a value.
fn trace_names(files: &[PathBuf]) -> String {
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name().map_or_else(
                || f.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let mut s = names.join(", ");
    let limit = schedlab_model::costs::MAX_META_VALUE_BYTES - 64;
    if s.len() > limit {
        let mut cut = limit;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str(&format!(" … ({} traces)", files.len()));
    }
    s
}

impl Calibration {
    /// The JSON of `--json` and of Python's `trace_costs`: `costs` (the costs file as its
    /// JSON form), `measured` (arch → overhead → `avg_ns`, `max_ns`, `count`), `iterations`
    /// (arch, index, per overhead `measured_ns`, `predicted_ns`), `converged` (arch → bool).
    pub(crate) fn to_json(&self) -> Value {
        let costs: Value = toml_to_json(&self.costs);
        let measured: serde_json::Map<String, Value> = self
            .measured
            .iter()
            .map(|(a, by)| {
                let o: serde_json::Map<String, Value> = by
                    .iter()
                    .map(|(k, p)| {
                        (
                            (*k).to_string(),
                            json!({"avg_ns": p.avg_ns, "max_ns": p.max_ns, "count": p.count}),
                        )
                    })
                    .collect();
                (a.clone(), Value::Object(o))
            })
            .collect();
        let iterations: Vec<Value> = self
            .iterations
            .iter()
            .map(|i| {
                let e: serde_json::Map<String, Value> = i
                    .errors
                    .iter()
                    .map(|(k, (m, p))| ((*k).to_string(), json!({"measured_ns": m, "predicted_ns": p})))
                    .collect();
                json!({"arch": i.arch, "index": i.index, "overheads": e, "worst_relative": i.worst_relative()})
            })
            .collect();
        json!({
            "costs": costs,
            "measured": measured,
            "iterations": iterations,
            "converged": self.converged,
        })
    }
}

/// The costs file as the JSON the parser reads (`CostsFile::from_value`): integers in ns.
fn toml_to_json(f: &CostsFile) -> Value {
    let table = |m: &BTreeMap<CostName, u64>| -> Value {
        Value::Object(
            m.iter()
                .map(|(k, v)| (k.key().to_string(), json!(v)))
                .collect(),
        )
    };
    json!({
        "schema": schedlab_model::costs::SCHEMA,
        "lock": f.lock.key(),
        "meta": f.meta,
        "costs": table(&f.common),
        "arch": f.arch.iter().map(|(a, m)| (a.clone(), table(m))).collect::<serde_json::Map<_, _>>(),
    })
}

/// Runs `trace costs`.
pub(crate) fn run(o: &Options) -> Result<()> {
    let cal = calibrate(o.files, o.iterations, o.seed)?;
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
    report(&cal)
}

/// The table of measured vs predicted means (stderr: stdout may be the costs file).
fn report(cal: &Calibration) -> Result<()> {
    eprintln!(
        "{:<18} {:<16} {:>8} {:>12} {:>12} {:>8}",
        "arch", "overhead", "samples", "measured µs", "model µs", "error"
    );
    for (arch, by) in &cal.measured {
        let last = cal.iterations.iter().rev().find(|i| &i.arch == arch);
        for (name, p) in by {
            let pred = last.and_then(|i| i.errors.get(name)).map(|&(_, pr)| pr);
            eprintln!(
                "{:<18} {:<16} {:>8} {:>12.2} {:>12} {:>8}",
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
    Ok(())
}
