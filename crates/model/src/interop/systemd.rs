//! A deployment as systemd units: one service per task, a target that starts them all, and
//! for `SCHED_DEADLINE` a oneshot service that makes the root domains (docs/export.md,
//! "systemd").
//!
//! - `schedlab-<set>.target`: `Wants=` every task's service; `systemctl start|stop` it.
//! - `schedlab-<set>-<task>.service` (`PartOf=` the target): `SCHED_FIFO` with systemd's own
//!   keys, `CPUSchedulingPolicy=fifo`, `CPUSchedulingPriority=`, `CPUAffinity=`, and
//!   `ExecStart=` the default body (`schedlab periodic-load`). **systemd has no
//!   `SCHED_DEADLINE` keys** (`CPUSchedulingPolicy=` takes other, batch, idle, fifo, rr), so a
//!   deadline task's `ExecStart=` goes through `/bin/sh -c`: join its root domain's cpuset,
//!   then `exec chrt -d --sched-runtime R --sched-deadline D --sched-period P 0` the body —
//!   the same launcher as the shell script's.
//! - `schedlab-<set>-cpusets.service` (`SCHED_DEADLINE` only; the task services `Require=` it
//!   and start `After=` it): `Type=oneshot`, `RemainAfterExit=yes`; `ExecStart=` makes one
//!   exclusive cgroup-v1 cpuset per root domain (`schedlab-<set>-d<k>`) and turns the root
//!   cpuset's `sched_load_balance` off, refusing when it is already off (another program's
//!   partition) or when there is no cgroup-v1 cpuset hierarchy (cgroup v2: systemd's
//!   `AllowedCPUs=` sets `cpuset.cpus` but makes no partition root); `ExecStopPost=` (also
//!   after a failed start) removes the cpusets it finds and turns the balance back on.
//!
//! In unit files `$` is written `$$` and `%` `%%` (systemd's expansion). Logical CPU `k` is the
//! machine's CPU `k`. The services start one by one, so releases are not synchronous (the
//! sporadic analyses cover any release pattern). O(n) units.

use super::cpuset::{domain_dir, CGROUP_V2_REFUSAL, CPUSET_ROOT};
use super::deploy::{cpu_list, DeployedTask, Deployment, LinuxPolicy, RenderOptions};
use super::shell::quote;
use crate::time::format_ns;
use std::fmt::Write as _;

/// One unit file: its name and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The file name, e.g. `schedlab-tasks-t1.service`.
    pub file: String,
    /// Its contents.
    pub text: String,
}

/// `s` with systemd's expansion characters doubled (`$` → `$$`, `%` → `%%`).
fn unit_escape(s: &str) -> String {
    s.replace('$', "$$").replace('%', "%%")
}

/// The header as `#` comments, then a blank line.
fn header(dep: &Deployment) -> String {
    let mut s = String::new();
    for line in dep.header() {
        let _ = writeln!(s, "# {line}");
    }
    s.push('\n');
    s
}

/// The default body's command line for task `t` (shell words).
fn body(t: &DeployedTask, dep: &Deployment, opts: &RenderOptions) -> String {
    let duration = dep
        .duration
        .map_or("inf".to_string(), |d| format_ns(d.as_ns()));
    format!(
        "{} periodic-load --name {} --wcet {} --period {} --deadline {} --offset {}{} --duration {duration}",
        quote(&opts.launcher),
        t.ident,
        format_ns(t.wcet.as_ns()),
        format_ns(t.period.as_ns()),
        format_ns(t.deadline.as_ns()),
        format_ns(t.offset.as_ns()),
        t.wss.map(|w| format!(" --wss {w}")).unwrap_or_default(),
    )
}

fn prefix(dep: &Deployment) -> String {
    format!("schedlab-{}", dep.set_name())
}

/// The oneshot unit that makes (and on stop removes) the root domains.
fn cpusets_unit(dep: &Deployment) -> Unit {
    let p = prefix(dep);
    let dirs: Vec<String> = (0..dep.domains.len())
        .map(|d| format!("$R/{}", domain_dir(&p, d)))
        .collect();
    let mut setup = format!(
        "R={CPUSET_ROOT}; if [ ! -f $R/cpuset.sched_load_balance ]; then if [ -f /sys/fs/cgroup/cgroup.controllers ]; then echo \"{CGROUP_V2_REFUSAL}\" >&2; else echo \"no cgroup-v1 cpuset hierarchy at $R\" >&2; fi; exit 1; fi; if [ \"$(cat $R/cpuset.sched_load_balance)\" != 1 ]; then echo \"$R/cpuset.sched_load_balance is 0: another program has partitioned the CPUs\" >&2; exit 1; fi; M=$(cat $R/cpuset.mems); "
    );
    for (dir, domain) in dirs.iter().zip(&dep.domains) {
        let _ = write!(
            setup,
            "mkdir {dir} && echo {} > {dir}/cpuset.cpus && echo $M > {dir}/cpuset.mems && echo 1 > {dir}/cpuset.cpu_exclusive && echo 1 > {dir}/cpuset.sched_load_balance || exit 1; ",
            cpu_list(&domain.cpus)
        );
    }
    setup.push_str("echo 0 > $R/cpuset.sched_load_balance");
    let teardown = format!(
        "R={CPUSET_ROOT}; c=0; for d in {}; do [ -d $d ] || continue; c=1; while read -r t; do echo $t > $R/tasks; done < $d/tasks; rmdir $d; done; if [ $c = 1 ]; then echo 1 > $R/cpuset.sched_load_balance; fi",
        dirs.join(" ")
    );
    let mut text = header(dep);
    let _ = write!(
        text,
        "[Unit]
Description=schedlab {set}: SCHED_DEADLINE root domains (exclusive cgroup-v1 cpusets {list})
PartOf={p}.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c '{setup}'
ExecStopPost=/bin/sh -c '{teardown}'
",
        set = dep.set_name(),
        list = dep
            .domains
            .iter()
            .map(|d| cpu_list(&d.cpus))
            .collect::<Vec<_>>()
            .join(" | "),
        setup = unit_escape(&setup),
        teardown = unit_escape(&teardown),
    );
    Unit {
        file: format!("{p}-cpusets.service"),
        text,
    }
}

/// Task `t`'s service.
fn task_unit(t: &DeployedTask, dep: &Deployment, opts: &RenderOptions) -> Unit {
    let p = prefix(dep);
    let mut text = header(dep);
    let _ = writeln!(
        text,
        "[Unit]\nDescription=schedlab {}: task {} ({} on CPU{} {})\nPartOf={p}.target",
        dep.set_name(),
        t.ident,
        t.policy.describe(),
        if t.cpus.len() == 1 { "" } else { "s" },
        cpu_list(&t.cpus)
    );
    if let LinuxPolicy::Deadline { .. } = t.policy {
        let _ = writeln!(
            text,
            "Requires={p}-cpusets.service\nAfter={p}-cpusets.service"
        );
    }
    text.push_str("\n[Service]\nType=simple\n");
    match t.policy {
        LinuxPolicy::Deadline {
            runtime,
            deadline,
            period,
        } => {
            text.push_str("# systemd has no SCHED_DEADLINE keys: chrt -d sets the policy, inside the root domain's cpuset.\n");
            let dir = format!("{CPUSET_ROOT}/{}", domain_dir(&p, t.domain.unwrap_or(0)));
            let cmd = format!(
                "echo $$ > {dir}/tasks && exec chrt -d --sched-runtime {} --sched-deadline {} --sched-period {} 0 {}",
                runtime.as_ns(),
                deadline.as_ns(),
                period.as_ns(),
                body(t, dep, opts)
            );
            let _ = writeln!(text, "ExecStart=/bin/sh -c '{}'", unit_escape(&cmd));
        }
        LinuxPolicy::Fifo { priority } => {
            let _ = writeln!(
                text,
                "CPUSchedulingPolicy=fifo\nCPUSchedulingPriority={priority}\nCPUAffinity={}\nExecStart={}",
                t.cpus
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(" "),
                unit_escape(&body(t, dep, opts))
            );
        }
    }
    text.push_str("KillSignal=SIGTERM\n");
    Unit {
        file: format!("{p}-{}.service", t.ident),
        text,
    }
}

/// Every unit of the deployment: the target, the cpusets service (`SCHED_DEADLINE`), one
/// service per task.
pub fn units(dep: &Deployment, opts: &RenderOptions) -> Vec<Unit> {
    let p = prefix(dep);
    let services: Vec<Unit> = dep.tasks.iter().map(|t| task_unit(t, dep, opts)).collect();
    let mut target = header(dep);
    let _ = write!(
        target,
        "[Unit]\nDescription=schedlab {}: {} tasks, policy {} on {} CPUs\nWants={}\n",
        dep.set_name(),
        dep.tasks.len(),
        dep.provenance.policy,
        dep.cpus,
        services
            .iter()
            .map(|u| u.file.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut out = vec![Unit {
        file: format!("{p}.target"),
        text: target,
    }];
    if dep.uses_deadline() {
        out.push(cpusets_unit(dep));
    }
    out.extend(services);
    out
}

/// Every unit in one text: the header, how to install, then each unit after a `### <file>`
/// line (`schedlab export --to systemd -o DIR/` writes one file per unit instead).
pub fn write(dep: &Deployment, opts: &RenderOptions) -> String {
    let mut s = header(dep);
    let _ = write!(
        s,
        "# systemd units, one after each `### <file name>` line. Install: export with -o DIR/ (one file
# per unit, e.g. -o /etc/systemd/system/), then `systemctl daemon-reload` and
# `systemctl start {}.target`; stop with `systemctl stop {}.target`.
",
        prefix(dep),
        prefix(dep)
    );
    for u in units(dep, opts) {
        let _ = write!(s, "\n### {}\n{}", u.file, u.text);
    }
    s
}

#[cfg(test)]
mod tests;
