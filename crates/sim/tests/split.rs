//! Semi-partitioned FP-TS (`pfp-ts`, [RTPS §III, §IV]) in the simulator: hand-derived
//! schedules of split tasks (switch-in/out, migration and budget instants), and the three
//! properties a split run must have, read back from its Perfetto export: no deadline miss, no
//! job on two CPUs at once, no part executing longer than its budget on its CPU.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use schedlab_model::{Duration, SplitPart, Task, TaskSet};
use schedlab_policy::Placement;
use schedlab_sim::{jobs_csv, run, Interrupts, Overheads, SimConfig, SimResult};
use schedlab_trace::perfetto::to_perfetto_string;
use schedlab_trace::{Kind, Meta, NO_CPU};
use serde_json::Value;
use std::collections::BTreeMap;

const MS: u64 = 1_000_000;

fn ms(v: u64) -> Duration {
    Duration::from_ns(v * MS)
}

/// Implicit-deadline tasks `(C, T)` in ms.
fn set(tasks: &[(u64, u64)]) -> TaskSet {
    TaskSet::new(
        tasks
            .iter()
            .map(|&(c, t)| Task::implicit(ms(c), ms(t)).unwrap())
            .collect(),
    )
    .unwrap()
}

fn parts(p: &[(u32, u64)]) -> Vec<SplitPart> {
    p.iter()
        .map(|&(cpu, b)| SplitPart { cpu, budget: ms(b) })
        .collect()
}

/// Simulates under `pfp-ts` with ranks = task order, every task's CPU (a split task's head)
/// and its parts.
fn sim(
    ts: &TaskSet,
    cpus: u32,
    home: Vec<u32>,
    split: Vec<Vec<SplitPart>>,
    horizon: Duration,
    overheads: Option<Overheads>,
) -> (SimResult, Meta) {
    let mut cfg = SimConfig::new(cpus, horizon);
    cfg.record_trace = true;
    cfg.overheads = overheads;
    let ranks: Vec<u32> = (0..ts.len() as u32).collect();
    run(
        ts,
        "pfp-ts",
        &ranks,
        Some(Placement::semi(home, split)),
        &cfg,
    )
    .unwrap()
}

/// The events of job `task#seq` as (time in ms, kind, cpu, arg in ms for budgets / the
/// previous CPU for a migration).
fn job_events(r: &SimResult, task: u32, seq: u64) -> Vec<(u64, Kind, u32, u64)> {
    r.trace
        .iter()
        .filter(|e| e.task == task && e.seq == seq && e.kind != Kind::Release)
        .map(|e| {
            let arg = match e.kind {
                Kind::BudgetExhausted | Kind::BudgetReplenished => e.arg / MS,
                _ => e.arg,
            };
            (e.time / MS, e.kind, e.cpu, arg)
        })
        .collect()
}

/// The example of the issue: 2 CPUs, τ0 = (2, 4) on CPU 0, τ1 = (2, 4) on CPU 1, τ2 = (4, 8)
/// split [CPU 0: 2 ms, CPU 1: 2 ms], priorities τ0 > τ1 > τ2 (RM). Per hyperperiod of 8 ms:
/// - CPU 0: τ0#0 0–2; τ2#0's head 2–4; at 4 τ0#1 is released and preempts it — the same
///   instant τ2#0's head budget (2 ms, run 2–4) runs out: releases come first, so τ0#1 is
///   linked, then the exhaustion moves τ2#0 to CPU 1's queue with its tail budget (2 ms);
///   τ0#1 4–6; idle 6–8.
/// - CPU 1: τ1#0 0–2; idle 2–4; τ1#1 4–6 (τ2#0 waits: lower priority); τ2#0's tail 6–8
///   (a migration from CPU 0), completing at 8 = its deadline (no miss), with its tail budget
///   exactly used: the completion comes first, no exhaustion.
///
/// Utilization 1.5 on 2 CPUs; partitioned FP could not place τ2 (each CPU has 1/2 left).
#[test]
fn split_job_runs_head_then_tail_on_time() {
    let ts = set(&[(2, 4), (2, 4), (4, 8)]);
    let split = vec![vec![], vec![], parts(&[(0, 2), (1, 2)])];
    let (r, meta) = sim(&ts, 2, vec![0, 1, 0], split, ms(16), None);
    use Kind::*;
    for (k, base) in [(0, 0), (1, 8)] {
        let at = |t: u64| t + base;
        assert_eq!(
            job_events(&r, 2, k),
            vec![
                (at(0), BudgetReplenished, NO_CPU, 2),
                (at(2), Link, 0, 0),
                (at(2), SwitchIn, 0, 0),
                (at(4), BudgetExhausted, 0, 2),
                (at(4), BudgetReplenished, 0, 2),
                (at(4), SwitchOut, 0, 0),
                (at(4), Preempt, 0, 0),
                (at(6), Link, 1, 0),
                (at(6), SwitchIn, 1, 0),
                (at(6), Migrate, 1, 0),
                (at(8), SwitchOut, 1, 0),
                (at(8), Complete, 1, 0),
            ],
            "τ2#{k}"
        );
    }
    assert_eq!(r.totals.deadline_misses, 0);
    assert_eq!(r.totals.jobs, 4 + 4 + 2);
    // τ0 and τ1 never leave their CPUs.
    for e in r.trace.iter().filter(|e| e.kind == SwitchIn && e.task < 2) {
        assert_eq!(e.cpu, e.task);
    }
    // The jobs CSV: one row per job, under the task's index and the job's number.
    let csv = jobs_csv(&r);
    let rows: Vec<&str> = csv.lines().filter(|l| l.starts_with("2,")).collect();
    assert_eq!(
        rows,
        vec![
            "2,0,0,8000000,2000000,8000000,1,1,0,0 1,false,0",
            "2,1,8000000,16000000,10000000,16000000,1,1,0,0 1,false,0"
        ]
    );
    assert_eq!(
        meta.part_on(2, 1).map(|p| (p.0, p.2.budget_ns)),
        Some((1, 2 * MS))
    );
    assert_eq!(check_perfetto(&meta, &r), 2 * 2);
}

/// A split part preempted mid-budget resumes with the rest of it, and the next part preempts a
/// lower-priority job on arrival. 2 CPUs: τ0 = (1, 4) offset 1 on CPU 0, τ1 = (3, 12) split
/// [CPU 0: 2, CPU 1: 1], τ2 = (4, 12) on CPU 1; priorities τ0 > τ1 > τ2.
/// - t=0: τ1#0 starts on CPU 0 (head budget 2), τ2#0 on CPU 1.
/// - t=1: τ0#0 preempts τ1#0 (1 ms of its budget left). t=2: τ0#0 completes; τ1#0 resumes.
/// - t=3: τ1#0's head budget runs out (0–1 and 2–3): CPU 0 idles; τ1#0 preempts τ2#0 on
///   CPU 1 (which has run 3 of 4) with its tail budget 1 and completes at 4 (response 4).
/// - t=4: τ2#0 resumes, completes at 5. τ0#1, τ0#2: 5–6, 9–10 on CPU 0.
#[test]
fn preempted_head_resumes_with_the_rest_of_its_budget() {
    let mut tasks = set(&[(1, 4), (3, 12), (4, 12)]).into_tasks();
    tasks[0].offset = ms(1);
    let ts = TaskSet::new(tasks).unwrap();
    let split = vec![vec![], parts(&[(0, 2), (1, 1)]), vec![]];
    let (r, meta) = sim(&ts, 2, vec![0, 0, 1], split, ms(12), None);
    use Kind::*;
    assert_eq!(
        job_events(&r, 1, 0),
        vec![
            (0, BudgetReplenished, NO_CPU, 2),
            (0, Link, 0, 0),
            (0, SwitchIn, 0, 0),
            (1, SwitchOut, 0, 0),
            (1, Preempt, 0, 0),
            (2, Link, 0, 0),
            (2, SwitchIn, 0, 0),
            (3, BudgetExhausted, 0, 2),
            (3, BudgetReplenished, 0, 1),
            (3, SwitchOut, 0, 0),
            (3, Preempt, 0, 0),
            (3, Link, 1, 0),
            (3, SwitchIn, 1, 0),
            (3, Migrate, 1, 0),
            (4, SwitchOut, 1, 0),
            (4, Complete, 1, 0),
        ]
    );
    let sw: Vec<(u64, Kind, u32)> = job_events(&r, 2, 0)
        .into_iter()
        .filter(|e| matches!(e.1, SwitchIn | SwitchOut | Complete))
        .map(|e| (e.0, e.1, e.2))
        .collect();
    assert_eq!(
        sw,
        vec![
            (0, SwitchIn, 1),
            (3, SwitchOut, 1),
            (4, SwitchIn, 1),
            (5, SwitchOut, 1),
            (5, Complete, 1)
        ]
    );
    let t0: Vec<(u64, u64)> = r
        .jobs
        .iter()
        .filter(|j| j.task == 0)
        .map(|j| {
            (
                j.start.unwrap().as_ns() / MS,
                j.completion.unwrap().as_ns() / MS,
            )
        })
        .collect();
    assert_eq!(t0, vec![(1, 2), (5, 6), (9, 10)]);
    assert_eq!(r.totals.deadline_misses, 0);
    assert_eq!(check_perfetto(&meta, &r), 2);
}

/// One execution slice of the Perfetto export.
struct Slice {
    cpu: u64,
    task: u64,
    seq: u64,
    start: u64,
    end: u64,
    part: Option<(u64, String, u64)>,
}

/// µs with three decimals → ns.
fn ns_of(v: &Value) -> u64 {
    (v.as_f64().unwrap() * 1000.0).round() as u64
}

/// Reads the Perfetto export of a split run and checks, from it alone (its metadata names the
/// split): no deadline miss; no job on two CPUs at once; every slice of a split task carries
/// its part (on a CPU that hosts one) and, per job and CPU, the slices add up to at most that
/// part's budget; `budget-exhausted` instants carry that budget. Returns the number of
/// (split job, CPU) pairs checked.
fn check_perfetto(meta: &Meta, r: &SimResult) -> usize {
    let text = to_perfetto_string(meta, &r.trace);
    let v: Value = serde_json::from_str(&text).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    assert!(
        !events.iter().any(|e| e["cat"] == "deadline-miss"),
        "a deadline miss"
    );
    // The split as the export states it: task → [(cpu, budget_ns, kind)].
    let mut split: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    for (t, task) in v["otherData"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        if let Some(parts) = task["split"].as_array() {
            let parts = parts
                .iter()
                .map(|p| (p["cpu"].as_u64().unwrap(), p["budget_ns"].as_u64().unwrap()))
                .collect();
            split.insert(t as u64, parts);
        }
    }
    assert!(!split.is_empty());
    let slices: Vec<Slice> = events
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            let a = &e["args"];
            let start = ns_of(&e["ts"]);
            Slice {
                cpu: e["tid"].as_u64().unwrap(),
                task: a["task"].as_u64().unwrap(),
                seq: a["seq"].as_u64().unwrap(),
                start,
                end: start + ns_of(&e["dur"]),
                part: a["part"].as_u64().map(|k| {
                    let kind = a["part_kind"].as_str().unwrap().to_string();
                    (k, kind, a["budget_ns"].as_u64().unwrap())
                }),
            }
        })
        .collect();
    // No job on two CPUs at once.
    // (task, seq) → its slices as (start, end, cpu).
    type Slices = Vec<(u64, u64, u64)>;
    let mut by_job: BTreeMap<(u64, u64), Slices> = BTreeMap::new();
    for s in &slices {
        by_job
            .entry((s.task, s.seq))
            .or_default()
            .push((s.start, s.end, s.cpu));
    }
    for (job, ivs) in &mut by_job {
        ivs.sort_unstable();
        for w in ivs.windows(2) {
            assert!(w[1].0 >= w[0].1, "τ{}#{} on two CPUs: {w:?}", job.0, job.1);
        }
    }
    // Parts within their budgets.
    let mut used: BTreeMap<(u64, u64, u64), (u64, u64)> = BTreeMap::new();
    for s in slices.iter().filter(|s| split.contains_key(&s.task)) {
        let parts = &split[&s.task];
        let (k, kind, budget) = s.part.clone().unwrap_or_else(|| {
            panic!(
                "τ{}#{} ran on CPU {}, which hosts none of its parts",
                s.task, s.seq, s.cpu
            )
        });
        assert_eq!(parts[k as usize], (s.cpu, budget));
        let want = match k as usize {
            0 => "head",
            x if x + 1 == parts.len() => "tail",
            _ => "body",
        };
        assert_eq!(kind, want);
        let e = used.entry((s.task, s.seq, s.cpu)).or_insert((0, budget));
        e.0 += s.end - s.start;
    }
    for ((task, seq, cpu), (ran, budget)) in &used {
        assert!(
            ran <= budget,
            "τ{task}#{seq} ran {ran} ns on CPU {cpu}, budget {budget}"
        );
    }
    for e in events.iter().filter(|e| e["cat"] == "budget-exhausted") {
        let (task, cpu) = (
            e["args"]["task"].as_u64().unwrap(),
            e["args"]["cpu"].as_u64().unwrap(),
        );
        let part = split[&task].iter().find(|p| p.0 == cpu).unwrap();
        assert_eq!(e["args"]["budget_ns"].as_u64(), Some(part.1));
    }
    // The trace crate's own check agrees.
    assert_eq!(schedlab_trace::check::part_overruns(meta, &r.trace), vec![]);
    assert_eq!(schedlab_trace::check::parallel_execution(&r.trace), vec![]);
    used.len()
}

/// 3 CPUs, a body part: τ0, τ1, τ2 = (2, 4) on CPUs 0, 1, 2 (highest priorities), τ3 =
/// (6, 12) split [CPU 0: 2, CPU 1: 2, CPU 2: 2] (lowest). Head 2–4 on CPU 0 (after τ0#0); at
/// 4 the releases of τ0#1, τ1#1, τ2#1 come first, then the head budget runs out and τ3#0 waits
/// on CPU 1 behind τ1#1: body 6–8; at 8 likewise it waits on CPU 2 behind τ2#2: tail 10–12,
/// completing at its deadline. Run for 2 s: every job meets its deadline; 166 whole jobs of
/// τ3 and the one released at 1992 ms (head and body run, the tail not yet at the horizon;
/// its deadline lies beyond it).
#[test]
fn body_part_two_seconds() {
    let ts = set(&[(2, 4), (2, 4), (2, 4), (6, 12)]);
    let split = vec![vec![], vec![], vec![], parts(&[(0, 2), (1, 2), (2, 2)])];
    let (r, meta) = sim(&ts, 3, vec![0, 1, 2, 0], split, ms(2000), None);
    let j = r.jobs.iter().find(|j| j.task == 3 && j.seq == 0).unwrap();
    assert_eq!(
        (j.start.unwrap().as_ns(), j.completion.unwrap().as_ns()),
        (2 * MS, 12 * MS)
    );
    assert_eq!(j.cpus_used, vec![0, 1, 2]);
    assert_eq!(r.totals.deadline_misses, 0);
    // 2 s / 12 ms: 166 full jobs and one released at 1992 ms, unfinished at the horizon
    // (its deadline 2004 ms lies beyond): 167 jobs, of 3 parts each when whole.
    assert!(check_perfetto(&meta, &r) >= 3 * 166);
}

/// The example run for 2 s, and with overheads (scheduling and context switch of
/// 50 µs each, release latency 20 µs): dispatch delays shift every part, which may then miss
/// deadlines (the set is tight), but a job is still never on two CPUs and no part runs longer
/// than its budget on its CPU (the engine counts only execution).
#[test]
fn two_seconds_with_and_without_overheads() {
    let ts = set(&[(2, 4), (2, 4), (4, 8)]);
    let split = || vec![vec![], vec![], parts(&[(0, 2), (1, 2)])];
    let (r, meta) = sim(&ts, 2, vec![0, 1, 0], split(), ms(2000), None);
    assert_eq!(r.totals.deadline_misses, 0);
    assert_eq!(check_perfetto(&meta, &r), 2 * 250);
    let oh = Overheads {
        interrupts: Interrupts::Dedicated,
        release_latency: Duration::from_ns(20_000),
        schedule: Duration::from_ns(50_000),
        context_switch: Duration::from_ns(50_000),
        ..Overheads::default()
    };
    let (r, meta) = sim(&ts, 2, vec![0, 1, 0], split(), ms(2000), Some(oh));
    assert!(r.trace.iter().any(|e| e.kind == Kind::BudgetExhausted));
    assert_eq!(
        schedlab_trace::check::part_overruns(&meta, &r.trace),
        vec![]
    );
    assert_eq!(schedlab_trace::check::parallel_execution(&r.trace), vec![]);
}

/// Analysis against simulation (DESIGN.md): whenever `pfp-ts` analysis accepts a set, the
/// simulated schedule of exactly its assignment ([`semi_partition`], DM priorities) misses no
/// deadline over two hyperperiods plus the largest period, with WCET or shorter execution
/// times, and keeps every part within its budget. Implicit deadlines, periods from a
/// harmonic-ish list (short hyperperiods), utilization per task up to 0.9, 2–3 CPUs: most
/// accepted sets split a task (counted; the check only bites where a task is split).
#[test]
fn accepted_sets_meet_their_deadlines_in_simulation() {
    use proptest::prelude::*;
    use schedlab_analysis::placement::semi_partition;
    use schedlab_analysis::Priorities;
    const PERIODS: [u64; 5] = [100, 200, 400, 500, 1000];
    let config = ProptestConfig {
        cases: 1500,
        source_file: Some(file!()),
        ..ProptestConfig::default()
    };
    let split_sets = std::cell::Cell::new(0u32);
    let tasks = proptest::collection::vec((0usize..PERIODS.len(), 5u64..=90), 3..=8);
    let strategy = (tasks, 2u32..=3, any::<bool>(), 0u64..1000);
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let result = runner.run(&strategy, |(p, m, shorter, seed)| {
        let ts = TaskSet::new(
            p.iter()
                .map(|&(pi, pct)| {
                    let t = PERIODS[pi];
                    let c = (t * pct / 100).max(1);
                    Task::implicit(Duration::from_ns(c), Duration::from_ns(t)).unwrap()
                })
                .collect(),
        )
        .unwrap();
        let Ok(semi) = semi_partition(&ts, m, Priorities::Dm, None) else {
            return Ok(());
        };
        if semi.split.iter().any(|s| !s.is_empty()) {
            split_sets.set(split_sets.get() + 1);
        }
        let split = semi.split.clone();
        let mut cfg = SimConfig::new(m, Duration::from_ns(2 * 2000 + 1000));
        cfg.record_trace = true;
        cfg.seed = seed;
        if shorter {
            cfg.exec = schedlab_sim::ExecTime::UniformFraction { lo: 0.3, hi: 1.0 };
        }
        let sys = schedlab_analysis::System::new(&ts, m, Priorities::Dm).unwrap();
        let ranks = sys.priority_ranks().unwrap();
        let placement = Placement::semi(semi.cpu_of_task.clone(), split);
        let (r, meta) = run(&ts, "pfp-ts", &ranks, Some(placement), &cfg).unwrap();
        prop_assert_eq!(
            r.totals.deadline_misses,
            0,
            "pfp-ts accepted {:?} on {} CPUs ({:?}) but the simulation misses",
            p,
            m,
            semi
        );
        prop_assert_eq!(
            schedlab_trace::check::part_overruns(&meta, &r.trace),
            vec![]
        );
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        split_sets.get() >= 50,
        "only {} accepted sets split a task",
        split_sets.get()
    );
}
