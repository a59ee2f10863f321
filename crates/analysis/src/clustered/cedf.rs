//! `cedf-k<k>`: clustered EDF — tasks are assigned to the `m/k` clusters of `k` CPUs by worst
//! fit decreasing on utilization, then each cluster is analysed with the global-EDF battery.
//!
//! Clustered scheduling: Calandrino, Anderson & Baumberger, "A Hybrid Real-Time Scheduling
//! Approach for Large-Scale Multicore Platforms", ECRTS 2007; Baker & Baruah, "Schedulability
//! Analysis of Multiprocessor Sporadic Task Systems", 2007 (C-EDF). Assignment as SchedCAT's
//! `worst_fit_decreasing` (`schedcat/mapping/binpack.py`) with capacity `k`: tasks by
//! decreasing utilization (stable: ties keep task-index order), each into the cluster with the
//! least total utilization (exact; ties → lowest cluster index) if that cluster's utilization
//! plus the task's stays `≤ k` (exact); otherwise the assignment fails ("not shown").
//! Each non-empty cluster is then checked by the `gedf` battery
//! ([`crate::gedf::battery`]) on `k` CPUs.
//!
//! Answer: sufficient. "schedulable" with the partition (task indices per cluster, ascending,
//! `m/k` lists) and, when every cluster's analysis yields them, response-time bounds; "not
//! shown" if the assignment fails or a cluster is not shown; "gave up" if a cluster gave up and
//! none was rejected; "not applicable" if `k ∤ m` or the battery does not apply to a cluster.
//! Complexity: `O(n log n + n·(m/k)·n)` for the assignment plus the battery per cluster.

use crate::system::{Params, System};
use crate::test::{analyze, Kind, SchedTest, TestInfo};
use crate::verdict::{Status, Verdict};
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// Clustered EDF with clusters of `k` CPUs.
#[derive(Clone, Copy, Debug)]
pub struct Cedf {
    k: u32,
}

impl Cedf {
    /// Clusters of `k ≥ 1` CPUs; `None` for `k = 0`.
    pub fn new(k: u32) -> Option<Cedf> {
        (k >= 1).then_some(Cedf { k })
    }
    /// The cluster size.
    pub fn k(&self) -> u32 {
        self.k
    }
}

fn util(p: &Params) -> Frac {
    Frac::ratio(p.c, p.t)
}

/// Compares the total utilizations of two clusters exactly.
fn cmp_clusters(params: &[Params], a: &[usize], b: &[usize]) -> Ordering {
    let terms = || {
        let pos = a.iter().filter_map(|&i| params.get(i)).map(util);
        let neg = b
            .iter()
            .filter_map(|&i| params.get(i))
            .map(|p| Frac::new(-i128::from(p.c), i128::from(p.t)));
        pos.chain(neg)
    };
    cmp_sum(terms, Frac::ZERO)
}

/// Worst-fit-decreasing assignment of `params` to `clusters` clusters of capacity `k`
/// (see the module doc); `None` if some task fits in no cluster. `clusters` is at most a
/// [`System`]'s CPU count, so at most [`MAX_CPUS`](schedlab_model::platform::MAX_CPUS): the
/// per-cluster lists are allocated up front.
pub fn assign(params: &[Params], clusters: usize, k: u32) -> Option<Vec<Vec<usize>>> {
    debug_assert!(clusters <= schedlab_model::platform::MAX_CPUS as usize);
    let mut order: Vec<usize> = (0..params.len()).collect();
    order.sort_by(|&a, &b| match (params.get(a), params.get(b)) {
        (Some(pa), Some(pb)) => util(pb).cmp_exact(util(pa)),
        _ => Ordering::Equal,
    });
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); clusters];
    let capacity = Frac::int(i128::from(k));
    for task in order {
        let p = params.get(task)?;
        // Least-loaded cluster, ties to the lowest index.
        let mut best = 0usize;
        for c in 1..out.len() {
            let (Some(cur), Some(cand)) = (out.get(best), out.get(c)) else {
                continue;
            };
            if cmp_clusters(params, cand, cur) == Ordering::Less {
                best = c;
            }
        }
        let members = out.get_mut(best)?;
        let load = || {
            members
                .iter()
                .filter_map(|&i| params.get(i))
                .map(util)
                .chain(std::iter::once(util(p)))
        };
        if cmp_sum(load, capacity) == Ordering::Greater {
            return None;
        }
        members.push(task);
    }
    for c in &mut out {
        c.sort_unstable();
    }
    Some(out)
}

impl SchedTest for Cedf {
    fn info(&self) -> TestInfo {
        TestInfo {
            name: format!("cedf-k{}", self.k),
            family: "clustered",
            kind: Kind::Sufficient,
            citation: "clustered EDF (Calandrino, Anderson & Baumberger, ECRTS 2007): worst-fit \
                       decreasing assignment to clusters (SchedCAT mapping/binpack.py), then the \
                       global-EDF battery `gedf` per cluster",
            assumptions: "independent sporadic tasks; m divisible by the cluster size k; the \
                          deadline model the `gedf` battery accepts",
            complexity: "O(n²·m/k) assignment plus the gedf battery per cluster",
        }
    }
    fn check(&self, sys: &System) -> Result<(), String> {
        let m = sys.cpus();
        if self.k == 0 || m % self.k != 0 {
            return Err(format!(
                "cluster size k = {} does not divide the number of CPUs m = {m}",
                self.k
            ));
        }
        Ok(())
    }
    fn charges_per_bin(&self) -> bool {
        true
    }
    fn run(&self, sys: &System) -> Verdict {
        if let Some(ctx) = sys.overheads() {
            return super::cedf_charged::run(self.k, sys, ctx);
        }
        let params = sys.params();
        let clusters = (sys.cpus() / self.k.max(1)) as usize;
        let Some(partition) = assign(params, clusters, self.k) else {
            return Verdict::not_shown()
                .because("worst-fit decreasing found no cluster with enough capacity");
        };
        check_clusters(sys, &partition, |_, members| {
            sys.subset(members, self.k).map_err(|e| e.to_string())
        })
    }
}

/// Runs the `gedf` battery on every non-empty cluster of `partition` (each built by
/// `cluster(index, members)`) and combines the answers (module documentation).
pub(crate) fn check_clusters(
    sys: &System,
    partition: &[Vec<usize>],
    cluster: impl Fn(usize, &[usize]) -> Result<System, String>,
) -> Verdict {
    let params = sys.params();
    let battery = crate::gedf::battery();
    let mut bounds = Some(vec![schedlab_model::Duration::ZERO; params.len()]);
    let mut gave_up: Option<String> = None;
    for (ci, members) in partition.iter().enumerate() {
        if members.is_empty() {
            continue;
        }
        let sub = match cluster(ci, members) {
            Ok(s) => s,
            Err(e) => return Verdict::not_applicable(format!("cluster {ci}: {e}")),
        };
        let v = analyze(&battery, &sub);
        match v.status {
            Status::Schedulable => match (&mut bounds, &v.response_time_bounds) {
                (Some(all), Some(rs)) => {
                    for (&i, &r) in members.iter().zip(rs) {
                        if let Some(b) = all.get_mut(i) {
                            *b = r;
                        }
                    }
                }
                _ => bounds = None,
            },
            Status::NotApplicable => {
                return Verdict::not_applicable(format!(
                    "cluster {ci}: {}",
                    v.reason.unwrap_or_default()
                ))
            }
            Status::GaveUp => {
                gave_up.get_or_insert(format!("cluster {ci}: {}", v.reason.unwrap_or_default()));
            }
            Status::NotShown | Status::Unschedulable => {
                return Verdict::not_shown()
                    .because(format!("the gedf battery did not accept cluster {ci}"))
            }
        }
    }
    if let Some(r) = gave_up {
        return Verdict::gave_up(r);
    }
    let v = Verdict::sufficient(true).with_partition(partition.to_vec());
    match bounds {
        Some(b) => v.with_response_times(b),
        None => v,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::system::Priorities;

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

    #[test]
    fn worst_fit_decreasing_assignment() {
        // u = 0.3, 0.9, 0.5, 0.9, 0.2 into 2 clusters of capacity 2.
        // Order (stable, decreasing): 1 (0.9), 3 (0.9), 2 (0.5), 0 (0.3), 4 (0.2).
        // 1 → C0 (tie → 0); 3 → C1 (0 < 0.9); 2 → C0 (tie 0.9 = 0.9 → 0): C0 = 1.4;
        // 0 → C1 (0.9 < 1.4): C1 = 1.2; 4 → C1 (1.2 < 1.4): C1 = 1.4.
        let s = implicit(&[30, 90, 50, 90, 20], 4);
        assert_eq!(
            assign(s.params(), 2, 2),
            Some(vec![vec![1, 2], vec![0, 3, 4]])
        );
        // Capacity exactly reached: four tasks of 0.5 into one cluster of 2.
        let s = implicit(&[50, 50, 50, 50], 2);
        assert_eq!(assign(s.params(), 1, 2), Some(vec![vec![0, 1, 2, 3]]));
        let s = implicit(&[50, 50, 50, 50, 1], 2);
        assert_eq!(assign(s.params(), 1, 2), None);
    }

    #[test]
    fn k_must_divide_m() {
        let t = Cedf::new(4).unwrap();
        let v = analyze(&t, &implicit(&[10], 6));
        assert_eq!(v.status, Status::NotApplicable);
        assert!(v.reason.unwrap().contains("does not divide"));
        assert!(Cedf::new(0).is_none());
    }

    #[test]
    fn assignment_failure_is_not_shown() {
        // U = 2.5 > 2 clusters × 1 CPU: no assignment, whatever the battery says.
        let v = analyze(&Cedf::new(1).unwrap(), &implicit(&[90, 80, 80], 2));
        assert_eq!(v.status, Status::NotShown);
        assert_eq!(v.partition, None);
    }

    /// The `gedf` battery per cluster, on sets the GFB density bound (U ≤ k − (k−1)·u_max)
    /// decides trivially.
    #[test]
    fn runs_the_gedf_battery_per_cluster() {
        let light = implicit(&[10, 10, 10, 10, 10, 10, 10, 10], 4);
        let v = analyze(&Cedf::new(2).unwrap(), &light);
        // Each cluster gets four tasks of 0.1: U = 0.4 ≤ 2 − 0.1 (GFB).
        assert_eq!(v.status, Status::Schedulable);
        assert_eq!(v.partition, Some(vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]]));
        // Dhall's example in one 2-CPU cluster: τ0 = τ1 = (2, 10, 10), τ2 = (10, 11, 11).
        // G-EDF really misses (synchronous release: τ0, τ1 run in [0, 2], τ2 in [2, 12] > 11),
        // so no valid sufficient G-EDF test can accept it, although U ≈ 1.31 ≤ 2.
        let p = vec![
            Params::new(2, 10, 10),
            Params::new(2, 10, 10),
            Params::new(10, 11, 11),
        ];
        let dhall = System::from_params(p, 2, Priorities::Dm).unwrap();
        assert_eq!(
            analyze(&Cedf::new(2).unwrap(), &dhall).status,
            Status::NotShown
        );
    }
}
