//! Shared by the parallel-task tests (`rtws.rs`, `parallel_props.rs`): building fork-join
//! sets, running them with a trace, and checking a schedule of parallel jobs against the
//! model [RTWS §III] from its trace alone.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use schedlab_model::{Duration, ParallelStructure, Task, TaskSet};
use schedlab_sim::{run, SimConfig, SimResult};
use schedlab_trace::intervals::{intervals, Interval};
use schedlab_trace::{check, counts, Event, Kind};
use std::collections::{BTreeMap, BTreeSet};

/// A task `(c, d, t)` with fork-join `regions` (thread lengths, ns); one region of one
/// thread is a sequential task. `c` must be the work.
pub(crate) fn task(d: u64, t: u64, regions: &[&[u64]]) -> Task {
    let ns = Duration::from_ns;
    let work: u64 = regions.iter().flat_map(|r| r.iter()).sum();
    let task = Task::new(ns(work), ns(d), ns(t)).unwrap();
    if regions.len() == 1 && regions[0].len() == 1 {
        return task;
    }
    let p = ParallelStructure::from_threads(
        regions
            .iter()
            .map(|r| r.iter().map(|&x| ns(x)).collect())
            .collect(),
    )
    .unwrap();
    task.with_parallel(p)
}

/// Ranks = task index (only the fixed-priority policies use them).
pub(crate) fn ranks(n: usize) -> Vec<u32> {
    (0..n as u32).collect()
}

/// `set` under `policy` on `m` CPUs for `horizon` ns, with the trace.
pub(crate) fn sim(set: &TaskSet, policy: &str, m: u32, horizon: u64) -> SimResult {
    sim_with(
        set,
        policy,
        m,
        SimConfig::new(m, Duration::from_ns(horizon)),
    )
}

/// As [`sim`] with a configuration (the trace is turned on).
pub(crate) fn sim_with(set: &TaskSet, policy: &str, m: u32, mut cfg: SimConfig) -> SimResult {
    cfg.cpus = m;
    cfg.record_trace = true;
    run(set, policy, &ranks(set.len()), None, &cfg).unwrap().0
}

/// The threads of task `i`: (region, strand, length ns), in strand order.
pub(crate) fn strands(set: &TaskSet, i: usize) -> Vec<(usize, u32, u64)> {
    let t = &set.tasks()[i];
    match &t.parallel {
        None => vec![(0, 0, t.wcet.as_ns())],
        Some(p) => p
            .threads()
            .zip(0u32..)
            .map(|((r, _, len), s)| (r, s, len.as_ns()))
            .collect(),
    }
}

/// (task, seq, strand) → its execution intervals.
pub(crate) fn by_strand(events: &[Event]) -> BTreeMap<(u32, u64, u32), Vec<Interval>> {
    let mut out: BTreeMap<(u32, u64, u32), Vec<Interval>> = BTreeMap::new();
    for iv in intervals(events) {
        out.entry((iv.task, iv.seq, iv.strand))
            .or_default()
            .push(iv);
    }
    out
}

/// The schedule's intervals as (cpu, task, seq, strand, start, end), by start then CPU.
pub(crate) fn schedule(events: &[Event]) -> Vec<(u32, u32, u64, u32, u64, u64)> {
    intervals(events)
        .iter()
        .map(|i| (i.cpu, i.task, i.seq, i.strand, i.start, i.end))
        .collect()
}

/// The steals as (time, thief, task, seq, strand, victim).
pub(crate) fn steals(events: &[Event]) -> Vec<(u64, u32, u32, u64, u32, u64)> {
    events
        .iter()
        .filter(|e| e.kind == Kind::Steal)
        .map(|e| (e.time, e.cpu, e.task, e.seq, e.strand, e.arg))
        .collect()
}

/// Checks a schedule of `set` on `m` CPUs up to `horizon` where every thread's demand is its
/// length (`ExecTime::Wcet`):
/// 1. every thread of a completed job ran exactly its length, any other at most;
/// 2. region joins: no thread of region r+1 runs before every thread of region r finished;
/// 3. no strand on two CPUs at once, no CPU running two strands at once;
/// 4. at most one steal per CPU and instant;
/// 5. the job records' counters are the trace's (`schedlab_trace::counts`);
/// 6. if `work_conserving`: no CPU idles while a thread of a released job (its task's
///    current one) waits.
pub(crate) fn check_schedule(
    set: &TaskSet,
    r: &SimResult,
    m: u32,
    horizon: u64,
    work_conserving: bool,
) -> Result<(), String> {
    let ivs = by_strand(&r.trace);
    // 1 and 2.
    for j in &r.jobs {
        let threads = strands(set, j.task as usize);
        let mut region_end: BTreeMap<usize, u64> = BTreeMap::new();
        let mut region_start: BTreeMap<usize, u64> = BTreeMap::new();
        let mut executed = 0;
        for &(region, s, len) in &threads {
            let v = ivs.get(&(j.task, j.seq, s));
            let ran: u64 = v.map_or(0, |v| v.iter().map(Interval::len).sum());
            executed += ran;
            if ran > len || (j.completion.is_some() && ran != len) {
                return Err(format!(
                    "τ{}#{}.{s} ran {ran} of {len} (completed: {:?})",
                    j.task, j.seq, j.completion
                ));
            }
            if let Some(v) = v {
                let first = v.iter().map(|i| i.start).min().unwrap();
                let last = v.iter().map(|i| i.end).max().unwrap();
                let e = region_start.entry(region).or_insert(first);
                *e = (*e).min(first);
                if ran == len {
                    let e = region_end.entry(region).or_insert(last);
                    *e = (*e).max(last);
                }
            }
        }
        if executed != j.executed.as_ns() {
            return Err(format!(
                "τ{}#{}: executed {executed} vs record {:?}",
                j.task, j.seq, j.executed
            ));
        }
        for (&region, &start) in &region_start {
            if region == 0 {
                continue;
            }
            let prev_done = threads.iter().filter(|t| t.0 == region - 1).all(|t| {
                ivs.get(&(j.task, j.seq, t.1))
                    .is_some_and(|v| v.iter().map(Interval::len).sum::<u64>() == t.2)
            });
            let prev_end = region_end.get(&(region - 1)).copied().unwrap_or(u64::MAX);
            if !prev_done || start < prev_end {
                return Err(format!(
                    "τ{}#{}: region {region} starts at {start}, region {} ends at {prev_end} (done: {prev_done})",
                    j.task, j.seq, region - 1
                ));
            }
        }
        if let Some(c) = j.completion {
            let last = region_end.values().copied().max().unwrap_or(0);
            if c.as_ns() != last {
                return Err(format!(
                    "τ{}#{} completes at {c:?}, its last thread ends at {last}",
                    j.task, j.seq
                ));
            }
        }
    }
    // 3.
    let overlaps = check::parallel_execution(&r.trace);
    if !overlaps.is_empty() {
        return Err(format!("strands on two CPUs: {overlaps:?}"));
    }
    let mut per_cpu: BTreeMap<u32, Vec<(u64, u64)>> = BTreeMap::new();
    for v in ivs.values() {
        for i in v {
            per_cpu.entry(i.cpu).or_default().push((i.start, i.end));
        }
    }
    for (cpu, mut v) in per_cpu {
        v.sort_unstable();
        if v.windows(2).any(|w| w[1].0 < w[0].1) {
            return Err(format!("CPU {cpu} runs two strands at once: {v:?}"));
        }
    }
    // 4.
    let mut seen = BTreeSet::new();
    for s in steals(&r.trace) {
        if !seen.insert((s.0, s.1)) {
            return Err(format!("two steals by CPU {} at {}", s.1, s.0));
        }
    }
    // 5.
    let c = counts::job_counts(&r.trace);
    for j in &r.jobs {
        let k = c.get(&(j.task, j.seq)).cloned().unwrap_or_default();
        if (k.preemptions, k.migrations, k.steals, &k.cpus)
            != (j.preemptions, j.migrations, j.steals, &j.cpus_used)
        {
            return Err(format!(
                "τ{}#{}: record {j:?} vs trace {k:?}",
                j.task, j.seq
            ));
        }
    }
    if work_conserving {
        let all: Vec<u32> = (0..set.len() as u32).collect();
        work_conserving_within(set, r, m, &all, horizon)?;
    }
    Ok(())
}

/// Check 6 of [`check_schedule`] for the tasks `tasks` alone, on `m` CPUs of their own (all
/// tasks on all CPUs; or a domain of a partitioned or federated schedule): at every event time
/// below the horizon (the schedule only changes at events), fewer than `m` running strands of
/// these tasks means no waiting thread of theirs.
pub(crate) fn work_conserving_within(
    set: &TaskSet,
    r: &SimResult,
    m: u32,
    tasks: &[u32],
    horizon: u64,
) -> Result<(), String> {
    let ivs: BTreeMap<(u32, u64, u32), Vec<Interval>> = by_strand(&r.trace)
        .into_iter()
        .filter(|((task, _, _), _)| tasks.contains(task))
        .collect();
    let mut ended: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    for e in &r.trace {
        if matches!(e.kind, Kind::Complete | Kind::Abort) {
            ended.insert((e.task, e.seq), e.time);
        }
    }
    let forks: BTreeMap<(u32, u64, u32), u64> = r
        .trace
        .iter()
        .filter(|e| e.kind == Kind::Fork)
        .map(|e| ((e.task, e.seq, e.strand), e.time))
        .collect();
    let all: Vec<&Interval> = ivs.values().flatten().collect();
    let times: BTreeSet<u64> = r
        .trace
        .iter()
        .map(|e| e.time)
        .chain([0])
        .filter(|&t| t < horizon)
        .collect();
    for &t in &times {
        let running = all.iter().filter(|i| i.start <= t && t < i.end).count();
        if running >= m as usize {
            continue;
        }
        let pending = pending_at(set, r, t, horizon, &ivs, &ended, &forks, tasks);
        if pending > 0 {
            return Err(format!(
                "at {t}: {running} of {m} CPUs busy while {pending} threads of tasks {tasks:?} wait"
            ));
        }
    }
    Ok(())
}

/// Threads of `tasks` handed over, unfinished and not running at `t`.
#[allow(clippy::too_many_arguments)]
fn pending_at(
    set: &TaskSet,
    r: &SimResult,
    t: u64,
    horizon: u64,
    ivs: &BTreeMap<(u32, u64, u32), Vec<Interval>>,
    ended: &BTreeMap<(u32, u64), u64>,
    forks: &BTreeMap<(u32, u64, u32), u64>,
    tasks: &[u32],
) -> usize {
    let mut n = 0;
    for j in r.jobs.iter().filter(|j| tasks.contains(&j.task)) {
        let handover = match j.seq {
            0 => j.release.as_ns(),
            s => j
                .release
                .as_ns()
                .max(ended.get(&(j.task, s - 1)).copied().unwrap_or(horizon)),
        };
        let threads = strands(set, j.task as usize);
        let mut region_ready: BTreeMap<usize, u64> = BTreeMap::new();
        region_ready.insert(0, handover);
        for &(region, s, _) in &threads {
            if let Some(&f) = forks.get(&(j.task, j.seq, s)) {
                region_ready.insert(region, f);
            }
        }
        for &(region, s, len) in &threads {
            let Some(&ready) = region_ready.get(&region) else {
                continue;
            };
            let v = ivs.get(&(j.task, j.seq, s));
            let ran_before: u64 = v.map_or(0, |v| {
                v.iter().map(|i| i.end.min(t).saturating_sub(i.start)).sum()
            });
            let running = v.is_some_and(|v| v.iter().any(|i| i.start <= t && t < i.end));
            let end = ended.get(&(j.task, j.seq)).copied().unwrap_or(u64::MAX);
            if ready <= t && t < end && ran_before < len && !running {
                n += 1;
            }
        }
    }
    n
}
