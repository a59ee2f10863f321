//! Steps 1–3 of a GUA scheduling event (module doc of [`super`]): aborts, densities and
//! dependency chains with deadlock resolution, the per-CPU lists (built only when the
//! selection, `select.rs`, needs them). Every buffer is kept in [`Scratch`] and reused.

use super::list::{CpuList, Item};
use super::{Gua, Variant};
use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::JobId;
use crate::ua::{self, Density};
use schedlab_model::Time;

/// A candidate: job `job` with its chain's density.
#[derive(Clone, Copy, Debug)]
pub(super) struct Unit {
    pub(super) job: usize,
    pub(super) density: Density,
    /// The job's facts, kept here so that sorting touches nothing else.
    pub(super) info: JobInfo,
}

/// Per-event buffers (indices are positions in [`Gua::jobs`], valid for one event).
#[derive(Debug, Default)]
pub(super) struct Scratch {
    pub(super) density: Vec<Density>,
    pub(super) critical: Vec<Time>,
    /// The owner of what the job waits for (its next chain member), if known.
    pub(super) next: Vec<Option<usize>>,
    /// The job that runs for it: itself if it can run, its chain's end if it is blocked,
    /// `None` if the chain ends nowhere (deadlock, unknown owner, gMUA's blocked job).
    pub(super) end: Vec<Option<usize>>,
    pub(super) state: Vec<u8>,
    pub(super) placed: Vec<bool>,
    pub(super) chosen: Vec<bool>,
    pub(super) units: Vec<Unit>,
    pub(super) lists: Vec<CpuList>,
    pub(super) util: Vec<u64>,
    pub(super) order: Vec<u32>,
    pub(super) path: Vec<usize>,
    /// Sort buffer: (critical time, 0 if running else 1, job id, job index).
    pub(super) merged: Vec<(Time, u8, JobId, usize)>,
    /// The G-EDF check's effective critical time of each job that can run.
    pub(super) effective: Vec<Option<Time>>,
    /// Selected jobs, in selection order (the mapping's input).
    pub(super) pick: Vec<usize>,
    pub(super) index: Vec<(JobId, usize)>,
    pub(super) victims: Vec<JobId>,
    pub(super) next_link: Vec<Option<JobId>>,
    /// The CPU each selected job is mapped to (parallel to `pick`).
    pub(super) mapped: Vec<Option<u32>>,
    /// The G-EDF check's CPU-free times as a min-heap.
    pub(super) free_heap: std::collections::BinaryHeap<std::cmp::Reverse<u64>>,
}

const UNSEEN: u8 = 0;
const ON_PATH: u8 = 1;
const DONE: u8 = 2;

impl Gua {
    /// One scheduling event: steps 1–5 of the module doc of [`super`].
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
        self.select(ctx.now);
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
    pub(super) fn collect_units(&mut self, now: Time) {
        let mut units = std::mem::take(&mut self.scratch.units);
        let mut path = std::mem::take(&mut self.scratch.path);
        units.clear();
        for k in 0..self.jobs.len() {
            // A job past its critical time (kept: non-abortable) is worth nothing.
            if self.scratch.critical[k] <= now {
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
            // A job that cannot complete by its critical time even alone fits no list: not a
            // candidate. (A chain may still fit if a denser chain placed some of its members
            // on another CPU: `fill_lists` checks what is left of it.)
            let late =
                now.as_ns().saturating_add(density.remaining) > self.scratch.critical[k].as_ns();
            if path.len() == 1 && late {
                continue;
            }
            units.push(Unit {
                job: k,
                density,
                info: self.jobs[k].info,
            });
        }
        units.sort_unstable_by(|a, b| {
            ua::by_density_desc((&a.density, &a.info), (&b.density, &b.info))
        });
        self.scratch.units = units;
        self.scratch.path = path;
    }

    /// Step 3: places the candidates on the lists.
    pub(super) fn fill_lists(&mut self, now: Time) {
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
        // CPUs by increasing (utilization, index): all idle at first.
        s.order.clear();
        s.order.extend(0..m as u32);
        s.placed.clear();
        s.placed.resize(n, false);
        for unit in &units {
            self.chain_members(unit.job, &mut path);
            let s = &mut self.scratch;
            path.retain(|&p| !s.placed[p]);
            if path.is_empty() {
                continue;
            }
            let limit = s.critical[unit.job];
            // Every member must complete by `limit`: a chain longer than that fits nowhere
            // (in overload, most jobs that can no longer make it; G-GUA would try every CPU).
            let rem = path
                .iter()
                .map(|&p| s.density[p].remaining)
                .fold(0, u64::saturating_add);
            if now.as_ns().saturating_add(rem) > limit.as_ns() {
                continue;
            }
            let util: u64 = path
                .iter()
                .map(|&p| {
                    let t = self.jobs[p].info.id.task.0 as usize;
                    self.util_ppb.get(t).copied().unwrap_or(0)
                })
                .fold(0, u64::saturating_add);
            let tries = match self.variant {
                Variant::GGua => m,
                Variant::Gmua | Variant::NgGua => 1.min(m),
            };
            for k in 0..tries {
                let cpu = s.order[k] as usize;
                if place(s, &self.jobs, cpu, &path, limit, now) {
                    s.util[cpu] = s.util[cpu].saturating_add(util);
                    for &p in &path {
                        s.placed[p] = true;
                    }
                    // Keep `order` sorted by (utilization, CPU): only `cpu` grew.
                    let mut j = k;
                    while j + 1 < m {
                        let (a, b) = (s.order[j] as usize, s.order[j + 1] as usize);
                        if (s.util[b], b) >= (s.util[a], a) {
                            break;
                        }
                        s.order.swap(j, j + 1);
                        j += 1;
                    }
                    break;
                }
            }
        }
        self.scratch.units = units;
        self.scratch.path = path;
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
