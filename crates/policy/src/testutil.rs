//! Test harness: drives a policy with scripted events, mirrors its link decisions the way an
//! engine would, tracks execution progress, and checks the calling contract after each event.

use crate::event::{Ctx, Decisions, JobInfo, Progress, TimerRequest};
use crate::ids::{CpuId, JobId, TaskId, TimerId};
use crate::policy::Policy;
use crate::task::PolicyTask;
use schedlab_model::{Duration, Time};
use std::collections::BTreeMap;

#[derive(Default)]
pub(crate) struct MapProgress(pub(crate) BTreeMap<JobId, u64>);

impl Progress for MapProgress {
    fn executed(&self, job: JobId) -> Duration {
        Duration::from_ns(self.0.get(&job).copied().unwrap_or(0))
    }
}

pub(crate) fn task(wcet: u64, deadline: u64, period: u64, rank: u32) -> PolicyTask {
    PolicyTask::new(
        Duration::from_ns(wcet),
        Duration::from_ns(deadline),
        Duration::from_ns(period),
        rank,
    )
}

pub(crate) fn jid(task: u32, seq: u64) -> JobId {
    JobId::new(TaskId(task), seq)
}

/// Strand `strand` of job `seq` of `task` (a thread of a parallel job).
pub(crate) fn sid(task: u32, seq: u64, strand: u32) -> JobId {
    JobId {
        strand,
        ..jid(task, seq)
    }
}

/// The facts of strand `strand` of a parallel job.
pub(crate) fn sinfo(
    task: u32,
    seq: u64,
    strand: u32,
    release: u64,
    deadline: u64,
    wcet: u64,
) -> JobInfo {
    JobInfo {
        id: sid(task, seq, strand),
        ..info(task, seq, release, deadline, wcet)
    }
}

pub(crate) fn info(task: u32, seq: u64, release: u64, deadline: u64, wcet: u64) -> JobInfo {
    JobInfo {
        id: jid(task, seq),
        release: Time::from_ns(release),
        deadline: Time::from_ns(deadline),
        wcet: Duration::from_ns(wcet),
    }
}

pub(crate) struct Harness<P> {
    pub(crate) p: P,
    pub(crate) now: u64,
    pub(crate) mirror: Vec<Option<JobId>>,
    pub(crate) progress: MapProgress,
    pub(crate) out: Decisions,
    /// Armed timers (id → at), as an engine would keep them.
    pub(crate) timers: BTreeMap<TimerId, u64>,
    /// Budgets (job → the executed time at which it runs out), as an engine would keep them.
    pub(crate) budgets: BTreeMap<JobId, u64>,
}

impl<P: Policy> Harness<P> {
    pub(crate) fn new(p: P) -> Self {
        let m = p.cpus() as usize;
        Harness {
            p,
            now: 0,
            mirror: vec![None; m],
            progress: MapProgress::default(),
            out: Decisions::new(),
            timers: BTreeMap::new(),
            budgets: BTreeMap::new(),
        }
    }

    /// Advances time to `t`; linked jobs execute meanwhile.
    pub(crate) fn advance(&mut self, t: u64) {
        assert!(t >= self.now);
        let dt = t - self.now;
        for j in self.mirror.iter().flatten() {
            *self.progress.0.entry(*j).or_insert(0) += dt;
        }
        self.now = t;
    }

    fn apply(&mut self) {
        for l in &self.out.links {
            self.mirror[l.cpu.0 as usize] = l.job;
        }
        for c in &self.out.cancels {
            self.timers.remove(c);
        }
        for TimerRequest { id, at } in &self.out.timers {
            self.timers.insert(*id, at.as_ns());
        }
        for b in &self.out.budgets {
            match b.amount {
                Some(a) => {
                    let done = self.progress.0.get(&b.job).copied().unwrap_or(0);
                    self.budgets.insert(b.job, done + a.as_ns());
                }
                None => {
                    self.budgets.remove(&b.job);
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for (cpu, j) in self.mirror.iter().enumerate() {
            assert_eq!(
                *j,
                self.p.linked(CpuId(cpu as u32)),
                "cpu {cpu}: mirror vs linked()"
            );
            if let Some(j) = j {
                assert!(seen.insert(*j), "{j} linked to two CPUs");
            }
        }
    }

    pub(crate) fn release(&mut self, t: u64, job: JobInfo) -> &Decisions {
        self.advance(t);
        self.out.clear();
        let ctx = Ctx::new(Time::from_ns(self.now), &self.progress);
        self.p.on_release(&ctx, &job, &mut self.out);
        self.apply();
        &self.out
    }

    pub(crate) fn complete(&mut self, t: u64, job: JobId) -> &Decisions {
        self.advance(t);
        self.budgets.remove(&job);
        self.out.clear();
        let ctx = Ctx::new(Time::from_ns(self.now), &self.progress);
        self.p.on_complete(&ctx, job, &mut self.out);
        self.apply();
        &self.out
    }

    /// The region `strands` starts at `t` on `cpu` (the join of the previous one).
    pub(crate) fn fork(&mut self, t: u64, cpu: u32, strands: &[JobInfo]) -> &Decisions {
        self.advance(t);
        self.out.clear();
        let ctx = Ctx::new(Time::from_ns(self.now), &self.progress);
        self.p.on_fork(&ctx, CpuId(cpu), strands, &mut self.out);
        self.apply();
        &self.out
    }

    pub(crate) fn abort(&mut self, t: u64, job: JobId) -> &Decisions {
        self.advance(t);
        self.budgets.remove(&job);
        self.out.clear();
        let ctx = Ctx::new(Time::from_ns(self.now), &self.progress);
        self.p.on_abort(&ctx, job, &mut self.out);
        self.apply();
        &self.out
    }

    /// Fires the earliest armed timer if it is due at or before `t` (advancing to its time).
    pub(crate) fn fire_due(&mut self, t: u64) -> Option<TimerId> {
        let (&id, &at) = self.timers.iter().min_by_key(|(id, at)| (**at, **id))?;
        if at > t {
            return None;
        }
        self.timers.remove(&id);
        self.advance(at.max(self.now));
        self.out.clear();
        let ctx = Ctx::new(Time::from_ns(self.now), &self.progress);
        self.p.on_timer(&ctx, id, &mut self.out);
        self.apply();
        Some(id)
    }

    /// `job`'s budget runs out at `t`: checks that it has executed exactly its budget by then
    /// (as the engine guarantees), removes the budget and calls `on_budget_exhausted`.
    pub(crate) fn exhaust(&mut self, t: u64, job: JobId) -> &Decisions {
        self.advance(t);
        let limit = self.budgets.remove(&job);
        let done = self.progress.0.get(&job).copied().unwrap_or(0);
        assert_eq!(limit, Some(done), "{job}: budget vs executed at {t}");
        self.out.clear();
        let ctx = Ctx::new(Time::from_ns(self.now), &self.progress);
        self.p.on_budget_exhausted(&ctx, job, &mut self.out);
        self.apply();
        &self.out
    }

    /// Executed time left on `job`'s budget, if it has one.
    pub(crate) fn budget_left(&self, job: JobId) -> Option<u64> {
        let done = self.progress.0.get(&job).copied().unwrap_or(0);
        self.budgets.get(&job).map(|l| l - done)
    }

    pub(crate) fn links(&self) -> Vec<(u32, Option<JobId>)> {
        self.out.links.iter().map(|l| (l.cpu.0, l.job)).collect()
    }
}

/// The reservation groups of `hcbs`: `tasks` tasks in one group `g` (Q = P = 10) on all of
/// `cpus` CPUs.
pub(crate) fn one_group(tasks: usize, cpus: u32) -> crate::task::Placement {
    use schedlab_model::{ReservationGroup, Task, TaskSet};
    let ns = Duration::from_ns;
    let list = (0..tasks)
        .map(|_| {
            let mut t = Task::implicit(ns(1), ns(10)).unwrap();
            t.group = Some("g".into());
            t
        })
        .collect();
    let set = TaskSet::with_groups(
        list,
        Vec::new(),
        vec![ReservationGroup::new("g", ns(10), ns(10))],
    )
    .unwrap();
    let tree = schedlab_model::GroupTree::new(&set, cpus).unwrap();
    crate::task::Placement::reservations(std::sync::Arc::new(tree), tasks)
}
