//! Parallel (fork-join) tasks [RTWS §III, Fig. 1].
//!
//! A job of a parallel task is a sequence of **regions**; each region is a list of
//! **threads** with their own execution times. The threads of a region are independent (no
//! shared resources, no precedence among them) and may run at the same time on different
//! CPUs; all of them join at the region's end, and the next region starts when the last one
//! has finished. A sequential segment is a region of one thread. Threads inherit the job's
//! release and absolute deadline [RTWS §III: "threads inherit the parent's deadline"].
//!
//! Two numbers describe a structure's demand (the notation of the work-stealing literature
//! [RTWS §V, Eq. 2]):
//!
//! - the **work** `T1` ([`ParallelStructure::work`]): the sum of all thread lengths, the time
//!   the job takes on one CPU. [RTWS §III]: "the WCET `C_i` … is the sum of the execution
//!   requirements of all of its threads, if all threads are executed sequentially in the same
//!   core". A parallel task's `wcet` is therefore its work, so every utilization-based
//!   computation (`C/T`) keeps its meaning.
//! - the **critical path** `T∞` ([`ParallelStructure::critical_path`]): the sum over regions
//!   of the longest thread, the time the job takes on infinitely many CPUs.
//!
//! # Invariants (checked by [`ParallelStructure::new`], the only constructor)
//!
//! - 1 to [`MAX_PARALLEL_REGIONS`] regions, each with 1 to [`MAX_REGION_THREADS`] threads,
//!   at most [`MAX_PARALLEL_THREADS`] threads in all: sizes that files and Python control
//!   are bounded before anything is scheduled (an engine allocates per thread);
//! - every thread is longer than zero;
//! - the work fits in 64 bits of nanoseconds, so every method here is exact (no method
//!   saturates or wraps).
//!
//! What depends on the task — a thread no longer than the period, the task's `wcet` equal to
//! the work, no `critical_sections` or `split` on a parallel task — is checked with the task
//! ([`crate::task::parallel_problem`], [`crate::Task::validate`]).
//!
//! Complexity: construction is O(k) for `k` threads (the work, the critical path, the thread
//! count and the widest region are computed once and kept); every query is O(1) but the
//! thread iterator, which is O(k) in all.

use crate::time::Duration;

/// Most regions of one parallel task (an input-controlled size).
pub const MAX_PARALLEL_REGIONS: usize = 1024;
/// Most threads of one region (an input-controlled size).
pub const MAX_REGION_THREADS: usize = 4096;
/// Most threads of one parallel task, all regions together (an input-controlled size).
pub const MAX_PARALLEL_THREADS: usize = 65_536;

/// What is wrong with a list of regions (see the module doc's invariants). The messages name
/// regions and threads by their 0-based position; the caller adds the task and the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParallelError {
    /// No region at all.
    #[error("lists no region: a parallel task has at least one region, a list of thread lengths such as [[\"2ms\"], [\"1ms\", \"1ms\"]]")]
    NoRegions,
    /// More than [`MAX_PARALLEL_REGIONS`] regions.
    #[error("{count} regions is more than the {MAX_PARALLEL_REGIONS} allowed per task")]
    TooManyRegions {
        /// The number of regions given.
        count: usize,
    },
    /// A region without threads.
    #[error("region {region} is an empty region: a region has at least one thread (a sequential segment is a region of one thread)")]
    EmptyRegion {
        /// The region (0-based).
        region: usize,
    },
    /// More than [`MAX_REGION_THREADS`] threads in one region.
    #[error(
        "region {region}: {count} threads is more than the {MAX_REGION_THREADS} allowed per region"
    )]
    TooManyRegionThreads {
        /// The region (0-based).
        region: usize,
        /// Its number of threads.
        count: usize,
    },
    /// More than [`MAX_PARALLEL_THREADS`] threads in all.
    #[error("{count} threads in all is more than the {MAX_PARALLEL_THREADS} allowed per task")]
    TooManyThreads {
        /// The number of threads given (at least this many).
        count: usize,
    },
    /// A thread of length zero.
    #[error("region {region}, thread {thread}: a thread's length must be greater than zero")]
    ZeroThread {
        /// The region (0-based).
        region: usize,
        /// The thread within the region (0-based).
        thread: usize,
    },
    /// The threads add up to more than 2^64-1 ns.
    #[error("the threads add up to more than 2^64-1 ns (about 584 years)")]
    WorkOverflow,
}

/// One region of a fork-join job: the lengths of its threads, which run independently and
/// join at the region's end [RTWS §III, Fig. 1]. A sequential segment is a region of one
/// thread. Checked only as part of a [`ParallelStructure`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParallelRegion {
    /// The execution time of each thread, in the order given.
    pub threads: Vec<Duration>,
}

impl ParallelRegion {
    /// A region with these thread lengths (checked by [`ParallelStructure::new`]).
    pub fn new(threads: Vec<Duration>) -> ParallelRegion {
        ParallelRegion { threads }
    }

    /// Its number of threads.
    pub fn width(&self) -> usize {
        self.threads.len()
    }

    /// Its longest thread (zero for an empty region, which no structure contains): the
    /// region's contribution to the critical path.
    pub fn longest(&self) -> Duration {
        self.threads.iter().copied().max().unwrap_or(Duration::ZERO)
    }
}

/// The fork-join structure of a parallel task: its regions in order (module doc). Built only
/// by [`ParallelStructure::new`], so every value satisfies the invariants and its work fits
/// in 64 bits.
///
/// ```
/// use schedlab_model::parallel::ParallelStructure;
/// use schedlab_model::Duration;
/// let ms = |x| Duration::from_ms(x).unwrap();
/// // A sequential segment of 2 ms, three threads of 3, 1 and 2 ms, a last segment of 1 ms.
/// let p = ParallelStructure::from_threads(vec![vec![ms(2)], vec![ms(3), ms(1), ms(2)], vec![ms(1)]])
///     .unwrap();
/// assert_eq!(p.work(), ms(9)); // T1
/// assert_eq!(p.critical_path(), ms(6)); // T∞ = 2 + 3 + 1
/// assert_eq!((p.region_count(), p.thread_count(), p.max_width()), (3, 5, 3));
/// let threads: Vec<_> = p.threads().collect();
/// assert_eq!(threads[2], (1, 1, ms(1))); // region 1, thread 1, 1 ms
/// assert!(ParallelStructure::from_threads(vec![vec![ms(1)], vec![]]).is_err()); // an empty region
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParallelStructure {
    regions: Vec<ParallelRegion>,
    work: Duration,
    critical_path: Duration,
    thread_count: usize,
    max_width: usize,
}

impl ParallelStructure {
    /// The structure of these regions, checked (module doc): at least one region, none
    /// empty, no thread of length zero, the size bounds, and work that fits in 64 bits. The
    /// first problem found, in region order, is the error. O(k) for `k` threads.
    pub fn new(regions: Vec<ParallelRegion>) -> Result<ParallelStructure, ParallelError> {
        if regions.is_empty() {
            return Err(ParallelError::NoRegions);
        }
        if regions.len() > MAX_PARALLEL_REGIONS {
            return Err(ParallelError::TooManyRegions {
                count: regions.len(),
            });
        }
        let mut work = Duration::ZERO;
        let mut critical_path = Duration::ZERO;
        let mut thread_count = 0usize;
        let mut max_width = 0usize;
        for (r, region) in regions.iter().enumerate() {
            let width = region.width();
            if width == 0 {
                return Err(ParallelError::EmptyRegion { region: r });
            }
            if width > MAX_REGION_THREADS {
                return Err(ParallelError::TooManyRegionThreads {
                    region: r,
                    count: width,
                });
            }
            // Both below 2^17 (the bounds above), so the sum does not overflow.
            thread_count += width;
            if thread_count > MAX_PARALLEL_THREADS {
                return Err(ParallelError::TooManyThreads {
                    count: thread_count,
                });
            }
            max_width = max_width.max(width);
            for (k, &length) in region.threads.iter().enumerate() {
                if length.is_zero() {
                    return Err(ParallelError::ZeroThread {
                        region: r,
                        thread: k,
                    });
                }
                work = work
                    .checked_add(length)
                    .ok_or(ParallelError::WorkOverflow)?;
            }
            // The longest thread of each region is part of the work: no overflow.
            critical_path = critical_path
                .checked_add(region.longest())
                .ok_or(ParallelError::WorkOverflow)?;
        }
        Ok(ParallelStructure {
            regions,
            work,
            critical_path,
            thread_count,
            max_width,
        })
    }

    /// [`ParallelStructure::new`] from the thread lengths of each region.
    pub fn from_threads(regions: Vec<Vec<Duration>>) -> Result<ParallelStructure, ParallelError> {
        ParallelStructure::new(regions.into_iter().map(ParallelRegion::new).collect())
    }

    /// The regions, in order.
    pub fn regions(&self) -> &[ParallelRegion] {
        &self.regions
    }

    /// The regions, given back.
    pub fn into_regions(self) -> Vec<ParallelRegion> {
        self.regions
    }

    /// Number of regions (≥ 1).
    pub fn region_count(&self) -> usize {
        self.regions.len()
    }

    /// The work `T1`: the sum of all thread lengths (the job's execution time on one CPU; a
    /// parallel task's `wcet`).
    pub fn work(&self) -> Duration {
        self.work
    }

    /// The critical path `T∞`: the sum over regions of the longest thread (the job's
    /// execution time on unboundedly many CPUs). `T∞ ≤ T1`.
    pub fn critical_path(&self) -> Duration {
        self.critical_path
    }

    /// Number of threads in all regions (≥ 1).
    pub fn thread_count(&self) -> usize {
        self.thread_count
    }

    /// The largest number of threads of one region (≥ 1; 1 for a structure of sequential
    /// segments only).
    pub fn max_width(&self) -> usize {
        self.max_width
    }

    /// Every thread as `(region, thread, length)`, region by region and within a region in
    /// the order given (0-based positions).
    pub fn threads(&self) -> impl Iterator<Item = (usize, usize, Duration)> + '_ {
        self.regions.iter().enumerate().flat_map(|(r, region)| {
            region
                .threads
                .iter()
                .enumerate()
                .map(move |(k, &length)| (r, k, length))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(x: u64) -> Duration {
        Duration::from_ns(x)
    }

    fn structure(regions: &[&[u64]]) -> Result<ParallelStructure, ParallelError> {
        ParallelStructure::from_threads(
            regions
                .iter()
                .map(|r| r.iter().map(|&x| ns(x)).collect())
                .collect(),
        )
    }

    #[test]
    fn work_critical_path_and_sizes() {
        let p = structure(&[&[2, 1], &[3, 3, 3], &[4]]).unwrap();
        assert_eq!(p.work(), ns(16));
        assert_eq!(p.critical_path(), ns(2 + 3 + 4));
        assert_eq!(p.thread_count(), 6);
        assert_eq!(p.max_width(), 3);
        assert_eq!(p.region_count(), 3);
        assert_eq!(p.regions()[1].longest(), ns(3));
        let all: Vec<_> = p.threads().collect();
        assert_eq!(
            all,
            vec![
                (0, 0, ns(2)),
                (0, 1, ns(1)),
                (1, 0, ns(3)),
                (1, 1, ns(3)),
                (1, 2, ns(3)),
                (2, 0, ns(4))
            ]
        );
        // Sequential segments only: T∞ = T1, width 1.
        let seq = structure(&[&[5], &[7]]).unwrap();
        assert_eq!((seq.work(), seq.critical_path()), (ns(12), ns(12)));
        assert_eq!(seq.max_width(), 1);
        assert_eq!(seq.clone().into_regions().len(), 2);
    }

    #[test]
    fn every_broken_invariant_is_named() {
        assert_eq!(structure(&[]), Err(ParallelError::NoRegions));
        assert_eq!(
            structure(&[&[1], &[]]),
            Err(ParallelError::EmptyRegion { region: 1 })
        );
        assert_eq!(
            structure(&[&[1, 2], &[3, 0]]),
            Err(ParallelError::ZeroThread {
                region: 1,
                thread: 1
            })
        );
        assert_eq!(
            structure(&[&[u64::MAX], &[1]]),
            Err(ParallelError::WorkOverflow)
        );
        let many_regions = vec![vec![ns(1)]; MAX_PARALLEL_REGIONS + 1];
        assert_eq!(
            ParallelStructure::from_threads(many_regions),
            Err(ParallelError::TooManyRegions {
                count: MAX_PARALLEL_REGIONS + 1
            })
        );
        let wide = vec![vec![ns(1)], vec![ns(1); MAX_REGION_THREADS + 1]];
        assert_eq!(
            ParallelStructure::from_threads(wide),
            Err(ParallelError::TooManyRegionThreads {
                region: 1,
                count: MAX_REGION_THREADS + 1
            })
        );
        // 17 full regions of 4096 threads: 69,632 > 65,536, found in region 16.
        let full = vec![vec![ns(1); MAX_REGION_THREADS]; 17];
        assert_eq!(
            ParallelStructure::from_threads(full),
            Err(ParallelError::TooManyThreads {
                count: 17 * MAX_REGION_THREADS
            })
        );
        // At the bounds exactly: accepted.
        let at_bound = vec![vec![ns(1); MAX_REGION_THREADS]; 16];
        let p = ParallelStructure::from_threads(at_bound).unwrap();
        assert_eq!(p.thread_count(), MAX_PARALLEL_THREADS);
        assert_eq!(p.critical_path(), ns(16));
        let messages = [
            ParallelError::NoRegions.to_string(),
            ParallelError::EmptyRegion { region: 2 }.to_string(),
            ParallelError::ZeroThread {
                region: 0,
                thread: 3,
            }
            .to_string(),
        ];
        assert!(messages[0].contains("at least one region"), "{messages:?}");
        assert!(messages[1].contains("region 2 is an empty region"));
        assert!(messages[2].contains("region 0, thread 3"));
    }
}
