//! Analysis vs simulation for reservations (issue 15, "How it will be judged"): every set the
//! `hcbs-gfp` analysis accepts runs 2 s in the simulator under `hcbs` without a deadline miss.
//!
//! Until the `hcbs-gfp` analysis is in this workspace, the property runs against a small local
//! sufficient condition — every group has one task and one CPU, and the task's demand fits
//! the server's supply bound by its deadline, Z(D) ≥ C [HCBS Eq. 4] — and says so on stderr.
//! TODO(hcbs-gfp): make [`accepted`] ask the `hcbs-gfp` analysis (its registry entry, with the
//! set's groups) instead of [`local_sufficient`]; the generator already produces groups with
//! several tasks and CPUs, which the local condition rejects.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use proptest::prelude::*;
use schedlab_analysis::hcbs::supply::Server as Supply;
use schedlab_analysis::{Priorities, System};
use schedlab_model::{Duration, GroupTree, ReservationGroup, Task, TaskSet};
use schedlab_sim::{run, SimConfig};

const MS: u64 = 1_000_000;

/// Groups `(Q, P, cpus)` in ms with their tasks `(C, T)` in ms (implicit deadlines).
type Spec = Vec<((u64, u64, Vec<u32>), Vec<(u64, u64)>)>;

fn build(spec: &Spec) -> TaskSet {
    let mut tasks = Vec::new();
    let mut groups = Vec::new();
    for (i, ((q, p, cpus), members)) in spec.iter().enumerate() {
        let name = format!("g{i}");
        let mut g = ReservationGroup::new(
            name.clone(),
            Duration::from_ns(q * MS),
            Duration::from_ns(p * MS),
        );
        g.cpus = Some(cpus.clone());
        groups.push(g);
        for &(c, t) in members {
            let mut task =
                Task::implicit(Duration::from_ns(c * MS), Duration::from_ns(t * MS)).unwrap();
            task.group = Some(name.clone());
            tasks.push(task);
        }
    }
    TaskSet::with_groups(tasks, Vec::new(), groups).unwrap()
}

/// The local sufficient condition (module doc).
fn local_sufficient(spec: &Spec) -> bool {
    spec.iter().all(|((q, p, cpus), members)| {
        let z = Supply::new(q * MS, p * MS).unwrap();
        cpus.len() == 1
            && members.len() == 1
            && members.iter().all(|&(c, t)| z.supply(t * MS) >= c * MS)
    })
}

/// Whether the analysis accepts the set on `m` CPUs (module doc, TODO).
fn accepted(_set: &TaskSet, spec: &Spec, _m: u32) -> bool {
    eprintln!("note: checking the local sufficient condition, not `hcbs-gfp` (module doc, TODO)");
    local_sufficient(spec)
}

fn specs() -> impl Strategy<Value = (Spec, u32)> {
    (1u32..=2).prop_flat_map(|m| {
        let group = (
            1u64..=6,
            2u64..=12,
            prop::sample::subsequence((0..m).collect::<Vec<_>>(), 1..=m as usize),
        )
            .prop_map(|(q, p, cpus)| (q.min(p), p, cpus));
        let member = (1u64..=4, 5u64..=40);
        (
            prop::collection::vec((group, prop::collection::vec(member, 1..=2)), 1..=3),
            Just(m),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn accepted_sets_run_two_seconds_without_a_miss((spec, m) in specs()) {
        let set = build(&spec);
        let Ok(tree) = GroupTree::new(&set, m) else { return Ok(()) };
        prop_assume!(tree.check_admission().is_ok());
        prop_assume!(accepted(&set, &spec, m));
        let ranks = System::new(set.tasks(), m, Priorities::Dm).unwrap().priority_ranks().unwrap();
        let config = SimConfig::new(m, Duration::from_ns(2_000 * MS));
        let (r, _) = run(&set, "hcbs", &ranks, None, &config).unwrap();
        prop_assert_eq!(r.totals.deadline_misses, 0, "{:?}", spec);
    }
}
