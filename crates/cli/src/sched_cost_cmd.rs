//! `schedlab measure sched-cost`: per-algorithm scheduling cost against the number of tasks n
//! on this machine, like [ChronOS §9.1, Figs. 9.1–9.3] (there: the time around the
//! scheduling algorithm's call, against the tasks in the scheduler, on 8–48 cores; here: m =
//! 2 by default and n ∈ {4, 8, 16, 32, 64}).
//!
//! Every policy runs under the architecture it has in ChronOS ([ChronOS Table 6.3]: STW =
//! `global-lock`, Concurrent = `concurrent`, the partitioned ones = `partitioned`; C-EDF, G-EDF
//! domains, under `global-lock` with `--cedf-cluster-size`). `SCHED_FIFO` (`linux-fifo`) has
//! no user-space scheduler — the kernel schedules it —, so it has no policy cost to measure
//! and is not in the default list.
//!
//! For every n one task set is generated (RandFixedSum utilizations summing to
//! `--util-per-cpu` × m — above 1 only without `pedf`, `pfp`, `cedf`, whose placement needs a
//! feasible partition —, each at most `--max-task-util`, log-uniform periods, implicit
//! deadlines, utilities uniform in 1..100, the seed + n); every policy runs it for
//! `--duration` as a separate `timeout T schedlab run` process (T = duration + 30 s).
//! `--rounds` rounds; within a round the policies take turns in an order rotated by one per
//! round, so drift in the machine's load does not favour one. Per run two costs are taken
//! from the run's JSON: `policy_cost` (the policy callback alone, timed by the runtime around
//! each call, `schedlab_runtime::state::Sched`: ChronOS's measurement) and `schedule` (Δsch:
//! a dispatcher's scheduling step, lock wait and link enactment included; docs/traces.md).
//! `--replot` draws the figures again from the CSV without running. Output: `OUT/NAME.csv`
//! (one row per run; NAME `chronos-sched-cost` by default) and three figures, SVG and PNG (traditional
//! global, UA global, partitioned), each the mean policy cost and the mean Δsch against n,
//! the median over the rounds.

use crate::output::outln;
use anyhow::{anyhow, bail, Context, Result};
use schedlab_analysis::placement::for_policy;
use schedlab_analysis::Priorities;
use schedlab_exp::plot::{png_row, svg_row, LineChart};
use schedlab_gen::util_vec::VecMethod;
use schedlab_gen::{GenSpec, PeriodDist, Shape, UtilityDist};
use schedlab_model::file::{self, Format, TaskFile};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The 15 policies of [ChronOS Table 6.3] with a user-space scheduler, by figure group.
const GROUPS: [(&str, &[&str]); 3] = [
    ("traditional", &["gfifo", "gfp", "gedf", "gnpedf", "cedf"]),
    ("ua", &["gnphvdf", "ghvdf", "gmua", "nggua", "ggua"]),
    ("partitioned", &["pfp", "pedf", "phvdf", "plbesa", "pdasa"]),
];

/// Largest number of tasks of one run (the O(mn²) policies at n = 1000 would take minutes
/// per scheduling event).
const MAX_TASKS: usize = 1000;
/// Sets of a batch tried for a partitionable one.
const MAX_TRIES: u64 = 500;
/// Most runs of one invocation.
const MAX_RUNS: usize = 10_000;

/// Arguments of `schedlab measure sched-cost`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Output folder: NAME.csv and NAME-{group}.svg.
    #[arg(long, default_value = "docs/reproductions")]
    out: PathBuf,
    /// File name stem of the outputs (STEM.csv, STEM-{group}.svg).
    #[arg(long, default_value = "chronos-sched-cost")]
    name: String,
    /// Folder for the generated task sets.
    #[arg(long, default_value = "target/sched-cost")]
    work: PathBuf,
    /// Policies (comma-separated; default: the 15 of ChronOS with a user-space scheduler).
    #[arg(long, value_delimiter = ',')]
    policies: Vec<String>,
    /// Numbers of tasks n (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "4,8,16,32,64")]
    tasks: Vec<usize>,
    /// Number of CPUs m (the first m this process may use).
    #[arg(long, default_value_t = 2)]
    cpus: u32,
    /// Total utilization per CPU (0.9: near full load, as ChronOS's full-load sets, yet
    /// partitionable by P-EDF's admission so every policy runs the same set).
    #[arg(long, default_value_t = 0.9)]
    util_per_cpu: f64,
    /// Largest utilization of one task.
    #[arg(long, default_value_t = 0.9)]
    max_task_util: f64,
    /// Period distribution.
    #[arg(long, default_value = "loguniform:10ms..100ms/1ms")]
    periods: String,
    /// C-EDF's cluster size.
    #[arg(long, default_value_t = 1)]
    cedf_cluster_size: u32,
    /// Rounds (each runs every policy once per n).
    #[arg(long, default_value_t = 2)]
    rounds: u32,
    /// Length of each run.
    #[arg(long, default_value = "1s")]
    duration: String,
    /// Random seed of the task sets.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run under SCHED_OTHER when SCHED_FIFO is not permitted (results flagged).
    #[arg(long)]
    allow_non_rt: bool,
    /// Run nothing: draw the figures again from OUT/NAME.csv.
    #[arg(long)]
    replot: bool,
}

/// The architecture of `policy` in ChronOS [Table 6.3].
fn arch_of(policy: &str) -> &'static str {
    match policy {
        "gfifo" | "gnpedf" | "gnphvdf" => "concurrent",
        "pfp" | "pedf" | "phvdf" | "plbesa" | "pdasa" => "partitioned",
        _ => "global-lock",
    }
}

/// One run's costs (ns).
#[derive(Clone, Copy, Default)]
struct Costs {
    policy_mean: f64,
    policy_median: f64,
    policy_max: f64,
    sched_mean: f64,
    sched_median: f64,
}

/// The set for `n`: the first of the batch (seed + n) that the placements of the policies
/// measured accept (P-EDF and P-RMS by worst-fit with their admission tests, C-EDF's
/// clusters; the best-effort ones never fail), so that every policy runs the same set; at
/// most [`MAX_TRIES`] tried.
fn task_set(a: &Args, policies: &[String], n: usize) -> Result<TaskFile> {
    let spec = GenSpec::new(
        Shape::FixedSum {
            n,
            total: a.util_per_cpu * f64::from(a.cpus),
            method: VecMethod::parse(&format!("randfixedsum:0..{}", a.max_task_util))?,
        },
        PeriodDist::parse(&a.periods)?,
    )
    .utilities(Some(UtilityDist::parse("uniform:1..100")?))
    .seed(a.seed.wrapping_add(n as u64));
    let g = spec.generator()?;
    for index in 0..MAX_TRIES {
        let tasks = g.generate(index)?.tasks;
        let placed = |policy: &str, prio: Priorities, k: Option<u32>| {
            for_policy(policy, &tasks, a.cpus, "wfd", k, prio, None).is_ok()
        };
        let needs = |p: &str| policies.iter().any(|x| x == p);
        if (!needs("pedf") || placed("pedf", Priorities::Dm, None))
            && (!needs("pfp") || placed("pfp", Priorities::Rm, None))
            && (!needs("cedf") || placed("cedf", Priorities::Dm, Some(a.cedf_cluster_size)))
        {
            return Ok(TaskFile {
                tasks,
                platform: None,
            });
        }
    }
    bail!("n = {n}: none of the first {MAX_TRIES} sets of the batch is partitionable (lower --util-per-cpu)")
}

/// `timeout T schedlab run …` for one policy; the JSON summary.
fn run_one(a: &Args, exe: &Path, set: &Path, policy: &str) -> Result<serde_json::Value> {
    let secs = schedlab_model::time::parse_duration_with_unit(&a.duration)
        .map_err(|e| anyhow!("--duration: {e}"))?
        .as_ns()
        / 1_000_000_000;
    let mut cmd = Command::new("timeout");
    cmd.arg((secs + 30).to_string())
        .arg(exe)
        .arg("run")
        .arg(set)
        .args(["--cpus", &a.cpus.to_string(), "--policy", policy])
        .args(["--arch", arch_of(policy), "--duration", &a.duration])
        .args(["--format", "json"]);
    match policy {
        "gfp" | "pfp" => {
            cmd.args(["--priorities", "rm"]);
        }
        "cedf" => {
            cmd.args(["--cluster-size", &a.cedf_cluster_size.to_string()]);
        }
        _ => {}
    }
    if matches!(policy, "pedf" | "pfp" | "cedf") {
        cmd.args(["--partition", "wfd"]);
    }
    if a.allow_non_rt {
        cmd.arg("--allow-non-rt");
    }
    let out = cmd.output().context("cannot start timeout/schedlab run")?;
    if !out.status.success() {
        bail!("{}", String::from_utf8_lossy(&out.stderr).trim());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| anyhow!("bad JSON from schedlab run: {e}"))
}

fn costs(v: &serde_json::Value) -> Costs {
    let f = |x: &serde_json::Value| x.as_f64().unwrap_or(f64::NAN);
    let p = &v["policy_cost"];
    let s = &v["overheads"]["schedule"];
    Costs {
        policy_mean: f(&p["mean_ns"]),
        policy_median: f(&p["median_ns"]),
        policy_max: f(&p["max_ns"]),
        sched_mean: f(&s["mean_ns"]),
        sched_median: f(&s["median_ns"]),
    }
}

/// The policies in the order of round `r` (rotated by `r`).
fn rotated(policies: &[String], r: u32) -> Vec<String> {
    let mut v = policies.to_vec();
    if !v.is_empty() {
        let k = r as usize % v.len();
        v.rotate_left(k);
    }
    v
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len() / 2;
    if v.len() % 2 == 0 {
        (v[k - 1] + v[k]) / 2.0
    } else {
        v[k]
    }
}

/// Runs the command.
pub(crate) fn run(a: &Args) -> Result<()> {
    let policies: Vec<String> = if a.policies.is_empty() {
        GROUPS
            .iter()
            .flat_map(|(_, p)| p.iter().map(|s| s.to_string()))
            .collect()
    } else {
        a.policies.clone()
    };
    if a.replot {
        let path = a.out.join(format!("{}.csv", a.name));
        let text = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
        let by = from_csv(&text)?;
        plots(a, &policies, &by)?;
        outln!(
            "figures of {} drawn again in {}",
            path.display(),
            a.out.display()
        )?;
        return Ok(());
    }
    if let Some(&n) = a.tasks.iter().find(|&&n| n == 0 || n > MAX_TASKS) {
        bail!("--tasks: {n} is not in 1..={MAX_TASKS}");
    }
    let runs = policies.len() * a.tasks.len() * a.rounds as usize;
    if runs > MAX_RUNS {
        bail!("{runs} runs: at most {MAX_RUNS} (fewer --rounds, --tasks or --policies)");
    }
    std::fs::create_dir_all(&a.out).with_context(|| a.out.display().to_string())?;
    std::fs::create_dir_all(&a.work).with_context(|| a.work.display().to_string())?;
    let exe = std::env::current_exe().context("cannot find the schedlab binary")?;
    let mut sets = BTreeMap::new();
    for &n in &a.tasks {
        let path = a.work.join(format!("{}-n{n}.json", a.name));
        std::fs::write(
            &path,
            file::to_string(&task_set(a, &policies, n)?, Format::Json)?,
        )
        .with_context(|| path.display().to_string())?;
        sets.insert(n, path);
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    eprintln!("load before: {}", load.trim());
    let mut csv = String::from(
        "round,n,policy,arch,jobs,misses,aborted,aur,real_time,policy_calls,policy_mean_ns,policy_median_ns,policy_max_ns,schedule_mean_ns,schedule_median_ns\n",
    );
    let mut by: BTreeMap<(String, usize), Vec<Costs>> = BTreeMap::new();
    for r in 0..a.rounds {
        for (&n, set) in &sets {
            for policy in rotated(&policies, r + n as u32) {
                let v = match run_one(a, &exe, set, &policy) {
                    Ok(v) => v,
                    Err(e) => {
                        eprintln!("round {r}, n = {n}, {policy}: failed: {e}");
                        continue;
                    }
                };
                let c = costs(&v);
                let _ = writeln!(
                    csv,
                    "{r},{n},{policy},{},{},{},{},{},{},{},{:.0},{:.0},{:.0},{:.0},{:.0}",
                    arch_of(&policy),
                    v["jobs"],
                    v["deadline_misses"],
                    v["aborted"],
                    v["aur"],
                    v["real_time"],
                    v["policy_cost"]["count"],
                    c.policy_mean,
                    c.policy_median,
                    c.policy_max,
                    c.sched_mean,
                    c.sched_median
                );
                eprintln!(
                    "round {r}, n = {n:>3}, {policy:<8} ({}): policy cost mean {:.2} µs, max {:.1} µs; Δsch mean {:.2} µs",
                    arch_of(&policy),
                    c.policy_mean / 1e3,
                    c.policy_max / 1e3,
                    c.sched_mean / 1e3
                );
                by.entry((policy.clone(), n)).or_default().push(c);
            }
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    eprintln!("load after: {}", load.trim());
    write(&a.out.join(format!("{}.csv", a.name)), csv.as_bytes())?;
    plots(a, &policies, &by)?;
    outln!(
        "{} runs; {}.csv and the figures in {}",
        by.values().map(Vec::len).sum::<usize>(),
        a.name,
        a.out.display()
    )?;
    Ok(())
}

/// The costs of a CSV written by [`run`], by (policy, n); at most [`MAX_RUNS`] rows.
fn from_csv(text: &str) -> Result<BTreeMap<(String, usize), Vec<Costs>>> {
    let mut by: BTreeMap<(String, usize), Vec<Costs>> = BTreeMap::new();
    for (i, line) in text.lines().enumerate().skip(1).take(MAX_RUNS) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |k: usize| -> Result<f64> {
            f.get(k)
                .and_then(|x| x.trim().parse::<f64>().ok())
                .ok_or_else(|| anyhow!("line {}: field {k} is not a number", i + 1))
        };
        let n = f
            .get(1)
            .and_then(|x| x.parse::<usize>().ok())
            .ok_or_else(|| anyhow!("line {}: no n", i + 1))?;
        let policy = f
            .get(2)
            .ok_or_else(|| anyhow!("line {}: no policy", i + 1))?;
        by.entry((policy.to_string(), n)).or_default().push(Costs {
            policy_mean: num(10)?,
            policy_median: num(11)?,
            policy_max: num(12)?,
            sched_mean: num(13)?,
            sched_median: num(14)?,
        });
    }
    Ok(by)
}

type Series = Vec<(String, Vec<(f64, f64)>)>;

/// One figure per group: mean policy cost and mean Δsch against n, median over rounds (µs).
fn plots(a: &Args, policies: &[String], by: &BTreeMap<(String, usize), Vec<Costs>>) -> Result<()> {
    for (group, members) in GROUPS {
        let chosen: Vec<&String> = policies
            .iter()
            .filter(|p| members.contains(&p.as_str()))
            .collect();
        if chosen.is_empty() {
            continue;
        }
        let line = |pick: fn(&Costs) -> f64| -> Series {
            chosen
                .iter()
                .map(|p| {
                    let pts = a
                        .tasks
                        .iter()
                        .filter_map(|&n| {
                            let v = by.get(&((*p).clone(), n))?;
                            let y = median(v.iter().map(pick).collect()) / 1e3;
                            y.is_finite().then_some((n as f64, y))
                        })
                        .collect();
                    (format!("{p} ({})", arch_of(p)), pts)
                })
                .collect()
        };
        let chart = |what: &str, series: Series| LineChart {
            title: format!("{group}: {what} (m = {}, mean)", a.cpus),
            x_desc: "number of tasks n".into(),
            y_desc: format!("{what} (µs)"),
            series,
        };
        let charts = [
            chart("policy callback", line(|c| c.policy_mean)),
            chart("scheduling step Δsch", line(|c| c.sched_mean)),
        ];
        let svg = svg_row(&charts).map_err(|e| anyhow!("plot {group}: {e}"))?;
        write(
            &a.out.join(format!("{}-{group}.svg", a.name)),
            svg.as_bytes(),
        )?;
        let png = png_row(&charts).map_err(|e| anyhow!("plot {group}: {e}"))?;
        write(&a.out.join(format!("{}-{group}.png", a.name)), &png)?;
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The architectures of [ChronOS Table 6.3] for every policy of the default list.
    #[test]
    fn every_default_policy_runs_under_its_chronos_architecture() {
        let expected = [
            ("gfifo", "concurrent"),
            ("gnpedf", "concurrent"),
            ("gnphvdf", "concurrent"),
            ("gfp", "global-lock"),
            ("gedf", "global-lock"),
            ("cedf", "global-lock"),
            ("ghvdf", "global-lock"),
            ("gmua", "global-lock"),
            ("nggua", "global-lock"),
            ("ggua", "global-lock"),
            ("pfp", "partitioned"),
            ("pedf", "partitioned"),
            ("phvdf", "partitioned"),
            ("plbesa", "partitioned"),
            ("pdasa", "partitioned"),
        ];
        let all: Vec<&str> = GROUPS.iter().flat_map(|(_, p)| p.iter().copied()).collect();
        assert_eq!(all.len(), expected.len());
        for (p, a) in expected {
            assert!(all.contains(&p), "{p}");
            assert_eq!(arch_of(p), a, "{p}");
        }
    }

    /// Rounds rotate the order by one: round r starts with policy r mod k, and every round
    /// runs every policy once.
    #[test]
    fn rounds_rotate_the_order() {
        let p: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(rotated(&p, 0), ["a", "b", "c"]);
        assert_eq!(rotated(&p, 1), ["b", "c", "a"]);
        assert_eq!(rotated(&p, 5), ["c", "a", "b"]);
        assert!(rotated(&[], 3).is_empty());
    }

    /// The median skips failed (NaN) runs; none left is NaN.
    #[test]
    fn median_skips_missing_values() {
        assert_eq!(median(vec![3.0, f64::NAN, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0]), 2.5);
        assert!(median(vec![f64::NAN]).is_nan());
    }
}
