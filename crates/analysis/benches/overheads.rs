//! Criterion benches of overhead accounting: charging a whole set (`overheads::accounting::
//! charge`) at n ∈ {20, 80, 320} for the preemption-centric and message-passing rules, on
//! periods log-uniform in [10 ms, 1000 ms] (whole ns, so the release utilization `Σ Δrel/T`
//! has as many distinct denominators as tasks), a batch of 20 sets per configuration (the
//! reported time is per batch: divide by 20 for per-set). Results: docs/benchmarks.md.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schedlab_analysis::overheads::accounting::{charge, Overheads, Rule, TaskIn};
use std::time::Duration;

fn set(n: usize, seed: u64) -> Vec<TaskIn> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let t = (1e7 * 100f64.powf(rng.random::<f64>())) as u64;
            let u: f64 = rng.random_range(0.0001..0.002);
            TaskIn {
                c: ((t as f64) * u).max(1.0) as u64,
                t,
                d: t,
                wss: Some(rng.random_range(0..(1u64 << 20))),
            }
        })
        .collect()
}

fn oh() -> Overheads {
    Overheads {
        release_latency: 5_000,
        release: 1_234,
        schedule: 8_765,
        context_switch: 3_210,
        ipi: 2_000,
        tick: 4_321,
        tick_period: 4_000_000,
        request: 1_500,
        dsp: 2_500,
        ..Overheads::default()
    }
}

fn bench(c: &mut Criterion) {
    let cpmd = |w: u64| 100 + w / 1000;
    let mut group = c.benchmark_group("overheads/charge");
    group.sample_size(20);
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(2));
    for n in [20usize, 80, 320] {
        let sets: Vec<Vec<TaskIn>> = (0..20).map(|k| set(n, k)).collect();
        let rules = [
            (
                "global-lock",
                Rule::PreemptionCentric {
                    dedicated_irq: false,
                    partition: false,
                    cpus: 16,
                },
            ),
            ("message-passing", Rule::MessagePassing),
        ];
        for (name, rule) in rules {
            // Every set is charged in full (no early task-infeasible exit).
            assert!(sets
                .iter()
                .all(|s| charge(s, &oh(), rule, Some(&cpmd), 1000).unwrap().status() == "ok"));
            group.bench_with_input(BenchmarkId::new(name, n), &sets, |b, sets| {
                b.iter(|| {
                    sets.iter()
                        .map(|s| charge(s, &oh(), rule, Some(&cpmd), 1000).unwrap())
                        .filter(|c| c.status() == "ok")
                        .count()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
