//! `federated` in the simulator [Li, Chen, Agrawal, Lu, Gill, Saifullah, ECRTS 2014, §3]:
//! a hand-checked schedule, and the analysis held against its own schedules on random
//! parallel sets — whenever `analyze --test federated` says schedulable, simulating
//! `federated` with the placement of the same allocation over one hyperperiod misses no
//! deadline; the schedule is sound (every thread runs exactly its time, joins hold, no strand
//! on two CPUs), every task stays in its domain (a heavy task on its dedicated CPUs, alone),
//! and each domain is work-conserving (greedy on the dedicated CPUs, EDF on a light CPU).
//! Without heavy tasks `federated` is `pedf` with the same packing, job by job.
//!
//! Horizon: periods divide 120, deadlines are at most the periods, releases are synchronous
//! and periodic, so every job released before the hyperperiod `H` has its deadline at or
//! before `H`, and the schedule of `[0, H)` decides them all (light CPUs: EDF with the
//! synchronous arrival sequence; heavy domains: one job at a time). The simulation runs to
//! `H + 1` so that a completion at `H` is recorded whatever the event order at the horizon.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod par_common;

use par_common::{check_schedule, ranks, schedule, work_conserving_within};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use schedlab_analysis::placement::{federated_placement, policy_inputs, FederatedPlacement};
use schedlab_analysis::test::analyze;
use schedlab_analysis::{Priorities, System};
use schedlab_model::{Duration, ParallelStructure, Task, TaskSet};
use schedlab_policy::Placement;
use schedlab_sim::{run, SimConfig, SimResult};

/// A task of deadline `d` and period `t` with fork-join `regions` (its WCET is their work,
/// heavy when it exceeds `d`); one region of one thread is a sequential task.
fn task(d: u64, t: u64, regions: &[&[u64]]) -> Task {
    let ns = Duration::from_ns;
    let work: u64 = regions.iter().flat_map(|r| r.iter()).sum();
    if regions.len() == 1 && regions[0].len() == 1 {
        return Task::new(ns(work), ns(d), ns(t)).unwrap();
    }
    let p = ParallelStructure::from_threads(
        regions
            .iter()
            .map(|r| r.iter().map(|&x| ns(x)).collect())
            .collect(),
    )
    .unwrap();
    Task::new(ns(1), ns(d), ns(t)).unwrap().with_parallel(p)
}

/// `set` under `federated` on `m` CPUs with the allocation `p`, to `horizon`, with the trace.
fn sim_federated(set: &TaskSet, m: u32, p: &FederatedPlacement, horizon: u64) -> SimResult {
    let placement = Placement::sized(p.domain_of_task.clone(), p.domain_sizes.clone());
    let mut cfg = SimConfig::new(m, Duration::from_ns(horizon));
    cfg.record_trace = true;
    run(set, "federated", &ranks(set.len()), Some(placement), &cfg)
        .unwrap()
        .0
}

/// The schedule of the hand-checked set, worked by hand on 3 CPUs over the hyperperiod 24.
///
/// τ0 = 1 | 2, 2, 2, 2, 2 | 1, D = T = 8: C = 12 > D, L = 4, so ⌈(12 − 4)/(8 − 4)⌉ = 2
/// dedicated CPUs (0, 1); Graham: 4 + 8/2 = 8 ≤ D. Each job: strand 0 on CPU 0 [0, 1); the
/// fork at 1 continues on CPU 0 (strand 1) and gives CPU 1 strand 2 [1, 3); at 3 CPU 0 then
/// CPU 1 take the waiting strands 3 and 4 [3, 5); at 5 CPU 0 takes strand 5 [5, 7) and CPU 1
/// idles (nothing waits); the join at 7 continues on CPU 0 with strand 6 [7, 8): done at 8 =
/// D, exactly the bound. Jobs 1 and 2 repeat this from 8 and 16.
///
/// τ1 = 3/4 and τ2 = 1 | 1, 1 per 12 (light: 0.75 + 0.25 = 1) share CPU 2 under EDF, τ2's
/// threads as jobs with its deadline: τ1#0 [0, 3), τ2.0 [3, 4); at 4 τ2 forks (strand 1 takes
/// the CPU at the join) and τ1#1 (d = 8 < 12) preempts it before it runs: [4, 7); τ2.1
/// [7, 8); at 8 τ2.2 takes the CPU at τ2.1's completion and τ1#2 (d = 12, equal to τ2's) does
/// not preempt it: τ2.2 [8, 9), τ1#2 [9, 12). From 12 the same with τ2#1's deadline 24:
/// τ1#3 [12, 15), τ2#1.0 [15, 16), τ1#4 [16, 19), τ2#1.1 [19, 20), τ2#1.2 [20, 21) (τ1#5,
/// d = 24, does not preempt it), τ1#5 [21, 24). No deadline is missed; every job ends at or
/// before its deadline, τ0's and τ1#2, τ1#5 exactly at it.
#[test]
fn hand_checked_schedule() {
    let set = TaskSet::new(vec![
        task(8, 8, &[&[1], &[2, 2, 2, 2, 2], &[1]]),
        task(4, 4, &[&[3]]),
        task(12, 12, &[&[1], &[1, 1]]),
    ])
    .unwrap();
    let p = federated_placement(&set, 3, "ffd", Priorities::Dm).unwrap();
    assert_eq!(
        (p.domain_of_task.clone(), p.domain_sizes.clone()),
        (vec![0, 1, 1], vec![2, 1])
    );
    let r = sim_federated(&set, 3, &p, 24);
    let mut want: Vec<(u32, u32, u64, u32, u64, u64)> = Vec::new();
    for (seq, base) in [(0u64, 0u64), (1, 8), (2, 16)] {
        for (cpu, strand, start, end) in [
            (0, 0, 0, 1),
            (0, 1, 1, 3),
            (1, 2, 1, 3),
            (0, 3, 3, 5),
            (1, 4, 3, 5),
            (0, 5, 5, 7),
            (0, 6, 7, 8),
        ] {
            want.push((cpu, 0, seq, strand, base + start, base + end));
        }
    }
    for (task, seq, strand, start, end) in [
        (1, 0, 0, 0, 3),
        (2, 0, 0, 3, 4),
        (1, 1, 0, 4, 7),
        (2, 0, 1, 7, 8),
        (2, 0, 2, 8, 9),
        (1, 2, 0, 9, 12),
        (1, 3, 0, 12, 15),
        (2, 1, 0, 15, 16),
        (1, 4, 0, 16, 19),
        (2, 1, 1, 19, 20),
        (2, 1, 2, 20, 21),
        (1, 5, 0, 21, 24),
    ] {
        want.push((2, task, seq, strand, start, end));
    }
    want.sort_by_key(|&(cpu, task, seq, strand, start, end)| (start, cpu, task, seq, strand, end));
    // A thread linked and displaced at one instant (τ2.1 at 4) never ran.
    let got: Vec<_> = schedule(&r.trace)
        .into_iter()
        .filter(|i| i.4 < i.5)
        .collect();
    assert_eq!(got, want);
    assert_eq!(r.totals.deadline_misses, 0);
    let done: Vec<_> = r
        .jobs
        .iter()
        .map(|j| (j.task, j.seq, j.completion.map(|c| c.as_ns())))
        .collect();
    assert!(done.contains(&(0, 0, Some(8))) && done.contains(&(0, 2, Some(24))));
    assert!(done.contains(&(1, 2, Some(12))) && done.contains(&(2, 1, Some(21))));
    check_schedule(&set, &r, 3, 24, false).unwrap();
    check_domains(&set, &r, &p, 24).unwrap();
}

/// The CPUs of each domain of `p`, in domain order.
fn domain_cpus(p: &FederatedPlacement) -> Vec<std::ops::Range<u32>> {
    let mut at = 0;
    p.domain_sizes
        .iter()
        .map(|&k| {
            at += k;
            at - k..at
        })
        .collect()
}

/// Every task runs on its domain's CPUs only (so a heavy task, alone in its domain, on its
/// dedicated CPUs, and nothing else there), and every domain is work-conserving over its own
/// tasks (greedy for a heavy task, EDF on a light CPU).
fn check_domains(
    set: &TaskSet,
    r: &SimResult,
    p: &FederatedPlacement,
    horizon: u64,
) -> Result<(), String> {
    let cpus = domain_cpus(p);
    for iv in schedlab_trace::intervals::intervals(&r.trace) {
        let d = p.domain_of_task[iv.task as usize] as usize;
        if !cpus[d].contains(&iv.cpu) {
            return Err(format!(
                "τ{}#{}.{} ran on CPU {} outside its domain {d} (CPUs {:?})",
                iv.task, iv.seq, iv.strand, iv.cpu, cpus[d]
            ));
        }
    }
    for (d, range) in cpus.iter().enumerate() {
        let tasks: Vec<u32> = (0..set.len() as u32)
            .filter(|&i| p.domain_of_task[i as usize] as usize == d)
            .collect();
        work_conserving_within(set, r, range.len() as u32, &tasks, horizon)?;
    }
    Ok(())
}

/// The periods: divisors of 120 (the hyperperiod is at most 120).
const PERIODS: [u64; 10] = [6, 8, 10, 12, 15, 20, 24, 30, 40, 60];

/// One random task: 1–3 regions of 1–5 threads of 1–5 ns, a period of [`PERIODS`], an
/// implicit deadline or one between the critical path (exclusive) and the period; heavy when
/// its work exceeds its deadline. A sequential task's deadline is at least its WCET.
fn fed_task() -> impl Strategy<Value = Task> {
    (
        prop::collection::vec(prop::collection::vec(1u64..=5, 1..=5), 1..=3),
        0..PERIODS.len(),
        any::<bool>(),
        0u64..=100,
    )
        .prop_filter_map(
            "critical path below the period",
            |(regions, k, implicit, dfrac)| {
                let t = PERIODS[k];
                let span: u64 = regions.iter().map(|r| r.iter().max().unwrap()).sum();
                if span >= t {
                    return None;
                }
                let d = if implicit {
                    t
                } else {
                    span + 1 + (t - span - 1) * dfrac / 100
                };
                let refs: Vec<&[u64]> = regions.iter().map(Vec::as_slice).collect();
                Some(task(d, t, &refs))
            },
        )
}

fn fed_sets() -> impl Strategy<Value = (TaskSet, u32)> {
    (1u32..=8, prop::collection::vec(fed_task(), 1..=4))
        .prop_map(|(m, tasks)| (TaskSet::new(tasks).unwrap(), m))
}

/// The hyperperiod of `set` (its periods divide 120).
fn hyperperiod(set: &TaskSet) -> u64 {
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    set.iter()
        .map(|t| t.period.as_ns())
        .fold(1, |h, p| h / gcd(h, p) * p)
}

/// What one random set gave: `None` when the analysis does not say schedulable, else whether
/// it has a heavy task (after checking the simulation).
fn analysis_against_simulation(set: &TaskSet, m: u32) -> Result<Option<bool>, String> {
    let sys = System::new(set, m, Priorities::Dm).unwrap();
    let test = schedlab_analysis::registry::by_name("federated").unwrap();
    let verdict = analyze(test.as_ref(), &sys);
    let placed = federated_placement(set, m, "ffd", Priorities::Dm);
    let p = match (verdict.is_schedulable(), placed) {
        (false, Err(_)) => return Ok(None),
        (true, Ok(p)) => p,
        (s, p) => {
            return Err(format!(
                "analysis schedulable = {s}, placement {p:?}: they must agree"
            ))
        }
    };
    // The placement is the test's allocation: each CPU's tasks as the verdict lists them.
    let per_cpu = verdict.partition.unwrap();
    for (d, range) in domain_cpus(&p).into_iter().enumerate() {
        for c in range {
            let mut here: Vec<usize> = (0..set.len())
                .filter(|&i| p.domain_of_task[i] as usize == d)
                .collect();
            here.sort_unstable();
            let mut listed = per_cpu[c as usize].clone();
            listed.sort_unstable();
            if here != listed {
                return Err(format!("CPU {c}: placement {here:?}, analysis {listed:?}"));
            }
        }
    }
    let h = hyperperiod(set);
    let r = sim_federated(set, m, &p, h + 1);
    for j in r.jobs.iter().filter(|j| j.deadline.as_ns() <= h) {
        if j.completion.is_none_or(|c| c > j.deadline) {
            return Err(format!(
                "τ{}#{} (deadline {:?}) completed at {:?} although the analysis says schedulable",
                j.task, j.seq, j.deadline, j.completion
            ));
        }
    }
    check_schedule(set, &r, m, h, false)?;
    check_domains(set, &r, &p, h)?;
    Ok(Some(set.iter().any(|t| t.wcet > t.deadline)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Federated analysis sound against its simulation (module doc).
    #[test]
    fn federated_analysis_is_sound_against_its_simulation((set, m) in fed_sets()) {
        analysis_against_simulation(&set, m).map_err(TestCaseError::fail)?;
    }

    /// Without heavy tasks the allocation is partitioned EDF's (`pedf`, the same first fit
    /// decreasing packing of the tasks' work) and so is the schedule, interval by interval.
    #[test]
    fn without_heavy_tasks_federated_is_pedf((set, m) in fed_sets()) {
        prop_assume!(set.iter().all(|t| t.wcet <= t.deadline));
        let h = hyperperiod(&set);
        let mut cfg = SimConfig::new(m, Duration::from_ns(h));
        cfg.record_trace = true;
        let inputs = |policy: &str| policy_inputs(policy, &set, m, "ffd", None, Priorities::Dm, None);
        let (fed, pedf) = match (inputs("federated"), inputs("pedf")) {
            (Ok(f), Ok(p)) => (f, p),
            (Err(_), Err(_)) => return Ok(()),
            (f, p) => return Err(TestCaseError::fail(format!("federated {f:?} vs pedf {p:?}"))),
        };
        prop_assert_eq!(&fed.placement.as_ref().unwrap().0, &pedf.placement.as_ref().unwrap().0);
        let placed = |i: schedlab_analysis::placement::PolicyInputs| {
            i.placement.map(|p| Placement::from(p).with_domain_sizes(i.domain_sizes))
        };
        let a = run(&set, "federated", &fed.ranks.clone(), placed(fed), &cfg).unwrap().0;
        let b = run(&set, "pedf", &pedf.ranks.clone(), placed(pedf), &cfg).unwrap().0;
        prop_assert_eq!(schedule(&a.trace), schedule(&b.trace));
    }
}

/// The property above is not vacuous: of 400 sets drawn from the same strategy (seeded),
/// enough are schedulable, with and without heavy tasks, to be simulated and checked.
#[test]
fn the_soundness_property_checks_many_schedulable_sets() {
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    let strategy = fed_sets();
    let (mut heavy, mut light, mut refused) = (0, 0, 0);
    for _ in 0..400 {
        let (set, m) = strategy.new_tree(&mut runner).unwrap().current();
        match analysis_against_simulation(&set, m).unwrap() {
            Some(true) => heavy += 1,
            Some(false) => light += 1,
            None => refused += 1,
        }
    }
    eprintln!("federated soundness: {heavy} schedulable sets with heavy tasks, {light} without, {refused} not shown");
    assert!(
        heavy >= 40 && light >= 40 && refused >= 40,
        "{heavy} {light} {refused}"
    );
}

/// `simulate` refuses what the allocation cannot place, naming the task and the CPUs it
/// needs against those it has; and `federated` needs a placement.
#[test]
fn refusals() {
    let set = TaskSet::new(vec![
        task(8, 8, &[&[1], &[2, 2, 2, 2, 2], &[1]]),
        task(4, 4, &[&[3]]),
    ])
    .unwrap();
    let e = policy_inputs("federated", &set, 2, "ffd", None, Priorities::Dm, None).unwrap_err();
    assert_eq!(
        e,
        "the heavy tasks take all 2 CPUs: none is left for the 1 light tasks (task 1 first)"
    );
    let e = policy_inputs("federated", &set, 1, "ffd", None, Priorities::Dm, None).unwrap_err();
    assert_eq!(
        e,
        "task 0 is heavy and needs 2 dedicated CPUs (⌈(C − L)/(D − L)⌉), but 1 of the 1 CPUs are left for it (the heavy tasks need 2 in all)"
    );
    let cfg = SimConfig::new(3, Duration::from_ns(8));
    let e = run(&set, "federated", &ranks(2), None, &cfg).unwrap_err();
    assert!(
        e.to_string()
            .contains("policy `federated` needs a placement"),
        "{e}"
    );
}
