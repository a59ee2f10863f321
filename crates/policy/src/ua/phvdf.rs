//! P-HVDF [ChronOS §6.13]: partitioned highest value density first. On each CPU, at every
//! scheduling event, the job past its deadline is aborted (the runqueue is deadline-ordered,
//! so ChronOS checks the head only; aborting at every event at the deadline timer aborts them
//! all, [`super::pool`]) and the job with the highest LVD (utility / remaining execution,
//! recomputed at every event) runs. Equal LVDs: the linked job stays, then task index, then
//! seq ([`super::pool::cmp_hvdf`]).
//!
//! Resources: a selected job that is blocked runs the end of its dependency chain instead
//! ([`super::uni`], priority inheritance on one CPU).
//!
//! Complexity per event: O(n) for the n jobs of the CPU (one scan), insertion O(n) (the
//! deadline-ordered runqueue) — Table 6.3 states O(n) scheduling and O(1) insertion: the
//! scheduling cost is met; insertion is O(n) here (the deadline order serves the abort
//! check and the timer), which does not change the per-event O(n).

use super::pool::{cmp_hvdf, Pool};
use super::uni::UniSelect;
use crate::event::{Ctx, Decisions};
use crate::ids::JobId;
use crate::task::PolicyTask;

/// The P-HVDF selection: the highest-LVD job.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hvdf;

impl UniSelect for Hvdf {
    fn select(
        &mut self,
        _ctx: &Ctx<'_>,
        _tasks: &[PolicyTask],
        pool: &mut Pool,
        current: Option<JobId>,
        _out: &mut Decisions,
    ) -> Option<JobId> {
        let is_cur = |id: JobId| Some(id) == current;
        pool.jobs
            .iter()
            .min_by(|a, b| cmp_hvdf(a, b, is_cur(a.info.id), is_cur(b.info.id)))
            .map(|j| j.info.id)
    }
}
