//! Step 5 of a GUA scheduling event: the selected jobs onto CPUs [ChronOS §5.6.5, Alg. 1].
//!
//! The schedulers are mapping-agnostic (they select at most `m` jobs); the mapping is
//! execution-optimal (a selected job that is linked keeps its CPU) and migration-optimal
//! (a selected job whose last CPU is free goes back there), and the rest take the free CPUs
//! in increasing order, in selection order (ChronOS's FIFO second pass). O(m²) per event as
//! the thesis's; only CPUs whose job changes are relinked.

use super::Gua;
use crate::event::Decisions;
use crate::ids::CpuId;

impl Gua {
    /// Links `scratch.pick` (module doc).
    pub(super) fn map(&mut self, out: &mut Decisions) {
        let m = self.linked.len();
        let s = &mut self.scratch;
        s.next_link.clear();
        s.next_link.resize(m, None);
        // Pass 1: running jobs stay; pass 2: jobs go back to their last CPU if it is free.
        for pass in 0..2 {
            for &k in &s.pick {
                let id = self.jobs[k].info.id;
                if s.next_link.contains(&Some(id)) {
                    continue;
                }
                let cpu = match pass {
                    0 => self.linked.iter().position(|l| *l == Some(id)),
                    _ => self.jobs[k].last_cpu.map(|c| c as usize),
                };
                if let Some(c) = cpu.filter(|&c| s.next_link.get(c) == Some(&None)) {
                    s.next_link[c] = Some(id);
                }
            }
        }
        // Pass 3: the rest, in selection order, to the free CPUs in increasing order.
        let mut free = 0;
        for &k in &s.pick {
            let id = self.jobs[k].info.id;
            if s.next_link.contains(&Some(id)) {
                continue;
            }
            while free < m && s.next_link[free].is_some() {
                free += 1;
            }
            if free == m {
                break;
            }
            s.next_link[free] = Some(id);
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
        for &k in &s.pick {
            let id = self.jobs[k].info.id;
            if let Some(c) = self.linked.iter().position(|l| *l == Some(id)) {
                self.jobs[k].last_cpu = Some(c as u32);
            }
        }
    }
}
