//! What the real-run test files share: whether this process may run real-time threads, and
//! the CPUs a real run may use — skipping loudly (`schedlab_testkit::skip`) when it cannot.

#![allow(dead_code)]

use schedlab_runtime::mech::sched::{self, Class, ClassGuard};
use schedlab_runtime::RunResult;

/// Whether a thread of this process may switch to SCHED_FIFO.
pub(crate) fn rt_permitted() -> bool {
    std::thread::spawn(|| {
        let _other = ClassGuard::to_other();
        sched::set_class(0, Class::Fifo(1)).is_ok()
    })
    .join()
    .unwrap_or(false)
}

/// The first `n` CPUs this process may use, or `None` after a loud skip of `test` (fewer
/// CPUs, or no SCHED_FIFO).
pub(crate) fn machine(test: &str, n: usize) -> Option<Vec<u32>> {
    let allowed = sched::allowed_cpus().unwrap_or_default();
    if allowed.len() < n {
        schedlab_testkit::skip(test, &format!("needs {n} CPUs, may use {allowed:?}"));
        return None;
    }
    if !rt_permitted() {
        schedlab_testkit::skip(
            test,
            "SCHED_FIFO is not permitted to this process: the run would not be real-time",
        );
        return None;
    }
    Some(allowed[..n].to_vec())
}

/// Prints a real run's totals and overhead statistics (`--nocapture`; the numbers reported in
/// docs/runtime.md).
pub(crate) fn print_run(name: &str, r: &RunResult) {
    eprintln!(
        "{name}: rt={} jobs={} completed={} misses={} preemptions={} migrations={} warnings={:?}",
        r.real_time,
        r.totals.jobs,
        r.totals.completed,
        r.totals.deadline_misses,
        r.totals.preemptions,
        r.totals.migrations,
        r.warnings
    );
    for (k, s) in r.overheads.stats() {
        eprintln!(
            "  {k:16} n={:6} min={:7} median={:7} mean={:9.0} p99={:8} max={:8}",
            s.count, s.min_ns, s.median_ns, s.mean_ns, s.p99_ns, s.max_ns
        );
    }
}
