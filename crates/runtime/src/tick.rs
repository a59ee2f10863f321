//! The periodic scheduler tick of the measuring kernel: its period Q (the overhead file's
//! `tick_period`) and its cost Δtck [MP §IV-A] as a real-time thread sees it (the file's
//! `tick` curve), measured by `schedlab trace overheads --measure-tick` (docs/overheads.md).
//!
//! Overhead-aware analysis charges `Δtck / Q` of every CPU, so both numbers must come from the
//! kernel the other overheads were measured on, not from a guess.
//!
//! # The tick period Q ([`kernel_tick`])
//! In order of trust, the first source that answers:
//! 1. `CONFIG_HZ` of the running kernel's configuration: `/boot/config-$(uname -r)`, else
//!    `/proc/config.gz` ([`TickSource::Config`]) — the value the kernel was built with;
//! 2. the rate at which `jiffies` advance (`/proc/timer_list`, read before and after a 200 ms
//!    sleep; snapped to the nearest Kconfig HZ within 5 %, [`TickSource::Jiffies`]);
//! 3. the spacing of the gaps a spinning thread sees ([`estimate_hz`], [`TickSource::Gaps`]).
//!
//! `NO_HZ_IDLE` only stops the tick of an *idle* CPU and `NO_HZ_FULL` that of a CPU with one
//! runnable task: a CPU that runs a spinning real-time thread among a normal system still
//! ticks at HZ (a `nohz_full=` CPU with nothing else on it would not: the measurement then
//! sees fewer ticks than expected and says so).
//!
//! # Δtck ([`measure`])
//! One CPU at a time, a thread pinned to it (SCHED_FIFO at the job priority when permitted)
//! reads the runtime's TSC clock ([`TickClock`]) in a tight loop and records every *gap* — two
//! consecutive reads further apart than a threshold (default 500 ns; a loop iteration takes
//! ~30 ns) — as (start, length): the CPU was doing something else, an interrupt, a
//! higher-priority thread, or (in a VM) the host. The spinning is split into bursts of 80 ms
//! with 10 ms of sleep after each, so the thread uses < 89 % of the CPU in any second: the
//! kernel's RT throttling (95 %, left on) never stops it, and other threads of the CPU get
//! to run in between. The measurement bounds its own duration (default 1 s of spinning per
//! CPU, at most [`MAX_PER_CPU`]).
//!
//! # Separating the tick from other gaps ([`analyze_gaps`])
//! The tick fires every Q at a fixed phase; other interrupts and host preemptions do not.
//! Gap starts are taken modulo Q, the phase window of width 2w (w = max(Q/50, 20 µs)) holding
//! the most of them is the tick's, and every gap starting within it is charged to the tick
//! instant it belongs to (the lengths of several gaps at one instant are summed: the interrupt
//! and the softirq that follows it are one tick's cost). Per CPU that gives one Δtck sample per
//! tick instant seen, the number of instants expected (those within w of the spinning time,
//! about spin time / Q; fewer samples than that means ticks cost less than the threshold, or
//! the CPU did not tick), and the gaps that were not the tick (count and maximum, reported, not charged). A host preemption that happens to
//! coincide with a tick is still charged to it: the maximum is as measured (no outlier filter,
//! as [`crate::cpmd`] and [MP §IV]); the 99th percentile is reported beside it.
//!
//! The overhead file gets, for each architecture section written, `tick` = the mean (rounded
//! up) and the maximum of the samples of all CPUs, constant in n (the kernel tick does not
//! depend on the number of tasks), and `tick_period` = Q.

use crate::config::PRIO_JOB;
use crate::error::RuntimeError;
use crate::mech::clock::{monotonic_ns, sleep_until, TickClock};
use crate::mech::sched::{self, Class, ClassGuard};
use crate::mech::MechError;
use schedlab_model::overheads::{Measured, OverheadFile, OverheadName};
use schedlab_model::Duration;
use schedlab_trace::overheads::OverheadStats;
use serde_json::{json, Value};
use std::io::Read;

/// Upper bound on the spinning time per CPU.
pub const MAX_PER_CPU: Duration = Duration::from_ns(60_000_000_000);

/// The HZ values Linux can be configured with (Kconfig `HZ_*` choices of all architectures).
pub const KCONFIG_HZ: [u32; 12] = [24, 48, 100, 128, 200, 250, 256, 300, 500, 1000, 1024, 1200];

/// Where the tick period came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TickSource {
    /// `CONFIG_HZ` of the kernel configuration file at this path.
    Config(String),
    /// The rate of `jiffies` in `/proc/timer_list` over a sleep of this many ns.
    Jiffies(u64),
    /// The recurring gaps of a spinning thread ([`estimate_hz`]).
    Gaps,
    /// Recorded elsewhere (e.g. the metadata of a trace), as described.
    Recorded(String),
}

impl TickSource {
    /// A one-line description (for metadata and reports).
    pub fn describe(&self) -> String {
        match self {
            TickSource::Config(path) => format!("CONFIG_HZ in {path}"),
            TickSource::Jiffies(ns) => format!(
                "jiffies rate in /proc/timer_list over {} ms",
                ns / 1_000_000
            ),
            TickSource::Gaps => "recurring gaps seen by a spinning thread".into(),
            TickSource::Recorded(what) => what.clone(),
        }
    }
}

/// The kernel's tick: HZ, the period Q = 1 s / HZ (rounded to whole ns) and its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelTick {
    /// Ticks per second.
    pub hz: u32,
    /// The tick period Q.
    pub period: Duration,
    /// Where `hz` came from.
    pub source: TickSource,
}

impl KernelTick {
    /// The tick of `hz` (> 0) from `source`.
    pub fn of_hz(hz: u32, source: TickSource) -> Option<KernelTick> {
        (hz > 0).then(|| KernelTick {
            hz,
            period: Duration::from_ns((2_000_000_000 / u64::from(hz)).div_ceil(2)),
            source,
        })
    }
}

/// `CONFIG_HZ=N` of a kernel configuration text (`None` if absent or not a positive number).
pub fn parse_config_hz(text: &str) -> Option<u32> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("CONFIG_HZ="))
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|&hz| hz > 0)
}

/// Kernel configurations are about 300 KiB; a larger file is not one.
const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// HZ from the running kernel's configuration (`/boot/config-$(uname -r)`, then
/// `/proc/config.gz`), with the path read.
pub fn config_hz() -> Option<(u32, String)> {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok();
    if let Some(rel) = release.as_deref().map(str::trim) {
        let path = format!("/boot/config-{rel}");
        if let Some(hz) = std::fs::File::open(&path).ok().and_then(|f| {
            let mut text = String::new();
            f.take(MAX_CONFIG_BYTES).read_to_string(&mut text).ok()?;
            parse_config_hz(&text)
        }) {
            return Some((hz, path));
        }
    }
    let path = "/proc/config.gz";
    let f = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(f)
        .take(MAX_CONFIG_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    parse_config_hz(&text).map(|hz| (hz, path.to_string()))
}

/// The first `jiffies: N` of a `/proc/timer_list` text.
pub fn parse_timer_list_jiffies(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("jiffies:"))
        .and_then(|v| v.trim().parse().ok())
}

fn read_jiffies() -> Option<u64> {
    parse_timer_list_jiffies(&std::fs::read_to_string("/proc/timer_list").ok()?)
}

/// A measured rate (per second) as HZ: the nearest Kconfig value within 5 %, else rounded.
pub fn snap_hz(rate: f64) -> Option<u32> {
    if !(rate.is_finite() && rate >= 0.5) {
        return None;
    }
    let near = KCONFIG_HZ
        .iter()
        .copied()
        .min_by(|&a, &b| {
            (f64::from(a) - rate)
                .abs()
                .total_cmp(&(f64::from(b) - rate).abs())
        })
        .filter(|&hz| (f64::from(hz) - rate).abs() <= 0.05 * f64::from(hz));
    near.or_else(|| u32::try_from(rate.round() as u64).ok())
}

/// HZ from the advance of `jiffies` over a sleep of `over_ns` (`None` if `/proc/timer_list`
/// is not readable).
pub fn jiffies_hz(over_ns: u64) -> Option<u32> {
    let (j0, t0) = (read_jiffies()?, monotonic_ns());
    sleep_until(t0.saturating_add(over_ns));
    let (j1, t1) = (read_jiffies()?, monotonic_ns());
    let dt = t1.checked_sub(t0).filter(|&d| d > 0)?;
    snap_hz(j1.checked_sub(j0)? as f64 * 1e9 / dt as f64)
}

/// The sleep over which [`kernel_tick`] counts jiffies.
const JIFFIES_OVER_NS: u64 = 200_000_000;

/// The tick of the running kernel from its configuration only (no waiting; for the metadata of
/// every run).
pub fn configured_tick() -> Option<KernelTick> {
    config_hz().and_then(|(hz, path)| KernelTick::of_hz(hz, TickSource::Config(path)))
}

/// The tick of the running kernel: its configuration, else the jiffies rate (a 200 ms sleep);
/// `None` if neither can be read (then [`measure`] estimates it from the gaps).
pub fn kernel_tick() -> Option<KernelTick> {
    configured_tick().or_else(|| {
        jiffies_hz(JIFFIES_OVER_NS)
            .and_then(|hz| KernelTick::of_hz(hz, TickSource::Jiffies(JIFFIES_OVER_NS)))
    })
}

/// A gap in a spinning thread's clock reads: from `start_ns` (CLOCK_MONOTONIC) for `len_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    /// Last read before the gap.
    pub start_ns: u64,
    /// Time to the first read after it.
    pub len_ns: u64,
}

/// Gaps of one CPU sorted into the tick's and the others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GapAnalysis {
    /// The tick period Q used.
    pub period_ns: u64,
    /// The centre of the tick's phase window (start mod Q).
    pub phase_ns: u64,
    /// Half-width w of the phase window.
    pub window_ns: u64,
    /// Tick instants within w of the spinning spans (what a CPU ticking every Q would show).
    pub expected: u64,
    /// One Δtck sample per tick instant seen: the summed lengths of its gaps, by instant.
    pub ticks: Vec<u64>,
    /// Lengths of the gaps outside the tick's window.
    pub other: Vec<u64>,
}

impl GapAnalysis {
    /// Samples per expected instant (1.0: every tick seen).
    pub fn coverage(&self) -> f64 {
        if self.expected == 0 {
            return 0.0;
        }
        self.ticks.len() as f64 / self.expected as f64
    }
}

/// The default half-width of the tick's phase window for period `q_ns`: max(Q/50, 20 µs)
/// (host timer injection and interrupt entry jitter the tick's arrival by a few µs).
pub fn default_window(q_ns: u64) -> u64 {
    (q_ns / 50).max(20_000)
}

/// Circular distance of two phases modulo `q`.
fn circular_distance(a: u64, b: u64, q: u64) -> u64 {
    let d = a.abs_diff(b) % q;
    d.min(q - d)
}

/// The phase of the tick modulo `q`: of the windows of width 2w that hold the most of
/// `phases` (sorted, each < q; the earliest such window on a tie), the midpoint of its first
/// and last phase — so every phase in it is within w of the result.
fn densest_phase(phases: &[u64], q: u64, w: u64) -> u64 {
    let n = phases.len();
    // The phases twice round the circle: window i may wrap past q.
    let at = |j: usize| -> u64 {
        match phases.get(j) {
            Some(&p) => p,
            None => phases.get(j - n).map_or(u64::MAX, |&p| p + q),
        }
    };
    let (mut best, mut best_i, mut j) = (0usize, 0usize, 0usize);
    for i in 0..n {
        j = j.max(i);
        while j < i + n && at(j) <= at(i) + 2 * w {
            j += 1;
        }
        if j - i > best {
            best = j - i;
            best_i = i;
        }
    }
    if best == 0 {
        return 0;
    }
    (at(best_i) + (at(best_i + best - 1) - at(best_i)) / 2) % q
}

/// Sorts `gaps` (of a thread spinning during `spans`, CLOCK_MONOTONIC `[from, to)`) into the
/// tick's and the others for tick period `q_ns` and phase half-width `w_ns` (module doc).
pub fn analyze_gaps(gaps: &[Gap], spans: &[(u64, u64)], q_ns: u64, w_ns: u64) -> GapAnalysis {
    let q = q_ns.max(1);
    let w = w_ns.min(q / 2);
    let mut phases: Vec<u64> = gaps.iter().map(|g| g.start_ns % q).collect();
    phases.sort_unstable();
    let phase = densest_phase(&phases, q, w);
    // Tick instants φ + kQ within w of each span (a tick that arrives w early at the end of
    // a span is seen there).
    let instants_below = |t: u64| -> u64 {
        // Instants in [0, t): φ, φ + Q, …
        if t <= phase {
            0
        } else {
            (t - phase).div_ceil(q)
        }
    };
    let expected = spans
        .iter()
        .filter(|s| s.1 > s.0)
        .map(|&(a, b)| instants_below(b.saturating_add(w)) - instants_below(a.saturating_sub(w)))
        .sum();
    let mut by_instant: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    let mut other = Vec::new();
    for g in gaps {
        if circular_distance(g.start_ns % q, phase, q) <= w {
            // The instant nearest to the gap's start (shifted by Q: no negative numbers).
            let k = (g.start_ns + q + q / 2 - phase) / q;
            let slot = by_instant.entry(k).or_default();
            *slot = slot.saturating_add(g.len_ns);
        } else {
            other.push(g.len_ns);
        }
    }
    GapAnalysis {
        period_ns: q,
        phase_ns: phase,
        window_ns: w,
        expected,
        ticks: by_instant.into_values().collect(),
        other,
    }
}

/// HZ estimated from the gaps alone: among [`KCONFIG_HZ`], the highest whose tick instants
/// are seen (coverage, [`analyze_gaps`]) at least 90 % as often as the best one's and at
/// least half the time. A multiple of the true period sees every one of its instants too,
/// hence the highest HZ; a divisor sees only some. `None` without such a candidate.
pub fn estimate_hz(gaps: &[Gap], spans: &[(u64, u64)]) -> Option<u32> {
    let cov: Vec<(u32, f64)> = KCONFIG_HZ
        .iter()
        .filter_map(|&hz| {
            let q = KernelTick::of_hz(hz, TickSource::Gaps)?.period.as_ns();
            Some((
                hz,
                analyze_gaps(gaps, spans, q, default_window(q)).coverage(),
            ))
        })
        .collect();
    let best = cov.iter().map(|c| c.1).fold(0.0, f64::max);
    cov.iter()
        .filter(|c| c.1 >= 0.5 && c.1 >= 0.9 * best)
        .map(|c| c.0)
        .max()
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct TickConfig {
    /// CPUs to measure, one after the other (physical numbers).
    pub cpus: Vec<u32>,
    /// Spinning time per CPU (at most [`MAX_PER_CPU`]).
    pub per_cpu: Duration,
    /// A read-to-read distance above this is a gap.
    pub threshold_ns: u64,
    /// The tick, if known (else [`kernel_tick`], else [`estimate_hz`]).
    pub tick: Option<KernelTick>,
}

impl TickConfig {
    /// The defaults on `cpus`: 1 s per CPU, gaps above 500 ns, the kernel's tick looked up.
    pub fn new(cpus: Vec<u32>) -> TickConfig {
        TickConfig {
            cpus,
            per_cpu: Duration::from_ns(1_000_000_000),
            threshold_ns: 500,
            tick: None,
        }
    }
}

/// Spinning burst and the sleep after it (RT throttling, module doc).
const BURST_NS: u64 = 80_000_000;
const REST_NS: u64 = 10_000_000;
/// Gaps kept per CPU (16 bytes each); more are counted, not kept.
const MAX_GAPS: usize = 1 << 18;

/// The raw record of one CPU.
#[derive(Clone, Debug, Default)]
pub struct CpuGaps {
    /// The CPU.
    pub cpu: u32,
    /// Spinning spans, CLOCK_MONOTONIC `[from, to)`.
    pub spans: Vec<(u64, u64)>,
    /// The gaps, in order.
    pub gaps: Vec<Gap>,
    /// Gaps not kept (beyond [`MAX_GAPS`]).
    pub dropped: u64,
    /// Whether the thread ran under SCHED_FIFO.
    pub real_time: bool,
    /// Whether the thread was seen on another CPU than `cpu`.
    pub strayed: bool,
}

/// The result of one CPU.
#[derive(Clone, Debug)]
pub struct CpuTick {
    /// What was recorded.
    pub raw: CpuGaps,
    /// Its analysis.
    pub analysis: GapAnalysis,
}

/// The result of a measurement.
#[derive(Clone, Debug)]
pub struct TickResult {
    /// The tick period used and its source.
    pub tick: KernelTick,
    /// Per CPU, in the order measured.
    pub cpus: Vec<CpuTick>,
    /// The threshold used.
    pub threshold_ns: u64,
    /// Wall time of the measurement, seconds.
    pub wall_seconds: f64,
    /// Problems that did not stop the measurement.
    pub warnings: Vec<String>,
}

fn validate(cfg: &TickConfig) -> Result<Vec<u32>, RuntimeError> {
    let mut cpus = cfg.cpus.clone();
    cpus.sort_unstable();
    cpus.dedup();
    if cpus.is_empty() {
        return Err(RuntimeError::invalid("tick cpus", "no CPU given"));
    }
    if cfg.per_cpu.as_ns() < 10_000_000 || cfg.per_cpu > MAX_PER_CPU {
        return Err(RuntimeError::invalid(
            "tick duration",
            format!(
                "{} per CPU: must be between 10ms and {MAX_PER_CPU}",
                cfg.per_cpu
            ),
        ));
    }
    if !(50..=1_000_000).contains(&cfg.threshold_ns) {
        return Err(RuntimeError::invalid(
            "tick threshold",
            format!("{} ns: must be between 50 ns and 1 ms", cfg.threshold_ns),
        ));
    }
    let allowed = sched::allowed_cpus()?;
    if let Some(&c) = cpus.iter().find(|c| !allowed.contains(c)) {
        return Err(RuntimeError::CpuNotAllowed {
            cpu: c,
            allowed: allowed
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(","),
        });
    }
    Ok(cpus)
}

/// Measures (module doc): the CPUs one after the other, each on a thread of its own; the
/// caller's affinity and class are not changed. Takes about 1.13 × `per_cpu` per CPU.
pub fn measure(cfg: &TickConfig) -> Result<TickResult, RuntimeError> {
    let cpus = validate(cfg)?;
    let started = std::time::Instant::now();
    let mut raws = Vec::with_capacity(cpus.len());
    for &cpu in &cpus {
        let (per_cpu, thr) = (cfg.per_cpu.as_ns(), cfg.threshold_ns);
        let h = std::thread::Builder::new()
            .name(format!("sl-tick-{cpu}"))
            .spawn(move || spin_on(cpu, per_cpu, thr))
            .map_err(|e| RuntimeError::Setup(format!("spawn the spinning thread: {e}")))?;
        let raw = h
            .join()
            .map_err(|_| RuntimeError::Setup("the spinning thread panicked".into()))??;
        raws.push(raw);
    }
    let mut warnings = Vec::new();
    let tick = match cfg.tick.clone().or_else(kernel_tick) {
        Some(t) => t,
        None => {
            let hz = raws
                .iter()
                .find_map(|r| estimate_hz(&r.gaps, &r.spans))
                .ok_or_else(|| {
                    RuntimeError::invalid(
                        "tick period",
                        "no kernel configuration, no /proc/timer_list, and no gaps that recur at a Kconfig HZ",
                    )
                })?;
            warnings.push(format!(
                "the tick period is estimated from the gaps ({hz} Hz): no CONFIG_HZ or jiffies could be read"
            ));
            KernelTick::of_hz(hz, TickSource::Gaps)
                .ok_or_else(|| RuntimeError::invalid("tick period", "HZ 0"))?
        }
    };
    let q = tick.period.as_ns();
    let mut out = Vec::with_capacity(raws.len());
    for raw in raws {
        let analysis = analyze_gaps(&raw.gaps, &raw.spans, q, default_window(q));
        let cpu = raw.cpu;
        if !raw.real_time {
            warnings.push(format!(
                "CPU {cpu}: SCHED_FIFO not permitted: measured under SCHED_OTHER (other threads' time shows up as gaps)"
            ));
        }
        if raw.strayed {
            warnings.push(format!(
                "CPU {cpu}: the spinning thread was seen on another CPU"
            ));
        }
        if raw.dropped > 0 {
            warnings.push(format!(
                "CPU {cpu}: {} gaps beyond the first {MAX_GAPS} were not kept",
                raw.dropped
            ));
        }
        if analysis.coverage() < 0.8 {
            warnings.push(format!(
                "CPU {cpu}: {} tick samples for {} tick instants expected: the tick costs less than the threshold ({} ns) there, or the CPU does not tick (nohz_full)",
                analysis.ticks.len(),
                analysis.expected,
                cfg.threshold_ns
            ));
        }
        out.push(CpuTick { raw, analysis });
    }
    Ok(TickResult {
        tick,
        cpus: out,
        threshold_ns: cfg.threshold_ns,
        wall_seconds: started.elapsed().as_secs_f64(),
        warnings,
    })
}

/// Sets the caller's class to SCHED_FIFO at the job priority; `Ok(false)` if not permitted.
fn try_real_time() -> Result<bool, MechError> {
    match sched::set_class(0, Class::Fifo(PRIO_JOB)) {
        Ok(()) => Ok(true),
        Err(MechError::NotPermitted { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Spins on `cpu` for `per_cpu_ns` in bursts, recording gaps above `threshold_ns`.
fn spin_on(cpu: u32, per_cpu_ns: u64, threshold_ns: u64) -> Result<CpuGaps, RuntimeError> {
    let _other = ClassGuard::to_other();
    sched::set_affinity(0, &[cpu])?;
    let real_time = try_real_time()?;
    let mut clock = TickClock::new(20_000_000);
    // Ticks per ns from the first calibration (refined below before any conversion).
    let per_ns = clock.frequency_hz() / 1e9;
    let to_ticks = |ns: u64| (ns as f64 * per_ns).ceil() as u64;
    let threshold = to_ticks(threshold_ns).max(1);
    let mut raw_gaps: Vec<(u64, u64)> = Vec::with_capacity(MAX_GAPS.min(1 << 16));
    let mut raw_spans: Vec<(u64, u64)> = Vec::new();
    let mut dropped = 0u64;
    let mut strayed = false;
    let mut spun = 0u64;
    while spun < per_cpu_ns {
        let burst = BURST_NS.min(per_cpu_ns - spun);
        strayed |= sched::current_cpu() != Some(cpu);
        let first = clock.ticks();
        let end = first.saturating_add(to_ticks(burst));
        let mut prev = first;
        loop {
            let now = clock.ticks();
            if now.wrapping_sub(prev) > threshold {
                if raw_gaps.len() < MAX_GAPS {
                    raw_gaps.push((prev, now));
                } else {
                    dropped += 1;
                }
            }
            prev = now;
            if now >= end {
                break;
            }
        }
        raw_spans.push((first, prev));
        spun += burst;
        sleep_until(monotonic_ns().saturating_add(REST_NS));
    }
    clock.refit();
    let ns = |t: u64| clock.to_mono_ns(t);
    Ok(CpuGaps {
        cpu,
        spans: raw_spans.iter().map(|&(a, b)| (ns(a), ns(b))).collect(),
        gaps: raw_gaps
            .iter()
            .map(|&(a, b)| Gap {
                start_ns: ns(a),
                len_ns: ns(b).saturating_sub(ns(a)),
            })
            .collect(),
        dropped,
        real_time,
        strayed,
    })
}

impl TickResult {
    /// All CPUs' tick samples.
    fn samples(&self) -> Vec<u64> {
        self.cpus
            .iter()
            .flat_map(|c| c.analysis.ticks.iter().copied())
            .collect()
    }

    /// The `tick` overhead of the file: mean (rounded up) and maximum of every CPU's samples,
    /// constant in n; `None` without a sample.
    pub fn measured(&self) -> Result<Option<Measured>, RuntimeError> {
        let s = self.samples();
        let Some(max) = s.iter().copied().max() else {
            return Ok(None);
        };
        let sum: u128 = s.iter().map(|&x| u128::from(x)).sum();
        let avg = u64::try_from(sum.div_ceil(s.len() as u128)).unwrap_or(u64::MAX);
        let curve = |v| {
            schedlab_model::overheads::Curve::constant(v)
                .map_err(|e| RuntimeError::invalid("tick", format!("{v} ns: {e}")))
        };
        Ok(Some(Measured {
            avg: Some(curve(avg)?),
            max: Some(curve(max)?),
        }))
    }

    /// The `meta.tick` line of the file: how Q and Δtck were obtained.
    pub fn describe(&self) -> String {
        let cpus: Vec<String> = self.cpus.iter().map(|c| c.raw.cpu.to_string()).collect();
        let rt = self.cpus.iter().all(|c| c.raw.real_time);
        format!(
            "{} Hz ({}); Δtck from a spinning thread's gaps > {} ns at the tick's phase, CPUs {}, {}",
            self.tick.hz,
            self.tick.source.describe(),
            self.threshold_ns,
            cpus.join(","),
            if rt { "SCHED_FIFO" } else { "SCHED_OTHER" }
        )
    }

    /// The JSON report: the tick, and per CPU the tick samples' statistics, the instants
    /// expected, and the other gaps.
    pub fn to_json(&self) -> Value {
        let cpus: Vec<Value> = self
            .cpus
            .iter()
            .map(|c| {
                let a = &c.analysis;
                let spun: u64 = c.raw.spans.iter().map(|s| s.1.saturating_sub(s.0)).sum();
                json!({
                    "cpu": c.raw.cpu,
                    "real_time": c.raw.real_time,
                    "spun_ns": spun,
                    "expected": a.expected,
                    "phase_ns": a.phase_ns,
                    "window_ns": a.window_ns,
                    "tick": OverheadStats::of(&a.ticks).map(|s| s.to_json()),
                    "other": OverheadStats::of(&a.other).map(|s| s.to_json()),
                })
            })
            .collect();
        json!({
            "hz": self.tick.hz,
            "tick_period_ns": self.tick.period.as_ns(),
            "source": self.tick.source.describe(),
            "threshold_ns": self.threshold_ns,
            "wall_seconds": self.wall_seconds,
            "warnings": self.warnings,
            "cpus": cpus,
        })
    }
}

/// Writes `tick_period` and, into each architecture of `archs`, the `tick` curve.
pub fn merge<'a>(
    file: &mut OverheadFile,
    period: Duration,
    tick: &Measured,
    archs: impl IntoIterator<Item = &'a str>,
) {
    file.tick_period = Some(period);
    for a in archs {
        file.arch
            .entry(a.to_string())
            .or_default()
            .insert(OverheadName::Tick, tick.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::overheads::Stat;

    fn gaps(v: &[(u64, u64)]) -> Vec<Gap> {
        v.iter()
            .map(|&(start_ns, len_ns)| Gap { start_ns, len_ns })
            .collect()
    }

    #[test]
    fn config_hz_is_read_from_the_kernel_configuration() {
        let text = "# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\n# CONFIG_HZ_1000 is not set\nCONFIG_HZ=250\nCONFIG_HZ_PERIODIC=n\n";
        assert_eq!(parse_config_hz(text), Some(250));
        assert_eq!(parse_config_hz("CONFIG_HZ_1000=y\n"), None);
        assert_eq!(parse_config_hz("CONFIG_HZ=0\n"), None);
        assert_eq!(parse_config_hz("CONFIG_HZ=fast\n"), None);
        assert_eq!(parse_config_hz("  CONFIG_HZ=1000  \n"), Some(1000));
    }

    #[test]
    fn jiffies_are_read_from_the_timer_list() {
        let text = "Timer List Version: v0.10\nnow at 11388491979439 nsecs\n\ncpu: 0\n .last_jiffies   : 4297739773\njiffies: 4297739774\n";
        assert_eq!(parse_timer_list_jiffies(text), Some(4_297_739_774));
        assert_eq!(parse_timer_list_jiffies("now at 1 nsecs\n"), None);
    }

    /// A measured rate snaps to the nearest Kconfig HZ within 5 %, else it is rounded.
    #[test]
    fn measured_rates_snap_to_kconfig_hz() {
        assert_eq!(snap_hz(249.0), Some(250));
        assert_eq!(snap_hz(245.0), Some(250)); // 250 is 5 away, 256 is 11
        assert_eq!(snap_hz(997.5), Some(1000));
        assert_eq!(snap_hz(700.0), Some(700)); // 500 and 1000 are more than 5 % away
        assert_eq!(snap_hz(f64::NAN), None);
        assert_eq!(snap_hz(0.1), None);
    }

    /// Q = 1 s / HZ rounded to whole ns: HZ 300 → 3 333 333.3 → 3 333 333; 1024 → 976 562.5 →
    /// 976 563 (a half rounds up).
    #[test]
    fn periods_of_hz() {
        let q = |hz| KernelTick::of_hz(hz, TickSource::Gaps).map(|t| t.period.as_ns());
        assert_eq!(q(250), Some(4_000_000));
        assert_eq!(q(300), Some(3_333_333));
        assert_eq!(q(1024), Some(976_563));
        assert_eq!(q(0), None);
    }

    /// Q = 1000, w = 50, spinning over [0, 5000). Phases (start mod Q) 98, 100, 100, 102, 120
    /// fit one window of width 100; its first and last give φ = (98 + 120)/2 = 109. The tick
    /// instants within w of the span, 109, 1109, …, 4109, are 5 expected; the gaps at 2098 and 2120 belong to the
    /// same instant and are summed (8 + 5). 3109 shows no gap. 1500 and 3600 are elsewhere.
    #[test]
    fn gaps_at_the_tick_phase_are_the_tick() {
        let g = gaps(&[
            (100, 10),
            (1102, 12),
            (1500, 200),
            (2098, 8),
            (2120, 5),
            (3600, 7),
            (4100, 30),
        ]);
        let a = analyze_gaps(&g, &[(0, 5000)], 1000, 50);
        assert_eq!((a.phase_ns, a.window_ns, a.expected), (109, 50, 5));
        assert_eq!(a.ticks, vec![10, 12, 13, 30]);
        assert_eq!(a.other, vec![200, 7]);
        assert!((a.coverage() - 0.8).abs() < 1e-12);
        // Two spans [0, 1000) and [2000, 2500), widened by w, hold the instants 109 and 2109.
        let b = analyze_gaps(&g, &[(0, 1000), (2000, 2500)], 1000, 50);
        assert_eq!(b.expected, 2);
    }

    /// The tick's window may wrap past Q: phases 990, 995 and 2 (from 990, 1995, 3002) are
    /// one window around φ = (990 + 1002)/2 = 996; the gap at 2500 is not the tick.
    #[test]
    fn the_tick_window_wraps_round_the_period() {
        let g = gaps(&[(990, 4), (1995, 5), (2500, 100), (3002, 6)]);
        let a = analyze_gaps(&g, &[(0, 4000)], 1000, 50);
        assert_eq!(a.phase_ns, 996);
        assert_eq!(a.ticks, vec![4, 5, 6]);
        assert_eq!(a.other, vec![100]);
        let none = analyze_gaps(&[], &[(0, 4000)], 1000, 50);
        assert!(none.ticks.is_empty() && none.other.is_empty());
        assert_eq!(none.expected, 5); // instants 0, 1000, …, 4000 of [−50, 4050)
    }

    /// A gap every 4 ms (phase 1.3 ms) over 200 ms, plus two stray gaps: HZ 250 sees every
    /// instant; 1000 and 500 (divisors of 4 ms) a quarter and a half; so 250. Gaps every 1 ms
    /// give 1000 (250 and 500 see all their instants too; the highest wins). No gap: none.
    #[test]
    fn hz_is_estimated_from_recurring_gaps() {
        let span = [(0, 200_000_000)];
        let mut g: Vec<(u64, u64)> = (0..50)
            .map(|k| (1_300_000 + k * 4_000_000, 3_000))
            .collect();
        g.extend([(7_777_777, 50_000), (123_456_789, 9_000)]);
        g.sort_unstable();
        assert_eq!(estimate_hz(&gaps(&g), &span), Some(250));
        let g1: Vec<(u64, u64)> = (0..200).map(|k| (300_000 + k * 1_000_000, 2_000)).collect();
        assert_eq!(estimate_hz(&gaps(&g1), &span), Some(1000));
        assert_eq!(estimate_hz(&[], &span), None);
    }

    fn result(samples: &[&[u64]]) -> TickResult {
        let cpus = samples
            .iter()
            .enumerate()
            .map(|(i, s)| CpuTick {
                raw: CpuGaps {
                    cpu: i as u32,
                    real_time: true,
                    ..CpuGaps::default()
                },
                analysis: GapAnalysis {
                    ticks: s.to_vec(),
                    ..GapAnalysis::default()
                },
            })
            .collect();
        TickResult {
            tick: KernelTick::of_hz(250, TickSource::Config("/proc/config.gz".into())).unwrap(),
            cpus,
            threshold_ns: 500,
            wall_seconds: 0.0,
            warnings: Vec::new(),
        }
    }

    /// CPU 0 {10, 12, 13, 30} and CPU 1 {20}: avg ⌈85/5⌉ = 17, max 30, constant in n; merged
    /// into two architectures with tick_period 4 ms, the file parses back and keeps the rest.
    #[test]
    fn the_tick_curve_and_period_go_into_the_file() {
        let r = result(&[&[10, 12, 13, 30], &[20]]);
        let m = r.measured().unwrap().unwrap();
        assert_eq!(m.avg.as_ref().unwrap().points(), &[(0, 17)]);
        assert_eq!(m.max.as_ref().unwrap().points(), &[(0, 30)]);
        let mut file = OverheadFile::parse_toml(
            "schema = 1\n[arch.partitioned.release]\navg = [[2, 5]]\n[cpmd.preemption]\navg = [[0, 0]]\n",
        )
        .unwrap();
        merge(&mut file, r.tick.period, &m, ["partitioned", "global-lock"]);
        let back = OverheadFile::parse_toml(&file.to_toml()).unwrap();
        assert_eq!(back, file);
        assert_eq!(back.tick_period.map(|q| q.as_ns()), Some(4_000_000));
        for arch in ["partitioned", "global-lock"] {
            let at = |stat| back.value(arch, OverheadName::Tick, stat, 40).unwrap();
            assert_eq!(at(Stat::Avg).map(|d| d.as_ns()), Some(17));
            assert_eq!(at(Stat::Max).map(|d| d.as_ns()), Some(30));
        }
        assert!(back.arch["partitioned"].contains_key(&OverheadName::Release));
        assert!(!back.cpmd.is_empty());
        assert!(result(&[&[]]).measured().unwrap().is_none());
        assert!(r
            .describe()
            .starts_with("250 Hz (CONFIG_HZ in /proc/config.gz)"));
        assert_eq!(r.to_json()["cpus"][0]["tick"]["count"], 4);
    }

    #[test]
    fn bad_configurations_are_named() {
        let mut c = TickConfig::new(vec![]);
        assert!(measure(&c)
            .unwrap_err()
            .to_string()
            .starts_with("tick cpus:"));
        c.cpus = vec![0];
        c.per_cpu = Duration::from_ns(1_000);
        assert!(measure(&c)
            .unwrap_err()
            .to_string()
            .starts_with("tick duration:"));
        c.per_cpu = Duration::from_ns(100_000_000);
        c.threshold_ns = 1;
        assert!(measure(&c)
            .unwrap_err()
            .to_string()
            .starts_with("tick threshold:"));
        c.threshold_ns = 500;
        c.cpus = vec![100_000];
        assert!(matches!(
            measure(&c),
            Err(RuntimeError::CpuNotAllowed { .. })
        ));
    }

    /// The running kernel's configuration names its HZ (skipped loudly where the kernel
    /// exposes no configuration).
    #[test]
    fn this_kernels_configuration_names_its_hz() {
        let Some((hz, path)) = config_hz() else {
            schedlab_testkit::skip(
                "tick::this_kernels_configuration_names_its_hz",
                "neither /boot/config-$(uname -r) nor /proc/config.gz is readable",
            );
            return;
        };
        assert!(KCONFIG_HZ.contains(&hz), "{hz} Hz from {path}");
    }

    /// A short real measurement (100 ms on the first allowed CPU): checks the structure only,
    /// never timing. Skipped loudly without SCHED_FIFO (the gaps would be other threads').
    #[test]
    fn a_short_real_measurement_has_the_documented_structure() {
        let test = "tick::a_short_real_measurement_has_the_documented_structure";
        let Some(&cpu) = sched::allowed_cpus().unwrap_or_default().first() else {
            schedlab_testkit::skip(test, "no CPU allowed to this process");
            return;
        };
        let mut c = TickConfig::new(vec![cpu]);
        c.per_cpu = Duration::from_ns(100_000_000);
        let r = measure(&c).unwrap();
        let [one] = r.cpus.as_slice() else {
            panic!("one CPU measured, got {}", r.cpus.len());
        };
        if !one.raw.real_time {
            schedlab_testkit::skip(test, "SCHED_FIFO is not permitted to this process");
            return;
        }
        // Two bursts (80 + 20 ms) of spinning.
        assert_eq!(one.raw.spans.len(), 2);
        let spun: u64 = one.raw.spans.iter().map(|s| s.1 - s.0).sum();
        // The bursts spin until the thread's clock says so; the spans are TSC readings
        // converted to ns, which may round a few ns short (seen: 99,999,990): allow 0.1%.
        assert!(spun >= 99_900_000, "{spun}");
        assert!(one.raw.gaps.iter().all(|g| g.len_ns > 0));
        let a = &one.analysis;
        assert_eq!(a.period_ns, r.tick.period.as_ns());
        assert!(a.ticks.len() + a.other.len() <= one.raw.gaps.len());
        assert!(a.expected > 0);
        assert_eq!(r.to_json()["cpus"][0]["cpu"], cpu);
    }
}
