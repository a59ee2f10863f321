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
/// (unfinished at the horizon 250, blocked for 230); with `--abort-late` both are aborted at their deadline
/// 300.
#[test]
fn crossed_locks_deadlock_under_gedf() {
    let tasks = crossed();
    let mut p = GlobalJlfp::gedf(policy_tasks(&tasks, &[0, 0]), 2);
    let r = sim(&tasks, &mut p, 2, 250);
    for t in 0..2 {
        let j = job(&r, t);
        assert_eq!(
            (j.completion, j.executed, j.blocked),
            (None, us(20), us(230))
        );
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

/// Under `ExecTime` below the WCET a job can complete inside a section: it releases the
/// resource at completion. One CPU, `gfp`, every demand exactly half the WCET (µs):
/// L = (C 40 → demand 20, rank 1, R at 10 for 30), H = (C 20 → 10, rank 0, offset 15, R at 0
/// for 10). L runs 0–15 (locks R at 10); H preempts at 15 and requests R at once: blocked;
/// L (inheriting) runs 15–20 and completes at executed 20, inside its section: R goes to H,
/// which runs 20–30 and completes exactly when its section ends (completion first).
#[test]
fn completion_inside_a_section_releases_the_resource() {
    let tasks = vec![
        task(20, 1000, 15).with_section(3, us(0), us(10)),
        task(40, 1000, 0).with_section(3, us(10), us(30)),
    ];
    let mut p = GlobalJlfp::gfp(policy_tasks(&tasks, &[0, 1]), 1);
    let mut c = SimConfig::new(1, us(1000));
    c.exec = crate::config::ExecTime::UniformFraction { lo: 0.5, hi: 0.5 };
    c.record_trace = true;
    let r = simulate(&tasks, &mut p, &c).unwrap();
    assert_eq!(job(&r, 1).completion, at(20));
    assert_eq!((job(&r, 0).completion, job(&r, 0).blocked), (at(30), us(5)));
    let releases: Vec<(u64, u32)> = r
        .trace
        .iter()
        .filter(|e| e.kind == Kind::LockRelease)
        .map(|e| (e.time / US, e.task))
        .collect();
    assert_eq!(releases, vec![(20, 1), (30, 0)]);
}

/// The inversion of `inheritance_bounds_the_blocking_of_a_high_priority_job` under `pfp`
/// (one partition): the same schedule through `Domains`.
#[test]
fn partitioned_fp_inherits_within_its_partition() {
    let tasks = vec![
        task(20, 1000, 20).with_section(7, us(5), us(10)),
        task(50, 1000, 30),
        task(40, 1000, 0).with_section(7, us(10), us(20)),
    ];
    let pt = policy_tasks(&tasks, &[0, 1, 2]);
    let placement = schedlab_policy::Placement::new(vec![0, 0, 0], 1);
    let mut p = schedlab_policy::build("pfp", &pt, 1, Some(placement)).unwrap();
    let r = sim(&tasks, p.as_mut(), 1, 1000);
    let done: Vec<_> = (0..3).map(|t| job(&r, t).completion).collect();
    assert_eq!(done, vec![at(50), at(100), at(110)]);
}

/// Random sets with random (possibly nested, crossing) sections, random demands, engine and
/// policy-free aborts at deadlines, under every policy with resource support. Checks: the
/// run ends without error; the same input gives the same result; no job on two CPUs; a
/// resource has one owner at a time (acquire/release alternate per resource in the trace);
/// a job never executes while blocked; every released job is accounted once.
#[test]
fn resources_keep_the_run_invariants_under_every_policy() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |k: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % k.max(1)
    };
    let policies = [
        "gedf", "gnpedf", "gfp", "gfifo", "edzl", "pedf", "pfp", "cedf",
    ];
    let (mut blocks, mut aborts) = (0, 0);
    for round in 0..16 {
        let n = 5 + next(8) as usize;
        let tasks: Vec<SimTask> = (0..n)
            .map(|_| {
                let period = 20 + next(60);
                let wcet = 2 + next(period * 3 / 4);
                let mut t = SimTask::new(us(wcet), us(period), us(period))
                    .with_abort_cost(Duration::from_ns(next(2000)));
                for _ in 0..next(3) {
                    let start = next(wcet);
                    let len = 1 + next(wcet - start);
                    t = t.with_section(next(3) as u32, us(start), us(len));
                }
                t
            })
            .collect();
        let name = policies[round % policies.len()];
        let pt = policy_tasks(&tasks, &(0..n as u32).collect::<Vec<_>>());
        let placement = match name {
            "pedf" | "pfp" => Some(schedlab_policy::Placement::new(
                (0..n as u32).map(|i| i % 4).collect(),
                1,
            )),
            "cedf" => Some(schedlab_policy::Placement::new(
                (0..n as u32).map(|i| i % 2).collect(),
                2,
            )),
            _ => None,
        };
        let mut c = SimConfig::new(4, us(2000));
        c.record_trace = true;
        c.abort_late = round % 2 == 0;
        c.exec = crate::config::ExecTime::UniformFraction { lo: 0.3, hi: 1.0 };
        c.seed = round as u64;
        // Every fourth round with overheads (dispatch delays, release interrupts on the
        // jobs' CPUs): handlers, blocks and grants interleave with delayed segments.
        if round % 4 == 3 {
            let ns = Duration::from_ns;
            c.overheads = Some(crate::overheads::Overheads {
                interrupts: crate::overheads::Interrupts::OnCpus,
                release_latency: ns(300),
                release: ns(700),
                schedule: ns(400),
                context_switch: ns(200),
                ipi: ns(300),
                ..crate::overheads::Overheads::default()
            });
        }
        // Odd rounds: the policy itself aborts late jobs, from inside any callback.
        let policy_aborts = round % 2 == 1;
        let go = || {
            let p = schedlab_policy::build(name, &pt, 4, placement.clone()).unwrap();
            if policy_aborts {
                let mut p = crate::test_policy::LateAborter::new(p);
                simulate(&tasks, &mut p, &c).unwrap()
            } else {
                let mut p = p;
                simulate(&tasks, p.as_mut(), &c).unwrap()
            }
        };
        let (a, b) = (go(), go());
        assert_eq!(a, b, "round {round} ({name})");
        assert!(schedlab_trace::check::parallel_execution(&a.trace).is_empty());
        check_mutual_exclusion(&a);
        check_no_execution_while_blocked(&a);
        crate::abort_tests::assert_no_execution_during_handlers(&a.trace);
        let releases = a.trace.iter().filter(|e| e.kind == Kind::Release).count();
        assert_eq!(a.jobs.len(), releases, "round {round} ({name})");
        blocks += a.trace.iter().filter(|e| e.kind == Kind::Block).count();
        aborts += a.totals.aborted;
    }
    // The sets do exercise blocking and aborts (not a vacuous pass).
    assert!(
        blocks > 50 && aborts > 5,
        "{blocks} blocks, {aborts} aborts"
    );
}

fn check_mutual_exclusion(r: &SimResult) {
    let mut owner = std::collections::BTreeMap::new();
    for e in &r.trace {
        match e.kind {
            Kind::LockAcquire => {
                let prev = owner.insert(e.arg, (e.task, e.seq));
                assert!(
                    prev.is_none() || prev == Some((e.task, e.seq)),
                    "{e:?}: resource held by {prev:?}"
                );
            }
            Kind::LockRelease => {
                assert_eq!(owner.remove(&e.arg), Some((e.task, e.seq)), "{e:?}");
            }
            _ => {}
        }
    }
}

fn check_no_execution_while_blocked(r: &SimResult) {
    let mut since = std::collections::BTreeMap::new();
    let mut windows = Vec::new();
    for e in &r.trace {
        match e.kind {
            Kind::Block => {
                since.insert((e.task, e.seq), e.time);
            }
            Kind::Resume | Kind::Abort => {
                if let Some(b) = since.remove(&(e.task, e.seq)) {
                    windows.push((e.task, e.seq, b, e.time));
                }
            }
            _ => {}
        }
    }
    for iv in schedlab_trace::intervals::intervals(&r.trace) {
        for &(t, s, b, e) in &windows {
            let overlap = iv.task == t && iv.seq == s && iv.start < e && b < iv.end;
            assert!(!overlap, "{iv:?} executes while blocked {b}–{e}");
        }
    }
}

/// Bad task input is a typed error before anything runs, never a panic: a section that ends
/// after the WCET (or overflows), one of length 0, a broken TUF, an abort cost on a task that
/// cannot be aborted, too many sections.
#[test]
fn bad_sections_and_tufs_are_typed_errors() {
    let base = || task(10, 100, 0);
    let mut bad = vec![
        base().with_section(1, us(5), us(6)),
        base().with_section(1, us(2), Duration::ZERO),
        base().with_section(1, Duration::MAX, us(1)),
    ];
    let mut t = base();
    t.tuf = Some(schedlab_model::Tuf::Linear {
        value: f64::NAN,
        zero_at: us(1),
    });
    bad.push(t);
    let mut t = base().with_abort_cost(us(1));
    t.abortable = false;
    bad.push(t);
    let mut t = base();
    for _ in 0..=schedlab_model::extensions::MAX_CRITICAL_SECTIONS {
        t = t.with_section(0, us(0), us(1));
    }
    bad.push(t);
    for (k, t) in bad.into_iter().enumerate() {
        let mut p = GlobalJlfp::gedf(policy_tasks(std::slice::from_ref(&t), &[0]), 1);
        let r = simulate(&[t], &mut p, &SimConfig::new(1, us(100)));
        assert!(
            matches!(r, Err(SimError::InvalidTask { task: 0, .. })),
            "case {k}: {r:?}"
        );
    }
}

/// Transitive inheritance on one CPU, `gfp` (µs; ranks H 0 > X 1 > M 2 > L 3; D = T = 1000):
/// L = (C 50, R1 at 5 for 30), M = (40, offset 10, R2 at 5 for 30, R1 at 10 for 10),
/// H = (20, offset 20, R2 at 5 for 10), X = (30, offset 30).
/// - 0–10 L (locks R1 at 5); 10 M preempts L (L executed 10); M locks R2 at 15.
/// - 20: H is released (releases come before lock milestones at one instant) and linked;
///   M, still on the CPU at this instant with executed 10, requests R1 (L's): blocked; L
///   inherits M's rank 2. H runs 20–25, requests R2 (M's) and blocks: the chain H → M → L
///   gives L rank 0; L resumes at 25.
/// - 30: X (rank 1) cannot preempt L. L unlocks R1 at executed 35 (t 50): granted to M,
///   which inherits H's rank 0 (H waits for its R2) and preempts L (back to rank 3).
/// - M 50–75 (leaves R1 at executed 20, t 60; R2 at 35, t 75 → granted to H, which
///   preempts M); H 75–90; X 90–120; M 120–125; L 125–140.
#[test]
fn inheritance_is_transitive_along_blocking_chains() {
    let tasks = vec![
        task(20, 1000, 20).with_section(2, us(5), us(10)),
        task(30, 1000, 30),
        task(40, 1000, 10)
            .with_section(2, us(5), us(30))
            .with_section(1, us(10), us(10)),
        task(50, 1000, 0).with_section(1, us(5), us(30)),
    ];
    let mut gfp = GlobalJlfp::gfp(policy_tasks(&tasks, &[0, 1, 2, 3]), 1);
    let r = sim(&tasks, &mut gfp, 1, 1000);
    let done: Vec<_> = (0..4).map(|t| job(&r, t).completion).collect();
    assert_eq!(done, vec![at(90), at(120), at(125), at(140)]);
    let blocked: Vec<_> = (0..4).map(|t| job(&r, t).blocked).collect();
    assert_eq!(blocked, vec![us(50), us(0), us(30), us(0)]);
}

/// A grant at the end of an abort handler can abort another job of the same CPU, whose
/// handler then follows on that CPU. One CPU, `gfp` wrapped in a policy that aborts every
/// job at its deadline from inside any callback (µs; ranks W 0 > A 1 > B 2; abort costs 10):
/// B = (C 30, D 60), A = (C 100, D 49, offset 1, R at 0 for 100), W = (C 10, D 1000,
/// offset 5, R at 0 for 5); periods 1000 (one job each).
/// - B 0–1; A preempts at 1 and locks R; W preempts at 5, requests R: blocked; A inherits.
/// - 50: A's deadline: aborted (executed 49): its handler runs 50–60 on CPU 0, holding R;
///   the policy links B, held back by the handler.
/// - 60: the handler ends: R is granted to W, and in that `on_resume` the policy aborts B
///   (deadline 60, executed 1 on CPU 0): B's handler runs 60–70; W, linked, waits for it
///   and runs 70–80.
#[test]
fn a_grant_at_a_handler_end_may_queue_the_next_handler() {
    let once = |c, d, offset| SimTask::new(us(c), us(d), us(1000)).with_offset(us(offset));
    let tasks = vec![
        once(30, 60, 0).with_abort_cost(us(10)),
        once(100, 49, 1)
            .with_section(4, us(0), us(100))
            .with_abort_cost(us(10)),
        once(10, 1000, 5).with_section(4, us(0), us(5)),
    ];
    let inner = GlobalJlfp::gfp(policy_tasks(&tasks, &[2, 1, 0]), 1);
    let mut p = crate::test_policy::LateAborter::new(Box::new(inner));
    let r = sim(&tasks, &mut p, 1, 200);
    let handlers: Vec<(u64, Kind, u32)> = r
        .trace
        .iter()
        .filter(|e| matches!(e.kind, Kind::AbortHandlerBegin | Kind::AbortHandlerEnd))
        .map(|e| (e.time / US, e.kind, e.task))
        .collect();
    use Kind::*;
    assert_eq!(
        handlers,
        vec![
            (50, AbortHandlerBegin, 1),
            (60, AbortHandlerEnd, 1),
            (60, AbortHandlerBegin, 0),
            (70, AbortHandlerEnd, 0),
        ]
    );
    assert_eq!((job(&r, 2).start, job(&r, 2).completion), (at(70), at(80)));
    assert!(job(&r, 0).aborted && job(&r, 1).aborted);
}
