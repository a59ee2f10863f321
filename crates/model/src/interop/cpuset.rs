//! What the shell script and the systemd units share about root domains: the cgroup-v1
//! cpuset hierarchy they use and what they say when it is not there.
//!
//! Linux schedules `SCHED_DEADLINE` threads globally over their *root domain* and refuses a
//! deadline thread whose affinity does not span it (EPERM; and `sched_setaffinity` of a
//! deadline thread to fewer CPUs, EBUSY). Without cpusets the root domain is the whole machine,
//! so partitioned (one CPU) and clustered (K CPUs) EDF need root domains of their own. The
//! kernel's documented way (Documentation/scheduler/sched-deadline.rst §5,
//! Documentation/admin-guide/cgroup-v1/cpusets.rst §1.7): one cpuset per domain with
//! `cpuset.cpu_exclusive = 1` and `cpuset.sched_load_balance = 1`, under a root cpuset with
//! `cpuset.sched_load_balance = 0`; a task joins its domain's cpuset *before* it becomes
//! `SCHED_DEADLINE` (the runtime's `--dl-cpuset` does the same, `mech/cpuset.rs`).

/// The cgroup-v1 cpuset hierarchy's usual mount point.
pub(crate) const CPUSET_ROOT: &str = "/sys/fs/cgroup/cpuset";

/// Why cgroup v2 is refused, and what to do instead (one line, no quotes).
pub(crate) const CGROUP_V2_REFUSAL: &str = "cgroup v2 (the unified hierarchy) is mounted and no cgroup-v1 cpuset hierarchy: this deployment makes its SCHED_DEADLINE root domains from cgroup-v1 cpusets only; with cgroup v2 make each root domain a cpuset partition by hand (cpuset.cpus, then cpuset.cpus.partition = root; docs/export.md, cgroup v2) and start the tasks in them";

/// The cpuset directory of root domain `d` under the name `prefix`.
pub(crate) fn domain_dir(prefix: &str, d: usize) -> String {
    format!("{prefix}-d{d}")
}
