//! Deterministic work limits (DESIGN.md: a test "gives up" on a work limit, never on time).
//!
//! One [`Budget`] bounds *all* the steps of one analysis, including every admission test a
//! partitioning heuristic runs, so that a single verdict costs at most `limit` steps whatever
//! `n` and `m` are.

/// Steps used against a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Steps used so far.
    pub used: u64,
    /// The limit.
    pub limit: u64,
}

impl Budget {
    /// A fresh budget of `limit` steps.
    pub fn new(limit: u64) -> Budget {
        Budget { used: 0, limit }
    }
    /// Counts one step; `false` once the limit is exceeded.
    #[inline]
    pub fn step(&mut self) -> bool {
        self.used = self.used.saturating_add(1);
        self.used <= self.limit
    }
    /// The limit has been exceeded.
    pub fn exhausted(&self) -> bool {
        self.used > self.limit
    }
}
