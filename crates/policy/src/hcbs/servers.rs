//! One hard CBS server [HCBS §3.2] (Abeni & Buttazzo's CBS with hard reservations): a budget
//! `c` and a deadline `d`, full budget `Q` and period `P`.
//!
//! Rules (the contract shared with the runtime's `reservations` architecture):
//! - initially `c = 0`, `d = 0` (inactive);
//! - **activation** at `a` (the server starts having work for its CPU, see
//!   [`super::Hcbs`]'s rule 1): if
//!   `d ≤ a` or `c·P ≥ (d − a)·Q` (compared exactly in `u128`) then `c = Q`, `d = a + P` (the CBS
//!   wake-up rule: the kept pair would exceed the bandwidth `Q/P`), else `(c, d)` are kept;
//! - the budget drains only while the server's CPU runs a job of its group's subtree;
//! - at `c = 0` the server is **exhausted**: throttled (not eligible) until `d`, then
//!   **replenished**: `c = Q`, `d += P`. If `d` has already passed at the exhaustion, the
//!   replenishment happens at once; should the postponed `d` still not lie in the future, it
//!   is set to `now + P` (Linux's `replenish_dl_entity` does the same: a server never
//!   competes with a deadline in the past after a replenishment);
//! - an inactive server keeps `(c, d)`.
//!
//! All operations are `O(1)`.

use schedlab_model::{Duration, Time};

/// `t + d`, saturating at the end of time (2^64 − 1 ns, never reached by a run).
fn after(t: Time, d: Duration) -> Time {
    t.checked_add(d).unwrap_or(Time::from_ns(u64::MAX))
}

/// A server's state (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Server {
    /// Its group (index in the task set's groups).
    pub(super) group: u32,
    /// Its CPU.
    pub(super) cpu: u32,
    /// Full budget `Q`.
    pub(super) budget: Duration,
    /// Period `P`.
    pub(super) period: Duration,
    /// Remaining budget `c`.
    pub(super) c: Duration,
    /// Deadline `d`.
    pub(super) d: Time,
    /// Exhausted and waiting for its replenishment at `d`.
    pub(super) throttled: bool,
}

/// What an exhaustion led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Exhausted {
    /// Throttled until the given time (arm the replenishment then).
    Until(Time),
    /// Replenished at once (its deadline had passed).
    Replenished,
}

impl Server {
    pub(super) fn new(group: u32, cpu: u32, budget: Duration, period: Duration) -> Server {
        Server {
            group,
            cpu,
            budget,
            period,
            c: Duration::ZERO,
            d: Time::ZERO,
            throttled: false,
        }
    }

    /// May run: budget left and not throttled.
    pub(super) fn eligible(&self) -> bool {
        !self.throttled && !self.c.is_zero()
    }

    /// The CBS wake-up rule at activation time `a` (module doc); whether it replenished.
    pub(super) fn activate(&mut self, a: Time) -> bool {
        if self.throttled {
            return false; // c = 0 < (d − a)·Q/P: kept, replenished at d
        }
        let fresh = self.d <= a || {
            let lhs = u128::from(self.c.as_ns()) * u128::from(self.period.as_ns());
            let rhs =
                u128::from(self.d.saturating_since(a).as_ns()) * u128::from(self.budget.as_ns());
            lhs >= rhs
        };
        if fresh {
            self.c = self.budget;
            self.d = after(a, self.period);
        }
        fresh
    }

    /// Its CPU ran a job of its subtree for `amount`.
    pub(super) fn drain(&mut self, amount: Duration) {
        self.c = self.c.saturating_sub(amount);
    }

    /// The budget ran out at `now` (module doc).
    pub(super) fn exhaust(&mut self, now: Time) -> Exhausted {
        if self.d > now {
            self.throttled = true;
            return Exhausted::Until(self.d);
        }
        self.replenish(now);
        Exhausted::Replenished
    }

    /// The replenishment at `now` (`≥ d`): `c = Q`, `d += P` (not before `now + P`… see the
    /// module doc: only when `d + P` has passed too).
    pub(super) fn replenish(&mut self, now: Time) {
        self.throttled = false;
        self.c = self.budget;
        self.d = after(self.d, self.period);
        if self.d <= now {
            self.d = after(now, self.period);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ns: u64) -> Time {
        Time::from_ns(ns)
    }

    fn server() -> Server {
        Server::new(0, 0, Duration::from_ns(2), Duration::from_ns(5))
    }

    /// Both branches of the wake-up rule, by hand: (Q, P) = (2, 5).
    #[test]
    fn wake_up_rule_both_branches() {
        let mut s = server();
        assert!(s.activate(t(0)), "d = 0 ≤ a: fresh");
        assert_eq!((s.c, s.d), (Duration::from_ns(2), t(5)));
        // c = 1, d = 5, a = 3: c·P = 5 ≥ (d − a)·Q = 4 → fresh (c = 2, d = 8).
        s.c = Duration::from_ns(1);
        assert!(s.activate(t(3)));
        assert_eq!((s.c, s.d), (Duration::from_ns(2), t(8)));
        // c = 1, d = 8, a = 5: 5 < 3·2 = 6 → kept.
        s.c = Duration::from_ns(1);
        assert!(!s.activate(t(5)));
        assert_eq!((s.c, s.d), (Duration::from_ns(1), t(8)));
        // Equality counts as fresh: c = 2, d = 10, a = 5: 10 ≥ 5·2.
        s.c = Duration::from_ns(2);
        s.d = t(10);
        assert!(s.activate(t(5)));
        assert_eq!(s.d, t(10));
    }

    #[test]
    fn exhaustion_throttles_until_the_deadline_then_replenishes() {
        let mut s = server();
        s.activate(t(0));
        s.drain(Duration::from_ns(2));
        assert!(!s.eligible());
        assert_eq!(s.exhaust(t(2)), Exhausted::Until(t(5)));
        assert!(!s.activate(t(3)), "throttled: kept");
        s.replenish(t(5));
        assert_eq!(
            (s.c, s.d, s.eligible()),
            (Duration::from_ns(2), t(10), true)
        );
        // Exhausted after its deadline: replenished at once, deadline not in the past.
        s.drain(Duration::from_ns(2));
        assert_eq!(s.exhaust(t(17)), Exhausted::Replenished);
        assert_eq!((s.c, s.d), (Duration::from_ns(2), t(22)));
    }
}
