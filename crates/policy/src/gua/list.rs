//! One CPU's tentative schedule of the GUA family [ChronOS Alg. 2–3, `DList_P`]: jobs in
//! critical-time order, run back to back from `now`, kept feasible (every job completes by its
//! critical time, [`crate::ua::feasible`]).
//!
//! Besides the items the list keeps each item's finish time and the least slack
//! (`critical − finish`) from each item to the end. Whether a new item fits is then
//! `O(log k)` (a binary search for its position, one comparison for itself and one for the
//! least slack behind it, since inserting it delays exactly the items behind it by its
//! remaining time); inserting or removing is `O(k)`, with `k` the list's length. A rejected
//! job — the common case in overload, and tried on every CPU by G-GUA — thus costs no copy.

use crate::ids::JobId;
use schedlab_model::Time;

/// A job in a CPU's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Item {
    /// Index of the job in the policy's job store (valid during one scheduling event).
    pub(super) job: usize,
    /// The job (its id breaks ties of equal critical times: task index, then seq).
    pub(super) id: JobId,
    /// The critical time it must complete by in this list (a chain member's may be its
    /// dependent's, see [`super::plan`]).
    pub(super) critical: Time,
    /// Remaining execution, ns.
    pub(super) remaining: u64,
}

impl Item {
    fn key(&self) -> (Time, JobId) {
        (self.critical, self.id)
    }
}

/// A feasible critical-time-ordered list (module doc).
#[derive(Debug, Default)]
pub(super) struct CpuList {
    now: u64,
    items: Vec<Item>,
    /// `finish[k]`: when item `k` completes running back to back from `now`, ns.
    finish: Vec<u64>,
    /// `slack[k]`: the least `critical − finish` of items `k..`; never negative, because the
    /// list is kept feasible.
    slack: Vec<u64>,
}

impl CpuList {
    /// Empties the list for a scheduling event at `now` (keeps the buffers).
    pub(super) fn reset(&mut self, now: Time) {
        self.now = now.as_ns();
        self.items.clear();
        self.finish.clear();
        self.slack.clear();
    }

    /// The items, in critical-time order.
    pub(super) fn items(&self) -> &[Item] {
        &self.items
    }

    fn position(&self, item: &Item) -> usize {
        self.items.partition_point(|i| i.key() < item.key())
    }

    /// Whether `item` can join the list with every job still completing by its critical time.
    pub(super) fn fits(&self, item: &Item) -> bool {
        let pos = self.position(item);
        let start = match pos.checked_sub(1) {
            Some(p) => self.finish.get(p).copied().unwrap_or(self.now),
            None => self.now,
        };
        let Some(end) = start.checked_add(item.remaining) else {
            return false;
        };
        let behind_ok = self.slack.get(pos).is_none_or(|&s| s >= item.remaining);
        end <= item.critical.as_ns() && behind_ok
    }

    /// Inserts `item` if it fits (see [`CpuList::fits`]); `false` leaves the list unchanged.
    pub(super) fn try_insert(&mut self, item: Item) -> bool {
        if !self.fits(&item) {
            return false;
        }
        let pos = self.position(&item);
        self.items.insert(pos, item);
        self.refresh(pos);
        true
    }

    /// Removes the item of job `job`, if present.
    pub(super) fn remove(&mut self, job: usize) {
        if let Some(pos) = self.items.iter().position(|i| i.job == job) {
            self.items.remove(pos);
            self.refresh(pos);
        }
    }

    /// Recomputes finish times from `from` and the least slacks (all of them: a suffix
    /// minimum changes in front of a changed item too).
    fn refresh(&mut self, from: usize) {
        self.finish.truncate(from);
        let mut t = match from.checked_sub(1) {
            Some(p) => self.finish.get(p).copied().unwrap_or(self.now),
            None => self.now,
        };
        for item in &self.items[from..] {
            t = t.saturating_add(item.remaining);
            self.finish.push(t);
        }
        self.slack.clear();
        self.slack.resize(self.items.len(), 0);
        let mut least = u64::MAX;
        for k in (0..self.items.len()).rev() {
            let s = self.items[k]
                .critical
                .as_ns()
                .saturating_sub(self.finish[k]);
            least = least.min(s);
            self.slack[k] = least;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TaskId;
    use crate::ua::feasible;
    use proptest::prelude::*;
    use schedlab_model::Duration;

    fn item(task: u32, critical: u64, remaining: u64) -> Item {
        Item {
            job: task as usize,
            id: JobId::new(TaskId(task), 0),
            critical: Time::from_ns(critical),
            remaining,
        }
    }

    /// From now = 10: A (crit 15, rem 5) fills 10–15 exactly; B (crit 30, rem 10) runs
    /// 15–25 (slack 5); C (crit 20, rem 5) would go between them and finish at 20 but delay B
    /// to 30: fits. D (crit 40, rem 11) at the end finishes at 41 > 40: rejected. After C,
    /// E (crit 12, rem 1) would finish at 11 but delay A past 15: rejected.
    #[test]
    fn fit_checks_the_item_and_the_least_slack_behind_it() {
        let mut l = CpuList::default();
        l.reset(Time::from_ns(10));
        assert!(l.try_insert(item(0, 15, 5)));
        assert!(l.try_insert(item(1, 30, 10)));
        assert!(l.try_insert(item(2, 20, 5)));
        assert!(!l.try_insert(item(3, 40, 11)));
        assert!(!l.try_insert(item(4, 12, 1)));
        let order: Vec<u32> = l.items().iter().map(|i| i.id.task.0).collect();
        assert_eq!(order, [0, 2, 1]);
        l.remove(2);
        assert!(l.fits(&item(3, 40, 11)));
    }

    proptest! {
        /// `fits` agrees with running the list with the item back to back
        /// ([`crate::ua::feasible`]), and the list stays feasible and ordered.
        #[test]
        fn fits_agrees_with_the_feasibility_check(
            now in 0u64..50,
            items in proptest::collection::vec((0u64..200, 0u64..40), 0..24),
        ) {
            let mut l = CpuList::default();
            l.reset(Time::from_ns(now));
            for (k, (c, r)) in items.into_iter().enumerate() {
                let it = item(k as u32, c, r);
                let mut all: Vec<Item> = l.items().to_vec();
                all.push(it);
                all.sort_by_key(|i| i.key());
                let want = feasible(
                    Time::from_ns(now),
                    all.iter().map(|i| (i.critical, Duration::from_ns(i.remaining))),
                );
                prop_assert_eq!(l.try_insert(it), want);
                let keys: Vec<_> = l.items().iter().map(|i| i.key()).collect();
                prop_assert!(keys.windows(2).all(|w| w[0] < w[1]));
            }
        }
    }
}
