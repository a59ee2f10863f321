//! The exact uniprocessor tests as per-CPU admission tests: EDF (processor demand, QPA) for
//! `pedf-*` and fixed-priority response-time analysis for `pfp-*`.

use super::binpack::Admission;
use crate::system::Params;
use crate::uni::{edf, rta, Outcome};
use crate::util::budget::Budget;

/// Admission by exact uniprocessor EDF ([`edf::edf_feasible_with_limit`]).
pub struct EdfAdmission<'a> {
    params: &'a [Params],
    buf: Vec<Params>,
    /// One budget for every admission test of the packing.
    budget: Budget,
}

impl<'a> EdfAdmission<'a> {
    /// Admission for the tasks `params`, with the given QPA work limit per call.
    pub fn new(params: &'a [Params], limit: u64) -> Self {
        EdfAdmission {
            params,
            buf: Vec::new(),
            budget: Budget::new(limit),
        }
    }
}

impl Admission for EdfAdmission<'_> {
    fn admits(&mut self, cpu: &[usize], task: usize) -> Outcome {
        self.buf.clear();
        self.buf.extend(
            cpu.iter()
                .chain(Some(&task))
                .filter_map(|&i| self.params.get(i)),
        );
        edf::edf_feasible_budget(&self.buf, &mut self.budget)
    }
}

/// Admission by exact fixed-priority response-time analysis ([`rta::fp_feasible_from`]) under
/// the system's global priority order restricted to the CPU.
pub struct FpAdmission<'a> {
    params: &'a [Params],
    rank: Vec<usize>,
    idx: Vec<usize>,
    buf: Vec<Params>,
    /// One budget for every admission test of the packing.
    budget: Budget,
}

impl<'a> FpAdmission<'a> {
    /// Admission for the tasks `params` with priority `order` (highest first) and the given
    /// RTA work limit per call.
    pub fn new(params: &'a [Params], order: &[usize], limit: u64) -> Self {
        let mut rank = vec![usize::MAX; params.len()];
        for (r, &i) in order.iter().enumerate() {
            if let Some(slot) = rank.get_mut(i) {
                *slot = r;
            }
        }
        FpAdmission {
            params,
            rank,
            idx: Vec::new(),
            buf: Vec::new(),
            budget: Budget::new(limit),
        }
    }

    /// `tasks` sorted from highest to lowest priority.
    pub fn sorted(&self, tasks: &[usize]) -> Vec<usize> {
        let mut v = tasks.to_vec();
        v.sort_by_key(|&i| (self.rank.get(i).copied().unwrap_or(usize::MAX), i));
        v
    }
}

impl Admission for FpAdmission<'_> {
    fn admits(&mut self, cpu: &[usize], task: usize) -> Outcome {
        self.idx.clear();
        self.idx.extend_from_slice(cpu);
        self.idx.push(task);
        let rank = &self.rank;
        self.idx
            .sort_by_key(|&i| (rank.get(i).copied().unwrap_or(usize::MAX), i));
        let from = self.idx.iter().position(|&i| i == task).unwrap_or(0);
        self.buf.clear();
        self.buf
            .extend(self.idx.iter().filter_map(|&i| self.params.get(i)));
        // Tasks of higher priority than `task` keep their response times.
        rta::fp_feasible_from_budget(&self.buf, from, &mut self.budget)
    }
}
