//! Engine budgets (the engine's offer to every policy, `schedlab_policy::event` "Budgets"):
//! hand-derived exhaustion instants with a test policy that sets budgets by rules.

use crate::config::{SimConfig, SimTask};
use crate::engine::{simulate, SimResult};
use crate::test_policy::{Budgeted, Rule};
use schedlab_model::Duration;
use schedlab_trace::{Event, Kind, NO_CPU};

fn task(c: u64, d: u64, t: u64) -> SimTask {
    SimTask::new(
        Duration::from_ns(c),
        Duration::from_ns(d),
        Duration::from_ns(t),
    )
}

fn on_release(task: u32, amount: u64) -> Rule {
    Rule {
        on: "release",
        trigger: task,
        target: task,
        amount: Some(amount),
    }
}

/// Runs `tasks` on `m` CPUs until `horizon` under [`Budgeted`] with `rules`.
fn run(m: u32, horizon: u64, tasks: &[SimTask], rules: Vec<Rule>) -> (SimResult, Budgeted) {
    let mut p = Budgeted::new(m, rules);
    let mut cfg = SimConfig::new(m, Duration::from_ns(horizon));
    cfg.record_trace = true;
    let r = simulate(tasks, &mut p, &cfg).unwrap();
    (r, p)
}

/// The budget events of a trace: (time, kind, cpu, task, arg).
fn budget_events(trace: &[Event]) -> Vec<(u64, Kind, u32, u32, u64)> {
    trace
        .iter()
        .filter(|e| matches!(e.kind, Kind::BudgetExhausted | Kind::BudgetReplenished))
        .map(|e| (e.time, e.kind, e.cpu, e.task, e.arg))
        .collect()
}

fn exhaustions(p: &Budgeted) -> Vec<(u64, u32, u64)> {
    p.log
        .iter()
        .filter(|e| e.1 == "exhausted")
        .map(|e| (e.0, e.2, e.3))
        .collect()
}

/// 1 CPU, EDF. τ0 = (6, 20, 20) with a budget of 4 at release; τ1 = (2, 5, 20) offset 1
/// preempts it 1–3; τ2 = (1, 30, 30) offset 6. τ0 runs 0–1 (1 of 4 used), waits 1–3 (nothing
/// used), runs from 3: its budget runs out at 3 + 3 = 6 — after τ2's release at 6 (same-instant
/// order), while it is still on CPU 0. The policy does nothing: τ0 keeps running without a
/// budget and completes at 8; τ2 runs 8–9.
#[test]
fn preempted_job_keeps_its_remaining_budget() {
    let tasks = vec![
        task(6, 20, 20),
        task(2, 5, 20).with_offset(Duration::from_ns(1)),
        task(1, 30, 30).with_offset(Duration::from_ns(6)),
    ];
    let (r, p) = run(1, 20, &tasks, vec![on_release(0, 4)]);
    assert_eq!(exhaustions(&p), vec![(6, 0, 4)]);
    let at6: Vec<_> = p.log.iter().filter(|e| e.0 == 6).map(|e| e.1).collect();
    assert_eq!(at6, vec!["release", "exhausted"]);
    assert_eq!(
        budget_events(&r.trace),
        vec![
            (0, Kind::BudgetReplenished, NO_CPU, 0, 4),
            (6, Kind::BudgetExhausted, 0, 0, 4)
        ]
    );
    let j = r.jobs.iter().find(|j| j.task == 0).unwrap();
    assert_eq!(j.completion.map(|t| t.as_ns()), Some(8));
}

/// The budget follows the job to another CPU. 2 CPUs, EDF: τ0 = (2, 10, 10), τ1 = (4, 10, 10)
/// with a budget of 3, τ2 = (2, 5, 5) offset 1 (the schedule of
/// `tests::preemption_and_migration_on_two_cpus`): τ1 runs 0–1 on CPU 1, is preempted there
/// by τ2 and resumes on CPU 0 at 2, when τ0 completes: 1 used, 2 left, exhausted at 4 on
/// CPU 0.
#[test]
fn a_budget_counts_execution_on_any_cpu() {
    let tasks = vec![
        task(2, 10, 10),
        task(4, 10, 10),
        task(2, 5, 5).with_offset(Duration::from_ns(1)),
    ];
    let (r, p) = run(2, 10, &tasks, vec![on_release(1, 3)]);
    assert_eq!(exhaustions(&p), vec![(4, 1, 3)]);
    assert!(budget_events(&r.trace).contains(&(4, Kind::BudgetExhausted, 0, 1, 3)));
}

/// A later request replaces the earlier one and counts from its own instant; clearing removes
/// it. 1 CPU: τ0 = (10, 40, 40) with budget 8 at its release; at τ1's release (t = 2, τ1 =
/// (1, 40, 40) offset 2, later deadline: no preemption) τ0's budget becomes 3: it has executed
/// 2, so the budget runs out at 5, not 8; at that exhaustion it gets 1 more → exhausted at 6;
/// τ2 = (1, 50, 50) offset 6 clears it at its release at 6 — before the exhaustion of that
/// instant, so there is none at 6 and none later.
#[test]
fn requests_replace_and_clear() {
    let tasks = vec![
        task(10, 40, 40),
        task(1, 40, 40).with_offset(Duration::from_ns(2)),
        task(1, 50, 50).with_offset(Duration::from_ns(6)),
    ];
    let rules = vec![
        on_release(0, 8),
        Rule {
            on: "release",
            trigger: 1,
            target: 0,
            amount: Some(3),
        },
        Rule {
            on: "exhausted",
            trigger: 0,
            target: 0,
            amount: Some(1),
        },
        Rule {
            on: "release",
            trigger: 2,
            target: 0,
            amount: None,
        },
    ];
    let (r, p) = run(1, 40, &tasks, rules.clone());
    assert_eq!(exhaustions(&p), vec![(5, 0, 5)]);
    let replenished: Vec<_> = budget_events(&r.trace)
        .into_iter()
        .filter(|e| e.1 == Kind::BudgetReplenished)
        .map(|e| (e.0, e.2, e.4))
        .collect();
    assert_eq!(replenished, vec![(0, NO_CPU, 8), (2, 0, 3), (5, 0, 1)]);
    // Without the clear, each exhaustion gives 1 more: at 6, 7, 8, 9; at 10 τ0 completes.
    let (_, p) = run(1, 40, &tasks, rules[..3].to_vec());
    let at: Vec<u64> = exhaustions(&p).iter().map(|e| e.0).collect();
    assert_eq!(at, vec![5, 6, 7, 8, 9]);
}

/// A completion at the instant the budget runs out wins: τ0 = (4, 10, 10) with a budget of 4
/// completes at 4 with no exhaustion. With C = 5 the budget runs out at 4, and the next job
/// gets its own budget at its release at 10: exhausted at 14.
#[test]
fn completion_at_the_exhaustion_instant_wins() {
    let (r, p) = run(1, 20, &[task(4, 10, 10)], vec![on_release(0, 4)]);
    assert_eq!(exhaustions(&p), vec![]);
    assert!(!r.trace.iter().any(|e| e.kind == Kind::BudgetExhausted));
    let (_, p) = run(1, 20, &[task(5, 10, 10)], vec![on_release(0, 4)]);
    assert_eq!(exhaustions(&p), vec![(4, 0, 4), (14, 0, 4)]);
}

/// An abort removes the budget: τ0 = (10, 5, 20) with a budget of 7 is aborted at its
/// deadline 5 (`abort_late`): no exhaustion at 7. A budget of zero runs out at the instant
/// the job starts: τ1 = (2, 20, 20) offset 10 gets 0 at release, exhausted at 10.
#[test]
fn aborts_remove_budgets_and_zero_runs_out_at_once() {
    let tasks = vec![
        task(10, 5, 20),
        task(2, 20, 20).with_offset(Duration::from_ns(10)),
    ];
    let mut p = Budgeted::new(1, vec![on_release(0, 7), on_release(1, 0)]);
    let mut cfg = SimConfig::new(1, Duration::from_ns(20));
    cfg.abort_late = true;
    let r = simulate(&tasks, &mut p, &cfg).unwrap();
    assert!(r.jobs.iter().any(|j| j.task == 0 && j.aborted));
    assert_eq!(exhaustions(&p), vec![(10, 1, 0)]);
}
