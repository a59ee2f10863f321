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
//! A shorter horizon when the children leave the parent some bandwidth (`U_c < α_p`): since
//! `dbf(t) ≤ U_c·t` and `Z_p(t) ≥ α_p(t − Δ_p)` [Eq. 7–8, the lower bound], `dbf(t) ≤ Z_p(t)`
//! holds for every `t ≥ t* = α_p·Δ_p / (α_p − U_c)`, so only the points below `min(L, t*)`
//! need checking (the bound of Shin & Lee's periodic-resource test, here with the exact
//! (α, Δ) of a server). `t*` is computed exactly (big rationals) and rounded up. With random
//! nanosecond periods `L` is astronomically large while `t*` stays a few parent periods unless
//! the children nearly fill the parent.
//!
//! Bounded work: at most [`MAX_POINTS`] test points; beyond (or when `L` overflows `u64`) the
//! answer is [`Nesting::GaveUp`] — a deterministic limit, never a time limit.
//! Complexity: O(points · children).

use super::supply::Server;
use crate::util::math::gcd;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::ToPrimitive;

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

/// `⌈t*⌉ = ⌈α_p·Δ_p / (α_p − U_c)⌉` (module doc) when `U_c < α_p` and it fits `u64`.
fn slack_horizon(parent: Server, children: &[Server]) -> Option<u64> {
    let big = |x: u64| BigInt::from(x);
    let alpha = BigRational::new(big(parent.budget), big(parent.period.max(1)));
    let used = children
        .iter()
        .map(|c| BigRational::new(big(c.budget), big(c.period.max(1))))
        .fold(BigRational::from_integer(big(0)), |a, b| a + b);
    if used >= alpha {
        return None;
    }
    let delta = BigRational::from_integer(BigInt::from(parent.delay()));
    let t = (alpha.clone() * delta / (alpha - used)).ceil().to_integer();
    t.to_u64()
}

/// Whether `children`'s servers are EDF-schedulable inside `parent`'s (module doc). Assumes
/// `Σ Q_c/P_c ≤ Q_p/P_p` (else the horizon argument fails; the caller reports that as an
/// overload first). Periods must be positive.
pub fn children_fit(parent: Server, children: &[Server]) -> Nesting {
    if children.is_empty() {
        return Nesting::Fits;
    }
    let mut lcm = Some(parent.period.max(1));
    for c in children {
        let p = c.period.max(1);
        lcm = lcm.and_then(|h| (h / gcd(h, p)).checked_mul(p));
    }
    let horizon = match (lcm, slack_horizon(parent, children)) {
        (Some(l), Some(t)) => l.min(t),
        (Some(l), None) => l,
        (None, Some(t)) => t,
        (None, None) => return Nesting::GaveUp { points: u64::MAX },
    };
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `dbf(t) ≤ Z_p(t)` at every integer `t` in `(0, lcm]`, by brute force.
    fn brute(parent: Server, children: &[Server]) -> bool {
        let mut l = parent.period;
        for c in children {
            l = l / gcd(l, c.period) * c.period;
        }
        (1..=l).all(|t| {
            let demand: u64 = children.iter().map(|c| t / c.period * c.budget).sum();
            demand <= parent.supply(t)
        })
    }

    fn server() -> impl Strategy<Value = Server> {
        (1u64..=12, 1u64..=12).prop_map(|(q, p)| Server {
            budget: q.min(p),
            period: p,
        })
    }

    proptest! {
        /// The test points and the short horizon `min(lcm, t*)` decide exactly what every
        /// integer window decides (admission inside the parent assumed, as the callers do).
        #[test]
        fn agrees_with_every_window(parent in server(), children in prop::collection::vec(server(), 1..=3)) {
            // Σ Q_c/P_c ≤ Q_p/P_p, exactly.
            let lcm = children.iter().fold(parent.period, |l, c| l / gcd(l, c.period) * c.period);
            let demand_rate: u128 = children.iter().map(|c| u128::from(c.budget) * u128::from(lcm / c.period)).sum();
            prop_assume!(demand_rate * u128::from(parent.period) <= u128::from(parent.budget) * u128::from(lcm));
            let fits = children_fit(parent, &children) == Nesting::Fits;
            prop_assert_eq!(fits, brute(parent, &children));
        }
    }
}
