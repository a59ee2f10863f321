//! Step 4 of a GUA scheduling event (module doc of [`super`]): which jobs run.
//!
//! - **Underload (gMUA, NG-GUA)**: "while G-EDF is able to meet all deadlines, [gMUA] creates
//!   the same schedule as G-EDF" [ChronOS §6.8; Cho et al. 2010]. The check: G-EDF run on the
//!   jobs present, back to back with no further arrivals (the horizon every UA scheduler
//!   looks at): in critical-time order each job takes the CPU that frees first and must
//!   complete by its critical time. O(n log n + n log m). A job that can run carries the earliest
//!   critical time of the blocked jobs whose chains end at it (NG-GUA: the owner runs for its
//!   dependents, and inherits their urgency as under DASA). If the check passes, the `m`
//!   earliest run — G-EDF's choice, including its equal-key rule (a running job, linked and
//!   started, is not preempted by a waiting one of equal critical time, [`crate::prio`],
//!   [`crate::global`]) — and no list is built.
//! - **Otherwise, and always for G-GUA**: the lists ([`super::plan`]), and each list's first
//!   job whose runner is not taken yet (for jobs without dependencies: the head).
//! - CPUs left idle run the worthless non-abortable jobs, earliest critical time first.

use super::{Gua, Variant};
use schedlab_model::Time;
use std::cmp::Reverse;

impl Gua {
    /// Step 4: the jobs to run, into `scratch.pick`.
    pub(super) fn select(&mut self, now: Time) {
        let n = self.jobs.len();
        self.scratch.pick.clear();
        self.scratch.chosen.clear();
        self.scratch.chosen.resize(n, false);
        if self.variant == Variant::GGua || !self.gedf_meets_all(now) {
            self.collect_units(now);
            self.fill_lists(now);
            self.select_heads();
        } else {
            self.select_gedf();
        }
        self.select_background(now);
    }

    /// Whether G-EDF meets every critical time of the jobs present (module doc); leaves the
    /// runnable jobs in G-EDF order in `scratch.merged`.
    fn gedf_meets_all(&mut self, now: Time) -> bool {
        let m = self.linked.len();
        let s = &mut self.scratch;
        s.effective.clear();
        s.effective.resize(self.jobs.len(), None);
        for (k, &c) in s.critical.iter().enumerate() {
            if c <= now {
                continue;
            }
            if let Some(r) = s.end[k] {
                s.effective[r] = Some(s.effective[r].map_or(c, |e| e.min(c)));
            }
        }
        s.merged.clear();
        for (k, e) in s.effective.iter().enumerate() {
            if let Some(e) = *e {
                // A job that cannot make it even alone fails G-EDF too: no sort needed (in
                // overload, the usual case).
                if now.as_ns().saturating_add(s.density[k].remaining) > e.as_ns() {
                    return false;
                }
                let job = &self.jobs[k];
                let info = &job.info;
                // G-EDF's equal-key rule: a running job (linked and started) goes before
                // waiting ones of an equal critical time. A linked job is linked to the CPU
                // it was last mapped to.
                let started = s.density[k].remaining < info.wcet.as_ns();
                let linked = job
                    .last_cpu
                    .and_then(|c| self.linked.get(c as usize))
                    .is_some_and(|l| *l == Some(info.id));
                let running = started && linked;
                s.merged.push((e, u8::from(!running), info.id, k));
            }
        }
        s.merged.sort_unstable();
        // Each job takes the CPU that frees first (a min-heap of the CPUs' free times).
        s.free_heap.clear();
        s.free_heap.extend((0..m).map(|_| Reverse(now.as_ns())));
        for &(critical, _, _, k) in &s.merged {
            let Some(Reverse(at)) = s.free_heap.pop() else {
                return false;
            };
            let done = at.saturating_add(s.density[k].remaining);
            if done > critical.as_ns() {
                return false;
            }
            s.free_heap.push(Reverse(done));
        }
        true
    }

    /// G-EDF's choice: the first `m` of `scratch.merged`.
    fn select_gedf(&mut self) {
        let m = self.linked.len();
        let s = &mut self.scratch;
        for &(_, _, _, k) in s.merged.iter().take(m) {
            s.chosen[k] = true;
            s.pick.push(k);
        }
    }

    /// Each list's first job whose runner is not taken yet.
    fn select_heads(&mut self) {
        let s = &mut self.scratch;
        for l in &s.lists {
            let first = l
                .items()
                .iter()
                .find_map(|i| s.end[i.job].filter(|&r| !s.chosen[r]));
            if let Some(run) = first {
                s.chosen[run] = true;
                s.pick.push(run);
            }
        }
    }

    /// Idle CPUs run the non-abortable jobs past their critical times.
    fn select_background(&mut self, now: Time) {
        let m = self.linked.len();
        let s = &mut self.scratch;
        if s.pick.len() >= m {
            return;
        }
        s.merged.clear();
        for (k, job) in self.jobs.iter().enumerate() {
            if s.critical[k] <= now && !job.blocked && !s.chosen[k] {
                s.merged.push((s.critical[k], 0, job.info.id, k));
            }
        }
        s.merged.sort_unstable();
        for &(_, _, _, k) in &s.merged {
            if s.pick.len() == m {
                break;
            }
            s.chosen[k] = true;
            s.pick.push(k);
        }
    }
}
