//! `schedlab bench sim`: simulated jobs per wall-clock second for G-EDF and P-EDF on
//! m ∈ {4, 16, 64} with n = 5m tasks (UUniFast-Discard, U = 0.7·m, periods log-uniform
//! [10, 1000] ms, implicit deadlines, WCET execution, zero overheads), one thread. Other m and
//! n/m ratios draw the cost-per-job curve; `--repeat` reports the median of several runs.
//! `hcbs` runs the same tasks alternately in two reservation groups, each with a server
//! (Q, P) = (5 ms, 10 ms) on every CPU [HCBS §3.2].

use crate::output::outln;
use anyhow::{anyhow, Result};
use schedlab_analysis::placement::policy_inputs;
use schedlab_analysis::Priorities;
use schedlab_gen::util_vec::VecMethod;
use schedlab_gen::{GenSpec, PeriodDist, Shape};
use schedlab_model::Duration;
use schedlab_policy::Placement;
use schedlab_sim::{run, SimConfig};
use serde_json::json;
use std::time::Instant;

/// Options of `schedlab bench sim`.
pub(crate) struct Options {
    pub(crate) cpus: Vec<u32>,
    pub(crate) tasks_per_cpu: Vec<u32>,
    pub(crate) repeat: u32,
    pub(crate) policies: Vec<String>,
    pub(crate) duration: Duration,
    pub(crate) seed: u64,
    pub(crate) json: bool,
}

/// Runs the benchmark.
pub(crate) fn run_bench(o: &Options) -> Result<()> {
    if !o.json {
        outln!(
            "{:>4} {:>5}  {:<8} {:>12} {:>10} {:>14} {:>10}",
            "m",
            "n",
            "policy",
            "jobs",
            "wall s",
            "jobs/s",
            "ns/job"
        )?;
    }
    for (&m, &per_cpu) in o
        .cpus
        .iter()
        .flat_map(|m| o.tasks_per_cpu.iter().map(move |k| (m, k)))
    {
        let n = per_cpu as usize * m as usize;
        if n == 0 {
            return Err(anyhow!("--cpus and --tasks-per-cpu must be positive"));
        }
        let spec = GenSpec::new(
            Shape::FixedSum {
                n,
                total: 0.7 * f64::from(m),
                method: VecMethod::UUniFastDiscard { lo: 0.0, hi: 1.0 },
            },
            PeriodDist::parse("loguniform:10ms..1000ms/1ms")?,
        )
        .seed(o.seed);
        let plain = spec.generate(0)?.tasks;
        let grouped = in_two_groups(&plain)?;
        for policy in &o.policies {
            // `hcbs` runs the same tasks in two reservation groups (module doc).
            let tasks = if policy == "hcbs" { &grouped } else { &plain };
            let inputs = policy_inputs(policy, tasks, m, "wfd", None, Priorities::Dm, None)
                .map_err(|e| anyhow!(e))?;
            let (split, sizes) = (inputs.split, inputs.domain_sizes);
            let (ranks, placement) = (
                inputs.ranks,
                inputs.placement.map(|p| {
                    Placement::from(p)
                        .with_split(split)
                        .with_domain_sizes(sizes)
                }),
            );
            let mut config = SimConfig::new(m, o.duration);
            // Metrics only, as a sweep would run it: per-job records cost an allocation each.
            config.record_jobs = false;
            let mut walls = Vec::new();
            let mut last = None;
            for _ in 0..o.repeat.max(1) {
                let started = Instant::now();
                let (result, _) = run(tasks, policy, &ranks, placement.clone(), &config)?;
                walls.push(started.elapsed().as_secs_f64());
                last = Some(result);
            }
            let Some(result) = last else { continue };
            walls.sort_by(f64::total_cmp);
            let wall = walls.get(walls.len() / 2).copied().unwrap_or(0.0);
            let jobs = result.totals.jobs;
            let rate = jobs as f64 / wall.max(1e-9);
            if o.json {
                outln!(
                    "{}",
                    json!({"cpus": m, "tasks": n, "policy": policy, "jobs": jobs,
                           "events": result.events_processed, "wall_seconds": wall,
                           "jobs_per_second": rate, "ns_per_job": 1e9 / rate})
                )?;
            } else {
                outln!(
                    "{m:>4} {n:>5}  {policy:<8} {jobs:>12} {wall:>10.3} {rate:>14.0} {:>10.0}",
                    1e9 / rate
                )?;
            }
        }
    }
    Ok(())
}

/// The tasks alternately in groups `a` and `b`, each (Q, P) = (5 ms, 10 ms) on every CPU.
fn in_two_groups(tasks: &schedlab_model::TaskSet) -> Result<schedlab_model::TaskSet> {
    use schedlab_model::{ReservationGroup, TaskSet};
    let ms = |v: u64| Duration::from_ns(v * 1_000_000);
    let list = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut t = t.clone();
            t.group = Some(if i % 2 == 0 { "a" } else { "b" }.to_string());
            t
        })
        .collect();
    let groups = vec![
        ReservationGroup::new("a", ms(5), ms(10)),
        ReservationGroup::new("b", ms(5), ms(10)),
    ];
    Ok(TaskSet::with_groups(list, Vec::new(), groups)?)
}
