//! Interfering-workload bounds shared by the window-based G-EDF tests (BCL, BCL-iterative,
//! RTA).
//!
//! All three tests bound the work a task `τi` can do inside a *problem window* of a task `τk`
//! and cap it (the cap differs per test, so it is applied by the caller). The formulas are
//! integer-valued; every helper here returns an exact `u64`, saturating at `u64::MAX` —
//! harmless because callers immediately take the minimum with a cap `≤ u64::MAX`.
//!
//! Preconditions (guaranteed after `precheck.rs`): `0 < Ci ≤ Di`, `Ci ≤ Ti`, so every
//! bound is at most about the window length and the products `jobs · Ci` cannot overflow
//! (they are `≤ window · Ci / Ti ≤ window`).

/// Bertogna, Cirinei & Lipari (ECRTS 2005): the workload of `τi` in a window of length `Dk`
/// that ends at a deadline of `τk`, counting only jobs with deadlines inside the window (EDF).
///
/// `Ni = ⌊(Dk − Di)/Ti⌋ + 1` jobs have their deadline in the window (0 if `Di > Dk`), and the
/// carry-in job contributes `min(Ci, max(0, Dk − Ni·Ti))`:
/// `Wi = Ni·Ci + min(Ci, max(0, Dk − Ni·Ti))`  (the numerator of the paper's `βi`).
#[inline]
pub(crate) fn bcl_window_workload(ci: u64, di: u64, ti: u64, dk: u64) -> u64 {
    if di > dk {
        // No job of τi has its deadline inside the window; SchedCAT's
        // `max_jobs_contained` is 0 and the carry-in term is min(Ci, Dk).
        return ci.min(dk);
    }
    let jobs = (dk - di) / ti + 1;
    let body = jobs.saturating_mul(ci);
    let span = jobs.saturating_mul(ti);
    let carry = if span < dk { ci.min(dk - span) } else { 0 };
    body.saturating_add(carry)
}

/// Bertogna, Cirinei & Lipari (IEEE TPDS 2009, Eq. (17)) and Bertogna & Cirinei (RTSS 2007,
/// Eqs. (5) and (9)): the EDF interfering workload of `τi` in the window `[rk, rk + Dk)` of a
/// job of `τk`, given a lower bound `si` on the slack of `τi`'s jobs:
/// `⌊Dk/Ti⌋·Ci + min(Ci, max(0, (Dk mod Ti) − si))`.
#[inline]
pub(crate) fn edf_workload(ci: u64, ti: u64, si: u64, dk: u64) -> u64 {
    let jobs = dk / ti;
    let rest = dk % ti;
    let body = jobs.saturating_mul(ci);
    let carry = if rest > si { ci.min(rest - si) } else { 0 };
    body.saturating_add(carry)
}

/// Bertogna & Cirinei (RTSS 2007, Eqs. (4) and (8)): the work-conserving interfering workload
/// of `τi` in a window of length `r` (the candidate response time of `τk`), given slack `si`:
/// with `L = r + Di − Ci − si`, `⌊L/Ti⌋·Ci + min(Ci, L mod Ti)`.
///
/// `si ≤ Di − Ci` always holds for slacks derived from response times (`R ≥ C`), so `L ≥ r`.
/// (`gedf-rta` evaluates this piecewise, with its slope, in `rta.rs`; this literal form is the
/// cross-check used by the tests.)
#[cfg(test)]
pub(crate) fn rta_workload(ci: u64, di: u64, ti: u64, si: u64, r: u64) -> u64 {
    let offset = (di - ci).saturating_sub(si);
    match r.checked_add(offset) {
        Some(len) => {
            let jobs = len / ti;
            let rest = len % ti;
            jobs.saturating_mul(ci).saturating_add(ci.min(rest))
        }
        None => {
            let len = u128::from(r) + u128::from(offset);
            let ti = u128::from(ti);
            let ci128 = u128::from(ci);
            let v = (len / ti) * ci128 + ci128.min(len % ti);
            u64::try_from(v).unwrap_or(u64::MAX)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn bcl_window_workload_by_hand() {
        // τi = (C 2, D 5, T 5), Dk = 12: Ni = ⌊7/5⌋ + 1 = 2, carry-in min(2, 12 − 10) = 2 → 6.
        assert_eq!(bcl_window_workload(2, 5, 5, 12), 6);
        // Dk = 11: Ni = ⌊6/5⌋ + 1 = 2, carry-in min(2, 1) = 1 → 5.
        assert_eq!(bcl_window_workload(2, 5, 5, 11), 5);
        // Dk = 10: Ni = 2, Dk − 10 = 0 → 4.
        assert_eq!(bcl_window_workload(2, 5, 5, 10), 4);
        // Di > Dk: min(Ci, Dk).
        assert_eq!(bcl_window_workload(7, 9, 10, 5), 5);
        assert_eq!(bcl_window_workload(3, 9, 10, 5), 3);
    }

    #[test]
    fn edf_workload_by_hand() {
        // Dk = 12, τi = (2, ·, 5): 2 full jobs (4) + min(2, 2 − s).
        assert_eq!(edf_workload(2, 5, 0, 12), 6);
        assert_eq!(edf_workload(2, 5, 1, 12), 5);
        assert_eq!(edf_workload(2, 5, 2, 12), 4);
        assert_eq!(edf_workload(2, 5, 9, 12), 4);
    }

    #[test]
    fn rta_workload_by_hand() {
        // τi = (C 2, D 5, T 5), s 0, r 3: L = 3 + 3 = 6 → 1 job (2) + min(2, 1) = 3.
        assert_eq!(rta_workload(2, 5, 5, 0, 3), 3);
        // s 3 (the maximum, D − C): L = r.
        assert_eq!(rta_workload(2, 5, 5, 3, 3), 2);
        // Huge values take the 128-bit path and stay exact.
        let big = u64::MAX - 1;
        assert_eq!(rta_workload(1, big, big, 0, big), 2);
    }
}
