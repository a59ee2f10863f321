//! `schedlab_trace::stats` on simulated traces: the job records rebuilt from the events
//! (counters by `schedlab_trace::counts`), accounted with the simulator's metric code, equal
//! the simulator's own metrics (per task and in total) for
//! every global and partitioned policy, periodic and sporadic arrivals, and with overloads
//! (unfinished jobs at the horizon).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use schedlab_model::{Duration, Task, TaskSet};
use schedlab_policy::Placement;
use schedlab_sim::{run, Arrivals, SimConfig};
use schedlab_trace::stats::analyze;

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

fn tasks(scale: u64) -> TaskSet {
    let t = |c: u64, p: u64| Task::implicit(Duration::from_ns(c * scale * 1000), ms(p)).unwrap();
    TaskSet::new(vec![
        t(3_000, 10),
        t(4_000, 20),
        t(7_500, 25),
        t(6_000, 30),
        t(6_000, 15),
    ])
    .unwrap()
}

#[test]
fn simulated_traces_give_the_simulators_metrics() {
    // scale 1: U = 1.4 on 2 CPUs; scale 2: U = 2.8 (overload: misses, unfinished jobs).
    for scale in [1, 2] {
        let ts = tasks(scale);
        for policy in ["gedf", "gfp", "gfifo", "gnpedf", "edzl", "pedf"] {
            for arrivals in [Arrivals::Periodic, Arrivals::parse("sporadic:3ms").unwrap()] {
                let mut c = SimConfig::new(2, ms(400));
                c.record_trace = true;
                c.arrivals = arrivals;
                c.seed = 5;
                let placement = (policy == "pedf").then(|| Placement::new(vec![0, 1, 0, 1, 1], 1));
                let (r, meta) = run(&ts, policy, &[0, 1, 2, 3, 4], placement, &c).unwrap();
                let s = analyze(&meta, &r.trace).unwrap();
                let what = format!("{policy}, scale {scale}, {:?}", c.arrivals);
                assert_eq!(s.horizon, r.horizon, "{what}");
                assert_eq!(s.per_task, r.per_task, "{what}");
                assert_eq!(s.totals, r.totals, "{what}");
                for (a, b) in s.jobs.iter().zip(&r.jobs) {
                    assert_eq!(
                        (a.task, a.seq, a.release, a.deadline, a.start, a.completion),
                        (b.task, b.seq, b.release, b.deadline, b.start, b.completion),
                        "{what}"
                    );
                }
                assert_eq!(s.jobs.len(), r.jobs.len(), "{what}");
            }
        }
    }
}

/// Ten tasks with periods of 1–3 ms, U ≈ 1.7.
fn dense() -> TaskSet {
    let us = |x: u64| Duration::from_ns(x * 1000);
    let t = |c: u64, p: u64| Task::implicit(us(c), us(p)).unwrap();
    TaskSet::new(vec![
        t(150, 1_000),
        t(200, 1_200),
        t(300, 1_500),
        t(250, 1_700),
        t(400, 2_000),
        t(300, 2_200),
        t(350, 2_500),
        t(300, 2_700),
        t(400, 2_900),
        t(250, 3_000),
    ])
    .unwrap()
}

/// With overheads a dispatch can be cut short before its job executes (the job is taken off
/// during its dispatch delay): the trace then shows no `switch-in`, and the simulator must not
/// count a context switch, a migration or a CPU for it either. Every counter of every job
/// equals `schedlab_trace::counts` on the trace, for each architecture of the example
/// overhead file, both statistics, global and partitioned policies, and an overload.
#[test]
fn counters_equal_the_trace_counts_with_overheads() {
    use schedlab_model::overheads::{OverheadFile, Stat};
    use schedlab_sim::Overheads;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/overheads/illustrative.toml"
    );
    let file = OverheadFile::parse_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut cancelled_somewhere = false;
    // Scales 1 and 2 as above; scale 0: ten tasks with 1–3 ms periods (U ≈ 1.7), where
    // dispatch delays and interrupts are a large part of a job and dispatches get cut short.
    for scale in [0, 1, 2] {
        let ts = if scale == 0 { dense() } else { tasks(scale) };
        for arch in ["global-lock", "message-passing"] {
            for stat in [Stat::Avg, Stat::Max] {
                for policy in ["gedf", "gfp", "pedf"] {
                    let mut c = SimConfig::new(2, ms(400));
                    c.record_trace = true;
                    c.overheads = Some(
                        Overheads::from_file(&file, "illustrative.toml", Some(arch), stat, 5, 2)
                            .unwrap(),
                    );
                    let n = ts.len() as u32;
                    let placement = (policy == "pedf")
                        .then(|| Placement::new((0..n).map(|i| i % 2).collect(), 1));
                    let order: Vec<u32> = (0..n).collect();
                    let (r, meta) = run(&ts, policy, &order, placement, &c).unwrap();
                    let what = format!("{policy}, {arch}, {stat:?}, scale {scale}");
                    let counted = schedlab_trace::counts::job_counts(&r.trace);
                    for j in &r.jobs {
                        let t = counted.get(&(j.task, j.seq)).cloned().unwrap_or_default();
                        assert_eq!(
                            (j.preemptions, j.migrations, &j.cpus_used),
                            (t.preemptions, t.migrations, &t.cpus),
                            "{what}, job {}/{}",
                            j.task,
                            j.seq
                        );
                    }
                    let switch_ins = schedlab_trace::counts::context_switches(&r.trace);
                    assert_eq!(r.totals.context_switches, switch_ins, "{what}");
                    let s = analyze(&meta, &r.trace).unwrap();
                    assert_eq!(s.totals, r.totals, "{what}");
                    let links = r
                        .trace
                        .iter()
                        .filter(|e| e.kind == schedlab_trace::Kind::Link)
                        .count();
                    cancelled_somewhere |= links as u64 > switch_ins;
                }
            }
        }
    }
    // The case this test exists for did occur.
    assert!(
        cancelled_somewhere,
        "no dispatch was cut short: the test checks nothing new"
    );
}
