//! Rules A–F of [RTWS §V] on scripted events (the module doc's rules, one test each).

use super::*;
use crate::event::Steal;
use crate::testutil::{info, jid, sid, sinfo, task, Harness};

fn rtws(n_tasks: usize, cpus: u32) -> Harness<Rtws> {
    let tasks: Vec<_> = (0..n_tasks).map(|i| task(1, 100, 100, i as u32)).collect();
    Harness::new(Rtws::new(tasks, cpus))
}

fn steals(h: &Harness<Rtws>) -> Vec<(JobId, u32)> {
    h.out
        .steals
        .iter()
        .map(|Steal { job, victim }| (*job, victim.0))
        .collect()
}

/// Rules B, C, E: τ0#0 (d = 20) runs on CPU 0 and forks three threads at 2 while CPU 1
/// idles: they go onto CPU 0's deque in strand order and nothing is decided yet; when the
/// joining thread's completion follows in the same instant, CPU 0 pops the bottom (strand 3)
/// and CPU 1 steals the top (strand 1). Strand 2 waits; it is CPU 1's next steal when strand
/// 1 completes.
#[test]
fn fork_then_steal_top_and_pop_bottom() {
    let mut h = rtws(1, 2);
    h.release(0, info(0, 0, 0, 20, 2));
    assert_eq!(h.p.linked(CpuId(0)), Some(jid(0, 0)));
    let forked = [
        sinfo(0, 0, 1, 2, 20, 1),
        sinfo(0, 0, 2, 2, 20, 1),
        sinfo(0, 0, 3, 2, 20, 1),
    ];
    h.fork(2, 0, &forked);
    assert!(h.links().is_empty());
    assert!(steals(&h).is_empty());
    h.complete(2, jid(0, 0));
    assert_eq!(
        h.links(),
        vec![(0, Some(sid(0, 0, 3))), (1, Some(sid(0, 0, 1)))]
    );
    assert_eq!(steals(&h), vec![(sid(0, 0, 1), 0)]);
    h.complete(3, sid(0, 0, 1));
    assert_eq!(h.links(), vec![(1, Some(sid(0, 0, 2)))]);
    assert_eq!(steals(&h), vec![(sid(0, 0, 2), 0)]);
    h.complete(3, sid(0, 0, 3));
    assert_eq!(h.links(), vec![(0, None)]);
}

/// Rules C and F (local): τ0#0 (d = 100) forks two threads on CPU 0 at 1 while τ1 (d = 30)
/// keeps CPU 1; CPU 0 runs strand 2. τ2 (d = 90) preempts it at 2: strand 2 goes back to the
/// bottom of CPU 0's deque, not to the global queue. τ3 (d = 95) and τ4 (d = 96) wait in the
/// global queue. CPU 1 takes τ3 at 4 (empty local queue: Rule D); CPU 0, freed at 5, takes
/// its local strand 2 (Rule C) although τ4 (d = 96 < 100) waits in the global queue.
#[test]
fn local_work_first_and_a_preempted_local_thread_returns_to_its_deque() {
    let mut h = rtws(5, 2);
    h.release(0, info(0, 0, 0, 100, 3));
    h.release(0, info(1, 0, 0, 30, 4));
    h.fork(
        1,
        0,
        &[sinfo(0, 0, 1, 1, 100, 2), sinfo(0, 0, 2, 1, 100, 2)],
    );
    assert!(h.links().is_empty());
    h.complete(1, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 2)))]);
    h.release(2, info(2, 0, 2, 90, 3));
    assert_eq!(h.links(), vec![(0, Some(jid(2, 0)))]);
    h.release(3, info(3, 0, 3, 95, 1));
    h.release(3, info(4, 0, 3, 96, 1));
    assert!(h.links().is_empty());
    h.complete(4, jid(1, 0));
    assert_eq!(h.links(), vec![(1, Some(jid(3, 0)))]);
    h.complete(5, jid(2, 0));
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 2)))]);
    h.complete(5, jid(3, 0));
    // CPU 1: nothing local, τ4 in the global queue (Rule D) before stealing strand 1.
    assert_eq!(h.links(), vec![(1, Some(jid(4, 0)))]);
}

/// Rule F (stolen), and the classes at equal deadlines: three CPUs; τ1 (d = 10) on CPU 1;
/// τ0#0 (d = 50) forks two threads on CPU 0 at 1: at the joining thread's completion CPU 0
/// runs strand 2 and CPU 2 steals strand 1. τ2 (d = 40) at 2 preempts the lowest-priority
/// running entity: of the two threads of deadline 50, the stolen one (strand 1, CPU 2),
/// which has run: it goes to the global queue. τ3 (d = 45) at 3 preempts strand 2, local:
/// back to the bottom of CPU 0's deque. CPU 1, freed at 4, takes strand 1 from the global
/// queue (not a steal); CPU 2, freed at 5, steals strand 2 from CPU 0.
#[test]
fn a_preempted_stolen_thread_goes_to_the_global_queue() {
    let mut h = rtws(4, 3);
    h.release(0, info(0, 0, 0, 50, 1));
    h.release(0, info(1, 0, 0, 10, 4));
    assert_eq!(h.p.linked(CpuId(1)), Some(jid(1, 0)));
    h.fork(1, 0, &[sinfo(0, 0, 1, 1, 50, 5), sinfo(0, 0, 2, 1, 50, 5)]);
    assert!(h.links().is_empty());
    h.complete(1, jid(0, 0));
    assert_eq!(
        h.links(),
        vec![(0, Some(sid(0, 0, 2))), (2, Some(sid(0, 0, 1)))]
    );
    assert_eq!(steals(&h), vec![(sid(0, 0, 1), 0)]);
    h.release(2, info(2, 0, 2, 40, 3));
    assert_eq!(h.links(), vec![(2, Some(jid(2, 0)))]);
    h.release(3, info(3, 0, 3, 45, 5));
    assert_eq!(h.links(), vec![(0, Some(jid(3, 0)))]);
    h.complete(4, jid(1, 0));
    assert_eq!(h.links(), vec![(1, Some(sid(0, 0, 1)))]);
    assert!(
        steals(&h).is_empty(),
        "taken from the global queue, not stolen"
    );
    h.complete(5, jid(2, 0));
    assert_eq!(h.links(), vec![(2, Some(sid(0, 0, 2)))]);
    assert_eq!(steals(&h), vec![(sid(0, 0, 2), 0)]);
}

/// The classes at equal deadlines: a released job preempts a running thread of its own
/// deadline (a thread ranks below a job), but never a job of equal deadline (G-EDF's
/// equal-key rule). Two CPUs: τ0#0 (d = 20) forks one thread at 1 on CPU 0 while τ1 (d = 20)
/// runs on CPU 1; τ2#0 (d = 20) released at 2 preempts the thread (strand 1), which goes back
/// to CPU 0's deque, not τ1.
#[test]
fn a_job_outranks_a_thread_of_equal_deadline_but_not_a_job() {
    let mut h = rtws(3, 2);
    h.release(0, info(0, 0, 0, 20, 1));
    h.release(0, info(1, 0, 0, 20, 9));
    h.fork(1, 0, &[sinfo(0, 0, 1, 1, 20, 5)]);
    h.complete(1, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 1)))]);
    h.release(2, info(2, 0, 2, 20, 3));
    assert_eq!(h.links(), vec![(0, Some(jid(2, 0)))]);
    h.complete(5, jid(2, 0));
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 1)))]);
    assert!(steals(&h).is_empty());
}

/// A steal undone in its own instant: three CPUs, τ0#0 (d = 60) on CPU 0, τ1 (d = 10) on
/// CPU 1, τ2 (d = 20) on CPU 2. τ0#0 forks two threads on CPU 0 at 1 with no CPU idle: CPU 0
/// pops the bottom (strand 2). τ3 (d = 30) at 2 preempts strand 2 (the largest key running):
/// local, back to the bottom of CPU 0's deque. At 3 τ1 completes and CPU 1 steals the top
/// (strand 1); τ4 (d = 40), released in the same instant (completions come first), displaces
/// it — now the largest key running — before it executed: it returns to the top of CPU 0's
/// deque, not to the global queue, and CPU 2, freed at 4, steals it again.
#[test]
fn a_steal_displaced_before_it_ran_goes_back_to_the_victims_top() {
    let mut h = rtws(5, 3);
    h.release(0, info(0, 0, 0, 60, 1));
    h.release(0, info(1, 0, 0, 10, 3));
    h.release(0, info(2, 0, 0, 20, 4));
    assert_eq!(h.p.linked(CpuId(0)), Some(jid(0, 0)));
    assert_eq!(h.p.linked(CpuId(1)), Some(jid(1, 0)));
    assert_eq!(h.p.linked(CpuId(2)), Some(jid(2, 0)));
    h.fork(1, 0, &[sinfo(0, 0, 1, 1, 60, 5), sinfo(0, 0, 2, 1, 60, 5)]);
    h.complete(1, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 2)))]);
    assert!(steals(&h).is_empty());
    h.release(2, info(3, 0, 2, 30, 5));
    assert_eq!(h.links(), vec![(0, Some(jid(3, 0)))]);
    h.complete(3, jid(1, 0));
    assert_eq!(h.links(), vec![(1, Some(sid(0, 0, 1)))]);
    assert_eq!(steals(&h), vec![(sid(0, 0, 1), 0)]);
    h.release(3, info(4, 0, 3, 40, 5));
    assert_eq!(h.links(), vec![(1, Some(jid(4, 0)))]);
    h.complete(4, jid(2, 0));
    assert_eq!(h.links(), vec![(2, Some(sid(0, 0, 1)))]);
    assert_eq!(steals(&h), vec![(sid(0, 0, 1), 0)]);
}

/// Definition 2: the thief takes the top of the victim whose highest-priority deque's top
/// has the earliest deadline; equal deadlines go to the lowest CPU index.
#[test]
fn the_victim_has_the_earliest_top_ties_to_the_lowest_cpu() {
    for (d1, victim) in [(30, 1), (50, 0), (70, 0)] {
        let mut h = rtws(3, 3);
        h.release(0, info(2, 0, 0, 5, 2)); // CPU 0 …
        h.release(0, info(0, 0, 0, 50, 1));
        h.release(0, info(1, 0, 0, d1, 1));
        let (a, b) = (
            h.p.engine.cpu_of(jid(0, 0)).unwrap(),
            h.p.engine.cpu_of(jid(1, 0)).unwrap(),
        );
        let x = h.p.engine.cpu_of(jid(2, 0)).unwrap();
        assert_eq!((x, a, b), (0, 1, 2));
        h.fork(1, a, &[sinfo(0, 0, 1, 1, 50, 3), sinfo(0, 0, 2, 1, 50, 3)]);
        h.complete(1, jid(0, 0));
        h.fork(1, b, &[sinfo(1, 0, 1, 1, d1, 3), sinfo(1, 0, 2, 1, d1, 3)]);
        h.complete(1, jid(1, 0));
        // CPU 0 frees at 2: its local queue and the global queue are empty: it steals.
        h.complete(2, jid(2, 0));
        let want = if victim == 0 {
            sid(0, 0, 1)
        } else {
            sid(1, 0, 1)
        };
        let victim_cpu = if victim == 0 { a } else { b };
        assert_eq!(h.links(), vec![(0, Some(want))], "d1 = {d1}");
        assert_eq!(steals(&h), vec![(want, victim_cpu)], "d1 = {d1}");
    }
}

/// An aborted thread waiting in a local queue is forgotten there (never linked again); an
/// aborted running one frees its CPU, which takes its local work.
#[test]
fn aborts_of_queued_and_running_threads() {
    let mut h = rtws(2, 1);
    h.release(0, info(0, 0, 0, 50, 1));
    h.fork(1, 0, &[sinfo(0, 0, 1, 1, 50, 5), sinfo(0, 0, 2, 1, 50, 5)]);
    h.complete(1, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 2)))]);
    h.abort(2, sid(0, 0, 1));
    assert!(h.links().is_empty());
    h.abort(2, sid(0, 0, 2));
    assert_eq!(h.links(), vec![(0, None)]);
    h.release(3, info(1, 0, 3, 60, 1));
    assert_eq!(h.links(), vec![(0, Some(jid(1, 0)))]);
}
