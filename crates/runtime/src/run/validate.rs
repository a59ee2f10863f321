//! What the skeleton checks before any architecture sees a run, and the run's sizes: every
//! size that input controls is bounded here with a clear error.
//!
//! - **Parallel tasks** [RTWS §III] run only under an architecture that takes them
//!   ([`crate::arch::ArchDef::parallel`]) and, for the user-space ones, a policy that does
//!   (`schedlab_policy::parallel_support`), without `abort_late`; anything else is refused
//!   ([`RuntimeError::ParallelTask`], naming what takes them): a run must not quietly execute
//!   a parallel job as one sequential body. Their job threads — one per slot, a task's widest
//!   region, [`crate::config::Threading::PerJob`] multiplying by its pool — are at most
//!   [`MAX_JOB_THREADS`] in all.
//! - **Jobs**: task i releases `⌈(duration − offset_i) / period_i⌉` jobs; their records are
//!   kept for the whole run (and some architectures reserve room for them up front), so the
//!   total is at most [`MAX_RUN_JOBS`].
//! - **Trace buffers** are preallocated per thread (wait-free recording never allocates). A
//!   task's thread gets `16` events per own job (release, switch-in/out, completion, the
//!   scheduler's events about it) plus `4` per job of every other task (each release of
//!   another task may preempt it once: switch-out, preempt, switch-in, migrate) plus 256;
//!   a scheduler thread (dispatcher, DSP, client) `32` per job of the run plus 4,096; each
//!   at most [`MAX_EVENTS_PER_BUFFER`]. All buffers of a run together hold at most
//!   [`MAX_TRACE_BYTES`]: an estimate above it is scaled down (events beyond a full buffer
//!   are dropped and counted, and the run warns); an explicit `trace_capacity` above it is
//!   an error.
//! - **Time**: the run's end (now + the start lead + the duration + the grace period) must
//!   fit the 64-bit nanosecond clock; a working set and the background load are at most
//!   4 GiB per thread.

use crate::arch::{Capacity, Run};
use crate::config::{validate_tasks, RtTask, RunConfig};
use crate::error::RuntimeError;
use crate::mech::sched;
use crate::state::{ParSpec, TaskSpec};
use schedlab_trace::file::RECORD_SIZE;
use std::sync::Arc;

/// The most jobs one run may release (all tasks together): their records live in memory for
/// the whole run (about 200 bytes per job with its result: 4 GB at the limit). A run of 10 s
/// at the limit would release 2 million jobs per second, far beyond what any architecture
/// here dispatches (a job costs at least two context switches, several µs).
pub const MAX_RUN_JOBS: u64 = 20_000_000;

/// The most memory all trace buffers of one run may take together (bytes; 40 per event).
pub const MAX_TRACE_BYTES: u64 = 1 << 30;

/// The most events one trace buffer holds (80 MiB).
pub const MAX_EVENTS_PER_BUFFER: u64 = 1 << 21;

/// The most job threads one run may start for its tasks (a sequential task's counts 1, a
/// parallel task's its widest region; each is a kernel thread with a preallocated trace
/// buffer, and the 2–8 CPUs this runtime targets gain nothing from more).
pub const MAX_JOB_THREADS: u64 = 512;

/// The largest working set of a task and background-load buffer per CPU (bytes).
const MAX_BUFFER_BYTES: u64 = 1 << 32;

/// Checks the run (see the module doc) and derives what every architecture gets.
pub(crate) fn validate<'a>(
    tasks: &'a [RtTask],
    config: &'a RunConfig,
) -> Result<Run<'a>, RuntimeError> {
    validate_tasks(tasks)?;
    parallel(tasks, config)?;
    validate_cpus(&config.cpus)?;
    let n = tasks.len();
    let duration = config.duration.as_ns();
    if duration == 0 {
        return Err(RuntimeError::invalid(
            "duration",
            "must be greater than zero",
        ));
    }
    // The run's clock values (time zero + a release, the end + the grace period) must not
    // wrap: check the latest one once here, so the threads can add without overflow.
    let end = crate::mech::clock::monotonic_ns()
        .checked_add(10_000_000_000)
        .and_then(|t| t.checked_add(duration))
        .and_then(|t| t.checked_add(config.grace.as_ns()));
    if end.is_none() {
        return Err(RuntimeError::invalid(
            "duration",
            format!(
                "{} and a grace period of {} overflow the 64-bit nanosecond clock",
                config.duration, config.grace
            ),
        ));
    }
    if config.ranks.len() != n {
        return Err(RuntimeError::invalid(
            "ranks",
            format!("{} priority ranks for {n} tasks", config.ranks.len()),
        ));
    }
    misplaced_options(config)?;
    resources(tasks, config)?;
    let jobs = jobs_per_task(tasks, duration)?;
    let par: Arc<[Option<Arc<ParSpec>>]> = tasks
        .iter()
        .map(|t| t.parallel.as_ref().map(|p| Arc::new(ParSpec::new(p))))
        .collect();
    let capacity = capacities(&jobs, &par, config.m(), config.trace_capacity)?;
    let policy_tasks = tasks
        .iter()
        .zip(&config.ranks)
        .map(|(t, &rank)| t.policy_task(rank))
        .collect();
    let spec: Arc<[TaskSpec]> = tasks
        .iter()
        .map(|t| TaskSpec {
            wcet: t.wcet.as_ns(),
            deadline: t.deadline.as_ns(),
        })
        .collect();
    Ok(Run {
        tasks,
        config,
        m: config.m(),
        policy_tasks,
        spec,
        jobs,
        capacity,
        abort_words: crate::state::abort_words(n),
        par,
    })
}

/// Parallel tasks (module doc): the architecture and the policy take them, no `abort_late`,
/// at most [`MAX_JOB_THREADS`] job threads.
fn parallel(tasks: &[RtTask], config: &RunConfig) -> Result<(), RuntimeError> {
    let Some(task) = tasks.iter().position(|t| t.parallel.is_some()) else {
        return Ok(());
    };
    let def = config.arch.def();
    let refuse = |reason: String| Err(RuntimeError::ParallelTask { task, reason });
    if !def.parallel {
        return refuse(format!(
            "--arch {} does not run parallel tasks; the architectures that do: {}",
            def.name,
            crate::arch::parallel_archs().join(", ")
        ));
    }
    if !def.kernel {
        let policy = config.policy.as_str();
        let takes = schedlab_policy::parallel_support(policy).is_some_and(|s| s.accepts());
        if !takes {
            return refuse(format!(
                "policy `{policy}` does not schedule parallel tasks; the policies that do: {}",
                schedlab_policy::parallel_policies()
            ));
        }
    }
    if config.abort_late {
        return refuse(
            "--abort-late applies to sequential tasks only (a parallel job's threads are not aborted at its deadline)".into(),
        );
    }
    let pool = match config.threading {
        crate::config::Threading::PerJob => u64::from(crate::job::POOL_THREADS),
        crate::config::Threading::PerTask => 1,
    };
    let threads = tasks.iter().fold(0u64, |a, t| {
        let slots = t.parallel.as_ref().map_or(1, |p| p.max_width() as u64);
        a.saturating_add(slots.saturating_mul(pool))
    });
    if threads > MAX_JOB_THREADS {
        return refuse(format!(
            "the run would start {threads} job threads (one per task, one per thread of a parallel task's widest region{}), more than the runtime's limit of {MAX_JOB_THREADS}",
            if pool > 1 { ", times the thread-per-job pool" } else { "" }
        ));
    }
    Ok(())
}

/// The architectures that enact the engine's aborts of late jobs (`RunConfig::abort_late`):
/// those whose scheduling state is built by `Run::sched` and whose dispatchers run handlers.
pub(crate) const ABORT_LATE_ARCHS: [&str; 4] = [
    "partitioned",
    "global-lock",
    "concurrent",
    "message-passing",
];

/// The architectures that manage resources (`crate::locks`), as their
/// `Architecture::RESOURCES` says.
pub(crate) const RESOURCE_ARCHS: [&str; 3] = ["global-lock", "partitioned", "message-passing"];

/// [`RESOURCE_ARCHS`] as a list for a message: `a, b or c`.
fn resource_archs() -> String {
    match RESOURCE_ARCHS.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => RESOURCE_ARCHS.join(""),
    }
}

/// Most resource names a run takes (input-controlled size bound).
const MAX_RESOURCES: usize = 1 << 16;

/// Critical sections run only where the dispatchers manage resources; each task's sections
/// are checked as the model checks them (a section beyond the WCET would never be released).
fn resources(tasks: &[RtTask], config: &RunConfig) -> Result<(), RuntimeError> {
    if config.resources.len() > MAX_RESOURCES {
        return Err(RuntimeError::invalid(
            "resources",
            format!("{} names, at most {MAX_RESOURCES}", config.resources.len()),
        ));
    }
    for (i, t) in tasks.iter().enumerate() {
        if t.critical_sections.is_empty() {
            continue;
        }
        let arch = config.arch.name();
        if !RESOURCE_ARCHS.contains(&arch) {
            return Err(RuntimeError::InvalidTask {
                task: i,
                field: "critical_sections",
                message: format!(
                    "--arch {arch} does not manage resources (scheduler-managed mutexes run under --arch {})",
                    resource_archs()
                ),
            });
        }
        let problem = schedlab_model::task::critical_sections_problem(
            &t.critical_sections,
            t.wcet,
            &config.resources,
        );
        if let Some(message) = problem {
            return Err(RuntimeError::InvalidTask {
                task: i,
                field: "critical_sections",
                message,
            });
        }
    }
    Ok(())
}

/// A switched-on option of another architecture is an error naming the ones that take it.
fn misplaced_options(config: &RunConfig) -> Result<(), RuntimeError> {
    if config.abort_late && !ABORT_LATE_ARCHS.contains(&config.arch.name()) {
        return Err(RuntimeError::invalid(
            "abort-late",
            format!(
                "applies to --arch {} only, not `{}`",
                ABORT_LATE_ARCHS.join(", "),
                config.arch.name()
            ),
        ));
    }
    let on = [
        ("dedicated-irq-cpu", config.dedicated_irq_cpu),
        ("dl-cpuset", config.dl_cpuset),
        // The kernel baselines' tasks are their own threads (`crate::arch::kernel`).
        (
            "threading",
            config.threading == crate::config::Threading::PerJob,
        ),
    ];
    for (option, set) in on {
        if set && !config.arch.takes(option) {
            return Err(RuntimeError::invalid(
                option,
                format!(
                    "applies to --arch {} only, not `{}`",
                    crate::arch::taking(option).join(", "),
                    config.arch.name()
                ),
            ));
        }
    }
    Ok(())
}

/// Jobs released by each task before the horizon `duration` (ns), at most [`MAX_RUN_JOBS`]
/// together.
fn jobs_per_task(tasks: &[RtTask], duration: u64) -> Result<Vec<u64>, RuntimeError> {
    let jobs: Vec<u64> = tasks
        .iter()
        .map(|t| {
            duration
                .saturating_sub(t.offset.as_ns())
                .div_ceil(t.period.as_ns().max(1))
        })
        .collect();
    let total = jobs.iter().fold(0u64, |a, &j| a.saturating_add(j));
    if total > MAX_RUN_JOBS {
        return Err(RuntimeError::invalid(
            "duration",
            format!(
                "the run would release {total} jobs (the tasks' duration/period summed), more than the runtime's limit of {MAX_RUN_JOBS} (job records and trace buffers are kept in memory): shorten the duration"
            ),
        ));
    }
    Ok(jobs)
}

/// Trace buffer capacities (module doc): per task's thread and per scheduler thread of a run
/// on `m` CPUs; `explicit` is the caller's own capacity for every buffer. A parallel task's
/// job counts once per thread (strand) for the schedulers and per region for each of its
/// threads' buffers (one per slot).
fn capacities(
    jobs: &[u64],
    par: &[Option<Arc<ParSpec>>],
    m: u32,
    explicit: Option<usize>,
) -> Result<Capacity, RuntimeError> {
    let spec = |i: usize| par.get(i).cloned().flatten();
    let slots: Vec<u64> = (0..jobs.len())
        .map(|i| spec(i).map_or(1, |p| u64::from(p.width())))
        .collect();
    let buffers = slots.iter().sum::<u64>() + u64::from(m);
    let budget = MAX_TRACE_BYTES / RECORD_SIZE as u64;
    if let Some(c) = explicit {
        let total = (c as u64).saturating_mul(buffers);
        if total > budget {
            return Err(RuntimeError::invalid(
                "trace-capacity",
                format!(
                    "{c} events per buffer × {buffers} buffers exceed the trace budget of {budget} events ({MAX_TRACE_BYTES} bytes)"
                ),
            ));
        }
        return Ok(Capacity {
            task: vec![c; jobs.len()],
            scheduler: c,
        });
    }
    // Strand-jobs: a parallel job is one per thread for the schedulers.
    let strands: Vec<u64> = (0..jobs.len())
        .map(|i| {
            let per = spec(i).map_or(1, |p| u64::from(p.strands()));
            jobs.get(i).copied().unwrap_or(0).saturating_mul(per)
        })
        .collect();
    let all = strands.iter().fold(0u64, |a, &j| a.saturating_add(j));
    let cap = |x: u64| x.min(MAX_EVENTS_PER_BUFFER);
    let task: Vec<u64> = jobs
        .iter()
        .enumerate()
        .map(|(i, &j)| {
            let others = all.saturating_sub(strands.get(i).copied().unwrap_or(0));
            let j = j.saturating_mul(spec(i).map_or(1, |p| u64::from(p.regions())));
            cap(j
                .saturating_mul(16)
                .saturating_add(others.saturating_mul(4))
                .saturating_add(256))
        })
        .collect();
    let scheduler = cap(all.saturating_mul(32).saturating_add(4096));
    let total = task
        .iter()
        .zip(&slots)
        .fold(scheduler.saturating_mul(u64::from(m)), |a, (&c, &k)| {
            a.saturating_add(c.saturating_mul(k))
        });
    // Over the budget: every buffer shrinks by the same factor (at least 64 events each).
    let scale = |c: u64| -> usize {
        let c = if total > budget {
            (u128::from(c) * u128::from(budget) / u128::from(total)) as u64
        } else {
            c
        };
        usize::try_from(c.max(64)).unwrap_or(usize::MAX)
    };
    Ok(Capacity {
        task: task.into_iter().map(scale).collect(),
        scheduler: scale(scheduler),
    })
}

/// Checks that the CPUs exist and are allowed to this process, and none is listed twice.
pub(crate) fn validate_cpus(cpus: &[u32]) -> Result<(), RuntimeError> {
    if cpus.is_empty() {
        return Err(RuntimeError::invalid("cpus", "no CPU given"));
    }
    let allowed = sched::allowed_cpus()?;
    let list = allowed
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    for (i, c) in cpus.iter().enumerate() {
        if cpus.get(..i).is_some_and(|p| p.contains(c)) {
            return Err(RuntimeError::invalid(
                "cpu-list",
                format!("CPU {c} is listed twice"),
            ));
        }
        if !allowed.contains(c) {
            return Err(RuntimeError::CpuNotAllowed {
                cpu: *c,
                allowed: list,
            });
        }
    }
    Ok(())
}

/// The background load's buffer size per CPU is at most 4 GiB.
pub(crate) fn background_load(bytes: u64) -> Result<(), RuntimeError> {
    if bytes > MAX_BUFFER_BYTES {
        return Err(RuntimeError::invalid(
            "background-load",
            format!("{bytes} bytes per CPU: at most {MAX_BUFFER_BYTES} (4 GiB)"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::Duration;

    fn task(period_ns: u64) -> RtTask {
        let d = Duration::from_ns(period_ns);
        RtTask::new(Duration::from_ns(1), d, d)
    }

    fn parallel_set(widest: usize) -> [RtTask; 2] {
        let ms = |x| Duration::from_ms(x).unwrap_or(Duration::MAX);
        let structure =
            schedlab_model::ParallelStructure::from_threads(vec![vec![ms(1)], vec![ms(1); widest]])
                .expect("a valid structure");
        let seq = RtTask::new(ms(1), ms(10), ms(10));
        let mut par = RtTask::new(ms(1 + widest as u64), ms(10), ms(10));
        par.parallel = Some(structure);
        [seq, par]
    }

    fn config(arch: &str, policy: &str) -> RunConfig {
        let arch = crate::arch::Arch::named(arch, "ticket").expect("a registered architecture");
        let ms = Duration::from_ms(100).unwrap_or(Duration::MAX);
        RunConfig::new(vec![0, 1], arch, policy, 2, ms)
    }

    /// A parallel task is refused before anything runs (no thread is created, no privilege
    /// needed) by every architecture without `ArchDef::parallel`, with an error naming the
    /// task and the architectures that take them; by a user-space architecture under a
    /// policy that does not take them; with `--abort-late`; and beyond the thread bound.
    #[test]
    fn parallel_tasks_are_refused_where_they_cannot_run() {
        let tasks = parallel_set(2);
        let takes = crate::arch::parallel_archs();
        assert!(takes.contains(&"global-lock"), "{takes:?}");
        for def in crate::arch::REGISTRY.iter().filter(|d| !d.parallel) {
            let err = validate(&tasks, &config(def.name, "gedf"))
                .err()
                .expect(def.name);
            assert!(
                matches!(err, RuntimeError::ParallelTask { task: 1, .. }),
                "{}: {err}",
                def.name
            );
            assert_eq!(
                err.to_string(),
                format!(
                    "task 1 is parallel (field `parallel`): --arch {} does not run parallel tasks; the architectures that do: {}",
                    def.name,
                    takes.join(", ")
                )
            );
        }
        let err = validate(&tasks, &config("global-lock", "gdasa"))
            .err()
            .expect("gdasa");
        assert!(
            err.to_string().starts_with(
                "task 1 is parallel (field `parallel`): policy `gdasa` does not schedule parallel tasks; the policies that do: rtws, federated (natively)"
            ),
            "{err}"
        );
        for policy in ["rtws", "gedf"] {
            assert!(
                validate(&tasks, &config("global-lock", policy)).is_ok(),
                "{policy}"
            );
        }
        let mut late = config("global-lock", "rtws");
        late.abort_late = true;
        let err = validate(&tasks, &late).err().expect("abort-late");
        assert!(
            err.to_string()
                .contains("--abort-late applies to sequential tasks only"),
            "{err}"
        );
        let wide = parallel_set(MAX_JOB_THREADS as usize);
        let err = validate(&wide, &config("global-lock", "rtws"))
            .err()
            .expect("too wide");
        assert!(
            err.to_string().contains(&format!(
                "the run would start {} job threads",
                MAX_JOB_THREADS + 1
            )),
            "{err}"
        );
        // A task built from a model task keeps its structure.
        let ms = |x| Duration::from_ms(x).unwrap_or(Duration::MAX);
        let t = schedlab_model::Task::new(ms(3), ms(10), ms(10))
            .expect("a valid task")
            .with_parallel(
                schedlab_model::ParallelStructure::from_threads(vec![vec![ms(3)]])
                    .expect("a valid structure"),
            );
        assert!(RtTask::from(&t).parallel.is_some());
    }

    /// Trace capacities of a parallel task: task 1 (2 jobs of regions [1] | [1, 1, 1]: 4
    /// strands, 2 regions, 3 slots) next to task 0 (10 jobs): the schedulers count 10 + 8
    /// strand-jobs (32·18 + 4096 = 4672); task 1's buffers (one per slot) 16·(2·2) + 4·10 +
    /// 256 = 360 events each.
    #[test]
    fn trace_buffers_count_strands() {
        let [_, par] = parallel_set(3);
        let spec = par.parallel.as_ref().map(|p| Arc::new(ParSpec::new(p)));
        let c = capacities(&[10, 2], &[None, spec], 2, None).unwrap();
        assert_eq!(c.scheduler, 4672);
        assert_eq!(c.task[1], 360);
    }

    /// 1 s of a 1 ms task: 1,000 jobs; of a 1 ns task: 10⁹, beyond the limit: an error that
    /// says what to do, not an allocation.
    #[test]
    fn the_number_of_jobs_is_bounded() {
        let second = 1_000_000_000;
        assert_eq!(
            jobs_per_task(&[task(1_000_000)], second).unwrap(),
            vec![1000]
        );
        let e = jobs_per_task(&[task(1_000_000), task(1)], second).unwrap_err();
        assert!(e.to_string().contains("shorten the duration"), "{e}");
        // Saturating, not wrapping: a huge duration with tiny periods.
        assert!(jobs_per_task(&[task(1), task(1)], u64::MAX).is_err());
    }

    /// The list of architectures with resources is theirs: exactly those whose
    /// `Architecture::RESOURCES` is set.
    #[test]
    fn resource_archs_are_the_architectures_that_manage_resources() {
        use crate::arch::{self, Architecture};
        let declared = [
            ("partitioned", arch::partitioned::Partitioned::RESOURCES),
            (
                "semi-partitioned",
                arch::semi_partitioned::SemiPartitioned::RESOURCES,
            ),
            ("global-lock", arch::global_lock::GlobalLock::RESOURCES),
            ("concurrent", arch::concurrent::Concurrent::RESOURCES),
            (
                "message-passing",
                arch::message_passing::MessagePassing::RESOURCES,
            ),
            (
                "linux-deadline",
                arch::linux_deadline::LinuxDeadline::RESOURCES,
            ),
            ("linux-fifo", arch::linux_fifo::LinuxFifo::RESOURCES),
            ("reservations", arch::reservations::Reservations::RESOURCES),
            (
                "linux-rt-groups",
                arch::linux_rt_groups::LinuxRtGroups::RESOURCES,
            ),
            (
                "work-stealing",
                arch::work_stealing::WorkStealing::RESOURCES,
            ),
            ("push-pull", arch::push_pull::PushPull::RESOURCES),
        ];
        assert_eq!(declared.len(), arch::REGISTRY.len());
        for (name, resources) in declared {
            assert!(arch::names().contains(&name), "{name}");
            assert_eq!(RESOURCE_ARCHS.contains(&name), resources, "{name}");
        }
        assert_eq!(
            resource_archs(),
            "global-lock, partitioned or message-passing"
        );
    }

    /// Capacities: 3 tasks with 10, 20 and 70 jobs on 2 CPUs: task 0 gets 16·10 + 4·90 + 256
    /// = 776 events, the schedulers 32·100 + 4096 = 7296. A run whose estimate exceeds the
    /// budget is scaled down proportionally; an explicit capacity over it is an error.
    #[test]
    fn trace_buffers_fit_the_budget() {
        let c = capacities(&[10, 20, 70], &[], 2, None).unwrap();
        assert_eq!(c.task, vec![776, 896, 1496]);
        assert_eq!(c.scheduler, 7296);
        let big = capacities(&[MAX_RUN_JOBS / 100; 100], &[], 2, None).unwrap();
        let total: u64 = big.task.iter().map(|&c| c as u64).sum::<u64>() + 2 * big.scheduler as u64;
        assert!(total * RECORD_SIZE as u64 <= MAX_TRACE_BYTES, "{total}");
        assert!(big.task.iter().all(|&c| c >= 64));
        assert_eq!(
            capacities(&[5], &[], 1, Some(1000)).unwrap().task,
            vec![1000]
        );
        assert!(capacities(&[5], &[], 1, Some(usize::MAX)).is_err());
    }
}
