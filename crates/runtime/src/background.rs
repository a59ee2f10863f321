//! The cache-thrashing background load of the overhead experiments [MP §IV]: "We ran a
//! cache-thrashing background workload to provoke maximum memory hierarchy" contention.
//!
//! One thread per CPU of the run, pinned to it, under SCHED_OTHER (so it only runs when no
//! real-time thread wants the CPU, as in LITMUS^RT studies), dirtying every cache line of its
//! own buffer (`bytes`, e.g. twice the last-level cache) over and over until the run ends.
//! Real-time jobs then start each job, and resume after each preemption, with caches and
//! memory bandwidth contended: overheads and CPMD are measured under the worst memory
//! conditions instead of a quiet machine.

use crate::error::RuntimeError;
use crate::mech::burn::WorkingSet;
use crate::mech::sched::{self, Class};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Running background threads; [`BackgroundLoad::stop`] ends and joins them (dropping does
/// too).
pub struct BackgroundLoad {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl BackgroundLoad {
    /// Starts one thrashing thread on each physical CPU of `cpus`, each with its own buffer of
    /// `bytes` bytes (allocated and touched by the thread itself, on its CPU).
    pub fn start(cpus: &[u32], bytes: u64) -> Result<BackgroundLoad, RuntimeError> {
        let size = usize::try_from(bytes).map_err(|_| RuntimeError::InvalidConfig {
            field: "background-load",
            message: format!("{bytes} bytes do not fit in memory"),
        })?;
        let stop = Arc::new(AtomicBool::new(false));
        let mut load = BackgroundLoad {
            stop: Arc::clone(&stop),
            threads: Vec::new(),
        };
        for &cpu in cpus {
            let stop = Arc::clone(&stop);
            let spawned = std::thread::Builder::new()
                .name(format!("sl-thrash{cpu}"))
                .spawn(move || {
                    // Best effort: a thread that cannot be pinned or demoted still thrashes.
                    let _ = sched::set_affinity(0, &[cpu]);
                    let _ = sched::set_class(0, Class::Other);
                    let mut set = WorkingSet::new(size);
                    while !stop.load(Ordering::Relaxed) {
                        set.walk();
                    }
                });
            match spawned {
                Ok(h) => load.threads.push(h),
                Err(e) => {
                    load.stop();
                    return Err(RuntimeError::InvalidConfig {
                        field: "background-load",
                        message: format!("cannot start a background thread: {e}"),
                    });
                }
            }
        }
        Ok(load)
    }

    /// Number of background threads.
    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Ends the background threads and waits for them.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for h in self.threads.drain(..) {
            let _ = h.join();
        }
    }
}

impl Drop for BackgroundLoad {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_one_thread_per_cpu_and_stops() {
        let cpus = sched::allowed_cpus().unwrap();
        let mut load = BackgroundLoad::start(&cpus, 1 << 20).unwrap();
        assert_eq!(load.threads(), cpus.len());
        std::thread::sleep(std::time::Duration::from_millis(20));
        load.stop();
        assert_eq!(load.threads(), 0);
    }
}
