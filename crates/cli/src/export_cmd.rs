//! `schedlab export FILE --cpus M --policy P [--partition H] [--priorities dm|rm|given]
//! [--cluster-size K] [--test T] [--overheads OH --arch A [--overhead-stat max|avg]
//! [--granularity G]] [--to rt-app|shell|systemd] [-o OUT] [--duration D] [--dl-margin D]
//! [--force] [--launcher PATH]`: writes what the accepting analysis vouches for as a Linux
//! deployment (docs/export.md). The planning is `schedlab_analysis::deploy::plan`, the
//! writing `schedlab_model::interop`; this file reads the options and writes the output
//! (standard output, a file — a shell script is made executable —, or for systemd a
//! directory with one file per unit).

use crate::output::outln;
use anyhow::{anyhow, bail, Context, Result};
use schedlab_analysis::deploy::{plan, DeployRequest};
use schedlab_model::interop::deploy::{render, ExportFormat, RenderOptions};
use schedlab_model::interop::systemd;
use schedlab_model::{file, Duration};
use std::path::{Path, PathBuf};

/// Arguments of `schedlab export`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Task-set file (.json/.toml).
    file: PathBuf,
    /// Number of CPUs (overrides the file's platform.cpus); logical CPU k is the machine's
    /// CPU k.
    #[arg(long)]
    cpus: Option<u32>,
    /// Policy: gedf (or sd), pedf, cedf → SCHED_DEADLINE; gfp, pfp → SCHED_FIFO. Any other
    /// policy is refused with the `schedlab run` command that runs it.
    #[arg(long)]
    policy: String,
    /// Packing heuristic of pedf/pfp when the file pins no task (ff, ffd, bf, bfd, wf, wfd, nf,
    /// nfd): its test (pedf-H, pfp-H) is the accepting test.
    #[arg(long, default_value = "ffd")]
    partition: String,
    /// Priority assignment of gfp/pfp; SCHED_FIFO priorities go 99 downward in this order.
    #[arg(long, value_enum, default_value = "dm")]
    priorities: crate::PriorityArg,
    /// cedf: CPUs per cluster (default: the file's platform.cluster_size).
    #[arg(long)]
    cluster_size: Option<u32>,
    /// The accepting test of gedf/gfp (default: the gedf / gfp battery); partitioned and
    /// clustered policies are decided by their placement's own test.
    #[arg(long)]
    test: Option<String>,
    /// Overhead-aware acceptance: charge this overhead file's overheads (docs/overheads.md);
    /// needs --arch.
    #[arg(long, value_name = "OH", requires = "arch")]
    overheads: Option<PathBuf>,
    /// The architecture whose overheads are charged (e.g. linux-deadline, partitioned).
    #[arg(long, requires = "overheads")]
    arch: Option<String>,
    /// With --overheads: the statistic charged, max or avg.
    #[arg(long, default_value = "max", requires = "overheads")]
    overhead_stat: String,
    /// With --overheads: the rounding granularity of the accounting.
    #[arg(long, default_value = "1ns", requires = "overheads")]
    granularity: String,
    /// Output format: rt-app (JSON), shell (a POSIX sh script), systemd (units).
    #[arg(long, default_value = "shell", value_parser = clap::builder::PossibleValuesParser::new(ExportFormat::NAMES))]
    to: String,
    /// Write here instead of standard output; with --to systemd, a directory (an existing
    /// one, or a path ending in /) gets one file per unit.
    #[arg(short = 'o', long)]
    out: Option<PathBuf>,
    /// Default run length of the exported files (e.g. 10s), or inf (until stopped).
    #[arg(long, default_value = "10s")]
    duration: String,
    /// SCHED_DEADLINE runtime = WCET + this margin, capped at the deadline (docs/runtime.md).
    #[arg(long, default_value = "500us")]
    dl_margin: String,
    /// Export even a set the accepting test does not accept, or that exceeds the kernel's
    /// default limits (the header says so).
    #[arg(long)]
    force: bool,
    /// The schedlab binary the shell script and the units run as the default task body
    /// (periodic-load; default: this binary).
    #[arg(long)]
    launcher: Option<String>,
}

/// This binary's absolute path when it is a schedlab binary (not, e.g., a Python interpreter
/// running the CLI from the wheel), else `schedlab` from the PATH.
fn default_launcher() -> String {
    std::env::current_exe()
        .ok()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("schedlab"))
        })
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "schedlab".to_string())
}

/// A time option: a duration with a unit (0 needs none).
fn time(text: &str, flag: &str) -> Result<Duration> {
    if text.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    schedlab_model::time::parse_duration_with_unit(text).map_err(|e| anyhow!("{flag}: {e}"))
}

/// Runs the command.
pub(crate) fn run_command(a: &Args) -> Result<()> {
    let loaded = file::load(&a.file)?;
    let cpus = a
        .cpus
        .or(loaded.platform.as_ref().map(|p| p.cpus))
        .ok_or_else(|| {
            anyhow!(
                "{}: give --cpus (the file has no platform.cpus)",
                a.file.display()
            )
        })?;
    schedlab_model::Platform::new(cpus).map_err(|e| anyhow!("--cpus: {e}"))?;
    let cluster_size = a
        .cluster_size
        .or(loaded.platform.as_ref().and_then(|p| p.cluster_size));
    let duration = match a.duration.trim() {
        "inf" => None,
        d => {
            let d = time(d, "--duration")?;
            if d.is_zero() {
                bail!("--duration must be longer than 0 (or inf)");
            }
            Some(d)
        }
    };
    let overheads = match &a.overheads {
        None => None,
        Some(path) => Some(crate::analyze::charging(
            path,
            a.arch.as_deref(),
            false,
            &a.overhead_stat,
            &a.granularity,
        )?),
    };
    let source = a.file.display().to_string();
    let req = DeployRequest {
        tasks: &loaded.tasks,
        cpus,
        policy: &a.policy,
        partition: &a.partition,
        priorities: a.priorities.into(),
        cluster_size,
        test: a.test.as_deref(),
        overheads: overheads.as_ref(),
        dl_margin: time(&a.dl_margin, "--dl-margin")?,
        force: a.force,
        duration,
        source: &source,
    };
    let dep = plan(&req)?;
    let format = ExportFormat::parse(&a.to).map_err(|e| anyhow!("--to: {e}"))?;
    let opts = RenderOptions {
        launcher: a.launcher.clone().unwrap_or_else(default_launcher),
    };
    match (&a.out, format) {
        (Some(dir), ExportFormat::Systemd) if is_dir_target(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let units = systemd::units(&dep, &opts);
            for u in &units {
                let path = dir.join(&u.file);
                std::fs::write(&path, &u.text)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            eprintln!("wrote {} units to {}", units.len(), dir.display());
        }
        (Some(path), _) => {
            let text = render(&dep, format, &opts);
            std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            if format == ExportFormat::Shell {
                make_executable(path)?;
            }
        }
        (None, _) => {
            let text = render(&dep, format, &opts);
            outln!("{}", text.trim_end_matches('\n'))?;
        }
    }
    Ok(())
}

/// Whether `-o` names a directory: an existing one, or a path written with a trailing `/`.
fn is_dir_target(path: &Path) -> bool {
    path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/')
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut perms = std::fs::metadata(path)?.permissions();
    perms.set_mode(perms.mode() | 0o755);
    std::fs::set_permissions(path, perms)
        .with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<()> {
    Ok(())
}
