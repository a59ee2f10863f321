//! `gedf-bcl-iter`: the iterative slack-based G-EDF test of Bertogna, Cirinei & Lipari.
//!
//! **Paper.** M. Bertogna, M. Cirinei, G. Lipari, "Schedulability analysis of global scheduling
//! algorithms on multiprocessor platforms", IEEE TPDS 20(4), 2009 (§5–6, the EDF slack
//! iteration; equation numbers as in SchedCAT's `bcl_iterative.py`). Every task starts with
//! slack `Si = 0`. Repeatedly, for each `τk` in turn, with the EDF interfering workload
//!
//! `W^EDF_i = ⌊Dk/Ti⌋·Ci + min(Ci, max(0, Dk mod Ti − Si))`                       — Eq. (17)
//!
//! (see `workload::edf_workload`) the slack is updated to
//!
//! `Sk ← Dk − Ck − ⌊ Σ_{i≠k} min(W^EDF_i, Dk − Ck + 1) / m ⌋`  if that is `≥ 0` and larger
//! than the current `Sk`                                                               — Eq. (18)
//!
//! The set is schedulable as soon as one full round finds `Dk − Ck − ⌊…⌋ ≥ 0` for every task;
//! the iteration stops (not shown) when a round changes no slack.
//!
//! **Reference.** SchedCAT `native/src/edf/bcl_iterative.cpp`, followed exactly: slacks are
//! updated in place during a round (a task sees the slacks its predecessors got in the same
//! round), a task whose bound is negative keeps its slack, only strictly larger slacks count as
//! an update, the `+ 1` cap assumes integer time, `⌊·/m⌋` is integer division. Preconditions:
//! feasible tasks and `U ≤ m` (→ *not shown* here), constrained deadlines (→ *not applicable*).
//!
//! **Work limit.** SchedCAT's default is no round limit (`max_rounds = 0`); slacks only grow,
//! so the iteration terminates, but after pseudo-polynomially many rounds at worst. We stop
//! after [`BclIter::max_rounds`] rounds (default 1000, far above the handful of rounds random
//! sets need) and answer *gave up* — SchedCAT would have continued, so the answer is unknown.
//! `max_rounds = 0` means no limit, as in SchedCAT.
//!
//! **Dominance.** A set accepted by `gedf-bcl` is accepted by this test in its first round
//! (with all slacks 0, `W^EDF_i ≤ Wi` of BCL for `Di ≤ Ti`, and at most `m − 1` capped terms
//! can exceed BCL's cap by one); the module's property tests check it.
//!
//! **Early exit (same verdict, less work).** Eq. (18) is monotone: larger slacks never
//! increase a workload, so a task whose bound was `≥ 0` at one evaluation stays `≥ 0` at every
//! later one, and the slack vector only grows toward the least fixpoint of the update, which
//! does not depend on the order of evaluation (chaotic iteration of a monotone map). Hence
//! SchedCAT's verdict — "some round finds every task ok" — holds exactly when every task has
//! been ok at some evaluation, and its "not shown" is reached at that same fixpoint. We
//! therefore evaluate tasks not yet shown ok first in each round (in index order; the first
//! round is SchedCAT's first round) and stop the moment all have been ok: on accepted sets
//! this usually saves the whole second `O(n²)` round. Verdicts and, for "not shown", the final
//! slacks equal SchedCAT's (property test `matches_full_recomputation`).
//!
//! **Screen** (`screen = P > 0`; the `gedf` battery uses `P = 4`). Every slack a round gives
//! is a bound of Eq. (18), at most `Dk − Ck`, and the bound is non-increasing in the others'
//! slacks (`W^EDF_i` is). So from `U = D − C`, setting each `Uk` in place to its bound under
//! `U` keeps `U` above every slack vector the rounds can reach; a task whose bound is negative
//! under such a `U` is negative at every evaluation of the rounds, which therefore never find
//! every task ok and answer *not shown* (or *gave up* at `max_rounds`; the screen answers *not
//! shown* at once). At most `P` passes, tasks with the least slack first after the first;
//! otherwise the rounds run as described. Same verdicts otherwise (property test); on sets the
//! rounds accept it is wasted work, hence off by default.
//!
//! **Assumptions.** Sporadic tasks, constrained deadlines, preemptive G-EDF on `m` identical
//! CPUs. **Complexity.** `O(rounds · n²)` at worst; later rounds replay only the slack changes
//! since a task's previous evaluation (`O(n · changes)`), with identical results.

use super::precheck::trivially_infeasible;
use super::workload::edf_workload;
use crate::param::{self, Param};
use crate::system::{Params, System};
use crate::test::{Kind, SchedTest, TestInfo};
use crate::verdict::Verdict;

/// The iterative BCL G-EDF test (`gedf-bcl-iter`).
#[derive(Clone, Copy, Debug)]
pub struct BclIter {
    /// Round limit (0 = none): reaching it without a verdict answers *gave up*.
    pub max_rounds: u32,
    /// Passes of the upper-bound screen run before the rounds (module documentation,
    /// **Screen**); 0 = none (the default; the `gedf` battery runs it).
    pub screen: u32,
}

impl Default for BclIter {
    fn default() -> BclIter {
        BclIter {
            max_rounds: 1000,
            screen: 0,
        }
    }
}

impl SchedTest for BclIter {
    fn params(&self) -> Vec<Param> {
        vec![
            Param::new(
                "rounds",
                self.max_rounds,
                "slack rounds before giving up (0 = no limit)",
            ),
            Param::new(
                "screen",
                self.screen,
                "passes of the upper-bound screen that rejects, before the rounds, sets no round can accept (0 = off)",
            ),
        ]
    }
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "rounds" => self.max_rounds = param::parse_u32(name, value)?,
            "screen" => self.screen = param::parse_u32(name, value)?,
            _ => return Err(param::unknown(&self.name(), name, &self.params())),
        }
        Ok(())
    }
    fn info(&self) -> TestInfo {
        TestInfo {
            name: "gedf-bcl-iter".into(),
            family: "global-edf",
            kind: Kind::Sufficient,
            citation:
                "Bertogna, Cirinei & Lipari, IEEE TPDS 20(4) 2009, 'Schedulability analysis of \
                       global scheduling algorithms on multiprocessor platforms', EDF slack \
                       iteration Eqs. (17)-(18) (as SchedCAT bcl_iterative.cpp)",
            assumptions: "sporadic tasks, constrained deadlines (D ≤ T), preemptive global EDF, \
                          integer time",
            complexity: "O(rounds · n^2), at most max_rounds rounds (default 1000)",
        }
    }

    fn check(&self, sys: &System) -> Result<(), String> {
        sys.require_constrained()
    }

    fn run(&self, sys: &System) -> Verdict {
        if let Some(reason) = trivially_infeasible(sys) {
            return Verdict::not_shown().because(reason);
        }
        if let Some(k) = screen(sys.params(), u128::from(sys.cpus()), self.screen) {
            return Verdict::not_shown().because(format!(
                "task {k}'s slack bound is negative even with slacks above any that a round can \
                 reach (screen)"
            ));
        }
        let (verdict, _) = self.iterate(sys);
        verdict
    }
}

/// The upper-bound screen (module documentation, **Screen**): at most `passes` passes of
/// Eq. (18) from above, from `U = D − C`, each task's `U` set in place to its bound; the first
/// task whose bound is negative, or `None`.
fn screen(params: &[Params], m: u128, passes: u32) -> Option<usize> {
    let mut state = State::new(params, m);
    for (s, p) in state.slack.iter_mut().zip(params) {
        *s = p.d - p.c;
    }
    let mut order: Vec<usize> = (0..params.len()).collect();
    for _ in 0..passes {
        let mut moved = false;
        for &k in &order {
            match state.bound(k) {
                None => return Some(k),
                Some(bound) => moved |= state.set_slack(k, bound),
            }
        }
        if !moved {
            break;
        }
        // The tasks with the least slack left first: the likeliest to go negative.
        let slack = &state.slack;
        order.sort_by_key(|&k| slack.get(k).copied().unwrap_or(0));
    }
    None
}

impl BclIter {
    /// The slack iteration; also returns the final slacks (for the tests).
    ///
    /// Passes evaluate the tasks not yet shown ok first, then the others, and stop as soon as
    /// every task has been ok at some evaluation (see "Early exit" in the module doc).
    fn iterate(&self, sys: &System) -> (Verdict, Vec<u64>) {
        let params = sys.params();
        let n = params.len();
        let mut state = State::new(params, u128::from(sys.cpus()));
        let mut ok = vec![false; n];
        let mut was_ok = vec![false; n];
        let mut ok_count = 0usize;
        let mut round = 0u32;
        if n == 0 {
            return (Verdict::schedulable(), state.slack);
        }
        loop {
            round += 1;
            state.start_round();
            was_ok.copy_from_slice(&ok);
            let mut updated = false;
            for second in [false, true] {
                for k in (0..n).filter(|&k| was_ok[k] == second) {
                    let (is_ok, improved) = state.slack_update(k);
                    updated |= improved;
                    if is_ok && !ok[k] {
                        ok[k] = true;
                        ok_count += 1;
                        if ok_count == n {
                            return (Verdict::schedulable(), state.slack);
                        }
                    }
                }
            }
            let verdict = if !updated {
                Verdict::not_shown()
                    .because(format!("slack iteration converged after {round} rounds"))
            } else if self.max_rounds != 0 && round >= self.max_rounds {
                Verdict::gave_up(format!(
                    "round limit max_rounds = {} reached while slacks were still growing",
                    self.max_rounds
                ))
            } else {
                continue;
            };
            return (verdict, state.slack);
        }
    }
}

/// One slack change, in the order it happened.
#[derive(Clone, Copy)]
struct Change {
    task: usize,
    old: u64,
    new: u64,
}

/// The iteration's state. Each `τk` keeps the interference sum of its last evaluation and the
/// position in the change log it had seen; the next evaluation either replays the changes since
/// then (two terms per change) or, when there are many, recomputes the sum from scratch — the
/// same numbers as SchedCAT's full recomputation, in `O(n·changes)` instead of `O(n²)` per
/// round once few slacks still move.
struct State<'a> {
    params: &'a [Params],
    m: u128,
    slack: Vec<u64>,
    /// `Σ_{i≠k} min(W^EDF_i, Dk − Ck + 1)` at τk's last evaluation.
    sum: Vec<u128>,
    /// Log position seen by τk's last evaluation (`None`: never evaluated).
    seen: Vec<Option<usize>>,
    log: Vec<Change>,
}

impl<'a> State<'a> {
    fn new(params: &'a [Params], m: u128) -> State<'a> {
        let n = params.len();
        State {
            params,
            m,
            slack: vec![0; n],
            sum: vec![0; n],
            seen: vec![None; n],
            log: Vec::new(),
        }
    }

    /// Drops log entries every task has seen.
    fn start_round(&mut self) {
        let Some(oldest) = self.seen.iter().map(|s| s.unwrap_or(0)).min() else {
            return;
        };
        self.log.drain(..oldest.min(self.log.len()));
        for s in self.seen.iter_mut().flatten() {
            *s -= oldest;
        }
    }

    /// The interference sum of `τk` under the current slacks.
    fn interference_sum(&mut self, k: usize, pk: Params) -> u128 {
        let cap = pk.d - pk.c + 1; // integer time: the interference that matters is ≤ Dk − Ck + 1
        let n = self.params.len();
        let pending = self.seen.get(k).copied().flatten().and_then(|seen| {
            let changes = self.log.get(seen..)?;
            (changes.len() < n / 2).then_some(changes)
        });
        let total = match pending {
            Some(changes) => {
                let mut total = self.sum.get(k).copied().unwrap_or(0);
                for ch in changes.iter().filter(|ch| ch.task != k) {
                    if let Some(p) = self.params.get(ch.task) {
                        // `total` holds the old term, so adding first never underflows
                        // (slacks only grow in the rounds; the screen moves them down).
                        let old = edf_workload(p.c, p.t, ch.old, pk.d).min(cap);
                        let new = edf_workload(p.c, p.t, ch.new, pk.d).min(cap);
                        total = total + u128::from(new) - u128::from(old);
                    }
                }
                total
            }
            None => self
                .params
                .iter()
                .zip(&self.slack)
                .enumerate()
                .filter(|&(i, _)| i != k)
                .map(|(_, (p, &s))| u128::from(edf_workload(p.c, p.t, s, pk.d).min(cap)))
                .sum(),
        };
        if let (Some(sum), Some(seen)) = (self.sum.get_mut(k), self.seen.get_mut(k)) {
            *sum = total;
            *seen = Some(self.log.len());
        }
        total
    }

    /// Eq. (18)'s bound for `τk` under the current slacks, `None` if negative.
    fn bound(&mut self, k: usize) -> Option<u64> {
        let pk = *self.params.get(k)?;
        let interference = self.interference_sum(k, pk) / self.m;
        let laxity = u128::from(pk.d - pk.c);
        // laxity − interference ≤ Dk fits u64.
        (interference <= laxity).then(|| u64::try_from(laxity - interference).unwrap_or(0))
    }

    /// Sets `τk`'s slack (in either direction, for the screen), logging the change; whether
    /// it changed. The replay in `interference_sum` is exact either way: a sum holds every
    /// term it replaces.
    fn set_slack(&mut self, k: usize, new: u64) -> bool {
        let Some(sk) = self.slack.get_mut(k) else {
            return false;
        };
        if *sk == new {
            return false;
        }
        self.log.push(Change {
            task: k,
            old: *sk,
            new,
        });
        *sk = new;
        if let Some(Some(seen)) = self.seen.get_mut(k) {
            *seen = self.log.len();
        }
        true
    }

    /// Eq. (18) for `τk`: `(bound ≥ 0, slack improved)`.
    fn slack_update(&mut self, k: usize) -> (bool, bool) {
        let Some(&pk) = self.params.get(k) else {
            return (true, false);
        };
        let interference = self.interference_sum(k, pk) / self.m;
        let laxity = u128::from(pk.d - pk.c);
        if interference > laxity {
            return (false, false); // negative slack: keep the old one
        }
        // laxity − interference ≤ Dk fits u64.
        let new_slack = u64::try_from(laxity - interference).unwrap_or(0);
        match self.slack.get_mut(k) {
            Some(sk) if new_slack > *sk => {
                self.log.push(Change {
                    task: k,
                    old: *sk,
                    new: new_slack,
                });
                *sk = new_slack;
                // τk's own sum does not contain its own term: still valid.
                if let Some(Some(seen)) = self.seen.get_mut(k) {
                    *seen = self.log.len();
                }
                (true, true)
            }
            _ => (true, false),
        }
    }
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
        // Dhall-style, m = 2: (2, 10, 10) ×2 and heavy (10, 11, 11).
        // Round 1, k = 0 (Dk = 10, cap = 9): light: ⌊10/10⌋·2 + min(2, 0) = 2; heavy:
        //   ⌊10/11⌋·10 + min(10, 10 − 0) = 10 → min(10, 9) = 9; ⌊11/2⌋ = 5 ≤ 8 → S0 = 3.
        // k = 1: light τ0 with S0 = 3: 2 + min(2, max(0, 0 − 3)) = 2; heavy 9 → ⌊11/2⌋ = 5,
        //   S1 = 3.
        // k = 2 (Dk = 11, cap = 2): light: ⌊11/10⌋·2 + min(2, 1 − 3 < 0 → 0) = 2 each →
        //   Σ = 4, ⌊4/2⌋ = 2 > Dk − Ck = 1 → negative.
        // Round 2 repeats the same numbers (no slack grows) → not shown.
        assert_eq!(
            analyze(
                &BclIter::default(),
                &sys(&[(2, 10, 10), (2, 10, 10), (10, 11, 11)], 2)
            )
            .status,
            Status::NotShown
        );
        // (1, 2, 2) ×3 on m = 2: k: cap 2, each other: ⌊2/2⌋·1 + 0 = 1 → Σ = 2, ⌊2/2⌋ = 1 ≤ 1
        //   → slack 0, ok for all → schedulable in round 1.
        assert!(analyze(&BclIter::default(), &sys(&[(1, 2, 2); 3], 2)).is_schedulable());
    }

    #[test]
    fn slack_from_an_earlier_round_helps() {
        // m = 1: τ0 = (1, 3, 6), τ1 = (3, 6, 6).
        // Round 1: k = 0 (Dk = 3, cap = 3): τ1: ⌊3/6⌋·3 + min(3, 3 − 0) = 3 → ⌊3/1⌋ = 3 > 2
        //   → negative, S0 stays 0.
        // k = 1 (Dk = 6, cap = 4): τ0: ⌊6/6⌋·1 + min(1, 0) = 1 → 1 ≤ 3 → S1 = 2.
        // Round 2: k = 0: τ1 with S1 = 2: 0 + min(3, 3 − 2) = 1 → 1 ≤ 2 → S0 = 1.
        //   k = 1: still fine → schedulable in round 2.
        assert!(analyze(&BclIter::default(), &sys(&[(1, 3, 6), (3, 6, 6)], 1)).is_schedulable());
        // With a one-round limit the same set gives up.
        assert_eq!(
            analyze(
                &BclIter {
                    max_rounds: 1,
                    screen: 0
                },
                &sys(&[(1, 3, 6), (3, 6, 6)], 1)
            )
            .status,
            Status::GaveUp
        );
    }

    /// SchedCAT's algorithm literally: full recomputation for every task in every round.
    fn naive(p: &[(u64, u64, u64)], m: u32) -> (bool, Vec<u64>) {
        let n = p.len();
        let m = u128::from(m);
        let mut slack = vec![0u64; n];
        loop {
            let (mut ok_all, mut updated) = (true, false);
            for k in 0..n {
                let (_, dk, _) = p[k];
                let cap = dk - p[k].0 + 1;
                let other: u128 = (0..n)
                    .filter(|&i| i != k)
                    .map(|i| u128::from(edf_workload(p[i].0, p[i].2, slack[i], dk).min(cap)))
                    .sum();
                let tmp = u128::from(p[k].0) + other / m;
                if tmp <= u128::from(dk) {
                    let new = dk - tmp as u64;
                    if new > slack[k] {
                        slack[k] = new;
                        updated = true;
                    }
                } else {
                    ok_all = false;
                }
            }
            if ok_all || !updated {
                return (ok_all, slack);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::gedf::testutil::cases()))]
        /// The change-log replay gives SchedCAT's verdict and slacks.
        #[test]
        fn matches_full_recomputation(
            (p, m) in (1u32..4).prop_flat_map(|m| {
                let n = m as usize;
                (proptest::collection::vec(crate::gedf::testutil::small_task(40), n + 1..n + 12), Just(m))
            }),
            scale in prop_oneof![Just(1u64), Just(1000)],
        ) {
            let p: Vec<_> = p.iter().map(|&(c, d, t)| (c * scale, d * scale, t * scale)).collect();
            let s = sys(&p, m);
            if crate::gedf::precheck::trivially_infeasible(&s).is_none() {
                let (v, slack) = BclIter { max_rounds: 0, screen: 0 }.iterate(&s);
                let (expected, expected_slack) = naive(&p, m);
                prop_assert_eq!(v.is_schedulable(), expected);
                if !expected {
                    // Both stop at the least fixpoint: identical slacks.
                    prop_assert_eq!(slack, expected_slack);
                }
                // The screen rejects only sets the rounds reject, and a set it rejects has
                // a task negative at every evaluation.
                for passes in [1, 2, 4, 50] {
                    if screen(s.params(), u128::from(m), passes).is_some() {
                        prop_assert!(!expected, "screen {} rejected an accepted set", passes);
                    }
                    let screened = BclIter { max_rounds: 0, screen: passes };
                    prop_assert_eq!(analyze(&screened, &s).status, analyze(&BclIter { max_rounds: 0, screen: 0 }, &s).status);
                }
            }
        }
    }
}
