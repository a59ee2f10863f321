//! The synchronous start and the watchdog of a run, shared by the user-space architectures
//! and the kernel baselines: wait (5 s at most) until every thread of the run is set up, fix
//! time zero a little ahead and release all threads at once [MP App. A], then sleep until the
//! horizon, an interrupt (SIGINT/SIGTERM) or a failure — whichever comes first — and raise the
//! stop flag. The caller's thread runs this at the highest priority of the run, so it ends the
//! run on time even under overload.

use crate::mech::clock::monotonic_ns;
use crate::mech::{futex, signals};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

/// How long threads may take to set up before the run is abandoned.
const SETUP_NS: u64 = 5_000_000_000;
/// Time zero lies this far after the release of the threads (they all reach their first
/// release wait by then).
const LEAD_NS: u64 = 5_000_000;

/// The flags the run's threads watch.
pub(crate) struct Flags<'a> {
    /// Threads count up here when set up.
    pub(crate) ready: &'a AtomicU32,
    /// Setup errors of the threads.
    pub(crate) errors: &'a Mutex<Vec<String>>,
    /// A thread failed during the run.
    pub(crate) failed: &'a AtomicBool,
    /// Time zero (monotonic ns), published before `go`.
    pub(crate) t0: &'a AtomicU64,
    /// Raised to release the threads (futex word).
    pub(crate) go: &'a AtomicU32,
    /// Raised to end the run.
    pub(crate) stop: &'a AtomicBool,
}

/// What happened.
pub(crate) struct Outcome {
    /// Time zero (monotonic ns).
    pub(crate) t0: u64,
    /// The run did not start (a thread reported a setup error, or did not get ready).
    pub(crate) setup_failed: bool,
    /// SIGINT/SIGTERM ended it early.
    pub(crate) interrupted: bool,
    /// The end of the accounting: `duration`, or the stop time of an early end.
    pub(crate) horizon_ns: u64,
}

/// Starts `total` set-up threads synchronously and watches the run for `duration` ns (see the
/// module doc); returns after raising `stop` (the caller rings and joins the threads).
pub(crate) fn start_and_watch(flags: &Flags<'_>, total: u32, duration: u64) -> Outcome {
    let setup_deadline = monotonic_ns() + SETUP_NS;
    loop {
        let seen = signals::EVENTS.load(Ordering::Acquire);
        if flags.ready.load(Ordering::Acquire) >= total || monotonic_ns() >= setup_deadline {
            break;
        }
        futex::wait(&signals::EVENTS, seen, Some(setup_deadline));
    }
    let any_error = flags.errors.lock().map_or(true, |e| !e.is_empty());
    let setup_failed = any_error || flags.ready.load(Ordering::Acquire) < total;
    let t0 = monotonic_ns() + LEAD_NS;
    flags.t0.store(t0, Ordering::Release);
    if setup_failed {
        flags.stop.store(true, Ordering::Release);
    }
    flags.go.store(1, Ordering::Release);
    futex::wake(flags.go, u32::MAX);

    let interrupts0 = signals::INTERRUPTS.load(Ordering::Acquire);
    let end = t0 + duration;
    let mut interrupted = false;
    if !setup_failed {
        loop {
            let seen = signals::EVENTS.load(Ordering::Acquire);
            if signals::INTERRUPTS.load(Ordering::Acquire) != interrupts0 {
                interrupted = true;
                break;
            }
            if flags.failed.load(Ordering::Acquire) || monotonic_ns() >= end {
                break;
            }
            futex::wait(&signals::EVENTS, seen, Some(end));
        }
    }
    // An early end (interrupt, failure) moves the horizon of the accounting to the stop time.
    let stopped_at = monotonic_ns().saturating_sub(t0).min(duration);
    let horizon_ns = if interrupted || flags.failed.load(Ordering::Acquire) {
        stopped_at
    } else {
        duration
    };
    flags.stop.store(true, Ordering::Release);
    Outcome {
        t0,
        setup_failed,
        interrupted,
        horizon_ns,
    }
}
