//! The unit of work: a [`Chunk`] is a range of task-set indices of one [`Cell`] (platform ×
//! point), and [`evaluate_chunk`] is the one pure function that evaluates it — used by the
//! local runner and, through the Python module, by Dask workers.
//!
//! Determinism: set `k` of a cell is drawn from the generator's ChaCha stream `k` with the
//! cell's seed ([`Experiment::cell_seed`]: experiment seed, `m`, point value), and a
//! simulation of it uses the seed `mix(cell seed, k, step)`. So the result of set `k` depends
//! only on (seed, platform, point, k) — not on the chunk size, the order of chunks, or the
//! number of workers.
//!
//! Growing sequences [RTPS §VII]: for a `grow` generator a cell has no point; sequence `k`
//! yields sets of increasing utilization, each binned to the nearest point
//! ([`Experiment::bin`]); sets outside every bin are dropped.
//!
//! Cost: one generation plus every evaluation per set; memory: one task set at a time plus
//! the (small) results of the chunk.

use crate::config::{mix, Cell, EvalKind, Experiment};
use crate::error::ExpError;
use schedlab_analysis::json::tardiness_as_requested;
use schedlab_analysis::overheads::arch::ArchKind;
use schedlab_analysis::overheads::context::{ChargedAnalysis, OverheadSetup};
use schedlab_analysis::placement::policy_inputs;
use schedlab_analysis::{analyze, registry, Priorities, SchedTest, System};
use schedlab_model::overheads::{OverheadFile, Stat};
use schedlab_model::{Duration, TaskSet};
use schedlab_policy::Placement;
use schedlab_sim::{Arrivals, ExecTime, Overheads, SimConfig};
use serde::{Deserialize, Serialize};

/// A range `start..end` of set indices of one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Chunk {
    /// Platform and point.
    pub cell: Cell,
    /// First set index.
    pub start: u64,
    /// One past the last set index.
    pub end: u64,
}

impl Chunk {
    /// The file name of the chunk's results (`m8-p003-00000025-00000050.jsonl`; `pall` for
    /// growing sequences).
    pub fn file_name(&self) -> String {
        let point = self
            .cell
            .point
            .map_or_else(|| "all".to_string(), |p| format!("{p:03}"));
        format!(
            "m{}-p{point}-{:08}-{:08}.jsonl",
            self.cell.cpus, self.start, self.end
        )
    }
}

/// Largest number of chunks an experiment may have: [`chunks`] lists them all in memory and
/// the store keeps one file per chunk. A file over the limit is refused when it is read
/// (`schema`), with a hint to raise `chunk_size`.
pub const MAX_CHUNKS: u64 = 1_000_000;

/// The number of chunks of the experiment, computed without listing them (so that a file
/// asking for 10^15 chunks can be refused): cells × ⌈samples / chunk_size⌉.
pub fn chunk_count(e: &Experiment) -> u128 {
    let cells = e.cells().len() as u128;
    cells * u128::from(e.samples.div_ceil(e.chunk_size.max(1)))
}

/// Every chunk of the experiment, cell by cell.
pub fn chunks(e: &Experiment) -> Vec<Chunk> {
    let size = e.chunk_size.max(1);
    let mut out = Vec::new();
    for cell in e.cells() {
        let mut start = 0;
        while start < e.samples {
            let end = start.saturating_add(size).min(e.samples);
            out.push(Chunk { cell, start, end });
            start = end;
        }
    }
    out
}

/// What one evaluation found for one set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Analyses: the verdict status (`schedulable`, `not-shown`, …); simulations:
    /// `schedulable`, `deadline-miss` or `no-placement` (a partitioned policy found no
    /// placement for the set).
    pub status: String,
    /// Accepted (analysis) or no deadline missed (simulation).
    pub schedulable: bool,
    /// Largest tardiness: the largest per-task bound of an analysis that bounds it (0 for a
    /// hard test that accepts), the largest observed of a simulation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tardiness_ns: Option<u64>,
    /// Mean per-task tardiness bound (analyses that bound tardiness).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_tardiness_bound_ns: Option<f64>,
    /// Deadline satisfaction ratio (simulations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsr: Option<f64>,
    /// Accrued utility ratio (simulations of tasks with utilities).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aur: Option<f64>,
    /// Preemptions (simulations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemptions: Option<u64>,
    /// Migrations (simulations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migrations: Option<u64>,
    /// Jobs released (simulations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<u64>,
    /// Context switches: switch-ins of jobs and threads (simulations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_switches: Option<u64>,
    /// Threads stolen from another CPU's local queue (simulations; 0 for policies that
    /// never steal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steals: Option<u64>,
    /// Jobs aborted (simulations): by the policy (the utility-accrual policies abort jobs
    /// past their deadline [ChronOS §6]) or at their deadline with `abort_late`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted: Option<u64>,
}

/// The results of one task set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetResult {
    /// CPUs.
    pub cpus: u32,
    /// Index of the point (the bin, for growing sequences).
    pub point: usize,
    /// Index of the set (of the sequence, for growing sequences).
    pub set: u64,
    /// Position in the growing sequence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// Number of tasks.
    pub tasks: usize,
    /// Realised utilization `Σ C/T`.
    pub utilization: f64,
    /// One outcome per evaluation, in the file's order.
    pub outcomes: Vec<Outcome>,
}

/// An evaluation ready to run.
enum Compiled {
    Analysis {
        test: Box<dyn SchedTest>,
        priorities: Priorities,
        overheads: Option<OverheadSetup>,
        reserved_cpus: u32,
    },
    Simulation {
        policy: String,
        config: Box<SimConfig>,
        partition: String,
        priorities: Priorities,
        cluster_size: Option<u32>,
        overheads: Option<ChargedOverheads>,
    },
}

/// The overhead file of a simulation with its section and statistic; evaluated per set (the
/// per-event overheads depend on its number of tasks).
struct ChargedOverheads {
    file: std::sync::Arc<OverheadFile>,
    source: String,
    arch: Option<String>,
    stat: Stat,
}

impl ChargedOverheads {
    /// The simulator's overheads for a set of `n` tasks on `cpus` CPUs (the loader of
    /// `schedlab simulate --overheads`).
    fn for_tasks(&self, n: usize, cpus: u32) -> Result<Overheads, String> {
        Overheads::from_file(
            &self.file,
            &self.source,
            self.arch.as_deref(),
            self.stat,
            n as u64,
            cpus,
        )
        .map_err(|e| e.to_string())
    }
}

fn compile(e: &Experiment, m: u32) -> Result<Vec<(String, Compiled)>, ExpError> {
    let bad = |label: &str, message: String| ExpError::Evaluate {
        evaluation: label.to_string(),
        cpus: m,
        set: 0,
        message,
    };
    // Parsed once per chunk; the validated text travels with the experiment (Dask workers
    // need no access to the file).
    let file = match &e.overhead_file {
        Some(text) => Some(std::sync::Arc::new(
            OverheadFile::parse_toml(text).map_err(|x| bad("overheads", x.to_string()))?,
        )),
        None => None,
    };
    let source = e
        .overheads
        .as_ref()
        .map_or_else(String::new, |p| p.display().to_string());
    e.evaluations
        .iter()
        .map(|ev| {
            let l = ev.label.as_str();
            let c = match &ev.kind {
                EvalKind::Analysis {
                    test,
                    priorities,
                    overheads,
                    reserved_cpus,
                } => Compiled::Analysis {
                    test: registry::by_name(test).map_err(|x| bad(l, x.to_string()))?,
                    priorities: Priorities::parse(priorities).map_err(|x| bad(l, x.to_string()))?,
                    overheads: match (overheads, &file) {
                        (None, _) => None,
                        (Some(o), Some(f)) => Some(OverheadSetup {
                            file: std::sync::Arc::clone(f),
                            source: source.clone(),
                            arch: ArchKind::parse(&o.arch, false).map_err(|x| bad(l, x))?,
                            stat: Stat::parse(&o.stat).map_err(|x| bad(l, x.to_string()))?,
                            granularity: o.granularity_ns.max(1),
                        }),
                        (Some(_), None) => {
                            return Err(bad(
                                l,
                                "overheads asked for without an overhead file".into(),
                            ))
                        }
                    },
                    reserved_cpus: *reserved_cpus,
                },
                EvalKind::Simulation {
                    policy,
                    duration,
                    exec,
                    arrivals,
                    partition,
                    priorities,
                    abort_late,
                    cluster_size,
                    overheads,
                } => {
                    let overheads = match (overheads, &file) {
                        (None, _) => None,
                        (Some(o), Some(f)) => Some(ChargedOverheads {
                            file: std::sync::Arc::clone(f),
                            source: source.clone(),
                            arch: o.arch.clone(),
                            stat: Stat::parse(&o.stat).map_err(|x| bad(l, x.to_string()))?,
                        }),
                        (Some(_), None) => {
                            return Err(bad(
                                l,
                                "overheads asked for without an overhead file".into(),
                            ))
                        }
                    };
                    let duration: Duration =
                        duration.parse().map_err(|x| bad(l, format!("{x}")))?;
                    let mut config = SimConfig::new(m, duration);
                    config.exec = ExecTime::parse(exec).map_err(|x| bad(l, x.to_string()))?;
                    config.arrivals =
                        Arrivals::parse(arrivals).map_err(|x| bad(l, x.to_string()))?;
                    config.abort_late = *abort_late;
                    config.record_jobs = false;
                    config.record_trace = false;
                    Compiled::Simulation {
                        policy: policy.clone(),
                        config: Box::new(config),
                        partition: partition.clone(),
                        priorities: Priorities::parse(priorities)
                            .map_err(|x| bad(l, x.to_string()))?,
                        cluster_size: *cluster_size,
                        overheads,
                    }
                }
            };
            Ok((ev.label.clone(), c))
        })
        .collect()
}

fn run_one(
    label: &str,
    c: &Compiled,
    tasks: &TaskSet,
    m: u32,
    seed: u64,
    set: u64,
) -> Result<Outcome, ExpError> {
    let fail = |message: String| ExpError::Evaluate {
        evaluation: label.to_string(),
        cpus: m,
        set,
        message,
    };
    let mut out = Outcome {
        status: String::new(),
        schedulable: false,
        max_tardiness_ns: None,
        mean_tardiness_bound_ns: None,
        dsr: None,
        aur: None,
        preemptions: None,
        migrations: None,
        jobs: None,
        context_switches: None,
        steals: None,
        aborted: None,
    };
    match c {
        Compiled::Analysis {
            test,
            priorities,
            overheads,
            reserved_cpus,
        } => {
            let cpus = m
                .checked_sub(*reserved_cpus)
                .filter(|&c| c > 0)
                .ok_or_else(|| {
                    fail(format!(
                        "reserved_cpus = {reserved_cpus} leaves no CPU of {m}"
                    ))
                })?;
            let v = match overheads {
                None => {
                    let sys =
                        System::new(tasks, cpus, *priorities).map_err(|x| fail(x.to_string()))?;
                    analyze(test.as_ref(), &sys)
                }
                Some(setup) => ChargedAnalysis::new(tasks, cpus, *priorities, setup)
                    .map_err(fail)?
                    .verdict(test.as_ref()),
            };
            let v = tardiness_as_requested(v, true, tasks.len());
            out.status = v.status.name().to_string();
            out.schedulable = v.is_schedulable();
            if let Some(b) = v.tardiness_bounds.as_deref() {
                out.max_tardiness_ns = Some(b.iter().map(|d| d.as_ns()).max().unwrap_or(0));
                if !b.is_empty() {
                    out.mean_tardiness_bound_ns =
                        Some(b.iter().map(|d| d.as_ns() as f64).sum::<f64>() / b.len() as f64);
                }
            }
        }
        Compiled::Simulation {
            policy,
            config,
            partition,
            priorities,
            cluster_size,
            overheads,
        } => {
            if tasks.is_empty() {
                out.status = "schedulable".into();
                out.schedulable = true;
                return Ok(out);
            }
            let sys = System::new(tasks, m, *priorities).map_err(|x| fail(x.to_string()))?;
            let ranks = sys.priority_ranks().map_err(fail)?;
            // Placements with the split parts of `pfp-ts` (empty for every other policy).
            let placed = policy_inputs(
                policy,
                tasks,
                m,
                partition,
                *cluster_size,
                *priorities,
                None,
            )
            .map(|i| {
                let (split, sizes) = (i.split, i.domain_sizes);
                i.placement.map(|p| {
                    Placement::from(p)
                        .with_split(split)
                        .with_domain_sizes(sizes)
                })
            });
            let placement = match placed {
                Ok(p) => p,
                Err(_) => {
                    out.status = "no-placement".into();
                    return Ok(out);
                }
            };
            let mut config = SimConfig::clone(config);
            config.seed = seed;
            if let Some(o) = overheads {
                config.overheads = Some(o.for_tasks(tasks.len(), m).map_err(fail)?);
            }
            let (result, _) = schedlab_sim::run(tasks, policy, &ranks, placement, &config)
                .map_err(|x| fail(x.to_string()))?;
            let t = &result.totals;
            out.schedulable = t.schedulable;
            out.status = if t.schedulable {
                "schedulable".into()
            } else {
                "deadline-miss".into()
            };
            out.max_tardiness_ns = Some(t.max_tardiness.as_ns());
            out.dsr = Some(t.dsr);
            out.aur = t.aur;
            out.preemptions = Some(t.preemptions);
            out.migrations = Some(t.migrations);
            out.jobs = Some(t.jobs);
            out.context_switches = Some(t.context_switches);
            out.steals = Some(t.steals);
            out.aborted = Some(t.aborted);
        }
    }
    Ok(out)
}

/// Evaluates the sets of `chunk`: every evaluation of the experiment on every set, in set
/// order (for growing sequences: sequence order, then step order, sets outside every bin
/// left out). Pure: the same experiment and chunk give the same results.
pub fn evaluate_chunk(e: &Experiment, chunk: &Chunk) -> Result<Vec<SetResult>, ExpError> {
    if !e.cells().contains(&chunk.cell) || chunk.start >= chunk.end || chunk.end > e.samples {
        return Err(ExpError::BadChunk(chunk.file_name()));
    }
    let m = chunk.cell.cpus;
    let gen_err = |set: u64, message: String| ExpError::Generate {
        cpus: m,
        point: e.describe(chunk.cell),
        set,
        message,
    };
    let generator = e
        .gen_spec(chunk.cell)
        .and_then(|s| s.generator())
        .map_err(|x| gen_err(chunk.start, x.to_string()))?;
    let evaluations = compile(e, m)?;
    let seed = e.cell_seed(chunk.cell);
    let mut out = Vec::new();
    let evaluate = |point: usize,
                    set: u64,
                    step: Option<u32>,
                    g: &schedlab_gen::GeneratedSet|
     -> Result<SetResult, ExpError> {
        let sim_seed = mix(mix(seed, set), step.map_or(0, u64::from));
        let outcomes = evaluations
            .iter()
            .map(|(label, c)| run_one(label, c, &g.tasks, m, sim_seed, set))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SetResult {
            cpus: m,
            point,
            set,
            step,
            tasks: g.tasks.len(),
            utilization: g.utilization,
            outcomes,
        })
    };
    for k in chunk.start..chunk.end {
        match chunk.cell.point {
            Some(point) => {
                let g = generator
                    .generate(k)
                    .map_err(|x| gen_err(k, x.to_string()))?;
                out.push(evaluate(point, k, None, &g)?);
            }
            None => {
                let sequence = generator
                    .sequence(k)
                    .map_err(|x| gen_err(k, x.to_string()))?;
                for (step, g) in sequence.enumerate() {
                    let g = g.map_err(|x| gen_err(k, x.to_string()))?;
                    if let Some(point) = e.bin(m, g.utilization) {
                        let step = u32::try_from(step).unwrap_or(u32::MAX);
                        out.push(evaluate(point, k, Some(step), &g)?);
                    }
                }
            }
        }
    }
    Ok(out)
}
