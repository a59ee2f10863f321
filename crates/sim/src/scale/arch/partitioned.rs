//! `partitioned` (PSN-EDF / P-EDF [MP §IV]): one scheduler per CPU with its own lock, its
//! own ready and release queues and its tasks' release timers; no IPIs, no shared state.
//!
//! # Paths (CPU `c`: `n_c` tasks, `q_c` ready jobs; `pcc` = `preempt_check_cpu`)
//! - **Release** of the `k` jobs of CPU `c` whose timers expire at `t`: Δev: `t` → handler
//!   start (`timer_irq` once the CPU is free). Δrel: `Lock(c)`,
//!   `Σ_k (release + qop(n_c) + qop(q_c + i)) + (ℓ + 1)·pcc + ℓ·(link + qop(q'_c))`
//!   (`ℓ` = 1 if the CPU's job changes: a preemption check of the one CPU per link plus the
//!   final one, then taking the job, `q'_c` the queue's length before), `Unlock(c)`.
//!   If `ℓ` = 1 the CPU then schedules: Δsch = `Lock(c)`, `schedule + link`, `Unlock(c)`,
//!   then Δcxs (`context_switch`).
//! - **Completion** on `c`: Δsch = `Lock(c)`, `schedule + link + pcc` and `qop(q_c)` to take
//!   the next job if there is one, `Unlock(c)`; Δcxs if a job is switched in.
//!
//! So one release on an idle CPU gives exactly Δev = `timer_irq`,
//! Δrel = `lock_acquire + release + qop(n_c) + qop(0) + 2·pcc + link + qop(1)`,
//! Δsch = `lock_acquire + schedule + link`, Δcxs = `context_switch` (the lock never leaves
//! its CPU, so no `cache_line`). Cost per instant: `O(k + changes)`.

use super::{context_switch, timer_entry, ArchModel};
use crate::scale::feed::{Instant, Mirror, Src};
use crate::scale::machine::{Machine, Step};
use crate::scale::stats::Span;

/// The model.
pub(crate) struct Partitioned {
    /// Each task's CPU.
    cpu_of: Vec<u32>,
    /// Tasks per CPU (its release queue).
    tasks_on: Vec<u64>,
    /// Released, uncompleted jobs per CPU.
    live_on: Vec<u64>,
    /// Scratch: the instant's (CPU, task) releases.
    rel: Vec<(u32, u32)>,
}

impl Partitioned {
    pub(crate) fn new(cpu_of: Vec<u32>, cpus: u32) -> Partitioned {
        let mut tasks_on = vec![0; cpus as usize];
        for &c in &cpu_of {
            if let Some(n) = tasks_on.get_mut(c as usize) {
                *n += 1;
            }
        }
        Partitioned {
            cpu_of,
            tasks_on,
            live_on: vec![0; cpus as usize],
            rel: Vec::new(),
        }
    }

    fn cpu(&self, task: u32) -> u32 {
        self.cpu_of.get(task as usize).copied().unwrap_or(0)
    }
}

impl ArchModel for Partitioned {
    fn instant(&mut self, inst: &Instant, mir: &Mirror, m: &mut Machine) {
        let c = m.costs;
        let t = inst.t;
        let ready = |p: &Partitioned, cpu: u32| {
            let live = p.live_on.get(cpu as usize).copied().unwrap_or(0);
            let busy = u64::from(mir.running.get(cpu as usize).copied().flatten().is_some());
            live.saturating_sub(busy)
        };
        self.rel.clear();
        for &task in &inst.released {
            self.rel.push((self.cpu(task), task));
        }
        self.rel.sort_unstable();
        let change_of = |cpu: u32| inst.changes.iter().find(|ch| ch.cpu == cpu);
        let completed = |cpu: u32| inst.completed.iter().any(|&(x, _)| x == cpu);
        let mut i = 0;
        while i < self.rel.len() {
            let cpu = self.rel[i].0;
            let n_c = self.tasks_on.get(cpu as usize).copied().unwrap_or(0);
            let mut q = ready(self, cpu);
            let mut work = 0;
            while i < self.rel.len() && self.rel[i].0 == cpu {
                work += c.release + c.qop(n_c) + c.qop(q);
                q += 1;
                i += 1;
            }
            let linked =
                !completed(cpu) && change_of(cpu).is_some_and(|ch| matches!(ch.src, Src::Released));
            work += (u64::from(linked) + 1) * c.preempt_check_cpu;
            if linked {
                work += c.link + c.qop(q);
            }
            let mut steps = Vec::with_capacity(16);
            timer_entry(&mut steps, c.timer_irq);
            steps.extend([
                Step::Lock(cpu),
                Step::Work(work),
                Step::Unlock(cpu),
                Step::End(Span::Release),
            ]);
            if linked {
                steps.extend([
                    Step::Begin(Span::Schedule),
                    Step::Lock(cpu),
                    Step::Work(c.schedule + c.link),
                    Step::Unlock(cpu),
                    Step::End(Span::Schedule),
                ]);
                context_switch(&mut steps, c.context_switch);
            }
            let p = m.path(cpu, &steps);
            m.timer(p, t);
        }
        for &(cpu, _) in &inst.completed {
            let new = change_of(cpu).is_some_and(|ch| ch.new.is_some());
            let take = if new { c.qop(ready(self, cpu)) } else { 0 };
            let mut steps = vec![
                Step::Begin(Span::Schedule),
                Step::Lock(cpu),
                Step::Work(c.schedule + c.link + c.preempt_check_cpu + take),
                Step::Unlock(cpu),
                Step::End(Span::Schedule),
            ];
            if new {
                context_switch(&mut steps, c.context_switch);
            }
            let p = m.path(cpu, &steps);
            m.submit(p, t, t);
        }
        for &task in &inst.released {
            let cpu = self.cpu(task);
            if let Some(l) = self.live_on.get_mut(cpu as usize) {
                *l += 1;
            }
        }
        for &(_, task) in &inst.completed {
            let cpu = self.cpu(task);
            if let Some(l) = self.live_on.get_mut(cpu as usize) {
                *l = l.saturating_sub(1);
            }
        }
    }
}
