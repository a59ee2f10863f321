//! `message-passing` (G-EDF-MP [MP §III, App. B]): CPU 0 is the dedicated scheduling
//! processor (DSP), the owner of every scheduler structure and of every release timer;
//! clients (CPUs 1..M−1) post messages into per-client mailboxes and follow the links the DSP
//! writes into per-client slots, rung by an IPI (the runtime's doorbell).
//!
//! # Paths (`q` = ready-queue length, `n` = tasks, `m_j = M − 1` clients, `pcc` =
//! `preempt_check_cpu`; no locks: the DSP owns the state)
//! - **Release** (on the DSP) of the `k` jobs whose timers expire at `t`: Δev: `t` → handler
//!   start (`timer_irq` once the DSP is free: it may be busy serving messages). Δrel:
//!   `Σ_k (release + qop(n) + qop(q + i)) + (ℓ + 1)·m_j·pcc + Σ_ℓ (link + qop(q') + cache_line)`
//!   (a link is a write into the client's slot line), then `ipi_send` + an IPI to each of the
//!   `ℓ` linked clients.
//! - **Client schedule** (on an IPI): Δipi (send → start), then Δsch = `schedule +
//!   cache_line` (reading its slot), then Δcxs if a job is switched in.
//! - **Completion** on client `c`: it posts a message (`message_send`) and idles for the
//!   round trip [MP App. B]. The DSP serves its mailboxes in FIFO order of arrival, one
//!   message at a time (the DSP is a CPU: timers and messages queue for it in order):
//!   Δreq = send → dequeued, the dequeue costing `dsp_dequeue + dsp_poll_client·(m_j − 1)`
//!   (a round over the other, empty, mailboxes); Δdsp = `dsp_handler + m_j·pcc + link +
//!   cache_line` (+ `qop(q)` to take the next job), then `ipi_send` + an IPI to `c` if a job
//!   is linked to it. So k requests posted at one instant to an idle DSP give the last one
//!   Δreq = `(k − 1)·(dequeue + handler) + dequeue`.
//!
//! Cost per instant: `O(k + changes)` steps.

use super::{context_switch, ipi_received, timer_entry, ArchModel};
use crate::scale::feed::{Instant, Mirror, Src};
use crate::scale::machine::{Machine, Step};
use crate::scale::stats::Span;

const DSP: u32 = 0;

/// The model.
#[derive(Default)]
pub(crate) struct MessagePassing;

/// The client's steps after its doorbell rang.
fn client_path(m: &mut Machine, client: u32, switch_in: bool) -> u32 {
    let c = m.costs;
    let mut s = Vec::with_capacity(8);
    ipi_received(&mut s);
    s.extend([
        Step::Begin(Span::Schedule),
        Step::Work(c.schedule + c.cache_line),
        Step::End(Span::Schedule),
    ]);
    if switch_in {
        context_switch(&mut s, c.context_switch);
    }
    m.path(client, &s)
}

impl ArchModel for MessagePassing {
    fn instant(&mut self, inst: &Instant, mir: &Mirror, m: &mut Machine) {
        let c = m.costs;
        let t = inst.t;
        let mj = mir.running.len() as u64;
        let mut q = mir.ready();
        let completed = |cpu: u32| inst.completed.iter().any(|&(x, _)| x == cpu);
        if !inst.released.is_empty() {
            let mut work = 0;
            for _ in &inst.released {
                work += c.release + c.qop(mir.tasks) + c.qop(q);
                q += 1;
            }
            let mut steps = Vec::with_capacity(8 + 2 * inst.changes.len());
            timer_entry(&mut steps, c.timer_irq);
            let targets: Vec<_> = inst
                .changes
                .iter()
                .filter(|ch| matches!(ch.src, Src::Released) && !completed(ch.cpu))
                .collect();
            work += (targets.len() as u64 + 1) * mj * c.preempt_check_cpu;
            for _ in &targets {
                work += c.link + c.qop(q) + c.cache_line;
                q = q.saturating_sub(1);
            }
            steps.push(Step::Work(work));
            for ch in &targets {
                let next = client_path(m, ch.cpu + 1, ch.new.is_some());
                steps.extend([Step::Work(c.ipi_send), Step::Ipi(next)]);
            }
            steps.push(Step::End(Span::Release));
            let p = m.path(DSP, &steps);
            m.timer(p, t);
        }
        for ch in &inst.changes {
            let client = ch.cpu + 1;
            if completed(ch.cpu) {
                let take = if ch.new.is_some() {
                    let cost = c.qop(q);
                    q = q.saturating_sub(1);
                    cost
                } else {
                    0
                };
                let mut d = vec![
                    Step::BeginAtOrigin(Span::Request),
                    Step::Work(c.dsp_dequeue + c.dsp_poll_client * mj.saturating_sub(1)),
                    Step::End(Span::Request),
                    Step::Begin(Span::Dsp),
                    Step::Work(
                        c.dsp_handler + mj * c.preempt_check_cpu + c.link + c.cache_line + take,
                    ),
                ];
                if ch.new.is_some() {
                    let next = client_path(m, client, true);
                    d.extend([Step::Work(c.ipi_send), Step::Ipi(next)]);
                }
                d.push(Step::End(Span::Dsp));
                let handler = m.path(DSP, &d);
                let p = m.path(client, &[Step::Work(c.message_send), Step::Post(handler)]);
                m.submit(p, t, t);
            } else if !matches!(ch.src, Src::Released) {
                // Not caused by this instant's releases or completions (not under `gedf`):
                // the client follows its slot at once.
                let p = client_path(m, client, ch.new.is_some());
                m.submit(p, t, t);
            }
        }
    }
}
