//! The accounting of a finished run: the architectures' raw job records, the counters from
//! the trace, and the simulator's metrics.

use crate::config::RtTask;
use crate::state::RawRecord;
use schedlab_model::{Duration, Time, Tuf};
use schedlab_trace::counts::{context_switches, job_counts, JobCounts};
use schedlab_trace::metrics::{summarize, JobRecord, TaskAcc, TaskMetrics, Totals};
use schedlab_trace::Event;

/// The job records of the jobs released before the horizon, by (task, seq), and the
/// simulator's per-task and whole-run metrics of them. Each job's start, preemptions,
/// migrations and CPUs, and the context switches, are counted from the run's `trace` (ns,
/// time-ordered) by `schedlab_trace::counts` — the definition `schedlab trace stats` uses —
/// not by the architectures; the records give release, deadline, completion and CPU time.
///
/// A periodic job whose intended release lies before the horizon but that the run never
/// released (its releasing thread was kept off its CPU — e.g. by another program's real-time
/// thread — until the run stopped) is accounted too, as released and never started: every
/// job of the horizon is counted once, none is lost.
pub(crate) fn account(
    raw: Vec<RawRecord>,
    conv: &impl Fn(u64) -> u64,
    horizon_ns: u64,
    tasks: &[RtTask],
    trace: &[Event],
) -> (Vec<JobRecord>, Vec<TaskMetrics>, Totals) {
    let n = tasks.len();
    let horizon = Time::from_ns(horizon_ns);
    let mut counts = job_counts(trace);
    let mut jobs: Vec<JobRecord> = raw
        .into_iter()
        .filter(|r| r.release_ns < horizon_ns)
        .map(|r| {
            let c = counts.remove(&(r.task, r.seq)).unwrap_or_default();
            let task = tasks.get(r.task as usize);
            to_record(r, c, conv, horizon_ns, task)
        })
        .collect();
    let mut released = vec![0u64; n];
    for j in &jobs {
        if let Some(k) = released.get_mut(j.task as usize) {
            *k = (*k).max(j.seq + 1);
        }
    }
    for (i, (t, &k)) in tasks.iter().zip(&released).enumerate() {
        let (offset, period) = (t.offset.as_ns(), t.period.as_ns().max(1));
        let due = horizon_ns.saturating_sub(offset).div_ceil(period);
        for seq in k..due {
            let release_ns = offset.saturating_add(seq.saturating_mul(period));
            let deadline_ns = release_ns.saturating_add(t.deadline.as_ns());
            let mut rec = JobRecord::fresh(
                i as u32,
                seq,
                Time::from_ns(release_ns),
                Time::from_ns(deadline_ns),
                Vec::new(),
            );
            rec.tardiness =
                schedlab_model::Duration::from_ns(horizon_ns.saturating_sub(deadline_ns));
            jobs.push(rec);
        }
    }
    jobs.sort_unstable_by_key(|j| (j.task, j.seq));
    let mut accs = vec![TaskAcc::default(); n];
    for j in &jobs {
        if let Some(a) = accs.get_mut(j.task as usize) {
            a.add(j, horizon);
        }
    }
    let tufs: Vec<Option<Tuf>> = tasks.iter().map(effective_tuf).collect();
    let (per_task, totals) = summarize(&accs, &tufs, context_switches(trace));
    (jobs, per_task, totals)
}

/// A task's time/utility function: its `tuf`, else the step of its `utility` (the model's
/// `Task::effective_tuf`).
fn effective_tuf(t: &RtTask) -> Option<Tuf> {
    t.tuf
        .clone()
        .or_else(|| t.utility.map(|value| Tuf::Step { value }))
}

/// A job record from the architecture's raw record, the job's counters from the trace and
/// its task (for its TUF: the utility a completed job accrued, its termination time — the
/// simulator's rules, `schedlab_trace::metrics`). An aborted job has no completion, accrues
/// nothing and has no tardiness (as in the simulator).
fn to_record(
    r: RawRecord,
    c: JobCounts,
    conv: &impl Fn(u64) -> u64,
    horizon: u64,
    task: Option<&RtTask>,
) -> JobRecord {
    let completion = r
        .completion_ticks
        .map(conv)
        .filter(|&c| c <= horizon && !r.aborted);
    let tardiness = match completion {
        Some(c) => c.saturating_sub(r.deadline_ns),
        None if r.aborted => 0,
        None if r.deadline_ns <= horizon => horizon - r.deadline_ns,
        None => 0,
    };
    let tuf = task.and_then(effective_tuf);
    let rel_deadline = Duration::from_ns(r.deadline_ns.saturating_sub(r.release_ns));
    let utility = match (&tuf, completion) {
        (Some(t), Some(c)) => t.value_at(
            Duration::from_ns(c.saturating_sub(r.release_ns)),
            rel_deadline,
        ),
        _ => 0.0,
    };
    let termination = match &tuf {
        Some(t) if !t.is_step() => Time::from_ns(
            r.release_ns
                .saturating_add(t.termination(rel_deadline).as_ns()),
        ),
        _ => Time::from_ns(r.deadline_ns),
    };
    JobRecord {
        task: r.task,
        seq: r.seq,
        release: Time::from_ns(r.release_ns),
        deadline: Time::from_ns(r.deadline_ns),
        start: r.start_ticks.map(|t| Time::from_ns(conv(t))),
        completion: completion.map(Time::from_ns),
        cpus_used: c.cpus,
        preemptions: c.preemptions,
        migrations: c.migrations,
        steals: c.steals,
        executed: Duration::from_ns(r.executed_ns),
        tardiness: Duration::from_ns(tardiness),
        aborted: r.aborted,
        utility,
        termination,
        // Block to grant (or abort), `state/locks.rs`.
        blocked: Duration::from_ns(r.blocked_ns),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_trace::Kind;

    fn raw(task: u32, seq: u64, period: u64, done: bool) -> RawRecord {
        let release_ns = seq * period;
        RawRecord {
            task,
            seq,
            release_ns,
            deadline_ns: release_ns + period,
            start_ticks: done.then_some(release_ns + 1),
            completion_ticks: done.then_some(release_ns + 2),
            executed_ns: if done { 1 } else { 0 },
            aborted: false,
            blocked_ns: 0,
        }
    }

    /// τ0 = (C 1, T = D = 10), horizon 35: releases at 0, 10, 20, 30 are due. The run
    /// processed only 0 and 10 (its releasing thread starved from then on): jobs 2 and 3 are
    /// accounted as released and never started; job 2 (deadline 30 ≤ 35) is a miss with
    /// tardiness 5, job 3 (deadline 40) is not.
    #[test]
    fn releases_the_run_never_processed_are_accounted() {
        let task = RtTask::new(
            schedlab_model::Duration::from_ns(1),
            schedlab_model::Duration::from_ns(10),
            schedlab_model::Duration::from_ns(10),
        );
        let records = vec![raw(0, 0, 10, true), raw(0, 1, 10, true)];
        let (jobs, per_task, totals) = account(records, &|t| t, 35, &[task], &[]);
        let seqs: Vec<u64> = jobs.iter().map(|j| j.seq).collect();
        assert_eq!(seqs, vec![0, 1, 2, 3]);
        assert_eq!(jobs[2].release, Time::from_ns(20));
        assert_eq!((jobs[2].start, jobs[2].completion), (None, None));
        assert_eq!(jobs[2].tardiness, schedlab_model::Duration::from_ns(5));
        assert_eq!(jobs[3].tardiness, schedlab_model::Duration::ZERO);
        assert_eq!(totals.jobs, 4);
        assert_eq!(totals.deadline_misses, 1);
        assert_eq!(per_task[0].jobs, 4);
    }

    /// Preemptions, migrations, CPUs and context switches come from the trace (one
    /// definition with `schedlab trace stats`, `schedlab_trace::counts`): job 0 ran on CPU 0,
    /// was parked (`preempt`), made runnable on CPU 1 and parked again before its thread ran
    /// there (no `switch-in`, no `preempt`: nothing executed), then ran on CPU 0 again. One
    /// preemption, no migration, CPUs [0], two context switches. (Counted by the dispatchers,
    /// as before, the record said two preemptions and two migrations.)
    #[test]
    fn counters_come_from_the_trace() {
        let task = RtTask::new(
            schedlab_model::Duration::from_ns(4),
            schedlab_model::Duration::from_ns(100),
            schedlab_model::Duration::from_ns(100),
        );
        let ev = |t, k, cpu| Event::new(t, k, cpu, 0, 0);
        let trace = [
            ev(1, Kind::SwitchIn, 0),
            ev(2, Kind::SwitchOut, 0),
            ev(2, Kind::Preempt, 0),
            ev(3, Kind::Link, 1),
            ev(4, Kind::Link, 0),
            ev(5, Kind::SwitchIn, 0),
            ev(8, Kind::SwitchOut, 0),
        ];
        let (jobs, _, totals) = account(vec![raw(0, 0, 100, true)], &|t| t, 50, &[task], &trace);
        assert_eq!((jobs[0].preemptions, jobs[0].migrations), (1, 0));
        assert_eq!(jobs[0].cpus_used, vec![0]);
        assert_eq!((totals.preemptions, totals.context_switches), (1, 2));
    }
}
