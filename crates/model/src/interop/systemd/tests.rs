#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::interop::fixtures;

fn opts() -> RenderOptions {
    RenderOptions {
        launcher: "/usr/local/bin/schedlab".to_string(),
    }
}

/// The text of a unit after its header comment.
fn body_of(u: &Unit) -> &str {
    let i = u.text.find("\n\n").unwrap();
    &u.text[i + 2..]
}

#[test]
fn fifo_units_use_systemd_s_own_keys() {
    let units = units(&fixtures::pfp(), &opts());
    let files: Vec<_> = units.iter().map(|u| u.file.as_str()).collect();
    assert_eq!(
        files,
        vec![
            "schedlab-demo.target",
            "schedlab-demo-a.service",
            "schedlab-demo-b.service",
            "schedlab-demo-c.service"
        ]
    );
    assert_eq!(
        body_of(&units[0]),
        "[Unit]\nDescription=schedlab demo: 3 tasks, policy pfp on 2 CPUs\nWants=schedlab-demo-a.service schedlab-demo-b.service schedlab-demo-c.service\n"
    );
    assert_eq!(
        body_of(&units[3]),
        "[Unit]
Description=schedlab demo: task c (SCHED_FIFO priority 98 on CPU 0)
PartOf=schedlab-demo.target

[Service]
Type=simple
CPUSchedulingPolicy=fifo
CPUSchedulingPriority=98
CPUAffinity=0
ExecStart=/usr/local/bin/schedlab periodic-load --name c --wcet 1ms --period 20ms --deadline 20ms --offset 0ns --duration inf
KillSignal=SIGTERM
"
    );
    for u in &units {
        assert!(
            u.text
                .starts_with("# Exported by schedlab 0.1.0 from examples/demo.toml"),
            "{}",
            u.text
        );
        assert!(u.text.contains("# Accepted by: pfp-ffd: schedulable\n"));
    }
}

#[test]
fn deadline_units_go_through_chrt_in_the_root_domain_s_cpuset() {
    let units = units(&fixtures::pedf(), &opts());
    assert_eq!(units[1].file, "schedlab-demo-cpusets.service");
    let a = units
        .iter()
        .find(|u| u.file == "schedlab-demo-a.service")
        .unwrap();
    assert_eq!(
        body_of(a),
        "[Unit]
Description=schedlab demo: task a (SCHED_DEADLINE runtime/deadline/period 2500000/10000000/10000000 ns on CPU 0)
PartOf=schedlab-demo.target
Requires=schedlab-demo-cpusets.service
After=schedlab-demo-cpusets.service

[Service]
Type=simple
# systemd has no SCHED_DEADLINE keys: chrt -d sets the policy, inside the root domain's cpuset.
ExecStart=/bin/sh -c 'echo $$$$ > /sys/fs/cgroup/cpuset/schedlab-demo-d0/tasks && exec chrt -d --sched-runtime 2500000 --sched-deadline 10000000 --sched-period 10000000 0 /usr/local/bin/schedlab periodic-load --name a --wcet 2ms --period 10ms --deadline 10ms --offset 0ns --duration 2s'
KillSignal=SIGTERM
"
    );
    let cs = body_of(&units[1]);
    assert!(cs.contains("Type=oneshot\nRemainAfterExit=yes\n"), "{cs}");
    assert!(cs.contains(
        "mkdir $$R/schedlab-demo-d1 && echo 1 > $$R/schedlab-demo-d1/cpuset.cpus && echo $$M > $$R/schedlab-demo-d1/cpuset.mems && echo 1 > $$R/schedlab-demo-d1/cpuset.cpu_exclusive && echo 1 > $$R/schedlab-demo-d1/cpuset.sched_load_balance || exit 1; echo 0 > $$R/cpuset.sched_load_balance'"
    ), "{cs}");
    assert!(cs.contains("ExecStopPost=/bin/sh -c 'R=/sys/fs/cgroup/cpuset; c=0; for d in $$R/schedlab-demo-d0 $$R/schedlab-demo-d1; do"), "{cs}");
    assert!(cs.contains("cgroup v2 (the unified hierarchy)"));
}

/// The shell commands inside the units parse once systemd has undone its `$$` escape.
#[test]
fn the_commands_inside_parse() {
    for u in units(&fixtures::pedf(), &opts()) {
        for line in u.text.lines() {
            let Some(cmd) = line
                .strip_prefix("ExecStart=/bin/sh -c '")
                .or_else(|| line.strip_prefix("ExecStopPost=/bin/sh -c '"))
            else {
                continue;
            };
            let cmd = cmd.trim_end_matches('\'').replace("$$", "$");
            let out = std::process::Command::new("sh")
                .args(["-n", "-c", &cmd])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{cmd}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn the_bundle_separates_the_units() {
    let dep = fixtures::pedf();
    let text = write(&dep, &opts());
    assert!(text.starts_with("# Exported by schedlab 0.1.0"));
    let files: Vec<_> = text
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .collect();
    assert_eq!(
        files,
        vec![
            "schedlab-demo.target",
            "schedlab-demo-cpusets.service",
            "schedlab-demo-a.service",
            "schedlab-demo-b.service",
            "schedlab-demo-c.service"
        ]
    );
    assert!(text.contains("`systemctl start schedlab-demo.target`"));
    assert_eq!(unit_escape("50% of $x"), "50%% of $$x");
}
