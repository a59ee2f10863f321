//! The engine's pending events, split by kind so that the common ones cost as little as
//! possible while the order stays the total order `(time, class, order, arg)` of
//! [`crate::engine`]'s module doc:
//!
//! - **arrivals**: each task has at most one pending arrival, so they live in a min-heap of
//!   packed `(time, task)` keys; the arrival being handled is *replaced* by the task's next
//!   one with a single sift-down (a pop and a push would cost two).
//! - **completions**: only a running job can complete, so there is at most one per CPU. A
//!   tournament tree over the CPUs keeps the earliest at its root: setting or clearing a CPU's
//!   completion costs `O(log m)` and there are no stale entries, because a job switched out
//!   has its completion cleared at once.
//! - **everything else** (aborts, abort-handler ends, hand-overs of waiting jobs, policy
//!   timers, lock/unlock milestones, budget exhaustions) goes to a general binary heap of
//!   [`Ev`]; these are rare unless the system is overloaded or the policy uses timers,
//!   budgets, aborts or resources. A budget exhaustion is superseded rather
//!   than removed when its job stops running: the engine recognises a stale one by its serial.
//!
//! [`EventQueue::peek`] merges the three heads; every operation is `O(log n)` or `O(log m)`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Event classes, in same-instant order.
pub(crate) const COMPLETION: u8 = 0;
pub(crate) const ABORT: u8 = 1;
/// The end of an abort handler on a CPU (`order` = the CPU).
pub(crate) const HANDLER: u8 = 2;
pub(crate) const RELEASE: u8 = 3;
pub(crate) const TIMER: u8 = 4;
/// A job reaches a lock or unlock offset of its execution (`order` = task, `arg` = serial).
pub(crate) const LOCK: u8 = 5;
pub(crate) const BUDGET: u8 = 6;
/// `Ev::arg` of a RELEASE event: a new arrival, or the hand-over of a waiting job (at one
/// instant and task, in this order).
pub(crate) const ARRIVAL: u64 = 0;
pub(crate) const HANDOVER: u64 = 1;
/// With overheads (`crate::overheads`): a delayed release becomes visible to the policy / its
/// release handler starts on a CPU.
pub(crate) const VISIBLE: u64 = 2;
pub(crate) const IRQ: u64 = 3;

/// A pending event. Field order is the total event order: time, class, then `order` (task
/// index, or the arming serial for timers), then `arg` (job seq, arrival/hand-over, timer
/// id) — ties never depend on the queue's internals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Ev {
    pub(crate) time: u64,
    pub(crate) class: u8,
    pub(crate) order: u64,
    pub(crate) arg: u64,
}

/// Where the head event came from (what [`EventQueue::pop`] must remove).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// The earliest completion, of the job running on this CPU.
    Completion(u32),
    /// The earliest arrival.
    Arrival,
    /// The general heap.
    Other,
}

const EMPTY: u128 = u128::MAX;

/// `(time, task)` packed so that one integer comparison orders arrivals.
fn arrival_key(time: u64, task: u32) -> u128 {
    (u128::from(time) << 64) | u128::from(task)
}

/// `(time, task, cpu)` packed: completions order by time, then task (unique among running
/// jobs); the CPU rides along so the head knows which leaf to clear.
fn completion_key(time: u64, task: u32, cpu: u32) -> u128 {
    (u128::from(time) << 64) | (u128::from(task) << 32) | u128::from(cpu)
}

/// Earliest-completion tournament tree over `m` CPUs (leaves padded to a power of two).
struct Completions {
    leaves: usize,
    /// `tree[1]` is the root; leaf `c` is `tree[leaves + c]`; `EMPTY` means none.
    tree: Vec<u128>,
    /// Job seq of each CPU's pending completion.
    seq: Vec<u64>,
}

impl Completions {
    fn new(cpus: usize) -> Completions {
        let leaves = cpus.max(1).next_power_of_two();
        Completions {
            leaves,
            tree: vec![EMPTY; 2 * leaves],
            seq: vec![0; cpus],
        }
    }

    fn update(&mut self, cpu: usize, key: u128) {
        let mut i = self.leaves + cpu;
        let Some(leaf) = self.tree.get_mut(i) else {
            return;
        };
        *leaf = key;
        let mut value = key;
        while i > 1 {
            let sibling = self.tree.get(i ^ 1).copied().unwrap_or(EMPTY);
            i /= 2;
            let Some(node) = self.tree.get_mut(i) else {
                return;
            };
            let min = value.min(sibling);
            if *node == min {
                return; // nothing above changes
            }
            *node = min;
            value = min;
        }
    }

    fn head(&self) -> Option<Ev> {
        let key = self.tree.get(1).copied().unwrap_or(EMPTY);
        if key == EMPTY {
            return None;
        }
        let cpu = (key & u128::from(u32::MAX)) as u32;
        let task = ((key >> 32) & u128::from(u32::MAX)) as u64;
        Some(Ev {
            time: (key >> 64) as u64,
            class: COMPLETION,
            order: task,
            arg: self.seq.get(cpu as usize).copied().unwrap_or(0),
        })
    }

    fn head_cpu(&self) -> u32 {
        let key = self.tree.get(1).copied().unwrap_or(EMPTY);
        (key & u128::from(u32::MAX)) as u32
    }
}

/// All pending events of a run.
pub(crate) struct EventQueue {
    arrivals: BinaryHeap<Reverse<u128>>,
    completions: Completions,
    other: BinaryHeap<Reverse<Ev>>,
}

impl EventQueue {
    /// An empty queue for `tasks` tasks on `cpus` CPUs.
    pub(crate) fn new(tasks: usize, cpus: usize) -> EventQueue {
        EventQueue {
            arrivals: BinaryHeap::with_capacity(tasks),
            completions: Completions::new(cpus),
            other: BinaryHeap::new(),
        }
    }

    /// Queues the arrival of `task` at `time` (at most one pending per task).
    pub(crate) fn push_arrival(&mut self, time: u64, task: u32) {
        self.arrivals.push(Reverse(arrival_key(time, task)));
    }

    /// Removes the head arrival and queues `next` (the same task's next arrival) if any, in
    /// one sift-down.
    pub(crate) fn advance_arrival(&mut self, next: Option<u64>) {
        match next {
            Some(time) => {
                if let Some(mut top) = self.arrivals.peek_mut() {
                    let task = (top.0 & u128::from(u32::MAX)) as u32;
                    *top = Reverse(arrival_key(time, task));
                }
            }
            None => {
                self.arrivals.pop();
            }
        }
    }

    /// The job `(task, seq)` running on `cpu` completes at `time`.
    pub(crate) fn set_completion(&mut self, cpu: u32, time: u64, task: u32, seq: u64) {
        if let Some(s) = self.completions.seq.get_mut(cpu as usize) {
            *s = seq;
            self.completions
                .update(cpu as usize, completion_key(time, task, cpu));
        }
    }

    /// `cpu`'s job stopped running: it has no pending completion.
    pub(crate) fn clear_completion(&mut self, cpu: u32) {
        if (cpu as usize) < self.completions.seq.len() {
            self.completions.update(cpu as usize, EMPTY);
        }
    }

    /// Queues an abort, hand-over, timer or budget-exhaustion event.
    pub(crate) fn push_other(&mut self, ev: Ev) {
        self.other.push(Reverse(ev));
    }

    /// The earliest pending event and where it is kept.
    pub(crate) fn peek(&self) -> Option<(Ev, Source)> {
        let mut best: Option<(Ev, Source)> = self
            .completions
            .head()
            .map(|ev| (ev, Source::Completion(self.completions.head_cpu())));
        if let Some(Reverse(key)) = self.arrivals.peek() {
            let ev = Ev {
                time: (key >> 64) as u64,
                class: RELEASE,
                order: (key & u128::from(u32::MAX)) as u64,
                arg: ARRIVAL,
            };
            if best.is_none_or(|(b, _)| ev < b) {
                best = Some((ev, Source::Arrival));
            }
        }
        if let Some(Reverse(ev)) = self.other.peek() {
            if best.is_none_or(|(b, _)| *ev < b) {
                best = Some((*ev, Source::Other));
            }
        }
        best
    }

    /// The earliest pending event after only completions changed since `prev` was peeked:
    /// cheaper than [`EventQueue::peek`] unless `prev` itself was a completion.
    pub(crate) fn repeek_completions(&self, prev: Option<(Ev, Source)>) -> Option<(Ev, Source)> {
        match prev {
            Some((_, Source::Completion(_))) | None => self.peek(),
            Some((ev, source)) => match self.completions.head() {
                Some(c) if c < ev => Some((c, Source::Completion(self.completions.head_cpu()))),
                _ => Some((ev, source)),
            },
        }
    }

    /// Removes the head of a non-arrival source (arrivals are advanced with
    /// [`EventQueue::advance_arrival`] once the next arrival time is known).
    pub(crate) fn pop(&mut self, source: Source) {
        match source {
            Source::Completion(cpu) => self.clear_completion(cpu),
            Source::Arrival => {
                self.arrivals.pop();
            }
            Source::Other => {
                self.other.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn drain(q: &mut EventQueue) -> Vec<Ev> {
        let mut out = Vec::new();
        while let Some((ev, src)) = q.peek() {
            out.push(ev);
            q.pop(src);
        }
        out
    }

    #[test]
    fn same_instant_order_is_class_then_task() {
        let mut q = EventQueue::new(4, 3);
        q.push_arrival(10, 2);
        q.push_arrival(10, 0);
        q.set_completion(1, 10, 3, 7);
        q.set_completion(0, 10, 1, 4);
        q.push_other(Ev {
            time: 10,
            class: RELEASE,
            order: 0,
            arg: HANDOVER,
        });
        q.push_other(Ev {
            time: 10,
            class: ABORT,
            order: 2,
            arg: 5,
        });
        q.push_other(Ev {
            time: 9,
            class: TIMER,
            order: 1,
            arg: 99,
        });
        let got: Vec<(u64, u8, u64, u64)> = drain(&mut q)
            .into_iter()
            .map(|e| (e.time, e.class, e.order, e.arg))
            .collect();
        assert_eq!(
            got,
            vec![
                (9, TIMER, 1, 99),
                (10, COMPLETION, 1, 4),
                (10, COMPLETION, 3, 7),
                (10, ABORT, 2, 5),
                (10, RELEASE, 0, ARRIVAL),
                (10, RELEASE, 0, HANDOVER),
                (10, RELEASE, 2, ARRIVAL),
            ]
        );
    }

    #[test]
    fn cleared_and_overwritten_completions_never_fire() {
        let mut q = EventQueue::new(1, 2);
        q.set_completion(0, 50, 0, 1);
        q.set_completion(1, 40, 1, 1);
        q.clear_completion(1);
        q.set_completion(0, 60, 0, 1); // re-dispatched later
        let got: Vec<u64> = drain(&mut q).into_iter().map(|e| e.time).collect();
        assert_eq!(got, vec![60]);
    }

    #[test]
    fn advancing_an_arrival_replaces_the_head() {
        let mut q = EventQueue::new(2, 1);
        q.push_arrival(5, 0);
        q.push_arrival(7, 1);
        q.advance_arrival(Some(20)); // task 0's next arrival
        let (ev, _) = q.peek().unwrap();
        assert_eq!((ev.time, ev.order), (7, 1));
        q.advance_arrival(None);
        let (ev, _) = q.peek().unwrap();
        assert_eq!((ev.time, ev.order), (20, 0));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        /// The split queue yields exactly the order of one sorted list of all events.
        #[test]
        fn matches_one_sorted_list(
            arrivals in proptest::collection::vec(0u64..50, 1..12),
            comps in proptest::collection::vec(proptest::option::of(0u64..50), 1..9),
            others in proptest::collection::vec((0u64..50, 1u8..5, 0u64..10, 0u64..3), 0..12),
        ) {
            let mut q = EventQueue::new(arrivals.len(), comps.len());
            let mut want = Vec::new();
            for (task, &t) in arrivals.iter().enumerate() {
                q.push_arrival(t, task as u32);
                want.push(Ev { time: t, class: RELEASE, order: task as u64, arg: ARRIVAL });
            }
            for (cpu, c) in comps.iter().enumerate() {
                if let Some(t) = c {
                    // Task ids of running jobs are unique: use 100 + cpu.
                    q.set_completion(cpu as u32, *t, 100 + cpu as u32, 3);
                    want.push(Ev { time: *t, class: COMPLETION, order: 100 + cpu as u64, arg: 3 });
                }
            }
            for &(time, class, order, arg) in &others {
                // Hand-overs only (arrivals have their own heap).
                let arg = if class == RELEASE { HANDOVER } else { arg };
                let ev = Ev { time, class, order, arg };
                q.push_other(ev);
                want.push(ev);
            }
            want.sort();
            prop_assert_eq!(drain(&mut q), want);
        }
    }
}
