//! [`for_policy`]/[`policy_inputs`] for the policies placed by [ChronOS §8.5] (the
//! best-effort UA policies, and `pedf`/`pfp`/`cedf` with `--partition chronos`).

#![allow(clippy::unwrap_used)]

use super::*;
use schedlab_model::{Duration, Task};

fn set(tasks: &[(u64, u64)]) -> TaskSet {
    TaskSet::new(
        tasks
            .iter()
            .map(|&(c, t)| Task::implicit(Duration::from_ns(c), Duration::from_ns(t)).unwrap())
            .collect(),
    )
    .unwrap()
}

/// [ChronOS §8.5] for the best-effort policies: overload never fails; `plbesa`/`pdasa`
/// pack first fit with the 0.95 cap, `phvdf` spreads by least utilization; the CLI's
/// default heuristic (`ffd`) means the thesis's rule for them; pins still win.
/// U = 0.3 × 4 on 2 CPUs: first fit → CPU 0 takes three (0.9), CPU 1 one; least
/// utilization → two each. U = 0.9 × 3 on 2 CPUs (overload): all placed.
#[test]
fn best_effort_policies_follow_chronos() {
    let light = set(&[(3, 10), (3, 10), (3, 10), (3, 10)]);
    let inputs = |policy: &str, s: &TaskSet, h: &str| {
        for_policy(policy, s, 2, h, None, Priorities::Dm, None)
            .unwrap()
            .unwrap()
    };
    for policy in ["plbesa", "pdasa"] {
        assert_eq!(inputs(policy, &light, "ffd"), (vec![0, 0, 0, 1], 1));
        assert_eq!(inputs(policy, &light, "chronos-lu"), (vec![0, 1, 0, 1], 1));
    }
    assert_eq!(inputs("phvdf", &light, "ffd"), (vec![0, 1, 0, 1], 1));
    assert_eq!(inputs("phvdf", &light, "chronos-ff"), (vec![0, 0, 0, 1], 1));
    let over = set(&[(9, 10), (9, 10), (9, 10)]);
    for policy in ["plbesa", "pdasa", "phvdf"] {
        assert_eq!(inputs(policy, &over, "ffd"), (vec![0, 1, 0], 1), "{policy}");
        let i = policy_inputs(policy, &over, 1, "ffd", None, Priorities::Given, None).unwrap();
        assert_eq!(i.placement, Some((vec![0, 0, 0], 1)), "{policy}");
    }
    // `pedf` keeps exact admission by default (and fails in overload) and offers the
    // thesis's rule by name; `pfp`'s is least utilization.
    assert!(for_policy("pedf", &over, 2, "ffd", None, Priorities::Dm, None).is_err());
    assert_eq!(inputs("pedf", &over, "chronos"), (vec![0, 1, 0], 1));
    assert_eq!(inputs("pedf", &light, "chronos"), (vec![0, 0, 0, 1], 1));
    assert_eq!(inputs("pfp", &light, "chronos"), (vec![0, 1, 0, 1], 1));
    assert_eq!(inputs("pedf", &light, "ffd"), (vec![0, 0, 0, 1], 1));
    // Clusters from the least-utilization partition (CPUs 0–1 → cluster 0, 2–3 → 1).
    let c = for_policy("cedf", &light, 4, "chronos", Some(2), Priorities::Dm, None).unwrap();
    assert_eq!(c, Some((vec![0, 0, 1, 1], 2)));
    // Pins win; global UA policies need no placement.
    let mut pinned = over.clone().into_tasks();
    for t in &mut pinned {
        t.cpu = Some(1);
    }
    let pinned = TaskSet::new(pinned).unwrap();
    assert_eq!(inputs("plbesa", &pinned, "ffd"), (vec![1, 1, 1], 1));
    for policy in ["ghvdf", "gnphvdf", "gmua", "nggua", "ggua"] {
        assert_eq!(placement_kind(policy), None);
        let i = policy_inputs(policy, &over, 2, "ffd", None, Priorities::Dm, None).unwrap();
        assert_eq!(i.placement, None);
    }
    let e = place(
        &light,
        2,
        1,
        LocalScheduler::Edf,
        "chronos-x",
        Priorities::Dm,
        None,
    )
    .unwrap_err();
    assert!(e.contains("chronos-lu"), "{e}");
    // An unknown name is an error for the best-effort policies too, not silently their rule.
    let e = for_policy("plbesa", &light, 2, "xyz", None, Priorities::Dm, None).unwrap_err();
    assert!(e.starts_with("unknown packing heuristic `xyz`"), "{e}");
}
