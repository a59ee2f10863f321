//! `gedf-bak`: Baker's G-EDF test with `λ` fixed to the density of the analysed task.
//!
//! **Paper.** T. P. Baker, "Multiprocessor EDF and deadline monotonic schedulability
//! analysis", RTSS 2003 (§4, the EDF theorem). For every task `τk`, with `λ = Ck/Dk`:
//!
//! `Σ_i min(1, βi) ≤ m·(1 − λ) + λ`                                              — Eq. (2)
//!
//! `βi = ui·(1 + max(0, Ti − Di)/Dk)`                      if `ui ≤ λ`,
//! `βi = ui·(1 + max(0, Ti − Di)/Dk) + (Ci − λ·Ti)/Dk`     if `ui > λ`          — Eq. (1)
//!
//! where the sum runs over *all* tasks, `τk` included.
//!
//! **Reference.** SchedCAT `native/src/edf/baker.cpp`, followed exactly for constrained and
//! implicit deadlines: single `λ` = the density `Ck/Dk` (the paper allows any `λ ≥ Ck/Dk`;
//! SchedCAT instantiates the smallest), `min(1, βi)`, non-strict `≤` against `m(1 − λ) + λ`,
//! exact rationals, preconditions "feasible tasks and `U ≤ m`" (→ *not shown* here, see
//! `precheck.rs`); arbitrary deadlines allowed.
//!
//! **Deviation (arbitrary deadlines only).** SchedCAT (C++ and Python) uses `(Ti − Di)` without
//! the `max(0, ·)`. For `Di > Ti + Dk` that makes `βi` negative, and the test then accepts
//! infeasible sets: on `m = 1`, `{(C 2, D 9, T 5), (1, 1, 6), (1, 1, 7)}` (two jobs that each
//! need the only CPU during `[0, 1)`) has, for `k = 1`, `λ = 1`, bound 1,
//! `Σ min(1, βi) = −6/5 + 1 + 1 = 4/5 ≤ 1`, so SchedCAT's BAK says schedulable. Clamping the
//! carry-in term at 0 (Baker's window argument never credits a task with *less* than its
//! utilization times the window) restores soundness; for `D ≤ T` it changes nothing, so
//! verdicts equal SchedCAT's on implicit and constrained sets. With every `βi ≥ 0`, SchedCAT's
//! "stop when a prefix exceeds the bound" loop is the same as comparing the full sum. Other
//! differences for `D > T`: SchedCAT's C++ density is `C/D`, its Python `bak.py` uses
//! `C/min(D, T)`; we use the C++ `C/D` (the brute-force property tests found no unsound case
//! with it once the clamp is in place).
//!
//! **Exactness and speed.** The reference uses GMP rationals for every `βi`. We evaluate the
//! sum in `f64` together with a rigorous bound on its rounding error and decide exactly with
//! big rationals only when the float result is within that bound of `m(1 − λ) + λ`. The test
//! `ui > λ` is decided exactly in integers.
//! Tasks `τk` are examined by increasing deadline (most likely to fail first); the
//! verdict is the conjunction over all `k`, so the order does not change it.
//!
//! **Assumptions.** Sporadic tasks, arbitrary deadlines, preemptive G-EDF on `m` identical CPUs.
//! **Complexity.** `O(n²)`.

use super::precheck::trivially_infeasible;
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigInt;
use num_rational::BigRational;

/// Baker's single-`λ` G-EDF test (`gedf-bak`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Bak;

impl SchedTest for Bak {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-bak".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation:
                "Baker, RTSS 2003, 'Multiprocessor EDF and deadline monotonic schedulability \
                       analysis', §4 EDF test with λ = Ck/Dk (as SchedCAT baker.cpp)",
            assumptions: "sporadic tasks, arbitrary deadlines, preemptive global EDF",
            complexity: "O(n^2)",
        }
    }

    fn check(&self, _sys: &System) -> Result<(), String> {
        Ok(())
    }

    fn run(&self, sys: &System) -> Verdict {
        if let Some(reason) = trivially_infeasible(sys) {
            return Verdict::not_shown().because(reason);
        }
        let params = sys.params();
        let m = sys.cpus();
        let util: Vec<f64> = params.iter().map(|p| p.c as f64 / p.t as f64).collect();
        // Built once the first task has passed the O(n) way: on sets that fail at their first
        // task (shortest deadline), the usual case of rejected sets, the sort would be wasted.
        let mut unclamped: Option<UnclampedSum> = None;
        for k in by_increasing_deadline(params) {
            let ok = match params.get(k) {
                Some(&pk)
                    if unclamped
                        .as_ref()
                        .is_some_and(|u| u.shows_ok(params, pk, m)) =>
                {
                    true
                }
                Some(&pk) => {
                    let ok = fast_task_ok(params, &util, pk, m)
                        .unwrap_or_else(|| exact_task_ok(params, pk, m));
                    if ok && unclamped.is_none() {
                        unclamped = Some(UnclampedSum::new(params, &util));
                    }
                    ok
                }
                None => true,
            };
            if !ok {
                return Verdict::not_shown()
                    .because(format!("Baker's condition fails for task {k}"));
            }
        }
        Verdict::schedulable()
    }
}

/// `Σi βi` without the `min(1, ·)`, an upper bound of Eq. (2)'s left side, in `O(log n)` per
/// `τk` from sums prepared once:
/// `Σ βi = U + A/Dk + (Σ_{ui > λ} Ci − λ·Σ_{ui > λ} Ti)/Dk` with `A = Σ ui·max(0, Ti − Di)`;
/// the tasks with `ui > λ` are a suffix of the tasks sorted by utilization (exactly, in
/// integers), found by binary search. When this bound, plus a rigorous bound on its rounding
/// error, is below `m(1 − λ) + λ`, `τk` passes without the `O(n)` sum; otherwise the `O(n)`
/// path decides (so verdicts are unchanged). On the benchmark workload most `τk` of the sets
/// BAK accepts pass here, which turns the test from `O(n²)` into `O(n log n)` for them.
struct UnclampedSum {
    /// Task indices by increasing utilization (exact order).
    by_util: Vec<usize>,
    /// `suffix_c[j] = Σ_{j' ≥ j} C` and `suffix_t[j] = Σ_{j' ≥ j} T` over `by_util`.
    suffix_c: Vec<f64>,
    suffix_t: Vec<f64>,
    total_util: f64,
    /// `A = Σ ui·max(0, Ti − Di)`.
    spread: f64,
}

impl UnclampedSum {
    fn new(params: &[Params], util: &[f64]) -> UnclampedSum {
        let mut by_util: Vec<usize> = (0..params.len()).collect();
        by_util.sort_unstable_by(|&a, &b| {
            let (pa, pb) = (params[a], params[b]);
            (u128::from(pa.c) * u128::from(pb.t)).cmp(&(u128::from(pb.c) * u128::from(pa.t)))
        });
        let n = by_util.len();
        let (mut suffix_c, mut suffix_t) = (vec![0.0; n + 1], vec![0.0; n + 1]);
        for j in (0..n).rev() {
            let p = params[by_util[j]];
            suffix_c[j] = suffix_c[j + 1] + p.c as f64;
            suffix_t[j] = suffix_t[j + 1] + p.t as f64;
        }
        let total_util = util.iter().sum();
        let spread = params
            .iter()
            .zip(util)
            .map(|(p, &u)| u * p.t.saturating_sub(p.d) as f64)
            .sum();
        UnclampedSum {
            by_util,
            suffix_c,
            suffix_t,
            total_util,
            spread,
        }
    }

    /// Whether the unclamped sum certainly satisfies Eq. (2) for `τk`.
    ///
    /// Error model: every sum above is of non-negative terms, each rounded once, so its error
    /// is below `(n + 2)·EPS` times its value; the final combination adds a few roundings. We
    /// charge `8·(n + 8)·EPS` times the sum of the magnitudes of all parts and the bound.
    fn shows_ok(&self, params: &[Params], pk: Params, m: u32) -> bool {
        let (ck, dk) = (pk.c, pk.d);
        // ui > λ  ⇔  Ci·Dk > Ck·Ti, a suffix of `by_util`.
        let split = self.by_util.partition_point(|&i| {
            let p = params[i];
            u128::from(p.c) * u128::from(dk) <= u128::from(ck) * u128::from(p.t)
        });
        let (Some(&sc), Some(&st)) = (self.suffix_c.get(split), self.suffix_t.get(split)) else {
            return false;
        };
        let inv_d = 1.0 / dk as f64;
        let lambda = ck as f64 * inv_d;
        let mf = f64::from(m);
        let bound = mf - (mf - 1.0) * lambda;
        let sum = self.total_util + self.spread * inv_d + (sc - lambda * st) * inv_d;
        let magnitude = self.total_util + self.spread * inv_d + (sc + lambda * st) * inv_d + mf;
        let err = 8.0 * (self.by_util.len() as f64 + 8.0) * EPS * magnitude;
        sum + err < bound
    }
}

/// Task indices by increasing deadline, ties by decreasing density, then index: the `βi`
/// carry terms `(Ci − λTi)/Dk` are largest for short `Dk`, so those `τk` fail first.
fn by_increasing_deadline(params: &[Params]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..params.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        let (pa, pb) = (params[a], params[b]);
        pa.d.cmp(&pb.d)
            .then((u128::from(pb.c) * u128::from(pa.d)).cmp(&(u128::from(pa.c) * u128::from(pb.d))))
            .then(a.cmp(&b))
    });
    order
}

const EPS: f64 = f64::EPSILON; // 2^-52 = 2u

/// Eq. (2) for `τk` in floating point with a rigorous error bound: `Some(answer)` when the
/// float result decides it, `None` when the exact computation is needed. Every `βi ≥ 0`, so a
/// prefix already above the bound settles the answer.
///
/// Error model: each `βi` below takes at most ~13 roundings relative to its magnitude
/// `ui(1 + (Ti + Di)/Dk) + (Ci + λTi)/Dk`; we charge `16·EPS` (= 32u) per unit of magnitude,
/// plus `(n + 4)·EPS·(Σ|terms| + m)` for the summation and the bound (Higham §4.2), and double
/// the total.
fn fast_task_ok(params: &[Params], util: &[f64], pk: Params, m: u32) -> Option<bool> {
    let (ck, dk) = (pk.c, pk.d);
    let inv_d = 1.0 / dk as f64;
    let lambda = ck as f64 * inv_d;
    let mf = f64::from(m);
    let bound = mf - (mf - 1.0) * lambda; // = m(1 − λ) + λ
    let slack_factor = (params.len() as f64 + 4.0) * EPS;
    let (mut sum, mut term_err) = (0.0f64, 0.0f64);
    for (p, &u) in params.iter().zip(util) {
        let (tf, df, cf) = (p.t as f64, p.d as f64, p.c as f64);
        // Eq. (1), first part.
        let mut beta = u * (1.0 + p.t.saturating_sub(p.d) as f64 * inv_d);
        let mut magnitude = u * (1.0 + (tf + df) * inv_d);
        // λ < ui  ⇔  Ck·Ti < Ci·Dk, decided exactly.
        if u128::from(ck) * u128::from(p.t) < u128::from(p.c) * u128::from(dk) {
            let lt = lambda * tf;
            beta += (cf - lt) * inv_d;
            magnitude += (cf + lt) * inv_d;
        }
        let e = 16.0 * EPS * magnitude;
        if beta - e >= 1.0 {
            sum += 1.0; // exactly min(1, βi) = 1
        } else {
            sum += beta.min(1.0);
            term_err += e;
        }
        // Terms are ≥ 0, so Σ|terms| = sum.
        let err = 2.0 * (term_err + slack_factor * (sum + mf));
        if sum - err > bound {
            return Some(false);
        }
    }
    let err = 2.0 * (term_err + slack_factor * (sum + mf));
    if sum + err < bound {
        Some(true)
    } else if sum - err > bound {
        Some(false)
    } else {
        None
    }
}

/// Eq. (2) for `τk` with exact big rationals, term by term in task-index order, failing as soon
/// as a prefix sum exceeds the bound (SchedCAT's loop; with `βi ≥ 0` the same as the full sum).
fn exact_task_ok(params: &[Params], pk: Params, m: u32) -> bool {
    let q = |a: u64, b: u64| BigRational::new(BigInt::from(a), BigInt::from(b));
    let int = |a: i128| BigRational::from_integer(BigInt::from(a));
    let one = int(1);
    let lambda = q(pk.c, pk.d);
    let bound = int(i128::from(m)) * (&one - &lambda) + &lambda;
    let mut sum = int(0);
    for p in params {
        if sum > bound {
            return false;
        }
        let u = q(p.c, p.t);
        let spread = BigRational::new(BigInt::from(p.t.saturating_sub(p.d)), BigInt::from(pk.d));
        let mut beta = &u * (&one + spread);
        if lambda < u {
            let t = int(i128::from(p.t));
            beta += (int(i128::from(p.c)) - &lambda * t) / int(i128::from(pk.d));
        }
        sum += beta.min(one.clone());
    }
    sum <= bound
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gedf::testutil::sys;
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    #[test]
    fn hand_worked() {
        // m = 2, τ1 = τ2 = (1, 4, 4): λ = 1/4, bound = 2·3/4 + 1/4 = 7/4.
        // βi = 1/4·(1 + 0) = 1/4 (ui = λ, no second part); Σ = 1/2 ≤ 7/4 → schedulable.
        assert!(analyze(&Bak, &sys(&[(1, 4, 4), (1, 4, 4)], 2)).is_schedulable());
        // Dhall-style set on m = 2: (2, 10, 10) ×2 and (10, 11, 11).
        // k = heavy: λ = 10/11, bound = 2/11 + 10/11 = 12/11.
        //   β_heavy = 10/11; β_light = 1/5 (u = 1/5 ≤ λ) → Σ = 10/11 + 2/5 = 72/55 > 12/11 = 60/55.
        assert_eq!(
            analyze(&Bak, &sys(&[(2, 10, 10), (2, 10, 10), (10, 11, 11)], 2)).status,
            Status::NotShown
        );
    }

    #[test]
    fn equality_at_the_bound() {
        // m = 1, τ1 = (1, 2, 2), τ2 = (1, 2, 2): for k: λ = 1/2, bound = 1;
        // β = 1/2 each (ui = λ), Σ = 1 ≤ 1 → schedulable (exactly at the bound).
        assert!(analyze(&Bak, &sys(&[(1, 2, 2), (1, 2, 2)], 1)).is_schedulable());
        // A third of the way: (1, 3, 3) ×3 on m = 1: Σ = 1 = bound → schedulable, and it
        // needs the exact fallback (1/3 is not a binary fraction).
        assert!(analyze(&Bak, &sys(&[(1, 3, 3); 3], 1)).is_schedulable());
        // One ns less of deadline on one task: λ = 1e9/(3e9 − 1) > 1/3 = ui of the others,
        // so Σ = 1/3 + 1/3 + λ > 1 = bound → not shown (U = 1 still passes the precheck).
        let g = 1_000_000_000;
        let p = [(g, 3 * g, 3 * g), (g, 3 * g, 3 * g), (g, 3 * g - 1, 3 * g)];
        assert_eq!(analyze(&Bak, &sys(&p, 1)).status, Status::NotShown);
        let p = [(g, 3 * g, 3 * g); 3];
        assert!(analyze(&Bak, &sys(&p, 1)).is_schedulable());
    }

    #[test]
    fn unclamped_shortcut_hand_worked() {
        // m = 2, τ = (1, 4, 4) ×2: for either k, λ = 1/4, no ui > λ, Σ βi = U = 1/2 ≤ 7/4.
        let s = sys(&[(1, 4, 4), (1, 4, 4)], 2);
        let util = [0.25, 0.25];
        let unclamped = UnclampedSum::new(s.params(), &util);
        assert!(unclamped.shows_ok(s.params(), s.params()[0], 2));
        // Exactly at the bound ((1, 3, 3) ×3 on m = 1: Σ = 1 = bound) the shortcut must leave
        // the decision to the exact path (its strict inequality and error margin).
        let s = sys(&[(1, 3, 3); 3], 1);
        let util = [1.0 / 3.0; 3];
        let unclamped = UnclampedSum::new(s.params(), &util);
        assert!(!unclamped.shows_ok(s.params(), s.params()[0], 1));
        assert!(analyze(&Bak, &s).is_schedulable());
    }

    #[test]
    fn arbitrary_deadlines() {
        // SchedCAT's unclamped β accepts this infeasible set (see the module documentation):
        // τ1 and τ2 both need the single CPU during [0, 1).
        assert_eq!(
            analyze(&Bak, &sys(&[(2, 9, 5), (1, 1, 6), (1, 1, 7)], 1)).status,
            Status::NotShown
        );
        // τ0 = (1, 2, 2), τ1 = (1, 100, 4) on m = 1 (max(0, T1 − D1) = 0):
        // k = 0: λ = 1/2, bound 1; β0 = 1/2, β1 = 1/4 (u1 ≤ λ) → 3/4 ≤ 1.
        // k = 1: λ = 1/100, bound 1; β0 = 1/2 + (1 − 2/100)/100 = 0.5098,
        //   β1 = 1/4 + (1 − 4/100)/100 = 0.2596 → 0.7694 ≤ 1 → schedulable.
        assert!(analyze(&Bak, &sys(&[(1, 2, 2), (1, 100, 4)], 1)).is_schedulable());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::gedf::testutil::cases()))]
        /// The float filter never disagrees with the exact computation.
        #[test]
        fn fast_path_agrees_with_exact(
            p in proptest::collection::vec(crate::gedf::testutil::arbitrary_task(40), 0..8),
            m in 1u32..5,
            scale in prop_oneof![Just(1u64), Just(1_000), Just(999_999_937)],
        ) {
            let p: Vec<_> = p.iter().map(|&(c, d, t)| (c * scale, d * scale, t * scale)).collect();
            let s = sys(&p, m);
            let params = s.params();
            let util: Vec<f64> = params.iter().map(|q| q.c as f64 / q.t as f64).collect();
            for pk in params {
                let exact = exact_task_ok(params, *pk, m);
                if let Some(fast) = fast_task_ok(params, &util, *pk, m) {
                    prop_assert_eq!(fast, exact);
                }
            }
        }

        /// The unclamped-sum shortcut only passes tasks that the exact sum passes.
        #[test]
        fn unclamped_shortcut_is_sound(
            p in proptest::collection::vec(crate::gedf::testutil::arbitrary_task(40), 1..10),
            m in 1u32..6,
            scale in prop_oneof![Just(1u64), Just(1_000), Just(999_999_937)],
        ) {
            let p: Vec<_> = p.iter().map(|&(c, d, t)| (c * scale, d * scale, t * scale)).collect();
            let s = sys(&p, m);
            let params = s.params();
            let util: Vec<f64> = params.iter().map(|q| q.c as f64 / q.t as f64).collect();
            let unclamped = UnclampedSum::new(params, &util);
            for pk in params {
                if unclamped.shows_ok(params, *pk, m) {
                    prop_assert!(exact_task_ok(params, *pk, m));
                }
            }
        }
    }
}
