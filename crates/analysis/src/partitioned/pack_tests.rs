//! Tests of the partitioned bin-packing tests: hand-packed examples for each heuristic and a
//! property check that every returned partition is valid.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::registry;
use crate::system::{Params, Priorities};
use crate::test::analyze;
use crate::uni::{edf::EdfExact, rta::FpRta};
use crate::verdict::Status;
use proptest::prelude::*;

fn implicit(u_percent: &[u64], m: u32) -> System {
    System::from_params(
        u_percent
            .iter()
            .map(|&u| Params::new(u, 100, 100))
            .collect(),
        m,
        Priorities::Dm,
    )
    .unwrap()
}

fn run(name: &str, s: &System) -> Verdict {
    analyze(registry::by_name(name).unwrap().as_ref(), s)
}

#[test]
fn names_and_count() {
    let names: Vec<String> = super::super::tests().iter().map(|t| t.name()).collect();
    for n in [
        "pedf-ff",
        "pedf-ffd",
        "pedf-bf",
        "pedf-bfd",
        "pedf-wf",
        "pedf-wfd",
        "pedf-nf",
        "pedf-nfd",
        "pfp-ff",
        "pfp-ffd",
        "pfp-bf",
        "pfp-bfd",
        "pfp-wf",
        "pfp-wfd",
        "pfp-nf",
        "pfp-nfd",
        "pedf-lopez",
        "pfp-lopez",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} missing");
    }
    assert_eq!(names.len(), 18);
}

#[test]
fn ffd_succeeds_where_ff_fails() {
    // u = 0.4, 0.4, 0.6, 0.6 on two CPUs (U = 2 = m exactly).
    // FF: CPU0 ← 0.4, 0.4; 0.6 → CPU1; the last 0.6 fits nowhere (1.4, 1.2).
    // FFD: order 2, 3, 0, 1 (stable): CPU0 ← 0.6, CPU1 ← 0.6, CPU0 ← 0.4 (= 1), CPU1 ← 0.4.
    let s = implicit(&[40, 40, 60, 60], 2);
    let ff = run("pedf-ff", &s);
    assert_eq!(ff.status, Status::NotShown);
    assert_eq!(ff.partition, None);
    let ffd = run("pedf-ffd", &s);
    assert_eq!(ffd.status, Status::Schedulable);
    assert_eq!(ffd.partition, Some(vec![vec![0, 2], vec![1, 3]]));
    // Same with fixed priorities: two tasks of equal period with U = 1 pass RTA exactly.
    assert_eq!(run("pfp-ff", &s).status, Status::NotShown);
    let v = run("pfp-ffd", &s);
    assert_eq!(v.partition, Some(vec![vec![0, 2], vec![1, 3]]));
    // CPU0 holds tasks 0 (40) and 2 (60), same period/deadline: DM ties by index, so task 0
    // first: R0 = 40, R2 = 100; CPU1 likewise R1 = 40, R3 = 100.
    let r: Vec<u64> = v
        .response_time_bounds
        .unwrap()
        .iter()
        .map(|d| d.as_ns())
        .collect();
    assert_eq!(r, vec![40, 40, 100, 100]);
}

#[test]
fn best_fit_and_worst_fit_rank_by_load() {
    // u = 0.5, 0.3, 0.2 on two CPUs.
    // BF: 0.5 → CPU0 (tie → lowest index); 0.3 → most loaded CPU0 (0.8); 0.2 → CPU0 (1.0).
    // WF: 0.5 → CPU0; 0.3 → least loaded CPU1; 0.2 → CPU1 (0.3 < 0.5).
    let s = implicit(&[50, 30, 20], 2);
    assert_eq!(
        run("pedf-bf", &s).partition,
        Some(vec![vec![0, 1, 2], vec![]])
    );
    assert_eq!(
        run("pedf-wf", &s).partition,
        Some(vec![vec![0], vec![1, 2]])
    );
    assert_eq!(
        run("pfp-bf", &s).partition,
        Some(vec![vec![0, 1, 2], vec![]])
    );
    assert_eq!(run("pfp-wf", &s).partition, Some(vec![vec![0], vec![1, 2]]));
}

#[test]
fn next_fit_never_goes_back() {
    // u = 0.6, 0.6, 0.3, 0.4: NF puts 0 on CPU0, 1 on CPU1, 2 on CPU1 (0.9), and 3 fits
    // neither CPU1 (1.3) nor any later CPU, although CPU0 (1.0) would take it.
    // FF goes back: 0 → CPU0, 1 → CPU1, 2 → CPU0 (0.9), 3 → CPU1 (1.0).
    let s = implicit(&[60, 60, 30, 40], 2);
    assert_eq!(run("pedf-nf", &s).status, Status::NotShown);
    assert_eq!(
        run("pedf-ff", &s).partition,
        Some(vec![vec![0, 2], vec![1, 3]])
    );
    // NFD: order 0, 1, 3, 2 (0.6, 0.6, 0.4, 0.3): CPU0 {0}, CPU1 {1, 3} (1.0), then 0.3 fits
    // neither CPU1 nor a later CPU: not shown.
    assert_eq!(run("pedf-nfd", &s).status, Status::NotShown);
}

#[test]
fn constrained_deadlines_use_density_and_exact_admission() {
    // τ0 = (2, 2, 10) (density 1, utilization 0.2), τ1 = (1, 5, 5), τ2 = (3, 10, 10).
    // EDF on one CPU: h(2) = 2, h(5) = 3, h(10) = 2 + 2 + 3 = 7 — schedulable on one CPU
    // although the density sum is 1.5.
    let p = vec![
        Params::new(2, 2, 10),
        Params::new(1, 5, 5),
        Params::new(3, 10, 10),
    ];
    let s = System::from_params(p, 1, Priorities::Dm).unwrap();
    assert_eq!(run("pedf-ffd", &s).partition, Some(vec![vec![0, 1, 2]]));
    assert_eq!(run("pfp-ffd", &s).status, Status::Schedulable);
}

#[test]
fn empty_and_oversized() {
    let s = implicit(&[], 3);
    assert_eq!(
        run("pedf-wfd", &s).partition,
        Some(vec![vec![], vec![], vec![]])
    );
    // C > T with D > T: utilization above 1 never fits.
    let s = System::from_params(vec![Params::new(15, 20, 10)], 4, Priorities::Dm).unwrap();
    assert_eq!(run("pedf-ff", &s).status, Status::NotShown);
    assert_eq!(run("pfp-ff", &s).status, Status::NotShown);
    // `given` priorities without priorities: not applicable for pfp, fine for pedf.
    let s = System::from_params(vec![Params::new(1, 2, 2)], 2, Priorities::Given).unwrap();
    assert_eq!(run("pfp-ff", &s).status, Status::NotApplicable);
    assert_eq!(run("pedf-ff", &s).status, Status::Schedulable);
}

#[test]
fn admission_work_limit_becomes_gave_up() {
    let mut t = Partitioned::new(Local::Edf, Heuristic::FirstFit, false);
    t.limit = 1;
    let p = vec![
        Params::new(3, 4, 10),
        Params::new(3, 5, 10),
        Params::new(3, 6, 10),
    ];
    let s = System::from_params(p, 1, Priorities::Dm).unwrap();
    let v = analyze(&t, &s);
    assert_eq!(v.status, Status::GaveUp);
    assert!(v.reason.unwrap().contains("work limit"));
}

fn task() -> impl Strategy<Value = Params> {
    (1u64..=40, 10u64..=100, 0u64..=100)
        .prop_map(|(c, t, dd)| Params::new(c.min(t), (c.min(t) + dd).min(t + 20).max(c.min(t)), t))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn every_partition_is_valid(
        tasks in proptest::collection::vec(task(), 0..12), m in 1u32..5,
    ) {
        let s = System::from_params(tasks.clone(), m, Priorities::Dm).unwrap();
        for test in super::super::tests() {
            let v = analyze(test.as_ref(), &s);
            let Some(part) = v.partition.clone() else { continue };
            prop_assert!(v.is_schedulable());
            prop_assert_eq!(part.len(), m as usize);
            let mut seen: Vec<usize> = part.iter().flatten().copied().collect();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..tasks.len()).collect::<Vec<_>>());
            for cpu in &part {
                let sub = s.subset(cpu, 1).unwrap();
                let exact: &dyn SchedTest = if test.name().starts_with("pedf") {
                    &EdfExact::default()
                } else {
                    &FpRta::default()
                };
                prop_assert!(analyze(exact, &sub).is_schedulable(), "{} {:?}", test.name(), cpu);
            }
        }
    }
}
