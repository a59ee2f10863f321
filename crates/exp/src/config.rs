//! The validated experiment ([`Experiment`]): what the file declares, with defaults filled in
//! and every string form checked. It is serialisable (JSON) so that the manifest can store it,
//! its hash can identify the experiment, and Dask workers receive exactly what the driver
//! validated.
//!
//! The file format and its rules are documented in `docs/experiments.md`; [`crate::schema`]
//! reads and validates it.

use crate::metric::{default_plots, is_default_plots, Metric};
use schedlab_gen::util_vec::VecMethod;
use schedlab_gen::{
    DeadlineSpec, GenError, GenSpec, ParallelDist, PeriodDist, Rounding, Shape, UtilDist,
    UtilityDist,
};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The swept variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variable {
    /// Total utilization `U` (points are totals).
    Utilization,
    /// Utilization per CPU `U/m` (points are fractions of the platform).
    UtilizationPerCpu,
    /// Number of tasks `n`.
    Tasks,
    /// Number of CPUs `m`.
    Cpus,
}

impl Variable {
    /// Names accepted in the file.
    pub const NAMES: [&'static str; 4] = ["utilization", "utilization_per_cpu", "tasks", "cpus"];

    /// Parses a name of [`Variable::NAMES`].
    pub fn parse(name: &str) -> Option<Variable> {
        match name {
            "utilization" => Some(Variable::Utilization),
            "utilization_per_cpu" => Some(Variable::UtilizationPerCpu),
            "tasks" => Some(Variable::Tasks),
            "cpus" => Some(Variable::Cpus),
            _ => None,
        }
    }

    /// The axis label, with the unit.
    pub fn axis_label(self) -> &'static str {
        match self {
            Variable::Utilization => "total utilization U (sum of C/T, in CPUs)",
            Variable::UtilizationPerCpu => "utilization per CPU U/m",
            Variable::Tasks => "number of tasks n",
            Variable::Cpus => "number of CPUs m",
        }
    }

    /// Whether points are utilizations (binned for growing sets).
    pub fn is_utilization(self) -> bool {
        matches!(self, Variable::Utilization | Variable::UtilizationPerCpu)
    }
}

/// How task sets are drawn (see `schedlab_gen::Shape`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShapeKind {
    /// `n` tasks with total utilization exactly `U` (a vector method).
    FixedSum,
    /// `n` tasks with independent utilizations.
    Count,
    /// Tasks from a distribution until the total would exceed `U` [ChronOS §8.4].
    Fill,
    /// Growing sets from `m + 1` tasks, one task at a time while `U ≤ m` [RTPS §VII]; the
    /// sets are binned by realised utilization.
    Grow,
    /// Tasks from a distribution until the total reaches the point's utilization; a set
    /// above it plus `window_width` is drawn again, so every set lies in the window
    /// [RTWS §VI, Table I's utilization windows].
    Window,
}

impl ShapeKind {
    /// Names accepted in the file.
    pub const NAMES: [&'static str; 5] = ["fixed-sum", "count", "fill", "grow", "window"];

    /// Parses a name of [`ShapeKind::NAMES`].
    pub fn parse(name: &str) -> Option<ShapeKind> {
        match name {
            "fixed-sum" => Some(ShapeKind::FixedSum),
            "count" => Some(ShapeKind::Count),
            "fill" => Some(ShapeKind::Fill),
            "grow" => Some(ShapeKind::Grow),
            "window" => Some(ShapeKind::Window),
            _ => None,
        }
    }
}

/// The generator section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeneratorConfig {
    /// Shape of the sets.
    pub shape: ShapeKind,
    /// Vector method of `fixed-sum` (`schedlab_gen::util_vec::VecMethod` syntax).
    pub method: Option<String>,
    /// Per-task utilization distribution of `count`, `fill`, `grow`.
    pub util_dist: Option<String>,
    /// Fixed number of tasks.
    pub tasks: Option<u64>,
    /// Number of tasks per CPU (`n = k·m`).
    pub tasks_per_cpu: Option<u64>,
    /// Fixed total utilization (when the sweep is not over utilization).
    pub utilization: Option<f64>,
    /// Fixed utilization per CPU.
    pub utilization_per_cpu: Option<f64>,
    /// First set size of `grow` (default `m + 1`).
    pub grow_start: Option<u64>,
    /// Period distribution.
    pub periods: String,
    /// Deadline rule.
    pub deadlines: String,
    /// WCET rounding.
    pub rounding: String,
    /// Random task utilities (`schedlab_gen::UtilityDist` syntax: `uniform:A..B`,
    /// `chronos`), for utility-accrual experiments. Omitted from the JSON when absent, so
    /// experiments without it keep their config hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utility: Option<String>,
    /// Width of the utilization window of `window`, in the unit of the utilization it
    /// widens (per CPU when the sweep or the fixed value is per CPU). Omitted from the JSON
    /// when absent (config hashes of older experiments unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_width: Option<f64>,
    /// Fork-join structure of every task (`schedlab_gen::ParallelDist` syntax), or `rtws`:
    /// [RTWS §VI]'s `rtws:M` with `M` the platform's CPU count. Omitted from the JSON when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<String>,
}

impl GeneratorConfig {
    /// The fork-join structure on `m` CPUs (`rtws` is `rtws:m`).
    pub fn parallel_dist(&self, m: u32) -> Result<Option<ParallelDist>, GenError> {
        match self.parallel.as_deref() {
            None => Ok(None),
            Some("rtws") => ParallelDist::parse(&format!("rtws:{m}")).map(Some),
            Some(s) => ParallelDist::parse(s).map(Some),
        }
    }

    /// Whether the utilization the generator is given is per CPU (a `utilization_per_cpu`
    /// sweep or value).
    fn per_cpu(&self, variable: Variable) -> bool {
        variable == Variable::UtilizationPerCpu || self.utilization_per_cpu.is_some()
    }
}

/// What is done with every generated set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EvalKind {
    /// A schedulability test (or battery) by its registry spec.
    Analysis {
        /// `NAME` or `NAME:key=value,…` (`schedlab tests`).
        test: String,
        /// Priority assignment: `dm`, `rm`.
        priorities: String,
        /// Overhead-aware analysis: the set charged with one architecture's overheads from the
        /// experiment's overhead file (`None`: free scheduling). Omitted from the JSON when
        /// absent, so experiments without overheads keep their config hash.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        overheads: Option<AnalysisOverheads>,
        /// CPUs kept from the test: it runs on `m − reserved_cpus` (the zero-overhead
        /// "G-EDF on m − 1" curve of [MP Fig. 8]). Omitted from the JSON when 0.
        #[serde(default, skip_serializing_if = "is_zero")]
        reserved_cpus: u32,
    },
    /// A simulation under a policy.
    Simulation {
        /// Policy name (`schedlab_policy::NAMES`).
        policy: String,
        /// Simulated time.
        duration: String,
        /// Execution-time model (`wcet`, `uniform:LO..HI`, `normal:MEAN,SD`).
        exec: String,
        /// Arrival model (`periodic`, `sporadic:MAXDELAY`).
        arrivals: String,
        /// Packing heuristic of `pedf`/`pfp`/`cedf` (`chronos*`: [ChronOS §8.5]); the
        /// best-effort `plbesa`/`pdasa`/`phvdf` use the thesis's rule unless it names
        /// `chronos-ff` or `chronos-lu`.
        partition: String,
        /// Priority assignment.
        priorities: String,
        /// Abort jobs at their deadline.
        abort_late: bool,
        /// Cluster size of `cedf`.
        cluster_size: Option<u32>,
        /// Run-time overheads charged by the simulator (`None`: overhead-free). Omitted from
        /// the JSON when absent, so experiments without overheads keep their config hash.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        overheads: Option<SimOverheads>,
    },
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// How an analysis charges the experiment's overhead file (`schedlab analyze --overheads`):
/// the architecture (its section, e.g. `global-lock-di` for `global-lock` with
/// `dedicated_irq_cpu = true`), the statistic and the rounding granularity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisOverheads {
    /// Architecture section name (`schedlab_analysis::overheads::arch::ARCH_NAMES`).
    pub arch: String,
    /// `max` or `avg`.
    pub stat: String,
    /// Rounding granularity in ns.
    pub granularity_ns: u64,
}

/// How a simulation charges the experiment's overhead file (docs/overheads.md): the values
/// of one architecture section, one statistic, evaluated per task set at n = its number of
/// tasks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimOverheads {
    /// Architecture section (`None`: the file's only one).
    pub arch: Option<String>,
    /// `avg` or `max`.
    pub stat: String,
}

/// One evaluation with its label (the name in results, CSV and plots).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Unique label.
    pub label: String,
    /// What it does.
    pub kind: EvalKind,
}

/// A validated experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    /// Title of plots and report.
    pub title: String,
    /// Seed of everything random.
    pub seed: u64,
    /// Task sets (or growing sequences) per point and platform.
    pub samples: u64,
    /// The file's own `samples` when the command line overrode it (`schedlab experiment
    /// --samples N`): recorded in the manifest and covered by the config hash, so a reduced
    /// run is never mistaken for (or resumed as) the file's full one. Omitted from the JSON
    /// when there is no override, so experiments keep their config hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_samples: Option<u64>,
    /// Task sets per chunk (the unit of work, durability and resumption).
    pub chunk_size: u64,
    /// Platforms: CPU counts (the points themselves when sweeping `cpus`).
    pub cpus: Vec<u32>,
    /// The generator.
    pub generator: GeneratorConfig,
    /// The swept variable.
    pub variable: Variable,
    /// Its points, strictly increasing.
    pub points: Vec<f64>,
    /// The evaluations, in file order.
    pub evaluations: Vec<Evaluation>,
    /// Overhead file, as written in the experiment file (relative to that file's folder).
    pub overheads: Option<PathBuf>,
    /// The overhead file's contents, validated and written back as canonical TOML: Dask
    /// workers need no access to the file, and the config hash changes when the file does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_file: Option<String>,
    /// The metrics plotted against the swept variable, one plot file each, in order. Left
    /// out of the JSON when it is the default (`["acceptance"]`), so experiments written
    /// before `plots` existed keep their config hash.
    #[serde(default = "default_plots", skip_serializing_if = "is_default_plots")]
    pub plots: Vec<Metric>,
}

/// One cell of the sweep: a platform and a point (for `grow`, `point` is `None`: one
/// sequence yields sets for many points, binned afterwards).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    /// CPUs.
    pub cpus: u32,
    /// Index into [`Experiment::points`].
    pub point: Option<usize>,
}

impl Experiment {
    /// Every cell, platform-major, points in order.
    pub fn cells(&self) -> Vec<Cell> {
        if self.variable == Variable::Cpus {
            return (0..self.points.len())
                .filter_map(|i| {
                    let m = *self.points.get(i)?;
                    Some(Cell {
                        cpus: m as u32,
                        point: Some(i),
                    })
                })
                .collect();
        }
        let mut out = Vec::new();
        for &m in &self.cpus {
            if self.generator.shape == ShapeKind::Grow {
                out.push(Cell {
                    cpus: m,
                    point: None,
                });
            } else {
                out.extend((0..self.points.len()).map(|i| Cell {
                    cpus: m,
                    point: Some(i),
                }));
            }
        }
        out
    }

    /// Every platform's CPU count (the points when sweeping `cpus`).
    pub fn platforms(&self) -> Vec<u32> {
        if self.variable == Variable::Cpus {
            self.points.iter().map(|&x| x as u32).collect()
        } else {
            self.cpus.clone()
        }
    }

    /// The number of tasks at a cell, if the shape fixes it.
    pub fn tasks_at(&self, m: u32, x: Option<f64>) -> Option<usize> {
        if self.variable == Variable::Tasks {
            return x.map(|x| x as usize);
        }
        let g = &self.generator;
        g.tasks
            .or(g.tasks_per_cpu.map(|k| k * u64::from(m)))
            .map(|n| n as usize)
    }

    /// The total utilization at a cell, if the shape fixes it.
    pub fn utilization_at(&self, m: u32, x: Option<f64>) -> Option<f64> {
        match (self.variable, x) {
            (Variable::Utilization, Some(x)) => Some(x),
            (Variable::UtilizationPerCpu, Some(x)) => Some(x * f64::from(m)),
            _ => {
                let g = &self.generator;
                g.utilization
                    .or(g.utilization_per_cpu.map(|u| u * f64::from(m)))
            }
        }
    }

    /// The point value as utilization per CPU, where that applies (utilization sweeps, and
    /// other sweeps with a fixed utilization).
    pub fn per_cpu(&self, m: u32, x: f64) -> Option<f64> {
        self.utilization_at(m, Some(x)).map(|u| u / f64::from(m))
    }

    /// The seed of the generator of a cell: a mix of the experiment seed, `m` and the point's
    /// value (not its index), so adding a point or a platform leaves the other cells' sets
    /// unchanged.
    pub fn cell_seed(&self, cell: Cell) -> u64 {
        let x = cell
            .point
            .and_then(|i| self.points.get(i))
            .map_or(u64::MAX, |x| x.to_bits());
        mix(mix(self.seed, u64::from(cell.cpus)), x)
    }

    /// The generator spec of a cell.
    pub fn gen_spec(&self, cell: Cell) -> Result<GenSpec, GenError> {
        let g = &self.generator;
        let m = cell.cpus;
        let x = cell.point.and_then(|i| self.points.get(i)).copied();
        let invalid = |what: &str, message: &str| GenError::InvalidParameter {
            what: what.to_string(),
            message: message.to_string(),
        };
        let dist = || -> Result<UtilDist, GenError> {
            UtilDist::parse(
                g.util_dist
                    .as_deref()
                    .ok_or_else(|| invalid("util_dist", "missing"))?,
            )
        };
        let n = self.tasks_at(m, x);
        let u = self.utilization_at(m, x);
        let shape = match g.shape {
            ShapeKind::FixedSum => Shape::FixedSum {
                n: n.ok_or_else(|| invalid("tasks", "missing"))?,
                total: u.ok_or_else(|| invalid("utilization", "missing"))?,
                method: VecMethod::parse(g.method.as_deref().unwrap_or("randfixedsum"))?,
            },
            ShapeKind::Count => Shape::Count {
                n: n.ok_or_else(|| invalid("tasks", "missing"))?,
                dist: dist()?,
            },
            ShapeKind::Fill => Shape::FillTo {
                total: u.ok_or_else(|| invalid("utilization", "missing"))?,
                dist: dist()?,
            },
            ShapeKind::Grow => Shape::Grow {
                start: g.grow_start.map_or(m as usize + 1, |s| s as usize),
                limit: f64::from(m),
                dist: dist()?,
            },
            ShapeKind::Window => {
                let lo = u.ok_or_else(|| invalid("utilization", "missing"))?;
                let w = g
                    .window_width
                    .ok_or_else(|| invalid("window_width", "missing"))?;
                let w = if g.per_cpu(self.variable) {
                    w * f64::from(m)
                } else {
                    w
                };
                Shape::Window {
                    lo,
                    hi: lo + w,
                    dist: dist()?,
                }
            }
        };
        Ok(GenSpec::new(shape, PeriodDist::parse(&g.periods)?)
            .deadlines(DeadlineSpec::parse(&g.deadlines)?)
            .rounding(Rounding::parse(&g.rounding)?)
            .utilities(g.utility.as_deref().map(UtilityDist::parse).transpose()?)
            .parallel(g.parallel_dist(m)?)
            .seed(self.cell_seed(cell)))
    }

    /// The point a growing set of realised utilization `u` on `m` CPUs falls into: the
    /// nearest point (in the sweep's unit), if within half the spacing to its neighbours
    /// (the first and last points extend by half their one neighbouring gap; a single point
    /// takes everything).
    pub fn bin(&self, m: u32, u: f64) -> Option<usize> {
        let v = match self.variable {
            Variable::UtilizationPerCpu => u / f64::from(m),
            _ => u,
        };
        let p = &self.points;
        match p.as_slice() {
            [] => None,
            [_] => Some(0),
            [a, b, ..] => {
                let (y, z) = (p[p.len() - 2], p[p.len() - 1]);
                let lo = a - (b - a) / 2.0;
                let hi = z + (z - y) / 2.0;
                if !(lo..hi).contains(&v) {
                    return None;
                }
                // The first point whose upper edge (the midpoint to the next) lies above v.
                Some(
                    p.windows(2)
                        .position(|w| v < (w[0] + w[1]) / 2.0)
                        .unwrap_or(p.len() - 1),
                )
            }
        }
    }

    /// A short description of a cell's point for messages (`U = 4.5`).
    pub fn describe(&self, cell: Cell) -> String {
        match cell.point.and_then(|i| self.points.get(i)) {
            None => "growing sequences".to_string(),
            Some(x) => format!("{} = {x}", self.variable_symbol()),
        }
    }

    /// `U`, `U/m`, `n` or `m`.
    pub fn variable_symbol(&self) -> &'static str {
        match self.variable {
            Variable::Utilization => "U",
            Variable::UtilizationPerCpu => "U/m",
            Variable::Tasks => "n",
            Variable::Cpus => "m",
        }
    }

    /// Overrides `samples` (the command line's `--samples N`), keeping the file's value in
    /// [`Experiment::file_samples`]; `n` equal to the file's value removes the override.
    /// Refuses 0 and a chunk count over [`crate::chunk::MAX_CHUNKS`].
    pub fn override_samples(&mut self, n: u64) -> Result<(), crate::error::ExpError> {
        let bad = |m: String| crate::error::ExpError::BadOverride(m);
        if n == 0 {
            return Err(bad(
                "the number of task sets per point must be at least 1".into()
            ));
        }
        let file = self.file_samples.unwrap_or(self.samples);
        let mut next = self.clone();
        next.samples = n;
        next.file_samples = (n != file).then_some(file);
        let chunks = crate::chunk::chunk_count(&next);
        if chunks > u128::from(crate::chunk::MAX_CHUNKS) {
            return Err(bad(format!(
                "{n} task sets per point in chunks of {} make {chunks} chunks, more than the limit of {}",
                self.chunk_size,
                crate::chunk::MAX_CHUNKS
            )));
        }
        *self = next;
        Ok(())
    }

    /// The canonical JSON of the experiment (what the hash covers).
    pub fn canonical_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A 64-bit FNV-1a hash of [`Experiment::canonical_json`], as 16 hex digits: identifies
    /// the experiment in the manifest (not a security measure).
    pub fn config_hash(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.canonical_json().bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }
}

/// SplitMix64 finaliser of `a` combined with `b`: a well-spread seed derivation.
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_add(0x9e37_79b9_7f4a_7c15).rotate_left(17);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
