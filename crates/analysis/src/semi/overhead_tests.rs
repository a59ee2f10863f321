//! `pfp-ts` with overheads [RTPS §V]: formulas A–E by hand, a hand-worked overhead-aware
//! split, and zero overheads changing nothing.

#![allow(clippy::unwrap_used)]

use super::costs::{Costs, CpuFacts, Site};
use super::fpts::PfpTs;
use super::rtps_costs::RtpsCosts;
use super::split::PartKind;
use super::tests::small_set;
use crate::overheads::accounting::TaskIn;
use crate::overheads::arch::ArchKind;
use crate::overheads::context::{OverheadContext, OverheadSetup};
use crate::overheads::fixtures;
use crate::system::{Params, Priorities, System};
use crate::test::analyze;
use crate::verdict::Status;
use proptest::prelude::*;
use schedlab_model::overheads::{OverheadFile, OverheadName};

/// The RTPS overhead keys, in the order of the `values` of [`rtps_file`].
fn names() -> impl Iterator<Item = &'static str> {
    OverheadName::RTPS.into_iter().map(OverheadName::key)
}

/// `[arch.semi-partitioned]` with `values` in [`OverheadName::RTPS`] order, plus CPMD curves `ch(wss)` =
/// `wss` (preemption) and `3·wss` (migration) ns when `cpmd`.
fn rtps_file(values: [u64; 8], cpmd: bool) -> OverheadFile {
    let mut text = String::from("schema = 1\n");
    for (name, v) in names().zip(values) {
        text.push_str(&format!(
            "[arch.semi-partitioned.{name}]\nmax = [[1, {v}]]\n"
        ));
    }
    if cpmd {
        text.push_str("[cpmd.preemption]\nmax = [[0, 0], [1000, 1000]]\n");
        text.push_str("[cpmd.migration]\nmax = [[0, 0], [1000, 3000]]\n");
    }
    OverheadFile::parse_toml(&text).unwrap()
}

fn setup(file: OverheadFile) -> OverheadSetup {
    fixtures::setup(file, ArchKind::SemiPartitioned)
}

fn ctx(setup: &OverheadSetup, wss: &[u64]) -> OverheadContext {
    OverheadContext {
        setup: setup.clone(),
        tasks: wss
            .iter()
            .map(|&w| TaskIn {
                c: 1,
                t: 100,
                d: 100,
                wss: Some(w),
            })
            .collect(),
        m: 2,
    }
}

/// sch = 1, cnt = 2, tmr = 4, S_add = 8, S_take = 16, R_add_l = 32, R_add_r = 64,
/// R_take = 128 (each term visible in the binary expansion); ch_l = wss, ch_r = 3·wss.
/// With k = 1 everywhere and the largest working set 100 bytes on the CPU (ch_l = 100,
/// ch_r = 300):
/// - non-split: 1 + 16 + 8 + 32 + 2·128 + 4 + 2·2 + 100 = 421;
/// - A = 1 + 16 + 64 = 81; B = 1 + 32 + 128 + 4 + 2 = 167; C = 1 + 128 + 64 + 2 = 195;
///   D = B + 300 = 467; E = 1 + 128 + 4 + 2 + 8 + 100 = 243;
/// - head B + C = 362, body C + D = 662, tail A + D + E = 791.
///
/// With k = 2 on the own CPU (0) and 3 on the other (1): own R_add_l, R_take ×2, remote
/// R_add_r ×3 (the next part's CPU for C, the head's CPU for A):
/// - non-split: 1 + 16 + 8 + 64 + 4·128 + 4 + 4 + 100 = 709;
/// - A = 1 + 16 + 3·64 = 209; B = 1 + 64 + 256 + 4 + 2 = 327; C = 1 + 256 + 192 + 2 = 451;
///   D = 327 + 300 = 627; E = 1 + 256 + 4 + 2 + 8 + 100 = 371;
/// - head 778, body 1078, tail 1207.
#[test]
fn formulas_a_to_e() {
    let s = setup(rtps_file([1, 2, 4, 8, 16, 32, 64, 128], true));
    let costs = RtpsCosts::new(&ctx(&s, &[100, 10])).unwrap();
    let extra = |kind, splits: &[u32]| {
        let facts = CpuFacts {
            splits,
            max_wss: &[100, 10],
            pieces: &[1, 1],
        };
        let site = Site {
            kind,
            own: 0,
            next: Some(1),
            head: 1,
        };
        costs.extra(&site, &facts)
    };
    assert_eq!(extra(PartKind::Whole, &[0, 0]), 421);
    assert_eq!(extra(PartKind::Head, &[1, 1]), 362);
    assert_eq!(extra(PartKind::Body, &[1, 1]), 662);
    assert_eq!(extra(PartKind::Tail, &[1, 1]), 791);
    assert_eq!(extra(PartKind::Whole, &[2, 3]), 709);
    assert_eq!(extra(PartKind::Head, &[2, 3]), 778);
    assert_eq!(extra(PartKind::Body, &[2, 3]), 1078);
    assert_eq!(extra(PartKind::Tail, &[2, 3]), 1207);
}

/// RTPS §VII's constant cache bounds: curves `[[0, 50000]]` and `[[0, 200000]]` charge 50 µs
/// (ch_l) and 200 µs (ch_r) without any working set: non-split C̄ = C + 50 µs, a tail
/// A + D + E with every other overhead 0 = ch_r + ch_l = 250 µs.
#[test]
fn constant_cache_bounds_without_working_sets() {
    let mut text = String::from(
        "schema = 1\n[cpmd.preemption]\nmax = [[0, 50000]]\n[cpmd.migration]\nmax = [[0, 200000]]\n",
    );
    for name in names() {
        text.push_str(&format!("[arch.semi-partitioned.{name}]\nmax = [[1, 0]]\n"));
    }
    let s = setup(OverheadFile::parse_toml(&text).unwrap());
    let mut c = ctx(&s, &[0]);
    c.tasks[0].wss = None;
    let costs = RtpsCosts::new(&c).unwrap();
    let facts = CpuFacts {
        splits: &[1, 1],
        max_wss: &[0, 0],
        pieces: &[1, 1],
    };
    let site = |kind| Site {
        kind,
        own: 0,
        next: None,
        head: 1,
    };
    assert_eq!(costs.extra(&site(PartKind::Whole), &facts), 50_000);
    assert_eq!(costs.extra(&site(PartKind::Tail), &facts), 250_000);
    // The whole-set accounting and the per-CPU packings charge the same C̄.
    let set = schedlab_model::TaskSet::new(vec![schedlab_model::Task::implicit(
        schedlab_model::Duration::from_ns(1_000_000),
        schedlab_model::Duration::from_ns(10_000_000),
    )
    .unwrap()])
    .unwrap();
    let acc =
        crate::overheads::arch::account(&set, &s.file, ArchKind::SemiPartitioned, s.stat, 4, 1)
            .unwrap();
    assert_eq!(
        acc.charged,
        crate::overheads::accounting::Charged::Ok(vec![(1_050_000, 10_000_000, 10_000_000)])
    );
}

/// Missing curves are errors naming them; the migration curve is required with working sets.
#[test]
fn missing_curves_are_named() {
    let text = "schema = 1\n[arch.semi-partitioned.schedule]\nmax = [[1, 1]]\n";
    let s = setup(OverheadFile::parse_toml(text).unwrap());
    let e = RtpsCosts::new(&ctx(&s, &[0])).err().unwrap();
    assert!(e.contains("context_switch"), "{e}");
    let mut text = String::from("schema = 1\n[cpmd.preemption]\nmax = [[0, 0], [10, 10]]\n");
    for name in names() {
        text.push_str(&format!("[arch.semi-partitioned.{name}]\nmax = [[1, 0]]\n"));
    }
    let s = setup(OverheadFile::parse_toml(&text).unwrap());
    let e = RtpsCosts::new(&ctx(&s, &[64])).err().unwrap();
    assert!(e.contains("cpmd.migration") && e.contains("ch_r"), "{e}");
}

/// The hand-worked split of `semi::tests` (m = 2; τ0 = (3000, 5000), τ1 = (6000, 10000),
/// τ2 = (12000, 20000) ns) with sch = 10 ns and every other overhead 0: a non-split task costs
/// C + 10, a head or body part b + 20 (B + C, D + C), a tail b + 30 (A + D + E).
/// - τ2 → CPU 0 (12010), τ1 → CPU 1 (6010); τ0 → CPU 0: whole, τ2's R = 12010 + ⌈R/5000⌉·3010
///   → 15020 → 24050 > 20000 ✗.
/// - Largest head: four jobs of τ0 interfere, 12010 + 4(b + 20) ≤ 20000 ⇒ b ≤ 1977.5, b = 1977
///   (iteration 14007 → 18001 → 19998 ✓; b = 1978 gives 20002 ✗).
/// - Tail 3000 − 1977 = 1023 on CPU 1, cost 1053, synthetic deadline 5000 − 1997 = 3003 (the
///   head's charged response time): R = 1053 ✓; τ1: 6010 + ⌈R/5000⌉·1053 → 7063 → 8116 ✓.
///
/// End-to-end τ0: 1997 + 1053 = 3050.
#[test]
fn hand_worked_split_with_overheads() {
    let s = setup(rtps_file([10, 0, 0, 0, 0, 0, 0, 0], false));
    let params = vec![
        Params::new(3000, 5000, 5000),
        Params::new(6000, 10000, 10000),
        Params::new(12000, 20000, 20000),
    ];
    let sys = fixtures::system(params, 2, &s);
    let v = analyze(&PfpTs::default(), &sys);
    assert_eq!(v.status, Status::Schedulable, "{v:?}");
    let split = &v.semi.as_ref().unwrap().split_tasks;
    assert_eq!(split.len(), 1);
    let parts: Vec<(u32, u64, PartKind)> = split[0]
        .parts
        .iter()
        .map(|p| (p.cpu, p.budget_ns, p.kind))
        .collect();
    assert_eq!(
        parts,
        vec![(0, 1977, PartKind::Head), (1, 1023, PartKind::Tail)]
    );
    let r: Vec<u64> = v
        .response_time_bounds
        .unwrap()
        .iter()
        .map(|d| d.as_ns())
        .collect();
    assert_eq!(r, vec![3050, 8116, 19998]);
}

/// The other architectures' overheads do not apply to `pfp-ts`; `pfp-*` packings do run under
/// `semi-partitioned` (charged as non-split tasks), `pedf-*` do not.
#[test]
fn architectures() {
    let params = vec![Params::new(10, 100, 100)];
    let part = fixtures::setup(fixtures::constant("partitioned", 0), ArchKind::Partitioned);
    let v = analyze(
        &PfpTs::default(),
        &fixtures::system(params.clone(), 2, &part),
    );
    assert_eq!(v.status, Status::NotApplicable);
    let s = setup(rtps_file([10, 0, 0, 0, 0, 0, 0, 0], false));
    let sys = fixtures::system(params, 2, &s);
    let ffd = crate::registry::by_name("pfp-ffd").unwrap();
    let v = analyze(ffd.as_ref(), &sys);
    assert_eq!(v.status, Status::Schedulable);
    let charged = v.accounting.unwrap().bins[0].charged.clone();
    assert_eq!(
        charged,
        crate::overheads::accounting::Charged::Ok(vec![(20, 100, 100)])
    );
    let pedf = crate::registry::by_name("pedf-ffd").unwrap();
    assert_eq!(analyze(pedf.as_ref(), &sys).status, Status::NotApplicable);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Zero overheads: the same verdict, assignment and bounds as without `--overheads`.
    #[test]
    fn zero_overheads_change_nothing((tasks, m) in small_set()) {
        let params: Vec<Params> = tasks.iter().map(|&(c, t)| Params::new(c, t, t)).collect();
        let free = System::from_params(params.clone(), m, Priorities::Dm).unwrap();
        let s = setup(rtps_file([0; 8], false));
        let charged = fixtures::system(params, m, &s);
        let a = analyze(&PfpTs::default(), &free);
        let b = analyze(&PfpTs::default(), &charged);
        prop_assert_eq!(a.status, b.status);
        prop_assert_eq!(a.semi, b.semi);
        prop_assert_eq!(a.partition, b.partition);
        prop_assert_eq!(a.response_time_bounds, b.response_time_bounds);
    }

    /// With overheads too, `pfp-ts` accepts every set `pfp-ffd` or `pfp-wfd` accepts under
    /// `--arch semi-partitioned` (its fallback runs exactly those packings).
    #[test]
    fn dominates_ffd_and_wfd_with_overheads((tasks, m) in small_set(), sch in 0u64..3) {
        let params: Vec<Params> = tasks.iter().map(|&(c, t)| Params::new(c * 100, t * 100, t * 100)).collect();
        let s = setup(rtps_file([sch, 1, 1, 1, 1, 1, 2, 1], false));
        let sys = fixtures::system(params, m, &s);
        let ts = analyze(&PfpTs::default(), &sys).is_schedulable();
        for name in ["pfp-ffd", "pfp-wfd"] {
            let t = crate::registry::by_name(name).unwrap();
            if analyze(t.as_ref(), &sys).is_schedulable() {
                prop_assert!(ts, "{} accepts, pfp-ts does not", name);
            }
        }
    }
}
