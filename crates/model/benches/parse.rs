//! Criterion benches of reading a task-set file into a validated `TaskSet`
//! (`schedlab_model::file::parse_str`), on task sets shaped like the analysis benchmark workload
//! (periods uniform in [10, 1000] ns, implicit deadlines, names `t0`, `t1`, …), n ∈ {160, 640},
//! in the two shapes met in practice:
//!
//! - `pretty`: pretty-printed JSON with unit strings, byte for byte what `schedlab gen` writes
//!   (`"period": "393ns"`);
//! - `compact`: one line with integer nanoseconds (`{"tasks":[{"name":"t0","wcet":3,"period":17},…]}`);
//!
//! and, for reference, the same set as TOML. `parse_str` allocates every task afresh;
//! `reader-*` reads the same text through a `file::Reader` that is given back each set, as
//! `schedlab analyze` reads one file after another (the list of tasks and their names' buffers
//! are reused). Scenario and results: docs/benchmarks.md.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use schedlab_model::file::{parse_str, to_string, Format, Reader, TaskFile};
use schedlab_model::{Duration, Task, TaskSet};
use std::fmt::Write;

/// A deterministic workload-like set: `(wcet, period)` in ns, `1 ≤ wcet ≤ period`.
fn workload(n: usize) -> Vec<(u64, u64)> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15 ^ n as u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    (0..n)
        .map(|_| {
            let period = 10 + next() % 991;
            let wcet = 1 + next() % (period / 3).max(1);
            (wcet, period)
        })
        .collect()
}

fn pretty(set: &[(u64, u64)]) -> String {
    let tasks = set
        .iter()
        .enumerate()
        .map(|(i, &(c, t))| {
            Task::implicit(Duration::from_ns(c), Duration::from_ns(t))
                .unwrap()
                .named(format!("t{i}"))
        })
        .collect();
    let file = TaskFile {
        tasks: TaskSet::new(tasks).unwrap(),
        platform: None,
    };
    to_string(&file, Format::Json).unwrap()
}

fn toml(text: &str) -> String {
    to_string(&parse_str(text, Format::Json).unwrap(), Format::Toml).unwrap()
}

fn compact(set: &[(u64, u64)]) -> String {
    let mut out = String::from("{\"tasks\":[");
    for (i, &(c, t)) in set.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write!(out, "{{\"name\":\"t{i}\",\"wcet\":{c},\"period\":{t}}}").unwrap();
    }
    out.push_str("]}");
    out
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    for n in [160usize, 640] {
        let set = workload(n);
        let pretty_text = pretty(&set);
        let shapes = [
            ("json-pretty", Format::Json, pretty_text.clone()),
            ("json-compact", Format::Json, compact(&set)),
            ("toml", Format::Toml, toml(&pretty_text)),
        ];
        for (shape, format, text) in shapes {
            assert_eq!(parse_str(&text, format).unwrap().tasks.len(), n);
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new(shape, n), &text, |b, text| {
                b.iter(|| parse_str(text, format).unwrap())
            });
            let mut reader = Reader::default();
            group.bench_with_input(
                BenchmarkId::new(format!("reader-{shape}"), n),
                &text,
                |b, text| {
                    b.iter(|| {
                        let file = reader.parse(text, format).unwrap();
                        let n = file.tasks.len();
                        reader.recycle(file);
                        n
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
