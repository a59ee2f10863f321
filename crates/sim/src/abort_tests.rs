//! Policy aborts and abort handlers (engine module doc, "Aborts"): hand-derived schedules
//! (derivations in the comments), utility accrual, and the run invariants with aborts.

use crate::config::{SimConfig, SimTask};
use crate::engine::{simulate, SimResult};
use crate::error::SimError;
use crate::metrics::JobRecord;
use crate::test_policy::Aborter;
use schedlab_model::{Duration, Time, Tuf};
use schedlab_trace::{Event, Kind};

const US: u64 = 1_000;

fn task(c: u64, d: u64, t: u64) -> SimTask {
    SimTask::new(
        Duration::from_ns(c * US),
        Duration::from_ns(d * US),
        Duration::from_ns(t * US),
    )
}

fn cost(us: u64) -> Duration {
    Duration::from_ns(us * US)
}

fn run(tasks: &[SimTask], m: u32, horizon_us: u64, aborts: Vec<(u64, Vec<u32>)>) -> SimResult {
    let aborts = aborts.into_iter().map(|(t, v)| (t * US, v)).collect();
    let mut p = Aborter::new(m, aborts);
    let mut c = SimConfig::new(m, Duration::from_ns(horizon_us * US));
    c.record_trace = true;
    simulate(tasks, &mut p, &c).unwrap()
}

fn job(r: &SimResult, task: u32, seq: u64) -> &JobRecord {
    r.jobs
        .iter()
        .find(|j| j.task == task && j.seq == seq)
        .unwrap()
}

fn at(us: u64) -> Option<Time> {
    Some(Time::from_ns(us * US))
}

/// (kind, time in µs, cpu, task) of the handler events.
fn handlers(r: &SimResult) -> Vec<(Kind, u64, u32, u32)> {
    r.trace
        .iter()
        .filter(|e| matches!(e.kind, Kind::AbortHandlerBegin | Kind::AbortHandlerEnd))
        .map(|e| (e.kind, e.time / US, e.cpu, e.task))
        .collect()
}

/// One CPU, µs: τ0 = (C 300, D = T 1000, abort cost 50), τ1 = (100, 2000, 2000); the policy
/// aborts τ0#0 at 100.
/// - 0: both released, τ0 (d 1000) runs; τ1 (d 2000) waits.
/// - 100: τ0#0 has executed 100 and is aborted; the policy links τ1 to CPU 0 at once, but
///   τ0's handler runs on CPU 0 (where τ0 last executed) first: 100–150. τ1 runs 150–250
///   (without the handler it would run 100–200: exactly 50 later).
/// - 1000: τ0#1 runs 1000–1300 and completes (d 2000).
///
/// Utilities 10 (τ0) and 1 (τ1), horizon 2000: deadlines in the horizon τ0#0 (1000), τ0#1
/// (2000), τ1#0 (2000); accrued τ1#0 1 + τ0#1 10 (τ0#0 was aborted: nothing), AUR = 11/21.
#[test]
fn a_handler_delays_the_next_job_on_its_cpu_by_its_cost() {
    let tasks = vec![
        task(300, 1000, 1000)
            .with_abort_cost(cost(50))
            .with_utility(10.0),
        task(100, 2000, 2000).with_utility(1.0),
    ];
    let r = run(&tasks, 1, 2000, vec![(100, vec![0])]);
    let j = job(&r, 0, 0);
    assert!(j.aborted);
    assert_eq!((j.completion, j.utility), (None, 0.0));
    assert_eq!(j.executed, cost(100));
    let j = job(&r, 1, 0);
    assert_eq!((j.start, j.completion, j.utility), (at(150), at(250), 1.0));
    assert_eq!(j.preemptions, 0);
    assert_eq!(job(&r, 0, 1).completion, at(1300));
    assert_eq!(
        handlers(&r),
        vec![
            (Kind::AbortHandlerBegin, 100, 0, 0),
            (Kind::AbortHandlerEnd, 150, 0, 0)
        ]
    );
    let begin = r.trace.iter().find(|e| e.kind == Kind::AbortHandlerBegin);
    assert_eq!(begin.map(|e| e.arg), Some(50 * US));
    assert_eq!((r.totals.aborted, r.totals.deadline_misses), (1, 1));
    assert_eq!(r.totals.aur, Some(11.0 / 21.0));
    // The same without a handler cost: τ1 runs at once.
    let tasks = vec![task(300, 1000, 1000), task(100, 2000, 2000)];
    let r = run(&tasks, 1, 2000, vec![(100, vec![0])]);
    assert_eq!(
        (job(&r, 1, 0).start, job(&r, 1, 0).completion),
        (at(100), at(200))
    );
    assert!(handlers(&r).is_empty());
}

/// A job that never executed has no handler: aborting τ1#0 (waiting) at 100 leaves τ0 alone
/// (0–300), even though τ1 has an abort cost.
#[test]
fn a_job_that_never_ran_has_no_handler() {
    let tasks = vec![
        task(300, 1000, 1000),
        task(100, 2000, 2000).with_abort_cost(cost(50)),
    ];
    let r = run(&tasks, 1, 1000, vec![(100, vec![1])]);
    assert!(job(&r, 1, 0).aborted);
    assert_eq!(job(&r, 1, 0).start, None);
    assert_eq!(job(&r, 0, 0).completion, at(300));
    assert!(handlers(&r).is_empty());
}

/// One CPU, µs: τ0 = (300, 1000, 1000, cost 50), τ1 = (100, 2000, 2000), τ2 = (300, 200,
/// 1000, offset 100, cost 30).
/// - 0–100 τ0; 100: τ2 (d 300) preempts τ0 (executed 100).
/// - 150: the policy aborts τ2 (running, executed 50), then τ0 (preempted; last on CPU 0):
///   handlers on CPU 0 one after another: τ2's 150–180, τ0's 180–230; τ1 runs 230–330.
///
/// Second run, aborting only τ0 at 150: its handler 150–200 goes ahead of τ2, which is
/// switched out (executed 50, a preemption) and resumes at 200 for its last 250: 200–450
/// (d 300, late by 150); τ1 then 450–550.
#[test]
fn handlers_on_one_cpu_queue_up_and_go_ahead_of_the_running_job() {
    let tasks = vec![
        task(300, 1000, 1000).with_abort_cost(cost(50)),
        task(100, 2000, 2000),
        task(300, 200, 1000)
            .with_offset(cost(100))
            .with_abort_cost(cost(30)),
    ];
    let r = run(&tasks, 1, 1000, vec![(150, vec![2, 0])]);
    assert_eq!(
        handlers(&r),
        vec![
            (Kind::AbortHandlerBegin, 150, 0, 2),
            (Kind::AbortHandlerEnd, 180, 0, 2),
            (Kind::AbortHandlerBegin, 180, 0, 0),
            (Kind::AbortHandlerEnd, 230, 0, 0),
        ]
    );
    assert_eq!(
        (job(&r, 1, 0).start, job(&r, 1, 0).completion),
        (at(230), at(330))
    );
    assert_eq!(job(&r, 2, 0).executed, cost(50));
    let r = run(&tasks, 1, 1000, vec![(150, vec![0])]);
    let j = job(&r, 2, 0);
    assert_eq!((j.completion, j.preemptions), (at(450), 1));
    assert_eq!(j.tardiness, cost(150));
    assert_eq!(
        (job(&r, 1, 0).start, job(&r, 1, 0).completion),
        (at(450), at(550))
    );
}

/// `--abort-late` keeps its meaning and the late job's handler runs too: τ0 = (300, 200,
/// 1000, cost 50) alone on one CPU runs 0–200 and is aborted at its deadline 200; its
/// handler runs 200–250; τ1 = (100, 1000, 1000) waits behind τ0 (d 1000 > 200) and runs
/// 250–350.
#[test]
fn abort_late_runs_the_handler_of_a_started_job() {
    let tasks = vec![
        task(300, 200, 1000).with_abort_cost(cost(50)),
        task(100, 1000, 1000),
    ];
    let mut c = SimConfig::new(1, Duration::from_ns(1000 * US));
    c.abort_late = true;
    c.record_trace = true;
    let mut p = Aborter::new(1, Vec::new());
    let r = simulate(&tasks, &mut p, &c).unwrap();
    assert!(job(&r, 0, 0).aborted);
    assert_eq!(job(&r, 0, 0).executed, cost(200));
    assert_eq!(
        (job(&r, 1, 0).start, job(&r, 1, 0).completion),
        (at(250), at(350))
    );
    assert_eq!(
        handlers(&r),
        vec![
            (Kind::AbortHandlerBegin, 200, 0, 0),
            (Kind::AbortHandlerEnd, 250, 0, 0)
        ]
    );
}

/// Aborting a job of a task with `abortable = false` is a policy violation.
#[test]
fn aborting_a_non_abortable_job_is_a_violation() {
    let mut t0 = task(300, 1000, 1000);
    t0.abortable = false;
    let mut p = Aborter::new(1, vec![(100 * US, vec![0])]);
    let c = SimConfig::new(1, Duration::from_ns(1000 * US));
    match simulate(&[t0], &mut p, &c) {
        Err(SimError::PolicyViolation { time, message, .. }) => {
            assert_eq!(time, Time::from_ns(100 * US));
            assert!(message.contains("not abortable"), "{message}");
        }
        other => panic!("expected a violation, got {other:?}"),
    }
}

/// General TUFs: τ0 = (300, 1000, 1000) with a linear TUF (10 at release, 0 at 1000) runs
/// 0–300 and 1000–1300: each job accrues 10·(1 − 300/1000) = 7. τ1 = (100, 1000, 1000) with
/// a points TUF [(0, 4), (2000, 0)] (termination 2000 after release) runs 300–400 and
/// 1300–1400, accruing 4·(1 − 400/2000) = 3.2 each; horizon 2000: only τ1#0's termination
/// (2000) falls in it. AUR = (7 + 7 + 3.2) / (10 + 10 + 4).
#[test]
fn general_tufs_accrue_their_value_at_the_response_time() {
    let mut t0 = task(300, 1000, 1000);
    t0.tuf = Some(Tuf::Linear {
        value: 10.0,
        zero_at: cost(1000),
    });
    let mut t1 = task(100, 1000, 1000);
    t1.tuf = Some(Tuf::Points(vec![(Duration::ZERO, 4.0), (cost(2000), 0.0)]));
    let r = run(&[t0, t1], 1, 2000, Vec::new());
    assert_eq!(job(&r, 0, 0).utility, 7.0);
    assert_eq!(job(&r, 0, 1).utility, 7.0);
    assert_eq!(job(&r, 1, 0).utility, 3.2);
    assert_eq!(job(&r, 1, 0).termination, Time::from_ns(2000 * US));
    assert_eq!(job(&r, 1, 1).termination, Time::from_ns(3000 * US));
    assert_eq!(r.totals.aur, Some((7.0 + 7.0 + 3.2) / 24.0));
}

/// Random sets on 3 CPUs with random abort costs; the policy aborts rotating tasks every
/// 7 µs. Checks: the same run twice gives the same result; no job executes on two CPUs at
/// once; nothing executes on a CPU while a handler runs there; every released job is
/// accounted once; aborted jobs accrue nothing and never complete.
#[test]
fn aborts_keep_the_run_invariants_and_are_deterministic() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move |k: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % k
    };
    for round in 0..6 {
        let n = 4 + next(6) as usize;
        let tasks: Vec<SimTask> = (0..n)
            .map(|_| {
                let period = 10 + next(40);
                let wcet = 1 + next(period / 2);
                task(wcet, period, period)
                    .with_abort_cost(Duration::from_ns(next(3) * US + next(500)))
                    .with_utility(1.0)
            })
            .collect();
        let aborts: Vec<(u64, Vec<u32>)> = (1..140)
            .map(|k| {
                (
                    k * 7,
                    vec![(k % n as u64) as u32, ((k * 3) % n as u64) as u32],
                )
            })
            .collect();
        let a = run(&tasks, 3, 1000, aborts.clone());
        let b = run(&tasks, 3, 1000, aborts);
        assert_eq!(a, b, "round {round}");
        assert!(a.totals.aborted > 0, "round {round}");
        assert!(schedlab_trace::check::parallel_execution(&a.trace).is_empty());
        assert_no_execution_during_handlers(&a.trace);
        let mut seen = std::collections::BTreeSet::new();
        for j in &a.jobs {
            assert!(
                seen.insert((j.task, j.seq)),
                "job {}#{} twice",
                j.task,
                j.seq
            );
            if j.aborted {
                assert_eq!((j.completion, j.utility), (None, 0.0));
            }
        }
        let releases = a.trace.iter().filter(|e| e.kind == Kind::Release).count();
        assert_eq!(a.jobs.len(), releases);
        assert_eq!(a.totals.jobs as usize, releases);
    }
}

fn assert_no_execution_during_handlers(trace: &[Event]) {
    let mut open = std::collections::BTreeMap::new();
    let mut windows = Vec::new();
    for e in trace {
        match e.kind {
            Kind::AbortHandlerBegin => {
                open.insert(e.cpu, e.time);
            }
            Kind::AbortHandlerEnd => {
                let begin = open.remove(&e.cpu).unwrap();
                windows.push((e.cpu, begin, e.time));
            }
            _ => {}
        }
    }
    for iv in schedlab_trace::intervals::intervals(trace) {
        for &(cpu, b, e) in &windows {
            let overlap = iv.cpu == cpu && iv.start < e && b < iv.end;
            assert!(!overlap, "{iv:?} overlaps the handler {b}–{e} on CPU {cpu}");
        }
    }
}
