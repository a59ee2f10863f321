//! The placement of `federated`: hand-worked allocations, the same as the test's, and every
//! refusal by name.

use super::*;
use crate::parallel::federated::Federated;
use crate::test::analyze;
use schedlab_model::{Duration, ParallelStructure, Task, TaskSet};

fn ns(x: u64) -> Duration {
    Duration::from_ns(x)
}

/// A task of deadline `d` and period `t` with fork-join `regions` (its work, the sum, becomes
/// its WCET).
fn fj(name: &str, d: u64, t: u64, regions: &[&[u64]]) -> Task {
    let p = ParallelStructure::from_threads(
        regions
            .iter()
            .map(|r| r.iter().map(|&x| ns(x)).collect())
            .collect(),
    )
    .unwrap();
    Task::new(ns(1), ns(d), ns(t))
        .unwrap()
        .named(name)
        .with_parallel(p)
}

fn seq(name: &str, c: u64, t: u64) -> Task {
    Task::implicit(ns(c), ns(t)).unwrap().named(name)
}

fn place(tasks: Vec<Task>, m: u32) -> Result<FederatedPlacement, FederatedPlacementError> {
    federated_placement(&TaskSet::new(tasks).unwrap(), m, "ffd", Priorities::Dm)
}

/// The set of the simulator's hand-checked schedule (crates/sim/tests/federated.rs) on 3 CPUs:
/// τ0 = 1 | 2, 2, 2, 2, 2 | 1 with D = T = 8 (C = 12 > 8, L = 4: ⌈8/4⌉ = 2 CPUs, domain 0);
/// τ1 = 3/4 and τ2 = 1 | 1, 1 per 12 (light, 0.75 + 0.25 = 1 fits one CPU under EDF) share
/// CPU 2 (domain 1). The test's per-CPU lists say the same.
#[test]
fn hand_checked_set() {
    let tasks = vec![
        fj("heavy", 8, 8, &[&[1], &[2, 2, 2, 2, 2], &[1]]),
        seq("light", 3, 4),
        fj("lightfj", 12, 12, &[&[1], &[1, 1]]),
    ];
    let p = place(tasks.clone(), 3).unwrap();
    assert_eq!(
        p,
        FederatedPlacement {
            domain_of_task: vec![0, 1, 1],
            domain_sizes: vec![2, 1],
        }
    );
    let sys = System::new(&TaskSet::new(tasks).unwrap(), 3, Priorities::Dm).unwrap();
    let v = analyze(&Federated::default(), &sys);
    assert!(v.is_schedulable(), "{v:?}");
    assert_eq!(v.partition.unwrap(), vec![vec![0], vec![0], vec![1, 2]]);
}

/// Two heavy tasks (3 CPUs each, the analysis's hand-worked allocation) and a light 5/10: on 7
/// CPUs one light CPU; on 8 two, the light task on the first (first fit), the last CPU empty.
#[test]
fn heavy_domains_in_task_order_then_light_cpus() {
    let tasks = vec![
        fj("a", 50, 50, &[&[10], &[10; 9]]),
        fj("b", 30, 30, &[&[10], &[10; 4]]),
        seq("c", 5, 10),
    ];
    let seven = place(tasks.clone(), 7).unwrap();
    assert_eq!(seven.domain_of_task, vec![0, 1, 2]);
    assert_eq!(seven.domain_sizes, vec![3, 3, 1]);
    let eight = place(tasks, 8).unwrap();
    assert_eq!(eight.domain_of_task, vec![0, 1, 2]);
    assert_eq!(eight.domain_sizes, vec![3, 3, 1, 1]);
}

/// Every refusal names the task and what is wrong.
#[test]
fn refusals_name_the_task() {
    let heavy = |name: &str| fj(name, 8, 8, &[&[1], &[2, 2, 2, 2, 2], &[1]]);
    let e = |tasks: Vec<Task>, m: u32| place(tasks, m).unwrap_err().to_string();
    assert_eq!(
        e(vec![heavy("fj")], 1),
        "task 0 (`fj`) is heavy and needs 2 dedicated CPUs (⌈(C − L)/(D − L)⌉), but 1 of the 1 CPUs are left for it (the heavy tasks need 2 in all)"
    );
    assert_eq!(
        e(vec![seq("s", 1, 10), heavy("h1"), heavy("h2")], 3),
        "task 2 (`h2`) is heavy and needs 2 dedicated CPUs (⌈(C − L)/(D − L)⌉), but 1 of the 3 CPUs are left for it (the heavy tasks need 4 in all)"
    );
    assert_eq!(
        e(vec![heavy("fj"), seq("s", 1, 10)], 2),
        "the heavy tasks take all 2 CPUs: none is left for the 1 light tasks (task 1 (`s`) first)"
    );
    // C = 1 + 4·5 + 4 = 25 > D = 10, L = 1 + 5 + 4 = 10 = D.
    assert_eq!(
        e(vec![fj("long", 10, 10, &[&[1], &[5, 5, 5, 5], &[4]])], 8),
        "task 0 (`long`) is heavy (work 25ns > deadline 10ns) and its critical path 10ns is not below its deadline: no number of dedicated CPUs meets it"
    );
    let mut pinned = seq("p", 1, 10);
    pinned.cpu = Some(0);
    assert_eq!(
        e(vec![seq("s", 1, 10), pinned], 2),
        "task 1 (`p`) has a `cpu` field: `federated` places every task itself (heavy tasks on CPUs of their own, light ones by partitioned EDF); remove the `cpu` fields"
    );
    let late = Task::new(ns(1), ns(20), ns(10)).unwrap().named("late");
    assert_eq!(
        e(vec![late], 2),
        "task 0 (`late`) has deadline 20ns > period 10ns: federated scheduling assumes constrained deadlines (D ≤ T)"
    );
    let over = e(vec![heavy("fj"), seq("a", 3, 4), seq("b", 3, 4)], 3);
    assert!(
        over == "`pedf-ffd` does not place the light tasks (task 1 (`a`), task 2 (`b`)) on the 1 CPUs the heavy tasks leave: task 0 on 2 CPUs; 2 light tasks on 1 CPUs under pedf-ffd: not-shown (task 1 fitted on no CPU) (the light test numbers the light tasks among themselves)",
        "{over}"
    );
    let chronos = federated_placement(
        &TaskSet::new(vec![seq("s", 1, 10)]).unwrap(),
        1,
        "chronos",
        Priorities::Dm,
    )
    .unwrap_err();
    assert_eq!(
        chronos.to_string(),
        "`federated` packs its light tasks with exact EDF admission: the heuristic must be one of ff, ffd, bf, bfd, wf, wfd, nf, nfd, not `chronos`"
    );
}

/// `policy_inputs` hands the placement over as (domain of each task, 0) with the sizes apart;
/// `for_policy` points there; no overhead-aware placement.
#[test]
fn policy_inputs_of_federated() {
    let tasks = TaskSet::new(vec![
        fj("heavy", 8, 8, &[&[1], &[2, 2, 2, 2, 2], &[1]]),
        seq("light", 3, 4),
    ])
    .unwrap();
    let i = policy_inputs("federated", &tasks, 3, "ffd", None, Priorities::Dm, None).unwrap();
    assert_eq!(i.placement, Some((vec![0, 1], 0)));
    assert_eq!(i.domain_sizes, vec![2, 1]);
    assert!(i.split.is_empty());
    let e = for_policy("federated", &tasks, 3, "ffd", None, Priorities::Dm, None).unwrap_err();
    assert!(e.contains("federated_placement"), "{e}");
    let g = policy_inputs("gedf", &tasks, 3, "ffd", None, Priorities::Dm, None).unwrap();
    assert!(g.domain_sizes.is_empty());
}
