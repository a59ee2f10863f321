//! `pfp-ts`: semi-partitioned fixed-priority scheduling with task splitting, FP-TS as
//! [RTPS §III] describes and implements it (Zhang, Guan, Xiao & Yi; the algorithm of Guan,
//! Stigge, Yi & Yu, RTAS 2010), with exact response-time analysis per CPU
//! ([`super::assign`] has the algorithm and why its synthetic deadlines are sound).
//!
//! **Fallback.** When the task-splitting assignment fails, the test also tries the split-free
//! partitions of first-fit and worst-fit decreasing (exactly `pfp-ffd` and `pfp-wfd`, charged
//! like non-split tasks under overheads): a partition is a semi-partition with no split task
//! and runs unchanged under the semi-partitioned scheduler, so a set either heuristic
//! partitions is schedulable under `pfp-ts` too. FP-TS's own order (increasing priority,
//! least-loaded CPU) cannot guarantee that by itself. The result's `assignment` says which
//! method placed the tasks (`fp-ts`, `ffd`, `wfd`); `pfp-ts:fallback=false` is the bare
//! algorithm of [RTPS §III].
//!
//! **Overheads** (`--overheads … --arch semi-partitioned`): every part is charged by
//! [RTPS §V] (`super::rtps_costs`), on every trial.
//!
//! Answer: sufficient. On success, "schedulable" with `partition` (per CPU the tasks it hosts,
//! split tasks on several), the split tasks and per-task end-to-end response-time bounds.
//! Assumptions: independent sporadic tasks, constrained deadlines (`D ≤ T`: a split job's parts
//! run one after the other within its period), preemptive fixed priorities per CPU from the
//! system's assignment (`dm` default: RM for implicit deadlines), identical CPUs; a part runs
//! exactly its budget before the job migrates (budgets enforced by the scheduler).
//! Complexity: see [`super::assign`]; the fallback adds two `O(n·m)` packings.

use super::assign::{Assignment, Failure};
use super::costs::{Costs, NoCosts};
use super::rtps_costs::RtpsCosts;
use crate::overheads::arch::ArchKind;
use crate::param::{self, Param};
use crate::partitioned::binpack::{pack, Admission, Heuristic};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::uni::{rta, Outcome};
use crate::util::budget::Budget;
use crate::verdict::Verdict;
use schedlab_model::Duration;

/// The `pfp-ts` test.
#[derive(Clone, Copy, Debug)]
pub struct PfpTs {
    /// Work limit (RTA iterations over the whole assignment, fallback included).
    pub limit: u64,
    /// Try the split-free FFD and WFD partitions when the splitting assignment fails.
    pub fallback: bool,
}

impl Default for PfpTs {
    fn default() -> Self {
        PfpTs {
            limit: rta::DEFAULT_LIMIT,
            fallback: true,
        }
    }
}

/// The result of one semi-partitioned assignment attempt.
enum Attempt {
    /// Placed; the verdict carries the assignment.
    Placed(Verdict),
    /// Failed; why.
    Failed(String),
}

impl PfpTs {
    /// Runs the assignment (and the fallback) with `costs`.
    pub(crate) fn assign(&self, sys: &System, costs: &dyn Costs) -> Verdict {
        let (order, ranks) = match (sys.priority_order(), sys.priority_ranks()) {
            (Ok(o), Ok(r)) => (o, r),
            (Err(e), _) | (_, Err(e)) => return Verdict::not_applicable(e),
        };
        let params = sys.params();
        let m = sys.cpus() as usize;
        let mut a = Assignment::new(params, &ranks, costs, m, self.limit);
        let first = match a.place_all(order.iter().rev().copied()) {
            Ok(()) => match a.finish("fp-ts") {
                Some(f) => return placed(f),
                None => "the final response-time analysis reached its work limit".to_string(),
            },
            Err(Failure::NoFit(task)) => format!("FP-TS: task {task} fitted on no CPU"),
        };
        let mut gave_up = a.gave_up.take();
        if self.fallback {
            let mut budget = a.budget;
            for (method, h) in [("ffd", Heuristic::FirstFit), ("wfd", Heuristic::WorstFit)] {
                match partition(params, &ranks, costs, m, h, &mut budget) {
                    Attempt::Placed(v) => {
                        return v.because(format!(
                            "{first}; the split-free partition of {method} holds"
                        ));
                    }
                    Attempt::Failed(r) => {
                        if budget.exhausted() {
                            gave_up.get_or_insert(r);
                        }
                    }
                }
            }
        }
        match gave_up {
            Some(r) => Verdict::gave_up(format!("{first}, and an analysis gave up: {r}")),
            None => Verdict::not_shown().because(first),
        }
    }
}

fn placed(f: super::assign::Finished) -> Verdict {
    Verdict::sufficient(true)
        .with_partition(f.partition)
        .with_response_times(
            f.response_times
                .into_iter()
                .map(Duration::from_ns)
                .collect(),
        )
        .with_semi(f.assignment)
}

/// Admission of whole tasks charged as non-split parts (split counts all zero).
struct WholeAdmission<'a> {
    params: &'a [Params],
    ranks: &'a [u32],
    costs: &'a dyn Costs,
    m: usize,
    budget: &'a mut Budget,
}

impl Admission for WholeAdmission<'_> {
    fn admits(&mut self, cpu: &[usize], task: usize) -> Outcome {
        let mut a = Assignment::new(
            self.params,
            self.ranks,
            self.costs,
            self.m,
            self.budget.limit,
        );
        a.budget = *self.budget;
        let ok = a.admits_whole_set(cpu.iter().copied().chain(Some(task)));
        *self.budget = a.budget;
        match (ok, a.gave_up) {
            (true, _) => Outcome::Schedulable,
            (false, Some(r)) => Outcome::GaveUp(r),
            (false, None) => Outcome::Unschedulable,
        }
    }
}

/// The split-free partition of `pfp-ffd` / `pfp-wfd` with the semi-partitioned charges.
fn partition(
    params: &[Params],
    ranks: &[u32],
    costs: &dyn Costs,
    m: usize,
    heuristic: Heuristic,
    budget: &mut Budget,
) -> Attempt {
    let mut adm = WholeAdmission {
        params,
        ranks,
        costs,
        m,
        budget,
    };
    let cpus = match pack(params, m, heuristic, true, &mut adm) {
        Ok(cpus) => cpus,
        Err(f) => return Attempt::Failed(format!("{f:?}")),
    };
    let method = match heuristic {
        Heuristic::FirstFit => "ffd",
        _ => "wfd",
    };
    let mut a = Assignment::new(params, ranks, costs, m, adm.budget.limit);
    a.budget = *adm.budget;
    for (cpu, tasks) in cpus.iter().enumerate() {
        for &t in tasks {
            a.put_whole(t, cpu);
        }
    }
    match a.finish(method) {
        Some(f) => Attempt::Placed(placed(f)),
        None => Attempt::Failed("the final response-time analysis reached its work limit".into()),
    }
}

impl SchedTest for PfpTs {
    fn params(&self) -> Vec<Param> {
        vec![
            Param::new(
                "limit",
                self.limit,
                "RTA iterations over the whole assignment before giving up",
            ),
            Param::new(
                "fallback",
                u64::from(self.fallback),
                "1: also try the split-free FFD and WFD partitions; 0: FP-TS alone",
            ),
        ]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "limit" => self.limit = param::parse_u64(name, value)?,
            "fallback" => {
                self.fallback = match value {
                    "1" | "true" => true,
                    "0" | "false" => false,
                    _ => return Err(format!("fallback is 0 or 1 (true/false), not `{value}`")),
                }
            }
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "pfp-ts".into(),
            family: "semi-partitioned",
            kind: Kind::Sufficient,
            citation: "FP-TS: Zhang, Guan, Xiao & Yi, RTPS §III (overheads §V, formulas A–E); \
                       Guan, Stigge, Yi & Yu, RTAS 2010 (task splitting, synthetic deadlines); \
                       exact RTA per CPU (Audsley et al. 1993)",
            assumptions: "independent sporadic tasks; constrained deadlines (D ≤ T); \
                          preemptive fixed priorities per CPU from the system's assignment (dm \
                          default); split jobs migrate at budget exhaustion",
            complexity: "O(n·m) RTA trials plus O(log C) per split (pseudo-polynomial each, \
                         work-limited)",
        }
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_constrained()?;
        sys.priority_order().map(|_| ())
    }
    fn charges_per_bin(&self) -> bool {
        true
    }
    fn run(&self, sys: &System) -> Verdict {
        match sys.overheads() {
            None => self.assign(sys, &NoCosts),
            Some(ctx) if ctx.setup.arch == ArchKind::SemiPartitioned => {
                match RtpsCosts::new(ctx) {
                    Ok(costs) => self.assign(sys, &costs),
                    Err(e) => Verdict::not_applicable(e),
                }
            }
            Some(ctx) => Verdict::not_applicable(format!(
                "pfp-ts is charged with the semi-partitioned overheads (--arch semi-partitioned), not `{}`",
                ctx.setup.arch.section()
            )),
        }
    }
}
