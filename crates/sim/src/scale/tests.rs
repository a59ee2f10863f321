//! Hand-computable cases of the scaling model (exact integer equality) and properties.

use super::machine::{Costs, Machine, Step};
use super::*;
use proptest::prelude::*;
use schedlab_model::costs::CostName;
use schedlab_model::{Task, TaskSet};

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

/// Costs all zero but the ones given.
fn only(set: &[(CostName, u64)]) -> OpCosts {
    let mut c = OpCosts::default();
    for &name in CostName::ALL {
        c.set(name, 0);
    }
    for &(name, v) in set {
        c.set(name, v);
    }
    c
}

/// k CPUs request a free lock at t = 100 and each holds it for `s`: the acquisition instants.
fn contend(k: u32, s: u64, lock: LockSemantics, costs: &OpCosts) -> Vec<u64> {
    let mut m = Machine::new(k, 1, Costs::from_op(costs), lock, 0);
    m.acquisitions = Some(Vec::new());
    for cpu in 0..k {
        let p = m.path(cpu, &[Step::Lock(0), Step::Work(s), Step::Unlock(0)]);
        m.submit(p, 100, 100);
    }
    m.run_until(u64::MAX);
    let mut a = m.acquisitions.take().unwrap_or_default();
    a.sort_unstable();
    a.into_iter().map(|(_, t)| t).collect()
}

/// The closed form of the machine module doc: `a_j = a₁ + (j − 1)·s + Σ_{i<j} h_i`,
/// `h_i = lock_handoff + lock_per_waiter·(k − i − 1)` (ticket), `lock_handoff` (MCS).
fn closed_form(k: u64, s: u64, t: u64, c: &OpCosts, lock: LockSemantics) -> Vec<u64> {
    let (acq, hand, per) = (
        c.get(CostName::LockAcquire),
        c.get(CostName::LockHandoff),
        c.get(CostName::LockPerWaiter),
    );
    let h = |i: u64| match lock {
        LockSemantics::Ticket => hand + per * (k - i - 1),
        LockSemantics::Mcs => hand,
    };
    (1..=k)
        .map(|j| t + acq + (j - 1) * s + (1..j).map(h).sum::<u64>())
        .collect()
}

#[test]
fn ticket_and_mcs_contention_follow_the_closed_form() {
    let c = only(&[
        (CostName::LockAcquire, 40),
        (CostName::LockHandoff, 150),
        (CostName::LockPerWaiter, 50),
    ]);
    // k = 4, s = 1000, ticket: a = 140, then + 1000 + (150 + 100), + 1000 + (150 + 50),
    // + 1000 + 150.
    assert_eq!(
        contend(4, 1000, LockSemantics::Ticket, &c),
        vec![140, 1390, 2590, 3740]
    );
    assert_eq!(
        contend(4, 1000, LockSemantics::Mcs, &c),
        vec![140, 1290, 2440, 3590]
    );
    for k in [1u32, 2, 7, 33] {
        for lock in LockSemantics::ALL {
            assert_eq!(
                contend(k, 777, lock, &c),
                closed_form(u64::from(k), 777, 100, &c, lock),
                "k = {k}, {lock}"
            );
        }
    }
}

#[test]
fn a_lock_moving_between_cpus_pulls_the_state_over() {
    // Two CPUs one after the other: the second holder pays cache_line inside its section.
    let c = only(&[(CostName::LockAcquire, 10), (CostName::CacheLine, 100)]);
    let mut m = Machine::new(2, 1, Costs::from_op(&c), LockSemantics::Ticket, 0);
    let steps = [
        Step::Begin(Span::Schedule),
        Step::Lock(0),
        Step::Work(5),
        Step::Unlock(0),
        Step::End(Span::Schedule),
    ];
    let a = m.path(0, &steps);
    m.submit(a, 0, 0);
    let b = m.path(1, &steps);
    m.submit(b, 1_000, 1_000);
    let c0 = m.path(1, &steps);
    m.submit(c0, 2_000, 2_000);
    m.run_until(u64::MAX);
    let s = m.stats.get(Span::Schedule);
    // 15, then 10 + 100 + 5, then 15 again (CPU 1 held it last).
    assert_eq!((s.count, s.sum_ns, s.max_ns), (3, 15 + 115 + 15, 115));
}

fn implicit(c: Duration, t: Duration, k: usize) -> TaskSet {
    let tasks: Vec<Task> = (0..k).filter_map(|_| Task::implicit(c, t).ok()).collect();
    TaskSet::new(tasks).unwrap_or_else(|_| unreachable!("valid tasks"))
}

fn ranks(n: usize) -> Vec<u32> {
    (0..n as u32).collect()
}

#[test]
fn dsp_serves_simultaneous_requests_in_order() {
    // k clients complete at 1 ms and go idle: k messages reach an idle DSP at once.
    let (deq, handler, send) = (300, 900, 200);
    for k in [1u64, 2, 5, 12] {
        let costs = only(&[
            (CostName::DspDequeue, deq),
            (CostName::DspHandler, handler),
            (CostName::MessageSend, send),
        ]);
        let tasks = implicit(ms(1), ms(10), k as usize);
        let mut cfg = ScaleConfig::new(ScaleArch::MessagePassing, k as u32 + 1, ms(5));
        cfg.costs = costs;
        let r = scale(&tasks, &ranks(k as usize), None, &cfg).unwrap_or_else(|e| panic!("{e}"));
        let req = r.stats.get(Span::Request);
        let dsp = r.stats.get(Span::Dsp);
        // The last: (k − 1)(dequeue + handler) + dequeue; the j-th: (j − 1)(…) + dequeue.
        assert_eq!(req.count, k);
        assert_eq!(req.max_ns, (k - 1) * (deq + handler) + deq, "k = {k}");
        let sum: u64 = (1..=k).map(|j| (j - 1) * (deq + handler) + deq).sum();
        assert_eq!(req.sum_ns, u128::from(sum));
        assert_eq!((dsp.count, dsp.max_ns), (k, handler));
        assert_eq!(r.jobs, k);
    }
}

#[test]
fn one_release_on_an_idle_partitioned_cpu_costs_exactly_its_sum() {
    let set = [
        (CostName::TimerIrq, 1_000),
        (CostName::Release, 500),
        (CostName::QueueOp, 150),
        (CostName::QueueOpLog, 25),
        (CostName::PreemptCheckCpu, 10),
        (CostName::Schedule, 1_000),
        (CostName::Link, 100),
        (CostName::ContextSwitch, 5_000),
        (CostName::LockAcquire, 50),
        (CostName::CacheLine, 100),
    ];
    let tasks = implicit(ms(1), ms(10), 1);
    let mut cfg = ScaleConfig::new(ScaleArch::Partitioned, 1, ms(5));
    cfg.costs = only(&set);
    let placement = Placement::new(vec![0], 1);
    let r = scale(&tasks, &[0], Some(placement), &cfg).unwrap_or_else(|e| panic!("{e}"));
    let g = |s| r.stats.get(s);
    // qop(x) = 150 + 25·bits(x): qop(0) = 150, qop(1) = 175 (n_c = 1, the task's own).
    assert_eq!(g(Span::ReleaseLatency).max_ns, 1_000);
    let rel = 50 + 500 + 175 + 150 + 2 * 10 + 100 + 175;
    assert_eq!((g(Span::Release).count, g(Span::Release).max_ns), (1, rel));
    // Δsch after the release, then at the completion (+ one preemption check, no next job).
    let sch = g(Span::Schedule);
    assert_eq!(sch.count, 2);
    assert_eq!(sch.sum_ns, (50 + 1_000 + 100) + (50 + 1_000 + 100 + 10u128));
    assert_eq!(g(Span::ContextSwitch).sum_ns, 5_000);
    assert_eq!(g(Span::LockWait).max_ns, 50);
}

/// Max and sum of Δrel and Δsch for a synchronous release of m jobs on m idle CPUs under
/// global-lock with only lock costs, `release` = r and `schedule` = s (derivation in the
/// test below).
fn sync_release_closed_form(m: u64, c: &OpCosts, lock: LockSemantics) -> (u64, u64, u64, u64) {
    let (a, hd, w) = (
        c.get(CostName::LockAcquire),
        c.get(CostName::LockHandoff),
        c.get(CostName::LockPerWaiter),
    );
    let (r, s) = (c.get(CostName::Release), c.get(CostName::Schedule));
    let w = if lock == LockSemantics::Mcs { 0 } else { w };
    // Handler phase: every release leaves m − 1 waiters (H_{i+1..m} and S_{1..i−1}).
    let big_h = hd + w * (m.saturating_sub(2));
    let acq_h = |i: u64| a + (i - 1) * (r + big_h);
    let end_h = |i: u64| acq_h(i) + r;
    // Schedule phase: S_1 takes it from H_m, S_j from S_{j−1} with m − j + 1 waiters.
    // (with one CPU the lock is free again: a plain acquisition)
    let acq_s1 = end_h(m) + if m > 1 { big_h } else { a };
    let acq_s = |j: u64| acq_s1 + (j - 1) * s + (1..j).map(|i| hd + w * (m - i - 1)).sum::<u64>();
    let rel: Vec<u64> = (1..=m).map(end_h).collect();
    let sch: Vec<u64> = (1..=m).map(|j| acq_s(j) + s - end_h(j)).collect();
    (
        rel.iter().copied().max().unwrap_or(0),
        rel.iter().sum(),
        sch.iter().copied().max().unwrap_or(0),
        sch.iter().sum(),
    )
}

#[test]
fn synchronous_release_under_global_lock_ticket_vs_mcs() {
    // m tasks released at 0 on m idle CPUs: task i's timer fires on CPU i (no previous CPU:
    // i mod m) and G-EDF links it to CPU i, so each CPU runs its release handler H_i, then
    // its own schedule S_i. All handlers request the lock at 0 (in CPU order); each S_i
    // queues behind every handler. Handler: Δrel = acquire + r; schedule: from its
    // handler's end to its own acquisition + s.
    let costs = only(&[
        (CostName::LockAcquire, 40),
        (CostName::LockHandoff, 150),
        (CostName::LockPerWaiter, 50),
        (CostName::Release, 700),
        (CostName::Schedule, 900),
    ]);
    for m in [1u64, 2, 3, 8, 16] {
        let mut got = Vec::new();
        for lock in LockSemantics::ALL {
            let tasks = implicit(ms(5), ms(10), m as usize);
            let mut cfg = ScaleConfig::new(ScaleArch::GlobalLock, m as u32, ms(1));
            cfg.costs = costs.clone();
            cfg.lock = lock;
            let r = scale(&tasks, &ranks(m as usize), None, &cfg).unwrap_or_else(|e| panic!("{e}"));
            let (rel, sch) = (r.stats.get(Span::Release), r.stats.get(Span::Schedule));
            let (rmax, rsum, smax, ssum) = sync_release_closed_form(m, &costs, lock);
            assert_eq!((rel.count, sch.count), (m, m), "m = {m}, {lock}");
            assert_eq!(
                (rel.max_ns, rel.sum_ns, sch.max_ns, sch.sum_ns),
                (rmax, u128::from(rsum), smax, u128::from(ssum)),
                "m = {m}, {lock}"
            );
            got.push(sch.max_ns);
        }
        // Ticket handoffs cost more as soon as two CPUs wait behind the holder.
        if m >= 3 {
            assert!(got[0] > got[1], "m = {m}: {got:?}");
        }
    }
}

#[test]
fn every_arch_runs_and_reports_its_overheads() {
    let mut tasks = Vec::new();
    for i in 0..12u64 {
        tasks.push(Task::implicit(ms(1 + i % 3), ms(10 + 5 * i)).unwrap_or_else(|e| panic!("{e}")));
    }
    let tasks = TaskSet::new(tasks).unwrap_or_else(|e| panic!("{e}"));
    for arch in ScaleArch::ALL {
        let cfg = ScaleConfig::new(arch, 4, ms(200));
        let placement = (arch == ScaleArch::Partitioned)
            .then(|| Placement::new((0..12).map(|i| i % 4).collect(), 1));
        let r =
            scale(&tasks, &ranks(12), placement, &cfg).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        for (name, s) in r.overheads() {
            assert!(s.count > 0, "{arch:?}: no {name:?}");
            assert!(s.avg_ns() <= s.max_ns);
        }
        let file = overhead_file(&[r], false).unwrap_or_else(|e| panic!("{e}"));
        assert!(file.arch.contains_key(arch.key()));
    }
}

#[test]
fn push_pull_pushes_pulls_and_retries_on_a_loaded_system() {
    // U ≈ 3.5 on 4 CPUs, periods that do not divide each other: wake-ups preempt on the
    // previous CPU and push the victim on, completions pull.
    let tasks: Vec<Task> = (0..14u64)
        .map(|i| Task::implicit(ms(3 + i % 3), ms(13 + 2 * i)))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    let tasks = TaskSet::new(tasks).unwrap_or_else(|e| panic!("{e}"));
    let cfg = ScaleConfig::new(ScaleArch::PushPull, 4, ms(2_000));
    let r = scale(&tasks, &ranks(14), None, &cfg).unwrap_or_else(|e| panic!("{e}"));
    let get = |k: &str| r.counters.iter().find(|(n, _)| n == k).map_or(0, |x| x.1);
    assert!(get("pushes") > 0 && get("pulls") > 0, "{:?}", r.counters);
    assert!(r.stats.get(Span::Ipi).count > 0);
    // Same seed, same result.
    assert_eq!(scale(&tasks, &ranks(14), None, &cfg).ok(), Some(r));
}

#[test]
fn too_few_or_too_many_cpus_are_errors() {
    let tasks = implicit(ms(1), ms(10), 2);
    for (arch, m) in [
        (ScaleArch::MessagePassing, 1),
        (ScaleArch::GlobalLock, 0),
        (ScaleArch::GlobalLock, MAX_CPUS + 1),
    ] {
        let cfg = ScaleConfig::new(arch, m, ms(10));
        assert!(matches!(
            scale(&tasks, &ranks(2), None, &cfg),
            Err(ScaleError::Cpus { .. })
        ));
    }
    let cfg = ScaleConfig::new(ScaleArch::Partitioned, 2, ms(10));
    assert!(matches!(
        scale(&tasks, &ranks(2), None, &cfg),
        Err(ScaleError::NoPlacement)
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// More CPUs waiting never shortens the last acquisition; MCS never waits longer than
    /// ticket; the model is deterministic.
    #[test]
    fn contention_is_monotone(k in 1u32..20, s in 0u64..5_000, per in 0u64..500) {
        let c = only(&[(CostName::LockHandoff, 100), (CostName::LockPerWaiter, per)]);
        let t = contend(k, s, LockSemantics::Ticket, &c);
        let mcs = contend(k, s, LockSemantics::Mcs, &c);
        let more = contend(k + 1, s, LockSemantics::Ticket, &c);
        prop_assert!(t.last() <= more.last());
        prop_assert!(mcs.last() <= t.last());
        prop_assert_eq!(t, contend(k, s, LockSemantics::Ticket, &c));
    }
}

/// `only(set)` plus noise on every path (`noise_ppm` = 10⁶) of up to `max` ns.
fn noisy(set: &[(CostName, u64)], max: u64) -> OpCosts {
    let mut c = only(set);
    c.set(CostName::NoisePpm, 1_000_000);
    c.set(CostName::NoiseMax, max);
    c
}

#[test]
fn noise_reaches_a_span_inside_a_path() {
    // 60 paths one after the other on one CPU: 300 ns, then Δsch = 500 ns, then 200 ns.
    // Noise-free every Δsch is 500; with every path noisy, the delay falls before one of the
    // three steps, so about a third of the Δsch samples grow (by at most noise_max).
    let steps = [
        Step::Work(300),
        Step::Begin(Span::Schedule),
        Step::Work(500),
        Step::End(Span::Schedule),
        Step::Work(200),
    ];
    let run = |costs: &OpCosts, seed: u64| {
        let mut m = Machine::new(1, 1, Costs::from_op(costs), LockSemantics::Ticket, seed);
        for i in 0..60u64 {
            let p = m.path(0, &steps);
            m.submit(p, i * 10_000_000, i * 10_000_000);
        }
        m.run_until(u64::MAX);
        m.stats.get(Span::Schedule)
    };
    let quiet = run(&only(&[]), 3);
    assert_eq!(
        (quiet.count, quiet.sum_ns, quiet.max_ns),
        (60, 60 * 500, 500)
    );
    let loud = run(&noisy(&[], 1_000_000), 3);
    assert_eq!(loud.count, 60);
    assert!(
        loud.max_ns > 500 && loud.max_ns <= 500 + 1_000_000,
        "{loud:?}"
    );
    // Not every sample was hit: the sum stays well below every sample delayed.
    assert!(
        loud.sum_ns > 60 * 500 && loud.sum_ns < 60 * 500 + 50 * 500_000,
        "{loud:?}"
    );
    // Deterministic per seed.
    assert_eq!(run(&noisy(&[], 1_000_000), 3), loud);
}

#[test]
fn a_noisy_lock_holder_delays_its_waiter() {
    // CPU 0 takes the free lock at 0 and holds it for 1,000 ns (its only timed step: the
    // noise falls inside the critical section); CPU 1 requests it at 100. Noise-free it waits
    // 900 ns (all lock costs 0); with noise, 900 + CPU 0's delay.
    let run = |costs: &OpCosts| {
        let mut m = Machine::new(2, 1, Costs::from_op(costs), LockSemantics::Ticket, 11);
        let a = m.path(0, &[Step::Lock(0), Step::Work(1_000), Step::Unlock(0)]);
        m.submit(a, 0, 0);
        let b = m.path(
            1,
            &[
                Step::Begin(Span::Schedule),
                Step::Lock(0),
                Step::Work(1),
                Step::Unlock(0),
                Step::End(Span::Schedule),
            ],
        );
        m.submit(b, 100, 100);
        m.run_until(u64::MAX);
        (
            m.stats.get(Span::LockWait).max_ns,
            m.stats.get(Span::Schedule).max_ns,
        )
    };
    assert_eq!(run(&only(&[])), (900, 901));
    let (wait, sch) = run(&noisy(&[], 1_000_000));
    assert!(wait > 900, "the waiter saw no delay: {wait}");
    // Δsch includes the wait, its own step and its own delay (before that step).
    assert!(sch > wait, "{sch} vs {wait}");
}

#[test]
fn noise_raises_delta_sch_of_a_partitioned_release() {
    // The hand-checked release above (Δsch = 1,150 + 1,160 noise-free): with every path
    // noisy, no seed lowers it, and some seed raises it (the release path has four timed
    // steps, its schedule part one of them).
    let set = [
        (CostName::TimerIrq, 1_000),
        (CostName::Release, 500),
        (CostName::Schedule, 1_000),
        (CostName::Link, 100),
        (CostName::PreemptCheckCpu, 10),
        (CostName::ContextSwitch, 5_000),
        (CostName::LockAcquire, 50),
    ];
    let tasks = implicit(ms(1), ms(10), 1);
    let sch = |costs: &OpCosts, seed: u64| {
        let mut cfg = ScaleConfig::new(ScaleArch::Partitioned, 1, ms(5));
        cfg.costs = costs.clone();
        cfg.seed = seed;
        let placement = Placement::new(vec![0], 1);
        let r = scale(&tasks, &[0], Some(placement), &cfg).unwrap_or_else(|e| panic!("{e}"));
        r.stats.get(Span::Schedule)
    };
    let quiet = sch(&only(&set), 0);
    assert_eq!((quiet.count, quiet.sum_ns), (2, 1_150 + 1_160));
    let loud: Vec<_> = (0..16)
        .map(|seed| sch(&noisy(&set, 100_000), seed))
        .collect();
    assert!(loud
        .iter()
        .all(|s| s.count == 2 && s.sum_ns >= quiet.sum_ns));
    assert!(loud.iter().any(|s| s.max_ns > quiet.max_ns), "{loud:?}");
}

#[test]
fn noise_off_is_the_noise_free_model_bit_for_bit() {
    // (count, sum, max) of every span, default costs, `noise_max` 1 ms but `noise_ppm` 0:
    // the values of the model before the noise moved into the paths (computed once with
    // that code; Δcxs = 33 × context_switch 5 µs and Δev = n × timer_irq 1 µs by hand).
    let mut tasks = Vec::new();
    for i in 0..6u64 {
        tasks.push(Task::implicit(ms(1 + i % 3), ms(10 + 5 * i)).unwrap_or_else(|e| panic!("{e}")));
    }
    let tasks = TaskSet::new(tasks).unwrap_or_else(|e| panic!("{e}"));
    type Row = [(u64, u128, u64); Span::COUNT];
    let want: [(ScaleArch, Row, u64); 5] = [
        (
            ScaleArch::GlobalLock,
            [
                (24, 24000, 1000),
                (24, 63855, 7205),
                (5, 10000, 2000),
                (62, 127815, 6420),
                (33, 165000, 5000),
                (0, 0, 0),
                (0, 0, 0),
                (86, 74590, 5220),
            ],
            62,
        ),
        (
            ScaleArch::GlobalLockDi,
            [
                (15, 15000, 1000),
                (15, 47325, 6885),
                (25, 50000, 2000),
                (58, 87225, 2640),
                (33, 165000, 5000),
                (0, 0, 0),
                (0, 0, 0),
                (73, 16890, 1420),
            ],
            73,
        ),
        (
            ScaleArch::MessagePassing,
            [
                (15, 15000, 1000),
                (15, 47675, 7035),
                (33, 66000, 2000),
                (33, 36300, 1100),
                (33, 165000, 5000),
                (33, 9740, 1460),
                (33, 37585, 1545),
                (0, 0, 0),
            ],
            114,
        ),
        (
            ScaleArch::Partitioned,
            [
                (26, 26000, 1000),
                (26, 37370, 2095),
                (0, 0, 0),
                (59, 69405, 1335),
                (33, 165000, 5000),
                (0, 0, 0),
                (0, 0, 0),
                (85, 4250, 50),
            ],
            59,
        ),
        (
            ScaleArch::PushPull,
            [
                (33, 112810, 10510),
                (33, 41260, 1920),
                (5, 10000, 2000),
                (62, 102015, 2670),
                (33, 165000, 5000),
                (0, 0, 0),
                (0, 0, 0),
                (192, 15415, 880),
            ],
            95,
        ),
    ];
    for (arch, row, paths) in want {
        let mut cfg = ScaleConfig::new(arch, 3, ms(100));
        cfg.costs.set(CostName::NoiseMax, 1_000_000);
        cfg.seed = 5;
        let placement = (arch == ScaleArch::Partitioned)
            .then(|| Placement::new((0..6).map(|i| i % 3).collect(), 1));
        let r =
            scale(&tasks, &ranks(6), placement, &cfg).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let got: Vec<(u64, u128, u64)> = Span::ALL
            .iter()
            .map(|&s| {
                let x = r.stats.get(s);
                (x.count, x.sum_ns, x.max_ns)
            })
            .collect();
        assert_eq!(got, row.to_vec(), "{arch:?}");
        assert_eq!(r.paths, paths, "{arch:?}");
    }
}

#[test]
fn the_model_knows_exactly_the_architectures_a_costs_file_may_name() {
    // `[arch.<name>]` of a costs file is checked against `schedlab_model::costs::ARCHS`; a
    // name the model runs but the file refuses (or the reverse) would make a calibrated
    // section unusable.
    let mut model = ScaleArch::names();
    let mut file: Vec<&str> = schedlab_model::costs::ARCHS.to_vec();
    model.sort_unstable();
    file.sort_unstable();
    assert_eq!(model, file);
}

#[test]
fn truncated_pareto_by_hand() {
    use super::machine::truncated_pareto;
    // α = 1 on [100, 10,000]: (lo/hi)^α = 0.01, so x(u) = 100 / (1 − 0.99·u).
    assert_eq!(truncated_pareto(100, 10_000, 1_000_000, 0.0), 100);
    assert_eq!(truncated_pareto(100, 10_000, 1_000_000, 0.5), 198); // 100 / 0.505
    assert_eq!(truncated_pareto(100, 10_000, 1_000_000, 0.9), 917); // 100 / 0.109
                                                                    // u → 1 reaches the upper end, never beyond it.
    assert_eq!(
        truncated_pareto(100, 10_000, 1_000_000, 1.0 - 1e-12),
        10_000
    );
    // α = 2: x(0.5) = 100 · (1 − 0.5·(1 − 10⁻⁴))^(−1/2) = 141.4…
    assert_eq!(truncated_pareto(100, 10_000, 2_000_000, 0.5), 141);
    // An empty range is its lower end.
    assert_eq!(truncated_pareto(500, 500, 1_000_000, 0.7), 500);
}

/// `only(set)` plus timer and IPI noise on every delivery of exactly `timer` and `ipi` ns.
fn late_wakeups(set: &[(CostName, u64)], timer: u64, ipi: u64) -> OpCosts {
    let mut c = only(set);
    c.set(CostName::TimerNoisePpm, 1_000_000);
    c.set(CostName::TimerNoiseMin, timer);
    c.set(CostName::TimerNoiseMax, timer);
    c.set(CostName::IpiNoisePpm, 1_000_000);
    c.set(CostName::IpiNoiseMin, ipi);
    c.set(CostName::IpiNoiseMax, ipi);
    c
}

#[test]
fn a_late_timer_lengthens_delta_ev_and_nothing_inside_the_path() {
    // One partitioned task, two releases in 5 ms (the hand-checked release above): every
    // timer expiry delivered 7 µs late makes each Δev exactly 7 µs longer, and leaves Δrel
    // and the path's own spans as they were (the delay is before the path, not inside it).
    let set = [
        (CostName::TimerIrq, 1_000),
        (CostName::Release, 500),
        (CostName::Schedule, 1_000),
        (CostName::ContextSwitch, 5_000),
    ];
    let tasks = implicit(ms(1), ms(10), 1);
    let run = |costs: &OpCosts| {
        let mut cfg = ScaleConfig::new(ScaleArch::Partitioned, 1, ms(5));
        cfg.costs = costs.clone();
        let placement = Placement::new(vec![0], 1);
        let r = scale(&tasks, &[0], Some(placement), &cfg).unwrap_or_else(|e| panic!("{e}"));
        let g = |s: Span| {
            let x = r.stats.get(s);
            (x.count, x.sum_ns)
        };
        (g(Span::ReleaseLatency), g(Span::Release), g(Span::Schedule))
    };
    let (ev, rel, sch) = run(&only(&set));
    let (late_ev, late_rel, late_sch) = run(&late_wakeups(&set, 7_000, 1));
    assert_eq!(late_ev, (ev.0, ev.1 + u128::from(ev.0) * 7_000));
    assert_eq!((late_rel, late_sch), (rel, sch));
}

#[test]
fn a_late_ipi_lengthens_delta_ipi_by_its_delay() {
    // CPU 0 sends an IPI at 0 to a path on CPU 1 whose Δipi begins at the send: ipi_latency
    // 2 µs, every IPI 30 µs late → Δipi = 32 µs exactly (the timer noise does not apply).
    let costs = late_wakeups(&[(CostName::IpiLatency, 2_000)], 1, 30_000);
    let mut m = Machine::new(2, 0, Costs::from_op(&costs), LockSemantics::Ticket, 5);
    let target = m.path(1, &[Step::BeginAtOrigin(Span::Ipi), Step::End(Span::Ipi)]);
    let sender = m.path(0, &[Step::Ipi(target)]);
    m.submit(sender, 0, 0);
    m.run_until(u64::MAX);
    let ipi = m.stats.get(Span::Ipi);
    assert_eq!((ipi.count, ipi.sum_ns), (1, 32_000));
}

#[test]
fn pareto_noise_stays_in_its_range_and_is_deterministic() {
    // Every path noisy, Pareto α = 0.5 on [50 µs, 2 ms]: each Δsch of a 500 ns step grows by
    // 0 (the noise fell on another step) or by a delay in [50 µs, 2 ms].
    let mut c = only(&[]);
    for (n, v) in [
        (CostName::NoisePpm, 1_000_000),
        (CostName::NoiseMin, 50_000),
        (CostName::NoiseMax, 2_000_000),
        (CostName::NoiseShape, 500_000),
    ] {
        c.set(n, v);
    }
    let run = |seed: u64| {
        let mut m = Machine::new(1, 0, Costs::from_op(&c), LockSemantics::Ticket, seed);
        let mut spans = Vec::new();
        for i in 0..200u64 {
            let p = m.path(
                0,
                &[
                    Step::Work(300),
                    Step::Begin(Span::Schedule),
                    Step::Work(500),
                    Step::End(Span::Schedule),
                ],
            );
            m.submit(p, i * 10_000_000, i * 10_000_000);
            m.run_until((i + 1) * 10_000_000);
            spans.push(m.stats.get(Span::Schedule).sum_ns);
        }
        spans
    };
    let sums = run(9);
    let mut hit = 0;
    let mut before = 0;
    for &sum in &sums {
        let one = sum - before;
        before = sum;
        assert!(one == 500 || (50_500..=2_000_500).contains(&one), "{one}");
        hit += u32::from(one != 500);
    }
    assert!(
        hit > 50 && hit < 150,
        "about half the paths hit the Δsch step: {hit}"
    );
    assert_eq!(run(9), sums);
}
