//! From a task set to a finished run, and the report formats of `schedlab run`, shared by the
//! CLI (and later Python): the simulator's JSON summary and jobs CSV (the same code,
//! `schedlab_sim::front`) plus the runtime's fields — `"arch"`, `"overheads"`, and what the
//! run was like (`"real_time"`, `"interrupted"`, `"warnings"`, …).
//!
//! Fixed-priority ranks and the placement are inputs (computed by the caller with the
//! analysis crate, like `schedlab simulate` does), so this crate never depends on the
//! analysis (DESIGN.md).

use crate::config::{Arch, RtTask, RunConfig};
use crate::error::RuntimeError;
use crate::run::{run, RunResult};
use schedlab_model::TaskSet;
use schedlab_trace::check;
use schedlab_trace::metrics::metrics_json;
use schedlab_trace::Meta;
use serde_json::{json, Value};

/// Runs `tasks` (burn bodies, working sets from the file) under `config`; returns the result
/// and the trace metadata.
pub fn run_taskset(tasks: &TaskSet, config: &RunConfig) -> Result<(RunResult, Meta), RuntimeError> {
    run_taskset_with(tasks, config, &[])
}

/// [`run_taskset`] with custom job bodies: `bodies` pairs a task index with the body that
/// replaces its burn body (for a parallel task it is called once per thread,
/// [`crate::Body::Custom`]); a body for a task index beyond the set is an error.
pub fn run_taskset_with(
    tasks: &TaskSet,
    config: &RunConfig,
    bodies: &[(usize, crate::Body)],
) -> Result<(RunResult, Meta), RuntimeError> {
    let mut rt: Vec<RtTask> = tasks.iter().map(RtTask::from).collect();
    for (i, body) in bodies {
        let n = rt.len();
        let Some(t) = rt.get_mut(*i) else {
            return Err(RuntimeError::invalid(
                "bodies",
                format!("a body for task {i}, but the set has {n} tasks"),
            ));
        };
        t.body = body.clone();
    }
    let result = run(&rt, config)?;
    let mut meta = Meta::of_run(
        "runtime",
        &config.policy,
        config.m(),
        tasks,
        config.duration,
    );
    // The parts of split tasks, so that trace tools (Perfetto, `check::part_overruns`) know
    // them, as for a simulated run.
    if let Some(p) = &config.placement {
        for (task, parts) in p.split.iter().enumerate() {
            meta.set_split(task, parts.iter().map(|q| (q.cpu, q.budget.as_ns())));
        }
    }
    meta.extra
        .insert("architecture".into(), json!(config.overhead_arch()));
    meta.extra.extend(crate::arch::fields_map(config));
    for &(k, v) in &result.arch_counters {
        meta.extra.insert(k.into(), json!(v));
    }
    meta.extra.insert("cpu_list".into(), json!(config.cpus));
    meta.extra
        .insert("real_time".into(), json!(result.real_time));
    meta.extra.insert("tick_hz".into(), json!(result.tick_hz));
    // The kernel tick's HZ, so that `trace overheads` writes the measuring kernel's tick
    // period (the configuration only: no waiting at the end of a run).
    if let Some(k) = crate::tick::configured_tick() {
        meta.extra.insert("kernel_hz".into(), json!(k.hz));
        meta.extra
            .insert("kernel_hz_source".into(), json!(k.source.describe()));
    }
    Ok((result, meta))
}

/// The JSON summary of `schedlab run --format json`: the simulator's fields plus `arch`, the
/// architecture's own fields (`crate::arch::ArchDef::fields`: `lock` and
/// `dedicated_irq_cpu` for global-lock; `dsp_cpu`, `dsp_poll` and `inline_completion` for
/// message-passing; `dl_margin_ns` and `dl_cpuset` for linux-deadline; `rt_groups` and
/// `rt_runtime_share` for linux-rt-groups), `cpu_list`,
/// `background_load_bytes`, `overheads` (see [`schedlab_trace::overheads`]), `real_time`,
/// `interrupted`, `dropped_events`, `tsc`, `tick_hz`, `invariant` (architectures of global
/// scheduling — global-lock, and message-passing on the DSP's view —: fraction of the run
/// the global scheduling invariant held, worst window; `null` for a run with parallel jobs,
/// whose threads are strands of one job), `warnings` and `job_errors` (a job
/// that ended holding a resource, `RunResult::job_errors`). The trace metadata
/// ([`run_taskset`]) carries `architecture`, the same architecture fields, and `kernel_hz`
/// with `kernel_hz_source` (the kernel's tick rate from its configuration,
/// [`crate::tick::configured_tick`], when readable).
pub fn summary_json(r: &RunResult, config: &RunConfig, primary: &dyn Fn(u32, u64) -> u64) -> Value {
    let mut map = metrics_json(&r.per_task, &r.totals, r.horizon);
    map.insert("policy".into(), json!(config.policy));
    map.insert("cpus".into(), json!(config.m()));
    map.insert("events".into(), json!(r.events_processed));
    map.insert("wall_seconds".into(), json!(r.wall_seconds));
    map.insert(
        "jobs_per_second".into(),
        json!(if r.wall_seconds > 0.0 {
            r.totals.jobs as f64 / r.wall_seconds
        } else {
            0.0
        }),
    );
    {
        map.insert("arch".into(), json!(config.arch.name()));
        map.extend(crate::arch::fields_map(config));
        for &(k, v) in &r.arch_counters {
            map.insert(k.into(), json!(v));
        }
        if !config.arch.def().kernel {
            map.insert("threading".into(), json!(config.threading.name()));
        }
        map.insert("cpu_list".into(), json!(config.cpus));
        map.insert(
            "background_load_bytes".into(),
            json!(config.background_load),
        );
        map.insert("overheads".into(), r.overheads.to_json());
        map.insert(
            "policy_cost".into(),
            r.policy_cost.as_ref().map_or(Value::Null, |s| s.to_json()),
        );
        map.insert("real_time".into(), json!(r.real_time));
        map.insert("interrupted".into(), json!(r.interrupted));
        map.insert("dropped_events".into(), json!(r.dropped_events));
        map.insert("tsc".into(), json!(r.tsc));
        map.insert("tick_hz".into(), json!(r.tick_hz));
        // The invariant is about jobs; a parallel job's threads are scheduled as strands
        // (`rtws` keeps some in local queues by design): not checked, `null`.
        let strands = r.trace.iter().any(|e| e.strand != 0);
        if strands && config.arch.def().global_invariant {
            map.insert("invariant".into(), Value::Null);
        } else if config.arch.def().global_invariant {
            let k = config.job_cpus().len() as u32;
            let inv = check::invariant(&r.trace, k, r.horizon.as_ns(), primary);
            map.insert(
                "invariant".into(),
                json!({
                    "held_fraction": inv.held_fraction(),
                    "violated_ns": inv.violated_ns,
                    "windows": inv.windows,
                    "worst_window_start_ns": inv.worst.map(|w| w.0),
                    "worst_window_ns": inv.worst.map(|w| w.1),
                }),
            );
        }
        map.insert("warnings".into(), json!(r.warnings));
        map.insert("job_errors".into(), json!(r.job_errors));
    }
    Value::Object(map)
}

/// The jobs CSV (the simulator's format).
pub fn jobs_csv(r: &RunResult) -> String {
    schedlab_trace::metrics::jobs_csv(&r.jobs)
}

/// The primary priority key of a job for the invariant check, by policy: absolute deadline
/// (EDF family), rank (FP family), release (FIFO).
pub fn primary_key(policy: &str, tasks: &[RtTask], ranks: &[u32]) -> impl Fn(u32, u64) -> u64 {
    let deadlines: Vec<u64> = tasks.iter().map(|t| t.deadline.as_ns()).collect();
    let ranks = ranks.to_vec();
    let kind = match policy {
        "gfp" | "pfp" | "linux-fifo" => 1,
        "gfifo" => 2,
        _ => 0,
    };
    move |task: u32, release: u64| match kind {
        1 => u64::from(ranks.get(task as usize).copied().unwrap_or(u32::MAX)),
        2 => release,
        _ => release.saturating_add(deadlines.get(task as usize).copied().unwrap_or(0)),
    }
}

/// The architecture named `name` (one of [`crate::arch::REGISTRY`]; with lock `lock` —
/// ticket, mcs, mutex — for one that takes `--lock`), for front ends that take names
/// (Python; the CLI's `--arch`).
pub fn arch_by_name(name: &str, lock: &str) -> Result<Arch, RuntimeError> {
    Arch::named(name, lock)
}
