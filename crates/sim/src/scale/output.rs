//! The model's outputs: the overhead file (the one exchange format, `docs/overheads.md`) with
//! one point per task set at its `n`, and the rows of `--json`.
//!
//! Sections: `[arch.<A>]` when every report has the same `M`, `[arch."<A>@m<M>"]` otherwise
//! (consumers look up `<A>@m<M>` for their `M` first, then `<A>`). Two task sets with the same
//! `n` at one `M` give one point: their samples pooled (average over both, the larger
//! maximum). `tick` is not modelled (the paths are event-driven) and is written as 0, with
//! `tick_period`, so that overhead-aware analyses read the file as is; `[meta]` says so.
//!
//! Cost: linear in the reports.

use super::{ScaleArch, ScaleError, ScaleReport, SpanStats};
use schedlab_model::overheads::{Curve, Measured, OverheadFile, OverheadName};
use schedlab_model::Duration;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The section name of `arch` at `m` (with `per_m`: `<A>@m<M>`).
pub fn section(arch: ScaleArch, m: u32, per_m: bool) -> String {
    if per_m {
        format!("{}@m{m}", arch.key())
    } else {
        arch.key().to_string()
    }
}

/// The overhead file of `reports` (module doc); `per_m` names sections `<A>@m<M>`.
pub fn overhead_file(reports: &[ScaleReport], per_m: bool) -> Result<OverheadFile, ScaleError> {
    // section → overhead → n → pooled statistics
    let mut pooled: BTreeMap<String, BTreeMap<OverheadName, BTreeMap<u64, SpanStats>>> =
        BTreeMap::new();
    for r in reports {
        let sec = pooled.entry(section(r.arch, r.cpus, per_m)).or_default();
        for (name, s) in r.overheads() {
            sec.entry(name)
                .or_default()
                .entry(r.tasks as u64)
                .or_default()
                .merge(&s);
        }
        sec.entry(OverheadName::Tick)
            .or_default()
            .entry(r.tasks as u64)
            .or_default();
    }
    let mut file = OverheadFile::default();
    for (sec, names) in pooled {
        let mut out = BTreeMap::new();
        for (name, points) in names {
            let avg: Vec<(u64, u64)> = points.iter().map(|(&n, s)| (n, s.avg_ns())).collect();
            let max: Vec<(u64, u64)> = points.iter().map(|(&n, s)| (n, s.max_ns)).collect();
            let curve = |p| {
                Curve::new(p).map_err(|e| {
                    ScaleError::Placement(format!("section {sec}, overhead {}: {e}", name.key()))
                })
            };
            out.insert(
                name,
                Measured {
                    avg: Some(curve(avg)?),
                    max: Some(curve(max)?),
                },
            );
        }
        file.arch.insert(sec, out);
    }
    file.tick_period = Some(Duration::from_ns(4_000_000));
    file.meta.insert(
        "source".into(),
        "schedlab scale (the scaling model, docs/scaling.md)".into(),
    );
    file.meta.insert(
        "tick".into(),
        "not modelled (event-driven paths): written as 0".into(),
    );
    Ok(file)
}

/// One `--json` row per report and overhead: `arch`, `cpus`, `n`, `overhead`, `symbol`,
/// `avg_ns`, `max_ns`, `count`, plus the run's `events`, `jobs`, `paths`, `wall_ms`,
/// `saturated` and `counters`.
pub fn report_json(r: &ScaleReport, wall_ms: f64) -> Vec<Value> {
    r.overheads()
        .into_iter()
        .map(|(name, s)| {
            json!({
                "arch": r.arch.key(),
                "cpus": r.cpus,
                "n": r.tasks,
                "overhead": name.key(),
                "symbol": name.symbol(),
                "avg_ns": s.avg_ns(),
                "max_ns": s.max_ns,
                "count": s.count,
                "events": r.events,
                "jobs": r.jobs,
                "paths": r.paths,
                "wall_ms": wall_ms,
                "saturated": r.saturated,
                "counters": r.counters.iter().cloned().collect::<BTreeMap<_, _>>(),
            })
        })
        .collect()
}

/// `file` as the JSON value [`OverheadFile::from_value`] reads back (a Python dict).
pub fn overhead_value(file: &OverheadFile) -> Value {
    let mut arch = serde_json::Map::new();
    for (sec, names) in &file.arch {
        let mut o = serde_json::Map::new();
        for (name, m) in names {
            let mut v = serde_json::Map::new();
            for (key, c) in [("avg", &m.avg), ("max", &m.max)] {
                if let Some(c) = c {
                    v.insert(key.into(), json!(c.points()));
                }
            }
            o.insert(name.key().into(), Value::Object(v));
        }
        arch.insert(sec.clone(), Value::Object(o));
    }
    let mut top = json!({ "schema": 1, "meta": file.meta, "arch": arch });
    if let (Some(t), Some(o)) = (file.tick_period, top.as_object_mut()) {
        o.insert("tick_period".into(), json!(t.as_ns()));
    }
    top
}
