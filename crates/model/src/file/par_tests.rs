//! Tests of the `parallel` field of task files ([`super::par`]): both formats, the fast and
//! the precise paths, writing back, every message of the checks, the size bounds, and a
//! round-trip property test on random structures.

use super::*;
use crate::parallel::{
    ParallelStructure, MAX_PARALLEL_REGIONS, MAX_PARALLEL_THREADS, MAX_REGION_THREADS,
};
use crate::time::Duration;
use proptest::prelude::*;

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

fn error_of(text: &str) -> String {
    parse_str(text, Format::sniff(text))
        .unwrap_err()
        .to_string()
}

/// The fast path of `format` reads `text` (it does not decline) and reads what the precise
/// path reads.
fn both_paths_read(text: &str, format: Format) -> TaskFile {
    let fast = match format {
        Format::Json => scan::parse_json(text, Vec::new()),
        Format::Toml => typed::parse_toml(text),
    };
    let precise = precise::parse_str(text, format).unwrap();
    assert_eq!(fast.as_ref(), Some(&precise), "{text}");
    precise
}

/// Reads `text` in both paths, then writes it in both formats and reads it back, fast paths
/// included.
fn read_and_round_trip(text: &str) -> TaskFile {
    let f = both_paths_read(text, Format::sniff(text));
    for format in [Format::Json, Format::Toml] {
        let printed = to_string(&f, format).unwrap();
        assert_eq!(both_paths_read(&printed, format), f, "{printed}");
    }
    f
}

#[test]
fn reads_parallel_in_both_formats_and_paths_and_writes_it_back() {
    let toml_text = r#"
[[tasks]]
name = "fj"
period = "20ms"
parallel = [["2ms"], ["3ms", "3ms", 3000000], ["1ms"]]

[[tasks]]
name = "given"
wcet = "3ms"
period = "10ms"
deadline = "8ms"
parallel = [["2ms", "1ms"]]

[[tasks]]
name = "seq"
wcet = "1ms"
period = "10ms"
"#;
    let f = read_and_round_trip(toml_text);
    let fj = &f.tasks[0];
    let p = fj.parallel.as_ref().unwrap();
    // wcet left out: the work.
    assert_eq!(fj.wcet, ms(12));
    assert_eq!((p.work(), p.critical_path()), (ms(12), ms(6)));
    assert_eq!(
        (p.region_count(), p.thread_count(), p.max_width()),
        (3, 5, 3)
    );
    assert_eq!(f.tasks[1].wcet, ms(3));
    assert_eq!(f.tasks[1].parallel.as_ref().map(|p| p.max_width()), Some(2));
    assert_eq!(f.tasks[2].parallel, None);
    // The JSON form reads the same set, on the fast path too.
    let json = r#"{"tasks": [
        {"name": "fj", "period": "20ms", "parallel": [["2ms"], ["3ms", "3ms", 3000000], ["1ms"]]},
        {"name": "given", "wcet": 3000000, "period": "10ms", "deadline": "8ms", "parallel": [["2ms", "1ms"]]},
        {"name": "seq", "wcet": "1ms", "period": "10ms"}]}"#;
    assert_eq!(read_and_round_trip(json), f);
    // The written form gives the wcet (the work) and the threads with units.
    let printed = to_string(&f, Format::Toml).unwrap();
    assert!(
        printed.contains(r#"parallel = [["2ms"], ["3ms", "3ms", "3ms"], ["1ms"]]"#),
        "{printed}"
    );
    assert!(printed.contains(r#"wcet = "12ms""#), "{printed}");
}

#[test]
fn a_reader_reuses_tasks_with_and_without_parallel() {
    let texts = [
        r#"{"tasks": [{"name": "a", "period": 10, "parallel": [[1, 2], [3]]}, {"name": "b", "wcet": 1, "period": 3}]}"#,
        r#"{"tasks": [{"name": "a", "wcet": 1, "period": 4}, {"name": "b", "period": 9, "parallel": [[4, 4]]}]}"#,
    ];
    let mut reader = Reader::default();
    for text in texts.iter().chain(texts.iter()) {
        let read = reader.parse(text, Format::Json);
        assert_eq!(read, parse_str(text, Format::Json), "{text}");
        reader.recycle(read.unwrap());
    }
}

/// One task `x` (period 10ms) with `extra` fields, in TOML; its error.
fn task_with(extra: &str) -> String {
    error_of(&format!(
        "[[tasks]]\nname = \"x\"\nperiod = \"10ms\"\n{extra}\n"
    ))
}

#[test]
fn every_check_names_the_task_and_the_field() {
    let cases = [
        (
            "parallel = []",
            "task 0 (`x`): field `parallel`: lists no region: a parallel task has at least one region, a list of thread lengths such as [[\"2ms\"], [\"1ms\", \"1ms\"]]",
        ),
        (
            r#"parallel = [["1ms"], []]"#,
            "task 0 (`x`): field `parallel`: region 1 is an empty region: a region has at least one thread (a sequential segment is a region of one thread)",
        ),
        (
            r#"parallel = [["1ms", 0]]"#,
            "task 0 (`x`): field `parallel`: region 0, thread 1: a thread's length must be greater than zero",
        ),
        (
            r#"parallel = [["1ms"], ["11ms", "1ms"]]"#,
            "task 0 (`x`): field `parallel`: region 1, thread 0 is 11ms long, a thread longer than the period 10ms",
        ),
        (
            "wcet = \"5ms\"\nparallel = [[\"2ms\", \"2ms\"], [\"2ms\"]]",
            "task 0 (`x`): field `parallel`: `parallel` disagrees with `wcet`: the threads add up to 6ms (the work), but wcet is 5ms; give the sum as wcet, or leave wcet out",
        ),
        (
            "parallel = [[\"2ms\"]]\ncritical_sections = [{resource = \"bus\", start = 0, length = \"1ms\"}]",
            "task 0 (`x`): field `parallel`: a parallel task with `critical_sections` is not supported: parallel threads are independent [RTWS §III]; give either `parallel` or `critical_sections`",
        ),
        (
            "parallel = [[\"2ms\", \"1ms\"]]\nsplit = [{cpu = 0, budget = \"2ms\"}, {cpu = 1, budget = \"1ms\"}]",
            "task 0 (`x`): field `parallel`: a parallel task with `split` is not supported: a split task is sequential; give either `parallel` or `split`",
        ),
        (
            "parallel = [\"2ms\"]",
            "task 0 (`x`): field `parallel`: region 0: must be a list of thread lengths such as [\"1ms\", \"1ms\"], got \"2ms\"",
        ),
        (
            "parallel = \"2ms\"",
            "task 0 (`x`): field `parallel`: must be a list of regions, each a list of thread lengths, such as [[\"2ms\"], [\"1ms\", \"1ms\"]], got \"2ms\"",
        ),
        (
            r#"parallel = [["1ms", "2 parsecs"]]"#,
            "task 0 (`x`): field `parallel`: region 0, thread 1: cannot read `2 parsecs` as a time: expected a number with a unit ns, us, ms or s (e.g. \"2ms\", \"1.5ms\") or an integer number of nanoseconds",
        ),
        // Neither `wcet` nor `parallel`: `wcet` is missing, as before.
        ("", "task 0 (`x`): missing field `wcet`"),
    ];
    for (extra, expected) in cases {
        assert_eq!(task_with(extra), expected, "{extra}");
    }
    // The work of a parallel task may exceed its deadline: a heavy task (C > D) runs on
    // several CPUs at once (federated scheduling); a sequential one may not.
    let heavy = parse_str(
        "[[tasks]]\nname = \"x\"\nperiod = \"10ms\"\ndeadline = \"5ms\"\nparallel = [[\"3ms\", \"3ms\"]]",
        Format::Toml,
    )
    .unwrap();
    assert_eq!(
        (heavy.tasks[0].wcet, heavy.tasks[0].deadline),
        (ms(6), ms(5))
    );
    assert_eq!(
        error_of("[[tasks]]\nname = \"x\"\nwcet = \"6ms\"\nperiod = \"10ms\"\ndeadline = \"5ms\""),
        "task 0 (`x`): wcet 6ms exceeds deadline 5ms"
    );
    // JSON says the same as TOML.
    assert_eq!(
        error_of(
            r#"{"tasks": [{"name": "x", "wcet": "5ms", "period": "10ms", "parallel": [["2ms", "2ms"], ["2ms"]]}]}"#
        ),
        task_with("wcet = \"5ms\"\nparallel = [[\"2ms\", \"2ms\"], [\"2ms\"]]")
    );
}

#[test]
fn sizes_are_bounded_before_anything_is_built() {
    let regions = vec!["[1]"; MAX_PARALLEL_REGIONS + 1].join(", ");
    assert_eq!(
        task_with(&format!("parallel = [{regions}]")),
        "task 0 (`x`): field `parallel`: 1025 regions is more than the 1024 allowed per task"
    );
    let wide = vec!["1"; MAX_REGION_THREADS + 1].join(", ");
    assert_eq!(
        task_with(&format!("parallel = [[1], [{wide}]]")),
        "task 0 (`x`): field `parallel`: region 1: 4097 threads is more than the 4096 allowed per region"
    );
    let full = format!("[{}]", vec!["1"; MAX_REGION_THREADS].join(", "));
    let regions = vec![full.as_str(); MAX_PARALLEL_THREADS / MAX_REGION_THREADS + 1].join(", ");
    assert_eq!(
        task_with(&format!("parallel = [{regions}]")),
        "task 0 (`x`): field `parallel`: 69632 threads in all is more than the 65536 allowed per task"
    );
    // The fast paths decline them (the precise path then speaks).
    let json = format!(r#"{{"tasks": [{{"period": 10000000, "parallel": [{regions}]}}]}}"#);
    assert_eq!(scan::parse_json(&json, Vec::new()), None);
    let toml_text = format!("[[tasks]]\nperiod = 10000000\nparallel = [{regions}]\n");
    assert_eq!(typed::parse_toml(&toml_text), None);
    // At the bounds: read by every path.
    let regions = vec![full.as_str(); MAX_PARALLEL_THREADS / MAX_REGION_THREADS].join(", ");
    let at_bound = format!(r#"{{"tasks": [{{"period": 10000000, "parallel": [{regions}]}}]}}"#);
    let f = both_paths_read(&at_bound, Format::Json);
    assert_eq!(
        f.tasks[0].parallel.as_ref().map(|p| p.thread_count()),
        Some(MAX_PARALLEL_THREADS)
    );
}

#[test]
fn tasks_built_in_code_are_checked_alike() {
    let p = ParallelStructure::from_threads(vec![vec![ms(1)], vec![ms(2), ms(2)]]).unwrap();
    let t = crate::Task::implicit(ms(5), ms(10))
        .unwrap()
        .with_parallel(p.clone());
    assert_eq!(t.wcet, ms(5));
    assert!(t.validate(0).is_ok());
    let mut wrong = t.clone();
    wrong.wcet = ms(4);
    assert_eq!(
        wrong.validate(3).unwrap_err().to_string(),
        "task 3: field `parallel`: `parallel` disagrees with `wcet`: the threads add up to 5ms (the work), but wcet is 4ms; give the sum as wcet, or leave wcet out"
    );
    assert_eq!(
        crate::task::parallel_problem(&p, ms(5), ms(1)).as_deref(),
        Some("region 1, thread 0 is 2ms long, a thread longer than the period 1ms")
    );
    // A set built in code keeps its structure through a file.
    let set = crate::TaskSet::new(vec![t]).unwrap();
    let f = TaskFile {
        tasks: set,
        platform: None,
    };
    for format in [Format::Json, Format::Toml] {
        let printed = to_string(&f, format).unwrap();
        assert_eq!(both_paths_read(&printed, format), f, "{printed}");
    }
}

/// A random structure: 1–6 regions of 1–5 threads of 1 ns to 3 ms (some in whole ms, so that
/// both the `ms` and the `ns` forms are written).
fn structures() -> impl Strategy<Value = Vec<Vec<u64>>> {
    let length = prop_oneof![1u64..3_000_000, (1u64..4).prop_map(|x| x * 1_000_000)];
    proptest::collection::vec(proptest::collection::vec(length, 1..6), 1..7)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Files with random parallel tasks (wcet given or derived, sequential tasks between):
    /// both paths read them alike, and every file schedlab writes reads back to the same set
    /// in both formats, on the fast paths too.
    #[test]
    fn random_parallel_files_round_trip(
        shapes in proptest::collection::vec(structures(), 1..5),
        give_wcet in proptest::collection::vec(proptest::bool::ANY, 5),
    ) {
        let mut tasks = Vec::new();
        for (i, shape) in shapes.iter().enumerate() {
            let work: u64 = shape.iter().flatten().sum();
            let regions: Vec<String> = shape
                .iter()
                .map(|r| format!("[{}]", r.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")))
                .collect();
            let wcet = if give_wcet[i] { format!(r#""wcet": {work}, "#) } else { String::new() };
            tasks.push(format!(
                r#"{{"name": "p{i}", {wcet}"period": {}, "parallel": [{}]}}"#,
                work.max(3_000_000) * 2,
                regions.join(", ")
            ));
            tasks.push(format!(r#"{{"name": "s{i}", "wcet": 5, "period": 10}}"#));
        }
        let text = format!(r#"{{"tasks": [{}]}}"#, tasks.join(", "));
        let f = both_paths_read(&text, Format::Json);
        for (i, shape) in shapes.iter().enumerate() {
            let t = &f.tasks[2 * i];
            let p = t.parallel.as_ref().unwrap();
            let expected: Vec<u64> = shape.iter().flatten().copied().collect();
            let read: Vec<u64> = p.threads().map(|(.., d)| d.as_ns()).collect();
            prop_assert_eq!(read, expected);
            prop_assert_eq!(t.wcet, p.work());
            let longest: u64 = shape.iter().map(|r| r.iter().max().copied().unwrap_or(0)).sum();
            prop_assert_eq!(p.critical_path().as_ns(), longest);
        }
        for format in [Format::Json, Format::Toml] {
            let printed = to_string(&f, format).unwrap();
            prop_assert_eq!(both_paths_read(&printed, format), f.clone());
        }
    }
}
