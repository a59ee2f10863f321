//! The reservation guarantees of H-CBS [HCBS §3.2–3.3] checked on a trace of either engine
//! (`schedlab trace supply`): for every server — one per (group, CPU of the group) —
//!
//! - **(a) supply**: in every window `[t0, t0 + t)` during which the server is continuously
//!   *backlogged*, the group's subtree executed on the server's CPU for at least `Z(t)`, the
//!   server's supply function [HCBS Eq. 4] (given by the caller: the analysis crate's
//!   `hcbs::supply::Server::supply`; this crate does not depend on the analysis);
//! - **(b) budget**: between two consecutive replenishments of the server (`budget-replenished`
//!   with `task` = `u32::MAX`, `seq` = the group, `cpu`; docs/traces.md) the subtree executed
//!   on that CPU for at most `Q` (hard CBS: a throttled server never runs beyond its budget).
//!
//! **Reconstruction** (state after all events of an instant; `backlog` module): a task is
//! *ready* while it has a released job that is not complete or aborted and it is not blocked
//! (jobs of a task run in order, so a task counts once however many jobs it has pending); it
//! *runs* on CPU `j` between its `switch-in` and `switch-out` there. A group's *service* on `j`
//! is the execution on `j` of any task of its subtree (a subgroup's job drains its own server
//! and every ancestor's on that CPU). Server `(g, j)` is **backlogged** at an instant iff
//! 1. the subtree of `g` runs a task on `j`, or
//! 2. `g` has a ready task of its own that runs nowhere, or
//! 3. a child `c` of `g` with a server on `j` is backlogged on `j` and `(c, j)` is not
//!    throttled (between its `budget-throttled` and the next `budget-replenished`).
//!
//! That is the H-CBS notion of a server having work for its CPU [HCBS §3.2]: a waiting job
//! could run there through `(g, j)`; a job waiting only behind a throttled subgroup server is
//! no work for the parent (the parent may not run it). The server's own throttling does not
//! end its backlog: the blackout is part of the periodic supply that `Z` bounds.
//!
//! **Which windows suffice** (`windows` module). Let `S(t)` be the cumulative service and
//! `f(t0, t1) = S(t1) − S(t0) − Z(t1 − t0)` on `a ≤ t0 ≤ t1 ≤ b` for a backlogged interval
//! `[a, b)`. `S` is piecewise linear with slopes 0 or 1 (one CPU), and `Z` is non-decreasing
//! and 1-Lipschitz (slopes 0 or 1, continuous). For a fixed `t0`, on a stretch where `S` has
//! slope 1, `f` is non-decreasing in `t1` (Z grows by at most as much), so moving `t1` back to
//! the stretch's start does not increase `f`; where `S` is flat, `f` is non-increasing in
//! `t1`, so moving `t1` forward to the stretch's end does not increase it. Hence `t1` can be
//! taken at a **service start or `b`**. Symmetrically, for a fixed `t1`, `t0` can be taken at a
//! **service end or `a`** (slope 1: `−S(t0) − Z(t1 − t0)` is non-increasing in `t0`; flat:
//! non-decreasing). Each move keeps `t0 ≤ t1` or reaches the empty window (`f = 0`). So the
//! minimum of `f` over all windows is `0` or attained at such a pair: no corner of `Z` needs
//! to be visited. With `k` service stretches in `[a, b)` that is at most `(k + 1)(k + 2)/2`
//! windows, `O(k²)`; `k` is bounded by [`SupplyOptions::max_points`] (an error past it names
//! the server and the interval). The reported **minimum slack** is over the checked windows
//! with `Z > 0` (a window with `Z = 0` cannot fail): exact whenever it is negative (a
//! violation is always found), an upper bound of the true infimum otherwise.
//!
//! **Budget segments**: the service between consecutive replenishments, the first segment
//! from the trace start, the last to its end. A server with no server events in the trace
//! (a runtime baseline that records none) has (b) *not checked*, never passed by default.
//!
//! Tolerance: a real trace carries dispatch latencies the model has not; (a) passes when every
//! slack is `≥ −tolerance`, (b) when every segment is `≤ Q + tolerance` (0 for the simulator).
//!
//! Errors ([`SupplyError`]) name the event index and what is wrong (a task, CPU or group the
//! task file does not have, time going backwards, too many service stretches). Complexity:
//! reconstruction `O(E·(m·depth + s))` for `E` events, `m` CPUs, `s` servers; windows
//! `O(Σ k²)`. Memory `O(n + s + max k)`.

mod backlog;
mod windows;

#[cfg(test)]
mod tests;

use crate::Event;
use schedlab_model::GroupTree;

pub use windows::min_slack;

/// Default bound on the service stretches within one backlogged interval of one server.
pub const DEFAULT_MAX_POINTS: usize = 10_000;

/// Options of [`check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SupplyOptions {
    /// Allowed shortfall below `Z` and excess above `Q` (ns); 0 for simulated traces.
    pub tolerance_ns: u64,
    /// At most this many service stretches within one backlogged interval of one server.
    pub max_points: usize,
}

impl Default for SupplyOptions {
    fn default() -> SupplyOptions {
        SupplyOptions {
            tolerance_ns: 0,
            max_points: DEFAULT_MAX_POINTS,
        }
    }
}

/// A window `[start, end)` with the service received in it and the guarantee `Z(end − start)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Start (ns).
    pub start: u64,
    /// End (ns).
    pub end: u64,
    /// Service in it (ns).
    pub service: u64,
    /// `Z(end − start)` (ns).
    pub supply: u64,
}

impl Window {
    /// `service − Z`.
    pub fn slack(&self) -> i128 {
        i128::from(self.service) - i128::from(self.supply)
    }
}

/// A budget segment: the service between two replenishments (or a trace edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Start (ns): a replenishment, or the trace start.
    pub start: u64,
    /// End (ns): the next replenishment, or the trace end.
    pub end: u64,
    /// Service in it (ns).
    pub service: u64,
}

/// The result for one server `(group, cpu)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerReport {
    /// The group (index in the task file's groups).
    pub group: u32,
    /// Its name.
    pub name: String,
    /// The server's CPU.
    pub cpu: u32,
    /// Budget `Q` (ns).
    pub budget_ns: u64,
    /// Period `P` (ns).
    pub period_ns: u64,
    /// Backlogged intervals.
    pub backlogged_intervals: u64,
    /// Their total length (ns).
    pub backlogged_ns: u64,
    /// The longest one (ns).
    pub longest_backlog_ns: u64,
    /// Service on the CPU over the whole trace (ns).
    pub service_ns: u64,
    /// Windows evaluated for (a).
    pub windows: u64,
    /// The checked window with `Z > 0` of least slack (`None`: no such window).
    pub worst_window: Option<Window>,
    /// Replenishments in the trace.
    pub replenishments: u64,
    /// The budget segment of most service (`None`: the trace has no event of this server).
    pub max_segment: Option<Segment>,
    /// (a) held (within the tolerance).
    pub supply_ok: bool,
    /// (b) held (within the tolerance); `None`: not checked (no server events).
    pub budget_ok: Option<bool>,
}

impl ServerReport {
    /// Least slack over the windows with `Z > 0` (module doc), if any.
    pub fn min_slack(&self) -> Option<i128> {
        self.worst_window.map(|w| w.slack())
    }
    /// Both checks held (an unchecked (b) counts as held; see [`SupplyReport::unchecked`]).
    pub fn passed(&self) -> bool {
        self.supply_ok && self.budget_ok != Some(false)
    }
}

/// Execution of a group's subtree on a CPU where the group has no server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outside {
    /// The group.
    pub group: u32,
    /// The CPU.
    pub cpu: u32,
    /// How long (ns).
    pub ns: u64,
}

/// The result of [`check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SupplyReport {
    /// One per server, by group (file order), then CPU.
    pub servers: Vec<ServerReport>,
    /// Execution outside a group's CPUs (a failure).
    pub outside: Vec<Outside>,
    /// The trace end used (ns).
    pub horizon: u64,
    /// The tolerance applied (ns).
    pub tolerance_ns: u64,
}

impl SupplyReport {
    /// Every server passed both checks and no group ran outside its CPUs.
    pub fn passed(&self) -> bool {
        self.outside.is_empty() && self.servers.iter().all(ServerReport::passed)
    }
    /// The servers whose budget check (b) could not be made (no server events).
    pub fn unchecked(&self) -> impl Iterator<Item = &ServerReport> {
        self.servers.iter().filter(|s| s.budget_ok.is_none())
    }
}

/// A trace that does not fit the task file, or a check past its bound.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SupplyError {
    /// The task file has no reservation groups.
    #[error(
        "the task file has no reservation groups (`groups`, each task's `group`): nothing to check"
    )]
    NoGroups,
    /// An event names a task the task file does not have.
    #[error("event {index}: task {task}, but the task file has {tasks} tasks (is it the file the trace was made from?)")]
    Task {
        /// Event index.
        index: usize,
        /// The task index.
        task: u32,
        /// Tasks in the file.
        tasks: usize,
    },
    /// A task of the trace is in no group.
    #[error("event {index}: task {task} ({name}) is in no reservation group (field `group`)")]
    Ungrouped {
        /// Event index.
        index: usize,
        /// The task index.
        task: u32,
        /// Its name.
        name: String,
    },
    /// An event names a CPU beyond the platform.
    #[error(
        "event {index}: CPU {cpu}, but the groups were resolved for {cpus} CPUs (give --cpus)"
    )]
    Cpu {
        /// Event index.
        index: usize,
        /// The CPU.
        cpu: u32,
        /// CPUs of the tree.
        cpus: u32,
    },
    /// A server event names a group the file does not have.
    #[error("event {index}: server event of group {group}, but the task file has {groups} groups")]
    Group {
        /// Event index.
        index: usize,
        /// The group index (`seq`).
        group: u64,
        /// Groups in the file.
        groups: usize,
    },
    /// Events out of time order.
    #[error("event {index}: time {time} ns is before the previous event's {previous} ns (events must be in time order)")]
    Unordered {
        /// Event index.
        index: usize,
        /// Its time.
        time: u64,
        /// The previous event's time.
        previous: u64,
    },
    /// A server event on a CPU where the group has no server.
    #[error("event {index}: server event of group {group} on CPU {cpu}, where the group has no server (its `cpus`)")]
    NoServer {
        /// Event index.
        index: usize,
        /// The group's name.
        group: String,
        /// The CPU.
        cpu: u32,
    },
    /// Too many service stretches in one backlogged interval.
    #[error("group {group}, CPU {cpu}: more than {max} service stretches in the backlogged interval from {start} ns: the window check is O(k²) in them; raise the bound (--max-points) or check a shorter trace")]
    TooManyPoints {
        /// The group's name.
        group: String,
        /// The CPU.
        cpu: u32,
        /// Start of the interval (ns).
        start: u64,
        /// The bound.
        max: usize,
    },
}

/// Checks (a) and (b) (module doc) on `events` for the groups of `tree`; `supply(g, t)` is
/// group `g`'s `Z(t)`; `horizon` is the trace end (at least the last event's time is used).
pub fn check(
    events: &[Event],
    tree: &GroupTree,
    task_names: &[String],
    horizon: u64,
    opts: SupplyOptions,
    supply: impl Fn(u32, u64) -> u64,
) -> Result<SupplyReport, SupplyError> {
    if tree.is_empty() {
        return Err(SupplyError::NoGroups);
    }
    backlog::replay(events, tree, task_names, horizon, opts, &supply)
}
