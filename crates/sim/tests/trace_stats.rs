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
                let placement = (policy == "pedf").then(|| Placement {
                    domain_of_task: vec![0, 1, 0, 1, 1],
                    domain_size: 1,
                });
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
