//! Resolution and admission of reservation groups, checked by hand.

use super::*;
use crate::task::Task;

fn ms(x: u64) -> Duration {
    Duration::from_ms(x).unwrap()
}

fn g(name: &str, q: u64, p: u64) -> ReservationGroup {
    ReservationGroup::new(name, ms(q), ms(p))
}

fn on(mut group: ReservationGroup, cpus: &[u32]) -> ReservationGroup {
    group.cpus = Some(cpus.to_vec());
    group
}

fn under(mut group: ReservationGroup, parent: &str) -> ReservationGroup {
    group.parent = Some(parent.into());
    group
}

fn task(group: &str) -> Task {
    let mut t = Task::implicit(ms(1), ms(10)).unwrap();
    t.group = Some(group.into());
    t
}

fn tree(groups: Vec<ReservationGroup>, tasks: Vec<Task>, cpus: u32) -> GroupTree {
    let set = TaskSet::with_groups(tasks, Vec::new(), groups).unwrap();
    GroupTree::new(&set, cpus).unwrap()
}

#[test]
fn cpus_children_tasks_and_depths_are_resolved() {
    let t = tree(
        vec![
            under(g("leaf", 1, 10), "mid"),
            on(g("top", 5, 10), &[1, 0]),
            under(on(g("mid", 2, 10), &[1]), "top"),
            g("other", 1, 4),
        ],
        vec![task("leaf"), task("other"), task("leaf"), task("top")],
        3,
    );
    let gs = t.groups();
    assert_eq!(gs[1].cpus, vec![0, 1], "sorted");
    assert_eq!(gs[2].cpus, vec![1]);
    assert_eq!(gs[0].cpus, vec![1], "inherited from `mid`");
    assert_eq!(gs[3].cpus, vec![0, 1, 2], "all CPUs");
    assert_eq!(gs[1].children, vec![2]);
    assert_eq!(gs[2].children, vec![0]);
    assert_eq!((gs[1].depth, gs[2].depth, gs[0].depth), (1, 2, 3));
    assert_eq!(gs[0].tasks, vec![0, 2]);
    assert_eq!(gs[3].tasks, vec![1]);
    assert_eq!(gs[1].tasks, vec![3]);
    assert_eq!(t.group_of_task(1), Some(3));
    assert_eq!(t.top_down(), &[1, 3, 2, 0]);
    assert_eq!(t.roots().collect::<Vec<_>>(), vec![1, 3]);
}

#[test]
fn a_cpu_outside_the_platform_names_the_group() {
    let set =
        TaskSet::with_groups(vec![task("a")], Vec::new(), vec![on(g("a", 1, 2), &[2])]).unwrap();
    let e = GroupTree::new(&set, 2).unwrap_err().to_string();
    assert!(
        e.contains("group `a`") && e.contains("CPU 2 does not exist"),
        "{e}"
    );
}

#[test]
fn eq17_exactly_one_is_admitted_and_one_ns_more_is_not() {
    // 1/3 + 2/3 = 1 exactly: admitted (a float sum could land either side).
    let ok = tree(
        vec![g("a", 1, 3), g("b", 2, 3)],
        vec![task("a"), task("b")],
        2,
    );
    assert!(ok.overloads().is_empty());
    ok.check_admission().unwrap();
    let set = TaskSet::with_groups(
        vec![task("a"), task("b")],
        Vec::new(),
        vec![
            g("a", 1, 3),
            ReservationGroup::new("b", Duration::from_ns(2_000_001), ms(3)),
        ],
    )
    .unwrap();
    let over = GroupTree::new(&set, 2).unwrap();
    let o = over.overloads();
    assert_eq!(o.len(), 2, "both CPUs: {o:?}");
    assert_eq!(
        (o[0].cpu, o[0].parent, o[0].groups.clone()),
        (0, None, vec![0, 1])
    );
    let e = over.check_admission().unwrap_err().to_string();
    assert!(
        e.contains("CPU 0") && e.contains("Eq. 17") && e.contains("`b`"),
        "{e}"
    );
}

#[test]
fn admission_is_per_cpu() {
    // 0.6 + 0.6 on CPU 1 only; CPU 0 carries 0.6.
    let t = tree(
        vec![on(g("a", 6, 10), &[0, 1]), on(g("b", 6, 10), &[1])],
        vec![task("a"), task("b")],
        2,
    );
    let o = t.overloads();
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].cpu, 1);
}

#[test]
fn subgroups_must_fit_their_parents_server() {
    // Each child is within its parent (validated), but together they need 0.6 > 0.5.
    let t = tree(
        vec![
            g("p", 5, 10),
            under(g("x", 3, 10), "p"),
            under(g("y", 3, 10), "p"),
        ],
        vec![task("x"), task("y")],
        1,
    );
    let o = t.overloads();
    assert_eq!(o.len(), 1);
    assert_eq!((o[0].parent, o[0].groups.clone()), (Some(0), vec![1, 2]));
    let e = t.check_admission().unwrap_err().to_string();
    assert!(e.contains("subgroups of `p`"), "{e}");
}
