//! `reservations`: hierarchical multiprocessor reservations in user space — the simulator's
//! `hcbs` policy (H-CBS [HCBS §3.2], `schedlab_policy::hcbs`: one hard CBS server per group
//! and CPU, EDF among the servers on each CPU, global fixed priority inside each group,
//! subgroups recursively) driven by real threads, with the engine's per-job budgets as the
//! servers' budget timers and policy timers as their replenishments.
//!
//! The servers' state lives in the policy, as in the simulator (DESIGN.md: a policy is written
//! once and driven by both engines); the architecture enacts it:
//! - **budgets**: the job linked to a CPU gets the smallest remaining budget of its server
//!   chain there as its engine budget (`crate::state`'s budgets: counted in the job thread's
//!   CPU time, one budget timer per CPU, armed at switch-in, cancelled at switch-out); at
//!   expiry the dispatcher of that CPU tells the policy (`on_budget_exhausted`), which charges
//!   the servers, throttles the exhausted ones and re-selects;
//! - **replenishments**: the policy's timers (one per server), fired by CPU 0's dispatcher
//!   (the timer owner, as under `global-lock`), which rings the CPUs whose link changed;
//! - **executed time**: the policy charges its servers with the dispatcher-side estimate of
//!   each job's execution (`crate::state`'s `View`: from the switch-in decision to the
//!   switch-out decision), which the state still reports for a job during its
//!   `on_complete` — the simulator's contract (`schedlab_policy::event`);
//! - **trace**: the server events as the simulator records them (`budget-replenished`,
//!   `budget-exhausted`, `budget-throttled`; `task` = `u32::MAX`, `seq` = the group, `cpu` =
//!   the server's CPU), and the scheduler hooks of [HCBS §5, Figs. 4–5] as operations
//!   (`enqueue`, `dequeue`, `pick_next`, `put_prev`, `budget_update`, `check_preempt`:
//!   `schedlab_trace::Op::HOOKS`, docs/overheads.md).
//!
//! Groups are scheduled globally (a group's jobs move between the CPUs its servers win), so
//! the structure is `global-lock`'s: one [`Sched`] behind one lock ([`LockedState`]), a
//! dispatcher per CPU. No link swaps: a job runs on the CPU whose server the policy chose
//! (its budget is that server's), so a job linked to another CPU waits there until the CPU
//! it runs on parked it.
//!
//! # Protocol
//!
//! State and owners:
//! - the one [`Sched`] (the `hcbs` policy with its servers, the ready queue, `assigned` and
//!   `scheduled` per CPU, the policy timers, the job records and budgets) is the `Synced`
//!   state behind the run's lock (`--lock ticket|mcs|mutex`), reached only through
//!   [`LockedState`] (`lock-wait-begin` … `lock-wait-end`);
//! - releases: task i's belong to CPU `i mod m`; policy timers (replenishments) to CPU 0;
//! - CPU c's budget timer (the engine budget of the job scheduled on c) belongs to c's
//!   dispatcher: it sleeps at most until it expires;
//! - job thread control blocks: as in [`crate::job`]; a job thread is re-pinned by the
//!   dispatcher that makes it runnable.
//!
//! Dispatch (dispatcher of c, [`crate::dispatch`]):
//! 1. its due releases: under the lock, the job handed to the policy (`enqueue`: its group's
//!    ready queue, the servers' wake-up rule), the links recomputed (`check_preempt`), the
//!    CPUs whose link changed marked;
//! 2. (CPU 0) the due replenishment timers (`budget_update`);
//! 3. c's budget timer if it expired (`budget_update`): the job's CPU clock read; a used-up
//!    budget is an exhaustion the policy handles (server throttled or replenished, new
//!    selection);
//! 4. its scheduling step (`sched-begin` … `sched-end`): a completion on c processed
//!    (`dequeue`), the job leaving c parked and its budget timer cancelled (`put_prev`), the
//!    new one pinned and its timer armed (`pick_next`) and woken;
//! 5. the doorbells of the other CPUs marked (`ipi-send`).
//!
//! Preemption: as `global-lock` — a CPU whose link changed is rung; its dispatcher, above
//! its job, parks the job before making another runnable there; a job is never runnable on
//! two CPUs.
//!
//! **Refused**: a policy other than `hcbs`; a set without groups; a task without a group
//! (naming it); parallel tasks (the servers charge one job per task at a time; the skeleton
//! refuses them, [`ArchDef::parallel`]); critical sections (`hcbs` has no resource
//! protocol; the skeleton refuses them, `Architecture::RESOURCES`).
//!
//! **Timing** (docs/runtime.md, "Reservations"): a budget is enforced by the dispatcher's
//! futex timeout, so a group runs on past an exhausted budget for the timer's wake-up
//! latency plus the switch (tens of µs on the test machine); a replenishment is late by the
//! same, plus an IPI when it concerns another CPU than 0.

use crate::arch::global_lock::LockedState;
use crate::arch::{lock_field, Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::dispatch::Dispatcher;
use crate::error::RuntimeError;
use crate::mech::lock::{LockKind, Locked};
use crate::run::MAX_EVENTS_PER_BUFFER;
use crate::state::{Sched, Threads};
use schedlab_model::GroupTree;
use schedlab_policy::Placement;
use schedlab_trace::tracebuf::TraceBuf;
use serde_json::Value;
use std::sync::Arc;

/// The policy it runs.
pub const POLICY: &str = "hcbs";

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "reservations",
    summary: "H-CBS reservation groups in user space: per (group, CPU) a hard CBS server with budget timers, EDF among servers per CPU, global FP inside groups (policy hcbs; --lock ticket|mcs|mutex)",
    kernel: false,
    parallel: false,
    options: &["lock"],
    partitioned_with: None,
    rt_load: RtLoad::Global,
    global_invariant: false,
    reserves_cpu0: |_| false,
    fields: |c| {
        let (groups, servers) = c.groups.as_deref().map_or((0, 0), counts);
        vec![
            ("lock", lock_field(c)),
            ("groups", Value::from(groups)),
            ("servers", Value::from(servers)),
        ]
    },
    note: |c| {
        let (groups, servers) = c.groups.as_deref().map_or((0, 0), counts);
        format!(" ({groups} groups, {servers} servers)")
    },
    run: crate::run::run_with::<Reservations>,
};

/// Number of groups and of servers (one per group and CPU).
fn counts(tree: &GroupTree) -> (usize, usize) {
    let servers = tree.groups().iter().map(|g| g.cpus.len()).sum();
    (tree.groups().len(), servers)
}

/// The state every dispatcher shares.
pub(crate) struct Reservations {
    state: Arc<Locked<Sched>>,
    /// Number of dispatchers (one per CPU).
    dispatchers: usize,
}

/// The tree of a run under `reservations`, checked (module doc, "Refused").
fn checked_tree<'a>(run: &'a Run<'_>) -> Result<&'a Arc<GroupTree>, RuntimeError> {
    let policy = run.config.policy.as_str();
    if policy != POLICY {
        return Err(RuntimeError::invalid(
            "policy",
            format!("`reservations` runs policy `{POLICY}` (H-CBS servers), not `{policy}`"),
        ));
    }
    let Some(tree) = run.config.groups.as_ref().filter(|t| !t.is_empty()) else {
        return Err(RuntimeError::invalid(
            "groups",
            "reservations runs the task file's reservation groups, and this set has none (give the file `groups = [{name, budget, period}]` and each task a `group`, or run another architecture)",
        ));
    };
    for i in 0..run.n() {
        if tree.group_of_task(i).is_none() {
            return Err(RuntimeError::InvalidTask {
                task: i,
                field: "group",
                message: "is missing: under reservations every task runs inside a reservation group (its servers' budgets)".into(),
            });
        }
    }
    Ok(tree)
}

/// Trace events a dispatcher may record about servers: per server 4 per period of the run
/// (replenishment, exhaustion, throttling, a wake-up), plus 4,096.
fn server_events(tree: &GroupTree, duration_ns: u64) -> usize {
    let per: u64 = tree
        .groups()
        .iter()
        .map(|g| {
            let periods = duration_ns / g.period.as_ns().max(1) + 1;
            periods
                .saturating_mul(4)
                .saturating_mul(g.cpus.len() as u64)
        })
        .fold(0u64, u64::saturating_add);
    usize::try_from(per.saturating_add(4096).min(MAX_EVENTS_PER_BUFFER)).unwrap_or(usize::MAX)
}

impl Architecture for Reservations {
    type Worker = Dispatcher<LockedState>;

    fn prepare(run: &Run<'_>, _warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        let tree = checked_tree(run)?;
        let config = run.config;
        let k = run.policy_cpus("reservations")?;
        let kind = config.arch.lock().unwrap_or(LockKind::Ticket);
        let placement = Placement::reservations(tree.clone(), run.n());
        let mut sched = run.sched(k, Some(placement), 0)?;
        sched.set_hooks(true);
        let state = Arc::new(Locked::new(kind, run.m as usize, sched));
        let m = run.m;
        let capacity = run
            .capacity
            .scheduler
            .saturating_add(server_events(tree, config.duration.as_ns()))
            .min(usize::try_from(MAX_EVENTS_PER_BUFFER).unwrap_or(usize::MAX));
        let workers = (0..m)
            .map(|cpu| Dispatcher {
                cpu,
                base: 0,
                local: Some(cpu as usize),
                releases: (0..run.n() as u32).filter(|i| i % m == cpu).collect(),
                timer_owner: 0,
                timers: cpu == 0,
                domain: LockedState::new(state.clone(), cpu as usize),
                buf: TraceBuf::new(capacity),
            })
            .collect();
        Ok(Setup {
            arch: Reservations {
                state,
                dispatchers: m as usize,
            },
            workers,
            jobs: Jobs::Threads {
                pinned: vec![None; run.n()],
            },
        })
    }

    fn thread_name(w: &Dispatcher<LockedState>) -> String {
        format!("sl-cpu{}", w.cpu)
    }

    fn set_up(&self, w: &Dispatcher<LockedState>, cx: &Cx<'_>) -> Result<(), String> {
        cx.pin_scheduler(w.cpu)
    }

    fn work(&self, w: Dispatcher<LockedState>, cx: &Cx<'_>) -> Dispatcher<LockedState> {
        w.run(cx.shared, &cx.th)
    }

    fn drain(&self, workers: Vec<Dispatcher<LockedState>>, th: &Threads<'_>, h: &mut Harvest) {
        for d in &workers {
            h.trace(&d.buf);
        }
        // A dispatcher left running past the grace period might hold the lock (as
        // `global-lock`).
        if workers.len() == self.dispatchers {
            let mut synced = self.state.lock(0);
            h.sched(&mut synced, th);
        }
    }
}
