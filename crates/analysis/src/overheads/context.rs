//! Overhead-aware analysis of one task set: the whole-set accounting every test sees, and the
//! context partitioned and clustered tests use to charge each bin themselves.
//!
//! One entry point for the CLI (`analyze --overheads`) and Python (`schedlab.analyze(...,
//! overheads=...)`): [`ChargedAnalysis::new`] charges the set as a whole
//! ([`arch::account`]) and [`ChargedAnalysis::verdict`] runs a test on what it must see:
//!
//! * a test that charges per bin ([`SchedTest::charges_per_bin`]: `pedf-*`/`pfp-*` bin packing,
//!   `cedf-k*`) runs on the *original* set with the [`OverheadContext`] attached, re-charging
//!   every candidate bin from the original parameters ([`BinCharger`]); its verdict depends
//!   only on its own packing (a task that fits in no bin is a misfit), not on the whole-set
//!   accounting, which charges every task as if all shared one CPU (n = all tasks) and so is
//!   more pessimistic than any bin;
//! * every other test runs on the set charged as a whole on the CPUs left for jobs, and is
//!   *not shown* when that accounting fails (the reason names the status and the task).
//!
//! Which architectures a per-bin test accepts: `pedf-*`/`pfp-*` are charged per CPU under
//! `partitioned` (PSN-EDF; one CPU, no IPI term); `cedf-k*` per cluster of `k` CPUs under
//! `global-lock` (C-EDF: GSN-EDF in each cluster). Other pairs are *not applicable*, with the
//! reason.

use super::accounting::{charge, Charged, Overheads, TaskIn};
use super::arch::{account, cpmd_curve, in_file, overheads_for, task_ins, Accounting, ArchKind};
use crate::system::{Priorities, System};
use crate::test::{analyze, SchedTest};
use crate::verdict::Verdict;
use schedlab_model::overheads::{OverheadFile, Stat};
use schedlab_model::TaskSet;
use serde_json::{json, Value};
use std::sync::Arc;

/// What `--overheads` asks for: the file, the architecture, the statistic and the rounding.
#[derive(Clone, Debug)]
pub struct OverheadSetup {
    /// The overhead file.
    pub file: Arc<OverheadFile>,
    /// The architecture that pays the overheads.
    pub arch: ArchKind,
    /// `max` (hard real-time) or `avg`.
    pub stat: Stat,
    /// Rounding granularity in ns (≥ 1).
    pub granularity: u64,
    /// Where the file came from (its path, or a description), named in errors.
    pub source: String,
}

/// The overhead context attached to a [`System`] for tests that charge per bin: the setup and
/// the original tasks (with their working sets).
#[derive(Clone, Debug)]
pub struct OverheadContext {
    /// The overheads and how to charge them.
    pub setup: OverheadSetup,
    /// The original tasks, in task-index order.
    pub tasks: Vec<TaskIn>,
    /// The machine's CPUs (every CPU, also one the architecture keeps from jobs): picks the
    /// file's `<arch>@m<m>` section when it has one.
    pub m: u32,
}

impl OverheadContext {
    /// The context of `tasks` under `setup` on a machine of `m` CPUs.
    pub fn new(tasks: &TaskSet, setup: &OverheadSetup, m: u32) -> OverheadContext {
        OverheadContext {
            setup: setup.clone(),
            tasks: task_ins(tasks),
            m,
        }
    }
}

/// The accounting of each bin of a per-bin test (the `"accounting"` of its result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinAccounting {
    /// `per_cpu` (partitioned tests) or `per_cluster` (clustered tests).
    pub key: &'static str,
    /// Each bin's accounting; its tasks in the bin's (ascending) task order.
    pub bins: Vec<Accounting>,
    /// Tasks that fitted in no bin, in packing order.
    pub misfits: Vec<usize>,
}

impl BinAccounting {
    /// `{"per_cpu" | "per_cluster": [{arch, stat, cpus_for_jobs, status, failed_task, tasks}
    /// …], "misfits": [...]}`.
    pub fn to_json(&self) -> Value {
        let bins: Vec<Value> = self.bins.iter().map(Accounting::to_json).collect();
        let mut map = serde_json::Map::new();
        map.insert(self.key.to_string(), Value::from(bins));
        map.insert("misfits".into(), json!(self.misfits));
        Value::Object(map)
    }
}

/// Charges bins (subsets of the original tasks) from their original parameters, with the
/// overheads evaluated at each bin's number of tasks (cached per `n`).
pub struct BinCharger<'a> {
    ctx: &'a OverheadContext,
    by_n: Vec<Option<Overheads>>,
    buf: Vec<TaskIn>,
}

impl<'a> BinCharger<'a> {
    /// A charger for the tasks of `ctx`.
    pub fn new(ctx: &'a OverheadContext) -> BinCharger<'a> {
        BinCharger {
            ctx,
            by_n: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// The architecture charged.
    pub fn arch(&self) -> ArchKind {
        self.ctx.setup.arch
    }

    /// Charges the tasks `members` (indices into the original set) as one bin of `cpus` CPUs
    /// under the architecture's rule (`partitioned`: one CPU). `Err` only for input problems
    /// (a missing curve), never for an accounting outcome.
    pub fn charge(&mut self, members: &[usize], cpus: u32) -> Result<Charged, String> {
        let setup = &self.ctx.setup;
        let n = members.len();
        if self.by_n.len() <= n {
            self.by_n.resize(n + 1, None);
        }
        let oh = match self.by_n.get(n).copied().flatten() {
            Some(oh) => oh,
            None => {
                let oh = overheads_for(&setup.file, setup.arch, setup.stat, n as u64, self.ctx.m)
                    .map_err(|e| in_file(&e, &setup.source))?;
                if let Some(slot) = self.by_n.get_mut(n) {
                    *slot = Some(oh);
                }
                oh
            }
        };
        self.buf.clear();
        self.buf.extend(
            members
                .iter()
                .filter_map(|&i| self.ctx.tasks.get(i).copied()),
        );
        let cpmd = cpmd_curve(&setup.file, setup.arch, setup.stat);
        let rule = setup.arch.rule(cpus);
        charge(&self.buf, &oh, rule, Some(&cpmd), setup.granularity).map_err(|e| e.to_string())
    }

    /// The [`Accounting`] of one bin of `cpus` CPUs with the given outcome.
    pub fn accounting(&self, cpus: u32, charged: Charged) -> Accounting {
        Accounting {
            arch: self.ctx.setup.arch.section(),
            stat: self.ctx.setup.stat,
            cpus_for_jobs: cpus,
            charged,
        }
    }
}

/// One task set analysed with overheads: the whole-set accounting and the two systems tests
/// run on.
pub struct ChargedAnalysis {
    /// The whole-set accounting (the line's `"accounting"`).
    pub accounting: Accounting,
    /// The charged set on the CPUs left for jobs, or why every whole-set test is not shown
    /// (the accounting failed).
    charged: Result<System, String>,
    /// The original set on every CPU, with the overhead context (for per-bin tests).
    original: System,
}

impl ChargedAnalysis {
    /// Charges `tasks` on `cpus` CPUs (every CPU, also one the architecture keeps from jobs).
    /// `Err` names the problem: a missing curve, too few CPUs for the architecture.
    pub fn new(
        tasks: &TaskSet,
        cpus: u32,
        priorities: Priorities,
        setup: &OverheadSetup,
    ) -> Result<ChargedAnalysis, String> {
        let jobs = setup.arch.cpus_for_jobs(cpus);
        if jobs == 0 {
            return Err(format!(
                "--arch {} keeps one CPU from jobs, so it needs --cpus 2 or more",
                setup.arch.section()
            ));
        }
        let accounting = account(
            tasks,
            &setup.file,
            setup.arch,
            setup.stat,
            cpus,
            setup.granularity,
        )
        .map_err(|e| in_file(&e, &setup.source))?;
        let ctx = OverheadContext::new(tasks, setup, cpus);
        let original = System::new(tasks, cpus, priorities)
            .map_err(|e| e.to_string())?
            .with_overheads(Arc::new(ctx));
        // The system whole-set tests run on, or why each of them is not shown.
        let charged = match &accounting.charged {
            Charged::Ok(params) => {
                let params = tasks
                    .iter()
                    .zip(params)
                    .map(|(task, &(c, t, d))| crate::system::Params {
                        c,
                        d,
                        t,
                        prio: task.priority,
                    })
                    .collect();
                // The charged C (and T, D) with the tasks' utilities, for `gnphvdf-uab`.
                let values = original.values().map(Arc::from);
                let sys =
                    System::from_params(params, jobs, priorities).map_err(|e| e.to_string())?;
                Ok(match values {
                    Some(v) => sys.with_values(v),
                    None => sys,
                })
            }
            Charged::TaskInfeasible(i) => Err(format!(
                "overhead accounting: task-infeasible (task {i}) under {}",
                accounting.arch
            )),
            other => Err(format!(
                "overhead accounting: {} under {}",
                other.status(),
                accounting.arch
            )),
        };
        Ok(ChargedAnalysis {
            accounting,
            charged,
            original,
        })
    }

    /// The CPUs whole-set tests run on.
    pub fn cpus_for_jobs(&self) -> u32 {
        self.accounting.cpus_for_jobs
    }

    /// `test`'s verdict on the system it must see (module documentation).
    pub fn verdict(&self, test: &dyn SchedTest) -> Verdict {
        if test.charges_per_bin() {
            return analyze(test, &self.original);
        }
        match &self.charged {
            Ok(sys) => analyze(test, sys),
            Err(reason) => Verdict::not_shown().because(reason.clone()),
        }
    }
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
