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
//! - **migrations**: its `switch-in`s on another CPU than the one where the job last
//!   executed: the CPU of its latest `switch-out` or earlier `switch-in`, of any of its
//!   threads. Several threads of one job switched in at the same instant are each compared
//!   with where the job executed *before* that instant (so the order in which one instant's
//!   `switch-in`s are written does not matter). For a sequential job (one strand) this is
//!   "another CPU than its previous `switch-in`"; for a parallel (fork-join) job [RTWS §III]
//!   it is the one definition of the issue: a thread run where its job forked it is no
//!   migration, a stolen one is — the `switch-in` that follows a thread's `steal` is a
//!   migration even when the thief last ran another thread of the same job (it took the
//!   thread from the victim's CPU), so a job's steals never outnumber its migrations;
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
    /// CPU of its last `switch-in` or `switch-out` (any strand).
    last_cpu: Option<u32>,
    /// The instant of its latest `switch-in`s and where it had executed before them.
    group: Option<(u64, Option<u32>)>,
    /// Strands stolen whose `switch-in` is still to come.
    stolen: Vec<u32>,
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
                let before = match self.group {
                    Some((t, before)) if t == e.time => before,
                    _ => self.last_cpu,
                };
                self.group = Some((e.time, before));
                let stolen = match self.stolen.iter().position(|&s| s == e.strand) {
                    Some(k) => {
                        self.stolen.swap_remove(k);
                        true
                    }
                    None => false,
                };
                if stolen || before.is_some_and(|c| c != e.cpu) {
                    self.migrations = self.migrations.saturating_add(1);
                }
                self.last_cpu = Some(e.cpu);
            }
            Kind::SwitchOut => {
                self.last_cpu = Some(e.cpu);
                self.group = None;
            }
            Kind::Preempt => self.preemptions = self.preemptions.saturating_add(1),
            Kind::Steal => {
                self.steals = self.steals.saturating_add(1);
                self.stolen.push(e.strand);
            }
            _ => {}
        }
    }
}

/// The counters of every job that has a `switch-in`, `switch-out`, `preempt` or `steal` in
/// `events` (in trace order), by (task, seq).
pub fn job_counts(events: &[Event]) -> HashMap<(u32, u64), JobCounts> {
    let mut out: HashMap<(u32, u64), JobCounts> = HashMap::new();
    let counted = |k: Kind| {
        matches!(
            k,
            Kind::SwitchIn | Kind::SwitchOut | Kind::Preempt | Kind::Steal
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

    /// A parallel job τ0#0: strand 0 runs on CPU 0 (0–3) and forks; at 3 strand 1 is stolen
    /// by CPU 1 (a migration: the job last executed on CPU 0) and strand 2 runs on CPU 0 (no
    /// migration, although strand 1's `switch-in` was written first: both are compared with
    /// where the job executed before 3). Strand 2 ends on CPU 0 at 4, strand 1 on CPU 1 at 5;
    /// strand 3 then runs on CPU 0 at 5 — the job last executed on CPU 1: a migration. Two
    /// migrations, one steal.
    #[test]
    fn parallel_job_migrations_follow_the_jobs_last_cpu() {
        let ev = |t, k, cpu, s: u32| Event::new(t, k, cpu, 0, 0).with_strand(s);
        let trace = [
            ev(0, Kind::SwitchIn, 0, 0),
            ev(3, Kind::SwitchOut, 0, 0),
            ev(3, Kind::Steal, 1, 1).with_arg(0),
            ev(3, Kind::SwitchIn, 1, 1),
            ev(3, Kind::SwitchIn, 0, 2),
            ev(4, Kind::SwitchOut, 0, 2),
            ev(5, Kind::SwitchOut, 1, 1),
            ev(5, Kind::SwitchIn, 0, 3),
            ev(6, Kind::SwitchOut, 0, 3),
        ];
        let c = &job_counts(&trace)[&(0, 0)];
        assert_eq!((c.migrations, c.steals, c.preemptions), (2, 1, 0));
        assert_eq!(c.cpus, vec![0, 1]);
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
