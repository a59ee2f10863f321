//! Real-time group scheduling through the cgroup-v1 `cpu` controller (CONFIG_RT_GROUP_SCHED):
//! a tree of cgroups with `cpu.rt_period_us` / `cpu.rt_runtime_us` for the duration of a run,
//! undone afterwards (the `linux-rt-groups` baseline, `crate::arch::linux_rt_groups`).
//!
//! Linux's RT group scheduling (Documentation/scheduler/sched-rt-group.rst) gives each cgroup
//! `rt_runtime_us` of CPU time every `rt_period_us` **on each CPU** for its SCHED_FIFO/RR
//! threads and its subgroups; a group that used its runtime on a CPU is throttled there until
//! its period timer refills it. The kernel checks on every write that the runtime fits the
//! period and that the children's Σ runtime/period does not exceed their parent's (EINVAL),
//! and refuses to zero the runtime of a group that has RT threads (EBUSY). The bandwidth is the
//! same on every CPU, whatever the CPUs the group's threads may use: siblings add up on every
//! CPU. With the scheduler feature `RT_RUNTIME_SHARE` (off by default since Linux 5.10) a CPU
//! whose group ran out may borrow the unused runtime of the same group on other CPUs
//! ([`runtime_share`]).
//!
//! [`RtCgroups::create`] builds, for one run:
//!
//! 1. removes what runs killed by SIGKILL left (directories `schedlab-<pid>` whose pid is
//!    dead: [`repair`]);
//! 2. creates `schedlab-<pid>` under the hierarchy's root (the marker: the owning pid is in
//!    the name) with the root's period and all the runtime the root has left (its own runtime
//!    minus its other children's bandwidth), so that this outer level binds only where the
//!    machine's limit would anyway;
//! 3. creates one directory per group inside it, mirroring the groups' `parent` hierarchy,
//!    parents first, and writes each one's period, then its runtime (a new cgroup has runtime
//!    0, so the period can always be written first);
//! 4. [`RtCgroups::attach`] moves a thread into its group (before it becomes SCHED_FIFO: a
//!    FIFO thread may not enter a group with runtime 0, and the kernel refuses FIFO to a
//!    thread of such a group);
//!
//! and its `Drop` undoes it: every thread still in the tree back to the root cgroup, then the
//! directories removed children first (a cgroup with children or threads cannot be removed).
//! Runtime and period of pre-existing cgroups are never written.
//!
//! Only the cgroup-v1 `cpu` hierarchy is supported (found through /proc/self/mountinfo, also
//! when mounted together with `cpuacct`); the process must be in its root cgroup. Complexity:
//! O(g) writes for g groups; the repair walks the stale trees.

use super::cgroup_v1::{dismantle, mount_of, own_cgroup, owner_pid, pid_alive, read, write};
use super::sched::Tid;
use super::MechError;
use std::fs;
use std::path::{Path, PathBuf};

/// Prefix of the run directories this module creates (followed by the creating process's pid).
pub use super::cgroup_v1::PREFIX;

/// How long the run directory's runtime write is retried while the kernel refuses it
/// (EINVAL): the bandwidth of a cgroup removed just before is released asynchronously.
const RELEASE_WAIT_MS: u64 = 1000;

fn is_einval(r: &Result<(), MechError>) -> bool {
    matches!(r, Err(MechError::Os { errno, .. }) if *errno == libc::EINVAL)
}

/// Longest part of a group's name kept in its directory name.
const NAME_CHARS: usize = 48;

/// One group to create: its directory's name, its parent (an index into the same list, which
/// lists parents before children) and its bandwidth in µs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupSpec {
    /// Its directory's name ([`dir_name`]).
    pub dir: String,
    /// Its parent's index, if any.
    pub parent: Option<usize>,
    /// `cpu.rt_period_us`.
    pub period_us: u64,
    /// `cpu.rt_runtime_us`.
    pub runtime_us: u64,
}

/// What the run's own directory got: the root's period and what the root had left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunShare {
    /// `cpu.rt_period_us` (the root's).
    pub period_us: u64,
    /// `cpu.rt_runtime_us` (`None`: unlimited, the root's runtime is -1).
    pub runtime_us: Option<u64>,
}

/// Why the tree could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum SetupError {
    /// The hierarchy is missing or unusable, or a directory could not be made.
    Mech(MechError),
    /// The kernel refused a group's value: group index (`None`: the run's own directory), the
    /// file, the value and the error.
    Refused {
        /// The group (`None`: `schedlab-<pid>` itself).
        group: Option<usize>,
        /// `cpu.rt_period_us` or `cpu.rt_runtime_us`.
        file: &'static str,
        /// The value written.
        value: u64,
        /// The kernel's answer.
        error: MechError,
        /// The run directory's share (known once it was configured).
        share: Option<RunShare>,
    },
}

impl From<MechError> for SetupError {
    fn from(e: MechError) -> SetupError {
        SetupError::Mech(e)
    }
}

/// The run's cgroup tree (see the module doc); undone on drop.
#[derive(Debug)]
pub struct RtCgroups {
    root: PathBuf,
    run_dir: PathBuf,
    /// By group index.
    dirs: Vec<PathBuf>,
    share: RunShare,
    /// What the creation found and repaired (trees of killed runs), for the run's warnings.
    pub repaired: Vec<String>,
}

fn unsupported(message: String) -> MechError {
    super::cgroup_v1::unsupported(
        "set up real-time group scheduling (cgroup-v1 cpu controller)",
        message,
    )
}

fn read_i64(path: &Path) -> Result<i64, MechError> {
    let text = read(path)?;
    text.parse().map_err(|_| MechError::Os {
        what: format!("read {}", path.display()),
        errno: libc::EINVAL,
        message: format!("`{text}` is not a number"),
    })
}

/// The root of the cgroup-v1 `cpu` hierarchy, if mounted with the RT group files.
pub fn hierarchy() -> Option<PathBuf> {
    let root = fs::read_to_string("/proc/self/mountinfo")
        .ok()
        .and_then(|m| mount_of(&m, "cpu"))?;
    root.join("cpu.rt_runtime_us").exists().then_some(root)
}

/// A group's directory name: its index (unique, and never a control file's name) and its
/// name reduced to `[A-Za-z0-9_-]`, at most [`NAME_CHARS`] characters.
pub fn dir_name(index: usize, name: &str) -> String {
    let clean: String = name
        .chars()
        .take(NAME_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("g{index}-{clean}")
}

/// Removes the trees of runs killed before they could undo them (run directories whose pid is
/// dead), under the hierarchy's root `root`; returns one sentence per removed tree.
fn repair_under(root: &Path) -> Result<Vec<String>, MechError> {
    let mut repaired = Vec::new();
    let Ok(entries) = fs::read_dir(root) else {
        return Ok(repaired);
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if let Some(pid) = owner_pid(&name).filter(|&p| !pid_alive(p)) {
            dismantle(root, &e.path(), "cgroup")?;
            repaired.push(format!(
                "removed the RT group cgroups {} left by a killed run (pid {pid})",
                e.path().display()
            ));
        }
    }
    Ok(repaired)
}

/// Removes the cgroup trees of killed runs (see [`RtCgroups::create`], step 1); nothing if
/// the hierarchy is not mounted. One sentence per removed tree.
pub fn repair() -> Result<Vec<String>, MechError> {
    match hierarchy() {
        Some(root) => repair_under(&root),
        None => Ok(Vec::new()),
    }
}

/// The run directories of this module under the hierarchy's root (live or stale), for tests
/// and diagnostics.
pub fn leftovers() -> Vec<PathBuf> {
    let Some(root) = hierarchy() else {
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

/// Whether the scheduler feature `RT_RUNTIME_SHARE` is on, from a `sched/features` text
/// (`None`: not listed).
fn feature_on(features: &str, name: &str) -> Option<bool> {
    features.split_whitespace().find_map(|f| {
        if f == name {
            Some(true)
        } else {
            (f.strip_prefix("NO_") == Some(name)).then_some(false)
        }
    })
}

/// The state of `RT_RUNTIME_SHARE` (module doc), from debugfs (`/sys/kernel/debug/sched/
/// features`, or `sched_features` on kernels before 5.13); `None` where debugfs is not
/// mounted or does not list it.
pub fn runtime_share() -> Option<bool> {
    [
        "/sys/kernel/debug/sched/features",
        "/sys/kernel/debug/sched_features",
    ]
    .iter()
    .find_map(|p| fs::read_to_string(p).ok())
    .and_then(|f| feature_on(&f, "RT_RUNTIME_SHARE"))
}

/// The runtime (µs per `root_period` µs) the root has left for a new child: its own runtime
/// minus Σ over `siblings` (runtime, period) of their bandwidth, each rounded up to whole µs
/// of the root's period. `None` when the root is unlimited (runtime −1); a sibling that is
/// unlimited takes everything.
fn free_runtime(root_runtime: i64, root_period: u64, siblings: &[(i64, u64)]) -> Option<u64> {
    let mut free = u64::try_from(root_runtime).ok()?;
    for &(runtime, period) in siblings {
        let used = match u64::try_from(runtime) {
            Ok(r) => {
                let num = u128::from(r) * u128::from(root_period);
                let p = u128::from(period.max(1));
                u64::try_from(num.div_ceil(p)).unwrap_or(u64::MAX)
            }
            Err(_) => u64::MAX,
        };
        free = free.saturating_sub(used);
    }
    Some(free)
}

impl RtCgroups {
    /// Builds the run's tree for `groups` (parents listed before their children; see the
    /// module doc). Errors say what is missing (no cgroup-v1 `cpu` hierarchy with RT group
    /// files, not in the root cgroup, no permission) or which value the kernel refused.
    pub fn create(groups: &[GroupSpec]) -> Result<RtCgroups, SetupError> {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| MechError::from_io("read /proc/self/mountinfo", &e))?;
        let root = mount_of(&mountinfo, "cpu").ok_or_else(|| {
            unsupported("no cgroup-v1 hierarchy with the cpu controller is mounted (this needs `mount -t cgroup -o cpu cpu /sys/fs/cgroup/cpu`; cgroup v2 has no RT group bandwidth)".into())
        })?;
        if !root.join("cpu.rt_runtime_us").exists() {
            return Err(unsupported(format!(
                "{} has no cpu.rt_runtime_us: the kernel lacks CONFIG_RT_GROUP_SCHED (or it was disabled with rt_group_sched=0)",
                root.display()
            ))
            .into());
        }
        let own = fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| MechError::from_io("read /proc/self/cgroup", &e))?;
        match own_cgroup(&own, "cpu") {
            Some("/") => {}
            other => {
                return Err(unsupported(format!(
                    "this process is in the cpu cgroup {} rather than the root (a container?)",
                    other.unwrap_or("(none)")
                ))
                .into())
            }
        }
        let repaired = repair_under(&root)?;
        let share = Self::share_of(&root)?;
        let run_dir = root.join(format!("{PREFIX}{}", std::process::id()));
        fs::create_dir(&run_dir).map_err(|e| {
            MechError::from_io(format!("create the cgroup {}", run_dir.display()), &e)
        })?;
        let mut tree = RtCgroups {
            root,
            run_dir,
            dirs: Vec::with_capacity(groups.len()),
            share,
            repaired,
        };
        tree.configure(
            &tree.run_dir.clone(),
            None,
            share.period_us,
            share.runtime_us,
        )?;
        for (i, g) in groups.iter().enumerate() {
            let parent = match g.parent {
                Some(p) => tree.dirs.get(p).cloned().ok_or_else(|| {
                    unsupported(format!("cgroup {} is listed before its parent", g.dir))
                })?,
                None => tree.run_dir.clone(),
            };
            let dir = parent.join(&g.dir);
            fs::create_dir(&dir).map_err(|e| {
                MechError::from_io(format!("create the cgroup {}", dir.display()), &e)
            })?;
            tree.dirs.push(dir.clone());
            tree.configure(&dir, Some(i), g.period_us, Some(g.runtime_us))?;
        }
        Ok(tree)
    }

    /// The run directory's share: the root's period, and what the root's runtime leaves
    /// after its other children (run directories of live runs included).
    fn share_of(root: &Path) -> Result<RunShare, MechError> {
        let period = read_i64(&root.join("cpu.rt_period_us"))?;
        let runtime = read_i64(&root.join("cpu.rt_runtime_us"))?;
        let period_us = u64::try_from(period).unwrap_or(1_000_000).max(1);
        let mut siblings = Vec::new();
        if let Ok(entries) = fs::read_dir(root) {
            for e in entries.flatten() {
                let p = e.path();
                if !e.file_type().is_ok_and(|t| t.is_dir()) {
                    continue;
                }
                let (Ok(r), Ok(q)) = (
                    read_i64(&p.join("cpu.rt_runtime_us")),
                    read_i64(&p.join("cpu.rt_period_us")),
                ) else {
                    continue;
                };
                siblings.push((r, u64::try_from(q).unwrap_or(1).max(1)));
            }
        }
        Ok(RunShare {
            period_us,
            runtime_us: free_runtime(runtime, period_us, &siblings),
        })
    }

    /// Writes `dir`'s period, then its runtime (`None`: −1, unlimited); a refusal names the
    /// group.
    fn configure(
        &self,
        dir: &Path,
        group: Option<usize>,
        period_us: u64,
        runtime_us: Option<u64>,
    ) -> Result<(), SetupError> {
        let refused = |file, value, error| SetupError::Refused {
            group,
            file,
            value,
            error,
            share: group.map(|_| self.share),
        };
        write(&dir.join("cpu.rt_period_us"), &period_us.to_string())
            .map_err(|e| refused("cpu.rt_period_us", period_us, e))?;
        let text = runtime_us.map_or_else(|| "-1".to_string(), |r| r.to_string());
        let file = dir.join("cpu.rt_runtime_us");
        let mut result = write(&file, &text);
        // The run directory competes with the root's other children, and a cgroup removed
        // just before (the previous run's) keeps its bandwidth until the kernel takes it
        // offline, asynchronously after the rmdir (measured here: under 50 ms): retry.
        let mut waited_ms = 0;
        while group.is_none() && waited_ms < RELEASE_WAIT_MS && is_einval(&result) {
            std::thread::sleep(std::time::Duration::from_millis(10));
            waited_ms += 10;
            result = write(&file, &text);
        }
        result.map_err(|e| refused("cpu.rt_runtime_us", runtime_us.unwrap_or(0), e))
    }

    /// Moves thread `tid` into group `group`'s cgroup.
    pub fn attach(&self, group: usize, tid: Tid) -> Result<(), MechError> {
        let dir = self.dirs.get(group).ok_or_else(|| MechError::Os {
            what: format!("move thread {tid} into RT group {group}"),
            errno: libc::EINVAL,
            message: "no such group".into(),
        })?;
        write(&dir.join("tasks"), &tid.to_string())
    }

    /// Group `group`'s directory.
    pub fn path(&self, group: usize) -> Option<&Path> {
        self.dirs.get(group).map(PathBuf::as_path)
    }

    /// The run's own directory, `schedlab-<pid>`.
    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// What the run's own directory got.
    pub fn share(&self) -> RunShare {
        self.share
    }
}

impl Drop for RtCgroups {
    fn drop(&mut self) {
        let _ = dismantle(&self.root, &self.run_dir, "cgroup");
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn directory_names_are_unique_and_safe() {
        assert_eq!(dir_name(0, "audio"), "g0-audio");
        assert_eq!(dir_name(3, "../etc x"), "g3-___etc_x");
        assert_eq!(dir_name(1, "tasks"), "g1-tasks");
        assert_eq!(dir_name(2, &"é".repeat(100)).len(), 3 + NAME_CHARS);
        assert_eq!(owner_pid("schedlab-42"), Some(42));
        assert_eq!(owner_pid("schedlab-x"), None);
        assert_eq!(owner_pid("user.slice"), None);
    }

    #[test]
    fn reads_the_runtime_share_feature() {
        let f = "GENTLE_FAIR_SLEEPERS START_DEBIT NO_RT_RUNTIME_SHARE LB_MIN";
        assert_eq!(feature_on(f, "RT_RUNTIME_SHARE"), Some(false));
        assert_eq!(
            feature_on("RT_RUNTIME_SHARE NO_X", "RT_RUNTIME_SHARE"),
            Some(true)
        );
        assert_eq!(feature_on("NO_X", "RT_RUNTIME_SHARE"), None);
    }

    /// The root's 950 000 / 1 000 000 minus a sibling 30 000 / 100 000 (300 000 per second)
    /// and an idle one (0) leaves 650 000; rounding is up (a third of 1 000 000 µs: 333 334);
    /// an unlimited root is unlimited, an unlimited sibling leaves nothing.
    #[test]
    fn free_runtime_is_what_the_root_has_left() {
        let p = 1_000_000;
        assert_eq!(
            free_runtime(950_000, p, &[(30_000, 100_000), (0, 1_000_000)]),
            Some(650_000)
        );
        assert_eq!(free_runtime(950_000, p, &[(1, 3)]), Some(950_000 - 333_334));
        assert_eq!(free_runtime(-1, p, &[(1, 3)]), None);
        assert_eq!(free_runtime(950_000, p, &[(-1, 1_000_000)]), Some(0));
    }
}
