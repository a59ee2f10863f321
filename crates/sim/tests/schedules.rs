//! The real policies in the simulator: hand-derived schedules of [ChronOS Tables 6.1, 6.2] and
//! the soundness of analyses against simulated schedules (issue "How it will be judged").

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use proptest::prelude::*;
use schedlab_analysis::{analyze, registry, Priorities, System};
use schedlab_model::{Duration, Task, TaskSet};
use schedlab_policy::Placement;
use schedlab_sim::{run, ExecTime, SimConfig, SimResult};

fn set(tasks: &[(u64, u64, u64)]) -> TaskSet {
    TaskSet::new(
        tasks
            .iter()
            .map(|&(c, d, t)| {
                Task::new(
                    Duration::from_ns(c),
                    Duration::from_ns(d),
                    Duration::from_ns(t),
                )
                .unwrap()
            })
            .collect(),
    )
    .unwrap()
}

fn dm_ranks(tasks: &TaskSet) -> Vec<u32> {
    let sys = System::new(tasks, 1, Priorities::Dm).unwrap();
    let mut ranks = vec![0; tasks.len()];
    for (r, &i) in sys.priority_order().unwrap().iter().enumerate() {
        ranks[i] = r as u32;
    }
    ranks
}

fn sim(
    tasks: &TaskSet,
    policy: &str,
    cpus: u32,
    horizon: u64,
    placement: Option<Placement>,
) -> SimResult {
    let mut cfg = SimConfig::new(cpus, Duration::from_ns(horizon));
    cfg.record_jobs = true;
    run(tasks, policy, &dm_ranks(tasks), placement, &cfg)
        .unwrap()
        .0
}

fn job(r: &SimResult, task: u32, seq: u64) -> &schedlab_sim::JobRecord {
    r.jobs
        .iter()
        .find(|j| j.task == task && j.seq == seq)
        .unwrap()
}

/// Table 6.1 on 4 CPUs: tasks 1–4 run in [0, 10), task 5 in [10, 102): it misses 101 by 1
/// under G-EDF, G-FP (DM) and G-NP-EDF alike.
#[test]
fn table_6_1_dhall_effect() {
    let ts = set(&[
        (10, 100, 100),
        (10, 100, 100),
        (10, 100, 100),
        (10, 100, 100),
        (92, 101, 101),
    ]);
    for policy in ["gedf", "gfp", "gnpedf", "gfifo", "edzl"] {
        let r = sim(&ts, policy, 4, 101, None);
        let j = job(&r, 4, 0);
        if policy == "edzl" {
            // EDZL: task 5 reaches zero laxity at 101 − 92 = 9 and preempts: it meets 101.
            assert!(r.totals.schedulable, "edzl beats the Dhall effect");
            continue;
        }
        assert_eq!(j.start.map(|t| t.as_ns()), Some(10), "{policy}");
        assert_eq!(r.totals.deadline_misses, 1, "{policy}");
        assert_eq!(
            r.totals.max_tardiness,
            Duration::from_ns(0),
            "{policy}: unfinished at the horizon"
        );
    }
    // Partitioned, task 5 alone on a CPU: no miss.
    let placement = Placement::new(vec![1, 1, 1, 1, 0], 1);
    let r = sim(&ts, "pedf", 4, 1010, Some(placement.clone()));
    assert!(r.totals.schedulable);
    assert_eq!(job(&r, 4, 0).completion.map(|t| t.as_ns()), Some(92));
}

/// Table 6.2 on 4 CPUs. G-NP-EDF: at 51 task 5 starts on a CPU and runs to 151; at 100 the
/// second jobs of tasks 1–4 find three free CPUs; the one left waits until 151 and completes
/// at 202 > 200 — exactly one miss. G-EDF: task 5 runs [51,100), [151,200), [251,253]: it
/// completes at 253 (the thesis says 202, but its own "preempted twice" gives 253), no miss.
#[test]
fn table_6_2_non_preemptive_blocking() {
    let ts = set(&[
        (51, 100, 100),
        (51, 100, 100),
        (51, 100, 100),
        (51, 100, 100),
        (100, 10000, 1000),
    ]);
    let np = sim(&ts, "gnpedf", 4, 1000, None);
    assert_eq!(np.totals.deadline_misses, 1);
    let late: Vec<_> = np.jobs.iter().filter(|j| j.tardiness.as_ns() > 0).collect();
    assert_eq!(late.len(), 1);
    assert_eq!(
        (late[0].seq, late[0].completion.map(|t| t.as_ns())),
        (1, Some(202))
    );
    assert!(late[0].task < 4);
    let ed = sim(&ts, "gedf", 4, 1000, None);
    assert_eq!(ed.totals.deadline_misses, 0);
    let t5 = job(&ed, 4, 0);
    assert_eq!(
        (
            t5.start.map(|t| t.as_ns()),
            t5.completion.map(|t| t.as_ns()),
            t5.preemptions
        ),
        (Some(51), Some(253), 2)
    );
}

const PERIODS: [u64; 8] = [4, 5, 6, 8, 10, 12, 15, 20];

fn small_set(max_tasks: usize) -> impl Strategy<Value = Vec<(u64, u64, u64)>> {
    proptest::collection::vec(
        (0usize..PERIODS.len(), 1u64..=20, 0u64..=100, any::<bool>()),
        1..=max_tasks,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(pi, c, f, constrained)| {
                let t = PERIODS[pi];
                let c = 1 + (c - 1) % t;
                let d = if constrained {
                    c + (t - c) * f / 100
                } else {
                    t
                };
                (c, d, t)
            })
            .collect()
    })
}

fn hyperperiod(tasks: &[(u64, u64, u64)]) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    tasks.iter().fold(1, |h, &(_, _, t)| h / gcd(h, t) * t)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// m = 1: the exact tests agree with the simulated synchronous schedule over two
    /// hyperperiods (plus the largest deadline), both ways; fp-rta's bounds are the observed
    /// worst response times.
    #[test]
    fn uniprocessor_exact_tests_agree_with_simulation(p in small_set(6)) {
        let ts = set(&p);
        let sys = System::new(&ts, 1, Priorities::Dm).unwrap();
        let horizon = 2 * hyperperiod(&p) + p.iter().map(|x| x.1).max().unwrap();
        let edf = sim(&ts, "gedf", 1, horizon, None);
        let edf_ok = analyze(registry::by_name("edf").unwrap().as_ref(), &sys).is_schedulable();
        prop_assert_eq!(edf_ok, edf.totals.schedulable, "edf vs simulation on {:?}", p);
        let fp = sim(&ts, "gfp", 1, horizon, None);
        let v = analyze(registry::by_name("fp-rta").unwrap().as_ref(), &sys);
        prop_assert_eq!(v.is_schedulable(), fp.totals.schedulable, "fp-rta vs simulation on {:?}", p);
        if let Some(bounds) = v.response_time_bounds {
            for (i, b) in bounds.iter().enumerate() {
                prop_assert_eq!(Some(*b), fp.per_task[i].max_response, "task {} of {:?}", i, p);
            }
        }
    }
}

/// The global families whose accepted verdicts are checked against simulated schedules.
const GLOBAL_FAMILIES: [(&str, &str); 4] = [
    ("global-edf", "gedf"),
    ("global-fp", "gfp"),
    ("global-np-edf", "gnpedf"),
    ("global-fifo", "gfifo"),
];

/// Hard global tests that accept never meet a miss in the simulated schedule, with WCET or
/// shorter execution times, and simulated response times stay within the bounds; observed
/// tardiness never exceeds the soft bounds (G-EDF: Devi–Anderson; G-NP-EDF; G-FIFO).
///
/// The check only bites where a test accepts, so the accepted verdicts checked are counted per
/// family and must reach a minimum: n is uniform in 1..=9, so one case in nine is a single
/// task, which every family has a test to accept (no interference: `C ≤ D`); 1500 cases give
/// about 170 such sets, and fewer than 50 has a probability below 10^-20.
#[test]
fn global_analyses_hold_in_simulation() {
    let config = ProptestConfig {
        cases: 1500,
        source_file: Some(file!()),
        ..ProptestConfig::default()
    };
    let checked = std::cell::RefCell::new([0u64; GLOBAL_FAMILIES.len()]);
    let strategy = (small_set(9), 2u32..=4, any::<bool>(), 0u64..1000);
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let result = runner.run(&strategy, |(p, m, shorter, seed)| {
        let ts = set(&p);
        let sys = System::new(&ts, m, Priorities::Dm).unwrap();
        let horizon = 2 * hyperperiod(&p) + p.iter().map(|x| x.1).max().unwrap();
        let mut cfg = SimConfig::new(m, Duration::from_ns(horizon));
        cfg.seed = seed;
        if shorter {
            cfg.exec = ExecTime::UniformFraction { lo: 0.3, hi: 1.0 };
        }
        let ranks = dm_ranks(&ts);
        let mut runs: Vec<(&str, SimResult)> = Vec::new();
        for (_, policy) in GLOBAL_FAMILIES {
            runs.push((policy, run(&ts, policy, &ranks, None, &cfg).unwrap().0));
        }
        for test in registry::all_for(m) {
            let info = test.info();
            let Some(family) = GLOBAL_FAMILIES.iter().position(|(f, _)| *f == info.family) else {
                continue;
            };
            let policy = GLOBAL_FAMILIES[family].1;
            let v = analyze(test.as_ref(), &sys);
            if !v.is_schedulable() {
                continue;
            }
            checked.borrow_mut()[family] += 1;
            let r = &runs.iter().find(|(n, _)| *n == policy).unwrap().1;
            if info.kind == schedlab_analysis::Kind::Soft {
                if let Some(bounds) = &v.tardiness_bounds {
                    for (i, b) in bounds.iter().enumerate() {
                        prop_assert!(
                            r.per_task[i].max_tardiness <= *b,
                            "{}: task {} tardiness {:?} > bound {:?} on {:?}",
                            info.name,
                            i,
                            r.per_task[i].max_tardiness,
                            b,
                            p
                        );
                    }
                }
                continue;
            }
            prop_assert!(
                r.totals.schedulable,
                "{} accepted {:?} on {} CPUs but the simulation misses",
                info.name,
                p,
                m
            );
            if let Some(bounds) = &v.response_time_bounds {
                for (i, b) in bounds.iter().enumerate() {
                    if let Some(obs) = r.per_task[i].max_response {
                        prop_assert!(
                            obs <= *b,
                            "{}: task {} responds in {:?} > bound {:?} on {:?}",
                            info.name,
                            i,
                            obs,
                            b,
                            p
                        );
                    }
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let checked = checked.into_inner();
    eprintln!("accepted verdicts checked against simulations: {GLOBAL_FAMILIES:?} = {checked:?}");
    for ((family, _), n) in GLOBAL_FAMILIES.iter().zip(checked) {
        assert!(
            n >= 50,
            "only {n} accepted verdicts of {family} were checked"
        );
    }
}

/// [ChronOS Table 1.1] on 2 CPUs: τ0 = (3, 6), τ1 = (5, 9), τ2 = (7, 17), τ3 = (2, 4), implicit
/// deadlines (its figures are missing from the text; schedules derived by hand, DESIGN.md
/// ties: no preemption on an equal key, decisions once per instant).
fn table_1_1() -> TaskSet {
    set(&[(3, 6, 6), (5, 9, 9), (7, 17, 17), (2, 4, 4)])
}

fn segments(r: &SimResult, task: u32, seq: u64) -> (Option<u64>, Option<u64>, u32) {
    let j = job(r, task, seq);
    (
        j.start.map(|t| t.as_ns()),
        j.completion.map(|t| t.as_ns()),
        j.preemptions,
    )
}

/// G-EDF: 0: τ3, τ0 run; 2: τ1; 3: τ2; 4: τ3#1 (d 8) preempts τ2 (d 17); 6: τ3#1 done and τ0#1
/// (d 12) released in the same instant: τ0#1 takes the CPU, τ2 stays waiting; 7: τ1#0 done,
/// τ2 resumes; 8: τ3#2 preempts τ2 again; 9: τ0#1 done, τ2 resumes (τ1#1, d 18, does not
/// preempt anything); 10: τ1#1 starts; 12: τ0#2 (d 18) does not preempt τ1#1 (d 18, equal
/// key), τ3#3 (d 16) does; 14: τ2#0 and τ3#3 complete, τ0#2 and τ1#1 run to 17; 16: τ3#4 waits
/// (d 20 > 18); 17: it runs to 19. No deadline is missed.
#[test]
fn table_1_1_gedf_two_cpus() {
    let r = sim(&table_1_1(), "gedf", 2, 20, None);
    assert_eq!(segments(&r, 2, 0), (Some(3), Some(14), 2));
    assert_eq!(segments(&r, 1, 0), (Some(2), Some(7), 0));
    assert_eq!(segments(&r, 1, 1), (Some(10), Some(17), 1));
    assert_eq!(segments(&r, 0, 1), (Some(6), Some(9), 0));
    assert_eq!(segments(&r, 0, 2), (Some(14), Some(17), 0));
    assert_eq!(segments(&r, 3, 3), (Some(12), Some(14), 0));
    assert_eq!(segments(&r, 3, 4), (Some(17), Some(19), 0));
    assert_eq!(r.totals.deadline_misses, 0);
}

/// G-RMS (ranks by period: τ3, τ0, τ1, τ2): as G-EDF until 9, where τ1#1 (rank 2) preempts the
/// just-linked τ2 (rank 3); 10: τ2 resumes; 12: τ0#2 preempts τ2, τ3#3 preempts τ1#1; 14: τ1#1
/// resumes; 15: τ2 resumes with 3 ns left and completes at 18 — it misses 17 by 1 (G-EDF meets
/// it); τ1#1 completes at 16.
#[test]
fn table_1_1_grms_two_cpus() {
    let ts = table_1_1();
    let mut cfg = SimConfig::new(2, Duration::from_ns(20));
    cfg.record_jobs = true;
    let rm_ranks = [1, 2, 3, 0];
    let r = run(&ts, "gfp", &rm_ranks, None, &cfg).unwrap().0;
    assert_eq!(segments(&r, 2, 0), (Some(3), Some(18), 3));
    assert_eq!(job(&r, 2, 0).tardiness, Duration::from_ns(1));
    assert_eq!(segments(&r, 1, 1), (Some(9), Some(16), 1));
    assert_eq!(segments(&r, 0, 2), (Some(12), Some(15), 0));
    assert_eq!(r.totals.deadline_misses, 1);
}

/// P-EDF and P-RMS with the partition {τ0, τ3} on CPU 0 (U = 1) and {τ1, τ2} on CPU 1
/// (U ≈ 0.97). P-EDF meets every deadline (U ≤ 1 per CPU): CPU 0 runs τ3 [0,2), τ0 [2,5),
/// τ3#1 [5,7), τ0#1 [7,10), τ3#2 [10,12) (τ3#2, d 12, does not preempt τ0#1, d 12). P-RMS on
/// CPU 0: τ3 [0,2), τ0 [2,4), τ3#1 preempts it at 4, τ0#0 finishes at 7 — 1 late — and τ0#1
/// (waiting for it) runs [7,8) and [10,12), completing exactly at its deadline 12; CPU 1 is
/// RM-schedulable (R(τ2) = 7 + 2·5 = 17 ≤ 17).
#[test]
fn table_1_1_partitioned() {
    let ts = table_1_1();
    let placement = Placement::new(vec![0, 1, 1, 0], 1);
    let edf = sim(&ts, "pedf", 2, 612, Some(placement.clone()));
    assert_eq!(edf.totals.deadline_misses, 0);
    assert_eq!(segments(&edf, 0, 0), (Some(2), Some(5), 0));
    assert_eq!(segments(&edf, 3, 2), (Some(10), Some(12), 0));
    assert!(edf.jobs.iter().all(|j| j.migrations == 0));
    let mut cfg = SimConfig::new(2, Duration::from_ns(20));
    cfg.record_jobs = true;
    let rm = run(&ts, "pfp", &[1, 2, 3, 0], Some(placement), &cfg)
        .unwrap()
        .0;
    assert_eq!(segments(&rm, 0, 0), (Some(2), Some(7), 1));
    assert_eq!(job(&rm, 0, 0).tardiness, Duration::from_ns(1));
    assert_eq!(segments(&rm, 0, 1), (Some(7), Some(12), 1));
    assert_eq!(rm.per_task[2].max_response, Some(Duration::from_ns(17)));
}

/// Found by comparing schedules job by job with SimSo 0.8.5 (G-EDF, m = 2, times in ms):
/// τ0 = (4, 15), τ1 = (4, 50), τ2 = (1, 20), τ3 = (1, 5), τ4 = (1, 40), τ5 = (11, 25). At 60,
/// τ5#2 (deadline 75) is running; the releases at 60 are handled in task order: τ0#4
/// (deadline 75) takes the idle CPU, then τ3#12 (deadline 65) needs a victim — it must undo
/// the same-instant link of τ0#4 rather than preempt the running τ5#2, whose key is equal
/// (DESIGN.md: a running job is never preempted by an equal key). So τ3#12 runs [60, 61),
/// τ0#4 [61, 65), and τ5#2 is never preempted.
#[test]
fn same_instant_link_is_undone_before_an_equal_key_running_job_is_preempted() {
    let ts = set(&[
        (4, 15, 15),
        (4, 50, 50),
        (1, 20, 20),
        (1, 5, 5),
        (1, 40, 40),
        (11, 25, 25),
    ]);
    let r = sim(&ts, "gedf", 2, 80, None);
    assert_eq!(segments(&r, 0, 4), (Some(61), Some(65), 0));
    assert_eq!(segments(&r, 3, 12), (Some(60), Some(61), 0));
    assert_eq!(job(&r, 5, 2).preemptions, 0);
}

/// The one G-EDF set (distinct prime periods, m = 4, ms) where SimSo 0.8.5 and schedlab
/// disagree after the fix above: both make the same decisions job by job up to 43, where
/// SimSo's decision log has τ3#0 (C 24, D 43) running [16,21), [25,26), [29,43) — 20 ms of its
/// 24 ms — and completing. Here it runs [16,21), [25,26), [29,47): its full WCET, completing
/// 4 ms late.
#[test]
fn gedf_gives_a_job_its_full_wcet_where_simso_does_not() {
    let ts = set(&[
        (22, 41, 41),
        (3, 31, 31),
        (2, 47, 47),
        (24, 43, 43),
        (6, 11, 11),
        (10, 29, 29),
        (4, 7, 7),
        (3, 13, 13),
        (7, 17, 17),
        (11, 19, 19),
    ]);
    let r = sim(&ts, "gedf", 4, 50, None);
    let j = job(&r, 3, 0);
    assert_eq!(
        (j.start.map(|t| t.as_ns()), j.completion.map(|t| t.as_ns())),
        (Some(16), Some(47))
    );
    assert_eq!(j.executed, Duration::from_ns(24));
    assert_eq!(j.preemptions, 2);
    assert_eq!(j.tardiness, Duration::from_ns(4));
}

/// A job still running at the horizon has its execution interval closed there in the trace
/// (a switch-out at the horizon that is not a preemption), so Gantt charts and Perfetto show
/// the whole run.
#[test]
fn trace_closes_intervals_at_the_horizon() {
    let ts = set(&[
        (10, 100, 100),
        (10, 100, 100),
        (10, 100, 100),
        (10, 100, 100),
        (92, 101, 101),
    ]);
    let mut cfg = SimConfig::new(4, Duration::from_ns(50));
    cfg.record_trace = true;
    let r = run(&ts, "gedf", &dm_ranks(&ts), None, &cfg).unwrap().0;
    use schedlab_trace::Kind;
    let outs: Vec<_> = r
        .trace
        .iter()
        .filter(|e| e.kind == Kind::SwitchOut && e.task == 4)
        .map(|e| e.time)
        .collect();
    assert_eq!(outs, vec![50]);
    assert!(!r.trace.iter().any(|e| e.kind == Kind::Preempt));
    let intervals = schedlab_trace::intervals::intervals(&r.trace);
    let t5: Vec<_> = intervals
        .iter()
        .filter(|i| i.task == 4)
        .map(|i| (i.start, i.end, i.open_end))
        .collect();
    assert_eq!(t5, vec![(10, 50, false)]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The global EDF invariant, replayed from the trace on both sides of the policy's
    /// small-m/large-m data-structure threshold (a scan up to 128 CPUs, a tournament tree
    /// above): after every instant, no CPU idles while a job waits, and no waiting job has a
    /// strictly earlier deadline than a running one.
    #[test]
    fn gedf_invariant_holds_in_the_trace(m in prop_oneof![3u32..=24, 120u32..=140], extra in 1usize..=20, seed in 0u64..1000) {
        let n = m as usize + extra;
        let mut rng = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut next = |k: u64| { rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (rng >> 33) % k };
        let tasks: Vec<(u64, u64, u64)> = (0..n).map(|_| {
            let t = PERIODS[next(PERIODS.len() as u64) as usize];
            let c = 1 + next(t);
            (c, t, t)
        }).collect();
        let ts = set(&tasks);
        let mut cfg = SimConfig::new(m, Duration::from_ns(200));
        cfg.record_trace = true;
        let r = run(&ts, "gedf", &dm_ranks(&ts), None, &cfg).unwrap().0;
        use schedlab_trace::Kind;
        use std::collections::{BTreeMap, BTreeSet};
        // Replay: ready jobs (task -> (deadline, seq)) and running tasks.
        let mut pending: BTreeMap<u32, std::collections::VecDeque<(u64, u64)>> = BTreeMap::new();
        let mut running: BTreeSet<u32> = BTreeSet::new();
        let mut i = 0;
        while i < r.trace.len() {
            let now = r.trace[i].time;
            while i < r.trace.len() && r.trace[i].time == now {
                let e = r.trace[i];
                match e.kind {
                    Kind::Release => pending.entry(e.task).or_default().push_back((e.time + tasks[e.task as usize].1, e.seq)),
                    Kind::SwitchIn => { running.insert(e.task); }
                    Kind::SwitchOut => { running.remove(&e.task); }
                    Kind::Complete => { if let Some(q) = pending.get_mut(&e.task) { q.pop_front(); } }
                    _ => {}
                }
                i += 1;
            }
            if now >= 200 { break; }
            // Head job of each task with pending work.
            let heads: Vec<(u64, u32)> = pending.iter().filter_map(|(&t, q)| q.front().map(|&(d, _)| (d, t))).collect();
            let waiting: Vec<&(u64, u32)> = heads.iter().filter(|(_, t)| !running.contains(t)).collect();
            if !waiting.is_empty() {
                prop_assert_eq!(running.len(), m as usize, "idle CPU while a job waits at {} (m = {})", now, m);
                let worst_running = heads.iter().filter(|(_, t)| running.contains(t)).map(|&(d, _)| d).max().unwrap();
                let best_waiting = waiting.iter().map(|&&(d, _)| d).min().unwrap();
                prop_assert!(best_waiting >= worst_running, "at {} a job with deadline {} waits while one with {} runs (m = {})", now, best_waiting, worst_running, m);
            }
        }
    }
}
