//! The supply check (a) on one backlogged interval: the windows that open where the service
//! stops (or at the interval's start) and close where it resumes (or at its end) — the only
//! ones that need checking (the parent module's doc proves it). `O(k²)` for `k` stretches.

use super::Window;

/// The least `service − Z(t)` over the windows `[t0, t1)` of the backlogged interval
/// `[a, b)` with `t0 ∈ {a} ∪ {stretch ends}`, `t1 ∈ {stretch starts} ∪ {b}`, `t0 < t1`, whose
/// `Z > 0`; and how many windows were evaluated. `service` are the service stretches inside
/// `[a, b)`: sorted, disjoint, non-adjacent (merged), each `start < end`.
pub fn min_slack(
    a: u64,
    b: u64,
    service: &[(u64, u64)],
    z: impl Fn(u64) -> u64,
) -> (Option<Window>, u64) {
    // Candidate window ends (t1, S(t1)) and starts (t0, S(t0)), in time order, with the
    // cumulative service S since `a`.
    let mut ends: Vec<(u64, u64)> = Vec::with_capacity(service.len() + 1);
    let mut starts: Vec<(u64, u64)> = Vec::with_capacity(service.len() + 1);
    starts.push((a, 0));
    let mut cum = 0u64;
    for &(s, e) in service {
        ends.push((s, cum));
        cum += e - s;
        starts.push((e, cum));
    }
    ends.push((b, cum));
    let mut worst: Option<Window> = None;
    let mut windows = 0u64;
    for &(t1, s1) in &ends {
        // `starts` is sorted by time: every start before t1 pairs with it.
        for &(t0, s0) in starts.iter().take_while(|(t0, _)| *t0 < t1) {
            windows += 1;
            let supply = z(t1 - t0);
            if supply == 0 {
                continue; // service ≥ 0 = Z: cannot fail
            }
            let w = Window {
                start: t0,
                end: t1,
                service: s1 - s0,
                supply,
            };
            if worst.is_none_or(|x| w.slack() < x.slack()) {
                worst = Some(w);
            }
        }
    }
    (worst, windows)
}
