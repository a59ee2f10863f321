//! Overhead accounting: a task set's parameters inflated by a dispatch architecture's run-time
//! overheads, so that an overhead-oblivious test run on the inflated set accounts for them.
//!
//! **Papers.** Preemption-centric interrupt accounting: B. Brandenburg, *Scheduling and Locking
//! in Multiprocessor Real-Time Operating Systems*, PhD dissertation, UNC Chapel Hill, 2011,
//! Ch. 3 (as used by SchedCAT's `overheads/jlfp.py`), which [MP App. B] (G-EDF-MP, RTAS) refers
//! to for GSN-EDF, GSN-EDF-DI, PSN-EDF and SD; the message-passing rule is [MP App. B] as
//! printed. The formulas are the ones fixed in the project's issue for this feature, which
//! follows those sources; in the notation of [MP §IV-A]: Δev release latency, Δrel release,
//! Δsch scheduling, Δcxs context switch, Δipi IPI latency, Δtck tick (period Q), Δreq client
//! request latency, Δdsp DSP handler, Δcpd cache-related preemption/migration delay.
//!
//! **Preemption-centric** (`global-lock`, `global-lock` with a dedicated interrupt CPU,
//! `partitioned` per CPU, `linux-deadline`, clustered per cluster), for a cluster of `n` tasks
//! on `M` CPUs (`M` = the CPUs of the cluster, not the CPUs left for jobs):
//!
//! - `u_tck = Δtck/Q`; `u_rel = Σ_j Δrel/T_j` (0 with a dedicated interrupt CPU);
//!   `uscale = 1 − u_tck − u_rel`;
//! - `cpre = (Δtck + Δev·u_tck + [interrupts on the job CPUs: n·Δrel + Δev·u_rel]) / uscale`;
//! - `C' = (C + 2(Δsch + Δcxs) + Δcpd_i)/uscale + 2·cpre + X`, with `X = Δipi + Δrel` with a
//!   dedicated interrupt CPU, else `Δipi` when `M > 1` and 0 when `M = 1` or for a partition;
//! - `T' = T − Δev`, `D' = D − Δev`.
//!
//! **Message-passing** (G-EDF-MP): `T' = T − Δev`, `D' = D − Δev`,
//! `C' = (C + 3(Δsch + Δcxs) + Δcpd_i)/(1 − u_tck) + 2·cpre + Δreq + Δdsp + 2·Δipi + Δrel`
//! with `cpre = (Δtck + Δev·u_tck)/(1 − u_tck)`.
//!
//! `Δcpd_i` is the CPMD of the largest working set among the *other* tasks of the cluster (the
//! preempting job pays for the cache it destroys); a task without a working set counts as 0
//! bytes; when no task has a working set, `Δcpd_i = 0` and no CPMD curve is needed.
//!
//! **Failures**, in this order: `uscale ≤ 0` (resp. `1 − u_tck ≤ 0`) is *irq-overload*; then,
//! per task in input order, `T' ≤ 0`, `D' ≤ 0`, `C'/min(T', D') > 1`, or after rounding
//! `C'' > min(T'', D'')`, is *task-infeasible* with that task's index (the first one).
//!
//! **Rounding.** Exact rational arithmetic in ns (the overheads are whole ns), then `C` up and
//! `T`, `D` down to a multiple of the granularity `g` (1 ns by default; LITMUS^RT-era studies
//! use 1 µs): `C'' = ⌈C'/g⌉·g`, `T'' = ⌊T'/g⌋·g`, `D'' = ⌊D'/g⌋·g`.
//!
//! **Assumptions.** Sporadic tasks; overhead values already evaluated at the cluster's `n`
//! (the caller reads them from the overhead file). **Complexity.** `O(n)` float operations
//! with a rigorous error bound; exact rationals only where the float enclosure cannot decide a
//! rounding (see [`charge`]), where the release utilization's denominator grows with the lcm of
//! the periods.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive};

/// The overheads one cluster pays, in ns, evaluated at its number of tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overheads {
    /// Δev: release latency.
    pub release_latency: u64,
    /// Δrel: release.
    pub release: u64,
    /// Δsch: scheduling.
    pub schedule: u64,
    /// Δcxs: context switch.
    pub context_switch: u64,
    /// Δipi: IPI latency (global architectures).
    pub ipi: u64,
    /// Δtck: tick.
    pub tick: u64,
    /// Q: the tick period (must be > 0 when `tick` is charged).
    pub tick_period: u64,
    /// Δreq: client request latency (message-passing).
    pub request: u64,
    /// Δdsp: DSP handler (message-passing).
    pub dsp: u64,
    /// tmr: timer event insert/remove (semi-partitioned).
    pub timer: u64,
    /// S_add: sleep-queue insert (semi-partitioned).
    pub sleep_add: u64,
    /// S_take: sleep-queue search and remove (semi-partitioned).
    pub sleep_take: u64,
    /// R_add_l: local ready-queue insert, uncontended (semi-partitioned).
    pub ready_add_local: u64,
    /// R_add_r: remote ready-queue insert, uncontended (semi-partitioned).
    pub ready_add_remote: u64,
    /// R_take: ready-queue search and remove, uncontended (semi-partitioned).
    pub ready_take: u64,
}

impl Overheads {
    /// The margin [RTPS §V] adds to a non-split task besides the cache term `ch_l`, with each
    /// ready-queue operation counted `k = max(1, split tasks hosted by the CPU)` times
    /// [RTPS §VI-A]: `sch + S_take + S_add + k·R_add_l + 2k·R_take + tmr + 2·cnt`.
    pub fn rtps_whole_margin(&self, k: u32) -> u128 {
        let k = u128::from(k.max(1));
        u128::from(self.schedule)
            + u128::from(self.sleep_take)
            + u128::from(self.sleep_add)
            + k * u128::from(self.ready_add_local)
            + 2 * k * u128::from(self.ready_take)
            + u128::from(self.timer)
            + 2 * u128::from(self.context_switch)
    }
}

/// Which rule charges the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Preemption-centric accounting.
    PreemptionCentric {
        /// Interrupts go to a dedicated CPU that runs no job (GSN-EDF-DI).
        dedicated_irq: bool,
        /// The cluster is one partition (one CPU of a partitioned scheduler): no IPI term.
        partition: bool,
        /// The CPUs of the cluster (`M`).
        cpus: u32,
    },
    /// [MP App. B], G-EDF-MP.
    MessagePassing,
    /// [RTPS §V], a non-split task of the semi-partitioned scheduler (every task charged as
    /// one that is not split, on a CPU hosting no split task):
    /// `C̄ = C + sch + S_take + S_add + R_add_l + 2·R_take + tmr + 2·cnt + ch_l`, `ch_l` the
    /// preemption CPMD curve at the largest working set of the cluster, 0 bytes when no task
    /// has one (RTPS's "common upper bound"; a constant curve charges its constant to every
    /// task, as [RTPS §VII] does); `T`, `D` unchanged. Split parts are charged by
    /// `crate::semi::rtps_costs`.
    SemiPartitioned,
}

/// One task to charge: its parameters in ns and its working set in bytes, if known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskIn {
    /// WCET.
    pub c: u64,
    /// Period (minimum inter-arrival time).
    pub t: u64,
    /// Relative deadline.
    pub d: u64,
    /// Working-set size in bytes.
    pub wss: Option<u64>,
}

/// The outcome of charging a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Charged {
    /// Every task fits: `(C'', T'', D'')` per task, in input order, rounded.
    Ok(Vec<(u64, u64, u64)>),
    /// `uscale ≤ 0`: interrupts (ticks and releases) use up the CPUs.
    IrqOverload,
    /// The first task (input order) that cannot fit after inflation.
    TaskInfeasible(usize),
}

impl Charged {
    /// The status name of the JSON output: `ok`, `irq-overload`, `task-infeasible`.
    pub fn status(&self) -> &'static str {
        match self {
            Charged::Ok(_) => "ok",
            Charged::IrqOverload => "irq-overload",
            Charged::TaskInfeasible(_) => "task-infeasible",
        }
    }
}

/// Errors in the inputs of [`charge`] (not outcomes of the accounting).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AccountingError {
    /// A tick is charged but its period is 0.
    #[error("the tick overhead is {0} ns but the tick period is 0 (give `tick_period`)")]
    NoTickPeriod(u64),
    /// The granularity is 0.
    #[error("the granularity must be at least 1 ns")]
    ZeroGranularity,
    /// A working set is given but no CPMD curve.
    #[error(
        "task {0} has a working set but the overhead file has no CPMD curve for this architecture"
    )]
    NoCpmd(usize),
}

/// What a rule adds, independent of the tasks: whether release interrupts hit the job CPUs
/// (the `u_rel` and `n·Δrel` terms), the per-job scheduling cost and the constant added
/// after the division (module documentation). Wide integers: no sum of u64 overheads
/// overflows.
struct RuleTerms {
    irq_on_job_cpus: bool,
    per_job: u128,
    extra: u128,
}

impl RuleTerms {
    fn of(rule: Rule, oh: &Overheads) -> RuleTerms {
        let sched = u128::from(oh.schedule) + u128::from(oh.context_switch);
        match rule {
            Rule::PreemptionCentric {
                dedicated_irq,
                partition,
                cpus,
            } => RuleTerms {
                irq_on_job_cpus: !dedicated_irq,
                per_job: 2 * sched,
                extra: if dedicated_irq {
                    u128::from(oh.ipi) + u128::from(oh.release)
                } else if cpus > 1 && !partition {
                    u128::from(oh.ipi)
                } else {
                    0
                },
            },
            Rule::SemiPartitioned => RuleTerms {
                irq_on_job_cpus: false,
                per_job: oh.rtps_whole_margin(1),
                extra: 0,
            },
            Rule::MessagePassing => RuleTerms {
                irq_on_job_cpus: false,
                per_job: 3 * sched,
                extra: u128::from(oh.request)
                    + u128::from(oh.dsp)
                    + 2 * u128::from(oh.ipi)
                    + u128::from(oh.release),
            },
        }
    }
}

/// Charges `tasks` (one cluster) with `oh` under `rule`; `cpmd` evaluates the CPMD of a
/// working set (bytes → ns); `granularity` in ns (≥ 1).
///
/// **How it stays exact and fast.** Both rules reduce to one division per task: with
/// `A_i = C_i + k(Δsch + Δcxs) + Δcpd_i + 2Δtck + 2Δev + [interrupts on the job CPUs: 2nΔrel]`
/// (`k` = 2, or 3 for message passing), `2·cpre = (2Δtck + 2Δev + [2nΔrel])/uscale − 2Δev`
/// (because `Δev·(u_tck + u_rel) = Δev·(1 − uscale)`), so `C'_i = A_i/uscale − 2Δev + X` and
/// `⌈C'_i⌉ = ⌈A_i/uscale⌉ − 2Δev + X`. `uscale` is known to floating-point precision with a
/// rigorous error bound ([`Scale`]); `⌈A_i/uscale⌉` is taken from the float enclosure when both
/// ends round up to the same integer, and from exact rationals otherwise (values at or near an
/// integer, `uscale` near 0). The exact `uscale` — whose denominator is the lcm of the periods —
/// is built only then, so a typical set costs `O(n)` float operations.
pub fn charge(
    tasks: &[TaskIn],
    oh: &Overheads,
    rule: Rule,
    cpmd: Option<&dyn Fn(u64) -> u64>,
    granularity: u64,
) -> Result<Charged, AccountingError> {
    if granularity == 0 {
        return Err(AccountingError::ZeroGranularity);
    }
    if oh.tick > 0 && oh.tick_period == 0 {
        return Err(AccountingError::NoTickPeriod(oh.tick));
    }
    let cpmd_of = cpmd_for_rule(tasks, cpmd, rule)?;
    let n = tasks.len() as u128;
    let RuleTerms {
        irq_on_job_cpus,
        per_job,
        extra,
    } = RuleTerms::of(rule, oh);
    let scale = Scale::new(oh, irq_on_job_cpus.then_some(tasks));
    if !scale.is_positive() {
        return Ok(Charged::IrqOverload);
    }
    let two_dev = 2 * u128::from(oh.release_latency);
    let mut base = 2 * u128::from(oh.tick) + two_dev;
    if irq_on_job_cpus {
        base += 2 * n * u128::from(oh.release);
    }
    let g = granularity;
    let dev = oh.release_latency;
    let mut out = Vec::with_capacity(tasks.len());
    for (i, (task, &cpd)) in tasks.iter().zip(&cpmd_of).enumerate() {
        let a = u128::from(task.c) + per_job + u128::from(cpd) + base;
        // ⌈C'⌉ = ⌈A/uscale⌉ − 2Δev + X ≥ X, since A/uscale ≥ A ≥ 2Δev.
        let c_ceil = (scale.ceil_div(a) + extra).saturating_sub(two_dev);
        let (Some(t), Some(d)) = (
            task.t.checked_sub(dev).filter(|&v| v > 0),
            task.d.checked_sub(dev).filter(|&v| v > 0),
        ) else {
            return Ok(Charged::TaskInfeasible(i));
        };
        // C' > min(T', D') ⟺ ⌈C'⌉ > min(T', D') for an integer window; past this check
        // ⌈C'⌉ fits in u64.
        let c_ceil = match u64::try_from(c_ceil) {
            Ok(c) if c <= t.min(d) => c,
            _ => return Ok(Charged::TaskInfeasible(i)),
        };
        // Round C up, T and D down, to the granularity (C ≤ T already, so no overflow).
        let (c, t, d) = if g == 1 {
            (c_ceil, t, d)
        } else {
            (c_ceil.div_ceil(g) * g, t / g * g, d / g * g)
        };
        if c > t.min(d) {
            return Ok(Charged::TaskInfeasible(i));
        }
        out.push((c, t, d));
    }
    Ok(Charged::Ok(out))
}

/// The terms of a charge, for a person to check by hand (`schedlab overheads charge` prints
/// them): the rates and the inflation's parts as decimals (the charge itself is exact).
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The rule applied.
    pub rule: Rule,
    /// The overheads, evaluated at the cluster's n.
    pub overheads: Overheads,
    /// `u_tck = Δtck/Q`.
    pub u_tck: f64,
    /// `u_rel = Σ Δrel/T_j` (0 with a dedicated interrupt CPU or for message passing).
    pub u_rel: f64,
    /// The divisor of the per-job demand: `1 − u_tck − u_rel` (`1 − u_tck` for message
    /// passing).
    pub uscale: f64,
    /// `cpre` in ns.
    pub cpre: f64,
    /// Per-job scheduling cost: `2(Δsch + Δcxs)` (`3(…)` for message passing).
    pub per_job: u128,
    /// The constant added after the division: `X` (preemption-centric) or
    /// `Δreq + Δdsp + 2Δipi + Δrel` (message passing).
    pub extra: u128,
    /// `Δcpd_i` per task.
    pub cpmd: Vec<u64>,
}

impl Explanation {
    /// The terms as JSON (Python's `charge_overheads(…)["breakdown"]`): the overheads in ns,
    /// `u_tck`, `u_rel`, `uscale`, `cpre` (ns), `per_job` and `extra` (ns), and per task
    /// `cpmd` (Δcpd_i, ns) and `inflated` (the exact `C'_i` before rounding, ns, as a decimal)
    /// for the WCETs `wcets` (ns, input order).
    pub fn to_json(&self, wcets: &[u64]) -> serde_json::Value {
        let o = &self.overheads;
        serde_json::json!({
            "overheads_ns": {
                "release_latency": o.release_latency, "release": o.release,
                "schedule": o.schedule, "context_switch": o.context_switch, "ipi": o.ipi,
                "tick": o.tick, "tick_period": o.tick_period, "request": o.request, "dsp": o.dsp,
            },
            "u_tck": self.u_tck,
            "u_rel": self.u_rel,
            "uscale": self.uscale,
            "cpre_ns": self.cpre,
            "per_job_ns": u64::try_from(self.per_job).unwrap_or(u64::MAX),
            "extra_ns": u64::try_from(self.extra).unwrap_or(u64::MAX),
            "cpmd_ns": self.cpmd,
            "inflated_ns": wcets.iter().enumerate().map(|(i, &c)| self.inflated(i, c)).collect::<Vec<f64>>(),
        })
    }

    /// `C'_i` before rounding, as a decimal.
    pub fn inflated(&self, i: usize, c: u64) -> f64 {
        let cpd = self.cpmd.get(i).copied().unwrap_or(0);
        (c as f64 + self.per_job as f64 + cpd as f64) / self.uscale
            + 2.0 * self.cpre
            + self.extra as f64
    }
}

/// The terms [`charge`] uses for `tasks` (same inputs, same errors), as decimals.
pub fn explain(
    tasks: &[TaskIn],
    oh: &Overheads,
    rule: Rule,
    cpmd: Option<&dyn Fn(u64) -> u64>,
) -> Result<Explanation, AccountingError> {
    if oh.tick > 0 && oh.tick_period == 0 {
        return Err(AccountingError::NoTickPeriod(oh.tick));
    }
    let cpmd_of = cpmd_for_rule(tasks, cpmd, rule)?;
    let u_tck = if oh.tick_period == 0 {
        0.0
    } else {
        oh.tick as f64 / oh.tick_period as f64
    };
    let dev = oh.release_latency as f64;
    let n = tasks.len() as f64;
    let RuleTerms {
        irq_on_job_cpus: irq,
        per_job,
        extra,
    } = RuleTerms::of(rule, oh);
    let u_rel: f64 = if irq {
        tasks
            .iter()
            .filter(|t| t.t > 0)
            .map(|t| oh.release as f64 / t.t as f64)
            .sum()
    } else {
        0.0
    };
    let uscale = 1.0 - u_tck - u_rel;
    let mut pre = oh.tick as f64 + dev * u_tck;
    if irq {
        pre += n * oh.release as f64 + dev * u_rel;
    }
    Ok(Explanation {
        rule,
        overheads: *oh,
        u_tck,
        u_rel,
        uscale,
        cpre: pre / uscale,
        per_job,
        extra,
        cpmd: cpmd_of,
    })
}

/// `uscale = 1 − Δtck/Q − Δrel·Σ_j 1/T_j` (the release term only when `periods` is given):
/// a float value with a rigorous bound on its error, and the exact rational on demand.
pub(crate) struct Scale<'a> {
    tick: u64,
    tick_period: u64,
    release: u64,
    periods: Option<&'a [TaskIn]>,
    /// `(value, error bound)`, or `None` when an input is too large for the float path.
    approx: Option<(f64, f64)>,
    /// `(1 − 6u)/(v + e)` and `(1 + 6u)/(v − e)` for the enclosure `v ± e` with `v − e > 0`:
    /// `a` times them brackets `a/uscale` (each of the reciprocal and the product rounds once,
    /// `(1 + u)³(1 − 6u) < 1`).
    reciprocals: Option<(f64, f64)>,
    exact: std::cell::OnceCell<BigRational>,
}

/// Integers below this convert to `f64` exactly.
const F64_EXACT: u128 = 1 << 52;

impl<'a> Scale<'a> {
    pub(crate) fn new(oh: &Overheads, periods: Option<&'a [TaskIn]>) -> Scale<'a> {
        let mut scale = Scale {
            tick: oh.tick,
            tick_period: oh.tick_period,
            release: oh.release,
            periods,
            approx: None,
            reciprocals: None,
            exact: std::cell::OnceCell::new(),
        };
        scale.approx = scale.float();
        let u = f64::EPSILON / 2.0;
        scale.reciprocals = scale
            .approx
            .filter(|&(v, e)| v - e > 0.0)
            .map(|(v, e)| ((1.0 - 6.0 * u) / (v + e), (1.0 + 6.0 * u) / (v - e)));
        scale
    }

    /// The float enclosure. With `u` = 2⁻⁵³ and every input below 2⁵² (exact in `f64`):
    /// `Σ 1/T_j` over `k` terms is within `(k + 1)·u` relative (each quotient and each addition
    /// rounds once, all terms positive); a product or quotient adds `u`; the two subtractions
    /// add `u` of their operands each. The bound used is twice the sum of those.
    fn float(&self) -> Option<(f64, f64)> {
        let u = f64::EPSILON / 2.0;
        let small = |v: u64| u128::from(v) < F64_EXACT;
        if !small(self.tick) || !small(self.tick_period) || !small(self.release) {
            return None;
        }
        let (a, e_a) = if self.tick_period == 0 {
            (0.0, 0.0)
        } else {
            let a = self.tick as f64 / self.tick_period as f64;
            (a, u * a)
        };
        let (b, e_b) = match self.periods {
            Some(tasks) if self.release > 0 => {
                let mut sum = 0.0f64;
                let mut k = 0u32;
                for t in tasks.iter().filter(|t| t.t > 0) {
                    if !small(t.t) {
                        return None;
                    }
                    sum += 1.0 / t.t as f64;
                    k += 1;
                }
                let e_sum = (f64::from(k) + 1.0) * u * sum;
                let p = self.release as f64;
                let b = p * sum;
                (b, p * e_sum + 2.0 * u * b)
            }
            _ => (0.0, 0.0),
        };
        let value = (1.0 - a) - b;
        let e_sub = 2.0 * u * (1.0 + a + b);
        Some((value, 2.0 * (e_a + e_b + e_sub) + f64::MIN_POSITIVE))
    }

    fn exact(&self) -> &BigRational {
        self.exact.get_or_init(|| {
            let mut s = BigRational::one();
            if self.tick_period > 0 {
                s -= BigRational::new(BigInt::from(self.tick), BigInt::from(self.tick_period));
            }
            if let Some(tasks) = self.periods {
                let p = BigInt::from(self.release);
                for t in tasks.iter().filter(|t| t.t > 0) {
                    s -= BigRational::new(p.clone(), BigInt::from(t.t));
                }
            }
            s
        })
    }

    /// `uscale > 0`.
    pub(crate) fn is_positive(&self) -> bool {
        match self.approx {
            Some((v, e)) if v > e => true,
            Some((v, e)) if v < -e => false,
            _ => self.exact().is_positive(),
        }
    }

    /// `⌈a / uscale⌉`, for `uscale > 0`; saturates at `u128::MAX`.
    pub(crate) fn ceil_div(&self, a: u128) -> u128 {
        if let Some((lo_inv, hi_inv)) = self.reciprocals {
            // Conversions through u64: u128 ↔ f64 is done in software.
            if let Some(a) = u64::try_from(a).ok().filter(|&a| u128::from(a) < F64_EXACT) {
                let a = a as f64;
                let (lo, hi) = (a * lo_inv, a * hi_inv);
                let (lo, hi) = (lo.ceil(), hi.ceil());
                if hi < F64_EXACT as f64 && lo == hi {
                    return u128::from(hi as u64);
                }
            }
        }
        let q = BigRational::from_integer(BigInt::from(a)) / self.exact();
        q.ceil().to_integer().to_u128().unwrap_or(u128::MAX)
    }
}

/// `Δcpd_i` per task: the CPMD of the largest working set among the other tasks (0 bytes for
/// a task without one); all 0 when no task has a working set.
/// `Δcpd_i` per task under `rule`: the largest *other* working set's CPMD, or for
/// [`Rule::SemiPartitioned`] the largest working set's, 0 bytes if none (a common bound for
/// every task).
fn cpmd_for_rule(
    tasks: &[TaskIn],
    cpmd: Option<&dyn Fn(u64) -> u64>,
    rule: Rule,
) -> Result<Vec<u64>, AccountingError> {
    if rule != Rule::SemiPartitioned {
        return cpmd_per_task(tasks, cpmd);
    }
    // RTPS's common bound: the curve at the largest working set, 0 bytes when no task has
    // one (a constant curve then charges its constant, as [RTPS §VII] does).
    let largest = tasks.iter().filter_map(|t| t.wss).max().unwrap_or(0);
    let value = match (cpmd, tasks.iter().position(|t| t.wss.is_some())) {
        (Some(f), _) => f(largest),
        (None, Some(i)) => return Err(AccountingError::NoCpmd(i)),
        (None, None) => 0,
    };
    Ok(vec![value; tasks.len()])
}

pub(crate) fn cpmd_per_task(
    tasks: &[TaskIn],
    cpmd: Option<&dyn Fn(u64) -> u64>,
) -> Result<Vec<u64>, AccountingError> {
    let Some(first_with) = tasks.iter().position(|t| t.wss.is_some()) else {
        return Ok(vec![0; tasks.len()]);
    };
    let Some(cpmd) = cpmd else {
        return Err(AccountingError::NoCpmd(first_with));
    };
    // The largest and second-largest working sets: task i sees the largest unless it is the
    // (first) largest itself, then the second.
    let sizes: Vec<u64> = tasks.iter().map(|t| t.wss.unwrap_or(0)).collect();
    let mut largest: Option<(usize, u64)> = None;
    for (i, &s) in sizes.iter().enumerate() {
        if largest.is_none_or(|(_, l)| s > l) {
            largest = Some((i, s));
        }
    }
    let second = |skip: usize| {
        sizes
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != skip)
            .map(|(_, &s)| s)
            .max()
    };
    let Some((top, top_size)) = largest else {
        return Ok(Vec::new());
    };
    let second_size = second(top);
    Ok((0..tasks.len())
        .map(|i| {
            let other = if i == top {
                second_size
            } else {
                Some(top_size)
            };
            other.map_or(0, cpmd)
        })
        .collect())
}
