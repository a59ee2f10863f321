//! Hand-worked schedules of the utility-accrual policies of helper ua1 on one CPU (single
//! jobs: periods far beyond the horizon), derived on paper in the comments. `(C, D, U)` per
//! task, all released at 0 unless said otherwise; "✓" met its deadline, "✗" aborted.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use schedlab_model::{Duration, Task, TaskSet};
use schedlab_policy::Placement;
use schedlab_sim::{run, JobRecord, SimConfig, SimResult};
use schedlab_trace::Kind;

/// `(C, D, utility, offset)` tasks with period 1000.
fn set(tasks: &[(u64, u64, f64, u64)]) -> TaskSet {
    TaskSet::new(
        tasks
            .iter()
            .map(|&(c, d, u, off)| {
                let mut t = Task::new(
                    Duration::from_ns(c),
                    Duration::from_ns(d),
                    Duration::from_ns(1000),
                )
                .unwrap();
                t.utility = Some(u);
                t.offset = Duration::from_ns(off);
                t
            })
            .collect(),
    )
    .unwrap()
}

fn sim(ts: &TaskSet, policy: &str, abort_late: bool) -> SimResult {
    let placement = policy
        .starts_with('p')
        .then(|| Placement::new(vec![0; ts.len()], 1));
    let mut cfg = SimConfig::new(1, Duration::from_ns(40));
    cfg.record_jobs = true;
    cfg.record_trace = true;
    cfg.abort_late = abort_late;
    let ranks: Vec<u32> = (0..ts.len() as u32).collect();
    run(ts, policy, &ranks, placement, &cfg).unwrap().0
}

/// Per task: (start, completion, aborted) of its only job.
fn outcome(r: &SimResult) -> Vec<(Option<u64>, Option<u64>, bool)> {
    r.jobs
        .iter()
        .filter(|j| j.seq == 0)
        .map(|j: &JobRecord| {
            (
                j.start.map(|t| t.as_ns()),
                j.completion.map(|t| t.as_ns()),
                j.aborted,
            )
        })
        .collect()
}

fn accrued(r: &SimResult) -> f64 {
    r.jobs.iter().map(|j| j.utility).sum()
}

/// τ0 = (4, 5, 1), τ1 = (4, 8, 1), τ2 = (4, 9, 10).
///
/// EDF (late jobs aborted): τ0 [0,4) ✓, τ1 [4,8) ✓, τ2 [8,9) ✗ at 9 — it sheds the valuable
/// job: 2.
///
/// LBESA, t=0: deadline order τ0, τ1, τ2 completes at 4, 8, 12 > 9: overloaded. LVDs 1/4,
/// 1/4, 10/4; the lowest, tied between τ0 and τ1, goes last in the one order: τ1 removed;
/// τ0, τ2 complete at 4, 8: feasible, τ0 runs. t=4: τ1, τ2 → 8, 12 > 9: τ1 (LVD 1/4) removed;
/// τ2 [4,8) ✓. t=8: τ1 reaches its deadline unstarted ✗. Accrues 11.
///
/// DASA, t=0: LVD order τ2, τ0, τ1 (tie by task index). τ2 alone: 4 ≤ 9 ✓ kept; τ0 + τ2:
/// 4, 8 kept; + τ1: 4, 8, 12 > 9 rejected. τ0 runs; at 4 again τ2 kept, τ1 rejected: τ2
/// [4,8) ✓, τ1 ✗ at 8. Accrues 11.
///
/// HVDF (P-HVDF, and G-HVDF on one CPU), t=0: τ2 (10/4) runs [0,4) ✓. t=4: τ0 would complete
/// at 8 > 5: utility 0, LVD 0; τ1 completes at 8 ≤ 8: LVD 1/4 — τ1 [4,8) ✓; τ0 ✗ at 5
/// (the abort timer at its deadline). Accrues 11.
///
/// G-NP-HVDF, t=0: τ0 is released first and linked to the idle CPU, but it has not started
/// when τ1 and τ2 are released at the same instant; τ2 (LVD 10/4 at queueing) is denser and
/// takes the CPU: [0,4) ✓. t=4: the head τ0 (LVD 1/4, task 0 before task 1) would complete
/// at 8 > 5 — past its critical instant 5 − 4 = 1 — ✗ before starting; τ1 [4,8) ✓.
/// Accrues 11.
#[test]
fn edf_sheds_the_valuable_job_the_ua_policies_keep_it() {
    let ts = set(&[(4, 5, 1.0, 0), (4, 8, 1.0, 0), (4, 9, 10.0, 0)]);
    let edf = sim(&ts, "pedf", true);
    assert_eq!(
        outcome(&edf),
        vec![
            (Some(0), Some(4), false),
            (Some(4), Some(8), false),
            (Some(8), None, true)
        ]
    );
    assert_eq!(accrued(&edf), 2.0);
    let best_effort = vec![
        (Some(0), Some(4), false),
        (None, None, true),
        (Some(4), Some(8), false),
    ];
    for p in ["plbesa", "pdasa"] {
        let r = sim(&ts, p, false);
        assert_eq!(outcome(&r), best_effort, "{p}");
        assert_eq!(accrued(&r), 11.0, "{p}");
        assert_eq!(
            abort_time(&r, 1),
            Some(8),
            "{p}: at the deadline (the abort timer)"
        );
    }
    let hvdf = vec![
        (None, None, true),
        (Some(4), Some(8), false),
        (Some(0), Some(4), false),
    ];
    for (p, aborted_at) in [("phvdf", 5), ("ghvdf", 5), ("gnphvdf", 4)] {
        let r = sim(&ts, p, false);
        assert_eq!(outcome(&r), hvdf, "{p}");
        assert_eq!(accrued(&r), 11.0, "{p}");
        assert_eq!(abort_time(&r, 0), Some(aborted_at), "{p}");
    }
}

/// LBESA and DASA differ. τ0 = (4, 10, 40), τ1 = (8, 11, 16), τ2 = (2, 2, 2); LVDs at 0:
/// 10, 2, 1 (each completes by its deadline alone).
///
/// LBESA, t=0: deadline order τ2, τ0, τ1 completes at 2, 6, 14 > 11: remove the lowest LVD,
/// τ2; τ0, τ1 → 4, 12 > 11: remove τ1; τ0 alone is feasible and runs [0,4) ✓. t=2: τ2
/// reaches its deadline unstarted ✗. t=4: τ1 alone → 12 > 11: removed; nothing is left, the
/// work-conserving fallback runs τ1 [4,11) ✗ at its deadline. Accrues 40: shedding from the
/// bottom removed τ2, which fits beside τ0.
///
/// DASA, t=0: LVD order τ0, τ1, τ2. τ0 kept; τ0 + τ1 → 4, 12 > 11 rejected; τ2 + τ0 → 2, 6
/// kept. τ2 [0,2) ✓, τ0 [2,6) ✓; t=6: τ1 → 14 > 11 rejected; fallback τ1 [6,11) ✗.
/// Accrues 42.
#[test]
fn lbesa_and_dasa_differ() {
    let ts = set(&[(4, 10, 40.0, 0), (8, 11, 16.0, 0), (2, 2, 2.0, 0)]);
    let lbesa = sim(&ts, "plbesa", false);
    assert_eq!(
        outcome(&lbesa),
        vec![
            (Some(0), Some(4), false),
            (Some(4), None, true),
            (None, None, true)
        ]
    );
    assert_eq!(accrued(&lbesa), 40.0);
    let dasa = sim(&ts, "pdasa", false);
    assert_eq!(
        outcome(&dasa),
        vec![
            (Some(2), Some(6), false),
            (Some(6), None, true),
            (Some(0), Some(2), false)
        ]
    );
    assert_eq!(accrued(&dasa), 42.0);
}

/// LVDs are recomputed at every event (G-HVDF §6.6): τ0 = (10, 20, 10) at 0, τ1 = (4, 10, 6)
/// released at 6 (deadline 16). At 6, τ0 has 4 left: LVD 10/4 = 2.5 against τ1's 6/4 = 1.5,
/// so τ0 keeps the CPU (with its LVD at release, 1, it would be preempted; EDF would preempt
/// it too: 16 < 20). τ0 [0,10) ✓ without preemption, τ1 [10,14) ✓.
#[test]
fn hvdf_recomputes_densities_at_each_event() {
    let ts = set(&[(10, 20, 10.0, 0), (4, 10, 6.0, 6)]);
    for p in ["phvdf", "ghvdf"] {
        let r = sim(&ts, p, false);
        assert_eq!(
            outcome(&r),
            vec![(Some(0), Some(10), false), (Some(10), Some(14), false)],
            "{p}"
        );
        assert_eq!(r.jobs[0].preemptions, 0, "{p}");
    }
    let edf = sim(&ts, "pedf", true);
    assert_eq!(edf.jobs[0].preemptions, 1);
}

/// G-NP-HVDF never preempts, and aborts a late job only when it reaches the head of the
/// queue. τ0 = (6, 20, 1), τ1 = (2, 10, 100) released at 1 (deadline 11), τ2 = (4, 7, 1),
/// τ3 = (4, 8, 0.4); LVDs at queueing 1/6, 50, 1/4, 1/10.
///
/// G-NP-HVDF: t=0: τ0 is linked first but has not started when τ2 (denser) is released at the
/// same instant: τ2 [0,4) ✓. t=1: τ1 waits although it is far denser (no preemption).
/// t=4: τ1 [4,6) ✓. t=6: the head τ0 [6,12) ✓ (τ3 has been hopeless since its critical
/// instant 8 − 4 = 4, but it is not the head). t=12: the head τ3 is past its deadline ✗ —
/// at 12, not at 8.
///
/// G-HVDF: τ2 [0,1); t=1: τ1 preempts it, [1,3) ✓; t=3: τ2 (3 left, LVD 1/3) beats τ0 (1/6)
/// and τ3 (1/10) [3,6) ✓; t=6: τ3 would complete at 10 > 8, LVD 0; τ0 [6,12) ✓; τ3 ✗ at its
/// deadline 8 (the abort timer).
#[test]
fn gnphvdf_never_preempts_and_aborts_only_the_head() {
    let ts = set(&[
        (6, 20, 1.0, 0),
        (2, 10, 100.0, 1),
        (4, 7, 1.0, 0),
        (4, 8, 0.4, 0),
    ]);
    let np = sim(&ts, "gnphvdf", false);
    assert_eq!(
        outcome(&np),
        vec![
            (Some(6), Some(12), false),
            (Some(4), Some(6), false),
            (Some(0), Some(4), false),
            (None, None, true)
        ]
    );
    assert!(np.jobs.iter().all(|j| j.preemptions == 0));
    assert_eq!(abort_time(&np, 3), Some(12));
    let p = sim(&ts, "ghvdf", false);
    assert_eq!(
        outcome(&p),
        vec![
            (Some(6), Some(12), false),
            (Some(1), Some(3), false),
            (Some(0), Some(6), false),
            (None, None, true)
        ]
    );
    assert_eq!(p.jobs[2].preemptions, 1);
    assert_eq!(abort_time(&p, 3), Some(8));
}

/// When job 0 of `task` was aborted (from the trace).
fn abort_time(r: &SimResult, task: u32) -> Option<u64> {
    r.trace
        .iter()
        .find(|e| e.kind == Kind::Abort && e.task == task)
        .map(|e| e.time)
}
