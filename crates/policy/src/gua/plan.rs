//! Steps 1–4 of a GUA scheduling event (module doc of [`super`]): aborts, densities and
//! dependency chains, the per-CPU lists, the selection. Every buffer is kept in [`Scratch`]
//! and reused.

use super::list::{CpuList, Item};
use super::{Gua, Variant};
use crate::event::{Ctx, Decisions};
use crate::ids::JobId;
use crate::ua::{self, Density};
use schedlab_model::Time;

/// A candidate: job `job` with its chain's density.
#[derive(Clone, Copy, Debug)]
pub(super) struct Unit {
    job: usize,
    density: Density,
}

/// Per-event buffers (indices are positions in [`Gua::jobs`], valid for one event).
#[derive(Debug, Default)]
pub(super) struct Scratch {
    density: Vec<Density>,
    critical: Vec<Time>,
    /// The owner of what the job waits for (its next chain member), if known.
    next: Vec<Option<usize>>,
    /// The job that runs for it: itself if it can run, its chain's end if it is blocked,
    /// `None` if the chain ends nowhere (deadlock, unknown owner, gMUA's blocked job).
    end: Vec<Option<usize>>,
    state: Vec<u8>,
    placed: Vec<bool>,
    chosen: Vec<bool>,
    units: Vec<Unit>,
    pub(super) lists: Vec<CpuList>,
    util: Vec<u64>,
    order: Vec<u32>,
    path: Vec<usize>,
    merged: Vec<(Time, JobId, usize)>,
    /// Selected jobs, in selection order (the mapping's input).
    pub(super) pick: Vec<usize>,
    index: Vec<(JobId, usize)>,
    victims: Vec<JobId>,
    pub(super) next_link: Vec<Option<JobId>>,
}

const UNSEEN: u8 = 0;
const ON_PATH: u8 = 1;
const DONE: u8 = 2;

impl Gua {
    /// One scheduling event: steps 1–5 of the module doc.
    pub(super) fn reschedule(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        self.abort_late(ctx, out);
        let deps = self.variant.follows_dependencies() && ctx.resources.any();
        // A deadlock abort changes the job store: measure again (rare; at most one round per
        // cycle, and every round removes a job).
        loop {
            self.measure(ctx);
            if !deps {
                self.chains_without_dependencies();
                break;
            }
            self.chains(ctx);
            if self.scratch.victims.is_empty() {
                break;
            }
            let victims = std::mem::take(&mut self.scratch.victims);
            for &v in &victims {
                out.abort(v);
                self.forget_id(v, out);
            }
            self.scratch.victims = victims;
            self.scratch.victims.clear();
        }
        self.collect_units(ctx);
        let dropped = self.fill_lists(ctx.now);
        self.select(ctx.now, dropped);
        self.map(out);
    }

    /// Step 1: aborts every abortable job whose critical time has come.
    fn abort_late(&mut self, ctx: &Ctx<'_>, out: &mut Decisions) {
        let mut k = self.jobs.len();
        while k > 0 {
            k -= 1;
            let info = self.jobs[k].info;
            let task = ua::task_of(&self.tasks, &info);
            let abortable = task.is_none_or(|t| t.abortable);
            if abortable && ua::critical_time(task, &info) <= ctx.now {
                out.abort(info.id);
                self.forget(k, out);
            }
        }
    }

    /// Densities and critical times of every job.
    fn measure(&mut self, ctx: &Ctx<'_>) {
        let s = &mut self.scratch;
        s.density.clear();
        s.critical.clear();
        for job in &self.jobs {
            s.density.push(Density::of(ctx, &self.tasks, &job.info));
            s.critical.push(ua::critical_time(
                ua::task_of(&self.tasks, &job.info),
                &job.info,
            ));
        }
    }

    fn chains_without_dependencies(&mut self) {
        let s = &mut self.scratch;
        s.next.clear();
        s.end.clear();
        for (k, job) in self.jobs.iter().enumerate() {
            s.next.push(None);
            s.end.push((!job.blocked).then_some(k));
        }
    }

    /// Step 2 with dependencies: every job's chain end; deadlock victims into `victims`.
    fn chains(&mut self, ctx: &Ctx<'_>) {
        let n = self.jobs.len();
        let s = &mut self.scratch;
        s.index.clear();
        s.index
            .extend(self.jobs.iter().enumerate().map(|(k, j)| (j.info.id, k)));
        s.index.sort_unstable();
        s.next.clear();
        for job in &self.jobs {
            let owner = if job.blocked {
                ctx.blocker(job.info.id).and_then(|o| {
                    s.index
                        .binary_search_by(|(id, _)| id.cmp(&o))
                        .ok()
                        .map(|p| s.index[p].1)
                })
            } else {
                None
            };
            s.next.push(owner);
        }
        s.end.clear();
        s.end.resize(n, None);
        s.state.clear();
        s.state.resize(n, UNSEEN);
        for start in 0..n {
            if s.state[start] != UNSEEN {
                continue;
            }
            s.path.clear();
            let mut cur = start;
            let end = loop {
                match s.state[cur] {
                    DONE => break s.end[cur],
                    ON_PATH => {
                        // A cycle: the part of the path from `cur` on.
                        let from = s.path.iter().position(|&p| p == cur).unwrap_or(0);
                        let cycle = &s.path[from..];
                        if let Some(v) = deadlock_victim(&self.tasks, &self.jobs, &s.density, cycle)
                        {
                            s.victims.push(v);
                        }
                        break None;
                    }
                    _ => {}
                }
                s.state[cur] = ON_PATH;
                s.path.push(cur);
                if !self.jobs[cur].blocked {
                    break Some(cur);
                }
                match s.next[cur] {
                    Some(nx) => cur = nx,
                    None => break None,
                }
            };
            for &p in &s.path {
                s.state[p] = DONE;
                s.end[p] = end;
            }
        }
    }

    /// The chain of `job` is walked through `next` up to its end (at most `n` steps).
    fn chain_members(&self, job: usize, into: &mut Vec<usize>) {
        into.clear();
        let s = &self.scratch;
        let Some(end) = s.end.get(job).copied().flatten() else {
            return;
        };
        let mut cur = job;
        for _ in 0..=self.jobs.len() {
            into.push(cur);
            if cur == end {
                return;
            }
            match s.next.get(cur).copied().flatten() {
                Some(nx) => cur = nx,
                None => return,
            }
        }
    }

    /// The candidates (module doc, step 2), densest first.
    fn collect_units(&mut self, ctx: &Ctx<'_>) {
        let mut units = std::mem::take(&mut self.scratch.units);
        let mut path = std::mem::take(&mut self.scratch.path);
        units.clear();
        for k in 0..self.jobs.len() {
            // A job past its critical time (kept: non-abortable) is worth nothing.
            if self.scratch.critical[k] <= ctx.now {
                continue;
            }
            self.chain_members(k, &mut path);
            if path.is_empty() {
                continue;
            }
            let mut density = Density {
                value: 0.0,
                remaining: 0,
            };
            for &p in &path {
                let d = self.scratch.density[p];
                density.value += d.value;
                density.remaining = density.remaining.saturating_add(d.remaining);
            }
            units.push(Unit { job: k, density });
        }
        let jobs = &self.jobs;
        units.sort_unstable_by(|a, b| {
            ua::by_density_desc(
                (&a.density, &jobs[a.job].info),
                (&b.density, &jobs[b.job].info),
            )
        });
        self.scratch.units = units;
        self.scratch.path = path;
    }

    /// Step 3: places the candidates on the lists; whether some candidate was dropped.
    fn fill_lists(&mut self, now: Time) -> bool {
        let m = self.linked.len();
        let n = self.jobs.len();
        let mut path = std::mem::take(&mut self.scratch.path);
        let units = std::mem::take(&mut self.scratch.units);
        let s = &mut self.scratch;
        s.lists.resize_with(m, CpuList::default);
        for l in &mut s.lists {
            l.reset(now);
        }
        s.util.clear();
        s.util.resize(m, 0);
        s.placed.clear();
        s.placed.resize(n, false);
        let mut dropped = false;
        for unit in &units {
            self.chain_members(unit.job, &mut path);
            let s = &mut self.scratch;
            path.retain(|&p| !s.placed[p]);
            if path.is_empty() {
                continue;
            }
            let limit = s.critical[unit.job];
            let util: u64 = path
                .iter()
                .map(|&p| {
                    let t = self.jobs[p].info.id.task.0 as usize;
                    self.util_ppb.get(t).copied().unwrap_or(0)
                })
                .fold(0, u64::saturating_add);
            s.order.clear();
            s.order.extend(0..m as u32);
            let util_of = &s.util;
            s.order.sort_unstable_by_key(|&c| (util_of[c as usize], c));
            let tries = match self.variant {
                Variant::GGua => m,
                Variant::Gmua | Variant::NgGua => 1.min(m),
            };
            let mut kept = false;
            for k in 0..tries {
                let cpu = s.order[k] as usize;
                if place(s, &self.jobs, cpu, &path, limit, now) {
                    s.util[cpu] = s.util[cpu].saturating_add(util);
                    for &p in &path {
                        s.placed[p] = true;
                    }
                    kept = true;
                    break;
                }
            }
            dropped |= !kept;
        }
        self.scratch.units = units;
        self.scratch.path = path;
        dropped
    }

    /// Step 4: the jobs to run, into `pick`.
    fn select(&mut self, now: Time, dropped: bool) {
        let m = self.linked.len();
        let s = &mut self.scratch;
        s.pick.clear();
        s.chosen.clear();
        s.chosen.resize(self.jobs.len(), false);
        if self.variant != Variant::GGua && !dropped {
            // G-EDF while every candidate fits: the m earliest critical times of all lists.
            s.merged.clear();
            for l in &s.lists {
                s.merged
                    .extend(l.items().iter().map(|i| (i.critical, i.id, i.job)));
            }
            s.merged.sort_unstable();
            for &(_, _, job) in &s.merged {
                if s.pick.len() == m {
                    break;
                }
                if let Some(run) = s.end[job].filter(|&r| !s.chosen[r]) {
                    s.chosen[run] = true;
                    s.pick.push(run);
                }
            }
        } else {
            for l in &s.lists {
                let first = l
                    .items()
                    .iter()
                    .find_map(|i| s.end[i.job].filter(|&r| !s.chosen[r]));
                if let Some(run) = first {
                    s.chosen[run] = true;
                    s.pick.push(run);
                }
            }
        }
        // CPUs left idle run the worthless non-abortable jobs, earliest critical time first.
        if s.pick.len() < m {
            s.merged.clear();
            for (k, job) in self.jobs.iter().enumerate() {
                if s.critical[k] <= now && !job.blocked && !s.chosen[k] {
                    s.merged.push((s.critical[k], job.info.id, k));
                }
            }
            s.merged.sort_unstable();
            for &(_, _, k) in &s.merged {
                if s.pick.len() == m {
                    break;
                }
                s.chosen[k] = true;
                s.pick.push(k);
            }
        }
    }
}

/// Places the chain members `path` on list `cpu`, each with the earlier of its critical time
/// and `limit` (the blocked job's; a member past its own uses `limit`), or nothing if the
/// list would become infeasible.
fn place(
    s: &mut Scratch,
    jobs: &[super::Job],
    cpu: usize,
    path: &[usize],
    limit: Time,
    now: Time,
) -> bool {
    let Some(list) = s.lists.get_mut(cpu) else {
        return false;
    };
    for (k, &p) in path.iter().enumerate() {
        let own = s.critical[p];
        let item = Item {
            job: p,
            id: jobs[p].info.id,
            critical: if own > now { own.min(limit) } else { limit },
            remaining: s.density[p].remaining,
        };
        if !list.try_insert(item) {
            for &q in &path[..k] {
                list.remove(q);
            }
            return false;
        }
    }
    true
}

/// The job of `cycle` to abort: the abortable one of the lowest density (ties: the one the
/// project's order puts last), if any.
fn deadlock_victim(
    tasks: &[crate::task::PolicyTask],
    jobs: &[super::Job],
    density: &[Density],
    cycle: &[usize],
) -> Option<JobId> {
    cycle
        .iter()
        .copied()
        .filter(|&p| ua::task_of(tasks, &jobs[p].info).is_none_or(|t| t.abortable))
        .max_by(|&a, &b| {
            ua::by_density_desc((&density[a], &jobs[a].info), (&density[b], &jobs[b].info))
        })
        .map(|p| jobs[p].info.id)
}
