//! `gedf-rta`: response-time analysis for G-EDF with slack iteration.
//!
//! **Paper.** M. Bertogna, M. Cirinei, "Response-time analysis for globally scheduled symmetric
//! multiprocessor platforms", RTSS 2007 (§4–5; equation numbers as cited by SchedCAT's
//! `rta.py`). Each task has a slack lower bound `Si`, initially 0. For `τk`, the response time
//! bound is the least fixpoint `R ≥ Ck` of
//!
//! `R = Ck + ⌊ Σ_{i≠k} min(W^RTA_i(R), W^EDF_i, R − Ck + 1) / m ⌋`                 — Eq. (6)
//!
//! `W^RTA_i(R) = ⌊L/Ti⌋·Ci + min(Ci, L mod Ti)`, `L = R + Di − Ci − Si`          — Eqs. (4), (8)
//! `W^EDF_i   = ⌊Dk/Ti⌋·Ci + min(Ci, max(0, Dk mod Ti − Si))`                  — Eqs. (5), (9)
//!
//! (`workload.rs`). Rounds visit `τ1 … τn`; a task whose fixpoint is `≤ Dk` gets slack
//! `Dk − R` (in place, so later tasks of the same round see it). The set is schedulable when a
//! round finds every fixpoint `≤ D`; the response-time bounds are that round's fixpoints.
//!
//! **Reference.** SchedCAT `native/src/edf/rta.cpp` (`RTAGedf`), followed exactly: the `+ 1`
//! cap (integer time), `⌊·/m⌋`, the fixpoint started at `Ck` and abandoned once it exceeds
//! `Dk`, slack updates on any change, the round loop "while some slack changed, not yet
//! schedulable and `round < max_rounds`" with SchedCAT's default `max_rounds = 25`.
//! Preconditions: feasible tasks and `U ≤ m` (→ *not shown* here), constrained deadlines (→ *not
//! applicable*). `min_step` is SchedCAT's `min_fixpoint_step` (`rta_min_step = 1` in its combined
//! G-EDF test): when an iteration would grow `R` by less than `min_step`, `R` jumps to
//! `min(R + min_step, Dk)` instead. For integer time a step of 0 or 1 changes nothing (every
//! non-final step grows `R` by ≥ 1), so the default `min_step = 1` computes the exact least
//! fixpoint; larger steps reproduce SchedCAT's coarser iteration literally.
//!
//! **Round limit.** Reaching `max_rounds` with slacks still changing answers *not shown*, as
//! SchedCAT does (`is_schedulable` returns `false`): the limit is part of the test's definition
//! there, not a work cap on a single computation.
//!
//! **Speed.** SchedCAT iterates `R ← f(R)`, which can creep by 1 ns per iteration (e.g. when
//! exactly `m` terms grow with `R`), i.e. pseudo-polynomially many steps. We compute the same
//! least fixpoint faster: (a) a term whose `W^EDF_i` is already below the other two stays equal
//! to `W^EDF_i` for all larger `R` (both others are non-decreasing), so it is frozen into a
//! constant; (b) on a stretch where every remaining term is linear in `R` (slope 0 or 1), `f` is
//! `Ck + ⌊(a + s·y)/m⌋` and the first `y` with `f(R + y) ≤ R + y` has a closed form, so the
//! iteration jumps to the fixpoint or past the stretch (never past the least fixpoint: `R` only
//! moves to points below it); (c) between two exact evaluations, the division-free lower bound
//! `g(R') = Ck + ⌊(frozen + Σ min(min(W^EDF_i, W^RTA_i(R)), R' − Ck + 1))/m⌋ ≤ f(R')` (valid for
//! `R' ≥ R`, both workloads being non-decreasing) is iterated to its own least fixpoint, which
//! lies at or below `f`'s; (d) a task's fixpoint depends only on the *other* tasks' slacks, so a
//! round reuses it when none of them changed since it was computed (a log of slack changes
//! says which; reused results are not charged to `max_work`). Integer arithmetic only, no allocation per fixpoint. The property
//! tests compare verdicts and bounds with a literal transcription of SchedCAT's loop.
//!
//! **Work limit.** `max_work` bounds the number of interference terms evaluated in total
//! (default 10⁹); reaching it answers *gave up*. Random sets use a tiny fraction of it.
//!
//! **Assumptions.** Sporadic tasks, constrained deadlines, preemptive G-EDF on `m` identical
//! CPUs. **Complexity.** `O(rounds · n² · fixpoint steps)`, pseudo-polynomial.

use super::precheck::trivially_infeasible;
use super::workload::edf_workload;
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;
use schedlab_model::Duration;

/// Bertogna & Cirinei's G-EDF response-time analysis (`gedf-rta`).
#[derive(Clone, Copy, Debug)]
pub struct Rta {
    /// Round limit of the slack iteration (SchedCAT default 25; 0 = none). Reaching it answers
    /// *not shown*, as SchedCAT.
    pub max_rounds: u32,
    /// SchedCAT's `min_fixpoint_step` (default 1, which equals exact iteration).
    pub min_step: u64,
    /// Work limit: interference terms evaluated in total (default 10⁹); *gave up* when reached.
    pub max_work: u64,
    /// Passes of the upper-bound screen run before the rounds (module documentation,
    /// **Screen**); 0 = none (the default; the `gedf` battery uses [`SCREEN_PASSES`]).
    pub screen: u32,
}

/// Passes of the upper-bound screen in the `gedf` battery.
pub const SCREEN_PASSES: u32 = 4;

impl Default for Rta {
    fn default() -> Rta {
        Rta {
            max_rounds: 25,
            min_step: 1,
            max_work: 1_000_000_000,
            screen: 0,
        }
    }
}

/// Largest `n·(n − 1)` for which every task's terms are cached between searches: 1 MiB of
/// terms (40 bytes each), `n ≤ 162`, so that the cache stays in a core's L2. Measured: at
/// n = 160 the cache saves a third of the time on sets the iteration rejects (1,676 → 1,353 µs
/// per set); at n = 640 (16 MiB of terms) it cost a third more (17.7 → 23.3 ms), the copies
/// coming from memory and most terms changing between two searches anyway.
const CACHE_TERMS: usize = (1 << 20) / std::mem::size_of::<Term>();

/// The work limit was reached.
struct OutOfWork;

impl SchedTest for Rta {
    fn params(&self) -> Vec<Param> {
        vec![
            Param::new("rounds", self.max_rounds, "slack-update rounds before answering not-shown (SchedCAT's limit)"),
            Param::new("min_step", self.min_step, "smallest fixpoint step; 0/1 = exact least fixpoint, larger replays SchedCAT's rta_step"),
            Param::new("max_work", self.max_work, "interference terms evaluated before giving up"),
            Param::new("screen", self.screen, "passes of the upper-bound screen that rejects, before the rounds, sets no round can accept (0 = off)"),
        ]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "rounds" => self.max_rounds = param::parse_u32(name, value)?,
            "min_step" => self.min_step = param::parse_u64(name, value)?,
            "max_work" => self.max_work = param::parse_u64(name, value)?,
            "screen" => self.screen = param::parse_u32(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-rta".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation:
                "Bertogna & Cirinei, RTSS 2007, 'Response-time analysis for globally scheduled \
                       symmetric multiprocessor platforms', G-EDF RTA Eqs. (4)-(9) with slack \
                       iteration (as SchedCAT rta.cpp)",
            assumptions: "sporadic tasks, constrained deadlines (D ≤ T), preemptive global EDF, \
                          integer time",
            complexity: "O(rounds · n^2 · fixpoint steps), pseudo-polynomial; at most max_rounds \
                         rounds (default 25) and max_work term evaluations (default 1e9)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_constrained()
    }

    fn run(&self, sys: &System) -> Verdict {
        if let Some(reason) = trivially_infeasible(sys) {
            return Verdict::not_shown().because(reason);
        }
        let params = sys.params();
        let n = params.len();
        let mut ctx = Ctx {
            params,
            m: u128::from(sys.cpus()),
            slack: vec![0; n],
            terms: Vec::with_capacity(n),
            cache: if n.saturating_mul(n.saturating_sub(1)) <= CACHE_TERMS {
                vec![Vec::new(); n]
            } else {
                Vec::new()
            },
            synced: vec![0; n],
            work: 0,
            max_work: self.max_work,
        };
        if self.screen > 0 && self.min_step <= 1 {
            match ctx.upper_screen(self.screen) {
                Err(OutOfWork) => {
                    return Verdict::gave_up(format!(
                        "work limit max_work = {} interference terms reached",
                        self.max_work
                    ))
                }
                Ok(Some(k)) => {
                    return Verdict::not_shown().because(format!(
                        "task {k}'s response-time bound exceeds its deadline even with slacks \
                         above any that a round can reach (screen)"
                    ))
                }
                Ok(None) => {}
            }
        }
        let mut response = vec![0u64; n];
        // Reuse (module documentation, **Speed** (d)): `log` lists the tasks whose slack
        // changed, in order; `known[k]` is the log length when τk's fixpoint was last computed
        // and its result.
        let mut log: Vec<usize> = Vec::new();
        let mut known: Vec<Option<(usize, Option<u64>)>> = vec![None; n];
        let mut round = 0u32;
        loop {
            round += 1;
            let mut schedulable = true;
            let mut updated = false;
            for k in 0..n {
                let cached = known.get(k).copied().flatten().and_then(|(at, result)| {
                    // Reused when no other task's slack changed since it was computed.
                    let since = log.get(at..).unwrap_or_default();
                    since.iter().all(|&j| j == k).then_some(result)
                });
                let bound = match cached {
                    Some(result) => Ok(result),
                    None if self.min_step <= 1 => ctx.least_fixpoint(k, &log),
                    None => ctx.stepped_fixpoint(k, self.min_step, &log),
                };
                if let (Ok(result), Some(slot)) = (&bound, known.get_mut(k)) {
                    *slot = Some((log.len(), *result));
                }
                match bound {
                    Err(OutOfWork) => {
                        return Verdict::gave_up(format!(
                            "work limit max_work = {} interference terms reached",
                            self.max_work
                        ))
                    }
                    Ok(Some(r)) => {
                        if let (Some(resp), Some(sk), Some(pk)) =
                            (response.get_mut(k), ctx.slack.get_mut(k), params.get(k))
                        {
                            *resp = r;
                            let new_slack = pk.d - r;
                            if new_slack != *sk {
                                *sk = new_slack;
                                updated = true;
                                log.push(k);
                            }
                        }
                    }
                    Ok(None) => schedulable = false,
                }
            }
            if schedulable {
                let bounds = response.into_iter().map(Duration::from_ns).collect();
                return Verdict::schedulable().with_response_times(bounds);
            }
            if !updated {
                return Verdict::not_shown()
                    .because(format!("slack iteration converged after {round} rounds"));
            }
            if self.max_rounds != 0 && round >= self.max_rounds {
                return Verdict::not_shown().because(format!(
                    "round limit max_rounds = {} reached (as SchedCAT: not shown)",
                    self.max_rounds
                ));
            }
        }
    }
}

/// Per-call state and buffers, reused for every task and round.
struct Ctx<'a> {
    params: &'a [Params],
    m: u128,
    /// `Si` per task.
    slack: Vec<u64>,
    /// The interference terms `i ≠ k` of the current `τk` not yet frozen at `W^EDF_i`.
    terms: Vec<Term>,
    /// Per task, its terms as of its last search (empty until the first), when `n·(n − 1) ≤
    /// CACHE_TERMS`; otherwise no entries and `prepare` rebuilds every term.
    cache: Vec<Vec<Term>>,
    /// Per task, how much of the slack-change log its cached terms have seen.
    synced: Vec<usize>,
    work: u64,
    max_work: u64,
}

/// What one interference term of `τk` needs, packed for the inner loop.
#[derive(Clone, Copy)]
struct Term {
    c: u64,
    t: u64,
    /// `Di − Ci − Si`, so that `L = R + offset`.
    offset: u64,
    /// `W^EDF_i` (constant for `τk` in this round).
    edf: u64,
    /// `min(W^EDF_i, W^RTA_i(R))` at the last evaluated `R`: for every larger `R'` the term is
    /// at least `min(floor, R' − Ck + 1)` (both workloads are non-decreasing in `R`).
    floor: u64,
}

/// One interference term near `R`: `value + slope·y` for `y ∈ [0, len]`.
#[derive(Clone, Copy)]
struct Piece {
    value: u64,
    rising: bool,
    len: u64,
}

/// Where the search for the least fixpoint goes next from `R` (all exact, `u128`):
/// `f(R + y) = Ck + ⌊(sum + slope·y)/m⌋` on `y ∈ [0, stretch]`.
struct Step {
    sum: u128,
    slope: u128,
    stretch: u64,
}

impl Step {
    /// `Ok(R)` if `R` is a fixpoint, else the next candidate (never beyond the least fixpoint
    /// of the function described, which is a lower bound of Eq. (6)'s): the closed-form first
    /// `y` with `f(R + y) ≤ R + y` if it lies in the linear stretch, else `max(f(R), end of
    /// stretch + 1)`.
    fn next(&self, ck: u64, r: u64, m: u128) -> Result<u64, u128> {
        let f = u128::from(ck) + self.sum / m;
        if f <= u128::from(r) {
            return Ok(r);
        }
        let cap = u128::from(r - ck + 1);
        // f(R + y) ≤ R + y  ⇔  sum − m(R − Ck + 1) < (m − slope)·y;  the left side is ≥ 0
        // because f > R.
        let excess = self.sum - m * cap;
        if self.slope < m {
            let y = excess / (m - self.slope) + 1;
            if y <= u128::from(self.stretch) {
                return Err(u128::from(r) + y);
            }
        }
        Err(f.max(u128::from(r) + u128::from(self.stretch) + 1))
    }
}

impl Ctx<'_> {
    /// The upper-bound screen (module documentation, **Screen**): at most `passes` passes of
    /// the slack update from above; the first task found to fail, or `None`. Leaves every
    /// slack at 0 and the term cache empty, as the rounds expect.
    fn upper_screen(&mut self, passes: u32) -> Result<Option<usize>, OutOfWork> {
        let mut log: Vec<usize> = Vec::new();
        for (k, (s, p)) in self.slack.iter_mut().zip(self.params).enumerate() {
            *s = p.d - p.c;
            log.push(k);
        }
        let mut failing = None;
        // Any order keeps `U` an upper bound; after the first pass (index order), the tasks
        // with the least slack left go first, as they are the likeliest to miss.
        let mut order: Vec<usize> = (0..self.params.len()).collect();
        'passes: for _ in 0..passes {
            let mut moved = false;
            for &k in &order {
                match self.least_fixpoint(k, &log)? {
                    None => {
                        failing = Some(k);
                        break 'passes;
                    }
                    Some(r) => {
                        if let (Some(s), Some(p)) = (self.slack.get_mut(k), self.params.get(k)) {
                            if *s != p.d - r {
                                *s = p.d - r;
                                moved = true;
                                log.push(k);
                            }
                        }
                    }
                }
            }
            if !moved {
                break;
            }
            let slack = &self.slack;
            order.sort_by_key(|&k| slack.get(k).copied().unwrap_or(0));
        }
        self.slack.iter_mut().for_each(|s| *s = 0);
        self.cache.iter_mut().for_each(Vec::clear);
        self.synced.iter_mut().for_each(|s| *s = 0);
        Ok(failing)
    }

    /// Fills `terms` for `τk` with the slacks as they are now, each `floor` at `R = Ck`:
    /// `min(W^EDF_i, W^RTA_i(Ck))`, a lower bound of the term for every `R ≥ Ck`. With the
    /// cache on (`cache` non-empty), `τk`'s terms are kept between its searches and only those
    /// of the tasks in `log` since its last search are rebuilt (`O(changes)` divisions instead
    /// of `O(n)`).
    fn prepare(&mut self, k: usize, pk: Params, log: &[usize]) -> Result<(), OutOfWork> {
        let (ck, dk) = (pk.c, pk.d);
        let params = self.params;
        let slack = &self.slack;
        let build = |i: usize| {
            let p = params.get(i).copied().unwrap_or(pk);
            let s = slack.get(i).copied().unwrap_or(0);
            let mut term = Term {
                c: p.c,
                t: p.t,
                offset: (p.d - p.c).saturating_sub(s),
                edf: edf_workload(p.c, p.t, s, dk),
                floor: 0,
            };
            term.floor = term.edf.min(rta_piece(&term, ck).value);
            term
        };
        let (Some(cached), Some(synced)) = (self.cache.get_mut(k), self.synced.get_mut(k)) else {
            self.terms.clear();
            self.terms
                .extend((0..params.len()).filter(|&i| i != k).map(build));
            return self.charge(self.terms.len());
        };
        let mut built = 0;
        if cached.is_empty() {
            cached.reserve_exact(params.len().saturating_sub(1));
            cached.extend((0..params.len()).filter(|&i| i != k).map(build));
            built = cached.len();
        } else {
            for &j in log.get(*synced..).unwrap_or_default() {
                // τk's own term list skips τk: τj sits at j, or j − 1 past τk.
                let at = if j < k {
                    j
                } else if j > k {
                    j - 1
                } else {
                    continue;
                };
                if let Some(term) = cached.get_mut(at) {
                    *term = build(j);
                    built += 1;
                }
            }
        }
        *synced = log.len();
        self.terms.clear();
        self.terms.extend_from_slice(cached);
        self.charge(built)
    }

    fn charge(&mut self, terms: usize) -> Result<(), OutOfWork> {
        self.work = self.work.saturating_add(terms as u64);
        if self.work > self.max_work {
            Err(OutOfWork)
        } else {
            Ok(())
        }
    }

    /// The least fixpoint of Eq. (6) for `τk` if it is `≤ Dk` — exactly what SchedCAT's
    /// iteration from `Ck` converges to (with `min_step ≤ 1`), found with the jumps described in
    /// the module documentation. Between two exact evaluations, a cheap lower-bound function
    /// `g(R') = Ck + ⌊(frozen + Σ min(floor_i, R' − Ck + 1))/m⌋ ≤ f(R')` is iterated to its own
    /// least fixpoint, which cannot exceed `f`'s (where `g > id`, also `f > id`).
    fn least_fixpoint(&mut self, k: usize, log: &[usize]) -> Result<Option<u64>, OutOfWork> {
        let Some(&pk) = self.params.get(k) else {
            return Ok(None);
        };
        let (ck, dk) = (pk.c, pk.d);
        self.prepare(k, pk, log)?;
        let m = self.m;
        let mut frozen = 0u128; // Σ of terms fixed at W^EDF_i
        let mut r = ck;
        // Every summand of the lower bound is ≤ R − Ck + 1 ≤ Dk: with `n·Dk` below 2^64 the
        // sums fit in `u64`.
        let narrow = (self.terms.len() as u128 + 1) * u128::from(dk) <= u128::from(u64::MAX);
        loop {
            // Cheap lower-bound iteration (no divisions), from the floors of the last exact
            // evaluation (at first, those at Ck that `prepare` computed).
            loop {
                self.charge(self.terms.len() / 4 + 1)?;
                let step = lower_bound_step(&self.terms, frozen, r - ck + 1, narrow);
                match step.next(ck, r, m) {
                    Ok(_) => break, // g(R) ≤ R: evaluate f exactly here
                    Err(next) if next > u128::from(dk) => return Ok(None),
                    Err(next) => r = u64::try_from(next).unwrap_or(dk),
                }
            }
            // Exact evaluation of f at R, with each term's linear piece.
            self.charge(self.terms.len() + 1)?;
            let step = self.evaluate(ck, r, &mut frozen);
            let next = match step.next(ck, r, m) {
                Ok(fixpoint) => return Ok(Some(fixpoint)),
                Err(next) => next,
            };
            if next > u128::from(dk) {
                return Ok(None);
            }
            r = u64::try_from(next).unwrap_or(dk);
        }
    }

    /// One exact evaluation at `R`: freezes terms that stay at `W^EDF_i`, records each term's
    /// `floor`, and describes `f` on the stretch where every term is linear.
    fn evaluate(&mut self, ck: u64, r: u64, frozen: &mut u128) -> Step {
        let cap = r - ck + 1; // R − Ck + 1
        let mut step = Step {
            sum: *frozen,
            slope: 0,
            stretch: u64::MAX,
        };
        let mut j = 0;
        while let Some(term) = self.terms.get_mut(j) {
            let e = term.edf;
            let a = rta_piece(term, r);
            if e <= a.value && e <= cap {
                // Frozen: min(·) = W^EDF_i for every larger R.
                *frozen += u128::from(e);
                step.sum += u128::from(e);
                self.terms.swap_remove(j);
                continue;
            }
            term.floor = e.min(a.value);
            let (value, rising, mut len) = if a.value <= cap && (a.value < cap || !a.rising) {
                // The RTA workload is the minimum (ties prefer the flat piece).
                (a.value, a.rising, a.len)
            } else {
                // The R − Ck + 1 cap is the minimum; it rises with R.
                let mut len = a.len; // A may change slope and come below later
                if !a.rising {
                    len = len.min(a.value - cap);
                }
                (cap, true, len)
            };
            if rising {
                len = len.min(e - value); // crosses the flat W^EDF_i
            }
            step.sum += u128::from(value);
            step.slope += u128::from(rising);
            step.stretch = step.stretch.min(len);
            j += 1;
        }
        step
    }

    /// SchedCAT's fixpoint loop literally, with its minimum step (`min_step > 1`).
    fn stepped_fixpoint(
        &mut self,
        k: usize,
        min_step: u64,
        log: &[usize],
    ) -> Result<Option<u64>, OutOfWork> {
        let Some(&pk) = self.params.get(k) else {
            return Ok(None);
        };
        let (ck, dk) = (pk.c, pk.d);
        self.prepare(k, pk, log)?;
        let mut last = ck;
        let mut resp = self.estimate(ck, last)?;
        while resp != u128::from(last) && resp <= u128::from(dk) {
            let r = u64::try_from(resp).unwrap_or(dk);
            last = if last < r && r - last < min_step {
                last.saturating_add(min_step).min(dk)
            } else {
                r
            };
            resp = self.estimate(ck, last)?;
        }
        Ok(if resp <= u128::from(dk) {
            u64::try_from(resp).ok()
        } else {
            None
        })
    }

    /// Eq. (6)'s right-hand side at `R` for the prepared `τk` with WCET `ck` (SchedCAT's
    /// `response_estimate`).
    fn estimate(&mut self, ck: u64, r: u64) -> Result<u128, OutOfWork> {
        self.charge(self.terms.len() + 1)?;
        let cap = r - ck + 1;
        let sum: u128 = self
            .terms
            .iter()
            .map(|term| u128::from(term.edf.min(rta_piece(term, r).value).min(cap)))
            .sum();
        Ok(u128::from(ck) + sum / self.m)
    }
}

/// The lower-bound function `g` near `R` (`cap = R − Ck + 1`) as a [`Step`]: a floor above the
/// cap rises with `R` until it reaches the floor, the others are constant. `narrow`: the sums
/// fit in `u64` (two instructions less per term than `u128`).
#[inline]
fn lower_bound_step(terms: &[Term], frozen: u128, cap: u64, narrow: bool) -> Step {
    if narrow {
        let (mut sum, mut slope, mut stretch) = (0u64, 0u64, u64::MAX);
        for term in terms {
            if term.floor > cap {
                sum += cap;
                slope += 1;
                stretch = stretch.min(term.floor - cap);
            } else {
                sum += term.floor;
            }
        }
        return Step {
            sum: frozen + u128::from(sum),
            slope: u128::from(slope),
            stretch,
        };
    }
    let mut step = Step {
        sum: frozen,
        slope: 0,
        stretch: u64::MAX,
    };
    for term in terms {
        if term.floor > cap {
            step.sum += u128::from(cap);
            step.slope += 1;
            step.stretch = step.stretch.min(term.floor - cap);
        } else {
            step.sum += u128::from(term.floor);
        }
    }
    step
}

/// `W^RTA_i` at `R` (Eqs. (4), (8)) with `L = R + offset`, and how it continues: rising by 1
/// per ns while `L mod Ti < Ci` (up to `L mod Ti = Ci`), flat otherwise (up to the next
/// multiple of `Ti`).
#[inline]
fn rta_piece(term: &Term, r: u64) -> Piece {
    let (ci, ti) = (term.c, term.t);
    let (jobs, rest) = match r.checked_add(term.offset) {
        Some(len) => (len / ti, len % ti),
        None => {
            let len = u128::from(r) + u128::from(term.offset);
            let t = u128::from(ti);
            // rest < ti fits u64; jobs·ci ≤ len·ci/ti ≤ len < 2^65 — saturate below.
            (
                u64::try_from(len / t).unwrap_or(u64::MAX),
                u64::try_from(len % t).unwrap_or(0),
            )
        }
    };
    let body = jobs.saturating_mul(ci);
    if rest < ci {
        Piece {
            value: body.saturating_add(rest),
            rising: true,
            len: ci - rest,
        }
    } else {
        Piece {
            value: body.saturating_add(ci),
            rising: false,
            len: ti - rest,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;
    use crate::gedf::testutil::sys;
    use crate::gedf::workload::rta_workload;
    use crate::test::analyze;
    use crate::verdict::Status;

    fn bounds(v: &Verdict) -> Vec<u64> {
        v.response_time_bounds
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| d.as_ns())
            .collect()
    }

    #[test]
    fn hand_worked() {
        // (1, 2, 2) ×3 on m = 2. Round 1, k = 0 (Ck = 1, Dk = 2), slacks 0:
        //   W^EDF_i = ⌊2/2⌋·1 + min(1, 0) = 1; at R = 1: cap = 1,
        //   W^RTA_i: L = 1 + 2 − 1 − 0 = 2 → 1 + min(1, 0) = 1 → min = 1 each → Σ = 2,
        //   R = 1 + ⌊2/2⌋ = 2; at R = 2: cap 2, L = 3 → 1 + 1 = 2, min(2, 1, 2) = 1 → Σ = 2,
        //   R = 2 = fixpoint ≤ 2 → S0 = 0. Same for the others → schedulable, bounds (2, 2, 2).
        let v = analyze(&Rta::default(), &sys(&[(1, 2, 2); 3], 2));
        assert!(v.is_schedulable());
        assert_eq!(bounds(&v), vec![2, 2, 2]);
        // Two tasks on two CPUs never interfere: R = C (n − 1 < m: ⌊1/2⌋ = 0).
        let v = analyze(&Rta::default(), &sys(&[(3, 5, 7), (4, 9, 9)], 2));
        assert_eq!(bounds(&v), vec![3, 4]);
        // Dhall-style (2, 10, 10) ×2, (10, 11, 11) on m = 2. Round 1: each light task reaches
        //   R = 4 (slack 6). Heavy task: W^EDF = ⌊11/10⌋·2 + min(2, max(0, 1 − 6)) = 2 per light
        //   task; R = 10: cap 1 → Σ = 2 → R = 11; cap 2 → min(2, W^RTA = 4, 2) = 2 each → Σ = 4
        //   → R = 12 > 11. Round 2 changes no slack → not shown.
        let v = analyze(
            &Rta::default(),
            &sys(&[(2, 10, 10), (2, 10, 10), (10, 11, 11)], 2),
        );
        assert_eq!(v.status, Status::NotShown);
    }

    #[test]
    fn screen_rejects_what_no_round_accepts() {
        // The Dhall-style set above, screen with one pass, from U = D − C = (8, 8, 1).
        //   k = 0 (C 2, D 10): τ1: W^EDF = ⌊10/10⌋·2 + 0 = 2; τ2: W^EDF = 0 + min(10, 10 − 1) = 9.
        //   R = 2 (cap 1): Σ = 1 + 1 → R = 3; cap 2: τ1 W^RTA (L = 3 + 10 − 2 − 8 = 3) = 2 → 2,
        //   τ2 W^RTA (L = 3 + 11 − 10 − 1 = 3) = 3 → 2; Σ = 4 → R = 4; cap 3: 2 + min(4, 9, 3)
        //   = 5 → R = 2 + 2 = 4, a fixpoint: U0 = 6. Likewise U1 = 6.
        //   k = 2 (C 10, D 11): each light task: W^EDF = ⌊11/10⌋·2 + min(2, max(0, 1 − 6)) = 2;
        //   R = 10 (cap 1): Σ = 2 → R = 11; cap 2: min(W^RTA ≥ 2, 2, 2) = 2 each, Σ = 4 → R = 12
        //   > 11. The heavy task misses even under slacks above any a round can reach → not
        //   shown at once (the rounds conclude the same after 2 rounds).
        let s = sys(&[(2, 10, 10), (2, 10, 10), (10, 11, 11)], 2);
        let v = analyze(
            &Rta {
                screen: 1,
                ..Rta::default()
            },
            &s,
        );
        assert_eq!(v.status, Status::NotShown);
        assert!(v
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("task 2") && r.contains("screen")));
        // On a set the rounds accept, the screen changes nothing.
        let s = sys(&[(1, 3, 6), (3, 6, 6)], 1);
        let v = analyze(
            &Rta {
                screen: 4,
                ..Rta::default()
            },
            &s,
        );
        assert!(v.is_schedulable());
        assert_eq!(bounds(&v), vec![2, 4]);
    }

    #[test]
    fn slack_iteration_and_bounds() {
        // m = 1: τ0 = (1, 3, 6), τ1 = (3, 6, 6).
        // Round 1, k = 0 (C 1, D 3): τ1: W^EDF = ⌊3/6⌋·3 + min(3, 3) = 3.
        //   R = 1: cap 1 → 1, R = 2; cap 2 → 2 (W^RTA: L = 2 + 3 = 5 → min(3, 5) = 3), R = 3;
        //   R = 3: cap 3, W^RTA = 3 → 3, R = 4 > 3 → fails.
        // k = 1 (C 3, D 6): τ0: W^EDF = 1·1 + min(1, 0) = 1 → R = 3 + 1 = 4, fixpoint 4 → S1 = 2.
        // Round 2, k = 0: τ1 with S1 = 2: W^EDF = 0 + min(3, 3 − 2) = 1 → R = 1 + 1 = 2,
        //   at R = 2: still 1 → R = 2 → S0 = 1. k = 1: 4 again → schedulable, bounds (2, 4).
        let v = analyze(&Rta::default(), &sys(&[(1, 3, 6), (3, 6, 6)], 1));
        assert!(v.is_schedulable());
        assert_eq!(bounds(&v), vec![2, 4]);
        // With a one-round limit SchedCAT answers false: not shown.
        let one = Rta {
            max_rounds: 1,
            ..Rta::default()
        };
        assert_eq!(
            analyze(&one, &sys(&[(1, 3, 6), (3, 6, 6)], 1)).status,
            Status::NotShown
        );
        // A tiny work limit gives up.
        let tiny = Rta {
            max_work: 1,
            ..Rta::default()
        };
        assert_eq!(
            analyze(&tiny, &sys(&[(1, 3, 6), (3, 6, 6)], 1)).status,
            Status::GaveUp
        );
    }

    #[test]
    fn slow_creep_is_jumped_over() {
        // Exactly m = 2 other tasks with long periods: SchedCAT's iteration for τ0 adds 1 ns per
        // step while the R − Ck + 1 cap is the minimum of both terms, for ~700 000 steps
        // (until the RTA workloads flatten at 2·C = 6e5 and R = 1e5 + 6e5 = 7e5). The jumps must
        // land on the same fixpoints as the plain iteration.
        let s = sys(
            &[
                (100_000, 500_000_000, 500_000_000),
                (300_000, 100_000_000, 100_000_000),
                (300_000, 100_000_000, 100_000_000),
            ],
            2,
        );
        let v = analyze(&Rta::default(), &s);
        assert!(v.is_schedulable());
        let fast = bounds(&v);
        assert_eq!(fast[0], 700_000);
        assert_eq!(Some(fast), naive_rta(&s, 25));
    }

    /// SchedCAT's algorithm, literally (plain `R ← f(R)` iteration), for cross-checks.
    pub(crate) fn naive_rta(s: &System, max_rounds: u32) -> Option<Vec<u64>> {
        let p = s.params();
        let m = u128::from(s.cpus());
        let n = p.len();
        let mut slack = vec![0u64; n];
        let mut resp = vec![0u64; n];
        let f = |k: usize, r: u64, slack: &[u64]| -> u128 {
            let mut sum = 0u128;
            for i in 0..n {
                if i != k {
                    let e = edf_workload(p[i].c, p[i].t, slack[i], p[k].d);
                    let a = rta_workload(p[i].c, p[i].d, p[i].t, slack[i], r);
                    sum += u128::from(e.min(a).min(r - p[k].c + 1));
                }
            }
            u128::from(p[k].c) + sum / m
        };
        let mut round = 0;
        loop {
            round += 1;
            let mut ok = true;
            let mut updated = false;
            for k in 0..n {
                let mut last = p[k].c;
                let mut r = f(k, last, &slack);
                while r != u128::from(last) && r <= u128::from(p[k].d) {
                    last = r as u64;
                    r = f(k, last, &slack);
                }
                if r <= u128::from(p[k].d) {
                    resp[k] = r as u64;
                    if p[k].d - resp[k] != slack[k] {
                        slack[k] = p[k].d - resp[k];
                        updated = true;
                    }
                } else {
                    ok = false;
                }
            }
            if ok {
                return Some(resp);
            }
            if !updated || round >= max_rounds {
                return None;
            }
        }
    }
}
