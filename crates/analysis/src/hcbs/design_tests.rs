//! The smallest budget per group, by hand and against a linear scan.

use super::*;
use crate::hcbs::gfp::tests::{group, task};
use crate::Status;
use proptest::prelude::*;
use schedlab_model::Task;

fn set(tasks: Vec<Task>, groups: Vec<ReservationGroup>) -> TaskSet {
    TaskSet::with_groups(tasks, Vec::new(), groups).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn hand_checked_minimum() {
    // gfp_tests.rs: with P = 5 on 2 CPUs, Q = 2 passes exactly and Q = 1 fails.
    let s = set(
        vec![task(2, 10, 10, "a"), task(3, 20, 20, "a")],
        vec![group("a", 5, 5, None)],
    );
    let d = design_reservations(&s, 2, Priorities::Dm).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(d.groups[0].budget_ns, Some(2));
    assert!(d.admitted());
    assert_eq!(d.verdict.map(|v| v.status), Some(Status::Schedulable));
}

#[test]
fn no_budget_works_and_admission_is_reported() {
    // C = D on one CPU next to a higher-priority task: not even Q = P works.
    let s = set(
        vec![task(5, 10, 10, "a"), task(10, 10, 10, "a")],
        vec![group("a", 5, 5, None)],
    );
    let d = design_reservations(&s, 1, Priorities::Dm).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(d.groups[0].budget_ns, None);
    assert!(d.groups[0]
        .reason
        .as_deref()
        .is_some_and(|r| r.contains("Q = P")));
    assert!(!d.admitted() && d.proposed.is_none());
    // Two groups that each need 3/5 of every CPU: proposed, but Eq. 17 fails.
    let s = set(
        vec![task(6, 10, 10, "a"), task(6, 10, 10, "b")],
        vec![group("a", 5, 5, None), group("b", 5, 5, None)],
    );
    let d = design_reservations(&s, 1, Priorities::Dm).unwrap_or_else(|e| panic!("{e}"));
    assert!(d.groups.iter().all(|g| g.budget_ns.is_some()));
    assert!(!d.admitted());
    assert!(d.overloads[0].contains("Eq. 17"), "{}", d.overloads[0]);
}

#[test]
fn parents_are_designed_after_their_subgroups() {
    let s = set(
        vec![task(1, 40, 40, "x"), task(1, 40, 40, "y")],
        vec![
            group("p", 5, 5, None),
            group("x", 10, 10, Some("p")),
            group("y", 10, 10, Some("p")),
        ],
    );
    let d = design_reservations(&s, 1, Priorities::Dm).unwrap_or_else(|e| panic!("{e}"));
    let q: Vec<Option<u64>> = d.groups.iter().map(|g| g.budget_ns).collect();
    assert!(q.iter().all(Option::is_some), "{:?}", d.groups);
    assert_eq!(d.verdict.map(|v| v.status), Some(Status::Schedulable));
    let bare = TaskSet::new(vec![Task::implicit(
        Duration::from_ns(1),
        Duration::from_ns(5),
    )
    .unwrap_or_else(|e| panic!("{e}"))])
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        design_reservations(&bare, 1, Priorities::Dm).err(),
        Some(DesignError::NoGroups)
    );
}

proptest! {
    /// The binary search finds the same budget as a scan from Q = 1, and the result is the
    /// smallest accepted one.
    #[test]
    fn binary_search_equals_a_scan(
        raw in proptest::collection::vec((1u64..40, 1u64..10), 1..5), m in 1u32..3, p in 1u64..25,
    ) {
        let tasks: Vec<Task> = raw
            .iter()
            .map(|&(t, c)| task(c.min(t), t, t, "g"))
            .collect();
        let s = set(tasks.clone(), vec![group("g", p, p, None)]);
        let d = design_reservations(&s, m, Priorities::Dm).unwrap_or_else(|e| panic!("{e}"));
        let accepted = |q: u64| {
            let s = set(tasks.clone(), vec![group("g", q, p, None)]);
            let sys = System::new(s.tasks(), m, Priorities::Dm)
                .unwrap_or_else(|e| panic!("{e}"))
                .with_reservations(Reservations::of(&s, m).unwrap_or_else(|e| panic!("{e}")));
            crate::analyze(&super::super::HcbsGfp, &sys).status == Status::Schedulable
        };
        let scan = (1..=p).find(|&q| accepted(q));
        prop_assert_eq!(d.groups[0].budget_ns, scan);
    }
}
