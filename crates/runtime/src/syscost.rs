//! The costs of the runtime's own system calls and locks on this machine, like [ChronOS §9.3,
//! Fig. 9.14] (system calls: `gettid`, `clock_getres`, `sched_setaffinity`,
//! `sched_setscheduler`, ChronOS's `begin_rt_seg`/`end_rt_seg`; mutex lock + unlock,
//! uncontended). Here the primitives the runtime uses on its paths: clock reads (the vDSO's
//! CLOCK_MONOTONIC, the thread CPU clock — a real system call —, the TSC), `gettid`,
//! `sched_yield`, `sched_setaffinity` (a dispatcher re-pinning a job thread),
//! `sched_setscheduler` (a thread's class), a futex wake with no waiter, a futex park/unpark
//! round trip between two threads on two CPUs (a dispatcher waking a job thread and being
//! woken back: two wakes and two sleeps), and the global lock's three kinds (ticket, MCS,
//! futex mutex) acquire + release, uncontended and contended by a second thread on the
//! other CPU.
//!
//! Each primitive is timed in batches (CLOCK_MONOTONIC around `batch` calls, divided); the
//! result is the median and the minimum over `samples` batches (the minimum: the cost without
//! interference from the other programs on the machine). Bounded: `samples` ≤
//! [`MAX_SAMPLES`], `batch` ≤ [`MAX_BATCH`]; the contended and round-trip measurements run
//! two threads that stop when the measuring one is done. Run it under SCHED_FIFO (the
//! caller's choice) for numbers free of SCHED_OTHER preemption.
//!
//! Complexity: O(samples × batch) calls per primitive.

use crate::mech::{clock, futex, lock, sched};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

/// Most batches per primitive.
pub const MAX_SAMPLES: u32 = 10_000;
/// Most calls per batch.
pub const MAX_BATCH: u32 = 100_000;

/// One primitive's cost.
#[derive(Clone, Debug)]
pub struct Cost {
    /// What was timed.
    pub name: String,
    /// Median over the batches of the mean cost of one call (ns).
    pub median_ns: f64,
    /// Smallest batch mean (ns).
    pub min_ns: f64,
}

/// Times `f` in `samples` batches of `batch` calls.
fn time(name: &str, samples: u32, batch: u32, mut f: impl FnMut()) -> Cost {
    let (samples, batch) = (samples.clamp(1, MAX_SAMPLES), batch.clamp(1, MAX_BATCH));
    let mut v: Vec<f64> = Vec::with_capacity(samples as usize);
    for _ in 0..samples {
        let t0 = clock::monotonic_ns();
        for _ in 0..batch {
            f();
        }
        let dt = clock::monotonic_ns().saturating_sub(t0);
        v.push(dt as f64 / f64::from(batch));
    }
    v.sort_by(f64::total_cmp);
    Cost {
        name: name.to_string(),
        median_ns: v[v.len() / 2],
        min_ns: v[0],
    }
}

/// A thread pinned to `cpu` running `body` until `stop`.
fn helper(
    cpu: u32,
    stop: Arc<AtomicBool>,
    body: impl Fn() + Send + 'static,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let _ = sched::set_affinity(0, &[cpu]);
        while !stop.load(Ordering::Relaxed) {
            body();
        }
    })
}

/// Measures every primitive (module doc) with the measuring thread on `cpus[0]` and the
/// second thread, where one is needed, on `cpus[1]` (no second CPU: those are skipped).
pub fn measure(cpus: &[u32], samples: u32, batch: u32) -> Vec<Cost> {
    let mut out = Vec::new();
    let Some(&home) = cpus.first() else {
        return out;
    };
    let _ = sched::set_affinity(0, &[home]);
    let tsc = clock::TickClock::new(10_000_000);
    out.push(time(
        "clock_gettime(MONOTONIC) (vDSO)",
        samples,
        batch,
        || {
            std::hint::black_box(clock::monotonic_ns());
        },
    ));
    out.push(time("TSC read (rdtscp)", samples, batch, || {
        std::hint::black_box(tsc.ticks());
    }));
    out.push(time(
        "clock_gettime(THREAD_CPUTIME)",
        samples,
        batch,
        || {
            std::hint::black_box(clock::thread_cputime_ns());
        },
    ));
    out.push(time("gettid", samples, batch, || {
        std::hint::black_box(sched::gettid());
    }));
    out.push(time("sched_yield", samples, batch, || {
        std::thread::yield_now();
    }));
    out.push(time(
        "sched_setaffinity (same CPU)",
        samples,
        batch / 10,
        || {
            let _ = sched::set_affinity(0, &[home]);
        },
    ));
    let class = sched::get_class(0).ok();
    if let Some(c) = class {
        out.push(time(
            "sched_setscheduler (same class)",
            samples,
            batch / 10,
            || {
                let _ = sched::set_class(0, c);
            },
        ));
    }
    let word = AtomicU32::new(0);
    out.push(time("futex wake (no waiter)", samples, batch, || {
        futex::wake(&word, 1);
    }));
    for kind in [
        lock::LockKind::Ticket,
        lock::LockKind::Mcs,
        lock::LockKind::Mutex,
    ] {
        let l = lock::Locked::new(kind, 2, 0u64);
        out.push(time(
            &format!("{} lock + unlock, uncontended", kind.name()),
            samples,
            batch,
            || {
                *l.lock(0) += 1;
            },
        ));
    }
    if let Some(&other) = cpus.get(1) {
        out.extend(two_cpu(home, other, samples, batch));
    }
    out
}

/// The measurements that need a second thread on `other`.
fn two_cpu(_home: u32, other: u32, samples: u32, batch: u32) -> Vec<Cost> {
    let mut out = Vec::new();
    for kind in [
        lock::LockKind::Ticket,
        lock::LockKind::Mcs,
        lock::LockKind::Mutex,
    ] {
        let l = Arc::new(lock::Locked::new(kind, 2, 0u64));
        let stop = Arc::new(AtomicBool::new(false));
        let l2 = Arc::clone(&l);
        let h = helper(other, Arc::clone(&stop), move || {
            *l2.lock(1) += 1;
        });
        // Wait until the other thread takes the lock, so that every batch is contended. Sleep,
        // not spin: it starts on this CPU (it inherits this thread's affinity and real-time
        // priority) and must run here once to move itself to `other`.
        for _ in 0..1000 {
            if *l.lock(0) > 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let before = *l.lock(0);
        let mut c = time(
            &format!("{} lock + unlock, contended (2 CPUs)", kind.name()),
            samples,
            batch,
            || {
                *l.lock(0) += 1;
            },
        );
        stop.store(true, Ordering::Relaxed);
        let _ = h.join();
        // The other thread's share of the acquisitions while this one measured.
        let total = (*l.lock(0)).saturating_sub(before) as f64;
        let mine = f64::from(samples.clamp(1, MAX_SAMPLES)) * f64::from(batch.clamp(1, MAX_BATCH));
        c.name = format!(
            "{} (other CPU: {:.0}%)",
            c.name,
            100.0 * (total - mine).max(0.0) / total.max(1.0)
        );
        out.push(c);
    }
    // Park/unpark ping-pong: the word is 0 (home's turn) or 1 (the other's); each side sets
    // the other's turn, wakes it and sleeps until its own turn comes back.
    let word = Arc::new(AtomicU32::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (w2, s2) = (Arc::clone(&word), Arc::clone(&stop));
    let h = std::thread::spawn(move || {
        let _ = sched::set_affinity(0, &[other]);
        while !s2.load(Ordering::Relaxed) {
            if w2.load(Ordering::Acquire) == 1 {
                w2.store(0, Ordering::Release);
                futex::wake(&w2, 1);
            } else {
                let deadline = clock::monotonic_ns() + 10_000_000;
                futex::wait(&w2, 0, Some(deadline));
            }
        }
    });
    out.push(time(
        "futex park/unpark round trip (2 CPUs)",
        samples,
        (batch / 100).max(1),
        || {
            word.store(1, Ordering::Release);
            futex::wake(&word, 1);
            while word.load(Ordering::Acquire) == 1 {
                let deadline = clock::monotonic_ns() + 10_000_000;
                futex::wait(&word, 1, Some(deadline));
            }
        },
    ));
    stop.store(true, Ordering::Relaxed);
    word.store(1, Ordering::Release);
    futex::wake(&word, 1);
    let _ = h.join();
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// One small measurement on one CPU: every single-CPU primitive is reported once, with
    /// its minimum at most its median (no timing is judged).
    #[test]
    fn one_cpu_measurement_reports_every_primitive() {
        let cpu = sched::allowed_cpus().unwrap()[0];
        let costs = std::thread::spawn(move || measure(&[cpu], 3, 20))
            .join()
            .unwrap();
        for name in [
            "clock_gettime(MONOTONIC)",
            "TSC read",
            "gettid",
            "sched_yield",
            "sched_setaffinity",
            "futex wake",
            "ticket lock + unlock, uncontended",
            "mcs lock + unlock, uncontended",
            "mutex lock + unlock, uncontended",
        ] {
            let c: Vec<_> = costs.iter().filter(|c| c.name.starts_with(name)).collect();
            assert_eq!(c.len(), 1, "{name}: {costs:?}");
            assert!(c[0].min_ns <= c[0].median_ns, "{name}");
        }
        assert!(costs.iter().all(|c| !c.name.contains("contended (2 CPUs)")));
    }

    /// No CPU: nothing measured, no panic.
    #[test]
    fn no_cpu_measures_nothing() {
        assert!(measure(&[], 1, 1).is_empty());
    }
}
