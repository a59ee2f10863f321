//! Soundness of every test against an exact schedule oracle.
//!
//! With integer task parameters, releases and completions of a synchronous periodic schedule
//! happen at integer times, so a unit-step simulation of global EDF, FP, FIFO and
//! non-preemptive EDF is exact. A periodic synchronous arrival pattern is one legal behaviour
//! of a sporadic task, so whenever a test says "schedulable" the simulated schedule must meet
//! every deadline, observed response times must not exceed response-time bounds, and observed
//! tardiness must not exceed tardiness bounds. On one CPU the synchronous arrival is the worst
//! case, so there the exact tests (`edf`, `fp-rta`) must agree with the oracle exactly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use schedlab_analysis::{analyze, registry, Kind, Params, Priorities, Status, System, Verdict};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Policy {
    Edf,
    Fp,
    Fifo,
    NpEdf,
}

struct Observed {
    /// Worst response time per task over the jobs released in the window.
    response: Vec<u64>,
    /// Worst tardiness per task.
    tardiness: Vec<u64>,
}

fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    a / gcd(a, b) * b
}

/// Simulates jobs released in `[0, 2·H)` (H = hyperperiod), synchronous periodic arrivals,
/// until all of them complete (bounded), and reports worst response times and tardiness.
fn simulate(params: &[Params], m: usize, policy: Policy, rank: &[usize]) -> Observed {
    let n = params.len();
    let h = params.iter().fold(1, |acc, p| lcm(acc, p.t));
    let window = 2 * h;
    // Per task: list of pending jobs (release, remaining), FIFO since jobs of a task are sequential.
    let mut pending: Vec<std::collections::VecDeque<(u64, u64)>> = vec![Default::default(); n];
    let mut response = vec![0u64; n];
    let mut tardiness = vec![0u64; n];
    let mut running: Vec<Option<usize>> = vec![None; m]; // for NP-EDF: task on each CPU
    let total_jobs: u64 = params.iter().map(|p| window.div_ceil(p.t)).sum();
    let mut done = 0u64;
    let mut now = 0u64;
    let limit = window + 64 * params.iter().map(|p| p.c + p.d).sum::<u64>() + 10 * h;
    while done < total_jobs && now < limit {
        for (i, p) in params.iter().enumerate() {
            if now < window && now % p.t == 0 {
                pending[i].push_back((now, p.c));
            }
        }
        // Candidate tasks: those with a pending job (the head job).
        let key = |i: usize| -> (u64, usize) {
            let (rel, _) = pending[i][0];
            match policy {
                Policy::Edf | Policy::NpEdf => (rel + params[i].d, i),
                Policy::Fp => (rank[i] as u64, i),
                Policy::Fifo => (rel, i),
            }
        };
        let mut chosen: Vec<usize> = Vec::with_capacity(m);
        if policy == Policy::NpEdf {
            for slot in running.iter_mut() {
                if let Some(i) = *slot {
                    if pending[i].is_empty() {
                        *slot = None;
                    } else {
                        chosen.push(i);
                    }
                }
            }
        }
        let mut ready: Vec<usize> = (0..n)
            .filter(|&i| !pending[i].is_empty() && !chosen.contains(&i))
            .collect();
        ready.sort_by_key(|&i| key(i));
        for i in ready {
            if chosen.len() >= m {
                break;
            }
            chosen.push(i);
            if policy == Policy::NpEdf {
                if let Some(slot) = running.iter_mut().find(|s| s.is_none()) {
                    *slot = Some(i);
                }
            }
        }
        for &i in &chosen {
            let job = &mut pending[i][0];
            job.1 -= 1;
            if job.1 == 0 {
                let (rel, _) = pending[i].pop_front().unwrap_or((0, 0));
                let finish = now + 1;
                response[i] = response[i].max(finish - rel);
                tardiness[i] = tardiness[i].max(finish.saturating_sub(rel + params[i].d));
                done += 1;
                if policy == Policy::NpEdf {
                    for slot in running.iter_mut() {
                        if *slot == Some(i) {
                            *slot = None;
                        }
                    }
                }
            }
        }
        now += 1;
    }
    if done < total_jobs {
        // Backlog never cleared within the bound: treat as unbounded.
        response.iter_mut().for_each(|r| *r = u64::MAX);
        tardiness.iter_mut().for_each(|r| *r = u64::MAX);
    }
    Observed {
        response,
        tardiness,
    }
}

const PERIODS: [u64; 10] = [2, 3, 4, 5, 6, 8, 10, 12, 15, 20];

fn task_strategy() -> impl Strategy<Value = Params> {
    (0usize..PERIODS.len(), 1u64..=20, 0u64..=100, any::<bool>()).prop_map(
        |(pi, c_raw, d_frac, constrained)| {
            let t = PERIODS[pi];
            let c = 1 + (c_raw - 1) % t; // 1..=t
            let d = if constrained {
                c + (t - c) * d_frac / 100 // c..=t
            } else {
                t
            };
            Params::new(c, d, t)
        },
    )
}

fn system_strategy() -> impl Strategy<Value = (Vec<Params>, u32)> {
    (1u32..=4).prop_flat_map(|m| {
        (
            proptest::collection::vec(task_strategy(), 1..=(2 * m as usize + 3)),
            Just(m),
        )
    })
}

fn family_policy(family: &str) -> Option<Policy> {
    match family {
        "global-edf" => Some(Policy::Edf),
        "global-fp" => Some(Policy::Fp),
        "global-fifo" => Some(Policy::Fifo),
        "global-np-edf" => Some(Policy::NpEdf),
        "uniprocessor" => None, // checked separately (edf vs fp)
        _ => None,
    }
}

fn rank_of(sys: &System) -> Vec<usize> {
    let mut rank = vec![0; sys.len()];
    if let Ok(order) = sys.priority_order() {
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
    }
    rank
}

fn check_against(name: &str, kind: Kind, v: &Verdict, obs: &Observed, params: &[Params]) {
    if v.status != Status::Schedulable {
        return;
    }
    for (i, p) in params.iter().enumerate() {
        if kind != Kind::Soft {
            assert!(
                obs.response[i] <= p.d,
                "{name} said schedulable but task {i} {p:?} responds in {} > D (set {params:?})",
                obs.response[i]
            );
        }
        if let Some(r) = &v.response_time_bounds {
            assert!(
                obs.response[i] <= r[i].as_ns(),
                "{name}: observed response {} of task {i} exceeds bound {} (set {params:?})",
                obs.response[i],
                r[i].as_ns()
            );
        }
        if let Some(tb) = &v.tardiness_bounds {
            assert!(
                obs.tardiness[i] <= tb[i].as_ns(),
                "{name}: observed tardiness {} of task {i} exceeds bound {} (set {params:?})",
                obs.tardiness[i],
                tb[i].as_ns()
            );
        }
    }
}

/// The global families whose "schedulable" verdicts are checked against the schedule.
const GLOBAL_FAMILIES: [&str; 4] = ["global-edf", "global-fp", "global-fifo", "global-np-edf"];

/// Every "schedulable" of a global test must hold in the simulated schedule. The check only
/// bites where a test accepts, so the number of accepted verdicts checked is counted per
/// family and must reach a minimum: n is uniform in 1..=2m+3, so about one case in eight is a
/// single task, which every family has a test to accept (no interference: `C ≤ D`); 3000 cases
/// give about 380 such sets, and fewer than 100 is a probability below 10^-40. A registry
/// that lost a family, or a strategy that stopped producing feasible sets, fails here.
#[test]
fn global_verdicts_hold_in_the_schedule() {
    let config = ProptestConfig {
        cases: 3000,
        source_file: Some(file!()),
        ..ProptestConfig::default()
    };
    let checked = std::cell::RefCell::new([0u64; GLOBAL_FAMILIES.len()]);
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let result = runner.run(&system_strategy(), |(params, m)| {
        let sys = System::from_params(params.clone(), m, Priorities::Dm).unwrap();
        let rank = rank_of(&sys);
        let mut cache: Vec<(Policy, Observed)> = Vec::new();
        for test in registry::all_for(m) {
            let info = test.info();
            let Some(policy) = family_policy(info.family) else {
                continue;
            };
            let v = analyze(test.as_ref(), &sys);
            if v.status != Status::Schedulable {
                continue;
            }
            if !cache.iter().any(|(p, _)| *p == policy) {
                cache.push((policy, simulate(&params, m as usize, policy, &rank)));
            }
            let obs = &cache.iter().find(|(p, _)| *p == policy).unwrap().1;
            check_against(&info.name, info.kind, &v, obs, &params);
            if let Some(f) = GLOBAL_FAMILIES.iter().position(|f| *f == info.family) {
                checked.borrow_mut()[f] += 1;
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let checked = checked.into_inner();
    eprintln!(
        "schedulable verdicts checked against the schedule: {GLOBAL_FAMILIES:?} = {checked:?}"
    );
    for (family, n) in GLOBAL_FAMILIES.iter().zip(checked) {
        assert!(
            n >= 100,
            "only {n} schedulable verdicts of {family} were checked"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn hard_global_tests_never_accept_overload((params, m) in system_strategy()) {
        let sys = System::from_params(params.clone(), m, Priorities::Dm).unwrap();
        let u: f64 = params.iter().map(|p| p.c as f64 / p.t as f64).sum();
        let overloaded = params.iter().any(|p| p.c > p.t) || u > m as f64 + 1e-12;
        if overloaded {
            for test in registry::all_for(m) {
                let v = analyze(test.as_ref(), &sys);
                prop_assert!(v.status != Status::Schedulable, "{} accepted an overloaded set {:?} on {} CPUs", test.name(), params, m);
            }
        }
    }

    #[test]
    fn uniprocessor_exact_tests_match_the_schedule(params in proptest::collection::vec(task_strategy(), 1..=6)) {
        let sys = System::from_params(params.clone(), 1, Priorities::Dm).unwrap();
        let rank = rank_of(&sys);
        let edf_obs = simulate(&params, 1, Policy::Edf, &rank);
        let edf_ok = edf_obs.response.iter().zip(&params).all(|(r, p)| *r <= p.d);
        let edf = analyze(registry::by_name("edf").unwrap().as_ref(), &sys);
        prop_assert_eq!(edf.is_schedulable(), edf_ok, "edf disagrees with the schedule for {:?}", params);

        let fp_obs = simulate(&params, 1, Policy::Fp, &rank);
        let fp_ok = fp_obs.response.iter().zip(&params).all(|(r, p)| *r <= p.d);
        let fp = analyze(registry::by_name("fp-rta").unwrap().as_ref(), &sys);
        prop_assert_eq!(fp.is_schedulable(), fp_ok, "fp-rta disagrees with the schedule for {:?}", params);
        if let Some(bounds) = fp.response_time_bounds {
            for (i, b) in bounds.iter().enumerate() {
                prop_assert_eq!(b.as_ns(), fp_obs.response[i], "fp-rta bound of task {} for {:?}", i, params);
            }
        }
        // Sufficient uniprocessor tests never accept what the exact test rejects, and at m = 1
        // neither does any global or partitioned test.
        for test in registry::all_for(1) {
            let v = analyze(test.as_ref(), &sys);
            if v.is_schedulable() {
                let family = test.info().family;
                let exact_ok = if family == "global-fp" || test.name().starts_with("fp-") || test.name().starts_with("pfp-") { fp_ok } else { edf_ok };
                if test.info().kind != Kind::Soft && family != "global-fifo" && family != "global-np-edf" {
                    prop_assert!(exact_ok, "{} accepts at m = 1 what the exact test rejects: {:?}", test.name(), params);
                }
            }
        }
    }

    #[test]
    fn partitions_are_valid((params, m) in system_strategy()) {
        let sys = System::from_params(params.clone(), m, Priorities::Dm).unwrap();
        for test in registry::all_for(m) {
            let info = test.info();
            if info.family != "partitioned" && info.family != "clustered" {
                continue;
            }
            let v = analyze(test.as_ref(), &sys);
            if let Some(partition) = &v.partition {
                prop_assert!(v.is_schedulable(), "{}: partition given without success", info.name);
                let mut seen: Vec<usize> = partition.iter().flatten().copied().collect();
                seen.sort_unstable();
                prop_assert_eq!(seen, (0..params.len()).collect::<Vec<_>>(), "{}: not a partition", &info.name);
                if info.family == "partitioned" {
                    prop_assert_eq!(partition.len(), m as usize);
                    let exact = if info.name.starts_with("pfp") { "fp-rta" } else { "edf" };
                    for cpu in partition {
                        let sub = sys.subset(cpu, 1).unwrap();
                        let ok = analyze(registry::by_name(exact).unwrap().as_ref(), &sub);
                        prop_assert!(ok.is_schedulable(), "{}: CPU fails {}", &info.name, exact);
                    }
                }
            }
        }
    }
}
