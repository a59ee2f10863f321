//! Properties of a runtime trace, checked after the fact (the tests of real runs use them,
//! and a user can run them on any trace):
//! - [`parallel_execution`]: no job — no *strand* of a parallel (fork-join) job [RTWS §III] —
//!   executes on two CPUs at once (its execution intervals on different CPUs never overlap;
//!   different threads of one parallel job may run at once, that is their point);
//! - [`bracketing`]: every execution stretch on a CPU is bracketed by exactly one
//!   `switch-in` and one `switch-out` of the same strand on that CPU — per CPU the two
//!   alternate, starting with a `switch-in` (a whole run's trace; a stretch still open at its
//!   end is a job unfinished when the run stopped). [`intervals`] tolerates broken edges (cut
//!   traces) by guessing, so a trace that breaks this makes every interval-based measure
//!   (`trace supply`, [`parallel_execution`], Gantt charts) count service that did not
//!   happen or miss service that did;
//! - [`cpus_per_task`]: the CPUs each task's jobs executed on (partitioned: one each);
//! - [`part_overruns`]: a job of a split task [RTPS §III] that executed longer on a part's
//!   CPU than that part's budget (the metadata's `split`), or on a CPU that hosts none of its
//!   parts;
//! - [`invariant`]: the global scheduling invariant [MP §II-A] — the linked jobs are the
//!   `min(m, ready)` highest-priority ready jobs — as the fraction of the run during which it
//!   held and the worst violation window. It is evaluated on the scheduler's view as
//!   recorded at decision time (`ready`, `complete`, `abort`, `link`, `unlink`; a job between
//!   `block` and `resume` is not ready), with the equal-key rule of `schedlab_policy::prio`
//!   (a ready job violates it only with a strictly higher priority primary key than a linked
//!   one). Keys are the jobs' own: priority inheritance (a boosted resource holder) shows as
//!   a violation, by design of the check.
//!
//! Host stalls make strict timing assertions flaky, so [`invariant`] reports; tests compare
//! the fraction, not windows.

use crate::file::Meta;
use crate::intervals::intervals;
use crate::{Event, Kind};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A job (a strand of a parallel job) executing on two CPUs at once: (task, seq, cpu a,
/// cpu b, overlap start, overlap end).
pub type Overlap = (u32, u64, u32, u32, u64, u64);

/// A split job's execution on one CPU beyond its part's budget: (task, seq, cpu, executed
/// ns, budget ns); the budget is 0 on a CPU that hosts none of the task's parts.
pub type PartOverrun = (u32, u64, u32, u64, u64);

/// Every job of a split task (in `meta`) that executed longer on a CPU than the budget of its
/// part there, in (task, seq, cpu) order. A tail overruns only if the job overran its WCET.
pub fn part_overruns(meta: &Meta, events: &[Event]) -> Vec<PartOverrun> {
    let mut executed: BTreeMap<(u32, u64, u32), u64> = BTreeMap::new();
    for iv in intervals(events) {
        let split = usize::try_from(iv.task)
            .ok()
            .and_then(|t| meta.tasks.get(t))
            .is_some_and(|t| !t.split.is_empty());
        if split {
            *executed.entry((iv.task, iv.seq, iv.cpu)).or_default() += iv.len();
        }
    }
    executed
        .into_iter()
        .filter_map(|((task, seq, cpu), ran)| {
            let budget = meta.part_on(task, cpu).map_or(0, |(_, _, p)| p.budget_ns);
            (ran > budget).then_some((task, seq, cpu, ran, budget))
        })
        .collect()
}

/// Every overlap of a strand's execution intervals on different CPUs (a sequential job is
/// its strand 0), in (task, seq, strand) order.
pub fn parallel_execution(events: &[Event]) -> Vec<Overlap> {
    // (task, seq, strand) → its intervals as (start, end, cpu).
    type Ivs = Vec<(u64, u64, u32)>;
    let mut by_strand: BTreeMap<(u32, u64, u32), Ivs> = BTreeMap::new();
    for iv in intervals(events) {
        by_strand
            .entry((iv.task, iv.seq, iv.strand))
            .or_default()
            .push((iv.start, iv.end, iv.cpu));
    }
    let mut out = Vec::new();
    for ((task, seq, _), mut ivs) in by_strand {
        ivs.sort_unstable();
        for (i, a) in ivs.iter().enumerate() {
            for b in ivs.iter().skip(i + 1) {
                if b.0 >= a.1 {
                    break;
                }
                if a.2 != b.2 && b.0 < b.1 && a.0 < a.1 {
                    out.push((task, seq, a.2, b.2, b.0, a.1.min(b.1)));
                }
            }
        }
    }
    out
}

/// A broken bracket of [`bracketing`]: at `time` on `cpu`, the `switch-in`/`switch-out`
/// (`kind`) of `job` (task, seq, strand) while `open` — the stretch open on that CPU then,
/// `None` if none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unbracketed {
    /// Time of the event, ns.
    pub time: u64,
    /// CPU.
    pub cpu: u32,
    /// `SwitchIn` (while a stretch is open: a lost `switch-out` or a duplicate `switch-in`)
    /// or `SwitchOut` (of a stretch that is not open: a lost `switch-in`).
    pub kind: Kind,
    /// (task, seq, strand) of the event.
    pub job: (u32, u64, u32),
    /// The stretch open on the CPU: (task, seq, strand, its start).
    pub open: Option<(u32, u64, u32, u64)>,
}

/// Every `switch-in` or `switch-out` of a whole run's trace that breaks the bracketing of
/// execution stretches (module doc), in trace order: a `switch-in` on a CPU with a stretch
/// open, a `switch-out` on a CPU without one or with another strand's open. One pass, a map
/// of open stretches by CPU: O(n log m).
pub fn bracketing(events: &[Event]) -> Vec<Unbracketed> {
    let mut open: BTreeMap<u32, (u32, u64, u32, u64)> = BTreeMap::new();
    let mut out = Vec::new();
    for e in events {
        let job = (e.task, e.seq, e.strand);
        match e.kind {
            Kind::SwitchIn => {
                let was = open.insert(e.cpu, (e.task, e.seq, e.strand, e.time));
                if was.is_some() {
                    out.push(Unbracketed {
                        time: e.time,
                        cpu: e.cpu,
                        kind: e.kind,
                        job,
                        open: was,
                    });
                }
            }
            Kind::SwitchOut => {
                let cur = open.get(&e.cpu).copied();
                if cur.is_some_and(|(t, s, st, _)| (t, s, st) == job) {
                    open.remove(&e.cpu);
                } else {
                    out.push(Unbracketed {
                        time: e.time,
                        cpu: e.cpu,
                        kind: e.kind,
                        job,
                        open: cur,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// The set of CPUs each task executed on (from `switch-in` events).
pub fn cpus_per_task(events: &[Event]) -> BTreeMap<u32, BTreeSet<u32>> {
    let mut out: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for e in events.iter().filter(|e| e.kind == Kind::SwitchIn) {
        out.entry(e.task).or_default().insert(e.cpu);
    }
    out
}

/// How well the global scheduling invariant held.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InvariantReport {
    /// Time examined (first `ready` event → horizon), ns.
    pub checked_ns: u64,
    /// Time during which it was violated, ns.
    pub violated_ns: u64,
    /// The longest violation window: (start, length), ns.
    pub worst: Option<(u64, u64)>,
    /// Number of violation windows.
    pub windows: u64,
}

impl InvariantReport {
    /// Fraction of the examined time during which the invariant held (1 if nothing was
    /// examined).
    pub fn held_fraction(&self) -> f64 {
        if self.checked_ns == 0 {
            1.0
        } else {
            1.0 - self.violated_ns as f64 / self.checked_ns as f64
        }
    }
}

fn relevant(e: &Event) -> bool {
    matches!(
        e.kind,
        Kind::Ready
            | Kind::Complete
            | Kind::Abort
            | Kind::Link
            | Kind::Unlink
            | Kind::Block
            | Kind::Resume
    )
}

/// The next event after index `i` that changes the scheduler's view.
fn next_relevant(events: &[Event], i: usize) -> Option<&Event> {
    events.iter().skip(i + 1).find(|e| relevant(e))
}

/// Evaluates the invariant on a trace of a run on `m` CPUs up to `horizon_ns`; `primary`
/// gives a job's primary priority key from (task, intended release) — smaller is higher
/// (e.g. the absolute deadline for G-EDF).
pub fn invariant(
    events: &[Event],
    m: u32,
    horizon_ns: u64,
    primary: impl Fn(u32, u64) -> u64,
) -> InvariantReport {
    let mut ready: HashMap<(u32, u64), u64> = HashMap::new(); // job → primary key
    let mut linked: HashMap<u32, (u32, u64)> = HashMap::new(); // cpu → job
    let mut blocked: HashMap<(u32, u64), u64> = HashMap::new(); // job → primary key
    let violated = |ready: &HashMap<(u32, u64), u64>, linked: &HashMap<u32, (u32, u64)>| {
        let linked_jobs: Vec<(u32, u64)> = linked.values().copied().collect();
        // A linked job that is not ready (it completed; its CPU was not relinked yet).
        if linked_jobs.iter().any(|j| !ready.contains_key(j)) {
            return true;
        }
        let worst_linked = linked_jobs
            .iter()
            .filter_map(|j| ready.get(j).copied())
            .max();
        let idle = (linked.len() as u32) < m;
        ready.iter().any(|(j, k)| {
            !linked_jobs.contains(j) && (idle || worst_linked.is_some_and(|w| *k < w))
        })
    };
    let mut rep = InvariantReport::default();
    let mut prev: Option<u64> = None;
    let mut bad_since: Option<u64> = None;
    let mut was_bad = false;
    let close = |rep: &mut InvariantReport, since: u64, until: u64| {
        let len = until.saturating_sub(since);
        rep.windows += 1;
        if rep.worst.is_none_or(|(_, l)| len > l) {
            rep.worst = Some((since, len));
        }
    };
    for (i, e) in events.iter().enumerate() {
        if !relevant(e) {
            continue;
        }
        let t = e.time.min(horizon_ns);
        if let Some(p) = prev {
            let dt = t.saturating_sub(p);
            rep.checked_ns += dt;
            if was_bad {
                rep.violated_ns += dt;
            }
        }
        match e.kind {
            Kind::Ready => {
                ready.insert((e.task, e.seq), primary(e.task, e.arg));
                prev.get_or_insert(t);
            }
            Kind::Complete | Kind::Abort => {
                ready.remove(&(e.task, e.seq));
                blocked.remove(&(e.task, e.seq));
            }
            Kind::Block => {
                if let Some(k) = ready.remove(&(e.task, e.seq)) {
                    blocked.insert((e.task, e.seq), k);
                }
            }
            Kind::Resume => {
                if let Some(k) = blocked.remove(&(e.task, e.seq)) {
                    ready.insert((e.task, e.seq), k);
                }
            }
            Kind::Link => {
                linked.insert(e.cpu, (e.task, e.seq));
            }
            Kind::Unlink => {
                linked.remove(&e.cpu);
            }
            _ => continue,
        }
        if prev.is_some() {
            prev = Some(t);
        }
        // Events of one instant are one atomic decision: judge the state after the last.
        if next_relevant(events, i).is_some_and(|n| n.time.min(horizon_ns) == t) {
            continue;
        }
        let bad = violated(&ready, &linked);
        match (was_bad, bad) {
            (false, true) => bad_since = Some(t),
            (true, false) => {
                if let Some(s) = bad_since.take() {
                    close(&mut rep, s, t);
                }
            }
            _ => {}
        }
        was_bad = bad;
        if e.time >= horizon_ns {
            break;
        }
    }
    if let Some(p) = prev {
        let dt = horizon_ns.saturating_sub(p);
        rep.checked_ns += dt;
        if was_bad {
            rep.violated_ns += dt;
            if let Some(s) = bad_since {
                close(&mut rep, s, horizon_ns);
            }
        }
    }
    rep
}

#[cfg(test)]
mod split_tests {
    use super::*;

    /// τ1 split [CPU 0: 3, CPU 1: 2]: job 0 runs 3 on CPU 0 (in two pieces) and 2 on CPU 1 —
    /// within its budgets; job 1 runs 4 on CPU 0 (1 over) and 1 on CPU 2 (no part there).
    /// τ0 is whole: never reported.
    #[test]
    fn part_overruns_sum_each_cpus_execution() {
        let mut meta = Meta {
            tasks: vec![crate::TaskMeta::default(); 2],
            ..Meta::default()
        };
        meta.set_split(1, [(0, 3), (1, 2)]);
        let run = |t: u64, cpu: u32, task: u32, seq: u64, len: u64| {
            [
                Event::new(t, Kind::SwitchIn, cpu, task, seq),
                Event::new(t + len, Kind::SwitchOut, cpu, task, seq),
            ]
        };
        let mut events = Vec::new();
        for (t, cpu, task, seq, len) in [
            (0, 0, 1, 0, 1),
            (1, 0, 0, 0, 9),
            (10, 0, 1, 0, 2),
            (12, 1, 1, 0, 2),
            (20, 0, 1, 1, 4),
            (24, 2, 1, 1, 1),
        ] {
            events.extend(run(t, cpu, task, seq, len));
        }
        assert_eq!(
            part_overruns(&meta, &events),
            vec![(1, 1, 0, 4, 3), (1, 1, 2, 1, 0)]
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(t: u64, k: Kind, cpu: u32, task: u32, seq: u64) -> Event {
        Event::new(t, k, cpu, task, seq)
    }

    #[test]
    fn finds_a_job_on_two_cpus() {
        let t = vec![
            ev(0, Kind::SwitchIn, 0, 1, 0),
            ev(5, Kind::SwitchIn, 1, 1, 0),
            ev(8, Kind::SwitchOut, 0, 1, 0),
            ev(9, Kind::SwitchOut, 1, 1, 0),
            ev(9, Kind::SwitchIn, 0, 2, 0),
        ];
        assert_eq!(parallel_execution(&t), vec![(1, 0, 0, 1, 5, 8)]);
        assert_eq!(cpus_per_task(&t)[&1].len(), 2);
        let ok = vec![
            ev(0, Kind::SwitchIn, 0, 1, 0),
            ev(5, Kind::SwitchOut, 0, 1, 0),
            ev(5, Kind::SwitchIn, 1, 1, 0),
            ev(9, Kind::SwitchOut, 1, 1, 0),
        ];
        assert!(parallel_execution(&ok).is_empty());
        // Two strands of one parallel job at once: fine; one strand on two CPUs: reported.
        let par = vec![
            ev(0, Kind::SwitchIn, 0, 1, 0).with_strand(1),
            ev(0, Kind::SwitchIn, 1, 1, 0).with_strand(2),
            ev(2, Kind::SwitchIn, 2, 1, 0).with_strand(2),
            ev(3, Kind::SwitchOut, 0, 1, 0).with_strand(1),
            ev(3, Kind::SwitchOut, 1, 1, 0).with_strand(2),
            ev(4, Kind::SwitchOut, 2, 1, 0).with_strand(2),
        ];
        assert_eq!(parallel_execution(&par), vec![(1, 0, 1, 2, 2, 3)]);
    }

    /// The patterns of a lost edge, hand-made after a real trace (reservations, CPU 1): job
    /// (3, 164) switched in after its park (no switch-out), (1, 120) switched in over it,
    /// and (3, 164)'s later stretch has a switch-out only; a duplicate switch-in of one job;
    /// a well-bracketed trace (two CPUs, a migration, a strand) and an open end: nothing.
    #[test]
    fn finds_lost_switch_ins_and_switch_outs() {
        let lost = vec![
            ev(10, Kind::SwitchIn, 1, 3, 164),
            ev(14, Kind::SwitchIn, 1, 1, 120),
            ev(20, Kind::SwitchOut, 1, 1, 120),
            ev(90, Kind::SwitchOut, 1, 3, 164),
        ];
        let b = bracketing(&lost);
        assert_eq!(b.len(), 2);
        assert_eq!(
            (b[0].time, b[0].kind, b[0].job, b[0].open),
            (14, Kind::SwitchIn, (1, 120, 0), Some((3, 164, 0, 10)))
        );
        assert_eq!(
            (b[1].time, b[1].kind, b[1].open),
            (90, Kind::SwitchOut, None)
        );
        let twice = vec![
            ev(0, Kind::SwitchIn, 0, 0, 12),
            ev(2, Kind::SwitchIn, 0, 0, 12),
            ev(5, Kind::SwitchOut, 0, 0, 12),
        ];
        assert_eq!(bracketing(&twice).len(), 1);
        // Another strand's switch-out while one is open.
        let other = vec![
            ev(0, Kind::SwitchIn, 0, 1, 0).with_strand(1),
            ev(3, Kind::SwitchOut, 0, 1, 0).with_strand(2),
        ];
        assert_eq!(bracketing(&other)[0].open, Some((1, 0, 1, 0)));
        let ok = vec![
            ev(0, Kind::SwitchIn, 0, 1, 0),
            ev(5, Kind::SwitchOut, 0, 1, 0),
            ev(5, Kind::SwitchIn, 1, 1, 0),
            ev(5, Kind::SwitchIn, 0, 2, 0).with_strand(1),
            ev(9, Kind::SwitchOut, 1, 1, 0),
            ev(9, Kind::SwitchOut, 0, 2, 0).with_strand(1),
            ev(9, Kind::SwitchIn, 0, 1, 1),
        ];
        assert!(bracketing(&ok).is_empty());
    }

    /// One CPU, keys = task index. τ1 ready at 0 and linked at 0; τ0 (higher priority) ready
    /// at 10, linked at 14 (τ1 unlinked): violated 10..14. τ0 completes at 20, τ1 relinked
    /// at 23: violated 20..23 (a completed job still linked). Horizon 30: 7 of 30 ns.
    #[test]
    fn measures_violation_windows() {
        let r = |t, task| Event::new(t, Kind::Ready, 0, task, 0).with_arg(0);
        let t = vec![
            r(0, 1),
            ev(0, Kind::Link, 0, 1, 0),
            r(10, 0),
            ev(14, Kind::Link, 0, 0, 0),
            ev(20, Kind::Complete, 0, 0, 0),
            ev(23, Kind::Link, 0, 1, 0),
        ];
        let rep = invariant(&t, 1, 30, |task, _| u64::from(task));
        assert_eq!(rep.checked_ns, 30);
        assert_eq!(rep.violated_ns, 7);
        assert_eq!(rep.windows, 2);
        assert_eq!(rep.worst, Some((10, 4)));
        assert!((rep.held_fraction() - 23.0 / 30.0).abs() < 1e-12);
    }
}
