//! The partitioning of [ChronOS §8.5]: utilization rules that never fail, for the best-effort
//! partitioned policies that must run overloaded sets (and, as the named heuristics
//! `chronos`, `chronos-ff`, `chronos-lu`, for `pedf`, `pfp` and `cedf`).
//!
//! - **First fit** (`chronos-ff`; [ChronOS §8.5, Eq. 8.1], after Baruah & Fisher): tasks in
//!   order of decreasing utilization (ties by task index), each on the first CPU whose
//!   utilization with it stays within the cap, `Σ_{j on k} Uⱼ + Uᵢ ≤ 0.95` (the thesis replaces
//!   Eq. 8.1's 1 by 0.95 "leaving a small amount of room for overhead"). A task that fits on no
//!   CPU goes to the CPU with the least total utilization (the thesis's best-effort placement
//!   of infeasible sets). The thesis uses it for P-EDF, P-LBESA and P-DASA-ND, "all of which
//!   follow EDF ordering in underloads".
//! - **Least utilization** (`chronos-lu`): tasks in order of decreasing utilization, each on
//!   the CPU with the least total utilization (ties: the lowest CPU), so no CPU gets a second
//!   task before every CPU has one. The thesis uses it for P-RMS and P-HVDF, and for clusters.
//! - **Clusters** (C-EDF): the least-utilization partition on all `m` CPUs, then the tasks of
//!   CPUs `c·k … c·k + k − 1` form cluster `c` ("we partition the taskset and then place all
//!   tasks assigned to cores 0 through 3 on cluster A…"; the thesis uses least utilization
//!   because first fit "tends to group all tasks on a small set of cores").
//!
//! Utilizations are compared exactly ([`cmp_sum`], a float filter with an exact fallback), so
//! a CPU filled to exactly 0.95 still takes the task. The rules ignore overheads, as the
//! thesis does (its 0.95 cap is the allowance for them). Complexity: `O(n·m·b)` comparisons
//! for `n` tasks, `m` CPUs and at most `b` tasks per CPU (each load is re-summed exactly).

use crate::system::Params;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// Which rule of [ChronOS §8.5].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// First fit by decreasing utilization, 0.95 cap, best effort on the least-utilized CPU.
    FirstFit,
    /// Least utilization (worst fit) by decreasing utilization.
    LeastUtilization,
}

/// The first-fit cap, 0.95 [ChronOS §8.5].
pub const CAP: Frac = Frac { num: 19, den: 20 };

fn util(p: &Params) -> Frac {
    Frac::ratio(p.c, p.t)
}

/// `Σ_a U − Σ_b U` against 0, exactly.
fn cmp_loads(params: &[Params], a: &[usize], b: &[usize]) -> Ordering {
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

/// The CPU with the least total utilization, ties to the lowest index.
fn least_loaded(params: &[Params], bins: &[Vec<usize>]) -> usize {
    let mut best = 0;
    for (k, bin) in bins.iter().enumerate().skip(1) {
        if cmp_loads(params, bin, &bins[best]) == Ordering::Less {
            best = k;
        }
    }
    best
}

/// Whether `task` fits on `bin` under the first-fit cap.
fn fits(params: &[Params], bin: &[usize], task: &Params) -> bool {
    let load = || {
        bin.iter()
            .filter_map(|&i| params.get(i))
            .map(util)
            .chain(std::iter::once(util(task)))
    };
    cmp_sum(load, CAP) != Ordering::Greater
}

/// The task indices of each of `cpus` CPUs under `rule` (each list in placement order). Never
/// fails: every task is placed. `cpus = 0` gives no CPUs (and places nothing).
pub fn partition(params: &[Params], cpus: usize, rule: Rule) -> Vec<Vec<usize>> {
    let mut bins: Vec<Vec<usize>> = vec![Vec::new(); cpus];
    if cpus == 0 {
        return bins;
    }
    let mut order: Vec<usize> = (0..params.len()).collect();
    // Decreasing utilization; the sort is stable, so ties keep the task order.
    order.sort_by(|&a, &b| util(&params[b]).cmp_exact(util(&params[a])));
    for task in order {
        let p = &params[task];
        let first_fit = match rule {
            Rule::FirstFit => bins.iter().position(|bin| fits(params, bin, p)),
            Rule::LeastUtilization => None,
        };
        let k = first_fit.unwrap_or_else(|| least_loaded(params, &bins));
        bins[k].push(task);
    }
    bins
}

/// The clusters of C-EDF: the least-utilization partition on `clusters · size` CPUs, CPUs
/// `c·size … c·size + size − 1` forming cluster `c`.
pub fn clusters(params: &[Params], clusters: usize, size: usize) -> Vec<Vec<usize>> {
    let cpus = partition(
        params,
        clusters.saturating_mul(size),
        Rule::LeastUtilization,
    );
    let mut out = vec![Vec::new(); clusters];
    for (cpu, tasks) in cpus.into_iter().enumerate() {
        if let Some(c) = out.get_mut(cpu / size.max(1)) {
            c.extend(tasks);
        }
    }
    for c in &mut out {
        c.sort_unstable();
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ps(cu: &[(u64, u64)]) -> Vec<Params> {
        cu.iter().map(|&(c, t)| Params::new(c, t, t)).collect()
    }

    /// First fit, 2 CPUs, U = 0.5, 0.45, 0.3, 0.2, 0.6 (task order) → decreasing: τ4 0.6,
    /// τ0 0.5, τ1 0.45, τ2 0.3, τ3 0.2.
    /// τ4 → CPU 0 (0.6). τ0: CPU 0 would be 1.1 > 0.95 → CPU 1 (0.5). τ1: CPU 0 1.05 no; CPU 1
    /// 0.95 ≤ 0.95 (exactly the cap) → CPU 1. τ2: CPU 0 0.9 → CPU 0. τ3: CPU 0 1.1, CPU 1
    /// 1.15: fits nowhere → least utilized, CPU 0 (0.9 < 0.95) → CPU 0 (1.1).
    #[test]
    fn first_fit_with_the_cap_and_best_effort() {
        let p = ps(&[(50, 100), (45, 100), (30, 100), (20, 100), (60, 100)]);
        assert_eq!(
            partition(&p, 2, Rule::FirstFit),
            vec![vec![4, 2, 3], vec![0, 1]]
        );
    }

    /// Least utilization on the same set: τ4 → CPU 0 (0.6); τ0 → CPU 1 (0.5); τ1: loads 0.6,
    /// 0.5 → CPU 1 (0.95); τ2: 0.6 < 0.95 → CPU 0 (0.9); τ3: 0.9 < 0.95 → CPU 0 (1.1) — here
    /// the same partition as first fit.
    #[test]
    fn least_utilization_spreads() {
        let p = ps(&[(50, 100), (45, 100), (30, 100), (20, 100), (60, 100)]);
        assert_eq!(
            partition(&p, 2, Rule::LeastUtilization),
            vec![vec![4, 2, 3], vec![0, 1]]
        );
        // Three equal tasks on three CPUs: one each, in order (ties to the lowest CPU).
        let eq = ps(&[(1, 2), (1, 2), (1, 2)]);
        assert_eq!(
            partition(&eq, 3, Rule::LeastUtilization),
            vec![vec![0], vec![1], vec![2]]
        );
        // First fit packs them: 0.5 + 0.5 = 1 > 0.95, so still one each.
        assert_eq!(
            partition(&eq, 3, Rule::FirstFit),
            vec![vec![0], vec![1], vec![2]]
        );
        // ... but 0.3-tasks pile on CPU 0 up to 0.9 under first fit, not under least util.
        let light = ps(&[(3, 10), (3, 10), (3, 10), (3, 10)]);
        assert_eq!(
            partition(&light, 2, Rule::FirstFit),
            vec![vec![0, 1, 2], vec![3]]
        );
        assert_eq!(
            partition(&light, 2, Rule::LeastUtilization),
            vec![vec![0, 2], vec![1, 3]]
        );
    }

    /// Overload never fails: 3 tasks of U = 0.9 on 1 CPU all land on it; a task above the cap
    /// on an empty platform goes to the least-utilized CPU.
    #[test]
    fn overload_places_everything() {
        let heavy = ps(&[(9, 10), (9, 10), (9, 10)]);
        assert_eq!(partition(&heavy, 1, Rule::FirstFit), vec![vec![0, 1, 2]]);
        assert_eq!(
            partition(&heavy, 2, Rule::FirstFit),
            vec![vec![0, 2], vec![1]]
        );
        let over = ps(&[(99, 100)]);
        assert_eq!(partition(&over, 2, Rule::FirstFit), vec![vec![0], vec![]]);
        assert!(partition(&over, 0, Rule::FirstFit).is_empty());
    }

    /// Clusters of 2 on 4 CPUs from the least-utilization partition: U = 0.4, 0.3, 0.2, 0.1,
    /// 0.05 → CPUs 0..3 get τ0..τ3, then τ4 goes to the least loaded, CPU 3 (0.1) → cluster
    /// 0 = CPUs 0, 1 = {τ0, τ1}; cluster 1 = CPUs 2, 3 = {τ2, τ3, τ4}.
    #[test]
    fn clusters_group_consecutive_cpus() {
        let p = ps(&[(40, 100), (30, 100), (20, 100), (10, 100), (5, 100)]);
        assert_eq!(clusters(&p, 2, 2), vec![vec![0, 1], vec![2, 3, 4]]);
    }
}
