//! `pedf-{ff,ffd,bf,bfd,wf,wfd,nf,nfd}` and `pfp-{…}`: partitioned EDF / fixed priorities with
//! a bin-packing heuristic and the exact uniprocessor test as per-CPU admission.
//!
//! Partitioning by bin packing: Dhall & Liu, "On a Real-Time Scheduling Problem", Operations
//! Research 26(1), 1978 (rate-monotonic next/first fit); heuristics and conventions as SchedCAT
//! `schedcat/mapping/binpack.py` (see [`super::binpack`]). Admission: exact uniprocessor EDF
//! (Zhang & Burns QPA, [`crate::uni::edf`]) for `pedf-*`; exact response-time analysis
//! (Joseph & Pandya 1986, Audsley et al. 1993, Lehoczky 1990 for `D > T`,
//! [`crate::uni::rta`]) under the system's priority assignment for `pfp-*`.
//!
//! Answer: sufficient. On success, "schedulable" with the partition (task indices per CPU,
//! ascending, `m` lists) and, for `pfp-*`, the per-CPU response times as bounds; otherwise
//! "not shown" (or "gave up" if an admission test reached its work limit on the way).
//! Assumptions: independent sporadic tasks, any deadlines, `m ≥ 1` identical CPUs.
//! Complexity: `O(n·m)` admission tests (each pseudo-polynomial), plus `O(n·m log m)` load
//! comparisons for best/worst fit.

use super::admission::{EdfAdmission, FpAdmission};
use super::binpack::{pack, Heuristic, PackFailure};
use super::charged_pack::Packer;
use crate::overheads::accounting::Charged;
use crate::overheads::arch::ArchKind;
use crate::overheads::context::{BinAccounting, BinCharger, OverheadContext};
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::uni::{qpa, rta};
use crate::util::budget::Budget;
use crate::verdict::Verdict;
use schedlab_model::Duration;

/// The uniprocessor scheduler on each CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Local {
    /// EDF (`pedf-*`).
    Edf,
    /// Fixed priorities (`pfp-*`).
    Fp,
}

/// A partitioned test: heuristic × (plain | decreasing) × local scheduler.
#[derive(Clone, Copy, Debug)]
pub struct Partitioned {
    /// Local scheduler (and admission test).
    pub local: Local,
    /// Bin-packing heuristic.
    pub heuristic: Heuristic,
    /// Sort by decreasing weight first.
    pub decreasing: bool,
    /// Work limit of the whole packing: one budget shared by every admission test it runs.
    pub limit: u64,
}

impl Partitioned {
    /// The test with the default work limit.
    pub fn new(local: Local, heuristic: Heuristic, decreasing: bool) -> Self {
        Partitioned {
            local,
            heuristic,
            decreasing,
            limit: match local {
                Local::Edf => qpa::DEFAULT_LIMIT,
                Local::Fp => rta::DEFAULT_LIMIT,
            },
        }
    }
}

fn failure(f: PackFailure) -> Verdict {
    match f {
        PackFailure::NoFit(task) => {
            Verdict::not_shown().because(format!("task {task} fitted on no CPU"))
        }
        PackFailure::GaveUp(r) => Verdict::gave_up(r),
    }
}

fn ascending(mut cpus: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    for c in &mut cpus {
        c.sort_unstable();
    }
    cpus
}

impl SchedTest for Partitioned {
    fn params(&self) -> Vec<Param> {
        vec![Param::new(
            "limit",
            self.limit,
            "work budget of the whole packing (all admission tests) before giving up",
        )]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "limit" => self.limit = param::parse_u64(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        let prefix = match self.local {
            Local::Edf => "pedf",
            Local::Fp => "pfp",
        };
        let d = if self.decreasing { "d" } else { "" };
        TestInfo {
            name: format!("{prefix}-{}{d}", self.heuristic.short()),
            family: "partitioned",
            kind: Kind::Sufficient,
            citation: match self.local {
                Local::Edf => {
                    "bin packing (Dhall & Liu, Oper. Res. 26(1) 1978; SchedCAT \
                               mapping/binpack.py) with exact uniprocessor EDF admission \
                               (Zhang & Burns, IEEE TC 58(9) 2009, QPA)"
                }
                Local::Fp => {
                    "bin packing (Dhall & Liu, Oper. Res. 26(1) 1978; SchedCAT \
                              mapping/binpack.py) with exact response-time admission (Joseph & \
                              Pandya 1986; Audsley et al. 1993; Lehoczky RTSS 1990)"
                }
            },
            assumptions: match self.local {
                Local::Edf => "independent sporadic tasks; any deadlines; partitioned EDF",
                Local::Fp => {
                    "independent sporadic tasks; any deadlines; partitioned fixed \
                              priorities from the system's assignment (dm default)"
                }
            },
            complexity: "O(n·m) admission tests (pseudo-polynomial each, work-limited)",
        }
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        match self.local {
            Local::Edf => Ok(()),
            Local::Fp => sys.priority_order().map(|_| ()),
        }
    }
    fn charges_per_bin(&self) -> bool {
        true
    }
    fn run(&self, sys: &System) -> Verdict {
        if let Some(ctx) = sys.overheads() {
            return self.run_charged(sys, ctx);
        }
        let params = sys.params();
        let m = sys.cpus() as usize;
        match self.local {
            Local::Edf => {
                let mut adm = EdfAdmission::new(params, self.limit);
                match pack(params, m, self.heuristic, self.decreasing, &mut adm) {
                    Ok(cpus) => Verdict::sufficient(true).with_partition(ascending(cpus)),
                    Err(f) => failure(f),
                }
            }
            Local::Fp => {
                let order = match sys.priority_order() {
                    Ok(o) => o,
                    Err(r) => return Verdict::not_applicable(r),
                };
                let mut adm = FpAdmission::new(params, order, self.limit);
                let cpus = match pack(params, m, self.heuristic, self.decreasing, &mut adm) {
                    Ok(cpus) => cpus,
                    Err(f) => return failure(f),
                };
                // Response-time bounds per CPU (every CPU passed the admission test, so this
                // only repeats converged analyses; a work limit hit here is reported honestly).
                let mut bounds = vec![Duration::ZERO; params.len()];
                for cpu in &cpus {
                    let sorted = adm.sorted(cpu);
                    let ps: Vec<_> = sorted
                        .iter()
                        .filter_map(|&i| params.get(i).copied())
                        .collect();
                    match rta::fp_response_times(&ps, self.limit) {
                        Ok(times) => {
                            for (&i, r) in sorted.iter().zip(times) {
                                if let Some(b) = bounds.get_mut(i) {
                                    *b = Duration::from_ns(r);
                                }
                            }
                        }
                        Err(crate::uni::Outcome::GaveUp(r)) => return Verdict::gave_up(r),
                        Err(_) => return Verdict::not_shown(),
                    }
                }
                Verdict::sufficient(true)
                    .with_partition(ascending(cpus))
                    .with_response_times(bounds)
            }
        }
    }
}

impl Partitioned {
    /// The overhead-aware packing with rollback ([`super::charged_pack`]) under `--arch
    /// partitioned`: every CPU's bin charged from the original parameters.
    fn run_charged(&self, sys: &System, ctx: &OverheadContext) -> Verdict {
        // PSN-EDF/P-FP per CPU under `partitioned`; P-FP also under `semi-partitioned`, every
        // task charged as a non-split one [RTPS §V] (the FFD/WFD baselines of [RTPS §VII]).
        let fits = matches!(
            (ctx.setup.arch, self.local),
            (ArchKind::Partitioned, _) | (ArchKind::SemiPartitioned, Local::Fp)
        );
        if !fits {
            return Verdict::not_applicable(format!(
                "a partitioned test is charged per CPU under --arch partitioned (pfp-* also under semi-partitioned), not `{}`",
                ctx.setup.arch.section()
            ));
        }
        let ranks = match self.local {
            Local::Edf => Vec::new(),
            Local::Fp => match sys.priority_ranks() {
                Ok(r) => r,
                Err(r) => return Verdict::not_applicable(r),
            },
        };
        let charger = BinCharger::new(ctx);
        let mut packer = Packer {
            params: sys.params(),
            ranks: &ranks,
            local: self.local,
            charger,
            budget: Budget::new(self.limit),
        };
        let packing = match packer.pack(sys.cpus() as usize, self.heuristic, self.decreasing) {
            Ok(p) => p,
            Err(e) => return Verdict::not_applicable(e),
        };
        let mut partition = Vec::with_capacity(packing.bins.len());
        let mut bins = Vec::with_capacity(packing.bins.len());
        let mut bounds = (self.local == Local::Fp).then(|| vec![Duration::ZERO; sys.len()]);
        for bin in &packing.bins {
            // The bin's tasks ascending, their charged parameters alongside.
            let mut rows: Vec<(usize, (u64, u64, u64))> = bin
                .members
                .iter()
                .copied()
                .zip(bin.charged.iter().copied())
                .collect();
            rows.sort_unstable_by_key(|&(i, _)| i);
            if let Some(all) = &mut bounds {
                if let Err(v) = fp_bounds(&rows, &ranks, sys, self.limit, all) {
                    return v;
                }
            }
            partition.push(rows.iter().map(|&(i, _)| i).collect::<Vec<_>>());
            let charged = Charged::Ok(rows.iter().map(|&(_, p)| p).collect());
            bins.push(packer.charger.accounting(1, charged));
        }
        let accounting = BinAccounting {
            key: "per_cpu",
            bins,
            misfits: packing.misfits.clone(),
        };
        let verdict = if packing.misfits.is_empty() {
            let v = Verdict::sufficient(true);
            match bounds {
                Some(b) => v.with_response_times(b),
                None => v,
            }
        } else {
            let list: Vec<String> = packing.misfits.iter().map(usize::to_string).collect();
            let what = format!(
                "task{} {} fitted on no CPU once charged with {} overheads",
                if list.len() == 1 { "" } else { "s" },
                list.join(", "),
                ctx.setup.arch.section()
            );
            match packing.gave_up {
                Some(r) => Verdict::gave_up(format!("{what}, and an admission test gave up: {r}")),
                None => Verdict::not_shown().because(what),
            }
        };
        verdict
            .with_partition(partition)
            .with_accounting(accounting)
    }
}

/// Response-time bounds of one charged bin (`rows`: task index and charged parameters) into
/// `all`; `Err` with the verdict when the analysis gives up.
#[allow(clippy::result_large_err)] // the error is the final verdict, built once
fn fp_bounds(
    rows: &[(usize, (u64, u64, u64))],
    ranks: &[u32],
    sys: &System,
    limit: u64,
    all: &mut [Duration],
) -> Result<(), Verdict> {
    let mut sorted: Vec<(u32, usize, Params)> = rows
        .iter()
        .map(|&(i, (c, t, d))| {
            let prio = sys.params().get(i).and_then(|p| p.prio);
            let rank = ranks.get(i).copied().unwrap_or(u32::MAX);
            (rank, i, Params { c, d, t, prio })
        })
        .collect();
    sorted.sort_by_key(|&(rank, i, _)| (rank, i));
    let ps: Vec<Params> = sorted.iter().map(|&(_, _, p)| p).collect();
    match rta::fp_response_times(&ps, limit) {
        Ok(times) => {
            for (&(_, i, _), r) in sorted.iter().zip(times) {
                if let Some(b) = all.get_mut(i) {
                    *b = Duration::from_ns(r);
                }
            }
            Ok(())
        }
        Err(crate::uni::Outcome::GaveUp(r)) => Err(Verdict::gave_up(r)),
        Err(_) => Err(Verdict::not_shown()),
    }
}

#[cfg(test)]
#[path = "pack_tests.rs"]
mod tests;
