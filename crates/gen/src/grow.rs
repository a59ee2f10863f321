//! Growing task-set sequences [RTPS §VII].
//!
//! Zhang, Guan, Xiao & Yi, "Implementation and Empirical Comparison of Partitioning-based
//! Multi-core Scheduling", §VII (following their reference \[17\]): "A task set of M + 1 tasks
//! is generated and tested … Then the number of tasks is increased by 1 to generate a new task
//! set … iterated until the total processor utilization exceeds M. The whole procedure is then
//! repeated, starting with a new task set of M + 1 tasks."
//!
//! [`GrowingSets`] yields the set with `start` tasks, then the same set plus one new task, and
//! so on, each task drawn independently (utilization from the distribution, then period, then
//! deadline). It stops *before* yielding a set whose realised utilization exceeds `limit`
//! (such a set is infeasible on `limit` processors anyway); if even the first set exceeds it,
//! the sequence is empty. A sequence that reaches `max_tasks` tasks yields
//! [`GenError::TooManyTasks`] once and ends. Sequence `k` uses ChaCha stream `k`.
//!
//! Complexity: O(n) per yielded set (the set is copied out).

use crate::dist::UtilDist;
use crate::error::GenError;
use crate::rng::GenRng;
use crate::spec::{Builder, GenSpec, GeneratedSet};

/// Iterator over one growing sequence (from [`crate::Generator::sequence`]).
#[derive(Clone, Debug)]
pub struct GrowingSets {
    spec: GenSpec,
    start: usize,
    limit: f64,
    dist: UtilDist,
    rng: GenRng,
    index: u64,
    set: Builder,
    done: bool,
}

impl GrowingSets {
    pub(crate) fn new(
        spec: &GenSpec,
        start: usize,
        limit: f64,
        dist: UtilDist,
        rng: GenRng,
        index: u64,
    ) -> GrowingSets {
        GrowingSets {
            spec: spec.clone(),
            start,
            limit,
            dist,
            rng,
            index,
            set: Builder::default(),
            done: false,
        }
    }

    fn step(&mut self) -> Option<Result<GeneratedSet, GenError>> {
        let target = if self.set.tasks.is_empty() {
            self.start
        } else {
            self.set.tasks.len() + 1
        };
        if target > self.spec.max_tasks {
            return Some(Err(GenError::TooManyTasks {
                limit: self.spec.max_tasks,
                target: self.limit,
            }));
        }
        while self.set.tasks.len() < target {
            match self.dist.sample(&mut self.rng, self.spec.max_attempts) {
                Ok(u) => self.set.push(&self.spec, &mut self.rng, u),
                Err(e) => return Some(Err(e)),
            }
        }
        if self.set.utilization > self.limit {
            return None;
        }
        Some(self.set.snapshot(&self.spec, self.index))
    }
}

impl Iterator for GrowingSets {
    type Item = Result<GeneratedSet, GenError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.step();
        if !matches!(item, Some(Ok(_))) {
            self.done = true;
        }
        item
    }
}
