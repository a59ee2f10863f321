//! The scaling model's speed (docs/benchmarks.md, "Scaling model"): one `scale` run per
//! architecture on n = 10·m tasks (U = 0.6·m, periods 10–100 ms), 1 s simulated. The
//! speed target (m = 256, n = 2,560, 10 s in under a minute) is measured with the CLI.

#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use schedlab_model::{Duration, Task, TaskSet};
use schedlab_policy::Placement;
use schedlab_sim::scale::{scale, ScaleArch, ScaleConfig};

/// n tasks, utilisation 0.06 each, periods spread over 10–100 ms (deterministic).
fn tasks(n: u64) -> TaskSet {
    let set: Vec<Task> = (0..n)
        .filter_map(|i| {
            let period = 10_000_000 + (i * 7_919_000) % 90_000_000;
            Task::implicit(
                Duration::from_ns(period * 6 / 100),
                Duration::from_ns(period),
            )
            .ok()
        })
        .collect();
    TaskSet::new(set).unwrap_or_else(|e| panic!("{e}"))
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale");
    g.sample_size(10);
    for m in [16u32, 64] {
        let set = tasks(u64::from(m) * 10);
        let ranks: Vec<u32> = (0..set.len() as u32).collect();
        for arch in ScaleArch::ALL {
            let cfg = ScaleConfig::new(arch, m, Duration::from_ns(1_000_000_000));
            let jm = arch.job_cpus(m);
            let placement = (arch == ScaleArch::Partitioned)
                .then(|| Placement::new((0..set.len() as u32).map(|i| i % jm).collect(), 1));
            g.bench_function(format!("{}/m{m}/n{}", arch.key(), set.len()), |b| {
                b.iter(|| scale(&set, &ranks, placement.clone(), &cfg))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
