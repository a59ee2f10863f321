//! Why a run could not start or did not finish cleanly.

use crate::mech::MechError;
use schedlab_policy::PolicyError;

/// A run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// A system call failed (EPERM for real-time priorities is [`MechError::NotPermitted`]).
    #[error(transparent)]
    Mech(#[from] MechError),
    /// The policy could not be built.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// No tasks.
    #[error("the task set is empty: nothing to run")]
    NoTasks,
    /// A task's parameters cannot be run.
    #[error("task {task}: {field} {message}")]
    InvalidTask {
        /// Task index.
        task: usize,
        /// The field.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A parallel (fork-join) task [RTWS §III] the run cannot execute as such: the
    /// architecture or the policy does not take parallel tasks (running the job as one
    /// sequential body of `wcet` would run another task than the one given), or its threads
    /// exceed the runtime's bound on job threads.
    #[error("task {task} is parallel (field `parallel`): {reason}")]
    ParallelTask {
        /// Task index.
        task: usize,
        /// Why it cannot run, naming what does take parallel tasks.
        reason: String,
    },
    /// A run option is invalid.
    #[error("{field}: {message}")]
    InvalidConfig {
        /// The option.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A requested CPU does not exist or this process may not use it.
    #[error("CPU {cpu} is not available to this process (allowed: {allowed})")]
    CpuNotAllowed {
        /// The CPU asked for.
        cpu: u32,
        /// The allowed CPUs.
        allowed: String,
    },
    /// A thread of the run could not be set up.
    #[error("thread setup failed: {0}")]
    Setup(String),
}

impl RuntimeError {
    /// An invalid option `field`, with what is wrong.
    pub(crate) fn invalid(field: &'static str, message: impl Into<String>) -> RuntimeError {
        RuntimeError::InvalidConfig {
            field,
            message: message.into(),
        }
    }
}
