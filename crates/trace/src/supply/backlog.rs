//! Replays a trace into per-server backlogged intervals, service stretches and budget
//! segments (the parent module's doc defines each), and runs the window check on every
//! backlogged interval as it closes (memory: the stretches of one open interval per server).

use super::windows::min_slack;
use super::{Outside, Segment, ServerReport, SupplyError, SupplyOptions, SupplyReport, Window};
use crate::{Event, Kind, NO_CPU};
use schedlab_model::GroupTree;
use std::collections::BTreeMap;

/// One task's state.
#[derive(Clone, Copy, Debug, Default)]
struct Task {
    /// Released jobs not yet complete or aborted.
    pending: u64,
    blocked: bool,
    running: Option<u32>,
}

impl Task {
    /// Ready and running nowhere.
    fn waiting(&self) -> bool {
        self.pending > 0 && !self.blocked && self.running.is_none()
    }
}

/// One server's accumulators.
#[derive(Clone, Debug, Default)]
struct Acc {
    throttled: bool,
    backlog_since: Option<u64>,
    serve_since: Option<u64>,
    /// Service stretches of the open backlogged interval.
    stretches: Vec<(u64, u64)>,
    /// Closed service (ns).
    served: u64,
    seg_start: u64,
    seg_base: u64,
    server_events: bool,
    replenishments: u64,
    max_segment: Option<Segment>,
    intervals: u64,
    backlogged_ns: u64,
    longest: u64,
    windows: u64,
    worst: Option<Window>,
}

impl Acc {
    fn service_at(&self, t: u64) -> u64 {
        self.served + self.serve_since.map_or(0, |s| t.saturating_sub(s))
    }

    fn close_segment(&mut self, t: u64) {
        let seg = Segment {
            start: self.seg_start,
            end: t,
            service: self.service_at(t) - self.seg_base,
        };
        if self.max_segment.is_none_or(|m| seg.service > m.service) {
            self.max_segment = Some(seg);
        }
        self.seg_start = t;
        self.seg_base = self.service_at(t);
    }
}

struct Replay<'a> {
    tree: &'a GroupTree,
    names: &'a [String],
    opts: SupplyOptions,
    tasks: Vec<Task>,
    /// Own ready tasks running nowhere, per group.
    waiting: Vec<u64>,
    running_on: Vec<Option<u32>>,
    /// First server index of each group (its servers follow in CPU order).
    offset: Vec<usize>,
    acc: Vec<Acc>,
    /// (group, CPU) pairs running outside the group's CPUs since `last`, and their totals.
    outside_now: Vec<(u32, u32)>,
    outside: BTreeMap<(u32, u32), u64>,
    last: u64,
    serving: Vec<bool>,
    work: Vec<bool>,
}

/// The parent module's [`super::check`] after its argument checks.
pub(super) fn replay(
    events: &[Event],
    tree: &GroupTree,
    names: &[String],
    horizon: u64,
    opts: SupplyOptions,
    supply: &dyn Fn(u32, u64) -> u64,
) -> Result<SupplyReport, SupplyError> {
    let mut offset = Vec::with_capacity(tree.groups().len());
    let mut servers = 0usize;
    for g in tree.groups() {
        offset.push(servers);
        servers += g.cpus.len();
    }
    let mut r = Replay {
        tree,
        names,
        opts,
        tasks: vec![Task::default(); names.len()],
        waiting: vec![0; tree.groups().len()],
        running_on: vec![None; tree.cpus() as usize],
        offset,
        acc: vec![Acc::default(); servers],
        outside_now: Vec::new(),
        outside: BTreeMap::new(),
        last: 0,
        serving: vec![false; servers],
        work: vec![false; servers],
    };
    let mut cur: Option<u64> = None;
    for (index, e) in events.iter().enumerate() {
        if let Some(t) = cur {
            if e.time < t {
                return Err(SupplyError::Unordered {
                    index,
                    time: e.time,
                    previous: t,
                });
            }
            if e.time > t {
                r.settle(t, supply)?;
            }
        }
        cur = Some(e.time);
        r.apply(index, e)?;
    }
    if let Some(t) = cur {
        r.settle(t, supply)?;
    }
    let end = horizon.max(cur.unwrap_or(0));
    r.finish(end, supply)?;
    Ok(r.report(end))
}

impl Replay<'_> {
    fn server(&self, g: u32, cpu: u32) -> Option<usize> {
        let grp = self.tree.groups().get(g as usize)?;
        let pos = grp.cpus.binary_search(&cpu).ok()?;
        Some(self.offset[g as usize] + pos)
    }

    fn group_of(&self, index: usize, task: u32) -> Result<u32, SupplyError> {
        let name = || self.names.get(task as usize).cloned().unwrap_or_default();
        self.tree
            .group_of_task(task as usize)
            .ok_or_else(|| SupplyError::Ungrouped {
                index,
                task,
                name: name(),
            })
    }

    /// Changes task `task`'s state, keeping its group's count of waiting tasks.
    fn update(
        &mut self,
        index: usize,
        task: u32,
        f: impl FnOnce(&mut Task),
    ) -> Result<(), SupplyError> {
        let g = self.group_of(index, task)? as usize;
        let t = &mut self.tasks[task as usize];
        let before = t.waiting();
        f(t);
        let after = t.waiting();
        match (before, after) {
            (false, true) => self.waiting[g] += 1,
            (true, false) => self.waiting[g] -= 1,
            _ => {}
        }
        Ok(())
    }

    fn check_cpu(&self, index: usize, cpu: u32) -> Result<(), SupplyError> {
        if cpu >= self.tree.cpus() {
            return Err(SupplyError::Cpu {
                index,
                cpu,
                cpus: self.tree.cpus(),
            });
        }
        Ok(())
    }

    /// One event's effect on the state (the instant is settled after all its events).
    fn apply(&mut self, index: usize, e: &Event) -> Result<(), SupplyError> {
        if e.task == u32::MAX {
            return self.apply_server(index, e);
        }
        let task_event = matches!(
            e.kind,
            Kind::Release
                | Kind::Complete
                | Kind::Abort
                | Kind::Block
                | Kind::Resume
                | Kind::SwitchIn
                | Kind::SwitchOut
        );
        if !task_event {
            return Ok(());
        }
        if e.task as usize >= self.tasks.len() {
            return Err(SupplyError::Task {
                index,
                task: e.task,
                tasks: self.tasks.len(),
            });
        }
        match e.kind {
            Kind::Release => self.update(index, e.task, |t| t.pending += 1),
            Kind::Complete | Kind::Abort => {
                self.update(index, e.task, |t| t.pending = t.pending.saturating_sub(1))
            }
            Kind::Block => self.update(index, e.task, |t| t.blocked = true),
            Kind::Resume => self.update(index, e.task, |t| t.blocked = false),
            Kind::SwitchIn if e.cpu != NO_CPU => {
                self.check_cpu(index, e.cpu)?;
                // A lost switch-out: the task leaves its previous CPU, the CPU's previous task
                // leaves it.
                if let Some(prev) = self.tasks[e.task as usize].running {
                    if self.running_on[prev as usize] == Some(e.task) {
                        self.running_on[prev as usize] = None;
                    }
                }
                if let Some(other) = self.running_on[e.cpu as usize] {
                    self.update(index, other, |t| t.running = None)?;
                }
                self.running_on[e.cpu as usize] = Some(e.task);
                self.update(index, e.task, |t| t.running = Some(e.cpu))
            }
            Kind::SwitchOut if e.cpu != NO_CPU => {
                self.check_cpu(index, e.cpu)?;
                if self.running_on[e.cpu as usize] == Some(e.task) {
                    self.running_on[e.cpu as usize] = None;
                    self.update(index, e.task, |t| t.running = None)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A server event (`task` = `u32::MAX`): throttling and the budget segments.
    fn apply_server(&mut self, index: usize, e: &Event) -> Result<(), SupplyError> {
        if !matches!(
            e.kind,
            Kind::BudgetExhausted | Kind::BudgetReplenished | Kind::BudgetThrottled
        ) {
            return Ok(());
        }
        let groups = self.tree.groups().len();
        let g = u32::try_from(e.seq)
            .ok()
            .filter(|&g| (g as usize) < groups)
            .ok_or(SupplyError::Group {
                index,
                group: e.seq,
                groups,
            })?;
        self.check_cpu(index, e.cpu)?;
        let s = self.server(g, e.cpu).ok_or_else(|| SupplyError::NoServer {
            index,
            group: self.tree.groups()[g as usize].name.clone(),
            cpu: e.cpu,
        })?;
        let acc = &mut self.acc[s];
        acc.server_events = true;
        match e.kind {
            Kind::BudgetThrottled => acc.throttled = true,
            Kind::BudgetReplenished => {
                acc.throttled = false;
                acc.replenishments += 1;
                acc.close_segment(e.time);
            }
            _ => {}
        }
        Ok(())
    }

    /// The state after every event at `t`: serving and backlog per server, their changes.
    fn settle(&mut self, t: u64, supply: &dyn Fn(u32, u64) -> u64) -> Result<(), SupplyError> {
        for &(g, cpu) in &self.outside_now {
            *self.outside.entry((g, cpu)).or_default() += t - self.last;
        }
        self.last = t;
        self.outside_now.clear();
        self.serving.fill(false);
        let groups = self.tree.groups();
        for (cpu, task) in self.running_on.iter().enumerate() {
            let Some(task) = *task else { continue };
            let cpu = cpu as u32;
            let mut at = self.tree.group_of_task(task as usize);
            // Bounded by the tree's depth (the model rules out cycles).
            for _ in 0..groups.len() {
                let Some(g) = at else { break };
                match self.server(g, cpu) {
                    Some(s) => self.serving[s] = true,
                    None => self.outside_now.push((g, cpu)),
                }
                at = groups[g as usize].parent;
            }
        }
        // Children before parents.
        for &g in self.tree.top_down().iter().rev() {
            let grp = &groups[g as usize];
            for (pos, &cpu) in grp.cpus.iter().enumerate() {
                let s = self.offset[g as usize] + pos;
                self.work[s] = self.serving[s]
                    || self.waiting[g as usize] > 0
                    || grp.children.iter().any(|&c| {
                        self.server(c, cpu)
                            .is_some_and(|cs| self.work[cs] && !self.acc[cs].throttled)
                    });
            }
        }
        for s in 0..self.acc.len() {
            self.transition(s, t, self.serving[s], self.work[s], supply)?;
        }
        Ok(())
    }

    /// Server `s`'s serving and backlog become `serving` and `work` at `t`.
    fn transition(
        &mut self,
        s: usize,
        t: u64,
        serving: bool,
        work: bool,
        supply: &dyn Fn(u32, u64) -> u64,
    ) -> Result<(), SupplyError> {
        let (g, cpu) = self.ident(s);
        let max = self.opts.max_points;
        let acc = &mut self.acc[s];
        if work && acc.backlog_since.is_none() {
            acc.backlog_since = Some(t);
            acc.stretches.clear();
        }
        match (acc.serve_since, serving) {
            (None, true) => acc.serve_since = Some(t),
            (Some(start), false) => {
                acc.serve_since = None;
                acc.served += t - start;
                match acc.stretches.last_mut() {
                    Some(last) if last.1 == start => last.1 = t,
                    _ => acc.stretches.push((start, t)),
                }
                if acc.stretches.len() > max {
                    return Err(SupplyError::TooManyPoints {
                        group: self.tree.groups()[g as usize].name.clone(),
                        cpu,
                        start: acc.backlog_since.unwrap_or(start),
                        max,
                    });
                }
            }
            _ => {}
        }
        if !work {
            if let Some(a) = acc.backlog_since.take() {
                let (worst, n) = min_slack(a, t, &acc.stretches, |len| supply(g, len));
                acc.intervals += 1;
                acc.backlogged_ns += t - a;
                acc.longest = acc.longest.max(t - a);
                acc.windows += n;
                if let Some(w) = worst {
                    if acc.worst.is_none_or(|x| w.slack() < x.slack()) {
                        acc.worst = Some(w);
                    }
                }
            }
        }
        Ok(())
    }

    /// The group and CPU of server `s`.
    fn ident(&self, s: usize) -> (u32, u32) {
        let g = self.offset.partition_point(|&o| o <= s) - 1;
        let pos = s - self.offset[g];
        (g as u32, self.tree.groups()[g].cpus[pos])
    }

    /// Closes everything at the trace end.
    fn finish(&mut self, end: u64, supply: &dyn Fn(u32, u64) -> u64) -> Result<(), SupplyError> {
        for &(g, cpu) in &self.outside_now {
            *self.outside.entry((g, cpu)).or_default() += end - self.last;
        }
        self.outside_now.clear();
        for s in 0..self.acc.len() {
            self.transition(s, end, false, false, supply)?;
            self.acc[s].close_segment(end);
        }
        Ok(())
    }

    fn report(&self, horizon: u64) -> SupplyReport {
        let tol = self.opts.tolerance_ns;
        let servers = (0..self.acc.len())
            .map(|s| {
                let (g, cpu) = self.ident(s);
                let grp = &self.tree.groups()[g as usize];
                let a = &self.acc[s];
                let q = grp.budget.as_ns();
                let supply_ok = a.worst.is_none_or(|w| w.slack() >= -i128::from(tol));
                let budget_ok = a.server_events.then(|| {
                    a.max_segment
                        .is_none_or(|m| u128::from(m.service) <= u128::from(q) + u128::from(tol))
                });
                ServerReport {
                    group: g,
                    name: grp.name.clone(),
                    cpu,
                    budget_ns: q,
                    period_ns: grp.period.as_ns(),
                    backlogged_intervals: a.intervals,
                    backlogged_ns: a.backlogged_ns,
                    longest_backlog_ns: a.longest,
                    service_ns: a.served,
                    windows: a.windows,
                    worst_window: a.worst,
                    replenishments: a.replenishments,
                    max_segment: a.server_events.then_some(a.max_segment).flatten(),
                    supply_ok,
                    budget_ok,
                }
            })
            .collect();
        SupplyReport {
            servers,
            outside: self
                .outside
                .iter()
                .filter(|(_, &ns)| ns > 0)
                .map(|(&(group, cpu), &ns)| Outside { group, cpu, ns })
                .collect(),
            horizon,
            tolerance_ns: tol,
        }
    }
}
