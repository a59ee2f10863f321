//! Parallel (fork-join) tasks in the simulator [RTWS §III], by property on random sets:
//! under `rtws` and under the policies that run threads as jobs, every thread runs exactly its
//! time, region joins hold, no strand runs on two CPUs, at most one steal per CPU and instant,
//! the counters are the trace's, no CPU idles while a thread waits, runs are deterministic;
//! a lone parallel job on `m` CPUs finishes within `T1/m + T∞` [RTWS §IV, Eq. 2]; and the
//! threads-as-jobs baselines release each thread when its region starts, with the parent's
//! deadline.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod par_common;

use par_common::{check_schedule, sim, sim_with, task};
use proptest::prelude::*;
use schedlab_model::{Duration, Task, TaskSet, Time};
use schedlab_policy::{
    CpuId, Ctx, Decisions, GlobalJlfp, JobId, JobInfo, ParallelSupport, Policy, PolicyTask,
};
use schedlab_sim::{simulate, SimConfig, SimTask};
use schedlab_trace::Kind;
use std::sync::{Arc, Mutex};

/// One random task: 1–3 regions of 1–4 threads of 1–6 ns; deadline between the work (the
/// model wants `C ≤ D`) and twice it, period between the deadline and 60.
fn par_task() -> impl Strategy<Value = Task> {
    (
        prop::collection::vec(prop::collection::vec(1u64..=6, 1..=4), 1..=3),
        0u64..=100,
        0u64..=100,
    )
        .prop_map(|(regions, dfrac, tfrac)| {
            let work: u64 = regions.iter().flatten().sum();
            let d = work + work * dfrac / 100;
            let t = d + (60u64.saturating_sub(d)) * tfrac / 100;
            let refs: Vec<&[u64]> = regions.iter().map(Vec::as_slice).collect();
            task(d, t, &refs)
        })
}

fn par_sets() -> impl Strategy<Value = (TaskSet, u32)> {
    (1u32..=4, prop::collection::vec(par_task(), 1..=5))
        .prop_map(|(m, tasks)| (TaskSet::new(tasks).unwrap(), m))
}

const POLICIES: [&str; 6] = ["rtws", "gedf", "gfp", "gfifo", "gnpedf", "edzl"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every policy that takes parallel tasks: exact thread times, joins, no strand on two
    /// CPUs, at most one steal per CPU and instant, counters = the trace's, work
    /// conservation (all six are work-conserving), and the same result twice.
    #[test]
    fn schedules_of_parallel_sets_are_sound((set, m) in par_sets(), which in 0usize..POLICIES.len()) {
        let policy = POLICIES[which];
        let horizon = 300;
        let r = sim(&set, policy, m, horizon);
        if let Err(e) = check_schedule(&set, &r, m, horizon, true) {
            return Err(TestCaseError::fail(format!("{policy} on {m} CPUs: {e}")));
        }
        prop_assert!(policy == "rtws" || r.totals.steals == 0, "{} stole", policy);
        let again = sim(&set, policy, m, horizon);
        prop_assert_eq!(&r, &again);
    }

    /// [RTWS §IV, Eq. 2]: alone on `m` CPUs, one parallel job completes within
    /// `T1/m + T∞` of its release (compared exactly: `m·R ≤ T1 + m·T∞`) under `rtws` and
    /// under `gedf` with its threads as jobs — both are greedy for a lone job.
    #[test]
    fn a_lone_job_finishes_within_t1_over_m_plus_t_inf(t in par_task(), m in 1u32..=8) {
        let (t1, t_inf) = match &t.parallel {
            Some(p) => (p.work().as_ns(), p.critical_path().as_ns()),
            None => (t.wcet.as_ns(), t.wcet.as_ns()),
        };
        let lone = Task::new(t.wcet, Duration::from_ns(10_000), Duration::from_ns(10_000)).unwrap();
        let lone = match t.parallel.clone() { Some(p) => lone.with_parallel(p), None => lone };
        let set = TaskSet::new(vec![lone]).unwrap();
        for policy in ["rtws", "gedf"] {
            let r = sim(&set, policy, m, 1_000);
            let j = &r.jobs[0];
            let resp = j.completion.unwrap().saturating_since(j.release).as_ns();
            prop_assert!(
                u128::from(m) * u128::from(resp) <= u128::from(t1) + u128::from(m) * u128::from(t_inf),
                "{policy}: response {resp} > {t1}/{m} + {t_inf}"
            );
            check_schedule(&set, &r, m, 1_000, true).map_err(TestCaseError::fail)?;
        }
    }
}

/// `--abort-late` aborts a parallel job as a whole. One CPU; τ0 = (3, 3, 10) sequential,
/// τ1 = 4 | 3, 3, 3 with D = 14, T = 20. τ0#0 runs [0, 3), τ1's sequential part [3, 7); at 7
/// it forks (`rtws`: onto CPU 0's deque, the bottom thread — strand 3 — runs [7, 10); `gedf`:
/// three jobs of deadline 14, strand 1 first). At 10 τ0#1 (deadline 13) takes the CPU from
/// the thread linked there at 10 before it started, runs [10, 13); a τ1 thread runs [13, 14).
/// At 14 τ1#0 is aborted with 8 of its 13 units executed: the thread running leaves, the one
/// waiting never runs; one record, one miss.
#[test]
fn abort_late_aborts_every_thread_of_a_late_job() {
    let set = TaskSet::new(vec![
        task(3, 10, &[&[3]]),
        task(14, 20, &[&[4], &[3, 3, 3]]),
    ])
    .unwrap();
    for policy in ["rtws", "gedf"] {
        let mut cfg = SimConfig::new(1, Duration::from_ns(20));
        cfg.abort_late = true;
        let r = sim_with(&set, policy, 1, cfg);
        let jobs: Vec<_> = r
            .jobs
            .iter()
            .map(|j| {
                (
                    j.task,
                    j.seq,
                    j.aborted,
                    j.executed.as_ns(),
                    j.completion.map(Time::as_ns),
                )
            })
            .collect();
        assert_eq!(
            jobs,
            vec![
                (0, 0, false, 3, Some(3)),
                (0, 1, false, 3, Some(13)),
                (1, 0, true, 8, None)
            ],
            "{policy}"
        );
        let aborts: Vec<_> = r
            .trace
            .iter()
            .filter(|e| e.kind == Kind::Abort)
            .map(|e| (e.time, e.task))
            .collect();
        assert_eq!(aborts, vec![(14, 1)], "{policy}");
        assert!(
            r.trace
                .iter()
                .all(|e| e.kind != Kind::SwitchIn || e.time < 14),
            "{policy}"
        );
        assert_eq!(r.totals.deadline_misses, 1);
        check_schedule(&set, &r, 1, 20, true).unwrap();
    }
}

/// Records the releases a policy is told of: (time, facts) — `gedf` underneath, with the
/// default `on_fork` (so the new region's threads reach `on_release`).
struct Recorder {
    inner: GlobalJlfp,
    log: Arc<Mutex<Vec<(Time, JobInfo)>>>,
}

impl Policy for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn cpus(&self) -> u32 {
        self.inner.cpus()
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.log.lock().unwrap().push((ctx.now, *job));
        self.inner.on_release(ctx, job, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.inner.on_complete(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.inner.on_abort(ctx, job, out);
    }
    fn parallel_support(&self) -> ParallelSupport {
        self.inner.parallel_support()
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.inner.linked(cpu)
    }
}

/// Threads as jobs (the default `on_fork`): each thread reaches the policy when its region
/// starts — the job's release for region 0, the previous region's last completion (the
/// `fork`) for the others — with the parent's absolute deadline and its own time as WCET.
/// τ0 = 2 | 1, 3 | 2 on 2 CPUs from 0 and 10: forks at 2 and 5, then 12 and 15; the job ends
/// at 7 (region 1 joins at 5: 2 + max(1, 3)) and 17.
#[test]
fn threads_as_jobs_are_released_when_their_region_starts() {
    let t = task(10, 10, &[&[2], &[1, 3], &[2]]);
    let sim_task = SimTask::from(&t);
    let log = Arc::new(Mutex::new(Vec::new()));
    let pt = vec![PolicyTask::new(t.wcet, t.deadline, t.period, 0)];
    let mut p = Recorder {
        inner: GlobalJlfp::gedf(pt, 2),
        log: log.clone(),
    };
    let mut cfg = SimConfig::new(2, Duration::from_ns(20));
    cfg.record_trace = true;
    let r = simulate(&[sim_task], &mut p, &cfg).unwrap();
    let got: Vec<(u64, u64, u32, u64, u64, u64)> = log
        .lock()
        .unwrap()
        .iter()
        .map(|(now, j)| {
            (
                now.as_ns(),
                j.id.seq,
                j.id.strand,
                j.release.as_ns(),
                j.deadline.as_ns(),
                j.wcet.as_ns(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (0, 0, 0, 0, 10, 2),
            (2, 0, 1, 2, 10, 1),
            (2, 0, 2, 2, 10, 3),
            (5, 0, 3, 5, 10, 2),
            (10, 1, 0, 10, 20, 2),
            (12, 1, 1, 12, 20, 1),
            (12, 1, 2, 12, 20, 3),
            (15, 1, 3, 15, 20, 2),
        ]
    );
    let forks: Vec<(u64, u32, u64)> = r
        .trace
        .iter()
        .filter(|e| e.kind == Kind::Fork)
        .map(|e| (e.time, e.strand, e.arg))
        .collect();
    assert_eq!(forks, vec![(2, 1, 2), (5, 3, 1), (12, 1, 2), (15, 3, 1)]);
    let done: Vec<_> = r
        .jobs
        .iter()
        .map(|j| j.completion.map(Time::as_ns))
        .collect();
    assert_eq!(done, vec![Some(7), Some(17)]);
    // One record per job: start = first thread's start, executed = the work.
    assert_eq!(
        r.jobs
            .iter()
            .map(|j| (j.start.map(Time::as_ns), j.executed.as_ns()))
            .collect::<Vec<_>>(),
        vec![(Some(0), 8), (Some(10), 8)]
    );
    let set = TaskSet::new(vec![t]).unwrap();
    check_schedule(&set, &r, 2, 20, true).unwrap();
}

/// The partitioned threads-as-jobs baselines keep every thread of a task on its CPU
/// (`pedf`, `pfp` with a placement; no steal, no migration).
#[test]
fn partitioned_baselines_keep_a_tasks_threads_on_its_cpu() {
    let set = TaskSet::new(vec![
        task(10, 10, &[&[2], &[1, 3], &[2]]),
        task(12, 12, &[&[1, 1, 1], &[2]]),
    ])
    .unwrap();
    for policy in ["pedf", "pfp"] {
        let placement = schedlab_policy::Placement::new(vec![1, 0], 1);
        let mut cfg = SimConfig::new(2, Duration::from_ns(60));
        cfg.record_trace = true;
        let r = schedlab_sim::run(&set, policy, &[0, 1], Some(placement), &cfg)
            .unwrap()
            .0;
        let cpus = schedlab_trace::check::cpus_per_task(&r.trace);
        assert_eq!(
            cpus[&0].iter().copied().collect::<Vec<_>>(),
            vec![1],
            "{policy}"
        );
        assert_eq!(
            cpus[&1].iter().copied().collect::<Vec<_>>(),
            vec![0],
            "{policy}"
        );
        assert_eq!(
            (
                r.totals.migrations,
                r.totals.steals,
                r.totals.deadline_misses
            ),
            (0, 0, 0)
        );
        // Not globally work-conserving (a CPU idles while the other's tasks wait).
        check_schedule(&set, &r, 2, 60, false).unwrap();
    }
}
