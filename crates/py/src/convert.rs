//! Verdict → JSON, in the shape of `schedlab analyze --format json` results.

use schedlab_analysis::{Status, Verdict};
use schedlab_model::Duration;
use serde_json::{json, Value};

fn ns(v: Option<Vec<Duration>>) -> Value {
    v.map_or(Value::Null, |l| {
        Value::from(l.iter().map(|d| d.as_ns()).collect::<Vec<u64>>())
    })
}

/// One result object; `tardiness` as in the CLI's `--tardiness`.
pub(crate) fn result_json(test: &str, mut v: Verdict, tardiness: bool, n: usize) -> Value {
    if !tardiness {
        v.tardiness_bounds = None;
    } else if v.status == Status::Schedulable && v.tardiness_bounds.is_none() {
        v.tardiness_bounds = Some(vec![Duration::ZERO; n]);
    }
    json!({
        "test": test,
        "status": v.status.name(),
        "schedulable": v.is_schedulable(),
        "applicable": v.is_applicable(),
        "reason": v.reason,
        "response_time_bounds_ns": ns(v.response_time_bounds),
        "tardiness_bounds_ns": ns(v.tardiness_bounds),
        "partition": v.partition,
    })
}

/// The task file as JSON with every time as integer nanoseconds and sizes as integer bytes
/// (the form Python works with; still a valid task file).
pub(crate) fn canonical(f: &schedlab_model::file::TaskFile) -> Value {
    let mut value = schedlab_model::file::to_value(f);
    if let Some(tasks) = value.get_mut("tasks").and_then(Value::as_array_mut) {
        for (task, model) in tasks.iter_mut().zip(f.tasks.iter()) {
            if let Some(obj) = task.as_object_mut() {
                obj.insert("wcet".into(), model.wcet.as_ns().into());
                obj.insert("period".into(), model.period.as_ns().into());
                obj.insert("deadline".into(), model.deadline.as_ns().into());
                obj.insert("offset".into(), model.offset.as_ns().into());
                if let Some(w) = model.wss {
                    obj.insert("wss".into(), w.into());
                }
            }
        }
    }
    value
}
