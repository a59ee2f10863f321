//! A deployment: a task set as Linux runs it — each task's policy and parameters
//! (`SCHED_DEADLINE` runtime/deadline/period or `SCHED_FIFO` priority), its CPUs, the root
//! domains (cpusets) `SCHED_DEADLINE` needs, the load each task emulates, and the provenance
//! that every exported file states in its header: which test accepted the set, with which
//! overheads and which runtime margin (docs/export.md).
//!
//! The analysis crate builds it (`schedlab_analysis::deploy`, which runs the accepting test);
//! [`render`] writes it as rt-app JSON ([`super::rt_app`]), a POSIX shell script
//! ([`super::shell`]) or systemd units ([`super::systemd`]). CPU numbers are logical
//! (`0..cpus`); the writers map logical CPU `k` to the machine's CPU `k` (the shell script lets
//! each be overridden). O(n) in the number of tasks for everything here.

use crate::time::{format_ns, Duration};

/// The highest `SCHED_FIFO` priority (`sched_get_priority_max(SCHED_FIFO)` on Linux).
pub const FIFO_MAX: u8 = 99;

/// The Linux scheduling policy and parameters of one task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinuxPolicy {
    /// `SCHED_DEADLINE` with `runtime ≤ deadline ≤ period` (the kernel's order).
    Deadline {
        /// The reservation's runtime (the WCET plus the margin, capped at the deadline).
        runtime: Duration,
        /// The relative deadline.
        deadline: Duration,
        /// The reservation period.
        period: Duration,
    },
    /// `SCHED_FIFO` at a priority in 1..=99 (higher runs first).
    Fifo {
        /// The priority.
        priority: u8,
    },
}

impl LinuxPolicy {
    /// `SCHED_DEADLINE` or `SCHED_FIFO`.
    pub fn name(&self) -> &'static str {
        match self {
            LinuxPolicy::Deadline { .. } => "SCHED_DEADLINE",
            LinuxPolicy::Fifo { .. } => "SCHED_FIFO",
        }
    }

    /// The policy with its parameters as Linux takes them (ns for `SCHED_DEADLINE`, as
    /// `chrt -p` prints them).
    pub fn describe(&self) -> String {
        match self {
            LinuxPolicy::Deadline {
                runtime,
                deadline,
                period,
            } => format!(
                "SCHED_DEADLINE runtime/deadline/period {}/{}/{} ns",
                runtime.as_ns(),
                deadline.as_ns(),
                period.as_ns()
            ),
            LinuxPolicy::Fifo { priority } => format!("SCHED_FIFO priority {priority}"),
        }
    }
}

/// One task of a deployment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeployedTask {
    /// Its index in the source task set.
    pub index: usize,
    /// Its name in every output (thread, unit, variable names): the task's name reduced to
    /// `[A-Za-z0-9_-]`, unique in the deployment ([`idents`]).
    pub ident: String,
    /// Its policy and parameters.
    pub policy: LinuxPolicy,
    /// Its CPU affinity (logical CPUs, ascending).
    pub cpus: Vec<u32>,
    /// The root domain it runs in, an index into [`Deployment::domains`] (`SCHED_DEADLINE`
    /// only).
    pub domain: Option<usize>,
    /// The execution time each job burns (the task's WCET).
    pub wcet: Duration,
    /// The release period.
    pub period: Duration,
    /// The relative deadline (for the emulated load's own deadline-miss count).
    pub deadline: Duration,
    /// The first release's offset from the common start.
    pub offset: Duration,
    /// The working set each job writes, in bytes, if the task has one.
    pub wss: Option<u64>,
}

/// A root domain of `SCHED_DEADLINE`: CPUs the kernel schedules as one EDF domain (an
/// exclusive cpuset with load balancing, under a root cpuset without it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootDomain {
    /// Its logical CPUs, ascending.
    pub cpus: Vec<u32>,
}

/// What every output's header states: where the deployment came from and what vouches for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The tool and its version, e.g. `schedlab 0.1.0`.
    pub tool: String,
    /// The source task file (or a description of the set).
    pub source: String,
    /// The schedlab policy exported.
    pub policy: String,
    /// How the tasks were placed on CPUs (the heuristic, the file's pins, or global).
    pub placement: String,
    /// How the policy maps to Linux (one sentence).
    pub linux: String,
    /// The test that decided, e.g. `pedf-ffd`.
    pub test: String,
    /// Its verdict, e.g. `schedulable`.
    pub verdict: String,
    /// Whether the test accepted the set (false only with `--force`).
    pub accepted: bool,
    /// The overheads the analysis charged (file, architecture, statistic), `None` for none.
    pub overheads: Option<String>,
    /// The `SCHED_DEADLINE` runtime margin (`None` for `SCHED_FIFO`, which has no budget).
    pub dl_margin: Option<Duration>,
    /// The kernel's admission test as the deployment meets it (`SCHED_DEADLINE`).
    pub admission: Option<String>,
    /// Anything else the reader must know (ignored fields, forced limits).
    pub notes: Vec<String>,
}

/// A task set as Linux runs it (module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deployment {
    /// What vouches for it.
    pub provenance: Provenance,
    /// The number of (logical) CPUs.
    pub cpus: u32,
    /// The `SCHED_DEADLINE` root domains (empty for `SCHED_FIFO`).
    pub domains: Vec<RootDomain>,
    /// The tasks, in source order.
    pub tasks: Vec<DeployedTask>,
    /// How long a run lasts by default (`None`: until stopped).
    pub duration: Option<Duration>,
}

impl Deployment {
    /// Whether the tasks run under `SCHED_DEADLINE` (they all do, or none does).
    pub fn uses_deadline(&self) -> bool {
        self.tasks
            .iter()
            .any(|t| matches!(t.policy, LinuxPolicy::Deadline { .. }))
    }

    /// A short name for the set (the source file's stem reduced to `[A-Za-z0-9_-]`), for unit
    /// names and log file names.
    pub fn set_name(&self) -> String {
        let file = self
            .provenance
            .source
            .rsplit('/')
            .next()
            .unwrap_or(&self.provenance.source);
        let stem = file.split('.').next().unwrap_or(file);
        let s = sanitize(stem);
        if s.is_empty() {
            "set".to_string()
        } else {
            s
        }
    }

    /// The tasks of root domain `d`, in source order.
    pub fn domain_tasks(&self, d: usize) -> impl Iterator<Item = &DeployedTask> {
        self.tasks.iter().filter(move |t| t.domain == Some(d))
    }

    /// The header every output starts with, one line each (without comment markers; no line
    /// holds a control character).
    pub fn header(&self) -> Vec<String> {
        let p = &self.provenance;
        let mut lines = vec![
            format!(
                "Exported by {} from {}: policy {} on {} CPUs (logical CPU k is the machine's CPU k).",
                p.tool, p.source, p.policy, self.cpus
            ),
            format!("Placement: {}", p.placement),
        ];
        lines.push(if p.accepted {
            format!("Accepted by: {}: {}", p.test, p.verdict)
        } else {
            format!(
                "NOT ACCEPTED: {}: {}; exported anyway (--force): deadlines may be missed",
                p.test, p.verdict
            )
        });
        lines.push(format!(
            "Overheads: {}",
            p.overheads
                .as_deref()
                .unwrap_or("none (the analysis charged no run-time overheads)")
        ));
        lines.push(match p.dl_margin {
            Some(m) => format!(
                "Margin: {} (SCHED_DEADLINE runtime = WCET + margin, capped at the deadline: the kernel charges a reservation for its own per-job work too; docs/runtime.md)",
                format_ns(m.as_ns())
            ),
            None => "Margin: none (SCHED_FIFO has no budget)".to_string(),
        });
        lines.push(format!("Linux: {}", p.linux));
        if let Some(a) = &p.admission {
            lines.push(format!("Kernel admission: {a}"));
        }
        lines.push(format!(
            "Run length: {}",
            self.duration
                .map_or("until stopped".to_string(), |d| format_ns(d.as_ns()))
        ));
        lines.push("Tasks:".to_string());
        for t in &self.tasks {
            lines.push(format!(
                "  {}: {} on CPU{} {}; load: wcet {}, period {}, deadline {}, offset {}",
                t.ident,
                t.policy.describe(),
                if t.cpus.len() == 1 { "" } else { "s" },
                cpu_list(&t.cpus),
                format_ns(t.wcet.as_ns()),
                format_ns(t.period.as_ns()),
                format_ns(t.deadline.as_ns()),
                format_ns(t.offset.as_ns())
            ));
        }
        for n in &p.notes {
            lines.push(format!("Note: {n}"));
        }
        lines
            .into_iter()
            .map(|l| l.replace(|c: char| c.is_control(), " "))
            .collect()
    }
}

/// A CPU list in the kernel's list format (`0`, `0-3`, `0,2-3`), ascending, duplicates merged.
pub fn cpu_list(cpus: &[u32]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let start = v[i];
        let mut end = start;
        while end
            .checked_add(1)
            .is_some_and(|next| v.get(i + 1) == Some(&next))
        {
            i += 1;
            end += 1;
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// `s` with every character outside `[A-Za-z0-9_-]` replaced by `_`, at most 64 characters.
fn sanitize(s: &str) -> String {
    s.chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Each task's name in every output: its name reduced to `[A-Za-z0-9_-]` (at most 64
/// characters), `task<i>` for a task without one; a name taken by an earlier task gets `_<i>`
/// appended (`i` = the task's index), so the names are unique. O(n²) comparisons in the worst
/// case (names are short; n is the task count).
pub fn idents<'a>(names: impl IntoIterator<Item = Option<&'a str>>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, name) in names.into_iter().enumerate() {
        let base = name.map(sanitize).filter(|s| !s.is_empty());
        let mut id = base.unwrap_or_else(|| format!("task{i}"));
        if out.contains(&id) {
            id = format!("{id}_{i}");
        }
        while out.contains(&id) {
            id.push('_');
        }
        out.push(id);
    }
    out
}

/// The formats `schedlab export --to` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// rt-app's JSON ([`super::rt_app`]).
    RtApp,
    /// A POSIX shell script ([`super::shell`]).
    Shell,
    /// systemd units ([`super::systemd`]).
    Systemd,
}

impl ExportFormat {
    /// The names `--to` takes.
    pub const NAMES: [&'static str; 3] = ["rt-app", "shell", "systemd"];

    /// Parses `rt-app`, `shell` or `systemd`; the error lists them.
    pub fn parse(s: &str) -> Result<ExportFormat, String> {
        match s {
            "rt-app" | "rtapp" => Ok(ExportFormat::RtApp),
            "shell" | "sh" => Ok(ExportFormat::Shell),
            "systemd" => Ok(ExportFormat::Systemd),
            other => Err(format!(
                "unknown export format `{other}` (use {})",
                Self::NAMES.join(", ")
            )),
        }
    }
}

/// How the writers that start processes find the default task body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// The `schedlab` binary whose `periodic-load` mode is the default body of every task
    /// (the shell script's `SCHEDLAB` variable overrides it; systemd units need an absolute
    /// path).
    pub launcher: String,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            launcher: "schedlab".to_string(),
        }
    }
}

/// `dep` written in `format`: one text (systemd: every unit, one after the other, see
/// [`super::systemd::write`]).
pub fn render(dep: &Deployment, format: ExportFormat, opts: &RenderOptions) -> String {
    match format {
        ExportFormat::RtApp => super::rt_app::write(dep),
        ExportFormat::Shell => super::shell::write(dep, opts),
        ExportFormat::Systemd => super::systemd::write(dep, opts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idents_are_sanitized_and_unique() {
        let ids = idents([
            Some("t1"),
            None,
            Some("a b"),
            Some("a_b"),
            Some("t1"),
            Some("é"),
            Some(""),
        ]);
        assert_eq!(
            ids,
            vec!["t1", "task1", "a_b", "a_b_3", "t1_4", "_", "task6"]
        );
        // A generated suffix that collides with a given name is extended.
        assert_eq!(
            idents([Some("x"), Some("x_2"), Some("x")]),
            vec!["x", "x_2", "x_2_"]
        );
    }

    #[test]
    fn cpu_lists_in_the_kernel_format() {
        assert_eq!(cpu_list(&[0]), "0");
        assert_eq!(cpu_list(&[3, 0, 1, 2]), "0-3");
        assert_eq!(cpu_list(&[0, 2, 3, 5]), "0,2-3,5");
        assert_eq!(cpu_list(&[]), "");
        assert_eq!(
            cpu_list(&[u32::MAX, u32::MAX - 1]),
            format!("{}-{}", u32::MAX - 1, u32::MAX)
        );
    }

    #[test]
    fn formats_parse() {
        assert_eq!(ExportFormat::parse("rt-app"), Ok(ExportFormat::RtApp));
        assert_eq!(ExportFormat::parse("shell"), Ok(ExportFormat::Shell));
        assert_eq!(ExportFormat::parse("systemd"), Ok(ExportFormat::Systemd));
        assert_eq!(
            ExportFormat::parse("docker").unwrap_err(),
            "unknown export format `docker` (use rt-app, shell, systemd)"
        );
    }
}
