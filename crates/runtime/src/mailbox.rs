//! The wait-free client → DSP mailboxes of `message-passing` [MP §III-B, "Shared mailbox"].
//!
//! One bounded single-producer/single-consumer ring per client: the producer is the client's
//! dispatcher, the consumer the DSP. (The paper shares one Feather-Trace buffer per socket
//! among its cores; with one ring per client no producer ever contends with another, which
//! is the "specific-purpose, single-writer, cache-coherency-friendly" buffer its footnote 4
//! suggests, and the DSP services the rings round-robin so no client starves.)
//!
//! # Protocol
//! `tail` is written only by the producer, `head` only by the consumer, each on its own
//! cache line. `push` reads `head` (Acquire), writes the slot (Relaxed stores), then
//! publishes it with `tail.store(t + 1, Release)`; `pop` reads `tail` (Acquire), reads the
//! slot, then frees it with `head.store(h + 1, Release)`. The Release/Acquire pairs order
//! the slot's contents before its publication and the consumer's reads before the slot's
//! reuse. Both operations take a bounded number of steps: wait-free. A full ring makes
//! `push` fail (it never waits); the runtime sizes each ring so that it cannot fill (see
//! [`Mailbox::for_tasks`]). The model is checked with loom (`RUSTFLAGS="--cfg loom" cargo
//! test -p schedlab-runtime --lib mailbox`).

#[cfg(loom)]
use loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Message kinds.
pub mod kind {
    /// The job scheduled on the sending client completed.
    pub const COMPLETE: u32 = 1;
    /// The job scheduled on the sending client asks for a lock operation (its resource and
    /// whether it unlocks are in its control block, `JobCtl::lock_op`; `crate::mp::lock`).
    pub const LOCK: u32 = 2;
}

/// One message: what happened, to which job, and when it was sent (raw ticks, for the
/// request latency Δreq).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    /// A [`kind`] constant.
    pub kind: u32,
    /// Task index.
    pub task: u32,
    /// Job sequence number.
    pub seq: u64,
    /// Ticks when it was sent.
    pub sent: u64,
}

#[derive(Debug)]
struct Slot {
    kind_task: AtomicU64,
    seq: AtomicU64,
    sent: AtomicU64,
}

/// An index on its own cache line (producer and consumer do not false-share).
#[derive(Debug)]
#[repr(align(64))]
struct Padded(AtomicUsize);

/// A bounded SPSC ring (see the module doc).
#[derive(Debug)]
pub struct Mailbox {
    slots: Box<[Slot]>,
    mask: usize,
    head: Padded,
    tail: Padded,
}

impl Mailbox {
    /// A ring of at least `capacity` messages (rounded up to a power of two, at least 2).
    pub fn new(capacity: usize) -> Mailbox {
        let cap = capacity.max(2).next_power_of_two();
        Mailbox {
            slots: (0..cap)
                .map(|_| Slot {
                    kind_task: AtomicU64::new(0),
                    seq: AtomicU64::new(0),
                    sent: AtomicU64::new(0),
                })
                .collect(),
            mask: cap - 1,
            head: Padded(AtomicUsize::new(0)),
            tail: Padded(AtomicUsize::new(0)),
        }
    }

    /// A ring that cannot fill in a run of `n` tasks. A client sends one message per
    /// completion of a job it ran and one per lock operation of a job it runs; a task's next
    /// job is handed to the policy only after the DSP processed its predecessor's completion,
    /// and a job's thread waits for the DSP's answer to a lock operation (given after the DSP
    /// took the message out) before it continues, so at most one unprocessed message per task
    /// can exist: `n` slots suffice (plus slack).
    pub fn for_tasks(n: usize) -> Mailbox {
        Mailbox::new(n + 2)
    }

    /// Capacity in messages.
    pub fn capacity(&self) -> usize {
        self.mask + 1
    }

    /// Appends `m` (producer only). Returns `m` back if the ring is full.
    pub fn push(&self, m: Message) -> Result<(), Message> {
        let t = self.tail.0.load(Ordering::Relaxed);
        let h = self.head.0.load(Ordering::Acquire);
        if t.wrapping_sub(h) > self.mask {
            return Err(m);
        }
        let Some(s) = self.slots.get(t & self.mask) else {
            return Err(m);
        };
        s.kind_task.store(
            (u64::from(m.kind) << 32) | u64::from(m.task),
            Ordering::Relaxed,
        );
        s.seq.store(m.seq, Ordering::Relaxed);
        s.sent.store(m.sent, Ordering::Relaxed);
        self.tail.0.store(t.wrapping_add(1), Ordering::Release);
        Ok(())
    }

    /// Takes the oldest message (consumer only).
    pub fn pop(&self) -> Option<Message> {
        let h = self.head.0.load(Ordering::Relaxed);
        let t = self.tail.0.load(Ordering::Acquire);
        if h == t {
            return None;
        }
        let s = self.slots.get(h & self.mask)?;
        let kt = s.kind_task.load(Ordering::Relaxed);
        let m = Message {
            kind: (kt >> 32) as u32,
            task: (kt & 0xFFFF_FFFF) as u32,
            seq: s.seq.load(Ordering::Relaxed),
            sent: s.sent.load(Ordering::Relaxed),
        };
        self.head.0.store(h.wrapping_add(1), Ordering::Release);
        Some(m)
    }

    /// Whether a message is waiting (consumer side; a cheap poll of the producer's line).
    pub fn has_message(&self) -> bool {
        self.tail.0.load(Ordering::Acquire) != self.head.0.load(Ordering::Relaxed)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn msg(i: u64) -> Message {
        Message {
            kind: kind::COMPLETE,
            task: i as u32 + 7,
            seq: i,
            sent: 100 + i,
        }
    }

    #[test]
    fn fifo_order_and_full_ring() {
        let b = Mailbox::new(3); // rounded up to 4
        assert_eq!(b.capacity(), 4);
        assert!(b.pop().is_none() && !b.has_message());
        for i in 0..4 {
            b.push(msg(i)).unwrap();
        }
        assert_eq!(b.push(msg(9)), Err(msg(9)));
        assert!(b.has_message());
        assert_eq!(b.pop(), Some(msg(0)));
        b.push(msg(4)).unwrap();
        for i in 1..5 {
            assert_eq!(b.pop(), Some(msg(i)));
        }
        assert!(b.pop().is_none());
    }

    #[test]
    fn two_threads_pass_every_message_once_in_order() {
        let b = std::sync::Arc::new(Mailbox::new(4));
        let p = b.clone();
        let h = std::thread::spawn(move || {
            for i in 0..10_000 {
                while p.push(msg(i)).is_err() {
                    std::hint::spin_loop();
                }
            }
        });
        let mut next = 0;
        while next < 10_000 {
            if let Some(m) = b.pop() {
                assert_eq!(m, msg(next));
                next += 1;
            }
        }
        h.join().unwrap();
        assert!(b.pop().is_none());
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;

    /// Every interleaving of one producer pushing three messages through a ring of two
    /// slots and one consumer popping them: each arrives once, in order, intact.
    #[test]
    fn spsc_ring_is_fifo_and_lossless() {
        loom::model(|| {
            let b = Arc::new(Mailbox::new(2));
            let p = b.clone();
            let h = loom::thread::spawn(move || {
                for i in 0..3u64 {
                    let m = Message {
                        kind: 1,
                        task: i as u32,
                        seq: i,
                        sent: 10 * i,
                    };
                    while p.push(m).is_err() {
                        loom::thread::yield_now();
                    }
                }
            });
            let mut next = 0u64;
            while next < 3 {
                match b.pop() {
                    Some(m) => {
                        assert_eq!(
                            (m.kind, m.task, m.seq, m.sent),
                            (1, next as u32, next, 10 * next)
                        );
                        next += 1;
                    }
                    None => loom::thread::yield_now(),
                }
            }
            h.join().unwrap();
            assert!(b.pop().is_none());
        });
    }
}
