//! Measuring the cache-related preemption and migration delay (CPMD, Δcpd [MP §IV-A]) as a
//! function of the working-set size (`schedlab measure cpmd`), with the method of
//! [RTPS §VI-B] and [ChronOS §9.2]: the delay is the time a job needs to walk its working set
//! after a disturbance minus the time the same walk takes with the set cache-hot.
//!
//! For each working-set size `w` (default 4 KiB, 8 KiB, …, 4 MiB), a measuring thread pinned
//! to CPU A owns a buffer of `w` bytes and walks it with the runtime's own access pattern
//! ([`WorkingSet::walk`]: one read-modify-write per 64-byte cache line, sequentially — the
//! pattern of the "MA" job bodies [RTPS §VI], so the delay measured is the one those jobs
//! incur). Each sample is a pair of measurements:
//!
//! - **preemption** [RTPS §VI-B]: walk once (warm-up), time a walk (*warm*, the "net
//!   time"), then block while a competing thread pinned to the same CPU writes a pollution
//!   buffer (default: twice the largest cache of CPU A reported by sysfs, so the working set
//!   is evicted from every cache level), then time a walk on CPU A again (the "gross time");
//!   delay = gross − net (0 if negative);
//! - **migration** [RTPS §VI-B; ChronOS §9.2]: walk once, time a warm walk on A, move the
//!   thread to CPU B (`sched_setaffinity` on itself: it continues on B at once), time a walk
//!   on B; delay = gross − net. As in both papers there is no pollution in between: the
//!   data is hot in A's caches and is fetched from there (or from a shared cache).
//!
//! Per size and kind the result keeps every delay; the overhead file gets the average
//! (rounded up) and the maximum per size, plus the point (0, 0) (a job without a working
//! set reloads nothing), each curve made monotone non-decreasing (running maximum, the file's
//! evaluation rule written out). Timing uses the TSC clock of the runtime
//! ([`TickClock`]). Host stalls and interrupts inflate single samples: the maxima are
//! reported as measured (no outlier filter, as in [MP §IV]).
//!
//! **Run time is bounded**: samples stop at `samples` per size, or when the size's share of
//! `max_time` is spent (at least 3 samples each). After every sample the thread sleeps a
//! tenth of the sample's duration, so SCHED_FIFO threads never reach the kernel's RT
//! throttling (95% per second), which would stall a timed walk. Threads run under
//! SCHED_FIFO when permitted, else under SCHED_OTHER (with a warning in the result).

use crate::config::PRIO_JOB;
use crate::error::RuntimeError;
use crate::mech::burn::WorkingSet;
use crate::mech::clock::{monotonic_ns, sleep_until, TickClock};
use crate::mech::sched::{self, Class, ClassGuard};
use crate::mech::MechError;
use schedlab_model::overheads::{CpmdKind, Curve, Measured, OverheadFile};
use schedlab_model::Duration;
use schedlab_trace::overheads::OverheadStats;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::mpsc;

/// What to measure.
#[derive(Clone, Debug)]
pub struct CpmdConfig {
    /// Working-set sizes in bytes (sorted and deduplicated before measuring).
    pub wss: Vec<u64>,
    /// CPU A (home: warm walks, preemptions) and CPU B (migration target), physical numbers.
    pub cpus: (u32, u32),
    /// Samples per size and kind (at most).
    pub samples: u32,
    /// Bytes written by the competing thread during a preemption.
    pub pollute: u64,
    /// Bound on the whole measurement.
    pub max_time: Duration,
}

/// The default sizes: 4 KiB, 8 KiB, …, 4 MiB.
pub fn default_wss() -> Vec<u64> {
    (12..=22).map(|k| 1u64 << k).collect()
}

/// The largest cache of `cpu` in bytes, from sysfs (`/sys/devices/system/cpu/cpuN/cache`).
pub fn largest_cache_bytes(cpu: u32) -> Option<u64> {
    let dir = format!("/sys/devices/system/cpu/cpu{cpu}/cache");
    let mut best = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path().join("size")) else {
            continue;
        };
        if let Some(b) = parse_cache_size(text.trim()) {
            best = Some(best.map_or(b, |x: u64| x.max(b)));
        }
    }
    best
}

/// `32768K` → 33554432 (sysfs cache sizes: a number with an optional K/M/G suffix).
fn parse_cache_size(s: &str) -> Option<u64> {
    let suffixes = [('K', 1u64 << 10), ('M', 1 << 20), ('G', 1 << 30)];
    let (num, mul) = suffixes
        .iter()
        .find_map(|&(c, m)| s.strip_suffix(c).map(|n| (n, m)))
        .unwrap_or((s, 1));
    num.parse::<u64>().ok()?.checked_mul(mul)
}

impl CpmdConfig {
    /// The defaults on CPUs `a` and `b`: [`default_wss`], 20 samples, pollution twice the
    /// largest cache of `a` (32 MiB if sysfs does not say), at most 10 s.
    pub fn new(a: u32, b: u32) -> CpmdConfig {
        CpmdConfig {
            wss: default_wss(),
            cpus: (a, b),
            samples: 20,
            pollute: largest_cache_bytes(a).map_or(32 << 20, |c| c.saturating_mul(2)),
            max_time: Duration::from_ns(10_000_000_000),
        }
    }
}

/// The delays measured for one working-set size (ns, one entry per sample).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CpmdRow {
    /// Working-set size in bytes.
    pub wss: u64,
    /// Warm walks (the net times of both kinds).
    pub warm: Vec<u64>,
    /// Preemption delays.
    pub preemption: Vec<u64>,
    /// Migration delays.
    pub migration: Vec<u64>,
}

/// The result of a measurement.
#[derive(Clone, Debug, Default)]
pub struct CpmdResult {
    /// One row per size, ascending.
    pub rows: Vec<CpmdRow>,
    /// CPUs A and B.
    pub cpus: (u32, u32),
    /// Pollution bytes.
    pub pollute: u64,
    /// Whether the threads ran under SCHED_FIFO.
    pub real_time: bool,
    /// Wall time of the measurement, seconds.
    pub wall_seconds: f64,
    /// Problems that did not stop the measurement.
    pub warnings: Vec<String>,
}

/// Checks the configuration; returns the sorted, deduplicated sizes.
fn validate(cfg: &CpmdConfig) -> Result<Vec<u64>, RuntimeError> {
    let mut wss = cfg.wss.clone();
    if wss.is_empty() {
        return Err(RuntimeError::invalid("wss", "no working-set size given"));
    }
    if let Some(w) = wss.iter().find(|&&w| w == 0 || w > 1 << 30) {
        return Err(RuntimeError::invalid(
            "wss",
            format!("{w} bytes: sizes must be between 1 byte and 1 GiB"),
        ));
    }
    wss.sort_unstable();
    wss.dedup();
    if cfg.samples == 0 {
        return Err(RuntimeError::invalid("samples", "must be at least 1"));
    }
    if cfg.pollute > 4 << 30 {
        return Err(RuntimeError::invalid("pollute", "is larger than 4 GiB"));
    }
    let (a, b) = cfg.cpus;
    if a == b {
        return Err(RuntimeError::invalid(
            "cpus",
            format!("needs two different CPUs (got {a} twice)"),
        ));
    }
    let allowed = sched::allowed_cpus()?;
    for c in [a, b] {
        if !allowed.contains(&c) {
            return Err(RuntimeError::CpuNotAllowed {
                cpu: c,
                allowed: allowed
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
            });
        }
    }
    Ok(wss)
}

/// Sets the caller's class to SCHED_FIFO at the job priority; `Ok(false)` if not permitted.
fn try_real_time() -> Result<bool, MechError> {
    match sched::set_class(0, Class::Fifo(PRIO_JOB)) {
        Ok(()) => Ok(true),
        Err(MechError::NotPermitted { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Measures (see the module doc). Runs on two threads of its own; the caller's affinity and
/// class are not changed.
pub fn measure(cfg: &CpmdConfig) -> Result<CpmdResult, RuntimeError> {
    let wss = validate(cfg)?;
    let started = std::time::Instant::now();
    let cfg = cfg.clone();
    let h = std::thread::Builder::new()
        .name("sl-cpmd".into())
        .spawn(move || measure_on_this_thread(&cfg, &wss))
        .map_err(|e| RuntimeError::Setup(format!("spawn the measuring thread: {e}")))?;
    let mut r = h
        .join()
        .map_err(|_| RuntimeError::Setup("the measuring thread panicked".into()))??;
    r.wall_seconds = started.elapsed().as_secs_f64();
    Ok(r)
}

fn measure_on_this_thread(cfg: &CpmdConfig, wss: &[u64]) -> Result<CpmdResult, RuntimeError> {
    let _other = ClassGuard::to_other();
    let (a, b) = cfg.cpus;
    sched::set_affinity(0, &[a])?;
    let real_time = try_real_time()?;
    let mut warnings = Vec::new();
    if !real_time {
        warnings.push(
            "SCHED_FIFO not permitted: measured under SCHED_OTHER (other load can inflate samples)"
                .into(),
        );
    }
    // The competing thread: pinned to A, pollutes when asked.
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let pollute = usize::try_from(cfg.pollute).unwrap_or(usize::MAX);
    let competitor = std::thread::Builder::new()
        .name("sl-cpmd-pollute".into())
        .spawn(move || -> Result<(), MechError> {
            let _other = ClassGuard::to_other();
            sched::set_affinity(0, &[a])?;
            if real_time {
                sched::set_class(0, Class::Fifo(PRIO_JOB))?;
            }
            let mut p = WorkingSet::new(pollute);
            while go_rx.recv().is_ok() {
                p.walk();
                if done_tx.send(()).is_err() {
                    break;
                }
            }
            Ok(())
        })
        .map_err(|e| RuntimeError::Setup(format!("spawn the polluting thread: {e}")))?;

    let clock = TickClock::new(20_000_000);
    let timed = |ws: &mut WorkingSet| {
        let t0 = clock.ticks();
        ws.walk();
        let t1 = clock.ticks();
        clock.to_mono_ns(t1).saturating_sub(clock.to_mono_ns(t0))
    };
    let deadline = monotonic_ns().saturating_add(cfg.max_time.as_ns());
    let mut rows = Vec::with_capacity(wss.len());
    let mut elsewhere = 0u64;
    let mut outcome: Result<(), RuntimeError> = Ok(());
    'sizes: for (i, &w) in wss.iter().enumerate() {
        let start = monotonic_ns();
        let left = (wss.len() - i) as u64;
        let budget = deadline.saturating_sub(start) / left;
        let mut ws = WorkingSet::new(usize::try_from(w).unwrap_or(usize::MAX));
        let mut row = CpmdRow {
            wss: w,
            ..CpmdRow::default()
        };
        for k in 0..cfg.samples {
            let s0 = monotonic_ns();
            // Preemption on A.
            ws.walk();
            let net = timed(&mut ws);
            if go_tx.send(()).is_err() || done_rx.recv().is_err() {
                outcome = Err(RuntimeError::Setup("the polluting thread ended".into()));
                break 'sizes;
            }
            let gross = timed(&mut ws);
            row.warm.push(net);
            row.preemption.push(gross.saturating_sub(net));
            // Migration A → B.
            ws.walk();
            let net = timed(&mut ws);
            if let Err(e) = sched::set_affinity(0, &[b]) {
                outcome = Err(e.into());
                break 'sizes;
            }
            if sched::current_cpu() != Some(b) {
                elsewhere += 1;
            }
            let gross = timed(&mut ws);
            if let Err(e) = sched::set_affinity(0, &[a]) {
                outcome = Err(e.into());
                break 'sizes;
            }
            row.warm.push(net);
            row.migration.push(gross.saturating_sub(net));
            // Breathe (RT throttling), then stop early if the size's budget is spent.
            let now = monotonic_ns();
            sleep_until(now + (now.saturating_sub(s0) / 10).max(20_000));
            if k + 1 >= 3 && monotonic_ns().saturating_sub(start) > budget {
                break;
            }
        }
        rows.push(row);
    }
    drop(go_tx);
    let competitor_result = competitor.join();
    outcome?;
    match competitor_result {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(e.into()),
        Err(_) => return Err(RuntimeError::Setup("the polluting thread panicked".into())),
    }
    if elsewhere > 0 {
        warnings.push(format!(
            "{elsewhere} migration sample(s) did not observe the thread on CPU {b} right after moving it"
        ));
    }
    if rows
        .iter()
        .any(|r| r.preemption.len() < cfg.samples as usize)
    {
        warnings.push(format!(
            "the time bound ({}) cut some sizes short of {} samples",
            cfg.max_time, cfg.samples
        ));
    }
    Ok(CpmdResult {
        rows,
        cpus: cfg.cpus,
        pollute: cfg.pollute,
        real_time,
        wall_seconds: 0.0,
        warnings,
    })
}

impl CpmdResult {
    /// The CPMD curves of the overhead file: per kind, avg (mean rounded up) and max per
    /// size, with (0, 0) first, made monotone (running maximum).
    pub fn curves(&self) -> Result<BTreeMap<CpmdKind, Measured>, RuntimeError> {
        let mut out = BTreeMap::new();
        for kind in CpmdKind::ALL {
            let pick = |r: &CpmdRow| match kind {
                CpmdKind::Preemption => r.preemption.clone(),
                CpmdKind::Migration => r.migration.clone(),
            };
            let mut avg = vec![(0u64, 0u64)];
            let mut max = vec![(0u64, 0u64)];
            for r in &self.rows {
                let s = pick(r);
                let Some(st) = OverheadStats::of(&s) else {
                    continue;
                };
                let sum: u128 = s.iter().map(|&x| u128::from(x)).sum();
                let mean = u64::try_from(sum.div_ceil(s.len() as u128)).unwrap_or(u64::MAX);
                let (a0, m0) = (avg.last().map_or(0, |p| p.1), max.last().map_or(0, |p| p.1));
                avg.push((r.wss, mean.max(a0)));
                max.push((r.wss, st.max_ns.max(m0)));
            }
            let curve = |pts: Vec<(u64, u64)>| {
                Curve::new(pts)
                    .map_err(|e| RuntimeError::invalid("cpmd", format!("{}: {e}", kind.key())))
            };
            out.insert(
                kind,
                Measured {
                    avg: Some(curve(avg)?),
                    max: Some(curve(max)?),
                },
            );
        }
        Ok(out)
    }

    /// The JSON of `schedlab measure cpmd --format json`.
    pub fn to_json(&self) -> Value {
        let stats = |s: &[u64]| OverheadStats::of(s).map(|st| st.to_json());
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "wss": r.wss,
                    "warm": stats(&r.warm),
                    "preemption": stats(&r.preemption),
                    "migration": stats(&r.migration),
                })
            })
            .collect();
        json!({
            "cpus": [self.cpus.0, self.cpus.1],
            "pollute_bytes": self.pollute,
            "real_time": self.real_time,
            "wall_seconds": self.wall_seconds,
            "warnings": self.warnings,
            "rows": rows,
        })
    }
}

/// Writes the CPMD curves into `file` (replacing its CPMD section; everything else kept).
pub fn merge(file: &mut OverheadFile, curves: BTreeMap<CpmdKind, Measured>) {
    for (kind, m) in curves {
        file.cpmd.insert(kind, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::overheads::Stat;

    #[test]
    fn sysfs_cache_sizes() {
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("2M"), Some(2 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("xK"), None);
        assert_eq!(parse_cache_size(""), None);
    }

    /// Hand-made delays: at 4 KiB preemption {100, 201} → avg ⌈301/2⌉ = 151, max 201; at
    /// 8 KiB {50} → 50, lifted to (151, 201) by the running maximum; at 16 KiB {400, 600} →
    /// 500, 600. Every curve starts at (0, 0). Merging keeps the file's other sections.
    #[test]
    fn curves_from_delays_and_merge() {
        let row = |wss, p: Vec<u64>, m: Vec<u64>| CpmdRow {
            wss,
            warm: vec![1],
            preemption: p,
            migration: m,
        };
        let r = CpmdResult {
            rows: vec![
                row(4096, vec![100, 201], vec![7]),
                row(8192, vec![50], vec![8]),
                row(16384, vec![400, 600], vec![9]),
            ],
            ..CpmdResult::default()
        };
        let c = r.curves().unwrap();
        let p = &c[&CpmdKind::Preemption];
        assert_eq!(
            p.avg.as_ref().unwrap().points(),
            &[(0, 0), (4096, 151), (8192, 151), (16384, 500)]
        );
        assert_eq!(
            p.max.as_ref().unwrap().points(),
            &[(0, 0), (4096, 201), (8192, 201), (16384, 600)]
        );
        let mut file =
            OverheadFile::parse_toml("schema = 1\n[arch.partitioned.release]\navg = [[2, 5]]\n")
                .unwrap();
        merge(&mut file, c);
        let back = OverheadFile::parse_toml(&file.to_toml()).unwrap();
        assert_eq!(back, file);
        assert!(back.arch.contains_key("partitioned"));
        // 12288 bytes: halfway between 8192 (151) and 16384 (500) → 151 + ⌈349/2⌉ = 326.
        let at = back.cpmd(CpmdKind::Preemption, Stat::Avg, 12288).unwrap();
        assert_eq!(at.map(|d| d.as_ns()), Some(326));
        let mig = back.cpmd(CpmdKind::Migration, Stat::Max, 16384).unwrap();
        assert_eq!(mig.map(|d| d.as_ns()), Some(9));
    }

    #[test]
    fn bad_configurations_are_named() {
        let mut c = CpmdConfig::new(0, 0);
        assert!(measure(&c)
            .unwrap_err()
            .to_string()
            .contains("two different CPUs"));
        c.cpus = (0, 1);
        c.wss = vec![0];
        assert!(measure(&c).unwrap_err().to_string().starts_with("wss:"));
        c.wss = vec![4096];
        c.samples = 0;
        assert!(measure(&c).unwrap_err().to_string().starts_with("samples:"));
    }

    /// A short real measurement (two sizes, three samples, 1 MiB of pollution): checks the
    /// structure only, never timing.
    #[test]
    fn a_short_real_measurement_has_the_documented_structure() {
        let Ok(allowed) = sched::allowed_cpus() else {
            return;
        };
        let [a, b, ..] = allowed[..] else {
            return; // needs two CPUs
        };
        let mut c = CpmdConfig::new(a, b);
        c.wss = vec![65536, 4096, 4096];
        c.samples = 3;
        c.pollute = 1 << 20;
        let r = measure(&c).unwrap();
        assert_eq!(
            r.rows.iter().map(|r| r.wss).collect::<Vec<_>>(),
            [4096, 65536]
        );
        for row in &r.rows {
            assert_eq!(row.preemption.len(), 3);
            assert_eq!(row.migration.len(), 3);
            assert_eq!(row.warm.len(), 6);
        }
        let curves = r.curves().unwrap();
        for kind in CpmdKind::ALL {
            let pts = curves[&kind].max.as_ref().unwrap().points();
            assert_eq!(
                pts.iter().map(|p| p.0).collect::<Vec<_>>(),
                [0, 4096, 65536]
            );
        }
        let j = r.to_json();
        assert_eq!(j["rows"][1]["preemption"]["count"], 3);
    }
}
