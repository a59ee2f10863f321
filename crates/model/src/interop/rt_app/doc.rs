//! rt-app's documented JSON fields, from its `doc/tutorial.txt` (scheduler-tools/rt-app; the
//! fields below are those of the master branch's tutorial, commit 55cb0c0; Debian's rt-app 1.0
//! reads every one the writer emits), and a check that a document uses only these fields.
//!
//! - Top level: `global`, `tasks` (mandatory), `resources` (kept for backward compatibility).
//! - `global` ("global object"): `duration` (integer seconds, −1 = until stopped),
//!   `calibration` (`"CPU<n>"` or an integer ns per loop), `default_policy`, `pi_enabled`,
//!   `lock_pages`, `logdir`, `log_basename`, `log_size`, `ftrace`, `gnuplot`, `io_device`,
//!   `mem_buffer_size`, `cumulative_slack`.
//! - A thread object ("thread object", "thread and phase object properties", "scheduling
//!   policy", "CPUs affinity", …): `instance`, `delay` (µs), `phases`, `loop`, `policy`
//!   (`SCHED_OTHER`, `SCHED_IDLE`, `SCHED_RR`, `SCHED_FIFO`, `SCHED_DEADLINE`), `priority`,
//!   `dl-runtime`, `dl-period`, `dl-deadline` (µs), `cpus` (array of CPUs), `util_min`,
//!   `util_max`, `membind_nodes`, `taskgroup`; and its events ("events"): `run` (µs of
//!   calibrated work), `runtime` (µs of wall-clock time), `sleep`, `mem`, `iorun`, `timer`
//!   (`ref`, `period` in µs, `mode` `relative`/`absolute`), `lock`, `unlock`, `wait`,
//!   `signal`, `broad`, `sync`, `barrier`, `suspend`, `resume`, `yield`, `fork`.
//!
//! rt-app recognises an event by the *prefix* of its key (`run0`, `timer1`: workgen makes
//! repeated keys unique that way), so [`event_kind`] classifies keys the same way.

use serde_json::Value;

/// Keys of the top-level object.
pub const TOP_KEYS: &[&str] = &["global", "tasks", "resources"];

/// Keys of `global`.
pub const GLOBAL_KEYS: &[&str] = &[
    "duration",
    "calibration",
    "default_policy",
    "pi_enabled",
    "lock_pages",
    "logdir",
    "log_basename",
    "log_size",
    "ftrace",
    "gnuplot",
    "io_device",
    "mem_buffer_size",
    "cumulative_slack",
];

/// Properties of a thread (and of a phase, except `instance`, `delay` and `phases`).
pub const THREAD_KEYS: &[&str] = &[
    "instance",
    "delay",
    "phases",
    "loop",
    "policy",
    "priority",
    "dl-runtime",
    "dl-period",
    "dl-deadline",
    "cpus",
    "util_min",
    "util_max",
    "membind_nodes",
    "taskgroup",
];

/// Events, in the order rt-app's parser tries their prefixes (`runtime` before `run`).
pub const EVENTS: &[&str] = &[
    "runtime", "run", "sleep", "mem", "iorun", "timer", "lock", "unlock", "wait", "signal",
    "broad", "sync", "barrier", "suspend", "resume", "yield", "fork",
];

/// Keys of a `timer` event's object.
pub const TIMER_KEYS: &[&str] = &["ref", "period", "mode"];

/// The policies `policy` and `default_policy` take.
pub const POLICIES: &[&str] = &[
    "SCHED_OTHER",
    "SCHED_IDLE",
    "SCHED_RR",
    "SCHED_FIFO",
    "SCHED_DEADLINE",
];

/// The event a thread or phase key names, by prefix as rt-app matches it (`None`: not an
/// event).
pub fn event_kind(key: &str) -> Option<&'static str> {
    EVENTS.iter().copied().find(|e| key.starts_with(e))
}

/// Every key of `doc` outside rt-app's documented fields, by its path (`tasks.t1.colour`),
/// and every documented field with a value of the wrong kind. Event keys must be exactly an
/// event's name here (a writer has no reason to number them). Empty when the document keeps
/// to the documentation.
pub fn problems(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(top) = doc.as_object() else {
        return vec!["the document is not a JSON object".to_string()];
    };
    for (k, v) in top {
        match k.as_str() {
            "global" => check_global(v, &mut out),
            "tasks" => match v.as_object() {
                Some(tasks) => {
                    for (name, thread) in tasks {
                        check_thread(&format!("tasks.{name}"), thread, true, &mut out);
                    }
                }
                None => out.push("tasks: not an object".to_string()),
            },
            "resources" => {}
            other => out.push(format!("{other}: undocumented top-level key")),
        }
    }
    if !top.contains_key("tasks") {
        out.push("tasks: missing (the only mandatory object)".to_string());
    }
    out
}

fn is_int(v: &Value) -> bool {
    v.as_i64().is_some()
}

fn check_global(v: &Value, out: &mut Vec<String>) {
    let Some(g) = v.as_object() else {
        out.push("global: not an object".to_string());
        return;
    };
    for (k, v) in g {
        let ok = match k.as_str() {
            "duration" | "mem_buffer_size" => is_int(v),
            "calibration" => is_int(v) || v.as_str().is_some_and(|s| s.starts_with("CPU")),
            "default_policy" => v.as_str().is_some_and(|s| POLICIES.contains(&s)),
            "pi_enabled" | "lock_pages" | "gnuplot" | "cumulative_slack" => v.is_boolean(),
            "logdir" | "log_basename" | "io_device" => v.is_string(),
            "log_size" => is_int(v) || v.is_string(),
            "ftrace" => v.is_string() || v.is_boolean(),
            other => {
                out.push(format!("global.{other}: undocumented key"));
                continue;
            }
        };
        if !ok {
            out.push(format!("global.{k}: value {v} of the wrong kind"));
        }
    }
}

fn check_thread(path: &str, v: &Value, thread: bool, out: &mut Vec<String>) {
    let Some(t) = v.as_object() else {
        out.push(format!("{path}: not an object"));
        return;
    };
    for (k, v) in t {
        let here = format!("{path}.{k}");
        if EVENTS.contains(&k.as_str()) {
            check_event(&here, k, v, out);
            continue;
        }
        let ok = match k.as_str() {
            "instance" | "delay" if thread => is_int(v),
            "phases" if thread => match v.as_object() {
                Some(phases) => {
                    for (p, phase) in phases {
                        check_thread(&format!("{here}.{p}"), phase, false, out);
                    }
                    true
                }
                None => false,
            },
            "loop" | "priority" | "util_min" | "util_max" => is_int(v),
            "dl-runtime" | "dl-period" | "dl-deadline" => v.as_u64().is_some(),
            "policy" => v.as_str().is_some_and(|s| POLICIES.contains(&s)),
            "cpus" | "membind_nodes" => v
                .as_array()
                .is_some_and(|a| a.iter().all(|c| c.as_u64().is_some())),
            "taskgroup" => v.is_string(),
            _ => {
                out.push(format!("{here}: undocumented key"));
                continue;
            }
        };
        if !ok {
            out.push(format!("{here}: value {v} of the wrong kind"));
        }
    }
}

fn check_event(path: &str, kind: &str, v: &Value, out: &mut Vec<String>) {
    match kind {
        "timer" => {
            let Some(t) = v.as_object() else {
                out.push(format!("{path}: not an object"));
                return;
            };
            for (k, v) in t {
                let ok = match k.as_str() {
                    "ref" => v.is_string(),
                    "period" => v.as_u64().is_some(),
                    "mode" => matches!(v.as_str(), Some("relative" | "absolute")),
                    other => {
                        out.push(format!("{path}.{other}: undocumented key"));
                        continue;
                    }
                };
                if !ok {
                    out.push(format!("{path}.{k}: value {v} of the wrong kind"));
                }
            }
        }
        "run" | "runtime" | "sleep" | "mem" | "iorun" if v.as_u64().is_none() => {
            out.push(format!("{path}: value {v} of the wrong kind"));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_are_classified_by_prefix_as_rt_app_does() {
        assert_eq!(event_kind("run"), Some("run"));
        assert_eq!(event_kind("run0"), Some("run"));
        assert_eq!(event_kind("runtime"), Some("runtime"));
        assert_eq!(event_kind("runtime3"), Some("runtime"));
        assert_eq!(event_kind("timer1"), Some("timer"));
        assert_eq!(event_kind("unlock"), Some("unlock"));
        assert_eq!(event_kind("policy"), None);
        assert_eq!(event_kind("dl-runtime"), None);
    }

    /// The tutorial's own examples pass; every kind of deviation is found, with its path.
    #[test]
    fn the_check_finds_undocumented_keys_and_wrong_kinds() {
        let documented = json!({
            "global": {"duration": 2, "calibration": "CPU0", "default_policy": "SCHED_DEADLINE",
                       "pi_enabled": false, "lock_pages": false, "logdir": "./",
                       "log_basename": "rt-app2", "ftrace": true, "gnuplot": false},
            "tasks": {"thread0": {"instance": 1, "loop": -1, "run": 10000,
                                  "timer": {"ref": "unique", "period": 100000},
                                  "dl-runtime": 12000, "dl-period": 100000}}
        });
        assert_eq!(problems(&documented), Vec::<String>::new());
        let phases = json!({"tasks": {"thread2": {"cpus": [4, 5, 6], "phases": {
            "phase1": {"cpus": [0, 1], "run": 10, "sleep": 10},
            "phase2": {"cpus": [2], "run": 10, "sleep": 10}}}}});
        assert_eq!(problems(&phases), Vec::<String>::new());
        let bad = json!({
            "comment": "x",
            "global": {"duration": "2s", "colour": 1},
            "tasks": {"t": {"dl-runtime": -5, "policy": "SCHED_EDF", "nice": 3, "run0": 1,
                            "timer": {"ref": "unique", "period": 10, "phase": 0},
                            "phases": {"p": {"instance": 2}}}}
        });
        let mut found = problems(&bad);
        found.sort();
        assert_eq!(
            found,
            vec![
                "comment: undocumented top-level key",
                "global.colour: undocumented key",
                "global.duration: value \"2s\" of the wrong kind",
                "tasks.t.dl-runtime: value -5 of the wrong kind",
                "tasks.t.nice: undocumented key",
                "tasks.t.phases.p.instance: undocumented key",
                "tasks.t.policy: value \"SCHED_EDF\" of the wrong kind",
                "tasks.t.run0: undocumented key",
                "tasks.t.timer.phase: undocumented key",
            ]
        );
        assert_eq!(
            problems(&json!({"global": {}})),
            vec!["tasks: missing (the only mandatory object)"]
        );
    }
}
