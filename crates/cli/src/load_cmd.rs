//! `schedlab periodic-load --wcet C --period T [--deadline D] [--offset O] [--duration D|inf]
//! [--start-at NS] [--name N] [--wss SIZE]`: one periodic task's load in the calling process,
//! the default task body of the exported shell script and systemd units (docs/export.md).
//!
//! Job k is released at start + offset + k·T (an absolute CLOCK_MONOTONIC sleep, so releases
//! do not drift), burns exactly C of the thread's own CPU time (`CLOCK_THREAD_CPUTIME_ID`: a
//! preempted job still does all its work, and it never runs longer than that — under
//! `SCHED_FIFO` it sleeps between jobs instead of hogging its CPU), and writes its working set
//! if one is given. `--start-at` is a CLOCK_REALTIME instant in ns since the epoch (the script
//! gives every task the same one, so the releases are synchronous); a late start joins the
//! release grid at the next release. The process neither forks nor starts threads, so it runs
//! under `SCHED_DEADLINE` (set by `chrt -d` before it starts). `--name` becomes the process's
//! name (`/proc/<pid>/comm`, 15 bytes). At the end it prints its jobs, deadline misses (a
//! completion after release + D) and largest response time.

use crate::output::outln;
use anyhow::{anyhow, bail, Result};
use schedlab_model::time::{format_ns, parse_duration_with_unit};
use schedlab_model::Duration;
use schedlab_runtime::mech::burn::{burn, WorkingSet};
use schedlab_runtime::mech::clock::{monotonic_ns, sleep_until};

/// Arguments of `schedlab periodic-load`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// CPU time each job burns, e.g. 2ms.
    #[arg(long)]
    wcet: String,
    /// Release period, e.g. 10ms.
    #[arg(long)]
    period: String,
    /// Relative deadline for the miss count (default: the period).
    #[arg(long)]
    deadline: Option<String>,
    /// The first release's offset from the start.
    #[arg(long, default_value = "0")]
    offset: String,
    /// How long to release jobs, e.g. 10s, or inf.
    #[arg(long, default_value = "10s")]
    duration: String,
    /// The common start: a CLOCK_REALTIME instant in ns since the epoch (default: now).
    #[arg(long, value_name = "NS")]
    start_at: Option<u64>,
    /// The process's name (its /proc/<pid>/comm) and the name in the summary.
    #[arg(long)]
    name: Option<String>,
    /// A working set each job writes, e.g. 64KiB.
    #[arg(long)]
    wss: Option<String>,
}

fn time(text: &str, flag: &str) -> Result<Duration> {
    if text.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    parse_duration_with_unit(text).map_err(|e| anyhow!("{flag}: {e}"))
}

/// The largest working set the load writes (1 GiB).
const MAX_WSS: u64 = 1 << 30;

/// The CLOCK_MONOTONIC instant of the CLOCK_REALTIME instant `at_ns`.
fn monotonic_of_realtime(at_ns: u64) -> u64 {
    let now_rt = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    let now = monotonic_ns();
    let delta = i128::from(at_ns) - i128::from(now_rt);
    u64::try_from((i128::from(now) + delta).max(0)).unwrap_or(u64::MAX)
}

/// Runs the command.
pub(crate) fn run_command(a: &Args) -> Result<()> {
    let wcet = time(&a.wcet, "--wcet")?;
    let period = time(&a.period, "--period")?;
    let deadline = match &a.deadline {
        Some(d) => time(d, "--deadline")?,
        None => period,
    };
    let offset = time(&a.offset, "--offset")?;
    if wcet.is_zero() || period.is_zero() || deadline.is_zero() {
        bail!("--wcet, --period and --deadline must be longer than 0");
    }
    if wcet > period {
        bail!("--wcet {wcet} exceeds --period {period}: the load would never sleep");
    }
    let duration = match a.duration.trim() {
        "inf" => None,
        d => Some(time(d, "--duration")?),
    };
    let mut ws = match &a.wss {
        None => None,
        Some(s) => {
            let bytes = schedlab_model::size::parse_bytes(s).map_err(|e| anyhow!("--wss: {e}"))?;
            if bytes > MAX_WSS {
                bail!("--wss: {s} is more than the 1GiB the load writes");
            }
            Some(WorkingSet::new(usize::try_from(bytes).unwrap_or(0)))
        }
    };
    let name = a
        .name
        .clone()
        .unwrap_or_else(|| "periodic-load".to_string());
    if a.name.is_some() {
        // The kernel keeps the first 15 bytes; a failure only leaves the binary's name.
        let _ = std::fs::write("/proc/self/comm", name.as_bytes());
    }
    let start = a.start_at.map_or_else(monotonic_ns, monotonic_of_realtime);
    let first = start.saturating_add(offset.as_ns());
    let end = duration.map(|d| start.saturating_add(d.as_ns()));
    // A late start joins the release grid at the next release.
    let now = monotonic_ns();
    let mut k = if a.start_at.is_some() && now > first {
        (now - first).div_ceil(period.as_ns())
    } else {
        0
    };
    let (mut jobs, mut misses, mut max_response) = (0u64, 0u64, 0u64);
    while let Some(release) = k
        .checked_mul(period.as_ns())
        .and_then(|x| x.checked_add(first))
    {
        if end.is_some_and(|e| release >= e) {
            break;
        }
        sleep_until(release);
        burn(wcet.as_ns(), ws.as_mut(), || false);
        let response = monotonic_ns().saturating_sub(release);
        jobs += 1;
        misses += u64::from(response > deadline.as_ns());
        max_response = max_response.max(response);
        k += 1;
    }
    outln!(
        "{name}: {jobs} jobs, {misses} deadline misses, max response {} (wcet {wcet}, period {period}, deadline {deadline})",
        format_ns(max_response)
    )?;
    Ok(())
}
