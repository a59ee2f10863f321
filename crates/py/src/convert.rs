//! Task files → the JSON form the Python side works with.

use serde_json::{json, Value};

/// Per-job records as columns (one JSON array per field; -1 for a missing start/completion),
/// the form `simulate` and `run` hand to Python for a numpy structured array or dicts.
pub(crate) fn jobs_table(jobs: &[schedlab_sim::JobRecord]) -> Value {
    let col = |f: &dyn Fn(&schedlab_sim::JobRecord) -> Value| -> Value {
        Value::from(jobs.iter().map(f).collect::<Vec<_>>())
    };
    let opt =
        |t: Option<schedlab_model::Time>| t.map_or(Value::from(-1i64), |t| Value::from(t.as_ns()));
    json!({
        "task": col(&|j| j.task.into()),
        "seq": col(&|j| j.seq.into()),
        "release_ns": col(&|j| j.release.as_ns().into()),
        "deadline_ns": col(&|j| j.deadline.as_ns().into()),
        "start_ns": col(&|j| opt(j.start)),
        "completion_ns": col(&|j| opt(j.completion)),
        "preemptions": col(&|j| j.preemptions.into()),
        "migrations": col(&|j| j.migrations.into()),
        "tardiness_ns": col(&|j| j.tardiness.as_ns().into()),
        "aborted": col(&|j| j.aborted.into()),
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
