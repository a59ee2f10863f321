//! Futex wait and wake on an `AtomicU32`: the park/unpark primitive of every thread of a run.
//!
//! Waits use `FUTEX_WAIT_BITSET` so the timeout is an *absolute* CLOCK_MONOTONIC time (no
//! drift from recomputing relative timeouts). Both are process-private futexes.

use std::sync::atomic::AtomicU32;

/// Why a wait returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Woken {
    /// A wake, a signal (EINTR), or the value differed already (EAGAIN): re-check the word.
    Maybe,
    /// The absolute deadline passed.
    TimedOut,
}

/// Blocks while `*word == expected`, until woken or until CLOCK_MONOTONIC reaches
/// `deadline_ns` (if given). Spurious returns are possible: callers loop on their condition.
pub fn wait(word: &AtomicU32, expected: u32, deadline_ns: Option<u64>) -> Woken {
    let ts = deadline_ns.map(|ns| libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    });
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a live, 4-byte aligned u32 for the duration of the call (an
    // `AtomicU32` has the layout of u32); `ts_ptr` is null or points to a timespec on this
    // stack frame; the kernel only reads both.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT_BITSET | libc::FUTEX_PRIVATE_FLAG,
            expected,
            ts_ptr,
            std::ptr::null::<u32>(),
            libc::FUTEX_BITSET_MATCH_ANY,
        )
    };
    if r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ETIMEDOUT) {
        Woken::TimedOut
    } else {
        Woken::Maybe
    }
}

/// Wakes up to `n` threads waiting on `word`.
pub fn wake(word: &AtomicU32, n: u32) {
    let n = i32::try_from(n).unwrap_or(i32::MAX);
    // SAFETY: `word` is a live u32; FUTEX_WAKE only uses its address as a key.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            n,
        );
    }
}
