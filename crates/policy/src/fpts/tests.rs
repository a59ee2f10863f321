//! Hand-derived decisions of `pfp-ts` [RTPS §III, §IV-A, §IV-B], placement checks, and
//! invariants under random events.

use super::*;
use crate::testutil::{info, jid, task, Harness};
use crate::BudgetRequest;
use proptest::prelude::*;
use schedlab_model::Duration;

fn part(cpu: u32, budget: u64) -> SplitPart {
    SplitPart {
        cpu,
        budget: Duration::from_ns(budget),
    }
}

fn budget(job: JobId, amount: u64) -> BudgetRequest {
    BudgetRequest {
        job,
        amount: Some(Duration::from_ns(amount)),
    }
}

/// The brief's example: 2 CPUs, τ0 = (2, 4) on CPU 0 (rank 0), τ1 = (2, 4) on CPU 1 (rank 1),
/// τ2 = (4, 8) split [CPU 0: 2, CPU 1: 2] (rank 2).
fn example() -> FpTs {
    let tasks = vec![task(2, 4, 4, 0), task(2, 4, 4, 1), task(4, 8, 8, 2)];
    let placement = Placement::semi(
        vec![0, 1, 0],
        vec![vec![], vec![], vec![part(0, 2), part(1, 2)]],
    );
    FpTs::new(tasks, 2, placement).unwrap()
}

/// t=0: τ0#0 → CPU 0, τ1#0 → CPU 1; τ2#0 enters CPU 0's queue (τ0 has the higher rank) with
/// its head budget 2 and no link. t=2: τ0#0 completes, CPU 0 takes τ2#0; τ1#0 completes, CPU
/// 1 idles. t=4: the releases come first (same-instant order): τ0#1 preempts τ2#0 on CPU 0,
/// τ1#1 takes CPU 1; then τ2#0's head budget (run 2–4) is exhausted: it leaves CPU 0's queue
/// (no link change there) and waits on CPU 1 behind τ1#1, with the tail budget 2. t=6: τ0#1
/// completes (CPU 0 idles), τ1#1 completes and CPU 1 takes τ2#0 (a migration), which
/// completes at 8 = its deadline, with its tail budget exactly used (no exhaustion: the
/// completion comes first and removes the budget).
#[test]
fn head_budget_moves_the_job_to_the_tail_cpu() {
    let mut h = Harness::new(example());
    assert_eq!(h.release(0, info(0, 0, 0, 4, 2)).links, vec![link(0, 0, 0)]);
    assert_eq!(h.release(0, info(1, 0, 0, 4, 2)).links, vec![link(1, 1, 0)]);
    let d = h.release(0, info(2, 0, 0, 8, 4)).clone();
    assert!(d.links.is_empty());
    assert_eq!(d.budgets, vec![budget(jid(2, 0), 2)]);
    assert_eq!(h.complete(2, jid(0, 0)).links, vec![link(0, 2, 0)]);
    assert_eq!(h.links(), vec![(0, Some(jid(2, 0)))]);
    assert_eq!(h.complete(2, jid(1, 0)).links, vec![unlink(1)]);
    assert_eq!(h.release(4, info(0, 1, 4, 8, 2)).links, vec![link(0, 0, 1)]);
    assert_eq!(h.release(4, info(1, 1, 4, 8, 2)).links, vec![link(1, 1, 1)]);
    assert_eq!(h.budget_left(jid(2, 0)), Some(0));
    let d = h.exhaust(4, jid(2, 0)).clone();
    assert!(d.links.is_empty(), "{d:?}");
    assert_eq!(d.budgets, vec![budget(jid(2, 0), 2)]);
    assert_eq!(h.p.part_of(jid(2, 0)), Some((1, 1)));
    assert_eq!(h.complete(6, jid(0, 1)).links, vec![unlink(0)]);
    assert_eq!(h.complete(6, jid(1, 1)).links, vec![link(1, 2, 0)]);
    assert_eq!(h.budget_left(jid(2, 0)), Some(2));
    h.advance(8);
    assert_eq!(h.budget_left(jid(2, 0)), Some(0));
    assert_eq!(h.complete(8, jid(2, 0)).links, vec![unlink(1)]);
    assert_eq!(h.p.part_of(jid(2, 0)), None);
}

fn link(cpu: u32, task: u32, seq: u64) -> crate::Link {
    crate::Link {
        cpu: CpuId(cpu),
        job: Some(jid(task, seq)),
    }
}

fn unlink(cpu: u32) -> crate::Link {
    crate::Link {
        cpu: CpuId(cpu),
        job: None,
    }
}

/// A part preempted mid-budget keeps the rest, and an arriving part preempts a lower-rank job.
/// 2 CPUs: τ0 = (1, 4) on CPU 0 (rank 0), τ1 = (3, 12) split [CPU 0: 2, CPU 1: 1] (rank 1),
/// τ2 = (4, 12) on CPU 1 (rank 2). t=0: τ1#0 → CPU 0 (budget 2), τ2#0 → CPU 1. t=1: τ0#0
/// preempts τ1#0 on CPU 0 after 1 unit (1 left of its head budget). t=2: τ0#0 completes, τ1#0
/// resumes. t=3: its head budget is exhausted (run 0–1 and 2–3): CPU 0 idles, and τ1#0
/// (rank 1) preempts τ2#0 (rank 2) on CPU 1 with the tail budget 1. t=4: τ1#0 completes;
/// CPU 1 takes τ2#0 back.
#[test]
fn preempted_part_keeps_its_budget_and_arrival_preempts() {
    let tasks = vec![task(1, 4, 4, 0), task(3, 12, 12, 1), task(4, 12, 12, 2)];
    let placement = Placement::semi(
        vec![0, 0, 1],
        vec![vec![], vec![part(0, 2), part(1, 1)], vec![]],
    );
    let mut h = Harness::new(FpTs::new(tasks, 2, placement).unwrap());
    let d = h.release(0, info(1, 0, 0, 12, 3)).clone();
    assert_eq!(
        (d.links, d.budgets),
        (vec![link(0, 1, 0)], vec![budget(jid(1, 0), 2)])
    );
    assert_eq!(
        h.release(0, info(2, 0, 0, 12, 4)).links,
        vec![link(1, 2, 0)]
    );
    assert_eq!(h.release(1, info(0, 0, 1, 5, 1)).links, vec![link(0, 0, 0)]);
    assert_eq!(h.budget_left(jid(1, 0)), Some(1));
    h.advance(2);
    assert_eq!(
        h.budget_left(jid(1, 0)),
        Some(1),
        "no consumption while preempted"
    );
    assert_eq!(h.complete(2, jid(0, 0)).links, vec![link(0, 1, 0)]);
    let d = h.exhaust(3, jid(1, 0)).clone();
    assert_eq!(d.links, vec![unlink(0), link(1, 1, 0)]);
    assert_eq!(d.budgets, vec![budget(jid(1, 0), 1)]);
    assert_eq!(h.complete(4, jid(1, 0)).links, vec![link(1, 2, 0)]);
}

/// A tail's budget runs out only on an overrun: the job stays where it is, nothing changes.
/// And a job of equal rank arriving by migration does not preempt (equal-key rule).
#[test]
fn tail_exhaustion_keeps_running_and_equal_rank_does_not_preempt() {
    let tasks = vec![task(2, 10, 10, 1), task(2, 10, 10, 1)];
    let placement = Placement::semi(vec![0, 1], vec![vec![part(0, 1), part(1, 1)], vec![]]);
    let mut h = Harness::new(FpTs::new(tasks, 2, placement).unwrap());
    h.release(0, info(0, 0, 0, 10, 2));
    h.release(0, info(1, 0, 0, 10, 2));
    let d = h.exhaust(1, jid(0, 0)).clone();
    // τ0 (rank 1, task 0) has the smaller full key but an equal rank: it waits on CPU 1.
    assert_eq!(d.links, vec![unlink(0)]);
    assert_eq!(h.p.linked(CpuId(1)), Some(jid(1, 0)));
    assert_eq!(h.complete(2, jid(1, 0)).links, vec![link(1, 0, 0)]);
    let d = h.exhaust(3, jid(0, 0)).clone();
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(h.p.linked(CpuId(1)), Some(jid(0, 0)));
    assert_eq!(h.complete(5, jid(0, 0)).links, vec![unlink(1)]);
}

/// An abort of a waiting part changes no link; of a running one, frees its CPU.
#[test]
fn aborts_leave_the_current_cpu() {
    let mut h = Harness::new(example());
    h.release(0, info(0, 0, 0, 4, 2));
    h.release(0, info(2, 0, 0, 8, 4));
    assert!(h.abort(1, jid(2, 0)).links.is_empty());
    h.release(4, info(2, 1, 4, 12, 4));
    h.complete(5, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(jid(2, 1)))]);
    assert_eq!(h.abort(6, jid(2, 1)).links, vec![unlink(0)]);
    assert_eq!(h.budget_left(jid(2, 1)), None);
}

#[test]
fn placements_are_checked_and_errors_name_the_task() {
    let tasks = vec![task(2, 4, 4, 0), task(4, 8, 8, 1)];
    let err = |cpus: u32, home: Vec<u32>, split: Vec<Vec<SplitPart>>| {
        FpTs::new(tasks.clone(), cpus, Placement::semi(home, split))
            .unwrap_err()
            .to_string()
    };
    let ok = |home: Vec<u32>, split: Vec<Vec<SplitPart>>| {
        FpTs::new(tasks.clone(), 2, Placement::semi(home, split)).is_ok()
    };
    assert!(ok(vec![0, 0], vec![vec![], vec![part(0, 3), part(1, 1)]]));
    assert!(ok(vec![1, 0], vec![]));
    assert_eq!(
        err(2, vec![0, 0], vec![vec![], vec![part(0, 3), part(2, 1)]]),
        "invalid placement: task 1: split: part 1 is on CPU 2, but there are only 2 CPUs (0..2)"
    );
    assert_eq!(
        err(2, vec![0, 0], vec![vec![], vec![part(0, 3), part(1, 2)]]),
        "invalid placement: task 1: split: the part budgets add up to 5ns, but wcet is 4ns"
    );
    assert_eq!(
        err(2, vec![0, 0], vec![vec![], vec![part(0, 4)]]),
        "invalid placement: task 1: split: a split on one CPU is no split; use `cpu = 0`"
    );
    assert_eq!(
        err(3, vec![0, 0], vec![vec![], vec![part(0, 1), part(1, 1), part(0, 2)]]),
        "invalid placement: task 1: split: parts 0 and 2 are both on CPU 0 (a cyclic split: each part needs its own CPU)"
    );
    assert_eq!(
        err(2, vec![0, 0], vec![vec![], vec![part(0, 0), part(1, 4)]]),
        "invalid placement: task 1: split: part 0 (CPU 0): budget must be greater than zero"
    );
    assert_eq!(
        err(2, vec![0, 1], vec![vec![], vec![part(0, 3), part(1, 1)]]),
        "invalid placement: task 1 is placed on CPU 1, but its head part is on CPU 0"
    );
    assert_eq!(
        err(2, vec![0, 2], vec![]),
        "invalid placement: task 1 is placed on CPU 2, but there are only 2 CPUs (0..2)"
    );
    assert!(err(2, vec![0], vec![]).contains("the task set has 2"));
    assert!(err(2, vec![0, 0], vec![vec![]]).contains("the task set has 2"));
    let cluster = Placement::new(vec![0, 0], 2);
    assert!(FpTs::new(tasks.clone(), 2, cluster)
        .unwrap_err()
        .to_string()
        .contains("domain size must be 1"));
    assert!(matches!(
        FpTs::new(tasks, 0, Placement::semi(vec![0, 0], vec![])),
        Err(PolicyError::InvalidPlatform(_))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Random releases, completions and the passing of time (with its budget exhaustions) on 3 CPUs: after every event no job
    /// is linked to two CPUs (the harness checks), every CPU runs the highest-rank job that is
    /// on it (linked or waiting), a CPU idles only if nothing waits for it, and a split job
    /// is on the CPU of the part it is in.
    #[test]
    fn every_cpu_runs_its_best_job(steps in proptest::collection::vec((0u8..4, 0u32..5), 1..80)) {
        // τ0, τ1 whole on CPUs 0 and 2; τ2 split over 0, 1, 2; τ3 over 2, 1; τ4 whole on 1.
        let tasks = vec![task(4, 50, 50, 3), task(4, 50, 50, 0), task(6, 50, 50, 1), task(4, 50, 50, 4), task(2, 50, 50, 2)];
        let split = vec![vec![], vec![], vec![part(0, 2), part(1, 3), part(2, 1)], vec![part(2, 3), part(1, 1)], vec![]];
        let mut h = Harness::new(FpTs::new(tasks.clone(), 3, Placement::semi(vec![0, 2, 0, 2, 1], split.clone())).unwrap());
        let mut seq = [0u64; 5];
        let mut active = [false; 5];
        let mut now = 0;
        for (what, t) in steps {
            let ti = t as usize;
            let id = jid(t, seq[ti]);
            match what {
                0 if !active[ti] => {
                    h.release(now, info(t, seq[ti], now, now + 50, 4));
                    active[ti] = true;
                }
                1 if active[ti] => {
                    h.complete(now, id);
                    active[ti] = false;
                    seq[ti] += 1;
                }
                _ => {
                    // Time passes; budgets that run out are exhausted at that instant, as an
                    // engine does.
                    now += 1;
                    h.advance(now);
                    while let Some(j) = (0..5)
                        .map(|k| jid(k as u32, seq[k]))
                        .find(|&j| h.budget_left(j) == Some(0))
                    {
                        h.exhaust(now, j);
                    }
                }
            }
            for cpu in 0..3u32 {
                let mut best: Option<(u32, u32)> = None;
                for (k, a) in active.iter().enumerate() {
                    let j = jid(k as u32, seq[k]);
                    if *a && h.p.part_of(j).is_some_and(|(_, c)| c == cpu) {
                        let key = (tasks[k].rank, k as u32);
                        if best.is_none_or(|b| key < b) { best = Some(key); }
                    }
                }
                let linked = h.p.linked(CpuId(cpu));
                match best {
                    None => prop_assert_eq!(linked, None),
                    Some((rank, _)) => {
                        let l = linked.map(|j| tasks[j.task.0 as usize].rank);
                        prop_assert_eq!(l, Some(rank), "cpu {}", cpu);
                    }
                }
            }
            for (k, a) in active.iter().enumerate() {
                let j = jid(k as u32, seq[k]);
                if let (true, Some((p, c))) = (*a, h.p.part_of(j)) {
                    let want = split[k].get(p).map_or([0, 2, 0, 2, 1][k], |q| q.cpu);
                    prop_assert_eq!(c, want);
                }
            }
        }
    }
}
