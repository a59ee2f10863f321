//! P-DASA [ChronOS §6.15, Algorithm 5; Clark 1990, "Scheduling Dependent Real-Time
//! Activities", CMU PhD thesis]: Clark's dependent activity scheduling algorithm, one instance
//! per CPU; without resources it is DASA-ND, exactly Algorithm 5.
//!
//! At every scheduling event, after the past-deadline aborts of [`super::pool`]:
//! 1. **Deadlocks** (only if the system has resources): the dependency chain of every blocked
//!    job (`ctx.blocker` repeatedly) is followed; a chain that returns to one of its jobs is a
//!    deadlock cycle, resolved by aborting one job of it — Clark's rule, the job whose abort
//!    loses the least potential utility density. Every member of a cycle depends on all the
//!    others, so their chain PUDs are equal; the tie is broken by the member's own LVD (the
//!    lowest goes; ties: the last in the one order of [`crate::prio`]). Non-abortable members
//!    are never chosen (a cycle of non-abortable jobs stays deadlocked: the task set's
//!    problem). Repeated until no cycle is left (each pass aborts one job).
//! 2. **Potential utility density** (PUD) of each job: the utility of the job and of every
//!    job of its dependency chain over their total remaining execution (Clark §4.2); with no
//!    dependencies it is the job's LVD ([`super::Density`]). A job of the chain that belongs to
//!    another CPU ends the chain (that CPU's policy runs it).
//! 3. In decreasing PUD order (ties: task index, then seq), each job not yet scheduled is
//!    tentatively inserted into the critical-time-ordered schedule together with its chain; a
//!    dependency goes in at `min(its critical time, that of the job it blocks)` so that it
//!    completes ahead of its dependent (an already scheduled dependency moves up if needed).
//!    The tentative schedule is kept if every job completes by its (effective) critical time
//!    run back to back from now ([`super::feasible`]), else discarded.
//! 4. The head of the schedule runs (a blocked head runs its chain's end, [`super::uni`]);
//!    the linked job stays if it has the head's effective critical time (equal-key rule).
//!
//! Underload: every job is kept, so the head is the earliest critical time with the EDF tie
//! and equal-key rules of [`crate::prio`]: on feasible sets P-DASA's schedule is P-EDF's.
//!
//! Complexity per event for the n jobs of a CPU: O(n log n) to order by PUD, then O(n) per
//! tentative insertion and check, O(n²) in all without resources — Table 6.3's O(n²)
//! scheduling, met; with dependency chains of length ≤ c, O(n·c) more for the chains and
//! O(n²·c) for the insertions. Insertion into the runqueue O(n), met. Buffers are reused: no
//! allocation per event once grown.

use super::pool::{abortable, Pool, UaJob};
use super::uni::UniSelect;
use super::{by_critical_time, by_density_desc, feasible, Density};
use crate::event::{Ctx, Decisions};
use crate::ids::JobId;
use crate::task::PolicyTask;
use schedlab_model::Time;
use std::cmp::Ordering;

/// A job in a (tentative) schedule: its effective critical time and pool index.
#[derive(Clone, Copy, Debug)]
struct Slot {
    eff: Time,
    idx: usize,
}

/// The DASA selection (module doc).
#[derive(Clone, Debug, Default)]
pub struct Dasa {
    /// Reused: pool indices in decreasing PUD order.
    order: Vec<usize>,
    /// Reused: PUD by pool index.
    pud: Vec<Density>,
    /// Reused: the schedule and a tentative copy.
    sched: Vec<Slot>,
    tent: Vec<Slot>,
    /// Reused: a dependency chain (pool indices, nearest dependency first).
    chain: Vec<usize>,
}

impl Dasa {
    /// A DASA selector.
    pub fn new() -> Dasa {
        Dasa::default()
    }

    /// Fills `self.chain` with the dependency chain of job `i` (excluding `i`): the owner of
    /// what it waits for, that job's owner, …, up to a job that is not blocked. Returns
    /// `Some(k)` if the chain runs into a cycle whose first member is `chain[k]` (or `i`
    /// itself, `k = usize::MAX`), `None` otherwise.
    fn fill_chain(&mut self, ctx: &Ctx<'_>, pool: &Pool, i: usize) -> Option<usize> {
        self.chain.clear();
        let mut at = i;
        for _ in 0..pool.jobs.len() {
            let job = pool.jobs.get(at)?;
            if !job.blocked {
                return None;
            }
            let next = pool.position(ctx.blocker(job.info.id)?)?;
            if next == i {
                return Some(usize::MAX);
            }
            if let Some(k) = self.chain.iter().position(|&c| c == next) {
                return Some(k);
            }
            self.chain.push(next);
            at = next;
        }
        None
    }

    /// Step 1 of the module doc: aborts one job per deadlock cycle until none is left.
    fn resolve_deadlocks(
        &mut self,
        ctx: &Ctx<'_>,
        tasks: &[PolicyTask],
        pool: &mut Pool,
        out: &mut Decisions,
    ) {
        let mut i = 0;
        while i < pool.jobs.len() {
            let cycle = self.fill_chain(ctx, pool, i);
            let members: &[usize] = match cycle {
                Some(usize::MAX) => &self.chain,
                Some(k) => self.chain.get(k..).unwrap_or(&[]),
                None => &[],
            };
            let extra = (cycle == Some(usize::MAX)).then_some(i);
            let victim = members
                .iter()
                .copied()
                .chain(extra)
                .filter_map(|m| pool.jobs.get(m))
                .filter(|j| abortable(tasks, j.info.id))
                .max_by(|a, b| by_density_desc((&a.density, &a.info), (&b.density, &b.info)))
                .map(|j| j.info.id);
            match victim {
                Some(id) => {
                    pool.remove(id);
                    out.abort(id);
                    i = 0; // chains changed: look again from the start
                }
                None => i += 1,
            }
        }
    }

    /// Inserts `slot` into `tent` at its (effective critical time, task, seq) position, or
    /// moves it up if the job is there with a later effective critical time.
    fn place(tent: &mut Vec<Slot>, jobs: &[UaJob], slot: Slot) {
        let Some(job) = jobs.get(slot.idx) else {
            return;
        };
        if let Some(p) = tent.iter().position(|s| s.idx == slot.idx) {
            if tent.get(p).is_some_and(|s| s.eff <= slot.eff) {
                return;
            }
            tent.remove(p);
        }
        let at = tent.partition_point(|s| {
            jobs.get(s.idx).is_some_and(|o| {
                by_critical_time((s.eff, &o.info), (slot.eff, &job.info)) == Ordering::Less
            })
        });
        tent.insert(at, slot);
    }
}

impl UniSelect for Dasa {
    fn select(
        &mut self,
        ctx: &Ctx<'_>,
        tasks: &[PolicyTask],
        pool: &mut Pool,
        current: Option<JobId>,
        out: &mut Decisions,
    ) -> Option<JobId> {
        let deps = ctx.resources.any();
        if deps {
            self.resolve_deadlocks(ctx, tasks, pool, out);
        }
        // Step 2: PUDs.
        self.pud.clear();
        for i in 0..pool.jobs.len() {
            let own = pool.jobs.get(i).map(|j| j.density);
            let mut pud = own.unwrap_or(Density {
                value: 0.0,
                remaining: 0,
            });
            if deps {
                self.fill_chain(ctx, pool, i);
                for d in self.chain.iter().filter_map(|&d| pool.jobs.get(d)) {
                    pud.value += d.density.value;
                    pud.remaining = pud.remaining.saturating_add(d.density.remaining);
                }
            }
            self.pud.push(pud);
        }
        // Step 3: decreasing PUD, tentative insertions.
        self.order.clear();
        self.order.extend(0..pool.jobs.len());
        let (jobs, pud) = (&pool.jobs, &self.pud);
        self.order.sort_unstable_by(|&a, &b| {
            by_density_desc((&pud[a], &jobs[a].info), (&pud[b], &jobs[b].info))
        });
        for j in &mut pool.jobs {
            j.mark = false;
        }
        self.sched.clear();
        for k in 0..self.order.len() {
            let Some(&i) = self.order.get(k) else { break };
            if pool.jobs.get(i).is_none_or(|j| j.mark) {
                continue;
            }
            if deps {
                self.fill_chain(ctx, pool, i);
            } else {
                self.chain.clear();
            }
            self.tent.clear();
            self.tent.extend_from_slice(&self.sched);
            let mut eff = pool.jobs.get(i).map_or(Time::ZERO, |j| j.crit);
            Self::place(&mut self.tent, &pool.jobs, Slot { eff, idx: i });
            for &d in &self.chain {
                eff = pool.jobs.get(d).map_or(eff, |j| j.crit.min(eff));
                Self::place(&mut self.tent, &pool.jobs, Slot { eff, idx: d });
            }
            let jobs = &pool.jobs;
            let ok = feasible(
                ctx.now,
                self.tent
                    .iter()
                    .filter_map(|s| jobs.get(s.idx).map(|j| (s.eff, j.rem))),
            );
            if ok {
                std::mem::swap(&mut self.sched, &mut self.tent);
                for &m in self.chain.iter().chain(std::iter::once(&i)) {
                    if let Some(j) = pool.jobs.get_mut(m) {
                        j.mark = true;
                    }
                }
            }
        }
        // Step 4: the head, or the linked job on an equal effective critical time.
        let head = self.sched.first()?;
        let keep = current.and_then(|c| {
            self.sched
                .iter()
                .find(|s| pool.jobs.get(s.idx).is_some_and(|j| j.info.id == c))
                .filter(|s| s.eff == head.eff)
        });
        pool.jobs.get(keep.unwrap_or(head).idx).map(|j| j.info.id)
    }
}
