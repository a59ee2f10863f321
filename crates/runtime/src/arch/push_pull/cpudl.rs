//! `push-pull`'s cpudl: the running deadline of every busy CPU in a max-heap, and the set of
//! free CPUs — a model of Linux's `kernel/sched/cpudeadline.c` (read, not copied), the
//! structure `find_later_rq` asks "which CPU would this job preempt?".
//!
//! A CPU is *free* when its run queue holds no job; a busy CPU's value is the deadline of the
//! job its queue runs (its earliest, `earliest_dl.curr` in the kernel). The heap's top is the
//! latest running deadline ([`Cpudl::maximum`]; ties: the lowest CPU index, the project's
//! deterministic choice where the kernel's heap order is arbitrary).
//!
//! Plain data: it lives behind its own short lock in the shared state (the kernel's
//! `cpudl->lock`), taken only while holding a run-queue lock or alone — never the other
//! way round (the lock order of `super`'s protocol).
//!
//! Cost: [`Cpudl::set`] and [`Cpudl::clear`] `O(log m)` (sift up or down in a binary heap
//! with each CPU's position kept), [`Cpudl::maximum`] `O(1)`, [`Cpudl::free`] `O(m)` (a
//! scan for the lowest free CPU; the kernel keeps a cpumask and takes any of it).

/// The heap of busy CPUs and the free set (module doc).
#[derive(Debug)]
pub(crate) struct Cpudl {
    /// Binary max-heap of (deadline, CPU), by [`Cpudl::above`].
    heap: Vec<(u64, u32)>,
    /// Each CPU's index in `heap`, `None` when free.
    pos: Vec<Option<usize>>,
}

impl Cpudl {
    /// `m` CPUs, all free.
    pub(crate) fn new(m: usize) -> Cpudl {
        Cpudl {
            heap: Vec::with_capacity(m),
            pos: vec![None; m],
        }
    }

    /// Whether heap entry `a` belongs above `b`: a later deadline, or at equal deadlines
    /// the lower CPU.
    fn above(a: (u64, u32), b: (u64, u32)) -> bool {
        a.0 > b.0 || (a.0 == b.0 && a.1 < b.1)
    }

    /// CPU `cpu` runs a job of deadline `dl` (`cpudl_set`).
    pub(crate) fn set(&mut self, cpu: u32, dl: u64) {
        let Some(slot) = self.pos.get(cpu as usize).copied() else {
            return;
        };
        let i = match slot {
            Some(i) => {
                if let Some(e) = self.heap.get_mut(i) {
                    e.0 = dl;
                }
                i
            }
            None => {
                self.heap.push((dl, cpu));
                let i = self.heap.len() - 1;
                self.place(cpu, i);
                i
            }
        };
        let i = self.sift_up(i);
        self.sift_down(i);
    }

    /// CPU `cpu`'s queue emptied: it is free (`cpudl_clear`).
    pub(crate) fn clear(&mut self, cpu: u32) {
        let Some(Some(i)) = self.pos.get(cpu as usize).copied() else {
            return;
        };
        let last = self.heap.len() - 1;
        self.heap.swap(i, last);
        self.heap.pop();
        if let Some(p) = self.pos.get_mut(cpu as usize) {
            *p = None;
        }
        if i < self.heap.len() {
            let moved = self.heap[i].1;
            self.place(moved, i);
            let i = self.sift_up(i);
            self.sift_down(i);
        }
    }

    /// The busy CPU with the latest running deadline, and that deadline (`cpudl_maximum`).
    pub(crate) fn maximum(&self) -> Option<(u32, u64)> {
        self.heap.first().map(|&(dl, cpu)| (cpu, dl))
    }

    /// A free CPU other than `except`: `prefer` if it is free, else the lowest-numbered.
    pub(crate) fn free(&self, prefer: Option<u32>, except: Option<u32>) -> Option<u32> {
        let is_free = |c: u32| Some(c) != except && self.pos.get(c as usize) == Some(&None);
        if let Some(p) = prefer.filter(|&p| is_free(p)) {
            return Some(p);
        }
        (0..self.pos.len() as u32).find(|&c| is_free(c))
    }

    fn place(&mut self, cpu: u32, i: usize) {
        if let Some(p) = self.pos.get_mut(cpu as usize) {
            *p = Some(i);
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        let (ca, cb) = (self.heap[a].1, self.heap[b].1);
        self.place(ca, a);
        self.place(cb, b);
    }

    fn sift_up(&mut self, mut i: usize) -> usize {
        while i > 0 {
            let parent = (i - 1) / 2;
            if Cpudl::above(self.heap[i], self.heap[parent]) {
                self.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
        i
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut top = i;
            for c in [l, r] {
                if c < self.heap.len() && Cpudl::above(self.heap[c], self.heap[top]) {
                    top = c;
                }
            }
            if top == i {
                return;
            }
            self.swap(i, top);
            i = top;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Hand-checked: the top is the latest deadline, ties to the lower CPU; a cleared CPU
    /// is free and preferred when asked for.
    #[test]
    fn maximum_and_free_cpus() {
        let mut h = Cpudl::new(4);
        assert_eq!(h.free(None, None), Some(0));
        h.set(0, 50);
        h.set(2, 80);
        h.set(1, 80);
        assert_eq!(h.maximum(), Some((1, 80)), "ties: the lower CPU");
        assert_eq!(h.free(None, None), Some(3));
        h.set(1, 10);
        assert_eq!(h.maximum(), Some((2, 80)));
        h.clear(2);
        assert_eq!(h.maximum(), Some((0, 50)));
        assert_eq!(h.free(Some(3), None), Some(3));
        assert_eq!(h.free(None, Some(2)), Some(3));
        h.set(3, 1);
        h.clear(0);
        h.clear(1);
        h.clear(3);
        assert_eq!(h.maximum(), None);
    }

    proptest! {
        /// After any sequence of sets and clears, the top is the maximum of a plain table
        /// (same tie rule) and free CPUs are exactly the cleared ones.
        #[test]
        fn matches_a_table(ops in proptest::collection::vec((0u32..6, proptest::option::of(0u64..20)), 0..60)) {
            let mut h = Cpudl::new(6);
            let mut t: Vec<Option<u64>> = vec![None; 6];
            for (cpu, dl) in ops {
                match dl {
                    Some(d) => h.set(cpu, d),
                    None => h.clear(cpu),
                }
                t[cpu as usize] = dl;
                let want = t
                    .iter()
                    .enumerate()
                    .filter_map(|(c, d)| d.map(|d| (c as u32, d)))
                    .fold(None::<(u32, u64)>, |b, (c, d)| match b {
                        Some((_, bd)) if bd >= d => b,
                        _ => Some((c, d)),
                    });
                prop_assert_eq!(h.maximum(), want);
                let free = t.iter().position(Option::is_none).map(|c| c as u32);
                prop_assert_eq!(h.free(None, None), free);
            }
        }
    }
}
