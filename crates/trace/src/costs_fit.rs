//! Calibration of the scaling model's per-operation costs from runtime traces (`schedlab trace
//! costs`, docs/scaling-calibration.md): the inverse of `schedlab scale`. The model executes
//! each architecture's code paths with the costs of a costs file and reports the overheads of
//! [MP §IV-A, Fig. 5]; here the measured overheads of traces taken at a small m (this
//! machine: m = 2) give back the costs, so that the model at larger m starts from this
//! machine's operations [MP §IV, Figs. 6–7].
//!
//! Two steps, both per architecture (the traces' metadata names it, `architecture`, and m,
//! `cpus`):
//!
//! 1. **Direct mapping** ([`direct`]): each overhead that one operation dominates gives that
//!    operation's cost, its *primary* cost ([`PRIMARY`]): the overhead's measured mean minus the model's
//!    other terms on that path at the trace's m and n, from the costs' defaults
//!    ([`other_terms`]) — e.g. `schedule` = Δsch − (lock acquisition + link),
//!    `release` = Δrel − (lock + three queue operations at ⌈log₂ n⌉ + two preemption scans +
//!    link + IPI send), `context_switch` = Δcxs, `ipi_latency` = Δipi, `timer_irq` = Δev,
//!    `dsp_dequeue` = Δreq, `dsp_handler` = Δdsp − (queue operation + m − 1 checks + link +
//!    cache line), `lock_acquire` = the lock wait (at m = 2 most acquisitions find the lock
//!    free; the refinement takes the model's own contention off). Costs no overhead isolates
//!    (lock handoffs, cache lines, cpudl) keep their defaults: at m = 2 there is at most one
//!    waiter, the traces cannot tell a handoff from a critical section.
//! 2. **Refinement** ([`refine`]), given a predictor (the model itself, which lives in the
//!    simulator crate; the CLI and Python pass it in): run the model at each trace's m and n
//!    on the trace's own task set ([`reconstruct_tasks`]), compare each overhead's predicted
//!    mean with the measured one, and move the overhead's primary cost towards the measured
//!    mean — per cost a secant step `c ← c + (measured − predicted) / slope`, the slope
//!    estimated from the previous two iterations (1 at the first: the cost enters its
//!    overhead once; clamped to [1/4, 64] — a release batch may charge one cost several times
//!    per sample), never below 0. A fixed point is where every predicted mean equals the
//!    measured one; iterations stop when all are within [`Refine::tolerance_ppm`] or after
//!    [`Refine::iterations`]. Where Δev's or Δipi's cost would have to go below 0 (the
//!    model's other terms and noise already exceed the measured mean: the measured spikes
//!    include the path noise's effect on the delivering CPU), the cost stays 0 and the
//!    delivery noise's rate shrinks by measured/predicted instead. Each iteration's largest
//!    relative error is reported (the convergence record that `trace costs` prints and writes
//!    into `[meta]`).
//! 3. **Noise** ([`noise_of`]): the model has three kinds (docs/scaling.md, model item 4).
//!    *Path noise* (`noise_*`) stops a code path before one of its timed steps chosen
//!    uniformly, as a host preemption of a vCPU hits any path anywhere; *delivery noise*
//!    delivers a timer expiry (`timer_noise_*`) or an IPI (`ipi_noise_*`) late, as a halted
//!    vCPU or a sleeping thread is woken late. The traces show them apart: the spikes of Δrel,
//!    Δsch, Δcxs, Δreq, Δdsp stop at a few hundred µs, those of Δev and Δipi reach
//!    milliseconds. Each kind is fitted from its own overheads' *spikes* (Δev for the timers,
//!    Δipi for the IPIs), excesses over the median of at least [`NOISE_FLOOR_NS`]: the rate
//!    (per sample), the range (the floor to the largest spike) and a truncated Pareto whose
//!    mean is the spikes' mean — so rate × mean, what noise adds to an overhead's mean, is the
//!    measured one, and the largest delay the model can draw is the largest measured. The
//!    refinement runs the model with this noise, so it takes the noise's mean off the primary
//!    costs; the maxima are not fitted beyond the range.
//!
//! Assumptions: traces of one architecture share its costs (pooled, each trace predicted at
//! its own m and n); a trace's task set is periodic, as the runtime runs it (periods,
//! execution times and deadlines from the metadata, which records them as the run was given
//! them; read back from the events for traces written before it did, [`reconstruct_tasks`]).
//! Cost: linear in the events per trace, plus the model runs of the refinement (iterations ×
//! traces).

use crate::overheads::{OverheadStats, Overheads};
use crate::stats::{arch_of, task_count};
use crate::{intervals, Event, Kind, Meta};
use schedlab_model::costs::{CostName, CostsFile, OpCosts, MAX_MILLIONTHS};
use schedlab_model::{Duration, Task, TaskSet};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Each overhead that one operation dominates, and that operation's cost.
pub const PRIMARY: [(&str, CostName); 8] = [
    ("release_latency", CostName::TimerIrq),
    ("release", CostName::Release),
    ("ipi", CostName::IpiLatency),
    ("schedule", CostName::Schedule),
    ("context_switch", CostName::ContextSwitch),
    ("request", CostName::DspDequeue),
    ("dsp", CostName::DspHandler),
    ("lock_wait", CostName::LockAcquire),
];

/// The overheads whose spikes are the code paths' noise (`noise_*`). Not the lock wait: its
/// spikes are the *effect* of a noisy lock holder, which the model produces from the paths'
/// noise (and its many short samples would dilute the rate per path).
pub const PATH_NOISE_OVERHEADS: [&str; 5] =
    ["release", "schedule", "context_switch", "request", "dsp"];

/// The overheads [`crate::overheads`] measures that the model predicts (the validation
/// compares these).
pub const MODELLED: [&str; 8] = [
    "release_latency",
    "release",
    "ipi",
    "schedule",
    "context_switch",
    "lock_wait",
    "request",
    "dsp",
];

/// Largest number of traces one calibration reads.
pub const MAX_TRACES: usize = 256;
/// Largest number of tasks of a calibrated trace (the model runs it).
pub const MAX_TASKS: usize = 100_000;
/// Largest cost the calibration writes (the costs file's bound: 10 s).
pub const MAX_COST_NS: u64 = 10_000_000_000;

/// Why traces cannot be calibrated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CostsFitError {
    /// The trace was not measured by the runtime.
    #[error(
        "{trace}: not a runtime trace (engine `{engine}`): only measured overheads calibrate costs"
    )]
    NotRuntime {
        /// The trace.
        trace: String,
        /// The engine its metadata names.
        engine: String,
    },
    /// A metadata field is missing or out of bounds.
    #[error("{trace}: metadata `{field}`: {message}")]
    Meta {
        /// The trace.
        trace: String,
        /// The field.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A task's period or execution time cannot be read back from the trace.
    #[error("{trace}: task {task}: {message}")]
    Task {
        /// The trace.
        trace: String,
        /// The task index.
        task: usize,
        /// What is missing.
        message: String,
    },
    /// Too many traces.
    #[error("{count} traces: at most {MAX_TRACES} are calibrated at once")]
    TooManyTraces {
        /// How many were given.
        count: usize,
    },
    /// No trace has a sample of any overhead with a primary cost.
    #[error("architecture `{arch}`: no sample of any overhead that isolates a cost ({})", PRIMARY.map(|p| p.0).join(", "))]
    NoSamples {
        /// The architecture.
        arch: String,
    },
    /// The predictor (the model) failed.
    #[error("architecture `{arch}`, trace {trace}: the model failed: {message}")]
    Model {
        /// The architecture.
        arch: String,
        /// The trace.
        trace: String,
        /// The model's error.
        message: String,
    },
}

/// One runtime trace, ready for calibration.
#[derive(Clone, Debug)]
pub struct CalTrace {
    /// Where it came from (a file name; used in messages and `[meta]`).
    pub source: String,
    /// The dispatch architecture (metadata `architecture`).
    pub arch: String,
    /// The number of CPUs of the run (metadata `cpus`), every CPU counted.
    pub m: u32,
    /// The task set as the trace ran it ([`reconstruct_tasks`]).
    pub tasks: TaskSet,
    /// The run's length (metadata `duration_ns`, else the last event's time).
    pub duration_ns: u64,
    /// The measured overhead samples.
    pub overheads: Overheads,
}

impl CalTrace {
    /// From a runtime trace (`source` names it in messages).
    pub fn from_trace(
        source: &str,
        meta: &Meta,
        events: &[Event],
    ) -> Result<CalTrace, CostsFitError> {
        let bad = |field: &'static str, message: String| CostsFitError::Meta {
            trace: source.to_string(),
            field,
            message,
        };
        match meta.engine.as_deref() {
            Some("runtime") => {}
            other => {
                return Err(CostsFitError::NotRuntime {
                    trace: source.to_string(),
                    engine: other.unwrap_or("unknown").to_string(),
                })
            }
        }
        let arch = arch_of(meta).ok_or_else(|| bad("architecture", "missing".into()))?;
        let m = meta.cpus.ok_or_else(|| bad("cpus", "missing".into()))?;
        if m == 0 || m > 1024 {
            return Err(bad("cpus", format!("{m} is not in 1..=1024")));
        }
        let tasks = reconstruct_tasks(source, meta, events)?;
        let duration_ns = meta
            .extra
            .get("duration_ns")
            .and_then(serde_json::Value::as_u64)
            .or_else(|| events.iter().map(|e| e.time).max())
            .unwrap_or(0);
        Ok(CalTrace {
            source: source.to_string(),
            arch,
            m,
            tasks,
            duration_ns,
            overheads: Overheads::from_trace(events),
        })
    }

    /// The number of tasks.
    pub fn n(&self) -> usize {
        self.tasks.tasks().len()
    }
}

/// The task set a runtime trace ran. Per task, the period, WCET and deadline are the
/// metadata's (`period_ns`, `wcet_ns`, `deadline_ns`: what the run was given) where it has
/// them; a trace written before those keys existed has them read back from its events: the
/// period is the smallest gap between consecutive intended releases (`release` events' `arg`;
/// the runtime releases periodically, so every gap is the period), the execution time the
/// median over its completed jobs of their executed time (the runtime's jobs burn exactly
/// their WCET of CPU time; the median ignores a job stretched by an interrupt), the deadline
/// the period. The offset is the first intended release (the trace's own time base; the
/// metadata's `offset_ns` if the task was never released). A task that ran on one CPU only
/// under a partitioned architecture keeps that CPU (`cpu`), so the model places it where it
/// ran. Without metadata a task needs at least two releases and one completed job.
pub fn reconstruct_tasks(
    source: &str,
    meta: &Meta,
    events: &[Event],
) -> Result<TaskSet, CostsFitError> {
    let n = task_count(meta, events).map_err(|e| CostsFitError::Meta {
        trace: source.to_string(),
        field: "tasks",
        message: e.to_string(),
    })?;
    if n == 0 || n > MAX_TASKS {
        return Err(CostsFitError::Meta {
            trace: source.to_string(),
            field: "tasks",
            message: format!("{n} tasks: calibration reads 1..={MAX_TASKS}"),
        });
    }
    let mut releases: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut completed: Vec<BTreeSet<u64>> = vec![BTreeSet::new(); n];
    for e in events {
        let Some(t) = usize::try_from(e.task).ok().filter(|&t| t < n) else {
            continue;
        };
        match e.kind {
            Kind::Release => releases[t].push(e.arg),
            Kind::Complete => {
                completed[t].insert(e.seq);
            }
            _ => {}
        }
    }
    let mut executed: HashMap<(u32, u64), u64> = HashMap::new();
    let mut cpus: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n];
    for iv in intervals::intervals(events) {
        *executed.entry((iv.task, iv.seq)).or_default() += iv.len();
        if let Some(c) = cpus.get_mut(iv.task as usize) {
            c.insert(iv.cpu);
        }
    }
    let partitioned = arch_of(meta).is_some_and(|a| a == "partitioned");
    let mut tasks = Vec::with_capacity(n);
    for t in 0..n {
        let fail = |message: &str| CostsFitError::Task {
            trace: source.to_string(),
            task: t,
            message: message.to_string(),
        };
        let mut r = std::mem::take(&mut releases[t]);
        r.sort_unstable();
        r.dedup();
        let given = meta.tasks.get(t);
        let period = match given.and_then(|g| g.period_ns).filter(|&p| p > 0) {
            Some(p) => p,
            None => r
                .windows(2)
                .map(|w| w[1] - w[0])
                .min()
                .ok_or_else(|| fail("fewer than two releases: no period"))?,
        };
        let wcet = match given.and_then(|g| g.wcet_ns).filter(|&c| c > 0) {
            Some(c) => c,
            None => median_executed(t, &completed[t], &executed)
                .ok_or_else(|| fail("no completed job executed: no execution time"))?,
        };
        let deadline = meta.deadline(t as u32).unwrap_or(period);
        let offset = r
            .first()
            .copied()
            .or_else(|| given.and_then(|g| g.offset_ns))
            .unwrap_or(0);
        let mut task = Task::new_unchecked(
            Duration::from_ns(wcet.min(deadline).min(period)),
            Duration::from_ns(deadline),
            Duration::from_ns(period),
        );
        task.offset = Duration::from_ns(offset);
        task.name = meta.tasks.get(t).and_then(|m| m.name.clone());
        if partitioned && cpus[t].len() == 1 {
            task.cpu = cpus[t].first().copied();
        }
        tasks.push(task);
    }
    Ok(TaskSet::new_unchecked(tasks))
}

/// The median executed time of task `t`'s completed jobs (`None` if none executed).
fn median_executed(
    t: usize,
    completed: &BTreeSet<u64>,
    executed: &HashMap<(u32, u64), u64>,
) -> Option<u64> {
    let mut exec: Vec<u64> = completed
        .iter()
        .filter_map(|&seq| executed.get(&(t as u32, seq)).copied())
        .filter(|&x| x > 0)
        .collect();
    exec.sort_unstable();
    exec.get(exec.len() / 2).copied()
}

/// The measured mean, maximum and count of one overhead over several traces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pooled {
    /// Samples.
    pub count: u64,
    /// Mean (ns).
    pub avg_ns: f64,
    /// Largest sample (ns).
    pub max_ns: u64,
}

impl Pooled {
    /// Pools `stats` (count-weighted mean, largest max); `None` if empty.
    pub fn of<'a>(stats: impl IntoIterator<Item = &'a OverheadStats>) -> Option<Pooled> {
        let (mut count, mut sum, mut max) = (0u64, 0f64, 0u64);
        for s in stats {
            count += s.count;
            sum += s.mean_ns * s.count as f64;
            max = max.max(s.max_ns);
        }
        (count > 0).then(|| Pooled {
            count,
            avg_ns: sum / count as f64,
            max_ns: max,
        })
    }
}

/// The measured overheads of each architecture's traces, pooled: arch → overhead → pooled.
pub fn measured(traces: &[CalTrace]) -> BTreeMap<String, BTreeMap<&'static str, Pooled>> {
    let mut stats: BTreeMap<String, BTreeMap<&'static str, Vec<OverheadStats>>> = BTreeMap::new();
    for t in traces {
        for (name, s) in t.overheads.stats() {
            if MODELLED.contains(&name) {
                stats
                    .entry(t.arch.clone())
                    .or_default()
                    .entry(name)
                    .or_default()
                    .push(s);
            }
        }
    }
    stats
        .into_iter()
        .map(|(a, by)| {
            let pooled = by
                .into_iter()
                .filter_map(|(k, v)| Pooled::of(&v).map(|p| (k, p)))
                .collect();
            (a, pooled)
        })
        .collect()
}

/// ⌈log₂ n⌉ for n ≥ 1 (0 for n ≤ 1): the depth term of one queue operation.
fn log2_ceil(n: u64) -> u64 {
    if n <= 1 {
        0
    } else {
        u64::from(64 - (n - 1).leading_zeros())
    }
}

/// The model's other terms on the path of `overhead` under `arch` at `m` CPUs and `n` tasks,
/// from the costs `c` (what the direct mapping subtracts from the measured mean): one job
/// released on an idle system and linked to one CPU, the paths of docs/scaling.md with every
/// queue at length `n` (an upper estimate; the refinement corrects it).
pub fn other_terms(arch: &str, overhead: &str, m: u64, n: u64, c: &OpCosts) -> u64 {
    let qop = c.get(CostName::QueueOp) + c.get(CostName::QueueOpLog) * log2_ceil(n);
    let mp = arch == "message-passing";
    let lock = if mp { 0 } else { c.get(CostName::LockAcquire) };
    // Job CPUs a preemption check scans: every one of a global architecture (the DSP runs
    // none), its own under partitioning.
    let scan = match arch {
        "partitioned" => 1,
        "message-passing" | "global-lock-di" => m.saturating_sub(1),
        _ => m,
    };
    let checks = scan * c.get(CostName::PreemptCheckCpu);
    let line = if mp { c.get(CostName::CacheLine) } else { 0 };
    let ipi = if arch == "partitioned" {
        0
    } else {
        c.get(CostName::IpiSend)
    };
    match overhead {
        // Release + two queue operations, two preemption scans, a link taking the job.
        "release" => lock + 3 * qop + 2 * checks + c.get(CostName::Link) + line + ipi,
        // The message-passing client's scheduler is O(1): its slot's line [MP §III-B].
        "schedule" if mp => line,
        "schedule" => lock + c.get(CostName::Link),
        "request" => c.get(CostName::DspPollClient) * scan.saturating_sub(1),
        "dsp" => qop + checks + c.get(CostName::Link) + line,
        _ => 0,
    }
}

/// One primary overhead over an architecture's traces: its mean and the sample-weighted m and n.
struct Body {
    mean: f64,
    m: f64,
    n: f64,
}

/// The direct mapping (step 1 above) and the noise (step 3) for every architecture of
/// `traces`: a costs file with one `[arch.<A>]` section each (every cost the traces
/// determine; the others keep their defaults), the lock of `lock`.
pub fn direct(traces: &[CalTrace]) -> Result<CostsFile, CostsFitError> {
    if traces.len() > MAX_TRACES {
        return Err(CostsFitError::TooManyTraces {
            count: traces.len(),
        });
    }
    let mut by_arch: BTreeMap<&str, Vec<&CalTrace>> = BTreeMap::new();
    for t in traces {
        by_arch.entry(t.arch.as_str()).or_default().push(t);
    }
    let defaults = OpCosts::default();
    let mut file = CostsFile::default();
    for (arch, ts) in by_arch {
        let mut section = BTreeMap::new();
        for (overhead, cost) in PRIMARY {
            let Some(b) = body(&ts, overhead) else {
                continue;
            };
            let others = other_terms(
                arch,
                overhead,
                b.m.round() as u64,
                b.n.round() as u64,
                &defaults,
            );
            let value = (b.mean.round() as u64)
                .saturating_sub(others)
                .min(MAX_COST_NS);
            section.insert(cost, value);
        }
        if section.is_empty() {
            return Err(CostsFitError::NoSamples {
                arch: arch.to_string(),
            });
        }
        let fit = |overheads: &[&str]| {
            noise_of(ts.iter().map(|t| &t.overheads), overheads, NOISE_FLOOR_NS)
        };
        use CostName as N;
        for (names, fit) in [
            (
                [N::NoisePpm, N::NoiseMin, N::NoiseMax, N::NoiseShape],
                fit(&PATH_NOISE_OVERHEADS),
            ),
            (
                [
                    N::TimerNoisePpm,
                    N::TimerNoiseMin,
                    N::TimerNoiseMax,
                    N::TimerNoiseShape,
                ],
                fit(&["release_latency"]),
            ),
            (
                [
                    N::IpiNoisePpm,
                    N::IpiNoiseMin,
                    N::IpiNoiseMax,
                    N::IpiNoiseShape,
                ],
                fit(&["ipi"]),
            ),
        ] {
            let [ppm, min, max, shape] = names;
            section.insert(ppm, fit.ppm);
            section.insert(min, fit.min.min(MAX_COST_NS));
            section.insert(max, fit.max.min(MAX_COST_NS));
            section.insert(shape, fit.shape.min(MAX_MILLIONTHS));
        }
        file.arch.insert(arch.to_string(), section);
    }
    Ok(file)
}

/// The mean of `overhead` over `traces` (all samples pooled) with the sample-weighted m and n.
fn body(traces: &[&CalTrace], overhead: &str) -> Option<Body> {
    let (mut sum, mut count, mut m, mut n) = (0f64, 0u64, 0f64, 0f64);
    for t in traces {
        let Some(s) = t.overheads.samples.get(overhead) else {
            continue;
        };
        let k = s.len() as f64;
        sum += s.iter().map(|&x| x as f64).sum::<f64>();
        count += s.len() as u64;
        m += f64::from(t.m) * k;
        n += t.n() as f64 * k;
    }
    (count > 0).then(|| {
        let k = count as f64;
        Body {
            mean: sum / k,
            m: m / k,
            n: n / k,
        }
    })
}

/// Excesses over an overhead's median smaller than this are the model's own variation, not
/// noise (step 3): 20 µs, above the µs-scale jitter of caches and queues and below the
/// 80–300 µs stops of a preempted vCPU that this machine's traces show (docs/scaling-calibration.md).
pub const NOISE_FLOOR_NS: u64 = 20_000;

/// The rate of the delivery noise whose spikes `overhead` shows, if it shows one's.
fn delivery_rate(overhead: &str) -> Option<CostName> {
    match overhead {
        "release_latency" => Some(CostName::TimerNoisePpm),
        "ipi" => Some(CostName::IpiNoisePpm),
        _ => None,
    }
}

/// One kind of noise as the costs file states it (`noise_*`, `timer_noise_*`, `ipi_noise_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoiseFit {
    /// Chance per path or delivery, per million.
    pub ppm: u64,
    /// Smallest delay (ns).
    pub min: u64,
    /// Largest delay (ns).
    pub max: u64,
    /// 0: uniform in [min, max]; α × 10⁶: truncated Pareto of index α.
    pub shape: u64,
}

/// The noise of `overheads` in `sets` (step 3). A sample's *excess* is the sample minus its
/// overhead's median in its trace; a *spike* is an excess of at least `floor`. Then
/// `ppm` = 10⁶ × spikes / samples (rounded up, at least 1 when there is a spike);
/// `min` = `floor` (a Pareto's scale is where its tail is counted from); `max` = the largest
/// spike; `shape` = the Pareto index α whose truncated mean on [min, max] equals the spikes'
/// mean (bisection on ln α in [0.01, 100]; spikes heavier than α = 0.01 allows, whose mean
/// only the uniform reaches, get the uniform). No spike: no noise (all zero).
pub fn noise_of<'a>(
    sets: impl IntoIterator<Item = &'a Overheads>,
    overheads: &[&str],
    floor: u64,
) -> NoiseFit {
    let floor = floor.max(1);
    let (mut samples, mut spikes, mut sum, mut max) = (0u64, 0u64, 0f64, 0u64);
    for o in sets {
        for overhead in overheads {
            let Some(s) = o.samples.get(overhead) else {
                continue;
            };
            let Some(st) = OverheadStats::of(s) else {
                continue;
            };
            samples += s.len() as u64;
            for excess in s.iter().map(|&x| x.saturating_sub(st.median_ns)) {
                if excess >= floor {
                    spikes += 1;
                    sum += excess as f64;
                    max = max.max(excess);
                }
            }
        }
    }
    if spikes == 0 || samples == 0 {
        return NoiseFit::default();
    }
    NoiseFit {
        ppm: (spikes * 1_000_000).div_ceil(samples).clamp(1, 1_000_000),
        min: floor,
        max,
        shape: pareto_shape(floor, max, sum / spikes as f64),
    }
}

/// The mean of a Pareto of index `alpha` truncated to `[lo, hi]`, written with `r = lo/hi` so
/// that no power overflows: `lo·α·(r^(α−1) − 1) / ((1 − r^α)(1 − α))`, and
/// `lo·ln(1/r) / (1 − r)` at α = 1.
fn pareto_mean(lo: f64, hi: f64, alpha: f64) -> f64 {
    let r = lo / hi;
    if (alpha - 1.0).abs() < 1e-9 {
        return lo * (1.0 / r).ln() / (1.0 - r);
    }
    lo * alpha * (r.powf(alpha - 1.0) - 1.0) / ((1.0 - r.powf(alpha)) * (1.0 - alpha))
}

/// [`NoiseFit::shape`] for spikes of mean `mean` on `[lo, hi]` (see [`noise_of`]).
fn pareto_shape(lo: u64, hi: u64, mean: f64) -> u64 {
    const A_LO: f64 = 0.01;
    const A_HI: f64 = 100.0;
    if hi <= lo {
        return 1_000_000;
    }
    let (l, h) = (lo as f64, hi as f64);
    if mean >= pareto_mean(l, h, A_LO) {
        return 0;
    }
    if mean <= pareto_mean(l, h, A_HI) {
        return (A_HI * 1e6) as u64;
    }
    // The mean falls as α grows: bisect ln α.
    let (mut a, mut b) = (A_LO.ln(), A_HI.ln());
    for _ in 0..80 {
        let mid = 0.5 * (a + b);
        if pareto_mean(l, h, mid.exp()) > mean {
            a = mid;
        } else {
            b = mid;
        }
    }
    ((0.5 * (a + b)).exp() * 1e6).round() as u64
}

/// The model's answer for one trace: overhead → (mean, maximum, count).
pub type Predicted = BTreeMap<String, Pooled>;

/// Settings of [`refine`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refine {
    /// Most iterations (each runs the model once per trace).
    pub iterations: u32,
    /// Converged when every primary overhead's predicted mean is within this many parts per
    /// million of the measured one (or within [`Refine::tolerance_ns`]).
    pub tolerance_ppm: u64,
    /// … or within this many ns.
    pub tolerance_ns: u64,
}

impl Default for Refine {
    fn default() -> Refine {
        Refine {
            iterations: 8,
            tolerance_ppm: 10_000,
            tolerance_ns: 20,
        }
    }
}

/// One iteration of [`refine`] for one architecture.
#[derive(Clone, Debug, PartialEq)]
pub struct Iteration {
    /// The architecture.
    pub arch: String,
    /// 0 = the model with the direct mapping's costs.
    pub index: u32,
    /// Per primary overhead: (measured mean, predicted mean) in ns with the costs of this
    /// iteration (before its update).
    pub errors: BTreeMap<&'static str, (f64, f64)>,
}

impl Iteration {
    /// The largest |predicted − measured| / measured of this iteration.
    pub fn worst_relative(&self) -> f64 {
        self.errors
            .values()
            .map(|&(meas, pred)| {
                if meas > 0.0 {
                    (pred - meas).abs() / meas
                } else {
                    0.0
                }
            })
            .fold(0.0, f64::max)
    }
}

/// What [`refine`] returns: the costs and how they got there.
#[derive(Clone, Debug)]
pub struct Refined {
    /// The refined costs.
    pub costs: CostsFile,
    /// Every iteration, per architecture in order.
    pub iterations: Vec<Iteration>,
    /// Per architecture: whether the last iteration met the tolerance.
    pub converged: BTreeMap<String, bool>,
}

/// The refinement (step 2 above): starting from `start` (the direct mapping), runs
/// `predict(costs, trace)` — the model at the trace's m and n on its task set — for every trace
/// and moves each primary cost until the pooled predicted means meet the measured ones.
pub fn refine<F>(
    start: CostsFile,
    traces: &[CalTrace],
    settings: Refine,
    mut predict: F,
) -> Result<Refined, CostsFitError>
where
    F: FnMut(&CostsFile, &CalTrace) -> Result<Predicted, String>,
{
    let targets = measured(traces);
    let mut costs = start;
    let mut iterations = Vec::new();
    let mut converged = BTreeMap::new();
    for (arch, target) in &targets {
        let ts: Vec<&CalTrace> = traces.iter().filter(|t| &t.arch == arch).collect();
        // Per primary cost: the previous (cost, predicted mean), for the secant slope.
        let mut previous: BTreeMap<CostName, (f64, f64)> = BTreeMap::new();
        let mut done = false;
        for index in 0..=settings.iterations {
            let predicted = pooled_prediction(&costs, arch, &ts, &mut predict)?;
            let mut it = Iteration {
                arch: arch.clone(),
                index,
                errors: BTreeMap::new(),
            };
            let section = costs.arch.entry(arch.clone()).or_default();
            let mut all_within = true;
            for (overhead, cost) in PRIMARY {
                let (Some(meas), Some(pred)) = (target.get(overhead), predicted.get(overhead))
                else {
                    continue;
                };
                let (meas, pred) = (meas.avg_ns, pred.avg_ns);
                it.errors.insert(overhead, (meas, pred));
                let gap = (meas - pred).abs();
                let within = gap <= settings.tolerance_ns as f64
                    || gap * 1e6 <= settings.tolerance_ppm as f64 * meas;
                all_within &= within;
                if within || index == settings.iterations {
                    continue;
                }
                let c = section
                    .get(&cost)
                    .copied()
                    .unwrap_or_else(|| cost.default_value()) as f64;
                let slope = previous
                    .get(&cost)
                    .filter(|&&(c0, _)| (c - c0).abs() >= 1.0)
                    .map(|&(c0, p0)| (pred - p0) / (c - c0))
                    .filter(|s| s.is_finite())
                    .unwrap_or(1.0)
                    .clamp(0.25, 64.0);
                previous.insert(cost, (c, pred));
                let next = (c + (meas - pred) / slope).round();
                section.insert(cost, next.clamp(0.0, MAX_COST_NS as f64) as u64);
                // The delivery's own cost cannot go below 0: the rest of the overshoot is the
                // delivery noise's, whose rate shrinks in proportion.
                if let (true, Some(rate)) = (next < 0.0 && pred > 0.0, delivery_rate(overhead)) {
                    if let Some(ppm) = section.get(&rate).copied() {
                        let scaled = (ppm as f64 * (meas / pred).clamp(0.0, 1.0)).round();
                        section.insert(rate, scaled as u64);
                    }
                }
            }
            iterations.push(it);
            if all_within {
                done = true;
                break;
            }
        }
        converged.insert(arch.clone(), done);
    }
    Ok(Refined {
        costs,
        iterations,
        converged,
    })
}

/// The model's pooled prediction for the traces `ts` of `arch` (count-weighted means, the
/// largest max).
fn pooled_prediction<F>(
    costs: &CostsFile,
    arch: &str,
    ts: &[&CalTrace],
    predict: &mut F,
) -> Result<BTreeMap<String, Pooled>, CostsFitError>
where
    F: FnMut(&CostsFile, &CalTrace) -> Result<Predicted, String>,
{
    let mut sums: BTreeMap<String, (u64, f64, u64)> = BTreeMap::new();
    for t in ts {
        let p = predict(costs, t).map_err(|message| CostsFitError::Model {
            arch: arch.to_string(),
            trace: t.source.clone(),
            message,
        })?;
        for (name, q) in p {
            let s = sums.entry(name).or_default();
            s.0 += q.count;
            s.1 += q.avg_ns * q.count as f64;
            s.2 = s.2.max(q.max_ns);
        }
    }
    Ok(sums
        .into_iter()
        .filter(|(_, s)| s.0 > 0)
        .map(|(k, (count, sum, max_ns))| {
            (
                k,
                Pooled {
                    count,
                    avg_ns: sum / count as f64,
                    max_ns,
                },
            )
        })
        .collect())
}

#[cfg(test)]
#[path = "costs_fit_tests.rs"]
mod tests;
