//! Execution intervals: the pairs SwitchIn → SwitchOut of a job (of one strand of a parallel
//! job) on a CPU, shared by the Gantt and Perfetto exports.
//!
//! Events are processed in slice order (the emission order, which is nondecreasing in time;
//! same-instant events keep their order, so a SwitchOut at `t` closes before a SwitchIn at `t`
//! opens). Traces cut out of a longer run have unmatched edges, which are tolerated:
//! - a SwitchOut with no open interval on its CPU started before the trace: the interval
//!   starts at the trace start and has `open_start`;
//! - an interval still open at the end of the trace ends at the trace end with `open_end`;
//! - a SwitchIn on a CPU that still has an open interval (a lost SwitchOut) ends that interval
//!   at the new SwitchIn's time, with `open_end`;
//! - a SwitchOut of a job other than the one open on its CPU ends the open one (`open_end`).
//!
//! Times going backwards (a malformed trace) never produce `end < start`: ends are clamped.

use std::collections::BTreeMap;

use crate::event::{Event, Kind, NO_CPU};

/// One execution interval of a job on a CPU (ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Interval {
    /// Start time.
    pub start: u64,
    /// CPU.
    pub cpu: u32,
    /// Task index.
    pub task: u32,
    /// Job sequence number.
    pub seq: u64,
    /// Strand (the thread of a parallel job; 0 for a sequential job).
    pub strand: u32,
    /// End time (≥ `start`).
    pub end: u64,
    /// The SwitchIn was not in the trace (started at or before the trace start).
    pub open_start: bool,
    /// The SwitchOut was not in the trace (still running at the trace end, or lost).
    pub open_end: bool,
}

impl Interval {
    /// Length in ns.
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    /// Whether the interval has zero length.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// The execution intervals of `events`, with the trace edges at the first and last event time.
/// Sorted by (start, cpu, task, seq, strand, end).
pub fn intervals(events: &[Event]) -> Vec<Interval> {
    let start = events.iter().map(|e| e.time).min().unwrap_or(0);
    let end = events.iter().map(|e| e.time).max().unwrap_or(0);
    intervals_between(events, start, end)
}

/// The execution intervals of `events` for a trace that covers `[trace_start, trace_end]`.
/// Sorted by (start, cpu, task, seq, strand, end).
pub fn intervals_between(events: &[Event], trace_start: u64, trace_end: u64) -> Vec<Interval> {
    // Open interval per CPU: (task, seq, strand, start). BTreeMap for a deterministic drain
    // order.
    let mut open: BTreeMap<u32, (u32, u64, u32, u64)> = BTreeMap::new();
    let mut out = Vec::new();
    let close = |out: &mut Vec<Interval>,
                 cpu,
                 (task, seq, strand, start): (u32, u64, u32, u64),
                 end: u64,
                 oe: bool| {
        out.push(Interval {
            start,
            cpu,
            task,
            seq,
            strand,
            end: end.max(start),
            open_start: false,
            open_end: oe,
        });
    };
    for e in events {
        if e.cpu == NO_CPU {
            continue;
        }
        match e.kind {
            Kind::SwitchIn => {
                if let Some(prev) = open.insert(e.cpu, (e.task, e.seq, e.strand, e.time)) {
                    close(&mut out, e.cpu, prev, e.time, true);
                }
            }
            Kind::SwitchOut => match open.remove(&e.cpu) {
                Some(cur) if cur.0 == e.task && cur.1 == e.seq && cur.2 == e.strand => {
                    close(&mut out, e.cpu, cur, e.time, false);
                }
                Some(other) => close(&mut out, e.cpu, other, e.time, true),
                None => {
                    let start = trace_start.min(e.time);
                    out.push(Interval {
                        start,
                        cpu: e.cpu,
                        task: e.task,
                        seq: e.seq,
                        strand: e.strand,
                        end: e.time,
                        open_start: true,
                        open_end: false,
                    });
                }
            },
            _ => {}
        }
    }
    for (cpu, cur) in open {
        close(&mut out, cpu, cur, trace_end, true);
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(t: u64, k: Kind, cpu: u32, task: u32, seq: u64) -> Event {
        Event::new(t, k, cpu, task, seq)
    }

    #[test]
    fn matched_pairs() {
        let es = [
            ev(0, Kind::Release, NO_CPU, 0, 0),
            ev(0, Kind::SwitchIn, 0, 0, 0),
            ev(0, Kind::SwitchIn, 1, 1, 0),
            ev(5, Kind::SwitchOut, 0, 0, 0),
            ev(5, Kind::SwitchIn, 0, 2, 0),
            ev(7, Kind::SwitchOut, 1, 1, 0),
            ev(9, Kind::SwitchOut, 0, 2, 0),
        ];
        let iv = intervals(&es);
        assert_eq!(iv.len(), 3);
        assert_eq!(
            (iv[0].cpu, iv[0].task, iv[0].start, iv[0].end),
            (0, 0, 0, 5)
        );
        assert_eq!(
            (iv[1].cpu, iv[1].task, iv[1].start, iv[1].end),
            (1, 1, 0, 7)
        );
        assert_eq!(
            (iv[2].cpu, iv[2].task, iv[2].start, iv[2].end),
            (0, 2, 5, 9)
        );
        assert!(iv.iter().all(|i| !i.open_start && !i.open_end));
    }

    #[test]
    fn unmatched_edges() {
        let es = [
            ev(3, Kind::SwitchOut, 0, 4, 1), // started before the trace
            ev(3, Kind::SwitchIn, 0, 5, 0),
            ev(4, Kind::SwitchIn, 1, 6, 0), // never switched out
            ev(6, Kind::SwitchIn, 0, 7, 0), // lost SwitchOut of 5
            ev(8, Kind::SwitchOut, 0, 7, 0),
        ];
        let iv = intervals_between(&es, 1, 10);
        assert_eq!(iv.len(), 4);
        assert_eq!(
            iv[0],
            Interval {
                start: 1,
                cpu: 0,
                task: 4,
                seq: 1,
                strand: 0,
                end: 3,
                open_start: true,
                open_end: false
            }
        );
        assert_eq!(
            iv[1],
            Interval {
                start: 3,
                cpu: 0,
                task: 5,
                seq: 0,
                strand: 0,
                end: 6,
                open_start: false,
                open_end: true
            }
        );
        assert_eq!(
            iv[2],
            Interval {
                start: 4,
                cpu: 1,
                task: 6,
                seq: 0,
                strand: 0,
                end: 10,
                open_start: false,
                open_end: true
            }
        );
        assert_eq!(iv[3].task, 7);
        assert!(!iv[3].open_end);
    }

    #[test]
    fn time_going_backwards_does_not_underflow() {
        let es = [
            ev(9, Kind::SwitchIn, 0, 0, 0),
            ev(2, Kind::SwitchOut, 0, 0, 0),
        ];
        let iv = intervals(&es);
        assert_eq!(iv.len(), 1);
        assert_eq!(iv[0].len(), 0);
    }
}
