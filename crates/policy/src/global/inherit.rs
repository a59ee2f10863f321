//! Priority inheritance for the global JLFP policies (and, through [`crate::Domains`], for
//! `pedf`, `pfp` and `cedf`): PREEMPT_RT's `rt_mutex` semantics [ChronOS §4.3], on the engines'
//! resources (`crate::event`, "Resources").
//!
//! - `on_block`: the blocked job leaves the scheduler (unlinked; its CPU takes the best ready
//!   job) and is *parked* with its own (base) key.
//! - A job that holds a resource others wait for runs with the best key among its own and
//!   those of every job whose blocking chain (`Ctx::blocker`, followed transitively) reaches it;
//!   when that set changes (block, resume, completion, abort) every inherited key is
//!   recomputed and the jobs whose key changed are re-keyed in place (linked or waiting), then
//!   the usual rebalance restores the JLFP invariant. So a low-priority holder inherits its
//!   waiter's priority and a medium-priority job can no longer preempt it.
//! - `grant`: the parked waiter with the best effective key gets the resource (waiters the
//!   policy does not hold — in another domain — come after, longest-waiting first: partitions
//!   are scheduled independently and a waiter in another domain boosts nobody here).
//! - `on_resume`: the job rejoins the scheduler (with its base key; the recomputation raises
//!   it if others now wait for it).
//!
//! Inherited keys keep the donor's tie-breaking fields (task, seq): they are still unique
//! among the jobs the scheduler holds, because each blocking chain ends at one job. Deadlock
//! (a cycle of waiters) is not detected: like real mutexes, the jobs stay blocked until the
//! horizon or an engine abort at the deadline (`--abort-late`); chain walks stop after as many
//! steps as there are parked jobs.
//!
//! Cost: nothing without resources (`ctx.resources.any()` false: no recomputation); with
//! them, O(P·L + B·log n) per block/resume/completion/abort for P parked jobs, chains of
//! length L and B jobs whose key changes.

use super::GlobalJlfp;
use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::JobId;
use crate::prio::JobKey;
use std::collections::BTreeMap;

/// Parked (blocked) jobs and the keys currently inherited.
#[derive(Debug, Default)]
pub(crate) struct Inheritance {
    /// Blocked jobs: (base key, effective key, facts).
    parked: BTreeMap<JobId, (JobKey, JobKey, JobInfo)>,
    /// Active (not blocked) jobs running with an inherited key: that key.
    boosted: BTreeMap<JobId, JobKey>,
}

impl Inheritance {
    /// The waiter that gets a released resource: best effective key among the parked ones,
    /// else the longest-waiting.
    pub(crate) fn pick(&self, waiters: &[JobId]) -> usize {
        waiters
            .iter()
            .enumerate()
            .filter_map(|(k, w)| self.parked.get(w).map(|p| (p.1, k)))
            .min()
            .map_or(0, |(_, k)| k)
    }
}

impl GlobalJlfp {
    fn base_key(&self, info: &JobInfo) -> JobKey {
        JobKey::of(self.primary, info, &self.tasks)
    }

    /// `on_block`: unlink and park `job`.
    pub(super) fn park(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        let Some((_, info)) = self.engine.entry(job) else {
            return;
        };
        let base = self.base_key(&info);
        self.engine.remove(ctx, job, out);
        self.pi.boosted.remove(&job);
        self.pi.parked.insert(job, (base, base, info));
        self.refresh(ctx, out);
    }

    /// `on_resume`: `job` got its resource and rejoins the scheduler.
    pub(super) fn unpark(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.pi.parked.remove(&job.id);
        let key = self.base_key(job);
        self.engine.release(ctx, job, key, out);
        self.refresh(ctx, out);
    }

    /// A job ended (completion or abort): drop it from the inheritance state.
    pub(super) fn forget_blocked(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        let parked = self.pi.parked.remove(&job).is_some();
        let boosted = self.pi.boosted.remove(&job).is_some();
        if parked || boosted || ctx.resources.any() {
            self.refresh(ctx, out);
        }
    }

    /// Recomputes every inherited key (module doc) and re-keys the jobs whose key changed.
    fn refresh(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        if self.pi.parked.is_empty() && self.pi.boosted.is_empty() {
            return; // nobody waits, nobody inherits
        }
        // Effective key of every job reached by a chain: the best base key upstream of it.
        let mut eff: BTreeMap<JobId, JobKey> = BTreeMap::new();
        let limit = self.pi.parked.len() + 1;
        for (&w, &(base, _, _)) in &self.pi.parked {
            let mut cur = w;
            for _ in 0..limit {
                let Some(o) = ctx.blocker(cur).filter(|&o| o != w) else {
                    break;
                };
                let slot = eff.entry(o).or_insert(base);
                *slot = (*slot).min(base);
                cur = o;
            }
        }
        for (j, p) in self.pi.parked.iter_mut() {
            p.1 = eff.get(j).map_or(p.0, |&k| k.min(p.0));
        }
        // Active jobs: restore the ones no longer boosted, raise the others.
        let old = std::mem::take(&mut self.pi.boosted);
        let touched: Vec<JobId> = old
            .keys()
            .chain(eff.keys())
            .copied()
            .filter(|j| !self.pi.parked.contains_key(j))
            .collect();
        for j in touched {
            let Some((current, info)) = self.engine.entry(j) else {
                continue;
            };
            let base = self.base_key(&info);
            let want = eff.get(&j).map_or(base, |&k| k.min(base));
            if want != base {
                self.pi.boosted.insert(j, want);
            }
            if want != current {
                self.engine.rekey(j, want);
            }
        }
        self.engine.rebalance(ctx, out);
    }
}
