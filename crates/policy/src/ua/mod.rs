//! What the utility-accrual (UA) policies share [ChronOS §3.4, §6.6–6.10, §6.13–6.15]:
//! remaining execution, the utility a job would accrue, local value density (LVD), the one
//! order of equal keys, and the EDF feasibility check of a deadline-ordered schedule.
//!
//! - **Remaining execution** is the WCET minus what the job has executed ([`Ctx::progress`]);
//!   the policies never learn actual demands before completion.
//! - **Utility** of a job completing at `t`: its task's TUF at `t − release`
//!   ([`PolicyTask::tuf`]). A task without `utility` or `tuf` is worth 1 per job (every job
//!   equally important; documented in docs/policies.md).
//! - **LVD** = utility / remaining execution time [ChronOS §3.4, after Garyali]: compared by
//!   cross-multiplication in `f64` (no division by a zero remaining time); a job with nothing
//!   left to execute has the highest density.
//! - **Equal keys** are ordered by the project's one rule ([`crate::prio`]): task index, then
//!   job sequence number.
//! - **Feasibility** of a schedule ordered by deadline on one CPU [ChronOS Alg. 2–5,
//!   "ScheduleInfeasible"]: every job completes by its *critical time* when the jobs run back
//!   to back from `now` in that order. The critical time is the absolute deadline for a step
//!   TUF and the termination time (utility reaches 0) for other shapes [Locke 1986, §3]. O(k)
//!   for k jobs.

pub mod dasa;
pub mod ghvdf;
pub mod gnphvdf;
pub mod lbesa;
pub mod phvdf;
pub mod pool;
pub mod uni;

use crate::event::{Ctx, JobInfo};
use crate::task::PolicyTask;
use schedlab_model::{Duration, Time};
use std::cmp::Ordering;

/// The task of `job` among `tasks`, if known.
pub fn task_of<'a>(tasks: &'a [PolicyTask], job: &JobInfo) -> Option<&'a PolicyTask> {
    tasks.get(job.id.task.0 as usize)
}

/// What `job` still has to execute (its WCET minus what it executed).
pub fn remaining(ctx: &Ctx<'_>, job: &JobInfo) -> Duration {
    job.wcet.saturating_sub(ctx.progress.executed(job.id))
}

/// The utility `job` accrues if it completes at `done`: its task's TUF at `done − release`,
/// or 1 for a task without utility (module doc).
pub fn utility_at(task: Option<&PolicyTask>, job: &JobInfo, done: Time) -> f64 {
    let Some(task) = task else {
        return 0.0;
    };
    match &task.tuf {
        Some(tuf) => tuf.value_at(done.saturating_since(job.release), task.deadline),
        None => 1.0,
    }
}

/// The latest completion time that still accrues utility: the absolute deadline for a step
/// TUF (or none), the release plus the termination time otherwise.
pub fn critical_time(task: Option<&PolicyTask>, job: &JobInfo) -> Time {
    match task.and_then(|t| t.tuf.as_ref()) {
        Some(tuf) if !tuf.is_step() => {
            let rel = task.map_or(Duration::ZERO, |t| t.deadline);
            job.release
                .checked_add(tuf.termination(rel))
                .unwrap_or(Time::from_ns(u64::MAX))
        }
        _ => job.deadline,
    }
}

/// A job's value density: `value / remaining`, kept as the pair (module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Density {
    /// The utility it would accrue.
    pub value: f64,
    /// Its remaining execution, in ns.
    pub remaining: u64,
}

impl Density {
    /// The density of `job` at `ctx.now`: the utility of completing after running alone
    /// from now, over its remaining execution.
    pub fn of(ctx: &Ctx<'_>, tasks: &[PolicyTask], job: &JobInfo) -> Density {
        let rem = remaining(ctx, job);
        let done = ctx.now.checked_add(rem).unwrap_or(Time::from_ns(u64::MAX));
        Density {
            value: utility_at(task_of(tasks, job), job, done),
            remaining: rem.as_ns(),
        }
    }

    /// The density as one number, `value / remaining` (for keys that must be totally ordered,
    /// e.g. a heap's): `+∞` for a positive value with nothing left, 0 for no value.
    pub fn ratio(&self) -> f64 {
        if self.remaining == 0 {
            if self.value > 0.0 {
                f64::INFINITY
            } else {
                0.0
            }
        } else {
            self.value / self.remaining as f64
        }
    }

    /// `self` against `other`: `Greater` if `self` is denser. Cross-multiplied, so a zero
    /// remaining time is the densest (with a positive value) and no division happens.
    pub fn cmp_density(&self, other: &Density) -> Ordering {
        let lhs = self.value * other.remaining as f64;
        let rhs = other.value * self.remaining as f64;
        lhs.partial_cmp(&rhs).unwrap_or(Ordering::Equal)
    }
}

/// Orders jobs by decreasing density, ties by task index then job sequence (the project's one
/// rule): `Less` means `a` comes first.
pub fn by_density_desc(a: (&Density, &JobInfo), b: (&Density, &JobInfo)) -> Ordering {
    b.0.cmp_density(a.0)
        .then(a.1.id.task.cmp(&b.1.id.task))
        .then(a.1.id.seq.cmp(&b.1.id.seq))
        .then(a.1.id.strand.cmp(&b.1.id.strand))
}

/// Orders jobs by increasing critical time, ties by task index then job sequence: `Less`
/// means `a` comes first (the EDF order of the UA schedules).
pub fn by_critical_time(a: (Time, &JobInfo), b: (Time, &JobInfo)) -> Ordering {
    a.0.cmp(&b.0)
        .then(a.1.id.task.cmp(&b.1.id.task))
        .then(a.1.id.seq.cmp(&b.1.id.seq))
        .then(a.1.id.strand.cmp(&b.1.id.strand))
}

/// Whether jobs given as `(critical time, remaining)` in critical-time order all complete by
/// their critical times when run back to back from `now` on one CPU (module doc).
pub fn feasible(now: Time, schedule: impl IntoIterator<Item = (Time, Duration)>) -> bool {
    let mut t = now;
    for (critical, rem) in schedule {
        t = match t.checked_add(rem) {
            Some(t) => t,
            None => return false,
        };
        if t > critical {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{info, task};
    use crate::NoProgress;
    use schedlab_model::Tuf;

    #[test]
    fn density_cross_multiplies_and_orders_ties_by_task() {
        let ctx = Ctx::new(Time::ZERO, &NoProgress);
        let mut tasks = vec![task(4, 10, 10, 0), task(2, 10, 10, 1), task(2, 10, 10, 2)];
        tasks[0].tuf = Some(Tuf::Step { value: 8.0 });
        tasks[1].tuf = Some(Tuf::Step { value: 4.0 });
        tasks[2].tuf = Some(Tuf::Step { value: 6.0 });
        let jobs = [
            info(0, 0, 0, 10, 4),
            info(1, 0, 0, 10, 2),
            info(2, 0, 0, 10, 2),
        ];
        let d: Vec<Density> = jobs.iter().map(|j| Density::of(&ctx, &tasks, j)).collect();
        // 8/4 = 2 = 4/2 < 6/2 = 3.
        assert_eq!(d[0].cmp_density(&d[1]), Ordering::Equal);
        assert_eq!(d[2].cmp_density(&d[0]), Ordering::Greater);
        let mut order = [0usize, 1, 2];
        order.sort_by(|&a, &b| by_density_desc((&d[a], &jobs[a]), (&d[b], &jobs[b])));
        assert_eq!(order, [2, 0, 1]);
    }

    #[test]
    fn utility_of_late_completion_is_zero_and_no_tuf_is_one() {
        let tasks = [task(4, 10, 10, 0)];
        let job = info(0, 0, 0, 10, 4);
        assert_eq!(utility_at(tasks.first(), &job, Time::from_ns(10)), 1.0);
        let mut t = tasks[0].clone();
        t.tuf = Some(Tuf::Step { value: 3.0 });
        assert_eq!(utility_at(Some(&t), &job, Time::from_ns(10)), 3.0);
        assert_eq!(utility_at(Some(&t), &job, Time::from_ns(11)), 0.0);
        t.tuf = Some(Tuf::Linear {
            value: 3.0,
            zero_at: Duration::from_ns(30),
        });
        assert_eq!(critical_time(Some(&t), &job), Time::from_ns(30));
    }

    #[test]
    fn feasibility_runs_jobs_back_to_back() {
        let ns = Duration::from_ns;
        let at = Time::from_ns;
        assert!(feasible(at(0), [(at(3), ns(3)), (at(5), ns(2))]));
        assert!(!feasible(at(0), [(at(3), ns(3)), (at(4), ns(2))]));
        assert!(feasible(at(7), []));
    }
}
