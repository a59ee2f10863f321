//! `rtws` in the simulator [RTWS §V]: the worked example of §V-A (Fig. 2) derived by hand,
//! G-EDF's schedule without parallel tasks (job by job, on random sets), and migrations
//! against `gedf` running the threads as jobs on Table-I-like workloads [RTWS §VI].

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod par_common;

use par_common::{check_schedule, schedule, sim, sim_with, steals, task};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schedlab_model::{Duration, Task, TaskSet};
use schedlab_sim::{Arrivals, ExecTime, SimConfig};
use schedlab_trace::Kind;

/// The example's set: τ1 = (5, D1, 10) — 3 sequential, then two threads of 1; τ2 = (10, 20)
/// — 2 sequential, then four threads of 1, 3, 1, 3; τ3 = (C3, 19) sequential.
fn example(c3: u64, d1: u64) -> TaskSet {
    TaskSet::new(vec![
        task(d1, 10, &[&[3], &[1, 1]]),
        task(20, 20, &[&[2], &[1, 3, 1, 3]]),
        task(19, 19, &[&[c3]]),
    ])
    .unwrap()
}

/// Preemptions in a trace: (time, cpu, task, seq, strand).
fn preemptions(events: &[schedlab_trace::Event]) -> Vec<(u64, u32, u32, u64, u32)> {
    events
        .iter()
        .filter(|e| e.kind == Kind::Preempt)
        .map(|e| (e.time, e.cpu, e.task, e.seq, e.strand))
        .collect()
}

/// [RTWS §V-A, Fig. 2] on two CPUs, worked by hand. Core 1 is CPU 0, core 2 CPU 1; τ1, τ2,
/// τ3 are tasks 0, 1, 2. Strands: τ1's sequential part is strand 0 and its threads strands 1
/// and 2; τ2's sequential part is strand 0 and its threads strands 1–4, which are the
/// paper's w²…w⁵ (1, 3, 1, 3 units).
///
/// **Readings.**
/// - "The first thread of each fork-join task does not execute any code in a parallel
///   region": a job's first thread (w¹, strand 0) runs its sequential part, forks the
///   region's threads and takes no share of the region itself (it waits at the join), so the
///   four threads of τ2 are w²…w⁵ and the thread core 2 steals at 7 is w² (strand 1).
/// - τ3's WCET: the text gives τ3 = (4, 19) and U = 1.21, but also "in the interval
///   t = [0, 5] none of the cores is idle" and "at t = 5, τ2 is scheduled for execution in
///   core 1", which need core 2 busy until 5 — **C3 = 5** (U = 1.26). With C3 = 4 core 2
///   takes τ2 at 4 (the second run below).
/// - "At t = 10, a job from task τ1 is released and preempts w³, which has a lower
///   priority": τ1#1's deadline (20) equals τ2's, so the job outranks the *thread* at equal
///   deadlines, and of the two running threads of τ2 (w⁴ on core 1, w³ on core 2) the stolen
///   one is preempted — the policy's classes at equal deadlines (`crates/policy/src/rtws.rs`,
///   "Ties": job, then local thread, then stolen thread; jobs among themselves by the
///   project's rule, never preempting an equal deadline).
/// - Ties otherwise by the project's rule (task index, job, strand); all tasks released at
///   0; deadlines τ1#0 10, τ3 19, τ2 20.
///
/// **C3 = 5**, derived by hand — the narrative exactly:
/// - 0: CPU 0 ← τ1#0, CPU 1 ← τ3 (earliest deadlines, lowest idle CPU first).
/// - 3: τ1's sequential part ends: its threads go onto CPU 0's deque (CPU 1 is busy: no
///   steal); CPU 0 pops the bottom, strand 2, [3, 4), then strand 1, [4, 5).
/// - 5: τ1#0 completes and CPU 0 takes τ2 from the global queue — "at t = 5, τ2 is scheduled
///   for execution in core 1" —; τ3 completes, CPU 1 idles (nothing anywhere).
/// - 7: τ2 forks w²…w⁵ onto CPU 0's deque (top w², bottom w⁵); at the joining thread's
///   completion CPU 0 pops w⁵, [7, 10), and CPU 1, idle, steals the top: **w², at 7**.
/// - 8: w² is done; CPU 1 steals w³ (the new top), [8, …).
/// - 10: w⁵ is done and CPU 0 pops w⁴; τ1#1 is released (deadline 20) and preempts the
///   lowest-priority running entity, **the stolen w³ on CPU 1 (at 10)**, which has run 2 of
///   its 3 units: Rule F sends it to the global queue. τ1#1 runs on CPU 1, [10, 13); CPU 0
///   runs w⁴, [10, 11).
/// - 11: w⁴ is done; CPU 0's local queue is empty and it takes w³ from the global queue:
///   **w³ resumes at 11 on core 1**, [11, 12).
/// - 12: w³ is done: τ2#0 joins and completes; CPU 0 idles (the text's "core 2 is idle
///   after t = 12" is core 1 here: core 2 runs τ1#1 until 13).
/// - 13: τ1#1 forks on CPU 1: CPU 1 pops strand 2 and CPU 0 steals strand 1 — **parallel
///   execution by work-stealing at 13**, [13, 14).
/// - 19: τ3#1 on CPU 1 (its task's last CPU) until the horizon 20.
#[test]
fn worked_example_of_section_v_a() {
    // C3 = 5.
    let r = sim(&example(5, 10), "rtws", 2, 20);
    assert_eq!(
        schedule(&r.trace),
        vec![
            (0, 0, 0, 0, 0, 3),
            (1, 2, 0, 0, 0, 5),
            (0, 0, 0, 2, 3, 4),
            (0, 0, 0, 1, 4, 5),
            (0, 1, 0, 0, 5, 7),
            (0, 1, 0, 4, 7, 10),
            (1, 1, 0, 1, 7, 8),
            (1, 1, 0, 2, 8, 10),
            (0, 1, 0, 3, 10, 11),
            (1, 0, 1, 0, 10, 13),
            (0, 1, 0, 2, 11, 12),
            (0, 0, 1, 1, 13, 14),
            (1, 0, 1, 2, 13, 14),
            (1, 2, 1, 0, 19, 20),
        ]
    );
    assert_eq!(
        steals(&r.trace),
        vec![(7, 1, 1, 0, 1, 0), (8, 1, 1, 0, 2, 0), (13, 0, 0, 1, 1, 1)]
    );
    assert_eq!(preemptions(&r.trace), vec![(10, 1, 1, 0, 2)]);
    let done: Vec<_> = r
        .jobs
        .iter()
        .map(|j| (j.task, j.seq, j.completion.map(|c| c.as_ns())))
        .collect();
    assert_eq!(
        done,
        vec![
            (0, 0, Some(5)),
            (0, 1, Some(14)),
            (1, 0, Some(12)),
            (2, 0, Some(5)),
            (2, 1, None)
        ]
    );
    assert_eq!((r.totals.deadline_misses, r.totals.steals), (0, 3));
    check_schedule(&example(5, 10), &r, 2, 20, true).unwrap();

    // C3 = 4 (U = 1.21 as printed): core 2 is free at 4 and takes τ2 there, so the
    // narrative's times do not follow: τ2 forks at 6 on CPU 1 and CPU 0 steals; by 10 every
    // thread of τ2 is done, and τ1#1 takes the idle CPU 0 without preempting anything.
    let r = sim(&example(4, 10), "rtws", 2, 20);
    assert_eq!(
        schedule(&r.trace),
        vec![
            (0, 0, 0, 0, 0, 3),
            (1, 2, 0, 0, 0, 4),
            (0, 0, 0, 2, 3, 4),
            (0, 0, 0, 1, 4, 5),
            (1, 1, 0, 0, 4, 6),
            (0, 1, 0, 1, 6, 7),
            (1, 1, 0, 4, 6, 9),
            (0, 1, 0, 2, 7, 10),
            (1, 1, 0, 3, 9, 10),
            (0, 0, 1, 0, 10, 13),
            (0, 0, 1, 2, 13, 14),
            (1, 0, 1, 1, 13, 14),
            (1, 2, 1, 0, 19, 20),
        ]
    );
    assert_eq!(
        steals(&r.trace),
        vec![(6, 0, 1, 0, 1, 1), (7, 0, 1, 0, 2, 1), (13, 1, 0, 1, 1, 0)]
    );
    assert!(preemptions(&r.trace).is_empty());
    check_schedule(&example(4, 10), &r, 2, 20, true).unwrap();
}

/// Random sequential sets: `(c, d, t)` with `c ≤ d ≤ t`-ish shapes, periods drawn from a
/// tie-prone and a tie-free range.
fn seq_sets() -> impl Strategy<Value = (TaskSet, u32)> {
    (
        1u32..=4,
        prop::collection::vec((1u64..40, 0u64..=100, 10u64..80), 1..8),
    )
        .prop_map(|(m, raw)| {
            let tasks: Vec<Task> = raw
                .into_iter()
                .map(|(c, dfrac, t)| {
                    let c = c.min(t);
                    let d = (c + (t - c) * dfrac / 100).max(c);
                    Task::new(
                        Duration::from_ns(c),
                        Duration::from_ns(d),
                        Duration::from_ns(t),
                    )
                    .unwrap()
                })
                .collect();
            (TaskSet::new(tasks).unwrap(), m)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Without parallel tasks `rtws` is G-EDF: every job record, the totals and the whole
    /// trace equal `gedf`'s (periodic and sporadic arrivals, WCET and shorter demands,
    /// overloads included).
    #[test]
    fn without_parallel_tasks_rtws_is_gedf((set, m) in seq_sets(), sporadic in any::<bool>(), seed in 0u64..1000) {
        let mut cfg = SimConfig::new(m, Duration::from_ns(600));
        cfg.seed = seed;
        if sporadic {
            cfg.arrivals = Arrivals::Sporadic { max_delay: Duration::from_ns(7) };
            cfg.exec = ExecTime::UniformFraction { lo: 0.3, hi: 1.0 };
        }
        let g = sim_with(&set, "gedf", m, cfg.clone());
        let w = sim_with(&set, "rtws", m, cfg);
        prop_assert_eq!(&g.jobs, &w.jobs);
        prop_assert_eq!(&g.totals, &w.totals);
        prop_assert_eq!(&g.trace, &w.trace);
        prop_assert_eq!(w.totals.steals, 0);
    }
}

/// A Table-I-like set [RTWS §VI]: task utilizations uniform in [0.1, 0.5] added until the
/// total falls in `[lo·m, hi·m]` (the windows read as fractions of the platform; a draw that
/// would overshoot is redrawn, at most 1000 times), periods uniform in [700, 800] ms, each job
/// a sequential part, `n_i = max(2, ⌈x·2m⌉)` parallel threads and a final sequential part
/// (the master thread resuming after the join), the WCET split at random with every part at
/// least 1 µs. Times in whole microseconds.
fn table_one_set(rng: &mut ChaCha8Rng, m: u32, lo: f64, hi: f64) -> TaskSet {
    let us = |x: u64| x * 1_000;
    let mut tasks = Vec::new();
    let mut total = 0.0;
    let mut tries = 0;
    while total < lo * f64::from(m) && tries < 1000 {
        tries += 1;
        let u = rng.random_range(0.1..=0.5);
        if total + u > hi * f64::from(m) {
            continue;
        }
        total += u;
        let period = rng.random_range(700_000u64..=800_000);
        let c = ((u * period as f64) as u64).max(10);
        let n = ((rng.random_range(0.0..1.0) * f64::from(2 * m)).ceil() as usize).max(2);
        let seq1 = rng.random_range(1..=c / 5);
        let seq2 = rng.random_range(1..=c / 5);
        let mut rest = c - seq1 - seq2;
        let mut threads = Vec::new();
        for k in 0..n {
            let left = (n - k - 1) as u64;
            let x = if left == 0 {
                rest
            } else {
                rng.random_range(1..=(rest - left).max(1)).min(rest - left)
            };
            threads.push(us(x));
            rest -= x;
        }
        tasks.push(task(
            us(period),
            us(period),
            &[&[us(seq1)], &threads, &[us(seq2)]],
        ));
    }
    TaskSet::new(tasks).unwrap()
}

/// [RTWS §VI, Fig. 3]: on Table-I-like workloads (m = 2, 4, 8; the three utilization
/// windows; 5 seeded sets each; 10 s simulated), `rtws` migrates no more than `gedf` running
/// the threads as jobs — on every set — and it reports its steals, each of which is a
/// migration (the "a steal is a migration": `schedlab_trace::counts`). The first set
/// of each point is checked in full
/// (`check_schedule`, work conservation included). Prints the numbers (`--nocapture`).
#[test]
fn rtws_migrates_no_more_than_gedf_threads_as_jobs() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let horizon = 10_000_000_000u64; // 10 s
    println!("m  window     sets threads  gedf-migr  rtws-migr  rtws-steals  gedf-cs  rtws-cs  gedf-miss rtws-miss");
    for m in [2u32, 4, 8] {
        for (lo, hi) in [(0.38, 0.40), (0.58, 0.60), (0.73, 0.75)] {
            let mut sum = [0u64; 7];
            for k in 0..5 {
                let set = table_one_set(&mut rng, m, lo, hi);
                let g = sim(&set, "gedf", m, horizon);
                let w = sim(&set, "rtws", m, horizon);
                assert!(
                    w.totals.migrations <= g.totals.migrations,
                    "m = {m}, [{lo}, {hi}]: rtws {} > gedf {} migrations",
                    w.totals.migrations,
                    g.totals.migrations
                );
                assert!(w.totals.steals > 0);
                assert!(
                    w.totals.steals <= w.totals.migrations,
                    "m = {m}: {} steals > {} migrations",
                    w.totals.steals,
                    w.totals.migrations
                );
                if k == 0 {
                    // The full check of one set per point (it is quadratic in the events).
                    check_schedule(&set, &g, m, horizon, true).unwrap();
                    check_schedule(&set, &w, m, horizon, true).unwrap();
                }
                let threads: usize = set
                    .tasks()
                    .iter()
                    .map(|t| t.parallel.as_ref().map_or(1, |p| p.thread_count()))
                    .sum();
                sum[0] += threads as u64;
                sum[1] += g.totals.migrations;
                sum[2] += w.totals.migrations;
                sum[3] += w.totals.steals;
                sum[4] += g.totals.context_switches;
                sum[5] += w.totals.context_switches;
                sum[6] += g.totals.deadline_misses * 1_000_000 + w.totals.deadline_misses;
            }
            println!(
                "{m}  [{lo:.2},{hi:.2}]  5  {:7}  {:9}  {:9}  {:11}  {:7}  {:7}  {:9} {:9}",
                sum[0],
                sum[1],
                sum[2],
                sum[3],
                sum[4],
                sum[5],
                sum[6] / 1_000_000,
                sum[6] % 1_000_000
            );
        }
    }
}

/// Speed (docs/benchmarks.md, "Simulation"): Table-I-like parallel sets (the 0.73–0.75·m
/// window, 3 seeded sets per m) simulated for 1000 s under `gedf` (threads as jobs) and
/// `rtws`, metrics only: wall time per job and per policy callback, median of 5 runs (the
/// two policies alternating).
/// `cargo test --release -p schedlab-sim --test rtws -- --ignored --nocapture`.
#[test]
#[ignore]
fn parallel_speed_report() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let horizon = 1_000_000_000_000u64; // 1000 s
    println!("m  tasks threads/job   jobs  policy  callbacks  wall s   ns/job  ns/callback");
    for m in [2u32, 4, 8, 16] {
        for _ in 0..3 {
            let set = table_one_set(&mut rng, m, 0.73, 0.75);
            let threads: usize = set
                .tasks()
                .iter()
                .map(|t| t.parallel.as_ref().map_or(1, |p| p.thread_count()))
                .sum();
            let mut cfg = SimConfig::new(m, Duration::from_ns(horizon));
            cfg.record_jobs = false;
            let ranks = par_common::ranks(set.len());
            let mut walls = [Vec::new(), Vec::new()];
            let mut last = [None, None];
            for _ in 0..5 {
                for (k, policy) in ["gedf", "rtws"].into_iter().enumerate() {
                    let t0 = std::time::Instant::now();
                    let r = schedlab_sim::run(&set, policy, &ranks, None, &cfg)
                        .unwrap()
                        .0;
                    walls[k].push(t0.elapsed().as_secs_f64());
                    last[k] = Some(r);
                }
            }
            for (k, policy) in ["gedf", "rtws"].into_iter().enumerate() {
                walls[k].sort_by(f64::total_cmp);
                let (w, r) = (walls[k][2], last[k].take().unwrap());
                println!(
                    "{m:2} {:5} {:11.1} {:7} {policy:>7} {:10} {w:7.3} {:8.0} {:12.0}",
                    set.len(),
                    threads as f64 / set.len() as f64,
                    r.totals.jobs,
                    r.events_processed,
                    w * 1e9 / r.totals.jobs as f64,
                    w * 1e9 / r.events_processed as f64
                );
            }
        }
    }
}
