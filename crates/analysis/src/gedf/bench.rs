//! Timing harness (ignored test; run with
//! `cargo test -p schedlab-analysis --release --lib gedf::bench -- --ignored --nocapture`):
//! median time per task set for `m = 16`, `n = 160` and `640`, comparable to SchedCAT's
//! published C++ medians (BAK 575/2,072 µs; BCL 246/962 µs; BCL-iterative 2,241/33,709 µs;
//! RTA 47,623/669,259 µs).

#![allow(clippy::unwrap_used)]

use super::testutil::sys;
use super::{Bak, Bcl, BclIter, Gfb, Rta};
use crate::test::{analyze, SchedTest};
use crate::verdict::Status;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// Implicit or constrained sets: periods uniform in [10 ms, 100 ms] (ns), utilizations uniform
/// and scaled to total `u_total`, deadlines uniform in [C + (T − C)/2, T] when constrained.
fn gen(rng: &mut ChaCha8Rng, n: usize, u_total: f64, constrained: bool) -> Vec<(u64, u64, u64)> {
    let raw: Vec<f64> = (0..n).map(|_| rng.random_range(0.01..1.0)).collect();
    let s: f64 = raw.iter().sum();
    raw.iter()
        .map(|&r| {
            let t: u64 = rng.random_range(10_000_000..=100_000_000);
            let u = (r / s * u_total).min(1.0);
            let c = ((u * t as f64) as u64).clamp(1, t);
            let d = if constrained {
                rng.random_range(c + (t - c) / 2..=t)
            } else {
                t
            };
            (c, d, t)
        })
        .collect()
}

#[test]
#[ignore]
fn timing() {
    let tests: Vec<(&str, Box<dyn SchedTest>)> = vec![
        ("gfb", Box::new(Gfb)),
        ("bak", Box::new(Bak)),
        ("bcl", Box::new(Bcl)),
        ("bcl-iter", Box::new(BclIter::default())),
        ("rta", Box::new(Rta::default())),
    ];
    for constrained in [false, true] {
        let ns: Vec<usize> = std::env::var("GEDF_BENCH_N")
            .ok()
            .map_or(vec![160, 640], |v| {
                v.split(',').map(|x| x.parse().unwrap()).collect()
            });
        let fracs: Vec<f64> = std::env::var("GEDF_BENCH_U")
            .ok()
            .map_or(vec![0.3, 0.5, 0.7, 0.9], |v| {
                v.split(',').map(|x| x.parse().unwrap()).collect()
            });
        let only = std::env::var("GEDF_BENCH_TEST").ok();
        for &n in &ns {
            for &frac in &fracs {
                let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
                let sets: Vec<_> = (0..30)
                    .map(|_| sys(&gen(&mut rng, n, 16.0 * frac, constrained), 16))
                    .collect();
                let mut line = format!("c={constrained} n={n} U={:.1}:", 16.0 * frac);
                for (name, t) in &tests {
                    if only.as_deref().is_some_and(|o| o != *name) {
                        continue;
                    }
                    let mut times = Vec::new();
                    let mut ok = 0;
                    for s in &sets {
                        let start = Instant::now();
                        let v = analyze(t.as_ref(), s);
                        times.push(start.elapsed().as_secs_f64() * 1e6);
                        ok += usize::from(v.status == Status::Schedulable);
                    }
                    times.sort_by(f64::total_cmp);
                    line += &format!(" {name} {:.0}µs ({ok}/30)", times[times.len() / 2]);
                }
                println!("{line}");
            }
        }
    }
}
