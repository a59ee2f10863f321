//! Bin-packing heuristics with an exact per-CPU admission test.
//!
//! The heuristics follow SchedCAT's `schedcat/mapping/binpack.py` (itself after Jongen, Meer &
//! Triesch, *Optimization Theory*, 2004), with one difference: SchedCAT packs weights into a
//! capacity, while here a task fits on a CPU iff an exact uniprocessor test
//! ([`Admission`]) accepts the CPU's tasks plus the new one.
//!
//! * **first fit**: CPUs in index order, the first that admits.
//! * **best fit**: CPUs from the most to the least loaded, the first that admits.
//! * **worst fit**: CPUs from the least to the most loaded, the first that admits. (SchedCAT
//!   only tries the least-loaded bin, which is equivalent under a capacity test; with an exact
//!   admission test a more loaded CPU may still admit, so all are tried.)
//! * **next fit**: a current CPU; when the task does not fit, move to the next, never back.
//! * **decreasing** variants first sort the tasks by decreasing weight (stable: ties keep
//!   task-index order, as Python's stable `sort(reverse=True)` in SchedCAT).
//!
//! Weight of a task = `C / min(D, T)`: its utilization for implicit deadlines, its density when
//! deadlines are constrained. A CPU's load is the sum of its tasks' weights. Loads are compared
//! exactly (float filter, exact rational fallback); ties go to the lower CPU index.
//!
//! If the admission test gives up on some CPU, the task is treated as not fitting there; if the
//! packing then fails, the result is "gave up" (the failure may be due to the work limit).

use super::super::uni::Outcome;
use crate::system::Params;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// Which CPU a heuristic tries first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heuristic {
    /// First fit.
    FirstFit,
    /// Best fit (most-loaded CPU first).
    BestFit,
    /// Worst fit (least-loaded CPU first).
    WorstFit,
    /// Next fit (never go back to an earlier CPU).
    NextFit,
}

impl Heuristic {
    /// Short name: `ff`, `bf`, `wf`, `nf`.
    pub fn short(self) -> &'static str {
        match self {
            Heuristic::FirstFit => "ff",
            Heuristic::BestFit => "bf",
            Heuristic::WorstFit => "wf",
            Heuristic::NextFit => "nf",
        }
    }
}

/// An exact per-CPU admission test.
pub trait Admission {
    /// Do the tasks `cpu` (indices into the system, in the order they were added) together with
    /// `task` pass the uniprocessor test?
    fn admits(&mut self, cpu: &[usize], task: usize) -> Outcome;
}

/// Why a packing failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackFailure {
    /// This task fitted on no CPU.
    NoFit(usize),
    /// A task fitted nowhere and some admission test gave up on the way (the reason).
    GaveUp(String),
}

/// The weight `C / min(D, T)` of a task.
pub fn weight(p: &Params) -> Frac {
    Frac::ratio(p.c, p.min_dt())
}

/// Task indices in packing order: index order, or by decreasing weight (stable).
pub fn packing_order(params: &[Params], decreasing: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..params.len()).collect();
    if decreasing {
        order.sort_by(|&a, &b| match (params.get(a), params.get(b)) {
            (Some(pa), Some(pb)) => weight(pb).cmp_exact(weight(pa)),
            _ => Ordering::Equal,
        });
    }
    order
}

/// A CPU's load: its members and the approximate weight sum used by the comparison filter.
struct Load {
    approx: f64,
}

/// Compares the loads of two CPUs exactly.
fn cmp_load(params: &[Params], a: (&[usize], f64), b: (&[usize], f64)) -> Ordering {
    let (ma, la) = a;
    let (mb, lb) = b;
    // Each weight is within 2 ulp, each running sum adds one rounding per term.
    let k = (ma.len() + mb.len()) as f64;
    let tol = 4.0 * (k + 4.0) * f64::EPSILON * (la + lb) + f64::MIN_POSITIVE;
    if la > lb + tol {
        return Ordering::Greater;
    }
    if la + tol < lb {
        return Ordering::Less;
    }
    let terms = || {
        let pos = ma.iter().filter_map(|&i| params.get(i)).map(weight);
        let neg = mb.iter().filter_map(|&i| params.get(i)).map(|p| {
            let w = weight(p);
            Frac::new(-w.num, w.den)
        });
        pos.chain(neg)
    };
    cmp_sum(terms, Frac::ZERO)
}

/// Packs the tasks of `params` onto `m` CPUs. On success, the task indices per CPU (each list
/// in the order the tasks were added). `m` is a [`System`](crate::System)'s CPU count, so at
/// most [`MAX_CPUS`](schedlab_model::platform::MAX_CPUS): the per-CPU lists are allocated up
/// front.
pub fn pack(
    params: &[Params],
    m: usize,
    heuristic: Heuristic,
    decreasing: bool,
    admission: &mut dyn Admission,
) -> Result<Vec<Vec<usize>>, PackFailure> {
    debug_assert!(m <= schedlab_model::platform::MAX_CPUS as usize);
    let mut cpus: Vec<Vec<usize>> = vec![Vec::new(); m];
    let mut loads: Vec<Load> = (0..m).map(|_| Load { approx: 0.0 }).collect();
    let mut gave_up: Option<String> = None;
    let mut current = 0usize; // next fit
    let mut candidates: Vec<usize> = Vec::with_capacity(m);
    for task in packing_order(params, decreasing) {
        let Some(p) = params.get(task) else { continue };
        candidates.clear();
        match heuristic {
            Heuristic::FirstFit => candidates.extend(0..m),
            Heuristic::NextFit => candidates.extend(current..m),
            Heuristic::BestFit | Heuristic::WorstFit => {
                candidates.extend(0..m);
                let key = |c: usize| {
                    (
                        cpus.get(c).map_or(&[][..], Vec::as_slice),
                        loads.get(c).map_or(0.0, |l| l.approx),
                    )
                };
                // Stable sort: equal loads keep the lower CPU index first.
                candidates.sort_by(|&x, &y| {
                    let o = cmp_load(params, key(x), key(y));
                    if heuristic == Heuristic::BestFit {
                        o.reverse()
                    } else {
                        o
                    }
                });
            }
        }
        let mut placed = None;
        for &c in &candidates {
            let members = cpus.get(c).map_or(&[][..], Vec::as_slice);
            match admission.admits(members, task) {
                Outcome::Schedulable => {
                    placed = Some(c);
                    break;
                }
                Outcome::Unschedulable => {}
                Outcome::GaveUp(r) => {
                    gave_up.get_or_insert(r);
                }
            }
            if heuristic == Heuristic::NextFit {
                current += 1;
            }
        }
        match placed {
            Some(c) => {
                if let (Some(list), Some(load)) = (cpus.get_mut(c), loads.get_mut(c)) {
                    list.push(task);
                    load.approx += weight(p).to_f64();
                }
            }
            None => {
                return Err(match gave_up {
                    Some(r) => PackFailure::GaveUp(format!(
                        "task {task} fitted on no CPU, and the admission test gave up on some \
                         CPU: {r}"
                    )),
                    None => PackFailure::NoFit(task),
                })
            }
        }
    }
    Ok(cpus)
}
