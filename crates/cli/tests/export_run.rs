//! Exported deployments run for real, 2 s each (bounded by `timeout`): a partitioned set
//! accepted by `pedf-ffd` on 2 CPUs as a shell script (default body, and `--rt-app`), a `pfp`
//! set under SCHED_FIFO, rt-app JSON run by rt-app itself; while they run, every thread is
//! read back from /proc (`chrt -p`, `/proc/<tid>/status`, `/proc/<tid>/sched`, its cpuset) and
//! must be at the exported policy and parameters on its CPU. Then the cpusets must be gone and
//! the root's load balancing back on — also after SIGTERM, and after a SIGKILL (the next run
//! repairs). The alternatives the refusals name (`schedlab run --arch … --policy …`) must run.
//!
//! The tests run one at a time (a lock) and skip loudly, with the reason, when this machine
//! cannot run them: not root, fewer than 2 CPUs, no cgroup-v1 cpuset hierarchy or CPUs already
//! partitioned, rt-app not installed, or the kernel refuses. Pass/fail never depends on timing:
//! the waits are for states (a thread's name, its policy), bounded.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::{schedlab, temp_file, text};
use schedlab_analysis::deploy::{plan, DeployRequest, DEFAULT_DL_MARGIN};
use schedlab_analysis::Priorities;
use schedlab_model::interop::deploy::{Deployment, LinuxPolicy};
use schedlab_model::{file, Duration};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::Mutex;

/// One real run at a time: they share the CPUs and the root cpuset.
static REAL: Mutex<()> = Mutex::new(());

const CPUSET: &str = "/sys/fs/cgroup/cpuset";

/// 0.6, 0.5, 0.2 on 2 CPUs: `pedf-ffd` puts t1 and t3 on CPU 0, t2 on CPU 1.
const THREE: &str = "[[tasks]]\nname = \"t1\"\nwcet = \"6ms\"\nperiod = \"10ms\"\n\n[[tasks]]\nname = \"t2\"\nwcet = \"5ms\"\nperiod = \"10ms\"\n\n[[tasks]]\nname = \"t3\"\nwcet = \"4ms\"\nperiod = \"20ms\"\n";

fn sh(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Why this machine cannot run the test, if it cannot.
fn cannot_run(deadline: bool) -> Option<String> {
    if sh("id", &["-u"]).as_deref().map(str::trim) != Some("0") {
        return Some("not root: SCHED_DEADLINE, SCHED_FIFO and cpusets need root".into());
    }
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    if cpus < 2 {
        return Some(format!("needs 2 CPUs, this process may use {cpus}"));
    }
    if sh("chrt", &["--version"]).is_none() || sh("taskset", &["--version"]).is_none() {
        return Some("chrt and taskset (util-linux) are not installed".into());
    }
    if deadline {
        match std::fs::read_to_string(format!("{CPUSET}/cpuset.sched_load_balance")) {
            Err(_) => return Some(format!("no cgroup-v1 cpuset hierarchy at {CPUSET}")),
            Ok(b) if b.trim() != "1" => {
                return Some(format!(
                    "{CPUSET}/cpuset.sched_load_balance is {}: the CPUs are already partitioned (another run?)",
                    b.trim()
                ))
            }
            Ok(_) => {}
        }
    }
    None
}

fn has_rt_app() -> bool {
    Command::new("sh")
        .args(["-c", "command -v rt-app"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The deployment the export writes for `policy` (the expected parameters).
fn deployment(path: &Path, policy: &str) -> Deployment {
    let loaded = file::load(path).unwrap();
    plan(&DeployRequest {
        tasks: &loaded.tasks,
        cpus: 2,
        policy,
        partition: "ffd",
        priorities: Priorities::Dm,
        cluster_size: None,
        test: None,
        overheads: None,
        dl_margin: DEFAULT_DL_MARGIN,
        force: false,
        duration: Some(Duration::from_ms(2000).unwrap()),
        source: "three.toml",
    })
    .unwrap()
}

/// A scratch directory of its own for `tag`.
fn scratch(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("schedlab-export-run-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Exports the set with `args` to a file in `dir`.
fn export_to(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let set = temp_file("export-run", "three.toml", THREE);
    let out_path = dir.join(name);
    let mut all = vec![
        "export",
        set.to_str().unwrap(),
        "--cpus",
        "2",
        "-o",
        out_path.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let out = schedlab(&all);
    assert!(out.status.success(), "{}", text(&out));
    out_path
}

/// A running exported script, its standard output read line by line.
struct Running {
    child: Child,
    stdout: BufReader<ChildStdout>,
    out: String,
}

fn start(script: &Path, args: &[&str], env: &[(&str, &str)]) -> Running {
    let mut child = Command::new("timeout")
        .arg("20")
        .arg("sh")
        .arg(script)
        .args(args)
        .envs(env.iter().copied())
        .env("SCHEDLAB", env!("CARGO_BIN_EXE_schedlab"))
        .current_dir(script.parent().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    Running {
        child,
        stdout,
        out: String::new(),
    }
}

impl Running {
    /// The `started NAME pid=PID` lines, until `n` of them or the end of the output.
    fn started(&mut self, n: usize) -> BTreeMap<String, i32> {
        let mut found = BTreeMap::new();
        let mut line = String::new();
        while found.len() < n {
            line.clear();
            if self.stdout.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            self.out.push_str(&line);
            if let Some(rest) = line.trim().strip_prefix("started ") {
                if let Some((name, pid)) = rest.split_once(" pid=") {
                    found.insert(name.to_string(), pid.parse().unwrap());
                }
            }
        }
        found
    }

    /// Waits for the end; the exit status, all of standard output and standard error.
    fn finish(mut self) -> (Option<i32>, String, String) {
        let mut rest = String::new();
        let _ = self.stdout.read_to_string(&mut rest);
        self.out.push_str(&rest);
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        let status = self.child.wait().unwrap();
        (status.code(), self.out, err)
    }
}

/// Polls `f` every 10 ms for up to `secs` seconds (a wait for a state, not a timing check).
fn wait_for(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    f()
}

/// A thread as the kernel shows it.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    /// `chrt -p`'s policy.
    policy: String,
    /// `chrt -p`'s priority.
    priority: u32,
    /// `chrt -p`'s runtime/deadline/period (SCHED_DEADLINE).
    params: Option<(u64, u64, u64)>,
    /// `/proc/<tid>/status`'s Cpus_allowed_list.
    cpus: String,
    /// `/proc/<tid>/sched`'s policy number.
    sched_policy: Option<u32>,
}

fn seen(tid: i32) -> Option<Seen> {
    let chrt = sh("chrt", &["-p", &tid.to_string()])?;
    let after = |key: &str| {
        chrt.lines()
            .find(|l| l.contains(key))
            .and_then(|l| l.rsplit(": ").next())
            .map(|s| s.trim().to_string())
    };
    let params = after("runtime/deadline/period parameters").and_then(|p| {
        let v: Vec<u64> = p.split('/').filter_map(|x| x.parse().ok()).collect();
        (v.len() == 3).then(|| (v[0], v[1], v[2]))
    });
    let status = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    let cpus = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?
        .trim()
        .to_string();
    let sched = std::fs::read_to_string(format!("/proc/{tid}/sched")).unwrap_or_default();
    let sched_policy = sched
        .lines()
        .find(|l| l.starts_with("policy"))
        .and_then(|l| l.rsplit(':').next())
        .and_then(|v| v.trim().parse().ok());
    Some(Seen {
        policy: after("scheduling policy")?,
        priority: after("scheduling priority")?.parse().ok()?,
        params,
        cpus,
        sched_policy,
    })
}

/// What the thread of exported task `ident` must show.
fn expected(dep: &Deployment, ident: &str) -> Seen {
    let t = dep.tasks.iter().find(|t| t.ident == ident).unwrap();
    let cpus = schedlab_model::interop::deploy::cpu_list(&t.cpus);
    match t.policy {
        LinuxPolicy::Deadline {
            runtime,
            deadline,
            period,
        } => Seen {
            policy: "SCHED_DEADLINE".into(),
            priority: 0,
            params: Some((runtime.as_ns(), deadline.as_ns(), period.as_ns())),
            cpus,
            sched_policy: Some(6),
        },
        LinuxPolicy::Fifo { priority } => Seen {
            policy: "SCHED_FIFO".into(),
            priority: u32::from(priority),
            params: None,
            cpus,
            sched_policy: Some(1),
        },
    }
}

fn comm(tid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{tid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// The threads of process `pid` by name.
fn threads(pid: i32) -> BTreeMap<String, i32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.filter_map(Result::ok)
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
                .map(|tid| (comm(tid), tid))
                .collect()
        })
        .unwrap_or_default()
}

/// The cpuset a process is in (`/schedlab-export-<script pid>-d<k>`).
fn cpuset_of(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/cgroup"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            let mut f = l.splitn(3, ':');
            let (_, ctl, path) = (f.next()?, f.next()?, f.next()?);
            ctl.split(',')
                .any(|c| c == "cpuset")
                .then(|| path.to_string())
        })
        .unwrap_or_default()
}

fn leftover_cpusets() -> Vec<String> {
    std::fs::read_dir(CPUSET)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("schedlab-export-"))
                .collect()
        })
        .unwrap_or_default()
}

fn balance() -> String {
    std::fs::read_to_string(format!("{CPUSET}/cpuset.sched_load_balance"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Whether a script's failure is the machine's refusal (skipped), not the export's fault.
fn refused_by_machine(test: &str, status: Option<i32>, err: &str) -> bool {
    if status == Some(3) || err.contains("failed to set pid") {
        schedlab_testkit::skip(
            test,
            &format!("this machine or its kernel refused: {}", err.trim()),
        );
        return true;
    }
    false
}

/// Undoes what a failed test may leave (its tasks, the cpusets, the root's balance) when it
/// is dropped, also while a failed assertion unwinds, so one failure does not break the
/// machine for the next test.
struct Repair;

impl Drop for Repair {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        for name in leftover_cpusets() {
            let dir = format!("{CPUSET}/{name}");
            for tid in std::fs::read_to_string(format!("{dir}/tasks"))
                .unwrap_or_default()
                .lines()
            {
                let _ = sh("kill", &["-KILL", tid]);
            }
            let _ = wait_for(2, || std::fs::remove_dir(&dir).is_ok());
        }
        let others = std::fs::read_dir(CPUSET)
            .map(|d| {
                d.filter_map(Result::ok)
                    .any(|e| e.file_name().to_string_lossy().starts_with("schedlab-"))
            })
            .unwrap_or(true);
        if !others {
            let _ = std::fs::write(format!("{CPUSET}/cpuset.sched_load_balance"), "1");
        }
    }
}

/// After a run: no cpuset of ours left, the root balanced again.
fn assert_cleaned_up(context: &str) {
    assert_eq!(leftover_cpusets(), Vec::<String>::new(), "{context}");
    assert_eq!(balance(), "1", "{context}");
}

/// Reads back every task of a default-body run and checks it against the deployment.
fn check_tasks(dep: &Deployment, pids: &BTreeMap<String, i32>) {
    assert_eq!(pids.len(), dep.tasks.len(), "started: {pids:?}");
    for (name, &pid) in pids {
        // The default body names itself after chrt/taskset have set the policy.
        assert!(
            wait_for(5, || comm(pid) == *name),
            "{name}: comm {:?}",
            comm(pid)
        );
        let tids = threads(pid);
        assert_eq!(tids.len(), 1, "{name}: one thread, got {tids:?}");
        for &tid in tids.values() {
            assert_eq!(
                seen(tid),
                Some(expected(dep, name)),
                "task {name} (tid {tid})"
            );
        }
        let t = dep.tasks.iter().find(|t| &t.ident == name).unwrap();
        if let Some(d) = t.domain {
            assert!(
                cpuset_of(pid).ends_with(&format!("-d{d}")),
                "{name}: in {}",
                cpuset_of(pid)
            );
            let dir = format!("{CPUSET}{}", cpuset_of(pid));
            let cpus = std::fs::read_to_string(format!("{dir}/cpuset.cpus")).unwrap();
            assert_eq!(
                cpus.trim(),
                schedlab_model::interop::deploy::cpu_list(&t.cpus)
            );
            let exclusive = std::fs::read_to_string(format!("{dir}/cpuset.cpu_exclusive")).unwrap();
            assert_eq!(exclusive.trim(), "1");
        }
    }
}

#[test]
fn a_pedf_ffd_export_runs_under_sched_deadline_on_its_cpus() {
    const TEST: &str = "a_pedf_ffd_export_runs_under_sched_deadline_on_its_cpus";
    let _real = REAL.lock().unwrap_or_else(|e| e.into_inner());
    let _repair = Repair;
    if let Some(why) = cannot_run(true) {
        schedlab_testkit::skip(TEST, &why);
        return;
    }
    let dir = scratch("pedf");
    let script = export_to(&dir, "pedf.sh", &["--policy", "pedf", "--duration", "2s"]);
    let header = std::fs::read_to_string(&script).unwrap();
    assert!(
        header.contains("\n# Accepted by: pedf-ffd: schedulable\n"),
        "{header}"
    );
    let dep = deployment(&temp_file("export-run", "three.toml", THREE), "pedf");
    let mut run = start(&script, &[], &[]);
    let pids = run.started(3);
    if pids.len() == 3 {
        check_tasks(&dep, &pids);
        assert_eq!(
            balance(),
            "0",
            "the root's balance is off while the run lasts"
        );
    }
    let (status, out, err) = run.finish();
    if refused_by_machine(TEST, status, &err) {
        return;
    }
    assert_eq!(status, Some(0), "{out}{err}");
    // 2 s of 10 ms and 20 ms periods: the job counts are arithmetic.
    for line in ["t1: 200 jobs, ", "t2: 200 jobs, ", "t3: 100 jobs, "] {
        assert!(out.lines().any(|l| l.starts_with(line)), "{line} in {out}");
    }
    assert!(out.ends_with("run ended\n"), "{out}");
    assert_cleaned_up(&out);
}

#[test]
fn a_pedf_ffd_export_runs_under_rt_app_one_per_root_domain() {
    const TEST: &str = "a_pedf_ffd_export_runs_under_rt_app_one_per_root_domain";
    let _real = REAL.lock().unwrap_or_else(|e| e.into_inner());
    let _repair = Repair;
    if let Some(why) = cannot_run(true) {
        schedlab_testkit::skip(TEST, &why);
        return;
    }
    if !has_rt_app() {
        schedlab_testkit::skip(TEST, "rt-app is not installed (apt-get install rt-app)");
        return;
    }
    let dir = scratch("rtapp");
    let script = export_to(&dir, "pedf.sh", &["--policy", "pedf", "--duration", "2s"]);
    let dep = deployment(&temp_file("export-run", "three.toml", THREE), "pedf");
    // A fixed ns per loop skips rt-app's calibration (2 s or more); the check is of the
    // threads' policies, not of the load's length.
    let mut run = start(
        &script,
        &["--rt-app"],
        &[
            ("RTAPP_CALIBRATION", "20"),
            ("TMPDIR", dir.to_str().unwrap()),
        ],
    );
    let pids = run.started(2);
    for (label, &pid) in &pids {
        let d: usize = label.trim_start_matches("rt-app-d").parse().unwrap();
        let names: Vec<&str> = dep.domain_tasks(d).map(|t| t.ident.as_str()).collect();
        let ready = wait_for(10, || {
            let t = threads(pid);
            names.iter().all(|n| {
                t.get(*n)
                    .and_then(|&tid| seen(tid))
                    .is_some_and(|s| s.policy == "SCHED_DEADLINE")
            })
        });
        assert!(ready, "{label}: threads {:?}", threads(pid));
        let t = threads(pid);
        for n in &names {
            assert_eq!(seen(t[*n]), Some(expected(&dep, n)), "rt-app thread {n}");
        }
        assert!(cpuset_of(pid).ends_with(&format!("-d{d}")));
    }
    let (status, out, err) = run.finish();
    if refused_by_machine(TEST, status, &err) {
        return;
    }
    assert_eq!(pids.len(), 2, "{out}{err}");
    assert_eq!(status, Some(0), "{out}{err}");
    assert_cleaned_up(&out);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pfp_export_runs_under_sched_fifo_pinned() {
    const TEST: &str = "a_pfp_export_runs_under_sched_fifo_pinned";
    let _real = REAL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(why) = cannot_run(false) {
        schedlab_testkit::skip(TEST, &why);
        return;
    }
    let dir = scratch("pfp");
    let script = export_to(&dir, "pfp.sh", &["--policy", "pfp", "--duration", "2s"]);
    let dep = deployment(&temp_file("export-run", "three.toml", THREE), "pfp");
    let mut run = start(&script, &[], &[]);
    let pids = run.started(3);
    if pids.len() == 3 {
        check_tasks(&dep, &pids);
    }
    let (status, out, err) = run.finish();
    if refused_by_machine(TEST, status, &err) {
        return;
    }
    assert_eq!(status, Some(0), "{out}{err}");
    assert!(
        out.lines().any(|l| l.starts_with("t3: 100 jobs, ")),
        "{out}"
    );
}

/// The `--to rt-app` file itself, run by rt-app: `gfp` (SCHED_FIFO over both CPUs) and `gedf`
/// (SCHED_DEADLINE over the machine's root domain, when the machine has exactly 2 CPUs).
#[test]
fn rt_app_runs_the_exported_json() {
    const TEST: &str = "rt_app_runs_the_exported_json";
    let _real = REAL.lock().unwrap_or_else(|e| e.into_inner());
    let _repair = Repair;
    if let Some(why) = cannot_run(true) {
        schedlab_testkit::skip(TEST, &why);
        return;
    }
    if !has_rt_app() {
        schedlab_testkit::skip(TEST, "rt-app is not installed (apt-get install rt-app)");
        return;
    }
    let online = std::thread::available_parallelism().map_or(0, usize::from);
    for policy in ["gfp", "gedf"] {
        if policy == "gedf" && online != 2 {
            schedlab_testkit::skip(TEST, &format!("gedf: the exported root domain is 2 CPUs, this machine has {online}: it needs the shell export's cpuset"));
            continue;
        }
        let dir = scratch(&format!("json-{policy}"));
        let json = export_to(
            &dir,
            "set.json",
            &["--policy", policy, "--to", "rt-app", "--duration", "2s"],
        );
        let text = std::fs::read_to_string(&json)
            .unwrap()
            .replace("\"calibration\": \"CPU0\"", "\"calibration\": 20");
        std::fs::write(&json, text).unwrap();
        let dep = deployment(&temp_file("export-run", "three.toml", THREE), policy);
        let child = Command::new("timeout")
            .args(["20", "rt-app"])
            .arg(&json)
            .current_dir(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        // `timeout`'s child is rt-app.
        let rt_app = wait_for(5, || rt_app_child(pid).is_some())
            .then(|| rt_app_child(pid))
            .flatten();
        let mut ok = false;
        if let Some(rp) = rt_app {
            ok = wait_for(10, || {
                let t = threads(rp);
                dep.tasks.iter().all(|task| {
                    t.get(&task.ident)
                        .and_then(|&tid| seen(tid))
                        .is_some_and(|s| s.policy == expected(&dep, &task.ident).policy)
                })
            });
            if ok {
                let t = threads(rp);
                for task in &dep.tasks {
                    assert_eq!(
                        seen(t[&task.ident]),
                        Some(expected(&dep, &task.ident)),
                        "{policy}: {}",
                        task.ident
                    );
                }
            }
        }
        let out = child.wait_with_output().unwrap();
        let log = text_of(&out);
        if log.contains("sched_setattr") || log.contains("pthread_setschedparam") {
            schedlab_testkit::skip(TEST, &format!("{policy}: the kernel refused rt-app: {log}"));
            continue;
        }
        assert!(
            ok,
            "{policy}: rt-app's threads never reached their policies: {log}"
        );
        assert!(out.status.success(), "{policy}: {log}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn text_of(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The child process of `pid` named rt-app.
fn rt_app_child(pid: i32) -> Option<i32> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    children
        .split_whitespace()
        .filter_map(|c| c.parse().ok())
        .find(|&c| comm(c) == "rt-app")
}

/// The script pid from the name of its cpusets.
fn script_pid(task_pid: i32) -> i32 {
    let set = cpuset_of(task_pid);
    let rest = set.trim_start_matches("/schedlab-export-");
    rest.split('-').next().unwrap().parse().unwrap()
}

#[test]
fn sigterm_and_sigkill_leave_nothing_behind() {
    const TEST: &str = "sigterm_and_sigkill_leave_nothing_behind";
    let _real = REAL.lock().unwrap_or_else(|e| e.into_inner());
    let _repair = Repair;
    if let Some(why) = cannot_run(true) {
        schedlab_testkit::skip(TEST, &why);
        return;
    }
    let dir = scratch("signals");
    let script = export_to(&dir, "pedf.sh", &["--policy", "pedf", "--duration", "30s"]);
    // SIGTERM: the script stops its tasks and undoes the cpusets.
    let mut run = start(&script, &[], &[]);
    let pids = run.started(3);
    assert_eq!(pids.len(), 3, "{}", run.out);
    let t1 = pids["t1"];
    assert!(wait_for(5, || comm(t1) == "t1"));
    let sp = script_pid(t1);
    assert!(sh("kill", &["-TERM", &sp.to_string()]).is_some());
    let (status, out, err) = run.finish();
    assert_eq!(status, Some(143), "{out}{err}");
    assert_cleaned_up(&format!("after SIGTERM: {out}{err}"));
    for pid in pids.values() {
        assert!(
            !Path::new(&format!("/proc/{pid}/comm")).exists() || comm(*pid).is_empty(),
            "{pid} still runs"
        );
    }
    // SIGKILL: the cpusets stay (the tasks, orphaned, are killed here); the next run removes
    // them and restores the balance before making its own.
    let mut run = start(&script, &[], &[]);
    let pids = run.started(3);
    assert_eq!(pids.len(), 3, "{}", run.out);
    let t1 = pids["t1"];
    assert!(wait_for(5, || comm(t1) == "t1"));
    let killed = script_pid(t1);
    sh("kill", &["-KILL", &killed.to_string()]);
    for pid in pids.values() {
        sh("kill", &["-KILL", &pid.to_string()]);
    }
    let _ = run.finish();
    assert!(wait_for(5, || pids
        .values()
        .all(|p| threads(*p).is_empty() || comm(*p).is_empty())));
    assert_eq!(
        leftover_cpusets().len(),
        2,
        "a killed run leaves its cpusets"
    );
    assert_eq!(balance(), "0");
    let quick = export_to(&dir, "quick.sh", &["--policy", "pedf", "--duration", "1s"]);
    let run = start(
        &quick,
        &[],
        &[
            ("BODY_T1", "true"),
            ("BODY_T2", "true"),
            ("BODY_T3", "true"),
        ],
    );
    let (status, out, err) = run.finish();
    assert_eq!(status, Some(0), "{out}{err}");
    assert!(err.contains(&format!("removed the cpuset {CPUSET}/schedlab-export-{killed}-d0 left by a killed run (pid {killed})")), "{err}");
    assert!(
        err.contains("restored /sys/fs/cgroup/cpuset/cpuset.sched_load_balance to 1"),
        "{err}"
    );
    assert_cleaned_up(&format!("after the repair: {out}{err}"));
}

/// What the refusals tell users to run instead really runs (20 ms each, under SCHED_OTHER
/// without real-time permission).
#[test]
fn the_alternatives_the_refusals_name_run() {
    let _real = REAL.lock().unwrap_or_else(|e| e.into_inner());
    let light = temp_file("export-run", "light.toml", "[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"10ms\"\n\n[[tasks]]\nname = \"b\"\nwcet = \"1ms\"\nperiod = \"20ms\"\n");
    let groups = temp_file("export-run", "groups.toml", "[[groups]]\nname = \"g\"\nbudget = \"5ms\"\nperiod = \"10ms\"\n\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"10ms\"\ngroup = \"g\"\n");
    for refused in schedlab_analysis::deploy::mapping::REFUSED {
        let set = if refused.names.contains(&"hcbs") {
            &groups
        } else {
            &light
        };
        let mut args = vec![
            "run",
            set.to_str().unwrap(),
            "--cpus",
            "2",
            "--duration",
            "20ms",
            "--allow-non-rt",
            "--format",
            "json",
        ];
        args.extend(refused.run.split_whitespace());
        let out = schedlab(&args);
        assert!(
            out.status.success(),
            "schedlab run … {}: {}",
            refused.run,
            text(&out)
        );
    }
}
