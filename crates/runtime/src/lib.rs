//! # schedlab-runtime
//!
//! Runs task sets for real on Linux: one thread per task (the thread-per-task model
//! [ChronOS §3.3]), each job burning exactly its execution time in CPU time, released
//! synchronously at a common time zero [MP App. A], and scheduled by the *same*
//! `schedlab-policy` code the simulator drives, enacted by a dispatch architecture:
//!
//! - `partitioned`: one independent scheduler per CPU, releases handled locally, no shared
//!   state (P-EDF, P-FP);
//! - `global-lock`: one lock (ticket, MCS or futex mutex, [ChronOS §7]) guards the policy
//!   state; every CPU schedules for the system (GSN-EDF, ChronOS stop-the-world, [MP §II-B]);
//!   optionally CPU 0 takes every release and runs no job (GSN-EDF-DI, [MP §IV]);
//! - `concurrent`: ChronOS application-concurrent [ChronOS §5.6.4] — one locked global
//!   queue, each CPU pulls its own next job, no preemption (G-FIFO, G-NP-EDF, G-NP-HVDF);
//! - `message-passing`: G-EDF-MP [MP §III] — a dedicated scheduling processor owns all
//!   state without locks, clients report through wait-free mailboxes and enact the links;
//! - `work-stealing`: RTWS [RTWS §V] — a global EDF queue of jobs behind a short lock,
//!   per-CPU priority queues of deques for the threads of parallel (fork-join) jobs, idle
//!   CPUs steal; parallel tasks also run as strands under `global-lock` and `concurrent`;
//! - kernel baselines `linux-deadline` (SCHED_DEADLINE) and `linux-fifo` (SCHED_FIFO), the
//!   same workload scheduled by Linux.
//!
//! Module map:
//! - [`arch`]: the architectures, one module each behind one interface
//!   (`arch::Architecture`), and their registry ([`arch::REGISTRY`]: `--arch`, Python);
//!   [`run`](mod@run): the one run skeleton every architecture goes through (validate and
//!   bound the run, start synchronously, watchdog, drain, account);
//! - [`mech`]: the mechanism layer (threads, priorities, futexes, clocks, burn loop,
//!   enforced preemption, locks, signals, cpusets) — the only `unsafe` code;
//! - [`config`]: what to run ([`RtTask`], [`RunConfig`], [`Arch`]);
//! - [`state`]: the scheduling state an architecture drives the policy with (links, hand-over,
//!   job records, policy aborts and their handlers [ChronOS §3.5]);
//! - [`job`]: the job threads; [`dispatch`]: the per-CPU dispatcher loop of `partitioned`
//!   and `global-lock` and the doorbells;
//! - [`mp`]: the DSP and client threads of `message-passing` and their shared slots;
//!   [`mailbox`]: its wait-free client → DSP rings (loom-checked);
//! - [`throttle`]: warnings about the kernel's RT throttling limit; [`background`]: the
//!   cache-thrashing background load; [`cpmd`]: measuring the cache-related
//!   preemption/migration delay; [`tick`]: the kernel's tick period and measuring the tick's
//!   cost Δtck; [`timing`]: the timing accuracy of the threading models [ChronOS §9.4];
//! - [`front`]: from a task set to a result, its JSON and its trace metadata.
//!
//! Trace buffers, statistics, overhead samples and their fit, and the checks of a schedule
//! are `schedlab-trace`'s (they work on traces of either engine).
//!
//! See `docs/runtime.md` for the design, its bounds, and what is not built yet.

#![deny(unsafe_code)]

pub mod arch;
pub mod background;
pub mod config;
pub mod cpmd;
pub mod dispatch;
pub mod error;
pub mod front;
pub mod job;
pub mod locks;
pub mod mailbox;
#[allow(unsafe_code)]
pub mod mech;
pub mod mp;
pub mod request;
pub mod run;
pub mod state;
pub mod syscost;
pub mod throttle;
pub mod tick;
pub mod timing;
mod watchdog;

pub use config::{Arch, Body, RtTask, RunConfig};
pub use error::RuntimeError;
pub use mech::lock::LockKind;
pub use run::{run, RunResult};
pub use schedlab_trace::overheads::{OverheadStats, Overheads};
