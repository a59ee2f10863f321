//! Criterion benches of every G-EDF test and the `gedf` battery on the benchmark workload
//! (`schedlab_gen::workload::analysis_benchmark`): n ∈ {50, 160, 640}, m ∈ {16, 64}, a batch
//! of 50 sets per configuration (the reported time is per batch: divide by 50 for per-set).
//! Scenario and results: docs/benchmarks.md.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use schedlab_analysis::{analyze, registry, Priorities, System};
use schedlab_gen::workload::analysis_benchmark;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    for m in [16u32, 64] {
        for n in [50usize, 160, 640] {
            let systems: Vec<System> = (0..50)
                .map(|k| {
                    let set = analysis_benchmark(m, n, 1, k).unwrap();
                    System::new(&set, m, Priorities::Dm).unwrap()
                })
                .collect();
            let mut group = c.benchmark_group(format!("gedf/m{m}"));
            group.sample_size(10);
            group.warm_up_time(Duration::from_millis(300));
            group.measurement_time(Duration::from_secs(2));
            let battery = schedlab_analysis::gedf::battery();
            let names = battery
                .members
                .iter()
                .map(|t| t.name())
                .chain([battery.info.name.clone()]);
            for name in names {
                let test = registry::by_name(&name).unwrap();
                group.bench_with_input(BenchmarkId::new(&name, n), &systems, |b, systems| {
                    b.iter(|| {
                        systems
                            .iter()
                            .filter(|s| analyze(test.as_ref(), s).is_schedulable())
                            .count()
                    })
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
