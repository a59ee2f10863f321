//! The JSON forms shared by `schedlab analyze --format json`, `schedlab tests --format json`
//! and the Python package: one result object per test (stable; tools read it) and the
//! catalogue of tests.

use crate::registry;
use crate::test::SchedTest;
use crate::verdict::{Status, Verdict};
use schedlab_model::Duration;
use serde_json::{json, Value};

fn ns(v: Option<&[Duration]>) -> Value {
    v.map_or(Value::Null, |l| {
        Value::from(l.iter().map(|d| d.as_ns()).collect::<Vec<u64>>())
    })
}

/// The CLI's `--tardiness` (Python `tardiness=`) rule for a verdict on `n` tasks: without it,
/// no tardiness bounds are reported; with it, a hard test that shows the set schedulable
/// bounds every task's tardiness by zero.
pub fn tardiness_as_requested(mut v: Verdict, tardiness: bool, n: usize) -> Verdict {
    if !tardiness {
        v.tardiness_bounds = None;
    } else if v.status == Status::Schedulable && v.tardiness_bounds.is_none() {
        v.tardiness_bounds = Some(vec![Duration::ZERO; n]);
    }
    v
}

/// `{"test", "status", "schedulable", "applicable", "reason", "response_time_bounds_ns",
/// "tardiness_bounds_ns", "partition"}` for one test's verdict, plus `"accounting"` when the
/// test charged overheads per bin, and `"assignment"` (`fp-ts`, `ffd`, `wfd`) and
/// `"split_tasks"` (`[{"task", "parts": [{"cpu", "budget_ns", "kind"}]}]`, execution order)
/// when a semi-partitioned test placed the tasks, and `"k"`, `"guaranteed_tasks"` (densest
/// first) and `"utility_fraction"` (`{"k_over_n", "value_weighted"}`) from a utility accrual
/// bound (`gnphvdf-uab`), and `"groups"` from a reservation-group test (`hcbs-gfp`, see
/// [`crate::hcbs::report::GroupResult::to_json`]).
pub fn result_json(test: &str, v: &Verdict) -> Value {
    let mut out = json!({
        "test": test,
        "status": v.status.name(),
        "schedulable": v.is_schedulable(),
        "applicable": v.is_applicable(),
        "reason": v.reason,
        "response_time_bounds_ns": ns(v.response_time_bounds.as_deref()),
        "tardiness_bounds_ns": ns(v.tardiness_bounds.as_deref()),
        "partition": v.partition,
    });
    if let (Some(acc), Value::Object(map)) = (&v.accounting, &mut out) {
        map.insert("accounting".into(), acc.to_json());
    }
    if let (Some(semi), Value::Object(map)) = (&v.semi, &mut out) {
        map.insert("assignment".into(), Value::from(semi.method));
        map.insert("split_tasks".into(), semi.split_tasks_json());
    }
    if let (Some(b), Value::Object(map)) = (&v.utility_bound, &mut out) {
        map.insert("k".into(), Value::from(b.k));
        map.insert(
            "guaranteed_tasks".into(),
            Value::from(b.guaranteed_tasks.clone()),
        );
        map.insert("utility_fraction".into(), b.fraction_json());
    }
    if let (Some(groups), Value::Object(map)) = (&v.groups, &mut out) {
        let groups: Vec<Value> = groups.iter().map(|g| g.to_json()).collect();
        map.insert("groups".into(), Value::from(groups));
    }
    out
}

fn entry(name: &str, test: &dyn SchedTest) -> Value {
    let i = test.info();
    let params: Vec<Value> = test
        .params()
        .iter()
        .map(|p| json!({"name": p.name, "default": p.value, "about": p.about}))
        .collect();
    json!({"test": name, "family": i.family, "kind": i.kind.name(),
           "citation": i.citation, "assumptions": i.assumptions,
           "complexity": i.complexity, "parameters": params})
}

/// Every test (and the parametric `cedf-k<size>`) with family, kind, citation, assumptions,
/// complexity and parameters.
pub fn catalogue() -> Vec<Value> {
    let mut out: Vec<Value> = registry::all()
        .iter()
        .map(|t| entry(&t.name(), t.as_ref()))
        .collect();
    if let Ok(cedf) = registry::by_name("cedf-k4") {
        out.push(entry("cedf-k<size>", cedf.as_ref()));
    }
    out
}
