//! Fitting measured overheads into the overhead file (`schedlab trace overheads`,
//! docs/overheads.md): per architecture and overhead name, the average and the maximum as
//! points `(n tasks, ns)`, as the overhead curves of LITMUS^RT studies plot them against n
//! [MP §IV, Figs. 6–7].
//!
//! 1. Each runtime trace gives one [`Measurement`]: its architecture (metadata
//!    `architecture`, or the caller's override), its number of tasks n (metadata `tasks`) and
//!    its overhead samples ([`crate::overheads`]). Simulated traces are refused: their
//!    "overheads" are the ones charged from an overhead file, fitting them back is circular.
//! 2. Traces of the same (architecture, n) are pooled (several task sets per n, as in
//!    [MP §IV]: five per point). Optionally every pooled set of one overhead name is
//!    shuffled and truncated to the smallest one's count (the ft-tools convention,
//!    [`crate::stats::equalize`]), so maxima over different n are comparable.
//! 3. avg = the mean of the pooled samples rounded up to whole ns; max = the largest sample.
//!    Both are made monotone non-decreasing in n (each value replaced by the running
//!    maximum up to it: the rule by which the file is evaluated, written out so the file
//!    shows what a reader will charge).
//! 4. [`merge`] writes the fitted curves into an overhead file: every (architecture,
//!    overhead) that was fitted replaces the one in the file; every other section (other
//!    architectures and overheads, CPMD, meta) is kept.
//!
//! Overhead names the file does not know (none today) are skipped and reported.
//! Cost: linear in the number of samples (plus the shuffle).

use crate::overheads::Overheads;
use crate::stats::{arch_of, task_count};
use crate::{Event, Meta};
use schedlab_model::overheads::{Curve, Measured, OverheadFile, OverheadName};
use std::collections::BTreeMap;

/// Why traces cannot be fitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// The trace was not measured by the runtime.
    #[error("not a runtime trace (engine `{engine}`): only measured overheads can be fitted")]
    NotRuntime {
        /// The engine the metadata names.
        engine: String,
    },
    /// The metadata names no architecture and none was given.
    #[error("the trace metadata names no `architecture`; give one (--arch)")]
    NoArch,
    /// The metadata lists no task and the trace has no job event.
    #[error("the trace gives no number of tasks (metadata `tasks` is empty)")]
    NoTasks,
    /// The number of tasks of a trace is out of bounds ([`crate::stats::MAX_TASKS`]).
    #[error("{0}")]
    Tasks(String),
    /// No overhead sample at all in any trace.
    #[error("no overhead samples in the traces")]
    NoSamples,
    /// A fitted curve is not valid (values beyond the file's range).
    #[error("arch `{arch}`, overhead `{name}`: {message}")]
    Curve {
        /// Architecture.
        arch: String,
        /// Overhead.
        name: String,
        /// What is wrong.
        message: String,
    },
}

/// The overheads of one runtime trace.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// Dispatch architecture.
    pub arch: String,
    /// Number of tasks.
    pub n: u64,
    /// Samples by overhead name.
    pub overheads: Overheads,
}

impl Measurement {
    /// From a runtime trace; `arch` overrides the metadata's architecture.
    pub fn from_trace(
        meta: &Meta,
        events: &[Event],
        arch: Option<&str>,
    ) -> Result<Measurement, FitError> {
        match meta.engine.as_deref() {
            Some("runtime") => {}
            other => {
                return Err(FitError::NotRuntime {
                    engine: other.unwrap_or("unknown").to_string(),
                })
            }
        }
        let arch = arch
            .map(str::to_string)
            .or_else(|| arch_of(meta))
            .ok_or(FitError::NoArch)?;
        let n = task_count(meta, events).map_err(|e| FitError::Tasks(e.to_string()))? as u64;
        if n == 0 {
            return Err(FitError::NoTasks);
        }
        Ok(Measurement {
            arch,
            n,
            overheads: Overheads::from_trace(events),
        })
    }
}

/// One fitted point before monotonisation: pooled samples of (arch, name, n).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Number of tasks.
    pub n: u64,
    /// Samples pooled.
    pub count: u64,
    /// Mean, rounded up to whole ns.
    pub avg_ns: u64,
    /// Largest sample.
    pub max_ns: u64,
}

/// The fit: per architecture and overhead, the raw points by n (ascending) and the curves.
#[derive(Clone, Debug, Default)]
pub struct Fit {
    /// (arch, overhead name) → points, ascending in n (raw: not monotonised).
    pub points: BTreeMap<(String, OverheadName), Vec<Point>>,
    /// Overhead names seen in the traces that the overhead file does not know.
    pub skipped: Vec<String>,
}

/// Pools, optionally equalises (`equal_samples = Some(seed)`) and fits `measurements`.
pub fn fit(measurements: &[Measurement], equal_samples: Option<u64>) -> Result<Fit, FitError> {
    // (arch, n) → pooled samples by name.
    let mut pooled: BTreeMap<(String, u64), Overheads> = BTreeMap::new();
    for m in measurements {
        let slot = pooled.entry((m.arch.clone(), m.n)).or_default();
        for (name, s) in &m.overheads.samples {
            slot.samples.entry(name).or_default().extend_from_slice(s);
        }
    }
    if let Some(seed) = equal_samples {
        let mut all: Vec<Overheads> = pooled.values().cloned().collect();
        crate::stats::equalize_traces(&mut all, seed);
        for (slot, eq) in pooled.values_mut().zip(all) {
            *slot = eq;
        }
    }
    let mut out = Fit::default();
    for ((arch, n), o) in &pooled {
        for (name, s) in &o.samples {
            if s.is_empty() {
                continue;
            }
            let Some(key) = OverheadName::from_key(name) else {
                if !out.skipped.iter().any(|k| k == name) {
                    out.skipped.push(name.to_string());
                }
                continue;
            };
            let sum: u128 = s.iter().map(|&x| u128::from(x)).sum();
            let count = s.len() as u128;
            let avg = u64::try_from(sum.div_ceil(count)).unwrap_or(u64::MAX);
            out.points
                .entry((arch.clone(), key))
                .or_default()
                .push(Point {
                    n: *n,
                    count: s.len() as u64,
                    avg_ns: avg,
                    max_ns: s.iter().copied().max().unwrap_or(0),
                });
        }
    }
    if out.points.is_empty() {
        return Err(FitError::NoSamples);
    }
    Ok(out)
}

/// The running maximum of `values` (a monotone non-decreasing curve).
fn monotone(points: impl Iterator<Item = (u64, u64)>) -> Vec<(u64, u64)> {
    let mut best = 0u64;
    points
        .map(|(x, y)| {
            best = best.max(y);
            (x, best)
        })
        .collect()
}

impl Fit {
    /// The fitted sections: architecture → overhead → avg and max curves (monotone).
    pub fn sections(&self) -> Result<BTreeMap<String, BTreeMap<OverheadName, Measured>>, FitError> {
        let mut out: BTreeMap<String, BTreeMap<OverheadName, Measured>> = BTreeMap::new();
        for ((arch, name), pts) in &self.points {
            let curve = |f: &dyn Fn(&Point) -> u64| {
                Curve::new(monotone(pts.iter().map(|p| (p.n, f(p))))).map_err(|e| FitError::Curve {
                    arch: arch.clone(),
                    name: name.key().to_string(),
                    message: e.to_string(),
                })
            };
            let m = Measured {
                avg: Some(curve(&|p| p.avg_ns)?),
                max: Some(curve(&|p| p.max_ns)?),
            };
            out.entry(arch.clone()).or_default().insert(*name, m);
        }
        Ok(out)
    }
}

/// Writes the fitted sections into `file`: each fitted (architecture, overhead) replaces the
/// file's; everything else is kept.
pub fn merge(file: &mut OverheadFile, fitted: BTreeMap<String, BTreeMap<OverheadName, Measured>>) {
    for (arch, overheads) in fitted {
        let section = file.arch.entry(arch).or_default();
        for (name, m) in overheads {
            section.insert(name, m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TaskMeta;
    use schedlab_model::overheads::{CpmdKind, Stat};
    use serde_json::json;

    fn m(arch: &str, n: u64, samples: &[(&'static str, Vec<u64>)]) -> Measurement {
        Measurement {
            arch: arch.into(),
            n,
            overheads: Overheads {
                samples: samples.iter().cloned().collect(),
            },
        }
    }

    /// Two traces at n = 2 pool to {10, 20, 31} → avg ⌈61/3⌉ = 21, max 31; n = 10 gives
    /// {15} → avg 15, max 15, which the running maximum lifts to (21, 31); n = 20 gives
    /// {40, 50} → 45, 50.
    #[test]
    fn pooled_and_monotone_points() {
        let ms = [
            m("global-lock", 2, &[("schedule", vec![10, 20])]),
            m("global-lock", 2, &[("schedule", vec![31])]),
            m("global-lock", 10, &[("schedule", vec![15])]),
            m("global-lock", 20, &[("schedule", vec![40, 50])]),
        ];
        let f = fit(&ms, None).unwrap();
        let pts = &f.points[&("global-lock".to_string(), OverheadName::Schedule)];
        let raw: Vec<(u64, u64, u64, u64)> = pts
            .iter()
            .map(|p| (p.n, p.count, p.avg_ns, p.max_ns))
            .collect();
        assert_eq!(raw, vec![(2, 3, 21, 31), (10, 1, 15, 15), (20, 2, 45, 50)]);
        let s = f.sections().unwrap();
        let c = &s["global-lock"][&OverheadName::Schedule];
        assert_eq!(
            c.avg.as_ref().unwrap().points(),
            &[(2, 21), (10, 21), (20, 45)]
        );
        assert_eq!(
            c.max.as_ref().unwrap().points(),
            &[(2, 31), (10, 31), (20, 50)]
        );
    }

    /// With equal samples every pooled set of a name has the smallest count (here 1).
    #[test]
    fn equal_samples_truncate_before_the_maxima() {
        let ms = [
            m("p", 2, &[("release", vec![1, 2, 3, 4])]),
            m("p", 4, &[("release", vec![9])]),
        ];
        let f = fit(&ms, Some(1)).unwrap();
        let pts = &f.points[&("p".to_string(), OverheadName::Release)];
        assert!(pts.iter().all(|p| p.count == 1));
    }

    /// Merging keeps the file's other sections (CPMD, other architectures and overheads)
    /// and replaces the fitted ones; the result writes, parses back equal, and evaluates.
    #[test]
    fn merge_keeps_other_sections_and_round_trips() {
        let mut file = OverheadFile::parse_toml(
            r#"schema = 1
tick_period = "4ms"
[meta]
machine = "x"
[arch.global-lock.schedule]
avg = [[2, 1]]
[arch.global-lock.tick]
avg = [[2, 7]]
[arch.message-passing.dsp]
max = [[2, 3]]
[cpmd.preemption]
avg = [[0, 0], [4096, 100]]
"#,
        )
        .unwrap();
        let ms = [
            m("global-lock", 2, &[("schedule", vec![100])]),
            m("global-lock", 6, &[("schedule", vec![300])]),
        ];
        merge(&mut file, fit(&ms, None).unwrap().sections().unwrap());
        let back = OverheadFile::parse_toml(&file.to_toml()).unwrap();
        assert_eq!(back, file);
        let at4 = back
            .value("global-lock", OverheadName::Schedule, Stat::Avg, 4)
            .unwrap();
        assert_eq!(at4.map(|d| d.as_ns()), Some(200)); // 100 + (4−2)·200/4
        assert!(back.arch["global-lock"].contains_key(&OverheadName::Tick));
        assert_eq!(back.tick_period.map(|q| q.as_ns()), Some(4_000_000));
        assert!(back.arch.contains_key("message-passing"));
        assert!(back.cpmd.contains_key(&CpmdKind::Preemption));
        assert_eq!(back.meta["machine"], "x");
    }

    #[test]
    fn refuses_simulated_traces_and_needs_an_arch() {
        let mut meta = Meta {
            engine: Some("sim".into()),
            tasks: vec![TaskMeta::default()],
            ..Meta::default()
        };
        assert!(matches!(
            Measurement::from_trace(&meta, &[], None),
            Err(FitError::NotRuntime { .. })
        ));
        meta.engine = Some("runtime".into());
        assert_eq!(
            Measurement::from_trace(&meta, &[], None).unwrap_err(),
            FitError::NoArch
        );
        meta.extra
            .insert("architecture".into(), json!("partitioned"));
        let got = Measurement::from_trace(&meta, &[], None).unwrap();
        assert_eq!((got.arch.as_str(), got.n), ("partitioned", 1));
        let over = Measurement::from_trace(&meta, &[], Some("x")).unwrap();
        assert_eq!(over.arch, "x");
        assert_eq!(fit(&[over], None).unwrap_err(), FitError::NoSamples);
    }
}
