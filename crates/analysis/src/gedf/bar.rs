//! `gedf-bar`: Baruah's G-EDF schedulability test.
//!
//! S. Baruah, "Techniques for multiprocessor global schedulability analysis", RTSS 2007:
//! condition (8) checked for every task `τk` and every interval extension `Ak` up to the
//! bound (9), with the integer-time correction of the interference terms that Baruah gave
//! after publication (quoted in SchedCAT's `schedcat/sched/edf/bar.py`): the job that misses
//! its deadline executes for *strictly less* than `Ck`, so the second term of the minima in
//! `I1`/`I2` is `Ak + Dk − (Ck − 1)` instead of `Ak + Dk − Ck`.
//!
//! For `t = Ak + Dk`, with `dbf(τi, t) = max(0, ⌊(t − Di)/Ti⌋ + 1)·Ci` and the carry-in demand
//! `dbf'(τi, t) = ⌊t/Ti⌋·Ci + min(Ci, t mod Ti)`:
//!
//! * `I1(τi) = min(dbf(τi, t), Ak + Dk − Ck + 1)` for `i ≠ k`, `min(dbf(τk, t) − Ck, Ak)` for `i = k`;
//! * `I2(τi)` the same with `dbf'`;
//! * condition (8): `Σi I1(τi) + Σ(m−1 largest) (I2(τi) − I1(τi)) ≤ m·(Ak + Dk − Ck)` (non-strict);
//! * bound (9): only `Ak ≤ (CΣ − Dk(m − U) + Σi (Ti − Di)·Ui + m·Ck) / (m − U)` need be
//!   checked, `CΣ` the sum of the `m − 1` largest `Ci`; SchedCAT (`native/src/edf/baruah.cpp`)
//!   truncates this rational towards zero and tests the points `Ak ≤` that integer, so when it
//!   lies in `(−1, 0)` the point `Ak = 0` is still tested. We do exactly the same.
//! * Test points: the `Ak ≥ 0` at which some `dbf(τi, Ak + Dk)` steps, i.e.
//!   `Ak = Di + j·Ti − Dk` (`j ≥ 0`), as in SchedCAT.
//!
//! Assumptions: sporadic tasks, constrained deadlines (`D ≤ T`, else not applicable), integer
//! time. `U ≥ m` is "not shown" (bound (9) needs positive slack; SchedCAT returns false).
//!
//! Implementation. Instead of SchedCAT's per-`k` priority queue of dbf step points and GMP
//! integers, the sweep over `Ak` keeps `t mod Ti` and `⌊t/Ti⌋·Ci` of every task and advances
//! all of them by the gap to the next step point, which is at most `min Ti`, so each update is
//! one conditional subtraction: no division and no allocation in the loop. `Ak` bounds are
//! computed exactly (filtered float with an exact rational fallback). All arithmetic is u64/u128
//! for parameters ≤ 2^62 ns (larger ones are not applicable); `Ak` is capped at 2^62, and a set
//! whose bound (9) exceeds the cap can only "give up", never be accepted.
//!
//! Order: the point `Ak = 0` is checked for every `k` first, then every `k`'s full sweep; the
//! verdict is the conjunction over all points, so the order changes only which failing point
//! the reason names (and, near the work limit, whether a set is rejected before the limit is
//! reached). On the benchmark workload 14 of 15 rejected sets fail at `Ak = 0`, so a rejection
//! costs `O(n²)` instead of the full sweeps of the tasks before the failing one.
//!
//! Complexity: O(n·P) for P test points in total (pseudo-polynomial). Work limit: at most
//! `max_points` pairs `(k, Ak)` are checked (default [`DEFAULT_MAX_POINTS`]); beyond that the
//! answer is gave-up. SchedCAT instead gives up after 5 s of CPU time and answers false.
//! Measured (release build, m = 16, UUniFast sets): median 90 µs at n = 160 and 2.4 ms at
//! n = 640 (SchedCAT: 5.1 ms and 66 ms); hitting the limit costs about 2.5 s at n = 640.
//!
//! Discrepancies with the reference: none in the verdicts we know of, except where SchedCAT's
//! time limit or ours is hit, and `U = m` (SchedCAT's older `baruah.cpp` divides by zero there,
//! the newer one returns false like we do).

use super::dbf::{cmp_utilization, ops_slack, require_range, ApproxSum};
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigInt;
use num_rational::BigRational;
use schedlab_model::exact::{exact_sum, Frac};
use std::cmp::Ordering;

/// Default work limit of [`Bar`]: one million `(k, Ak)` test points.
pub const DEFAULT_MAX_POINTS: u64 = 1_000_000;

/// `Ak` values are capped here (2^62); see the module doc.
const A_CAP: u64 = 1 << 62;

/// Baruah's RTSS 2007 G-EDF test (`gedf-bar`).
#[derive(Clone, Copy, Debug)]
pub struct Bar {
    /// Work limit: the most `(k, Ak)` pairs checked before answering gave-up.
    pub max_points: u64,
}

impl Default for Bar {
    fn default() -> Bar {
        Bar {
            max_points: DEFAULT_MAX_POINTS,
        }
    }
}

impl SchedTest for Bar {
    fn params(&self) -> Vec<Param> {
        vec![Param::new(
            "max_points",
            self.max_points,
            "test points (A_k values) before giving up",
        )]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "max_points" => self.max_points = param::parse_u64(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-bar".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation: "S. Baruah, \"Techniques for multiprocessor global schedulability analysis\", \
                       RTSS 2007, condition (8) and A_k bound (9), with the integer-time correction \
                       A_k + D_k − (C_k − 1) of I1/I2 (as in SchedCAT baruah.cpp)",
            assumptions: "sporadic tasks, constrained deadlines (D ≤ T), integer time, U < m",
            complexity: "pseudo-polynomial: O(n) per test point (k, A_k); at most max_points \
                         points (default 1,000,000), then gave-up",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_constrained()?;
        require_range(sys)
    }

    fn run(&self, sys: &System) -> Verdict {
        bar(sys.params(), sys.cpus(), self.max_points)
    }
}

/// Buffers reused across the tasks `k` of one run.
struct Sweep {
    /// `t mod Ti`.
    rem: Vec<u64>,
    /// `⌊t/Ti⌋·Ci`.
    base: Vec<u128>,
    /// `I2(τi) − I1(τi)` at the current point.
    diff: Vec<u64>,
}

enum Outcome {
    Passed,
    Fails(u64),
    Limit,
}

fn bar(params: &[Params], m: u32, max_points: u64) -> Verdict {
    let n = params.len();
    if n == 0 {
        return Verdict::schedulable();
    }
    if cmp_utilization(params, Frac::int(i128::from(m))) != Ordering::Less {
        return Verdict::not_shown().because("U ≥ m: the A_k bound (9) needs positive slack m − U");
    }
    let bounds = AkBounds::new(params, m);
    let mut sweep = Sweep {
        rem: vec![0; n],
        base: vec![0; n],
        diff: vec![0; n],
    };
    let ak_max: Vec<Option<(u64, bool)>> = (0..n).map(|k| bounds.max_ak(k)).collect();
    let mut points = 0u64;
    let mut capped = false;
    // First pass: `Ak = 0` (a step point of every task: `Dk + 0·Tk − Dk`) for every `k` — where
    // random sets fail, they almost always fail there — then each full sweep.
    for only_first in [true, false] {
        for (k, bound) in ak_max.iter().enumerate() {
            let Some((a_max, was_capped)) = *bound else {
                continue;
            };
            capped |= was_capped;
            let (a_max, skip_first) = if only_first {
                (0, false)
            } else {
                (a_max, true)
            };
            let limit = Limit {
                points: &mut points,
                max_points,
                skip_first,
            };
            match check_task(params, m, k, a_max, &mut sweep, limit) {
                Outcome::Passed => {}
                Outcome::Fails(a) => {
                    return Verdict::not_shown()
                        .because(format!("condition (8) fails for task {k} at A_k = {a}"))
                }
                Outcome::Limit => {
                    return Verdict::gave_up(format!(
                        "work limit of {max_points} test points (k, A_k) reached"
                    ))
                }
            }
        }
    }
    if capped {
        Verdict::gave_up("the A_k bound (9) exceeds 2^62 ns; not all test points were checked")
    } else {
        Verdict::schedulable()
    }
}

/// The work count of one run, and whether a sweep skips its first point (`Ak = 0`, already
/// checked and counted by the first pass).
struct Limit<'a> {
    points: &'a mut u64,
    max_points: u64,
    skip_first: bool,
}

/// Checks condition (8) for task `k` at every step point `0 ≤ Ak ≤ a_max` (from the second
/// point if `limit.skip_first`).
fn check_task(
    params: &[Params],
    m: u32,
    k: usize,
    a_max: u64,
    sweep: &mut Sweep,
    limit: Limit<'_>,
) -> Outcome {
    let Limit {
        points,
        max_points,
        skip_first,
    } = limit;
    let Some(pk) = params.get(k).copied() else {
        return Outcome::Passed;
    };
    let (ck, dk) = (u128::from(pk.c), u128::from(pk.d));
    let carry_in = (m as usize).saturating_sub(1);
    let m = u128::from(m);
    // State at t = Dk (Ak = 0).
    for ((p, rem), base) in params
        .iter()
        .zip(sweep.rem.iter_mut())
        .zip(sweep.base.iter_mut())
    {
        *rem = pk.d % p.t;
        *base = u128::from(pk.d / p.t) * u128::from(p.c);
    }
    let mut a = 0u64;
    let mut step = 0u64;
    loop {
        let counted = !(skip_first && a == 0);
        if counted {
            if *points >= max_points {
                return Outcome::Limit;
            }
            *points += 1;
        }
        let a128 = u128::from(a);
        // Second term of the minima for i ≠ k, with the integer-time correction.
        let lin = a128 + dk + 1 - ck;
        let mut sum = 0u128;
        let mut next = u64::MAX;
        for (i, p) in params.iter().enumerate() {
            let (Some(rem), Some(base), Some(diff)) = (
                sweep.rem.get_mut(i),
                sweep.base.get_mut(i),
                sweep.diff.get_mut(i),
            ) else {
                continue;
            };
            // Advance t by `step` (≤ min Ti, so at most one period boundary is crossed).
            *rem += step;
            if *rem >= p.t {
                *rem -= p.t;
                *base += u128::from(p.c);
            }
            let r = *rem;
            let c = u128::from(p.c);
            // D ≤ T: dbf(t) = ⌊t/T⌋C + C·[t mod T ≥ D].
            let dbf = if r >= p.d { *base + c } else { *base };
            let dbf_carry = *base + u128::from(p.c.min(r));
            let (i1, i2) = if i == k {
                (
                    dbf.saturating_sub(ck).min(a128),
                    dbf_carry.saturating_sub(ck).min(a128),
                )
            } else {
                (dbf.min(lin), dbf_carry.min(lin))
            };
            sum += i1;
            // 0 ≤ I2 − I1 ≤ Ci for constrained deadlines.
            *diff = u64::try_from(i2.saturating_sub(i1)).unwrap_or(u64::MAX);
            // Gap to this task's next dbf step (t ≡ Di mod Ti).
            let gap = if r < p.d { p.d - r } else { p.t - r + p.d };
            next = next.min(gap);
        }
        sum += top_sum(&mut sweep.diff, carry_in);
        // Eq. (8).
        if counted && sum > m * (a128 + dk - ck) {
            return Outcome::Fails(a);
        }
        if next > a_max - a {
            return Outcome::Passed;
        }
        a += next;
        step = next;
    }
}

/// Sum of the `count` largest values (all of them if there are fewer).
fn top_sum(values: &mut [u64], count: usize) -> u128 {
    if count == 0 {
        return 0;
    }
    if count < values.len() {
        values.select_nth_unstable_by(count - 1, |a, b| b.cmp(a));
    }
    values
        .iter()
        .take(count)
        .map(|&v| u128::from(v))
        .sum::<u128>()
}

/// Bound (9) on `Ak`, per task, computed exactly.
///
/// With `Nk = CΣ + Σi (Ti − Di)·Ci/Ti + m·Ck` and `M = m − U`, the bound is `Nk/M − Dk`. The
/// sign of `Nk − x·M` for an integer `x` is decided by a float filter (the two sums are
/// precomputed with error bounds) and, when too close to call, exactly (the two sums computed once as big rationals).
struct AkBounds<'a> {
    params: &'a [Params],
    m: u32,
    /// Sum of the `m − 1` largest WCETs.
    c_sigma: u128,
    /// `Σ Ci (Ti − Di)/Ti`.
    slack_sum: ApproxSum,
    /// `Σ Ci/Ti`.
    util: ApproxSum,
    /// The two sums exactly, computed on the first call that the float filter cannot decide:
    /// near `U = m` that happens for many `x`, and one exact sum per call (big rationals over
    /// n distinct periods) dominated the test's run time.
    exact: std::cell::OnceCell<(BigRational, BigRational)>,
}

impl<'a> AkBounds<'a> {
    fn new(params: &'a [Params], m: u32) -> AkBounds<'a> {
        let mut wcets: Vec<u64> = params.iter().map(|p| p.c).collect();
        let c_sigma = top_sum(&mut wcets, (m as usize).saturating_sub(1));
        let slack_sum = ApproxSum::of(params.iter().map(|p| {
            (
                u128::from(p.c) * u128::from(p.t.saturating_sub(p.d)),
                u128::from(p.t),
            )
        }));
        let util = ApproxSum::of(params.iter().map(|p| (u128::from(p.c), u128::from(p.t))));
        AkBounds {
            params,
            m,
            c_sigma,
            slack_sum,
            util,
            exact: std::cell::OnceCell::new(),
        }
    }

    /// Sign of `Nk − x·(m − U)`.
    fn cmp_nk(&self, k: usize, x: u64) -> Ordering {
        let ck = self.params.get(k).map_or(0, |p| p.c);
        let m = i128::from(self.m);
        // Integer part: CΣ + m·Ck − x·m (|·| < 2^97).
        let int = self.c_sigma as i128 + m * i128::from(ck) - i128::from(x) * m;
        let xf = x as f64;
        let approx = int as f64 + self.slack_sum.value + xf * self.util.value;
        let err = self.slack_sum.err
            + xf * self.util.err
            + ops_slack(int.unsigned_abs() as f64 + self.slack_sum.value + xf * self.util.value);
        if approx > err {
            return Ordering::Greater;
        }
        if approx < -err {
            return Ordering::Less;
        }
        // Exact: Σ Ci (Ti − Di + x)/Ti = Σ Ci (Ti − Di)/Ti + x·U  vs  −int.
        let (slack, util) = self.exact.get_or_init(|| {
            let slack = exact_sum(self.params.iter().map(|p| {
                Frac::new(
                    i128::from(p.c) * (i128::from(p.t) - i128::from(p.d)),
                    i128::from(p.t),
                )
            }));
            let util = exact_sum(
                self.params
                    .iter()
                    .map(|p| Frac::new(i128::from(p.c), i128::from(p.t))),
            );
            (slack, util)
        });
        let lhs = slack + util * BigRational::from_integer(BigInt::from(x));
        lhs.cmp(&BigRational::from_integer(BigInt::from(-int)))
    }

    /// `⌊Nk/M⌋`, capped at [`A_CAP`] (then also `true`).
    fn floor_ratio(&self, k: usize) -> (u64, bool) {
        let holds = |x: u64| self.cmp_nk(k, x) != Ordering::Less; // Nk ≥ x·M
        if holds(A_CAP) {
            return (A_CAP, true);
        }
        let ck = self.params.get(k).map_or(0, |p| p.c);
        let num = self.c_sigma as f64 + f64::from(self.m) * ck as f64 + self.slack_sum.value;
        let den = f64::from(self.m) - self.util.value;
        let guess = if den > 0.0 {
            (num / den).floor()
        } else {
            f64::MAX
        };
        let guess = if guess.is_finite() && guess >= 0.0 {
            (guess as u64).min(A_CAP - 1)
        } else {
            A_CAP - 1
        };
        // Gallop from the guess to a bracket holds(lo) ∧ ¬holds(hi), then bisect.
        // holds(0) is true (Nk > 0) and holds(A_CAP) is false.
        let (mut lo, mut hi);
        let mut width = 1u64;
        if holds(guess) {
            lo = guess;
            loop {
                let h = lo.saturating_add(width).min(A_CAP);
                if !holds(h) {
                    hi = h;
                    break;
                }
                lo = h;
                width = width.saturating_mul(2);
            }
        } else {
            hi = guess;
            loop {
                let l = hi.saturating_sub(width);
                if holds(l) {
                    lo = l;
                    break;
                }
                hi = l;
                width = width.saturating_mul(2);
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if holds(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo, false)
    }

    /// The largest `Ak` to test for task `k` (SchedCAT: `Ak ≤ trunc(Nk/M − Dk)`), and whether
    /// it was capped; `None` if no point is tested.
    fn max_ak(&self, k: usize) -> Option<(u64, bool)> {
        let dk = self.params.get(k)?.d;
        let (f, capped) = self.floor_ratio(k);
        if f >= dk {
            Some((f - dk, capped))
        } else if f + 1 == dk && self.cmp_nk(k, f) == Ordering::Greater {
            // Nk/M − Dk ∈ (−1, 0): truncates to 0, so Ak = 0 is tested.
            Some((0, false))
        } else {
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gedf::dbf::testkit::{arbitrary_tasks, constrained_tasks, sys, uni_edf_feasible};
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    fn run(tasks: &[(u64, u64, u64)], m: u32) -> Verdict {
        analyze(&Bar::default(), &sys(tasks, m))
    }

    #[test]
    fn hand_worked_uniprocessor_example() {
        // m = 1, τ1 = (C 1, D 2, T 2), τ2 = (1, 4, 4): U = 3/4, M = m − U = 1/4, CΣ = 0
        // (no carry-in on one CPU), Σ(T−D)U = 0, so Nk = m·Ck = 1 and Nk/M = 4.
        //   k = 1: Ak ≤ 4 − 2 = 2; steps of dbf(·, Ak + 2): τ1 at t = 2, 4 → Ak = 0, 2;
        //          τ2 at t = 4 → Ak = 2.  Points {0, 2}.
        //     Ak = 0 (t = 2): I1(τ1) = min(dbf1(2) − 1, 0) = 0; I1(τ2) = min(dbf2(2) = 0, 2) = 0;
        //                     0 ≤ 1·(0 + 2 − 1) = 1.
        //     Ak = 2 (t = 4): I1(τ1) = min(2 − 1, 2) = 1; I1(τ2) = min(1, 2 + 2 − 1 + 1) = 1;
        //                     2 ≤ 1·(2 + 2 − 1) = 3.
        //   k = 2: Ak ≤ 4 − 4 = 0.  Ak = 0 (t = 4): I1(τ2) = min(1 − 1, 0) = 0,
        //          I1(τ1) = min(dbf1(4) = 2, 0 + 4 − 1 + 1) = 2;  2 ≤ 4 − 1 = 3.
        // Three points, all pass.
        let tasks = [(1, 2, 2), (1, 4, 4)];
        assert_eq!(run(&tasks, 1).status, Status::Schedulable);
        let limited = |max_points| analyze(&Bar { max_points }, &sys(&tasks, 1)).status;
        assert_eq!(limited(3), Status::Schedulable);
        assert_eq!(limited(2), Status::GaveUp);
        assert_eq!(limited(0), Status::GaveUp);
    }

    #[test]
    fn hand_worked_carry_in_failure() {
        // m = 2, τ1 = τ2 = (2, 3, 6), τ3 = (3, 6, 6): U = 7/6 < 2.
        // k = 1, Ak = 0, t = 3: I1(τ1) = min(2 − 2, 0) = 0; I1(τ2) = min(dbf = 2, 0+3−2+1 = 2) = 2;
        // I1(τ3) = dbf3(3) = 0.  Carry-in: dbf'3(3) = min(3, 3) = 3 → I2(τ3) = min(3, 2) = 2, so
        // the largest (m − 1 = 1) difference is 2.  2 + 2 = 4 > m·(0 + 3 − 2) = 2: fails.
        // (Bound (9): Nk = CΣ 3 + Σ(T−D)U 2 + 2·2 = 9, Nk/M = 9/(5/6) = 10.8, so Ak ≤ 7.)
        let v = run(&[(2, 3, 6), (2, 3, 6), (3, 6, 6)], 2);
        assert_eq!(v.status, Status::NotShown);
        assert!(v.reason.unwrap().contains("task 0 at A_k = 0"));
    }

    #[test]
    fn empty_bound_range_is_schedulable() {
        // m = 2, two tasks (1, 4, 4): U = 1/2, M = 3/2, CΣ = 1, Nk = 1 + 0 + 2 = 3, Nk/M = 2 < 3 = Dk − 1,
        // so trunc(Nk/M − Dk) = −2 and no Ak is tested at all.
        assert_eq!(run(&[(1, 4, 4), (1, 4, 4)], 2).status, Status::Schedulable);
        assert_eq!(
            analyze(&Bar { max_points: 0 }, &sys(&[(1, 4, 4), (1, 4, 4)], 2)).status,
            Status::Schedulable
        );
    }

    #[test]
    fn truncation_towards_zero_still_tests_ak_zero() {
        // m = 1, τ = (1, 2, 3): U = 1/3, M = 2/3, Σ(T−D)U = 1/3, Nk = 1/3 + 1 = 4/3,
        // Nk/M = 2 = Dk → Ak ≤ 0: exactly one point.  With D = 3 (implicit): Nk = 1, Nk/M = 3/2,
        // Nk/M − Dk = −3/2 truncates to −1 → no point.
        for (tasks, points) in [(vec![(1, 2, 3)], 1u64), (vec![(1, 3, 3)], 0)] {
            let s = sys(&tasks, 1);
            assert_eq!(
                analyze(&Bar { max_points: points }, &s).status,
                Status::Schedulable
            );
            if points > 0 {
                assert_eq!(
                    analyze(
                        &Bar {
                            max_points: points - 1
                        },
                        &s
                    )
                    .status,
                    Status::GaveUp
                );
            }
        }
        // Nk/M − Dk ∈ (−1, 0): m = 2, τ1 = (1, 5, 5), τ2 = (3, 5, 5): U = 4/5, M = 6/5, CΣ = 3,
        // k = 1: N = 3 + 2 = 5, N/M = 25/6 = 4.17, minus 5 = −0.83 → truncated to 0: Ak = 0 tested.
        // k = 2: N = 3 + 6 = 9, N/M = 7.5 → Ak ≤ 2; points Ak = 0 only (next steps at t = 10).
        let s = sys(&[(1, 5, 5), (3, 5, 5)], 2);
        assert_eq!(
            analyze(&Bar { max_points: 2 }, &s).status,
            Status::Schedulable
        );
        assert_eq!(analyze(&Bar { max_points: 1 }, &s).status, Status::GaveUp);
    }

    #[test]
    fn boundaries() {
        assert_eq!(run(&[], 3).status, Status::Schedulable);
        // U = m exactly: not shown (no positive slack).
        assert_eq!(run(&[(1, 1, 1), (1, 1, 1)], 2).status, Status::NotShown);
        // Arbitrary deadline: not applicable.
        assert_eq!(run(&[(1, 5, 4)], 2).status, Status::NotApplicable);
        // Huge periods do not overflow.
        let big = 1_000_000_000_000_000u64;
        assert_eq!(
            run(&[(1, big, big), (big / 3, big / 2, big)], 2).status,
            Status::Schedulable
        );
        // Exact equality in (8): m = 1, τ = (2, 2, 4): Ak = 0, I1 = min(2 − 2, 0) = 0 ≤ 1·0.
        assert_eq!(run(&[(2, 2, 4)], 1).status, Status::Schedulable);
    }

    /// A direct transcription of SchedCAT's `baruah.cpp` semantics with big rationals and a
    /// brute-force scan over every integer `Ak` (slow; tiny parameters only).
    fn naive_bar(tasks: &[(u64, u64, u64)], m: u32) -> bool {
        use num_bigint::BigInt;
        use num_rational::BigRational;
        use num_traits::{ToPrimitive, Zero};
        let q = |a: u64, b: u64| BigRational::new(BigInt::from(a), BigInt::from(b));
        let u = tasks
            .iter()
            .fold(BigRational::zero(), |s, &(c, _, t)| s + q(c, t));
        let mm = q(u64::from(m), 1) - u;
        if mm <= BigRational::zero() {
            return false;
        }
        let mut wcets: Vec<u64> = tasks.iter().map(|t| t.0).collect();
        wcets.sort_unstable_by(|a, b| b.cmp(a));
        let csigma: u64 = wcets.iter().take(m as usize - 1).sum();
        let tdu = tasks
            .iter()
            .fold(BigRational::zero(), |s, &(c, d, t)| s + q((t - d) * c, t));
        let dbf =
            |(c, d, t): (u64, u64, u64), x: u64| if x < d { 0 } else { ((x - d) / t + 1) * c };
        let dbf_ci = |(c, _, t): (u64, u64, u64), x: u64| x / t * c + c.min(x % t);
        for (k, &(ck, dk, _)) in tasks.iter().enumerate() {
            let n = q(csigma + u64::from(m) * ck, 1) + tdu.clone();
            let bound = (n / mm.clone() - q(dk, 1))
                .trunc()
                .to_integer()
                .to_i64()
                .unwrap();
            for a in 0..=bound.max(-1) {
                let a = a as u64;
                let step = tasks
                    .iter()
                    .any(|&(_, d, t)| a + dk >= d && (a + dk - d) % t == 0);
                if !step {
                    continue;
                }
                let mut sum = 0u64;
                let mut diffs = Vec::new();
                for (i, &ti) in tasks.iter().enumerate() {
                    let (i1, i2) = if i == k {
                        (
                            (dbf(ti, a + dk) - ck).min(a),
                            (dbf_ci(ti, a + dk) - ck).min(a),
                        )
                    } else {
                        let lin = a + dk - (ck - 1);
                        (dbf(ti, a + dk).min(lin), dbf_ci(ti, a + dk).min(lin))
                    };
                    sum += i1;
                    diffs.push(i2 - i1);
                }
                diffs.sort_unstable_by(|a, b| b.cmp(a));
                sum += diffs.iter().take(m as usize - 1).sum::<u64>();
                if sum > u64::from(m) * (a + dk - ck) {
                    return false;
                }
            }
        }
        true
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(192))]

        #[test]
        fn agrees_with_naive_transcription(tasks in constrained_tasks(1..7, 25), m in 1u32..5) {
            let v = run(&tasks, m);
            prop_assert_ne!(v.status, Status::GaveUp);
            prop_assert_eq!(v.is_schedulable(), naive_bar(&tasks, m), "{:?}", v);
        }

        #[test]
        fn never_accepts_overload(tasks in constrained_tasks(1..8, 40), m in 1u32..5) {
            let v = run(&tasks, m);
            let u: f64 = tasks.iter().map(|&(c, _, t)| c as f64 / t as f64).sum();
            if v.is_schedulable() {
                prop_assert!(u <= f64::from(m));
            }
        }

        #[test]
        fn sound_on_one_cpu(tasks in constrained_tasks(1..5, 30)) {
            if run(&tasks, 1).is_schedulable() {
                prop_assert!(uni_edf_feasible(&tasks));
            }
        }

        #[test]
        fn never_panics(tasks in arbitrary_tasks(0..10, 1_000), m in 1u32..17) {
            let v = analyze(&Bar { max_points: 5_000 }, &sys(&tasks, m));
            if tasks.iter().any(|&(_, d, t)| d > t) {
                prop_assert_eq!(v.status, Status::NotApplicable);
            }
        }
    }
}
