//! P-LBESA [ChronOS §6.14, Algorithm 4; Locke 1986, "Best-Effort Decision Making for
//! Real-Time Scheduling", CMU PhD thesis, ch. 4]: Locke's best-effort scheduling algorithm,
//! one instance per CPU.
//!
//! At every scheduling event, after the past-deadline aborts of [`super::pool`] (ChronOS's
//! addition, "not described by Locke"): all held jobs form a schedule in critical-time order
//! (the deadline for a step TUF; for other TUFs the time their utility reaches 0,
//! [`super::critical_time`] — Locke's algorithm accepts general non-increasing TUFs, ChronOS
//! only steps). While the schedule is overloaded, the job with the lowest LVD (utility at
//! its completion if run alone from now / remaining execution, [`super::Density`]; ties: the
//! last in the one order of [`crate::prio`]) is removed. The head of what is left runs; the
//! removed jobs are not aborted (Locke sheds them for now; they are considered again at the
//! next event, and the past-deadline abort drops them once they can no longer accrue).
//!
//! **Maximum allowable overload** (Locke's user parameter, ChronOS §6.14 "compared to a
//! user-defined value"): Locke models execution times as random variables and sheds while the
//! probability of an overload exceeds the user's bound. schedlab knows WCETs only, so that
//! probability is 0 or 1; the amount of overload is measured instead as the largest lateness
//! of the back-to-back schedule (completion − critical time), and jobs are shed while it
//! exceeds `max_overload` ([`Lbesa::new`]). The registry's `plbesa` uses 0: any overload
//! sheds, which is exactly `ScheduleInfeasible` of Algorithm 4 ([`super::feasible`]).
//!
//! Underload: nothing is removed and the head is the earliest critical time, ties by task
//! index then seq, the linked job kept on an equal critical time — P-EDF's choice exactly
//! (same order and equal-key rule as [`crate::prio`]), so on feasible sets P-LBESA's schedule
//! is P-EDF's job by job.
//!
//! Complexity per event for the n jobs of a CPU: O(n log n) to order by LVD (unstable sort of a
//! reused index buffer, no allocation) plus O(n) per removal, O(n²) in all — Table 6.3's O(n²)
//! scheduling, met; insertion O(n) (deadline-ordered runqueue), met.

use super::pool::Pool;
use super::uni::UniSelect;
use crate::event::{Ctx, Decisions};
use crate::ids::JobId;
use crate::task::PolicyTask;
use schedlab_model::{Duration, Time};

/// The LBESA selection (module doc).
#[derive(Clone, Debug, Default)]
pub struct Lbesa {
    max_overload: Duration,
    /// Reused: job indices in decreasing LVD order.
    order: Vec<usize>,
}

impl Lbesa {
    /// LBESA shedding while the largest lateness exceeds `max_overload` (module doc; 0 = any
    /// overload sheds).
    pub fn new(max_overload: Duration) -> Lbesa {
        Lbesa {
            max_overload,
            order: Vec::new(),
        }
    }

    /// The maximum allowable overload.
    pub fn max_overload(&self) -> Duration {
        self.max_overload
    }
}

/// Whether the marked jobs of `pool`, run back to back from `now` in pool (critical-time)
/// order, complete some job more than `allowed` after its critical time.
fn overloaded(now: Time, pool: &Pool, allowed: Duration) -> bool {
    let mut t = now;
    for j in pool.jobs.iter().filter(|j| j.mark) {
        t = match t.checked_add(j.rem) {
            Some(t) => t,
            None => return true,
        };
        if t.saturating_since(j.crit) > allowed {
            return true;
        }
    }
    false
}

/// The head of the marked jobs in critical-time order; the current job instead if it is
/// marked and has the head's critical time (equal-key rule).
pub(crate) fn head(pool: &Pool, current: Option<JobId>) -> Option<JobId> {
    let head = pool.jobs.iter().find(|j| j.mark)?;
    let keep = current
        .and_then(|c| pool.get(c))
        .filter(|c| c.mark && c.crit == head.crit);
    Some(keep.unwrap_or(head).info.id)
}

impl UniSelect for Lbesa {
    fn select(
        &mut self,
        ctx: &Ctx<'_>,
        _tasks: &[PolicyTask],
        pool: &mut Pool,
        current: Option<JobId>,
        _out: &mut Decisions,
    ) -> Option<JobId> {
        for j in &mut pool.jobs {
            j.mark = true;
        }
        self.order.clear();
        self.order.extend(0..pool.jobs.len());
        let jobs = &pool.jobs;
        self.order.sort_unstable_by(|&a, &b| {
            let (a, b) = (&jobs[a], &jobs[b]);
            super::by_density_desc((&a.density, &a.info), (&b.density, &b.info))
        });
        // Shed from the lowest LVD (the end of the order) while overloaded.
        let mut left = self.order.len();
        while left > 0 && overloaded(ctx.now, pool, self.max_overload) {
            left -= 1;
            if let Some(j) = self.order.get(left).and_then(|&i| pool.jobs.get_mut(i)) {
                j.mark = false;
            }
        }
        head(pool, current)
    }
}
