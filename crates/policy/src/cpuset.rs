//! A set of CPU numbers as a bitset: O(1) insert/remove/contains, lowest member by scanning
//! words (m/64 of them) — cheaper than a B-tree for the idle-CPU set of a global policy.

/// CPU numbers `0..m`.
#[derive(Clone, Debug, Default)]
pub(crate) struct CpuSet {
    words: Vec<u64>,
}

impl CpuSet {
    /// `{0, …, m−1}`.
    pub(crate) fn full(m: u32) -> CpuSet {
        let mut s = CpuSet {
            words: vec![0; (m as usize).div_ceil(64)],
        };
        for c in 0..m {
            s.insert(c);
        }
        s
    }
    pub(crate) fn insert(&mut self, c: u32) {
        if let Some(w) = self.words.get_mut((c / 64) as usize) {
            *w |= 1 << (c % 64);
        }
    }
    pub(crate) fn remove(&mut self, c: u32) {
        if let Some(w) = self.words.get_mut((c / 64) as usize) {
            *w &= !(1 << (c % 64));
        }
    }
    pub(crate) fn contains(&self, c: u32) -> bool {
        self.words
            .get((c / 64) as usize)
            .is_some_and(|w| w & (1 << (c % 64)) != 0)
    }
    /// No member.
    pub(crate) fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }
    /// The lowest member.
    pub(crate) fn first(&self) -> Option<u32> {
        self.words
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i as u32 * 64 + w.trailing_zeros())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_a_set() {
        let mut s = CpuSet::full(130);
        assert_eq!(s.first(), Some(0));
        for c in 0..70 {
            s.remove(c);
        }
        assert_eq!(s.first(), Some(70));
        assert!(s.contains(129) && !s.contains(5) && !s.contains(500));
        s.insert(3);
        assert_eq!(s.first(), Some(3));
        assert!(!s.is_empty());
        let mut e = CpuSet::full(0);
        assert_eq!(e.first(), None);
        assert!(e.is_empty());
        e.insert(7); // out of range: ignored
        assert_eq!(e.first(), None);
    }
}
