//! Statistics of a trace file — measured (runtime) or simulated — for `schedlab trace stats`:
//! the overhead samples of [`crate::overheads`] ([MP §IV-A, Fig. 5]) and the per-job
//! records rebuilt from the events, accounted with the simulator's own metric code
//! (`schedlab_trace::metrics`: [`TaskAcc`], [`summarize`], [ChronOS §8.6]).
//!
//! # Job records from events
//! For each job (task, seq) with a `release` event whose intended release (`arg`) lies
//! before the horizon:
//! - release = the `release` event's `arg`; deadline = release + the task's relative
//!   deadline from the metadata (`tasks[i].deadline_ns`, required);
//! - start, CPUs, preemptions and migrations by the one definition of [`crate::counts`]
//!   (start = first `switch-in`, preemptions = `preempt` events, migrations = `switch-in`s on
//!   another CPU than the previous one; a runtime trace's `migrate` events are per thread:
//!   they also mark a job starting on another CPU than its task's previous job, so they are
//!   not counted); executed = the total length of its execution intervals (wall time; the
//!   runtime's own records use CPU time);
//! - completion = its `complete` event: `arg` in a runtime trace (the time the job's thread
//!   measured), `time` in a simulated one; a completion after the horizon counts as
//!   unfinished (the simulator's horizon rule); `abort` marks it aborted;
//! - tardiness by the rules of `schedlab_trace::metrics` (unfinished at the horizon with the
//!   deadline within it: horizon − deadline; aborted: 0).
//!
//! The horizon is the metadata's `duration_ns` (both engines write it), else the last
//! event's time. Context switches = `switch-in` events ([`crate::counts`]). A simulated trace without
//! overheads gives exactly the simulator's metrics (a test checks it). Jobs whose release
//! never reached the trace (a simulation with release overheads stopped before the release
//! handler finished) are not counted.
//!
//! # Equal sample counts (the ft-tools convention)
//! Maxima of sample sets of different sizes are not comparable: the larger set has more
//! chances to catch a rare spike. The overhead-processing tools of LITMUS^RT studies
//! (Feather-Trace tools, `ft-count-samples` + `ft-select-samples`) therefore shuffle every
//! compared sample set randomly and truncate it to the smallest count among them before
//! computing statistics. [`equalize`] does exactly that, per overhead name: the sets of one
//! name (one per compared trace, or per architecture and n when fitting) are shuffled with a
//! seeded ChaCha8 generator (deterministic: same seed, same selection) and truncated to the
//! smallest set's count; a name absent from some compared trace is left as is in the
//! others.
//!
//! Cost: linear in the number of events (hash maps per job), plus sorting per statistic.

use crate::counts::{context_switches, JobCounts};
use crate::intervals::intervals;
use crate::metrics::{summarize, JobRecord, TaskAcc, TaskMetrics, Totals};
use crate::overheads::{OverheadStats, Overheads};
use crate::{Event, Kind, Meta};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use schedlab_model::overheads::OverheadName;
use schedlab_model::{Duration, Time};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Why a trace cannot be summarised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StatsError {
    /// A job of a task whose relative deadline the metadata does not give.
    #[error(
        "trace metadata gives no `deadline_ns` for task {task} (needed for its jobs' deadlines)"
    )]
    NoDeadline {
        /// Task index.
        task: u32,
    },
    /// The trace names more tasks than [`MAX_TASKS`] (its per-task tables would be sized
    /// from it).
    #[error("the trace names {count} tasks ({what}); trace statistics handle at most {MAX_TASKS}")]
    TooManyTasks {
        /// The number of tasks the trace implies.
        count: u64,
        /// Where it comes from: the metadata's task list or the largest task index.
        what: &'static str,
    },
}

/// The most tasks a trace may name (its metadata `tasks`, or the largest task index of a job
/// event + 1): the per-task tables of [`analyze`] are sized from it, so a corrupt index
/// (e.g. 4,000,000,000) is an error instead of an out-of-memory abort. Ten times the
/// generators' default largest set (100,000 tasks); a run with one thread per task stays far
/// below it.
pub const MAX_TASKS: usize = 1_000_000;

/// Everything `schedlab trace stats` reports about one trace.
#[derive(Clone, Debug)]
pub struct TraceStats {
    /// `runtime` or `sim` (from the metadata).
    pub engine: Option<String>,
    /// The dispatch architecture (runtime traces: metadata `architecture`).
    pub arch: Option<String>,
    /// Policy (metadata).
    pub policy: Option<String>,
    /// Number of CPUs (metadata).
    pub cpus: Option<u32>,
    /// Number of tasks (metadata `tasks`, else the largest task index seen + 1).
    pub n: usize,
    /// The horizon used for the job accounting.
    pub horizon: Time,
    /// Job records rebuilt from the events, by (task, seq).
    pub jobs: Vec<JobRecord>,
    /// Per-task metrics (the simulator's accounting).
    pub per_task: Vec<TaskMetrics>,
    /// Whole-trace metrics.
    pub totals: Totals,
    /// Overhead samples by name.
    pub overheads: Overheads,
}

/// The number of tasks of a trace: the metadata's task list, else the largest task index of
/// a job event + 1; at most [`MAX_TASKS`].
pub fn task_count(meta: &Meta, events: &[Event]) -> Result<usize, StatsError> {
    let (count, what) = if meta.tasks.is_empty() {
        let largest = events
            .iter()
            .filter(|e| e.task != u32::MAX)
            .map(|e| u64::from(e.task) + 1)
            .max()
            .unwrap_or(0);
        (largest, "the largest task index of its events + 1")
    } else {
        (meta.tasks.len() as u64, "its metadata's task list")
    };
    usize::try_from(count)
        .ok()
        .filter(|&n| n <= MAX_TASKS)
        .ok_or(StatsError::TooManyTasks { count, what })
}

/// The horizon of a trace: metadata `duration_ns`, else the last event's time.
pub fn horizon(meta: &Meta, events: &[Event]) -> Time {
    let from_meta = meta.extra.get("duration_ns").and_then(Value::as_u64);
    Time::from_ns(from_meta.unwrap_or_else(|| events.iter().map(|e| e.time).max().unwrap_or(0)))
}

/// The architecture a trace was measured under (metadata `architecture`).
pub fn arch_of(meta: &Meta) -> Option<String> {
    meta.extra
        .get("architecture")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A job as it is being rebuilt (its start, CPUs, preemptions and migrations are
/// [`crate::counts`]'s).
#[derive(Default)]
struct Partial {
    release: Option<u64>,
    completion: Option<u64>,
    counts: JobCounts,
    executed: u64,
    aborted: bool,
}

/// Rebuilds the job records of a trace (see the module doc), sorted by (task, seq).
pub fn jobs_from_trace(
    meta: &Meta,
    events: &[Event],
    horizon: Time,
) -> Result<Vec<JobRecord>, StatsError> {
    let runtime = meta.engine.as_deref() == Some("runtime");
    let mut jobs: BTreeMap<(u32, u64), Partial> = BTreeMap::new();
    for e in events.iter().filter(|e| e.task != u32::MAX) {
        let p = jobs.entry((e.task, e.seq)).or_default();
        p.counts.add(e);
        match e.kind {
            Kind::Release => {
                p.release.get_or_insert(e.arg);
            }
            Kind::Complete => {
                p.completion = Some(if runtime { e.arg } else { e.time });
            }
            Kind::Abort => p.aborted = true,
            _ => {}
        }
    }
    for iv in intervals(events) {
        if let Some(p) = jobs.get_mut(&(iv.task, iv.seq)) {
            // Saturating: a crafted trace's intervals can sum beyond 2^64 ns.
            p.executed = p.executed.saturating_add(iv.end.saturating_sub(iv.start));
        }
    }
    let h = horizon.as_ns();
    let mut out = Vec::with_capacity(jobs.len());
    for ((task, seq), p) in jobs {
        let Some(release) = p.release.filter(|&r| r < h) else {
            continue;
        };
        let rel_deadline = usize::try_from(task)
            .ok()
            .and_then(|i| meta.tasks.get(i))
            .and_then(|t| t.deadline_ns)
            .ok_or(StatsError::NoDeadline { task })?;
        let deadline = release.saturating_add(rel_deadline);
        let completion = p.completion.filter(|&c| c <= h && !p.aborted);
        let tardiness = match completion {
            Some(c) => c.saturating_sub(deadline),
            None if p.aborted => 0,
            None if deadline <= h => h - deadline,
            None => 0,
        };
        out.push(JobRecord {
            task,
            seq,
            release: Time::from_ns(release),
            deadline: Time::from_ns(deadline),
            start: p.counts.start.map(Time::from_ns),
            completion: completion.map(Time::from_ns),
            cpus_used: p.counts.cpus,
            preemptions: p.counts.preemptions,
            migrations: p.counts.migrations,
            steals: p.counts.steals,
            executed: Duration::from_ns(p.executed),
            tardiness: Duration::from_ns(tardiness),
            aborted: p.aborted,
            utility: 0.0, // a trace carries no TUFs
            termination: Time::from_ns(deadline),
            blocked: Duration::ZERO,
        });
    }
    Ok(out)
}

/// Summarises a trace: job records, metrics and overhead samples.
pub fn analyze(meta: &Meta, events: &[Event]) -> Result<TraceStats, StatsError> {
    let n = task_count(meta, events)?;
    let h = horizon(meta, events);
    let jobs = jobs_from_trace(meta, events, h)?;
    let mut accs = vec![TaskAcc::default(); n];
    for j in &jobs {
        if let Some(a) = accs.get_mut(j.task as usize) {
            a.add(j, h);
        }
    }
    let switches = context_switches(events);
    let (per_task, totals) = summarize(&accs, &vec![None; n], switches);
    Ok(TraceStats {
        engine: meta.engine.clone(),
        arch: arch_of(meta),
        policy: meta.policy.clone(),
        cpus: meta.cpus,
        n,
        horizon: h,
        jobs,
        per_task,
        totals,
        overheads: Overheads::from_trace(events),
    })
}

/// Shuffles every set of `sets` (seeded ChaCha8, one generator for all, in order) and
/// truncates each to the smallest set's length: the ft-tools convention (module doc).
pub fn equalize(sets: &mut [&mut Vec<u64>], seed: u64) {
    let Some(k) = sets.iter().map(|s| s.len()).min() else {
        return;
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for s in sets.iter_mut() {
        if s.len() > k {
            s.shuffle(&mut rng);
            s.truncate(k);
        }
    }
}

/// [`equalize`] per overhead name across several traces' samples: for each name, the sets
/// of the traces that have it.
pub fn equalize_traces(all: &mut [Overheads], seed: u64) {
    let names: Vec<&'static str> = {
        let mut v: Vec<&'static str> = all.iter().flat_map(|o| o.samples.keys().copied()).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for name in names {
        let mut sets: Vec<&mut Vec<u64>> = all
            .iter_mut()
            .filter_map(|o| o.samples.get_mut(name))
            .collect();
        equalize(&mut sets, seed);
    }
}

/// Overhead names in report order: the overhead file's order ([`OverheadName::ALL`]), then
/// any other name a trace yields, alphabetically.
pub fn report_order<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut v: Vec<&str> = names.into_iter().collect();
    let rank = |s: &str| {
        OverheadName::from_key(s)
            .and_then(|n| OverheadName::ALL.iter().position(|m| *m == n))
            .unwrap_or(usize::MAX)
    };
    v.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
    v.dedup();
    v
}

/// Distribution of the response times (completion − release) of the completed jobs.
pub fn response_times(jobs: &[JobRecord]) -> Option<OverheadStats> {
    let r: Vec<u64> = jobs
        .iter()
        .filter_map(|j| j.completion.map(|c| c.saturating_since(j.release).as_ns()))
        .collect();
    OverheadStats::of(&r)
}

/// Distribution of the tardiness of the jobs whose deadline fell within the horizon.
pub fn tardiness(jobs: &[JobRecord], horizon: Time) -> Option<OverheadStats> {
    let r: Vec<u64> = jobs
        .iter()
        .filter(|j| j.deadline <= horizon)
        .map(|j| j.tardiness.as_ns())
        .collect();
    OverheadStats::of(&r)
}

impl TraceStats {
    /// The JSON of `schedlab trace stats --format json`.
    pub fn to_json(&self) -> Value {
        let t = &self.totals;
        let stats = self.overheads.stats();
        let mut oh = serde_json::Map::new();
        for name in report_order(stats.keys().copied()) {
            if let Some(s) = stats.get(name) {
                oh.insert(name.to_string(), s.to_json());
            }
        }
        let per_task: Vec<Value> = self
            .per_task
            .iter()
            .map(|p| {
                json!({
                    "task": p.task,
                    "jobs": p.jobs,
                    "completed": p.completed,
                    "misses": p.misses,
                    "max_response_ns": p.max_response.map(|d| d.as_ns()),
                    "mean_response_ns": p.mean_response,
                    "max_tardiness_ns": p.max_tardiness.as_ns(),
                    "mean_tardiness_ns": p.mean_tardiness,
                    "preemptions": p.preemptions,
                    "migrations": p.migrations,
                    "steals": p.steals,
                })
            })
            .collect();
        json!({
            "engine": self.engine,
            "arch": self.arch,
            "policy": self.policy,
            "cpus": self.cpus,
            "tasks": self.n,
            "duration_ns": self.horizon.as_ns(),
            "jobs": t.jobs,
            "completed": t.completed,
            "aborted": t.aborted,
            "deadline_misses": t.deadline_misses,
            "deadlines_in_horizon": t.deadlines_in_horizon,
            "dsr": t.dsr,
            "max_tardiness_ns": t.max_tardiness.as_ns(),
            "mean_tardiness_ns": t.mean_tardiness,
            "max_response_ns": t.max_response.map(|d| d.as_ns()),
            "mean_response_ns": t.mean_response,
            "preemptions": t.preemptions,
            "migrations": t.migrations,
            "steals": t.steals,
            "context_switches": t.context_switches,
            "response_time": response_times(&self.jobs).map(|s| s.to_json()),
            "tardiness": tardiness(&self.jobs, self.horizon).map(|s| s.to_json()),
            "overheads": Value::Object(oh),
            "per_task": per_task,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TaskMeta, NO_CPU};

    fn meta(engine: &str, deadlines: &[u64], duration: u64) -> Meta {
        let mut m = Meta {
            engine: Some(engine.into()),
            cpus: Some(2),
            tasks: deadlines
                .iter()
                .map(|&d| TaskMeta {
                    name: None,
                    deadline_ns: Some(d),
                    split: Vec::new(),
                    ..Default::default()
                })
                .collect(),
            ..Meta::default()
        };
        m.extra.insert("duration_ns".into(), json!(duration));
        m
    }

    /// A hand-built runtime trace, horizon 100, deadlines 50 (τ0) and 30 (τ1):
    /// τ0#0 released at 0 (handler at 2), runs 5–20 on CPU 0, preempted, resumes 30–40 on
    /// CPU 1 (a migration), completes at 40 by its thread's clock (processed at 41).
    /// τ1#0 released at 10, runs 20–30 on CPU 0, completes at 30 → response 20, on time.
    /// τ1#1 released at 60 (deadline 90), never runs → unfinished, deadline within the
    /// horizon: missed, tardiness 100 − 90 = 10. τ1#2 released at 100 = horizon: not counted.
    #[test]
    fn jobs_from_a_hand_built_runtime_trace() {
        let ev = |t, k, cpu, task, seq, arg| Event::new(t, k, cpu, task, seq).with_arg(arg);
        let trace = vec![
            ev(2, Kind::Release, 0, 0, 0, 0),
            ev(5, Kind::SwitchIn, 0, 0, 0, 0),
            ev(11, Kind::Release, 0, 1, 0, 10),
            ev(20, Kind::SwitchOut, 0, 0, 0, 0),
            ev(20, Kind::Preempt, 0, 0, 0, 0),
            ev(20, Kind::SwitchIn, 0, 1, 0, 0),
            ev(30, Kind::SwitchOut, 0, 1, 0, 0),
            ev(30, Kind::SwitchIn, 1, 0, 0, 0),
            ev(30, Kind::Migrate, 1, 0, 0, 0),
            ev(31, Kind::Complete, 0, 1, 0, 30),
            ev(40, Kind::SwitchOut, 1, 0, 0, 0),
            ev(41, Kind::Complete, 1, 0, 0, 40),
            ev(61, Kind::Release, 0, 1, 1, 60),
            ev(101, Kind::Release, 0, 1, 2, 100),
            ev(101, Kind::SchedBegin, 0, u32::MAX, 0, 0),
        ];
        let s = analyze(&meta("runtime", &[50, 30], 100), &trace).unwrap();
        assert_eq!(s.jobs.len(), 3);
        let j0 = &s.jobs[0];
        assert_eq!((j0.task, j0.seq), (0, 0));
        assert_eq!(j0.start, Some(Time::from_ns(5)));
        assert_eq!(j0.completion, Some(Time::from_ns(40)));
        assert_eq!((j0.preemptions, j0.migrations), (1, 1));
        assert_eq!(j0.cpus_used, vec![0, 1]);
        assert_eq!(j0.executed, Duration::from_ns(25));
        let j2 = &s.jobs[2];
        assert_eq!((j2.task, j2.seq, j2.completion), (1, 1, None));
        assert_eq!(j2.tardiness, Duration::from_ns(10));
        let t = &s.totals;
        assert_eq!((t.jobs, t.completed, t.deadline_misses), (3, 2, 1));
        assert_eq!(t.max_response, Some(Duration::from_ns(40)));
        assert_eq!((t.preemptions, t.migrations, t.context_switches), (1, 1, 3));
        let r = response_times(&s.jobs).unwrap();
        assert_eq!((r.count, r.min_ns, r.max_ns), (2, 20, 40));
        // Overheads come from the same events: Δev of the three releases before the end.
        assert_eq!(
            s.overheads.samples.get("release_latency"),
            Some(&vec![2, 1, 1, 1])
        );
        let j = s.to_json();
        assert_eq!(j["deadline_misses"], 1);
        assert_eq!(j["overheads"]["release_latency"]["max_ns"], 2);
    }

    #[test]
    fn a_job_without_a_deadline_is_an_error_naming_the_task() {
        let trace = [Event::new(0, Kind::Release, NO_CPU, 3, 0)];
        let mut m = meta("sim", &[10], 100);
        m.tasks.clear();
        assert_eq!(
            analyze(&m, &trace).unwrap_err(),
            StatsError::NoDeadline { task: 3 }
        );
    }

    /// The per-task tables are sized from the task count: a task index from a corrupt file
    /// (no metadata task list) above the limit is an error, not an allocation.
    #[test]
    fn a_huge_task_index_is_an_error_not_an_allocation() {
        let trace = [Event::new(0, Kind::Release, NO_CPU, 4_000_000_000, 0)];
        let mut m = meta("runtime", &[], 100);
        m.tasks.clear();
        assert_eq!(
            analyze(&m, &trace).unwrap_err(),
            StatsError::TooManyTasks {
                count: 4_000_000_001,
                what: "the largest task index of its events + 1"
            }
        );
        let ok = [Event::new(0, Kind::Release, NO_CPU, 2, 0)];
        assert_eq!(task_count(&m, &ok), Ok(3));
    }

    proptest::proptest! {
        /// Statistics of an arbitrary trace — any times, kinds, CPUs, tasks (also beyond the
        /// metadata's), job numbers and arguments, with or without metadata — are an error
        /// or a value, never a panic (also with overflow checks, `cargo test` in debug).
        #[test]
        fn any_trace_is_an_error_or_statistics(
            events in proptest::collection::vec(
                (proptest::num::u64::ANY, 1u16..=23, 0u32..4, 0u32..6, 0u64..4, proptest::num::u64::ANY),
                0..60,
            ),
            with_tasks in proptest::bool::ANY,
            duration in proptest::option::of(proptest::num::u64::ANY),
        ) {
            let mut trace: Vec<Event> = events
                .iter()
                .filter_map(|&(t, k, cpu, task, seq, arg)| {
                    let kind = Kind::from_code(k)?;
                    let cpu = if cpu == 3 { NO_CPU } else { cpu };
                    let task = if task == 5 { u32::MAX } else { task };
                    Some(Event::new(t, kind, cpu, task, seq).with_arg(arg))
                })
                .collect();
            trace.sort_by_key(|e| e.time);
            let mut m = meta("runtime", &[u64::MAX, 0, 7], 0);
            if !with_tasks {
                m.tasks.clear();
            }
            match duration {
                Some(d) => { m.extra.insert("duration_ns".into(), json!(d)); }
                None => { m.extra.remove("duration_ns"); }
            }
            if let Ok(s) = analyze(&m, &trace) {
                let _ = s.to_json();
            }
        }
    }

    /// Equal counts: sets of 5, 3 and 8 become 3, 3, 3; each kept sample comes from its own
    /// set; the same seed selects the same samples.
    #[test]
    fn equalize_truncates_to_the_smallest_set() {
        let mut a: Vec<u64> = (0..5).collect();
        let mut b: Vec<u64> = (100..103).collect();
        let mut c: Vec<u64> = (200..208).collect();
        equalize(&mut [&mut a, &mut b, &mut c], 7);
        assert_eq!((a.len(), b.len(), c.len()), (3, 3, 3));
        assert!(a.iter().all(|x| *x < 5) && c.iter().all(|x| (200..208).contains(x)));
        let mut b2 = b.clone();
        b2.sort_unstable();
        assert_eq!(b2, vec![100, 101, 102]);
        let mut c2: Vec<u64> = (200..208).collect();
        let mut a2: Vec<u64> = (0..5).collect();
        let mut b3: Vec<u64> = (100..103).collect();
        equalize(&mut [&mut a2, &mut b3, &mut c2], 7);
        assert_eq!((a2, c2), (a, c));
    }

    #[test]
    fn report_order_follows_the_overhead_file() {
        assert_eq!(
            report_order(["release_to_run", "zeta", "ipi", "release_latency", "dsp"]),
            vec!["release_latency", "ipi", "dsp", "release_to_run", "zeta"]
        );
    }
}
