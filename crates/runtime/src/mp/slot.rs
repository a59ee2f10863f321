//! The per-client `linked`/`scheduled` pair [MP §III-B], shared pairwise by the DSP and one
//! client. The paper guards the two pointers with a per-client spin lock; here they are one
//! 64-bit atomic word (low half: `linked`, high half: `scheduled`), so "check `linked` and
//! update `scheduled` atomically" (operation 2) is a compare-and-swap, and so is every DSP
//! update of `linked`. A job is named by a 32-bit *token*: task index + 1 in the low 16 bits
//! and the job number's low 16 bits above them (0 = no job). A task has at most one job in
//! the scheduler at a time, so a token names one job; two consecutive jobs of a task differ
//! in their number, so a completed job's token never aliases its successor's.
//!
//! # Ownership (why no job runs on two CPUs)
//! A client *owns* the job in its `scheduled` half: only the owner may park it or make it
//! runnable. The client gives a job up only by the CAS that changes `scheduled`, and only
//! after parking it (or after its thread committed its completion — in which case the
//! completion message is pushed *before* that CAS). The DSP links a job to a client only if
//! no client's `scheduled` holds it (otherwise it swaps links, [MP §III-C]), and every DSP
//! update is a CAS against the whole word it read, so it fails if the client changed
//! `scheduled` since. Hence a job's thread is made runnable by a client only after its
//! previous owner parked it and released it, with a Release/Acquire chain between the two
//! (previous owner's CAS → DSP's read → DSP's CAS → new owner's read).
//!
//! Before deciding, the DSP reads every slot and *then* drains the mailboxes: a client that
//! released a completed job pushed its completion message before the releasing CAS, so a
//! DSP that saw the release also sees the message — it never links a completed job again.

use std::sync::atomic::{AtomicU64, Ordering};

/// The token of job `seq` of `task` (task indices below 65 535).
pub fn token(task: u32, seq: u64) -> u32 {
    ((seq as u32 & 0xFFFF) << 16) | ((task + 1) & 0xFFFF)
}

/// The task of a token (`None` for 0).
pub fn token_task(tok: u32) -> Option<u32> {
    let t = tok & 0xFFFF;
    (t != 0).then(|| t - 1)
}

/// The largest number of tasks `message-passing` can name.
pub const MAX_TASKS: usize = 0xFFFE;

/// `linked` half of a word.
pub fn linked(w: u64) -> u32 {
    (w & 0xFFFF_FFFF) as u32
}

/// `scheduled` half of a word.
pub fn scheduled(w: u64) -> u32 {
    (w >> 32) as u32
}

/// A word from its halves.
pub fn pack(linked: u32, scheduled: u32) -> u64 {
    (u64::from(scheduled) << 32) | u64::from(linked)
}

/// One client's slot, on its own cache line.
#[derive(Debug, Default)]
#[repr(align(64))]
pub struct ClientSlot {
    word: AtomicU64,
}

impl ClientSlot {
    /// The word now.
    pub fn load(&self) -> u64 {
        self.word.load(Ordering::Acquire)
    }

    /// Replaces `expected` by `new` if the word still is `expected`; returns the word seen.
    pub fn cas(&self, expected: u64, new: u64) -> Result<u64, u64> {
        self.word
            .compare_exchange(expected, new, Ordering::AcqRel, Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_name_jobs() {
        assert_eq!(token_task(0), None);
        let a = token(3, 7);
        assert_eq!(token_task(a), Some(3));
        assert_ne!(a, token(3, 8), "consecutive jobs differ");
        assert_ne!(a, 0);
        assert_ne!(token(0, 0), 0);
        let w = pack(a, token(1, 0));
        assert_eq!((linked(w), scheduled(w)), (a, token(1, 0)));
        let s = ClientSlot::default();
        assert_eq!(s.cas(0, w), Ok(0));
        assert_eq!(s.cas(0, 5), Err(w));
        assert_eq!(s.load(), w);
    }
}
