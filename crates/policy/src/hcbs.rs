//! `hcbs`: hierarchical multiprocessor reservations with H-CBS servers [HCBS §3.2].
//!
//! **Model.** The task set's reservation groups (`groups = [{name, budget, period, cpus?,
//! parent?}]`, resolved for the platform as a [`GroupTree`], given through
//! [`Placement::groups`]) each get one hard CBS server per CPU they may use, all with the
//! group's `(Q, P)` [HCBS §3, Fig. 1]; every task belongs to a group. A subgroup's servers run
//! inside its parent's servers on the same CPUs.
//!
//! **Scheduling** (the rules shared with the runtime's `reservations` architecture, written
//! once here):
//! 1. servers: hard CBS ([`servers`]): the budget drains only while the server's CPU runs a
//!    job of the group's subtree (all servers of the chain from the job's group up to its
//!    top-level group on that CPU drain together); exhausted → throttled until the deadline,
//!    then replenished (`c = Q`, `d += P`); the CBS wake-up rule whenever a server starts
//!    having work for its CPU ([`Hcbs::choose`]: its CPU runs a job of the subtree, or the
//!    group, given that CPU too, would run one job more) — per server, not when the group
//!    as a whole becomes ready: a server that sat idle while its group's jobs ran on other
//!    CPUs must not come back with a stale deadline and a full budget, which would take more
//!    than `Q/P` of its CPU and break the other servers' supply [Eq. 4, Eq. 17];
//! 2. selection ([`select`]): on each CPU, EDF among the eligible servers that have work for
//!    it; inside a group, its subgroups' servers compete the same way on the CPUs it holds,
//!    and the CPUs they leave run the group's own jobs by global fixed priority
//!    ([`PolicyTask::rank`], `--priorities dm|rm|given`) — its `k` highest-priority ready jobs
//!    on the `k` CPUs it holds at that moment [HCBS §3.2].
//!
//! **Budget accounting through the engine.** The job linked to a CPU gets an engine budget
//! ([`Decisions::budget`]) equal to the smallest remaining budget of its server chain on that
//! CPU, so the engine calls [`Policy::on_budget_exhausted`] exactly when the first of them
//! runs out. At every callback the policy first *settles*: it charges each linked job's
//! execution since the last settlement ([`crate::Progress::executed`], which the engine still
//! answers for a job during its `on_complete`/`on_abort`) to the servers of its chain, and
//! throttles the servers that reached zero. Replenishments are policy timers
//! ([`Decisions::timer`], one id per server). Server events go to the trace through
//! [`Decisions::server`] (`budget-replenished`, `budget-exhausted`, `budget-throttled` with
//! the group and the CPU).
//!
//! **Assumptions.** Sequential tasks only (parallel tasks are refused: the servers' accounting
//! assumes one job per task at a time); every task in a group; the groups admitted
//! ([`GroupTree::check_admission`], [HCBS Eq. 17]) on exactly the policy's CPUs — checked when
//! the policy is built, errors name the task or the CPU.
//!
//! **Complexity.** Per callback: settling `O(m·depth·log m)`, selection as in [`select`]
//! (`O(s log s + m)` for `s` servers of flat groups). Memory `O(n + s + m)`.

mod select;
mod servers;

use crate::error::PolicyError;
use crate::event::{Ctx, Decisions, JobInfo, ServerChange};
use crate::ids::{CpuId, JobId, TimerId};
use crate::policy::Policy;
use crate::prio::JobKey;
use crate::task::{Placement, PolicyTask};
use schedlab_model::{Duration, GroupTree};
use servers::{Exhausted, Server};
use std::collections::BTreeSet;
use std::sync::Arc;

/// A group's scheduling state.
#[derive(Debug)]
struct Group {
    parent: Option<u32>,
    children: Vec<u32>,
    /// Its servers: (CPU, server index), by CPU.
    servers: Vec<(u32, u32)>,
    /// Its own tasks' jobs the policy holds (ready or running), highest priority first.
    ready: BTreeSet<JobKey>,
    /// Jobs held in its subtree (itself and every subgroup).
    backlog: u32,
}

/// Whether a server has work for its CPU ([`Hcbs::choose`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Work {
    /// It never had any (its first work activates it).
    Never,
    /// It has work.
    Busy,
    /// It has had none since this instant; work at a later instant wakes it up (the CBS
    /// wake-up rule), work at this same instant continues it.
    IdleSince(schedlab_model::Time),
}

/// The job linked to a CPU.
#[derive(Clone, Copy, Debug)]
struct Linked {
    key: JobKey,
    /// Its group.
    group: u32,
    /// What it had executed at the last settlement.
    base: Duration,
    /// The executed time at which its engine budget runs out.
    budget_end: Duration,
}

/// The `hcbs` policy (module doc).
#[derive(Debug)]
pub struct Hcbs {
    tasks: Arc<[PolicyTask]>,
    task_group: Vec<u32>,
    groups: Vec<Group>,
    roots: Vec<u32>,
    servers: Vec<Server>,
    /// Whether each server had work at the last decision ([`Hcbs::choose`]).
    busy: Vec<Work>,
    cpus: Vec<Option<Linked>>,
    /// The CPU each task's job is linked to.
    where_: Vec<Option<u32>>,
    /// Servers drained by the current settlement (scratch).
    drained: Vec<u32>,
}

impl Hcbs {
    /// H-CBS for `tasks` on `cpus` CPUs with the groups of `placement` (module doc,
    /// "Assumptions"). Errors: [`PolicyError::Groups`] naming the task without a group, the
    /// overloaded CPU, or a tree resolved for another number of CPUs.
    pub fn new(
        tasks: impl Into<Arc<[PolicyTask]>>,
        cpus: u32,
        placement: Option<&Placement>,
    ) -> Result<Hcbs, PolicyError> {
        let tasks: Arc<[PolicyTask]> = tasks.into();
        let Some(tree) = placement.and_then(|p| p.groups.as_ref()) else {
            return Err(PolicyError::Groups(
                "policy `hcbs` needs the task set's reservation groups (`groups`, each task's `group`)".into(),
            ));
        };
        if tree.cpus() != cpus {
            return Err(PolicyError::Groups(format!(
                "the reservation groups were resolved for {} CPUs, the policy runs {cpus}",
                tree.cpus()
            )));
        }
        tree.check_admission()
            .map_err(|e| PolicyError::Groups(e.to_string()))?;
        let mut task_group = Vec::with_capacity(tasks.len());
        for i in 0..tasks.len() {
            match tree.group_of_task(i) {
                Some(g) => task_group.push(g),
                None => {
                    return Err(PolicyError::Groups(format!(
                        "task {i} has no reservation group (field `group`); policy `hcbs` runs every task inside a group"
                    )))
                }
            }
        }
        let (groups, servers) = build_groups(tree)?;
        Ok(Hcbs {
            busy: vec![Work::Never; servers.len()],
            task_group,
            roots: tree.roots().collect(),
            groups,
            servers,
            cpus: vec![None; cpus as usize],
            where_: vec![None; tasks.len()],
            drained: Vec::new(),
            tasks,
        })
    }

    /// The server of group `g` on `cpu`.
    fn server_on(&self, g: u32, cpu: u32) -> Option<u32> {
        let list = &self.groups.get(g as usize)?.servers;
        let i = list.binary_search_by_key(&cpu, |&(c, _)| c).ok()?;
        list.get(i).map(|&(_, s)| s)
    }

    /// The servers a job of group `g` on `cpu` runs in: `g`'s, then each ancestor's.
    fn chain(&self, g: u32, cpu: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = Some(g);
        while let Some(x) = at {
            if let Some(s) = self.server_on(x, cpu) {
                out.push(s);
            }
            at = self.groups.get(x as usize).and_then(|y| y.parent);
        }
        out
    }

    /// Charges every linked job's execution since the last settlement to its chain and
    /// handles the servers that ran out (module doc).
    fn settle(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        self.drained.clear();
        for cpu in 0..self.cpus.len() {
            let Some(mut l) = self.cpus[cpu] else {
                continue;
            };
            let executed = ctx.progress.executed(l.key.job());
            let delta = executed.saturating_sub(l.base);
            l.base = executed;
            self.cpus[cpu] = Some(l);
            if delta.is_zero() {
                continue;
            }
            for s in self.chain(l.group, cpu as u32) {
                if let Some(server) = self.servers.get_mut(s as usize) {
                    server.drain(delta);
                    self.drained.push(s);
                }
            }
        }
        let drained = std::mem::take(&mut self.drained);
        for &s in &drained {
            let Some(server) = self.servers.get_mut(s as usize) else {
                continue;
            };
            if !server.c.is_zero() || server.throttled {
                continue;
            }
            let (g, cpu, q) = (server.group, CpuId(server.cpu), server.budget.as_ns());
            out.server(ServerChange::Exhausted, g, cpu, q);
            match server.exhaust(ctx.now) {
                Exhausted::Until(d) => {
                    out.server(ServerChange::Throttled, g, cpu, d.as_ns());
                    out.timer(TimerId(u64::from(s)), d);
                }
                Exhausted::Replenished => out.server(ServerChange::Replenished, g, cpu, q),
            }
        }
        self.drained = drained;
    }

    /// A job of group `g` arrives (`+1`) or leaves: updates the backlogs up the tree.
    fn track(&mut self, g: u32, arrives: bool) {
        let mut at = Some(g);
        while let Some(x) = at {
            let Some(group) = self.groups.get_mut(x as usize) else {
                return;
            };
            if arrives {
                group.backlog += 1;
            } else {
                group.backlog = group.backlog.saturating_sub(1);
            }
            at = group.parent;
        }
    }

    /// The CPUs each group's subtree runs a job on in `desired` (sorted), by group.
    fn holdings(&self, desired: &[Option<(JobKey, u32)>]) -> Vec<Vec<u32>> {
        let mut held = vec![Vec::new(); self.groups.len()];
        for (cpu, entry) in desired.iter().enumerate() {
            let Some((_, g)) = entry else {
                continue;
            };
            let mut at = Some(*g);
            while let Some(x) = at {
                if let Some(list) = held.get_mut(x as usize) {
                    list.push(cpu as u32);
                }
                at = self.groups.get(x as usize).and_then(|y| y.parent);
            }
        }
        held
    }

    /// Whether group `g`, holding the CPUs `held` (sorted), would run one job more if given
    /// `cpu` too. A group without subgroups runs its own jobs only ([`Hcbs::count`] is then
    /// `min(CPUs, ready jobs)`), so the answer is "it has more ready jobs than CPUs", without
    /// building the larger set — the common case of every decision.
    fn wants_one_more(&self, g: u32, held: &[u32], cpu: u32) -> bool {
        let Some(group) = self.groups.get(g as usize) else {
            return false;
        };
        if group.children.is_empty() {
            return group.ready.len() > held.len();
        }
        let mut more = held.to_vec();
        if let Err(at) = more.binary_search(&cpu) {
            more.insert(at, cpu);
        }
        self.count(g, &more) > held.len()
    }

    /// The CPUs' jobs with the CBS wake-up rule applied per server (module doc, rule 1): a
    /// server *has work* when its CPU runs a job of its subtree, or it is not throttled and
    /// its group, given that CPU as well, would run one job more there (a server that never
    /// ran has no budget yet: its activation gives it one); a server that starts
    /// having work is activated — unless it ran out of work at this very instant (a completion
    /// and a release at the same time reach the policy as two callbacks; in between the
    /// server was never idle for any time, and resetting it there would postpone its deadline
    /// inside a backlogged interval and break Eq. 4). A fresh activation postpones its deadline, which can change
    /// the selection, so the selection is recomputed until no server starts having work —
    /// each server starts at most once per decision, so this ends after at most `s + 1`
    /// selections (in practice one or two).
    fn choose(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) -> Vec<Option<(JobKey, u32)>> {
        let m = self.cpus.len();
        let all: Vec<u32> = (0..m as u32).collect();
        loop {
            let mut desired: Vec<Option<(JobKey, u32)>> = vec![None; m];
            self.place(None, &all, &mut desired);
            let held = self.holdings(&desired);
            let mut changed = false;
            for s in 0..self.servers.len() {
                let server = self.servers[s];
                let mine = held
                    .get(server.group as usize)
                    .map_or(&[][..], Vec::as_slice);
                let runs_here = mine.binary_search(&server.cpu).is_ok();
                let has_work = runs_here
                    || (!server.throttled && self.wants_one_more(server.group, mine, server.cpu));
                if server.throttled {
                    // A hard CBS server is suspended until its replenishment, not idle: it
                    // keeps whether it had work, so a replenishment continues it (c = Q,
                    // d += P) rather than waking it up again.
                    continue;
                }
                let started = match (has_work, self.busy[s]) {
                    (false, Work::Busy) => {
                        self.busy[s] = Work::IdleSince(ctx.now);
                        false
                    }
                    (false, _) | (true, Work::Busy) => false,
                    // Work again at the instant it ran out (a completion and a release at
                    // the same time, seen by two callbacks): the server was never idle.
                    (true, Work::IdleSince(t)) if t == ctx.now => {
                        self.busy[s] = Work::Busy;
                        false
                    }
                    (true, Work::Never | Work::IdleSince(_)) => {
                        self.busy[s] = Work::Busy;
                        true
                    }
                };
                if started && self.servers[s].activate(ctx.now) {
                    let q = server.budget.as_ns();
                    out.server(
                        ServerChange::Replenished,
                        server.group,
                        CpuId(server.cpu),
                        q,
                    );
                    changed = true;
                }
            }
            if !changed {
                return desired;
            }
        }
    }

    /// Recomputes every CPU's job ([`select`]) and links what changed; a newly linked job
    /// gets the smallest remaining budget of its chain as its engine budget.
    fn reselect(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        let desired = self.choose(ctx, out);
        let mut placed = vec![false; self.tasks.len()];
        for (key, _) in desired.iter().flatten() {
            if let Some(p) = placed.get_mut(key.task as usize) {
                *p = true;
            }
        }
        for (cpu, &after) in desired.iter().enumerate() {
            let before = self.cpus[cpu].map(|l| l.key);
            if before == after.map(|(k, _)| k) {
                self.refresh_budget(cpu, out);
                continue;
            }
            if let Some(old) = before {
                if !placed.get(old.task as usize).copied().unwrap_or(false) {
                    out.clear_budget(old.job());
                    if let Some(w) = self.where_.get_mut(old.task as usize) {
                        *w = None;
                    }
                }
            }
            let c = CpuId(cpu as u32);
            match after {
                None => {
                    self.cpus[cpu] = None;
                    out.unlink(c);
                }
                Some((key, group)) => {
                    let job = key.job();
                    let budget = self.chain_budget(group, cpu as u32);
                    let base = ctx.progress.executed(job);
                    let budget_end = base.checked_add(budget).unwrap_or(Duration::MAX);
                    self.cpus[cpu] = Some(Linked {
                        key,
                        group,
                        base,
                        budget_end,
                    });
                    if let Some(w) = self.where_.get_mut(key.task as usize) {
                        *w = Some(cpu as u32);
                    }
                    out.link(c, job);
                    out.budget(job, budget);
                }
            }
        }
    }

    /// The smallest remaining budget of the chain of group `g` on `cpu`.
    fn chain_budget(&self, g: u32, cpu: u32) -> Duration {
        self.chain(g, cpu)
            .iter()
            .filter_map(|&s| self.servers.get(s as usize).map(|s| s.c))
            .min()
            .unwrap_or(Duration::ZERO)
    }

    /// The job staying on `cpu` gets a new engine budget if its chain's smallest budget no
    /// longer matches what is left of the one it has (a server of the chain was exhausted
    /// and replenished at once, or the engine removed the budget at its exhaustion).
    fn refresh_budget(&mut self, cpu: usize, out: &mut Decisions) {
        let Some(mut l) = self.cpus.get(cpu).copied().flatten() else {
            return;
        };
        let want = self.chain_budget(l.group, cpu as u32);
        if l.budget_end.saturating_sub(l.base) == want && l.budget_end > l.base {
            return;
        }
        l.budget_end = l.base.checked_add(want).unwrap_or(Duration::MAX);
        self.cpus[cpu] = Some(l);
        out.budget(l.key.job(), want);
    }

    /// `job` leaves the policy (completed or aborted).
    fn forget(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.settle(ctx, out);
        let task = job.task.0 as usize;
        let Some(&g) = self.task_group.get(task) else {
            return;
        };
        let Some(group) = self.groups.get_mut(g as usize) else {
            return;
        };
        let Some(&key) = group.ready.iter().find(|k| k.job() == job) else {
            return;
        };
        group.ready.remove(&key);
        if let Some(cpu) = self.where_.get_mut(task).and_then(Option::take) {
            if let Some(slot) = self.cpus.get_mut(cpu as usize) {
                *slot = None;
                out.unlink(CpuId(cpu));
            }
        }
        self.track(g, false);
        self.reselect(ctx, out);
    }
}

/// The groups' state and their servers (one per group and CPU, in group then CPU order).
fn build_groups(tree: &GroupTree) -> Result<(Vec<Group>, Vec<Server>), PolicyError> {
    let mut groups = Vec::with_capacity(tree.groups().len());
    let mut servers = Vec::new();
    for (g, r) in tree.groups().iter().enumerate() {
        let g = u32::try_from(g).map_err(|_| PolicyError::Groups("too many groups".into()))?;
        let mut own = Vec::with_capacity(r.cpus.len());
        for &cpu in &r.cpus {
            let s = u32::try_from(servers.len())
                .map_err(|_| PolicyError::Groups("too many servers".into()))?;
            servers.push(Server::new(g, cpu, r.budget, r.period));
            own.push((cpu, s));
        }
        groups.push(Group {
            parent: r.parent,
            children: r.children.clone(),
            servers: own,
            ready: BTreeSet::new(),
            backlog: 0,
        });
    }
    Ok((groups, servers))
}

impl Policy for Hcbs {
    fn name(&self) -> &str {
        "hcbs"
    }
    fn cpus(&self) -> u32 {
        u32::try_from(self.cpus.len()).unwrap_or(u32::MAX)
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.settle(ctx, out);
        let task = job.id.task.0 as usize;
        let (Some(t), Some(&g)) = (self.tasks.get(task), self.task_group.get(task)) else {
            return;
        };
        let key = JobKey::new(u64::from(t.rank), job.id);
        let Some(group) = self.groups.get_mut(g as usize) else {
            return;
        };
        if !group.ready.insert(key) {
            return;
        }
        self.track(g, true);
        self.reselect(ctx, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.forget(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.forget(ctx, job, out);
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: TimerId, out: &mut Decisions) {
        self.settle(ctx, out);
        let Some(server) = usize::try_from(timer.0)
            .ok()
            .and_then(|s| self.servers.get_mut(s))
        else {
            return;
        };
        if server.throttled && server.d <= ctx.now {
            server.replenish(ctx.now);
            let (g, cpu, q) = (server.group, CpuId(server.cpu), server.budget.as_ns());
            out.server(ServerChange::Replenished, g, cpu, q);
        }
        self.reselect(ctx, out);
    }
    fn on_budget_exhausted(&mut self, ctx: &Ctx<'_>, _job: JobId, out: &mut Decisions) {
        self.settle(ctx, out);
        self.reselect(ctx, out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.cpus
            .get(cpu.0 as usize)
            .copied()
            .flatten()
            .map(|l| l.key.job())
    }
}

#[cfg(test)]
mod tests;
