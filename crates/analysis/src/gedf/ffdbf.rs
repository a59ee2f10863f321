//! `gedf-ffdbf`: the forced-forward demand bound function test for G-EDF.
//!
//! S. Baruah, V. Bonifaci, A. Marchetti-Spaccamela and S. Stiller, "Improved multiprocessor
//! global schedulability analysis", Real-Time Systems 46(1):3–24, 2010 (ECRTS 2009 version:
//! "Implementation of a speedup-optimal global EDF schedulability test"). With `r = t mod Ti`,
//! `q = ⌊t/Ti⌋`, the forced-forward demand of `τi` at speed `σ` is
//!
//! `ffdbf(τi, t, σ) = q·Ci + { Ci if r ≥ Di;  Ci − (Di − r)·σ if Di − Ci/σ ≤ r < Di;  0 otherwise }`
//!
//! and the system is G-EDF schedulable on `m` unit-speed CPUs if some speed
//! `σ ∈ [δmax, (m − U)/(m − 1) − ε]` satisfies (witness condition, SchedCAT's "Equ. (6)")
//!
//! `Σi ffdbf(τi, t, σ) ≤ (m − (m − 1)·σ)·t` for every `t ≥ 0`.
//!
//! Following SchedCAT (`native/src/edf/ffdbf.cpp`, `schedcat/sched/edf/ffdbf.py`):
//! * `σ` is also capped at 1; candidates are `δmax` and then the multiples of the step
//!   `1/granularity` (default 1/50) above it, tried in increasing order;
//! * the tested `t` are the breakpoints of `ffdbf`, `j·Ti + Di − Ci/σ` and `j·Ti + Di`, up to
//!   `Σ Ci / ε` (default ε = 1/10); beyond that the condition holds for every `σ` in range;
//! * the inequality is non-strict;
//! * the search is incremental: when the current `σ` fails at some `t`, the next candidate that
//!   satisfies the condition *at that `t`* is taken. SchedCAT then resumes with the points after
//!   `t`, never re-checking the earlier ones with the new `σ`. That is not what the theorem asks
//!   (one `σ` for all `t`): a later `σ` may fail at an earlier point. By default we keep the
//!   incremental choice of `σ` but re-sweep from `t = 0` with every new `σ`, which is the
//!   paper's condition; `resume = true` reproduces SchedCAT's verdicts exactly (it can only
//!   accept more sets). On 3,000 random constrained sets (m = 2..8, UUniFast) the two modes
//!   never disagreed.
//!
//! Points beyond `ΣC/(m − (m−1)σ − U)` satisfy the condition automatically (the demand is at
//! most `U·t + ΣC` there), so the sweep stops at the smaller of that and `ΣC/ε`: the same
//! verdict with up to `m − 1` times fewer points.
//!
//! Exactness: `σ = P/Q` and `t = τ/P` are exact rationals; the condition is evaluated in
//! integers scaled by `P·Q` (u128, with a big-integer fallback on overflow). The sweep keeps
//! `τ mod (P·Ti)` of every task and advances by the gap to the next breakpoint (at most one
//! period of every task), so no division happens per point.
//!
//! Assumptions: sporadic tasks, constrained deadlines, `m ≥ 2` (the `σ` range divides by
//! `m − 1`; SchedCAT returns false for `m < 2`), integer time. `U > m` is not shown.
//!
//! Complexity: O(n) per test point and `O(n·Σ(ΣC/(ε·Ti)))` points per `σ`, at most
//! `granularity + 1` values of `σ` (pseudo-polynomial). Work limit: at most `max_points`
//! condition evaluations (default [`DEFAULT_MAX_POINTS`]), then gave-up.

use super::dbf::{cmp_utilization, max_density, require_range, ApproxSum};
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use num_bigint::BigInt;
use schedlab_model::exact::{exact_sum, Frac};
use std::cmp::Ordering;

/// Default work limit of [`FfDbf`]: one million evaluations of the witness condition.
pub const DEFAULT_MAX_POINTS: u64 = 1_000_000;

/// The FF-DBF test (`gedf-ffdbf`).
#[derive(Clone, Copy, Debug)]
pub struct FfDbf {
    /// Numerator of ε (default 1).
    pub eps_num: u32,
    /// Denominator of ε (default 10: ε = 1/10 as in SchedCAT).
    pub eps_den: u32,
    /// `σ` candidates are multiples of `1/sigma_granularity` (default 50, as in SchedCAT).
    pub sigma_granularity: u32,
    /// Work limit: the most witness-condition evaluations before answering gave-up.
    pub max_points: u64,
    /// `true`: resume after the failing point with a new `σ` (SchedCAT's search, see the
    /// module doc); `false` (default): re-check all points with every new `σ`.
    pub resume: bool,
}

impl Default for FfDbf {
    fn default() -> FfDbf {
        FfDbf {
            eps_num: 1,
            eps_den: 10,
            sigma_granularity: 50,
            max_points: DEFAULT_MAX_POINTS,
            resume: false,
        }
    }
}

impl SchedTest for FfDbf {
    fn params(&self) -> Vec<Param> {
        vec![
            Param::new(
                "epsilon",
                format!("{}/{}", self.eps_num, self.eps_den),
                "ε: test points up to ΣC/ε",
            ),
            Param::new(
                "sigma_step",
                format!("1/{}", self.sigma_granularity),
                "σ candidates are multiples of this step",
            ),
            Param::new(
                "max_points",
                self.max_points,
                "test points before giving up",
            ),
            Param::new(
                "resume",
                self.resume,
                "SchedCAT's σ search (resume after a σ change) instead of re-checking",
            ),
        ]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "epsilon" => (self.eps_num, self.eps_den) = param::parse_unit_fraction(name, value)?,
            "sigma_step" => match param::parse_unit_fraction(name, value)? {
                (1, k) => self.sigma_granularity = k,
                _ => return Err(format!("parameter `sigma_step` takes 1/k, got `{value}`")),
            },
            "max_points" => self.max_points = param::parse_u64(name, value)?,
            "resume" => self.resume = param::parse_bool(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-ffdbf".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation: "S. Baruah, V. Bonifaci, A. Marchetti-Spaccamela, S. Stiller, \"Improved \
                       multiprocessor global schedulability analysis\", Real-Time Systems 46(1), \
                       2010: FF-DBF witness condition Σ ffdbf(τi,t,σ) ≤ (m − (m−1)σ)t for some \
                       σ ∈ [δmax, (m−U)/(m−1) − ε] (SchedCAT ffdbf.cpp search)",
            assumptions: "sporadic tasks, constrained deadlines (D ≤ T), m ≥ 2, integer time; \
                          ε = 1/10 and σ step 1/50 by default",
            complexity: "pseudo-polynomial: O(n) per test point, points up to ΣC/ε, at most \
                         1/step + 1 values of σ; at most max_points evaluations (default \
                         1,000,000), then gave-up",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        if sys.cpus() < 2 {
            return Err("needs m ≥ 2 (the σ range divides by m − 1)".into());
        }
        if self.eps_num == 0 || self.eps_den == 0 || self.sigma_granularity == 0 {
            return Err("ε and the σ step must be positive".into());
        }
        sys.require_constrained()?;
        require_range(sys)
    }

    fn run(&self, sys: &System) -> Verdict {
        ffdbf_test(sys.params(), sys.cpus(), self)
    }
}

/// A speed `σ = p/q` in lowest terms, `0 < p ≤ q` (or `p > q` for candidates out of range).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Speed {
    p: u128,
    q: u128,
}

impl Speed {
    fn new(p: u128, q: u128) -> Speed {
        let g = gcd(p, q).max(1);
        Speed { p: p / g, q: q / g }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A test point `t = num/den`.
#[derive(Clone, Copy, Debug)]
struct Point {
    num: u128,
    den: u128,
}

enum SweepEnd {
    /// Every point up to the time bound satisfies the condition.
    Passed,
    /// The condition fails at this point.
    Fails(Point),
    /// Work limit reached.
    Limit,
}

struct Ctx<'a> {
    params: &'a [Params],
    m: u32,
    /// `Σ Ci · eps_den`, so that `t ≤ ΣC/ε ⟺ t·eps_num ≤ c_sum_den`.
    c_sum_den: u128,
    eps_num: u128,
    eps: Frac,
    /// `Σ Ci` and an upper bound on `U` (float), for the early cut-off of the sweep.
    c_sum: u128,
    util_hi: f64,
    evaluations: u64,
    max_points: u64,
    /// Per-task sweep state, reused: `τ mod (P·Ti)` and `⌊τ/(P·Ti)⌋`.
    rem: Vec<u128>,
    quo: Vec<u128>,
}

fn ffdbf_test(params: &[Params], m: u32, cfg: &FfDbf) -> Verdict {
    let n = params.len();
    if n == 0 {
        return Verdict::schedulable();
    }
    if cmp_utilization(params, Frac::int(i128::from(m))) == Ordering::Greater {
        return Verdict::not_shown().because("U > m");
    }
    let c_sum: u128 = params.iter().map(|p| u128::from(p.c)).sum();
    let mut ctx = Ctx {
        params,
        m,
        c_sum_den: c_sum * u128::from(cfg.eps_den),
        eps_num: u128::from(cfg.eps_num),
        eps: Frac::new(i128::from(cfg.eps_num), i128::from(cfg.eps_den)),
        c_sum,
        util_hi: {
            let u = ApproxSum::of(params.iter().map(|p| (u128::from(p.c), u128::from(p.t))));
            u.value + u.err
        },
        evaluations: 0,
        max_points: cfg.max_points,
        rem: vec![0; n],
        quo: vec![0; n],
    };
    let dmax = max_density(params);
    let g = u128::from(cfg.sigma_granularity);
    // δmax = num/den with num ≤ den ≤ 2^62.
    let (dnum, dden) = (dmax.num.unsigned_abs(), dmax.den.unsigned_abs());
    let mut sigma = Speed::new(dnum, dden);
    // Next grid index: ⌊δmax·G⌋ + 1.
    let mut next_grid = dnum * g / dden + 1;
    let mut start = Point { num: 0, den: 1 };
    loop {
        if !ctx.sigma_in_range(sigma) {
            return Verdict::not_shown()
                .because("no speed σ in [δmax, (m − U)/(m − 1) − ε] is a witness");
        }
        match ctx.sweep(sigma, start) {
            SweepEnd::Passed => {
                return Verdict::schedulable()
                    .because(format!("σ = {}/{} is a witness", sigma.p, sigma.q))
            }
            SweepEnd::Limit => return ctx.limit(),
            SweepEnd::Fails(t) => {
                // Next grid speed that satisfies the condition at t (SchedCAT's search).
                loop {
                    sigma = Speed::new(next_grid, g);
                    next_grid += 1;
                    if !ctx.sigma_in_range(sigma) {
                        return Verdict::not_shown().because(format!(
                            "no speed σ up to the bound satisfies the condition at t = {}/{}",
                            t.num, t.den
                        ));
                    }
                    if ctx.evaluations >= ctx.max_points {
                        return ctx.limit();
                    }
                    ctx.evaluations += 1;
                    if ctx.witness_at(t, sigma) {
                        break;
                    }
                }
                if cfg.resume {
                    start = t;
                }
            }
        }
    }
}

impl Ctx<'_> {
    fn limit(&self) -> Verdict {
        Verdict::gave_up(format!(
            "work limit of {} witness-condition evaluations reached",
            self.max_points
        ))
    }

    /// `σ ≤ min(1, (m − U)/(m − 1) − ε)`, exactly.
    fn sigma_in_range(&self, s: Speed) -> bool {
        if s.p > s.q {
            return false;
        }
        // U ≤ m − (m − 1)(σ + ε)  ⟺  U ≤ (m·q·ed − (m−1)(p·ed + en·q)) / (q·ed)
        let (en, ed) = (self.eps.num, self.eps.den);
        let m = i128::from(self.m);
        let (Ok(p), Ok(q)) = (i128::try_from(s.p), i128::try_from(s.q)) else {
            return false;
        };
        let small = (|| {
            let lhs = m.checked_mul(q)?.checked_mul(ed)?;
            let rhs = (m - 1).checked_mul(p.checked_mul(ed)?.checked_add(en.checked_mul(q)?)?)?;
            Some(Frac::new(lhs.checked_sub(rhs)?, q.checked_mul(ed)?))
        })();
        match small {
            Some(bound) => cmp_utilization(self.params, bound) != Ordering::Greater,
            None => {
                let big = |v: i128| num_rational::BigRational::from_integer(BigInt::from(v));
                let bound = big(m)
                    - big(m - 1)
                        * (num_rational::BigRational::new(BigInt::from(p), BigInt::from(q))
                            + self.eps.to_big());
                let u = exact_sum(self.params.iter().map(|t| Frac::ratio(t.c, t.t)));
                u <= bound
            }
        }
    }

    /// A `τ` (in units of `1/p`) beyond which the condition holds at every point for speed
    /// `s`: `Σ ffdbf(t) ≤ Σ (⌊t/Ti⌋ + 1)·Ci ≤ U·t + ΣC ≤ (m − (m−1)σ)·t` once
    /// `t ≥ ΣC / (m − (m−1)σ − U)`. Computed in floats with margins so that it is an upper
    /// estimate of that `t` (a larger cut only costs time); `u128::MAX` if there is none.
    fn cutoff(&self, s: Speed) -> u128 {
        let m = f64::from(self.m);
        let sigma = s.p as f64 / s.q as f64;
        let slack = m - (m - 1.0) * sigma - self.util_hi - 1e-12 * m;
        if slack <= 0.0 {
            return u128::MAX;
        }
        let t = self.c_sum as f64 / slack * (1.0 + 1e-9) + 1.0;
        let tau = (t * s.p as f64).ceil() + 1.0;
        if tau.is_finite() && tau < 1.0e38 {
            tau as u128
        } else {
            u128::MAX
        }
    }

    /// Checks every breakpoint `t > start` (up to `ΣC/ε`) with speed `s`.
    fn sweep(&mut self, s: Speed, start: Point) -> SweepEnd {
        let Speed { p, q } = s;
        // Time bound in units of 1/p: τ ≤ ⌊ΣC·ed·p / en⌋ (SchedCAT's ΣC/ε); points past the
        // cut-off pass anyway, so the sweep may stop there (same verdict, less work).
        let tau_bound = self
            .c_sum_den
            .checked_mul(p)
            .map_or(u128::MAX, |x| x / self.eps_num)
            .min(self.cutoff(s));
        // Start at τ0 = ⌊start·p⌋; the points > start are exactly the integers > τ0.
        let tau0 = floor_mul_div(start.num, p, start.den);
        let Ctx {
            params, rem, quo, ..
        } = self;
        for ((t, r), k) in params.iter().zip(rem.iter_mut()).zip(quo.iter_mut()) {
            let pt = p * u128::from(t.t);
            *r = tau0 % pt;
            *k = tau0 / pt;
        }
        let coef = u128::from(self.m) * q - u128::from(self.m - 1) * p; // mQ − (m−1)P ≥ Q
        let mut tau = tau0;
        loop {
            // Next breakpoint after τ: per task, off = p·D − q·C, then p·D, then the next period.
            let mut gap = u128::MAX;
            for (t, &r) in self.params.iter().zip(self.rem.iter()) {
                let pd = p * u128::from(t.d);
                let off = pd - q * u128::from(t.c);
                let g = if r < off {
                    off - r
                } else if r < pd {
                    pd - r
                } else {
                    p * u128::from(t.t) - r + off
                };
                gap = gap.min(g);
            }
            let Some(next) = tau.checked_add(gap) else {
                return SweepEnd::Limit;
            };
            tau = next;
            if tau > tau_bound {
                return SweepEnd::Passed;
            }
            if self.evaluations >= self.max_points {
                return SweepEnd::Limit;
            }
            self.evaluations += 1;
            // Advance every task by `gap` (at most one period) and sum Q·ffdbf.
            let mut demand: Option<u128> = Some(0);
            for ((t, r), k) in self
                .params
                .iter()
                .zip(self.rem.iter_mut())
                .zip(self.quo.iter_mut())
            {
                let pt = p * u128::from(t.t);
                *r += gap;
                if *r >= pt {
                    *r -= pt;
                    *k += 1;
                }
                demand = demand.and_then(|d| d.checked_add(scaled_term(t, *k, *r, p, q)?));
            }
            let ok = match demand.and_then(|d| d.checked_mul(p)) {
                Some(lhs) => match coef.checked_mul(tau) {
                    Some(rhs) => lhs <= rhs,
                    None => true, // lhs fits but rhs does not: rhs is larger
                },
                None => witness_big(self.params, self.m, tau, p, s),
            };
            if !ok {
                return SweepEnd::Fails(Point { num: tau, den: p });
            }
        }
    }

    /// The witness condition at an arbitrary rational `t` (used for the σ search).
    fn witness_at(&self, t: Point, s: Speed) -> bool {
        witness_small(self.params, self.m, t.num, t.den, s)
            .unwrap_or_else(|| witness_big(self.params, self.m, t.num, t.den, s))
    }
}

/// `Q·ffdbf(τi, τ/P, P/Q)` from `k = ⌊τ/(P·Ti)⌋` and `r = τ mod (P·Ti)`; `None` on overflow.
fn scaled_term(t: &Params, k: u128, r: u128, p: u128, q: u128) -> Option<u128> {
    let qc = q * u128::from(t.c);
    let pd = p * u128::from(t.d);
    let mut v = k.checked_mul(qc)?;
    if r >= pd - qc {
        // r ≥ D − C/σ (scaled): one more job, minus what is not yet forced (case (b)).
        v = v.checked_add(qc)?;
        if r <= pd {
            v -= pd - r;
        }
    }
    Some(v)
}

/// `⌊a·b/c⌋` for `c > 0`, exact for any u128 inputs whose result fits (saturates otherwise).
fn floor_mul_div(a: u128, b: u128, c: u128) -> u128 {
    match a.checked_mul(b) {
        Some(x) => x / c.max(1),
        None => {
            let v = BigInt::from(a) * BigInt::from(b) / BigInt::from(c.max(1));
            u128::try_from(v).unwrap_or(u128::MAX)
        }
    }
}

/// [`witness_big`] in 128-bit integers; `None` if an intermediate overflows.
fn witness_small(params: &[Params], m: u32, a: u128, b: u128, s: Speed) -> Option<bool> {
    let (p, q) = (s.p, s.q);
    let mut demand = 0u128;
    for t in params {
        let (c, d) = (u128::from(t.c), u128::from(t.d));
        let bt = b.checked_mul(u128::from(t.t))?;
        let k = a / bt;
        let rho = a - k * bt;
        let bqc = b.checked_mul(q)?.checked_mul(c)?;
        demand = demand.checked_add(k.checked_mul(bqc)?)?;
        // σ ≥ Ci/Di, so p·d ≥ q·c.
        let threshold = b.checked_mul(p.checked_mul(d)? - q.checked_mul(c)?)?;
        if rho.checked_mul(p)? >= threshold {
            demand = demand.checked_add(bqc)?;
            let bd = b.checked_mul(d)?;
            if rho <= bd {
                // ≤ bqc by the branch condition, so no underflow.
                demand -= (bd - rho).checked_mul(p)?;
            }
        }
    }
    let coef = u128::from(m) * q - u128::from(m - 1) * p;
    Some(match coef.checked_mul(a) {
        Some(rhs) => demand <= rhs,
        None => true,
    })
}

/// The witness condition `Σ ffdbf(τi, t, σ) ≤ (m − (m−1)σ)·t` at `t = a/b`, `σ = P/Q`, in
/// big integers: multiplied by `b·Q`, `ffdbf·bQ = bQ·qC + [ρP ≥ b(PD − QC)]·(bQC −
/// [ρ ≤ bD]·(bD − ρ)·P)` with `ρ = a mod (b·T)`, against `(mQ − (m−1)P)·a`.
fn witness_big(params: &[Params], m: u32, a: u128, b: u128, s: Speed) -> bool {
    let (a, b) = (BigInt::from(a), BigInt::from(b));
    let (p, q) = (BigInt::from(s.p), BigInt::from(s.q));
    let mut demand = BigInt::from(0);
    for t in params {
        let (c, d, per) = (BigInt::from(t.c), BigInt::from(t.d), BigInt::from(t.t));
        let bt = &b * &per;
        let k = &a / &bt;
        let rho = &a - &k * &bt;
        let bqc = &b * &q * &c;
        demand += &k * &bqc;
        let bd = &b * &d;
        if &rho * &p >= &b * (&p * &d - &q * &c) {
            demand += &bqc;
            if rho <= bd {
                demand -= (&bd - &rho) * &p;
            }
        }
    }
    let coef = BigInt::from(m) * &q - BigInt::from(m - 1) * &p;
    demand <= coef * a
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gedf::dbf::testkit::{arbitrary_tasks, constrained_tasks, sys};
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    fn run(tasks: &[(u64, u64, u64)], m: u32) -> Verdict {
        analyze(&FfDbf::default(), &sys(tasks, m))
    }

    #[test]
    fn scaled_term_matches_the_definition() {
        // τ = (C 2, D 4, T 10), σ = 1/2 (P 1, Q 2): breakpoints D − C/σ = 0 and D = 4.
        // t = 2: r = 2 ∈ [0, 4): ffdbf = 0 + 2 − (4 − 2)·1/2 = 1 → Q·ffdbf = 2.
        let t = Params::new(2, 4, 10);
        assert_eq!(scaled_term(&t, 0, 2, 1, 2), Some(2));
        // t = 13: q = 1, r = 3: 2 + 2 − 1/2 = 3.5 → 7.
        assert_eq!(scaled_term(&t, 1, 3, 1, 2), Some(7));
        // t = 15: r = 5 ≥ D: 2 + 2 = 4 → 8.
        assert_eq!(scaled_term(&t, 1, 5, 1, 2), Some(8));
        let s = Speed::new(1, 2);
        // Σ at t = 2 is 1 ≤ (2 − 1/2)·2 = 3 on m = 2; at t = 13, 3.5 ≤ 1.5·13.
        assert!(witness_big(&[t], 2, 2, 1, s));
        assert_eq!(witness_small(&[t], 2, 2, 1, s), Some(true));
        // m = 2 with four copies at t = 4 (r = D): Σ = 8 > 1.5·4 = 6.
        assert!(!witness_big(&[t; 4], 2, 4, 1, s));
        assert_eq!(witness_small(&[t; 4], 2, 4, 1, s), Some(false));
        // t = 7/2 (a = 7, b = 2): r = 3.5, ffdbf = 2 − 0.5·0.5 = 1.75 each; 4 → 7 > 1.5·3.5 = 5.25.
        assert!(!witness_big(&[t; 4], 2, 7, 2, s));
        assert_eq!(witness_small(&[t; 4], 2, 7, 2, s), Some(false));
        // Three copies: 5.25 ≤ 5.25 (equality holds).
        assert!(witness_big(&[t; 3], 2, 7, 2, s));
        assert_eq!(witness_small(&[t; 3], 2, 7, 2, s), Some(true));
    }

    #[test]
    fn hand_worked_light_system() {
        // m = 2, τ1 = τ2 = (1, 2, 4): U = 1/2, δmax = 1/2, σ range [1/2, (2 − 1/2)/1 − 1/10 = 7/5]
        // capped at 1. σ = 1/2: C/σ = 2 = D, so breakpoints are 4j and 4j + 2; time bound
        // ΣC/ε = 20. At t = 4j + 2: ffdbf = 2·(j + 1) per… each task j + 1 → Σ = 2j + 2 ≤
        // (2 − 1/2)(4j + 2) = 6j + 3. At t = 4j: Σ = 2j ≤ 6j. Passes: σ = 1/2 is a witness.
        let v = run(&[(1, 2, 4), (1, 2, 4)], 2);
        assert_eq!(v.status, Status::Schedulable);
        assert!(v.reason.unwrap().contains("1/2"));
    }

    #[test]
    fn hand_worked_failure() {
        // m = 2, three tasks (2, 2, 10): U = 3/5, δmax = 1, σ range [1, (2 − 3/5) − 1/10 = 13/10]
        // capped at 1, so σ = 1 only. t = 2: ffdbf = 2 each, Σ = 6 > (2 − 1)·2 = 2: not shown.
        assert_eq!(run(&[(2, 2, 10); 3], 2).status, Status::NotShown);
        // δmax above the bound: m = 2, (9, 10, 10) ×2: U = 9/5, bound (2 − 9/5) − 1/10 = 1/10 < 9/10.
        assert_eq!(run(&[(9, 10, 10); 2], 2).status, Status::NotShown);
    }

    #[test]
    fn sigma_search_moves_up() {
        // m = 2, τ1 = (1, 10, 10), τ2 = (4, 8, 8): δmax = 1/2, U = 0.6, σ ≤ (1.4)/1 − 0.1 = 1.3 → 1.
        // The verdict must be schedulable with some σ ≥ 1/2 (G-EDF is fine here).
        let v = run(&[(1, 10, 10), (4, 8, 8)], 2);
        assert_eq!(v.status, Status::Schedulable);
    }

    #[test]
    fn boundaries_and_limits() {
        assert_eq!(run(&[], 2).status, Status::Schedulable);
        assert_eq!(run(&[(1, 2, 2)], 1).status, Status::NotApplicable);
        assert_eq!(run(&[(1, 3, 2)], 2).status, Status::NotApplicable);
        assert_eq!(run(&[(1, 1, 1); 3], 2).status, Status::NotShown);
        // (1, 2, 4) ×2 on m = 2 with σ = 1/2: the cut-off ΣC/(m − (m−1)σ − U) = 2/1 = 2, plus
        // its safety margin (≈ +2), leaves the points t = 2 and 4 of the ΣC/ε = 20 range.
        let s = sys(&[(1, 2, 4), (1, 2, 4)], 2);
        let limited = |max_points| {
            analyze(
                &FfDbf {
                    max_points,
                    ..FfDbf::default()
                },
                &s,
            )
            .status
        };
        assert_eq!(limited(0), Status::GaveUp);
        assert_eq!(limited(1), Status::GaveUp);
        assert_eq!(limited(2), Status::Schedulable);
        // A failing set with a tiny limit gives up before finding the failure: three tasks
        // (2, 2, 10) fail at t = 2, the first point.
        let f = sys(&[(2, 2, 10); 3], 2);
        assert_eq!(
            analyze(
                &FfDbf {
                    max_points: 0,
                    ..FfDbf::default()
                },
                &f
            )
            .status,
            Status::GaveUp
        );
        let big = 1_000_000_000_000u64;
        let v = run(&[(big / 10, big / 2, big), (big / 7, big, big)], 2);
        assert_eq!(v.status, Status::Schedulable);
    }

    /// SchedCAT's search, transcribed with big rationals and a sorted list of points.
    fn naive_ffdbf(tasks: &[(u64, u64, u64)], m: u32, resume: bool) -> bool {
        use num_rational::BigRational;
        use num_traits::{ToPrimitive, Zero};
        let r = |a: u64, b: u64| BigRational::new(BigInt::from(a), BigInt::from(b));
        let u = tasks
            .iter()
            .fold(BigRational::zero(), |s, &(c, _, t)| s + r(c, t));
        if u > r(m.into(), 1) {
            return false;
        }
        let eps = r(1, 10);
        let sigma_bound = ((r(m.into(), 1) - u) / r((m - 1).into(), 1) - eps.clone()).min(r(1, 1));
        let tb = r(tasks.iter().map(|t| t.0).sum(), 1) / eps;
        let dmax = tasks.iter().map(|&(c, d, _)| r(c, d)).max().unwrap();
        let ff = |t: &BigRational, s: &BigRational| {
            let mut dem = BigRational::zero();
            for &(c, d, p) in tasks {
                let qn = (t / r(p, 1)).floor();
                let rem = t - &qn * r(p, 1);
                dem += &qn * r(c, 1);
                if rem >= r(d, 1) - r(c, 1) / s {
                    dem += r(c, 1);
                    if rem <= r(d, 1) {
                        dem -= (r(d, 1) - rem) * s;
                    }
                }
            }
            dem <= (r(m.into(), 1) - r((m - 1).into(), 1) * s) * t
        };
        let points = |s: &BigRational| {
            let mut pts = Vec::new();
            for &(c, d, p) in tasks {
                let off = r(c, 1) / s;
                let mut j = 0u64;
                loop {
                    let base = r(j * p + d, 1);
                    if base.clone() - off.clone() > tb {
                        break;
                    }
                    pts.push(base.clone() - off.clone());
                    pts.push(base);
                    j += 1;
                }
            }
            pts.retain(|x| x > &BigRational::zero() && x <= &tb);
            pts.sort();
            pts.dedup();
            pts
        };
        let g = 50u64;
        let mut sigma = dmax.clone();
        let mut next = (dmax * r(g, 1)).floor().to_integer().to_u64().unwrap() + 1;
        let mut start = BigRational::zero();
        loop {
            if sigma > sigma_bound {
                return false;
            }
            let fail = points(&sigma)
                .into_iter()
                .find(|t| t > &start && !ff(t, &sigma));
            let Some(t) = fail else { return true };
            loop {
                sigma = r(next, g);
                next += 1;
                if sigma > sigma_bound {
                    return false;
                }
                if ff(&t, &sigma) {
                    break;
                }
            }
            if resume {
                start = t;
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn agrees_with_naive_transcription(tasks in constrained_tasks(1..5, 12), m in 2u32..4) {
            for resume in [false, true] {
                let v = analyze(&FfDbf { resume, ..FfDbf::default() }, &sys(&tasks, m));
                prop_assert_eq!(v.is_schedulable(), naive_ffdbf(&tasks, m, resume), "{:?} resume {}", v, resume);
            }
        }

        #[test]
        fn resume_accepts_at_least_as_much(tasks in constrained_tasks(1..7, 30), m in 2u32..5) {
            let s = sys(&tasks, m);
            let strict = analyze(&FfDbf::default(), &s);
            let resume = analyze(&FfDbf { resume: true, ..FfDbf::default() }, &s);
            if strict.is_schedulable() {
                prop_assert!(resume.is_schedulable());
            }
        }

        #[test]
        fn never_accepts_overload(tasks in constrained_tasks(1..8, 40), m in 2u32..5) {
            let v = run(&tasks, m);
            if v.is_schedulable() {
                let u: f64 = tasks.iter().map(|&(c, _, t)| c as f64 / t as f64).sum();
                prop_assert!(u <= f64::from(m));
            }
        }

        #[test]
        fn never_panics(tasks in arbitrary_tasks(0..10, 1_000_000), m in 1u32..17) {
            let v = analyze(&FfDbf { max_points: 20_000, ..FfDbf::default() }, &sys(&tasks, m));
            if m < 2 || tasks.iter().any(|&(_, d, t)| d > t) {
                prop_assert_eq!(v.status, Status::NotApplicable);
            }
        }
    }
}
