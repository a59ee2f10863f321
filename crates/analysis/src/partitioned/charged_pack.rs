//! Overhead-aware bin packing with rollback: the partitioning of `pedf-*`/`pfp-*` when the
//! system carries overheads (`crate::overheads::context`).
//!
//! **Why packing changes.** Under overheads a task's cost depends on the bin it lands in, and
//! adding it changes the costs of the tasks already there: the number of tasks `n` at which
//! the overheads are evaluated, the release-interrupt utilization `Σ Δrel/T` and the largest
//! *other* working set all change (preemption-centric accounting, Brandenburg 2011, Ch. 3; as
//! the MP paper [MP App. B] applies it to PSN-EDF). So each admission trial re-charges the whole
//! candidate bin from the *original* parameters ([`BinCharger`]) and runs the exact
//! uniprocessor test on the charged bin (QPA for EDF, response-time analysis for FP under the
//! system's priority order, which charging does not change); a rejected trial leaves the bin
//! as it was (rollback: the bin's state changes only on admission).
//!
//! **Heuristics** (as the project's issue fixes them): tasks in index order, or, for the
//! decreasing variants, by decreasing *original utilization* `C/T` (stable; ties keep the
//! index order — note: the overhead-free packing orders by density `C/min(D, T)`, the same
//! for implicit deadlines). First fit: the lowest CPU index that admits. Worst/best fit: among
//! the CPUs that admit, the largest/smallest spare capacity `1 − Σ C''/T''` *with the new task
//! included* (exact; ties: the lowest CPU index). Next fit: the current CPU, moving forward
//! (never back) each time a task does not fit. A task that fits nowhere is a *misfit*; packing
//! goes on; the set is schedulable iff there are no misfits. Pre-filter (sound, never changes
//! a result): a CPU whose charged utilization plus the task's *original* utilization exceeds 1
//! cannot admit it (charging only inflates, and a uniprocessor with utilization above 1 misses).
//!
//! **Complexity.** `O(n·m)` trials (every CPU for worst/best fit), each an `O(bin)` charge plus
//! a pseudo-polynomial exact test under the packing's shared work budget.

use super::pack_test::Local;
use crate::overheads::accounting::Charged;
use crate::overheads::context::BinCharger;
use crate::system::Params;
use crate::uni::{edf, rta, Outcome};
use crate::util::budget::Budget;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

use super::binpack::Heuristic;

/// One CPU's tasks (in the order they were admitted) and their charged `(C, T, D)`.
#[derive(Clone, Debug, Default)]
pub struct Bin {
    /// Task indices, in admission order.
    pub members: Vec<usize>,
    /// The charged parameters of `members`, aligned with it.
    pub charged: Rows,
}

/// The outcome of an overhead-aware packing.
#[derive(Clone, Debug, Default)]
pub struct Packing {
    /// Every CPU's bin, index = CPU.
    pub bins: Vec<Bin>,
    /// Tasks that fitted on no CPU, in packing order.
    pub misfits: Vec<usize>,
    /// Why an admission test gave up (work limit), the first time one did.
    pub gave_up: Option<String>,
}

/// The inputs of the packing that stay fixed across trials.
pub struct Packer<'c, 'p> {
    /// The original parameters (task-index order).
    pub params: &'p [Params],
    /// Each task's fixed-priority rank (0 = highest), for `Local::Fp`.
    pub ranks: &'p [u32],
    /// The local scheduler (and so the admission test).
    pub local: Local,
    /// Charges candidate bins.
    pub charger: BinCharger<'c>,
    /// The work budget shared by every admission test.
    pub budget: Budget,
}

/// Charged `(C, T, D)` of a bin's tasks.
pub type Rows = Vec<(u64, u64, u64)>;

fn utilization(c: u64, t: u64) -> Frac {
    Frac::ratio(c, t)
}

/// Compares the charged utilizations `Σ C/T` of two charged bins, exactly.
fn cmp_charged(a: &[(u64, u64, u64)], b: &[(u64, u64, u64)]) -> Ordering {
    let terms = || {
        let pos = a.iter().map(|&(c, t, _)| utilization(c, t));
        let neg = b.iter().map(|&(c, t, _)| {
            let u = utilization(c, t);
            Frac::new(-u.num, u.den)
        });
        pos.chain(neg)
    };
    cmp_sum(terms, Frac::ZERO)
}

impl Packer<'_, '_> {
    /// Task indices in packing order: index order, or by decreasing original utilization
    /// (stable).
    fn order(&self, decreasing: bool) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.params.len()).collect();
        if decreasing {
            let u = |i: usize| {
                self.params
                    .get(i)
                    .map_or(Frac::ZERO, |p| utilization(p.c, p.t))
            };
            order.sort_by(|&a, &b| u(b).cmp_exact(u(a)));
        }
        order
    }

    /// Trial: does `bin` with `task` added pass, once re-charged? On success the charged
    /// parameters of the bin's members followed by the task's.
    fn admit(&mut self, bin: &Bin, task: usize) -> Result<(Outcome, Rows), String> {
        let Some(new) = self.params.get(task) else {
            return Ok((Outcome::Unschedulable, Vec::new()));
        };
        // Pre-filter: charged utilization + original utilization > 1 cannot pass.
        let load = || {
            bin.charged
                .iter()
                .map(|&(c, t, _)| utilization(c, t))
                .chain(std::iter::once(utilization(new.c, new.t)))
        };
        if cmp_sum(load, Frac::ONE) == Ordering::Greater {
            return Ok((Outcome::Unschedulable, Vec::new()));
        }
        let mut trial = bin.members.clone();
        trial.push(task);
        let charged = match self.charger.charge(&trial, 1)? {
            Charged::Ok(params) => params,
            _ => return Ok((Outcome::Unschedulable, Vec::new())),
        };
        let as_params = |(&i, &(c, t, d)): (&usize, &(u64, u64, u64))| Params {
            c,
            d,
            t,
            prio: self.params.get(i).and_then(|p| p.prio),
        };
        let outcome = match self.local {
            Local::Edf => {
                let ps: Vec<Params> = trial.iter().zip(&charged).map(as_params).collect();
                edf::edf_feasible_budget(&ps, &mut self.budget)
            }
            Local::Fp => {
                let mut ranked: Vec<(u32, usize, Params)> = trial
                    .iter()
                    .zip(&charged)
                    .map(|pair| {
                        let rank = self.ranks.get(*pair.0).copied().unwrap_or(u32::MAX);
                        (rank, *pair.0, as_params(pair))
                    })
                    .collect();
                ranked.sort_by_key(|&(rank, i, _)| (rank, i));
                let ps: Vec<Params> = ranked.into_iter().map(|(_, _, p)| p).collect();
                rta::fp_feasible_from_budget(&ps, 0, &mut self.budget)
            }
        };
        Ok((outcome, charged))
    }

    /// Packs every task onto `m` CPUs (module documentation). `Err` only for input problems
    /// of the overhead file (a missing curve).
    pub fn pack(
        &mut self,
        m: usize,
        heuristic: Heuristic,
        decreasing: bool,
    ) -> Result<Packing, String> {
        let mut out = Packing {
            bins: vec![Bin::default(); m],
            misfits: Vec::new(),
            gave_up: None,
        };
        let mut current = 0usize; // next fit
        for task in self.order(decreasing) {
            let mut chosen: Option<(usize, Rows)> = None;
            let first = if heuristic == Heuristic::NextFit {
                current
            } else {
                0
            };
            for c in first..m {
                let Some(bin) = out.bins.get(c) else { break };
                let (outcome, charged) = self.admit(bin, task)?;
                match outcome {
                    Outcome::Schedulable => {}
                    Outcome::Unschedulable => {
                        if heuristic == Heuristic::NextFit {
                            current += 1;
                        }
                        continue;
                    }
                    Outcome::GaveUp(r) => {
                        out.gave_up.get_or_insert(r);
                        if heuristic == Heuristic::NextFit {
                            current += 1;
                        }
                        continue;
                    }
                }
                let better = match (&chosen, heuristic) {
                    (None, _) => true,
                    (Some((_, best)), Heuristic::WorstFit) => {
                        cmp_charged(&charged, best) == Ordering::Less
                    }
                    (Some((_, best)), Heuristic::BestFit) => {
                        cmp_charged(&charged, best) == Ordering::Greater
                    }
                    (Some(_), Heuristic::FirstFit | Heuristic::NextFit) => false,
                };
                if better {
                    chosen = Some((c, charged));
                }
                if matches!(heuristic, Heuristic::FirstFit | Heuristic::NextFit) {
                    break;
                }
            }
            match chosen.and_then(|(c, charged)| out.bins.get_mut(c).map(|b| (b, charged))) {
                Some((bin, charged)) => {
                    bin.members.push(task);
                    bin.charged = charged;
                }
                None => out.misfits.push(task),
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
#[path = "charged_pack_tests.rs"]
mod tests;
