//! Real runs of split tasks on two CPUs (2 s each): `pfp-ts` under `semi-partitioned` (RTPS's
//! mechanism) and under `global-lock` (the engine budgets of another architecture), `pfp`
//! under `semi-partitioned`. Pass/fail depends only on structure read from the trace — every
//! job of the split task exhausts its head budget on the head CPU and then runs on the tail
//! CPU, parts in order, no job on two CPUs at once, every job accounted for — never on
//! timing; how long each head ran against its budget is printed (`-- --nocapture`) and
//! reported in docs/runtime.md. A test that cannot run here (fewer than two CPUs, no
//! permission for real-time scheduling) is skipped loudly (`schedlab_testkit::skip`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use schedlab_model::{Duration, SplitPart};
use schedlab_policy::Placement;
use schedlab_runtime::config::{Arch, RtTask, RunConfig};
use schedlab_runtime::mech::sched::{self, Class, ClassGuard};
use schedlab_runtime::{run, RunResult};
use schedlab_trace::intervals::intervals;
use schedlab_trace::{check, Kind, Meta, TaskMeta};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Real runs must not overlap each other (they would compete for the same two CPUs).
static SERIAL: Mutex<()> = Mutex::new(());

fn us(x: u64) -> Duration {
    Duration::from_ns(x * 1_000)
}

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

/// The two CPUs of a real run where this machine can run one (two CPUs, permission for
/// SCHED_FIFO); otherwise `test` is skipped loudly and `None`.
fn machine(test: &str) -> Option<Vec<u32>> {
    let allowed = sched::allowed_cpus().unwrap_or_default();
    if allowed.len() < 2 {
        schedlab_testkit::skip(
            test,
            &format!("needs 2 CPUs, this process may use {allowed:?}"),
        );
        return None;
    }
    let rt = std::thread::spawn(|| {
        let _other = ClassGuard::to_other();
        sched::set_class(0, Class::Fifo(1)).is_ok()
    })
    .join()
    .unwrap_or(false);
    if !rt {
        schedlab_testkit::skip(
            test,
            "real-time scheduling (SCHED_FIFO) is not permitted to this process: the run would not be real-time",
        );
        return None;
    }
    Some(allowed[..2].to_vec())
}

/// The split task S (3 ms every 10 ms: a head of 2 ms on CPU 0, a tail of 1 ms on CPU 1),
/// a higher-priority task H on CPU 0 that preempts S's head now and then (0.5 ms every
/// 7 ms), and lower-priority whole tasks on both CPUs that S's parts preempt. Loads: CPU 0
/// 0.07 + 0.2 + 0.1 + 0.1 = 0.47, CPU 1 0.1 + 0.2 + 0.1 = 0.4. Ranks: H 0, S 1, then by
/// index.
struct SplitSet {
    tasks: Vec<RtTask>,
    ranks: Vec<u32>,
    placement: Placement,
}

const S: u32 = 1;
const HEAD_NS: u64 = 2_000_000;

fn split_set() -> SplitSet {
    let t = |c: Duration, p: Duration| RtTask::new(c, p, p);
    let tasks = vec![
        t(us(500), ms(7)), // H, CPU 0
        t(ms(3), ms(10)),  // S, split
        t(ms(2), ms(20)),  // CPU 0
        t(ms(4), ms(40)),  // CPU 0
        t(ms(3), ms(15)),  // CPU 1
        t(ms(5), ms(50)),  // CPU 1
    ];
    let part = |cpu, budget| SplitPart { cpu, budget };
    let mut split = vec![Vec::new(); tasks.len()];
    split[S as usize] = vec![part(0, Duration::from_ns(HEAD_NS)), part(1, ms(1))];
    SplitSet {
        ranks: (0..tasks.len() as u32).collect(),
        placement: Placement::semi(vec![0, 0, 0, 0, 1, 1], split),
        tasks,
    }
}

fn config(test: &str, arch: &str, policy: &str, set: &SplitSet) -> Option<RunConfig> {
    let mut c = RunConfig::new(
        machine(test)?,
        Arch::named(arch, "ticket").unwrap(),
        policy,
        set.tasks.len(),
        ms(2000),
    );
    c.ranks = set.ranks.clone();
    c.placement = Some(set.placement.clone());
    Some(c)
}

fn run_rt(tasks: &[RtTask], c: &RunConfig) -> RunResult {
    let r = run(tasks, c).unwrap();
    assert!(r.real_time, "the run was not real-time: {:?}", r.warnings);
    assert_eq!(r.dropped_events, 0, "{:?}", r.warnings);
    r
}

/// Every released job is accounted for once (jobs 0..k of each task, completed or
/// unfinished at the horizon), and no job executed on two CPUs at once.
fn accounted(r: &RunResult, tasks: &[RtTask]) {
    for (i, t) in tasks.iter().enumerate() {
        let jobs: Vec<_> = r.jobs.iter().filter(|j| j.task == i as u32).collect();
        let expected = r.horizon.as_ns().div_ceil(t.period.as_ns());
        assert_eq!(jobs.len() as u64, expected, "task {i}: released jobs");
        for (k, j) in jobs.iter().enumerate() {
            assert_eq!(j.seq, k as u64, "task {i}: job numbers");
            if j.completion.is_some() {
                assert!(j.executed >= t.wcet, "task {i} job {k}: {:?}", j.executed);
            }
        }
    }
    let par = check::parallel_execution(&r.trace);
    assert!(par.is_empty(), "jobs on two CPUs at once: {par:?}");
}

/// The structure of every completed job of split task `S` [RTPS §IV]: its execution
/// intervals are on the head CPU first, then on the tail CPU, never back; a
/// `budget-exhausted` of the head's budget on the head CPU separates them (after the last
/// head interval, before the first tail interval); its CPUs are exactly the two parts'.
/// Returns, per job, how long the head ran on its CPU (for printing).
fn parts_in_order(r: &RunResult, head: u32, tail: u32) -> Vec<i64> {
    let mut ivs: BTreeMap<u64, Vec<(u64, u64, u32)>> = BTreeMap::new();
    for iv in intervals(&r.trace).into_iter().filter(|iv| iv.task == S) {
        ivs.entry(iv.seq)
            .or_default()
            .push((iv.start, iv.end, iv.cpu));
    }
    let mut exhausted: BTreeMap<u64, Vec<(u64, u32, u64)>> = BTreeMap::new();
    for e in r.trace.iter().filter(|e| e.task == S) {
        if e.kind == Kind::BudgetExhausted {
            exhausted
                .entry(e.seq)
                .or_default()
                .push((e.time, e.cpu, e.arg));
        }
    }
    let mut head_ran = Vec::new();
    let completed: Vec<u64> = r
        .jobs
        .iter()
        .filter(|j| j.task == S && j.completion.is_some())
        .map(|j| j.seq)
        .collect();
    assert!(
        completed.len() >= 150,
        "{} jobs of S completed",
        completed.len()
    );
    for seq in completed {
        let v = ivs.get(&seq).cloned().unwrap_or_default();
        let switch = v.iter().position(|&(_, _, c)| c == tail);
        let Some(k) = switch else {
            panic!("S job {seq} never ran on the tail CPU {tail}: {v:?}");
        };
        assert!(k > 0, "S job {seq} started on the tail CPU: {v:?}");
        assert!(
            v[..k].iter().all(|&(_, _, c)| c == head) && v[k..].iter().all(|&(_, _, c)| c == tail),
            "S job {seq}: parts out of order {v:?}"
        );
        let ex = exhausted.get(&seq).cloned().unwrap_or_default();
        let first = ex.first().copied();
        let Some((t_ex, cpu_ex, amount)) = first else {
            panic!("S job {seq}: no budget-exhausted event");
        };
        assert_eq!((cpu_ex, amount), (head, HEAD_NS), "S job {seq}: {ex:?}");
        let head_end = v[k - 1].1;
        let tail_start = v[k].0;
        assert!(
            head_end <= t_ex && t_ex <= tail_start,
            "S job {seq}: exhaustion at {t_ex} not between the head's end {head_end} and the tail's start {tail_start}"
        );
        let ran: u64 = v[..k].iter().map(|&(a, b, _)| b - a).sum();
        head_ran.push(ran as i64 - HEAD_NS as i64);
    }
    head_ran
}

fn print(name: &str, r: &RunResult, head: &[i64]) {
    let mut d = head.to_vec();
    d.sort_unstable();
    let q = |p: usize| {
        d.get((d.len() * p / 100).min(d.len().saturating_sub(1)))
            .copied()
    };
    eprintln!(
        "{name}: jobs={} misses={} preemptions={} migrations={}; head ran − budget (µs): min {:?} median {:?} p99 {:?} max {:?}",
        r.totals.jobs,
        r.totals.deadline_misses,
        r.totals.preemptions,
        r.totals.migrations,
        d.first().map(|x| *x as f64 / 1e3),
        q(50).map(|x| x as f64 / 1e3),
        q(99).map(|x| x as f64 / 1e3),
        d.last().map(|x| *x as f64 / 1e3),
    );
    for (k, s) in r.overheads.stats() {
        eprintln!(
            "  {k:16} n={:6} median={:7} mean={:9.0} p99={:8} max={:8}",
            s.count, s.median_ns, s.mean_ns, s.p99_ns, s.max_ns
        );
    }
}

/// The metadata a front end writes for this run (the parts of split tasks).
fn meta(set: &SplitSet) -> Meta {
    let mut meta = Meta {
        tasks: set
            .tasks
            .iter()
            .map(|t| TaskMeta {
                name: None,
                deadline_ns: Some(t.deadline.as_ns()),
                split: Vec::new(),
                ..Default::default()
            })
            .collect(),
        ..Meta::default()
    };
    for (i, parts) in set.placement.split.iter().enumerate() {
        meta.set_split(i, parts.iter().map(|p| (p.cpu, p.budget.as_ns())));
    }
    meta
}

fn split_run(test: &str, arch: &str) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let set = split_set();
    let Some(c) = config(test, arch, "pfp-ts", &set) else {
        return;
    };
    let r = run_rt(&set.tasks, &c);
    accounted(&r, &set.tasks);
    let head = parts_in_order(&r, 0, 1);
    print(&format!("pfp-ts under {arch}"), &r, &head);
    // Whole tasks never left their CPU.
    for (task, cpus) in check::cpus_per_task(&r.trace) {
        if task != S {
            let want = set.placement.domain_of_task[task as usize];
            assert_eq!(
                cpus.into_iter().collect::<Vec<_>>(),
                vec![want],
                "task {task}"
            );
        }
    }
    // Parts beyond their budget are printed, not asserted (how far is timing: the timer's
    // wake-up latency, docs/runtime.md).
    let over = check::part_overruns(&meta(&set), &r.trace);
    eprintln!(
        "  part overruns (task, job, CPU, ran, budget): {} of them",
        over.len()
    );
    // Migrations: one per job of S that reached its tail.
    assert!(r.totals.migrations >= 150, "{}", r.totals.migrations);
}

/// [RTPS §IV-A, §IV-B] under RTPS's own architecture: every job of the split task exhausts
/// its head budget on CPU 0 and then runs its tail on CPU 1; the tail CPU releases it
/// (its sleep queue) into the head CPU's migration queue; the RTPS operations are traced.
#[test]
fn semi_partitioned_split_task_migrates_at_its_budget_in_every_job() {
    let test = "semi_partitioned_split_task_migrates_at_its_budget_in_every_job";
    split_run(test, "semi-partitioned");
}

/// Engine budgets are an offer to every policy in every dispatcher architecture: the same
/// split set under `global-lock` (one `pfp-ts` instance behind the lock) migrates the same
/// way.
#[test]
fn global_lock_split_task_migrates_at_its_budget_in_every_job() {
    let test = "global_lock_split_task_migrates_at_its_budget_in_every_job";
    split_run(test, "global-lock");
}

/// Under `semi-partitioned`, every RTPS overhead name has samples (the split task exercises
/// every path), and the operations belong to the CPUs that do them: the tail CPU (1) takes
/// S's releases out of its sleep queue and adds them to the head CPU's queue remotely.
#[test]
fn semi_partitioned_traces_every_rtps_operation() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let set = split_set();
    let test = "semi_partitioned_traces_every_rtps_operation";
    let Some(c) = config(test, "semi-partitioned", "pfp-ts", &set) else {
        return;
    };
    let r = run_rt(&set.tasks, &c);
    let stats = r.overheads.stats();
    for name in schedlab_model::overheads::OverheadName::RTPS.map(|n| n.key()) {
        assert!(stats.contains_key(name), "no `{name}` samples: {stats:?}");
    }
    let op = |kind: Kind, code: schedlab_trace::Op, cpu: u32, task: u32| {
        r.trace
            .iter()
            .filter(|e| e.kind == kind && e.arg == code.code() && e.cpu == cpu && e.task == task)
            .count()
    };
    use schedlab_trace::Op;
    // S's releases: taken from CPU 1's sleep queue, added to CPU 0's ready queue remotely.
    assert!(op(Kind::OpBegin, Op::SleepTake, 1, S) >= 190);
    assert_eq!(op(Kind::OpBegin, Op::SleepTake, 0, S), 0);
    // A remote add per release (CPU 1 → 0) and per migration (CPU 0 → 1).
    assert!(op(Kind::OpEnd, Op::ReadyAddRemote, 1, S) >= 190);
    assert!(op(Kind::OpEnd, Op::ReadyAddRemote, 0, S) >= 150);
    // Whole tasks never go through another CPU's queue.
    for task in [0, 2, 3, 4, 5] {
        assert_eq!(op(Kind::OpBegin, Op::ReadyAddRemote, 0, task), 0);
        assert_eq!(op(Kind::OpBegin, Op::ReadyAddRemote, 1, task), 0);
    }
}

/// `pfp` (no split task) under `semi-partitioned` is partitioned FP: no job migrates, no
/// budget, no remote queue operation.
#[test]
fn semi_partitioned_pfp_never_migrates() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut set = split_set();
    // S whole on CPU 1 (1 ms less: CPU 1 carries 0.2 + 0.2 + 0.1).
    set.tasks[S as usize] = RtTask::new(ms(2), ms(10), ms(10));
    set.placement = Placement::new(vec![0, 1, 0, 0, 1, 1], 1);
    let test = "semi_partitioned_pfp_never_migrates";
    let Some(c) = config(test, "semi-partitioned", "pfp", &set) else {
        return;
    };
    let r = run_rt(&set.tasks, &c);
    accounted(&r, &set.tasks);
    assert_eq!(r.totals.migrations, 0);
    for (task, cpus) in check::cpus_per_task(&r.trace) {
        let want = set.placement.domain_of_task[task as usize];
        assert_eq!(
            cpus.into_iter().collect::<Vec<_>>(),
            vec![want],
            "task {task}"
        );
    }
    assert!(!r
        .trace
        .iter()
        .any(|e| matches!(e.kind, Kind::BudgetExhausted | Kind::BudgetReplenished)));
    let remote = schedlab_trace::Op::ReadyAddRemote.code();
    assert!(!r
        .trace
        .iter()
        .any(|e| e.kind == Kind::OpBegin && e.arg == remote));
}
