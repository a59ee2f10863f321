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
//! (the caller reads them from the overhead file). **Complexity.** `O(n)` big-rational
//! operations; the denominators grow with the distinct periods (`u_rel`), so the cost is
//! `O(n · size of lcm(T))` in the worst case.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

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

fn int(v: u64) -> BigRational {
    BigRational::from_integer(BigInt::from(v))
}

/// Charges `tasks` (one cluster) with `oh` under `rule`; `cpmd` evaluates the CPMD of a
/// working set (bytes → ns); `granularity` in ns (≥ 1).
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
    let cpmd_of = cpmd_per_task(tasks, cpmd)?;
    let n = tasks.len() as u64;
    let u_tck = if oh.tick_period == 0 {
        BigRational::zero()
    } else {
        BigRational::new(BigInt::from(oh.tick), BigInt::from(oh.tick_period))
    };
    let dev = int(oh.release_latency);
    let (scale, cpre, per_job, extra) = match rule {
        Rule::PreemptionCentric {
            dedicated_irq,
            partition,
            cpus,
        } => {
            let u_rel = if dedicated_irq {
                BigRational::zero()
            } else {
                tasks
                    .iter()
                    .filter(|t| t.t > 0)
                    .map(|t| BigRational::new(BigInt::from(oh.release), BigInt::from(t.t)))
                    .fold(BigRational::zero(), |a, b| a + b)
            };
            let scale = BigRational::one() - &u_tck - &u_rel;
            let mut pre = int(oh.tick) + &dev * &u_tck;
            if !dedicated_irq {
                pre += int(n.saturating_mul(oh.release)) + &dev * &u_rel;
            }
            let x = if dedicated_irq {
                oh.ipi.saturating_add(oh.release)
            } else if cpus > 1 && !partition {
                oh.ipi
            } else {
                0
            };
            let per_job = 2 * (u128::from(oh.schedule) + u128::from(oh.context_switch));
            (scale, pre, per_job, u128::from(x))
        }
        Rule::MessagePassing => {
            let scale = BigRational::one() - &u_tck;
            let pre = int(oh.tick) + &dev * &u_tck;
            let per_job = 3 * (u128::from(oh.schedule) + u128::from(oh.context_switch));
            let extra = u128::from(oh.request)
                + u128::from(oh.dsp)
                + 2 * u128::from(oh.ipi)
                + u128::from(oh.release);
            (scale, pre, per_job, extra)
        }
    };
    if !scale.is_positive() {
        return Ok(Charged::IrqOverload);
    }
    let cpre = cpre / &scale;
    let fixed = BigRational::from_integer(BigInt::from(2u8)) * cpre
        + BigRational::from_integer(BigInt::from(extra));
    let g = BigInt::from(granularity);
    let mut out = Vec::with_capacity(tasks.len());
    for (i, (task, &cpd)) in tasks.iter().zip(&cpmd_of).enumerate() {
        let demand = BigInt::from(task.c) + BigInt::from(per_job) + BigInt::from(cpd);
        let c = BigRational::from_integer(demand) / &scale + &fixed;
        let t = i128::from(task.t) - i128::from(oh.release_latency);
        let d = i128::from(task.d) - i128::from(oh.release_latency);
        if t <= 0 || d <= 0 {
            return Ok(Charged::TaskInfeasible(i));
        }
        let window = t.min(d);
        if c > BigRational::from_integer(BigInt::from(window)) {
            return Ok(Charged::TaskInfeasible(i));
        }
        // Round C up, T and D down, to the granularity.
        let c_units = c.ceil().to_integer().div_ceil(&g);
        let c_round = (c_units * &g).to_u64();
        let down = |v: i128| (BigInt::from(v).div_floor(&g) * &g).to_u64();
        let (Some(c_round), Some(t_round), Some(d_round)) = (c_round, down(t), down(d)) else {
            return Ok(Charged::TaskInfeasible(i));
        };
        if c_round > t_round.min(d_round) {
            return Ok(Charged::TaskInfeasible(i));
        }
        out.push((c_round, t_round, d_round));
    }
    Ok(Charged::Ok(out))
}

/// `Δcpd_i` per task: the CPMD of the largest working set among the other tasks (0 bytes for
/// a task without one); all 0 when no task has a working set.
fn cpmd_per_task(
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
