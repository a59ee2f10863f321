//! Aggregation of stored results: one [`Row`] per evaluation × platform × point with the
//! acceptance ratio and its 95% Wilson score interval (Wilson 1927; Brown, Cai & DasGupta
//! 2001 recommend it over the normal interval for small counts and ratios near 0 or 1), plus
//! means of the other metrics. Chunks are read one at a time, so memory does not grow with
//! the number of sets; `sets.csv` (one row per set × evaluation) is written as they stream by.

use crate::chunk::{chunks, SetResult};
use crate::config::{Experiment, ShapeKind, Variable};
use crate::error::ExpError;
use crate::store::Store;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The 97.5% quantile of the standard normal distribution (two-sided 95%).
const Z95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval of `k` successes in `n` trials (`(0, 1)` for `n = 0`).
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n_f = n as f64;
    let p = k as f64 / n_f;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n_f;
    let center = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    ((center - half).max(0.0), (center + half).min(1.0))
}

/// One line of `summary.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Evaluation label.
    pub evaluation: String,
    /// CPUs.
    pub cpus: u32,
    /// Index of the point.
    pub point: usize,
    /// The point as declared.
    pub x: f64,
    /// The point as utilization per CPU, where that applies.
    pub x_per_cpu: Option<f64>,
    /// Sets evaluated.
    pub sets: u64,
    /// Sets accepted (schedulable).
    pub accepted: u64,
    /// `accepted / sets`.
    pub ratio: f64,
    /// Lower end of the 95% Wilson interval.
    pub ci_low: f64,
    /// Upper end of the 95% Wilson interval.
    pub ci_high: f64,
    /// Mean realised utilization.
    pub mean_utilization: f64,
    /// Mean number of tasks.
    pub mean_tasks: f64,
    /// Mean of the largest tardiness (bound or observed), over the sets that have one.
    pub mean_max_tardiness_ns: Option<f64>,
    /// Mean DSR (simulations).
    pub mean_dsr: Option<f64>,
    /// Mean AUR (simulations of tasks with utilities).
    pub mean_aur: Option<f64>,
    /// Mean preemptions per set (simulations).
    pub mean_preemptions: Option<f64>,
    /// Mean migrations per set (simulations).
    pub mean_migrations: Option<f64>,
    /// Mean aborted jobs per set (simulations).
    pub mean_aborts: Option<f64>,
    /// Mean context switches per set (simulations).
    pub mean_context_switches: Option<f64>,
    /// Mean steals per set (simulations).
    pub mean_steals: Option<f64>,
}

#[derive(Default, Clone)]
struct Mean {
    sum: f64,
    n: u64,
}

impl Mean {
    fn add(&mut self, v: Option<f64>) {
        if let Some(v) = v {
            self.sum += v;
            self.n += 1;
        }
    }
    fn get(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

#[derive(Default, Clone)]
struct Acc {
    sets: u64,
    accepted: u64,
    utilization: Mean,
    tasks: Mean,
    tardiness: Mean,
    dsr: Mean,
    aur: Mean,
    preemptions: Mean,
    migrations: Mean,
    aborts: Mean,
    context_switches: Mean,
    steals: Mean,
}

/// The header of `sets.csv`.
pub const SETS_HEADER: &str =
    "evaluation,m,x,set,step,tasks,utilization,status,schedulable,max_tardiness_ns,dsr,aur,preemptions,migrations,jobs,aborted,context_switches,steals\n";

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// Aggregates every stored chunk (in plan order); writes each set's rows to `sets` if given.
pub fn aggregate(
    e: &Experiment,
    store: &Store,
    mut sets: Option<&mut dyn std::io::Write>,
) -> Result<Vec<Row>, ExpError> {
    // (evaluation, m, point) → accumulator
    let mut acc: BTreeMap<(usize, u32, usize), Acc> = BTreeMap::new();
    for chunk in chunks(e) {
        let results: Vec<SetResult> = store.read_chunk(&chunk)?;
        for r in &results {
            let x = e.points.get(r.point).copied().unwrap_or(f64::NAN);
            for (i, o) in r.outcomes.iter().enumerate() {
                let a = acc.entry((i, r.cpus, r.point)).or_default();
                a.sets += 1;
                a.accepted += u64::from(o.schedulable);
                a.utilization.add(Some(r.utilization));
                a.tasks.add(Some(r.tasks as f64));
                a.tardiness.add(o.max_tardiness_ns.map(|t| t as f64));
                a.dsr.add(o.dsr);
                a.aur.add(o.aur);
                a.preemptions.add(o.preemptions.map(|p| p as f64));
                a.migrations.add(o.migrations.map(|p| p as f64));
                a.aborts.add(o.aborted.map(|p| p as f64));
                a.context_switches.add(o.context_switches.map(|p| p as f64));
                a.steals.add(o.steals.map(|p| p as f64));
                if let Some(w) = sets.as_deref_mut() {
                    let label = e.evaluations.get(i).map_or("?", |ev| ev.label.as_str());
                    writeln!(
                        w,
                        "{},{},{x},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                        csv_field(label),
                        r.cpus,
                        r.set,
                        opt(r.step),
                        r.tasks,
                        r.utilization,
                        o.status,
                        o.schedulable,
                        opt(o.max_tardiness_ns),
                        opt(o.dsr),
                        opt(o.aur),
                        opt(o.preemptions),
                        opt(o.migrations),
                        opt(o.jobs),
                        opt(o.aborted),
                        opt(o.context_switches),
                        opt(o.steals)
                    )
                    .map_err(|x| ExpError::io(store.dir().join("sets.csv"), x))?;
                }
            }
        }
    }
    Ok(acc
        .into_iter()
        .map(|((i, m, p), a)| {
            let x = e.points.get(p).copied().unwrap_or(f64::NAN);
            let (ci_low, ci_high) = wilson(a.accepted, a.sets);
            Row {
                evaluation: e
                    .evaluations
                    .get(i)
                    .map_or_else(|| format!("#{i}"), |ev| ev.label.clone()),
                cpus: m,
                point: p,
                x,
                x_per_cpu: e.per_cpu(m, x),
                sets: a.sets,
                accepted: a.accepted,
                ratio: if a.sets > 0 {
                    a.accepted as f64 / a.sets as f64
                } else {
                    0.0
                },
                ci_low,
                ci_high,
                mean_utilization: a.utilization.get().unwrap_or(0.0),
                mean_tasks: a.tasks.get().unwrap_or(0.0),
                mean_max_tardiness_ns: a.tardiness.get(),
                mean_dsr: a.dsr.get(),
                mean_aur: a.aur.get(),
                mean_preemptions: a.preemptions.get(),
                mean_migrations: a.migrations.get(),
                mean_aborts: a.aborts.get(),
                mean_context_switches: a.context_switches.get(),
                mean_steals: a.steals.get(),
            }
        })
        .collect())
}

/// Quotes a CSV field if it needs it.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn f(v: f64) -> String {
    format!("{v:.6}")
}

fn fo(v: Option<f64>) -> String {
    v.map(f).unwrap_or_default()
}

/// `summary.csv`: one row per evaluation × platform × point.
pub fn summary_csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "evaluation,m,x,x_per_cpu,ratio,ci_low,ci_high,sets,accepted,mean_utilization,mean_tasks,mean_max_tardiness_ns,mean_dsr,mean_aur,mean_preemptions,mean_migrations,mean_aborts,mean_context_switches,mean_steals\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&r.evaluation),
            r.cpus,
            r.x,
            fo(r.x_per_cpu),
            f(r.ratio),
            f(r.ci_low),
            f(r.ci_high),
            r.sets,
            r.accepted,
            f(r.mean_utilization),
            f(r.mean_tasks),
            fo(r.mean_max_tardiness_ns),
            fo(r.mean_dsr),
            fo(r.mean_aur),
            fo(r.mean_preemptions),
            fo(r.mean_migrations),
            fo(r.mean_aborts),
            fo(r.mean_context_switches),
            fo(r.mean_steals)
        );
    }
    out
}

/// Where an evaluation's acceptance drops below a threshold for good.
#[derive(Clone, Debug, PartialEq)]
pub struct Drop<'r> {
    /// The last point at or above the threshold (`None`: below from the first point on).
    pub last_above: Option<&'r Row>,
    /// The first point of the final run of points below the threshold, after which
    /// acceptance never comes back (`None`: it never drops).
    pub first_below: Option<&'r Row>,
    /// Points before `first_below` that dipped below the threshold and recovered (a dip of
    /// one point among 200 sets is noise, not the drop).
    pub dips: Vec<&'r Row>,
}

/// Where `evaluation` on `m` CPUs drops below `threshold` (in sweep order): the first point
/// after which every point stays below it, so that a dip that recovers does not count as
/// the drop (it is listed in [`Drop::dips`]).
pub fn drop_below<'r>(rows: &'r [Row], evaluation: &str, m: u32, threshold: f64) -> Drop<'r> {
    let mine: Vec<&Row> = rows
        .iter()
        .filter(|r| r.evaluation == evaluation && r.cpus == m && r.sets > 0)
        .collect();
    // The start of the final run of points below the threshold.
    let start = mine
        .iter()
        .rposition(|r| r.ratio >= threshold)
        .map_or(0, |i| i + 1);
    Drop {
        last_above: start.checked_sub(1).and_then(|i| mine.get(i).copied()),
        first_below: mine.get(start).copied(),
        dips: mine[..start.min(mine.len())]
            .iter()
            .filter(|r| r.ratio < threshold)
            .copied()
            .collect(),
    }
}

/// The x-axis description: what the swept value is, truthfully for each generator shape. A
/// `fill` sweep's point is the *target* U: tasks are added while the total stays ≤ U (the
/// task that would exceed it is dropped [ChronOS §8.4]), so the realised total is lower — by
/// about half a task's utilization on average; the description gives the realised means at
/// the first and last points (from `rows`).
pub fn x_description(e: &Experiment, rows: &[Row]) -> String {
    let plain = e.variable.axis_label().to_string();
    if !e.variable.is_utilization() {
        return plain;
    }
    let per_cpu = e.variable == Variable::UtilizationPerCpu;
    let (name, unit) = if per_cpu {
        ("U/m", "")
    } else {
        ("U", " (in CPUs)")
    };
    match e.generator.shape {
        ShapeKind::Fill => {
            let first = e.evaluations.first().map(|ev| ev.label.as_str());
            let m = e.platforms().first().copied();
            let mine: Vec<&Row> = rows
                .iter()
                .filter(|r| Some(r.evaluation.as_str()) == first && Some(r.cpus) == m)
                .filter(|r| r.sets > 0)
                .collect();
            let realised = |r: &Row| {
                if per_cpu {
                    r.mean_utilization / f64::from(r.cpus.max(1))
                } else {
                    r.mean_utilization
                }
            };
            let range = match (mine.first(), mine.last()) {
                (Some(a), Some(b)) => format!(
                    "; mean realised {name}: {:.2} at {} … {:.2} at {}",
                    realised(a),
                    a.x,
                    realised(b),
                    b.x
                ),
                _ => String::new(),
            };
            format!("target {name}{unit}: tasks added while sum of C/T ≤ {name}{range}")
        }
        ShapeKind::Grow => {
            format!("realised {name} = sum of C/T{unit}, binned to the nearest point")
        }
        ShapeKind::Window => format!(
            "{name}{unit} at the window's low end (every set's sum of C/T lies in the window)"
        ),
        ShapeKind::FixedSum | ShapeKind::Count => plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals_by_hand() {
        // z² = 3.841459; 5 of 10: centre (0.5 + 0.192073)/1.384146 = 0.5, half-width
        // 1.959964/1.384146 · √(0.025 + 0.0096036) = 1.416010 · 0.186020 = 0.263406.
        let (lo, hi) = wilson(5, 10);
        assert!((lo - 0.236594).abs() < 1e-5, "{lo}");
        assert!((hi - 0.763406).abs() < 1e-5, "{hi}");
        // 0 of 10: centre = half-width = 0.192073/1.384146 = 0.138767 ⇒ [0, 0.277533].
        let (lo, hi) = wilson(0, 10);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.277533).abs() < 1e-5, "{hi}");
        // Symmetry: k of n mirrors n−k of n.
        let (a, b) = wilson(10, 10);
        assert!((a - (1.0 - 0.277533)).abs() < 1e-5 && (b - 1.0).abs() < 1e-12);
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    fn row(x: f64, ratio: f64) -> Row {
        Row {
            evaluation: "e".into(),
            cpus: 8,
            point: 0,
            x,
            x_per_cpu: None,
            sets: 200,
            accepted: (ratio * 200.0) as u64,
            ratio,
            ci_low: 0.0,
            ci_high: 1.0,
            mean_utilization: x - 0.25,
            mean_tasks: 0.0,
            mean_max_tardiness_ns: None,
            mean_dsr: None,
            mean_aur: None,
            mean_preemptions: None,
            mean_migrations: None,
            mean_context_switches: None,
            mean_steals: None,
            mean_aborts: None,
        }
    }

    #[test]
    fn a_dip_that_recovers_is_not_the_drop() {
        // The showcase's `sim P-EDF + partitioned overheads`: 99% at 2, back to 100% until
        // 6.5, then down for good. The old rule ("first point below") said the drop was at 2.
        let ratios = [1.0, 1.0, 0.99, 1.0, 1.0, 0.995, 0.9, 1.0, 0.7, 0.4];
        let rows: Vec<Row> = ratios
            .iter()
            .enumerate()
            .map(|(i, &r)| row(1.5 + 0.25 * i as f64, r))
            .collect();
        let d = drop_below(&rows, "e", 8, 1.0);
        assert_eq!(d.last_above.map(|r| r.x), Some(3.25));
        assert_eq!(d.first_below.map(|r| r.x), Some(3.5));
        let dips: Vec<f64> = d.dips.iter().map(|r| r.x).collect();
        assert_eq!(dips, [2.0, 2.75, 3.0]);
        let half = drop_below(&rows, "e", 8, 0.5);
        assert_eq!(half.first_below.map(|r| r.x), Some(3.75));
        assert!(half.dips.is_empty());
        // Never below; below from the start; another platform; no rows.
        assert_eq!(drop_below(&rows, "e", 8, 0.3).first_below, None);
        assert_eq!(
            drop_below(&rows, "e", 8, 0.3).last_above.map(|r| r.x),
            Some(3.75)
        );
        let low = drop_below(&rows, "e", 8, 1.5);
        assert_eq!(
            (low.last_above, low.first_below.map(|r| r.x)),
            (None, Some(1.5))
        );
        assert_eq!(
            drop_below(&rows, "e", 4, 1.0),
            Drop {
                last_above: None,
                first_below: None,
                dips: vec![]
            }
        );
    }

    #[test]
    fn csv_quoting() {
        assert_eq!(csv_field("gedf"), "gedf");
        assert_eq!(
            csv_field("gedf-rta:rounds=3,min_step=1"),
            "\"gedf-rta:rounds=3,min_step=1\""
        );
    }
}
