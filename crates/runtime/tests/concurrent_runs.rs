//! `--arch concurrent` (ChronOS application-concurrent [ChronOS §5.6.4]): real short runs on
//! two CPUs of the non-preemptive global policies, and its refusals. Pass/fail depends only
//! on correctness properties, never on timing: every job accounted once, no job on two CPUs,
//! no preemption and no migration inside a job (non-preemptive: a job runs start to end on
//! the CPU that pulled it), no mechanism error (the pull-mode guard never fired). The
//! overheads are printed (`--nocapture`) and reported in docs/runtime.md. Without two CPUs or
//! without permission for SCHED_FIFO the real runs are skipped loudly
//! (`schedlab_testkit::skip`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use schedlab_model::Duration;
use schedlab_runtime::config::{Arch, RtTask, RunConfig};
use schedlab_runtime::{run, RunResult};
use schedlab_trace::{check, Kind};
use std::sync::Mutex;

/// Real runs must not overlap each other (they would compete for the same two CPUs).
static SERIAL: Mutex<()> = Mutex::new(());

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

fn us(x: u64) -> Duration {
    Duration::from_ns(x * 1_000)
}

/// U = 0.6 per CPU with periods 10–50 ms (the reference load of `real_runs.rs`).
fn taskset() -> Vec<RtTask> {
    let t = |c: u64, p: u64| RtTask::new(us(c), ms(p), ms(p));
    vec![
        t(3_000, 10),
        t(4_000, 20),
        t(7_500, 25),
        t(6_000, 30),
        t(8_000, 40),
        t(10_000, 50),
    ]
}

fn config(cpus: Vec<u32>, policy: &str, n: usize, secs: u64) -> RunConfig {
    let arch = Arch::named("concurrent", "ticket").unwrap();
    RunConfig::new(cpus, arch, policy, n, ms(secs * 1000))
}

/// Every released job accounted once: jobs 0..k per task, each completed (start ≤
/// completion, at least its WCET executed) or unfinished at the horizon.
fn every_job_once(r: &RunResult, tasks: &[RtTask]) {
    for (i, t) in tasks.iter().enumerate() {
        let jobs: Vec<_> = r.jobs.iter().filter(|j| j.task == i as u32).collect();
        let expected = r.horizon.as_ns().div_ceil(t.period.as_ns());
        assert_eq!(jobs.len() as u64, expected, "task {i}: released jobs");
        for (k, j) in jobs.iter().enumerate() {
            assert_eq!(j.seq, k as u64, "task {i}: job numbers");
            if let Some(c) = j.completion {
                let s = j.start.expect("a completed job has started");
                assert!(s <= c && j.release <= s, "task {i} job {k}");
                assert!(j.executed >= t.wcet, "task {i} job {k}: {:?}", j.executed);
            }
        }
    }
    let unfinished = r.jobs.iter().filter(|j| j.completion.is_none()).count() as u64;
    assert_eq!(r.totals.completed + unfinished, r.totals.jobs);
}

fn concurrent(test: &str, policy: &str) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tasks = taskset();
    let Some(cpus) = common::machine(test, 2) else {
        return;
    };
    let r = run(&tasks, &config(cpus, policy, tasks.len(), 2)).unwrap();
    assert!(r.real_time, "{:?}", r.warnings);
    common::print_run(&format!("concurrent {policy}"), &r);
    every_job_once(&r, &tasks);
    let par = check::parallel_execution(&r.trace);
    assert!(par.is_empty(), "{par:?}");
    assert!(
        r.warnings.iter().all(|w| !w.contains("mechanism")),
        "the pull-mode guard fired: {:?}",
        r.warnings
    );
    // Non-preemptive: no preemption, and a job runs on the one CPU that pulled it.
    assert_eq!(r.totals.preemptions, 0);
    assert!(r.trace.iter().all(|e| e.kind != Kind::Preempt));
    assert!(r
        .jobs
        .iter()
        .all(|j| j.cpus_used.len() <= 1 && j.migrations == 0));
    // Both CPUs ran jobs: six jobs are released together at time zero on two idle CPUs, so
    // each pulls one at once. (A ring that came before a dispatcher woke at time zero used to
    // be swallowed, and CPU 0 then never ran a job in a whole run.)
    let used: std::collections::BTreeSet<u32> = check::cpus_per_task(&r.trace)
        .into_values()
        .flatten()
        .collect();
    assert_eq!(used.into_iter().collect::<Vec<_>>(), vec![0, 1]);
    // A CPU rings another only to wake it for a job it was linked (never to preempt).
    let rings = r.trace.iter().filter(|e| e.kind == Kind::IpiSend).count();
    eprintln!("  ipi-send {rings} for {} jobs", r.totals.jobs);
}

#[test]
fn concurrent_gfifo_runs_every_job_without_preempting() {
    concurrent(
        "concurrent_gfifo_runs_every_job_without_preempting",
        "gfifo",
    );
}

#[test]
fn concurrent_gnpedf_runs_every_job_without_preempting() {
    concurrent(
        "concurrent_gnpedf_runs_every_job_without_preempting",
        "gnpedf",
    );
}

/// Preemptive policies are refused before anything runs, with the reason and the way out.
#[test]
fn concurrent_refuses_preemptive_policies() {
    let tasks = taskset();
    for policy in ["gedf", "gfp", "edzl"] {
        let c = config(vec![0], policy, tasks.len(), 1);
        let e = run(&tasks, &c).unwrap_err().to_string();
        assert!(
            e.contains("non-preemptive") && e.contains("global-lock") && e.contains(policy),
            "{e}"
        );
    }
}
