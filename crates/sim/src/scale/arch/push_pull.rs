//! `push-pull`: SCHED_DEADLINE's global EDF by per-CPU run queues, wake-up placement, push
//! and pull (Linux `kernel/sched/deadline.c`: `select_task_rq_dl`, `find_later_rq`,
//! `push_dl_task`, `find_lock_later_rq`, `pull_dl_task`, `double_lock_balance`,
//! `DL_MAX_TRIES`; `kernel/sched/cpudeadline.c`: `cpudl_find`, `cpudl_set`; read, not
//! copied), the SD of [MP §IV, Figs. 6–7]. The policy simulator runs `sd`
//! (`schedlab_policy::sd`, the same protocol at the decision level); this file adds what its
//! doc lists as "not modelled": the locks, the lookups, the retries.
//!
//! # Locks
//! Each CPU's run queue has a lock (ticket by default, like the kernel's raw spinlocks;
//! `--lock mcs` switches them); the cpudl max-heap has one global lock (`cpudl_set` takes
//! `cp->lock`), the one point every CPU serialises on. Two run queues are locked in CPU-index
//! order (`double_lock_balance`: holding `x`, to lock `y < x` it drops `x`, locks `y`, then
//! `x` again).
//!
//! # Paths (`q_c` = jobs waiting on CPU `c`, `cpudl(m) = cpudl + cpudl_log·bits(m)`)
//! - **Wake-up** of a released job at `t` on `h`, its task's previous CPU (the task's timer
//!   fires where it slept): Δev as the other architectures; Δrel = `release`, a `cpudl(m)`
//!   lookup (`find_later_rq`) unless it stays on `h`, `Lock(x)` of the target run queue `x`,
//!   `qop(q_x)` enqueue, `link` (`check_preempt_curr_dl`), a cpudl update under the cpudl
//!   lock if it runs (the queue's earliest deadline changed), `Unlock(x)`, and `ipi_send` +
//!   an IPI to `x ≠ h` if it preempts there (`resched_curr`).
//! - **Schedule** on a CPU `x` whose job changed (after its own wake-up handler, on an IPI,
//!   or at a completion): Δsch = `Lock(x)`, `schedule + link + qop(q_x)` (pick the next,
//!   requeue a preempted one), a cpudl update, then:
//!   - **push** of each job it displaced that runs elsewhere, `y` (`push_dl_task`): a
//!     `cpudl(m)` lookup, the double lock of `x` and `y`, `2·qop` to move it, a cpudl update,
//!     `ipi_send` + an IPI to `y` (whose own schedule may push on: chains follow the policy's
//!     pushes). **Retries**: when an earlier wake-up or push of the same instant targeted `y`,
//!     `y`'s earliest deadline has changed by the time this push holds both locks, so
//!     `find_lock_later_rq` drops `y` and looks again — one more lookup and double lock per
//!     earlier claimant, at most `DL_MAX_TRIES = 3` tries; past them the push gives up
//!     (counted; the schedule stays the policy's: one-way coupling);
//!   - **pull** (`pull_dl_task`, when its job completed): a scan of the overloaded CPUs
//!     (`dlo_mask`: one `cache_line` read of each one's earliest waiting deadline); if the
//!     job it switches to waited on another CPU `y`: the double lock, `2·qop`, two cpudl
//!     updates.
//!   - `Unlock(x)`; Δcxs if a job is switched in.
//!
//! Cost per instant: `O(k + changes + overloaded CPUs)` steps.

use super::{context_switch, ipi_received, timer_entry, ArchModel};
use crate::scale::feed::{Change, Instant, Mirror, Src};
use crate::scale::machine::{Costs, Machine, Step};
use crate::scale::stats::Span;

/// `DL_MAX_TRIES` of deadline.c.
pub(crate) const DL_MAX_TRIES: u64 = 3;

/// The model.
pub(crate) struct PushPull {
    /// The cpudl lock (after the `m` run-queue locks).
    cpudl_lock: u32,
    /// Per CPU: wake-ups or pushes that targeted it in this instant so far.
    claims: Vec<u64>,
    /// Per CPU: its schedule path has been built in this instant.
    built: Vec<bool>,
    retries: u64,
    gave_up: u64,
    pushes: u64,
    pulls: u64,
}

impl PushPull {
    pub(crate) fn new(cpus: u32) -> PushPull {
        PushPull {
            cpudl_lock: cpus,
            claims: vec![0; cpus as usize],
            built: vec![false; cpus as usize],
            retries: 0,
            gave_up: 0,
            pushes: 0,
            pulls: 0,
        }
    }

    fn cpudl_update(&self, s: &mut Vec<Step>, c: &Costs, m: u64) {
        s.extend([
            Step::Lock(self.cpudl_lock),
            Step::Work(c.cpudl_op(m)),
            Step::Unlock(self.cpudl_lock),
        ]);
    }

    /// Holding `x`'s lock, takes `y`'s too, in CPU-index order (`double_lock_balance`).
    fn double_lock(s: &mut Vec<Step>, x: u32, y: u32) {
        if y < x {
            s.extend([Step::Unlock(x), Step::Lock(y), Step::Lock(x)]);
        } else {
            s.push(Step::Lock(y));
        }
    }

    fn claim(&mut self, cpu: u32) -> u64 {
        match self.claims.get_mut(cpu as usize) {
            Some(k) => {
                *k += 1;
                *k - 1
            }
            None => 0,
        }
    }

    /// The schedule path of `x` (built once per instant; pushes build their targets first).
    fn sched_path(
        &mut self,
        x: u32,
        inst: &Instant,
        mir: &Mirror,
        m: &mut Machine,
        by_ipi: bool,
    ) -> Option<u32> {
        let slot = self.built.get_mut(x as usize)?;
        if *slot {
            return None;
        }
        *slot = true;
        let c = m.costs;
        let mm = mir.running.len() as u64;
        let ch: Change = *inst.changes.iter().find(|ch| ch.cpu == x)?;
        let q = |cpu: u32| mir.queued.get(cpu as usize).copied().unwrap_or(0);
        let mut s = Vec::with_capacity(24);
        if by_ipi {
            ipi_received(&mut s);
        }
        s.extend([
            Step::Begin(Span::Schedule),
            Step::Lock(x),
            Step::Work(c.schedule + c.link + c.qop(q(x))),
        ]);
        self.cpudl_update(&mut s, &c, mm);
        // Pushes of the job it displaced (the policy moved it to `y`).
        let pushed: Vec<u32> = inst
            .changes
            .iter()
            .filter(|d| d.src == Src::Preempted(x))
            .map(|d| d.cpu)
            .collect();
        for y in pushed {
            self.pushes += 1;
            let earlier = self.claim(y);
            let tries = (earlier + 1).min(DL_MAX_TRIES);
            self.retries += tries - 1;
            for _ in 0..tries {
                s.push(Step::Work(c.cpudl_op(mm)));
                PushPull::double_lock(&mut s, x, y);
                s.extend([Step::Work(c.cache_line), Step::Unlock(y)]);
            }
            if earlier + 1 > DL_MAX_TRIES {
                self.gave_up += 1;
                continue;
            }
            // The last try succeeded: move it, update cpudl, kick `y`.
            s.pop();
            s.push(Step::Work(2 * c.qop(q(y))));
            self.cpudl_update(&mut s, &c, mm);
            s.push(Step::Unlock(y));
            if let Some(next) = self.sched_path(y, inst, mir, m, true) {
                s.extend([Step::Work(c.ipi_send), Step::Ipi(next)]);
            }
        }
        // A pull after a completion: scan the overloaded CPUs, take the job from its queue.
        if inst.completed.iter().any(|&(cpu, _)| cpu == x) {
            let overloaded = mir
                .queued
                .iter()
                .enumerate()
                .filter(|&(i, &n)| n > 0 && i != x as usize)
                .count() as u64;
            s.push(Step::Work(overloaded * c.cache_line));
            if let Src::Waiting(Some(y)) = ch.src {
                if y != x {
                    self.pulls += 1;
                    PushPull::double_lock(&mut s, x, y);
                    s.push(Step::Work(2 * c.qop(q(y))));
                    self.cpudl_update(&mut s, &c, mm);
                    self.cpudl_update(&mut s, &c, mm);
                    s.push(Step::Unlock(y));
                }
            }
        }
        s.extend([Step::Unlock(x), Step::End(Span::Schedule)]);
        if ch.new.is_some() {
            context_switch(&mut s, c.context_switch);
        }
        Some(m.path(x, &s))
    }
}

impl ArchModel for PushPull {
    fn instant(&mut self, inst: &Instant, mir: &Mirror, m: &mut Machine) {
        let c = m.costs;
        let t = inst.t;
        let mm = mir.running.len() as u64;
        for k in &mut self.claims {
            *k = 0;
        }
        for ch in &inst.changes {
            if let Some(b) = self.built.get_mut(ch.cpu as usize) {
                *b = false;
            }
        }
        let q = |cpu: u32| mir.queued.get(cpu as usize).copied().unwrap_or(0);
        let completed = |cpu: u32| inst.completed.iter().any(|&(x, _)| x == cpu);
        for &task in &inst.released {
            let h = mir.home(task);
            let placed = inst
                .changes
                .iter()
                .find(|ch| ch.new == Some(task) && ch.src == Src::Released)
                .map(|ch| ch.cpu);
            let x = placed.unwrap_or(h);
            self.claim(x);
            let mut s = Vec::with_capacity(24);
            timer_entry(&mut s, c.timer_irq);
            s.push(Step::Work(c.release));
            if x != h || placed.is_none() {
                s.push(Step::Work(c.cpudl_op(mm)));
            }
            s.extend([Step::Lock(x), Step::Work(c.qop(q(x)) + c.link)]);
            if placed.is_some() {
                self.cpudl_update(&mut s, &c, mm);
            }
            s.push(Step::Unlock(x));
            let mut local = None;
            if placed.is_some() && !completed(x) {
                if x == h {
                    local = self.sched_path(x, inst, mir, m, false);
                } else if let Some(next) = self.sched_path(x, inst, mir, m, true) {
                    s.extend([Step::Work(c.ipi_send), Step::Ipi(next)]);
                }
            }
            s.push(Step::End(Span::Release));
            let p = m.path(h, &s);
            m.timer(p, t);
            if let Some(l) = local {
                // Right after its own handler, on the same CPU.
                m.submit(l, t, t);
            }
        }
        for ch in &inst.changes {
            if let Some(p) = self.sched_path(ch.cpu, inst, mir, m, false) {
                m.submit(p, t, t);
            }
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("pushes", self.pushes),
            ("push_retries", self.retries),
            ("push_gave_up", self.gave_up),
            ("pulls", self.pulls),
        ]
    }
}
