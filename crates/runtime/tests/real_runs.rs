//! Real short runs on two CPUs (1–2 s each). Pass/fail depends only on correctness properties
//! (every job accounted for, the run really real-time, no job on two CPUs at once, no
//! migration under partitioning, the global invariant holding most of the time, the run's
//! counters equal to `trace stats`'), never on timing; the measured numbers are printed
//! (`cargo test -- --nocapture`) and reported in docs/runtime.md. A test that cannot run here
//! (fewer than two CPUs, no permission for real-time scheduling, no cgroup-v1 cpuset) is
//! skipped loudly (`schedlab_testkit::skip`: printed, and counted by `scripts/test.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_runtime::config::{Arch, RtTask, RunConfig};
use schedlab_runtime::front::primary_key;
use schedlab_runtime::mech::sched::{self, Class, ClassGuard};
use schedlab_runtime::{run, LockKind, RunResult};
use schedlab_trace::check;
use schedlab_trace::metrics::JobRecord;
use schedlab_trace::{Meta, TaskMeta};
use std::collections::HashMap;
use std::sync::Mutex;

/// Real runs must not overlap each other (they would compete for the same two CPUs).
static SERIAL: Mutex<()> = Mutex::new(());

/// The architecture `name` of the registry.
fn arch(name: &str) -> Arch {
    Arch::named(name, "ticket").unwrap()
}

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

fn us(x: u64) -> Duration {
    Duration::from_ns(x * 1_000)
}

/// Whether this process may schedule a thread under SCHED_FIFO (tried on a thread of its
/// own, which then ends).
fn rt_permitted() -> bool {
    std::thread::spawn(|| {
        let _other = ClassGuard::to_other();
        sched::set_class(0, Class::Fifo(1)).is_ok()
    })
    .join()
    .unwrap_or(false)
}

/// The two CPUs of a real run — the first two this process may use — where this machine can
/// run one for real: two CPUs and permission for real-time scheduling. Otherwise `test` is
/// skipped loudly and `None`.
fn machine(test: &str) -> Option<Vec<u32>> {
    let allowed = sched::allowed_cpus().unwrap_or_default();
    if allowed.len() < 2 {
        let reason = format!("needs 2 CPUs, this process may use {allowed:?}");
        schedlab_testkit::skip(test, &reason);
        return None;
    }
    if !rt_permitted() {
        schedlab_testkit::skip(
            test,
            "real-time scheduling (SCHED_FIFO) is not permitted to this process: the run would not be real-time",
        );
        return None;
    }
    Some(allowed[..2].to_vec())
}

/// Runs `tasks` under `c`, which must be real-time (no SCHED_OTHER fallback: the run fails
/// instead, and the result says so).
fn run_rt(tasks: &[RtTask], c: &RunConfig) -> RunResult {
    assert!(!c.allow_non_rt);
    let r = run(tasks, c).unwrap();
    assert!(r.real_time, "the run was not real-time: {:?}", r.warnings);
    r
}

/// U = 0.6 per CPU with periods 10–50 ms (the reference load), implicit deadlines.
fn taskset() -> Vec<RtTask> {
    let t = |c: u64, p: u64| RtTask::new(us(c), ms(p), ms(p));
    vec![
        t(3_000, 10),  // 0.30
        t(4_000, 20),  // 0.20
        t(7_500, 25),  // 0.30
        t(6_000, 30),  // 0.20
        t(8_000, 40),  // 0.20
        t(10_000, 50), // 0.20
    ]
}

/// A real-time run of `secs` on the two CPUs of [`machine`] (`None`: `test` skipped).
fn config(test: &str, arch: Arch, policy: &str, n: usize, secs: u64) -> Option<RunConfig> {
    Some(RunConfig::new(
        machine(test)?,
        arch,
        policy,
        n,
        ms(secs * 1000),
    ))
}

/// Every released job is accounted for exactly once: jobs of a task are 0..k without gaps,
/// each either completed (with start ≤ completion) or reported unfinished at the horizon
/// (then it counts as a miss if its deadline fell within the horizon).
fn every_job_once(r: &RunResult, tasks: &[RtTask]) {
    for (i, t) in tasks.iter().enumerate() {
        let jobs: Vec<_> = r.jobs.iter().filter(|j| j.task == i as u32).collect();
        let expected = (r.horizon.as_ns() - t.offset.as_ns()).div_ceil(t.period.as_ns());
        assert_eq!(jobs.len() as u64, expected, "task {i}: released jobs");
        for (k, j) in jobs.iter().enumerate() {
            assert_eq!(j.seq, k as u64, "task {i}: job numbers");
            assert_eq!(
                j.release.as_ns(),
                t.offset.as_ns() + k as u64 * t.period.as_ns()
            );
            if let Some(c) = j.completion {
                let s = j.start.expect("a completed job has started");
                assert!(s <= c && j.release <= s, "task {i} job {k}: {s:?} {c:?}");
                assert!(
                    j.executed >= t.wcet,
                    "task {i} job {k}: executed {:?}",
                    j.executed
                );
            }
        }
    }
    let unfinished = r.jobs.iter().filter(|j| j.completion.is_none()).count() as u64;
    assert_eq!(r.totals.completed + unfinished, r.totals.jobs);
    counters_match_trace_stats(r, tasks);
}

/// One definition of preemptions, migrations, CPUs used and context switches
/// (`schedlab_trace::counts`): `schedlab trace stats` on the run's own trace finds exactly
/// the run's. (The runtime used to count a preemption wherever a dispatcher parked a job,
/// also one parked again before its thread ran, which records no `preempt`: `run` printed 47
/// where `trace stats` found 46.)
fn counters_match_trace_stats(r: &RunResult, tasks: &[RtTask]) {
    let mut meta = Meta {
        engine: Some("runtime".into()),
        tasks: tasks
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
    meta.extra
        .insert("duration_ns".into(), r.horizon.as_ns().into());
    let s = schedlab_trace::stats::analyze(&meta, &r.trace).unwrap();
    let from_trace: HashMap<(u32, u64), &JobRecord> =
        s.jobs.iter().map(|j| ((j.task, j.seq), j)).collect();
    for j in &r.jobs {
        let (p, m, cpus) = from_trace
            .get(&(j.task, j.seq))
            .map_or((0, 0, &[][..]), |t| {
                (t.preemptions, t.migrations, &t.cpus_used[..])
            });
        assert_eq!(
            (j.preemptions, j.migrations, &j.cpus_used[..]),
            (p, m, cpus),
            "task {} job {}: run vs trace stats",
            j.task,
            j.seq
        );
    }
    let t = (&r.totals, &s.totals);
    assert_eq!(t.0.preemptions, t.1.preemptions);
    assert_eq!(t.0.migrations, t.1.migrations);
    assert_eq!(t.0.context_switches, t.1.context_switches);
}

fn print(name: &str, r: &RunResult) {
    eprintln!(
        "{name}: rt={} jobs={} completed={} misses={} preemptions={} migrations={} dropped={} warnings={:?}",
        r.real_time,
        r.totals.jobs,
        r.totals.completed,
        r.totals.deadline_misses,
        r.totals.preemptions,
        r.totals.migrations,
        r.dropped_events,
        r.warnings
    );
    for (k, s) in r.overheads.stats() {
        eprintln!(
            "  {k:16} n={:6} min={:7} median={:7} mean={:9.0} p99={:8} max={:8}",
            s.count, s.min_ns, s.median_ns, s.mean_ns, s.p99_ns, s.max_ns
        );
    }
}

#[test]
fn partitioned_pedf_runs_every_job_without_migrating() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tasks = taskset();
    let test = "partitioned_pedf_runs_every_job_without_migrating";
    let Some(mut c) = config(test, arch("partitioned"), "pedf", tasks.len(), 1) else {
        return;
    };
    // 0.30+0.30+0.20 on CPU 0, 0.20+0.20+0.20 on CPU 1.
    c.placement = Some(Placement::new(vec![0, 1, 0, 1, 0, 1], 1));
    let r = run_rt(&tasks, &c);
    print("partitioned pedf", &r);
    every_job_once(&r, &tasks);
    assert!(check::parallel_execution(&r.trace).is_empty());
    for (task, cpus) in check::cpus_per_task(&r.trace) {
        let want = c.placement.as_ref().unwrap().domain_of_task[task as usize];
        assert_eq!(
            cpus.into_iter().collect::<Vec<_>>(),
            vec![want],
            "task {task}"
        );
    }
    assert_eq!(r.totals.migrations, 0);
    assert!(r.jobs.iter().all(|j| j.cpus_used.len() <= 1));
}

fn global(test: &str, kind: LockKind, policy: &str) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tasks = taskset();
    let Some(c) = config(
        test,
        arch("global-lock").with_lock(kind),
        policy,
        tasks.len(),
        2,
    ) else {
        return;
    };
    let r = run_rt(&tasks, &c);
    print(&format!("global-lock {} {policy}", kind.name()), &r);
    every_job_once(&r, &tasks);
    let par = check::parallel_execution(&r.trace);
    assert!(par.is_empty(), "{par:?}");
    let inv = check::invariant(
        &r.trace,
        2,
        r.horizon.as_ns(),
        primary_key(policy, &tasks, &c.ranks),
    );
    eprintln!(
        "  invariant held {:.5} of {} ns; {} windows, worst {:?}",
        inv.held_fraction(),
        inv.checked_ns,
        inv.windows,
        inv.worst
    );
    assert!(inv.held_fraction() >= 0.999, "{inv:?}");
}

#[test]
fn global_lock_gedf_ticket() {
    global("global_lock_gedf_ticket", LockKind::Ticket, "gedf");
}

#[test]
fn global_lock_gfp_mcs() {
    global("global_lock_gfp_mcs", LockKind::Mcs, "gfp");
}

#[test]
fn global_lock_gedf_mutex() {
    global("global_lock_gedf_mutex", LockKind::Mutex, "gedf");
}

/// `push-pull` (SCHED_DEADLINE-style push and pull between per-CPU run queues) with
/// `policy` (`gedf` or `sd`, the same run): every job once, no job on two CPUs at once, every
/// execution stretch bracketed, its counters reported in the run and its JSON summary, and
/// the global invariant reported — not asserted: it is violated during the protocol's
/// transients (a preempted job waits until its CPU parked and pushed it, …; the module doc
/// of `arch/push_pull.rs`), whose length is the host's timing. That the invariant holds
/// whenever the protocol settled is tested without threads, in `push_pull/tests.rs`.
fn push_pull(test: &str, policy: &str, kind: LockKind) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tasks = taskset();
    let Some(c) = config(
        test,
        arch("push-pull").with_lock(kind),
        policy,
        tasks.len(),
        2,
    ) else {
        return;
    };
    let r = run_rt(&tasks, &c);
    print(&format!("push-pull {} {policy}", kind.name()), &r);
    eprintln!("  counters {:?}", r.arch_counters);
    every_job_once(&r, &tasks);
    let par = check::parallel_execution(&r.trace);
    assert!(par.is_empty(), "{par:?}");
    let br = check::bracketing(&r.trace);
    assert!(br.is_empty(), "{br:?}");
    assert!(
        r.warnings.iter().all(|w| !w.contains("mechanism")),
        "{:?}",
        r.warnings
    );
    let names: Vec<&str> = r.arch_counters.iter().map(|(k, _)| *k).collect();
    assert_eq!(names, schedlab_runtime::arch::push_pull::COUNTERS);
    let primary = primary_key(policy, &tasks, &c.ranks);
    let json = schedlab_runtime::front::summary_json(&r, &c, &primary);
    for (k, v) in &r.arch_counters {
        assert_eq!(json[*k].as_u64(), Some(*v), "{k}");
    }
    assert!(json["invariant"].is_object(), "{json}");
    let inv = check::invariant(&r.trace, 2, r.horizon.as_ns(), &primary);
    eprintln!(
        "  invariant held {:.5} of {} ns; {} windows, worst {:?}",
        inv.held_fraction(),
        inv.checked_ns,
        inv.windows,
        inv.worst
    );
    assert!(inv.checked_ns > 0, "{inv:?}");
}

#[test]
fn push_pull_gedf_ticket() {
    push_pull("push_pull_gedf_ticket", "gedf", LockKind::Ticket);
}

#[test]
fn push_pull_sd_mcs() {
    push_pull("push_pull_sd_mcs", "sd", LockKind::Mcs);
}

/// U = 0.6 on the one client of a two-CPU message-passing run (the reference load per
/// client CPU), periods 10–50 ms.
fn taskset_one_cpu() -> Vec<RtTask> {
    let t = |c: u64, p: u64| RtTask::new(us(c), ms(p), ms(p));
    vec![
        t(1_500, 10), // 0.15
        t(2_000, 20), // 0.10
        t(3_750, 25), // 0.15
        t(3_000, 30), // 0.10
        t(4_000, 40), // 0.10
    ]
}

fn message_passing(test: &str, policy: &str, inline_completion: bool) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tasks = taskset_one_cpu();
    let Some(mut c) = config(test, arch("message-passing"), policy, tasks.len(), 2) else {
        return;
    };
    c.inline_completion = inline_completion;
    let r = run_rt(&tasks, &c);
    print(
        &format!("message-passing {policy} (inline completion: {inline_completion})"),
        &r,
    );
    every_job_once(&r, &tasks);
    assert!(
        r.warnings
            .iter()
            .all(|w| !w.contains("mechanism") && !w.contains("another physical CPU")),
        "{:?}",
        r.warnings
    );
    let par = check::parallel_execution(&r.trace);
    assert!(par.is_empty(), "{par:?}");
    // Never a job on the DSP's CPU (logical 0).
    for (task, cpus) in check::cpus_per_task(&r.trace) {
        assert!(!cpus.contains(&0), "task {task} ran on the DSP: {cpus:?}");
    }
    assert!(r.jobs.iter().all(|j| !j.cpus_used.contains(&0)));
    let inv = check::invariant(
        &r.trace,
        1,
        r.horizon.as_ns(),
        primary_key(policy, &tasks, &c.ranks),
    );
    eprintln!(
        "  invariant held {:.5} of {} ns; {} windows, worst {:?}",
        inv.held_fraction(),
        inv.checked_ns,
        inv.windows,
        inv.worst
    );
    // The check ranks jobs by deadline. EDZL ranks a job that reached zero laxity above all
    // others, which is not in the trace: when jobs run late (another program's real-time
    // threads took the CPUs: measured 1.2 % "violations" under a SCHED_FIFO-50 competitor),
    // EDZL's correct promotions look like violations, so for EDZL the fraction is reported
    // only.
    if policy != "edzl" {
        assert!(inv.held_fraction() >= 0.999, "{inv:?}");
    }
}

#[test]
fn message_passing_gedf() {
    message_passing("message_passing_gedf", "gedf", true);
}

#[test]
fn message_passing_edzl() {
    message_passing("message_passing_edzl", "edzl", true);
}

/// Completions processed by the client's dispatcher thread (`--no-inline-completion`).
#[test]
fn message_passing_gedf_dispatcher_completes() {
    message_passing("message_passing_gedf_dispatcher_completes", "gedf", false);
}

#[test]
fn message_passing_edzl_dispatcher_completes() {
    message_passing("message_passing_edzl_dispatcher_completes", "edzl", false);
}

#[test]
fn global_lock_dedicated_irq_cpu_never_runs_a_job_on_cpu0() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tasks = taskset_one_cpu();
    let test = "global_lock_dedicated_irq_cpu_never_runs_a_job_on_cpu0";
    let Some(mut c) = config(test, arch("global-lock"), "gedf", tasks.len(), 1) else {
        return;
    };
    c.dedicated_irq_cpu = true;
    let r = run_rt(&tasks, &c);
    print("global-lock gedf DI", &r);
    every_job_once(&r, &tasks);
    assert!(check::parallel_execution(&r.trace).is_empty());
    for (task, cpus) in check::cpus_per_task(&r.trace) {
        assert!(!cpus.contains(&0), "task {task} ran on the interrupt CPU");
    }
    // Every release handled on CPU 0.
    assert!(r
        .trace
        .iter()
        .filter(|e| e.kind == schedlab_trace::Kind::Release)
        .all(|e| e.cpu == 0));
    let inv = check::invariant(
        &r.trace,
        1,
        r.horizon.as_ns(),
        primary_key("gedf", &tasks, &c.ranks),
    );
    assert!(inv.held_fraction() >= 0.999, "{inv:?}");
}

/// A kernel baseline's run: real-time (asserted: under SCHED_OTHER it would not be the
/// baseline) with the user-space observations of it.
fn kernel(
    test: &str,
    arch: Arch,
    placement: Option<Vec<u32>>,
    secs: u64,
) -> Option<(RunResult, Vec<RtTask>)> {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tasks = taskset();
    let mut c = config(test, arch, arch.name(), tasks.len(), secs)?;
    c.placement = placement.map(|domain_of_task| Placement::new(domain_of_task, 1));
    let r = run_rt(&tasks, &c);
    print(arch.name(), &r);
    every_job_once(&r, &tasks);
    let par = check::parallel_execution(&r.trace);
    assert!(par.is_empty(), "{par:?}");
    assert!(r.overheads.samples.contains_key("release_latency"));
    assert!(r.overheads.samples.contains_key("release_to_run"));
    Some((r, tasks))
}

#[test]
fn linux_deadline_accounts_every_job() {
    // SCHED_DEADLINE needs the affinity to span the root domain: on a machine with more
    // CPUs than the two of the run the kernel refuses, which the error explains.
    let test = "linux_deadline_accounts_every_job";
    let all = sched::allowed_cpus().unwrap_or_default();
    if all.len() != 2 {
        let reason = format!(
            "linux-deadline on the run's CPUs needs them to be the whole root domain, and this process may use {all:?} (the --dl-cpuset test runs on a subset)"
        );
        schedlab_testkit::skip(test, &reason);
        return;
    }
    kernel(test, arch("linux-deadline"), None, 1);
}

#[test]
fn linux_fifo_partitioned_keeps_tasks_on_their_cpu() {
    let place = vec![0, 1, 0, 1, 0, 1];
    let test = "linux_fifo_partitioned_keeps_tasks_on_their_cpu";
    let Some((r, _)) = kernel(test, arch("linux-fifo"), Some(place.clone()), 1) else {
        return;
    };
    for (task, cpus) in check::cpus_per_task(&r.trace) {
        assert_eq!(
            cpus.into_iter().collect::<Vec<_>>(),
            vec![place[task as usize]]
        );
    }
    assert_eq!(r.totals.migrations, 0);
}

/// Runs linux-deadline on the second CPU only (`dl_cpuset`); `None` (`test` skipped loudly)
/// where the machine cannot split its root domain: no cgroup-v1 cpuset hierarchy (ENOTSUP)
/// or no permission.
fn deadline_on_one_cpu(test: &str, tasks: &[RtTask]) -> Option<RunResult> {
    use schedlab_runtime::mech::MechError;
    use schedlab_runtime::RuntimeError;
    let cpu = *machine(test)?.last()?;
    let mut c = RunConfig::new(
        vec![cpu],
        arch("linux-deadline"),
        "linux-deadline",
        tasks.len(),
        ms(1000),
    );
    c.dl_cpuset = true;
    match run(tasks, &c) {
        Ok(r) => {
            assert!(r.real_time, "{:?}", r.warnings);
            Some(r)
        }
        Err(RuntimeError::Mech(e @ MechError::NotPermitted { .. })) => {
            schedlab_testkit::skip(test, &format!("cannot split the root domain: {e}"));
            None
        }
        Err(RuntimeError::Mech(e @ MechError::Os { errno, .. })) if errno == libc::ENOTSUP => {
            schedlab_testkit::skip(test, &format!("no cgroup-v1 cpuset hierarchy: {e}"));
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// The cpuset hierarchy's root `sched_load_balance`, if mounted where this machine has it.
fn root_balance() -> Option<String> {
    std::fs::read_to_string("/sys/fs/cgroup/cpuset/cpuset.sched_load_balance")
        .ok()
        .map(|s| s.trim().to_string())
}

#[test]
fn linux_deadline_in_its_own_root_domain_stays_on_its_cpu_and_restores_the_machine() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // U = 0.7 (+ the 500 µs margins: 0.79), admitted on one CPU.
    let all = taskset();
    let tasks = vec![all[0].clone(), all[1].clone(), all[3].clone()];
    let test = "linux_deadline_in_its_own_root_domain_stays_on_its_cpu_and_restores_the_machine";
    let Some(r) = deadline_on_one_cpu(test, &tasks) else {
        return;
    };
    print("linux-deadline on one CPU", &r);
    every_job_once(&r, &tasks);
    assert!(check::parallel_execution(&r.trace).is_empty());
    for (task, cpus) in check::cpus_per_task(&r.trace) {
        assert_eq!(cpus.into_iter().collect::<Vec<_>>(), vec![0], "task {task}");
    }
    assert_eq!(r.totals.migrations, 0);
    assert!(
        schedlab_runtime::mech::cpuset::leftovers().is_empty(),
        "the run's cpuset was not removed"
    );
    assert_eq!(root_balance().as_deref(), Some("1"));
}

#[test]
fn a_root_domain_left_by_a_killed_run_is_repaired() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let test = "a_root_domain_left_by_a_killed_run_is_repaired";
    let Some(root) = root_balance().map(|_| std::path::PathBuf::from("/sys/fs/cgroup/cpuset"))
    else {
        schedlab_testkit::skip(
            test,
            "no cgroup-v1 cpuset hierarchy at /sys/fs/cgroup/cpuset",
        );
        return;
    };
    let Some(cpu) = machine(test).and_then(|c| c.last().copied()) else {
        return;
    };
    // The state a run killed by SIGKILL leaves: its cpuset, and load balancing off. The pid
    // is that of a child that has exited.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    let stale = root.join(format!("{}{pid}", schedlab_runtime::mech::cpuset::PREFIX));
    if let Err(e) = std::fs::create_dir(&stale) {
        schedlab_testkit::skip(test, &format!("cannot create a cpuset here: {e}"));
        return;
    }
    let mems = std::fs::read_to_string(root.join("cpuset.mems")).unwrap();
    std::fs::write(stale.join("cpuset.cpus"), cpu.to_string()).unwrap();
    std::fs::write(stale.join("cpuset.mems"), mems.trim()).unwrap();
    std::fs::write(root.join("cpuset.sched_load_balance"), "0").unwrap();
    let all = taskset();
    let tasks = vec![all[0].clone(), all[1].clone()];
    let r = deadline_on_one_cpu(test, &tasks);
    // Whatever happened, leave the machine as it was.
    let _ = std::fs::remove_dir(&stale);
    let _ = std::fs::write(root.join("cpuset.sched_load_balance"), "1");
    let Some(r) = r else {
        return;
    };
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("left by a killed run")),
        "{:?}",
        r.warnings
    );
    assert!(!stale.exists());
    assert!(schedlab_runtime::mech::cpuset::leftovers().is_empty());
    assert_eq!(root_balance().as_deref(), Some("1"));
}
