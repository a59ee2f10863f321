//! Clocks: CLOCK_MONOTONIC (the time base of releases and timeouts), the calling thread's
//! CPU-time clock (what a job consumes), absolute sleeps, and the TSC.
//!
//! # The TSC clock
//! Timestamps on the hot path (trace events) are raw "ticks": the TSC read with `rdtscp`
//! (ordered after earlier instructions, ~10–30 ns, no syscall) when the CPU has an invariant
//! TSC (CPUID 0x8000_0007 EDX bit 8: constant rate, synchronised across cores), otherwise
//! CLOCK_MONOTONIC nanoseconds. Ticks are converted to CLOCK_MONOTONIC nanoseconds with a
//! linear fit of two (TSC, CLOCK_MONOTONIC) pairs: one taken when the clock is created and a
//! second one taken later ([`TickClock::refit`], at the end of a run), so the fitted frequency
//! is measured over the whole run (error ~2 µs / run length) instead of a short calibration.

/// Reads clock `id`, in nanoseconds.
fn read(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is writable; clock_gettime with a valid clock id only writes it.
    unsafe { libc::clock_gettime(id, &mut ts) };
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

/// CLOCK_MONOTONIC now, in ns.
pub fn monotonic_ns() -> u64 {
    read(libc::CLOCK_MONOTONIC)
}

/// The calling thread's consumed CPU time (CLOCK_THREAD_CPUTIME_ID), in ns.
pub fn thread_cputime_ns() -> u64 {
    read(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// The CPU time thread `tid` (a kernel thread id of this process) has consumed, in ns: its
/// CPU-time clock (`MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)`, what
/// `pthread_getcpuclockid` returns, read with `clock_gettime`). `None` if the kernel refuses
/// (no such thread). One system call (~0.2–1 µs; the kernel updates a thread that is running
/// on another CPU first), used by the runtime's budget timers [RTPS §IV-A].
pub fn thread_cputime_of(tid: i32) -> Option<u64> {
    if tid <= 0 {
        return None;
    }
    // The thread CPU clock id of the kernel's ABI: (~tid << 3) | CPUCLOCK_PERTHREAD_MASK (4)
    // | CPUCLOCK_SCHED (2).
    let id = ((!tid) << 3) | 6;
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is writable; clock_gettime only writes it, and returns an error (not
    // undefined behaviour) for a clock id that names no thread.
    let r = unsafe { libc::clock_gettime(id, &mut ts) };
    (r == 0).then(|| {
        (ts.tv_sec as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add(ts.tv_nsec as u64)
    })
}

/// Sleeps until CLOCK_MONOTONIC reaches `deadline_ns` (absolute; restarts after signals).
pub fn sleep_until(deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: `ts` is a valid timespec; the remainder pointer may be null with
        // TIMER_ABSTIME.
        let r = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        if r != libc::EINTR {
            return;
        }
    }
}

/// Whether the CPU has an invariant TSC.
#[cfg(target_arch = "x86_64")]
pub fn invariant_tsc() -> bool {
    use std::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86_64 CPU; leaf 0x8000_0000 reports the highest
    // extended leaf, which is checked before reading leaf 0x8000_0007.
    #[allow(unused_unsafe)]
    let max_ext = unsafe { __cpuid(0x8000_0000) }.eax;
    if max_ext < 0x8000_0007 {
        return false;
    }
    // SAFETY: as above; the leaf exists (checked).
    #[allow(unused_unsafe)]
    let edx = unsafe { __cpuid(0x8000_0007) }.edx;
    edx & (1 << 8) != 0
}

/// Whether the CPU has an invariant TSC (never, off x86_64).
#[cfg(not(target_arch = "x86_64"))]
pub fn invariant_tsc() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn rdtscp() -> u64 {
    rdtscp_aux().0
}

/// The TSC and the TSC_AUX register, read by one instruction (so the pair is consistent even
/// if the thread migrates right before or after). Linux keeps the CPU number in the low 12
/// bits of TSC_AUX (the vDSO's `getcpu` reads it the same way).
#[cfg(target_arch = "x86_64")]
fn rdtscp_aux() -> (u64, u32) {
    let mut aux = 0u32;
    // SAFETY: only called when `invariant_tsc()` held, which implies RDTSCP support on
    // every CPU with an invariant TSC; it writes `aux` (the TSC_AUX value) only.
    let t = unsafe { std::arch::x86_64::__rdtscp(&mut aux) };
    (t, aux)
}

#[cfg(not(target_arch = "x86_64"))]
fn rdtscp() -> u64 {
    monotonic_ns()
}

#[cfg(not(target_arch = "x86_64"))]
fn rdtscp_aux() -> (u64, u32) {
    (monotonic_ns(), u32::MAX)
}

/// Whether TSC_AUX holds the CPU number here: compared with `sched_getcpu` around a read
/// (a migration in between makes a try inconclusive; then the next one decides).
fn aux_is_cpu() -> bool {
    for _ in 0..16 {
        let before = super::sched::current_cpu();
        let (_, aux) = rdtscp_aux();
        let after = super::sched::current_cpu();
        if before.is_some() && before == after {
            return before == Some(aux & 0xfff);
        }
    }
    false
}

/// Ticks and the CPU the caller ran on at that instant, read without a window in which a
/// migration could pair one CPU's time with another CPU (`rdtscp` with TSC_AUX when it
/// holds the CPU number; else the CPU is read before and after the clock until both agree).
/// `None`: the CPU could not be determined.
fn ticks_and_cpu_of(tsc: bool, aux_cpu: bool) -> (u64, Option<u32>) {
    if tsc && aux_cpu {
        let (t, aux) = rdtscp_aux();
        return (t, Some(aux & 0xfff));
    }
    let read = || if tsc { rdtscp() } else { monotonic_ns() };
    for _ in 0..8 {
        let before = super::sched::current_cpu();
        let t = read();
        if before.is_some() && super::sched::current_cpu() == before {
            return (t, before);
        }
    }
    (read(), None)
}

/// A (ticks, CLOCK_MONOTONIC ns) pair taken close together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pair {
    ticks: u64,
    mono: u64,
}

/// The hot-path clock: raw ticks, converted to CLOCK_MONOTONIC ns by a two-point fit.
#[derive(Clone, Copy, Debug)]
pub struct TickClock {
    tsc: bool,
    /// TSC_AUX holds the CPU number (see [`TickClock::ticks_and_cpu`]).
    aux_cpu: bool,
    a: Pair,
    b: Pair,
}

impl TickClock {
    /// The TSC if it is invariant, else CLOCK_MONOTONIC; calibrated over `calibrate_ns`
    /// (a first estimate, refined by [`TickClock::refit`]).
    pub fn new(calibrate_ns: u64) -> TickClock {
        let tsc = invariant_tsc();
        let mut c = TickClock {
            tsc,
            aux_cpu: tsc && aux_is_cpu(),
            a: Pair { ticks: 0, mono: 0 },
            b: Pair { ticks: 1, mono: 1 },
        };
        if tsc {
            c.a = c.pair();
            sleep_until(c.a.mono.saturating_add(calibrate_ns.max(1_000_000)));
            c.b = c.pair();
        }
        c
    }

    /// A clock that always uses CLOCK_MONOTONIC (ticks = ns).
    pub fn monotonic() -> TickClock {
        TickClock {
            tsc: false,
            aux_cpu: false,
            a: Pair { ticks: 0, mono: 0 },
            b: Pair { ticks: 1, mono: 1 },
        }
    }

    /// Whether ticks are TSC cycles (else CLOCK_MONOTONIC ns).
    pub fn is_tsc(&self) -> bool {
        self.tsc
    }

    /// Ticks now (no syscall when the TSC is used).
    #[inline]
    pub fn ticks(&self) -> u64 {
        if self.tsc {
            rdtscp()
        } else {
            monotonic_ns()
        }
    }

    /// Ticks now and the (physical) CPU the caller ran on at that instant: one `rdtscp`
    /// where TSC_AUX holds the CPU number (Linux on x86_64), else the CPU read before and
    /// after the clock until both agree. [`Self::ticks`] followed by
    /// [`super::sched::current_cpu`] is not enough where the pair must be consistent: a
    /// thread preempted between the two reads and resumed elsewhere pairs the old CPU's time
    /// with the new CPU (the kernel baselines' burn loop once recorded a job on a CPU at an
    /// instant another job ran there).
    #[inline]
    pub fn ticks_and_cpu(&self) -> (u64, Option<u32>) {
        ticks_and_cpu_of(self.tsc, self.aux_cpu)
    }

    /// The pair with the tightest bracket of five tries.
    fn pair(&self) -> Pair {
        let mut best = (u64::MAX, Pair { ticks: 0, mono: 0 });
        for _ in 0..5 {
            let t0 = rdtscp();
            let mono = monotonic_ns();
            let t1 = rdtscp();
            let width = t1.wrapping_sub(t0);
            if width < best.0 {
                best = (
                    width,
                    Pair {
                        ticks: t0 + width / 2,
                        mono,
                    },
                );
            }
        }
        best.1
    }

    /// Re-measures the second fit point now (call at the end of a run: the frequency is then
    /// measured over the whole run).
    pub fn refit(&mut self) {
        if self.tsc {
            let p = self.pair();
            if p.ticks > self.a.ticks && p.mono > self.a.mono {
                self.b = p;
            }
        }
    }

    /// Ticks per second (for reports).
    pub fn frequency_hz(&self) -> f64 {
        if !self.tsc {
            return 1e9;
        }
        let dt = self.b.ticks.saturating_sub(self.a.ticks) as f64;
        let dm = self.b.mono.saturating_sub(self.a.mono) as f64;
        if dm > 0.0 {
            dt * 1e9 / dm
        } else {
            0.0
        }
    }

    /// CLOCK_MONOTONIC ns of a tick value.
    #[inline]
    pub fn to_mono_ns(&self, ticks: u64) -> u64 {
        if !self.tsc {
            return ticks;
        }
        let dt = i128::from(self.b.ticks) - i128::from(self.a.ticks);
        let dm = i128::from(self.b.mono) - i128::from(self.a.mono);
        if dt <= 0 {
            return self.a.mono;
        }
        let off = (i128::from(ticks) - i128::from(self.a.ticks)) * dm / dt;
        u64::try_from(i128::from(self.a.mono) + off).unwrap_or(0)
    }

    /// CLOCK_MONOTONIC now, in ns, from the ticks.
    #[inline]
    pub fn now_mono_ns(&self) -> u64 {
        self.to_mono_ns(self.ticks())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fitted clock agrees with CLOCK_MONOTONIC; the bound is loose (a shared machine),
    /// it catches a wrong formula (off by factors), not jitter.
    #[test]
    fn ticks_convert_to_monotonic_time() {
        let mut c = TickClock::new(5_000_000);
        sleep_until(monotonic_ns() + 5_000_000);
        c.refit();
        let mono = monotonic_ns();
        let conv = c.now_mono_ns();
        assert!(conv.abs_diff(mono) < 5_000_000, "{conv} vs {mono}");
        let m = TickClock::monotonic();
        assert!(!m.is_tsc() && m.to_mono_ns(42) == 42);
    }

    #[test]
    fn cpu_time_advances_only_when_running() {
        let a = thread_cputime_ns();
        sleep_until(monotonic_ns() + 20_000_000);
        let b = thread_cputime_ns();
        // 20 ms asleep costs far less than 20 ms of CPU time.
        assert!(b - a < 10_000_000, "{}", b - a);
    }

    /// Another thread's CPU clock, read from here, sees what that thread burned (it burns
    /// 3 ms of its own CPU time, measured by itself, then reports its tid and waits); a tid
    /// that names no thread is `None`.
    #[test]
    fn another_threads_cpu_clock_is_read_by_its_tid() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let h = std::thread::spawn(move || {
            let start = thread_cputime_ns();
            while thread_cputime_ns() - start < 3_000_000 {}
            let own = thread_cputime_ns();
            tx.send((crate::mech::sched::gettid(), own)).unwrap();
            done_rx.recv().unwrap();
        });
        let (tid, own) = rx.recv().unwrap();
        let seen = thread_cputime_of(tid).expect("the thread exists");
        // It only waits on a channel after reporting: its clock is at least what it saw.
        assert!(seen >= own && seen >= 3_000_000, "{seen} vs {own}");
        done_tx.send(()).unwrap();
        h.join().unwrap();
        assert_eq!(thread_cputime_of(0), None);
        assert_eq!(thread_cputime_of(-5), None);
    }
}
