//! SIGINT / SIGTERM during a run: instead of killing the process (leaving a half-written
//! trace), the handler bumps [`EVENTS`] and wakes whoever waits on it (the run's main
//! thread), which ends the run early, returns every thread to SCHED_OTHER and writes what was
//! gathered. The previous handlers are restored when the [`Capture`] is dropped.

use super::futex;
use super::MechError;
use std::sync::atomic::{AtomicU32, Ordering};

/// Bumped by every captured SIGINT/SIGTERM (and by [`notify`]); the main thread of a run
/// waits on it with a futex.
pub static EVENTS: AtomicU32 = AtomicU32::new(0);
/// Number of SIGINT/SIGTERM received since the process started.
pub static INTERRUPTS: AtomicU32 = AtomicU32::new(0);

extern "C" fn on_interrupt(_sig: libc::c_int) {
    // Only atomics and a futex wake: async-signal-safe.
    INTERRUPTS.fetch_add(1, Ordering::SeqCst);
    notify();
}

/// Bumps [`EVENTS`] and wakes its waiters (also used by threads that fail).
pub fn notify() {
    EVENTS.fetch_add(1, Ordering::SeqCst);
    futex::wake(&EVENTS, u32::MAX);
}

/// SIGINT and SIGTERM are captured while this lives.
pub struct Capture {
    old: Vec<(i32, libc::sigaction)>,
}

impl Capture {
    /// Installs the handlers.
    pub fn new() -> Result<Capture, MechError> {
        let mut old = Vec::new();
        for sig in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: all-zero is a valid sigaction to fill in.
            let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
            sa.sa_sigaction = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            // SAFETY: `sa.sa_mask` is a valid sigset_t.
            unsafe { libc::sigemptyset(&mut sa.sa_mask) };
            // SAFETY: all-zero is a valid sigaction for the kernel to overwrite.
            let mut prev: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: both structs are valid for the call.
            if unsafe { libc::sigaction(sig, &sa, &mut prev) } != 0 {
                return Err(MechError::last(format!("capture signal {sig}")));
            }
            old.push((sig, prev));
        }
        Ok(Capture { old })
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: `prev` is the action the kernel returned for `sig`.
            unsafe { libc::sigaction(*sig, prev, std::ptr::null_mut()) };
        }
    }
}
