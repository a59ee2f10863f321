//! A root domain of their own for the run's CPUs, so SCHED_DEADLINE threads can be confined
//! to a subset of the machine's CPUs.
//!
//! The kernel schedules deadline threads globally over their *root domain* and refuses
//! SCHED_DEADLINE to a thread whose affinity does not span it (EPERM); without cpusets the
//! root domain is the whole machine. The kernel's documented way to split it
//! (Documentation/scheduler/sched-deadline.rst §5, Documentation/admin-guide/cgroup-v1/
//! cpusets.rst §1.7) is a cgroup-v1 cpuset with `cpuset.sched_load_balance` on beneath a
//! root cpuset with it off: the cpuset's CPUs become a scheduling domain — and root domain —
//! of their own. [`RootDomain::isolate`] does exactly that for the duration of a run:
//!
//! 1. creates `schedlab-<pid>` under the root cpuset with the run's CPUs and the root's
//!    memory nodes;
//! 2. turns the root cpuset's `sched_load_balance` off (the machine's other CPUs are no
//!    longer load-balanced with the run's while the run lasts);
//! 3. [`RootDomain::attach`] moves the run's threads into it;
//!
//! and its `Drop` undoes it: threads back to the root cpuset, the directory removed, the
//! root's `sched_load_balance` back on. A process killed before that (SIGKILL) leaves the
//! split behind; the next `isolate` removes the cpusets of dead schedlab processes and
//! restores the balance, and `docs/runtime.md` gives the two commands to do it by hand.
//!
//! Only the cgroup-v1 cpuset hierarchy is supported (found through /proc/self/mountinfo);
//! the process must be in its root cpuset, and the root's `sched_load_balance` must be on
//! (another program's partitioning of the machine is never changed).

use super::cgroup_v1::{dismantle, mount_of, own_cgroup, owner_pid, pid_alive, read, write};
use super::sched::Tid;
use super::MechError;
use schedlab_model::interop::deploy::cpu_list; // "1", "0,2-3": the kernel's list format
use std::fs;
use std::path::{Path, PathBuf};

/// Prefix of the cpusets this module creates (followed by the creating process's pid).
pub use super::cgroup_v1::PREFIX;

/// The run's CPUs split off as a root domain (see the module doc); undone on drop.
#[derive(Debug)]
pub struct RootDomain {
    root: PathBuf,
    dir: PathBuf,
    /// What `isolate` found and repaired (stale cpusets of dead runs), for the run's warnings.
    pub repaired: Vec<String>,
}

fn unsupported(message: String) -> MechError {
    super::cgroup_v1::unsupported("give the run's CPUs a root domain of their own", message)
}

impl RootDomain {
    /// Splits `cpus` (physical) off as a root domain for this process's threads (see the
    /// module doc). Errors say what is missing: no cgroup-v1 cpuset hierarchy, not in the
    /// root cpuset, the machine already partitioned, no permission.
    pub fn isolate(cpus: &[u32]) -> Result<RootDomain, MechError> {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| MechError::from_io("read /proc/self/mountinfo", &e))?;
        let root = mount_of(&mountinfo, "cpuset").ok_or_else(|| {
            unsupported("no cgroup-v1 cpuset hierarchy is mounted (this needs `mount -t cgroup -o cpuset cpuset /sys/fs/cgroup/cpuset`; cgroup-v2 cpuset partitions are not supported yet)".into())
        })?;
        let own = fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| MechError::from_io("read /proc/self/cgroup", &e))?;
        match own_cgroup(&own, "cpuset") {
            Some("/") => {}
            other => {
                return Err(unsupported(format!(
                    "this process is in the cpuset {} rather than the root cpuset (a container?)",
                    other.unwrap_or("(none)")
                )))
            }
        }
        let balance = root.join("cpuset.sched_load_balance");
        let mut repaired = Vec::new();
        // Cpusets left by runs that were killed: remove them and undo their split.
        if let Ok(entries) = fs::read_dir(&root) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if let Some(pid) = owner_pid(&name) {
                    if !pid_alive(pid) {
                        dismantle(&root, &e.path(), "cpuset")?;
                        repaired.push(format!(
                            "removed the cpuset {} left by a killed run (pid {pid})",
                            e.path().display()
                        ));
                        if read(&balance)? == "0" {
                            write(&balance, "1")?;
                            repaired.push(format!("restored {} to 1", balance.display()));
                        }
                    }
                }
            }
        }
        if read(&balance)? != "1" {
            return Err(unsupported(format!(
                "{} is 0: the machine's scheduling domains are already partitioned by another program; schedlab does not change them",
                balance.display()
            )));
        }
        let all = read(&root.join("cpuset.effective_cpus"))
            .or_else(|_| read(&root.join("cpuset.cpus")))?;
        let mems = read(&root.join("cpuset.mems"))?;
        let dir = root.join(format!("{PREFIX}{}", std::process::id()));
        fs::create_dir(&dir)
            .map_err(|e| MechError::from_io(format!("create the cpuset {}", dir.display()), &e))?;
        let domain = RootDomain {
            root,
            dir,
            repaired,
        };
        let list = cpu_list(cpus);
        write(&domain.dir.join("cpuset.cpus"), &list).map_err(|e| match e {
            MechError::Os { errno, .. } if errno == libc::EINVAL => unsupported(format!(
                "CPUs {list} are not all in the root cpuset's CPUs {all}"
            )),
            e => e,
        })?;
        write(&domain.dir.join("cpuset.mems"), &mems)?;
        write(&domain.dir.join("cpuset.sched_load_balance"), "1")?;
        write(&balance, "0")?;
        Ok(domain)
    }

    /// Moves thread `tid` into the domain's cpuset (its affinity becomes the domain's CPUs).
    pub fn attach(&self, tid: Tid) -> Result<(), MechError> {
        write(&self.dir.join("tasks"), &tid.to_string())
    }

    /// The cpuset's directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for RootDomain {
    fn drop(&mut self) {
        // Balance back on first: the machine's domains are whole again even if a thread left
        // behind keeps the directory busy.
        let _ = fs::write(self.root.join("cpuset.sched_load_balance"), "1");
        let _ = dismantle(&self.root, &self.dir, "cpuset");
    }
}

/// Whether a cpuset split of an earlier run is still in place (for tests and diagnostics):
/// the directories of this module under the cpuset root, if the hierarchy is mounted.
pub fn leftovers() -> Vec<PathBuf> {
    let Some(root) = fs::read_to_string("/proc/self/mountinfo")
        .ok()
        .and_then(|m| mount_of(&m, "cpuset"))
    else {
        return Vec::new();
    };
    fs::read_dir(root)
        .map(|it| {
            it.flatten()
                .filter(|e| owner_pid(&e.file_name().to_string_lossy()).is_some())
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_its_own_directories() {
        assert_eq!(owner_pid("schedlab-1234"), Some(1234));
        assert_eq!(owner_pid("schedlab-x"), None);
        assert_eq!(owner_pid("docker"), None);
    }
}
