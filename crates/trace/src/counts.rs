//! Per-job execution counters read from a trace: the one definition of a job's start,
//! preemptions, migrations and CPUs, and of a trace's context switches. `schedlab run` (the
//! runtime's job records) and `schedlab trace stats` (records rebuilt from any trace file)
//! both count with [`job_counts`] and [`context_switches`]; the simulator counts the same
//! things as it emits the events, with or without overheads (a dispatch cut short before its
//! delay ended has no `switch-in` and counts nothing; `schedlab-sim`'s test
//! `counters_equal_the_trace_counts_with_overheads` holds every job's counters to these).
//!
//! For each job (task, seq), from its events in trace order:
//! - **start**: its first `switch-in`;
//! - **CPUs**: the CPUs of its `switch-in`s, in order of first use;
//! - **preemptions**: its `preempt` events. An engine records one whenever a job stops
//!   executing unfinished: the simulator when it switches a job out before its demand is
//!   met; the runtime's dispatchers (and message-passing clients) when they park a job whose
//!   code ran since it was last made runnable; the kernel baselines when the burn loop sees
//!   the job lose its CPU (a gap, or a move to another CPU);
//! - **migrations**: its `switch-in`s on another CPU than the one where the job last executed
//!   *for that thread* (strand): for a thread that ran before, the CPU of its previous
//!   `switch-in`; for a thread's first `switch-in`, the CPU of its job's latest `fork` (where
//!   the region it belongs to was forked: the previous region's join); for a thread taken by a
//!   `steal`, the victim's CPU (the `steal`'s `arg`), so every steal is a migration and a
//!   thread run where its job forked it never is. A job's first start, and the first starts of
//!   its first region's threads, have no such CPU: no migration. For a sequential job (one
//!   strand) this is "another CPU than its previous `switch-in`"; for a parallel (fork-join)
//!   job [RTWS §III] it is the one definition of the issue, and it compares a work-stealing
//!   scheduler with one that runs threads as jobs thread by thread: each thread that runs away
//!   from where it was forked, or resumes away from where it ran, is one migration under both;
//! - **steals**: its `steal` events (threads taken from another CPU's local queue, `rtws`).
//!
//! A parallel job's counters are summed over its threads (strands).
//!
//! The **context switches** of a trace are its `switch-in` events.
//!
//! Why from the events and not from counters each engine keeps: the runtime used to count a
//! preemption wherever a dispatcher parked a job — also a job parked again before its thread
//! ran, for which no `preempt` is recorded — and a migration wherever a job was made runnable
//! on another CPU, so `schedlab run` printed 47 preemptions where `schedlab trace stats`
//! counted 46 in the same run's trace. Counted here, the two cannot differ. (A runtime trace
//! that lost events to full buffers undercounts; the run warns about dropped events.)
//!
//! Cost: one pass, one hash-map entry per job.

use crate::{Event, Kind};
use std::collections::HashMap;

/// Strands per job remembered for migrations: the model's bound on a parallel task's threads
/// (`schedlab_model::parallel`, 65,536).
const MAX_STRANDS: usize = 1 << 16;

/// The counters of one job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobCounts {
    /// Time of its first `switch-in`.
    pub start: Option<u64>,
    /// CPUs of its `switch-in`s, in order of first use.
    pub cpus: Vec<u32>,
    /// Its `preempt` events.
    pub preemptions: u32,
    /// Its `switch-in`s on another CPU than the one where it last executed (module doc).
    pub migrations: u32,
    /// Its `steal` events.
    pub steals: u32,
    /// Per strand, the CPU of its latest `switch-in` (`u32::MAX`: none yet).
    ran_on: Vec<u32>,
    /// CPU of its latest `fork` (where its current region's threads were forked).
    forked_on: Option<u32>,
    /// Strands stolen whose `switch-in` is still to come, with the victim CPU.
    stolen: Vec<(u32, u32)>,
}

impl JobCounts {
    /// Counts one event of this job (events must come in trace order).
    pub fn add(&mut self, e: &Event) {
        match e.kind {
            Kind::SwitchIn => {
                self.start.get_or_insert(e.time);
                if !self.cpus.contains(&e.cpu) {
                    self.cpus.push(e.cpu);
                }
                let victim = match self.stolen.iter().position(|&(s, _)| s == e.strand) {
                    Some(k) => Some(self.stolen.swap_remove(k).1),
                    None => None,
                };
                let slot = e.strand as usize;
                let ran_on = self.ran_on.get(slot).copied().filter(|&c| c != u32::MAX);
                let home = victim.or(ran_on).or(self.forked_on);
                if home.is_some_and(|h| h != e.cpu || victim.is_some()) {
                    self.migrations = self.migrations.saturating_add(1);
                }
                // Strands past the model's bound on a job's threads (a foreign trace) are not
                // remembered: their resumptions count from the fork, like first starts.
                if slot < MAX_STRANDS {
                    if self.ran_on.len() <= slot {
                        self.ran_on.resize(slot + 1, u32::MAX);
                    }
                    if let Some(c) = self.ran_on.get_mut(slot) {
                        *c = e.cpu;
                    }
                }
            }
            Kind::Fork => self.forked_on = Some(e.cpu),
            Kind::Preempt => self.preemptions = self.preemptions.saturating_add(1),
            Kind::Steal => {
                self.steals = self.steals.saturating_add(1);
                let victim = u32::try_from(e.arg).unwrap_or(u32::MAX);
                self.stolen.push((e.strand, victim));
            }
            _ => {}
        }
    }
}

/// The counters of every job that has a `switch-in`, `switch-out`, `preempt`, `steal` or `fork` in
/// `events` (in trace order), by (task, seq).
pub fn job_counts(events: &[Event]) -> HashMap<(u32, u64), JobCounts> {
    let mut out: HashMap<(u32, u64), JobCounts> = HashMap::new();
    let counted = |k: Kind| {
        matches!(
            k,
            Kind::SwitchIn | Kind::SwitchOut | Kind::Preempt | Kind::Steal | Kind::Fork
        )
    };
    for e in events
        .iter()
        .filter(|e| e.task != u32::MAX && counted(e.kind))
    {
        out.entry((e.task, e.seq)).or_default().add(e);
    }
    out
}

/// The context switches of a trace: its `switch-in` events.
pub fn context_switches(events: &[Event]) -> u64 {
    events.iter().filter(|e| e.kind == Kind::SwitchIn).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// τ0#0 runs on CPU 0 (5–20), is preempted, resumes on CPU 1 (30–40): one preemption,
    /// one migration, CPUs [0, 1]. τ1#0 runs from 20 on CPU 0 and is linked to CPU 1 at 25
    /// (a link is a decision, not an execution): no preemption, no migration. Context
    /// switches: the three `switch-in`s; events of no job are ignored.
    #[test]
    fn counts_follow_the_events() {
        let ev = |t, k, cpu, task, seq| Event::new(t, k, cpu, task, seq);
        let trace = [
            ev(5, Kind::SwitchIn, 0, 0, 0),
            ev(20, Kind::SwitchOut, 0, 0, 0),
            ev(20, Kind::Preempt, 0, 0, 0),
            ev(20, Kind::SwitchIn, 0, 1, 0),
            ev(25, Kind::Link, 1, 1, 0),
            ev(30, Kind::SwitchIn, 1, 0, 0),
            ev(30, Kind::Migrate, 1, 0, 0),
            ev(40, Kind::SwitchOut, 1, 0, 0),
            ev(41, Kind::SchedBegin, 0, u32::MAX, 0),
        ];
        let c = job_counts(&trace);
        let j0 = &c[&(0, 0)];
        assert_eq!(j0.start, Some(5));
        assert_eq!((j0.preemptions, j0.migrations), (1, 1));
        assert_eq!(j0.cpus, vec![0, 1]);
        let j1 = &c[&(1, 0)];
        assert_eq!((j1.start, j1.preemptions, j1.migrations), (Some(20), 0, 0));
        assert_eq!(c.len(), 2);
        assert_eq!(context_switches(&trace), 3);
    }

    /// A parallel job τ0#0: strand 0 runs on CPU 0 (0–3) and forks strands 1 and 2 there; at
    /// 3 strand 1 is stolen by CPU 1 (a migration: from the victim, CPU 0) and strand 2 runs
    /// on CPU 0 (no migration: where it was forked). Strand 2 ends on CPU 0 at 4, strand 1 on
    /// CPU 1 at 5, where the region joins and forks strand 3; strand 3 runs on CPU 0 at 5 —
    /// away from its fork: a migration. Two migrations, one steal.
    #[test]
    fn parallel_job_migrations_follow_the_forking_cpu() {
        let ev = |t, k, cpu, s: u32| Event::new(t, k, cpu, 0, 0).with_strand(s);
        let trace = [
            ev(0, Kind::SwitchIn, 0, 0),
            ev(3, Kind::SwitchOut, 0, 0),
            ev(3, Kind::Fork, 0, 1).with_arg(2),
            ev(3, Kind::Steal, 1, 1).with_arg(0),
            ev(3, Kind::SwitchIn, 1, 1),
            ev(3, Kind::SwitchIn, 0, 2),
            ev(4, Kind::SwitchOut, 0, 2),
            ev(5, Kind::SwitchOut, 1, 1),
            ev(5, Kind::Fork, 1, 3).with_arg(1),
            ev(5, Kind::SwitchIn, 0, 3),
            ev(6, Kind::SwitchOut, 0, 3),
        ];
        let c = &job_counts(&trace)[&(0, 0)];
        assert_eq!((c.migrations, c.steals, c.preemptions), (2, 1, 0));
        assert_eq!(c.cpus, vec![0, 1]);
    }

    /// Threads as jobs (no steals): strands 1–3 forked on CPU 0 at 2. Strand 1 runs on CPU 1
    /// (a migration) and strand 2 on CPU 0 (none); strand 3 starts on CPU 1 at 4 right after
    /// strand 1 ended there — away from where it was forked: a migration, though the job last
    /// executed on CPU 1. Strand 2, preempted on CPU 0 at 3, resumes there at 5 (no
    /// migration) and, preempted again at 6, on CPU 1 at 7 (a migration). A job's first
    /// start (strand 0) is none. Three migrations, two preemptions.
    #[test]
    fn a_thread_migrates_when_it_runs_away_from_its_fork_or_its_last_cpu() {
        let ev = |t, k, cpu, s: u32| Event::new(t, k, cpu, 0, 0).with_strand(s);
        let trace = [
            ev(0, Kind::SwitchIn, 0, 0),
            ev(2, Kind::SwitchOut, 0, 0),
            ev(2, Kind::Fork, 0, 1).with_arg(3),
            ev(2, Kind::SwitchIn, 1, 1),
            ev(2, Kind::SwitchIn, 0, 2),
            ev(3, Kind::SwitchOut, 0, 2),
            ev(3, Kind::Preempt, 0, 2),
            ev(4, Kind::SwitchOut, 1, 1),
            ev(4, Kind::SwitchIn, 1, 3),
            ev(5, Kind::SwitchIn, 0, 2),
            ev(6, Kind::SwitchOut, 0, 2),
            ev(6, Kind::Preempt, 0, 2),
            ev(6, Kind::SwitchOut, 1, 3),
            ev(7, Kind::SwitchIn, 1, 2),
            ev(8, Kind::SwitchOut, 1, 2),
        ];
        let c = &job_counts(&trace)[&(0, 0)];
        assert_eq!((c.migrations, c.steals, c.preemptions), (3, 0, 2));
    }

    /// A steal is a migration even when the thief last ran a thread of the same job: CPU 1
    /// finishes stolen strand 1 at 5 and steals strand 2 at once (the job last executed on
    /// CPU 1, yet strand 2 comes from CPU 0's deque).
    #[test]
    fn a_steal_is_a_migration_even_by_a_thief_of_the_same_job() {
        let ev = |t, k, cpu, s: u32| Event::new(t, k, cpu, 0, 0).with_strand(s);
        let trace = [
            ev(0, Kind::SwitchIn, 0, 0),
            ev(3, Kind::Steal, 1, 1).with_arg(0),
            ev(3, Kind::SwitchIn, 1, 1),
            ev(5, Kind::SwitchOut, 1, 1),
            ev(5, Kind::Steal, 1, 2).with_arg(0),
            ev(5, Kind::SwitchIn, 1, 2),
            ev(6, Kind::SwitchOut, 1, 2),
        ];
        let c = &job_counts(&trace)[&(0, 0)];
        assert_eq!((c.migrations, c.steals), (2, 2));
    }
}
