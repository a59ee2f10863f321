//! The `parallel` field of a task file [RTWS §III]: the regions of a fork-join task, each a
//! list of thread lengths, read by the precise path ([`super::precise`]) and written back by
//! [`super::to_value`] (the fast paths, [`super::scan`] and [`super::typed`], read the same
//! form and decline whatever they cannot read the same way):
//!
//! ```toml
//! [[tasks]]
//! name = "fj"
//! period = "20ms"
//! parallel = [["2ms"], ["3ms", "3ms", 3000000], ["1ms"]]   # wcet = 12ms, the work
//! ```
//!
//! Times are written as everywhere in task files (strings with a unit, or integer ns). `wcet`
//! may be left out: it is then the work `T1`, the sum of all threads; if given, it must equal
//! the work ([`crate::task::parallel_problem`]). Sizes are bounded before anything is built:
//! at most [`MAX_PARALLEL_REGIONS`] regions, [`MAX_REGION_THREADS`] threads per region and
//! [`MAX_PARALLEL_THREADS`] threads in all. O(k) for `k` threads.

use super::precise::read_time;
use crate::parallel::{
    ParallelError, ParallelRegion, ParallelStructure, MAX_PARALLEL_REGIONS, MAX_PARALLEL_THREADS,
    MAX_REGION_THREADS,
};
use crate::time::Duration;
use serde_json::Value;

/// Reads `parallel`: a list of regions, each a list of thread lengths, checked as
/// [`ParallelStructure::new`] checks them (against the task's timing later, with the task).
/// The message says what is wrong, naming the region and thread.
pub(super) fn read_parallel(v: &Value) -> Result<ParallelStructure, String> {
    let Value::Array(list) = v else {
        return Err(format!(
            "must be a list of regions, each a list of thread lengths, such as [[\"2ms\"], [\"1ms\", \"1ms\"]], got {v}"
        ));
    };
    if list.len() > MAX_PARALLEL_REGIONS {
        return Err(ParallelError::TooManyRegions { count: list.len() }.to_string());
    }
    let mut regions = Vec::with_capacity(list.len());
    let mut total = 0usize;
    for (r, entry) in list.iter().enumerate() {
        let Value::Array(threads) = entry else {
            return Err(format!(
                "region {r}: must be a list of thread lengths such as [\"1ms\", \"1ms\"], got {entry}"
            ));
        };
        if threads.len() > MAX_REGION_THREADS {
            return Err(ParallelError::TooManyRegionThreads {
                region: r,
                count: threads.len(),
            }
            .to_string());
        }
        total += threads.len();
        if total > MAX_PARALLEL_THREADS {
            return Err(ParallelError::TooManyThreads { count: total }.to_string());
        }
        let mut lengths = Vec::with_capacity(threads.len());
        for (k, t) in threads.iter().enumerate() {
            lengths.push(read_time(t).map_err(|m| format!("region {r}, thread {k}: {m}"))?);
        }
        regions.push(ParallelRegion::new(lengths));
    }
    ParallelStructure::new(regions).map_err(|e| e.to_string())
}

/// A structure in its file form, times written by `time`.
pub fn parallel_value(p: &ParallelStructure, time: impl Fn(Duration) -> Value) -> Value {
    p.regions()
        .iter()
        .map(|region| region.threads.iter().map(|&d| time(d)).collect::<Value>())
        .collect()
}
