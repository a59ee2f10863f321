//! Hand-checked CSV task lists, their errors, and the round trip through [`to_csv`].

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::file::{parse_str, Format};
use proptest::prelude::*;

fn err(text: &str) -> String {
    // `.err()`: an `Imported` need not be `Debug`.
    import(text).err().expect("an error").to_string()
}

#[test]
fn headerless_lines_are_cost_period_deadline_in_ns() {
    let i = import("# SchedCAT list\n\n2, 10\n3,15,12\n").unwrap();
    let t = &i.file.tasks;
    assert_eq!(
        (
            t[0].wcet.as_ns(),
            t[0].period.as_ns(),
            t[0].deadline.as_ns()
        ),
        (2, 10, 10)
    );
    assert_eq!(
        (
            t[1].wcet.as_ns(),
            t[1].period.as_ns(),
            t[1].deadline.as_ns()
        ),
        (3, 15, 12)
    );
    assert_eq!(i.policy, None);
    assert_eq!(i.file.platform, None);
    assert!(i.unmapped.is_empty());
}

#[test]
fn a_header_names_columns_in_any_order_with_units() {
    let text = "Name,Period_ms,WCET_us,deadline,id,colour\r\n\
                \"a, b\",10,2500,8ms,7,red\r\n\
                c,1.5,150,,8,blue\r\n";
    let i = import(text).unwrap();
    let t = &i.file.tasks;
    assert_eq!(t[0].name.as_deref(), Some("a, b"));
    assert_eq!(
        (
            t[0].wcet.as_ns(),
            t[0].period.as_ns(),
            t[0].deadline.as_ns()
        ),
        (2_500_000, 10_000_000, 8_000_000)
    );
    assert_eq!(
        (
            t[1].wcet.as_ns(),
            t[1].period.as_ns(),
            t[1].deadline.as_ns()
        ),
        (150_000, 1_500_000, 1_500_000)
    );
    assert_eq!(
        i.unmapped,
        [
            "column `colour`: not a task field; ignored",
            "column `id`: the tasks are named by the `name` column; the ids are not kept",
        ]
    );
    // `id` names the tasks when there is no `name`; offset, priority and cpu map.
    let i =
        import("id,cost,period,offset,priority,cpu\n1,1ms,4ms,1ms,2,1\n2,1ms,5ms,,,\n").unwrap();
    let t = &i.file.tasks;
    assert_eq!(t[0].name.as_deref(), Some("1"));
    assert_eq!(
        (t[0].offset.as_ns(), t[0].priority, t[0].cpu),
        (1_000_000, Some(2), Some(1))
    );
    assert_eq!(
        (t[1].offset.as_ns(), t[1].priority, t[1].cpu),
        (0, None, None)
    );
    assert_eq!(
        i.unmapped,
        ["column `id`: kept as each task's name (a task file has no ids)"]
    );
    // A misspelt column is noted with the likely intended one (and its absence is an error
    // only if the column is needed).
    let i = import("cost,period,dedline\n1,4,3\n").unwrap();
    assert_eq!(
        i.unmapped,
        ["column `dedline`: not a task field (did you mean `deadline`?); ignored"]
    );
    assert_eq!(i.file.tasks[0].deadline.as_ns(), 4);
}

#[test]
fn errors_name_the_line_and_column() {
    for (text, expected) in [
        ("cost,period\n1,10\n2,abc\n", "CSV: line 3, column `period`: `abc`: "),
        ("cost_ms,period_ms\n1ms,10\n", "CSV: line 2, column `cost_ms`: `1ms`: the header gives the unit (ms); write the number alone"),
        ("cost_us,period\n0.0005,10\n", "CSV: line 2, column `cost_us`: `0.0005`: "),
        ("cost,period\n1,10,3\n", "CSV: line 2: 3 fields, but the header has 2 columns"),
        ("1,2,3,4\n", "CSV: line 1: 4 columns and no header"),
        ("1,2\n1,2,3,4\n", "CSV: line 2: 4 columns and no header"),
        ("5\n", "CSV: line 1: 1 columns and no header"),
        ("name,period\na,10\n", "CSV: line 1: header: no cost (or wcet) column"),
        ("cost,wcet,period\n1,1,10\n", "CSV: line 1, column `wcet`: header: `cost` and `wcet` name the same field"),
        ("cost,,period\n", "CSV: line 1: header: column 2 has no name"),
        ("cost,period\n,10\n", "CSV: line 2, column `cost`: empty: every task needs one"),
        ("cost,period\n20,10\n", "CSV: line 2: task 0: wcet 20ns exceeds deadline 10ns"),
        ("cost,period\n0,10\n", "CSV: line 2: task 0: field `wcet`: must be greater than zero"),
        ("cost,period\n-1,10\n", "CSV: line 2, column `cost`: `-1`: "),
        ("cost,period,priority\n1,10,-2\n", "CSV: line 2, column `priority`: `-2` is not a whole number from 0 to 4294967295"),
        ("name,cost,period\na,1,10\n# x\nb,1,10\na,1,10\n", "CSV: line 5, column `name`: duplicate task name `a` (also on line 2)"),
        ("name,cost,period\n\"a,1,10\n", "CSV: line 2: a quoted field is not closed on its line"),
        ("# nothing\n\n", "CSV: empty task set"),
        ("cost,period\n", "CSV: empty task set"),
    ] {
        let e = err(text);
        assert!(e.starts_with(expected), "{text:?}\n→ {e}\n(expected {expected})");
    }
    let wide = format!("{}\n", vec!["1"; MAX_COLUMNS + 1].join(","));
    assert!(err(&wide).contains("more than 64 columns"));
}

#[test]
fn sizes_are_bounded() {
    let mut text = String::from("cost,period\n");
    for _ in 0..=MAX_IMPORT_TASKS {
        text.push_str("1,9\n");
    }
    assert_eq!(
        err(&text),
        "CSV: the number of tasks is at least 100001; an import reads at most 100000"
    );
}

#[test]
fn writer_refuses_what_csv_cannot_hold() {
    let f = parse_str(
        r#"{"tasks": [{"name": "a", "wcet": 1, "period": 4}, {"name": "b", "wcet": 1, "period": 4, "wss": "4KiB"}]}"#,
        Format::Json,
    )
    .unwrap();
    assert_eq!(
        to_csv(&f).unwrap_err().to_string(),
        "CSV: task 1 (`b`): field `wss`: CSV holds name (on one line), wcet, period, deadline, offset, priority and cpu only"
    );
    let f = parse_str(
        r#"{"tasks": [{"name": "a\nb", "wcet": 1, "period": 4}]}"#,
        Format::Json,
    )
    .unwrap();
    assert!(to_csv(&f).unwrap_err().to_string().contains("field `name`"));
}

#[test]
fn written_csv_reads_back_and_says_what_it_is() {
    let f = parse_str(
        r#"{"platform": {"cpus": 2}, "tasks": [{"name": "x, \"y\"", "wcet": "1ms", "period": "4ms", "deadline": "3ms", "offset": 5, "priority": 1},
                           {"name": " 7", "wcet": 2, "period": 9, "cpu": 1}]}"#,
        Format::Json,
    )
    .unwrap();
    let text = to_csv(&f).unwrap();
    assert_eq!(
        text,
        "name,wcet_ns,period_ns,deadline_ns,offset_ns,priority,cpu\n\"x, \"\"y\"\"\",1000000,4000000,3000000,5,1,\n\" 7\",2,9,9,0,,1\n"
    );
    let back = import(&text).unwrap();
    assert_eq!(back.file.tasks, f.tasks);
    assert!(back.unmapped.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any task set of the fields CSV holds writes and reads back to the same set.
    #[test]
    fn round_trip(
        tasks in prop::collection::vec(
            ("[a-zA-Z0-9 ,\"#_\r\t-]{0,8}", 1u64..1_000_000, 0u64..1_000_000, 0u64..3, 0u64..100, prop::option::of(0u32..9), prop::option::of(0u32..4)),
            1..20,
        )
    ) {
        let built: Vec<Task> = tasks.iter().enumerate().map(|(k, (name, c, extra, dk, off, prio, cpu))| {
            let period = c + extra;
            let deadline = c + (period - c) * dk / 2;
            let mut t = Task::new_unchecked(Duration::from_ns(*c), Duration::from_ns(deadline), Duration::from_ns(period));
            // Unique names (or none): a set forbids duplicates.
            t.name = (!name.is_empty()).then(|| format!("{name}{k}"));
            t.offset = Duration::from_ns(*off);
            t.priority = *prio;
            t.cpu = *cpu;
            t
        }).collect();
        let f = TaskFile { tasks: TaskSet::new(built).unwrap(), platform: None };
        let text = to_csv(&f).unwrap();
        let back = import(&text).unwrap();
        prop_assert_eq!(back.file, f);
    }

    /// Arbitrary text: a value or an error, never a panic.
    #[test]
    fn never_panics(s in "[0-9a-z,\"#_ .\\n-]{0,120}|\\PC{0,80}") {
        let _ = import(&s);
    }
}
