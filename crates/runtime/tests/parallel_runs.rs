//! Real short runs of parallel (fork-join) tasks [RTWS §III] on two CPUs (0.3 s each): every
//! thread of every completed job runs its body exactly once, regions in order (the join), one
//! job record per job, `fork`/`join` events with strands in the trace, no strand on two CPUs
//! at once, and steals where an idle CPU finds work in another CPU's local queue. Pass/fail
//! never depends on timing; runs that cannot happen here (fewer than two CPUs, no SCHED_FIFO)
//! skip loudly.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use schedlab_model::{Duration, ParallelStructure};
use schedlab_runtime::config::{Arch, Body, JobCtx, RtTask, RunConfig};
use schedlab_runtime::mech::burn::burn;
use schedlab_runtime::mech::clock::monotonic_ns;
use schedlab_runtime::{run, RunResult};
use schedlab_trace::{check, Kind};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

static SERIAL: Mutex<()> = Mutex::new(());

fn us(x: u64) -> Duration {
    Duration::from_ns(x * 1_000)
}

fn ms(x: u64) -> Duration {
    us(x * 1_000)
}

/// A wait-free log of the custom bodies' calls: (task, seq, region, thread, start, end).
struct Log {
    rows: Vec<[AtomicU64; 6]>,
    next: AtomicUsize,
}

impl Log {
    fn new(capacity: usize) -> Arc<Log> {
        Arc::new(Log {
            rows: (0..capacity).map(|_| Default::default()).collect(),
            next: AtomicUsize::new(0),
        })
    }

    fn push(&self, v: [u64; 6]) {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if let Some(row) = self.rows.get(i) {
            for (a, x) in row.iter().zip(v) {
                a.store(x, Ordering::Relaxed);
            }
        }
    }

    /// Every call, after the run (the run joined the job threads).
    fn calls(&self) -> Vec<[u64; 6]> {
        let n = self.next.load(Ordering::Relaxed).min(self.rows.len());
        self.rows[..n]
            .iter()
            .map(|r| std::array::from_fn(|k| r[k].load(Ordering::Relaxed)))
            .collect()
    }
}

/// A parallel task of `regions` (µs) with period and deadline `period_ms`, whose body burns
/// each thread's own time and logs the call.
fn parallel(regions: Vec<Vec<u64>>, period_ms: u64, log: &Arc<Log>) -> RtTask {
    let threads: Vec<Vec<Duration>> = regions
        .iter()
        .map(|r| r.iter().map(|&c| us(c)).collect())
        .collect();
    let p = ParallelStructure::from_threads(threads).unwrap();
    let times: Vec<u64> = regions.concat().iter().map(|&c| c * 1_000).collect();
    let mut t = RtTask::new(p.work(), ms(period_ms), ms(period_ms));
    t.parallel = Some(p);
    let log = log.clone();
    t.body = Body::Custom(Arc::new(move |cx: &JobCtx| {
        let start = monotonic_ns();
        let ns = times.get(cx.strand as usize).copied().unwrap_or(0);
        burn(ns, None, || cx.stop_requested());
        let end = monotonic_ns();
        log.push([
            u64::from(cx.task),
            cx.seq,
            u64::from(cx.region),
            u64::from(cx.thread),
            start,
            end,
        ]);
    }));
    t
}

/// One job's body calls: (region, thread) → (start, end) of each call.
type Calls = BTreeMap<(u64, u64), Vec<(u64, u64)>>;

fn config(cpus: Vec<u32>, arch: &str, policy: &str, n: usize) -> RunConfig {
    let arch = Arch::named(arch, "ticket").unwrap();
    RunConfig::new(cpus, arch, policy, n, ms(300))
}

/// The checks every parallel run passes: one record per job released; each completed job of
/// the parallel tasks called every thread's body exactly once, each region's calls all ended
/// before the next region's began (the join); fork and join events name strands; no strand
/// executed on two CPUs at once; the run's counters equal the trace's.
fn check_run(name: &str, r: &RunResult, tasks: &[RtTask], log: &Log) {
    common::print_run(name, r);
    eprintln!("  steals={}", r.totals.steals);
    assert!(r.real_time, "{name}");
    for (i, t) in tasks.iter().enumerate() {
        let jobs: Vec<_> = r.jobs.iter().filter(|j| j.task == i as u32).collect();
        let expected = r.horizon.as_ns().div_ceil(t.period.as_ns());
        assert_eq!(jobs.len() as u64, expected, "{name}: task {i}'s records");
        let completed = jobs.iter().filter(|j| j.completion.is_some()).count();
        assert!(
            completed + 2 >= jobs.len(),
            "{name}: task {i}: {completed} completed"
        );
        let Some(p) = &t.parallel else { continue };
        // (seq) → (region, thread) → (start, end) of its calls.
        let mut calls: BTreeMap<u64, Calls> = BTreeMap::new();
        for c in log.calls().into_iter().filter(|c| c[0] == i as u64) {
            calls
                .entry(c[1])
                .or_default()
                .entry((c[2], c[3]))
                .or_default()
                .push((c[4], c[5]));
        }
        for j in jobs.iter().filter(|j| j.completion.is_some()) {
            let job = calls.get(&j.seq).expect("a completed job's calls");
            assert_eq!(
                job.len(),
                p.thread_count(),
                "{name}: τ{i}#{}: threads",
                j.seq
            );
            assert!(
                job.values().all(|v| v.len() == 1),
                "{name}: τ{i}#{}: a body called twice",
                j.seq
            );
            for r in 1..p.region_count() as u64 {
                let ends = job.iter().filter(|((g, _), _)| *g == r - 1);
                let starts = job.iter().filter(|((g, _), _)| *g == r);
                let last_end = ends.flat_map(|(_, v)| v.iter().map(|x| x.1)).max();
                let first_start = starts.flat_map(|(_, v)| v.iter().map(|x| x.0)).min();
                assert!(
                    last_end <= first_start,
                    "{name}: τ{i}#{}: region {r} started before region {} joined",
                    j.seq,
                    r - 1
                );
            }
        }
        let forks = r
            .trace
            .iter()
            .filter(|e| e.kind == Kind::Fork && e.task == i as u32);
        assert!(forks.clone().count() > 0, "{name}: task {i} forked");
        assert!(forks.clone().all(|e| e.strand > 0), "{name}: fork strands");
        assert!(r
            .trace
            .iter()
            .any(|e| e.kind == Kind::Join && e.task == i as u32));
        assert!(
            r.trace
                .iter()
                .any(|e| e.kind == Kind::SwitchIn && e.task == i as u32 && e.strand > 0),
            "{name}: strands switch in"
        );
    }
    let overlaps = check::parallel_execution(&r.trace);
    assert!(overlaps.is_empty(), "{name}: {overlaps:?}");
    let steals = r.trace.iter().filter(|e| e.kind == Kind::Steal).count() as u64;
    assert_eq!(r.totals.steals, steals, "{name}");
    assert_eq!(r.warnings, Vec::<String>::new(), "{name}");
}

/// A fork-join set under `global-lock`: `rtws` (native strands) and `gedf` (threads as
/// jobs) complete it, join its regions, and trace its strands; `gedf` never steals.
#[test]
fn fork_join_jobs_complete_and_join_under_global_lock() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(cpus) = common::machine("fork_join_jobs_complete_and_join_under_global_lock", 2)
    else {
        return;
    };
    for policy in ["rtws", "gedf"] {
        let log = Log::new(4096);
        let tasks = vec![
            parallel(
                vec![vec![1_000], vec![500, 1_500, 500], vec![800]],
                10,
                &log,
            ),
            parallel(vec![vec![700, 700], vec![2_000]], 20, &log),
            RtTask::new(ms(2), ms(15), ms(15)),
        ];
        let cfg = config(cpus.clone(), "global-lock", policy, tasks.len());
        let r = run(&tasks, &cfg).unwrap();
        check_run(&format!("global-lock/{policy}"), &r, &tasks, &log);
        if policy == "gedf" {
            assert_eq!(r.totals.steals, 0, "gedf never steals");
        }
    }
}

/// The fork-join set under `work-stealing` (RTWS's own architecture): the same checks.
#[test]
fn fork_join_jobs_complete_and_join_under_work_stealing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(cpus) = common::machine("fork_join_jobs_complete_and_join_under_work_stealing", 2)
    else {
        return;
    };
    for lock in ["ticket", "mutex"] {
        let log = Log::new(4096);
        let tasks = vec![
            parallel(
                vec![vec![1_000], vec![500, 1_500, 500], vec![800]],
                10,
                &log,
            ),
            parallel(vec![vec![700, 700], vec![2_000]], 20, &log),
            RtTask::new(ms(2), ms(15), ms(15)),
        ];
        let mut cfg = config(cpus.clone(), "work-stealing", "rtws", tasks.len());
        cfg.arch = Arch::named("work-stealing", lock).unwrap();
        let r = run(&tasks, &cfg).unwrap();
        check_run(&format!("work-stealing/{lock}"), &r, &tasks, &log);
    }
}

/// One parallel task alone: its region of four threads forks on one CPU, and the other CPU —
/// idle — steals from its local queue (`rtws` under `global-lock`, and `work-stealing`).
#[test]
fn an_idle_cpu_steals() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(cpus) = common::machine("an_idle_cpu_steals", 2) else {
        return;
    };
    for arch in ["global-lock", "work-stealing"] {
        let log = Log::new(4096);
        let tasks = vec![parallel(vec![vec![500], vec![1_000; 4]], 10, &log)];
        let cfg = config(cpus.clone(), arch, "rtws", 1);
        let r = run(&tasks, &cfg).unwrap();
        check_run(&format!("{arch}/rtws steal"), &r, &tasks, &log);
        assert!(r.totals.steals > 0, "{arch}: the idle CPU stole");
        assert!(
            r.totals.migrations >= r.totals.steals,
            "{arch}: a steal is a migration"
        );
    }
}

/// Sequential tasks only under `work-stealing`: G-EDF — every job accounted for, nothing
/// forks or steals, no job on two CPUs at once; other policies than `rtws` are refused.
#[test]
fn work_stealing_without_parallel_tasks_is_gedf() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(cpus) = common::machine("work_stealing_without_parallel_tasks_is_gedf", 2) else {
        return;
    };
    let t = |c: u64, p: u64| RtTask::new(us(c), ms(p), ms(p));
    let tasks = vec![t(3_000, 10), t(4_000, 20), t(7_500, 25), t(6_000, 30)];
    let log = Log::new(1);
    let cfg = config(cpus.clone(), "work-stealing", "rtws", tasks.len());
    let r = run(&tasks, &cfg).unwrap();
    check_run("work-stealing/sequential", &r, &tasks, &log);
    assert_eq!(r.totals.steals, 0);
    assert!(!r
        .trace
        .iter()
        .any(|e| matches!(e.kind, Kind::Fork | Kind::Join)));
    let err = run(&tasks, &config(cpus, "work-stealing", "gedf", tasks.len())).unwrap_err();
    assert!(err.to_string().contains("runs --policy rtws only"), "{err}");
}
