//! Engine tests: hand-derived schedules (derivations in the comments), horizon accounting,
//! event order at one instant, randomness models, errors and determinism.

use crate::config::{Arrivals, ExecTime, SimConfig, SimTask};
use crate::engine::{simulate, SimResult};
use crate::error::SimError;
use crate::metrics::JobRecord;
use crate::test_policy::{Logger, TestGedf};
use schedlab_model::{Duration, Time};
use schedlab_policy::{CpuId, Ctx, Decisions, JobId, JobInfo, Policy, TaskId};
use schedlab_trace::Kind;

fn task(c: u64, d: u64, t: u64) -> SimTask {
    SimTask::new(
        Duration::from_ns(c),
        Duration::from_ns(d),
        Duration::from_ns(t),
    )
}

fn cfg(m: u32, dur: u64) -> SimConfig {
    SimConfig::new(m, Duration::from_ns(dur))
}

fn run(tasks: &[SimTask], cfg: &SimConfig) -> SimResult {
    let mut p = TestGedf::new(cfg.cpus);
    simulate(tasks, &mut p, cfg).unwrap()
}

fn job(r: &SimResult, task: u32, seq: u64) -> &JobRecord {
    r.jobs
        .iter()
        .find(|j| j.task == task && j.seq == seq)
        .unwrap()
}

fn t(ns: u64) -> Option<Time> {
    Some(Time::from_ns(ns))
}

/// [ChronOS §6.3, Table 6.1] (Dhall effect), 4 CPUs, G-EDF, horizon 202:
/// τ0..τ3 = (10, 100, 100), τ4 = (92, 101, 101).
/// t=0: τ0..τ3 (d=100) on CPUs 0..3, τ4 (d=101) waits. t=10: they complete; τ4 → CPU0.
/// t=100: τ0..τ2 job 1 (d=200) → CPUs 1..3; τ3 waits (τ4's d=101 < 200: no preemption).
/// t=101: τ4 job 1 arrives but waits for job 0. t=102: τ4 job 0 completes, 1 late;
/// τ3 → CPU0 (102–112); τ4 job 1 (d=202) is handed over, all CPUs busy. t=110: τ0..τ2 complete;
/// τ4 job 1 → CPU1 (lowest free), 110–202, meets d=202 exactly at the horizon.
/// t=200: τ0..τ2 job 2 → CPUs 0, 2, 3; τ3 job 2 waits (unfinished, d=300 > 202: no miss).
/// Jobs: 3 × 4 + 2 = 14; deadlines ≤ 202: 8 + 2 = 10; one miss → DSR 0.9.
#[test]
fn dhall_effect_table_6_1() {
    let mut tasks = vec![task(10, 100, 100); 4];
    tasks.push(task(92, 101, 101));
    let r = run(&tasks, &cfg(4, 202));
    let j = job(&r, 4, 0);
    assert_eq!((j.start, j.completion), (t(10), t(102)));
    assert_eq!(j.tardiness, Duration::from_ns(1));
    assert_eq!(j.cpus_used, vec![0]);
    let j = job(&r, 4, 1);
    assert_eq!(
        (j.release, j.start, j.completion),
        (Time::from_ns(101), t(110), t(202))
    );
    assert_eq!(j.cpus_used, vec![1]);
    assert_eq!(j.tardiness, Duration::ZERO);
    let j = job(&r, 3, 1);
    assert_eq!(
        (j.start, j.completion, j.cpus_used.clone()),
        (t(102), t(112), vec![0])
    );
    assert_eq!(job(&r, 3, 2).start, None);
    for k in 0..3 {
        let j = job(&r, k, 2);
        assert_eq!((j.start, j.completion), (t(200), None));
    }
    let s = &r.totals;
    assert_eq!(
        (s.jobs, s.deadline_misses, s.deadlines_in_horizon),
        (14, 1, 10)
    );
    assert_eq!(s.dsr, 0.9);
    assert!(!s.schedulable);
    assert_eq!(s.max_tardiness, Duration::from_ns(1));
    assert_eq!((s.preemptions, s.migrations), (0, 0));
    // Switch-ins: 4 at 0, 1 at 10, 3 at 100, 1 at 102, 1 at 110, 3 at 200.
    assert_eq!(s.context_switches, 13);
    assert_eq!(s.aur, None);
    assert_eq!(r.per_task[4].misses, 1);
    assert_eq!(r.per_task[4].max_response, Some(Duration::from_ns(102)));
}

/// AUR on the same schedule: τ0..τ3 utility 1, τ4 utility 10. Deadlines ≤ 202: 8 jobs of
/// τ0..τ3 (all met) and τ4's two (d=101 missed, d=202 met): (8 + 10) / (8 + 20).
#[test]
fn aur_weights_met_deadlines_by_utility() {
    let mut tasks: Vec<SimTask> = (0..4)
        .map(|_| task(10, 100, 100).with_utility(1.0))
        .collect();
    tasks.push(task(92, 101, 101).with_utility(10.0));
    let r = run(&tasks, &cfg(4, 202));
    assert_eq!(r.totals.aur, Some(18.0 / 28.0));
}

/// 2 CPUs, τ0 = (2, 10, 10), τ1 = (4, 10, 10), τ2 = (2, 5, 5) offset 1, horizon 10.
/// t=0: τ0 → CPU0, τ1 → CPU1. t=1: τ2 (d=6) preempts the lowest-priority linked job, τ1
/// (d=10, ties by index: τ1 below τ0), on CPU1 after 1 unit. t=2: τ0 completes; τ1 resumes on
/// CPU0 — a migration — with 3 units left, completes at 5. t=3: τ2 completes. t=6: τ2 job 1
/// (d=11) → CPU0, 6–8. Counts: 1 preemption, 1 migration, 5 switch-ins, 4 jobs, no miss;
/// deadlines ≤ 10: τ0, τ1, τ2 job 0.
#[test]
fn preemption_and_migration_on_two_cpus() {
    let tasks = vec![
        task(2, 10, 10),
        task(4, 10, 10),
        task(2, 5, 5).with_offset(Duration::from_ns(1)),
    ];
    let mut c = cfg(2, 10);
    c.record_trace = true;
    let r = run(&tasks, &c);
    let j = job(&r, 1, 0);
    assert_eq!((j.start, j.completion), (t(0), t(5)));
    assert_eq!(j.cpus_used, vec![1, 0]);
    assert_eq!((j.preemptions, j.migrations), (1, 1));
    assert_eq!(j.executed, Duration::from_ns(4));
    let j = job(&r, 2, 0);
    assert_eq!(
        (j.start, j.completion, j.cpus_used.clone()),
        (t(1), t(3), vec![1])
    );
    let j = job(&r, 2, 1);
    assert_eq!(
        (j.start, j.completion, j.cpus_used.clone()),
        (t(6), t(8), vec![0])
    );
    let s = &r.totals;
    assert_eq!(
        (s.jobs, s.deadline_misses, s.deadlines_in_horizon),
        (4, 0, 3)
    );
    assert_eq!((s.preemptions, s.migrations, s.context_switches), (1, 1, 5));
    assert!(s.schedulable);
    assert_eq!(s.dsr, 1.0);
    assert_eq!(s.max_response, Some(Duration::from_ns(5)));
    let at = |time: u64| -> Vec<(Kind, u32, u32, u64)> {
        r.trace
            .iter()
            .filter(|e| e.time == time)
            .map(|e| (e.kind, e.cpu, e.task, e.arg))
            .collect()
    };
    let none = schedlab_trace::NO_CPU;
    assert_eq!(
        at(1),
        vec![
            (Kind::Release, none, 2, 1),
            (Kind::SwitchOut, 1, 1, 0),
            (Kind::Preempt, 1, 1, 0),
            (Kind::Link, 1, 2, 0),
            (Kind::SwitchIn, 1, 2, 0),
        ]
    );
    assert_eq!(
        at(2),
        vec![
            (Kind::SwitchOut, 0, 0, 0),
            (Kind::Complete, 0, 0, 0),
            (Kind::Link, 0, 1, 0),
            (Kind::SwitchIn, 0, 1, 0),
            (Kind::Migrate, 0, 1, 1),
        ]
    );
    // The trace is in time order.
    assert!(r.trace.windows(2).all(|w| w[0].time <= w[1].time));
}

/// Sequential jobs and the horizon, 1 CPU, τ0 = (15, 20, 10) (D > T, U = 1.5), horizon 45.
/// Job 0: 0–15 (d 20). Job 1 arrives at 10, waits, 15–30 (d 30: met exactly). Job 2 arrives
/// at 20, 30–45 (d 40: 5 late; completes at the horizon, which still counts). Job 3 (r 30,
/// d 50) and job 4 (r 40, d 60) never start; their deadlines lie after the horizon: no miss.
/// Deadlines ≤ 45: 20, 30, 40 → DSR 2/3.
#[test]
fn jobs_of_a_task_are_sequential_and_horizon_is_accounted() {
    let r = run(&[task(15, 20, 10)], &cfg(1, 45));
    let got: Vec<_> = r
        .jobs
        .iter()
        .map(|j| (j.release, j.start, j.completion))
        .collect();
    let r_ = Time::from_ns;
    assert_eq!(
        got,
        vec![
            (r_(0), t(0), t(15)),
            (r_(10), t(15), t(30)),
            (r_(20), t(30), t(45)),
            (r_(30), None, None),
            (r_(40), None, None),
        ]
    );
    let s = &r.totals;
    assert_eq!(
        (s.jobs, s.deadline_misses, s.deadlines_in_horizon),
        (5, 1, 3)
    );
    assert_eq!(s.dsr, 2.0 / 3.0);
    assert_eq!(s.max_tardiness, Duration::from_ns(5));
    assert_eq!(s.max_response, Some(Duration::from_ns(25)));
    assert_eq!(s.completed, 3);
    // An unfinished job whose deadline fell within the horizon is a miss with tardiness
    // horizon − deadline: horizon 55 leaves job 3 (d 50) running since 45.
    let r = run(&[task(15, 20, 10)], &cfg(1, 55));
    let j = job(&r, 0, 3);
    assert_eq!(
        (j.start, j.completion, j.executed),
        (t(45), None, Duration::from_ns(10))
    );
    assert_eq!(j.tardiness, Duration::from_ns(5));
    assert!(j.missed(r.horizon));
    assert_eq!(r.totals.deadline_misses, 2);
}

/// `abort_late`, same task, horizon 70. Jobs 0 and 1 meet (job 1 completes exactly at its
/// deadline 30: completions come before aborts). Job 2 (d 40) runs 30–40 and is aborted;
/// job 3 (r 30, d 50) is handed over at 40 and aborted at 50; likewise job 4 (50–60) and job 5
/// (60–70, aborted at the horizon). Job 6 (r 60, d 80) waits: no miss. Misses 4 of 6
/// deadlines ≤ 70.
#[test]
fn abort_late_aborts_at_the_deadline() {
    let mut c = cfg(1, 70);
    c.abort_late = true;
    c.record_trace = true;
    let r = run(&[task(15, 20, 10)], &c);
    let got: Vec<_> = r
        .jobs
        .iter()
        .map(|j| (j.start, j.completion, j.aborted, j.executed.as_ns()))
        .collect();
    assert_eq!(
        got,
        vec![
            (t(0), t(15), false, 15),
            (t(15), t(30), false, 15),
            (t(30), None, true, 10),
            (t(40), None, true, 10),
            (t(50), None, true, 10),
            (t(60), None, true, 10),
            (None, None, false, 0),
        ]
    );
    let s = &r.totals;
    assert_eq!(
        (s.jobs, s.deadline_misses, s.deadlines_in_horizon, s.aborted),
        (7, 4, 6, 4)
    );
    assert_eq!(s.dsr, 2.0 / 6.0);
    assert_eq!(s.max_tardiness, Duration::ZERO);
    assert_eq!(s.preemptions, 0);
    let aborts: Vec<u64> = r
        .trace
        .iter()
        .filter(|e| e.kind == Kind::Abort)
        .map(|e| e.time)
        .collect();
    assert_eq!(aborts, vec![40, 50, 60, 70]);
}

/// Same-instant order and timers, 2 CPUs: τ0 = (9, 20, 20), τ1 = (3, 10, 10), τ2 = (1, 10, 10).
/// Timers armed at the first callback: 5@3, 9@10, 5@10 (re-arms 5), 7@10, 11@2; 7 cancelled
/// at the second callback.
/// t=0: the release callbacks link τ0 → CPU0, τ1 → CPU1, then τ2 (d 10) displaces τ0 on CPU0;
/// links are enacted once at the end of the instant, so τ0 never starts at 0 and is not
/// preempted (DESIGN.md: the decision follows all events of the instant). t=1: τ2 done, τ0 → CPU0.
/// t=2: timer 11 sees progress τ0 = 1 (CPU0), τ1 = 2 (CPU1). t=3: τ1 done. t=10: τ0 completes
/// (1 + 9), then releases τ1, τ2, then timers 9 and 5 in request order; 7 and 5@3 never fire.
#[test]
fn same_instant_order_is_completions_releases_timers() {
    let tasks = vec![task(9, 20, 20), task(3, 10, 10), task(1, 10, 10)];
    let timers = vec![(5, 3), (9, 10), (5, 10), (7, 10), (11, 2)];
    let mut p = Logger::new(2, timers, vec![7]);
    let r = simulate(&tasks, &mut p, &cfg(2, 12)).unwrap();
    let seq: Vec<(u64, &str, u64)> = p.log.iter().map(|&(t, w, x, _)| (t, w, x)).collect();
    assert_eq!(
        seq,
        vec![
            (0, "release", 0),
            (0, "release", 1),
            (0, "release", 2),
            (1, "complete", 2),
            (2, "timer", 11),
            (3, "complete", 1),
            (10, "complete", 0),
            (10, "release", 1),
            (10, "release", 2),
            (10, "timer", 9),
            (10, "timer", 5),
            (11, "complete", 2),
        ]
    );
    assert_eq!(p.log[4].3, vec![1, 2]);
    assert_eq!(job(&r, 0, 0).preemptions, 0);
    assert_eq!(job(&r, 0, 0).start, Some(Time::from_ns(1)));
    assert_eq!(r.events_processed, 12);
}

/// U = 2.7 on one CPU: jobs pile up behind their predecessors, the run still ends at the
/// horizon with every release counted.
#[test]
fn overload_terminates() {
    let tasks = vec![task(9, 10, 10); 3];
    let r = run(&tasks, &cfg(1, 1_000_000));
    assert_eq!(r.totals.jobs, 300_000);
    assert!(r.totals.deadline_misses > 0);
    assert!(!r.totals.schedulable);
    let mut c = cfg(1, 1_000_000);
    c.abort_late = true;
    let r = run(&tasks, &c);
    assert_eq!(r.totals.jobs, 300_000);
}

fn random_tasks(n: usize, m: u32) -> Vec<SimTask> {
    // A fixed pseudo-random set (LCG), total utilization ≈ 0.75·m, implicit deadlines.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    let per = 0.75 * f64::from(m) / n as f64;
    (0..n)
        .map(|_| {
            let period = 1_000 * (10 + next() % 91); // 10–100 µs
            let u = per * (0.5 + (next() % 1000) as f64 / 1000.0);
            let wcet = ((u * period as f64) as u64).clamp(1, period);
            task(wcet, period, period)
        })
        .collect()
}

#[test]
fn deterministic_for_the_same_seed() {
    let tasks = random_tasks(12, 4);
    let mut c = cfg(4, 2_000_000);
    c.arrivals = Arrivals::Sporadic {
        max_delay: Duration::from_ns(5_000),
    };
    c.exec = ExecTime::UniformFraction { lo: 0.3, hi: 1.0 };
    c.record_trace = true;
    c.seed = 42;
    let a = run(&tasks, &c);
    let b = run(&tasks, &c);
    assert_eq!(a, b);
    assert!(a.totals.preemptions > 0 && a.totals.migrations > 0);
    c.seed = 43;
    assert_ne!(run(&tasks, &c).jobs, a.jobs);
}

#[test]
fn sporadic_arrivals_are_at_least_a_period_apart() {
    let mut c = cfg(1, 100_000);
    c.arrivals = Arrivals::Sporadic {
        max_delay: Duration::from_ns(5),
    };
    c.seed = 7;
    let r = run(&[task(1, 10, 10)], &c);
    let gaps: Vec<u64> = r
        .jobs
        .windows(2)
        .map(|w| (w[1].release - w[0].release).as_ns())
        .collect();
    assert!(gaps.len() > 1000);
    assert!(gaps.iter().all(|&g| (10..=15).contains(&g)));
    assert!(gaps.contains(&10) && gaps.contains(&15));
}

#[test]
fn execution_times_stay_within_one_ns_and_the_wcet() {
    let demands = |exec: ExecTime| -> Vec<u64> {
        let mut c = cfg(1, 1_000_000);
        c.exec = exec;
        c.seed = 3;
        let r = run(&[task(100, 1000, 1000)], &c);
        assert!(r.totals.schedulable);
        r.jobs.iter().map(|j| j.executed.as_ns()).collect()
    };
    let d = demands(ExecTime::Wcet);
    assert!(d.iter().all(|&x| x == 100));
    let d = demands(ExecTime::UniformFraction { lo: 0.5, hi: 1.0 });
    assert!(d.iter().all(|&x| (50..=100).contains(&x)));
    assert!(d.contains(&50) && d.contains(&100));
    let d = demands(ExecTime::UniformFraction { lo: 0.0, hi: 0.0 });
    assert!(d.iter().all(|&x| x == 1));
    let d = demands(ExecTime::NormalCapped { mean: 0.5, sd: 0.5 });
    assert!(d.iter().all(|&x| (1..=100).contains(&x)));
    assert!(d.contains(&1) && d.contains(&100));
    let mean = d.iter().sum::<u64>() as f64 / d.len() as f64;
    assert!((40.0..60.0).contains(&mean), "mean {mean}");
}

#[test]
fn overruns_exceed_the_wcet_with_the_given_probability() {
    let demands = |prob: f64, factor: f64| -> Vec<u64> {
        let mut c = cfg(1, 1_000_000);
        c.exec = ExecTime::Overrun { prob, factor };
        c.seed = 5;
        let r = run(&[task(100, 1000, 1000)], &c);
        r.jobs.iter().map(|j| j.executed.as_ns()).collect()
    };
    assert!(demands(0.0, 3.0).iter().all(|&x| x == 100));
    assert!(demands(1.0, 1.25).iter().all(|&x| x == 125));
    // ⌈1.001 · 100⌉ = 101: a factor just above 1 still overruns.
    assert!(demands(1.0, 1.001).iter().all(|&x| x == 101));
    let d = demands(0.25, 2.0);
    assert_eq!(d.len(), 1000);
    assert!(d.iter().all(|&x| x == 100 || x == 200));
    let overruns = d.iter().filter(|&&x| x == 200).count();
    assert!(
        (150..350).contains(&overruns),
        "{overruns} overruns of 1000"
    );
}

/// An overrunning job delays its successor: 1 CPU, τ = (2, 5, 5), every job executes
/// ⌈3 · 2⌉ = 6. Job 0: [0, 6) (misses d = 5 by 1); job 1 (released 5) waits for it: [6, 12),
/// misses d = 10 by 2; job 2 (released 10): [12, 18), tardiness 3. Horizon 15: jobs 0–2 are
/// released, job 2 is unfinished with d = 15 ≤ 15: a miss; DSR 0 of 3.
#[test]
fn an_overrun_delays_the_next_job_of_its_task() {
    let mut c = cfg(1, 15);
    c.exec = ExecTime::Overrun {
        prob: 1.0,
        factor: 3.0,
    };
    let r = run(&[task(2, 5, 5)], &c);
    assert_eq!(
        (job(&r, 0, 0).start, job(&r, 0, 0).completion),
        (t(0), t(6))
    );
    assert_eq!(
        (job(&r, 0, 1).start, job(&r, 0, 1).completion),
        (t(6), t(12))
    );
    assert_eq!(job(&r, 0, 1).tardiness, Duration::from_ns(2));
    assert_eq!(
        (job(&r, 0, 2).start, job(&r, 0, 2).completion),
        (t(12), None)
    );
    assert_eq!(r.totals.deadline_misses, 3);
    assert_eq!(r.totals.dsr, 0.0);
}

/// Links a job it was never given.
struct Rogue;
impl Policy for Rogue {
    fn name(&self) -> &str {
        "rogue"
    }
    fn cpus(&self) -> u32 {
        1
    }
    fn on_release(&mut self, _: &Ctx<'_>, _: &JobInfo, out: &mut Decisions) {
        out.link(CpuId(0), JobId::new(TaskId(0), 5));
    }
    fn on_complete(&mut self, _: &Ctx<'_>, _: JobId, _: &mut Decisions) {}
    fn on_abort(&mut self, _: &Ctx<'_>, _: JobId, _: &mut Decisions) {}
    fn linked(&self, _: CpuId) -> Option<JobId> {
        None
    }
}

#[test]
fn bad_input_and_policy_violations_are_typed_errors() {
    let ok = [task(1, 10, 10)];
    let mut p = TestGedf::new(1);
    assert_eq!(simulate(&ok, &mut p, &cfg(0, 10)), Err(SimError::NoCpus));
    let too_many = simulate(&ok, &mut p, &cfg(u32::MAX, 10)).unwrap_err();
    assert_eq!(
        too_many.to_string(),
        "4294967295 CPUs is more than schedlab supports (at most 4096)"
    );
    assert_eq!(simulate(&[], &mut p, &cfg(1, 10)), Err(SimError::NoTasks));
    assert_eq!(
        simulate(&ok, &mut p, &cfg(1, 0)),
        Err(SimError::ZeroDuration)
    );
    assert!(matches!(
        simulate(&[task(0, 10, 10)], &mut p, &cfg(1, 10)),
        Err(SimError::InvalidTask {
            task: 0,
            field: "wcet",
            ..
        })
    ));
    assert!(matches!(
        simulate(&[task(1, 10, 0)], &mut p, &cfg(1, 10)),
        Err(SimError::InvalidTask {
            field: "period",
            ..
        })
    ));
    assert!(matches!(
        simulate(&ok, &mut p, &cfg(2, 10)),
        Err(SimError::CpuMismatch { .. })
    ));
    let mut c = cfg(1, 10);
    c.exec = ExecTime::UniformFraction { lo: 0.9, hi: 0.5 };
    assert!(matches!(
        simulate(&ok, &mut p, &c),
        Err(SimError::InvalidConfig { field: "exec", .. })
    ));
    c.exec = ExecTime::NormalCapped {
        mean: 0.5,
        sd: f64::NAN,
    };
    assert!(matches!(
        simulate(&ok, &mut p, &c),
        Err(SimError::InvalidConfig { .. })
    ));
    let err = simulate(&ok, &mut Rogue, &cfg(1, 10)).unwrap_err();
    assert!(matches!(err, SimError::PolicyViolation { .. }));
    assert!(err.to_string().contains("τ0#5"), "{err}");
}

/// Not an assertion: prints simulated jobs per wall-clock second (run with `--release
/// -- --nocapture`). The test policy is a simple O(n) G-EDF, so this bounds the engine's
/// cost from above.
#[test]
fn timing_print() {
    for m in [4u32, 16] {
        let tasks = random_tasks(5 * m as usize, m);
        let mut c = cfg(
            m,
            if cfg!(debug_assertions) {
                20_000_000
            } else {
                500_000_000
            },
        );
        c.record_jobs = false;
        let start = std::time::Instant::now();
        let r = run(&tasks, &c);
        let wall = start.elapsed().as_secs_f64();
        println!(
            "m = {m}, n = {}: {} jobs, {} events in {wall:.3} s = {:.2} M jobs/s",
            tasks.len(),
            r.totals.jobs,
            r.events_processed,
            r.totals.jobs as f64 / wall / 1e6
        );
        assert!(r.jobs.is_empty() && r.totals.jobs > 0);
    }
}

/// The CPU count is checked before the policy is built (it allocates per-CPU state): a count
/// typed by mistake is an error with the limit, not an out-of-memory abort.
#[test]
fn too_many_cpus_is_refused_before_anything_is_allocated() {
    let task = schedlab_model::Task::new(
        Duration::from_ns(1),
        Duration::from_ns(10),
        Duration::from_ns(10),
    )
    .unwrap();
    let set = schedlab_model::TaskSet::new(vec![task]).unwrap();
    for policy in ["gedf", "gfp", "edzl"] {
        let err = crate::front::run(&set, policy, &[0], None, &cfg(u32::MAX, 10)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "4294967295 CPUs is more than schedlab supports (at most 4096)"
        );
    }
    let at_limit = schedlab_model::platform::MAX_CPUS;
    assert!(crate::front::run(&set, "gedf", &[0], None, &cfg(at_limit, 10)).is_ok());
}

/// A parallel task is refused, with a typed error naming the task and the policies that take
/// parallel tasks, by a policy that does not schedule threads (a UA policy; the engine's own
/// test policy) — never simulated as a sequential job of its work; under `gedf` (threads as
/// jobs) the same set simulates, and a `wcet` that is not the work is a task error.
#[test]
fn parallel_tasks_are_refused_by_policies_that_do_not_take_them() {
    let ns = Duration::from_ns;
    let p = schedlab_model::ParallelStructure::from_threads(vec![vec![ns(2)], vec![ns(1), ns(1)]])
        .unwrap();
    let seq = schedlab_model::Task::new(ns(1), ns(10), ns(10)).unwrap();
    let par = schedlab_model::Task::new(ns(4), ns(10), ns(10))
        .unwrap()
        .with_parallel(p);
    let set = schedlab_model::TaskSet::new(vec![seq.clone(), par.clone()]).unwrap();
    for policy in ["ghvdf", "gmua"] {
        let err = crate::front::run(&set, policy, &[0, 1], None, &cfg(2, 20)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("task 1 is parallel (field `parallel`), and policy `{policy}` does not schedule parallel tasks; the policies that do: rtws, federated (natively); gedf, gnpedf, gfp, gfifo, edzl, pedf, pfp, cedf, sd (threads as jobs)"),
        );
    }
    for policy in ["gedf", "gfp", "gnpedf", "gfifo", "edzl", "rtws"] {
        let (r, _) = crate::front::run(&set, policy, &[0, 1], None, &cfg(2, 20)).unwrap();
        assert_eq!((r.totals.jobs, r.totals.completed), (4, 4), "{policy}");
    }
    // The engine itself refuses a SimTask built in code under a policy that does not take it.
    let sim_task = SimTask::from(&par);
    assert!(sim_task.parallel.is_some());
    let mut p = TestGedf::new(1);
    let err = simulate(&[task(1, 10, 10), sim_task.clone()], &mut p, &cfg(1, 20)).unwrap_err();
    assert!(
        matches!(err, SimError::ParallelTask { task: 1, .. }),
        "{err}"
    );
    // `wcet` must be the work.
    let mut wrong = sim_task;
    wrong.wcet = ns(5);
    let mut p = TestGedf::new(1);
    let err = simulate(&[wrong], &mut p, &cfg(1, 20)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "task 0: field `parallel` adds up to 4ns of work, but `wcet` is 5ns (the wcet of a parallel task is the sum of its threads)"
    );
}
