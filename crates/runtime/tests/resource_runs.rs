//! Scheduler-managed mutexes in real runs [ChronOS §3.6] (`schedlab_runtime::locks`, the
//! state's `locks`): blocking, grants, priority inheritance, a deadlock broken by an abort,
//! and a resource never released by a custom body. Each run is bounded (≤ 1 s of run time).
//! Pass/fail depends on the trace's structure (orders of events, who owns what), never on
//! measured durations; the margins of the hand-worked timelines are ≥ 0.5 ms, far above the
//! runtime's reaction times (tens of µs). The lock latencies are printed (`--nocapture`) and
//! reported in docs/runtime.md. Without SCHED_FIFO (or the CPUs) the runs are skipped loudly.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use schedlab_model::extensions::CriticalSection;
use schedlab_model::Duration;
use schedlab_runtime::config::{Arch, Body, RtTask, RunConfig};
use schedlab_runtime::{run, RunResult};
use schedlab_trace::{check, Event, Kind};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

static SERIAL: Mutex<()> = Mutex::new(());

fn us(x: u64) -> Duration {
    Duration::from_ns(x * 1_000)
}

fn cs(resource: u32, start_us: u64, length_us: u64) -> CriticalSection {
    CriticalSection {
        resource,
        start: us(start_us),
        length: us(length_us),
    }
}

fn task(c_us: u64, t_us: u64, offset_us: u64, sections: Vec<CriticalSection>) -> RtTask {
    let mut t = RtTask::new(us(c_us), us(t_us), us(t_us));
    t.offset = us(offset_us);
    t.critical_sections = sections;
    t
}

/// Runs `tasks` for `ms` under `arch`/`policy` on `cpus` CPUs (partitioned: every task on
/// CPU 0 of a one-CPU run).
fn run_set(
    test: &str,
    arch: &str,
    policy: &str,
    tasks: &[RtTask],
    cpus: usize,
    ms: u64,
) -> Option<RunResult> {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cpus = common::machine(test, cpus)?;
    let mut c = RunConfig::new(
        cpus,
        Arch::named(arch, "ticket").unwrap(),
        policy,
        tasks.len(),
        us(ms * 1_000),
    );
    if arch == "partitioned" {
        c.placement = Some(schedlab_policy::Placement::new(vec![0; tasks.len()], 1));
    }
    c.resources = vec!["bus".into(), "disk".into()];
    let r = run(tasks, &c).unwrap();
    assert!(r.real_time, "{:?}", r.warnings);
    Some(r)
}

/// Every job of every task accounted once, none on two CPUs at once, no mechanism error; a
/// completed job of a built-in body executed its whole WCET (it was not cut short by a lock
/// operation).
fn sane(r: &RunResult, tasks: &[RtTask]) {
    for j in r.jobs.iter().filter(|j| j.completion.is_some()) {
        let t = &tasks[j.task as usize];
        if matches!(t.body, Body::Burn) {
            assert!(j.executed >= t.wcet, "{j:?}");
        }
    }
    for (i, t) in tasks.iter().enumerate() {
        let jobs: Vec<_> = r.jobs.iter().filter(|j| j.task == i as u32).collect();
        let h = r.horizon.as_ns();
        let expected = h
            .saturating_sub(t.offset.as_ns())
            .div_ceil(t.period.as_ns());
        assert_eq!(jobs.len() as u64, expected, "task {i}: released jobs");
        for (k, j) in jobs.iter().enumerate() {
            assert_eq!(j.seq, k as u64);
            assert!(!(j.aborted && j.completion.is_some()));
        }
    }
    let par = check::parallel_execution(&r.trace);
    assert!(par.is_empty(), "{par:?}");
    assert!(
        r.warnings.iter().all(|w| !w.contains("mechanism")),
        "{:?}",
        r.warnings
    );
}

/// Per resource, owners from the trace: `lock-acquire` only of a free resource, `lock-release`
/// only by its owner; returns the (acquire, release) times of each (task, seq, resource).
fn owners(trace: &[Event]) -> BTreeMap<(u32, u64, u64), (u64, Option<u64>)> {
    let mut owner: BTreeMap<u64, (u32, u64)> = BTreeMap::new();
    let mut held = BTreeMap::new();
    for e in trace {
        match e.kind {
            Kind::LockAcquire => {
                assert!(
                    owner.insert(e.arg, (e.task, e.seq)).is_none(),
                    "τ{}#{} acquired resource {} while it was held: {:?}",
                    e.task,
                    e.seq,
                    e.arg,
                    owner
                );
                held.insert((e.task, e.seq, e.arg), (e.time, None));
            }
            Kind::LockRelease => {
                assert_eq!(
                    owner.remove(&e.arg),
                    Some((e.task, e.seq)),
                    "release by a non-owner"
                );
                if let Some(h) = held.get_mut(&(e.task, e.seq, e.arg)) {
                    h.1 = Some(e.time);
                }
            }
            _ => {}
        }
    }
    held
}

/// The job that holds `resource` at `t` (acquired at or before, released after), with its
/// release time.
fn owner_at(
    held: &BTreeMap<(u32, u64, u64), (u64, Option<u64>)>,
    resource: u64,
    t: u64,
) -> Option<((u32, u64), u64)> {
    held.iter().find_map(|(&(task, seq, r), &(a, rel))| {
        let rel = rel.unwrap_or(u64::MAX);
        (r == resource && a <= t && t < rel).then_some(((task, seq), rel))
    })
}

/// The times of `kind` events of job (task, seq).
fn times(trace: &[Event], kind: Kind, task: u32, seq: u64) -> Vec<u64> {
    trace
        .iter()
        .filter(|e| e.kind == kind && e.task == task && e.seq == seq)
        .map(|e| e.time)
        .collect()
}

/// The hand-over latency from the trace (docs/runtime.md): the owner's `lock-release` → the
/// granted waiter's `switch-in` (its `resume` is in the release's decision).
fn report(name: &str, r: &RunResult) {
    let mut handover = Vec::new();
    let t = &r.trace;
    for (i, e) in t.iter().enumerate() {
        if e.kind == Kind::LockRelease {
            // The release → the waiter's switch-in (the hand-over to the next owner).
            let next = t[i..]
                .iter()
                .find(|x| x.kind == Kind::Resume && x.arg == e.arg && x.time == e.time);
            if let Some(w) = next {
                if let Some(s) = t[i..]
                    .iter()
                    .find(|x| x.kind == Kind::SwitchIn && x.task == w.task && x.seq == w.seq)
                {
                    handover.push(s.time - e.time);
                }
            }
        }
    }
    handover.sort_unstable();
    let q = |v: &[u64], p: usize| {
        v.get(v.len().saturating_sub(1) * p / 100)
            .copied()
            .unwrap_or(0)
    };
    eprintln!(
        "{name}: jobs={} completed={} aborted={} blocked jobs={} warnings={:?} job_errors={:?}",
        r.totals.jobs,
        r.totals.completed,
        r.totals.aborted,
        r.jobs.iter().filter(|j| j.blocked > Duration::ZERO).count(),
        r.warnings,
        r.job_errors
    );
    eprintln!(
        "  release → the granted waiter's switch-in (ns): n={} median={} p99={} max={}",
        handover.len(),
        q(&handover, 50),
        q(&handover, 99),
        q(&handover, 100)
    );
}

/// G-EDF under `global-lock` on 2 CPUs, by hand (every 20 ms period):
/// τ0 = (C 4 ms, T = D = 20 ms) holds `bus` for its first 3 ms of execution; τ1 = (C 4 ms,
/// T = D = 20 ms, offset 1 ms) needs `bus` for its first 2 ms. At 0 τ0 runs on one CPU and
/// takes `bus`; at 1 ms τ1 starts on the other CPU and requests `bus`: held → it blocks
/// (its CPU idles: nothing else is ready); at 3 ms τ0 releases `bus`, τ1 is granted it
/// (lock-acquire and resume at the release), linked again, and runs to ~7 ms; τ0 completes at
/// 4 ms. Checked from the trace: the owners never overlap; every τ1 job that blocked was
/// blocked by a τ0 job and resumes and acquires `bus` exactly at that job's `lock-release`
/// (which precedes the acquire in the trace). (A τ1 job whose request found `bus` free —
/// the machine delayed τ0 by ≥ 1 ms — does not block; at least one of the 50 periods must
/// show the block.)
#[test]
fn global_lock_gedf_waiter_resumes_after_the_owners_section() {
    let test = "global_lock_gedf_waiter_resumes_after_the_owners_section";
    let tasks = vec![
        task(4_000, 20_000, 0, vec![cs(0, 0, 3_000)]),
        task(4_000, 20_000, 1_000, vec![cs(0, 0, 2_000)]),
    ];
    let Some(r) = run_set(test, "global-lock", "gedf", &tasks, 2, 1_000) else {
        return;
    };
    report("global-lock gedf", &r);
    assert!(r.job_errors.is_empty(), "{:?}", r.job_errors);
    sane(&r, &tasks);
    let held = owners(&r.trace);
    let mut blocked = 0;
    for j in r
        .jobs
        .iter()
        .filter(|j| j.task == 1 && j.completion.is_some())
    {
        let blocks = times(&r.trace, Kind::Block, 1, j.seq);
        let acquire = held.get(&(1, j.seq, 0)).expect("τ1 acquired bus").0;
        let Some(&b) = blocks.first() else {
            continue; // `bus` was free at its request (the owners never overlap: `owners`)
        };
        blocked += 1;
        assert_eq!(blocks.len(), 1);
        // The owner when it blocked: a job of τ0; its release hands `bus` over.
        let ((task, _), rel) = owner_at(&held, 0, b).expect("a blocked job has an owner");
        assert_eq!(task, 0);
        let resumes = times(&r.trace, Kind::Resume, 1, j.seq);
        assert_eq!(
            resumes,
            vec![rel],
            "τ1#{} resumes at the owner's release",
            j.seq
        );
        assert_eq!(
            acquire, rel,
            "τ1#{} acquires bus at the owner's release",
            j.seq
        );
        assert!(j.blocked > Duration::ZERO);
        // The lock-release precedes the waiter's lock-acquire in the trace order too.
        let release_pos = r
            .trace
            .iter()
            .position(|e| e.kind == Kind::LockRelease && e.time == rel && e.arg == 0)
            .unwrap();
        let acquire_pos = r
            .trace
            .iter()
            .position(|e| e.kind == Kind::LockAcquire && e.task == 1 && e.seq == j.seq)
            .unwrap();
        assert!(release_pos < acquire_pos);
    }
    assert!(blocked > 0, "no τ1 job blocked in 50 periods");
}

/// P-FP under `partitioned` on one CPU: priority inheritance by hand (every 20 ms period).
/// Ranks by index: τ0 high = (C 1 ms, offset 2 ms, `bus` for its first 0.5 ms), τ1 medium
/// = (C 4 ms, offset 3 ms, no resource), τ2 low = (C 5 ms, offset 0, `bus` from 1 ms to 4 ms
/// of execution). 0–2 ms τ2 runs (takes `bus` at 1 ms); 2 ms τ0 preempts, requests `bus`,
/// blocks; τ2 inherits τ0's priority and runs on; 3 ms τ1 arrives but does *not* preempt the
/// inheriting τ2; 4 ms τ2 releases `bus` → τ0 granted, runs 4–5 ms; τ1 runs 5–9 ms; τ2 ends
/// 9–10 ms. Without inheritance τ1 would run 3–7 ms while τ0 waits (unbounded priority
/// inversion). Checked from the trace for every τ0 job that blocked (whatever the machine's
/// delays did to the periods): no τ1 job switches in between τ0's `block` and its owner's
/// `lock-release`; and at least once a τ1 job was pending meanwhile.
#[test]
fn partitioned_pfp_priority_inheritance_keeps_the_owner_ahead_of_a_medium_job() {
    let test = "partitioned_pfp_priority_inheritance_keeps_the_owner_ahead_of_a_medium_job";
    let tasks = vec![
        task(1_000, 20_000, 2_000, vec![cs(0, 0, 500)]),
        task(4_000, 20_000, 3_000, vec![]),
        task(5_000, 20_000, 0, vec![cs(0, 1_000, 3_000)]),
    ];
    let Some(r) = run_set(test, "partitioned", "pfp", &tasks, 1, 1_000) else {
        return;
    };
    report("partitioned pfp", &r);
    assert!(r.job_errors.is_empty(), "{:?}", r.job_errors);
    sane(&r, &tasks);
    let held = owners(&r.trace);
    let mut inherited = 0;
    for j in r.jobs.iter().filter(|j| j.task == 0) {
        let Some(&b) = times(&r.trace, Kind::Block, 0, j.seq).first() else {
            continue;
        };
        // While τ0 waits for the owner (a τ2 job: nobody else uses `bus`), the owner inherits
        // τ0's priority: no job of τ1 starts or resumes until the owner's release.
        let ((task, _), rel) = owner_at(&held, 0, b).expect("a blocked job has an owner");
        assert_eq!(task, 2);
        let medium = r
            .trace
            .iter()
            .find(|e| e.kind == Kind::SwitchIn && e.task == 1 && e.time > b && e.time < rel);
        assert!(
            medium.is_none(),
            "τ0#{} blocked at {b} on τ2 (release {rel}), the medium job ran meanwhile: {medium:?}",
            j.seq
        );
        // The case counts only if a τ1 job was ready (released, unfinished) meanwhile.
        let pending = r.jobs.iter().any(|m| {
            m.task == 1 && m.release.as_ns() < rel && m.completion.is_none_or(|c| c.as_ns() > b)
        });
        inherited += u32::from(pending);
    }
    assert!(
        inherited > 0,
        "τ0 never blocked while a τ1 job was pending, in 50 periods"
    );
}

/// P-DASA under `partitioned` on one CPU: a deadlock cycle broken by an abort. τ0 = (C 4 ms,
/// D = T = 50 ms) holds `bus` [0, 3 ms) and requests `disk` at 1 ms ([1, 3 ms)); τ1 = (C 3 ms,
/// D 10 ms, T 50 ms, offset 0.5 ms) holds `disk` [0, 2 ms) and requests `bus` at 1 ms
/// ([1, 2 ms)). By hand: 0 τ0 takes `bus`; 0.5 ms τ1 (earlier deadline: DASA on an
/// underloaded CPU orders as EDF) preempts and takes `disk`; 1.5 ms τ1 requests `bus` →
/// blocks (τ0 runs: the chain τ1 → τ0); 2 ms τ0 requests `disk` → blocks: the cycle
/// τ0 → τ1 → τ0. DASA aborts one job of the cycle; its handler's end releases what it held,
/// the other job is granted and completes. So in every period exactly one of the two jobs is
/// aborted and the other completes, and the run never hangs.
#[test]
fn partitioned_pdasa_breaks_a_deadlock_by_an_abort() {
    let test = "partitioned_pdasa_breaks_a_deadlock_by_an_abort";
    let mut t1 = task(
        3_000,
        50_000,
        500,
        vec![cs(1, 0, 2_000), cs(0, 1_000, 1_000)],
    );
    t1.deadline = us(10_000);
    let tasks = vec![
        task(4_000, 50_000, 0, vec![cs(0, 0, 3_000), cs(1, 1_000, 2_000)]),
        t1,
    ];
    let Some(r) = run_set(test, "partitioned", "pdasa", &tasks, 1, 1_000) else {
        return;
    };
    report("partitioned pdasa", &r);
    assert!(r.job_errors.is_empty(), "{:?}", r.job_errors);
    sane(&r, &tasks);
    owners(&r.trace);
    let mut cycles = 0;
    for seq in 0..20 {
        let j0 = r.jobs.iter().find(|j| j.task == 0 && j.seq == seq).unwrap();
        let j1 = r.jobs.iter().find(|j| j.task == 1 && j.seq == seq).unwrap();
        let both_blocked = !times(&r.trace, Kind::Block, 0, seq).is_empty()
            && !times(&r.trace, Kind::Block, 1, seq).is_empty();
        if !both_blocked {
            continue;
        }
        cycles += 1;
        assert!(
            j0.aborted != j1.aborted,
            "period {seq}: exactly one job of the cycle is aborted: {j0:?} {j1:?}"
        );
        let survivor = if j0.aborted { j1 } else { j0 };
        assert!(survivor.completion.is_some(), "period {seq}: {survivor:?}");
    }
    assert!(cycles > 0, "no deadlock cycle formed in 20 periods");
}

/// A custom body that locks `bus` and returns without unlocking (the guard forgotten): the
/// runtime releases it at the job's end, the run reports "job τ0#k ended holding resource
/// `bus`: a resource never released" for every job, and τ1, which locks and unlocks `bus`
/// properly, still gets it every period (no deadlock of the run).
#[test]
fn a_resource_never_released_by_a_closure_is_an_error_of_the_run() {
    let test = "a_resource_never_released_by_a_closure_is_an_error_of_the_run";
    let spin = |ns: u64| {
        let t = std::time::Instant::now();
        while t.elapsed().as_nanos() < u128::from(ns) {
            std::hint::spin_loop();
        }
    };
    let mut t0 = task(1_000, 20_000, 0, vec![]);
    t0.body = Body::Custom(Arc::new(move |ctx| {
        let g = ctx.lock_named("bus").expect("bus");
        spin(200_000);
        std::mem::forget(g);
    }));
    // τ1 measures its uncontended lock and unlock calls (wall time in the job, ns).
    let lat: Arc<Mutex<Vec<(u64, u64)>>> = Arc::new(Mutex::new(Vec::with_capacity(64)));
    let lat2 = lat.clone();
    let mut t1 = task(1_000, 20_000, 5_000, vec![]);
    t1.body = Body::Custom(Arc::new(move |ctx| {
        let t = std::time::Instant::now();
        let g = ctx.lock(0).expect("bus");
        let l = t.elapsed().as_nanos() as u64;
        spin(200_000);
        let t = std::time::Instant::now();
        g.unlock().expect("unlock");
        let u = t.elapsed().as_nanos() as u64;
        if let Ok(mut v) = lat2.lock() {
            v.push((l, u));
        }
        assert!(ctx.lock_named("nothing").is_err());
    }));
    let tasks = vec![t0, t1];
    let Some(r) = run_set(test, "global-lock", "gedf", &tasks, 2, 200) else {
        return;
    };
    report("global-lock gedf, never released", &r);
    let mut v = lat.lock().unwrap().clone();
    let mut l: Vec<u64> = v.iter().map(|x| x.0).collect();
    v.sort_unstable_by_key(|x| x.1);
    l.sort_unstable();
    let q = |v: &[u64], p: usize| {
        v.get(v.len().saturating_sub(1) * p / 100)
            .copied()
            .unwrap_or(0)
    };
    let u: Vec<u64> = v.iter().map(|x| x.1).collect();
    eprintln!(
        "  uncontended ctx.lock (ns): n={} min={} median={} p99={} max={}; ctx.unlock: min={} median={} max={}",
        l.len(), q(&l, 0), q(&l, 50), q(&l, 99), q(&l, 100), q(&u, 0), q(&u, 50), q(&u, 100)
    );
    sane(&r, &tasks);
    owners(&r.trace);
    let done0 = r
        .jobs
        .iter()
        .filter(|j| j.task == 0 && j.completion.is_some())
        .count();
    assert!(done0 > 0);
    assert_eq!(r.job_errors.len(), done0, "{:?}", r.job_errors);
    assert_eq!(
        r.job_errors[0],
        "job τ0#0 ended holding resource `bus`: a resource never released"
    );
    for j in r
        .jobs
        .iter()
        .filter(|j| j.task == 1 && j.completion.is_some())
    {
        assert!(
            owners(&r.trace).contains_key(&(1, j.seq, 0)),
            "τ1#{} got bus",
            j.seq
        );
    }
}

/// Critical sections under an architecture without scheduler-managed mutexes are refused,
/// naming it; and a resource shared across CPUs under `partitioned`.
#[test]
fn critical_sections_are_refused_where_resources_are_not_managed() {
    let tasks = vec![task(1_000, 10_000, 0, vec![cs(0, 0, 500)])];
    let c = RunConfig::new(
        vec![0, 1],
        Arch::named("concurrent", "ticket").unwrap(),
        "gfifo",
        1,
        us(10_000),
    );
    let e = run(&tasks, &c).unwrap_err().to_string();
    assert!(
        e.contains("--arch concurrent does not manage resources"),
        "{e}"
    );
    let tasks = vec![
        task(1_000, 10_000, 0, vec![cs(0, 0, 500)]),
        task(1_000, 10_000, 0, vec![cs(0, 0, 500)]),
    ];
    let mut c = RunConfig::new(
        vec![0, 1],
        Arch::named("partitioned", "ticket").unwrap(),
        "pfp",
        2,
        us(10_000),
    );
    c.placement = Some(schedlab_policy::Placement::new(vec![0, 1], 1));
    c.allow_non_rt = true;
    let e = run(&tasks, &c).unwrap_err().to_string();
    assert!(e.contains("used by tasks on CPUs 0 and 1"), "{e}");
}
