//! ua1's UA policies with resources in the simulator (derivations in the comments; µs, one
//! CPU, period 1000: one job per task within the horizon).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use schedlab_model::extensions::CriticalSection;
use schedlab_model::{Duration, Task, TaskSet, Time};
use schedlab_policy::Placement;
use schedlab_sim::{run, JobRecord, SimConfig, SimResult};

const US: u64 = 1_000;

fn us(x: u64) -> Duration {
    Duration::from_ns(x * US)
}

/// `(C, D, utility, offset, sections [(resource, start, length)])`.
type Spec<'a> = (u64, u64, f64, u64, &'a [(u32, u64, u64)]);

/// Tasks of `spec`, period 1000, handlers 5.
fn set(spec: &[Spec<'_>]) -> TaskSet {
    TaskSet::new(
        spec.iter()
            .map(|&(c, d, u, off, cs)| {
                let mut t = Task::new(us(c), us(d), us(1000)).unwrap();
                t.utility = Some(u);
                t.offset = us(off);
                t.abort_cost = us(5);
                t.critical_sections = cs
                    .iter()
                    .map(|&(resource, start, length)| CriticalSection {
                        resource,
                        start: us(start),
                        length: us(length),
                    })
                    .collect();
                t
            })
            .collect(),
    )
    .unwrap()
}

fn sim(ts: &TaskSet, policy: &str, horizon: u64) -> SimResult {
    let placement = policy
        .starts_with('p')
        .then(|| Placement::new(vec![0; ts.len()], 1));
    let mut cfg = SimConfig::new(1, us(horizon));
    cfg.record_jobs = true;
    let ranks: Vec<u32> = (0..ts.len() as u32).collect();
    run(ts, policy, &ranks, placement, &cfg).unwrap().0
}

fn job(r: &SimResult, task: u32) -> &JobRecord {
    r.jobs
        .iter()
        .find(|j| j.task == task && j.seq == 0)
        .unwrap()
}

fn at(x: u64) -> Option<Time> {
    Some(Time::from_ns(x * US))
}

/// Crossed locks on one CPU: τ0 = (C 100, D 200, U 10, offset 15; A at 10 for 50, B at 20
/// for 20), τ1 = (100, 300, U 1, offset 0; B at 10 for 50, A at 20 for 20).
fn crossed() -> TaskSet {
    set(&[
        (100, 200, 10.0, 15, &[(1, 10, 50), (2, 20, 20)]),
        (100, 300, 1.0, 0, &[(2, 10, 50), (1, 20, 20)]),
    ])
}

/// P-DASA on [`crossed`]: 0–15 J1 alone (locks B at 10). 15: J0 (deadline 215) and J1 (300)
/// both fit (115, 200): the head J0 runs; it locks A at 25 (executed 10) and requests B at
/// 35: blocked, owner J1. J0's chain is {J1}, placed at min(300, 215): J0, J1 complete at
/// 115, 200 ≤ 215; the blocked head runs its chain's end, J1, from 35. J1 requests A at 40
/// (executed 20): blocked on A held by J0 — a cycle. Own LVDs: J0 10/80, J1 1/80: J1 is
/// aborted; its handler runs 40–45 and releases B, granted to J0, which resumes at 45 with 80
/// left and completes at 125 ≤ 215.
#[test]
fn pdasa_breaks_a_deadlock_by_aborting_the_lower_density_job() {
    let r = sim(&crossed(), "pdasa", 400);
    let (j0, j1) = (job(&r, 0), job(&r, 1));
    assert_eq!((j0.start, j0.completion), (at(15), at(125)));
    assert_eq!(j0.blocked, us(10));
    assert!(j1.aborted);
    assert_eq!(j1.executed, us(20));
    assert_eq!(r.totals.aborted, 1);
}

/// A cycle closed by the denser job, with zero-cost handlers. τ0 = (C 100, D 300, U 10; A at
/// 10 for 50, B at 20 for 20), τ1 = (40, 100, U 1, offset 15; B at 5 for 20, A at 10 for 10).
///
/// P-DASA: J0 alone 0–15 (locks A at 10). 15: J1 (deadline 115) and J0 (300) both fit (55,
/// 140): the head J1 preempts; it locks B at 20 and requests A at 25 (owner J0): blocked.
/// PUDs: J0 10/85, J1 with its chain (1 + 10)/(30 + 85) — J0 first (kept); then J1 with J0
/// moved up to 115: 25 + 85 = 110, + 30 = 140 > 115: rejected. J0 runs from 25 and requests B
/// at 30 (executed 20; owner J1): a cycle, closed by J0's own block. LVDs J0 10/80, J1 1/30:
/// J1 is aborted in that `on_block`; with no handler B is released at once and granted to
/// J0, which is resumed — and linked — within the same callback (the engine must not take
/// that for a blocked job left linked). J0 runs 30–110 ✓.
#[test]
fn pdasa_deadlock_closed_by_the_denser_job_with_no_handler() {
    let mut tasks: Vec<Task> = set(&[
        (100, 300, 10.0, 0, &[(1, 10, 50), (2, 20, 20)]),
        (40, 100, 1.0, 15, &[(2, 5, 20), (1, 10, 10)]),
    ])
    .into();
    for t in &mut tasks {
        t.abort_cost = Duration::ZERO;
    }
    let r = sim(&TaskSet::new(tasks).unwrap(), "pdasa", 400);
    let (j0, j1) = (job(&r, 0), job(&r, 1));
    assert_eq!((j0.completion, j0.preemptions), (at(110), 1));
    assert!(j1.aborted);
    assert_eq!(j1.executed, us(10));
}

/// Without dependency awareness [`crossed`] deadlocks at 40 under P-HVDF, P-LBESA and G-HVDF
/// (the same steps as P-DASA up to 40; then neither job can run and the CPU idles) until J0's
/// deadline 215, where it is aborted (the abort timer); its handler runs 215–220 and releases
/// A, granted to J1, which resumes with 80 left and completes at 300, its deadline. G-NP-HVDF
/// never interleaves them: J1 runs 0–100 alone, J0 (critical instant 215 − 100 = 115) starts
/// at 100 and completes at 200.
#[test]
fn the_other_policies_survive_crossed_locks() {
    for p in ["phvdf", "plbesa", "ghvdf"] {
        let r = sim(&crossed(), p, 400);
        let (j0, j1) = (job(&r, 0), job(&r, 1));
        assert!(j0.aborted, "{p}");
        assert_eq!((j1.completion, j1.blocked), (at(300), us(180)), "{p}");
        assert_eq!(r.totals.jobs, 2, "{p}");
    }
    let r = sim(&crossed(), "gnphvdf", 400);
    assert_eq!(job(&r, 1).completion, at(100));
    assert_eq!(job(&r, 0).completion, at(200));
}

/// The classic inversion under HVDF: L = (C 40, U 1; R at 10 for 20), H = (20, U 100,
/// offset 20; R at 5 for 10), M = (50, U 10, offset 30). LVDs at arrival: L 1/40, H 5,
/// M 0.2.
///
/// 0–20 L (locks R at 10). 20: H (LVD 5 > L's 1/20) runs, requests R at 25 and blocks: the
/// densest job is H, blocked, so the end of its chain, L, runs (inheritance). 30: M (0.2)
/// arrives — H is still the densest: L keeps running and unlocks R at 35 (executed 30): H
/// resumes 35–50 ✓; then M (0.2) beats L (1/10): M 50–100, L 100–110. H waits 10, as under
/// priority inheritance.
#[test]
fn hvdf_bounds_the_inversion_by_running_the_owner() {
    let ts = set(&[
        (40, 1000, 1.0, 0, &[(1, 10, 20)]),
        (20, 1000, 100.0, 20, &[(1, 5, 10)]),
        (50, 1000, 10.0, 30, &[]),
    ]);
    for p in ["phvdf", "ghvdf"] {
        let r = sim(&ts, p, 1000);
        let (l, h, m) = (job(&r, 0), job(&r, 1), job(&r, 2));
        assert_eq!(
            (h.start, h.completion, h.blocked),
            (at(20), at(50), us(10)),
            "{p}"
        );
        assert_eq!((m.start, m.completion), (at(50), at(100)), "{p}");
        assert_eq!(l.completion, at(110), "{p}");
    }
}
