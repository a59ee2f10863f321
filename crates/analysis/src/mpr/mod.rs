//! `mpr-gfp`: reservation groups analysed with the multiprocessor periodic resource (MPR)
//! model of I. Shin, A. Easwaran and I. Lee, "Hierarchical Scheduling Framework for Virtual
//! Clustering of Multiprocessors", ECRTS 2008 (cited as [MPR §…]) — the comparison test beyond [HCBS §3.3].
//!
//! **Abstraction** [MPR §3.2, Def. 1]. A group with budget `Q` and period `P` on `m` CPUs has
//! one hard CBS server `(Q, P)` per CPU [HCBS §3.2]. MPR abstracts the total a cluster
//! receives: `Γ = (Π, Θ, m')` supplies `Θ` per period `Π` on at most `m'` CPUs at a time. The
//! group is `Γ = (Π = P, Θ = m·Q, m' = m)`: its `m` servers together supply `m·Q` per `P`, and
//! at most `m` of its tasks run at once (one per server). The servers are not synchronised
//! (their periods are asynchronous [HCBS §4]), which the MPR model assumes; but for `m'` equal
//! servers `sbf_Γ(t) = m·Z(t)` exactly ([`supply`], property-tested), the least total supply
//! of `m` independent servers each in its worst phase — so the abstraction is exact here and
//! assumes nothing beyond what [HCBS §3.3] assumes of each server (`Z(t)` in any window in
//! which the group keeps the server busy).
//!
//! **Supply** [MPR Eq. 1–2]: [`supply::Mpr::sbf`], exact, with a documented correction of the
//! printed Eq. 1 (which over-estimates when `m' ∤ Θ`; never the case for a group).
//!
//! **Test: G-FP on an MPR** (derived; the paper gives G-EDF only). [MPR Thm. 1] bounds the
//! demand of G-EDF with Baruah's extended window and `m' − 1` carry-in jobs and compares it
//! with `sbf`. We found no G-FP/G-DM test on the MPR model in the paper or elsewhere, so we
//! derive one from the same argument, with the Bertogna–Cirinei problem window and the
//! fixed-priority workload of [HCBS Eq. 11–12] (Bertogna, Cirinei, Lipari, TPDS 2009):
//!
//! 1. Let the job of `τk` released at `r` be unfinished at `r + R` (`C_k ≤ R ≤ D_k`); it is
//!    pending throughout `[r, r + R)` and executes `X < C_k` there; with integer time (all
//!    schedules in ns) `X ≤ C_k − 1`. Its earlier jobs completed (`D ≤ T`, induction on jobs).
//! 2. The resource supplies at least `sbf(R)` in the window [MPR Def. 2].
//! 3. Split the window into `Y` (τk pending, not running; `|Y| = R − X ≥ R − C_k + 1`) and the
//!    rest. Take any `Y' ⊆ Y` with `|Y'| = R − C_k + 1`. Outside `Y'` (length `C_k − 1`) at
//!    most `m'` units are supplied per unit of time [MPR: concurrency bound], so at most
//!    `m'·(C_k − 1)`. Inside `Y'`, every supplied unit runs a higher-priority job (G-FP runs
//!    the highest-priority ready jobs on the supplied CPUs and `τk` is ready), and a task
//!    `τi` runs at most `min(W_i(R), R − C_k + 1)` there (sequential jobs; `W_i` [HCBS Eq. 12]
//!    with the window `R`, valid when higher-priority jobs meet their deadlines — tasks are
//!    analysed in priority order and a group fails at its first unshown task).
//! 4. So `sbf(R) ≤ Σ_{hp} min(W_i(R), R − C_k + 1) + m'·(C_k − 1)`; if instead (★)
//!    `Σ … + m'·(C_k − 1) < sbf(R)`, the job completes within `R`: `R` is a response-time
//!    bound. [`gfp`] finds the least such `R ≤ D_k` exactly.
//!
//! With `Q = P` (`sbf(t) = m·t`), (★) at `R = D_k` is the G-FP test of Bertogna, Cirinei &
//! Lipari (TPDS 2009), `Σ min(W_i, D_k − C_k + 1) < m·(D_k − C_k + 1)` (tested).
//! On a flat group it accepts every set the H-CBS test accepts ([HCBS Eq. 14] with Eq. 13
//! for equal servers reads `W_k + m·C_k ≤ m·Z(D_k)`, and `sbf = m·Z`; property-tested): the
//! per-task cap `R − C_k + 1` and the search over `R ≤ D_k` only add.
//!
//! **Groups and admission.** Every task must be in a group, and there must be groups
//! ("not applicable" otherwise, with the reason). The admission test [HCBS Eq. 17]
//! ([`schedlab_model::GroupTree::overloads`]) comes first: an overloaded CPU makes the answer
//! "not shown", its reason naming the CPU and Eq. 17; the groups are still reported. Each
//! group's own tasks are analysed on its own `(P, m·Q, m)`, in the set's priority order
//! (`--priorities`, ties by index). **Limitations:** a subgroup's tasks are analysed on its own
//! MPR, but whether its servers receive their budgets inside the parent's servers is not
//! checked here (MPR composition [MPR §5] is not implemented), so a subgroup is reported
//! "not shown" (its bounds hold only if that supply holds); tasks placed directly in a group
//! that also has subgroups have no supply guarantee (they run in what the subgroups leave) and
//! are not shown either.
//!
//! Complexity: per task, at most `D_k − C_k + 1` steps of O(n) each, bounded in total by
//! `max_steps` (default [`DEFAULT_MAX_STEPS`]; "gave up" past it); admission O(g·m).

pub mod gfp;
pub mod report;
pub mod supply;

use crate::param::{self, Param};
use crate::system::System;
use crate::test::{Kind, SchedTest, TestInfo};
use crate::util::budget::Budget;
use crate::verdict::Verdict;

pub use report::{Analysis, GroupReport, TaskBound};
pub use supply::Mpr;

/// Default work limit: response-time steps over all tasks of all groups.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

/// The scheduler family: global fixed priority inside reservation groups.
pub const FAMILY: &str = "reservations";

/// `mpr-gfp` (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MprGfp {
    /// Response-time steps allowed in total before answering "gave up".
    pub max_steps: u64,
}

impl Default for MprGfp {
    fn default() -> MprGfp {
        MprGfp {
            max_steps: DEFAULT_MAX_STEPS,
        }
    }
}

/// The tests of this module, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![Box::new(MprGfp::default())]
}

impl MprGfp {
    /// The verdict with every group's report ([`report::analyse`]); `check` must hold.
    pub fn analyse(&self, sys: &System) -> Analysis {
        report::analyse(sys, &mut Budget::new(self.max_steps))
    }
}

impl SchedTest for MprGfp {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "mpr-gfp".into(),
            family: FAMILY,
            kind: Kind::Sufficient,
            citation: "Shin, Easwaran & Lee, ECRTS 2008, §3.2 Eq. 1–2 (MPR supply) with Thm. 1's \
                       argument; G-FP workload of [HCBS] Eq. 11–12 (Bertogna, Cirinei & Lipari, \
                       TPDS 2009); admission [HCBS] Eq. 17",
            assumptions: "tasks in reservation groups (Q, P) on m CPUs, abstracted as MPR \
                          (P, m·Q, m); sporadic tasks, constrained deadlines, global preemptive \
                          fixed priorities inside each group, integer time; subgroups not shown \
                          (no MPR composition)",
            complexity: "pseudo-polynomial: O(n) per step, steps bounded by max_steps",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        report::check(sys)
    }

    /// The verdict with the groups' reports attached ([`Verdict::groups`]).
    fn run(&self, sys: &System) -> Verdict {
        let analysis = self.analyse(sys);
        let groups = analysis
            .groups
            .iter()
            .map(report::GroupReport::to_group_result)
            .collect();
        analysis.verdict.with_groups(groups)
    }

    fn params(&self) -> Vec<Param> {
        vec![Param::new(
            "max_steps",
            self.max_steps,
            "response-time steps over all groups before answering gave-up",
        )]
    }

    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "max_steps" => self.max_steps = param::parse_u64(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
