//! The FP-TS task-splitting assignment [RTPS §III] (after Guan, Stigge, Yi & Yu,
//! "Fixed-Priority Multiprocessor Scheduling with Liu & Layland's Utilization Bound", RTAS
//! 2010, whose SPA algorithms it turns into an exact-RTA heuristic).
//!
//! **Algorithm.** Tasks are taken in *increasing* priority order. Each goes to the CPU with the
//! least assigned utilization (ties: the lowest index) among the CPUs that are still open and
//! that the task does not use yet:
//! - if every part on that CPU, the task included, still passes exact response-time analysis,
//!   the task (or what is left of it) is placed there whole — it is then a *tail* if earlier
//!   parts exist;
//! - otherwise the task is split: the largest budget `b < remaining` with which every part on
//!   the CPU still passes is placed there as a *head* (first part) or *body*, found by binary
//!   search over integer nanoseconds (the test is monotone in `b`: a larger budget only adds
//!   interference), and the rest `remaining − b` moves on to the next CPU. A CPU that admits no
//!   budget at all (`b = 0`) is skipped for this task. A task left with no CPU fails the set.
//!
//! **Why the test is sound: synthetic deadlines.** A part cannot start before its predecessor
//! finished (Fig. 1(b)), so part `q` is released `Σ_{p<q} R_p` after the job at the latest,
//! and must finish within `D − Σ_{p<q} R_p` (its *synthetic deadline*). Guan et al. make
//! `R_p` exact and jitter-free by keeping every head and body at the *highest* priority on its
//! CPU: tasks arrive in increasing priority order, so a part is the highest-priority part of
//! its CPU when it is placed, and a CPU that received a head or body is *closed* — it takes no
//! further tasks (SPA2's "full" processors). Then `R_head = b_head` exactly (plus its charged
//! overheads), the next part is released at a fixed offset, and the tail is analysed as a
//! periodic task with deadline `D − Σ_{p<tail} R_p`. Under rate/deadline-monotonic priorities
//! of implicit-deadline sets the closing never changes the outcome — after a maximal split on
//! a CPU, any later task (period ≤ the split task's, WCET ≥ 1 ns) adds at least the 1 ns per
//! job that made `b + 1` fail, so no budget of a later task fits there anyway — but under
//! `--priorities given` or constrained deadlines it is what keeps the synthetic deadlines
//! sound. [RTPS §III] describes the algorithm without stating the closing; [RTPS] inherits
//! it from Guan et al.'s analysis, which this module follows.
//!
//! **Overheads.** Every part's cost is its budget plus [`Costs::extra`] of its site and of the
//! number of split tasks per CPU, so every trial re-charges: a trial that adds a part of a
//! split task re-verifies every CPU (split counts change the ready-queue charges of other
//! CPUs' parts), a whole task only its own CPU. While a task is being split, its last part
//! sends to the next CPU the algorithm will try; when the rest lands elsewhere the parts are
//! re-charged and re-verified with the real destination (sound; a rare case where the split
//! is then smaller than it could have been).
//!
//! **Complexity.** `O(n·m)` placement trials plus, per split, `O(log C)` trials; each trial an
//! exact RTA of the CPU's parts (pseudo-polynomial), or of every CPU when split counts change
//! under overheads. All RTA work draws on one [`Budget`].

use super::costs::{Costs, CpuFacts, Site};
use super::split::{PartKind, SemiAssignment, SplitPart, SplitTask};
use crate::system::Params;
use crate::uni::rta;
use crate::util::budget::Budget;
use schedlab_model::exact::{cmp_sum, Frac};
use std::cmp::Ordering;

/// A part of a task placed on a CPU: `(task, index of the part in the task)`.
type Piece = (usize, usize);

/// The state of an assignment in progress.
pub(crate) struct Assignment<'a> {
    params: &'a [Params],
    ranks: &'a [u32],
    costs: &'a dyn Costs,
    /// Per CPU, its pieces.
    on_cpu: Vec<Vec<Piece>>,
    /// Per CPU: it hosts a head or body and takes no more tasks.
    closed: Vec<bool>,
    /// Per task, `(cpu, budget)` of its parts in execution order.
    parts: Vec<Vec<(usize, u64)>>,
    /// Per task: completely placed.
    complete: Vec<bool>,
    /// The task being split and the CPU its rest will be tried on first.
    pending: Option<(usize, usize)>,
    /// RTA work of the whole assignment.
    pub(crate) budget: Budget,
    /// Why an RTA gave up, the first time one did.
    pub(crate) gave_up: Option<String>,
}

/// Why an assignment failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// This task (or its rest) fitted on no CPU.
    NoFit(usize),
}

/// The charged parameters and synthetic deadline of one piece.
#[derive(Clone, Copy, Debug)]
struct Charged {
    cost: u64,
    deadline: u64,
}

impl<'a> Assignment<'a> {
    /// An empty assignment of the tasks `params` (ranks: 0 = highest priority) on `m` CPUs.
    pub(crate) fn new(
        params: &'a [Params],
        ranks: &'a [u32],
        costs: &'a dyn Costs,
        m: usize,
        limit: u64,
    ) -> Assignment<'a> {
        Assignment {
            params,
            ranks,
            costs,
            on_cpu: vec![Vec::new(); m],
            closed: vec![false; m],
            parts: vec![Vec::new(); params.len()],
            complete: vec![false; params.len()],
            pending: None,
            budget: Budget::new(limit),
            gave_up: None,
        }
    }

    fn m(&self) -> usize {
        self.on_cpu.len()
    }

    /// Is `task` split (or being split)?
    fn is_split(&self, task: usize) -> bool {
        let n = self.parts.get(task).map_or(0, Vec::len);
        n > 1 || (n == 1 && !self.complete.get(task).copied().unwrap_or(true))
    }

    /// Split tasks hosted per CPU (the task being split counts on its pending destination).
    fn split_counts(&self) -> Vec<u32> {
        let mut k = vec![0u32; self.m()];
        for (task, parts) in self.parts.iter().enumerate() {
            if !self.is_split(task) {
                continue;
            }
            for &(cpu, _) in parts {
                if let Some(slot) = k.get_mut(cpu) {
                    *slot += 1;
                }
            }
        }
        if let Some((_, dest)) = self.pending {
            if let Some(slot) = k.get_mut(dest) {
                *slot += 1;
            }
        }
        k
    }

    /// Split counts, largest working sets and part counts per CPU.
    fn facts(&self) -> Facts {
        let m = self.m();
        let mut max_wss = vec![0u64; m];
        let mut pieces = vec![0usize; m];
        for (cpu, list) in self.on_cpu.iter().enumerate() {
            if let (Some(w), Some(n)) = (max_wss.get_mut(cpu), pieces.get_mut(cpu)) {
                *w = list
                    .iter()
                    .map(|&(t, _)| self.costs.wss(t))
                    .max()
                    .unwrap_or(0);
                *n = list.len();
            }
        }
        Facts {
            splits: self.split_counts(),
            max_wss,
            pieces,
        }
    }

    fn kind(&self, task: usize, part: usize) -> PartKind {
        let count = self.parts.get(task).map_or(0, Vec::len);
        PartKind::of(
            part,
            count,
            self.complete.get(task).copied().unwrap_or(false),
        )
    }

    /// Charged cost and synthetic deadline of every part of `task` (rounded to the costs'
    /// granularity: costs up, deadlines down).
    fn charge_task(&self, task: usize, facts: &Facts) -> Vec<Charged> {
        let g = self.costs.granularity().max(1);
        let view = facts.view();
        let Some(p) = self.params.get(task) else {
            return Vec::new();
        };
        let parts = self.parts.get(task).map_or(&[][..], Vec::as_slice);
        let head = parts.first().map_or(0, |&(c, _)| c);
        let mut before = 0u64;
        let mut out = Vec::with_capacity(parts.len());
        for (q, &(cpu, budget)) in parts.iter().enumerate() {
            let next = match parts.get(q + 1) {
                Some(&(c, _)) => Some(c),
                None => self
                    .pending
                    .filter(|&(t, _)| t == task)
                    .map(|(_, dest)| dest),
            };
            let site = Site {
                kind: self.kind(task, q),
                own: cpu,
                next,
                head,
            };
            let cost = budget
                .saturating_add(self.costs.extra(&site, &view))
                .div_ceil(g)
                .saturating_mul(g);
            out.push(Charged {
                cost,
                // A synthetic deadline at or below zero: nothing can meet it.
                deadline: p.d.saturating_sub(before) / g * g,
            });
            before = before.saturating_add(cost);
        }
        out
    }

    /// The pieces of `cpu` as RTA rows `(rank, task, charged params)`, highest priority first.
    fn rows(&self, cpu: usize, facts: &Facts) -> Vec<(u32, usize, Params)> {
        let g = self.costs.granularity().max(1);
        let mut rows: Vec<(u32, usize, Params)> = Vec::new();
        for &(task, part) in self.on_cpu.get(cpu).map_or(&[][..], Vec::as_slice) {
            let (Some(p), Some(ch)) = (
                self.params.get(task),
                self.charge_task(task, facts).get(part).copied(),
            ) else {
                continue;
            };
            let rank = self.ranks.get(task).copied().unwrap_or(u32::MAX);
            rows.push((
                rank,
                task,
                Params {
                    c: ch.cost,
                    d: ch.deadline,
                    t: p.t / g * g,
                    prio: p.prio,
                },
            ));
        }
        rows.sort_by_key(|&(rank, task, _)| (rank, task));
        rows
    }

    /// Does every piece on `cpu` meet its (synthetic) deadline?
    fn passes(&mut self, cpu: usize, facts: &Facts) -> bool {
        let ps: Vec<Params> = self
            .rows(cpu, facts)
            .into_iter()
            .map(|(_, _, p)| p)
            .collect();
        if ps.iter().any(|p| p.c > p.d || p.d == 0 || p.t == 0) {
            return false;
        }
        match rta::fp_feasible_from_budget(&ps, 0, &mut self.budget) {
            crate::uni::Outcome::Schedulable => true,
            crate::uni::Outcome::Unschedulable => false,
            crate::uni::Outcome::GaveUp(r) => {
                self.gave_up.get_or_insert(r);
                false
            }
        }
    }

    /// Verifies the CPUs a change on `cpu` can affect: with overheads and a split task
    /// involved, every CPU (ready-queue charges depend on split counts elsewhere); else `cpu`.
    fn verify(&mut self, cpu: usize, split_involved: bool) -> bool {
        let facts = self.facts();
        if self.costs.is_zero() || !split_involved {
            return self.passes(cpu, &facts);
        }
        (0..self.m())
            .all(|c| self.on_cpu.get(c).is_none_or(Vec::is_empty) || self.passes(c, &facts))
    }

    fn push(&mut self, task: usize, cpu: usize, budget: u64) {
        let part = self.parts.get(task).map_or(0, Vec::len);
        if let (Some(list), Some(parts)) = (self.on_cpu.get_mut(cpu), self.parts.get_mut(task)) {
            list.push((task, part));
            parts.push((cpu, budget));
        }
    }

    fn pop(&mut self, task: usize, cpu: usize) {
        if let (Some(list), Some(parts)) = (self.on_cpu.get_mut(cpu), self.parts.get_mut(task)) {
            list.pop();
            parts.pop();
        }
    }

    fn set_complete(&mut self, task: usize, value: bool) {
        if let Some(c) = self.complete.get_mut(task) {
            *c = value;
        }
    }

    /// Trial: the rest of `task` (`remaining`) whole on `cpu`; kept if it passes.
    fn try_whole(&mut self, task: usize, cpu: usize, remaining: u64) -> bool {
        self.pending = None;
        self.push(task, cpu, remaining);
        self.set_complete(task, true);
        let split = self.is_split(task);
        if self.verify(cpu, split) {
            return true;
        }
        self.pop(task, cpu);
        self.set_complete(task, false);
        false
    }

    /// Trial: a non-final part of `budget` on `cpu`, its rest going to `next`.
    fn admits_part(&mut self, task: usize, cpu: usize, budget: u64, next: usize) -> bool {
        self.pending = Some((task, next));
        self.push(task, cpu, budget);
        let ok = self.verify(cpu, true);
        self.pop(task, cpu);
        self.pending = None;
        ok
    }

    /// The largest budget `b < remaining` of a non-final part of `task` on `cpu` with which
    /// every piece there passes (0 if none does): binary search on the monotone test.
    pub(crate) fn max_part(&mut self, task: usize, cpu: usize, remaining: u64, next: usize) -> u64 {
        if remaining < 2 {
            return 0;
        }
        // Invariant: `lo` passes (0 = no part), everything above `hi` fails.
        let (mut lo, mut hi) = (0u64, remaining - 1);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.admits_part(task, cpu, mid, next) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    /// Utilization terms `cost/T` of the pieces on `cpu`.
    fn load_terms(&self, cpu: usize, facts: &Facts) -> Vec<Frac> {
        self.rows(cpu, facts)
            .iter()
            .map(|(_, _, p)| Frac::ratio(p.c, p.t))
            .collect()
    }

    /// Open CPUs not in `used`, from the least to the most loaded (ties: lower index).
    fn candidates(&self, used: &[bool]) -> Vec<usize> {
        let facts = self.facts();
        let mut loads: Vec<(usize, Vec<Frac>, f64)> = (0..self.m())
            .filter(|&c| {
                !self.closed.get(c).copied().unwrap_or(true)
                    && !used.get(c).copied().unwrap_or(true)
            })
            .map(|c| {
                let terms = self.load_terms(c, &facts);
                let approx = terms.iter().map(|f| f.to_f64()).sum();
                (c, terms, approx)
            })
            .collect();
        loads.sort_by(|a, b| cmp_loads((&a.1, a.2), (&b.1, b.2)).then(a.0.cmp(&b.0)));
        loads.into_iter().map(|(c, _, _)| c).collect()
    }

    /// Places `task` [module documentation]; `Err` when it fits nowhere.
    pub(crate) fn place(&mut self, task: usize) -> Result<(), Failure> {
        let Some(p) = self.params.get(task) else {
            return Ok(());
        };
        let mut remaining = p.c;
        let mut used = vec![false; self.m()];
        loop {
            let candidates = self.candidates(&used);
            let Some(&cpu) = candidates.first() else {
                return Err(Failure::NoFit(task));
            };
            if self.try_whole(task, cpu, remaining) {
                return Ok(());
            }
            if let Some(used) = used.get_mut(cpu) {
                *used = true;
            }
            let Some(&next) = candidates.get(1) else {
                continue; // no CPU left for a rest: no split here
            };
            let b = self.max_part(task, cpu, remaining, next);
            if b == 0 {
                continue;
            }
            self.push(task, cpu, b);
            if let Some(closed) = self.closed.get_mut(cpu) {
                *closed = true;
            }
            remaining -= b;
        }
    }

    /// Puts `task` whole on `cpu` without a test (a partition found by another heuristic).
    pub(crate) fn put_whole(&mut self, task: usize, cpu: usize) {
        self.push(task, cpu, self.params.get(task).map_or(0, |p| p.c));
        self.set_complete(task, true);
    }

    /// Do the tasks `tasks`, each whole on one CPU, pass together (an admission test of a
    /// split-free packing)?
    pub(crate) fn admits_whole_set(&mut self, tasks: impl Iterator<Item = usize>) -> bool {
        for task in tasks {
            self.put_whole(task, 0);
        }
        self.verify(0, false)
    }

    /// Places every task of `order` (increasing priority for FP-TS).
    pub(crate) fn place_all(&mut self, order: impl Iterator<Item = usize>) -> Result<(), Failure> {
        for task in order {
            self.place(task)?;
        }
        Ok(())
    }

    /// The finished assignment: per CPU the tasks it hosts (ascending), the split tasks, and
    /// every task's end-to-end response-time bound (`Σ` of its parts' response times); `None`
    /// if the final re-analysis fails (it repeats analyses that passed, so only a work limit
    /// can make it fail).
    pub(crate) fn finish(&mut self, method: &'static str) -> Option<Finished> {
        let facts = self.facts();
        let mut piece_r: Vec<Vec<u64>> = self.parts.iter().map(|p| vec![0; p.len()]).collect();
        for cpu in 0..self.m() {
            let rows = self.rows(cpu, &facts);
            let ps: Vec<Params> = rows.iter().map(|&(_, _, p)| p).collect();
            let times = rta::fp_response_times(&ps, self.budget.limit).ok()?;
            for (&(_, task, _), r) in rows.iter().zip(times) {
                let part = self
                    .on_cpu
                    .get(cpu)?
                    .iter()
                    .find(|&&(t, _)| t == task)
                    .map(|&(_, q)| q)?;
                *piece_r.get_mut(task)?.get_mut(part)? = r;
            }
        }
        let mut partition: Vec<Vec<usize>> = self
            .on_cpu
            .iter()
            .map(|l| l.iter().map(|&(t, _)| t).collect())
            .collect();
        for list in &mut partition {
            list.sort_unstable();
        }
        let split_tasks = self
            .parts
            .iter()
            .enumerate()
            .filter(|(_, parts)| parts.len() > 1)
            .map(|(task, parts)| SplitTask {
                task,
                parts: parts
                    .iter()
                    .enumerate()
                    .map(|(q, &(cpu, budget))| SplitPart {
                        cpu: u32::try_from(cpu).unwrap_or(u32::MAX),
                        budget_ns: budget,
                        kind: PartKind::of(q, parts.len(), true),
                    })
                    .collect(),
            })
            .collect();
        let response_times = piece_r
            .iter()
            .map(|rs| rs.iter().fold(0u64, |a, &r| a.saturating_add(r)))
            .collect();
        Some(Finished {
            partition,
            assignment: SemiAssignment {
                method,
                split_tasks,
            },
            response_times,
        })
    }
}

/// Per-CPU facts the costs depend on (owned; [`CpuFacts`] is the view).
struct Facts {
    splits: Vec<u32>,
    max_wss: Vec<u64>,
    pieces: Vec<usize>,
}

impl Facts {
    fn view(&self) -> CpuFacts<'_> {
        CpuFacts {
            splits: &self.splits,
            max_wss: &self.max_wss,
            pieces: &self.pieces,
        }
    }
}

/// A finished assignment.
#[derive(Clone, Debug)]
pub(crate) struct Finished {
    /// Per CPU, the tasks it hosts (split tasks on several), ascending.
    pub partition: Vec<Vec<usize>>,
    /// Method and split tasks.
    pub assignment: SemiAssignment,
    /// End-to-end response-time bound per task (ns).
    pub response_times: Vec<u64>,
}

/// Compares two CPUs' loads exactly (float filter, exact fallback).
fn cmp_loads(a: (&[Frac], f64), b: (&[Frac], f64)) -> Ordering {
    let k = (a.0.len() + b.0.len()) as f64;
    let tol = 4.0 * (k + 4.0) * f64::EPSILON * (a.1 + b.1) + f64::MIN_POSITIVE;
    if a.1 > b.1 + tol {
        return Ordering::Greater;
    }
    if a.1 + tol < b.1 {
        return Ordering::Less;
    }
    let terms = || {
        a.0.iter()
            .copied()
            .chain(b.0.iter().map(|f| Frac::new(-f.num, f.den)))
    };
    cmp_sum(terms, Frac::ZERO)
}
