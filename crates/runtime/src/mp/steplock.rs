//! A client's step lock with deferred notifications (`message-passing` with inline
//! completions, [`super::client::complete_inline`]).
//!
//! A client's side of the slot protocol ([`super::slot`]) must be one actor at a time: its
//! dispatcher thread, or a job thread that completes and runs the step itself. Both run on
//! the client's CPU, the dispatcher at a higher priority, so the dispatcher must never wait
//! for the lock (the holder could not run): a notification that finds the lock held is
//! *deferred* instead, and the holder looks for work when it lets go.
//!
//! - [`StepLock::try_lock`] / [`StepLock::unlock`]: a test-and-set flag (Acquire on taking,
//!   the release below on letting go).
//! - [`StepLock::notify`]: the notifier (the DSP after changing the client's `linked`, or the
//!   dispatcher itself) sets `pending`, then reads `held`; [`StepLock::unlock`] clears `held`,
//!   then takes `pending`; each side has a SeqCst fence between its write and its read. The
//!   fences are totally ordered: if the notifier's fence comes first, the holder's take
//!   (after its own fence) sees `pending`; otherwise the notifier's read (after its fence)
//!   sees the lock free and it rings the dispatcher — the Dekker argument: no notification
//!   is lost. Both may happen (a spurious wake-up, harmless: the dispatcher finds no work).
//!   Fences rather than SeqCst accesses: the same guarantee, and the form loom can check
//!   (it models SeqCst fences but treats SeqCst loads and stores as AcqRel).
//!
//! Model-checked with loom (below): `RUSTFLAGS="--cfg loom" cargo test -p schedlab-runtime
//! --lib --target-dir target/loom steplock`.

#[cfg(loom)]
use loom::sync::atomic::{fence, AtomicBool, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{fence, AtomicBool, Ordering};

/// See the module doc.
#[derive(Debug, Default)]
pub struct StepLock {
    held: AtomicBool,
    pending: AtomicBool,
}

impl StepLock {
    /// A free lock with nothing pending.
    pub fn new() -> StepLock {
        StepLock::default()
    }

    /// Takes the lock if free.
    pub fn try_lock(&self) -> bool {
        self.held
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Releases the lock; returns whether a notification was deferred meanwhile (then the
    /// caller looks for work and rings the dispatcher if there is any).
    pub fn unlock(&self) -> bool {
        self.held.store(false, Ordering::Release);
        fence(Ordering::SeqCst);
        self.pending.swap(false, Ordering::AcqRel)
    }

    /// Notifies the client: true if the caller must ring its dispatcher (the lock is free);
    /// false if the holder will see the notification when it lets go.
    pub fn notify(&self) -> bool {
        self.pending.store(true, Ordering::Release);
        fence(Ordering::SeqCst);
        !self.held.load(Ordering::Acquire)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn deferred_while_held_and_reported_at_release() {
        let l = StepLock::new();
        assert!(l.notify(), "free: ring");
        assert!(l.try_lock());
        assert!(!l.try_lock(), "one holder");
        assert!(!l.notify(), "held: deferred");
        assert!(l.unlock(), "the holder sees it");
        assert!(!l.unlock(), "once");
        assert!(l.try_lock());
        assert!(
            !l.unlock(),
            "nothing deferred (the earlier free notify was taken)"
        );
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use loom::sync::Arc;

    /// A holder runs a step and lets go; concurrently the DSP publishes work and notifies.
    /// The work is never lost: the holder saw it inside its step, or someone rang (the
    /// notifier because the lock was free, or the holder because the notification was
    /// deferred to it).
    #[test]
    fn no_notification_is_lost() {
        loom::model(|| {
            let lock = Arc::new(StepLock::new());
            let work = Arc::new(AtomicBool::new(false));
            let rings = Arc::new(AtomicUsize::new(0));
            let seen_in_step = Arc::new(AtomicBool::new(false));
            let holder = {
                let (lock, work, rings, seen) = (
                    lock.clone(),
                    work.clone(),
                    rings.clone(),
                    seen_in_step.clone(),
                );
                loom::thread::spawn(move || {
                    if lock.try_lock() {
                        // The step enacts whatever work it sees.
                        if work.load(Ordering::SeqCst) {
                            seen.store(true, Ordering::SeqCst);
                        }
                        if lock.unlock()
                            && work.load(Ordering::SeqCst)
                            && !seen.load(Ordering::SeqCst)
                        {
                            rings.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                })
            };
            work.store(true, Ordering::SeqCst);
            if lock.notify() {
                rings.fetch_add(1, Ordering::SeqCst);
            }
            holder.join().unwrap();
            assert!(
                seen_in_step.load(Ordering::SeqCst) || rings.load(Ordering::SeqCst) > 0,
                "the work was neither enacted nor rung"
            );
        });
    }
}
