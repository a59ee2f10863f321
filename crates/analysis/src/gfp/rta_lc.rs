//! `gfp-rta-lc`: response-time analysis with limited carry-in, after N. Guan, M. Stigge,
//! W. Yi and G. Yu, "New Response Time Bounds for Fixed Priority Multiprocessor Scheduling",
//! RTSS 2009, §IV–V, Eqs. (5)–(12).
//!
//! Model: sporadic tasks, constrained deadlines (`D ≤ T`), any fixed-priority order, `m`
//! identical processors, integer time.
//!
//! Following Baruah's (RTSS 2007) observation that at most `m − 1` higher-priority tasks carry
//! work into a suitably chosen busy window, each higher-priority task `τi` (bound `Ri`) has a
//! workload without carry-in and one with carry-in in a window of length `x`:
//!
//! ```text
//! W^NC(τi, x) = ⌊x/Ti⌋·Ci + [x mod Ti]^{Ci}                                        // Eq. (5)
//! W^CI(τi, x) = ⌊[x−Ci]_0 / Ti⌋·Ci + Ci + α,
//!          α = [ [x−Ci]_0 mod Ti − (Ti − Ri) ]_0^{Ci−1}                           // Eq. (6)
//! I^NC = [W^NC]_0^{x−Ck+1},  I^CI = [W^CI]_0^{x−Ck+1}                              // Eqs. (7), (8)
//! Ω(x) = Σ_{hp} I^NC + (sum of the m − 1 largest I^CI − I^NC)                      // Eq. (9)
//! x = ⌊Ω(x)/m⌋ + Ck                                                                // Eq. (12)
//! ```
//!
//! The bound is the least fixpoint of Eq. (12), iterated from `x = Ck`; an iterate above
//! `Dk` means "not shown". Tasks are analysed in priority order so every `Ri` is final.
//! (`I^CI ≥ I^NC` always holds for `Ri ≥ Ci`, so choosing the `m − 1` largest differences is
//! the maximum over all carry-in sets of at most `m − 1` tasks.)
//!
//! Complexity: O(n²·I) with O(n) selection of the `m − 1` largest differences per iterate;
//! I = fixpoint iterations per task (≤ `max_iterations`).
//!
//! Reference: agrees with SchedCAT's `schedcat/sched/fp/guan.py` (start at `x = C`, stop when
//! the iterate exceeds `D`, floor of `Ω/m`, `α` capped at `Ci − 1`, the same constrained-
//! deadline restriction). Differences: none known.

use super::rta::{in_priority_order, mth_largest, Fix, DEFAULT_MAX_ITERATIONS};
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;

/// `gfp-rta-lc` (Guan, Stigge, Yi & Yu, RTSS 2009).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtaLc {
    /// Fixpoint iterations allowed per task before answering "gave up"
    /// (default [`DEFAULT_MAX_ITERATIONS`]).
    pub max_iterations: u64,
}

impl Default for RtaLc {
    fn default() -> RtaLc {
        RtaLc {
            max_iterations: DEFAULT_MAX_ITERATIONS,
        }
    }
}

/// `W^NC(τi, x)`, and how long it still grows with slope 1 after `x`. // Eq. (5)
#[inline]
fn workload_nc(p: &Params, x: u128) -> (u128, u128) {
    let (c, t) = (u128::from(p.c), u128::from(p.t));
    let offset = x % t;
    ((x / t) * c + offset.min(c), c.saturating_sub(offset))
}

/// `W^CI(τi, x)` for bound `r` (`c ≤ r ≤ t`), and a lower bound on how long it still grows
/// with slope 1 after `x` (while `α` rises). // Eq. (6)
#[inline]
fn workload_ci(p: &Params, r: u64, x: u128) -> (u128, u128) {
    let (c, t, r) = (u128::from(p.c), u128::from(p.t), u128::from(r));
    let y = x.saturating_sub(c);
    // [y mod T − (T − R)]_0^{C−1}; T ≥ R for constrained deadlines, saturate regardless.
    let gap = t.saturating_sub(r);
    let offset = y % t;
    let alpha = offset.saturating_sub(gap).min(c - 1);
    let ahead = if x >= c && offset >= gap {
        (c - 1).saturating_sub(offset - gap)
    } else {
        0
    };
    ((y / t) * c + c + alpha, ahead)
}

/// Per higher-priority task: `I^CI − I^NC`, and the growth lengths of the two terms.
#[derive(Clone, Copy, Debug, Default)]
struct Term {
    diff: u128,
    grow_nc: u128,
    grow_ci: u128,
}

impl RtaLc {
    /// Response-time bound of `k` given the higher-priority tasks and their bounds; `terms`
    /// and `grow` are reusable buffers. Accelerated exactly as [`super::Rta`]'s iteration:
    /// with the carry-in set fixed at the current `x`, if at least `m` of the chosen terms
    /// grow with slope ≥ 1 on `[x, x + δ]`, no fixpoint lies there.
    fn fixpoint(
        &self,
        hp: &[(Params, u64)],
        k: &Params,
        m: u128,
        terms: &mut Vec<Term>,
        grow: &mut Vec<u128>,
    ) -> Fix {
        let (c, d) = (u128::from(k.c), u128::from(k.d));
        // At most m − 1 tasks carry in (m ≥ 1 so this does not underflow).
        let carry = usize::try_from(m - 1).unwrap_or(usize::MAX);
        let mut x = c;
        for _ in 0..self.max_iterations {
            let cap = x - c + 1;
            let mut omega: u128 = 0;
            terms.clear();
            for (p, ri) in hp {
                let (wnc, gnc) = workload_nc(p, x);
                let (wci, gci) = workload_ci(p, *ri, x);
                let nc = wnc.min(cap); // Eq. (7)
                let ci = wci.min(cap); // Eq. (8)
                omega += nc;
                terms.push(Term {
                    diff: ci.saturating_sub(nc),
                    grow_nc: gnc + wnc.saturating_sub(cap),
                    grow_ci: gci + wci.saturating_sub(cap),
                });
            }
            // Eq. (9): add the m − 1 largest differences (those tasks carry in).
            let chosen = carry.min(terms.len());
            if chosen > 0 && chosen < terms.len() {
                terms.select_nth_unstable_by(chosen - 1, |a, b| b.diff.cmp(&a.diff));
            }
            grow.clear();
            for (j, term) in terms.iter().enumerate() {
                if j < chosen {
                    omega += term.diff;
                    grow.push(term.grow_ci);
                } else {
                    grow.push(term.grow_nc);
                }
            }
            let next = c + omega / m; // Eq. (12)
            if next == x {
                return u64::try_from(x).map_or(Fix::Miss, Fix::Bound);
            }
            let next = next.max(x + mth_largest(grow, m));
            if next > d {
                return Fix::Miss;
            }
            x = next;
        }
        Fix::Limit
    }
}

impl SchedTest for RtaLc {
    fn params(&self) -> Vec<Param> {
        vec![Param::new(
            "max_iterations",
            self.max_iterations,
            "fixpoint iterations per task before giving up",
        )]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "max_iterations" => self.max_iterations = param::parse_u64(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gfp-rta-lc".into(),
            family: super::FAMILY,
            kind: Kind::Sufficient,
            citation: "N. Guan, M. Stigge, W. Yi, G. Yu, \"New Response Time Bounds for Fixed \
                       Priority Multiprocessor Scheduling\", RTSS 2009, Eqs. (5)-(12)",
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
        let mut terms: Vec<Term> = Vec::with_capacity(sys.len());
        let mut grow: Vec<u128> = Vec::with_capacity(sys.len());
        in_priority_order(sys, self.max_iterations, |hp, task| {
            self.fixpoint(hp, task, m, &mut terms, &mut grow)
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

    fn ns(v: &Verdict) -> Vec<u64> {
        v.response_time_bounds
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| d.as_ns())
            .collect()
    }

    #[test]
    fn workload_functions() {
        // τi = (C=2, T=5), R = 3 (slack 2).
        let p = Params::new(2, 5, 5);
        // W^NC: x = 7 → ⌊7/5⌋·2 + min(2, 2) = 4; x = 6 → 2 + min(1, 2) = 3.
        assert_eq!(workload_nc(&p, 7), (4, 0));
        assert_eq!(workload_nc(&p, 6), (3, 1));
        // W^CI: x = 6 → y = 4, ⌊4/5⌋ = 0, α = [4 − (5 − 3)]_0^{1} = 1 → 0 + 2 + 1 = 3.
        assert_eq!(workload_ci(&p, 3, 6), (3, 0));
        // x = 1 (< C) → y = 0, α = [0 − 2]_0 = 0 → 2.
        assert_eq!(workload_ci(&p, 3, 1), (2, 0));
        // x = 12 → y = 10, ⌊10/5⌋·2 = 4, α = [0 − 2]_0 = 0 → 6.
        assert_eq!(workload_ci(&p, 3, 12), (6, 0));
    }

    /// Same set as `rta::two_cpu_example`: τ0 = τ1 = (2, 5, 5), τ2 = (3, 10, 10) on m = 2.
    /// τ2: x = 3: cap 1; W^NC(3) = min(3, 2) = 2 → 1; W^CI(3): y = 1, α = [1 − 3]_0 = 0,
    ///   W = 2 → 1; diffs 0; Ω = 2 → x = 3 + 1 = 4.
    /// x = 4: cap 2; W^NC = W^CI = 2 → 2 each; Ω = 4 → x = 3 + 2 = 5.
    /// x = 5: cap 3; W^NC(5) = 2 + min(0, 2) = 2; W^CI: y = 3, α = [3 − 3]_0 = 0 → 2;
    ///   Ω = 4 → x = 5. Fixpoint 5.
    #[test]
    fn two_cpu_example() {
        let s = System::from_params(
            vec![
                Params::new(2, 5, 5),
                Params::new(2, 5, 5),
                Params::new(3, 10, 10),
            ],
            2,
            Priorities::Dm,
        )
        .unwrap();
        let v = analyze(&RtaLc::default(), &s);
        assert_eq!(v.status, Status::Schedulable);
        assert_eq!(ns(&v), [2, 2, 5]);
    }

    /// Limited carry-in beats BC. m = 2, (C, D, T): τ0 = (1, 4, 4), τ1 = τ2 = (4, 7, 7),
    /// τ3 = (2, 10, 10), DM order. Both analyses give R0 = 1, R1 = 4, R2 = 6.
    /// BC for τ3 (Wi(L) with span L + Ri − Ci): iterates 2 → 3 → 4 → 5 → 7 → 8 → 9 → 10,
    ///   at x = 10 (cap 9): W0 = 2 + min(1, 10 − 8) = 3, W1 = 4 + min(4, 3) = 7,
    ///   W2 = 4 + min(4, 12 − 7) = 8; Σ = 18 → 2 + 9 = 11 > 10: not shown.
    /// LC for τ3 (one carry-in task):
    ///   x = 9 (cap 8): NC0 = 2 + min(1, 1) = 3, NC1 = NC2 = 4 + min(2, 4) = 6 (Σ 15);
    ///     CI2: y = 5, α = [5 − (7 − 6)]_0^3 = 3 → 7, the largest difference 1 → Ω = 16,
    ///     x = 2 + 8 = 10.
    ///   x = 10 (cap 9): NC0 = 2 + min(2, 1) = 3, NC1 = NC2 = 4 + min(3, 4) = 7;
    ///     CI0: y = 9, 2 + 1 + [1 − 3]_0 = 3; CI1: y = 6, 4 + [6 − 3]_0^3 = 7;
    ///     CI2: y = 6, 4 + [6 − 1]_0^3 = 7; differences 0 → Ω = 17, x = 2 + 8 = 10. R3 = 10.
    ///   (Earlier iterates: 2 → 3 → 4 → 5 → 7 → 8 → 9.)
    #[test]
    fn limited_carry_in_beats_bc() {
        let s = System::from_params(
            vec![
                Params::new(1, 4, 4),
                Params::new(4, 7, 7),
                Params::new(4, 7, 7),
                Params::new(2, 10, 10),
            ],
            2,
            Priorities::Dm,
        )
        .unwrap();
        assert_eq!(ns(&analyze(&RtaLc::default(), &s)), [1, 4, 6, 10]);
        let bc = analyze(&super::super::Rta::default(), &s);
        assert_eq!(bc.status, Status::NotShown);
    }

    /// m = 2, τ0 = (1, 2, 2), τ1 = (1, 2, 2), τ2 = (1, 4, 4), τ3 = (2, 8, 8), DM order.
    /// τ0, τ1: R = 1. τ2 (C=1): x = 1: cap 1: NC(1) = min(1, 1) = 1 → 1 each; CI(1): y = 0
    ///   → 1 → 1; diffs 0; Ω = 2 → x = 1 + 1 = 2. x = 2: cap 2: NC(2) = 1 + 0 = 1 each;
    ///   CI(2): y = 1, α = [1 − (2 − 1)]_0 = 0 → 1; Ω = 2 → x = 2. R2 = 2.
    /// τ3 (C=2): x = 2: cap 1: NC(τ0,τ1) = 1 → 1; NC(τ2, 2) = min(2, 1) = 1 → 1;
    ///   CI(τ2, 2): y = 1, α = [1 − (4 − 2)]_0 = 0 → 1 → 1; Ω = 3 → x = 2 + 1 = 3.
    ///   x = 3: cap 2: NC(τ0, 3) = 1 + min(1, 1) = 2 → 2 (same τ1); NC(τ2, 3) = min(3, 1) = 1;
    ///   CI(τ0, 3): y = 2, ⌊2/2⌋ = 1 → 1 + 1 + α, α = [0 − 1]_0 = 0 → 2 → diff 0;
    ///   CI(τ2, 3): y = 2, α = [2 − 2]_0 = 0 → 1, diff 0; Ω = 5 → x = 2 + 2 = 4.
    ///   x = 4: cap 3: NC(τ0, 4) = 2 → 2 (τ1 too); NC(τ2, 4) = 1 + 0 = 1; CI(τ0, 4): y = 3,
    ///   ⌊3/2⌋ = 1 → 1 + 1 + [1 − 1]_0 = 2, diff 0; CI(τ2, 4): y = 3, α = [3 − 2]_0^0 = 0
    ///   → 1, diff 0; Ω = 5 → x = 4. R3 = 4.
    /// (Exact here: synchronous release runs τ0, τ1 in [0, 1) and [2, 3), τ2 and τ3 in
    /// [1, 2), τ3 again in [3, 4), so τ2 ends at 2 and τ3 at 4.)
    #[test]
    fn four_task_example() {
        let s = System::from_params(
            vec![
                Params::new(1, 2, 2),
                Params::new(1, 2, 2),
                Params::new(1, 4, 4),
                Params::new(2, 8, 8),
            ],
            2,
            Priorities::Dm,
        )
        .unwrap();
        assert_eq!(ns(&analyze(&RtaLc::default(), &s)), [1, 1, 2, 4]);
    }

    #[test]
    fn preconditions_limits_and_huge_times() {
        let arb = System::from_params(vec![Params::new(1, 20, 10)], 2, Priorities::Dm).unwrap();
        assert_eq!(
            analyze(&RtaLc::default(), &arb).status,
            Status::NotApplicable
        );
        let s = System::from_params(
            vec![
                Params::new(2, 5, 5),
                Params::new(2, 5, 5),
                Params::new(3, 10, 10),
            ],
            2,
            Priorities::Dm,
        )
        .unwrap();
        let tiny = RtaLc { max_iterations: 1 };
        assert_eq!(analyze(&tiny, &s).status, Status::GaveUp);
        let big = u64::MAX;
        let s = System::from_params(
            vec![
                Params::new(big, big, big),
                Params::new(big / 2, big, big),
                Params::new(big / 4, big, big),
            ],
            1,
            Priorities::Dm,
        )
        .unwrap();
        assert_eq!(analyze(&RtaLc::default(), &s).status, Status::NotShown);
    }
}
