//! The lowest-priority linked job of a global policy in `O(log m)`: a tournament tree over the
//! CPUs whose every node holds the CPU with the largest key (lowest priority) in its subtree.
//! Relinking a CPU replays its path to the root (`log₂ m` key comparisons); the victim of a
//! preemption is read at the root in `O(1)`. Measured against a `BTreeSet<(key, cpu)>`
//! (an insert and a remove per link change, with node allocation) and against scanning all
//! CPUs (`O(m)` per query), it is the fastest from a few dozen CPUs up (docs/benchmarks.md).

const NONE: u32 = u32::MAX;

/// CPU with the largest key per subtree; leaves padded to a power of two.
#[derive(Clone, Debug)]
pub(crate) struct LowestTree {
    leaves: usize,
    /// `node[1]` is the root; the leaf of CPU `c` is `node[leaves + c]`; `NONE`: no job.
    node: Vec<u32>,
}

impl LowestTree {
    /// A tree for `cpus` CPUs, all idle.
    pub(crate) fn new(cpus: usize) -> LowestTree {
        let leaves = cpus.max(1).next_power_of_two();
        LowestTree {
            leaves,
            node: vec![NONE; 2 * leaves],
        }
    }

    /// CPU `cpu`'s key changed (`key_of(cpu)` gives every CPU's current key, `None` if idle):
    /// replays its path to the root.
    pub(crate) fn update<K: Ord>(&mut self, cpu: u32, key_of: impl Fn(u32) -> Option<K>) {
        let mut i = self.leaves + cpu as usize;
        let Some(leaf) = self.node.get_mut(i) else {
            return;
        };
        *leaf = if key_of(cpu).is_some() { cpu } else { NONE };
        while i > 1 {
            i /= 2;
            let l = self.node.get(2 * i).copied().unwrap_or(NONE);
            let r = self.node.get(2 * i + 1).copied().unwrap_or(NONE);
            let winner = match (l, r) {
                (NONE, x) | (x, NONE) => x,
                (l, r) => match (key_of(l), key_of(r)) {
                    (Some(kl), Some(kr)) if kr > kl => r,
                    (Some(_), _) => l,
                    (None, _) => r,
                },
            };
            if let Some(n) = self.node.get_mut(i) {
                *n = winner;
            }
        }
    }

    /// The CPU of the largest key, if any CPU has a job.
    pub(crate) fn max_cpu(&self) -> Option<u32> {
        self.node.get(1).copied().filter(|&c| c != NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// After any sequence of relinks the root is the CPU with the largest key.
        #[test]
        fn root_is_the_largest_key(
            m in 1usize..40,
            ops in proptest::collection::vec((0usize..40, proptest::option::of(0u32..1000)), 0..120),
        ) {
            let mut keys: Vec<Option<(u32, u32)>> = vec![None; m];
            let mut t = LowestTree::new(m);
            for (c, k) in ops {
                let c = c % m;
                // Keys are unique in the engine (they hold the job id): make them so here.
                keys[c] = k.map(|k| (k, c as u32));
                t.update(c as u32, |x| keys.get(x as usize).copied().flatten());
            }
            let want = keys.iter().enumerate().filter_map(|(c, k)| k.map(|k| (k, c as u32))).max().map(|(_, c)| c);
            prop_assert_eq!(t.max_cpu(), want);
        }
    }
}
