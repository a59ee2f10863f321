//! Criterion benches of `hcbs-gfp` (one evaluation: admission, every group's Eq. 14, nesting)
//! and of `design reservations` (a binary search per group), on m = 4 CPUs with `g` top-level
//! groups of 8 tasks each, every group on all CPUs with `P` = 5 ms and `Q` = P/(g+1), task
//! utilizations uniform in [0.01, 0.05] and implicit deadlines with periods uniform in
//! [10, 100] ms (whole ms): n = 8g tasks. Results: docs/benchmarks.md.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use schedlab_analysis::hcbs::design::design_reservations;
use schedlab_analysis::hcbs::HcbsGfp;
use schedlab_analysis::reservations::Reservations;
use schedlab_analysis::{analyze, Priorities, System};
use schedlab_model::{Duration, ReservationGroup, Task, TaskSet};

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
}

const CPUS: u32 = 4;

fn set(groups: u64, seed: u64) -> TaskSet {
    let mut rng = Mix(seed);
    let period = 5_000_000;
    let defs: Vec<ReservationGroup> = (0..groups)
        .map(|g| {
            ReservationGroup::new(
                format!("g{g}"),
                Duration::from_ns(period / (groups + 1)),
                Duration::from_ns(period),
            )
        })
        .collect();
    let mut tasks = Vec::new();
    for g in 0..groups {
        for _ in 0..8 {
            let t = (10 + rng.next() % 91) * 1_000_000;
            let c = t / 100 * (1 + rng.next() % 5);
            let mut task = Task::implicit(Duration::from_ns(c), Duration::from_ns(t)).unwrap();
            task.group = Some(format!("g{g}"));
            tasks.push(task);
        }
    }
    TaskSet::with_groups(tasks, Vec::new(), defs).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("hcbs-gfp");
    for groups in [2u64, 8, 32] {
        let ts = set(groups, groups);
        let sys = System::new(ts.tasks(), CPUS, Priorities::Dm)
            .unwrap()
            .with_reservations(Reservations::of(&ts, CPUS).unwrap());
        let n = ts.tasks().len();
        group.bench_with_input(BenchmarkId::new("analyze", n), &sys, |b, sys| {
            b.iter(|| analyze(&HcbsGfp, sys))
        });
        group.bench_with_input(BenchmarkId::new("system+analyze", n), &ts, |b, ts| {
            b.iter(|| {
                let sys = System::new(ts.tasks(), CPUS, Priorities::Dm)
                    .unwrap()
                    .with_reservations(Reservations::of(ts, CPUS).unwrap());
                analyze(&HcbsGfp, &sys)
            })
        });
        group.bench_with_input(BenchmarkId::new("design", n), &ts, |b, ts| {
            b.iter(|| design_reservations(ts, CPUS, Priorities::Dm).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
