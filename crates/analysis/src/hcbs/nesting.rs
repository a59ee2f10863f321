//! Subgroups inside a group [HCBS §3.3, "an arbitrary hierarchy"]: on each CPU, the children's
//! servers run inside the parent's server there, scheduled by EDF (H-CBS one level down).
//! They get their own supply Eq. 4 if they are EDF-schedulable on the parent's supply, i.e.
//! (as periodic tasks `(Q_c, P_c)` with implicit deadlines, on a resource of supply `Z_p`;
//! the condition of Shin & Lee, RTSS 2003, with the exact Z of [HCBS Eq. 4] as the supply)
//!
//! ```text
//! dbf(t) = Σ_c ⌊t / P_c⌋ · Q_c ≤ Z_p(t)   for all t > 0.
//! ```
//!
//! Test points: `dbf` is a step function that steps only at multiples of a child's period and
//! `Z_p` is non-decreasing, so the multiples `j·P_c` suffice. Horizon: with
//! `L = lcm(P_p, P_c …)`, `dbf(t + L) = dbf(t) + L·U_c` and `Z_p(t + L) = Z_p(t) + L·Q_p/P_p`
//! (`Z(t + P) = Z(t) + Q` by Eq. 4), so if `U_c = Σ Q_c/P_c ≤ Q_p/P_p` (admission inside the
//! parent, checked first) the points in `(0, L]` decide it. The parent's period must be in
//! the lcm (Z_p repeats with `P_p` only), which the plan's "hyperperiod of the children's
//! periods" leaves out.
//!
//! Bounded work: at most [`MAX_POINTS`] test points; beyond (or when `L` overflows `u64`) the
//! answer is [`Nesting::GaveUp`] — a deterministic limit, never a time limit.
//! Complexity: O(points · children).

use super::supply::Server;
use crate::util::math::gcd;

/// Most test points examined per (parent, set of children) before giving up.
pub const MAX_POINTS: u64 = 1_000_000;

/// The answer of [`children_fit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nesting {
    /// `dbf(t) ≤ Z_p(t)` at every test point.
    Fits,
    /// The first test point found with `dbf(t) > Z_p(t)`, with both values.
    Overflows {
        /// The window length (ns).
        t: u64,
        /// `dbf(t)`.
        demand: u128,
        /// `Z_p(t)`.
        supply: u64,
    },
    /// More than [`MAX_POINTS`] test points (or an lcm beyond `u64`).
    GaveUp {
        /// The number of test points that would be needed (saturated).
        points: u64,
    },
}

/// Whether `children`'s servers are EDF-schedulable inside `parent`'s (module doc). Assumes
/// `Σ Q_c/P_c ≤ Q_p/P_p` (else the horizon argument fails; the caller reports that as an
/// overload first). Periods must be positive.
pub fn children_fit(parent: Server, children: &[Server]) -> Nesting {
    if children.is_empty() {
        return Nesting::Fits;
    }
    let mut horizon = parent.period.max(1);
    for c in children {
        let p = c.period.max(1);
        let Some(l) = (horizon / gcd(horizon, p)).checked_mul(p) else {
            return Nesting::GaveUp { points: u64::MAX };
        };
        horizon = l;
    }
    let points = children
        .iter()
        .map(|c| horizon / c.period.max(1))
        .fold(0u64, u64::saturating_add);
    if points > MAX_POINTS {
        return Nesting::GaveUp { points };
    }
    let mut first: Option<(u64, u128, u64)> = None;
    for c in children {
        let p = c.period.max(1);
        for j in 1..=horizon / p {
            let t = j * p; // ≤ horizon, no overflow
            let demand: u128 = children
                .iter()
                .map(|x| u128::from(t / x.period.max(1)) * u128::from(x.budget))
                .sum();
            let supply = parent.supply(t);
            if demand > u128::from(supply) && first.is_none_or(|(ft, _, _)| t < ft) {
                first = Some((t, demand, supply));
                break; // later multiples of this period are larger t
            }
        }
    }
    match first {
        None => Nesting::Fits,
        Some((t, demand, supply)) => Nesting::Overflows { t, demand, supply },
    }
}
