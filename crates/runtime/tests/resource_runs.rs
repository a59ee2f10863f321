//! Scheduler-managed mutexes in real runs [ChronOS §3.6] (`schedlab_runtime::locks`, the
//! state's `locks`, and under `message-passing` `schedlab_runtime::mp::lock`): blocking,
//! grants, priority inheritance, a deadlock broken by an abort, and a resource never released
//! by a custom body — each under `global-lock` or `partitioned` and under `message-passing`
//! (on two CPUs the DSP and one client; the test on two clients needs three CPUs). Each run
//! is bounded (≤ 1 s of run time).
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
    run_tweaked(test, arch, policy, tasks, cpus, ms, |_| {})
}

/// [`run_set`] with the configuration changed by `tweak` first.
fn run_tweaked(
    test: &str,
    arch: &str,
    policy: &str,
    tasks: &[RtTask],
    cpus: usize,
    ms: u64,
    tweak: impl FnOnce(&mut RunConfig),
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
    tweak(&mut c);
    let r = run(tasks, &c).unwrap();
    assert!(r.real_time, "{:?}", r.warnings);
    if arch == "message-passing" {
        assert!(
            r.jobs.iter().all(|j| !j.cpus_used.contains(&0)),
            "a job ran on the DSP"
        );
    }
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

/// G-EDF on two job CPUs, by hand (every 20 ms period):
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
fn gedf_waiter_resumes_after_the_owners_section(test: &str, arch: &str, cpus: usize) {
    let tasks = vec![
        task(4_000, 20_000, 0, vec![cs(0, 0, 3_000)]),
        task(4_000, 20_000, 1_000, vec![cs(0, 0, 2_000)]),
    ];
    let Some(r) = run_set(test, arch, "gedf", &tasks, cpus, 1_000) else {
        return;
    };
    report(&format!("{arch} gedf"), &r);
    assert!(r.job_errors.is_empty(), "{:?}", r.job_errors);
    sane(&r, &tasks);
    let held = owners(&r.trace);
    let mut blocked = 0;
    for j in r
        .jobs
        .iter()
        .filter(|j| j.task == 1 && j.completion.is_some())
    {
        if let Some(b) = blocked_by_its_owner(&r, &held, 1, j.seq, 0) {
            assert_eq!(b, 0, "τ1 waits for τ0");
            assert!(j.blocked > Duration::ZERO);
            blocked += 1;
        }
    }
    assert!(blocked > 0, "no τ1 job blocked in 50 periods");
}

/// If job (task, seq) blocked (once) on `resource`: checks that it acquires the resource
/// and resumes exactly at the `lock-release` of the job that held it when it blocked, which
/// precedes the acquire in the trace; returns that owner's task. `None` if it never blocked
/// (it must then have acquired the resource free).
fn blocked_by_its_owner(
    r: &RunResult,
    held: &BTreeMap<(u32, u64, u64), (u64, Option<u64>)>,
    task: u32,
    seq: u64,
    resource: u64,
) -> Option<u32> {
    let acquire = held
        .get(&(task, seq, resource))
        .unwrap_or_else(|| panic!("τ{task}#{seq} acquired resource {resource}"))
        .0;
    let blocks = times(&r.trace, Kind::Block, task, seq);
    let &b = blocks.first()?;
    assert_eq!(blocks.len(), 1);
    // The owner when it blocked; its release hands the resource over.
    let ((owner, _), rel) = owner_at(held, resource, b).expect("a blocked job has an owner");
    let resumes = times(&r.trace, Kind::Resume, task, seq);
    assert_eq!(
        resumes,
        vec![rel],
        "τ{task}#{seq} resumes at the owner's release"
    );
    assert_eq!(
        acquire, rel,
        "τ{task}#{seq} acquires the resource at the owner's release"
    );
    // The lock-release precedes the waiter's lock-acquire in the trace order too.
    let release_pos = r
        .trace
        .iter()
        .position(|e| e.kind == Kind::LockRelease && e.time == rel && e.arg == resource)
        .unwrap();
    let acquire_pos = r
        .trace
        .iter()
        .position(|e| e.kind == Kind::LockAcquire && e.task == task && e.seq == seq)
        .unwrap();
    assert!(release_pos < acquire_pos);
    Some(owner)
}

#[test]
fn global_lock_gedf_waiter_resumes_after_the_owners_section() {
    gedf_waiter_resumes_after_the_owners_section(
        "global_lock_gedf_waiter_resumes_after_the_owners_section",
        "global-lock",
        2,
    );
}

/// The same under `message-passing` on three CPUs: the DSP and two clients (the lock
/// operations are messages to the DSP, `schedlab_runtime::mp::lock`).
#[test]
fn message_passing_gedf_waiter_resumes_after_the_owners_section() {
    gedf_waiter_resumes_after_the_owners_section(
        "message_passing_gedf_waiter_resumes_after_the_owners_section",
        "message-passing",
        3,
    );
}

/// G-EDF on *one* job CPU — `message-passing` on two CPUs (the DSP and one client) and
/// `global-lock` with its dedicated interrupt CPU (CPU 0 takes the releases, CPU 1 runs the
/// jobs: the same shape) — blocking and priority inheritance by hand (every 20 ms period):
/// τ0 = (C 4 ms, D = T = 20 ms) holds `bus` for its first 3 ms of execution; τ1 = (C 2 ms,
/// D 10 ms, offset 1 ms) needs `bus` for its first 1 ms; τ2 = (C 2 ms, D 12 ms, offset 2 ms)
/// uses no resource. 0–1 ms τ0 runs and takes `bus`; 1 ms τ1 (deadline 11 ms) preempts it,
/// requests `bus` and blocks; τ0 inherits deadline 11 ms and runs on; 2 ms τ2 (deadline
/// 14 ms) arrives and does *not* preempt the inheriting τ0; ~3 ms τ0 releases `bus` → τ1
/// granted, preempts τ0, runs to ~5 ms; τ2 runs to ~7 ms; τ0 ends at ~8 ms. Without
/// inheritance τ2 would run at 2 ms while τ1 waits. Checked from the trace as the other
/// tests: owners never overlap; every τ1 job that blocked was blocked by a τ0 job and
/// resumes and acquires `bus` at that job's release; no τ2 job switches in between τ1's
/// `block` and the owner's `lock-release`; at least once a τ2 job was pending meanwhile. The
/// two architectures must agree on these structures (the same semantics); `message-passing`
/// is run twice, the second time without DSP polling and inline completions.
#[test]
fn gedf_blocking_and_inheritance_on_one_job_cpu_under_message_passing_and_global_lock() {
    let test = "gedf_blocking_and_inheritance_on_one_job_cpu_under_message_passing_and_global_lock";
    let mut t1 = task(2_000, 20_000, 1_000, vec![cs(0, 0, 1_000)]);
    t1.deadline = us(10_000);
    let mut t2 = task(2_000, 20_000, 2_000, vec![]);
    t2.deadline = us(12_000);
    let tasks = vec![task(4_000, 20_000, 0, vec![cs(0, 0, 3_000)]), t1, t2];
    // message-passing also without DSP polling and inline completions (its dispatcher then
    // takes every notification, and defers those that find a lock operation under way).
    for (arch, plain) in [
        ("message-passing", false),
        ("message-passing", true),
        ("global-lock", false),
    ] {
        let di = arch == "global-lock";
        let Some(r) = run_tweaked(test, arch, "gedf", &tasks, 2, 1_000, |c| {
            c.dedicated_irq_cpu = di;
            c.dsp_poll = !plain;
            c.inline_completion = !plain;
        }) else {
            return;
        };
        let arch = if plain {
            "message-passing --no-dsp-poll --no-inline-completion"
        } else {
            arch
        };
        report(&format!("{arch} gedf, one job CPU"), &r);
        assert!(r.job_errors.is_empty(), "{arch}: {:?}", r.job_errors);
        sane(&r, &tasks);
        let held = owners(&r.trace);
        let (mut blocked, mut inherited) = (0, 0);
        for j in r.jobs.iter().filter(|j| j.task == 1) {
            if j.completion.is_none() {
                continue;
            }
            let Some(owner) = blocked_by_its_owner(&r, &held, 1, j.seq, 0) else {
                continue;
            };
            assert_eq!(owner, 0, "{arch}: τ1 waits for τ0");
            blocked += 1;
            let b = times(&r.trace, Kind::Block, 1, j.seq)[0];
            let ((_, _), rel) = owner_at(&held, 0, b).unwrap();
            let medium = r
                .trace
                .iter()
                .find(|e| e.kind == Kind::SwitchIn && e.task == 2 && e.time > b && e.time < rel);
            assert!(
                medium.is_none(),
                "{arch}: τ1#{} blocked at {b} on τ0 (release {rel}), the medium job ran meanwhile: {medium:?}",
                j.seq
            );
            let pending = r.jobs.iter().any(|m| {
                m.task == 2 && m.release.as_ns() < rel && m.completion.is_none_or(|c| c.as_ns() > b)
            });
            inherited += u32::from(pending);
        }
        assert!(blocked > 0, "{arch}: no τ1 job blocked in 50 periods");
        assert!(
            inherited > 0,
            "{arch}: τ1 never blocked while a τ2 job was pending, in 50 periods"
        );
    }
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

/// A deadlock cycle broken by an abort, on one job CPU (P-DASA under `partitioned` on one
/// CPU; NG-GUA under `message-passing` on two CPUs: the DSP and one client). τ0 = (C 4 ms,
/// D = T = 50 ms) holds `bus` [0, 3 ms) and requests `disk` at 1 ms ([1, 3 ms)); τ1 = (C 3 ms,
/// D 10 ms, T 50 ms, offset 0.5 ms) holds `disk` [0, 2 ms) and requests `bus` at 1 ms
/// ([1, 2 ms)). By hand: 0 τ0 takes `bus`; 0.5 ms τ1 (earlier deadline: both policies order
/// as EDF on an underloaded CPU) preempts and takes `disk`; 1.5 ms τ1 requests `bus` →
/// blocks (τ0 runs: the chain τ1 → τ0); 2 ms τ0 requests `disk` → blocks: the cycle
/// τ0 → τ1 → τ0. The policy aborts one job of the cycle; its handler's end releases what it
/// held, the other job is granted and completes. So in every period exactly one of the two
/// jobs is aborted and the other completes, and the run never hangs.
fn deadlock_is_broken_by_an_abort(test: &str, arch: &str, policy: &str) {
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
    let cpus = if arch == "message-passing" { 2 } else { 1 };
    let Some(r) = run_set(test, arch, policy, &tasks, cpus, 1_000) else {
        return;
    };
    report(&format!("{arch} {policy}"), &r);
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
            "{arch} {policy}, period {seq}: exactly one job of the cycle is aborted: {j0:?} {j1:?}"
        );
        let survivor = if j0.aborted { j1 } else { j0 };
        assert!(
            survivor.completion.is_some(),
            "{arch} {policy}, period {seq}: {survivor:?}"
        );
    }
    assert!(
        cycles > 0,
        "{arch} {policy}: no deadlock cycle formed in 20 periods"
    );
}

#[test]
fn partitioned_pdasa_breaks_a_deadlock_by_an_abort() {
    deadlock_is_broken_by_an_abort(
        "partitioned_pdasa_breaks_a_deadlock_by_an_abort",
        "partitioned",
        "pdasa",
    );
}

/// The dependency-aware global UA policy under `message-passing`: the DSP's state follows
/// the chains (`Ctx::resources`) and aborts a job of the cycle; the aborted waiter is made
/// runnable for its handler on its client.
#[test]
fn message_passing_nggua_breaks_a_deadlock_by_an_abort() {
    deadlock_is_broken_by_an_abort(
        "message_passing_nggua_breaks_a_deadlock_by_an_abort",
        "message-passing",
        "nggua",
    );
}

/// The `p`-th percentile (nearest rank) of sorted `v` (0 if empty).
fn q(v: &[u64], p: usize) -> u64 {
    v.get(v.len().saturating_sub(1) * p / 100)
        .copied()
        .unwrap_or(0)
}

/// Busy-waits `ns` of wall time (a custom body's work).
fn spin(ns: u64) {
    let t = std::time::Instant::now();
    while t.elapsed().as_nanos() < u128::from(ns) {
        std::hint::spin_loop();
    }
}

/// A custom body that locks `bus` and returns without unlocking (the guard forgotten): the
/// runtime releases it at the job's end, the run reports "job τ0#k ended holding resource
/// `bus`: a resource never released" for every job, and τ1, which locks and unlocks `bus`
/// properly, still gets it every period (no deadlock of the run). τ1 also asks for an
/// unknown resource id (refused: unknown) and unlocks `disk`, which it does not hold
/// (refused: misuse) — answers of the scheduling state, through the architecture's road to
/// it (under `message-passing`, the DSP).
fn a_resource_never_released_by_a_closure(test: &str, arch: &str) {
    let mut t0 = task(1_000, 20_000, 0, vec![]);
    t0.body = Body::Custom(Arc::new(move |ctx| {
        let g = ctx.lock_named("bus").expect("bus");
        spin(200_000);
        std::mem::forget(g);
    }));
    // τ1 measures its uncontended lock and unlock calls (wall time in the job, ns).
    let lat: Arc<Mutex<Vec<(u64, u64)>>> = Arc::new(Mutex::new(Vec::with_capacity(64)));
    let refusals: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let (lat2, refusals2) = (lat.clone(), refusals.clone());
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
        if let Ok(mut v) = refusals2.lock() {
            v.push(format!("{:?}", ctx.lock(99).err()));
            v.push(format!("{:?}", ctx.unlock(1).err()));
        }
    }));
    let tasks = vec![t0, t1];
    let Some(r) = run_set(test, arch, "gedf", &tasks, 2, 200) else {
        return;
    };
    report(&format!("{arch} gedf, never released"), &r);
    let v = lat.lock().unwrap().clone();
    let mut l: Vec<u64> = v.iter().map(|x| x.0).collect();
    let mut u: Vec<u64> = v.iter().map(|x| x.1).collect();
    l.sort_unstable();
    u.sort_unstable();
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
    let done1: Vec<u64> = r
        .jobs
        .iter()
        .filter(|j| j.task == 1 && j.completion.is_some())
        .map(|j| j.seq)
        .collect();
    assert!(!done1.is_empty());
    for seq in &done1 {
        assert!(
            owners(&r.trace).contains_key(&(1, *seq, 0)),
            "τ1#{seq} got bus"
        );
    }
    let refusals = refusals.lock().unwrap().clone();
    assert_eq!(refusals.len(), 2 * done1.len(), "{refusals:?}");
    for pair in refusals.chunks(2) {
        assert_eq!(pair[0], "Some(Unknown(\"99\"))");
        assert_eq!(pair[1], "Some(Misuse(\"disk\"))");
    }
}

#[test]
fn a_resource_never_released_by_a_closure_is_an_error_of_the_run() {
    a_resource_never_released_by_a_closure(
        "a_resource_never_released_by_a_closure_is_an_error_of_the_run",
        "global-lock",
    );
}

#[test]
fn message_passing_a_resource_never_released_by_a_closure_is_an_error_of_the_run() {
    a_resource_never_released_by_a_closure(
        "message_passing_a_resource_never_released_by_a_closure_is_an_error_of_the_run",
        "message-passing",
    );
}

/// How [`lock_cost_side_by_side`] names a configuration.
fn config_name(arch: &str, di: bool, poll: bool) -> String {
    match (di, poll) {
        (true, _) => format!("{arch} DI"),
        (false, false) => format!("{arch} no-poll"),
        (false, true) => arch.to_string(),
    }
}

/// The cost of one lock operation as the job sees it (`Instant` around `ctx.lock` and
/// `ctx.unlock` of a free resource in a custom body), under `message-passing` (the DSP and one
/// client) and `global-lock` (plain, and with its dedicated interrupt CPU: one job CPU, the
/// shape of `message-passing` on two CPUs) and `message-passing --no-dsp-poll`, the four
/// alternating in rounds in one process
/// (docs/runtime.md, "Resources"). One task, C 2 ms, T 5 ms, 20 lock/unlock pairs per job
/// 40 µs apart; `SCHEDLAB_LOCK_COST_ROUNDS` rounds (default 5) of 1 s runs. A measurement,
/// not a check: `cargo test --release -p schedlab-runtime --test resource_runs -- --ignored
/// --nocapture lock_cost`, bounded by `timeout`.
#[test]
#[ignore = "a measurement (docs/runtime.md, Resources); run with --ignored --nocapture"]
fn lock_cost_side_by_side() {
    let test = "lock_cost_side_by_side";
    let rounds: usize = std::env::var("SCHEDLAB_LOCK_COST_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    // (architecture, dedicated interrupt CPU, DSP polling)
    let configs = [
        ("message-passing", false, true),
        ("global-lock", false, true),
        ("global-lock", true, true),
        ("message-passing", false, false),
    ];
    let mut pooled: Vec<(Vec<u64>, Vec<u64>)> = vec![(Vec::new(), Vec::new()); configs.len()];
    for round in 0..rounds {
        for (k, &(arch, di, poll)) in configs.iter().enumerate() {
            let lat: Arc<Mutex<Vec<(u64, u64)>>> =
                Arc::new(Mutex::new(Vec::with_capacity(1 << 14)));
            let lat2 = lat.clone();
            let mut t = task(2_000, 5_000, 0, vec![]);
            t.body = Body::Custom(Arc::new(move |ctx| {
                let mut mine = Vec::with_capacity(20);
                for _ in 0..20 {
                    spin(20_000);
                    let t = std::time::Instant::now();
                    let Ok(g) = ctx.lock(0) else { return };
                    let l = t.elapsed().as_nanos() as u64;
                    spin(20_000);
                    let t = std::time::Instant::now();
                    if g.unlock().is_err() {
                        return;
                    }
                    mine.push((l, t.elapsed().as_nanos() as u64));
                }
                if let Ok(mut v) = lat2.lock() {
                    v.extend(mine);
                }
            }));
            let tasks = vec![t];
            let Some(r) = run_tweaked(test, arch, "gedf", &tasks, 2, 1_000, |c| {
                c.dedicated_irq_cpu = di;
                c.dsp_poll = poll;
            }) else {
                return;
            };
            sane(&r, &tasks);
            let v = lat.lock().unwrap().clone();
            let mut l: Vec<u64> = v.iter().map(|x| x.0).collect();
            let mut u: Vec<u64> = v.iter().map(|x| x.1).collect();
            l.sort_unstable();
            u.sort_unstable();
            // Under message-passing: the lock messages' send → receive and the DSP's handler.
            let (mut req, mut dsp) = (Vec::new(), Vec::new());
            let mut sent = BTreeMap::new();
            let mut begin = None;
            for e in &r.trace {
                match e.kind {
                    Kind::MessageSend if e.arg == 2 => {
                        sent.insert((e.task, e.seq), e.time);
                    }
                    Kind::MessageReceive if e.arg == 2 => {
                        if let Some(s) = sent.remove(&(e.task, e.seq)) {
                            req.push(e.time - s);
                        }
                    }
                    Kind::DspBegin => begin = (e.arg == 2).then_some(e.time),
                    Kind::DspEnd => {
                        if let Some(b) = begin.take() {
                            dsp.push(e.time - b);
                        }
                    }
                    _ => {}
                }
            }
            req.sort_unstable();
            dsp.sort_unstable();
            let name = config_name(arch, di, poll);
            eprintln!(
                "round {round} {name:16} n={:5} lock median={:6} p99={:6} max={:7} | unlock median={:6} p99={:6} max={:7} | lock msg send→receive median={} dsp handler median={}",
                l.len(), q(&l, 50), q(&l, 99), q(&l, 100), q(&u, 50), q(&u, 99), q(&u, 100),
                q(&req, 50), q(&dsp, 50)
            );
            pooled[k].0.extend(l);
            pooled[k].1.extend(u);
        }
    }
    for (k, &(arch, di, poll)) in configs.iter().enumerate() {
        let (l, u) = &mut pooled[k];
        l.sort_unstable();
        u.sort_unstable();
        let name = config_name(arch, di, poll);
        eprintln!(
            "all rounds {name:16} n={:6} lock min={} median={} p90={} p99={} max={} | unlock min={} median={} p90={} p99={} max={}",
            l.len(), q(l, 0), q(l, 50), q(l, 90), q(l, 99), q(l, 100),
            q(u, 0), q(u, 50), q(u, 90), q(u, 99), q(u, 100)
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
        e.contains("--arch concurrent does not manage resources (scheduler-managed mutexes run under --arch global-lock, partitioned or message-passing)"),
        "{e}"
    );
    let c = RunConfig::new(
        vec![0, 1],
        Arch::named("semi-partitioned", "ticket").unwrap(),
        "pfp-ts",
        1,
        us(10_000),
    );
    let e = run(&tasks, &c).unwrap_err().to_string();
    assert!(
        e.contains("--arch semi-partitioned does not manage resources"),
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
