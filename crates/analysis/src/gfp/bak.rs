//! `gfp-bak`: Baker's fixed-priority test, T. P. Baker, "An analysis of fixed-priority
//! schedulability on a multiprocessor", Real-Time Systems 32(1–2), 2006 (extending Baker,
//! "Multiprocessor EDF and deadline monotonic schedulability analysis", RTSS 2003), in the
//! form quoted by [ChronOS §6.3, Eq. 6.1–6.2]:
//!
//! a task `τk` at priority position `k > m` meets its deadlines if there is a `μ > 0` with
//!
//! ```text
//! Σ_{i<k} β_{μ,k}(i) ≤ μ ≤ m·(1 − Ck / min(Tk, Dk))                                // Eq. (6.1)
//! λ = (m − μ)/(m − 1)
//! β_{μ,k}(i) = ui·(1 + (Ti − Ci)/Dk)                          if λ ≥ ui            // Eq. (6.2)
//!            = ui·(1 + (Ti − Ci)/Dk) + (Di/Dk)·(ui − λ)       if λ < ui
//! ```
//!
//! and the `m` highest-priority tasks meet theirs if `Ck ≤ Tk` (they never wait for a
//! processor; `Ck ≤ Dk` holds by construction).
//!
//! Deciding "there is a μ" exactly: in terms of `λ` (μ = m − (m−1)λ), the slack
//! `G(λ) = μ − Σ β` is concave and piecewise linear with breakpoints at `λ = ui`, and
//! `μ ≤ m(1 − λk)` means `λ ≥ λ₀ = m·λk/(m − 1)` with `λk = Ck/min(Tk, Dk)`. So the maximum of
//! `G` over the admissible range is attained at `λ₀` or at some `ui ∈ (λ₀, m/(m−1))`; we test
//! exactly those candidates. Each check multiplies through by `Dk` and compares a sum of
//! rationals with `m·Dk` exactly ([`cmp_sum`]: filtered `f64`, exact fallback; big rationals
//! if a term does not fit `i128`).
//!
//! Model: sporadic tasks, arbitrary deadlines, any fixed priorities, `m ≥ 2` identical
//! processors (`λ` is undefined for `m = 1`: "not applicable"). Complexity O(n³).
//!
//! Discrepancies / uncertainty: we could not consult the original 2006 text here; the test
//! follows [ChronOS Eq. 6.1–6.2] literally (non-strict `≤`, `Dk` as the window length in
//! `β`, carry-in term `(Di/Dk)(ui − λ)`, tasks `k ≤ m` skipped by the equation). The one
//! addition is the `Ck ≤ Tk` check for the top `m` tasks, which is needed for arbitrary
//! deadlines (a task with `u > 1` is never schedulable) and is vacuous for `D ≤ T`.

use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigInt;
use num_rational::BigRational;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// `gfp-bak` (Baker, Real-Time Systems 2006; [ChronOS Eq. 6.1–6.2]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bak;

/// `±(n0·n1·n2)/(d0·d1)` with integer factors, so that the `f64`/`i128` fast path and the big
/// rational fallback are built from the same description.
#[derive(Clone, Copy, Debug)]
struct Term {
    neg: bool,
    num: [u64; 3],
    den: [u64; 2],
}

impl Term {
    fn pos(num: [u64; 3], den: [u64; 2]) -> Term {
        Term {
            neg: false,
            num,
            den,
        }
    }
    fn neg(num: [u64; 3], den: [u64; 2]) -> Term {
        Term {
            neg: true,
            num,
            den,
        }
    }
    fn frac(&self) -> Option<Frac> {
        let mut n: i128 = 1;
        for &x in &self.num {
            n = n.checked_mul(i128::from(x))?;
        }
        let mut d: i128 = 1;
        for &x in &self.den {
            d = d.checked_mul(i128::from(x))?;
        }
        Some(Frac::new(if self.neg { -n } else { n }, d))
    }
    fn big(&self) -> BigRational {
        let n: BigInt = self.num.iter().map(|&x| BigInt::from(x)).product();
        let d: BigInt = self.den.iter().map(|&x| BigInt::from(x)).product();
        let r = BigRational::new(n, d);
        if self.neg {
            -r
        } else {
            r
        }
    }
}

/// `Σ terms ≤ bound`, exactly.
fn sum_at_most(terms: &[Term], fast: &mut Vec<Frac>, bound: u128) -> bool {
    fast.clear();
    fast.extend(terms.iter().map_while(Term::frac));
    if fast.len() == terms.len() {
        if let Ok(b) = i128::try_from(bound) {
            return cmp_sum(|| fast.iter().copied(), Frac::int(b)) != Ordering::Greater;
        }
    }
    let sum: BigRational = terms.iter().map(Term::big).sum();
    sum <= BigRational::from_integer(BigInt::from(bound))
}

/// Does task `k` (below at least `m` higher-priority tasks `hp`) pass Eq. (6.1)?
fn task_passes(
    hp: &[Params],
    k: &Params,
    m: u64,
    terms: &mut Vec<Term>,
    fast: &mut Vec<Frac>,
) -> bool {
    let mind = k.t.min(k.d);
    if k.c >= mind {
        return false; // no μ > 0 with μ ≤ m(1 − Ck/min(Tk, Dk))
    }
    let dk = k.d;
    // λ₀ = m·Ck / ((m−1)·min(Tk, Dk)), the smallest admissible λ (largest μ).
    let lambda0 = Frac::new(
        i128::from(m) * i128::from(k.c),
        i128::from(m - 1) * i128::from(mind),
    );
    let lambda_max = Frac::new(i128::from(m), i128::from(m - 1)); // μ > 0 ⇔ λ < m/(m−1)
    let bound = u128::from(m) * u128::from(dk); // μ·Dk at λ = 0; λ-part moved to the left
    let u = |p: &Params| Frac::ratio(p.c, p.t);

    // Candidates: (λ, numerator factors of λ, denominator factors of λ, the (m−1)·λ·Dk term).
    let cand0 = (
        lambda0,
        [m, k.c],
        [m - 1, mind],
        Term::pos([m, dk, k.c], [mind, 1]),
    );
    let others = hp.iter().filter_map(|p| {
        let ui = u(p);
        (ui > lambda0 && ui < lambda_max).then(|| {
            (
                ui,
                [p.c, 1],
                [p.t, 1],
                Term::pos([m - 1, dk, p.c], [p.t, 1]),
            )
        })
    });
    for (lambda, lnum, lden, rhs) in std::iter::once(cand0).chain(others) {
        terms.clear();
        terms.push(rhs); // (m−1)·λ·Dk
        for p in hp {
            // Dk·ui·(1 + (Ti − Ci)/Dk) = Ci·Dk/Ti + Ci − Ci²/Ti                    // Eq. (6.2)
            terms.push(Term::pos([p.c, dk, 1], [p.t, 1]));
            terms.push(Term::pos([p.c, 1, 1], [1, 1]));
            terms.push(Term::neg([p.c, p.c, 1], [p.t, 1]));
            if u(p) > lambda {
                // Dk·(Di/Dk)·(ui − λ) = Di·Ci/Ti − Di·λ
                terms.push(Term::pos([p.d, p.c, 1], [p.t, 1]));
                terms.push(Term::neg([p.d, lnum[0], lnum[1]], lden));
            }
        }
        if sum_at_most(terms, fast, bound) {
            return true;
        }
    }
    false
}

impl SchedTest for Bak {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gfp-bak".into(),
            family: super::FAMILY,
            kind: Kind::Sufficient,
            citation: "T. P. Baker, \"An analysis of fixed-priority schedulability on a \
                       multiprocessor\", Real-Time Systems 32, 2006 (and RTSS 2003), as quoted \
                       in [ChronOS §6.3, Eq. 6.1-6.2]",
            assumptions: "sporadic tasks, arbitrary deadlines, any fixed priorities \
                          (dm/rm/given), global preemptive scheduling on m ≥ 2 identical CPUs",
            complexity: "O(n³)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        if sys.cpus() < 2 {
            return Err("λ = (m − μ)/(m − 1) is undefined for m = 1".into());
        }
        sys.priority_order().map(|_| ())
    }

    fn run(&self, sys: &System) -> Verdict {
        let order = match sys.priority_order() {
            Ok(o) => o,
            Err(reason) => return Verdict::not_applicable(reason),
        };
        let m = u64::from(sys.cpus());
        let params = sys.params();
        let mut hp: Vec<Params> = Vec::with_capacity(params.len());
        let mut terms = Vec::new();
        let mut fast = Vec::new();
        for (pos, &k) in order.iter().enumerate() {
            let Some(task) = params.get(k) else {
                return Verdict::not_applicable("priority order names a missing task");
            };
            let ok = if (pos as u64) < m {
                task.c <= task.t
            } else {
                task_passes(&hp, task, m, &mut terms, &mut fast)
            };
            if !ok {
                return Verdict::not_shown().because(format!("Eq. (6.1) fails for task {k}"));
            }
            hp.push(*task);
        }
        Verdict::schedulable()
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

    /// m = 2, three tasks (C, D, T) = (1, 10, 10) each. Task 3 (k = 3 > m):
    /// λk = 1/10, λ₀ = 2·(1/10)/1 = 1/5, μ = 2 − λ₀ = 9/5.
    /// β(i) for ui = 1/10 ≤ λ₀: (1/10)(1 + 9/10) = 19/100 each; Σ = 38/100 ≤ 9/5. Accepted.
    #[test]
    fn light_set_passes() {
        let s = sys(vec![Params::new(1, 10, 10); 3], 2);
        assert_eq!(analyze(&Bak, &s).status, Status::Schedulable);
    }

    /// Exact equality at λ₀: m = 2, τ1 = τ2 = (1, 2, 2) (u = 1/2), τ3 = (C, D, T) = (1, 4, 4).
    /// λk = 1/4, λ₀ = 1/2, μ = 3/2. β(i) with ui = 1/2 ≥ λ₀... ui = λ₀ so first case:
    /// (1/2)(1 + 1/4) = 5/8; Σ = 5/4 ≤ 3/2: accepted.
    /// With τ3 = (2, 4, 4): λk = 1/2, λ₀ = 1, μ = 1; ui = 1/2 < 1: β = (1/2)(1 + 1/4) = 5/8,
    /// Σ = 5/4 > 1; no ui in (1, 2): not shown.
    /// With τ3 = (3, 8, 8) and τ1 = τ2 = (1, 2, 2): λk = 3/8, λ₀ = 3/4, μ = 5/4;
    /// β = (1/2)(1 + 1/8) = 9/16, Σ = 9/8 ≤ 5/4: accepted.
    #[test]
    fn worked_examples() {
        let a = sys(
            vec![
                Params::new(1, 2, 2),
                Params::new(1, 2, 2),
                Params::new(1, 4, 4),
            ],
            2,
        );
        assert_eq!(analyze(&Bak, &a).status, Status::Schedulable);
        let b = sys(
            vec![
                Params::new(1, 2, 2),
                Params::new(1, 2, 2),
                Params::new(2, 4, 4),
            ],
            2,
        );
        assert_eq!(analyze(&Bak, &b).status, Status::NotShown);
        let c = sys(
            vec![
                Params::new(1, 2, 2),
                Params::new(1, 2, 2),
                Params::new(3, 8, 8),
            ],
            2,
        );
        assert_eq!(analyze(&Bak, &c).status, Status::Schedulable);
    }

    /// The carry-in case matters: m = 2, τ1 = τ2 = (3, 4, 4) (u = 3/4), τ3 = (1, 20, 20).
    /// λk = 1/20, λ₀ = 1/10, μ₀ = 19/10. At λ₀: β = (3/4)(1 + 1/20) + (4/20)(3/4 − 1/10)
    ///   = 63/80 + 13/100 = 0.9175 each; Σ = 1.835 ≤ 1.9: accepted at λ₀.
    /// With τ3 = (2, 20, 20): λ₀ = 1/5, μ₀ = 9/5 = 1.8; β = 63/80 + (1/5)(3/4 − 1/5)
    ///   = 0.7875 + 0.11 = 0.8975; Σ = 1.795 ≤ 1.8: accepted.
    /// With τ3 = (3, 20, 20): λ₀ = 3/10, μ₀ = 1.7; β = 0.7875 + (1/5)(0.45) = 0.8775;
    ///   Σ = 1.755 > 1.7. Candidate λ = 3/4: μ = 5/4, β = 0.7875, Σ = 1.575 > 1.25: not shown.
    #[test]
    fn carry_in_examples() {
        let mk = |c| {
            sys(
                vec![
                    Params::new(3, 4, 4),
                    Params::new(3, 4, 4),
                    Params::new(c, 20, 20),
                ],
                2,
            )
        };
        assert_eq!(analyze(&Bak, &mk(1)).status, Status::Schedulable);
        assert_eq!(analyze(&Bak, &mk(2)).status, Status::Schedulable);
        assert_eq!(analyze(&Bak, &mk(3)).status, Status::NotShown);
    }

    #[test]
    fn preconditions_and_extremes() {
        assert_eq!(
            analyze(&Bak, &sys(vec![Params::new(1, 10, 10)], 1)).status,
            Status::NotApplicable
        );
        // Top-m task with u > 1 (arbitrary deadline) is rejected.
        assert_eq!(
            analyze(&Bak, &sys(vec![Params::new(5, 8, 4)], 2)).status,
            Status::NotShown
        );
        // Huge values do not overflow.
        let big = u64::MAX / 3;
        let s = sys(
            vec![
                Params::new(1, big, big),
                Params::new(1, big, big),
                Params::new(2, big, big),
            ],
            2,
        );
        assert_eq!(analyze(&Bak, &s).status, Status::Schedulable);
    }

    /// Terms beyond i128 fall back to big rationals, exactly: (2·MAX²)/MAX² − 1 = 1.
    #[test]
    fn big_rational_fallback() {
        let terms = [
            Term::pos([u64::MAX, u64::MAX, 2], [u64::MAX, u64::MAX]),
            Term::neg([1, 1, 1], [1, 1]),
        ];
        let mut fast = Vec::new();
        assert!(terms[0].frac().is_none());
        assert!(sum_at_most(&terms, &mut fast, 1));
        assert!(!sum_at_most(&terms, &mut fast, 0));
    }
}
