//! Threads and their scheduling: ids, CPU affinity, SCHED_FIFO / SCHED_OTHER.
//!
//! Linux applies `sched_setaffinity` and `sched_setscheduler` to the thread whose *tid* is
//! given (0 = the caller), so a dispatcher can pin or re-prioritise any job thread.

use super::MechError;

/// A kernel thread id.
pub type Tid = i32;

/// The calling thread's id.
pub fn gettid() -> Tid {
    // SAFETY: `gettid` has no arguments and cannot fail.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) };
    Tid::try_from(tid).unwrap_or(0)
}

/// The CPU the caller runs on now (a hint: it may migrate right after).
pub fn current_cpu() -> Option<u32> {
    // SAFETY: `sched_getcpu` has no arguments; it returns -1 on error.
    let c = unsafe { libc::sched_getcpu() };
    u32::try_from(c).ok()
}

/// Pins thread `tid` (0 = caller) to the CPUs in `cpus` (physical numbers).
pub fn set_affinity(tid: Tid, cpus: &[u32]) -> Result<(), MechError> {
    // SAFETY: `cpu_set_t` is a plain bit array; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    for &c in cpus {
        let c = c as usize;
        if c >= max {
            return Err(MechError::Os {
                what: format!("pin thread {tid} to CPU {c}"),
                errno: libc::EINVAL,
                message: format!("CPU number beyond {max}"),
            });
        }
        // SAFETY: `c` is below the set's capacity (checked above).
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: `set` is a valid, initialised cpu_set_t of the size passed.
    let r = unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r != 0 {
        return Err(MechError::last(format!(
            "pin thread {tid} to CPUs {cpus:?}"
        )));
    }
    Ok(())
}

/// The CPUs the calling thread may run on (its affinity mask), ascending.
pub fn allowed_cpus() -> Result<Vec<u32>, MechError> {
    // SAFETY: all-zero is a valid empty cpu_set_t.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is writable and of the size passed.
    let r = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if r != 0 {
        return Err(MechError::last("read the CPU affinity (sched_getaffinity)"));
    }
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    Ok((0..max)
        // SAFETY: `c` is below the set's capacity.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .map(|c| c as u32)
        .collect())
}

/// Number of CPUs configured in the system (online or not).
pub fn configured_cpus() -> u32 {
    // SAFETY: `sysconf` with a valid name has no other effect.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
    u32::try_from(n).unwrap_or(0)
}

/// A scheduling class and priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// SCHED_FIFO with a priority in 1..=99.
    Fifo(u8),
    /// SCHED_OTHER (CFS), the default.
    Other,
}

/// Sets thread `tid`'s (0 = caller) scheduling class. EPERM →
/// [`MechError::NotPermitted`].
pub fn set_class(tid: Tid, class: Class) -> Result<(), MechError> {
    let (policy, prio) = match class {
        Class::Fifo(p) => (libc::SCHED_FIFO, i32::from(p)),
        Class::Other => (libc::SCHED_OTHER, 0),
    };
    let param = libc::sched_param {
        sched_priority: prio,
    };
    // SAFETY: `param` is a valid sched_param for the duration of the call.
    let r = unsafe { libc::sched_setscheduler(tid, policy, &param) };
    if r != 0 {
        return Err(MechError::last(format!(
            "set thread {tid} to {class:?} (sched_setscheduler)"
        )));
    }
    Ok(())
}

/// `SCHED_DEADLINE` (not exported by the libc crate; `include/uapi/linux/sched.h`).
pub const SCHED_DEADLINE: u32 = 6;

/// `struct sched_attr` of `sched_setattr(2)` (version 0, 48 bytes).
#[repr(C)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
}

/// Puts thread `tid` (0 = caller) under SCHED_DEADLINE with `runtime ≤ deadline ≤ period`
/// (ns). The kernel refuses with EBUSY when its admission control (the sum of
/// runtime/period of the root domain's deadline threads within `sched_rt_runtime_us /
/// sched_rt_period_us` of each CPU) fails, and with EPERM when the caller lacks privilege
/// *or* the thread's affinity does not span its whole root domain (deadline threads are
/// scheduled globally over a root domain); callers explain which.
pub fn set_deadline(
    tid: Tid,
    runtime_ns: u64,
    deadline_ns: u64,
    period_ns: u64,
) -> Result<(), MechError> {
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        sched_policy: SCHED_DEADLINE,
        sched_flags: 0,
        sched_nice: 0,
        sched_priority: 0,
        sched_runtime: runtime_ns,
        sched_deadline: deadline_ns,
        sched_period: period_ns,
    };
    // SAFETY: `attr` is a fully initialised sched_attr whose `size` field is its size; the
    // kernel only reads it during the call; flags 0.
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_setattr,
            tid,
            &attr as *const SchedAttr,
            0u32,
        )
    };
    if r != 0 {
        return Err(MechError::last(format!(
            "set thread {tid} to SCHED_DEADLINE (runtime {runtime_ns} ns, deadline {deadline_ns} ns, period {period_ns} ns)"
        )));
    }
    Ok(())
}

/// Thread `tid`'s (0 = caller) current class.
pub fn get_class(tid: Tid) -> Result<Class, MechError> {
    // SAFETY: no pointers; returns -1 on error.
    let policy = unsafe { libc::sched_getscheduler(tid) };
    if policy < 0 {
        return Err(MechError::last(format!(
            "read thread {tid}'s scheduling class"
        )));
    }
    let mut param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is writable for the duration of the call.
    let r = unsafe { libc::sched_getparam(tid, &mut param) };
    if r != 0 {
        return Err(MechError::last(format!("read thread {tid}'s priority")));
    }
    Ok(match policy {
        libc::SCHED_FIFO => Class::Fifo(u8::try_from(param.sched_priority).unwrap_or(1)),
        _ => Class::Other,
    })
}

/// Restores the caller's scheduling class when dropped — also while unwinding from a panic —
/// so a thread that leaves a run (normally or not) never stays real-time.
pub struct ClassGuard {
    restore: Class,
}

impl ClassGuard {
    /// Remembers the caller's class now (SCHED_OTHER if it cannot be read).
    pub fn new() -> ClassGuard {
        ClassGuard {
            restore: get_class(0).unwrap_or(Class::Other),
        }
    }
    /// A guard that returns the caller to SCHED_OTHER.
    pub fn to_other() -> ClassGuard {
        ClassGuard {
            restore: Class::Other,
        }
    }
}

impl Default for ClassGuard {
    fn default() -> Self {
        ClassGuard::new()
    }
}

impl Drop for ClassGuard {
    fn drop(&mut self) {
        let _ = set_class(0, self.restore);
    }
}
