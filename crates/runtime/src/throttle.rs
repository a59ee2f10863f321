//! Warnings about the kernel's real-time throttling.
//!
//! Linux lets SCHED_FIFO/SCHED_RR threads use at most `sched_rt_runtime_us` of every
//! `sched_rt_period_us` on each CPU (default 950 000 / 1 000 000: 95 %); beyond it the kernel
//! stops them for the rest of the period. A run whose real-time load on a CPU exceeds that
//! limit is throttled: jobs go late by up to 50 ms at a time, whatever the policy (e.g. P-EDF
//! with the default `ffd` placement packs 1.000 on CPU 0 of the U = 1.2 test set and missed
//! half of its deadlines, docs/runtime.md). The run keeps the throttling on (a safety net of
//! the machine), so it warns before the result is read as a scheduling result.
//!
//! The load of a CPU is the sum of `C/T` of the tasks placed on it (an architecture of
//! [`RtLoad::ByPlacement`] with a placement of every task on a CPU; a split task [RTPS §III]
//! adds `budget/T` of each of its parts to the part's CPU), or the total
//! utilisation over the CPUs that run jobs (global scheduling) — the scheduler's own threads
//! add to it. A single task above the limit is throttled under any architecture; for a
//! parallel task the limit applies to the least it puts on one CPU (its work over as many CPUs
//! as its widest region, at least its critical path), not to its `C/T`.
//! `linux-deadline` ([`RtLoad::Admission`]) is checked by the kernel's own admission control
//! instead.

use crate::arch::RtLoad;
use crate::config::{RtTask, RunConfig};

/// The kernel's limit as a fraction of a CPU (`None`: unlimited, or unreadable).
pub fn rt_limit() -> Option<(f64, i64, i64)> {
    let read = |f: &str| -> Option<i64> {
        std::fs::read_to_string(format!("/proc/sys/kernel/{f}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let runtime = read("sched_rt_runtime_us")?;
    let period = read("sched_rt_period_us")?;
    (runtime >= 0 && period > 0).then(|| (runtime as f64 / period as f64, runtime, period))
}

/// The warnings for running `tasks` under `config` with the kernel's current limit.
pub fn warnings(tasks: &[RtTask], config: &RunConfig) -> Vec<String> {
    match rt_limit() {
        Some((limit, runtime, period)) => warnings_for(tasks, config, limit, runtime, period),
        None => Vec::new(),
    }
}

fn util(t: &RtTask) -> f64 {
    t.wcet.as_ns() as f64 / t.period.as_ns().max(1) as f64
}

/// The least a parallel (fork-join) task puts on its busiest CPU: its work spread over as many
/// CPUs as its widest region and the run allow (`T1 / (k·T)`), and never less than its
/// critical path (`T∞ / T`, which runs one region after another). A parallel task's `C/T` may
/// exceed 1 without any CPU exceeding the throttling limit.
fn parallel_share(t: &RtTask, p: &schedlab_model::ParallelStructure, job_cpus: usize) -> f64 {
    let period = t.period.as_ns().max(1) as f64;
    let k = p.max_width().clamp(1, job_cpus) as f64;
    let spread = p.work().as_ns() as f64 / (k * period);
    let path = p.critical_path().as_ns() as f64 / period;
    spread.max(path)
}

/// [`warnings`] for a given limit (`runtime`/`period` in µs, as the kernel reports them).
pub fn warnings_for(
    tasks: &[RtTask],
    config: &RunConfig,
    limit: f64,
    runtime: i64,
    period: i64,
) -> Vec<String> {
    let why = format!(
        "above the kernel's real-time throttling limit of {limit:.3} (sched_rt_runtime_us {runtime} / sched_rt_period_us {period}): the kernel will stop the run's real-time threads there for the rest of each period and jobs will miss deadlines"
    );
    let phys = |c: u32| config.cpus.get(c as usize).copied().unwrap_or(c);
    let mut out = Vec::new();
    let rt_load = config.arch.def().rt_load;
    if rt_load == RtLoad::Admission {
        return out;
    }
    let partitioned = rt_load == RtLoad::ByPlacement
        && config
            .placement
            .as_ref()
            .is_some_and(|p| p.domain_size == 1);
    if partitioned {
        let Some(p) = config.placement.as_ref() else {
            return out;
        };
        // Task i's share of CPU c: a whole task's C/T on its CPU, a split task's parts there.
        let share = |i: usize, c: u32| -> f64 {
            let Some(t) = tasks.get(i) else { return 0.0 };
            match p.parts(i) {
                Some(parts) => {
                    let here: u64 = parts
                        .iter()
                        .filter(|q| q.cpu == c)
                        .map(|q| q.budget.as_ns())
                        .sum();
                    here as f64 / t.period.as_ns().max(1) as f64
                }
                None if p.domain_of_task.get(i) == Some(&c) => util(t),
                None => 0.0,
            }
        };
        for c in 0..config.m() {
            let mine: Vec<usize> = (0..tasks.len()).filter(|&i| share(i, c) > 0.0).collect();
            let load: f64 = mine.iter().map(|&i| share(i, c)).sum();
            if load > limit {
                out.push(format!(
                    "CPU {} carries a real-time load of {load:.3} (tasks {mine:?}), {why}",
                    phys(c)
                ));
            }
        }
    } else {
        let cpus = config.job_cpus();
        let k = cpus.len().max(1) as f64;
        let total: f64 = tasks.iter().map(util).sum();
        if total / k > limit {
            let list: Vec<u32> = cpus.map(phys).collect();
            out.push(format!(
                "the real-time load per CPU is {:.3} (U = {total:.3} on the {} CPUs {list:?} that run jobs), {why}",
                total / k,
                k as u32
            ));
        }
    }
    let split = |i: usize| {
        config
            .placement
            .as_ref()
            .is_some_and(|p| partitioned && p.parts(i).is_some())
    };
    let job_cpus = config.job_cpus().count().max(1);
    for (i, t) in tasks.iter().enumerate() {
        // A split task's parts are checked per CPU above.
        if split(i) {
            continue;
        }
        match &t.parallel {
            None if util(t) > limit => out.push(format!(
                "task {i} alone has a utilisation of {:.3}, {why}",
                util(t)
            )),
            Some(p) => {
                let share = parallel_share(t, p, job_cpus);
                if share > limit {
                    out.push(format!(
                        "task {i} (parallel, U = {:.3}) alone puts at least {share:.3} on one CPU, {why}",
                        util(t)
                    ));
                }
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::Duration;
    use schedlab_policy::Placement;

    fn t(c: u64, p: u64) -> RtTask {
        let ms = |x| Duration::from_ns(x * 1_000_000);
        RtTask::new(Duration::from_ns(c * 1_000), ms(p), ms(p))
    }

    /// P-EDF, CPU 0 gets 0.5 + 0.488 = 0.988 > 0.95, CPU 1 gets 0.2: one warning naming
    /// CPU 0. Global on 2 CPUs: 1.188 / 2 = 0.594, none. Message passing on 2 CPUs: one
    /// client carries 1.188 > 0.95: warned.
    #[test]
    fn names_the_overloaded_cpu() {
        let tasks = vec![t(5_000, 10), t(12_200, 25), t(2_000, 10)];
        let arch = |name| crate::arch::Arch::named(name, "ticket").unwrap();
        let mut c = RunConfig::new(
            vec![0, 1],
            arch("partitioned"),
            "pedf",
            3,
            Duration::from_ns(1),
        );
        c.placement = Some(Placement::new(vec![0, 0, 1], 1));
        let w = warnings_for(&tasks, &c, 0.95, 950_000, 1_000_000);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("CPU 0 carries a real-time load of 0.988 (tasks [0, 1])"),
            "{w:?}"
        );
        c.arch = arch("global-lock");
        c.placement = None;
        assert!(warnings_for(&tasks, &c, 0.95, 950_000, 1_000_000).is_empty());
        c.arch = arch("message-passing");
        let w = warnings_for(&tasks, &c, 0.95, 950_000, 1_000_000);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("per CPU is 1.188"), "{w:?}");
        assert!(warnings_for(&[t(9_700, 10)], &c, 0.95, 950_000, 1_000_000).len() == 2);
    }

    /// A split task's parts count on their CPUs: τ0 (U = 0.97) split 6 ms on CPU 0 and 3.7 ms
    /// on CPU 1, τ1 (0.35) whole on CPU 1: CPU 0 carries 0.6, CPU 1 0.37 + 0.35 = 0.72; no
    /// warning, not even for τ0 alone. Moving 3 ms of τ0 from CPU 0 to CPU 1: CPU 1 carries
    /// 0.67 + 0.35 = 1.02, warned, naming both tasks.
    #[test]
    fn split_tasks_load_each_parts_cpu() {
        use schedlab_model::SplitPart;
        let us = |x: u64| Duration::from_ns(x * 1_000);
        let tasks = vec![t(9_700, 10), t(3_500, 10)];
        let arch = crate::arch::Arch::named("semi-partitioned", "ticket").unwrap();
        let mut c = RunConfig::new(vec![0, 1], arch, "pfp-ts", 2, Duration::from_ns(1));
        let part = |cpu, b| SplitPart { cpu, budget: us(b) };
        c.placement = Some(Placement::semi(
            vec![0, 1],
            vec![vec![part(0, 6_000), part(1, 3_700)], vec![]],
        ));
        assert!(warnings_for(&tasks, &c, 0.95, 950_000, 1_000_000).is_empty());
        c.placement = Some(Placement::semi(
            vec![0, 1],
            vec![vec![part(0, 3_000), part(1, 6_700)], vec![]],
        ));
        let w = warnings_for(&tasks, &c, 0.95, 950_000, 1_000_000);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("CPU 1 carries a real-time load of 1.020 (tasks [0, 1])"),
            "{w:?}"
        );
    }

    /// A parallel task's `C/T` may exceed 1 with no CPU above the limit: work 12 ms (1 ms,
    /// five threads of 2 ms, 1 ms), critical path 4 ms, period 8 ms on 2 CPUs (global): at
    /// least max(12 / (2·8), 4/8) = 0.75 on one CPU — no warning, although U = 1.5. With a
    /// critical path of 7.8 ms (one thread of 5.8 ms among them) one CPU carries at least
    /// 0.975: warned.
    #[test]
    fn a_parallel_task_counts_what_it_puts_on_one_cpu() {
        let us = |x: u64| Duration::from_ns(x * 1_000);
        let par = |threads: Vec<u64>| {
            let s = schedlab_model::ParallelStructure::from_threads(vec![
                vec![us(1_000)],
                threads.into_iter().map(us).collect(),
                vec![us(1_000)],
            ])
            .unwrap();
            let mut t = RtTask::new(s.work(), us(8_000), us(8_000));
            t.parallel = Some(s);
            t
        };
        let arch = crate::arch::Arch::named("global-lock", "ticket").unwrap();
        let c = RunConfig::new(vec![0, 1], arch, "gedf", 2, Duration::from_ns(1));
        let wide = par(vec![2_000; 5]);
        assert!(warnings_for(&[wide], &c, 0.95, 950_000, 1_000_000).is_empty());
        let long = par(vec![5_800, 1_000, 1_000, 1_000, 1_200]);
        let w = warnings_for(&[long], &c, 0.95, 950_000, 1_000_000);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("task 0 (parallel, U = 1.500) alone puts at least 0.975 on one CPU"),
            "{w:?}"
        );
    }
}
