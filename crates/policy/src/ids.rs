//! Identifiers: tasks by index in the task set, CPUs by 0-based number, jobs by
//! `(task, sequence number, strand)`.

use std::fmt;

/// A task: its 0-based index in the task set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub u32);

/// A CPU: 0-based. Inside a scheduling domain, CPUs are numbered from 0 within the domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CpuId(pub u32);

/// A job: the `seq`-th (0-based) job of `task`; `strand` numbers the threads of a parallel
/// job (0 for sequential tasks, the only kind this release simulates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobId {
    /// The task.
    pub task: TaskId,
    /// 0-based job number within the task.
    pub seq: u64,
    /// Strand of a parallel job; 0 for a sequential job.
    pub strand: u32,
}

impl JobId {
    /// The sequential job `seq` of `task`.
    pub const fn new(task: TaskId, seq: u64) -> JobId {
        JobId {
            task,
            seq,
            strand: 0,
        }
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.strand == 0 {
            write!(f, "τ{}#{}", self.task.0, self.seq)
        } else {
            write!(f, "τ{}#{}.{}", self.task.0, self.seq, self.strand)
        }
    }
}

/// A timer a policy asked for; the number is the policy's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(pub u64);

/// A single-unit resource (mutex) [ChronOS §3.6]: the task set's resource number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceId(pub u32);

impl fmt::Display for ResourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "R{}", self.0)
    }
}
