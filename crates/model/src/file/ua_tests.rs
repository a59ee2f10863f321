//! Tests of the utility-accrual fields of task files ([`super::ua`]): both formats, both
//! paths, writing back, and every message the issue asks for.

use super::*;
use crate::extensions::CriticalSection;
use crate::time::Duration;
use crate::tuf::Tuf;

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

fn us(x: u64) -> Duration {
    Duration::from_ns(x * 1_000)
}

fn error_of(text: &str) -> String {
    parse_str(text, Format::sniff(text))
        .unwrap_err()
        .to_string()
}

/// Reads `text` in its own format and checks that writing it back in both formats reads the
/// same set (names of resources included).
fn read_and_round_trip(text: &str) -> TaskFile {
    let f = parse_str(text, Format::sniff(text)).unwrap();
    for format in [Format::Json, Format::Toml] {
        let printed = to_string(&f, format).unwrap();
        assert_eq!(parse_str(&printed, format).unwrap(), f, "{printed}");
    }
    f
}

#[test]
fn reads_every_field_in_both_formats_and_writes_it_back() {
    let toml_text = r#"
[[tasks]]
name = "a"
wcet = "4ms"
period = "10ms"
tuf = {kind = "step", value = 10}
critical_sections = [{resource = "bus", start = "1ms", length = "2ms"},
                     {resource = "mem", start = "1.5ms", length = "1ms"}]

[[tasks]]
name = "b"
wcet = "6ms"
period = "15ms"
tuf = {kind = "linear", value = 20.5, zero_at = "20ms"}
abort_cost = "50us"
critical_sections = [{resource = 7, start = 0, length = "1ms"},
                     {resource = "bus", start = "2ms", length = "1ms"}]

[[tasks]]
wcet = "5ms"
period = "12ms"
tuf = {kind = "points", points = [["0ms", 8], ["8ms", 8], [12000000, 2.5]]}
abortable = false
"#;
    let f = read_and_round_trip(toml_text);
    let t = &f.tasks;
    assert_eq!(t[0].tuf, Some(Tuf::Step { value: 10.0 }));
    // Resources are numbered in order of first appearance across the set: bus, mem, 7.
    assert_eq!(f.tasks.resources(), ["bus", "mem", "7"]);
    assert_eq!(
        t[0].critical_sections,
        [
            CriticalSection {
                resource: 0,
                start: ms(1),
                length: ms(2)
            },
            CriticalSection {
                resource: 1,
                start: us(1500),
                length: ms(1)
            },
        ]
    );
    assert_eq!(t[1].critical_sections[0].resource, 2);
    assert_eq!(t[1].critical_sections[1].resource, 0);
    assert_eq!(
        t[1].tuf,
        Some(Tuf::Linear {
            value: 20.5,
            zero_at: ms(20)
        })
    );
    assert_eq!((t[1].abortable, t[1].abort_cost), (true, us(50)));
    assert_eq!(
        t[2].tuf,
        Some(Tuf::Points(vec![
            (Duration::ZERO, 8.0),
            (ms(8), 8.0),
            (ms(12), 2.5)
        ]))
    );
    assert_eq!((t[2].abortable, t[2].abort_cost), (false, Duration::ZERO));
    assert_eq!(f.tasks.resource_count(), 3);
    // The JSON form of the same file reads the same set.
    let json_text = to_string(&f, Format::Json).unwrap();
    assert!(json_text.contains(r#""resource": "7""#), "{json_text}");
    assert_eq!(parse_str(&json_text, Format::Json).unwrap(), f);
}

#[test]
fn the_example_file_reads() {
    let text = include_str!("../../../../examples/ua.toml");
    let f = read_and_round_trip(text);
    assert_eq!(f.tasks.resources(), ["bus", "mem"]);
    assert!(f.tasks.utilization() > 1.4, "overloaded on one CPU");
    assert_eq!(f.platform.map(|p| p.cpus), Some(1));
}

#[test]
fn the_fast_paths_read_abortable_and_abort_cost_and_leave_the_rest_to_the_precise_path() {
    let json = r#"{"tasks": [{"wcet": 1000, "period": "1ms", "abortable": false},
        {"wcet": 5, "period": 10, "abort_cost": "9ns", "abortable": true}]}"#;
    let fast = scan::parse_json(json, Vec::new());
    assert_eq!(
        fast.as_ref(),
        Some(&precise::parse_str(json, Format::Json).unwrap())
    );
    let toml_text = to_string(fast.as_ref().unwrap(), Format::Toml).unwrap();
    assert_eq!(typed::parse_toml(&toml_text), fast, "{toml_text}");
    for text in [
        r#"{"tasks": [{"wcet": 1, "period": 5, "tuf": {"kind": "step", "value": 1}}]}"#,
        r#"{"tasks": [{"wcet": 1, "period": 5, "critical_sections": []}]}"#,
        r#"{"tasks": [{"wcet": 1, "period": 5, "abortable": 0}]}"#,
        r#"{"tasks": [{"wcet": 1, "period": 5, "abortable": falsey}]}"#,
    ] {
        assert_eq!(scan::parse_json(text, Vec::new()), None, "{text}");
    }
    for text in [
        "[[tasks]]\nwcet = 1\nperiod = 5\ntuf = {kind = \"step\", value = 1}\n",
        "[[tasks]]\nwcet = 1\nperiod = 5\ncritical_sections = []\n",
        "[[tasks]]\nwcet = 1\nperiod = 5\nabortable = 1\n",
    ] {
        assert_eq!(typed::parse_toml(text), None, "{text}");
    }
    // …and the precise path reads them.
    let f = parse_str(
        r#"{"tasks": [{"wcet": 1, "period": 5, "tuf": {"kind": "step", "value": 1}}]}"#,
        Format::Json,
    )
    .unwrap();
    assert_eq!(f.tasks[0].effective_tuf(), Some(Tuf::Step { value: 1.0 }));
}

/// One task `x` (wcet 5ms, period 10ms) with `extra` fields, in TOML.
fn task_with(extra: &str) -> String {
    error_of(&format!(
        "[[tasks]]\nname = \"x\"\nwcet = \"5ms\"\nperiod = \"10ms\"\n{extra}\n"
    ))
}

#[test]
fn messages_name_task_field_and_resource() {
    let cases = [
        (
            r#"tuf = {kind = "points", points = [["0ms", 1], ["5ms", 2]]}"#,
            "task 0 (`x`): field `tuf`: points: a TUF must not increase, but point 1 (2 at 5ms) is above point 0 (1 at 0ns)",
        ),
        (
            r#"critical_sections = [{resource = "bus", start = 0, length = "6ms"}]"#,
            "task 0 (`x`): field `critical_sections`: section 0 (resource `bus`) is 6ms long, longer than the job (wcet 5ms)",
        ),
        (
            r#"critical_sections = [{resource = "bus", start = "4ms", length = "2ms"}]"#,
            "task 0 (`x`): field `critical_sections`: section 0 (resource `bus`) starts at 4ms and ends after the job's wcet 5ms: the job would never release the resource",
        ),
        (
            r#"abort_cost = "10ms""#,
            "task 0 (`x`): field `abort_cost`: 10ms is not below the period 10ms: an abort handler must be shorter than a period",
        ),
        (
            "abortable = false\nabort_cost = \"1ms\"",
            "task 0 (`x`): field `abort_cost`: a task with `abortable = false` is never aborted: drop `abort_cost`",
        ),
        (
            "utility = 3\ntuf = {kind = \"step\", value = 3}",
            "task 0 (`x`): field `tuf`: give either `utility` (a downward step) or `tuf`, not both",
        ),
        (
            r#"tuf = {kind = "lineer", value = 3}"#,
            "task 0 (`x`): field `tuf`: unknown kind `lineer` (did you mean `linear`? known: step, linear, points)",
        ),
        (
            r#"tuf = {kind = "linear", value = 3}"#,
            "task 0 (`x`): field `tuf`: a `linear` TUF needs `zero_at`",
        ),
        (
            r#"tuf = {kind = "step", value = 3, zero_at = "1ms"}"#,
            "task 0 (`x`): field `tuf`: a `step` TUF: unknown field `zero_at` (known: value)",
        ),
        (
            r#"tuf = {value = 3}"#,
            "task 0 (`x`): field `tuf`: missing `kind` (step, linear or points)",
        ),
        (
            r#"tuf = {kind = "step", value = -1}"#,
            "task 0 (`x`): field `tuf`: `value` must be a number ≥ 0, got -1",
        ),
        (
            r#"tuf = {kind = "linear", value = 1, zero_at = 0}"#,
            "task 0 (`x`): field `tuf`: zero_at must be greater than zero",
        ),
        (
            r#"tuf = {kind = "points", points = [["1ms", 1]]}"#,
            "task 0 (`x`): field `tuf`: points: the first point must be at 0 (the release), not at 1ms",
        ),
        (
            r#"tuf = {kind = "points", points = [["0ms", 1, 2]]}"#,
            "task 0 (`x`): field `tuf`: points: point 0 must be a [time, value] pair, got [\"0ms\",1,2]",
        ),
        (
            "abortable = \"no\"",
            "task 0 (`x`): field `abortable`: must be true or false, got \"no\"",
        ),
        (
            r#"critical_sections = [{resource = "bus", start = 0, lenght = "1ms"}]"#,
            "task 0 (`x`): field `critical_sections`: section 0: unknown field `lenght` (did you mean `length`?)",
        ),
        (
            r#"critical_sections = [{resource = "bus", start = 0}]"#,
            "task 0 (`x`): field `critical_sections`: section 0: missing field `length`",
        ),
        (
            r#"critical_sections = [{resource = "", start = 0, length = 1}]"#,
            "task 0 (`x`): field `critical_sections`: section 0: `resource` must be a name (a non-empty string or an integer ≥ 0), got \"\"",
        ),
        (
            r#"critical_sections = [{resource = "bus", start = 0, length = 0}]"#,
            "task 0 (`x`): field `critical_sections`: section 0 (resource `bus`): length must be greater than zero",
        ),
        (
            r#"critical_sections = [{resource = "bus", start = 0, length = "2ms"}, {resource = "bus", start = "1ms", length = "1ms"}]"#,
            "task 0 (`x`): field `critical_sections`: sections 0 and 1 both hold resource `bus` at 1ms: a job cannot lock a resource it already holds",
        ),
    ];
    for (extra, expected) in cases {
        assert_eq!(task_with(extra), expected, "{extra}");
    }
    // Sections of one resource that touch are fine; of different resources, they nest.
    let f = parse_str(
        "[[tasks]]\nwcet = 5\nperiod = 10\ncritical_sections = [{resource = \"a\", start = 0, length = 2}, {resource = \"a\", start = 2, length = 1}, {resource = \"b\", start = 1, length = 3}]\n",
        Format::Toml,
    )
    .unwrap();
    assert_eq!(f.tasks[0].critical_sections.len(), 3);
    // JSON gives the same message as TOML.
    assert_eq!(
        error_of(
            r#"{"tasks": [{"name": "x", "wcet": "5ms", "period": "10ms", "tuf": {"kind": "lineer", "value": 3}}]}"#
        ),
        task_with(r#"tuf = {kind = "lineer", value = 3}"#)
    );
}

#[test]
fn sizes_are_bounded_before_anything_is_built() {
    let points: Vec<String> = (0..=crate::tuf::MAX_TUF_POINTS)
        .map(|k| format!("[{k}, 1]"))
        .collect();
    assert_eq!(
        task_with(&format!(
            "tuf = {{kind = \"points\", points = [{}]}}",
            points.join(", ")
        )),
        "task 0 (`x`): field `tuf`: points: 1025 points is more than the 1024 allowed"
    );
    let sections: Vec<String> = (0..=crate::extensions::MAX_CRITICAL_SECTIONS)
        .map(|k| format!("{{resource = \"r{k}\", start = 0, length = 1}}"))
        .collect();
    assert_eq!(
        task_with(&format!("critical_sections = [{}]", sections.join(", "))),
        "task 0 (`x`): field `critical_sections`: 1025 sections is more than the 1024 allowed per task"
    );
}

#[test]
fn a_set_built_in_code_names_resources_by_id() {
    let mut t = crate::Task::implicit(ms(5), ms(10)).unwrap();
    t.critical_sections.push(CriticalSection {
        resource: 3,
        start: Duration::ZERO,
        length: ms(6),
    });
    let e = crate::TaskSet::new(vec![t.clone()])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "task 0: field `critical_sections`: section 0 (resource 3) is 6ms long, longer than the job (wcet 5ms)"
    );
    t.critical_sections[0].length = ms(1);
    let set = crate::TaskSet::new(vec![t.clone()]).unwrap();
    assert_eq!(
        (set.resource_name(3), set.resource_count()),
        ("3".to_string(), 4)
    );
    // Names must cover the ids in use and be distinct.
    assert!(crate::TaskSet::with_resources(vec![t.clone()], vec!["a".into()]).is_err());
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(crate::TaskSet::with_resources(vec![t.clone()], names(&["a", "b", "c", "a"])).is_err());
    let set = crate::TaskSet::with_resources(vec![t], names(&["a", "b", "c", "d"])).unwrap();
    assert_eq!(set.resource_name(3), "d");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// Random utility-accrual fields (valid or not): whatever reads prints and reads back to the
    /// same set in both formats, resource names and numbering included; the rest is an error
    /// naming a task, never a panic.
    #[test]
    fn random_fields_round_trip_or_fail_with_a_task_named(
        sections in proptest::collection::vec((0usize..4, 0u64..12, 0u64..6), 0..5),
        kind in 0usize..4,
        values in proptest::collection::vec((0u64..20, 0u32..40), 1..5),
        abortable in proptest::bool::ANY,
        abort_cost in 0u64..12,
    ) {
        let names = ["bus", "mem", "7", "disk"];
        let section_names: Vec<&str> = sections.iter().map(|(r, _, _)| names[*r]).collect();
        let sections: Vec<String> = sections
            .iter()
            .map(|(r, s, l)| format!(r#"{{"resource": "{}", "start": {s}, "length": {l}}}"#, names[*r]))
            .collect();
        let points: Vec<String> = values.iter().map(|(t, v)| format!("[{t}, {v}]")).collect();
        let tuf = match kind {
            0 => String::new(),
            1 => format!(r#", "tuf": {{"kind": "step", "value": {}}}"#, values[0].1),
            2 => format!(r#", "tuf": {{"kind": "linear", "value": {}, "zero_at": {}}}"#, values[0].1, values[0].0),
            _ => format!(r#", "tuf": {{"kind": "points", "points": [{}]}}"#, points.join(", ")),
        };
        let text = format!(
            r#"{{"tasks": [{{"wcet": 10, "period": 12, "abortable": {abortable}, "abort_cost": {abort_cost}, "critical_sections": [{}]{tuf}}}, {{"wcet": 1, "period": 2, "critical_sections": [{{"resource": "disk", "start": 0, "length": 1}}]}}]}}"#,
            sections.join(", ")
        );
        match parse_str(&text, Format::Json) {
            Ok(f) => {
                for format in [Format::Json, Format::Toml] {
                    let printed = to_string(&f, format).unwrap();
                    proptest::prop_assert_eq!(&parse_str(&printed, format).unwrap(), &f);
                }
                let used: Vec<u32> = f.tasks.iter().flat_map(|t| t.critical_sections.iter().map(|c| c.resource)).collect();
                proptest::prop_assert!(used.iter().all(|&r| (r as usize) < f.tasks.resources().len()));
                // Numbered in order of first appearance: task 0's sections, then `disk`.
                let mut expected: Vec<&str> = Vec::new();
                for name in section_names.iter().copied().chain(["disk"]) {
                    if !expected.contains(&name) {
                        expected.push(name);
                    }
                }
                proptest::prop_assert_eq!(f.tasks.resources(), expected.as_slice());
            }
            Err(e) => proptest::prop_assert!(e.to_string().starts_with("task "), "{}", e),
        }
    }
}

/// Every TOML block of docs/task-files.md is a task file that reads (the utility-accrual
/// example among them).
#[test]
fn the_guide_s_toml_blocks_read() {
    let guide = include_str!("../../../../docs/task-files.md");
    let blocks: Vec<&str> = guide
        .split("```toml\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("```").map(|(block, _)| block))
        .collect();
    assert!(blocks.len() >= 3, "{}", blocks.len());
    assert!(blocks.iter().any(|b| b.contains("critical_sections")));
    for block in blocks {
        parse_str(block, Format::Toml).unwrap_or_else(|e| panic!("{e}\n{block}"));
    }
}
