//! Trivial infeasibility, rejected first by every G-EDF test of this module.
//!
//! SchedCAT's native tests (`native/src/edf/{gfb,baker,bcl,bcl_iterative,rta}.cpp`) start with
//! `has_only_feasible_tasks()` (`0 < C ≤ D` and `C ≤ T` per task) and
//! `is_not_overutilized(m)` (`U ≤ m`, exact rationals), and answer `false` when either fails.
//! We answer *not shown* (with the reason) in that case — not "not applicable": the test
//! applies, the set just cannot be schedulable. `C ≤ D` is an invariant of [`System`], so only
//! `C ≤ T` (i.e. `u ≤ 1`, which can fail only for `D > T`) and `U ≤ m` are checked here.
//! Cost: `O(n)` (one filtered exact rational sum, [`cmp_sum`]).

use crate::system::System;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// `Some(reason)` if the system is trivially infeasible on its `m` CPUs: some task has
/// utilization above 1, or the total utilization exceeds `m`.
pub(crate) fn trivially_infeasible(sys: &System) -> Option<String> {
    let params = sys.params();
    if let Some(i) = params.iter().position(|p| p.c > p.t) {
        return Some(format!(
            "trivially infeasible: task {i} has C > T (utilization above 1)"
        ));
    }
    let m = i128::from(sys.cpus());
    let utilization = || params.iter().map(|p| Frac::ratio(p.c, p.t));
    if cmp_sum(utilization, Frac::int(m)) == Ordering::Greater {
        return Some(format!(
            "trivially infeasible: total utilization exceeds m = {m}"
        ));
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::system::{Params, Priorities};

    fn sys(p: &[(u64, u64, u64)], m: u32) -> System {
        let params = p.iter().map(|&(c, d, t)| Params::new(c, d, t)).collect();
        System::from_params(params, m, Priorities::Dm).unwrap()
    }

    #[test]
    fn utilization_exactly_m_is_fine_one_more_is_not() {
        // 1/3 · 6 = 2 exactly on m = 2.
        assert!(trivially_infeasible(&sys(&[(1, 3, 3); 6], 2)).is_none());
        let mut p = vec![(1, 3, 3); 5];
        p.push((1, 2, 2)); // 5/3 + 1/2 > 2
        assert!(trivially_infeasible(&sys(&p, 2)).is_some());
    }

    #[test]
    fn utilization_above_one_is_caught() {
        // D > T allows C > T.
        let r = trivially_infeasible(&sys(&[(5, 8, 4)], 4)).unwrap();
        assert!(r.contains("task 0"));
    }
}
