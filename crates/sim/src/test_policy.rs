//! Test-only policies: a small global EDF (the real ones live in `schedlab-policy`) and a
//! wrapper that logs every callback and arms timers, to check the engine's event order.

use schedlab_model::Time;
use schedlab_policy::{CpuId, Ctx, Decisions, JobId, JobInfo, Policy, TimerId};

/// Global EDF: the m jobs with the earliest deadlines are linked; ties by task index, then
/// sequence; a linked job is never preempted by a job with an equal deadline. A newly linked
/// job goes to the lowest-numbered free CPU, or replaces the lowest-priority linked job.
pub(crate) struct TestGedf {
    linked: Vec<Option<(Time, JobId)>>,
    ready: Vec<(Time, JobId)>,
}

impl TestGedf {
    pub(crate) fn new(m: u32) -> TestGedf {
        TestGedf {
            linked: vec![None; m as usize],
            ready: Vec::new(),
        }
    }

    pub(crate) fn forget(&mut self, job: JobId, out: &mut Decisions) {
        for (c, slot) in self.linked.iter_mut().enumerate() {
            if slot.is_some_and(|(_, j)| j == job) {
                *slot = None;
                out.unlink(CpuId(c as u32));
            }
        }
        self.ready.retain(|&(_, j)| j != job);
    }

    pub(crate) fn reschedule(&mut self, out: &mut Decisions) {
        loop {
            let Some((bi, &best)) = self
                .ready
                .iter()
                .enumerate()
                .min_by_key(|(_, &(d, j))| (d, j.task, j.seq))
            else {
                return;
            };
            let target = match self.linked.iter().position(Option::is_none) {
                Some(c) => c,
                None => {
                    let Some((c, &Some((wd, _)))) = self
                        .linked
                        .iter()
                        .enumerate()
                        .max_by_key(|(_, s)| s.map(|(d, j)| (d, j.task, j.seq)))
                    else {
                        return;
                    };
                    if best.0 >= wd {
                        return;
                    }
                    if let Some(old) = self.linked[c] {
                        self.ready.push(old);
                    }
                    c
                }
            };
            self.ready.swap_remove(bi);
            self.linked[target] = Some(best);
            out.link(CpuId(target as u32), best.1);
        }
    }
}

impl Policy for TestGedf {
    fn name(&self) -> &str {
        "test-gedf"
    }
    fn cpus(&self) -> u32 {
        self.linked.len() as u32
    }
    fn on_release(&mut self, _ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.ready.push((job.deadline, job.id));
        self.reschedule(out);
    }
    fn on_complete(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.forget(job, out);
        self.reschedule(out);
    }
    fn on_abort(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.forget(job, out);
        self.reschedule(out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.linked
            .get(cpu.0 as usize)
            .copied()
            .flatten()
            .map(|(_, j)| j)
    }
}

/// One logged callback: (time, what, task or timer id, executed time of every linked job).
pub(crate) type LogEntry = (u64, &'static str, u64, Vec<u64>);

/// Wraps [`TestGedf`], logs callbacks, arms `timers` at its first callback and cancels
/// `cancels` at its second.
pub(crate) struct Logger {
    pub(crate) inner: TestGedf,
    pub(crate) log: Vec<LogEntry>,
    pub(crate) timers: Vec<(u64, u64)>,
    pub(crate) cancels: Vec<u64>,
    calls: u32,
}

impl Logger {
    pub(crate) fn new(m: u32, timers: Vec<(u64, u64)>, cancels: Vec<u64>) -> Logger {
        Logger {
            inner: TestGedf::new(m),
            log: Vec::new(),
            timers,
            cancels,
            calls: 0,
        }
    }
    fn note(&mut self, ctx: &Ctx<'_>, what: &'static str, who: u64, out: &mut Decisions) {
        let progress = self
            .inner
            .linked
            .iter()
            .flatten()
            .map(|&(_, j)| ctx.progress.executed(j).as_ns())
            .collect();
        self.log.push((ctx.now.as_ns(), what, who, progress));
        self.calls += 1;
        if self.calls == 1 {
            for &(id, at) in &self.timers {
                out.timer(TimerId(id), Time::from_ns(at));
            }
        }
        if self.calls == 2 {
            for &id in &self.cancels {
                out.cancel(TimerId(id));
            }
        }
    }
}

impl Policy for Logger {
    fn name(&self) -> &str {
        "logger"
    }
    fn cpus(&self) -> u32 {
        self.inner.cpus()
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.note(ctx, "release", u64::from(job.id.task.0), out);
        self.inner.on_release(ctx, job, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.note(ctx, "complete", u64::from(job.task.0), out);
        self.inner.on_complete(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.note(ctx, "abort", u64::from(job.task.0), out);
        self.inner.on_abort(ctx, job, out);
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: TimerId, out: &mut Decisions) {
        self.note(ctx, "timer", timer.0, out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.inner.linked(cpu)
    }
}

/// A budget rule of [`Budgeted`]: when callback `on` (`"release"`, `"exhausted"`) runs for a
/// job of task `trigger`, request `amount` (`None`: clear) for the current job of `target`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rule {
    pub(crate) on: &'static str,
    pub(crate) trigger: u32,
    pub(crate) target: u32,
    pub(crate) amount: Option<u64>,
}

/// Wraps [`TestGedf`]: sets budgets by [`Rule`]s and logs every callback as (time, what,
/// task, executed time of that job).
pub(crate) struct Budgeted {
    pub(crate) inner: TestGedf,
    pub(crate) rules: Vec<Rule>,
    pub(crate) log: Vec<(u64, &'static str, u32, u64)>,
    current: std::collections::BTreeMap<u32, JobId>,
}

impl Budgeted {
    pub(crate) fn new(m: u32, rules: Vec<Rule>) -> Budgeted {
        Budgeted {
            inner: TestGedf::new(m),
            rules,
            log: Vec::new(),
            current: std::collections::BTreeMap::new(),
        }
    }

    fn note(&mut self, ctx: &Ctx<'_>, what: &'static str, job: JobId, out: &mut Decisions) {
        let executed = ctx.progress.executed(job).as_ns();
        self.log.push((ctx.now.as_ns(), what, job.task.0, executed));
        for r in self
            .rules
            .iter()
            .filter(|r| r.on == what && r.trigger == job.task.0)
        {
            let Some(&target) = self.current.get(&r.target) else {
                continue;
            };
            match r.amount {
                Some(a) => out.budget(target, schedlab_model::Duration::from_ns(a)),
                None => out.clear_budget(target),
            }
        }
    }
}

impl Policy for Budgeted {
    fn name(&self) -> &str {
        "budgeted"
    }
    fn cpus(&self) -> u32 {
        self.inner.cpus()
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.current.insert(job.id.task.0, job.id);
        self.note(ctx, "release", job.id, out);
        self.inner.on_release(ctx, job, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.note(ctx, "complete", job, out);
        self.current.remove(&job.task.0);
        self.inner.on_complete(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.note(ctx, "abort", job, out);
        self.current.remove(&job.task.0);
        self.inner.on_abort(ctx, job, out);
    }
    fn on_budget_exhausted(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.note(ctx, "exhausted", job, out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.inner.linked(cpu)
    }
}

/// Wraps [`TestGedf`]: at each `(time, tasks)` of `aborts` (timers armed at the first
/// callback) it aborts the current jobs of `tasks`, in that order (forgetting them first, as
/// the contract asks), then reschedules. Logs every abort it issued as (time, task, seq).
pub(crate) struct Aborter {
    pub(crate) inner: TestGedf,
    pub(crate) aborts: Vec<(u64, Vec<u32>)>,
    pub(crate) issued: Vec<(u64, u32, u64)>,
    current: std::collections::BTreeMap<u32, JobId>,
    armed: bool,
}

impl Aborter {
    pub(crate) fn new(m: u32, aborts: Vec<(u64, Vec<u32>)>) -> Aborter {
        Aborter {
            inner: TestGedf::new(m),
            aborts,
            issued: Vec::new(),
            current: std::collections::BTreeMap::new(),
            armed: false,
        }
    }
    fn arm(&mut self, out: &mut Decisions) {
        if !std::mem::replace(&mut self.armed, true) {
            for (k, &(at, _)) in self.aborts.iter().enumerate() {
                out.timer(TimerId(k as u64), Time::from_ns(at));
            }
        }
    }
}

impl Policy for Aborter {
    fn name(&self) -> &str {
        "aborter"
    }
    fn cpus(&self) -> u32 {
        self.inner.cpus()
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.arm(out);
        self.current.insert(job.id.task.0, job.id);
        self.inner.on_release(ctx, job, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.current.remove(&job.task.0);
        self.inner.on_complete(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.current.remove(&job.task.0);
        self.inner.on_abort(ctx, job, out);
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: TimerId, out: &mut Decisions) {
        let tasks = self
            .aborts
            .get(timer.0 as usize)
            .map(|a| a.1.clone())
            .unwrap_or_default();
        for task in tasks {
            if let Some(job) = self.current.remove(&task) {
                self.inner.forget(job, out);
                out.abort(job);
                self.issued.push((ctx.now.as_ns(), task, job.seq));
            }
        }
        self.inner.reschedule(out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.inner.linked(cpu)
    }
}
