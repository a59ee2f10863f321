//! The lock of the `global-lock` architecture: one lock guards the policy state and the
//! CPU→job links, and every CPU's dispatcher takes it to schedule (GSN-EDF; ChronOS
//! stop-the-world). Three kinds, as compared in [ChronOS §7]:
//! - **ticket**: FIFO spin lock on two counters (fair; all waiters spin on one cache line);
//! - **MCS**: FIFO queue lock, each waiter spins on its own node (Mellor-Crummey & Scott);
//!   nodes are preallocated, one per dispatcher slot, so it needs no pointers or allocation;
//! - **mutex**: a futex mutex (three-state, Drepper's "Futexes are tricky", mutex 2): waiters
//!   sleep in the kernel instead of spinning.
//!
//! Spinning is safe here because only dispatchers take the lock and each runs on its own CPU
//! at the highest real-time priority of the run, so a holder is never preempted by a spinner.

use super::futex;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Which lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    /// Ticket spin lock.
    Ticket,
    /// MCS queue lock.
    Mcs,
    /// Futex mutex.
    Mutex,
}

impl LockKind {
    /// `ticket`, `mcs`, `mutex`.
    pub fn name(self) -> &'static str {
        match self {
            LockKind::Ticket => "ticket",
            LockKind::Mcs => "mcs",
            LockKind::Mutex => "mutex",
        }
    }
    /// Parses a name.
    pub fn parse(s: &str) -> Option<LockKind> {
        match s {
            "ticket" => Some(LockKind::Ticket),
            "mcs" => Some(LockKind::Mcs),
            "mutex" => Some(LockKind::Mutex),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
struct McsNode {
    /// Successor's slot + 1 (0: none).
    next: AtomicU32,
    locked: AtomicBool,
}

#[derive(Debug)]
enum Raw {
    Ticket {
        next: AtomicU32,
        serving: AtomicU32,
    },
    Mcs {
        /// Tail's slot + 1 (0: unlocked).
        tail: AtomicU32,
        nodes: Box<[McsNode]>,
    },
    Mutex {
        /// 0 unlocked, 1 locked, 2 locked with waiters.
        state: AtomicU32,
    },
}

impl Raw {
    fn lock(&self, slot: usize) {
        match self {
            Raw::Ticket { next, serving } => {
                let me = next.fetch_add(1, Ordering::Relaxed);
                while serving.load(Ordering::Acquire) != me {
                    std::hint::spin_loop();
                }
            }
            Raw::Mcs { tail, nodes } => {
                let Some(node) = nodes.get(slot) else {
                    return;
                };
                node.next.store(0, Ordering::Relaxed);
                node.locked.store(true, Ordering::Relaxed);
                let prev = tail.swap(slot as u32 + 1, Ordering::AcqRel);
                if prev != 0 {
                    if let Some(p) = nodes.get(prev as usize - 1) {
                        p.next.store(slot as u32 + 1, Ordering::Release);
                    }
                    while node.locked.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                }
            }
            Raw::Mutex { state } => {
                if state
                    .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    return;
                }
                while state.swap(2, Ordering::Acquire) != 0 {
                    futex::wait(state, 2, None);
                }
            }
        }
    }

    fn unlock(&self, slot: usize) {
        match self {
            Raw::Ticket { serving, .. } => {
                serving.fetch_add(1, Ordering::Release);
            }
            Raw::Mcs { tail, nodes } => {
                let Some(node) = nodes.get(slot) else {
                    return;
                };
                let mut next = node.next.load(Ordering::Acquire);
                if next == 0 {
                    if tail
                        .compare_exchange(slot as u32 + 1, 0, Ordering::Release, Ordering::Relaxed)
                        .is_ok()
                    {
                        return;
                    }
                    // A successor swapped itself in but has not linked yet.
                    loop {
                        next = node.next.load(Ordering::Acquire);
                        if next != 0 {
                            break;
                        }
                        std::hint::spin_loop();
                    }
                }
                if let Some(n) = nodes.get(next as usize - 1) {
                    n.locked.store(false, Ordering::Release);
                }
            }
            Raw::Mutex { state } => {
                if state.swap(0, Ordering::Release) == 2 {
                    futex::wake(state, 1);
                }
            }
        }
    }
}

/// `T` guarded by a lock of kind [`LockKind`]; callers identify themselves by a slot
/// `0..slots` (their dispatcher index; the MCS queue node they spin on).
#[derive(Debug)]
pub struct Locked<T> {
    raw: Raw,
    slots: usize,
    data: UnsafeCell<T>,
}

// SAFETY: access to `data` is serialised by `raw` (mutual exclusion of all three kinds), so
// sharing a `Locked<T>` between threads is sound whenever `T` may be sent between them.
unsafe impl<T: Send> Sync for Locked<T> {}

impl<T> Locked<T> {
    /// `data` behind a lock of `kind` for callers `0..slots`.
    pub fn new(kind: LockKind, slots: usize, data: T) -> Locked<T> {
        let raw = match kind {
            LockKind::Ticket => Raw::Ticket {
                next: AtomicU32::new(0),
                serving: AtomicU32::new(0),
            },
            LockKind::Mcs => Raw::Mcs {
                tail: AtomicU32::new(0),
                nodes: (0..slots).map(|_| McsNode::default()).collect(),
            },
            LockKind::Mutex => Raw::Mutex {
                state: AtomicU32::new(0),
            },
        };
        Locked {
            raw,
            slots,
            data: UnsafeCell::new(data),
        }
    }

    /// Takes the lock as caller `slot` (a slot must not be used by two threads at once; a
    /// slot beyond `slots` is clamped to the last one).
    pub fn lock(&self, slot: usize) -> Guard<'_, T> {
        let slot = slot.min(self.slots.saturating_sub(1));
        self.raw.lock(slot);
        Guard { lock: self, slot }
    }

    /// The data, when nobody else can hold the lock.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

/// Exclusive access to the data until dropped.
pub struct Guard<'a, T> {
    lock: &'a Locked<T>,
    slot: usize,
}

impl<T> std::ops::Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: a `Guard` exists only between `raw.lock` and `raw.unlock`, so no other
        // reference to `data` exists.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> std::ops::DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`; `&mut self` makes this the only access through the guard.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        self.lock.raw.unlock(self.slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Mutual exclusion: 4 threads each add 1 to a non-atomic pair 20 000 times and check
    /// that both halves stay equal inside the critical section; the total must be exact.
    #[test]
    fn every_kind_excludes() {
        // No more threads than CPUs: a fair spin lock (ticket, MCS) whose next owner is
        // descheduled stalls every waiter for a whole time slice, so oversubscribing the CPUs
        // turns each hand-over into a context switch (the runtime never does: one dispatcher
        // per CPU). 2 threads still exercise every hand-over path.
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
        const ROUNDS: u64 = 5_000;
        for kind in [LockKind::Ticket, LockKind::Mcs, LockKind::Mutex] {
            let l = Arc::new(Locked::new(kind, threads, (0u64, 0u64)));
            let hs: Vec<_> = (0..threads)
                .map(|slot| {
                    let l = l.clone();
                    std::thread::spawn(move || {
                        for _ in 0..ROUNDS {
                            let mut g = l.lock(slot);
                            assert_eq!(g.0, g.1);
                            g.0 += 1;
                            std::hint::black_box(&mut *g);
                            g.1 += 1;
                        }
                    })
                })
                .collect();
            for h in hs {
                h.join().unwrap();
            }
            let l = Arc::try_unwrap(l).unwrap().into_inner();
            let total = ROUNDS * threads as u64;
            assert_eq!(l, (total, total), "{kind:?}");
            assert_eq!(LockKind::parse(kind.name()), Some(kind));
        }
    }
}
