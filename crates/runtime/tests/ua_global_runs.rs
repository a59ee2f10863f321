//! The global utility-accrual policies and C-EDF under the runtime's global architectures
//! [ChronOS §5.6, §6.7–6.10, §6.16] (issue 13, "Runtime": UA policies under `global-lock`
//! and `message-passing`; C-EDF under every global architecture, `--cluster-size`).
//!
//! Real runs on two CPUs (message-passing: the DSP on the first, one client) of an overloaded
//! set with utilities. Pass/fail depends only on structure, never on timing: the run
//! completes under SCHED_FIFO, every released job is accounted once, no job executes on two
//! CPUs at once, jobs are aborted (the set is overloaded: U = 3.6 on 2 CPUs, so the policies'
//! past-deadline aborts — or `abort_late` for C-EDF — must fire), the AUR is reported and
//! within [0, 1], no job runs on the DSP, and a C-EDF job runs only on its cluster's CPUs.
//! The counts are printed (`--nocapture`). Without two CPUs or without SCHED_FIFO the runs
//! are skipped loudly (`schedlab_testkit::skip`). `concurrent` is not among the global
//! architectures here: it runs only the non-preemptive policies (its own tests).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_runtime::config::{Arch, RtTask, RunConfig};
use schedlab_runtime::{run, RunResult};
use schedlab_trace::check;
use std::sync::Mutex;

/// Real runs must not overlap each other (they would compete for the same two CPUs).
static SERIAL: Mutex<()> = Mutex::new(());

fn us(x: u64) -> Duration {
    Duration::from_ns(x * 1_000)
}

/// Six tasks, C 3 ms, D = T 5 ms (U = 3.6, 1.8 per CPU; 3.6 on message-passing's one
/// client), utilities 1…6 by task index reversed, abort handlers of 200 µs. Released
/// together every 5 ms: at most two (one) of the six can complete per period, so every
/// period leaves jobs unfinished at their deadline — the aborts the module doc asks for.
fn taskset() -> Vec<RtTask> {
    (0..6)
        .map(|i| {
            let mut t = RtTask::new(us(3_000), us(5_000), us(5_000));
            t.utility = Some(f64::from(6 - i));
            t.abort_cost = us(200);
            t
        })
        .collect()
}

/// Every released job accounted once (jobs 0..k of each task, none both aborted and
/// completed, an aborted job accrues nothing).
fn every_job_once(r: &RunResult, tasks: &[RtTask]) {
    for (i, t) in tasks.iter().enumerate() {
        let jobs: Vec<_> = r.jobs.iter().filter(|j| j.task == i as u32).collect();
        let expected = r.horizon.as_ns().div_ceil(t.period.as_ns());
        assert_eq!(jobs.len() as u64, expected, "task {i}: released jobs");
        for (k, j) in jobs.iter().enumerate() {
            assert_eq!(j.seq, k as u64, "task {i}: job numbers");
            assert!(!(j.aborted && j.completion.is_some()), "task {i} job {k}");
            if j.aborted {
                assert_eq!(j.utility, 0.0, "task {i} job {k}: aborted, yet accrued");
            }
        }
    }
}

/// One run of 1 s: the structural checks of the module doc; returns the result.
fn checked_run(
    test: &str,
    arch: &str,
    policy: &str,
    placement: Option<Placement>,
    abort_late: bool,
) -> Option<RunResult> {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cpus = common::machine(test, 2)?;
    let tasks = taskset();
    let mut c = RunConfig::new(
        cpus,
        Arch::named(arch, "ticket").unwrap(),
        policy,
        tasks.len(),
        Duration::from_ns(1_000_000_000),
    );
    c.placement = placement;
    c.abort_late = abort_late;
    let r = run(&tasks, &c).unwrap_or_else(|e| panic!("{arch} {policy}: {e}"));
    assert!(r.real_time, "{:?}", r.warnings);
    every_job_once(&r, &tasks);
    let par = check::parallel_execution(&r.trace);
    assert!(
        par.is_empty(),
        "{arch} {policy}: a job on two CPUs: {par:?}"
    );
    assert!(
        r.warnings.iter().all(|w| !w.contains("mechanism")),
        "{:?}",
        r.warnings
    );
    if arch == "message-passing" {
        assert!(
            r.jobs.iter().all(|j| !j.cpus_used.contains(&0)),
            "a job ran on the DSP"
        );
    }
    assert!(
        r.totals.aborted > 0,
        "{arch} {policy}: overloaded, no abort"
    );
    let aur = r.totals.aur.expect("AUR reported");
    assert!((0.0..=1.0).contains(&aur), "{arch} {policy}: AUR {aur}");
    eprintln!(
        "{arch} {policy}: jobs={} completed={} aborted={} misses={} aur={aur:.3} policy_cost={:?} warnings={:?}",
        r.totals.jobs,
        r.totals.completed,
        r.totals.aborted,
        r.totals.deadline_misses,
        r.policy_cost.map(|s| (s.median_ns, s.max_ns)),
        r.warnings
    );
    Some(r)
}

/// gMUA, NG-GUA, G-GUA and G-HVDF under `global-lock` and `message-passing`: each policy's
/// own past-deadline aborts (no `abort_late`) keep the overloaded set running.
#[test]
fn global_ua_policies_run_under_global_lock_and_message_passing() {
    let test = "global_ua_policies_run_under_global_lock_and_message_passing";
    for arch in ["global-lock", "message-passing"] {
        for policy in ["gmua", "nggua", "ggua", "ghvdf"] {
            if checked_run(test, arch, policy, None, false).is_none() {
                return;
            }
        }
    }
}

/// C-EDF under `global-lock` with clusters of 1 and 2 CPUs, and under `message-passing` with
/// clusters of 1 (its one client CPU: a cluster of 2 does not fit, and is refused). The late
/// jobs are aborted by the engine (`abort_late`); each job runs only in its task's cluster.
#[test]
fn cedf_runs_under_every_global_architecture() {
    let test = "cedf_runs_under_every_global_architecture";
    // (arch, cluster size, cluster of each task)
    let cases: [(&str, u32, Vec<u32>); 3] = [
        ("global-lock", 1, vec![0, 1, 0, 1, 0, 1]),
        ("global-lock", 2, vec![0; 6]),
        ("message-passing", 1, vec![0; 6]),
    ];
    for (arch, k, clusters) in cases {
        let placement = Placement::new(clusters.clone(), k);
        let Some(r) = checked_run(test, arch, "cedf", Some(placement), true) else {
            return;
        };
        let cpus = common::machine(test, 2).unwrap();
        // Logical CPUs of the policy are the job CPUs (message-passing: all but the DSP).
        let job_cpus: &[u32] = if arch == "message-passing" {
            &cpus[1..]
        } else {
            &cpus
        };
        for j in &r.jobs {
            let d = clusters[j.task as usize] as usize;
            let mine = &job_cpus[d * k as usize..(d + 1) * k as usize];
            assert!(
                j.cpus_used.iter().all(|c| mine.contains(c)),
                "{arch} k={k}: task {} ran on {:?}, its cluster is {mine:?}",
                j.task,
                j.cpus_used
            );
        }
    }
}

/// A cluster larger than the CPUs that run jobs is refused with an error, not a panic
/// (message-passing on 2 CPUs has one client CPU).
#[test]
fn cedf_cluster_larger_than_the_job_cpus_is_refused() {
    let tasks = taskset();
    let arch = Arch::named("message-passing", "ticket").unwrap();
    let mut c = RunConfig::new(vec![0, 1], arch, "cedf", tasks.len(), us(1_000));
    c.placement = Some(Placement::new(vec![0; 6], 2));
    let e = run(&tasks, &c).unwrap_err().to_string();
    assert!(!e.is_empty());
    eprintln!("refused: {e}");
}
