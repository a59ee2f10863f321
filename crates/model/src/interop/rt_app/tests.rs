#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::doc::problems;
use super::import::stated_cpus;
use super::*;
use crate::interop::deploy::{DeployedTask, Deployment, LinuxPolicy};
use crate::interop::fixtures;
use crate::time::Duration;
use proptest::prelude::*;

/// The hand-written document of the P-EDF fixture: every field and unit checked against
/// rt-app's tutorial (µs; `run` then an absolute `unique` timer; `delay` for the offset).
const PEDF_DOC: &str = r#"{
    "global": {
        "duration": 2,
        "calibration": "CPU0",
        "default_policy": "SCHED_DEADLINE",
        "lock_pages": true,
        "logdir": "./",
        "log_basename": "demo"
    },
    "tasks": {
        "a": {
            "policy": "SCHED_DEADLINE",
            "dl-runtime": 2500,
            "dl-deadline": 10000,
            "dl-period": 10000,
            "cpus": [0],
            "loop": -1,
            "run": 2000,
            "timer": {"ref": "unique", "period": 10000, "mode": "absolute"}
        },
        "b": {
            "policy": "SCHED_DEADLINE",
            "dl-runtime": 3500,
            "dl-deadline": 12000,
            "dl-period": 15000,
            "cpus": [1],
            "loop": -1,
            "run": 3000,
            "timer": {"ref": "unique", "period": 15000, "mode": "absolute"}
        },
        "c": {
            "policy": "SCHED_DEADLINE",
            "dl-runtime": 1500,
            "dl-deadline": 20000,
            "dl-period": 20000,
            "cpus": [0],
            "delay": 1000,
            "loop": -1,
            "run": 1000,
            "timer": {"ref": "unique", "period": 20000, "mode": "absolute"}
        }
    }
}
"#;

#[test]
fn writes_the_hand_checked_document() {
    let text = write(&fixtures::pedf());
    assert_eq!(strip_header(&text), PEDF_DOC);
    let header: Vec<&str> = text.lines().take_while(|l| !l.starts_with('{')).collect();
    assert_eq!(header.first(), Some(&"/*"));
    assert_eq!(header.last(), Some(&" */"));
    assert_eq!(
        header[1],
        " * Exported by schedlab 0.1.0 from examples/demo.toml: policy pedf on 2 CPUs (logical CPU k is the machine's CPU k)."
    );
    let has = |needle: &str| header.iter().any(|l| l.contains(needle));
    assert!(has("Accepted by: pedf-ffd: schedulable"), "{text}");
    assert!(has("Overheads: none"), "{text}");
    assert!(has("Margin: 500us (SCHED_DEADLINE runtime = WCET + margin"));
    assert!(has(
        "a: SCHED_DEADLINE runtime/deadline/period 2500000/10000000/10000000 ns on CPU 0"
    ));
    assert!(has("ONE rt-app process cannot run this file"), "{text}");
    // Exact µs times: no rounding note.
    assert!(!has("rounded"), "{text}");
}

#[test]
fn a_fifo_set_is_one_process_with_priorities() {
    let dep = fixtures::pfp();
    let text = write(&dep);
    let doc: serde_json::Value = serde_json::from_str(strip_header(&text)).unwrap();
    assert_eq!(problems(&doc), Vec::<String>::new());
    assert_eq!(doc["global"]["duration"], -1);
    assert_eq!(doc["global"]["default_policy"], "SCHED_FIFO");
    let a = &doc["tasks"]["a"];
    assert_eq!(a["policy"], "SCHED_FIFO");
    assert_eq!(a["priority"], 99);
    assert_eq!(a["cpus"], serde_json::json!([0]));
    assert!(a.get("dl-runtime").is_none());
    assert_eq!(doc["tasks"]["c"]["priority"], 98);
    assert!(text.contains("Margin: none (SCHED_FIFO has no budget)"));
    assert!(!text.contains("ONE rt-app"), "{text}");
}

/// Every exported document keeps to rt-app's documented fields (and the check itself finds
/// an undocumented key: `doc::tests`).
#[test]
fn exports_use_only_documented_fields() {
    for dep in [fixtures::pedf(), fixtures::pfp(), rounded()] {
        let doc: serde_json::Value = serde_json::from_str(strip_header(&write(&dep))).unwrap();
        assert_eq!(problems(&doc), Vec::<String>::new());
    }
    let mut doc: serde_json::Value =
        serde_json::from_str(strip_header(&write(&fixtures::pedf()))).unwrap();
    doc["tasks"]["a"]["schedlab-wcet"] = serde_json::json!(2000);
    assert_eq!(
        problems(&doc),
        vec!["tasks.a.schedlab-wcet: undocumented key"]
    );
}

/// A deployment whose times are not whole µs, and a run length of 1.5 s.
fn rounded() -> Deployment {
    let mut dep = fixtures::pedf();
    let t = &mut dep.tasks[0];
    t.wcet = Duration::from_ns(2_000_400);
    t.period = Duration::from_ns(10_000_700);
    t.deadline = Duration::from_ns(9_999_900);
    t.policy = LinuxPolicy::Deadline {
        runtime: Duration::from_ns(2_500_400),
        deadline: Duration::from_ns(9_999_900),
        period: Duration::from_ns(10_000_700),
    };
    dep.duration = Some(Duration::from_ns(1_500_000_000));
    dep
}

#[test]
fn times_are_rounded_toward_a_heavier_load_and_noted() {
    let text = write(&rounded());
    let doc: serde_json::Value = serde_json::from_str(strip_header(&text)).unwrap();
    let a = &doc["tasks"]["a"];
    // run and runtime up, deadline and periods down.
    assert_eq!(a["run"], 2001);
    assert_eq!(a["dl-runtime"], 2501);
    assert_eq!(a["dl-deadline"], 9999);
    assert_eq!(a["dl-period"], 10000);
    assert_eq!(a["timer"]["period"], 10000);
    assert_eq!(doc["global"]["duration"], 2);
    assert!(text.contains(
        " * a: times rounded to whole µs (rt-app's unit): run 2001 µs, timer period 10000 µs, dl-runtime/deadline/period 2501/9999/10000 µs"
    ), "{text}");
    assert!(text.contains("global.duration is whole seconds: 2 s for the run length 1.5s"));
}

#[test]
fn the_header_cannot_end_the_comment() {
    let mut dep = fixtures::pfp();
    dep.provenance.source = "odd*/name\n.json".to_string();
    let text = write(&dep);
    assert!(text.contains("odd* /name .json"), "{text}");
    assert_eq!(text.matches("*/").count(), 1);
    assert!(import(&text).is_ok());
}

fn timing(t: &crate::Task) -> (Option<&str>, u64, u64, u64, u64, Option<u32>) {
    (
        t.name.as_deref(),
        t.wcet.as_ns(),
        t.deadline.as_ns(),
        t.period.as_ns(),
        t.offset.as_ns(),
        t.cpu,
    )
}

/// Export → import gives the tasks back: P-EDF with its partition, P-FP with its priority
/// order; what the import cannot carry (the runtime margin, the run settings) is listed.
#[test]
fn round_trips() {
    let dep = fixtures::pedf();
    let back = import(&write(&dep)).unwrap();
    assert_eq!(back.policy.as_deref(), Some("pedf"));
    let got: Vec<_> = back.file.tasks.iter().map(timing).collect();
    assert_eq!(
        got,
        vec![
            (Some("a"), 2_000_000, 10_000_000, 10_000_000, 0, Some(0)),
            (Some("b"), 3_000_000, 12_000_000, 15_000_000, 0, Some(1)),
            (
                Some("c"),
                1_000_000,
                20_000_000,
                20_000_000,
                1_000_000,
                Some(0)
            ),
        ]
    );
    assert_eq!(back.file.platform.as_ref().map(|p| p.cpus), Some(2));
    assert!(back
        .unmapped
        .iter()
        .any(|l| l.starts_with("thread `a`: dl-runtime 2.5ms is the reservation")));
    assert!(back
        .unmapped
        .iter()
        .any(|l| l.starts_with("global.duration = 2")));
    let fp = import(&write(&fixtures::pfp())).unwrap();
    assert_eq!(fp.policy.as_deref(), Some("pfp"));
    let prio: Vec<_> = fp.file.tasks.iter().map(|t| t.priority).collect();
    // Linux 99, 99, 98 → schedlab 0, 0, 1 (smaller is higher).
    assert_eq!(prio, vec![Some(0), Some(0), Some(1)]);
}

/// A set packed onto CPU 0 of 2 reads back on 2 CPUs: the header's M, not the highest CPU
/// used; a file without schedlab's header gets the highest CPU used + 1.
#[test]
fn the_header_s_cpu_count_is_kept() {
    let mut dep = fixtures::pedf();
    for t in &mut dep.tasks {
        t.cpus = vec![0];
        t.domain = Some(0);
    }
    let text = write(&dep);
    let back = import(&text).unwrap();
    assert_eq!(back.file.platform.as_ref().map(|p| p.cpus), Some(2));
    let bare = import(strip_header(&text)).unwrap();
    assert_eq!(bare.file.platform.as_ref().map(|p| p.cpus), Some(1));
    // The header's M never hides a CPU a thread names.
    dep.tasks[1].cpus = vec![3];
    let back = import(&write(&dep)).unwrap();
    assert_eq!(back.file.platform.as_ref().map(|p| p.cpus), Some(4));
}

#[test]
fn stated_cpus_reads_only_schedlab_s_header() {
    let header = |line: &str| format!("/*\n * {line}\n * Placement: …\n */\n{{}}");
    let ok = "Exported by schedlab 0.1.0 from a on b.toml: policy pedf on 8 CPUs (logical CPU k is the machine's CPU k).";
    assert_eq!(stated_cpus(&header(ok)), Some(8));
    assert_eq!(stated_cpus(&format!("  \n{}", header(ok))), Some(8));
    for bad in [
        "Exported by schedlab 0.1.0 from a: policy pedf on 0 CPUs (…).",
        "Exported by schedlab 0.1.0 from a: policy pedf on 5000 CPUs (…).",
        "Exported by schedlab 0.1.0 from a: policy pedf at 2 CPUs (…).",
        "Exported by something else from a: policy pedf on 2 CPUs (…).",
    ] {
        assert_eq!(stated_cpus(&header(bad)), None, "{bad}");
    }
    assert_eq!(stated_cpus(&format!("{{}} {}", header(ok))), None);
    assert_eq!(stated_cpus("/* Exported by schedlab on 2 CPUs"), None);
}

fn arb_task(index: usize) -> impl Strategy<Value = DeployedTask> {
    (1u64..5_000, 1u64..4, 0u64..3, 0u64..20_000, 0u32..4).prop_map(
        move |(c, t_over_c, d_slack, offset, cpu)| {
            let us = |x: u64| Duration::from_ns(x * 1000);
            let period = c * (t_over_c + 1);
            let deadline = (c + d_slack * (period - c) / 3).max(c);
            DeployedTask {
                index,
                ident: format!("t{index}"),
                policy: LinuxPolicy::Deadline {
                    runtime: us(c),
                    deadline: us(deadline),
                    period: us(period),
                },
                cpus: vec![cpu],
                domain: Some(cpu as usize),
                wcet: us(c),
                period: us(period),
                deadline: us(deadline),
                offset: us(offset),
                wss: None,
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Any partitioned deployment in whole µs reads back with its timing and CPUs; the
    /// output always keeps to the documented fields.
    #[test]
    fn any_partitioned_export_reads_back(tasks in (1usize..6).prop_flat_map(|n| {
        (0..n).map(arb_task).collect::<Vec<_>>()
    })) {
        let mut dep = fixtures::pedf();
        dep.tasks = tasks;
        let text = write(&dep);
        let doc: serde_json::Value = serde_json::from_str(strip_header(&text)).unwrap();
        prop_assert_eq!(problems(&doc), Vec::<String>::new());
        let back = import(&text).unwrap();
        prop_assert_eq!(back.policy.as_deref(), Some("pedf"));
        for (t, d) in back.file.tasks.iter().zip(&dep.tasks) {
            prop_assert_eq!(t.wcet, d.wcet);
            prop_assert_eq!(t.period, d.period);
            prop_assert_eq!(t.deadline, d.deadline);
            prop_assert_eq!(t.offset, d.offset);
            prop_assert_eq!(t.cpu, d.cpus.first().copied());
        }
    }

    #[test]
    fn import_never_panics(s in "\\PC{0,300}") {
        let _ = import(&s);
        let _ = import(&format!("{{\"tasks\": {{\"t\": {{{s}}}}}}}"));
    }
}

/// rt-app's own example `doc/examples/deadline.json` (comments, a trailing comma, the
/// timer without `mode`): one SCHED_DEADLINE thread, 10 ms every 100 ms.
#[test]
fn imports_rt_app_s_deadline_example() {
    let text = r#"{
	/*
	 * Simple use case which creates 10% load
	 * until the use case is stopped with Ctrl+C
	 */
	"tasks" : {
		"thread0" : {
			"instance" : 1,
			"loop" : -1,
			"run" :   10000,
			"timer" : { "ref" : "unique", "period" : 100000 },
			"dl-runtime" : 12000,
			"dl-period"  : 100000,
		}
	},
	"global" : {
		"duration" : 2,
		"calibration" : "CPU0",
		"default_policy" : "SCHED_DEADLINE",
		"pi_enabled" : false,
		"lock_pages" : false,
		"logdir" : "./",
		"log_basename" : "rt-app2",
		"ftrace" : true,
		"gnuplot" : false
	}
}
"#;
    let got = import(text).unwrap();
    assert_eq!(got.policy.as_deref(), Some("gedf"));
    assert_eq!(got.file.platform, None);
    let t = &got.file.tasks[0];
    assert_eq!(
        timing(t),
        (
            Some("thread0"),
            10_000_000,
            100_000_000,
            100_000_000,
            0,
            None
        )
    );
    assert_eq!(
        got.unmapped
            .iter()
            .filter(|l| l.starts_with("global."))
            .count(),
        8
    );
}

/// The tutorial's run/sleep threads, phases, instances, other events and undocumented keys:
/// what maps and what is listed.
#[test]
fn lists_what_does_not_map() {
    let text = r#"{
        "global": {"default_policy": "SCHED_FIFO"},
        "tasks": {
            "sleeper": {"priority": 50, "run": 1000, "sleep": 9000, "colour": "red"},
            "pair": {"instance": 2, "priority": 60, "phases": {"p": {"run": 500, "timer": {"ref": "unique", "period": 5000}, "lock": "m", "unlock": "m"}}},
            "multi": {"phases": {"p1": {"run": 1, "sleep": 1}, "p2": {"run": 2, "sleep": 2}}},
            "none": {"instance": 0, "run": 1},
            "idle": {"policy": "SCHED_OTHER", "run": 1000, "timer": {"ref": "unique", "period": 4000}}
        },
        "resources": {}
    }"#;
    let got = import(text).unwrap();
    let names: Vec<_> = got
        .file
        .tasks
        .iter()
        .map(|t| t.name.clone().unwrap())
        .collect();
    assert_eq!(names, vec!["idle", "pair-0", "pair-1", "sleeper"]);
    let sleeper = &got.file.tasks[3];
    assert_eq!(
        timing(sleeper),
        (Some("sleeper"), 1_000_000, 10_000_000, 10_000_000, 0, None)
    );
    assert_eq!(sleeper.priority, Some(49));
    assert_eq!(got.file.tasks[1].priority, Some(39));
    // A SCHED_OTHER thread among SCHED_FIFO ones: no one policy.
    assert_eq!(got.policy, None);
    let expected = [
        "`resources`: shared resources are not imported",
        "thread `idle`: policy SCHED_OTHER is not real-time; imported without a priority",
        "thread `multi`: 2 phases; only single-phase periodic threads map; skipped",
        "thread `none`: instance 0 creates no thread; skipped",
        "thread `pair`: event `lock` (lock) is not part of a periodic task; ignored",
        "thread `pair`: event `unlock` (unlock) is not part of a periodic task; ignored",
        "thread `sleeper`: key `colour` is not rt-app's; ignored",
        "thread `sleeper`: `sleep` instead of a `timer`: period read as run + sleep = 10ms",
        "threads under different policies: no one schedlab policy",
    ];
    for line in expected {
        assert!(
            got.unmapped.iter().any(|l| l == line),
            "missing {line:?} in {:#?}",
            got.unmapped
        );
    }
}

#[test]
fn infers_clusters_and_global_fixed_priorities() {
    let cl = r#"{"global": {"default_policy": "SCHED_DEADLINE"}, "tasks": {
        "a": {"cpus": [0, 1], "run": 1000, "timer": {"ref": "unique", "period": 10000}},
        "b": {"cpus": [2, 3], "run": 1000, "timer": {"ref": "unique", "period": 10000}}}}"#;
    let got = import(cl).unwrap();
    assert_eq!(got.policy.as_deref(), Some("cedf"));
    let p = got.file.platform.clone().unwrap();
    assert_eq!((p.cpus, p.cluster_size), (4, Some(2)));
    let clusters: Vec<_> = got.file.tasks.iter().map(|t| t.cluster).collect();
    assert_eq!(clusters, vec![Some(0), Some(1)]);
    let gfp = r#"{"tasks": {
        "a": {"policy": "SCHED_FIFO", "priority": 80, "cpus": [0, 1], "run": 1000, "timer": {"ref": "unique", "period": 10000}},
        "b": {"policy": "SCHED_RR", "run": 1000, "timer": {"ref": "unique", "period": 10000}}}}"#;
    let got = import(gfp).unwrap();
    assert_eq!(got.policy.as_deref(), Some("gfp"));
    let prio: Vec<_> = got.file.tasks.iter().map(|t| t.priority).collect();
    // rt-app's default priority of the real-time classes is 10.
    assert_eq!(prio, vec![Some(19), Some(89)]);
    let odd = r#"{"tasks": {
        "a": {"policy": "SCHED_FIFO", "cpus": [0, 2], "run": 1000, "timer": {"ref": "unique", "period": 10000}}}}"#;
    let got = import(odd).unwrap();
    assert_eq!(got.policy, None);
    assert_eq!(got.file.tasks[0].affinity, Some(vec![0, 2]));
}

#[test]
fn errors_name_the_thread_and_the_field() {
    let err = |text: &str| {
        import(text)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert_eq!(
        err(r#"{"tasks": {"t": {"policy": "SCHED_EDF", "run": 1, "timer": {"period": 2}}}}"#),
        "rt-app: thread `t`: field `policy`: must be one of SCHED_OTHER, SCHED_IDLE, SCHED_RR, SCHED_FIFO, SCHED_DEADLINE, got \"SCHED_EDF\""
    );
    assert_eq!(
        err(r#"{"tasks": {"t": {"run": -1, "timer": {"period": 2}}}}"#),
        "rt-app: thread `t`: field `run`: must be a whole number of µs, got -1"
    );
    assert_eq!(
        err(r#"{"tasks": {"t": {"run": 1, "timer": {"ref": "x"}}}}"#),
        "rt-app: thread `t`: field `timer`: a timer needs a `period`"
    );
    assert_eq!(
        err(
            r#"{"tasks": {"t": {"policy": "SCHED_FIFO", "priority": 100, "run": 1, "timer": {"period": 2}}}}"#
        ),
        "rt-app: thread `t`: field `priority`: a SCHED_FIFO/SCHED_RR priority is 1..99, got 100"
    );
    assert_eq!(
        err(r#"{"tasks": {"t": {"run": 5000, "timer": {"period": 2000}}}}"#),
        "rt-app: task 0 (`t`): wcet 5ms exceeds deadline 2ms"
    );
    assert_eq!(
        err("{\n  \"tasks\": {\n    \"t\": {\"run\" 1}}}"),
        "rt-app: malformed JSON at line 3, column 17: expected `:`"
    );
    assert_eq!(
        err("{\"tasks\": {}} /* open"),
        "rt-app: malformed JSON at line 1, column 15: unterminated /* comment"
    );
    assert_eq!(
        err(r#"{"global": {}}"#),
        "rt-app: the file: field `tasks`: missing (rt-app's only mandatory object)"
    );
    assert_eq!(
        err(r#"{"tasks": {"t": {"run": 1000}}}"#),
        "rt-app: the file: field `tasks`: no thread maps to a periodic task (thread `t`: no timer and no sleep: not periodic; skipped)"
    );
    assert_eq!(
        err(r#"{"tasks": {"t": {"instance": 70000, "run": 1, "timer": {"period": 2}}}}"#),
        "rt-app: the instances of a thread is 70000, more than the 65536 schedlab reads"
    );
    let big = " ".repeat(MAX_TEXT_BYTES + 1);
    assert!(err(&big).contains("more than the 16777216 schedlab reads"));
}

#[test]
fn comments_and_commas_inside_strings_are_kept() {
    let text =
        r#"{"tasks": {"a,/*b*/": {"run": 1000, "timer": {"ref": "x//y", "period": 4000},}, }}"#;
    let got = import(text).unwrap();
    assert_eq!(got.file.tasks[0].name.as_deref(), Some("a,/*b*/"));
}
