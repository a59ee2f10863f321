//! `sd` (the SCHED_DEADLINE model, `schedlab_policy::sd`) in the simulator, by property:
//! on random parallel sets (threads as jobs) every thread runs exactly its time, joins hold,
//! no strand runs on two CPUs, no CPU idles while a thread waits (push and pull are
//! instantaneous: the model has no exception to work conservation), nothing is stolen, and
//! runs are deterministic; on sequential sets whose absolute deadlines are all distinct, the
//! jobs `sd` runs at every instant are G-EDF's, so every job completes exactly when it does
//! under `gedf` — the two differ only in where jobs run.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod par_common;

use par_common::{check_schedule, sim, task};
use proptest::prelude::*;
use schedlab_model::{Task, TaskSet};

/// One random task: 1–3 regions of 1–4 threads of 1–6 ns; deadline between the work and
/// twice it, period between the deadline and 60.
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

/// Up to 6 sequential tasks whose absolute deadlines never coincide: every period is a
/// multiple of 8 and task `i`'s deadline is `≡ −(i + 1) (mod 8)`, so deadlines of different
/// tasks differ modulo 8 and those of one task by whole periods.
fn distinct_deadline_set() -> impl Strategy<Value = (TaskSet, u32)> {
    (
        1u32..=4,
        prop::collection::vec((1u64..=10, 1u64..=6, any::<bool>()), 1..=6),
    )
        .prop_map(|(m, raw)| {
            let tasks = raw
                .iter()
                .enumerate()
                .map(|(i, &(c, k, tighter))| {
                    // T ≥ 16 and C ≤ 10, so D = T − (i + 1) ≥ 10 ≥ C; a tighter one 8 less.
                    let t = 8 * (k + 1);
                    let d = t - (i as u64 + 1);
                    let d = if tighter && d >= c + 8 { d - 8 } else { d };
                    task(d, t, &[&[c]])
                })
                .collect();
            (TaskSet::new(tasks).unwrap(), m)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Exact thread times, joins, no strand on two CPUs, counters = the trace's, work
    /// conservation, no steals, the same result twice.
    #[test]
    fn sd_schedules_parallel_sets_soundly(
        (m, tasks) in (1u32..=4, prop::collection::vec(par_task(), 1..=5))
    ) {
        let set = TaskSet::new(tasks).unwrap();
        let horizon = 300;
        let r = sim(&set, "sd", m, horizon);
        if let Err(e) = check_schedule(&set, &r, m, horizon, true) {
            return Err(TestCaseError::fail(format!("sd on {m} CPUs: {e}")));
        }
        prop_assert_eq!(r.totals.steals, 0);
        prop_assert_eq!(&r, &sim(&set, "sd", m, horizon));
    }

    /// Without deadline ties `sd` runs G-EDF's jobs at every instant: every job completes
    /// when it does under `gedf`; where they run may differ (migrations, context switches).
    #[test]
    fn without_deadline_ties_sd_completes_every_job_as_gedf((set, m) in distinct_deadline_set()) {
        let horizon = 400;
        let s = sim(&set, "sd", m, horizon);
        let g = sim(&set, "gedf", m, horizon);
        check_schedule(&set, &s, m, horizon, true).map_err(TestCaseError::fail)?;
        let done = |r: &schedlab_sim::SimResult| -> Vec<_> {
            r.jobs.iter().map(|j| (j.task, j.seq, j.start.is_some(), j.completion)).collect()
        };
        prop_assert_eq!(done(&s), done(&g));
    }
}

/// The difference on a hand-built set (2 CPUs): τ0 = (2, 10), τ1 = (50, 100) released at 2,
/// τ2 = (3, 50). At 10, τ0#1 wakes on CPU 0 where τ0 last ran, preempting τ1#0, which is
/// pushed to the idle CPU 1 — one preemption and one migration that `gedf` (τ0#1 on the
/// idle CPU 1) does not have; every completion time is the same.
#[test]
fn sd_preempts_on_the_previous_cpu_where_gedf_takes_an_idle_one() {
    let mut t1 = task(100, 100, &[&[50]]);
    t1.offset = schedlab_model::Duration::from_ns(2);
    let set = TaskSet::new(vec![task(10, 10, &[&[2]]), t1, task(50, 50, &[&[3]])]).unwrap();
    let s = sim(&set, "sd", 2, 20);
    let g = sim(&set, "gedf", 2, 20);
    let job = |r: &schedlab_sim::SimResult, t: u32| {
        r.jobs
            .iter()
            .find(|j| j.task == t && j.seq == 0)
            .cloned()
            .unwrap()
    };
    let (s1, g1) = (job(&s, 1), job(&g, 1));
    assert_eq!(
        (s1.preemptions, s1.migrations, s1.cpus_used.clone()),
        (1, 1, vec![0, 1])
    );
    assert_eq!(
        (g1.preemptions, g1.migrations, g1.cpus_used.clone()),
        (0, 0, vec![0])
    );
    assert_eq!(s.totals.context_switches, g.totals.context_switches + 1);
    let completions = |r: &schedlab_sim::SimResult| -> Vec<_> {
        r.jobs
            .iter()
            .map(|j| (j.task, j.seq, j.completion))
            .collect()
    };
    assert_eq!(completions(&s), completions(&g));
}
