//! Runs the pending chunks of an experiment on local cores (a rayon pool of `jobs` threads),
//! storing each finished chunk at once. Stops taking new chunks when the `stop` flag is set
//! (Ctrl-C): chunks already running finish and are stored, nothing is half-written.

use crate::chunk::{chunks, evaluate_chunk, Chunk};
use crate::config::{Cell, Experiment};
use crate::error::ExpError;
use crate::store::Store;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Where a run stands (reported after every finished chunk).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Sets (or growing sequences) finished, including those of earlier runs.
    pub sets_done: u64,
    /// Sets in the experiment.
    pub sets_total: u64,
    /// Sets finished by earlier runs (not computed now).
    pub sets_resumed: u64,
    /// Cells (platform × point) whose every chunk is finished.
    pub cells_done: usize,
    /// Cells in the experiment.
    pub cells_total: usize,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// Every chunk is stored.
    Finished,
    /// Stopped on request; rerunning resumes.
    Interrupted {
        /// Chunks stored.
        done: usize,
        /// Chunks in the experiment.
        total: usize,
    },
}

/// Options of [`run_local`].
#[derive(Clone, Copy, Default)]
pub struct RunOptions<'a> {
    /// Worker threads (0 = one per logical CPU).
    pub jobs: usize,
    /// Set to stop taking new chunks.
    pub stop: Option<&'a AtomicBool>,
    /// Called after each stored chunk (from a worker thread).
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
}

/// Tracks finished sets and cells across threads.
pub struct Tracker {
    sets_total: u64,
    sets_resumed: u64,
    sets_done: AtomicU64,
    cells_total: usize,
    /// Chunks still missing per cell.
    missing: Mutex<HashMap<Cell, usize>>,
}

impl Tracker {
    /// A tracker for `all` chunks of which `pending` are still to do.
    pub fn new(all: &[Chunk], pending: &[Chunk]) -> Tracker {
        let size = |c: &Chunk| c.end - c.start;
        let sets_total: u64 = all.iter().map(size).sum();
        let pending_sets: u64 = pending.iter().map(size).sum();
        let mut missing: HashMap<Cell, usize> = all.iter().map(|c| (c.cell, 0)).collect();
        let cells_total = missing.len();
        for c in pending {
            *missing.entry(c.cell).or_insert(0) += 1;
        }
        Tracker {
            sets_total,
            sets_resumed: sets_total - pending_sets,
            sets_done: AtomicU64::new(sets_total - pending_sets),
            cells_total,
            missing: Mutex::new(missing),
        }
    }

    /// Records a finished chunk and returns the progress.
    pub fn finished(&self, chunk: &Chunk) -> Progress {
        let sets_done = self
            .sets_done
            .fetch_add(chunk.end - chunk.start, Ordering::Relaxed)
            + (chunk.end - chunk.start);
        let cells_done = match self.missing.lock() {
            Ok(mut m) => {
                if let Some(n) = m.get_mut(&chunk.cell) {
                    *n = n.saturating_sub(1);
                }
                m.values().filter(|&&n| n == 0).count()
            }
            Err(_) => 0,
        };
        Progress {
            sets_done,
            sets_total: self.sets_total,
            sets_resumed: self.sets_resumed,
            cells_done,
            cells_total: self.cells_total,
        }
    }

    /// Progress before any new chunk finishes.
    pub fn initial(&self) -> Progress {
        let cells_done = self
            .missing
            .lock()
            .map_or(0, |m| m.values().filter(|&&n| n == 0).count());
        Progress {
            sets_done: self.sets_done.load(Ordering::Relaxed),
            sets_total: self.sets_total,
            sets_resumed: self.sets_resumed,
            cells_done,
            cells_total: self.cells_total,
        }
    }
}

/// What a run that resumes an output folder says first, the same words from the CLI (on
/// stderr) and from Python (a `ResumeWarning`): `None` when no chunk is stored yet.
pub fn resume_note(dir: &std::path::Path, total: usize, pending: usize) -> Option<String> {
    (pending < total).then(|| {
        format!(
            "resuming {}: {} of {total} chunks already stored",
            dir.display(),
            total - pending
        )
    })
}

/// What a run stopped on request says: how far it got and how to go on.
pub fn stopped_note(done: usize, total: usize, seconds: f64) -> String {
    format!(
        "stopped after {done} of {total} chunks ({seconds:.1} s); rerun the same command to resume"
    )
}

/// Computes and stores every chunk of `e` not yet in `store`.
pub fn run_local(
    e: &Experiment,
    store: &Store,
    options: RunOptions<'_>,
) -> Result<RunOutcome, ExpError> {
    let all = chunks(e);
    let pending = store.pending(&all)?;
    let tracker = Tracker::new(&all, &pending);
    if let Some(p) = options.progress {
        p(&tracker.initial());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs)
        .build()
        .map_err(|x| ExpError::io(store.dir(), std::io::Error::other(x.to_string())))?;
    let stopped = || options.stop.is_some_and(|s| s.load(Ordering::SeqCst));
    pool.install(|| {
        pending
            .par_iter()
            .with_max_len(1)
            .try_for_each(|chunk| -> Result<(), ExpError> {
                if stopped() {
                    return Ok(());
                }
                let results = evaluate_chunk(e, chunk)?;
                store.write_chunk(chunk, &results)?;
                let progress = tracker.finished(chunk);
                if let Some(p) = options.progress {
                    p(&progress);
                }
                Ok(())
            })
    })?;
    let left = store.pending(&all)?.len();
    Ok(if left == 0 {
        RunOutcome::Finished
    } else {
        RunOutcome::Interrupted {
            done: all.len() - left,
            total: all.len(),
        }
    })
}

#[cfg(test)]
mod note_tests {
    use super::*;

    #[test]
    fn notes_say_how_far_a_run_got() {
        let dir = std::path::Path::new("out/x");
        assert_eq!(resume_note(dir, 12, 12), None);
        assert_eq!(
            resume_note(dir, 12, 5).as_deref(),
            Some("resuming out/x: 7 of 12 chunks already stored")
        );
        assert_eq!(
            stopped_note(3, 12, 1.26),
            "stopped after 3 of 12 chunks (1.3 s); rerun the same command to resume"
        );
    }
}
