//! Task files with reservation groups: both formats read them alike (through the precise
//! path: the fast paths decline), write them back unchanged, and name the group in errors.

use super::*;
use crate::time::Duration;

const JSON: &str = r#"{"platform": {"cpus": 4},
 "groups": [{"name": "video", "budget": "4ms", "period": "10ms", "cpus": [0, 1]},
            {"name": "decoder", "budget": "1ms", "period": "5ms", "parent": "video"},
            {"name": "audio", "budget": 500000, "period": "1ms"}],
 "tasks": [{"name": "a", "wcet": "1ms", "period": "20ms", "group": "decoder"},
           {"name": "b", "wcet": "1ms", "period": "20ms"}]}"#;

#[test]
fn groups_are_read_and_written_back_in_both_formats() {
    let f = parse_str(JSON, Format::Json).unwrap();
    let groups = f.tasks.groups();
    assert_eq!(groups.len(), 3);
    assert_eq!(groups[0].cpus, Some(vec![0, 1]));
    assert_eq!(groups[1].parent.as_deref(), Some("video"));
    assert_eq!(groups[2].budget, Duration::from_us(500).unwrap());
    assert_eq!(f.tasks[0].group.as_deref(), Some("decoder"));
    assert_eq!(f.tasks[1].group, None);
    assert_eq!(
        scan::parse_json(JSON, Vec::new()),
        None,
        "the fast path declines groups"
    );
    for format in [Format::Json, Format::Toml] {
        let text = to_string(&f, format).unwrap();
        assert_eq!(parse_str(&text, format).unwrap(), f, "{text}");
    }
    let toml_text = to_string(&f, Format::Toml).unwrap();
    assert!(toml_text.contains("[[groups]]"), "{toml_text}");
    assert_eq!(
        typed::parse_toml(&toml_text),
        None,
        "the TOML fast path declines groups"
    );
    // A file without groups writes none.
    let plain = parse_str(r#"{"tasks": [{"wcet": 1, "period": 2}]}"#, Format::Json).unwrap();
    assert!(!to_string(&plain, Format::Json).unwrap().contains("groups"));
}

#[test]
fn a_task_group_alone_declines_the_fast_paths_and_is_checked() {
    let text = r#"{"tasks": [{"name": "t", "wcet": 1, "period": 2, "group": "g"}]}"#;
    assert_eq!(scan::parse_json(text, Vec::new()), None);
    let e = parse_str(text, Format::Json).unwrap_err().to_string();
    assert!(e.starts_with("task 0 (`t`): field `group`"), "{e}");
    assert!(e.contains("unknown group `g`"), "{e}");
    let toml_text = "[[tasks]]\nname = \"t\"\nwcet = 1\nperiod = 2\ngroup = \"g\"\n";
    assert_eq!(typed::parse_toml(toml_text), None);
    assert_eq!(
        parse_str(toml_text, Format::Toml).unwrap_err().to_string(),
        e
    );
}

fn err(text: &str) -> String {
    let e = parse_str(text, Format::Json).unwrap_err().to_string();
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    let toml_text = toml::to_string(&value).unwrap();
    assert_eq!(
        parse_str(&toml_text, Format::Toml).unwrap_err().to_string(),
        e,
        "{toml_text}"
    );
    e
}

fn file(groups: &str) -> String {
    format!(
        r#"{{"platform": {{"cpus": 2}}, "groups": {groups}, "tasks": [{{"wcet": 1, "period": 2}}]}}"#
    )
}

#[test]
fn bad_groups_give_the_same_clear_error_in_both_formats() {
    let cases = [
        (
            r#"[{"name": "g", "budget": "6ms", "period": "5ms"}]"#,
            "group `g`: `budget` 6ms exceeds `period` 5ms",
        ),
        (
            r#"[{"name": "g", "budget": 0, "period": "5ms"}]"#,
            "group `g`: `budget` must be positive",
        ),
        (
            r#"[{"name": "g", "budget": 1, "period": 5, "parent": "h"}]"#,
            "group `g`: `parent`: unknown group `h`",
        ),
        (
            r#"[{"name": "g", "budget": 1, "period": 5, "parent": "h"}, {"name": "h", "budget": 1, "period": 5, "parent": "g"}]"#,
            "cycle",
        ),
        (
            r#"[{"name": "g", "budget": 1, "period": 5, "cpus": [0, 2]}]"#,
            "group `g`: `cpus`: CPU 2 does not exist",
        ),
        (
            r#"[{"name": "g", "budget": 1, "period": 5, "cpu": [0]}]"#,
            "group `g`: unknown field `cpu` (did you mean `cpus`?)",
        ),
        (
            r#"[{"name": "g", "period": 5}]"#,
            "group `g`: missing field `budget`",
        ),
        (
            r#"[{"name": "g", "budget": "1 fortnight", "period": 5}]"#,
            "group `g`: `budget`:",
        ),
        (
            r#"[{"budget": 1, "period": 5}]"#,
            "groups: group 0: missing field `name`",
        ),
        (
            r#"[{"name": "g", "budget": 1, "period": 5}, {"name": "g", "budget": 1, "period": 5}]"#,
            "group `g`: the name is given to groups 0 and 1",
        ),
        (
            r#"[{"name": "p", "budget": 1, "period": 4}, {"name": "c", "budget": 3, "period": 10, "parent": "p"}]"#,
            "group `c`: bandwidth 3ns/10ns exceeds its parent `p`'s 1ns/4ns",
        ),
        (r#"{"name": "g"}"#, "groups: must be a list"),
    ];
    for (groups, expected) in cases {
        let e = err(&file(groups));
        assert!(e.contains(expected), "{groups}: {e}");
    }
}
