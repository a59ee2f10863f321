//! Hand-built traces with hand-computed windows and segments, the candidate windows against a
//! brute force over every integer window, and the properties of Z the argument rests on.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::{Event, Kind, NO_CPU};
use proptest::prelude::*;
use schedlab_analysis::hcbs::supply::Server;
use schedlab_model::{file, GroupTree};

const NONE: u32 = u32::MAX;

/// The groups of a task file (JSON text) on `cpus` CPUs, and the task names.
fn tree(json: &str, cpus: u32) -> (GroupTree, Vec<String>) {
    let f = file::parse_str(json, file::Format::Json).unwrap();
    let names = f
        .tasks
        .tasks()
        .iter()
        .map(|t| t.name.clone().unwrap_or_default())
        .collect();
    (GroupTree::new(&f.tasks, cpus).unwrap(), names)
}

fn run(json: &str, cpus: u32, events: &[Event], horizon: u64) -> Result<SupplyReport, SupplyError> {
    let (tree, names) = tree(json, cpus);
    let z: Vec<Server> = tree
        .groups()
        .iter()
        .map(|g| Server::new(g.budget.as_ns(), g.period.as_ns()).unwrap())
        .collect();
    check(
        events,
        &tree,
        &names,
        horizon,
        SupplyOptions::default(),
        |g, t| z[g as usize].supply(t),
    )
}

fn ev(t: u64, k: Kind, cpu: u32, task: u32) -> Event {
    Event::new(t, k, cpu, task, 0)
}

/// A server event of group `g` on `cpu`.
fn srv(t: u64, k: Kind, g: u64, cpu: u32) -> Event {
    Event::new(t, k, cpu, NONE, g)
}

/// One group (Q = 2, P = 5) on one CPU, one task that never completes.
const ONE: &str = r#"{"groups": [{"name": "g", "budget": 2, "period": 5}],
  "tasks": [{"name": "a", "wcet": 100, "period": 100, "group": "g"}]}"#;

/// The H-CBS schedule of ONE: runs [0, 2), throttled until 5, [5, 7), throttled until 10,
/// [10, 12).
fn one_ok() -> Vec<Event> {
    vec![
        ev(0, Kind::Release, NO_CPU, 0),
        srv(0, Kind::BudgetReplenished, 0, 0),
        ev(0, Kind::SwitchIn, 0, 0),
        srv(2, Kind::BudgetExhausted, 0, 0),
        srv(2, Kind::BudgetThrottled, 0, 0),
        ev(2, Kind::SwitchOut, 0, 0),
        srv(5, Kind::BudgetReplenished, 0, 0),
        ev(5, Kind::SwitchIn, 0, 0),
        srv(7, Kind::BudgetExhausted, 0, 0),
        srv(7, Kind::BudgetThrottled, 0, 0),
        ev(7, Kind::SwitchOut, 0, 0),
        srv(10, Kind::BudgetReplenished, 0, 0),
        ev(10, Kind::SwitchIn, 0, 0),
    ]
}

/// Z for (2, 5): 0 up to Δ = 6, Z(8) = 2, Z(10) = 2, Z(12) = 3. Candidate windows of
/// [0, 12) with stretches (0,2), (5,7), (10,12): t0 ∈ {0, 2, 7}, t1 ∈ {5, 10, 12}, t0 < t1:
/// 8 windows; the worst with Z > 0 is [2, 10): service 2 (5..7), Z(8) = 2, slack 0.
#[test]
fn throttled_schedule_passes_with_hand_computed_numbers() {
    let r = run(ONE, 1, &one_ok(), 12).unwrap();
    assert!(r.passed(), "{r:?}");
    let s = &r.servers[0];
    assert_eq!((s.group, s.cpu, s.budget_ns, s.period_ns), (0, 0, 2, 5));
    assert_eq!((s.backlogged_intervals, s.backlogged_ns), (1, 12));
    assert_eq!(s.service_ns, 6);
    assert_eq!(s.windows, 8);
    assert_eq!(
        s.worst_window,
        Some(Window {
            start: 2,
            end: 10,
            service: 2,
            supply: 2
        })
    );
    assert_eq!(s.min_slack(), Some(0));
    assert_eq!(s.replenishments, 3);
    assert_eq!(s.max_segment.map(|m| m.service), Some(2));
    assert_eq!((s.supply_ok, s.budget_ok), (true, Some(true)));
}

/// Starved: runs [0, 2), then nothing until 12 while backlogged and never throttled. The
/// window [2, 12) has service 0 < Z(10) = 2.
#[test]
fn starved_server_fails_the_supply_check() {
    let es = [
        ev(0, Kind::Release, NO_CPU, 0),
        srv(0, Kind::BudgetReplenished, 0, 0),
        ev(0, Kind::SwitchIn, 0, 0),
        ev(2, Kind::SwitchOut, 0, 0),
    ];
    let r = run(ONE, 1, &es, 12).unwrap();
    let s = &r.servers[0];
    assert!(!r.passed());
    assert!(!s.supply_ok);
    assert_eq!(s.budget_ok, Some(true));
    assert_eq!(
        s.worst_window,
        Some(Window {
            start: 2,
            end: 12,
            service: 0,
            supply: 2
        })
    );
    assert_eq!(s.min_slack(), Some(-2));
}

/// Over budget: 3 ns of service between the replenishments at 0 and 5 (Q = 2).
#[test]
fn server_beyond_its_budget_fails_the_budget_check() {
    let es = [
        ev(0, Kind::Release, NO_CPU, 0),
        srv(0, Kind::BudgetReplenished, 0, 0),
        ev(0, Kind::SwitchIn, 0, 0),
        ev(3, Kind::SwitchOut, 0, 0),
        srv(5, Kind::BudgetReplenished, 0, 0),
        ev(5, Kind::SwitchIn, 0, 0),
        ev(7, Kind::SwitchOut, 0, 0),
        ev(7, Kind::Complete, 0, 0),
    ];
    let r = run(ONE, 1, &es, 12).unwrap();
    let s = &r.servers[0];
    assert!(!r.passed());
    assert_eq!((s.supply_ok, s.budget_ok), (true, Some(false)));
    assert_eq!(
        s.max_segment,
        Some(Segment {
            start: 0,
            end: 5,
            service: 3
        })
    );
    // Complete at 7: backlogged [0, 7) only.
    assert_eq!((s.backlogged_intervals, s.backlogged_ns), (1, 7));
    // The tolerance lets it pass.
    let (t, names) = tree(ONE, 1);
    let opts = SupplyOptions {
        tolerance_ns: 1,
        ..SupplyOptions::default()
    };
    let r = check(&es, &t, &names, 12, opts, |_, x| {
        Server::new(2, 5).unwrap().supply(x)
    })
    .unwrap();
    assert!(r.passed());
}

/// Without server events (a baseline that records none) the budget check is not made.
#[test]
fn no_server_events_leave_the_budget_check_unchecked() {
    let es: Vec<Event> = one_ok().into_iter().filter(|e| e.task != NONE).collect();
    let r = run(ONE, 1, &es, 12).unwrap();
    assert_eq!(r.servers[0].budget_ok, None);
    assert_eq!(r.unchecked().count(), 1);
    assert!(r.passed());
}

/// Parent p (4, 5) with a child c (2, 5) on one CPU; c's task waits (another group's task
/// runs). p is backlogged through c only while (c, 0) is not throttled.
#[test]
fn a_throttled_child_is_no_work_for_its_parent() {
    let json = r#"{"groups": [{"name": "p", "budget": 4, "period": 5},
        {"name": "c", "budget": 2, "period": 5, "parent": "p"},
        {"name": "o", "budget": 1, "period": 5}],
      "tasks": [{"name": "a", "wcet": 100, "period": 100, "group": "c"},
                {"name": "b", "wcet": 100, "period": 100, "group": "o"}]}"#;
    let es = [
        ev(0, Kind::Release, NO_CPU, 0),
        ev(0, Kind::Release, NO_CPU, 1),
        srv(0, Kind::BudgetThrottled, 1, 0),
        ev(0, Kind::SwitchIn, 0, 1),
        ev(1, Kind::SwitchOut, 0, 1),
        ev(1, Kind::Complete, 0, 1),
        srv(3, Kind::BudgetReplenished, 1, 0),
        ev(4, Kind::SwitchIn, 0, 0),
    ];
    let r = run(json, 1, &es, 5).unwrap();
    let by = |g: u32| r.servers.iter().find(|s| s.group == g).unwrap();
    // c: backlogged from 0 (its own waiting task), throttled or not.
    assert_eq!(by(1).backlogged_ns, 5);
    // p: from 3 (c replenished) only.
    assert_eq!(by(0).backlogged_ns, 2);
    assert_eq!((by(0).service_ns, by(1).service_ns), (1, 1));
    assert_eq!(by(2).service_ns, 1);
}

#[test]
fn bad_traces_are_errors_naming_the_event() {
    let e = run(ONE, 1, &[ev(0, Kind::Release, NO_CPU, 3)], 5).unwrap_err();
    assert_eq!(
        e.to_string(),
        "event 0: task 3, but the task file has 1 tasks (is it the file the trace was made from?)"
    );
    let e = run(ONE, 1, &[ev(0, Kind::SwitchIn, 2, 0)], 5).unwrap_err();
    assert!(e.to_string().contains("event 0: CPU 2"), "{e}");
    let e = run(ONE, 1, &[srv(0, Kind::BudgetThrottled, 4, 0)], 5).unwrap_err();
    assert!(e.to_string().contains("group 4"), "{e}");
    let e = run(
        ONE,
        1,
        &[ev(3, Kind::Release, NO_CPU, 0), ev(2, Kind::Complete, 0, 0)],
        5,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("event 1: time 2 ns is before"),
        "{e}"
    );
    let (t, names) = tree(r#"{"tasks": [{"name": "a", "wcet": 1, "period": 5}]}"#, 1);
    assert_eq!(
        check(&[], &t, &names, 1, SupplyOptions::default(), |_, _| 0),
        Err(SupplyError::NoGroups)
    );
    let json = r#"{"groups": [{"name": "g", "budget": 2, "period": 5}],
      "tasks": [{"name": "a", "wcet": 1, "period": 5, "group": "g"}, {"name": "free", "wcet": 1, "period": 5}]}"#;
    let e = run(json, 1, &[ev(0, Kind::Release, NO_CPU, 1)], 5).unwrap_err();
    assert!(
        e.to_string()
            .contains("task 1 (free) is in no reservation group"),
        "{e}"
    );
}

/// Past the bound on stretches per backlogged interval: an error naming the server.
#[test]
fn too_many_stretches_is_an_error() {
    let mut es = vec![ev(0, Kind::Release, NO_CPU, 0)];
    for k in 0..5 {
        es.push(ev(10 * k, Kind::SwitchIn, 0, 0));
        es.push(ev(10 * k + 1, Kind::SwitchOut, 0, 0));
    }
    let (t, names) = tree(ONE, 1);
    let opts = SupplyOptions {
        max_points: 4,
        ..SupplyOptions::default()
    };
    let e = check(&es, &t, &names, 60, opts, |_, _| 0).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "group g, CPU 0: more than 4 service stretches in the backlogged interval from 0 ns"
        ),
        "{e}"
    );
}

/// Brute force: the least `service − Z` over every integer window of `[a, b)`.
fn brute(a: u64, b: u64, st: &[(u64, u64)], z: Server) -> i128 {
    let served = |x: u64, y: u64| -> u64 {
        st.iter()
            .map(|&(s, e)| e.min(y).saturating_sub(s.max(x)))
            .sum()
    };
    let mut best = i128::MAX;
    for t0 in a..b {
        for t1 in t0 + 1..=b {
            best = best.min(i128::from(served(t0, t1)) - i128::from(z.supply(t1 - t0)));
        }
    }
    best
}

/// Merged stretches inside [0, b) from a bit pattern (bit i set: served in [i, i + 1)).
fn stretches(bits: &[bool]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (i, &on) in bits.iter().enumerate() {
        let i = i as u64;
        if on {
            match out.last_mut() {
                Some(l) if l.1 == i => l.1 = i + 1,
                _ => out.push((i, i + 1)),
            }
        }
    }
    out
}

proptest! {
    /// The candidate windows find every violation exactly (a negative minimum equals the
    /// brute force's), and report no negative slack when there is none.
    #[test]
    fn candidates_match_the_brute_force(
        bits in prop::collection::vec(any::<bool>(), 1..40),
        q in 1u64..=6,
        p in 1u64..=10,
    ) {
        let z = Server::new(q.min(p), p).unwrap();
        let b = bits.len() as u64;
        let st = stretches(&bits);
        let (worst, _) = min_slack(0, b, &st, |t| z.supply(t));
        let exact = brute(0, b, &st, z);
        if exact < 0 {
            prop_assert_eq!(worst.map(|w| w.slack()), Some(exact));
        } else {
            prop_assert!(worst.is_none_or(|w| w.slack() >= 0));
        }
        if let Some(w) = worst {
            let served: u64 =
                st.iter().map(|&(s, e)| e.min(w.end).saturating_sub(s.max(w.start))).sum();
            prop_assert_eq!(w.service, served);
        }
    }

    /// What the argument uses: Z is non-decreasing and 1-Lipschitz.
    #[test]
    fn z_is_non_decreasing_and_one_lipschitz(q in 0u64..=20, p in 1u64..=40, t in 0u64..400) {
        let z = Server::new(q.min(p), p).unwrap();
        let d = z.supply(t + 1) - z.supply(t);
        prop_assert!(d <= 1);
    }
}
