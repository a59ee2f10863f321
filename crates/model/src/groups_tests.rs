//! Validation of reservation groups: each rule has a case that breaks it and the message
//! names the group.

use super::*;
use crate::TaskSet;

fn ms(x: u64) -> Duration {
    Duration::from_ms(x).unwrap()
}

fn g(name: &str, q: u64, p: u64) -> ReservationGroup {
    ReservationGroup::new(name, ms(q), ms(p))
}

fn child(name: &str, q: u64, p: u64, parent: &str) -> ReservationGroup {
    ReservationGroup {
        parent: Some(parent.into()),
        ..g(name, q, p)
    }
}

fn task(group: Option<&str>) -> Task {
    let mut t = Task::implicit(ms(1), ms(10)).unwrap();
    t.name = Some("t".into());
    t.group = group.map(String::from);
    t
}

/// The error message of validating `groups` with one task in `group`.
fn error(groups: Vec<ReservationGroup>, group: Option<&str>) -> String {
    TaskSet::with_groups(vec![task(group)], Vec::new(), groups)
        .unwrap_err()
        .to_string()
}

#[test]
fn a_valid_hierarchy_is_accepted() {
    let groups = vec![
        g("video", 4, 10),
        child("decoder", 2, 5, "video"),
        child("filter", 1, 10, "decoder"),
        g("audio", 10, 10),
    ];
    let set = TaskSet::with_groups(vec![task(Some("filter"))], Vec::new(), groups).unwrap();
    assert_eq!(set.groups().len(), 4);
    assert_eq!(
        set.group("decoder").unwrap().parent.as_deref(),
        Some("video")
    );
    assert!(set.group("nope").is_none());
}

#[test]
fn budget_and_period_rules_name_the_group() {
    let e = error(vec![g("a", 0, 10)], None);
    assert!(e.contains("group `a`") && e.contains("budget"), "{e}");
    let e = error(vec![g("big", 11, 10)], None);
    assert!(
        e.contains("group `big`") && e.contains("exceeds `period`"),
        "{e}"
    );
    let e = error(vec![g("z", 0, 0)], None);
    assert!(e.contains("group `z`") && e.contains("period"), "{e}");
    let e = error(vec![g("", 1, 10)], None);
    assert!(e.contains("non-empty"), "{e}");
}

#[test]
fn parents_must_exist_and_not_cycle() {
    let e = error(vec![child("a", 1, 10, "ghost")], None);
    assert!(
        e.contains("group `a`") && e.contains("unknown group `ghost`"),
        "{e}"
    );
    let e = error(vec![child("self", 1, 10, "self")], None);
    assert!(e.contains("group `self`") && e.contains("cycle"), "{e}");
    let e = error(
        vec![
            child("a", 1, 10, "b"),
            child("b", 1, 10, "c"),
            child("c", 1, 10, "a"),
        ],
        None,
    );
    assert!(e.contains("group `a`") && e.contains("cycle"), "{e}");
}

#[test]
fn nesting_depth_is_bounded() {
    let chain = |len: usize| -> Vec<ReservationGroup> {
        (0..len)
            .map(|i| match i {
                0 => g("g0", 5, 10),
                _ => child(&format!("g{i}"), 5, 10, &format!("g{}", i - 1)),
            })
            .collect()
    };
    let ok = TaskSet::with_groups(vec![task(None)], Vec::new(), chain(MAX_GROUP_DEPTH));
    assert!(ok.is_ok(), "{ok:?}");
    let e = error(chain(MAX_GROUP_DEPTH + 1), None);
    assert!(e.contains("group `g16`") && e.contains("deep"), "{e}");
}

#[test]
fn a_child_fits_in_its_parent() {
    // 3/10 > 1/4 exactly (12 > 10 cross-multiplied); 5/20 = 1/4 is fine.
    let e = error(vec![g("p", 1, 4), child("c", 3, 10, "p")], None);
    assert!(
        e.contains("group `c`") && e.contains("exceeds its parent `p`"),
        "{e}"
    );
    let equal = vec![g("p", 1, 4), child("c", 5, 20, "p")];
    assert!(TaskSet::with_groups(vec![task(None)], Vec::new(), equal).is_ok());
    // Bandwidths that differ in the last ns of huge periods are still told apart.
    let big = u64::MAX / 2;
    let parent = ReservationGroup::new("p", Duration::from_ns(big - 1), Duration::from_ns(big));
    let kid = ReservationGroup {
        parent: Some("p".into()),
        ..ReservationGroup::new("c", Duration::from_ns(big), Duration::from_ns(big + 1))
    };
    let e = error(vec![parent, kid], None);
    assert!(e.contains("group `c`"), "{e}");
    // A child's CPUs lie within its parent's.
    let p = ReservationGroup {
        cpus: Some(vec![0, 1]),
        ..g("p", 5, 10)
    };
    let c = ReservationGroup {
        cpus: Some(vec![1, 2]),
        ..child("c", 1, 10, "p")
    };
    let e = error(vec![p, c], None);
    assert!(e.contains("group `c`") && e.contains("CPU 2"), "{e}");
}

#[test]
fn cpus_lists_are_checked() {
    let with = |cpus: Vec<u32>| ReservationGroup {
        cpus: Some(cpus),
        ..g("a", 1, 10)
    };
    assert!(error(vec![with(vec![])], None).contains("empty"));
    assert!(error(vec![with(vec![0, 3, 0])], None).contains("CPU 0 twice"));
}

#[test]
fn names_are_unique_and_tasks_name_known_groups() {
    let e = error(vec![g("a", 1, 10), g("b", 1, 10), g("a", 2, 10)], None);
    assert!(
        e.contains("group `a`") && e.contains("groups 0 and 2"),
        "{e}"
    );
    let e = error(vec![g("a", 1, 10)], Some("b"));
    assert!(
        e.contains("`group`") && e.contains("unknown group `b`") && e.contains("groups: a"),
        "{e}"
    );
    let e = error(vec![], Some("b"));
    assert!(
        e.contains("unknown group `b`") && e.contains("no `groups`"),
        "{e}"
    );
}

#[test]
fn the_number_of_groups_is_bounded() {
    let many: Vec<ReservationGroup> = (0..=MAX_GROUPS)
        .map(|i| g(&format!("g{i}"), 1, 10))
        .collect();
    assert!(error(many, None).contains("at most 1024"));
}
