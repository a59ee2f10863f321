//! The two example task sets of [ChronOS §6.4–6.5], Tables 6.1 and 6.2, on m = 4, with the
//! schedules derived by hand (synchronous periodic release, ties by task index).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_analysis::{analyze, registry, Params, Priorities, Status, System};

fn system(tasks: &[(u64, u64, u64)]) -> System {
    let params = tasks
        .iter()
        .map(|&(c, d, t)| Params::new(c, d, t))
        .collect();
    System::from_params(params, 4, Priorities::Dm).unwrap()
}

fn verdict(name: &str, sys: &System) -> schedlab_analysis::Verdict {
    analyze(registry::by_name(name).unwrap().as_ref(), sys)
}

/// Table 6.1 (Dhall effect): four tasks (10, 100, 100) and one (92, 101, 101).
///
/// G-EDF and G-FP (DM) both run tasks 1–4 on the four cores in [0, 10) (deadline 100 < 101),
/// so task 5 starts at 10 and completes at 102 > 101: a miss, with tardiness 1. G-FIFO and
/// G-NP-EDF produce the same schedule. Partitioned, task 5 alone on a CPU (u = 92/101) and
/// tasks 1–4 on another (U = 0.4) meet every deadline; task 5's response time is 92.
#[test]
fn table_6_1_dhall_effect() {
    let sys = system(&[
        (10, 100, 100),
        (10, 100, 100),
        (10, 100, 100),
        (10, 100, 100),
        (92, 101, 101),
    ]);
    for test in registry::all_for(4) {
        let info = test.info();
        let v = analyze(test.as_ref(), &sys);
        let hard_global = matches!(info.family, "global-edf" | "global-fp" | "global-np-edf")
            && info.kind != schedlab_analysis::Kind::Soft;
        if hard_global {
            assert!(!v.is_schedulable(), "{} accepts the Dhall set", info.name);
        }
        if let Some(bounds) = &v.tardiness_bounds {
            // Observed tardiness of task 5 is 1 under G-EDF, G-FIFO and G-NP-EDF.
            assert!(
                bounds[4].as_ns() >= 1,
                "{}: tardiness bound {:?} below 1",
                info.name,
                bounds
            );
        }
    }
    for name in [
        "pedf-ffd", "pedf-bfd", "pedf-wfd", "pfp-ffd", "pfp-wfd", "cedf-k2",
    ] {
        let v = verdict(name, &sys);
        assert!(v.is_schedulable(), "{name}");
        let partition = v.partition.unwrap();
        let home = partition.iter().find(|cpu| cpu.contains(&4)).unwrap();
        if name.starts_with('p') {
            assert_eq!(home, &vec![4], "{name}: task 5 must be alone");
        }
    }
    let fp = verdict("pfp-ffd", &sys);
    assert_eq!(fp.response_time_bounds.unwrap()[4].as_ns(), 92);
    for name in [
        "gedf-soft",
        "gedf-soft-closed",
        "gnpedf-soft",
        "gnpedf-soft-closed",
        "gfifo-soft",
    ] {
        assert_eq!(
            verdict(name, &sys).status,
            Status::Schedulable,
            "{name}: U ≤ m bounds tardiness"
        );
    }
}

/// Table 6.2: four tasks (51, 100, 100) and task 5 = (C 100, D 10000, T 1000).
///
/// Under G-EDF, tasks 1–4 run in [0, 51); task 5 runs in [51, 100), is preempted by the second
/// jobs of tasks 1–4 (deadline 200), resumes in [151, 200), is preempted again, and completes
/// at 253 — preempted twice, as ChronOS says, but finishing at 253, not at 202 as its text
/// states (trust the schedule). Every deadline is met. A test that handles arbitrary deadlines
/// may therefore accept it (`gedf-bak`, `gfp-bak` do); constrained-deadline tests must say
/// not-applicable. Under P-FP with task 5 sharing a CPU with one (51, 100) task the same
/// interleaving gives response time 253.
#[test]
fn table_6_2_non_preemptive_blocking() {
    let sys = system(&[
        (51, 100, 100),
        (51, 100, 100),
        (51, 100, 100),
        (51, 100, 100),
        (100, 10000, 1000),
    ]);
    for name in [
        "gedf-gfb",
        "gedf-bcl",
        "gedf-bcl-iter",
        "gedf-rta",
        "gedf-bar",
        "gedf-ffdbf",
        "gfp-rta",
        "gfp-rta-lc",
    ] {
        let v = verdict(name, &sys);
        assert_eq!(v.status, Status::NotApplicable, "{name}");
        assert!(
            v.reason.unwrap().contains("task 4"),
            "{name}: the reason names the task"
        );
    }
    assert!(verdict("gedf", &sys).is_schedulable());
    let fp = verdict("pfp-ffd", &sys);
    assert!(fp.is_schedulable());
    assert_eq!(fp.response_time_bounds.unwrap()[4].as_ns(), 253);
}
