//! Wait-free per-thread trace buffers.
//!
//! Every thread of a runtime run (dispatcher or job thread) owns one [`TraceBuf`],
//! preallocated and pre-touched before time zero, and records [`Event`]s into it with raw
//! tick timestamps (the runtime's TSC clock, converted to ns after the run). Recording is a
//! `fetch_add` on the buffer's own index plus five relaxed stores: no lock, no allocation, no
//! system call, bounded steps (wait-free). A full buffer drops the event and counts it
//! ([`TraceBuf::dropped`]). The buffers are drained (ticks converted to ns since time zero,
//! merged by time) after every thread of the run has been joined.
//!
//! Why per thread and not per CPU: job threads migrate, so a per-CPU buffer would need rseq
//! or atomics contended across CPUs; a thread's own buffer is written by that thread only.
//!
//! Why the index is atomic although one thread writes: the runtime's preemption signal
//! handler records events on the thread it interrupts, possibly in the middle of another
//! `record`. `fetch_add` reserves a slot in one instruction, so the handler
//! and the interrupted code always get distinct slots (the slots are atomics too, so no
//! `unsafe` is needed).
//!
//! Why no loom model: there is no cross-thread publication while a run is live. Other threads
//! read a buffer only after joining its writer, and `join` makes all the writer's stores
//! visible (happens-before); during the run only the owning thread (and its own signal
//! handler, which runs on that thread) touches the buffer.

use crate::{Event, Kind};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

const WORDS: usize = 5;

/// A fixed-capacity, single-writer event buffer (see the module doc).
#[derive(Debug)]
pub struct TraceBuf {
    words: Box<[AtomicU64]>,
    next: AtomicUsize,
    capacity: usize,
}

impl TraceBuf {
    /// A buffer for `capacity` events, every page written once now.
    pub fn new(capacity: usize) -> TraceBuf {
        let words: Box<[AtomicU64]> = (0..capacity.saturating_mul(WORDS))
            .map(|_| AtomicU64::new(0))
            .collect();
        TraceBuf {
            words,
            next: AtomicUsize::new(0),
            capacity,
        }
    }

    /// Records an event at `ticks` (raw clock ticks), of strand 0 (a sequential job, or no
    /// job).
    #[inline]
    pub fn record(&self, ticks: u64, kind: Kind, cpu: u32, task: u32, seq: u64, arg: u64) {
        self.record_strand(ticks, kind, cpu, (task, seq, 0), arg);
    }

    /// Records an event at `ticks` about strand `job.2` of job (`job.0`, `job.1`) — a thread
    /// of a parallel job ([`Event::strand`]); the strand shares the kind's word (kind in the
    /// low 32 bits, strand in the high ones).
    #[inline]
    pub fn record_strand(&self, ticks: u64, kind: Kind, cpu: u32, job: (u32, u64, u32), arg: u64) {
        let (task, seq, strand) = job;
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = self.words.get(i * WORDS..i * WORDS + WORDS) else {
            return; // full: counted by `dropped`
        };
        let vals = [
            ticks,
            seq,
            arg,
            (u64::from(task) << 32) | u64::from(cpu),
            (u64::from(strand) << 32) | kind as u64,
        ];
        for (w, v) in slot.iter().zip(vals) {
            w.store(v, Ordering::Relaxed);
        }
    }

    /// Events recorded (up to the capacity).
    pub fn len(&self) -> usize {
        self.next.load(Ordering::Relaxed).min(self.capacity)
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events lost because the buffer was full.
    pub fn dropped(&self) -> u64 {
        self.next
            .load(Ordering::Relaxed)
            .saturating_sub(self.capacity) as u64
    }

    /// The recorded events with `time` still in raw ticks (call after the writer was joined).
    pub fn events(&self) -> Vec<Event> {
        let n = self.len();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let Some(w) = self.words.get(i * WORDS..i * WORDS + WORDS) else {
                break;
            };
            let get = |k: usize| w.get(k).map_or(0, |a| a.load(Ordering::Relaxed));
            let tc = get(3);
            let ks = get(4);
            let Some(kind) = u16::try_from(ks & 0xFFFF_FFFF)
                .ok()
                .and_then(Kind::from_code)
            else {
                continue;
            };
            out.push(Event {
                time: get(0),
                kind,
                cpu: (tc & 0xFFFF_FFFF) as u32,
                task: (tc >> 32) as u32,
                seq: get(1),
                arg: get(2),
                strand: (ks >> 32) as u32,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_in_order_and_counts_drops() {
        let b = TraceBuf::new(2);
        assert!(b.is_empty());
        b.record(5, Kind::SwitchIn, 1, 3, 7, 0);
        b.record(9, Kind::SwitchOut, 1, 3, 7, 42);
        b.record(11, Kind::Complete, 1, 3, 7, 0);
        let e = b.events();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0], Event::new(5, Kind::SwitchIn, 1, 3, 7));
        assert_eq!(e[1], Event::new(9, Kind::SwitchOut, 1, 3, 7).with_arg(42));
        assert_eq!(b.dropped(), 1);
    }

    /// A strand survives the round trip next to the kind; `record` writes strand 0.
    #[test]
    fn records_the_strand_of_a_parallel_job() {
        let b = TraceBuf::new(4);
        b.record_strand(5, Kind::Steal, 1, (3, 7, 4), 0);
        b.record_strand(6, Kind::SwitchIn, 1, (3, 7, u32::MAX), 0);
        b.record(7, Kind::SwitchIn, 0, 2, 1, 0);
        let e = b.events();
        assert_eq!(e[0], Event::new(5, Kind::Steal, 1, 3, 7).with_strand(4));
        assert_eq!(e[1].strand, u32::MAX);
        assert_eq!(e[1].kind, Kind::SwitchIn);
        assert_eq!(e[2].strand, 0);
        let e = TraceBuf::new(1);
        e.record(1, Kind::IpiSend, u32::MAX, u32::MAX, u64::MAX, 0);
        assert_eq!(e.events()[0].task, u32::MAX);
        assert_eq!(e.events()[0].cpu, u32::MAX);
    }
}
