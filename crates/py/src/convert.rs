//! Task files → the JSON form the Python side works with.

use serde_json::Value;

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
