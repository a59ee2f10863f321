//! Hand-derived link decisions of the global JLFP policies, and invariants under random events.

use super::*;
use crate::testutil::{info, jid, task, Harness};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn tasks(ranks: &[u32]) -> Vec<PolicyTask> {
    ranks.iter().map(|&r| task(10, 100, 100, r)).collect()
}

/// G-EDF, 2 CPUs. t=0: A=τ0#0 (d=10) → CPU 0 (lowest idle), B=τ1#0 (d=20) → CPU 1.
/// t=1: C=τ2#0 (d=5) beats the latest deadline, B: exactly one link change, C on CPU 1; A is
/// not touched (no migration). t=3: C completes; its CPU 1 takes B back (B last ran there).
#[test]
fn gedf_preempts_latest_deadline_and_reuses_its_cpu() {
    let mut h = Harness::new(GlobalJlfp::gedf(tasks(&[0, 1, 2]), 2));
    assert_eq!(h.release(0, info(0, 0, 0, 10, 5)).links.len(), 1);
    assert_eq!(h.links(), vec![(0, Some(jid(0, 0)))]);
    h.release(0, info(1, 0, 0, 20, 5));
    assert_eq!(h.links(), vec![(1, Some(jid(1, 0)))]);
    h.release(1, info(2, 0, 1, 5, 2));
    assert_eq!(h.links(), vec![(1, Some(jid(2, 0)))]);
    assert_eq!(h.p.linked(CpuId(0)), Some(jid(0, 0)));
    h.complete(3, jid(2, 0));
    assert_eq!(h.links(), vec![(1, Some(jid(1, 0)))]);
    // A completes at 5 with nothing waiting: CPU 0 idles.
    h.complete(5, jid(0, 0));
    assert_eq!(h.links(), vec![(0, None)]);
}

/// Equal deadline does not preempt: A=τ2#0 (d=10) on CPU 0, B=τ1#0 (d=20) on CPU 1; C=τ0#0
/// with d=20 has a smaller full key than B (task 0 < 1) but an equal primary key: it waits.
/// When A completes, C (not B, which is linked) takes CPU 0.
#[test]
fn equal_deadline_release_does_not_preempt() {
    let mut h = Harness::new(GlobalJlfp::gedf(tasks(&[0, 1, 2]), 2));
    h.release(0, info(2, 0, 0, 10, 5));
    h.release(0, info(1, 0, 0, 20, 5));
    assert!(h.release(1, info(0, 0, 1, 20, 5)).links.is_empty());
    h.complete(5, jid(2, 0));
    assert_eq!(h.links(), vec![(0, Some(jid(0, 0)))]);
}

/// G-FP by rank, 2 CPUs: ranks τ0 = 2, τ1 = 0, τ2 = 1. τ0#0 → CPU 0, τ2#0 → CPU 1; τ1#0
/// (rank 0) preempts the lowest-priority linked job τ0#0 (rank 2) on CPU 0, deadlines
/// notwithstanding.
#[test]
fn gfp_orders_by_rank() {
    let mut h = Harness::new(GlobalJlfp::gfp(tasks(&[2, 0, 1]), 2));
    h.release(0, info(0, 0, 0, 5, 5));
    h.release(0, info(2, 0, 0, 50, 5));
    h.release(1, info(1, 0, 1, 500, 5));
    assert_eq!(h.links(), vec![(0, Some(jid(1, 0)))]);
    // τ0#0 waits; τ2#0 completes → CPU 1 takes τ0#0 (a migration: unavoidable).
    h.complete(2, jid(2, 0));
    assert_eq!(h.links(), vec![(1, Some(jid(0, 0)))]);
}

/// G-FIFO never preempts: 2 CPUs busy with τ0#0 (released 0) and τ1#0 (released 1); τ2#0 at
/// 2 with the earliest deadline waits, τ3#0 at 3 too; the first free CPU takes τ2#0 (earlier
/// release), then τ3#0.
#[test]
fn gfifo_never_preempts() {
    let mut h = Harness::new(GlobalJlfp::gfifo(tasks(&[0, 1, 2, 3]), 2));
    h.release(0, info(0, 0, 0, 100, 9));
    h.release(1, info(1, 0, 1, 100, 9));
    assert!(h.release(2, info(2, 0, 2, 3, 1)).links.is_empty());
    assert!(h.release(3, info(3, 0, 3, 3, 1)).links.is_empty());
    h.complete(9, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(jid(2, 0)))]);
    h.complete(10, jid(1, 0));
    assert_eq!(h.links(), vec![(1, Some(jid(3, 0)))]);
}

/// G-NP-EDF, 1 CPU: τ0#0 (d=100) runs from 0; τ1#0 (d=5) released at 1 waits (no link
/// change); at 10 τ0#0 completes and τ1#0 gets the CPU. Then the same-instant refinement:
/// at 20, τ2#0 (d=50) is released onto the idle CPU; τ0#1 (d=30) released at the same
/// instant takes the CPU (τ2#0 has not started), whereas at 21 τ1#1 (d=1) may not.
#[test]
fn gnpedf_leaves_a_running_job_alone() {
    let mut h = Harness::new(GlobalJlfp::gnpedf(tasks(&[0, 1, 2]), 1));
    h.release(0, info(0, 0, 0, 100, 10));
    assert!(h.release(1, info(1, 0, 1, 5, 2)).links.is_empty());
    h.complete(10, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(jid(1, 0)))]);
    h.complete(12, jid(1, 0));
    assert_eq!(h.links(), vec![(0, None)]);
    h.release(20, info(2, 0, 20, 50, 5));
    h.release(20, info(0, 1, 20, 30, 5));
    assert_eq!(h.links(), vec![(0, Some(jid(0, 1)))]);
    assert!(h.release(21, info(1, 1, 21, 1, 1)).links.is_empty());
    h.complete(25, jid(0, 1));
    assert_eq!(h.links(), vec![(0, Some(jid(1, 1)))]);
}

/// Abort of a linked job unlinks it and refills its CPU; abort of a waiting job changes no
/// link; abort of the last job idles the CPU.
#[test]
fn abort_unlinks_and_refills() {
    let mut h = Harness::new(GlobalJlfp::gedf(tasks(&[0, 1, 2, 3]), 2));
    h.release(0, info(0, 0, 0, 10, 5));
    h.release(0, info(1, 0, 0, 20, 5));
    h.release(0, info(2, 0, 0, 30, 5));
    h.release(0, info(3, 0, 0, 40, 5));
    assert!(h.abort(1, jid(2, 0)).links.is_empty());
    h.abort(2, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(jid(3, 0)))]);
    h.abort(3, jid(3, 0));
    assert_eq!(h.links(), vec![(0, None)]);
    // Unknown jobs are ignored.
    assert!(h.abort(4, jid(9, 9)).is_empty());
    assert!(h.complete(4, jid(0, 0)).is_empty());
}

/// An idle CPU is chosen by the task's last CPU first: τ1 ran on CPU 1; when both CPUs are
/// idle its next job goes back to CPU 1, another task's job to the lowest idle CPU 0.
#[test]
fn prefers_the_cpu_the_task_last_ran_on() {
    let mut h = Harness::new(GlobalJlfp::gedf(tasks(&[0, 1]), 2));
    h.release(0, info(0, 0, 0, 10, 1));
    h.release(0, info(1, 0, 0, 10, 1));
    h.complete(1, jid(0, 0));
    h.complete(1, jid(1, 0));
    h.release(5, info(1, 1, 5, 15, 1));
    assert_eq!(h.links(), vec![(1, Some(jid(1, 1)))]);
    h.release(5, info(0, 1, 5, 15, 1));
    assert_eq!(h.links(), vec![(0, Some(jid(0, 1)))]);
}

#[test]
fn zero_cpus_never_links() {
    let mut h = Harness::new(GlobalJlfp::gedf(tasks(&[0]), 0));
    assert!(h.release(0, info(0, 0, 0, 10, 1)).is_empty());
    assert!(h.complete(1, jid(0, 0)).is_empty());
}

#[derive(Clone, Debug)]
enum Op {
    Release { task: u32, rel_deadline: u64 },
    Complete(usize),
    Abort(usize),
    Advance(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u32..6, 1u64..40).prop_map(|(task, rel_deadline)| Op::Release { task, rel_deadline }),
        2 => (0usize..8).prop_map(Op::Complete),
        1 => (0usize..8).prop_map(Op::Abort),
        2 => (0u64..5).prop_map(Op::Advance),
    ]
}

/// Runs `ops` on `policy` (with primary key `primary`) and checks after every event: each job
/// is linked to at most one CPU (the harness), at most one link change, work conservation
/// (linked = min(k, active)), and for preemptive policies that no waiting job has a strictly
/// smaller primary key than any linked job.
fn check(policy: GlobalJlfp, primary: Primary, preemptive: bool, ranks: &[u32], ops: &[Op]) {
    let ts = tasks(ranks);
    let k = policy.cpus() as usize;
    let mut h = Harness::new(policy);
    let mut active: BTreeMap<JobId, JobKey> = BTreeMap::new();
    let mut next_seq = [0u64; 6];
    for op in ops {
        match *op {
            Op::Release { task, rel_deadline } => {
                if active.keys().any(|j| j.task.0 == task) {
                    continue;
                }
                let seq = next_seq[task as usize];
                next_seq[task as usize] += 1;
                let i = info(task, seq, h.now, h.now + rel_deadline, 5);
                active.insert(i.id, JobKey::of(primary, &i, &ts));
                h.release(h.now, i);
            }
            Op::Complete(n) | Op::Abort(n) => {
                let linked: Vec<JobId> = h.mirror.iter().flatten().copied().collect();
                let all: Vec<JobId> = active.keys().copied().collect();
                let pick = if matches!(op, Op::Complete(_)) {
                    linked.get(n % linked.len().max(1)).copied()
                } else {
                    all.get(n % all.len().max(1)).copied()
                };
                let Some(j) = pick else { continue };
                active.remove(&j);
                if matches!(op, Op::Complete(_)) {
                    h.complete(h.now, j);
                } else {
                    h.abort(h.now, j);
                }
            }
            Op::Advance(dt) => {
                let t = h.now + dt;
                h.advance(t);
                continue;
            }
        }
        assert!(h.out.links.len() <= 1, "{:?}", h.out.links);
        let linked: BTreeSet<JobId> = h.mirror.iter().flatten().copied().collect();
        assert_eq!(linked.len(), k.min(active.len()));
        assert!(linked.iter().all(|j| active.contains_key(j)));
        if preemptive {
            for (w, wk) in active.iter().filter(|(j, _)| !linked.contains(j)) {
                for l in &linked {
                    assert!(!wk.preempts(&active[l]), "waiting {w} beats linked {l}");
                }
            }
        }
    }
}

use std::collections::BTreeMap;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn jlfp_invariants(k in 1u32..4, ranks in proptest::collection::vec(0u32..4, 6),
                       ops in proptest::collection::vec(op(), 0..60), which in 0usize..4) {
        let ts = tasks(&ranks);
        let (p, primary, pre) = match which {
            0 => (GlobalJlfp::gedf(ts, k), Primary::Deadline, true),
            1 => (GlobalJlfp::gfp(ts, k), Primary::Rank, true),
            2 => (GlobalJlfp::gfifo(ts, k), Primary::Release, true),
            _ => (GlobalJlfp::gnpedf(ts, k), Primary::Deadline, false),
        };
        check(p, primary, pre, &ranks, &ops);
    }
}
