//! Per-job records and the per-task and whole-run metrics of [ChronOS §8.6]: deadline
//! satisfaction ratio (DSR, Eq. 8.2), accrued utility ratio (AUR, Eq. 8.4), schedulability
//! (Eq. 8.6: no miss) and tardiness, plus response times, preemptions, migrations and context
//! switches.
//!
//! Horizon rules (the "Simulator" section): every job released before the horizon is
//! counted; a job *meets* its deadline iff it completes at or before it; it *misses* iff it
//! completes after it, is aborted, or is unfinished at the horizon with its deadline at or
//! before the horizon. A job unfinished at the horizon whose deadline lies after the horizon is
//! neither met nor missed. DSR = deadlines met / deadlines at or before the horizon (1 when no
//! deadline fell within the horizon).
//!
//! AUR [ChronOS §8.6, Eq. 8.4] = accrued utility / possible utility. A job that completes `e`
//! after its release accrues `V(e)` of its task's time/utility function [§3.4] (an aborted or
//! unfinished job accrues nothing); the possible utility is the maximum `V(0)` of every job
//! whose *termination time* (its deadline for a downward step, `release + TM` for the other
//! shapes, [`JobRecord::termination`]) fell at or before the horizon, and only those jobs'
//! accruals count. For step TUFs this is exactly "utility of the jobs that met their deadline
//! / utility of the jobs whose deadline fell within the horizon", computed as counts × value
//! (no float sums); for the other shapes the per-job values are summed per task in job order,
//! then over tasks in index order, so the result does not depend on how events interleaved.
//!
//! Tardiness = `max(0, completion − deadline)`; for a job unfinished at the horizon with its
//! deadline at or before the horizon it is `horizon − deadline` (a lower bound: the run stopped);
//! an aborted job has tardiness 0 (it was dropped at its deadline, it never finished late).
//! Mean tardiness averages over the jobs whose deadline fell within the horizon; mean response
//! time over the completed jobs.

use schedlab_model::{Duration, Time, Tuf};

/// What happened to one job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRecord {
    /// Task index.
    pub task: u32,
    /// 0-based job number within the task.
    pub seq: u64,
    /// Release (arrival) time.
    pub release: Time,
    /// Absolute deadline.
    pub deadline: Time,
    /// When it first executed.
    pub start: Option<Time>,
    /// When it completed (`None`: aborted or unfinished at the horizon).
    pub completion: Option<Time>,
    /// CPUs it executed on, distinct, in order of first use.
    pub cpus_used: Vec<u32>,
    /// Times it was switched out before completing (aborts excluded).
    pub preemptions: u32,
    /// Times it (any of its threads, for a parallel job) started or resumed on a CPU other
    /// than the one where it last executed (`crate::counts`).
    pub migrations: u32,
    /// Threads of it stolen from another CPU's local queue (`rtws` [RTWS §V, Rule E]; 0 for
    /// a sequential job and for policies that never steal).
    pub steals: u32,
    /// Execution time received (equal to its demand if it completed).
    pub executed: Duration,
    /// Tardiness (see the module doc).
    pub tardiness: Duration,
    /// Aborted: by the engine at its deadline (`abort_late`) or by the policy.
    pub aborted: bool,
    /// The utility it accrued: its TUF's value at `completion − release` if it completed, else
    /// 0 (also 0 for a task without a TUF). Engines that know no TUFs leave it 0.
    pub utility: f64,
    /// Its termination time: after it, completing accrues nothing (the deadline for a step
    /// TUF or a task without one, which is what [`JobRecord::fresh`] sets; `release + TM`
    /// for linear and points TUFs). Decides which jobs count in AUR (module doc).
    pub termination: Time,
    /// Time it spent blocked on resources (engines without resources leave it 0).
    pub blocked: Duration,
}

impl JobRecord {
    /// Did the job miss its deadline (by the horizon rules of the module doc)?
    pub fn missed(&self, horizon: Time) -> bool {
        match self.completion {
            Some(c) => c > self.deadline,
            None => self.aborted || self.deadline <= horizon,
        }
    }
}

impl JobRecord {
    /// A record of job `seq` of `task`, not yet started.
    pub fn fresh(
        task: u32,
        seq: u64,
        release: Time,
        deadline: Time,
        cpus_used: Vec<u32>,
    ) -> JobRecord {
        JobRecord {
            task,
            seq,
            release,
            deadline,
            start: None,
            completion: None,
            cpus_used,
            preemptions: 0,
            migrations: 0,
            steals: 0,
            executed: Duration::ZERO,
            tardiness: Duration::ZERO,
            aborted: false,
            utility: 0.0,
            termination: deadline,
            blocked: Duration::ZERO,
        }
    }

    /// Moves the record out, leaving an empty `cpus_used` behind.
    pub fn take(&mut self) -> JobRecord {
        JobRecord {
            cpus_used: std::mem::take(&mut self.cpus_used),
            ..*self
        }
    }
}

/// Metrics of one task.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskMetrics {
    /// Task index.
    pub task: u32,
    /// Jobs released before the horizon.
    pub jobs: u64,
    /// Jobs completed.
    pub completed: u64,
    /// Jobs aborted.
    pub aborted: u64,
    /// Deadline misses.
    pub misses: u64,
    /// Jobs whose deadline fell at or before the horizon.
    pub deadlines_in_horizon: u64,
    /// Largest response time (completion − release) of a completed job.
    pub max_response: Option<Duration>,
    /// Mean response time of the completed jobs, in ns.
    pub mean_response: Option<f64>,
    /// Largest tardiness.
    pub max_tardiness: Duration,
    /// Mean tardiness over the jobs whose deadline fell within the horizon, in ns (0 if none).
    pub mean_tardiness: f64,
    /// Preemptions of its jobs.
    pub preemptions: u64,
    /// Migrations of its jobs.
    pub migrations: u64,
    /// Steals of its jobs' threads.
    pub steals: u64,
}

/// Whole-run metrics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    /// Jobs released before the horizon.
    pub jobs: u64,
    /// Jobs completed.
    pub completed: u64,
    /// Jobs aborted.
    pub aborted: u64,
    /// Deadline misses.
    pub deadline_misses: u64,
    /// Jobs whose deadline fell at or before the horizon.
    pub deadlines_in_horizon: u64,
    /// Deadline satisfaction ratio [ChronOS §8.6, Eq. 8.2].
    pub dsr: f64,
    /// No deadline missed [ChronOS §8.6, Eq. 8.6].
    pub schedulable: bool,
    /// Largest tardiness of any job [ChronOS §8.6, θ of Eq. 8.8].
    pub max_tardiness: Duration,
    /// Mean tardiness over the jobs whose deadline fell within the horizon, in ns.
    pub mean_tardiness: f64,
    /// Largest response time of a completed job.
    pub max_response: Option<Duration>,
    /// Mean response time of the completed jobs, in ns.
    pub mean_response: Option<f64>,
    /// Preemptions (a job switched out before completing, aborts excluded).
    pub preemptions: u64,
    /// Migrations (a job or thread started or resumed on a CPU other than the one where its
    /// job last executed).
    pub migrations: u64,
    /// Steals (a thread taken from another CPU's local queue; `rtws`).
    pub steals: u64,
    /// Context switches (switch-ins).
    pub context_switches: u64,
    /// Accrued utility ratio [ChronOS §8.6, Eq. 8.4]: utility of the jobs that met their
    /// deadline / utility of the jobs whose deadline fell within the horizon (tasks without a
    /// utility count 0; 1 if that sum is 0). `None` when no task has a utility.
    pub aur: Option<f64>,
}

/// Running sums of one task (integers, so the result does not depend on summation order).
/// Public so that every engine (the simulator, the runtime) accounts jobs the same way.
#[derive(Clone, Debug, Default)]
pub struct TaskAcc {
    jobs: u64,
    completed: u64,
    aborted: u64,
    misses: u64,
    in_horizon: u64,
    met_in_horizon: u64,
    max_response: Option<Duration>,
    sum_response: u128,
    max_tardiness: Duration,
    sum_tardiness: u128,
    preemptions: u64,
    migrations: u64,
    steals: u64,
    /// Jobs whose termination time fell within the horizon, and what they accrued (summed in
    /// the order jobs are added: job order within the task).
    in_termination: u64,
    accrued: f64,
}

impl TaskAcc {
    /// Accounts one finished (or, at the end, unfinished) job.
    pub fn add(&mut self, job: &JobRecord, horizon: Time) {
        self.jobs += 1;
        self.preemptions += u64::from(job.preemptions);
        self.migrations += u64::from(job.migrations);
        self.steals += u64::from(job.steals);
        if job.aborted {
            self.aborted += 1;
        }
        if let Some(c) = job.completion {
            self.completed += 1;
            let r = c.saturating_since(job.release);
            self.sum_response += u128::from(r.as_ns());
            self.max_response = Some(self.max_response.map_or(r, |m| m.max(r)));
        }
        let missed = job.missed(horizon);
        if missed {
            self.misses += 1;
        }
        if job.deadline <= horizon {
            self.in_horizon += 1;
            if !missed {
                self.met_in_horizon += 1;
            }
            self.sum_tardiness += u128::from(job.tardiness.as_ns());
        }
        if job.termination <= horizon {
            self.in_termination += 1;
            if job.completion.is_some() {
                self.accrued += job.utility;
            }
        }
        self.max_tardiness = self.max_tardiness.max(job.tardiness);
    }

    fn metrics(&self, task: u32) -> TaskMetrics {
        TaskMetrics {
            task,
            jobs: self.jobs,
            completed: self.completed,
            aborted: self.aborted,
            misses: self.misses,
            deadlines_in_horizon: self.in_horizon,
            max_response: self.max_response,
            mean_response: mean(self.sum_response, self.completed),
            max_tardiness: self.max_tardiness,
            mean_tardiness: mean(self.sum_tardiness, self.in_horizon).unwrap_or(0.0),
            preemptions: self.preemptions,
            migrations: self.migrations,
            steals: self.steals,
        }
    }
}

fn mean(sum: u128, n: u64) -> Option<f64> {
    (n > 0).then(|| sum as f64 / n as f64)
}

/// Builds the per-task metrics and the totals from the per-task sums; `tufs[i]` is task i's
/// time/utility function (`None`: it accrues nothing; AUR is `None` if no task has one).
pub fn summarize(
    accs: &[TaskAcc],
    tufs: &[Option<Tuf>],
    context_switches: u64,
) -> (Vec<TaskMetrics>, Totals) {
    let per_task: Vec<TaskMetrics> = accs
        .iter()
        .enumerate()
        .map(|(i, a)| a.metrics(i as u32))
        .collect();
    let mut t = Totals {
        context_switches,
        ..Totals::default()
    };
    let (mut sum_resp, mut sum_tard, mut met) = (0u128, 0u128, 0u64);
    for a in accs {
        t.jobs += a.jobs;
        t.completed += a.completed;
        t.aborted += a.aborted;
        t.deadline_misses += a.misses;
        t.deadlines_in_horizon += a.in_horizon;
        t.preemptions += a.preemptions;
        t.migrations += a.migrations;
        t.steals += a.steals;
        t.max_tardiness = t.max_tardiness.max(a.max_tardiness);
        if let Some(r) = a.max_response {
            t.max_response = Some(t.max_response.map_or(r, |m| m.max(r)));
        }
        sum_resp += a.sum_response;
        sum_tard += a.sum_tardiness;
        met += a.met_in_horizon;
    }
    t.dsr = if t.deadlines_in_horizon == 0 {
        1.0
    } else {
        met as f64 / t.deadlines_in_horizon as f64
    };
    t.schedulable = t.deadline_misses == 0;
    t.mean_response = mean(sum_resp, t.completed);
    t.mean_tardiness = mean(sum_tard, t.deadlines_in_horizon).unwrap_or(0.0);
    if tufs.iter().any(Option::is_some) {
        let (mut got, mut possible) = (0.0f64, 0.0f64);
        for (a, tuf) in accs.iter().zip(tufs) {
            let (g, p) = a.utility(tuf.as_ref());
            got += g;
            possible += p;
        }
        t.aur = Some(if possible > 0.0 { got / possible } else { 1.0 });
    }
    (per_task, t)
}

impl TaskAcc {
    /// (accrued, possible) utility of the task (module doc): counts × value for a step TUF
    /// (so the order of jobs cannot change the result), the per-job sum otherwise.
    fn utility(&self, tuf: Option<&Tuf>) -> (f64, f64) {
        match tuf {
            None => (0.0, 0.0),
            Some(Tuf::Step { value }) => (
                self.met_in_horizon as f64 * value,
                self.in_horizon as f64 * value,
            ),
            Some(tuf) => (self.accrued, self.in_termination as f64 * tuf.max_value()),
        }
    }
}

/// The metric fields of the JSON summaries of `schedlab simulate` and `schedlab run` (stable;
/// tools read them): `duration_ns` (the horizon), the whole-run metrics and `per_task`.
pub fn metrics_json(
    per_task: &[TaskMetrics],
    totals: &Totals,
    horizon: Time,
) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::json;
    let t = totals;
    let per_task: Vec<serde_json::Value> = per_task
        .iter()
        .map(|p| {
            json!({
                "task": p.task,
                "jobs": p.jobs,
                "misses": p.misses,
                "max_response_ns": p.max_response.map(|d| d.as_ns()),
                "mean_response_ns": p.mean_response,
                "max_tardiness_ns": p.max_tardiness.as_ns(),
                "mean_tardiness_ns": p.mean_tardiness,
                "preemptions": p.preemptions,
                "migrations": p.migrations,
                "steals": p.steals,
            })
        })
        .collect();
    let v = json!({
        "duration_ns": horizon.as_ns(),
        "jobs": t.jobs,
        "completed": t.completed,
        "aborted": t.aborted,
        "deadline_misses": t.deadline_misses,
        "deadlines_in_horizon": t.deadlines_in_horizon,
        "dsr": t.dsr,
        "schedulable": t.schedulable,
        "max_tardiness_ns": t.max_tardiness.as_ns(),
        "mean_tardiness_ns": t.mean_tardiness,
        "max_response_ns": t.max_response.map(|d| d.as_ns()),
        "mean_response_ns": t.mean_response,
        "preemptions": t.preemptions,
        "migrations": t.migrations,
        "steals": t.steals,
        "context_switches": t.context_switches,
        "aur": t.aur,
        "per_task": per_task,
    });
    match v {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

/// The jobs CSV of `--jobs-csv`: a header and one row per job record (empty cells for absent
/// values).
pub fn jobs_csv(jobs: &[JobRecord]) -> String {
    use std::fmt::Write;
    let mut out = String::from(
        "task,seq,release_ns,deadline_ns,start_ns,completion_ns,preemptions,migrations,tardiness_ns,cpus,aborted,utility,blocked_ns\n",
    );
    let opt = |t: Option<Time>| t.map(|t| t.as_ns().to_string()).unwrap_or_default();
    for j in jobs {
        let cpus: Vec<String> = j.cpus_used.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            j.task,
            j.seq,
            j.release.as_ns(),
            j.deadline.as_ns(),
            opt(j.start),
            opt(j.completion),
            j.preemptions,
            j.migrations,
            j.tardiness.as_ns(),
            cpus.join(" "),
            j.aborted,
            j.utility,
            j.blocked.as_ns()
        );
    }
    out
}
