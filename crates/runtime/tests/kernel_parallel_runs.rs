//! Parallel (fork-join) tasks under the kernel baselines, for real on two CPUs (1 s each):
//! one kernel thread per thread slot (`arch/kernel/fork_join.rs`). Pass/fail depends only on
//! correctness properties — every job accounted for once, joins respected in the trace (a
//! region's threads start only after every thread of the previous region ended), strands and
//! fork/join events as the simulator numbers them, no strand on two CPUs — never on timing;
//! the numbers are printed (`--nocapture`). A test that cannot run here (not two CPUs, no
//! real-time permission) is skipped loudly.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use schedlab_model::{Duration, ParallelStructure};
use schedlab_policy::Placement;
use schedlab_runtime::config::{Arch, RtTask, RunConfig};
use schedlab_runtime::{mech::sched, run, RunResult};
use schedlab_trace::{check, Event, Kind};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Real runs must not overlap each other.
static SERIAL: Mutex<()> = Mutex::new(());

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

/// τ0: regions [[2], [1, 1, 1], [1]] ms every 20 ms (work 6 ms, three slots; strands 0 | 1 2
/// 3 | 4); τ1: sequential (3, 10) ms. U = 0.3 + 0.3.
fn taskset() -> Vec<RtTask> {
    let p =
        ParallelStructure::from_threads(vec![vec![ms(2)], vec![ms(1); 3], vec![ms(1)]]).unwrap();
    let mut par = RtTask::new(p.work(), ms(20), ms(20));
    par.parallel = Some(p);
    vec![par, RtTask::new(ms(3), ms(10), ms(10))]
}

/// The run's two CPUs, only if they are all this process may use (SCHED_DEADLINE needs the
/// affinity to span the root domain) and real-time scheduling is permitted; else skipped.
fn two_cpus(test: &str) -> Option<Vec<u32>> {
    let all = sched::allowed_cpus().unwrap_or_default();
    if all.len() != 2 {
        let reason = format!(
            "needs exactly 2 CPUs (SCHED_DEADLINE's affinity spans the root domain), this process may use {all:?}"
        );
        schedlab_testkit::skip(test, &reason);
        return None;
    }
    common::machine(test, 2)
}

fn config(cpus: Vec<u32>, name: &str, n: usize) -> RunConfig {
    let arch = Arch::named(name, "ticket").unwrap();
    RunConfig::new(cpus, arch, name, n, ms(1000))
}

/// Every job accounted for once, by task; jobs released 40 ms or more before the horizon
/// completed (a cut job is possible only at the very end of the run); every completed job
/// of τ0 executed at least its work (summed over its threads).
fn every_job_once(r: &RunResult, tasks: &[RtTask]) {
    for (i, t) in tasks.iter().enumerate() {
        let jobs: Vec<_> = r.jobs.iter().filter(|j| j.task == i as u32).collect();
        let expected = r.horizon.as_ns().div_ceil(t.period.as_ns());
        assert_eq!(jobs.len() as u64, expected, "task {i}");
        for (k, j) in jobs.iter().enumerate() {
            assert_eq!(j.seq, k as u64);
            if j.release.as_ns() + 40_000_000 <= r.horizon.as_ns() {
                assert!(j.completion.is_some(), "task {i} job {k} did not complete");
            }
            if let Some(c) = j.completion {
                let s = j.start.unwrap();
                assert!(j.release <= s && s <= c, "task {i} job {k}");
                assert!(j.executed >= t.wcet, "task {i} job {k}: {:?}", j.executed);
            }
        }
    }
}

/// Joins from the trace: for each job of task 0, the strands of region r (offsets 0, 1, 4)
/// switch in only after every strand of region r − 1 switched out for the last time; each
/// completed job has its joins (regions 0, 1, 2), its two forks (3 threads, then 1) and
/// every strand 0..=4 executed. Returns the number of completed jobs checked.
fn joins_respected(trace: &[Event]) -> usize {
    let region = |s: u32| match s {
        0 => 0usize,
        1..=3 => 1,
        _ => 2,
    };
    let mut jobs: BTreeMap<u64, Vec<&Event>> = BTreeMap::new();
    for e in trace.iter().filter(|e| e.task == 0) {
        jobs.entry(e.seq).or_default().push(e);
    }
    let mut checked = 0;
    for (seq, events) in jobs {
        let done = events.iter().any(|e| e.kind == Kind::Complete);
        let mut last_out = [0u64; 3];
        let mut first_in = [u64::MAX; 3];
        for e in &events {
            let r = region(e.strand);
            match e.kind {
                Kind::SwitchIn => first_in[r] = first_in[r].min(e.time),
                Kind::SwitchOut => last_out[r] = last_out[r].max(e.time),
                _ => {}
            }
        }
        for r in 1..3 {
            if first_in[r] != u64::MAX {
                assert!(
                    first_in[r] >= last_out[r - 1],
                    "job {seq}: region {r} started at {} before region {} ended at {}",
                    first_in[r],
                    r - 1,
                    last_out[r - 1]
                );
            }
        }
        if !done {
            continue;
        }
        let args = |k: Kind| -> Vec<(u64, u32)> {
            events
                .iter()
                .filter(|e| e.kind == k)
                .map(|e| (e.arg, e.strand))
                .collect()
        };
        let joins: Vec<u64> = args(Kind::Join).into_iter().map(|(a, _)| a).collect();
        assert_eq!(joins, vec![0, 1, 2], "job {seq}");
        assert_eq!(args(Kind::Fork), vec![(3, 1), (1, 4)], "job {seq}");
        let mut strands: Vec<u32> = events
            .iter()
            .filter(|e| e.kind == Kind::SwitchIn)
            .map(|e| e.strand)
            .collect();
        strands.sort_unstable();
        strands.dedup();
        assert_eq!(strands, vec![0, 1, 2, 3, 4], "job {seq}");
        checked += 1;
    }
    checked
}

fn print(name: &str, r: &RunResult) {
    common::print_run(name, r);
    eprintln!("  context switches {}", r.totals.context_switches);
}

/// The checks every parallel kernel run passes.
fn parallel_run_holds(r: &RunResult, tasks: &[RtTask]) {
    assert!(r.real_time, "{:?}", r.warnings);
    assert_eq!(r.dropped_events, 0);
    every_job_once(r, tasks);
    let overlaps = check::parallel_execution(&r.trace);
    assert!(overlaps.is_empty(), "{overlaps:?}");
    assert!(joins_respected(&r.trace) >= 45);
    // The sequential task's events are strand 0 only.
    assert!(r
        .trace
        .iter()
        .filter(|e| e.task == 1)
        .all(|e| e.strand == 0));
}

#[test]
fn linux_deadline_runs_fork_join_jobs_one_thread_per_slot() {
    let test = "linux_deadline_runs_fork_join_jobs_one_thread_per_slot";
    let Some(cpus) = two_cpus(test) else { return };
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tasks = taskset();
    let r = run(&tasks, &config(cpus, "linux-deadline", tasks.len())).unwrap();
    print("linux-deadline, parallel", &r);
    parallel_run_holds(&r, &tasks);
}

/// Partitioned `linux-fifo`: every slot thread of τ0 on its task's CPU (0), τ1 on CPU 1:
/// the threads of a region run one after the other there, joins hold, nothing migrates.
#[test]
fn linux_fifo_partitioned_runs_a_parallel_task_on_its_cpu() {
    let test = "linux_fifo_partitioned_runs_a_parallel_task_on_its_cpu";
    let Some(cpus) = common::machine(test, 2) else {
        return;
    };
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tasks = taskset();
    let mut c = config(cpus, "linux-fifo", tasks.len());
    c.placement = Some(Placement::new(vec![0, 1], 1));
    let r = run(&tasks, &c).unwrap();
    print("linux-fifo partitioned, parallel", &r);
    parallel_run_holds(&r, &tasks);
    for (task, cpus) in check::cpus_per_task(&r.trace) {
        assert_eq!(
            cpus.into_iter().collect::<Vec<_>>(),
            vec![task],
            "task {task}"
        );
    }
    assert_eq!(r.totals.migrations, 0);
}

/// Three slots of 9 ms every 10 ms reserve 3 × (9 + 0.5) / 10 = 2.85 CPUs: more than the
/// kernel admits on two (0.95 each): the run does not start, and the error names the thread
/// slot refused and the set's reservation.
#[test]
fn linux_deadline_refuses_an_oversubscribed_parallel_set() {
    let test = "linux_deadline_refuses_an_oversubscribed_parallel_set";
    let Some(cpus) = two_cpus(test) else { return };
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let p = ParallelStructure::from_threads(vec![vec![ms(9); 3]]).unwrap();
    let mut par = RtTask::new(p.work(), ms(10), ms(10));
    par.parallel = Some(p);
    let e = run(&[par], &config(cpus, "linux-deadline", 1))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("thread slot") && e.contains("admission control refused"),
        "{e}"
    );
    assert!(e.contains("Σ runtime/period = 2.850"), "{e}");
}

/// Without real-time scheduling in reach nothing here needs privileges: a custom body on a
/// parallel task is refused before any thread starts.
#[test]
fn a_custom_body_on_a_parallel_task_is_refused() {
    let mut tasks = taskset();
    tasks[0].body = schedlab_runtime::config::Body::Custom(std::sync::Arc::new(|_| {}));
    for name in ["linux-deadline", "linux-fifo"] {
        let mut c = config(vec![0], name, tasks.len());
        c.allow_non_rt = true;
        let e = run(&tasks, &c).unwrap_err().to_string();
        assert!(
            e.starts_with("task 0: body is a custom job body"),
            "{name}: {e}"
        );
    }
}
