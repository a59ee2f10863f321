//! `pfp-ts`: hand-worked splits, a plain reference implementation, and properties.

use super::fpts::PfpTs;
use super::split::{PartKind, SplitPart, SplitTask};
use crate::system::{Params, Priorities, System};
use crate::test::{analyze, SchedTest};
use crate::uni::rta;
use crate::verdict::{Status, Verdict};
use proptest::prelude::*;

fn system(tasks: &[(u64, u64)], m: u32) -> System {
    let params = tasks.iter().map(|&(c, t)| Params::new(c, t, t)).collect();
    System::from_params(params, m, Priorities::Dm).unwrap()
}

fn part(cpu: u32, budget_ns: u64, kind: PartKind) -> SplitPart {
    SplitPart {
        cpu,
        budget_ns,
        kind,
    }
}

fn split_tasks(v: &Verdict) -> Vec<SplitTask> {
    v.semi
        .as_ref()
        .map(|s| s.split_tasks.clone())
        .unwrap_or_default()
}

fn bare() -> PfpTs {
    PfpTs {
        fallback: false,
        ..PfpTs::default()
    }
}

/// m = 2, RM. τ0 = (30, 50), τ1 = (60, 100), τ2 = (120, 200): every utilization 0.6.
/// Increasing priority order τ2, τ1, τ0:
/// - τ2 → CPU 0 (both empty; lower index), whole: R = 120.
/// - τ1 → CPU 1 (load 0 < 0.6), whole: R = 60.
/// - τ0 → CPU 0 (loads 0.6 = 0.6; lower index). Whole fails: τ2's R = 120 + ⌈R/50⌉·30 →
///   150 → 210 > 200. Split: the largest b with R₂ = 120 + ⌈R/50⌉·b ≤ 200: with R in
///   (150, 200] four jobs of τ0 interfere, 120 + 4b ≤ 200 ⇒ b = 20 (iteration 140 → 180 → 200
///   = 200 ✓); b = 21 gives 141 → 183 → 204 > 200 ✗. The head (20) closes CPU 0.
/// - The rest, 10, goes to CPU 1 as the tail with the synthetic deadline 50 − 20 = 30 (the
///   head runs first at the top priority of CPU 0, so it finishes exactly 20 after the
///   release). On CPU 1 the tail outranks τ1: R = 10 ≤ 30; τ1: 60 + ⌈R/50⌉·10 → 70 → 80 ✓.
///
/// End-to-end: τ0 20 + 10 = 30, τ1 80, τ2 200. Neither pfp-ffd nor pfp-wfd partitions it (any
/// two of the tasks on one CPU miss).
#[test]
fn hand_worked_split() {
    let sys = system(&[(30, 50), (60, 100), (120, 200)], 2);
    let v = analyze(&PfpTs::default(), &sys);
    assert_eq!(v.status, Status::Schedulable, "{v:?}");
    assert_eq!(v.semi.as_ref().unwrap().method, "fp-ts");
    assert_eq!(
        split_tasks(&v),
        vec![SplitTask {
            task: 0,
            parts: vec![part(0, 20, PartKind::Head), part(1, 10, PartKind::Tail)],
        }]
    );
    assert_eq!(v.partition, Some(vec![vec![0, 2], vec![0, 1]]));
    let r: Vec<u64> = v
        .response_time_bounds
        .unwrap()
        .iter()
        .map(|d| d.as_ns())
        .collect();
    assert_eq!(r, vec![30, 80, 200]);
    for name in ["pfp-ffd", "pfp-wfd"] {
        let t = crate::registry::by_name(name).unwrap();
        assert!(!analyze(t.as_ref(), &sys).is_schedulable(), "{name}");
    }
}

/// The synthetic deadline is what makes the test sound. m = 2, RM: τ0 = (6, 10),
/// τ1 = (1, 20), τ2 = (1, 6), τ3 = (8, 8); increasing priority τ1, τ0, τ3, τ2.
/// - τ1 → CPU 0, τ0 → CPU 1 (loads 0.05 < 0.6 afterwards).
/// - τ3 → CPU 0: whole fails (τ1: 1 + ⌈R/8⌉·8 → 9 → 17 → 25 > 20); the largest head is
///   b = 7 (τ1: 1 + 7 = 8 ✓; b = 8 is the whole task). The tail (1) goes to CPU 1 with the
///   synthetic deadline 8 − 7 = 1: R = 1 ✓; τ0: 6 + ⌈R/8⌉ → 7 ✓.
/// - τ2 (1, 6) can only go to CPU 1 (CPU 0 is closed); it outranks the tail, whose response
///   time becomes 1 + ⌈R/6⌉·1 = 2 > 1: τ2 fits nowhere. With the task's own deadline 8 in
///   place of the synthetic one, the tail (R = 2 ≤ 8) and τ0 (6 + ⌈R/6⌉ + ⌈R/8⌉ → 8 → 9 → 10
///   ✓) would pass and the set would be wrongly accepted: a job of τ2 released just after the
///   head's 7 units delays the tail past the deadline 8.
///
/// First-fit decreasing partitions it without splitting: τ3 → CPU 0; τ0 → CPU 1; τ2 → CPU 1
/// (on CPU 0, τ3 would miss: 8 + ⌈R/6⌉ → 10 > 8); τ1 → CPU 1 (1 + ⌈R/6⌉ + ⌈R/10⌉·6 → 9 ✓),
/// so with the fallback `pfp-ts` accepts it as that partition.
#[test]
fn synthetic_deadline_rejects_what_the_task_deadline_would_accept() {
    let sys = system(&[(6, 10), (1, 20), (1, 6), (8, 8)], 2);
    let v = analyze(&bare(), &sys);
    assert_eq!(v.status, Status::NotShown, "{v:?}");
    assert!(v.reason.unwrap().contains("task 2 fitted on no CPU"));
    let v = analyze(&PfpTs::default(), &sys);
    assert_eq!(v.status, Status::Schedulable);
    let semi = v.semi.unwrap();
    assert_eq!(semi.method, "ffd");
    assert!(semi.split_tasks.is_empty());
    assert_eq!(v.partition, Some(vec![vec![3], vec![0, 1, 2]]));
}

/// Head, body and tail. m = 3, RM with equal periods (ties by index: τ0 highest):
/// τ0 = τ1 = τ2 = (8, 10), τ3 = (6, 10); total utilization 3.0. Increasing priority τ3, τ2,
/// τ1, τ0:
/// - τ3 → CPU 0, τ2 → CPU 1, τ1 → CPU 2 (each the least loaded; loads 0.6, 0.8, 0.8).
/// - τ0 → CPU 0: whole fails (τ3: 6 + 8 > 10). Largest head: τ3's R = 6 + b ≤ 10 ⇒ b = 4;
///   CPU 0 closed. The rest (4) → CPU 1 (0.8 = 0.8, lower index) with the synthetic deadline
///   10 − 4 = 6: whole, R = 4 ≤ 6 but τ2: 8 + 4 > 10 ✗. Largest body: τ2: 8 + b ≤ 10 ⇒ b = 2
///   (its own R = 2, so it ends 6 after the release); CPU 1 closed. The rest (2) → CPU 2 with
///   the deadline 10 − 6 = 4: R = 2 ✓, τ1: 8 + 2 = 10 ✓.
///
/// With τ3 = (7, 10) (total 3.1): head 3, body 2, and the rest 3 breaks τ1 (8 + 3 > 10) on
/// the last CPU: not shown.
#[test]
fn head_body_tail() {
    let sys = system(&[(8, 10), (8, 10), (8, 10), (6, 10)], 3);
    let v = analyze(&PfpTs::default(), &sys);
    assert_eq!(v.status, Status::Schedulable, "{v:?}");
    assert_eq!(
        split_tasks(&v),
        vec![SplitTask {
            task: 0,
            parts: vec![
                part(0, 4, PartKind::Head),
                part(1, 2, PartKind::Body),
                part(2, 2, PartKind::Tail)
            ],
        }]
    );
    assert_eq!(v.partition, Some(vec![vec![0, 3], vec![0, 2], vec![0, 1]]));
    let over = system(&[(8, 10), (8, 10), (8, 10), (7, 10)], 3);
    assert!(!analyze(&PfpTs::default(), &over).is_schedulable());
}

/// Not applicable to arbitrary deadlines; JSON carries the split tasks in execution order.
#[test]
fn preconditions_and_json() {
    let params = vec![Params::new(1, 20, 10)];
    let sys = System::from_params(params, 2, Priorities::Dm).unwrap();
    let v = analyze(&PfpTs::default(), &sys);
    assert_eq!(v.status, Status::NotApplicable);
    let sys = system(&[(30, 50), (60, 100), (120, 200)], 2);
    let v = analyze(&PfpTs::default(), &sys);
    let j = crate::json::result_json("pfp-ts", &v);
    assert_eq!(j["assignment"], "fp-ts");
    assert_eq!(
        j["split_tasks"],
        serde_json::json!([{"task": 0, "parts": [
            {"cpu": 0, "budget_ns": 20, "kind": "head"},
            {"cpu": 1, "budget_ns": 10, "kind": "tail"}]}])
    );
    assert_eq!(j["partition"], serde_json::json!([[0, 2], [0, 1]]));
}

// ---- A plain reference: the algorithm written as directly as possible. ----

/// One piece on a CPU in the reference: `(task, budget, synthetic deadline)`.
type RefPiece = (usize, u64, u64);

fn ref_passes(pieces: &[RefPiece], params: &[Params], ranks: &[u32]) -> bool {
    let mut rows = pieces.to_vec();
    rows.sort_by_key(|&(t, _, _)| ranks[t]);
    let ps: Vec<Params> = rows
        .iter()
        .map(|&(t, b, d)| Params::new(b, d, params[t].t))
        .collect();
    ps.iter().all(|p| p.c <= p.d)
        && rta::fp_feasible_from(&ps, 0, u64::MAX) == crate::uni::Outcome::Schedulable
}

/// FP-TS without overheads: `Some(parts per task)` or `None` if some task fits nowhere.
fn reference(sys: &System) -> Option<Vec<Vec<(usize, u64)>>> {
    let params = sys.params();
    let ranks = sys.priority_ranks().unwrap();
    let order = sys.priority_order().unwrap();
    let m = sys.cpus() as usize;
    let mut cpus: Vec<Vec<RefPiece>> = vec![Vec::new(); m];
    let mut closed = vec![false; m];
    let mut parts = vec![Vec::new(); params.len()];
    for &task in order.iter().rev() {
        let p = params[task];
        let (mut rest, mut offset) = (p.c, 0u64);
        let mut used = vec![false; m];
        loop {
            let load = |c: usize| -> num_rational::BigRational {
                cpus[c]
                    .iter()
                    .map(|&(t, b, _)| num_rational::BigRational::new(b.into(), params[t].t.into()))
                    .sum()
            };
            let mut cands: Vec<usize> = (0..m).filter(|&c| !closed[c] && !used[c]).collect();
            cands.sort_by(|&a, &b| load(a).cmp(&load(b)).then(a.cmp(&b)));
            let &cpu = cands.first()?;
            let deadline = p.d - offset;
            let mut trial = cpus[cpu].clone();
            trial.push((task, rest, deadline));
            if ref_passes(&trial, params, &ranks) {
                cpus[cpu] = trial;
                parts[task].push((cpu, rest));
                break;
            }
            used[cpu] = true;
            if cands.len() < 2 {
                continue;
            }
            // Linear scan from the top: the largest budget that passes.
            let fits = |b: u64| {
                let mut t = cpus[cpu].clone();
                t.push((task, b, deadline));
                ref_passes(&t, params, &ranks)
            };
            let Some(b) = (1..rest).rev().find(|&b| fits(b)) else {
                continue;
            };
            cpus[cpu].push((task, b, deadline));
            parts[task].push((cpu, b));
            closed[cpu] = true;
            rest -= b;
            offset += b;
        }
    }
    Some(parts)
}

/// Small implicit-deadline sets `(C, T)` on 2–4 CPUs, loaded enough that FP-TS often splits.
pub(super) fn small_set() -> impl Strategy<Value = (Vec<(u64, u64)>, u32)> {
    (2u32..=4).prop_flat_map(|m| {
        (
            prop::collection::vec(
                (
                    prop::sample::select(vec![10u64, 12, 15, 20, 24, 30, 40]),
                    5u64..=70,
                )
                    .prop_map(|(t, pct)| ((t * pct).div_ceil(100).max(1), t)),
                (m as usize + 1)..=(2 * m as usize + 2),
            ),
            Just(m),
        )
    })
}

fn parts_of(v: &Verdict, n: usize) -> Vec<Vec<(usize, u64)>> {
    let mut out = vec![Vec::new(); n];
    let split = split_tasks(v);
    for (cpu, tasks) in v.partition.as_ref().unwrap().iter().enumerate() {
        for &t in tasks {
            if !split.iter().any(|s| s.task == t) {
                out[t].push((cpu, 0));
            }
        }
    }
    for s in split {
        out[s.task] = s
            .parts
            .iter()
            .map(|p| (p.cpu as usize, p.budget_ns))
            .collect();
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The assignment is the reference's, split for split.
    #[test]
    fn agrees_with_the_reference((tasks, m) in small_set()) {
        let sys = system(&tasks, m);
        let v = analyze(&bare(), &sys);
        match reference(&sys) {
            None => prop_assert!(!v.is_schedulable()),
            Some(parts) => {
                prop_assert!(v.is_schedulable(), "{:?}", v);
                let got = parts_of(&v, tasks.len());
                for (t, (want, got)) in parts.iter().zip(&got).enumerate() {
                    if want.len() == 1 {
                        prop_assert_eq!(got.len(), 1);
                        prop_assert_eq!(got[0].0, want[0].0, "task {}", t);
                    } else {
                        prop_assert_eq!(got, want, "task {}", t);
                    }
                }
            }
        }
    }

    /// Splits are maximal: one more nanosecond on any head or body makes its CPU fail; the
    /// budgets add up to the WCET on distinct CPUs; heads and bodies are the top priority of
    /// their CPU.
    #[test]
    fn splits_are_maximal_and_well_formed((tasks, m) in small_set()) {
        let sys = system(&tasks, m);
        let v = analyze(&bare(), &sys);
        prop_assume!(v.is_schedulable());
        let params = sys.params();
        let ranks = sys.priority_ranks().unwrap();
        let parts = parts_of(&v, tasks.len());
        // Every CPU's pieces with their synthetic deadlines.
        let mut cpus: Vec<Vec<RefPiece>> = vec![Vec::new(); m as usize];
        for (t, ps) in parts.iter().enumerate() {
            let mut offset = 0;
            for &(cpu, b) in ps {
                let b = if ps.len() == 1 { params[t].c } else { b };
                cpus[cpu].push((t, b, params[t].d - offset));
                offset += b;
            }
        }
        for (t, ps) in parts.iter().enumerate() {
            if ps.len() == 1 { continue; }
            prop_assert_eq!(ps.iter().map(|p| p.1).sum::<u64>(), params[t].c);
            let mut seen: Vec<usize> = ps.iter().map(|p| p.0).collect();
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen.len(), ps.len());
            for &(cpu, _) in &ps[..ps.len() - 1] {
                prop_assert!(cpus[cpu].iter().all(|&(u, _, _)| u == t || ranks[u] > ranks[t]));
                let mut more = cpus[cpu].clone();
                for piece in &mut more {
                    if piece.0 == t { piece.1 += 1; }
                }
                prop_assert!(!ref_passes(&more, params, &ranks), "task {} on CPU {} could take 1 ns more", t, cpu);
            }
        }
        for pieces in &cpus {
            prop_assert!(ref_passes(pieces, params, &ranks));
        }
    }

    /// With the fallback, `pfp-ts` accepts every set `pfp-ffd` or `pfp-wfd` accepts.
    #[test]
    fn accepts_what_ffd_and_wfd_accept((tasks, m) in small_set()) {
        let sys = system(&tasks, m);
        let ts = analyze(&PfpTs::default(), &sys).is_schedulable();
        for name in ["pfp-ffd", "pfp-wfd"] {
            let t = crate::registry::by_name(name).unwrap();
            if analyze(t.as_ref(), &sys).is_schedulable() {
                prop_assert!(ts, "{} accepts, pfp-ts does not", name);
            }
        }
    }
}

#[test]
fn parameters() {
    let mut t = PfpTs::default();
    assert!(t.set_param("fallback", "0").is_ok());
    assert!(!t.fallback);
    assert!(t.set_param("fallback", "maybe").is_err());
    assert!(t.set_param("nope", "1").is_err());
    assert!(crate::registry::by_name("pfp-ts:fallback=false").is_ok());
}
