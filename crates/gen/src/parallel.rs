//! Parallel (fork-join) tasks: the structure of each generated task [RTWS §III], drawn from
//! one string, and the task sets of the RTWS experiments [RTWS §VI, Table I].
//!
//! # Structures ([`ParallelDist`])
//!
//! A structure splits a task's WCET `C` (drawn as for any task, from its utilization and
//! period) into regions of threads, so the work `T1` of every generated parallel task is its
//! `C` exactly and the set's utilization is what the shape drew:
//!
//! | string | regions |
//! |---|---|
//! | `rtws:M` | [RTWS §VI] for `M` CPUs: a sequential segment, a region of `n = ⌈x·2M⌉` threads (`x` uniform on (0, 1], so `n` is uniform on `1..=2M`), a last sequential segment |
//! | `forkjoin:regions=A..B,threads=C..D[,lengths=L]` | a uniform number of regions in `A..=B`, each with a uniform number of threads in `C..=D` (a region of one thread is a sequential segment); `A` alone means `A..A` |
//!
//! Thread lengths (`lengths=`, default `uniform`; `rtws:M` uses `uniform`): `C` is shared out
//! in proportion to integer weights, each thread getting at least 1 ns.
//! - `uniform`: every thread draws its own weight, uniform on `1..=2^32`: lengths vary freely
//!   within and across regions ("Sequential, parallel, and total execution times were derived
//!   randomly" [RTWS §VI]);
//! - `equal`: every region draws one weight for all its threads: the threads of a region are
//!   equally long (within 1 ns), regions differ.
//!
//! The sharing is exact integer arithmetic (largest remainders, ties to the lower thread), so
//! the threads add up to `C` on every platform. A task whose `C` (in ns) is smaller than its
//! number of threads cannot give each thread 1 ns: an error naming the task.
//!
//! Bounds, checked when the string is read: `1 ≤ A ≤ B ≤ 1024` regions, `1 ≤ C ≤ D ≤ 4096`
//! threads per region, and `B·D ≤ 65,536` threads per task (the model's bounds,
//! [`schedlab_model::parallel`]), so no draw can exceed them; `1 ≤ M ≤ 2048`.
//!
//! Reproducibility: the structures of set `k` are drawn after the set is built, in task
//! order, from a stream of their own ([`parallel_rng`]: ChaCha8 stream `k` under the batch key
//! with every byte XORed with `0xAA`), so turning structures on changes no task's timing, and
//! in a growing sequence a task keeps its structure as the set grows. Per task: the counts
//! (regions, then threads of each region in order; `rtws`: `n`), then the weights in thread
//! order. O(k) per task of `k` threads.
//!
//! # The task sets of [RTWS §VI, Table I] ([`rtws_spec`])
//!
//! Our reading of §VI, stated because the paper leaves parts implicit:
//! - **Utilizations**: `u_i = u_min + x·(u_max − u_min)` with `u_min = 0.1`, `u_max = 0.5`:
//!   uniform on `[0.1, 0.5]` (`uniform:0.1..0.5`).
//! - **Periods**: `T_i = T_min + x·(T_max − T_min)`, 700–800 ms: uniform on `[700 ms, 800 ms]`
//!   in whole nanoseconds (`uniform:700ms..800ms`); `C_i = ⌊T_i·u_i⌋` (floor rounding);
//!   implicit deadlines (§III).
//! - **Utilization windows** `[U_Πmin, U_Πmax]` — `[0.38, 0.40]`, `[0.58, 0.60]`,
//!   `[0.73, 0.75]` ([`RTWS_WINDOWS`]) — are fractions of the platform, `U_Π / m`: Table I's
//!   columns read "38–40%" and its task counts fit only that reading (at `m = 4`, 102 tasks in
//!   20 sets of mean `u = 0.3` is `U ≈ 1.53 = 0.38·4`; with an absolute window of 0.38–0.40 a
//!   set would hold one or two tasks at every `m`). The upper end 0.75 is Eq. 1's bound
//!   `m − u_max·(m − 1)` for `m = 2`, the base case.
//! - **Number of tasks**: "totally dynamic, based on the system utilisation window condition
//!   being satisfied": tasks are drawn until the realised total `Σ C_i/T_i` reaches
//!   `U_Πmin·m`; a set that then exceeds `U_Πmax·m` is discarded whole and drawn again
//!   ([`crate::Shape::Window`]), so every set lies in the window.
//! - **Threads**: `n_i = x·(m·2)` threads per task, read as the width of its one parallel
//!   region, `⌈x·2m⌉` with `x` uniform on (0, 1] (a thread count is a positive integer);
//!   Table I's total threads per task (e.g. 457/102 ≈ 4.5 at `m = 4`, 128/50 ≈ 2.6 at
//!   `m = 2`) fit the mean `(2m + 1)/2` of this reading.
//! - **Structure**: "each of the task's jobs (i) executes sequentially; (ii) splits into
//!   multiple parallel threads; and (iii) synchronises at the end of the parallel region,
//!   resuming the execution of the master thread": three regions `[seq] [n_i threads] [seq]`
//!   (`rtws:m`), the master thread's segments not counted in `n_i`.
//! - **Execution times**: "Sequential, parallel, and total execution times were derived
//!   randomly, with the actual total execution time upper bounded by `C_i`": the total is
//!   `C_i` exactly (the bound attained, so the analysis' `C_i` is the work), shared out with
//!   `uniform` weights.

use crate::error::GenError;
use crate::rng::{below, between, GenRng};
use rand_chacha::rand_core::SeedableRng;
use schedlab_model::parallel::{
    ParallelRegion, ParallelStructure, MAX_PARALLEL_REGIONS, MAX_PARALLEL_THREADS,
    MAX_REGION_THREADS,
};
use schedlab_model::Duration;
use std::fmt;

/// The utilization windows of [RTWS §VI, Table I], as fractions of the platform (`U / m`).
pub const RTWS_WINDOWS: [(f64, f64); 3] = [(0.38, 0.40), (0.58, 0.60), (0.73, 0.75)];
/// Per-task utilizations of [RTWS §VI]: uniform on `[0.1, 0.5]`.
pub const RTWS_UTILIZATIONS: &str = "uniform:0.1..0.5";
/// Periods of [RTWS §VI]: uniform on `[700 ms, 800 ms]`.
pub const RTWS_PERIODS: &str = "uniform:700ms..800ms";
/// The largest `M` of `rtws:M`: its parallel region has up to `2M` threads.
pub const MAX_RTWS_CPUS: u32 = (MAX_REGION_THREADS / 2) as u32;

const KIND: &str = "parallel structure";

/// How a task's WCET is shared among its threads (module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThreadLengths {
    /// Every thread draws its own weight.
    #[default]
    Uniform,
    /// Every region draws one weight for all its threads.
    Equal,
}

/// How the fork-join structure of each task is drawn (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParallelDist {
    /// [RTWS §VI] for `cpus` CPUs: `[seq] [⌈x·2·cpus⌉ threads] [seq]`, uniform lengths.
    Rtws {
        /// The platform's CPU count `m` (1 to [`MAX_RTWS_CPUS`]).
        cpus: u32,
    },
    /// Random fork-join shapes.
    ForkJoin {
        /// Number of regions, uniform on `regions.0..=regions.1`.
        regions: (u32, u32),
        /// Threads per region, uniform on `threads.0..=threads.1`.
        threads: (u32, u32),
        /// How the WCET is shared among the threads.
        lengths: ThreadLengths,
    },
}

impl ParallelDist {
    /// Reads `rtws:M` or `forkjoin:regions=A..B,threads=C..D[,lengths=uniform|equal]`, with
    /// the bounds of the module doc.
    ///
    /// ```
    /// use schedlab_gen::parallel::{ParallelDist, ThreadLengths};
    /// assert_eq!(ParallelDist::parse("rtws:4").unwrap(), ParallelDist::Rtws { cpus: 4 });
    /// assert_eq!(
    ///     ParallelDist::parse("forkjoin:regions=1..3,threads=2..8,lengths=equal").unwrap(),
    ///     ParallelDist::ForkJoin { regions: (1, 3), threads: (2, 8), lengths: ThreadLengths::Equal }
    /// );
    /// assert!(ParallelDist::parse("forkjoin:regions=2000,threads=1").is_err()); // > 1024 regions
    /// ```
    pub fn parse(text: &str) -> Result<ParallelDist, GenError> {
        let s = text.trim();
        let Some((name, arg)) = s.split_once(':') else {
            return Err(GenError::parse(
                KIND,
                text,
                s,
                "expected rtws:M or forkjoin:regions=A..B,threads=C..D[,lengths=uniform|equal]",
            ));
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "rtws" => {
                let cpus = parse_count(text, arg)?;
                if !(1..=MAX_RTWS_CPUS).contains(&cpus) {
                    return Err(GenError::parse(
                        KIND,
                        text,
                        arg.trim(),
                        format!("M is the CPU count, from 1 to {MAX_RTWS_CPUS} (a region of 2M threads is at most {MAX_REGION_THREADS})"),
                    ));
                }
                Ok(ParallelDist::Rtws { cpus })
            }
            "forkjoin" | "fork-join" => parse_fork_join(text, arg),
            other => Err(GenError::parse(
                KIND,
                text,
                other,
                "unknown structure (known: rtws, forkjoin)",
            )),
        }
    }

    /// The structure of a task with WCET `wcet`: its threads add up to `wcet`.
    /// [`GenError::InvalidParameter`] (`parallel structure`) when `wcet` in ns is below the
    /// number of threads drawn (the generator adds the task's name to the message).
    pub fn sample(&self, rng: &mut GenRng, wcet: Duration) -> Result<ParallelStructure, GenError> {
        let (widths, lengths) = match *self {
            ParallelDist::Rtws { cpus } => {
                let n = between(rng, 1, 2 * u64::from(cpus));
                (vec![1, n, 1], ThreadLengths::Uniform)
            }
            ParallelDist::ForkJoin {
                regions,
                threads,
                lengths,
            } => {
                let r = between(rng, u64::from(regions.0), u64::from(regions.1));
                let widths = (0..r)
                    .map(|_| between(rng, u64::from(threads.0), u64::from(threads.1)))
                    .collect();
                (widths, lengths)
            }
        };
        // Bounded by the parse checks: at most 2^16 threads, each weight at most 2^32.
        let total: u64 = widths.iter().sum();
        if wcet.as_ns() < total {
            return Err(GenError::invalid(
                KIND,
                format!("wcet {wcet} is shorter than {total} threads of 1 ns each: use longer execution times (periods, utilizations) or fewer threads"),
            ));
        }
        let weights: Vec<u64> = match lengths {
            ThreadLengths::Uniform => (0..total).map(|_| 1 + below(rng, 1 << 32)).collect(),
            ThreadLengths::Equal => widths
                .iter()
                .flat_map(|&w| {
                    let weight = 1 + below(rng, 1 << 32);
                    std::iter::repeat_n(weight, w as usize)
                })
                .collect(),
        };
        let mut shares = apportion(wcet.as_ns(), &weights).into_iter();
        let regions = widths
            .iter()
            .map(|&w| {
                ParallelRegion::new(
                    shares
                        .by_ref()
                        .take(w as usize)
                        .map(Duration::from_ns)
                        .collect(),
                )
            })
            .collect();
        // Within the model's bounds (checked when the string was read) and every share ≥ 1.
        ParallelStructure::new(regions).map_err(|e| GenError::invalid(KIND, e.to_string()))
    }
}

impl fmt::Display for ParallelDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParallelDist::Rtws { cpus } => write!(f, "rtws:{cpus}"),
            ParallelDist::ForkJoin {
                regions,
                threads,
                lengths,
            } => write!(
                f,
                "forkjoin:regions={}..{},threads={}..{},lengths={}",
                regions.0,
                regions.1,
                threads.0,
                threads.1,
                match lengths {
                    ThreadLengths::Uniform => "uniform",
                    ThreadLengths::Equal => "equal",
                }
            ),
        }
    }
}

/// `forkjoin:` followed by its comma-separated `key=value` settings.
fn parse_fork_join(text: &str, arg: &str) -> Result<ParallelDist, GenError> {
    let (mut regions, mut threads, mut lengths) = (None, None, ThreadLengths::Uniform);
    for item in arg.split(',') {
        let Some((key, value)) = item.split_once('=') else {
            return Err(GenError::parse(
                KIND,
                text,
                item.trim(),
                "expected key=value (regions=A..B, threads=C..D, lengths=uniform|equal)",
            ));
        };
        match key.trim() {
            "regions" => regions = Some(parse_count_range(text, value)?),
            "threads" => threads = Some(parse_count_range(text, value)?),
            "lengths" => {
                lengths = match value.trim() {
                    "uniform" => ThreadLengths::Uniform,
                    "equal" => ThreadLengths::Equal,
                    other => {
                        return Err(GenError::parse(
                            KIND,
                            text,
                            other,
                            "expected lengths=uniform or lengths=equal",
                        ))
                    }
                }
            }
            other => {
                return Err(GenError::parse(
                    KIND,
                    text,
                    other,
                    "unknown setting (known: regions, threads, lengths)",
                ))
            }
        }
    }
    let missing = |what| GenError::parse(KIND, text, arg.trim(), format!("missing {what}=A..B"));
    let regions = regions.ok_or_else(|| missing("regions"))?;
    let threads = threads.ok_or_else(|| missing("threads"))?;
    if regions.1 as usize > MAX_PARALLEL_REGIONS {
        return Err(GenError::parse(
            KIND,
            text,
            arg.trim(),
            format!(
                "at most {MAX_PARALLEL_REGIONS} regions per task, got up to {}",
                regions.1
            ),
        ));
    }
    if threads.1 as usize > MAX_REGION_THREADS {
        return Err(GenError::parse(
            KIND,
            text,
            arg.trim(),
            format!(
                "at most {MAX_REGION_THREADS} threads per region, got up to {}",
                threads.1
            ),
        ));
    }
    let most = u64::from(regions.1) * u64::from(threads.1);
    if most > MAX_PARALLEL_THREADS as u64 {
        return Err(GenError::parse(
            KIND,
            text,
            arg.trim(),
            format!(
                "up to {} regions of up to {} threads is up to {most} threads, more than the {MAX_PARALLEL_THREADS} allowed per task",
                regions.1, threads.1
            ),
        ));
    }
    Ok(ParallelDist::ForkJoin {
        regions,
        threads,
        lengths,
    })
}

/// A positive count.
fn parse_count(text: &str, part: &str) -> Result<u32, GenError> {
    let p = part.trim();
    p.parse::<u32>()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| GenError::parse(KIND, text, p, "expected a whole number ≥ 1"))
}

/// `A..B` or `A` (meaning `A..A`), counts `1 ≤ A ≤ B`.
fn parse_count_range(text: &str, part: &str) -> Result<(u32, u32), GenError> {
    let (lo, hi) = match part.split_once("..") {
        Some((a, b)) => (parse_count(text, a)?, parse_count(text, b)?),
        None => {
            let n = parse_count(text, part)?;
            (n, n)
        }
    };
    if lo > hi {
        return Err(GenError::parse(
            KIND,
            text,
            part.trim(),
            "the range is empty (A > B)",
        ));
    }
    Ok((lo, hi))
}

/// `total` shared out in proportion to `weights` (each ≥ 1), every share at least 1:
/// `total − n` is split by the largest-remainder method (exact, in `u128`; ties to the lower
/// index), then 1 is added to each share. Needs `total ≥ n` (the caller checks). O(n log n).
fn apportion(total: u64, weights: &[u64]) -> Vec<u64> {
    let n = weights.len() as u64;
    let spare = u128::from(total.saturating_sub(n));
    let sum: u128 = weights.iter().map(|&w| u128::from(w)).sum::<u128>().max(1);
    let mut shares: Vec<u64> = Vec::with_capacity(weights.len());
    let mut remainders: Vec<(u128, usize)> = Vec::with_capacity(weights.len());
    for (j, &w) in weights.iter().enumerate() {
        let exact = spare * u128::from(w);
        // exact / sum ≤ spare < 2^64.
        shares.push(u64::try_from(exact / sum).unwrap_or(u64::MAX));
        remainders.push((exact % sum, j));
    }
    let given: u128 = shares.iter().map(|&s| u128::from(s)).sum();
    // The floors lose less than 1 each: fewer than n units are left.
    let left = usize::try_from(spare - given).unwrap_or(0);
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, j) in remainders.iter().take(left) {
        if let Some(s) = shares.get_mut(j) {
            *s += 1;
        }
    }
    for s in &mut shares {
        *s += 1;
    }
    shares
}

/// The stream the structures of set `index` of the batch seeded `seed` are drawn from:
/// ChaCha8 stream `index` under the key of [`crate::rng::rng_for`] with every byte XORed with
/// `0xAA` (the utilities' stream uses `0x55`), so it is independent of the set's other draws.
pub fn parallel_rng(seed: u64, index: u64) -> GenRng {
    let mut key = crate::rng::key_for(seed);
    for b in &mut key {
        *b ^= 0xAA;
    }
    let mut rng = GenRng::from_seed(key);
    rng.set_stream(index);
    rng
}

/// The generator of [RTWS §VI, Table I]'s task sets for `cpus` CPUs and the utilization
/// window `[lo·cpus, hi·cpus]` (`lo..hi` as a fraction of the platform, e.g. one of
/// [`RTWS_WINDOWS`]): the module doc's reading (uniform `u ∈ [0.1, 0.5]`, periods uniform in
/// 700–800 ms, floor rounding, implicit deadlines, whole sets redrawn until they fall in the
/// window, structures `rtws:cpus`). The seed is the spec's (`.seed(…)`).
///
/// ```
/// use schedlab_gen::parallel::rtws_spec;
/// let spec = rtws_spec(4, 0.38, 0.40).unwrap().seed(1);
/// let set = spec.generate(0).unwrap();
/// assert!((1.52..=1.60).contains(&set.utilization));
/// for t in set.tasks.iter() {
///     let p = t.parallel.as_ref().unwrap();
///     assert_eq!(p.region_count(), 3);
///     assert!((1..=8).contains(&p.regions()[1].width())); // ⌈x·2m⌉ threads
///     assert_eq!(p.work(), t.wcet);
/// }
/// ```
pub fn rtws_spec(cpus: u32, lo: f64, hi: f64) -> Result<crate::GenSpec, GenError> {
    if !(1..=MAX_RTWS_CPUS).contains(&cpus) {
        return Err(GenError::invalid(
            "cpus",
            format!("the RTWS workload needs 1 to {MAX_RTWS_CPUS} CPUs, got {cpus}"),
        ));
    }
    if !(lo.is_finite() && hi.is_finite() && 0.0 < lo && lo <= hi && hi <= 1.0) {
        return Err(GenError::invalid(
            "utilization window",
            format!("a fraction of the platform 0 < LO ≤ HI ≤ 1 (Table I: 0.38..0.40, 0.58..0.60, 0.73..0.75), got {lo}..{hi}"),
        ));
    }
    let m = f64::from(cpus);
    let shape = crate::Shape::Window {
        lo: lo * m,
        hi: hi * m,
        dist: crate::UtilDist::parse(RTWS_UTILIZATIONS)?,
    };
    Ok(
        crate::GenSpec::new(shape, crate::PeriodDist::parse(RTWS_PERIODS)?)
            .parallel(Some(ParallelDist::Rtws { cpus })),
    )
}

/// Reads a window `LO..HI` of the RTWS workload (fractions of the platform) and builds
/// [`rtws_spec`] for `cpus` CPUs.
pub fn rtws_spec_parse(cpus: u32, window: &str) -> Result<crate::GenSpec, GenError> {
    let (lo, hi) = crate::parse::parse_f64_range("utilization window", window, window)?;
    rtws_spec(cpus, lo, hi)
}

#[cfg(test)]
#[path = "parallel_tests.rs"]
mod tests;
