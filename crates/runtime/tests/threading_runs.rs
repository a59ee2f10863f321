//! Thread-per-job runs [ChronOS §3.3] (`RunConfig::threading = PerJob`): real short runs on
//! two CPUs under every user-space architecture that takes it. Pass/fail depends only on
//! correctness, never on timing: every job accounted once, no job on two CPUs, no switch-in
//! on another CPU than the dispatched one (the hand-over re-pins the incoming thread), and
//! the model itself — each job of a task ran on another thread than its previous job, the
//! task's jobs alternating over its pool's threads — seen from inside the job bodies. The
//! overheads are printed (`--nocapture`); the comparison with thread-per-task is in
//! docs/runtime.md. Without two CPUs or without permission for SCHED_FIFO the runs are
//! skipped loudly (`schedlab_testkit::skip`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_runtime::config::{Arch, Body, RtTask, RunConfig, Threading};
use schedlab_runtime::job::POOL_THREADS;
use schedlab_runtime::mech::burn::burn;
use schedlab_runtime::mech::sched;
use schedlab_runtime::run;
use schedlab_trace::check;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

/// Real runs must not overlap each other (they would compete for the same two CPUs).
static SERIAL: Mutex<()> = Mutex::new(());

/// Job slots per task in the thread-id table (more than a 1 s run releases).
const SLOTS: usize = 512;

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

fn us(x: u64) -> Duration {
    Duration::from_ns(x * 1_000)
}

/// Task `i` burns `wcet` of CPU time per job, after writing the id of the thread it runs on
/// into `tids[i * SLOTS + seq]`.
fn recording(wcet: Duration, period: Duration, tids: &Arc<Vec<AtomicI32>>) -> RtTask {
    let mut t = RtTask::new(wcet, period, period);
    let tids = tids.clone();
    let cpu_ns = wcet.as_ns();
    t.body = Body::Custom(Arc::new(move |ctx| {
        let slot = ctx.task as usize * SLOTS + ctx.seq as usize;
        if let Some(s) = tids.get(slot) {
            s.store(sched::gettid(), Ordering::Relaxed);
        }
        burn(cpu_ns, None, || ctx.stop_requested());
    }));
    t
}

/// U = (0.4 + 0.3 + 0.3 + 0.2) / `stretch` (periods × `stretch`): 1.2 over two CPUs at 1,
/// 0.6 for the one client CPU of message-passing at 2.
fn taskset(tids: &Arc<Vec<AtomicI32>>, stretch: u64) -> Vec<RtTask> {
    [(2_000, 5), (3_000, 10), (6_000, 20), (5_000, 25)]
        .into_iter()
        .map(|(c, p)| recording(us(c), ms(p * stretch), tids))
        .collect()
}

/// The thread-id table of every job of task `i` that ran (0: never started).
fn threads_of(tids: &[AtomicI32], i: usize, jobs: usize) -> Vec<i32> {
    (0..jobs.min(SLOTS))
        .map(|k| tids[i * SLOTS + k].load(Ordering::Relaxed))
        .collect()
}

/// One per-job run of `policy` under `arch` (`placement`: task → CPU) and its checks.
fn per_job(test: &str, arch: &str, policy: &str, placement: Option<Vec<u32>>) {
    let stretch = if arch == "message-passing" { 2 } else { 1 };
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(cpus) = common::machine(test, 2) else {
        return;
    };
    let tids: Arc<Vec<AtomicI32>> = Arc::new((0..4 * SLOTS).map(|_| AtomicI32::new(0)).collect());
    let tasks = taskset(&tids, stretch);
    let arch = Arch::named(arch, "ticket").unwrap();
    let mut config = RunConfig::new(cpus, arch, policy, tasks.len(), ms(1000));
    config.threading = Threading::PerJob;
    config.placement = placement.map(|p| Placement::new(p, 1));
    let r = run(&tasks, &config).unwrap();
    assert!(r.real_time, "{:?}", r.warnings);
    common::print_run(&format!("{} {policy} per-job", config.arch.name()), &r);
    // No warning at all: in particular no misplaced switch-in and no mechanism error.
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let par = check::parallel_execution(&r.trace);
    assert!(par.is_empty(), "{par:?}");
    for (i, t) in tasks.iter().enumerate() {
        let jobs: Vec<_> = r.jobs.iter().filter(|j| j.task == i as u32).collect();
        let expected = r.horizon.as_ns().div_ceil(t.period.as_ns());
        assert_eq!(jobs.len() as u64, expected, "task {i}: released jobs");
        for (k, j) in jobs.iter().enumerate() {
            assert_eq!(j.seq, k as u64, "task {i}: job numbers");
        }
        // The model: consecutive jobs that ran are on different threads, and the task's
        // jobs used exactly its pool's threads.
        let ran: Vec<i32> = threads_of(&tids, i, jobs.len())
            .into_iter()
            .filter(|&tid| tid != 0)
            .collect();
        assert!(ran.len() >= 4, "task {i}: only {} jobs ran", ran.len());
        assert!(
            ran.windows(2).all(|w| w[0] != w[1]),
            "task {i}: two consecutive jobs on one thread: {ran:?}"
        );
        let distinct: BTreeSet<i32> = ran.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            POOL_THREADS as usize,
            "task {i}: {distinct:?}"
        );
    }
    // The pools are the tasks' own: no thread ran jobs of two tasks.
    let mut owner = std::collections::HashMap::new();
    for i in 0..tasks.len() {
        for tid in threads_of(&tids, i, SLOTS) {
            if tid != 0 {
                assert_eq!(*owner.entry(tid).or_insert(i), i, "thread {tid}");
            }
        }
    }
}

#[test]
fn per_job_threads_alternate_under_global_lock() {
    per_job(
        "per_job_threads_alternate_under_global_lock",
        "global-lock",
        "gedf",
        None,
    );
}

#[test]
fn per_job_threads_alternate_under_partitioned() {
    per_job(
        "per_job_threads_alternate_under_partitioned",
        "partitioned",
        "pedf",
        Some(vec![0, 1, 1, 0]),
    );
}

#[test]
fn per_job_threads_alternate_under_message_passing() {
    // One client CPU: the set at half the load (`taskset`).
    per_job(
        "per_job_threads_alternate_under_message_passing",
        "message-passing",
        "gedf",
        None,
    );
}

#[test]
fn per_job_threads_alternate_under_concurrent() {
    per_job(
        "per_job_threads_alternate_under_concurrent",
        "concurrent",
        "gnpedf",
        None,
    );
}
