//! `cedf-k<k>` with overheads: C-EDF is GSN-EDF (the `global-lock` architecture) inside each
//! cluster of `k` CPUs, so each cluster is charged as one global cluster of `k` CPUs
//! (preemption-centric accounting, interrupts on the cluster's CPUs; the overhead-aware
//! assignment of the project's issue for this feature).
//!
//! Assignment: worst fit decreasing as without overheads ([`super::cedf`]) — tasks by
//! decreasing original utilization (stable), each to the cluster with the largest spare
//! capacity `k − Σ C''/T''` *with the task included* among the clusters that admit it (ties: the
//! lowest cluster index), where a cluster admits a task when the cluster re-charged from the
//! original parameters with the task added succeeds and its charged utilization stays `≤ k`
//! (a rejected trial leaves the cluster as it was). With zero overheads this is exactly the
//! overhead-free assignment (the least-loaded cluster admits whenever any does). A task that
//! fits nowhere is a misfit; the assignment goes on. Then the `gedf` battery checks every
//! charged cluster on `k` CPUs, as without overheads.
//!
//! Complexity: `O(n·(m/k))` charges of `O(cluster)` each, plus the battery per cluster.

use super::cedf::check_clusters;
use crate::overheads::accounting::Charged;
use crate::overheads::arch::ArchKind;
use crate::overheads::context::{BinAccounting, BinCharger, OverheadContext};
use crate::system::{Params, System};
use crate::verdict::{Status, Verdict};
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

type Rows = Vec<(u64, u64, u64)>;

fn load(rows: &[(u64, u64, u64)]) -> impl Iterator<Item = Frac> + '_ {
    rows.iter().map(|&(c, t, _)| Frac::ratio(c, t))
}

/// C-EDF on clusters of `k` CPUs, charged per cluster (module documentation).
pub(crate) fn run(k: u32, sys: &System, ctx: &OverheadContext) -> Verdict {
    if ctx.setup.arch != ArchKind::GlobalLock {
        return Verdict::not_applicable(format!(
            "C-EDF is charged per cluster under --arch global-lock, not `{}`",
            ctx.setup.arch.section()
        ));
    }
    let params = sys.params();
    let clusters = (sys.cpus() / k.max(1)) as usize;
    let mut charger = BinCharger::new(ctx);
    let mut order: Vec<usize> = (0..params.len()).collect();
    let u = |i: usize| params.get(i).map_or(Frac::ZERO, |p| Frac::ratio(p.c, p.t));
    order.sort_by(|&a, &b| u(b).cmp_exact(u(a)));
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); clusters];
    let mut charged: Vec<Rows> = vec![Vec::new(); clusters];
    let mut misfits = Vec::new();
    let capacity = Frac::int(i128::from(k));
    for task in order {
        let mut best: Option<(usize, Rows)> = None;
        for (c, list) in members.iter().enumerate() {
            let mut trial = list.clone();
            trial.push(task);
            let rows = match charger.charge(&trial, k) {
                Ok(Charged::Ok(rows)) => rows,
                Ok(_) => continue,
                Err(e) => return Verdict::not_applicable(e),
            };
            if cmp_sum(|| load(&rows), capacity) == Ordering::Greater {
                continue;
            }
            let better = best.as_ref().is_none_or(|(_, b)| {
                let diff = || load(&rows).chain(load(b).map(|f| Frac::new(-f.num, f.den)));
                cmp_sum(diff, Frac::ZERO) == Ordering::Less
            });
            if better {
                best = Some((c, rows));
            }
        }
        match best {
            Some((c, rows)) => {
                if let (Some(list), Some(slot)) = (members.get_mut(c), charged.get_mut(c)) {
                    list.push(task);
                    *slot = rows;
                }
            }
            None => misfits.push(task),
        }
    }
    // Each cluster ascending, its charged parameters alongside.
    let mut partition = Vec::with_capacity(clusters);
    let mut bins = Vec::with_capacity(clusters);
    let mut cluster_params: Vec<Vec<Params>> = Vec::with_capacity(clusters);
    for (list, rows) in members.iter().zip(&charged) {
        let mut pairs: Vec<(usize, (u64, u64, u64))> =
            list.iter().copied().zip(rows.iter().copied()).collect();
        pairs.sort_unstable_by_key(|&(i, _)| i);
        partition.push(pairs.iter().map(|&(i, _)| i).collect::<Vec<_>>());
        cluster_params.push(
            pairs
                .iter()
                .map(|&(i, (c, t, d))| Params {
                    c,
                    d,
                    t,
                    prio: params.get(i).and_then(|p| p.prio),
                })
                .collect(),
        );
        bins.push(charger.accounting(k, Charged::Ok(pairs.iter().map(|&(_, p)| p).collect())));
    }
    let accounting = BinAccounting {
        key: "per_cluster",
        bins,
        misfits: misfits.clone(),
    };
    if !misfits.is_empty() {
        let list: Vec<String> = misfits.iter().map(usize::to_string).collect();
        return Verdict::not_shown()
            .because(format!(
                "task{} {} fitted in no cluster once charged with global-lock overheads",
                if list.len() == 1 { "" } else { "s" },
                list.join(", ")
            ))
            .with_partition(partition)
            .with_accounting(accounting);
    }
    let verdict = check_clusters(sys, &partition, |index, _| {
        let ps = cluster_params.get(index).cloned().unwrap_or_default();
        System::from_params(ps, k, sys.priorities()).map_err(|e| e.to_string())
    });
    let verdict = match verdict.status {
        Status::Schedulable => verdict,
        _ => verdict.with_partition(partition),
    };
    verdict.with_accounting(accounting)
}
