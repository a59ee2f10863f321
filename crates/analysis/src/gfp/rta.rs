//! `gfp-rta`: response-time analysis for global fixed priorities with slack, after
//! M. Bertogna and M. Cirinei, "Response-Time Analysis for Globally Scheduled Symmetric
//! Multiprocessor Platforms", RTSS 2007, §4–5 (the fixed-priority counterpart of their G-EDF
//! RTA; restated as the "RTA" test by Davis & Burns, RTSS 2009).
//!
//! Model: sporadic tasks, constrained deadlines (`D ≤ T`), any fixed-priority order, `m`
//! identical processors, integer time.
//!
//! For task `τk` and higher-priority tasks `τi` with response-time bounds `Ri` (slack
//! `si = Di − Ri`), the workload of `τi` in a window of length `L` is at most
//!
//! ```text
//! Ni(L) = ⌊(L + Di − Ci − si) / Ti⌋ = ⌊(L + Ri − Ci) / Ti⌋                          // Eq. (8)
//! Wi(L) = Ni(L)·Ci + min(Ci, L + Ri − Ci − Ni(L)·Ti)
//! ```
//!
//! and the bound of `τk` is the least fixpoint, iterated from `R = Ck`, of
//!
//! ```text
//! R = Ck + ⌊ (1/m) · Σ_{i ∈ hp(k)} min(Wi(R), R − Ck + 1) ⌋                          // Thm. 7
//! ```
//!
//! stopping with "not shown" as soon as an iterate exceeds `Dk`. Tasks are analysed in
//! priority order, so each `Ri` is final when used (the paper's iterative slack update needs
//! only this one pass for fixed priorities: `Rk` depends on higher-priority bounds only).
//! The `m` highest-priority tasks get `R = C` directly (as in the paper and `bertogna.py`:
//! fewer than `m` higher-priority tasks never keep all CPUs busy). With the cap the iteration
//! would give the same (fewer than `m` terms, each ≤ 1 at `R = C`), but without it the sum can
//! reach `m` at `R = C`, so the case is explicit.
//!
//! Complexity: O(n²·I), I = fixpoint iterations per task (≤ `max_iterations`). The
//! iteration is accelerated without changing its result (see `Rta::fixpoint`): while at least
//! `m` interference terms grow with slope 1, the plain iteration would creep up by as little
//! as 1 ns per step (typical for the (m+1)-th priority task: all m terms are capped), so we
//! skip the stretch on which no fixpoint can lie. Tests check the result against the plain
//! iteration.
//!
//! Discrepancy with the reference implementation: SchedCAT's
//! `schedcat/sched/fp/bertogna.py` sums `Wi(R)` without the cap `min(·, R − Ck + 1)` of the
//! paper, which is more pessimistic (it rejects some sets the paper's test accepts and gives
//! larger bounds). We implement the paper; `cap_interference: false` reproduces SchedCAT.
//! Otherwise both agree: slack `max(0, D − R)`, `R = C` for the `m` highest-priority tasks,
//! start at `R = C`, stop when the iterate exceeds `D`, floor of the sum divided by `m`
//! (checked by `tests/review_gfp_reference.rs`).

use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use schedlab_model::Duration;

/// Default work limit: fixpoint iterations per task.
pub const DEFAULT_MAX_ITERATIONS: u64 = 100_000;

/// `gfp-rta` (Bertogna & Cirinei, RTSS 2007).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rta {
    /// Fixpoint iterations allowed per task before answering "gave up"
    /// (default [`DEFAULT_MAX_ITERATIONS`]).
    pub max_iterations: u64,
    /// Cap each interference term at `R − C + 1` as in the paper (default `true`); `false`
    /// reproduces SchedCAT's `bertogna.py`.
    pub cap_interference: bool,
}

impl Default for Rta {
    fn default() -> Rta {
        Rta {
            max_iterations: DEFAULT_MAX_ITERATIONS,
            cap_interference: true,
        }
    }
}

/// Outcome of one task's fixpoint iteration.
pub(crate) enum Fix {
    /// The least fixpoint, ≤ D.
    Bound(u64),
    /// An iterate exceeded D.
    Miss,
    /// The iteration limit was reached.
    Limit,
}

/// Runs a per-task response-time `fixpoint` from the highest priority down, each task seeing
/// the higher-priority tasks with their bounds; the verdict of every G-FP RTA variant.
pub(crate) fn in_priority_order(
    sys: &System,
    max_iterations: u64,
    mut fixpoint: impl FnMut(&[(Params, u64)], &Params) -> Fix,
) -> Verdict {
    let order = match sys.priority_order() {
        Ok(o) => o,
        Err(reason) => return Verdict::not_applicable(reason),
    };
    let params = sys.params();
    let mut bounds = vec![Duration::ZERO; params.len()];
    let mut hp: Vec<(Params, u64)> = Vec::with_capacity(params.len());
    for &k in order {
        let Some(task) = params.get(k) else {
            return Verdict::not_applicable("priority order names a missing task");
        };
        match fixpoint(&hp, task) {
            Fix::Bound(r) => {
                if let Some(b) = bounds.get_mut(k) {
                    *b = Duration::from_ns(r);
                }
                hp.push((*task, r));
            }
            Fix::Miss => {
                return Verdict::not_shown()
                    .because(format!("no response-time bound ≤ D for task {k}"))
            }
            Fix::Limit => {
                return Verdict::gave_up(format!(
                    "max_iterations = {max_iterations} fixpoint iterations reached for task {k}"
                ))
            }
        }
    }
    Verdict::schedulable().with_response_times(bounds)
}

/// Workload bound `Wi(L)` of a higher-priority task with response-time bound `r`, and the
/// length of the execution phase still ahead of `L` (over which `Wi` grows with slope 1).
/// // Eq. (8)
#[inline]
fn workload(p: &Params, r: u64, len: u128) -> (u128, u128) {
    let (c, t) = (u128::from(p.c), u128::from(p.t));
    // L + Ri − Ci ≥ L, since Ri ≥ Ci.
    let span = len + u128::from(r) - c;
    let jobs = span / t;
    let offset = span - jobs * t;
    (jobs * c + c.min(offset), c.saturating_sub(offset))
}

/// The `m`-th largest value of `buf` (0 if it has fewer than `m` entries): the length of an
/// interval over which at least `m` interference terms grow with slope ≥ 1.
pub(crate) fn mth_largest(buf: &mut [u128], m: u128) -> u128 {
    match usize::try_from(m) {
        Ok(m) if m >= 1 && buf.len() >= m => {
            let (_, nth, _) = buf.select_nth_unstable_by(m - 1, |a, b| b.cmp(a));
            *nth
        }
        _ => 0,
    }
}

impl Rta {
    /// Response-time bound of `k` given the higher-priority tasks and their bounds; `grow` is
    /// a reusable buffer.
    ///
    /// Acceleration (same result as the plain iteration, fewer steps): if on `[x, x + δ]` at
    /// least `m` interference terms grow with slope ≥ 1 (a capped term grows with its cap
    /// until the workload falls behind; a workload grows while the job it counts executes),
    /// then `f(y) ≥ f(x) + (y − x) > y` there, so the least fixpoint lies above `x + δ` and we
    /// may continue from `max(f(x), x + δ)`. Without it, the `m + 1`-th priority task creeps
    /// up by 1 ns per iteration while its `m` capped predecessors execute.
    fn fixpoint(&self, hp: &[(Params, u64)], k: &Params, m: u128, grow: &mut Vec<u128>) -> Fix {
        // Fewer than m higher-priority tasks: τk always finds a free CPU, so R = C (the paper's
        // and bertogna.py's explicit case). Needed when the cap is off, because the uncapped
        // sum can exceed m − 1 at R = C and the iteration would give a looser bound (or "not
        // shown") for one of the m highest-priority tasks.
        if u128::try_from(hp.len()).is_ok_and(|n| n < m) {
            return Fix::Bound(k.c);
        }
        let (c, d) = (u128::from(k.c), u128::from(k.d));
        let mut r = c;
        for _ in 0..self.max_iterations {
            let cap = r - c + 1;
            grow.clear();
            let mut sum: u128 = 0;
            for (p, ri) in hp {
                let (w, ahead) = workload(p, *ri, r);
                if self.cap_interference {
                    sum += w.min(cap);
                    grow.push(ahead + w.saturating_sub(cap));
                } else {
                    sum += w;
                    grow.push(ahead);
                }
            }
            let next = c + sum / m; // Thm. 7: floor of the sum over m
            if next == r {
                // r ≤ d holds: r = c or r was an earlier iterate ≤ d.
                return u64::try_from(r).map_or(Fix::Miss, Fix::Bound);
            }
            let next = next.max(r + mth_largest(grow, m));
            if next > d {
                return Fix::Miss;
            }
            r = next;
        }
        Fix::Limit
    }
}

impl SchedTest for Rta {
    fn params(&self) -> Vec<Param> {
        vec![
            Param::new("max_iterations", self.max_iterations, "fixpoint iterations per task before giving up"),
            Param::new("cap", self.cap_interference, "cap each interference term at R − C + 1 (the paper); false reproduces SchedCAT's bertogna.py"),
        ]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "max_iterations" => self.max_iterations = param::parse_u64(name, value)?,
            "cap" => self.cap_interference = param::parse_bool(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gfp-rta".into(),
            family: super::FAMILY,
            kind: Kind::Sufficient,
            citation: "M. Bertogna, M. Cirinei, \"Response-Time Analysis for Globally Scheduled \
                       Symmetric Multiprocessor Platforms\", RTSS 2007, §4-5, Eq. (8), Thm. 7 \
                       (fixed priorities, slack-aware workload)",
            assumptions: "sporadic tasks, constrained deadlines (D ≤ T), any fixed priorities \
                          (dm/rm/given), global preemptive scheduling on m identical CPUs, \
                          integer time",
            complexity: "pseudo-polynomial: O(n² · iterations), iterations ≤ max_iterations \
                         per task (default 100000)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_constrained()?;
        sys.priority_order().map(|_| ())
    }

    fn run(&self, sys: &System) -> Verdict {
        let m = u128::from(sys.cpus());
        let mut grow: Vec<u128> = Vec::with_capacity(sys.len());
        in_priority_order(sys, self.max_iterations, |hp, task| {
            self.fixpoint(hp, task, m, &mut grow)
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::system::Priorities;
    use crate::test::analyze;
    use crate::verdict::Status;

    fn sys(p: Vec<Params>, m: u32) -> System {
        System::from_params(p, m, Priorities::Dm).unwrap()
    }

    fn ns(v: &Verdict) -> Vec<u64> {
        v.response_time_bounds
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| d.as_ns())
            .collect()
    }

    /// m = 2, (C, D, T): τ0 = τ1 = (2, 5, 5), τ2 = (3, 10, 10), DM order 0, 1, 2.
    /// τ0, τ1 are among the m highest: R = 2 (slack 3).
    /// τ2, from R = 3:
    ///   R = 3: cap 1; W0(3): N = ⌊(3+2−2)/5⌋ = 0, W = min(2, 3) = 2 → 1; same for τ1;
    ///          R = 3 + ⌊2/2⌋ = 4.
    ///   R = 4: cap 2; W = min(2, 4) = 2 → 2 each; R = 3 + ⌊4/2⌋ = 5.
    ///   R = 5: cap 3; N = ⌊5/5⌋ = 1, W = 2 + min(2, 0) = 2 each; R = 3 + 2 = 5. Fixpoint.
    /// (Exact: τ0, τ1 occupy both CPUs in [0, 2), τ2 runs [2, 5).)
    #[test]
    fn two_cpu_example() {
        let s = sys(
            vec![
                Params::new(2, 5, 5),
                Params::new(2, 5, 5),
                Params::new(3, 10, 10),
            ],
            2,
        );
        let v = analyze(&Rta::default(), &s);
        assert_eq!(v.status, Status::Schedulable);
        assert_eq!(ns(&v), [2, 2, 5]);
    }

    /// The cap matters: m = 2, τ0 = (8, 10, 10), τ1 = (8, 10, 10), τ2 = (1, 9, 10), DM
    /// order τ2, τ0, τ1 (D = 9 first). τ2: R = 1. τ0: R = 8 (one hp task, m = 2).
    /// τ1 (C = 8): R = 8: cap 1; W2(8) = ⌊(8+1−1)/10⌋ = 0 → min(1, 8) = 1 → 1;
    ///   W0(8) = ⌊(8+8−8)/10⌋ = 0 → min(8, 8) = 8 → capped to 1. Sum 2 → R = 8 + 1 = 9.
    ///   R = 9: cap 2; W2 = min(1, 9) = 1; W0 = min(8, 9) = 8 → 2. Sum 3 → R = 8 + 1 = 9.
    /// Without the cap (SchedCAT): R = 8 + ⌊9/2⌋ = 12 > 10: not shown.
    #[test]
    fn cap_matters() {
        let s = sys(
            vec![
                Params::new(8, 10, 10),
                Params::new(8, 10, 10),
                Params::new(1, 9, 10),
            ],
            2,
        );
        let v = analyze(&Rta::default(), &s);
        assert_eq!(v.status, Status::Schedulable);
        assert_eq!(ns(&v), [8, 9, 1]);
        let nocap = Rta {
            cap_interference: false,
            ..Rta::default()
        };
        assert_eq!(analyze(&nocap, &s).status, Status::NotShown);
    }

    /// Exactly at the deadline is accepted, one less is not (D = 5 vs 4 for τ2 above; RM
    /// priorities keep τ2 last).
    #[test]
    fn deadline_boundary() {
        let rm = |p| System::from_params(p, 2, Priorities::Rm).unwrap();
        let ok = rm(vec![
            Params::new(2, 5, 5),
            Params::new(2, 5, 5),
            Params::new(3, 5, 10),
        ]);
        assert_eq!(ns(&analyze(&Rta::default(), &ok)), [2, 2, 5]);
        let tight = rm(vec![
            Params::new(2, 5, 5),
            Params::new(2, 5, 5),
            Params::new(3, 4, 10),
        ]);
        assert_eq!(analyze(&Rta::default(), &tight).status, Status::NotShown);
    }

    /// Regression (review against SchedCAT's `bertogna.py`): the `m` highest-priority tasks
    /// get `R = C` also without the cap. m = 2, τ0 = (6, 6, 6), τ1 = (2, 2, 2); DM order τ1,
    /// τ0. τ0 has one higher-priority task < m, so R0 = 6. The uncapped iteration would give
    /// W1(6) = ⌊(6 + 2 − 2)/2⌋·2 + min(2, 0) = 6 → R = 6 + ⌊6/2⌋ = 9 > 6: "not shown".
    /// Likewise τ0 = (116, 499, 499), τ1 = (190, 521, 521) (implicit, m = 2): R1 = 190, where
    /// the uncapped iteration gave 248.
    #[test]
    fn top_m_tasks_without_cap() {
        let nocap = Rta {
            cap_interference: false,
            ..Rta::default()
        };
        let s = sys(vec![Params::new(6, 6, 6), Params::new(2, 2, 2)], 2);
        for t in [Rta::default(), nocap] {
            assert_eq!(ns(&analyze(&t, &s)), [6, 2]);
        }
        let s = sys(
            vec![Params::new(116, 499, 499), Params::new(190, 521, 521)],
            2,
        );
        for t in [Rta::default(), nocap] {
            assert_eq!(ns(&analyze(&t, &s)), [116, 190]);
        }
    }

    #[test]
    fn preconditions_and_limits() {
        let arb = sys(vec![Params::new(1, 20, 10)], 2);
        assert_eq!(analyze(&Rta::default(), &arb).status, Status::NotApplicable);
        let s = sys(
            vec![
                Params::new(2, 5, 5),
                Params::new(2, 5, 5),
                Params::new(3, 10, 10),
            ],
            2,
        );
        let tiny = Rta {
            max_iterations: 1,
            ..Rta::default()
        };
        assert_eq!(analyze(&tiny, &s).status, Status::GaveUp);
        // Huge times do not overflow.
        let big = 1u64 << 62;
        let s = sys(
            vec![
                Params::new(big, big, big),
                Params::new(big / 2, big, big),
                Params::new(big / 4, big, big),
            ],
            2,
        );
        let v = analyze(&Rta::default(), &s);
        assert_ne!(v.status, Status::GaveUp);
    }
}
