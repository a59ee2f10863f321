//! Criterion benches of `pfp-ts` (FP-TS, with and without the RTPS overheads of
//! `examples/overheads/rtps-paper.toml`) next to `pfp-ffd` and `pfp-wfd`, on the [RTPS Fig. 3]
//! workload: m = 4, task utilizations uniform in [0.1, 0.3], periods uniform in [10, 100] ms
//! (whole ms), tasks added until U/M reaches 0.85 or 0.9 (where most sets need splits), a
//! batch of 100 sets per point (the reported time is per batch: divide by 100 for per-set).
//! Results: docs/benchmarks.md.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use schedlab_analysis::overheads::arch::ArchKind;
use schedlab_analysis::overheads::context::{ChargedAnalysis, OverheadSetup};
use schedlab_analysis::{registry, Priorities};
use schedlab_model::overheads::{OverheadFile, Stat};
use schedlab_model::{Duration, Task, TaskSet};
use std::sync::Arc;

/// A deterministic 64-bit generator (SplitMix64) so the bench needs no RNG dependency.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn set(seed: u64, target: f64) -> TaskSet {
    let mut rng = Mix(seed);
    let mut tasks = Vec::new();
    let mut u = 0.0;
    while u < target {
        let ui = 0.1 + 0.2 * rng.unit();
        let period_ms = 10 + rng.next() % 91;
        let t = period_ms * 1_000_000;
        let c = ((t as f64) * ui) as u64;
        tasks.push(Task::implicit(Duration::from_ns(c.max(1)), Duration::from_ns(t)).unwrap());
        u += c as f64 / t as f64;
    }
    TaskSet::new(tasks).unwrap()
}

fn bench(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/overheads/rtps-paper.toml"
    );
    let file = OverheadFile::parse_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
    let setup = OverheadSetup {
        file: Arc::new(file),
        arch: ArchKind::SemiPartitioned,
        stat: Stat::Max,
        granularity: 1,
        source: path.into(),
    };
    for load in [0.85, 0.9] {
        let sets: Vec<TaskSet> = (0..100).map(|k| set(k, 4.0 * load)).collect();
        let mut group = c.benchmark_group(format!("semi/m4/U{load}"));
        group.sample_size(10);
        group.measurement_time(std::time::Duration::from_secs(3));
        for name in ["pfp-ts", "pfp-ffd", "pfp-wfd"] {
            let test = registry::by_name(name).unwrap();
            group.bench_with_input(BenchmarkId::new(name, "ideal"), &sets, |b, sets| {
                b.iter(|| {
                    sets.iter()
                        .filter(|s| {
                            let sys = schedlab_analysis::System::new(s, 4, Priorities::Rm).unwrap();
                            schedlab_analysis::analyze(test.as_ref(), &sys).is_schedulable()
                        })
                        .count()
                })
            });
            group.bench_with_input(BenchmarkId::new(name, "rtps-paper"), &sets, |b, sets| {
                b.iter(|| {
                    sets.iter()
                        .filter(|s| {
                            let charged =
                                ChargedAnalysis::new(s, 4, Priorities::Rm, &setup).unwrap();
                            charged.verdict(test.as_ref()).is_schedulable()
                        })
                        .count()
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
