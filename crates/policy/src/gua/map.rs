//! Step 5 of a GUA scheduling event: the selected jobs onto CPUs [ChronOS §5.6.5, Alg. 1].
//!
//! The schedulers are mapping-agnostic (they select at most `m` jobs); the mapping is
//! execution-optimal (a selected job that is linked keeps its CPU) and migration-optimal
//! (a selected job whose last CPU is free goes back there), and the rest take the free CPUs
//! in increasing order, in selection order (ChronOS's FIFO second pass). O(m) per event (the
//! thesis's is O(m²): a job's CPU is looked up, not searched); only CPUs whose job changes are
//! relinked.

use super::Gua;
use crate::event::Decisions;
use crate::ids::CpuId;

impl Gua {
    /// Links `scratch.pick` (module doc). A linked job's `last_cpu` is the CPU it is linked
    /// to (set here for every job that gets a CPU), so each pass is O(1) per job.
    pub(super) fn map(&mut self, out: &mut Decisions) {
        let m = self.linked.len();
        let s = &mut self.scratch;
        s.next_link.clear();
        s.next_link.resize(m, None);
        s.mapped.clear();
        s.mapped.resize(s.pick.len(), None);
        // Pass 1: running jobs stay; pass 2: jobs go back to their last CPU if it is free.
        for pass in 0..2 {
            for (slot, &k) in s.mapped.iter_mut().zip(&s.pick) {
                let job = &self.jobs[k];
                let Some(c) = job.last_cpu.map(|c| c as usize) else {
                    continue;
                };
                let running = self.linked.get(c) == Some(&Some(job.info.id));
                if slot.is_none() && (pass == 1 || running) && s.next_link.get(c) == Some(&None) {
                    s.next_link[c] = Some(job.info.id);
                    *slot = Some(c as u32);
                }
            }
        }
        // Pass 3: the rest, in selection order, to the free CPUs in increasing order.
        let mut free = 0;
        for (slot, &k) in s.mapped.iter_mut().zip(&s.pick) {
            if slot.is_some() {
                continue;
            }
            while free < m && s.next_link[free].is_some() {
                free += 1;
            }
            if free == m {
                break;
            }
            s.next_link[free] = Some(self.jobs[k].info.id);
            *slot = Some(free as u32);
        }
        for (c, next) in s.next_link.iter().enumerate() {
            if self.linked[c] == *next {
                continue;
            }
            match next {
                Some(id) => out.link(CpuId(c as u32), *id),
                None => out.unlink(CpuId(c as u32)),
            }
            self.linked[c] = *next;
        }
        for (slot, &k) in s.mapped.iter().zip(&s.pick) {
            if slot.is_some() {
                self.jobs[k].last_cpu = *slot;
            }
        }
    }
}
