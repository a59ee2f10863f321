//! Why a simulation could not run (bad input) or had to stop (a policy broke its contract).

use schedlab_model::Time;

/// A simulation error. Bad input is reported before anything runs; a policy that breaks the
/// calling contract of `schedlab_policy::Policy` (links a job it was never given, links one job
/// to two CPUs, names a CPU that does not exist) stops the run with the time and the reason.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// `cpus = 0`.
    #[error("the platform needs at least one CPU")]
    NoCpus,
    /// `cpus` above [`schedlab_model::platform::MAX_CPUS`] (the engine allocates per-CPU state).
    #[error(transparent)]
    TooManyCpus(#[from] schedlab_model::platform::TooManyCpus),
    /// The task set is empty.
    #[error("the task set is empty")]
    NoTasks,
    /// `duration = 0`.
    #[error("the simulated duration must be greater than zero")]
    ZeroDuration,
    /// More tasks than fit in a `u32` task index.
    #[error("too many tasks ({0}); at most 2^32-1 are supported")]
    TooManyTasks(usize),
    /// A task parameter is unusable.
    #[error("task {task}: field `{field}` {message}")]
    InvalidTask {
        /// Task index.
        task: usize,
        /// Field name (`wcet`, `period`, `deadline`, `offset`, `utility`, `tuf`,
        /// `abort_cost`, `critical_sections`).
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A parallel (fork-join) task [RTWS §III] under a policy that does not schedule the
    /// threads of parallel jobs (`schedlab_policy::Policy::parallel_support`): running the
    /// job as one sequential job of length `wcet` would simulate another task.
    #[error("task {task} is parallel (field `parallel`), and policy `{policy}` does not schedule parallel tasks; the policies that do: {accepted}")]
    ParallelTask {
        /// Task index.
        task: usize,
        /// The policy.
        policy: String,
        /// The policies that take parallel tasks (`schedlab_policy::parallel_policies`).
        accepted: String,
    },
    /// A parallel task with run-time overheads: overhead charging models the dispatches of
    /// sequential jobs only (docs/simulation.md, "Parallel tasks").
    #[error("task {task} is parallel (field `parallel`): run-time overheads (`--overheads`) are charged for sequential tasks only; simulate parallel tasks without overheads")]
    ParallelOverheads {
        /// Task index.
        task: usize,
    },
    /// A configuration parameter is unusable.
    #[error("simulation option `{field}` {message}")]
    InvalidConfig {
        /// Option name.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The policy schedules a different number of CPUs than the configuration.
    #[error("policy `{policy}` schedules {policy_cpus} CPUs but the simulation has {cpus}")]
    CpuMismatch {
        /// Policy name.
        policy: String,
        /// Its CPU count.
        policy_cpus: u32,
        /// The configured CPU count.
        cpus: u32,
    },
    /// An instant or deadline does not fit in 64 bits of nanoseconds.
    #[error("time overflow (beyond 2^64-1 ns) while computing {0}")]
    Overflow(&'static str),
    /// The policy broke its contract.
    #[error("policy `{policy}` at t = {time}: {message}")]
    PolicyViolation {
        /// Policy name.
        policy: String,
        /// When.
        time: Time,
        /// What it did.
        message: String,
    },
}
