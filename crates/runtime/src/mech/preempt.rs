//! Enforced preemption: a signal whose handler parks the thread.
//!
//! A job's body may never yield (a burn loop, or user code), so stopping it cannot be
//! cooperative. The runtime combines two mechanisms:
//! 1. **Priority**: each CPU's dispatcher thread runs at a SCHED_FIFO priority above every job
//!    thread and is pinned to its CPU, so while the dispatcher decides, the job on that CPU is
//!    not executing (the kernel preempted it when the dispatcher woke).
//! 2. **Signal**: to unlink the job, the dispatcher marks it parked and sends it
//!    [`preempt_signal`] with `tgkill`. A pending signal is delivered on the thread's next
//!    return to user space, *before* any further user instruction, so when the job thread is
//!    next scheduled it enters the handler, which calls the registered [`OnPreempt`] — the
//!    runtime's handler parks the thread on its futex until it is linked again.
//!
//! Bound: an unlinked job executes no instruction of its body after its CPU's dispatcher has
//! started running; the time from the decision (possibly on another CPU) to that point is the
//! notification latency plus the dispatcher's lock wait and scheduling work (Δipi + Δsch,
//! both traced). A job parked this way consumes no CPU time.
//!
//! The handler is async-signal-safe as long as the registered [`OnPreempt`] is: it must only
//! use atomics, futexes, the TSC and the signal-safe trace buffers (no locks, no allocation).
//! errno is saved and restored around it.

use super::sched::Tid;
use super::MechError;
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};

/// What a thread does when it receives the preemption signal.
pub trait OnPreempt: Send + Sync {
    /// Called in the signal handler on the target thread (async-signal-safe code only).
    fn on_signal(&self);
}

thread_local! {
    // `const`-initialised and without a destructor: reading it in a signal handler neither
    // allocates nor registers anything.
    static CURRENT: Cell<Option<NonNull<dyn OnPreempt>>> = const { Cell::new(None) };
}

/// The signal number used for preemption (SIGRTMIN + 3: above the real-time signals the C
/// library reserves for itself, unused by the Rust standard library).
pub fn preempt_signal() -> i32 {
    libc::SIGRTMIN() + 3
}

extern "C" fn handler(_sig: libc::c_int) {
    // SAFETY: `__errno_location` returns the calling thread's errno slot, always valid.
    let errno_slot = unsafe { libc::__errno_location() };
    // SAFETY: the slot is valid (above); saved so the handler's calls do not clobber the
    // interrupted code's errno.
    let saved = unsafe { *errno_slot };
    if let Some(p) = CURRENT.with(Cell::get) {
        // SAFETY: the pointer was set by `Registration::new` on this thread from an `Arc`
        // that the registration keeps alive, and it is cleared (on this same thread, so never
        // concurrently with this handler) before the registration drops that `Arc`.
        unsafe { p.as_ref() }.on_signal();
    }
    // SAFETY: as above.
    unsafe { *errno_slot = saved };
}

static INSTALLED: OnceLock<Result<(), MechError>> = OnceLock::new();

/// Installs the preemption signal handler for the process (once; later calls return the
/// first result).
pub fn install() -> Result<(), MechError> {
    INSTALLED
        .get_or_init(|| {
            // SAFETY: all-zero is a valid `sigaction` (empty mask, no flags) to fill in.
            let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
            sa.sa_sigaction = handler as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            // SAFETY: `sa.sa_mask` is a valid sigset_t to initialise.
            unsafe { libc::sigemptyset(&mut sa.sa_mask) };
            // SAFETY: `sa` is fully initialised; the old action is not needed (null).
            let r = unsafe { libc::sigaction(preempt_signal(), &sa, std::ptr::null_mut()) };
            if r != 0 {
                return Err(MechError::last("install the preemption signal handler"));
            }
            Ok(())
        })
        .clone()
}

/// While alive, the preemption signal on this thread calls `target`.
pub struct Registration {
    _target: Arc<dyn OnPreempt>,
    // Not `Send`: it must be dropped on the thread that registered.
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Registration {
    /// Registers `target` for the calling thread.
    pub fn new(target: Arc<dyn OnPreempt>) -> Registration {
        let p = NonNull::from(&*target);
        CURRENT.with(|c| c.set(Some(p)));
        Registration {
            _target: target,
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(None));
    }
}

/// Sends the preemption signal to thread `tid` of this process.
pub fn send(tid: Tid) -> Result<(), MechError> {
    // SAFETY: `getpid` cannot fail.
    let pid = unsafe { libc::getpid() };
    // SAFETY: `tgkill` takes plain integers; a stale tid yields ESRCH, not undefined
    // behaviour, and the thread group check prevents signalling another process.
    let r = unsafe { libc::syscall(libc::SYS_tgkill, pid, tid, preempt_signal()) };
    if r != 0 {
        return Err(MechError::last(format!("signal thread {tid} (tgkill)")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mech::sched::gettid;
    use std::sync::atomic::{AtomicU32, Ordering};

    struct Count(AtomicU32);
    impl OnPreempt for Count {
        fn on_signal(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn the_signal_runs_the_registered_handler_on_the_target_thread() {
        install().unwrap();
        let c = Arc::new(Count(AtomicU32::new(0)));
        let reg = Registration::new(c.clone());
        send(gettid()).unwrap();
        // A signal sent to oneself is delivered before tgkill returns to user space.
        assert_eq!(c.0.load(Ordering::SeqCst), 1);
        drop(reg);
        send(gettid()).unwrap();
        assert_eq!(c.0.load(Ordering::SeqCst), 1);
    }
}
