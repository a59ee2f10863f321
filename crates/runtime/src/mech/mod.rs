//! The mechanism layer: everything the dispatch architectures need from Linux, and the only
//! place in schedlab with `unsafe` code and libc calls (DESIGN.md, "Runtime architectures").
//! Every `unsafe` block carries a `// SAFETY:` comment.
//!
//! - [`sched`]: thread ids, CPU affinity (pinning), SCHED_FIFO / SCHED_OTHER, the allowed
//!   CPUs; EPERM becomes [`MechError::NotPermitted`].
//! - [`futex`]: futex wait (with an absolute CLOCK_MONOTONIC deadline) and wake — the
//!   park/unpark primitive.
//! - [`clock`]: CLOCK_MONOTONIC, the thread CPU-time clock, absolute sleeps, and the TSC
//!   clock (rdtscp, frequency fitted against CLOCK_MONOTONIC).
//! - [`burn`]: a loop that consumes an exact amount of CPU time (polling
//!   CLOCK_THREAD_CPUTIME_ID), optionally dirtying a working set ("MA" tasks, [RTPS §VI]).
//! - [`preempt`]: enforced preemption — a signal whose handler parks the thread.
//! - [`lock`]: the global lock of `global-lock` (ticket, MCS, futex mutex).
//! - [`signals`]: SIGINT/SIGTERM capture for the duration of a run.
//! - [`cpuset`]: a root domain of their own for the run's CPUs (cgroup-v1 cpuset), so
//!   `linux-deadline` can run on a subset of the machine's CPUs.
//! - [`rt_cgroup`]: real-time group scheduling (cgroup-v1 `cpu.rt_runtime_us` /
//!   `cpu.rt_period_us`) for the groups of a run, undone afterwards (`linux-rt-groups`).

pub mod burn;
pub mod cgroup_v1;
pub mod clock;
pub mod cpuset;
pub mod futex;
pub mod lock;
pub mod preempt;
pub mod rt_cgroup;
pub mod sched;
pub mod signals;

/// A failed system call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MechError {
    /// The kernel refused: missing privilege (EPERM).
    #[error("{what}: not permitted (EPERM). Real-time scheduling needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO ≥ the priority; pass --allow-non-rt to run under SCHED_OTHER instead")]
    NotPermitted {
        /// What was attempted.
        what: String,
    },
    /// Any other failure, with the errno.
    #[error("{what}: {message} (errno {errno})")]
    Os {
        /// What was attempted.
        what: String,
        /// errno.
        errno: i32,
        /// strerror text.
        message: String,
    },
}

impl MechError {
    /// The error of the last failed call (reads errno).
    pub(crate) fn last(what: impl Into<String>) -> MechError {
        Self::from_io(what, &std::io::Error::last_os_error())
    }

    /// `e` as a mechanism error: EPERM and EACCES (file-based interfaces such as cgroups)
    /// are [`MechError::NotPermitted`].
    pub(crate) fn from_io(what: impl Into<String>, e: &std::io::Error) -> MechError {
        let errno = e.raw_os_error().unwrap_or(0);
        let what = what.into();
        if errno == libc::EPERM || errno == libc::EACCES {
            MechError::NotPermitted { what }
        } else {
            MechError::Os {
                what,
                errno,
                message: e.to_string(),
            }
        }
    }
}
