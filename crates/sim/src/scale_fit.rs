//! The scaling model as the predictor of its own calibration (`schedlab trace costs`,
//! Python `schedlab.trace_costs`; docs/scaling-calibration.md): runs [`crate::scale`] at a
//! runtime trace's m and n on the trace's own task set
//! ([`schedlab_trace::costs_fit::reconstruct_tasks`]) for
//! [`schedlab_trace::costs_fit::refine`], and packages the result (costs file with its
//! `[meta]`, measured and predicted means per iteration) for the CLI and Python.
//!
//! Cost: iterations × traces runs of the model (each `O(E log n)` for the trace's `E` policy
//! events over its duration).

use crate::scale::{scale, ScaleArch, ScaleConfig};
use schedlab_model::costs::{CostName, CostsFile};
use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_trace::costs_fit::{
    self, CalTrace, CostsFitError, Iteration, Pooled, Predicted, Refine,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The model's overheads for `trace` with `costs` (noise seeded with `seed`): every overhead
/// the architecture has, mean and maximum over the run.
pub fn predict(costs: &CostsFile, trace: &CalTrace, seed: u64) -> Result<Predicted, String> {
    let arch = ScaleArch::from_key(&trace.arch).ok_or_else(|| {
        format!(
            "the model has no architecture `{}` (it has {})",
            trace.arch,
            ScaleArch::names().join(", ")
        )
    })?;
    let mut cfg = ScaleConfig::new(arch, trace.m, Duration::from_ns(trace.duration_ns))
        .with_costs_file(costs);
    cfg.seed = seed;
    let tasks = &trace.tasks;
    let n = tasks.tasks().len();
    let ranks: Vec<u32> = (0..n as u32).collect();
    let placement =
        if arch == ScaleArch::Partitioned {
            let mut cpus = Vec::with_capacity(n);
            for (i, t) in tasks.tasks().iter().enumerate() {
                cpus.push(t.cpu.ok_or_else(|| {
                    format!("task {i} ran on several CPUs: no partition to model")
                })?);
            }
            Some(Placement::new(cpus, 1))
        } else {
            None
        };
    let report = scale(tasks, &ranks, placement, &cfg).map_err(|e| e.to_string())?;
    Ok(report
        .overheads()
        .into_iter()
        .filter(|(_, s)| s.count > 0)
        .map(|(name, s)| {
            (
                name.key().to_string(),
                Pooled {
                    count: s.count,
                    avg_ns: s.sum_ns as f64 / s.count as f64,
                    max_ns: s.max_ns,
                },
            )
        })
        .collect())
}

/// A calibration: the costs and how they were obtained.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The calibrated costs (one `[arch.<A>]` per architecture of the traces).
    pub costs: CostsFile,
    /// The traces' measured overheads, pooled per architecture.
    pub measured: BTreeMap<String, BTreeMap<&'static str, Pooled>>,
    /// Every refinement iteration (empty: the direct mapping only).
    pub iterations: Vec<Iteration>,
    /// Per architecture: whether the refinement met its tolerance.
    pub converged: BTreeMap<String, bool>,
}

/// Why trace files cannot be calibrated: a file that cannot be read, or the calibration's
/// error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FilesError {
    /// A trace file cannot be read.
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// Too many files.
    #[error("{count} traces: at most {max} are read at once", max = costs_fit::MAX_TRACES)]
    TooMany {
        /// How many were given.
        count: usize,
    },
    /// The calibration failed.
    #[error(transparent)]
    Fit(#[from] CostsFitError),
}

/// Reads runtime trace files for calibration (at most [`costs_fit::MAX_TRACES`]).
pub fn read_traces(files: &[std::path::PathBuf]) -> Result<Vec<CalTrace>, FilesError> {
    if files.len() > costs_fit::MAX_TRACES {
        return Err(FilesError::TooMany { count: files.len() });
    }
    let mut traces = Vec::with_capacity(files.len());
    for f in files {
        let path = f.display().to_string();
        let t = schedlab_trace::file::read_file(f).map_err(|e| FilesError::Read {
            path: path.clone(),
            message: e.to_string(),
        })?;
        traces.push(CalTrace::from_trace(&path, &t.meta, &t.events)?);
    }
    Ok(traces)
}

/// Reads `files`, calibrates them ([`calibrate`]) and writes `[meta]` ([`Calibration::describe`],
/// the traces by file name) with `machine` and `date` as given.
pub fn calibrate_files(
    files: &[std::path::PathBuf],
    iterations: u32,
    seed: u64,
    machine: &str,
    date: &str,
) -> Result<Calibration, FilesError> {
    let traces = read_traces(files)?;
    let mut cal = calibrate(&traces, iterations, seed)?;
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name().map_or_else(
                || f.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    cal.describe(&names, machine, date, iterations, seed);
    Ok(cal)
}

/// Calibrates `traces`: the direct mapping, then `iterations` refinement steps of the model
/// (0: none), the model's noise seeded with `seed`.
pub fn calibrate(
    traces: &[CalTrace],
    iterations: u32,
    seed: u64,
) -> Result<Calibration, CostsFitError> {
    let start = costs_fit::direct(traces)?;
    let measured = costs_fit::measured(traces);
    if iterations == 0 {
        return Ok(Calibration {
            costs: start,
            measured,
            iterations: Vec::new(),
            converged: BTreeMap::new(),
        });
    }
    let settings = Refine {
        iterations,
        ..Refine::default()
    };
    let r = costs_fit::refine(start, traces, settings, |c, t| predict(c, t, seed))?;
    Ok(Calibration {
        costs: r.costs,
        measured,
        iterations: r.iterations,
        converged: r.converged,
    })
}

impl Calibration {
    /// Writes `[meta]`: `machine`, `date` (as given), `traces` (the names, cut to the file's
    /// bound), `method` and, per refined architecture, `convergence_<arch>` (the largest
    /// relative error of the means per iteration).
    pub fn describe(
        &mut self,
        traces: &[String],
        machine: &str,
        date: &str,
        iterations: u32,
        seed: u64,
    ) {
        let meta = &mut self.costs.meta;
        meta.insert("machine".into(), machine.to_string());
        meta.insert("date".into(), date.to_string());
        meta.insert("traces".into(), bounded_list(traces));
        meta.insert(
            "method".into(),
            if iterations == 0 {
                "schedlab trace costs: direct mapping (no model run)".to_string()
            } else {
                format!("schedlab trace costs: direct mapping, then up to {iterations} secant iterations of the model at each trace's m and n (seed {seed})")
            },
        );
        for (arch, ok) in &self.converged {
            let path: Vec<String> = self
                .iterations
                .iter()
                .filter(|i| &i.arch == arch)
                .map(|i| format!("{:.1}%", 100.0 * i.worst_relative()))
                .collect();
            meta.insert(
                format!("convergence_{arch}"),
                format!(
                    "largest |model − measured| / measured mean per iteration: {}; {}",
                    path.join(" → "),
                    if *ok { "converged" } else { "not converged" }
                ),
            );
        }
    }

    /// The last iteration of `arch`, if refined.
    pub fn last(&self, arch: &str) -> Option<&Iteration> {
        self.iterations.iter().rev().find(|i| i.arch == arch)
    }

    /// As JSON (CLI `--json`, Python `trace_costs`): `costs` (the costs file's JSON form, which
    /// `CostsFile::from_value` reads), `measured` (arch → overhead → `avg_ns`, `max_ns`,
    /// `count`), `iterations` (`arch`, `index`, `overheads`: overhead → `measured_ns`,
    /// `predicted_ns`; `worst_relative`), `converged` (arch → bool).
    pub fn to_json(&self) -> Value {
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
            "costs": costs_json(&self.costs),
            "measured": measured,
            "iterations": iterations,
            "converged": self.converged,
        })
    }
}

/// One overhead of a checked trace: measured and predicted mean and maximum (ns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckRow {
    /// Measured (the trace).
    pub measured: Pooled,
    /// The model with the costs, at the trace's m and n on its task set.
    pub model: Option<Pooled>,
}

/// One checked trace: its source, architecture and rows.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The trace (its source).
    pub trace: String,
    /// Its architecture.
    pub arch: String,
    /// Per overhead: measured vs model.
    pub overheads: BTreeMap<&'static str, CheckRow>,
}

/// The model with `costs` against each of `traces` (traces the costs were *not* calibrated
/// on: a holdout check): per trace (its source and architecture), per overhead the model
/// predicts or the trace measured ([`costs_fit::MODELLED`]), measured vs model.
pub fn check(
    costs: &CostsFile,
    traces: &[CalTrace],
    seed: u64,
) -> Result<Vec<Checked>, CostsFitError> {
    let mut out = Vec::with_capacity(traces.len());
    for t in traces {
        let predicted = predict(costs, t, seed).map_err(|message| CostsFitError::Model {
            arch: t.arch.clone(),
            trace: t.source.clone(),
            message,
        })?;
        let mut rows = BTreeMap::new();
        for (name, st) in t.overheads.stats() {
            if !costs_fit::MODELLED.contains(&name) {
                continue;
            }
            let measured = Pooled {
                count: st.count,
                avg_ns: st.mean_ns,
                max_ns: st.max_ns,
            };
            rows.insert(
                name,
                CheckRow {
                    measured,
                    model: predicted.get(name).copied(),
                },
            );
        }
        out.push(Checked {
            trace: t.source.clone(),
            arch: t.arch.clone(),
            overheads: rows,
        });
    }
    Ok(out)
}

/// The JSON of [`check`]'s rows: a list of `{trace, arch, overheads: {name: {measured_avg_ns,
/// measured_max_ns, measured_count, model_avg_ns, model_max_ns, model_count}}}` (model fields
/// `null` when the model has no such sample).
pub fn check_json(rows: &[Checked]) -> Value {
    Value::from(
        rows.iter()
            .map(|c| {
                let o: serde_json::Map<String, Value> = c
                    .overheads
                    .iter()
                    .map(|(k, r)| {
                        (
                            (*k).to_string(),
                            json!({
                                "measured_avg_ns": r.measured.avg_ns,
                                "measured_max_ns": r.measured.max_ns,
                                "measured_count": r.measured.count,
                                "model_avg_ns": r.model.map(|p| p.avg_ns),
                                "model_max_ns": r.model.map(|p| p.max_ns),
                                "model_count": r.model.map(|p| p.count),
                            }),
                        )
                    })
                    .collect();
                json!({"trace": c.trace, "arch": c.arch, "overheads": o})
            })
            .collect::<Vec<_>>(),
    )
}

/// The costs file as the JSON `CostsFile::from_value` reads (integers in ns).
pub fn costs_json(f: &CostsFile) -> Value {
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

/// `names` joined, cut to the costs file's bound on a `[meta]` value.
fn bounded_list(names: &[String]) -> String {
    let mut s = names.join(", ");
    let limit = schedlab_model::costs::MAX_META_VALUE_BYTES - 64;
    if s.len() > limit {
        let mut cut = limit;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str(&format!(" … ({} traces)", names.len()));
    }
    s
}
