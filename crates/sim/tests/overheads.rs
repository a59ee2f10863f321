//! Overheads in the simulator (crate::overheads): hand-derived schedules for each charging
//! rule, and properties (a zero overhead file changes nothing; overheads never let a job
//! finish before its release delay, dispatch and demand; traces stay well-formed).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use proptest::prelude::*;
use schedlab_model::overheads::{Curve, OverheadFile, Stat};
use schedlab_model::{Duration, Task, TaskSet, Time};
use schedlab_policy::Placement;
use schedlab_sim::{run, Charged, Interrupts, JobRecord, Overheads, SimConfig, SimResult};
use schedlab_trace::intervals::intervals;

fn ns(v: u64) -> Duration {
    Duration::from_ns(v)
}

/// Tasks `(C, D, T, offset)`.
fn set(tasks: &[(u64, u64, u64, u64)]) -> TaskSet {
    TaskSet::new(
        tasks
            .iter()
            .map(|&(c, d, t, o)| {
                let mut task = Task::new(ns(c), ns(d), ns(t)).unwrap();
                task.offset = ns(o);
                task.wss = Some(200);
                task
            })
            .collect(),
    )
    .unwrap()
}

fn sim(ts: &TaskSet, policy: &str, cpus: u32, horizon: u64, oh: Option<Overheads>) -> SimResult {
    let placement = (policy == "pedf")
        .then(|| Placement::new(ts.iter().map(|t| t.cpu.unwrap_or(0)).collect(), 1));
    let mut cfg = SimConfig::new(cpus, ns(horizon));
    cfg.overheads = oh;
    cfg.record_trace = true;
    let ranks: Vec<u32> = (0..ts.len() as u32).collect();
    run(ts, policy, &ranks, placement, &cfg).unwrap().0
}

fn job(r: &SimResult, task: u32, seq: u64) -> &JobRecord {
    r.jobs
        .iter()
        .find(|j| j.task == task && j.seq == seq)
        .unwrap()
}

/// (start, completion) of a job.
fn sc(r: &SimResult, task: u32, seq: u64) -> (Option<u64>, Option<u64>) {
    let j = job(r, task, seq);
    (j.start.map(Time::as_ns), j.completion.map(Time::as_ns))
}

fn charged(r: &SimResult) -> Charged {
    r.overheads.as_ref().unwrap().charged
}

fn oh(interrupts: Interrupts) -> Overheads {
    Overheads {
        interrupts,
        ..Overheads::default()
    }
}

/// Release delay and dispatch (rules 1, 2), `global-lock-di` (no interference), G-EDF on 2
/// CPUs: Δev = 1, Δrel = 2, Δsch = 1, Δcxs = 1, Δipi = 1; τ0 = (5, 20, 20), τ1 = (4, 20, 20).
/// Both released at 0, visible at 0 + 1 + 2 = 3; the release links both (remote: the
/// interrupt CPU decided) → δ = Δipi + Δsch + Δcxs = 3: both start at 6; τ0 completes at
/// 11, τ1 at 10. Charged: release 2·3 = 6, dispatch 2·3 = 6.
#[test]
fn release_delay_and_dispatch() {
    let o = Overheads {
        release_latency: ns(1),
        release: ns(2),
        schedule: ns(1),
        context_switch: ns(1),
        ipi: ns(1),
        ..oh(Interrupts::Dedicated)
    };
    let r = sim(
        &set(&[(5, 20, 20, 0), (4, 20, 20, 0)]),
        "gedf",
        2,
        20,
        Some(o),
    );
    assert_eq!(sc(&r, 0, 0), (Some(6), Some(11)));
    assert_eq!(sc(&r, 1, 0), (Some(6), Some(10)));
    assert_eq!(
        job(&r, 0, 0).release,
        Time::from_ns(0),
        "the release stays r"
    );
    assert_eq!(
        job(&r, 0, 0).deadline,
        Time::from_ns(20),
        "the deadline stays r + D"
    );
    assert_eq!(
        charged(&r),
        Charged {
            release: 6,
            dispatch: 6,
            cpmd: 0,
            interrupt: 0
        }
    );
}

/// CPMD overheads shared by the next two tests: Δsch = 1, Δcxs = 0, Δipi = 3 (a remote
/// decision costs 4, a local one 1); CPMD preemption (0,0)→(1000,10), migration
/// (0,0)→(1000,25): at wss = 200 bytes, 2 and 5.
fn cpmd_overheads() -> Overheads {
    Overheads {
        schedule: ns(1),
        ipi: ns(3),
        cpmd_preemption: Some(Curve::new(vec![(0, 0), (1000, 10)]).unwrap()),
        cpmd_migration: Some(Curve::new(vec![(0, 0), (1000, 25)]).unwrap()),
        ..oh(Interrupts::Dedicated)
    }
}

/// Preemption with CPMD on the same CPU (rule 3), G-EDF on 2 CPUs:
/// τ0 = (20, 30, 30), τ1 = (10, 30, 30), τ2 = (2, 13, 100) released at 6.
/// t=0: τ0 → CPU0, τ1 → CPU1 (release: δ = 4): run from 4. t=6: τ2 (d 19) preempts τ1 (d 30,
/// the larger index of the equal deadlines; executed 2); δ = 4: τ2 runs 10–12. t=12: τ2
/// completes on CPU1 and τ1 resumes there (local: δ = 1) with CPMD 2: remaining 8 + 2 from
/// 13 → completes 23 (executed 12). τ0 completes 24.
/// Charged: dispatch 4 + 4 + 4 + 1 = 13, CPMD 2.
#[test]
fn preemption_with_cpmd() {
    let ts = set(&[(20, 30, 30, 0), (10, 30, 30, 0), (2, 13, 100, 6)]);
    let r = sim(&ts, "gedf", 2, 30, Some(cpmd_overheads()));
    assert_eq!(sc(&r, 0, 0), (Some(4), Some(24)));
    assert_eq!(sc(&r, 1, 0), (Some(4), Some(23)));
    assert_eq!(sc(&r, 2, 0), (Some(10), Some(12)));
    let j = job(&r, 1, 0);
    assert_eq!((j.preemptions, j.migrations), (1, 0));
    assert_eq!(j.executed, ns(12), "executed includes the reload");
    assert_eq!(j.cpus_used, vec![1]);
    assert_eq!((charged(&r).dispatch, charged(&r).cpmd), (13, 2));
}

/// Migration with CPMD (rule 3), same overheads: τ0 = (4, 30, 30), τ1 = (10, 30, 30),
/// τ2 = (2, 13, 100) released at 6.
/// t=0: τ0 → CPU0 runs 4–8, τ1 → CPU1 runs from 4. t=6: τ2 (d 19) preempts τ1 (executed 2);
/// τ2 runs 10–12 on CPU1. t=8: τ0 completes on CPU0; τ1 resumes on CPU0 (local to the
/// completion: δ = 1), migrated: CPMD 5, remaining 8 + 5 from 9 → completes 22.
/// Charged: dispatch 4 + 4 + 4 + 1 = 13, CPMD 5.
#[test]
fn migration_with_cpmd() {
    let ts = set(&[(4, 30, 30, 0), (10, 30, 30, 0), (2, 13, 100, 6)]);
    let r = sim(&ts, "gedf", 2, 30, Some(cpmd_overheads()));
    assert_eq!(sc(&r, 0, 0), (Some(4), Some(8)));
    assert_eq!(sc(&r, 1, 0), (Some(4), Some(22)));
    assert_eq!(sc(&r, 2, 0), (Some(10), Some(12)));
    let j = job(&r, 1, 0);
    assert_eq!((j.preemptions, j.migrations), (1, 1));
    assert_eq!(j.executed, ns(15));
    assert_eq!(j.cpus_used, vec![1, 0]);
    assert_eq!((charged(&r).dispatch, charged(&r).cpmd), (13, 5));
}

/// The message-passing round trip [MP App. B] (rule 2), G-EDF on 2 client CPUs:
/// Δev = Δrel = 1, Δipi = Δsch = Δcxs = 1, Δreq = 2, Δdsp = 3.
/// τ0 = (4, 10, 10), τ1 = (6, 20, 20), τ2 = (3, 20, 20).
/// t=0: all released, visible at 2: τ0 → CPU0, τ1 → CPU1, τ2 waits; the DSP decided:
/// δ = Δipi + Δsch + Δcxs = 3: τ0 runs 5–9, τ1 5–11. t=9: τ0 completes on CPU0, τ2 linked
/// there: the round trip δ = 2 + 3 + 1 + 1 + 1 = 8: τ2 runs 17–20 (meets 20, the horizon).
/// t=10: τ0#1 (d 20) released, visible at 12: CPU1 is idle since 11 → δ = 3: runs 15–19.
/// Charged: release 4 jobs · 2 = 8; dispatch 3 + 3 + 8 + 3 = 17.
#[test]
fn message_passing_round_trip() {
    let o = Overheads {
        release_latency: ns(1),
        release: ns(1),
        ipi: ns(1),
        schedule: ns(1),
        context_switch: ns(1),
        request: ns(2),
        dsp: ns(3),
        ..oh(Interrupts::Dsp)
    };
    let ts = set(&[(4, 10, 10, 0), (6, 20, 20, 0), (3, 20, 20, 0)]);
    let r = sim(&ts, "gedf", 2, 20, Some(o));
    assert_eq!(sc(&r, 0, 0), (Some(5), Some(9)));
    assert_eq!(sc(&r, 1, 0), (Some(5), Some(11)));
    assert_eq!(sc(&r, 2, 0), (Some(17), Some(20)));
    assert_eq!(sc(&r, 0, 1), (Some(15), Some(19)));
    assert!(r.totals.schedulable);
    assert_eq!((charged(&r).release, charged(&r).dispatch), (8, 17));
}

/// Release-interrupt interference (rule 4) under `global-lock` (handlers on the jobs' CPUs),
/// G-EDF on 2 CPUs, only Δev = 1, Δrel = 2: τ0 = (10, 50, 50), τ1 = (2, 5, 5) from 4.
/// t=0: τ0's handler runs at 1 on CPU0 (idle: absorbed); visible at 3 → CPU0 runs from 3.
/// t=4: τ1#0's handler (first job: CPU0) at 5 freezes τ0 for 2: τ0 completes 13 + 2 = 15.
/// τ1#0 visible at 7 → CPU1, runs 7–9. τ1#1 (r 9): handler on CPU1 (where τ1#0 ran) at 10,
/// idle; visible 12, runs 12–14. τ1#2 (r 14): 17–19. τ1#3 (r 19) is not visible before the
/// horizon 20 (unfinished, deadline 24 after the horizon: no miss).
/// Charged: release 4 · 3 = 12, interrupt 2.
#[test]
fn release_interrupt_interference() {
    let o = Overheads {
        release_latency: ns(1),
        release: ns(2),
        ..oh(Interrupts::of_arch("global-lock"))
    };
    let ts = set(&[(10, 50, 50, 0), (2, 5, 5, 4)]);
    let r = sim(&ts, "gedf", 2, 20, Some(o));
    assert_eq!(sc(&r, 0, 0), (Some(3), Some(15)));
    assert_eq!(job(&r, 0, 0).executed, ns(10));
    assert_eq!(sc(&r, 1, 0), (Some(7), Some(9)));
    assert_eq!(sc(&r, 1, 1), (Some(12), Some(14)));
    assert_eq!(sc(&r, 1, 2), (Some(17), Some(19)));
    assert_eq!(sc(&r, 1, 3), (None, None));
    assert_eq!(r.totals.jobs, 5);
    assert!(r.totals.schedulable);
    assert_eq!((charged(&r).release, charged(&r).interrupt), (12, 2));
}

/// Partitioned: a task's release interrupt lands on its own CPU (rule 4), P-EDF with both
/// tasks on CPU1, Δev = 1, Δrel = 2: τ0 = (10, 50, 50), τ1 = (1, 20, 50) from 5.
/// τ0 visible at 3 → runs from 3 on CPU1. t=5: τ1's handler at 6 on CPU1 freezes τ0 (executed
/// 3) until 8; τ1 visible at 8 (d 25 < 50) preempts τ0 (local: δ = 0): runs 8–9; τ0 resumes
/// at 9 with 7 left → completes 16.
#[test]
fn partitioned_interrupt_on_the_tasks_cpu() {
    let o = Overheads {
        release_latency: ns(1),
        release: ns(2),
        ..oh(Interrupts::of_arch("partitioned"))
    };
    let mut ts = set(&[(10, 50, 50, 0), (1, 20, 50, 5)]);
    ts = TaskSet::new(
        ts.iter()
            .map(|t| {
                let mut t = t.clone();
                t.cpu = Some(1);
                t
            })
            .collect(),
    )
    .unwrap();
    let r = sim(&ts, "pedf", 2, 30, Some(o));
    assert_eq!(sc(&r, 0, 0), (Some(3), Some(16)));
    assert_eq!(job(&r, 0, 0).preemptions, 1);
    assert_eq!(sc(&r, 1, 0), (Some(8), Some(9)));
    assert_eq!(charged(&r).interrupt, 2);
}

/// The overheads come from a file: one architecture is the default, values are evaluated at
/// n = the number of tasks, a missing statistic is an error, several architectures need a
/// choice.
#[test]
fn overheads_from_a_file() {
    let text = "schema = 1\n[arch.message-passing.ipi]\navg = [[1, 10], [11, 110]]\n\
                [arch.message-passing.schedule]\nmax = [[1, 5]]\n\
                [cpmd.migration]\navg = [[0, 0], [100, 50]]\nmax = [[0, 7]]\n";
    let f = OverheadFile::parse_toml(text).unwrap();
    let e = Overheads::from_file(&f, "f.toml", None, Stat::Avg, 6, 2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "overhead file: arch `message-passing`, overhead `schedule`: no `avg` values (the file gives only `max`)"
    );
    let e = Overheads::from_file(&f, "f.toml", None, Stat::Max, 6, 2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "overhead file: arch `message-passing`, overhead `ipi`: no `max` values (the file gives only `avg`)"
    );
    let text = text.replace("max = [[1, 5]]", "avg = [[1, 5]]");
    let f = OverheadFile::parse_toml(&text).unwrap();
    let o = Overheads::from_file(&f, "f.toml", None, Stat::Avg, 6, 2).unwrap();
    assert_eq!(
        (o.arch.as_str(), o.interrupts),
        ("message-passing", Interrupts::Dsp)
    );
    // ipi at n = 6: 10 + (6 − 1)·100/10 = 60; absent overheads are zero.
    assert_eq!((o.ipi, o.schedule, o.release), (ns(60), ns(5), ns(0)));
    assert!(o.cpmd_preemption.is_none());
    assert_eq!(o.cpmd_migration.as_ref().map(|c| c.eval(50)), Some(25));
    let two = format!("{text}[arch.partitioned.schedule]\navg = [[1, 2]]\n");
    let f = OverheadFile::parse_toml(&two).unwrap();
    let e = Overheads::from_file(&f, "f.toml", None, Stat::Avg, 6, 2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "overhead file: arch: the file describes several architectures (message-passing, partitioned); choose one"
    );
    let o = Overheads::from_file(&f, "f.toml", Some("partitioned"), Stat::Avg, 6, 2).unwrap();
    assert_eq!((o.schedule, o.interrupts), (ns(2), Interrupts::OnCpus));
    let e = Overheads::from_file(&f, "f.toml", Some("partitoned"), Stat::Avg, 6, 2).unwrap_err();
    assert!(e.to_string().contains("did you mean `partitioned`?"), "{e}");
}

/// A file with sections per core count: the section for the machine's M (`<arch>@m<M>`) wins
/// over the plain one; M counts the DSP (or interrupt CPU) the simulator does not simulate.
#[test]
fn overheads_of_the_machines_core_count() {
    let text = "schema = 1\n\
                [arch.global-lock.schedule]\navg = [[1, 8]]\n\
                [arch.\"global-lock@m64\".schedule]\navg = [[1, 64]]\n";
    let f = OverheadFile::parse_toml(text).unwrap();
    let at = |arch, cpus| Overheads::from_file(&f, "f.toml", arch, Stat::Avg, 6, cpus).unwrap();
    let o = at(Some("global-lock"), 64);
    assert_eq!((o.arch.as_str(), o.schedule), ("global-lock@m64", ns(64)));
    assert_eq!(o.interrupts, Interrupts::OnCpus);
    let o = at(Some("global-lock"), 8);
    assert_eq!((o.arch.as_str(), o.schedule), ("global-lock", ns(8)));
    // One architecture (in two sections) is still the default.
    assert_eq!(at(None, 64).schedule, ns(64));
    assert_eq!(at(None, 63).schedule, ns(8));
    // message-passing on 63 simulated CPUs is a machine of 64 (the DSP).
    let text = "schema = 1\n[arch.\"message-passing@m64\".schedule]\navg = [[1, 3]]\n";
    let f = OverheadFile::parse_toml(text).unwrap();
    let o = Overheads::from_file(&f, "f.toml", None, Stat::Avg, 6, 63).unwrap();
    assert_eq!((o.schedule, o.interrupts), (ns(3), Interrupts::Dsp));
    let e = Overheads::from_file(&f, "f.toml", None, Stat::Avg, 6, 64).unwrap_err();
    assert_eq!(
        e.to_string(),
        "overhead file: arch: the file describes `message-passing` only for other core counts (message-passing@m64), not for M = 65"
    );
    let e =
        Overheads::from_file(&f, "f.toml", Some("message-passing"), Stat::Avg, 6, 8).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("overhead file: no architecture `message-passing`"),
        "{e}"
    );
}

/// Tasks `(C, D, T, offset)`, CPUs, policy index.
type Case = (Vec<(u64, u64, u64, u64)>, u32, usize);

fn zero_file_case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((1u64..20, 0u64..10, 10u64..60, 0u64..15), 1..6),
        1u32..4,
        0usize..3,
    )
        .prop_map(|(v, m, p)| {
            let tasks = v
                .into_iter()
                .map(|(c, slack, t, o)| (c, (c + slack).max(c), t.max(c), o))
                .collect();
            (tasks, m, p)
        })
}

fn strip(mut r: SimResult) -> SimResult {
    r.overheads = None;
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// An overhead file of zeros gives the zero-overhead result, bit for bit (trace included).
    #[test]
    fn zero_overheads_change_nothing((tasks, m, p) in zero_file_case(), arch in 0usize..3) {
        let ts = set(&tasks);
        let policy = ["gedf", "gfp", "gnpedf"][p];
        let interrupts = [Interrupts::Dsp, Interrupts::Dedicated, Interrupts::OnCpus][arch];
        let zero = Overheads {
            cpmd_preemption: Some(Curve::constant(0).unwrap()),
            ..oh(interrupts)
        };
        let base = sim(&ts, policy, m, 300, None);
        let with = sim(&ts, policy, m, 300, Some(zero));
        prop_assert_eq!(with.overheads.as_ref().map(|o| o.charged), Some(Charged::default()));
        prop_assert_eq!(strip(with), base);
    }

    /// With overheads, every completed job ran for at least its demand, after its release
    /// delay and one dispatch; the trace stays in time order, executions on a CPU never
    /// overlap, and without interference a job's execution intervals sum to its executed time.
    #[test]
    fn overheads_only_delay((tasks, m, p) in zero_file_case(), arch in 0usize..3,
                            d in prop::collection::vec(0u64..4, 7)) {
        let ts = set(&tasks);
        let policy = ["gedf", "gfp", "gnpedf"][p];
        let interrupts = [Interrupts::Dsp, Interrupts::Dedicated, Interrupts::OnCpus][arch];
        let o = Overheads {
            release_latency: ns(d[0]),
            release: ns(d[1]),
            ipi: ns(d[2]),
            schedule: ns(d[3]),
            context_switch: ns(d[4]),
            request: ns(d[5]),
            dsp: ns(d[6]),
            cpmd_preemption: Some(Curve::new(vec![(0, 1), (400, 3)]).unwrap()),
            cpmd_migration: Some(Curve::constant(4).unwrap()),
            ..oh(interrupts)
        };
        let r = sim(&ts, policy, m, 300, Some(o));
        let first = d[0] + d[1] + d[3] + d[4];
        for j in &r.jobs {
            let c = ts.get(j.task as usize).unwrap().wcet.as_ns();
            if let Some(done) = j.completion {
                prop_assert!(j.executed.as_ns() >= c, "{:?}", j);
                prop_assert!(done.as_ns() >= j.release.as_ns() + first + c, "{:?}", j);
            }
            if let Some(s) = j.start {
                prop_assert!(s.as_ns() >= j.release.as_ns() + first, "{:?}", j);
                prop_assert!(!j.executed.is_zero(), "{:?}", j);
            }
        }
        prop_assert!(r.trace.windows(2).all(|w| w[0].time <= w[1].time));
        let iv = intervals(&r.trace);
        for cpu in 0..m {
            let mut mine: Vec<_> = iv.iter().filter(|i| i.cpu == cpu).collect();
            mine.sort_by_key(|i| i.start);
            prop_assert!(mine.windows(2).all(|w| w[0].end <= w[1].start), "{:?}", mine);
        }
        if interrupts != Interrupts::OnCpus {
            for j in &r.jobs {
                let sum: u64 = iv.iter().filter(|i| i.task == j.task && i.seq == j.seq).map(|i| i.len()).sum();
                prop_assert_eq!(sum, j.executed.as_ns(), "{:?}", j);
            }
        }
    }
}
