//! Hand-derived schedules of the SCHED_DEADLINE model (module doc), each next to what `gedf`
//! decides on the same events: a job kept on its previous CPU, a push, a pull, the threads
//! of a fork.

use super::*;
use crate::global::GlobalJlfp;
use crate::testutil::{info, jid, sid, sinfo, task, Harness};

fn tasks(n: usize) -> Vec<PolicyTask> {
    (0..n).map(|i| task(1, 100, 100, i as u32)).collect()
}

fn sd(n: usize, cpus: u32) -> Harness<Sd> {
    Harness::new(Sd::new(tasks(n), cpus))
}

fn gedf(n: usize, cpus: u32) -> Harness<GlobalJlfp> {
    Harness::new(GlobalJlfp::gedf(tasks(n), cpus))
}

/// The same prefix under both policies, on 2 CPUs: τ0#0 (d = 10) takes CPU 0 and τ2#0
/// (d = 50) CPU 1 at 0; τ0#0 completes at 2 and τ1#0 (d = 100) takes the idle CPU 0 at 2;
/// τ2#0 completes at 3, CPU 1 idles. τ0's thread last ran on CPU 0.
fn prefix<P: Policy>(h: &mut Harness<P>) {
    h.release(0, info(0, 0, 0, 10, 2));
    h.release(0, info(2, 0, 0, 50, 3));
    h.complete(2, jid(0, 0));
    h.release(2, info(1, 0, 2, 100, 50));
    assert_eq!(h.links(), vec![(0, Some(jid(1, 0)))]);
    h.complete(3, jid(2, 0));
    assert_eq!(h.links(), vec![(1, None)]);
}

/// Wake-up on the previous CPU, then a push to an idle CPU: τ0#1 (d = 20) is released at 10
/// while CPU 1 idles. `sd` puts it on CPU 0, where τ0 last ran, preempting τ1#0 (d = 100),
/// which is pushed to the idle CPU 1 (a migration). `gedf` gives τ0#1 the idle CPU 1 and
/// leaves τ1#0 alone.
#[test]
fn a_released_job_preempts_on_its_previous_cpu_and_the_victim_is_pushed() {
    let mut h = sd(3, 2);
    prefix(&mut h);
    h.release(10, info(0, 1, 10, 20, 2));
    assert_eq!(h.links(), vec![(0, Some(jid(0, 1))), (1, Some(jid(1, 0)))]);

    let mut g = gedf(3, 2);
    prefix(&mut g);
    g.release(10, info(0, 1, 10, 20, 2));
    assert_eq!(g.links(), vec![(1, Some(jid(0, 1)))]);
}

/// A push onto the latest-deadline CPU: CPU 0 runs τ0#0 (d = 50), CPU 1 runs τ1#0
/// (d = 100), τ2 last ran on CPU 0. τ2#1 (d = 40) preempts τ0#0 on CPU 0; τ0#0 (50) is
/// earlier than CPU 1's 100, so it is pushed there and τ1#0 waits on CPU 1: two
/// preemptions and a migration. `gedf` preempts τ1#0 (the latest deadline) directly.
#[test]
fn a_push_displaces_the_latest_deadline_job() {
    fn setup<P: Policy>(h: &mut Harness<P>) {
        h.release(0, info(2, 0, 0, 5, 1));
        h.complete(1, jid(2, 0));
        h.release(1, info(0, 0, 1, 50, 20));
        h.release(1, info(1, 0, 1, 100, 20));
        h.release(2, info(2, 1, 2, 40, 5));
    }
    let mut h = sd(3, 2);
    setup(&mut h);
    assert_eq!(h.links(), vec![(0, Some(jid(2, 1))), (1, Some(jid(0, 0)))]);
    // τ1#0 waits on CPU 1's queue: when τ0#0 completes there, CPU 1 takes it back.
    h.complete(20, jid(0, 0));
    assert_eq!(h.links(), vec![(1, Some(jid(1, 0)))]);

    let mut g = gedf(3, 2);
    setup(&mut g);
    assert_eq!(g.links(), vec![(1, Some(jid(2, 1)))]);
}

/// A job that cannot preempt on its previous CPU, with no idle or later CPU, waits there;
/// a CPU that lowers its priority pulls the earliest waiting job of another queue ahead of
/// its own. τ2 last ran on CPU 0, τ3 on CPU 1. At 1, τ0#0 (d = 20) and τ1#0 (d = 30) take
/// CPUs 0 and 1; at 2, τ2#1 (d = 60) waits on CPU 0 and τ3#1 (d = 80) on CPU 1. When τ1#0
/// completes at 3, CPU 1 would run τ3#1 (80) but pulls τ2#1 (60 < 80) from CPU 0; when
/// τ0#0 completes at 4, the idle CPU 0 pulls τ3#1 from CPU 1.
#[test]
fn waiting_on_the_previous_cpu_then_pulls() {
    let mut h = sd(4, 2);
    h.release(0, info(2, 0, 0, 5, 1));
    h.release(0, info(3, 0, 0, 6, 1));
    assert_eq!(
        h.links(),
        vec![(1, Some(jid(3, 0)))],
        "τ3#0 takes the idle CPU 1"
    );
    h.complete(1, jid(2, 0));
    h.complete(1, jid(3, 0));
    h.release(1, info(0, 0, 1, 20, 3));
    h.release(1, info(1, 0, 1, 30, 2));
    h.release(2, info(2, 1, 2, 60, 5));
    assert!(h.links().is_empty(), "τ2#1 waits on CPU 0");
    h.release(2, info(3, 1, 2, 80, 5));
    assert!(h.links().is_empty(), "τ3#1 waits on CPU 1");
    h.complete(3, jid(1, 0));
    assert_eq!(h.links(), vec![(1, Some(jid(2, 1)))]);
    h.complete(4, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(jid(3, 1)))]);
}

/// Threads as jobs with thread slots: τ0#0 (d = 100) runs region 0 on CPU 0 and forks two
/// threads at 2 (strands 1 and 2 = slots 0 and 1). Slot 0 is the master, last on CPU 0, which
/// still runs the joining strand 0 (equal deadline: no preemption), so it goes to the idle
/// CPU 1; slot 1 never ran, so its previous CPU is the forking CPU 0, where it waits and runs
/// once strand 0 completes. Strands never steal.
#[test]
fn forked_threads_wake_as_their_slots() {
    let mut h = sd(1, 2);
    h.release(0, sinfo(0, 0, 0, 0, 100, 2));
    h.fork(
        2,
        0,
        &[sinfo(0, 0, 1, 2, 100, 3), sinfo(0, 0, 2, 2, 100, 3)],
    );
    assert_eq!(h.links(), vec![(1, Some(sid(0, 0, 1)))]);
    assert!(h.out.steals.is_empty());
    h.complete(2, sid(0, 0, 0));
    assert_eq!(h.links(), vec![(0, Some(sid(0, 0, 2)))]);
    // Next job: the master (slot 0) last ran on CPU 1, where region 0 now goes.
    h.complete(5, sid(0, 0, 2));
    h.complete(5, sid(0, 0, 1));
    h.release(100, sinfo(0, 1, 0, 100, 200, 2));
    assert_eq!(h.links(), vec![(1, Some(sid(0, 1, 0)))]);
}

/// Aborting a waiting job changes no link; aborting a running one lets its CPU take the
/// next job of its own queue.
#[test]
fn aborts_leave_the_queues() {
    let mut h = sd(3, 1);
    h.release(0, info(0, 0, 0, 10, 5));
    h.release(0, info(1, 0, 0, 20, 5));
    h.release(0, info(2, 0, 0, 30, 5));
    h.abort(1, jid(1, 0));
    assert!(h.links().is_empty());
    h.abort(2, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(jid(2, 0)))]);
    assert_eq!(h.p.parallel_support(), ParallelSupport::ThreadsAsJobs);
    assert_eq!((h.p.name(), h.p.cpus()), ("sd", 1));
}
