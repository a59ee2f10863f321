//! The queues of `work-stealing` [RTWS §V]: the global EDF queue of jobs (Rules A, D) and a
//! CPU's local priority queue of deques (Rules B, C, E), as plain data structures — each
//! lives behind its own short lock (`super`'s protocol), so nothing here synchronises.
//!
//! Priority: the absolute deadline, then the project's tie rule (task index, then job
//! sequence number, then strand; `schedlab_policy::prio`) instead of the paper's FIFO, as the
//! `rtws` policy does. A deque holds the threads of one job: its key is the job's (deadline,
//! task, seq).
//!
//! Cost: `O(log q)` per push, pop or steal for `q` deques or queued entries (ordered maps);
//! a deque's own operations `O(1)`.

use schedlab_policy::JobId;
use std::collections::{BTreeMap, VecDeque};

/// A job's priority: (deadline ns, task, seq).
pub(crate) type DequeKey = (u64, u32, u64);

/// A thread's (or sequential job's) priority: (deadline ns, class, task, seq, strand); the
/// policy key of the equal-key rule is (deadline, class) ([`preempts`]).
pub(crate) type Key = (u64, u8, u32, u64, u32);

/// Classes at equal deadlines (the `rtws` policy's, `schedlab_policy`'s module doc "Ties"):
/// a job (or a thread of a job's first region), a forked thread (taken from its own CPU's
/// deque), a stolen thread.
pub(crate) const JOB: u8 = 0;
/// A forked thread (in a deque, or taken by the CPU that owns the deque).
pub(crate) const FORKED: u8 = 1;
/// A stolen thread (also once preempted into the global queue).
pub(crate) const STOLEN: u8 = 2;

/// Whether an item of key `k` preempts a running item of key `running`: a strictly smaller
/// (deadline, class) — never an equal deadline between jobs (G-EDF's equal-key rule), but a
/// job preempts a thread of its deadline, a stolen one first.
pub(crate) fn preempts(k: &Key, running: &Key) -> bool {
    (k.0, k.1) < (running.0, running.1)
}

/// A runnable job or thread (strand) of a parallel job, wherever it waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    /// The job and strand.
    pub(crate) id: JobId,
    /// Its job's absolute deadline (ns since time zero).
    pub(crate) deadline: u64,
    /// Handed to its job thread already (its first switch-in happened or is under way).
    pub(crate) dispatched: bool,
    /// Its class at equal deadlines ([`JOB`], [`FORKED`], [`STOLEN`]).
    pub(crate) class: u8,
}

impl Item {
    /// A new item of `id` with deadline `deadline`.
    pub(crate) fn new(id: JobId, deadline: u64, class: u8) -> Item {
        Item {
            id,
            deadline,
            dispatched: false,
            class,
        }
    }

    /// Its priority (smaller is higher).
    pub(crate) fn key(&self) -> Key {
        (
            self.deadline,
            self.class,
            self.id.task.0,
            self.id.seq,
            self.id.strand,
        )
    }

    /// Its job's priority (the deque it belongs to).
    pub(crate) fn deque_key(&self) -> DequeKey {
        (self.deadline, self.id.task.0, self.id.seq)
    }
}

/// The global EDF queue (Rules A, D): released jobs (region 0's threads), preempted jobs and
/// preempted threads that were stolen or came from here (Rule F).
#[derive(Debug, Default)]
pub(crate) struct GlobalQueue {
    q: BTreeMap<Key, Item>,
}

impl GlobalQueue {
    /// Enqueues `item`.
    pub(crate) fn push(&mut self, item: Item) {
        self.q.insert(item.key(), item);
    }

    /// The highest-priority entry's key.
    pub(crate) fn head(&self) -> Option<Key> {
        self.q.keys().next().copied()
    }

    /// Takes the highest-priority entry.
    pub(crate) fn pop(&mut self) -> Option<Item> {
        self.q.pop_first().map(|(_, v)| v)
    }
}

/// A CPU's local priority queue of deques (Rules B, C, E): one deque per job, its threads
/// pushed at the bottom in strand order; the owner pops the bottom of its highest-priority
/// deque, a thief takes the top of it.
#[derive(Debug, Default)]
pub(crate) struct LocalQueue {
    deques: BTreeMap<DequeKey, VecDeque<Item>>,
    len: usize,
}

impl LocalQueue {
    /// Whether no thread waits here.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Threads waiting here.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Pushes `item` at the bottom of its job's deque (a fork, Rule B; a preempted local
    /// thread, Rule F).
    pub(crate) fn push_bottom(&mut self, item: Item) {
        self.deques
            .entry(item.deque_key())
            .or_default()
            .push_back(item);
        self.len += 1;
    }

    /// The owner's pop: the bottom of the highest-priority deque (Rule C).
    pub(crate) fn pop_bottom(&mut self) -> Option<Item> {
        let mut e = self.deques.first_entry()?;
        let item = e.get_mut().pop_back();
        if e.get().is_empty() {
            e.remove();
        }
        self.len = self.len.saturating_sub(usize::from(item.is_some()));
        item
    }

    /// What a thief would take: the top of the highest-priority deque (Definition 2 compares
    /// these across CPUs).
    pub(crate) fn top(&self) -> Option<&Item> {
        self.deques.first_key_value().and_then(|(_, d)| d.front())
    }

    /// A thief's take: the top of the highest-priority deque (Rule E).
    pub(crate) fn steal_top(&mut self) -> Option<Item> {
        let mut e = self.deques.first_entry()?;
        let item = e.get_mut().pop_front();
        if e.get().is_empty() {
            e.remove();
        }
        self.len = self.len.saturating_sub(usize::from(item.is_some()));
        item
    }
}

/// Definition 2: among the tops of the CPUs' highest-priority deques (`tops[v]`: CPU v's, or
/// `None` for an empty local queue), the victim whose top has the earliest deadline — the
/// highest priority by the tie rule — ties to the lowest CPU index; never `thief` itself.
pub(crate) fn victim(tops: &[Option<DequeKey>], thief: usize) -> Option<usize> {
    let mut best: Option<(DequeKey, usize)> = None;
    for (v, top) in tops.iter().enumerate() {
        let Some(k) = *top else { continue };
        if v != thief && best.is_none_or(|(b, _)| k < b) {
            best = Some((k, v));
        }
    }
    best.map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_policy::TaskId;

    fn item(task: u32, seq: u64, strand: u32, deadline: u64) -> Item {
        Item::new(
            JobId {
                task: TaskId(task),
                seq,
                strand,
            },
            deadline,
            FORKED,
        )
    }

    /// Two jobs' threads on one CPU (deadlines 20 and 10): the owner pops the bottom of the
    /// earlier job's deque first (its last-pushed thread), a thief takes its top (the
    /// first-pushed); the later job's deque comes after.
    #[test]
    fn owner_pops_the_bottom_and_thieves_take_the_top_of_the_best_deque() {
        let mut q = LocalQueue::default();
        for s in 1..=3 {
            q.push_bottom(item(1, 0, s, 20));
        }
        for s in 1..=3 {
            q.push_bottom(item(0, 0, s, 10));
        }
        assert_eq!(q.len(), 6);
        assert_eq!(q.top().map(|i| i.id.strand), Some(1));
        assert_eq!(q.pop_bottom().map(|i| (i.id.task.0, i.id.strand)), Some((0, 3)));
        assert_eq!(q.steal_top().map(|i| (i.id.task.0, i.id.strand)), Some((0, 1)));
        assert_eq!(q.pop_bottom().map(|i| (i.id.task.0, i.id.strand)), Some((0, 2)));
        // τ0's deque is gone: τ1's is the best now.
        assert_eq!(q.top().map(|i| (i.id.task.0, i.id.strand)), Some((1, 1)));
        assert_eq!(q.steal_top().map(|i| i.id.strand), Some(1));
        assert_eq!(q.pop_bottom().map(|i| i.id.strand), Some(3));
        assert_eq!(q.pop_bottom().map(|i| i.id.strand), Some(2));
        assert!(q.is_empty() && q.pop_bottom().is_none() && q.steal_top().is_none());
    }

    /// Equal deadlines: the lower task index first (the project's tie rule, not FIFO).
    #[test]
    fn equal_deadlines_order_by_task_then_job() {
        let mut g = GlobalQueue::default();
        g.push(item(2, 0, 0, 10));
        g.push(item(1, 1, 0, 10));
        g.push(item(1, 0, 0, 10));
        g.push(item(0, 0, 0, 12));
        let order: Vec<(u32, u64)> = std::iter::from_fn(|| g.pop())
            .map(|i| (i.id.task.0, i.id.seq))
            .collect();
        assert_eq!(order, vec![(1, 0), (1, 1), (2, 0), (0, 0)]);
    }

    /// Definition 2: the earliest top wins, ties to the lowest CPU, never the thief.
    #[test]
    fn the_victim_has_the_earliest_top_ties_to_the_lowest_cpu() {
        let k = |d| Some((d, 0, 0));
        assert_eq!(victim(&[k(20), k(10), k(10)], 3), Some(1));
        assert_eq!(victim(&[k(20), k(10), k(10)], 1), Some(2));
        assert_eq!(victim(&[None, None], 0), None);
        assert_eq!(victim(&[k(5), None], 0), None);
    }

    proptest::proptest! {
        /// Any sequence of pushes, pops and steals: every pushed thread comes out exactly
        /// once, each pop is the bottom and each steal the top of the highest-priority deque
        /// (checked against a list model).
        #[test]
        fn every_thread_comes_out_once_in_deque_order(ops in proptest::collection::vec((0u8..3, 0u32..3, 1u64..4), 0..60)) {
            let mut q = LocalQueue::default();
            let mut model: Vec<Item> = Vec::new();
            let mut next = 0u32;
            for (op, task, d) in ops {
                match op {
                    0 => {
                        let it = item(task, 0, next, d * 10 + u64::from(task));
                        next += 1;
                        q.push_bottom(it);
                        model.push(it);
                    }
                    _ => {
                        let best = model.iter().map(Item::deque_key).min();
                        let pos: Vec<usize> = model
                            .iter()
                            .enumerate()
                            .filter(|(_, i)| Some(i.deque_key()) == best)
                            .map(|(k, _)| k)
                            .collect();
                        let want = if op == 1 { pos.last() } else { pos.first() }
                            .map(|&k| model.remove(k));
                        let got = if op == 1 { q.pop_bottom() } else { q.steal_top() };
                        proptest::prop_assert_eq!(got, want);
                    }
                }
                proptest::prop_assert_eq!(q.len(), model.len());
            }
        }
    }

    /// The equal-key rule with classes: a job never preempts a job of equal deadline, whatever
    /// the tie-breaks; it preempts a forked or stolen thread of its deadline, and a stolen one
    /// is the lower of two threads of one job (the victim); a strictly earlier deadline
    /// preempts anything later.
    #[test]
    fn preemption_follows_deadline_then_class() {
        let job = |task| {
            let mut j = item(task, 0, 0, 20);
            j.class = JOB;
            j.key()
        };
        let mut stolen = item(1, 0, 2, 20);
        stolen.class = STOLEN;
        let forked = item(1, 0, 3, 20);
        assert!(!preempts(&job(0), &job(1)));
        assert!(!preempts(&job(1), &job(0)));
        let mut early = item(2, 0, 0, 19);
        early.class = JOB;
        assert!(preempts(&early.key(), &job(0)));
        let mut j0 = item(0, 1, 0, 20);
        j0.class = JOB;
        assert!(preempts(&j0.key(), &forked.key()));
        assert!(preempts(&j0.key(), &stolen.key()));
        assert!(stolen.key() > forked.key(), "the stolen thread is the lower priority");
    }
}
