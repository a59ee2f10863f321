//! `gmua`, `nggua`, `ggua`: the global utility-accrual schedulers with per-CPU feasible lists
//! [ChronOS §6.8–6.10, Algorithms 2–3].
//!
//! - **gMUA** [ChronOS §6.8, Alg. 2; Cho, Ravindran, Jensen, "Utility accrual real-time
//!   scheduling for multiprocessor embedded systems", JPDC 70(2), 2010 (first as Cho, Wu,
//!   Ravindran, Jensen, EUC 2006)].
//! - **NG-GUA** [ChronOS §6.9; Garyali, "On best-effort utility accrual real-time scheduling
//!   on multiprocessors", M.S. thesis, Virginia Tech, 2010]: gMUA with dependencies.
//! - **G-GUA** [ChronOS §6.10, Alg. 3; Garyali 2010]: the greedy variant.
//!
//! # One scheduling event (every release, completion, abort, block, resume and timer)
//!
//! 1. **Abort** every abortable job whose critical time has come ("deadline(i) < now" in
//!    Alg. 2–3; the plan of issue 13 aborts at the first event *at or after* it). The critical
//!    time is the deadline for step TUFs (the thesis's model) and the termination time for
//!    other shapes ([`crate::ua::critical_time`]), where the job can no longer accrue anything.
//!    A timer is armed at each job's critical time on release, so the abort happens then and
//!    not at the next unrelated event. A non-abortable job past it is kept (it accrues 0): it
//!    is not a candidate, and runs only on a CPU the schedule leaves idle (its task's next job
//!    waits for it, so it must finish some time).
//! 2. **Densities**: each job's LVD = utility of completing after running alone from now /
//!    remaining execution ([`crate::ua::Density`]). With dependencies (NG-GUA, G-GUA, when a
//!    task has critical sections) each job's *chain* — the job, the owner of the resource it
//!    waits for, that owner's blocker, … up to a job that can run — is one candidate with the
//!    chain's potential utility density (Σ utility / Σ remaining), the owner at its end
//!    running in place of the blocked job. A chain that comes back to itself is a
//!    **deadlock**: the cycle's abortable job of the lowest LVD is aborted (its handler then
//!    releases what it held); a cycle of non-abortable jobs stays deadlocked. Both follow DASA
//!    [Clark 1990], whose dependency handling NG-GUA carries to multiprocessors [ChronOS §6.9,
//!    §3.6]; Garyali's own text was not available to us, so these details are our reading. gMUA ignores dependencies: a blocked job waits off
//!    the lists and its owner is scheduled on its own merits.
//! 3. **Lists** (`plan.rs`): candidates in decreasing density (ties: task index, then seq) are
//!    placed on per-CPU lists ordered by critical time (`list.rs`). gMUA and NG-GUA put each on
//!    the CPU with the least total utilization (the sum of `wcet/period` of the tasks of its
//!    jobs; ties: lowest CPU) and then remove the least-LVD job while that list is infeasible;
//!    since candidates come in decreasing density, the least-LVD job of the list is the one
//!    just placed, so this is: keep it if the list stays feasible, else drop it. G-GUA tries
//!    the CPUs in increasing utilization and keeps the job on the first where the list stays
//!    feasible; it drops it only when it fits nowhere (Alg. 3, `FindProcessor(CpuMask)`). A
//!    chain's members go on one list, each with the earlier of its own critical time and the
//!    blocked job's (DASA's deadline tightening); members placed by a denser chain stay where
//!    they are. A dropped job is not scheduled *now*; it is a candidate again at the next event.
//! 4. **Selection** (`select.rs`): gMUA and NG-GUA behave as G-EDF "while G-EDF is able to
//!    meet all deadlines" [ChronOS §6.8; Cho et al. 2010 prove optimal total utility for a
//!    special case]:
//!    when G-EDF, run on the jobs present with no further arrivals, completes every one by its
//!    critical time, the `m` earliest critical times run (an owner carries the earliest
//!    critical time of the jobs blocked behind it) and no list is built. Otherwise — and
//!    always for G-GUA, which "trades G-EDF performance in underloads for a higher average
//!    case utility accrual in overloads" [ChronOS §6.10] — each CPU's list gives its first job
//!    whose chain end is not yet selected (for jobs without dependencies: the head) [ChronOS
//!    §6.8 "each core then executes the task at the head of its list"]. The heads of a
//!    partition are not the `m` earliest deadlines, which is why the underload case is
//!    checked apart rather than read off the lists.
//! 5. **Mapping** (`map.rs`): the selected jobs go to CPUs by the migration- and
//!    execution-optimal mapping of [ChronOS §5.6.5, Alg. 1]: a job already linked keeps its
//!    CPU, a job whose last CPU is free goes back there, the rest take the free CPUs in
//!    increasing order. Only changed CPUs are relinked.
//!
//! # Assumptions
//!
//! Remaining execution is WCET minus what was executed (the policy never learns actual
//! demands); a chain member's whole remaining execution counts, not only the rest of its
//! critical section (pessimistic, as DASA). A blocked job is never linked between
//! [`crate::Policy::on_block`] and [`crate::Policy::on_resume`]; NG-GUA and G-GUA grant a
//! released resource to the waiter of the highest LVD, gMUA to the longest-waiting.
//!
//! # Complexity (vs [ChronOS Table 6.3]: insertion O(1), scheduling O(mn²), mapping O(m²))
//!
//! With `n` jobs and `m` CPUs, per event: insertion O(n) (a push after a duplicate check;
//! the thesis's is O(1), dominated here by the schedule anyway) plus the schedule; densities
//! and the sort O(n log n); chains O(n) without resources, O(n²) with them (each chain is
//! walked up to its end; deadlock detection marks every job once per walk); the G-EDF check
//! O(n log n + n log m). In overload the lists: the CPUs are kept in utilization order (O(m) per
//! placed candidate, only one CPU's sum grows); a candidate that cannot finish even alone is
//! skipped at once; otherwise it costs O(log n) per CPU tried (one for gMUA and NG-GUA, up to
//! `m` for G-GUA) and O(n) to be inserted (`list.rs`), so the lists take O(n² + nm log n) —
//! within O(mn²) — and G-GUA's chains of several jobs (inserted and rolled back on each CPU)
//! O(mn²) in the worst case; mapping O(m) (`map.rs`; the thesis's O(m²)).
//! Every buffer lives in the policy and is reused: after the first events an event allocates
//! nothing.

mod list;
mod map;
mod plan;
mod select;
#[cfg(test)]
mod tests;

use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{CpuId, JobId, ResourceId, TimerId};
use crate::policy::Policy;
use crate::task::PolicyTask;
use crate::ua;
use std::sync::Arc;

/// Which of the three algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// gMUA [ChronOS §6.8, Alg. 2]: no dependencies; least-utilized CPU only.
    Gmua,
    /// NG-GUA [ChronOS §6.9]: gMUA with dependency chains and deadlock resolution.
    NgGua,
    /// G-GUA [ChronOS §6.10, Alg. 3]: every CPU tried; heads always.
    GGua,
}

impl Variant {
    /// The registry name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Gmua => "gmua",
            Variant::NgGua => "nggua",
            Variant::GGua => "ggua",
        }
    }

    fn follows_dependencies(self) -> bool {
        self != Variant::Gmua
    }
}

/// A job the policy holds.
#[derive(Clone, Copy, Debug)]
struct Job {
    info: JobInfo,
    /// Between `on_block` and `on_resume`.
    blocked: bool,
    /// The timer armed at its critical time.
    timer: u64,
    /// The CPU it last ran on (the mapping's "resides on").
    last_cpu: Option<u32>,
}

/// gMUA, NG-GUA or G-GUA on `m` CPUs (module doc).
#[derive(Debug)]
pub struct Gua {
    variant: Variant,
    tasks: Arc<[PolicyTask]>,
    /// Per task: `wcet/period` in parts per billion (exact integer sums, module doc step 3).
    util_ppb: Vec<u64>,
    jobs: Vec<Job>,
    linked: Vec<Option<JobId>>,
    next_timer: u64,
    scratch: plan::Scratch,
}

/// `wcet/period` in parts per billion (a zero period counts as fully utilizing).
fn util_ppb(task: &PolicyTask) -> u64 {
    let p = u128::from(task.period.as_ns());
    if p == 0 {
        return 1_000_000_000;
    }
    let u = u128::from(task.wcet.as_ns()) * 1_000_000_000 / p;
    u64::try_from(u).unwrap_or(u64::MAX)
}

impl Gua {
    /// `variant` for `tasks` on `cpus` CPUs.
    pub fn new(variant: Variant, tasks: impl Into<Arc<[PolicyTask]>>, cpus: u32) -> Gua {
        let tasks = tasks.into();
        Gua {
            variant,
            util_ppb: tasks.iter().map(util_ppb).collect(),
            tasks,
            jobs: Vec::new(),
            linked: vec![None; cpus as usize],
            next_timer: 0,
            scratch: plan::Scratch::default(),
        }
    }

    fn find(&self, id: JobId) -> Option<usize> {
        self.jobs.iter().position(|j| j.info.id == id)
    }

    /// Forgets the job at `pos` (its link is replaced by the next mapping).
    fn forget(&mut self, pos: usize, out: &mut Decisions) {
        let job = self.jobs.swap_remove(pos);
        out.cancel(TimerId(job.timer));
    }

    fn forget_id(&mut self, id: JobId, out: &mut Decisions) {
        if let Some(pos) = self.find(id) {
            self.forget(pos, out);
        }
    }
}

impl Policy for Gua {
    fn name(&self) -> &str {
        self.variant.name()
    }
    fn cpus(&self) -> u32 {
        self.linked.len() as u32
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        if self.find(job.id).is_none() {
            let timer = self.next_timer;
            self.next_timer += 1;
            let critical = ua::critical_time(ua::task_of(&self.tasks, job), job);
            if critical > ctx.now {
                out.timer(TimerId(timer), critical);
            }
            self.jobs.push(Job {
                info: *job,
                blocked: false,
                timer,
                last_cpu: None,
            });
        }
        self.reschedule(ctx, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.forget_id(job, out);
        self.reschedule(ctx, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.forget_id(job, out);
        self.reschedule(ctx, out);
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, _timer: TimerId, out: &mut Decisions) {
        // Every timer is a critical time: step 1 of the event aborts whoever reached it.
        self.reschedule(ctx, out);
    }
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        if let Some(pos) = self.find(job) {
            self.jobs[pos].blocked = true;
        }
        self.reschedule(ctx, out);
    }
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        match self.find(job.id) {
            Some(pos) => self.jobs[pos].blocked = false,
            // Unknown: treat as a release (a policy must survive contract slips).
            None => return self.on_release(ctx, job, out),
        }
        self.reschedule(ctx, out);
    }
    fn grant(&self, ctx: &Ctx<'_>, _resource: ResourceId, waiters: &[JobId]) -> usize {
        if !self.variant.follows_dependencies() {
            return 0;
        }
        // The densest waiter (ties: task index, then seq), FIFO for unknown jobs.
        let mut best: Option<(usize, ua::Density, JobInfo)> = None;
        for (k, id) in waiters.iter().enumerate() {
            let Some(job) = self.jobs.iter().find(|j| j.info.id == *id) else {
                continue;
            };
            let d = ua::Density::of(ctx, &self.tasks, &job.info);
            let better = match &best {
                None => true,
                Some((_, bd, bi)) => ua::by_density_desc((&d, &job.info), (bd, bi)).is_lt(),
            };
            if better {
                best = Some((k, d, job.info));
            }
        }
        best.map_or(0, |(k, _, _)| k)
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.linked.get(cpu.0 as usize).copied().flatten()
    }
}
