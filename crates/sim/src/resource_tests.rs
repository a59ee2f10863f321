//! Resources (engine module doc, "Resources"): blocking, grants, priority inheritance in
//! the policies of `schedlab-policy`, deadlock and its resolution by an abort (derivations in
//! the comments).

use crate::config::{SimConfig, SimTask};
use crate::engine::{simulate, SimResult};
use crate::error::SimError;
use crate::metrics::JobRecord;
use crate::test_policy::{CycleBreaker, FpNoPi};
use schedlab_model::{Duration, Time};
use schedlab_policy::{GlobalJlfp, Policy, PolicyTask};
use schedlab_trace::Kind;

const US: u64 = 1_000;

fn us(x: u64) -> Duration {
    Duration::from_ns(x * US)
}

fn at(x: u64) -> Option<Time> {
    Some(Time::from_ns(x * US))
}

fn task(c: u64, d: u64, offset: u64) -> SimTask {
    SimTask::new(us(c), us(d), us(d)).with_offset(us(offset))
}

fn policy_tasks(tasks: &[SimTask], ranks: &[u32]) -> Vec<PolicyTask> {
    tasks
        .iter()
        .zip(ranks)
        .map(|(t, &r)| PolicyTask::new(t.wcet, t.deadline, t.period, r))
        .collect()
}

fn sim(tasks: &[SimTask], p: &mut dyn Policy, m: u32, horizon: u64) -> SimResult {
    let mut c = SimConfig::new(m, us(horizon));
    c.record_trace = true;
    simulate(tasks, p, &c).unwrap()
}

fn job(r: &SimResult, task: u32) -> &JobRecord {
    r.jobs
        .iter()
        .find(|j| j.task == task && j.seq == 0)
        .unwrap()
}

/// The classic inversion on one CPU (µs; ranks H 0 > M 1 > L 2; D = T = 1000):
/// L = (C 40, offset 0, section on R at 10 for 20), H = (20, offset 20, R at 5 for 10),
/// M = (50, offset 30, no section).
///
/// With inheritance (`gfp`):
/// - 0–20 L (locks R at 10); 20 H preempts L (L has executed 20); H runs 20–25, requests R
///   (held by L) and blocks at 25; L inherits H's priority and resumes at 25.
/// - 30: M (rank 1) cannot preempt L (inherited rank 0). L reaches 30 executed at 35 and
///   unlocks R: granted to H, which resumes (L drops back to rank 2) and preempts L.
/// - H 35–50 (its last 15; it unlocks at executed 15, t = 45); M 50–100; L 100–110.
///
/// Without inheritance (`FpNoPi`): the same until 30, where M preempts L (L executed 25);
/// M 30–80; L 80–85 unlocks R; H 85–100; L 100–110. H waits 60 instead of 10.
#[test]
fn inheritance_bounds_the_blocking_of_a_high_priority_job() {
    let r_at = |s: SimTask, start, len| s.with_section(7, us(start), us(len));
    let tasks = vec![
        r_at(task(20, 1000, 20), 5, 10),
        task(50, 1000, 30),
        r_at(task(40, 1000, 0), 10, 20),
    ];
    let ranks = [0, 1, 2];
    let mut gfp = GlobalJlfp::gfp(policy_tasks(&tasks, &ranks), 1);
    let r = sim(&tasks, &mut gfp, 1, 1000);
    let done = |r: &SimResult| (0..3).map(|t| job(r, t).completion).collect::<Vec<_>>();
    assert_eq!(done(&r), vec![at(50), at(100), at(110)]);
    assert_eq!(job(&r, 0).blocked, us(10));
    assert_eq!(job(&r, 1).start, at(50));
    let blocks: Vec<(u64, Kind, u32)> = r
        .trace
        .iter()
        .filter(|e| matches!(e.kind, Kind::Block | Kind::Resume | Kind::LockRelease))
        .map(|e| (e.time / US, e.kind, e.task))
        .collect();
    use Kind::*;
    assert_eq!(
        blocks,
        vec![
            (25, Block, 0),
            (35, LockRelease, 2),
            (35, Resume, 0),
            (45, LockRelease, 0)
        ]
    );
    let mut nopi = FpNoPi::new(ranks.to_vec());
    let r = sim(&tasks, &mut nopi, 1, 1000);
    assert_eq!(done(&r), vec![at(100), at(80), at(110)]);
    assert_eq!(job(&r, 0).blocked, us(60));
}

/// J0 locks A at 10 and B at 20 (nested: A [10, 60), B [20, 40)); J1 locks B at 10 and A at
/// 20. Both start at 0 on 2 CPUs under `gedf` (C 100, D = T = 300). At 10 J0 holds A and J1
/// holds B; at 20 J0 blocks on B and J1 on A: a deadlock. Without help they stay blocked
/// (unfinished at the horizon 250); with `--abort-late` both are aborted at their deadline
/// 300.
#[test]
fn crossed_locks_deadlock_under_gedf() {
    let tasks = crossed();
    let mut p = GlobalJlfp::gedf(policy_tasks(&tasks, &[0, 0]), 2);
    let r = sim(&tasks, &mut p, 2, 250);
    for t in 0..2 {
        let j = job(&r, t);
        assert_eq!((j.completion, j.executed), (None, us(20)));
    }
    let mut p = GlobalJlfp::gedf(policy_tasks(&tasks, &[0, 0]), 2);
    let mut c = SimConfig::new(2, us(1000));
    c.abort_late = true;
    let r = simulate(&tasks, &mut p, &c).unwrap();
    assert!(job(&r, 0).aborted && job(&r, 1).aborted);
    assert_eq!(job(&r, 0).blocked, us(280));
}

fn crossed() -> Vec<SimTask> {
    let (a, b) = (1, 2);
    vec![
        task(100, 300, 0)
            .with_section(a, us(10), us(50))
            .with_section(b, us(20), us(20))
            .with_abort_cost(us(5)),
        task(100, 300, 0)
            .with_section(b, us(10), us(50))
            .with_section(a, us(20), us(20))
            .with_abort_cost(us(5)),
    ]
}

/// The same deadlock, resolved by a policy that follows `ctx.resources`: at 20 J0 blocks
/// first (lock milestones in task order; J1 is not blocked yet, no cycle), then J1 blocks on
/// A held by J0, which waits for B held by J1: a cycle, J1 is aborted. J1 had executed 20 on
/// CPU 1: its handler runs there 20–25 and then releases B, granted to J0, which resumes at
/// 25 on CPU 0 (executed 20): it leaves B at executed 40 (t 45), A at 60 (t 65) and completes
/// at 100 (t 105). Horizon 300: one job each.
#[test]
fn a_dependency_aware_abort_resolves_the_deadlock() {
    let tasks = crossed();
    let inner = GlobalJlfp::gedf(policy_tasks(&tasks, &[0, 0]), 2);
    let mut p = CycleBreaker {
        inner,
        broken: Vec::new(),
    };
    let r = sim(&tasks, &mut p, 2, 300);
    assert_eq!(p.broken, vec![(20 * US, 1)]);
    let j0 = job(&r, 0);
    assert_eq!((j0.completion, j0.blocked), (at(105), us(5)));
    assert!(job(&r, 1).aborted);
    let events: Vec<(u64, Kind, u32, u32, u64)> = r
        .trace
        .iter()
        .filter(|e| e.time >= 20 * US && e.time <= 25 * US && e.task < 2)
        .filter(|e| !matches!(e.kind, Kind::Link | Kind::Unlink))
        .map(|e| (e.time / US, e.kind, e.cpu, e.task, e.arg))
        .collect();
    use Kind::*;
    let none = schedlab_trace::NO_CPU;
    assert_eq!(
        events,
        vec![
            (20, LockRequest, 0, 0, 2),
            (20, SwitchOut, 0, 0, 0),
            (20, Block, 0, 0, 2),
            (20, LockRequest, 1, 1, 1),
            (20, SwitchOut, 1, 1, 0),
            (20, Block, 1, 1, 1),
            (20, Abort, 1, 1, 0),
            (20, AbortHandlerBegin, 1, 1, 5 * US),
            (25, AbortHandlerEnd, 1, 1, 0),
            (25, LockRelease, 1, 1, 2),
            (25, LockAcquire, none, 0, 2),
            (25, Resume, none, 0, 2),
            (25, SwitchIn, 0, 0, 0),
        ]
    );
}

/// A policy that keeps a blocked job linked breaks the contract: `TestGedf` does not
/// override `on_block`.
#[test]
fn a_blocked_job_left_linked_is_a_violation() {
    let tasks = crossed();
    let mut p = crate::test_policy::TestGedf::new(2);
    let c = SimConfig::new(2, us(1000));
    match simulate(&tasks, &mut p, &c) {
        Err(SimError::PolicyViolation { time, message, .. }) => {
            assert_eq!(time, Time::from_ns(20 * US));
            assert!(message.contains("blocked"), "{message}");
        }
        other => panic!("expected a violation, got {other:?}"),
    }
}
