//! `global-lock` (GSN-EDF [MP §IV], ChronOS's stop-the-world scheduling [ChronOS §7]) and
//! `global-lock-di` (GSN-EDF-DI: CPU 0 takes every release interrupt and runs no jobs): one
//! lock (ticket or MCS, [ChronOS Figs. 7.1–7.2]) guards the ready queue, the release queue
//! and the CPU→job links; every CPU schedules for the system under it.
//!
//! # Paths (`q` = ready-queue length, `n` = tasks (the release queue), `m_j` = CPUs running
//! jobs, `pcc` = `preempt_check_cpu`)
//! - **Release** of the `k` jobs whose timers expire at `t` on CPU `h` (the task's previous
//!   CPU, or `task mod m_j` before its first run; CPU 0 under `-di`): one handler, as
//!   LITMUS^RT merges equal release times into one heap. Δev: `t` → handler start
//!   (`timer_irq` after the CPU is free). Δrel: `Lock`, then
//!   `Σ_k (release + qop(n) + qop(q + i)) + (ℓ + 1)·m_j·pcc + Σ_ℓ (link + qop(q'))` for the
//!   `ℓ` CPUs its jobs are linked to (`q'`: the queue's length before each removal) (a preemption check per link plus the final one), then
//!   `ipi_send` + an IPI to each linked CPU but `h`, `Unlock`.
//! - **Schedule** on a CPU whose link changed: by an IPI (Δipi: send → start), after its own
//!   release handler, or at a completion. Δsch: `Lock`, `schedule + link` (a completion
//!   also `m_j·pcc` for its preemption check and `qop(q)` to take the next job), `Unlock`.
//!   Then Δcxs (`context_switch`) if a job is switched in.
//!
//! `qop(x) = queue_op + queue_op_log·bits(x)`; a holder other than the lock's last one adds
//! `cache_line` (machine module doc). Assumption (module [`crate::scale`]): the overlay does
//! not move the schedule. Cost per instant: `O(k + changes)` steps.

use super::{context_switch, ipi_received, timer_entry, ArchModel};
use crate::scale::feed::{Instant, Mirror, Src};
use crate::scale::machine::{Machine, Step};
use crate::scale::stats::Span;

const LOCK: u32 = 0;

/// The model.
pub(crate) struct GlobalLock {
    /// CPU 0 takes the release interrupts and runs no jobs.
    di: bool,
    /// Scratch: (handler CPU, task) of the instant's releases.
    handlers: Vec<(u32, u32)>,
    steps: Vec<Step>,
}

impl GlobalLock {
    pub(crate) fn new(di: bool) -> GlobalLock {
        GlobalLock {
            di,
            handlers: Vec::new(),
            steps: Vec::new(),
        }
    }

    /// Δsch's steps for a CPU that only follows its new link.
    fn follow(steps: &mut Vec<Step>, m: &Machine, switch_in: bool) {
        let c = m.costs;
        steps.extend([
            Step::Begin(Span::Schedule),
            Step::Lock(LOCK),
            Step::Work(c.schedule + c.link),
            Step::Unlock(LOCK),
            Step::End(Span::Schedule),
        ]);
        if switch_in {
            context_switch(steps, c.context_switch);
        }
    }
}

impl ArchModel for GlobalLock {
    fn instant(&mut self, inst: &Instant, mir: &Mirror, m: &mut Machine) {
        let c = m.costs;
        let t = inst.t;
        let off = u32::from(self.di);
        let mj = mir.running.len() as u64;
        let n = mir.tasks;
        let mut q = mir.ready();
        self.handlers.clear();
        for &task in &inst.released {
            let h = if self.di { 0 } else { mir.home(task) };
            self.handlers.push((h, task));
        }
        self.handlers.sort_unstable();
        let completed = |cpu: u32| inst.completed.iter().any(|&(c, _)| c == cpu);
        let mut i = 0;
        while i < self.handlers.len() {
            let h = self.handlers[i].0;
            let mut j = i;
            let mut work = 0;
            while j < self.handlers.len() && self.handlers[j].0 == h {
                work += c.release + c.qop(n) + c.qop(q);
                q += 1;
                j += 1;
            }
            let mine = |task: u32| self.handlers[i..j].iter().any(|&(_, t)| t == task);
            let mut targets: Vec<(u32, bool)> = Vec::new();
            for ch in &inst.changes {
                if let (Some(new), Src::Released) = (ch.new, ch.src) {
                    if mine(new) && !completed(ch.cpu) {
                        targets.push((ch.cpu + off, true));
                    }
                }
            }
            work += (targets.len() as u64 + 1) * mj * c.preempt_check_cpu;
            for _ in &targets {
                work += c.link + c.qop(q);
                q = q.saturating_sub(1);
            }
            let mut steps = std::mem::take(&mut self.steps);
            steps.clear();
            timer_entry(&mut steps, c.timer_irq);
            steps.extend([Step::Lock(LOCK), Step::Work(work)]);
            let mut local = false;
            for &(x, switch_in) in &targets {
                if x == h + off && !self.di {
                    local = true;
                    continue;
                }
                let mut s = vec![];
                ipi_received(&mut s);
                GlobalLock::follow(&mut s, m, switch_in);
                let next = m.path(x, &s);
                steps.extend([Step::Work(c.ipi_send), Step::Ipi(next)]);
            }
            steps.extend([Step::Unlock(LOCK), Step::End(Span::Release)]);
            if local {
                GlobalLock::follow(&mut steps, m, true);
            }
            let hp = if self.di { 0 } else { h + off };
            let p = m.path(hp, &steps);
            m.timer(p, t);
            self.steps = steps;
            i = j;
        }
        for ch in &inst.changes {
            let released_target = matches!(ch.src, Src::Released)
                && !completed(ch.cpu)
                && ch.new.is_some_and(|x| inst.released.contains(&x));
            if released_target {
                continue;
            }
            let mut steps = std::mem::take(&mut self.steps);
            steps.clear();
            if completed(ch.cpu) {
                let take = if ch.new.is_some() {
                    let cost = c.qop(q);
                    q = q.saturating_sub(1);
                    cost
                } else {
                    0
                };
                steps.extend([
                    Step::Begin(Span::Schedule),
                    Step::Lock(LOCK),
                    Step::Work(c.schedule + c.link + mj * c.preempt_check_cpu + take),
                    Step::Unlock(LOCK),
                    Step::End(Span::Schedule),
                ]);
                if ch.new.is_some() {
                    context_switch(&mut steps, c.context_switch);
                }
            } else {
                GlobalLock::follow(&mut steps, m, ch.new.is_some());
            }
            let p = m.path(ch.cpu + off, &steps);
            m.submit(p, t, t);
            self.steps = steps;
        }
    }
}
