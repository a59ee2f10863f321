//! The test of one group's tasks on its virtual processors [HCBS §3.3.4, Theorem 2, Eq. 14]:
//! global fixed priority over the servers `(Q_j, P_j)` the group holds, one per CPU.
//!
//! For each task `τ_k` in priority order: `W_k` from the higher-priority tasks of the group
//! [Eq. 11–12], the lengths from the exact supplies `Z_j(D_k)` [Eq. 4, Eq. 15], the
//! interference `Ī_k` [Eq. 13], and the test `C_k + Ī_k ≤ D_k` [Eq. 14].
//!
//! Response-time bound reported for a task that passes: `C_k + ⌈Ī_k⌉` (≤ `D_k`). Why it bounds
//! the response time: `Ī_k` bounds the time in `[r, r + D_k)` during which the job is pending
//! and not running; if the job were still pending at `r + C_k + Ī_k`, it would have been
//! pending and not running for more than `Ī_k` within `[r, r + D_k)`. A task after the first
//! failing one gets no bound: Eq. 12 assumes the higher-priority tasks meet their deadlines.
//!
//! Assumptions: sporadic tasks with constrained deadlines (`C ≤ D ≤ T`), preemptive global FP
//! inside the group, the servers' supplies as given (top-level groups after admission
//! [Eq. 17]; subgroups after `super::nesting`). Complexity: O(n_g² + n_g·m log m) per group.

use super::interference::{interference, lengths, workload, Interference};
use super::supply::Server;
use crate::system::Params;

/// One task's outcome: its bound, or why not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskOutcome {
    /// Eq. 14 holds: the response-time bound `C_k + ⌈Ī_k⌉` (ns).
    Bound(u64),
    /// Eq. 14 fails for this task: `C_k + Ī_k > D_k`, with `Ī_k`.
    Fails(Interference),
    /// Not analysed: a higher-priority task of the group failed.
    After,
}

/// Runs Eq. 14 for `order` (indices into `params`, highest priority first) on `servers`.
/// Returns one outcome per entry of `order`.
pub fn test_group(params: &[Params], order: &[usize], servers: &[Server]) -> Vec<TaskOutcome> {
    let mut out = Vec::with_capacity(order.len());
    let mut failed = false;
    for (pos, &k) in order.iter().enumerate() {
        if failed {
            out.push(TaskOutcome::After);
            continue;
        }
        let Some(task) = params.get(k) else {
            out.push(TaskOutcome::After);
            continue;
        };
        let higher = order[..pos].iter().filter_map(|&i| params.get(i));
        let ik = interference_for(task.d, workload(task.d, higher), servers);
        if ik.fits(task.c, task.d) {
            let bound = u128::from(task.c) + ik.ceil();
            out.push(TaskOutcome::Bound(u64::try_from(bound).unwrap_or(u64::MAX)));
        } else {
            failed = true;
            out.push(TaskOutcome::Fails(ik));
        }
    }
    out
}

/// `Ī` [Eq. 13] in a window of `d` for workload `w` on `servers` (lengths by Eq. 15 from the
/// exact supplies, Eq. 4). No servers: the task never runs, `Ī = d`.
pub fn interference_for(d: u64, w: u128, servers: &[Server]) -> Interference {
    let supplies: Vec<u64> = servers.iter().map(|s| s.supply(d)).collect();
    interference(&lengths(d, &supplies), w)
}

/// Whether every task of `order` passes (the group is schedulable on `servers`).
pub fn passes(params: &[Params], order: &[usize], servers: &[Server]) -> bool {
    test_group(params, order, servers)
        .iter()
        .all(|o| matches!(o, TaskOutcome::Bound(_)))
}
