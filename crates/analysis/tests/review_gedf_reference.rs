//! Independent review: differential test of `gedf-rta`, `gedf-bcl-iter`, `gedf-bak` and
//! `gedf-gfb` against a slow, literal re-statement of SchedCAT's native G-EDF tests
//! (`native/src/edf/{rta,bcl_iterative,baker,gfb}.cpp`, precondition helpers of
//! `native/src/tasks.cpp`, response-time reporting of `schedcat/sched/edf/rta.py`).
//!
//! The reference functions below are written from the semantics of those files, not copied:
//! plain loops, exact arithmetic (`i128` for the integer tests, where every intermediate value
//! of the generated sets is far below 2^100; `BigRational` for the rational ones, as GMP's
//! `mpq_class`), the same loop structure, rounding (`⌊·/m⌋`), strictness, defaults and
//! behaviour when limits are hit:
//!
//! * preconditions: every task feasible (`0 < C`, `C ≤ D`, `C ≤ T`), `U ≤ m` exactly, and
//!   (all but BAK) constrained deadlines; failing them the reference answers `false`.
//! * RTA: `RTAGedf(m, min_fixpoint_step, max_rounds = 25)`; the combined G-EDF test passes
//!   `rta_min_step = 1`. Response-time bounds, when schedulable, are `D − slack` after the last
//!   round (`rta.py::bound_response_times`).
//! * BCL-iterative: `BCLIterativeGedf(m, max_rounds = 0)`, i.e. no round limit.
//! * BAK: single `λ = Ck/Dk`, sum over all tasks (`τk` included) of `min(1, βi)`, with the
//!   loop's early stop once the prefix sum exceeds the bound.
//! * GFB: `Σ δ ≤ m − (m − 1)·δmax`.
//!
//! Our tests answer *not shown* where the reference's preconditions fail; the generated sets
//! are implicit or constrained, so *not applicable* never occurs and *gave up* is a mismatch.
//!
//! Default run: 1500 implicit + 1500 constrained recipe sets (m 1..16), 400 scaled sets and
//! 3000 small-integer sets, a few seconds in release. A review run with
//! `SCHEDLAB_REVIEW_SCALE=20` (68 000 recipe/scaled sets) and 60 000 small sets found no
//! disagreement in verdicts or `gedf-rta` bounds.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use num_bigint::BigInt;
use num_rational::BigRational;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schedlab_analysis::{analyze, registry, Params, Priorities, Status, System};
use schedlab_gen::workload::analysis_benchmark;

// ---------------------------------------------------------------------------------------------
// Reference re-statement (slow on purpose).

fn q(n: u64, d: u64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

/// `has_only_feasible_tasks() && is_not_overutilized(m)`.
fn ref_feasible_not_overutilized(p: &[Params], m: u32) -> bool {
    let feasible = p.iter().all(|t| t.d >= t.c && t.t >= t.c && t.c > 0);
    let u: BigRational = p.iter().map(|t| q(t.c, t.t)).sum();
    feasible && u <= BigRational::from_integer(BigInt::from(m))
}

fn ref_constrained(p: &[Params]) -> bool {
    p.iter().all(|t| t.d <= t.t)
}

/// `edf_interfering_workload` of rta.cpp (same formula as bcl_iterative.cpp's).
fn ref_edf_work(ti: &Params, tk: &Params, slack_i: i128) -> i128 {
    let (c, t, dk) = (ti.c as i128, ti.t as i128, tk.d as i128);
    let njobs = dk / t;
    let mut inf = njobs * c;
    let rest = dk % t;
    if rest > slack_i {
        inf += c.min(rest - slack_i);
    }
    inf
}

/// `rta_interfering_workload` of rta.cpp.
fn ref_rta_work(ti: &Params, response: i128, slack_i: i128) -> i128 {
    let (c, t, d) = (ti.c as i128, ti.t as i128, ti.d as i128);
    let interval = response + d - c - slack_i;
    let mut inf = c * (interval / t);
    let rest = interval % t;
    inf += if rest > c { c } else { rest };
    inf
}

/// `RTAGedf::response_estimate`.
fn ref_rta_estimate(k: usize, p: &[Params], slack: &[i128], response: i128, m: u32) -> i128 {
    let ck = p[k].c as i128;
    let bound = response - ck + 1;
    let mut other = 0i128;
    for i in 0..p.len() {
        if i != k {
            let e = ref_edf_work(&p[i], &p[k], slack[i]);
            let r = ref_rta_work(&p[i], response, slack[i]);
            other += e.min(r).min(bound);
        }
    }
    other / m as i128 + ck
}

/// `RTAGedf::rta_fixpoint`: (fits in the deadline, last estimate).
fn ref_rta_fixpoint(
    k: usize,
    p: &[Params],
    slack: &[i128],
    m: u32,
    min_delta: i128,
) -> (bool, i128) {
    let dk = p[k].d as i128;
    let mut last = p[k].c as i128;
    let mut response = ref_rta_estimate(k, p, slack, last, m);
    while last != response && response <= dk {
        if last < response && response - last < min_delta {
            last = (last + min_delta).min(dk);
        } else {
            last = response;
        }
        response = ref_rta_estimate(k, p, slack, last, m);
    }
    (response <= dk, response)
}

/// `RTAGedf::is_schedulable` + `rta.py::bound_response_times`: `Some(R)` when schedulable.
fn ref_rta(p: &[Params], m: u32, min_delta: i128, max_rounds: u32) -> Option<Vec<u64>> {
    if !(ref_feasible_not_overutilized(p, m) && ref_constrained(p)) {
        return None;
    }
    if p.is_empty() {
        return Some(Vec::new());
    }
    let n = p.len();
    let mut slack = vec![0i128; n];
    let mut round = 0u32;
    let mut schedulable = false;
    let mut updated = true;
    while updated && !schedulable && (max_rounds == 0 || round < max_rounds) {
        round += 1;
        schedulable = true;
        updated = false;
        for k in 0..n {
            let (ok, response) = ref_rta_fixpoint(k, p, &slack, m, min_delta);
            if ok {
                let new_slack = p[k].d as i128 - response;
                if new_slack != slack[k] {
                    slack[k] = new_slack;
                    updated = true;
                }
            } else {
                schedulable = false;
            }
        }
    }
    schedulable.then(|| {
        (0..n)
            .map(|k| u64::try_from(p[k].d as i128 - slack[k]).unwrap())
            .collect()
    })
}

/// `BCLIterativeGedf::is_schedulable` with `max_rounds` (0 = unlimited, the default).
fn ref_bcl_iter(p: &[Params], m: u32, max_rounds: u32) -> bool {
    if !(ref_feasible_not_overutilized(p, m) && ref_constrained(p)) {
        return false;
    }
    if p.is_empty() {
        return true;
    }
    let n = p.len();
    let mut slack = vec![0i128; n];
    let mut round = 0u32;
    let mut schedulable = false;
    let mut updated = true;
    while updated && !schedulable && (max_rounds == 0 || round < max_rounds) {
        round += 1;
        schedulable = true;
        updated = false;
        for k in 0..n {
            // slack_update
            let (ck, dk) = (p[k].c as i128, p[k].d as i128);
            let bound = dk - ck + 1;
            let mut other = 0i128;
            for i in 0..n {
                if i != k {
                    // bcl_iterative.cpp's interfering_workload: tmp = slack + njobs·T.
                    let (c, t) = (p[i].c as i128, p[i].t as i128);
                    let njobs = dk / t;
                    let mut inf = njobs * c;
                    let tmp = slack[i] + njobs * t;
                    if dk >= tmp {
                        inf += c.min(dk - tmp);
                    }
                    other += inf.min(bound);
                }
            }
            let total = ck + other / m as i128;
            let ok = total <= dk;
            if ok && dk - total > slack[k] {
                slack[k] = dk - total;
                updated = true;
            }
            schedulable = schedulable && ok;
        }
    }
    schedulable
}

/// `BakerGedf::is_schedulable` (no constrained-deadline precondition in the reference).
fn ref_bak(p: &[Params], m: u32) -> bool {
    if !ref_feasible_not_overutilized(p, m) {
        return false;
    }
    let one = BigRational::from_integer(BigInt::from(1));
    let mq = BigRational::from_integer(BigInt::from(m));
    for tk in p {
        let lambda = q(tk.c, tk.d);
        let bound = &mq * (&one - &lambda) + &lambda;
        let mut sum = BigRational::from_integer(BigInt::from(0));
        let mut i = 0;
        while i < p.len() && sum <= bound {
            let ti = &p[i];
            let u = q(ti.c, ti.t);
            // Only called on D ≤ T sets here, so T − D is the unsigned difference of the C++.
            let mut beta = (q(ti.t - ti.d, 1) / q(tk.d, 1) + &one) * &u;
            if lambda < u {
                beta += (q(ti.c, 1) - &lambda * q(ti.t, 1)) / q(tk.d, 1);
            }
            sum += beta.min(one.clone());
            i += 1;
        }
        if sum > bound {
            return false;
        }
    }
    true
}

/// `GFBGedf::is_schedulable`.
fn ref_gfb(p: &[Params], m: u32) -> bool {
    if !(ref_feasible_not_overutilized(p, m) && ref_constrained(p)) {
        return false;
    }
    let total: BigRational = p.iter().map(|t| q(t.c, t.d)).sum();
    let zero = BigRational::from_integer(BigInt::from(0));
    let max = p.iter().map(|t| q(t.c, t.d)).fold(zero, |a, b| a.max(b));
    let bound = BigRational::from_integer(BigInt::from(m))
        - BigRational::from_integer(BigInt::from(m) - 1) * max;
    total <= bound
}

// ---------------------------------------------------------------------------------------------
// Comparison.

#[derive(Default, Debug)]
struct Tally {
    cases: u64,
    /// Sets with `n ≤ m`: every task has a CPU of its own, so `gedf-rta` and `gedf-bcl-iter`
    /// must accept them (the interference of at most `m − 1` tasks, each capped at
    /// `R − C + 1` or `D − C + 1`, divided by `m`, rounds down to 0: `R = C ≤ D`).
    within_m: u64,
    rta: u64,
    rta_step5: u64,
    bcl_iter: u64,
    bak: u64,
    gfb: u64,
}

fn run(name: &str, sys: &System) -> schedlab_analysis::Verdict {
    let test = registry::by_name(name).unwrap();
    analyze(test.as_ref(), sys)
}

/// Maps our verdict to the reference's boolean; any other status is a disagreement.
fn accepted(name: &str, sys: &System) -> Result<bool, String> {
    let v = run(name, sys);
    match v.status {
        Status::Schedulable => Ok(true),
        Status::NotShown => Ok(false),
        other => Err(format!(
            "{name}: unexpected status {other} ({:?})",
            v.reason
        )),
    }
}

fn describe(p: &[Params], m: u32) -> String {
    let tasks: Vec<String> = p
        .iter()
        .map(|t| format!("({}, {}, {})", t.c, t.d, t.t))
        .collect();
    format!("m = {m}, tasks (C, D, T) = [{}]", tasks.join(", "))
}

/// Compares all four tests on one set; `Err` describes the first disagreement.
fn compare(p: &[Params], m: u32, tally: &mut Tally) -> Result<(), String> {
    let sys = System::from_params(p.to_vec(), m, Priorities::Dm).unwrap();
    let ctx = || describe(p, m);
    tally.cases += 1;

    // gedf-rta: verdict and per-task bounds (SchedCAT rta_step = 1, 25 rounds).
    let ours = run("gedf-rta", &sys);
    let reference = ref_rta(p, m, 1, 25);
    match (&ours.status, &reference) {
        (Status::Schedulable, Some(r)) => {
            let b: Vec<u64> = ours
                .response_time_bounds
                .as_ref()
                .ok_or_else(|| format!("gedf-rta: no bounds; {}", ctx()))?
                .iter()
                .map(|d| d.as_ns())
                .collect();
            if &b != r {
                return Err(format!("gedf-rta bounds ours {b:?} ref {r:?}; {}", ctx()));
            }
            tally.rta += 1;
        }
        (Status::NotShown, None) => {}
        (s, r) => return Err(format!("gedf-rta ours {s} ref {:?}; {}", r, ctx())),
    }

    // gedf-rta with a coarse fixpoint step (SchedCAT's min_fixpoint_step = 5), verdict + bounds.
    let ours5 = run("gedf-rta:min_step=5", &sys);
    let ref5 = ref_rta(p, m, 5, 25);
    match (&ours5.status, &ref5) {
        (Status::Schedulable, Some(r)) => {
            let b: Vec<u64> = ours5
                .response_time_bounds
                .as_ref()
                .ok_or_else(|| format!("gedf-rta:min_step=5: no bounds; {}", ctx()))?
                .iter()
                .map(|d| d.as_ns())
                .collect();
            if &b != r {
                return Err(format!(
                    "gedf-rta:min_step=5 bounds ours {b:?} ref {r:?}; {}",
                    ctx()
                ));
            }
            tally.rta_step5 += 1;
        }
        (Status::NotShown, None) => {}
        (s, r) => {
            return Err(format!(
                "gedf-rta:min_step=5 ours {s} ref {:?}; {}",
                r,
                ctx()
            ))
        }
    }

    if p.len() <= m as usize {
        tally.within_m += 1;
        if !ours.is_schedulable() || !accepted("gedf-bcl-iter", &sys)? {
            return Err(format!(
                "n ≤ m but gedf-rta or gedf-bcl-iter does not accept; {}",
                ctx()
            ));
        }
    }

    for (name, reference) in [
        ("gedf-bcl-iter", ref_bcl_iter(p, m, 0)),
        ("gedf-bak", ref_bak(p, m)),
        ("gedf-gfb", ref_gfb(p, m)),
    ] {
        let ours = accepted(name, &sys).map_err(|e| format!("{e}; {}", ctx()))?;
        if ours != reference {
            return Err(format!("{name} ours {ours} ref {reference}; {}", ctx()));
        }
        if ours {
            match name {
                "gedf-bcl-iter" => tally.bcl_iter += 1,
                "gedf-bak" => tally.bak += 1,
                _ => tally.gfb += 1,
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Generators.

/// The judge's recipe for implicit deadlines (`analysis_benchmark`), optionally turned into a
/// constrained-deadline set by drawing each `D` uniformly from the integers in `[C, T]`.
fn recipe_set(m: u32, n: usize, seed: u64, index: u64, constrained: bool) -> Vec<Params> {
    let set = analysis_benchmark(m, n, seed, index).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ index);
    set.tasks()
        .iter()
        .map(|task| {
            let (c, t) = (task.wcet.as_ns(), task.period.as_ns());
            let d = if constrained {
                rng.random_range(c..=t)
            } else {
                task.deadline.as_ns()
            };
            Params::new(c, d, t)
        })
        .collect()
}

/// Case-count multiplier for long manual runs: `SCHEDLAB_REVIEW_SCALE=20 cargo test --release …`.
fn scaled(sets: u64) -> u64 {
    let k = std::env::var("SCHEDLAB_REVIEW_SCALE")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(1);
    sets * k.max(1)
}

fn recipe_sweep(constrained: bool, seed: u64, sets: u64) -> Tally {
    let mut tally = Tally::default();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for index in 0..scaled(sets) {
        let m = rng.random_range(1..=16u32);
        // n from below m (n ≤ m edge) up to 4m + 4.
        let n = rng.random_range(1..=(4 * m as usize + 4));
        let p = recipe_set(m, n, seed, index, constrained);
        if let Err(e) = compare(&p, m, &mut tally) {
            panic!("disagreement: {e}");
        }
    }
    tally
}

/// What a sweep must have compared: every drawn set (no set is skipped: a disagreement fails
/// the sweep), among them the sets with `n ≤ m` (n is uniform in 1..=4m+4, so about one set
/// in five; 1500 sets give about 300, and fewer than 100 would mean the generator changed),
/// which `gedf-rta` and `gedf-bcl-iter` accept set by set; BAK and GFB must accept some.
fn assert_compared(tally: &Tally, drawn: u64) {
    assert_eq!(tally.cases, drawn, "every drawn set is compared");
    assert!(
        tally.within_m >= drawn / 15,
        "only {} of {drawn} sets have n ≤ m",
        tally.within_m
    );
    assert!(tally.rta >= tally.within_m && tally.bcl_iter >= tally.within_m);
    assert!(tally.bak > 0 && tally.gfb > 0);
}

#[test]
fn implicit_recipe_sets_agree_with_schedcat() {
    let tally = recipe_sweep(false, 11, 1500);
    eprintln!("implicit: {tally:?}");
    assert_compared(&tally, scaled(1500));
}

#[test]
fn constrained_recipe_sets_agree_with_schedcat() {
    let tally = recipe_sweep(true, 23, 1500);
    eprintln!("constrained: {tally:?}");
    assert_compared(&tally, scaled(1500));
}

/// Larger, irregular times (the recipe scaled by 97 with a random remainder added to `C` and
/// `D`): long fixpoint creeps, so `gedf-rta`'s closed-form jumps are exercised against the
/// 1-ns-at-a-time reference iteration.
#[test]
fn scaled_recipe_sets_agree_with_schedcat() {
    let mut tally = Tally::default();
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    for index in 0..scaled(SCALED_SETS) {
        let m = rng.random_range(1..=8u32);
        let n = rng.random_range(1..=(3 * m as usize + 3));
        let constrained = index % 2 == 1;
        let p: Vec<Params> = recipe_set(m, n, 37, index, constrained)
            .into_iter()
            .map(|x| {
                let t = x.t * 97;
                let c = (x.c * 97 + rng.random_range(0..97)).min(t);
                let d = if constrained {
                    rng.random_range(c..=t)
                } else {
                    t
                };
                Params::new(c, d, t)
            })
            .collect();
        if let Err(e) = compare(&p, m, &mut tally) {
            panic!("disagreement: {e}");
        }
    }
    eprintln!("scaled: {tally:?}");
    // n is uniform in 1..=3m+3 here: about one set in four has n ≤ m.
    assert_eq!(
        tally.cases,
        scaled(SCALED_SETS),
        "every drawn set is compared"
    );
    assert!(tally.within_m >= scaled(SCALED_SETS) / 15);
    assert!(tally.rta >= tally.within_m && tally.bcl_iter >= tally.within_m);
}

const SCALED_SETS: u64 = 400;

/// Small integers hit equalities (`C = D`, `D = T`, `U = m`, bounds met exactly), `n ≤ m`
/// and `m = 1`; also `U > m` sets (precondition path).
fn small_set() -> impl Strategy<Value = (Vec<Params>, u32)> {
    let task = (1u64..=12).prop_flat_map(|t| {
        (1u64..=t).prop_flat_map(move |c| (c..=t).prop_map(move |d| Params::new(c, d, t)))
    });
    (prop::collection::vec(task, 1..=7), 1u32..=4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn small_integer_sets_agree_with_schedcat((p, m) in small_set()) {
        let mut tally = Tally::default();
        if let Err(e) = compare(&p, m, &mut tally) {
            prop_assert!(false, "disagreement: {}", e);
        }
    }
}
