//! Properties shared by all vector methods (proptest, modest case counts).

use super::*;
use crate::rng::rng_for;
use proptest::prelude::*;

fn sum(u: &[f64]) -> f64 {
    u.iter().sum()
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 128,
        ..ProptestConfig::default()
    }
}

/// `(n, lo, hi, U)` with `n·lo ≤ U ≤ n·hi`.
fn bounded_problem() -> impl Strategy<Value = (usize, f64, f64, f64)> {
    (1usize..24, 0.0f64..0.3, 0.0f64..0.7, 0.0f64..=1.0).prop_map(|(n, lo, w, f)| {
        let hi = lo + w;
        let total = n as f64 * (lo + f * w);
        (n, lo, hi, total)
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn uunifast_sums_exactly(n in 1usize..64, total in 0.0f64..32.0, seed in any::<u64>()) {
        let u = uunifast(&mut rng_for(seed, 0), n, total).unwrap();
        prop_assert_eq!(u.len(), n);
        prop_assert!((sum(&u) - total).abs() <= 1e-9);
        prop_assert!(u.iter().all(|&x| x >= 0.0));
    }

    #[test]
    fn randfixedsum_sums_and_bounds((n, lo, hi, total) in bounded_problem(), seed in any::<u64>()) {
        let u = randfixedsum(&mut rng_for(seed, 0), n, total, lo, hi).unwrap();
        prop_assert_eq!(u.len(), n);
        prop_assert!((sum(&u) - total).abs() <= 1e-9, "{} vs {}", sum(&u), total);
        prop_assert!(u.iter().all(|&x| x >= lo && x <= hi), "{:?} not in [{}, {}]", u, lo, hi);
    }

    #[test]
    fn drs_sums_and_bounds(
        n in 1usize..16,
        raw in prop::collection::vec((0.0f64..0.3, 0.0f64..0.7), 16),
        f in 0.0f64..=1.0,
        seed in any::<u64>(),
    ) {
        let lower: Vec<f64> = raw.iter().take(n).map(|p| p.0).collect();
        let upper: Vec<f64> = raw.iter().take(n).map(|p| p.0 + p.1).collect();
        let total = sum(&lower) + f * (sum(&upper) - sum(&lower));
        let u = drs(&mut rng_for(seed, 0), n, total, &lower, &upper).unwrap();
        prop_assert!((sum(&u) - total).abs() <= 1e-9, "{} vs {}", sum(&u), total);
        for i in 0..n {
            prop_assert!(u[i] >= lower[i] && u[i] <= upper[i], "{:?}", u);
        }
    }

    #[test]
    fn discard_sums_and_bounds(n in 1usize..12, f in 0.0f64..0.6, seed in any::<u64>()) {
        // U ≤ 0.6·n keeps the acceptance rate reasonable.
        let total = f * n as f64;
        let u = uunifast_discard(&mut rng_for(seed, 0), n, total, 0.0, 1.0, 100_000).unwrap();
        prop_assert!((sum(&u) - total).abs() <= 1e-9);
        prop_assert!(u.iter().all(|&x| (0.0..=1.0).contains(&x)));
    }

    #[test]
    fn infeasible_parameters_are_typed_errors(n in 1usize..20, excess in 1e-6f64..2.0) {
        let total = n as f64 * 0.5 + excess;
        let mut rng = rng_for(1, 0);
        for m in [VecMethod::RandFixedSum { lo: 0.0, hi: 0.5 }, VecMethod::Drs { lo: 0.0, hi: 0.5 },
                  VecMethod::UUniFastDiscard { lo: 0.0, hi: 0.5 }] {
            let is_invalid = matches!(m.prepare(n, total, 10), Err(GenError::InvalidParameter { .. }));
            prop_assert!(is_invalid);
        }
        prop_assert!(randfixedsum(&mut rng, n, 1.0, 0.6, 0.5).is_err());
        prop_assert!(drs(&mut rng, n, total, &[], &vec![0.5; n]).is_err());
    }
}

#[test]
fn n_zero_is_an_error_for_every_method() {
    for text in ["uunifast", "uunifast-discard", "randfixedsum", "drs"] {
        let m = VecMethod::parse(text).unwrap();
        assert!(
            matches!(
                m.prepare(0, 0.0, 10),
                Err(GenError::InvalidParameter { .. })
            ),
            "{text}"
        );
    }
}

#[test]
fn methods_parse_and_display_round_trip() {
    for text in [
        "uunifast",
        "uunifast-discard:0..1",
        "randfixedsum:0.05..0.8",
        "drs:0..0.5",
    ] {
        let m = VecMethod::parse(text).unwrap();
        assert_eq!(VecMethod::parse(&m.to_string()).unwrap(), m);
    }
    let e = VecMethod::parse("randfixedsum:0.9..0.1").unwrap_err();
    assert!(
        matches!(&e, GenError::Parse { part, .. } if part == "0.9..0.1"),
        "{e}"
    );
    let e = VecMethod::parse("stafford").unwrap_err();
    assert!(
        matches!(&e, GenError::Parse { part, .. } if part == "stafford"),
        "{e}"
    );
}

#[test]
fn randfixedsum_and_drs_agree_on_the_symmetric_problem() {
    // Both sample {Σu = 2, 0 ≤ u ≤ 0.6} (n = 4). For uniform sampling P(u_1 > 0.55) is the
    // same; the check is loose (DRS is only approximately uniform) but catches gross errors.
    let rfs = RandFixedSum::new(4, 2.0, 0.0, 0.6).unwrap();
    let d = Drs::new(4, 2.0, &[], &[0.6; 4], DrsLimits::default()).unwrap();
    let (mut a, mut b, mut c) = (rng_for(71, 0), rng_for(72, 0), rng_for(73, 0));
    let runs = 4000;
    let high = |u: Vec<f64>| usize::from(u[0] > 0.55);
    let pa: usize = (0..runs).map(|_| high(rfs.sample(&mut a))).sum();
    let pb: usize = (0..runs).map(|_| high(d.sample(&mut b).unwrap())).sum();
    let pc: usize = (0..runs)
        .map(|_| {
            let u = uunifast_discard(&mut c, 4, 2.0, 0.0, 0.6, 100_000).unwrap();
            high(u)
        })
        .sum();
    let (pa, pb, pc) = (
        pa as f64 / runs as f64,
        pb as f64 / runs as f64,
        pc as f64 / runs as f64,
    );
    assert!((pa - pc).abs() < 0.03, "randfixedsum {pa} vs discard {pc}");
    assert!((pb - pc).abs() < 0.05, "drs {pb} vs discard {pc}");
}

/// RandFixedSum's n² table is bounded on every path that builds it: the sampler, the one-shot
/// function and the method a generator prepares (up to the generators' 100,000 tasks).
#[test]
fn randfixedsum_refuses_more_than_its_limit_before_allocating() {
    let expected = "invalid n: randfixedsum supports at most 4096 tasks, got 100000 (its table \
                    has n² entries); use drs, which needs memory linear in n";
    let e = RandFixedSum::new(100_000, 10.0, 0.0, 1.0).unwrap_err();
    assert_eq!(e.to_string(), expected);
    let e = randfixedsum(&mut rng_for(1, 0), 100_000, 10.0, 0.0, 1.0).unwrap_err();
    assert_eq!(e.to_string(), expected);
    let method = VecMethod::parse("randfixedsum").unwrap();
    let e = method.prepare(100_000, 10.0, 1000).unwrap_err();
    assert_eq!(e.to_string(), expected);
    assert!(RandFixedSum::new(RFS_MAX_N + 1, 1.0, 0.0, 1.0).is_err());
    // At the limit it works (a 128 MiB table), and DRS takes over beyond it.
    let at_limit = RandFixedSum::new(RFS_MAX_N, 100.0, 0.0, 1.0).unwrap();
    let u = at_limit.sample(&mut rng_for(2, 0));
    assert_eq!(u.len(), RFS_MAX_N);
    assert!((u.iter().sum::<f64>() - 100.0).abs() < 1e-6);
    let drs = VecMethod::parse("drs").unwrap();
    assert!(drs.prepare(100_000, 10.0, 1000).is_ok());
}
