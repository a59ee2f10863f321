//! The synchronous start and the watchdog of a run, shared by the user-space architectures
//! and the kernel baselines: wait (5 s at most) until every thread of the run is set up, fix
//! time zero a little ahead and release all threads at once [MP App. A], then sleep until the
//! horizon, an interrupt (SIGINT/SIGTERM) or a failure — whichever comes first — and raise the
//! stop flag. The caller's thread runs this at the highest priority of the run, so it ends the
//! run on time even under overload. Then the end: joining the threads within the grace period
//! ([`join_until`]) and the setup failure's message ([`setup_outcome`]).

use crate::error::RuntimeError;
use crate::mech::clock::{monotonic_ns, sleep_until};
use crate::mech::{futex, signals};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread::JoinHandle;

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
    let end = t0.saturating_add(duration);
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

/// Joins `handles`, waiting for each until CLOCK_MONOTONIC reaches `grace_end` (polling every
/// millisecond); returns the results of the threads that finished. A thread that panicked
/// adds the warning "a `what` panicked"; one still running is left (counted in
/// `left_behind`, see [`warn_left_behind`]).
pub(crate) fn join_until<T>(
    handles: Vec<JoinHandle<T>>,
    grace_end: u64,
    what: &str,
    warnings: &mut Vec<String>,
    left_behind: &mut usize,
) -> Vec<T> {
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        while !h.is_finished() && monotonic_ns() < grace_end {
            sleep_until(monotonic_ns() + 1_000_000);
        }
        if !h.is_finished() {
            *left_behind += 1;
            continue;
        }
        match h.join() {
            Ok(r) => out.push(r),
            Err(_) => warnings.push(format!("a {what} panicked")),
        }
    }
    out
}

/// The warning for threads left running after the grace period, if any.
pub(crate) fn warn_left_behind(left_behind: usize, warnings: &mut Vec<String>) {
    if left_behind > 0 {
        warnings.push(format!(
            "{left_behind} thread(s) did not finish within the grace period and were left running (a job body that ignores stop_requested?)"
        ));
    }
}

/// After the threads are joined: the error of a run that did not start (the threads' setup
/// errors in one message, or the timeout); otherwise the threads' errors (a body that
/// panicked, …) become warnings.
pub(crate) fn setup_outcome(
    errors: &Mutex<Vec<String>>,
    setup_failed: bool,
    warnings: &mut Vec<String>,
) -> Result<(), RuntimeError> {
    let mut errs: Vec<String> = errors.lock().map(|e| e.clone()).unwrap_or_default();
    if setup_failed {
        return Err(RuntimeError::Setup(if errs.is_empty() {
            "not every thread of the run started within 5 s".into()
        } else {
            summarize_errors(&mut errs)
        }));
    }
    warnings.extend(errs);
    Ok(())
}

/// One message for the setup failures of several threads: the task threads' usually fail for
/// the same reason, so the first (by task) is given in full and the others by task number
/// only; other threads' messages (dispatchers) follow in full.
fn summarize_errors(errs: &mut [String]) -> String {
    let task_of = |m: &str| -> Option<usize> {
        m.strip_prefix("task ")
            .and_then(|r| r.split(':').next())
            .and_then(|n| n.parse().ok())
    };
    errs.sort_by_key(|m| task_of(m).unwrap_or(usize::MAX));
    let (tasks, others): (Vec<&String>, Vec<&String>) =
        errs.iter().partition(|m| task_of(m).is_some());
    let mut parts: Vec<String> = Vec::new();
    if let Some((first, rest)) = tasks.split_first() {
        if rest.is_empty() {
            parts.push((*first).clone());
        } else {
            let nums: Vec<String> = rest
                .iter()
                .filter_map(|m| task_of(m))
                .map(|t| t.to_string())
                .collect();
            parts.push(format!(
                "{first} (the threads of tasks {} failed to start too)",
                nums.join(", ")
            ));
        }
    }
    parts.extend(others.into_iter().cloned());
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_failures_are_summarised_by_task() {
        let mut e = vec![
            "task 10: b".to_string(),
            "task 2: a".to_string(),
            "task 3: c".to_string(),
        ];
        assert_eq!(
            summarize_errors(&mut e),
            "task 2: a (the threads of tasks 3, 10 failed to start too)"
        );
        assert_eq!(
            summarize_errors(&mut ["task 1: x".to_string()]),
            "task 1: x"
        );
        assert_eq!(summarize_errors(&mut []), "");
        let mut mixed = vec![
            "dispatcher of CPU 1: EPERM".to_string(),
            "task 4: EPERM".to_string(),
        ];
        assert_eq!(
            summarize_errors(&mut mixed),
            "task 4: EPERM; dispatcher of CPU 1: EPERM"
        );
    }

    #[test]
    fn a_panicked_thread_is_a_warning_and_the_others_are_joined() {
        let hs = vec![
            std::thread::spawn(|| 1),
            std::thread::spawn(|| -> i32 { panic!("boom") }),
            std::thread::spawn(|| 3),
        ];
        let (mut w, mut left) = (Vec::new(), 0);
        let got = join_until(
            hs,
            monotonic_ns() + 5_000_000_000,
            "job thread",
            &mut w,
            &mut left,
        );
        assert_eq!(got, vec![1, 3]);
        assert_eq!(w, vec!["a job thread panicked".to_string()]);
        assert_eq!(left, 0);
    }
}
