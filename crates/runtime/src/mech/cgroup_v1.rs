//! The cgroup-v1 plumbing shared by the run-owned cgroups of the runtime (`cpuset`: a root
//! domain for `--dl-cpuset`; `rt_cgroup`: RT group scheduling for `linux-rt-groups`): finding a
//! controller's hierarchy and the process's own cgroup in it, reading and writing control
//! files, the run directories `schedlab-<pid>` and whether their owner still lives (the repair
//! after a SIGKILL), and moving a directory's threads out before removing it.
//!
//! No `unsafe` here: plain file I/O on the cgroup file system.

use super::MechError;
use std::fs;
use std::path::{Path, PathBuf};

/// The prefix of every run-owned cgroup directory: `schedlab-<pid>`.
pub const PREFIX: &str = "schedlab-";

/// The error of a machine that cannot do `what` with cgroups (ENOTSUP), saying why.
pub fn unsupported(what: &str, message: String) -> MechError {
    MechError::Os {
        what: what.into(),
        errno: libc::ENOTSUP,
        message,
    }
}

/// A control file's content, trimmed.
pub fn read(path: &Path) -> Result<String, MechError> {
    fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .map_err(|e| MechError::from_io(format!("read {}", path.display()), &e))
}

/// Writes `value` to a control file.
pub fn write(path: &Path, value: &str) -> Result<(), MechError> {
    fs::write(path, value)
        .map_err(|e| MechError::from_io(format!("write `{value}` to {}", path.display()), &e))
}

/// The mount point of the cgroup-v1 hierarchy holding `controller`, from a mountinfo text
/// (the controller alone or co-mounted, e.g. `cpu,cpuacct`; only mounts of the hierarchy's
/// root). A line is `<id> <parent> <dev> <root> <mount point> <opts> [optional…] - <fstype>
/// <src> <super opts>`.
pub fn mount_of(mountinfo: &str, controller: &str) -> Option<PathBuf> {
    mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let mut r = right.split_whitespace();
        let (fstype, _src, sup) = (r.next()?, r.next()?, r.next().unwrap_or(""));
        let mut l = left.split_whitespace().skip(3);
        let (root, mount) = (l.next()?, l.next()?);
        (fstype == "cgroup" && root == "/" && sup.split(',').any(|o| o == controller))
            .then(|| PathBuf::from(mount))
    })
}

/// The calling process's cgroup in the hierarchy of `controller`, from a /proc/self/cgroup
/// text (`/` = the root).
pub fn own_cgroup<'a>(cgroup: &'a str, controller: &str) -> Option<&'a str> {
    cgroup.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_id, ctrls, path) = (f.next()?, f.next()?, f.next()?);
        ctrls.split(',').any(|c| c == controller).then_some(path)
    })
}

/// The pid a run directory's name (`schedlab-<pid>`) carries.
pub fn owner_pid(name: &str) -> Option<i32> {
    name.strip_prefix(PREFIX)?.parse().ok()
}

/// Whether process `pid` exists.
pub fn pid_alive(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Moves every thread of `dir` and its subdirectories to `root`, then removes them, children
/// first; `what` names the kind of directory in the error. A thread that exited meanwhile is
/// not an error (ESRCH).
pub fn dismantle(root: &Path, dir: &Path, what: &str) -> Result<(), MechError> {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                dismantle(root, &e.path(), what)?;
            }
        }
    }
    if let Ok(tasks) = fs::read_to_string(dir.join("tasks")) {
        for tid in tasks.split_whitespace() {
            let _ = fs::write(root.join("tasks"), tid);
        }
    }
    fs::remove_dir(dir)
        .map_err(|e| MechError::from_io(format!("remove the {what} {}", dir.display()), &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_controllers_v1_mount_only() {
        let m = "25 1 0:22 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n\
                 26 1 0:23 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n";
        assert_eq!(
            mount_of(m, "cpuset"),
            Some(PathBuf::from("/sys/fs/cgroup/cpuset"))
        );
        assert_eq!(
            mount_of(m, "cpu"),
            Some(PathBuf::from("/sys/fs/cgroup/cpu,cpuacct"))
        );
        assert_eq!(mount_of(m, "memory"), None);
        let v2 = "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        assert_eq!(mount_of(v2, "cpu"), None);
        let sub = "31 1 0:22 /sub /mnt rw - cgroup cgroup rw,cpu\n";
        assert_eq!(mount_of(sub, "cpu"), None, "not the hierarchy's root");
        // This machine's layout: cpu, cpuacct and cpuset mounted apart; `cpu` is not
        // `cpuacct`, nor `cpuset`.
        let apart = "\
32 31 0:29 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
33 31 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
34 31 0:31 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";
        assert_eq!(
            mount_of(apart, "cpu"),
            Some(PathBuf::from("/sys/fs/cgroup/cpu"))
        );
        assert_eq!(
            mount_of(apart, "cpuset"),
            Some(PathBuf::from("/sys/fs/cgroup/cpuset"))
        );
    }

    #[test]
    fn reads_the_own_cgroup_and_run_directory_names() {
        assert_eq!(
            own_cgroup("3:cpu,cpuset:/docker/1\n", "cpuset"),
            Some("/docker/1")
        );
        assert_eq!(own_cgroup("4:cpu:/\n", "cpu"), Some("/"));
        assert_eq!(
            own_cgroup("2:cpuacct:/x\n1:cpu:/\n0::/\n", "cpu"),
            Some("/")
        );
        assert_eq!(own_cgroup("3:cpuset:/\n0::/\n", "cpu"), None);
        assert_eq!(own_cgroup("0::/\n", "cpu"), None);
        assert_eq!(owner_pid("schedlab-42"), Some(42));
        assert_eq!(owner_pid("schedlab-x"), None);
        assert_eq!(owner_pid("other-42"), None);
    }
}
