//! Federated scheduling on scripted events (module doc's rules, one test each).

use super::*;
use crate::testutil::{info, jid, sid, sinfo, task, Harness};

/// τ0 heavy (C = 12 > D = T = 8) on domain 0 (CPUs 0, 1); τ1 light (3/4) on domain 1 (CPU 2).
fn fed() -> Harness<Federated> {
    let tasks = vec![task(12, 8, 8, 0), task(3, 4, 4, 1)];
    Harness::new(Federated::new(tasks, 3, Placement::sized(vec![0, 1], vec![2, 1])).unwrap())
}

/// The heavy task of the hand-checked schedule: 1 | 2, 2, 2, 2, 2 | 1 (C = 12, L = 4) on its
/// two CPUs. Region 0 takes CPU 0 (lowest idle); the fork at 1 continues on CPU 0 with
/// strand 1, CPU 1 takes strand 2, strands 3–5 wait. At 3 each freed CPU takes the next
/// waiting strand in strand order (CPU 0: 3, CPU 1: 4); at 5 CPU 0 takes 5 and CPU 1 idles;
/// the join at 7 continues on CPU 0 with strand 6, which ends the job at 8 = D. τ1 keeps
/// CPU 2 and never enters CPUs 0–1.
#[test]
fn heavy_task_runs_greedily_on_its_dedicated_cpus() {
    let mut h = fed();
    assert_eq!(h.release(0, sinfo(0, 0, 0, 0, 8, 1)).links[0].cpu, CpuId(0));
    assert_eq!(h.release(0, info(1, 0, 0, 4, 3)).links[0].cpu, CpuId(2));
    let region1: Vec<_> = (1..=5).map(|s| sinfo(0, 0, s, 1, 8, 2)).collect();
    h.fork(1, 0, &region1);
    assert_eq!(
        h.links(),
        vec![(0, Some(sid(0, 0, 1))), (1, Some(sid(0, 0, 2)))]
    );
    assert!(h.complete(1, jid(0, 0)).links.is_empty());
    h.complete(3, sid(0, 0, 1));
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 3)))]);
    h.complete(3, sid(0, 0, 2));
    assert_eq!(h.links(), vec![(1, Some(sid(0, 0, 4)))]);
    h.complete(3, jid(1, 0));
    assert_eq!(h.links(), vec![(2, None)]);
    h.release(4, info(1, 1, 4, 8, 3));
    assert_eq!(h.links(), vec![(2, Some(jid(1, 1)))]);
    h.complete(5, sid(0, 0, 3));
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 5)))]);
    h.complete(5, sid(0, 0, 4));
    assert_eq!(h.links(), vec![(1, None)]);
    h.fork(7, 0, &[sinfo(0, 0, 6, 7, 8, 1)]);
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 6)))]);
    assert!(h.complete(7, sid(0, 0, 5)).links.is_empty());
    h.complete(8, sid(0, 0, 6));
    assert_eq!(h.links(), vec![(0, None)]);
    assert!(h.p.is_heavy_domain(0) && !h.p.is_heavy_domain(1));
}

/// Greedy: with both CPUs busy a new job's thread waits (no preemption — all threads of the
/// domain have the job's deadline); a join on CPU 1 continues there although CPU 0 is idle.
/// An abort of the job's threads frees their CPUs.
#[test]
fn a_join_continues_on_its_cpu_and_nothing_is_preempted() {
    let mut h = fed();
    h.release(0, sinfo(0, 0, 0, 0, 8, 3));
    h.release(0, sinfo(0, 0, 1, 0, 8, 1));
    h.release(0, sinfo(0, 0, 2, 0, 8, 1));
    assert_eq!(
        (h.p.linked(CpuId(0)), h.p.linked(CpuId(1))),
        (Some(sid(0, 0, 0)), Some(sid(0, 0, 1)))
    );
    // Strand 2 waits; strand 1 completes at 1 on CPU 1, which takes it.
    h.complete(1, sid(0, 0, 1));
    assert_eq!(h.links(), vec![(1, Some(sid(0, 0, 2)))]);
    h.complete(2, sid(0, 0, 2));
    assert_eq!(h.links(), vec![(1, None)]);
    h.complete(3, sid(0, 0, 0));
    assert_eq!(h.links(), vec![(0, None)]);
    // Suppose the region joined on CPU 1 instead: the new region starts there.
    let mut h = fed();
    h.release(0, sinfo(0, 0, 0, 0, 8, 1));
    h.release(0, sinfo(0, 0, 1, 0, 8, 2));
    h.complete(1, sid(0, 0, 0));
    h.fork(2, 1, &[sinfo(0, 0, 2, 2, 8, 1), sinfo(0, 0, 3, 2, 8, 1)]);
    assert_eq!(
        h.links(),
        vec![(1, Some(sid(0, 0, 2))), (0, Some(sid(0, 0, 3)))]
    );
    h.complete(2, sid(0, 0, 1));
    assert!(h.links().is_empty());
    h.abort(2, sid(0, 0, 2));
    assert_eq!(h.links(), vec![(1, None)]);
    h.abort(2, sid(0, 0, 3));
    assert_eq!(h.links(), vec![(0, None)]);
}

/// A light parallel task's threads run as jobs on its CPU: τ1 = (4, 4, 4) with two threads
/// released at 0 and τ2 = 1/10 on the same CPU; EDF orders them by deadline and the CPU runs
/// one thread at a time.
#[test]
fn light_threads_run_one_at_a_time_on_their_cpu() {
    let tasks = vec![task(12, 8, 8, 0), task(4, 4, 4, 1), task(1, 10, 10, 2)];
    let p = Placement::sized(vec![0, 1, 1], vec![2, 1]);
    let mut h = Harness::new(Federated::new(tasks, 3, p).unwrap());
    h.release(0, info(2, 0, 0, 10, 1));
    assert_eq!(h.links(), vec![(2, Some(jid(2, 0)))]);
    h.release(0, sinfo(1, 0, 0, 0, 4, 2));
    assert_eq!(h.links(), vec![(2, Some(sid(1, 0, 0)))]);
    h.release(0, sinfo(1, 0, 1, 0, 4, 2));
    assert!(h.links().is_empty());
    h.complete(2, sid(1, 0, 0));
    assert_eq!(h.links(), vec![(2, Some(sid(1, 0, 1)))]);
    h.complete(4, sid(1, 0, 1));
    assert_eq!(h.links(), vec![(2, Some(jid(2, 0)))]);
}

/// Placements federated refuses, each naming the task or the sizes.
#[test]
fn refusals() {
    let tasks = vec![task(12, 8, 8, 0), task(3, 4, 4, 1)];
    let e = |p: Placement, m: u32| Federated::new(tasks.clone(), m, p).unwrap_err().to_string();
    assert_eq!(
        e(Placement::sized(vec![0, 0], vec![2, 1]), 3),
        "invalid placement: task 0 is heavy (work 12ns > deadline 8ns) and shares domain 0 with task 1: federated scheduling gives a heavy task CPUs of its own"
    );
    assert_eq!(
        e(Placement::sized(vec![0, 1], vec![2, 3]), 3),
        "invalid placement: the domains have 5 CPUs in all (sizes [2, 3]), the platform 3"
    );
    assert_eq!(
        e(Placement::sized(vec![0, 1], vec![3, 0]), 3),
        "invalid placement: domain 1 has no CPU (domain sizes [3, 0])"
    );
    assert_eq!(
        e(Placement::sized(vec![0, 2], vec![2, 1]), 3),
        "invalid placement: task 1 is placed on domain 2, but there are only 2 (domains 0..2, 3 CPUs in domains of [2, 1] CPUs)"
    );
    let split = Placement::sized(vec![0, 1], vec![2, 1]).with_split(vec![
        vec![],
        vec![schedlab_model::SplitPart {
            cpu: 2,
            budget: schedlab_model::Duration::from_ns(1),
        }],
    ]);
    assert!(e(split, 3).contains("task 1 is split"));
}

/// Uniform sizes are a plain placement: `sized` with equal sizes is `new`, and a federated
/// policy on domains of one CPU each is P-EDF for light tasks.
#[test]
fn uniform_sizes_are_plain_placements() {
    assert_eq!(
        Placement::sized(vec![0, 1], vec![1, 1, 1]),
        Placement::new(vec![0, 1], 1)
    );
    let p = Placement::sized(vec![1, 0], vec![2, 1, 1]);
    assert_eq!((p.domain_size, p.sizes(4)), (0, vec![2, 1, 1]));
    assert_eq!(
        (
            p.first_cpu(0),
            p.first_cpu(1),
            p.first_cpu(2),
            p.first_cpu(4)
        ),
        (Some(0), Some(2), Some(3), None)
    );
    let q = Placement::new(vec![0], 2);
    assert_eq!((q.sizes(4), q.first_cpu(1)), (vec![2, 2], Some(2)));
    let tasks = vec![task(3, 4, 4, 0), task(1, 10, 10, 1)];
    let mut h = Harness::new(Federated::new(tasks, 2, Placement::new(vec![1, 0], 1)).unwrap());
    assert_eq!(h.release(0, info(0, 0, 0, 4, 3)).links[0].cpu, CpuId(1));
    assert_eq!(h.release(0, info(1, 0, 0, 10, 1)).links[0].cpu, CpuId(0));
    assert!(!h.p.is_heavy_domain(0));
}
