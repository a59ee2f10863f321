//! Priority order of jobs — the one documented place (DESIGN.md, "Priority order").
//!
//! A job's priority is its [`JobKey`] `(primary, task index, seq, strand)`, compared
//! lexicographically; **smaller = higher priority**. The primary key depends on the policy
//! ([`Primary`]):
//!
//! | policy | primary key | source |
//! |---|---|---|
//! | `gedf`, `gnpedf`, `pedf`, `cedf`, `edzl` (outside zero laxity) | absolute deadline | [ChronOS §6.4, §6.5, §6.12, §6.16] |
//! | `gfp`, `pfp`, `pfp-ts` | the task's fixed-priority rank ([`PolicyTask::rank`], 0 = highest) | [ChronOS §6.3, §6.11] |
//! | `gfifo` | release time | [ChronOS §6.2] |
//!
//! Ties in the primary key are broken by task index, then job sequence number (then strand,
//! always 0 for sequential jobs), so the order of *waiting* jobs is total and deterministic.
//!
//! **Equal-key rule.** A linked (running) job is never preempted by a job with an *equal*
//! primary key: preemption needs a strictly smaller primary key ([`JobKey::preempts`]). The
//! tie-break by task index and sequence number orders the waiting jobs only, so it never causes
//! a needless preemption. Consequence: the linked set is the `k` highest-priority jobs *modulo*
//! ties in the primary key.
//!
//! `edzl` refines this order with a zero-laxity class in front (see [`crate::edzl`]).

use crate::event::JobInfo;
use crate::ids::JobId;
use crate::task::PolicyTask;

/// Which job attribute is the primary priority key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primary {
    /// Absolute deadline (EDF family).
    Deadline,
    /// The task's fixed-priority rank (FP family).
    Rank,
    /// Release time (FIFO).
    Release,
}

/// A job's priority: smaller is higher priority; fields compared in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobKey {
    /// The policy's primary key (deadline / rank / release, in ns or rank units).
    pub primary: u64,
    /// Task index (first tie-break).
    pub task: u32,
    /// Job sequence number (second tie-break).
    pub seq: u64,
    /// Strand of a parallel job (last tie-break; 0 for sequential jobs).
    pub strand: u32,
}

impl JobKey {
    /// The key of `job` under `primary`. A job of a task unknown to `tasks` has rank
    /// `u32::MAX` (lowest fixed priority) under [`Primary::Rank`].
    pub fn of(primary: Primary, job: &JobInfo, tasks: &[PolicyTask]) -> JobKey {
        let p = match primary {
            Primary::Deadline => job.deadline.as_ns(),
            Primary::Release => job.release.as_ns(),
            Primary::Rank => {
                let task = usize::try_from(job.id.task.0).ok();
                u64::from(task.and_then(|i| tasks.get(i)).map_or(u32::MAX, |t| t.rank))
            }
        };
        JobKey::new(p, job.id)
    }

    /// The key with primary value `primary` for job `id`.
    pub const fn new(primary: u64, id: JobId) -> JobKey {
        JobKey {
            primary,
            task: id.task.0,
            seq: id.seq,
            strand: id.strand,
        }
    }

    /// The job this key orders.
    pub const fn job(&self) -> JobId {
        JobId {
            task: crate::ids::TaskId(self.task),
            seq: self.seq,
            strand: self.strand,
        }
    }

    /// Whether a waiting job with this key may preempt a linked job with key `linked`:
    /// only with a *strictly* smaller primary key (the equal-key rule).
    pub fn preempts(&self, linked: &JobKey) -> bool {
        self.primary < linked.primary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TaskId;
    use schedlab_model::{Duration, Time};

    fn info(task: u32, seq: u64, release: u64, deadline: u64) -> JobInfo {
        JobInfo {
            id: JobId::new(TaskId(task), seq),
            release: Time::from_ns(release),
            deadline: Time::from_ns(deadline),
            wcet: Duration::from_ns(1),
        }
    }

    fn task(rank: u32) -> PolicyTask {
        PolicyTask::new(
            Duration::from_ns(1),
            Duration::from_ns(10),
            Duration::from_ns(10),
            rank,
        )
    }

    #[test]
    fn ties_by_task_then_seq_but_no_preemption_on_equal_primary() {
        let a = JobKey::of(Primary::Deadline, &info(0, 3, 0, 10), &[]);
        let b = JobKey::of(Primary::Deadline, &info(1, 0, 0, 10), &[]);
        let c = JobKey::of(Primary::Deadline, &info(1, 1, 5, 10), &[]);
        assert!(a < b && b < c);
        assert!(!a.preempts(&b) && !b.preempts(&a));
        let d = JobKey::of(Primary::Deadline, &info(5, 0, 0, 9), &[]);
        assert!(d < a && d.preempts(&a));
    }

    #[test]
    fn rank_and_release_keys() {
        let tasks = [task(1), task(0)];
        let k0 = JobKey::of(Primary::Rank, &info(0, 0, 0, 5), &tasks);
        let k1 = JobKey::of(Primary::Rank, &info(1, 0, 0, 50), &tasks);
        assert!(k1 < k0 && k1.preempts(&k0));
        // Unknown task: lowest fixed priority.
        let k9 = JobKey::of(Primary::Rank, &info(9, 0, 0, 1), &tasks);
        assert!(k0 < k9);
        let f0 = JobKey::of(Primary::Release, &info(3, 0, 7, 100), &tasks);
        let f1 = JobKey::of(Primary::Release, &info(0, 0, 8, 9), &tasks);
        assert!(f0 < f1);
    }
}
