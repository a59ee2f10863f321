//! Hand-checked imports of SimSo configurations, the examples against their own task files,
//! and property tests: generated sets written as SimSo writes them read back exactly, and
//! no text makes the reader panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::file::{self, Format};
use crate::time::Duration;
use proptest::prelude::*;
use std::path::PathBuf;

/// A configuration with `sched` class, `procs` processors (ids 1..), `fields` declared and
/// `tasks` (each an attribute list written after the task's name and id).
fn config(class: &str, procs: usize, fields: &[&str], tasks: &[&str]) -> String {
    let mut s = format!(
        "<?xml version=\"1.0\" ?>\n<simulation duration=\"100000000\" cycles_per_ms=\"1000000\" etm=\"wcet\">\n\t<sched overhead=\"0\" class=\"simso.schedulers.{class}\"/>\n\t<processors>\n"
    );
    for k in 1..=procs {
        s += &format!("\t\t<processor name=\"CPU {k}\" id=\"{k}\" cl_overhead=\"0\" cs_overhead=\"0\" speed=\"1.0\"/>\n");
    }
    s += "\t</processors>\n\t<tasks>\n";
    for f in fields {
        s += &format!("\t\t<field name=\"{f}\" type=\"int\"/>\n");
    }
    for (k, t) in tasks.iter().enumerate() {
        s += &format!(
            "\t\t<task name=\"T{}\" id=\"{}\" abort_on_miss=\"no\" {t}/>\n",
            k + 1,
            k + 1
        );
    }
    s + "\t</tasks>\n</simulation>\n"
}

fn ms(x: u64) -> Duration {
    Duration::from_ms(x).unwrap()
}

fn err(text: &str) -> String {
    // `.err()`: an `Imported` need not be `Debug`.
    import(text).err().expect("an error").to_string()
}

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

#[test]
fn the_examples_import_to_their_own_task_files() {
    for (name, policy) in [
        ("edf-3tasks", "gedf"),
        ("p-edf-4tasks", "pedf"),
        ("fixed-pedf-4tasks", "pedf"),
        ("fp-4tasks", "gfp"),
    ] {
        let xml = std::fs::read_to_string(repo(&format!("examples/simso/{name}.xml"))).unwrap();
        let imported = import(&xml).unwrap();
        let own = file::load(&repo(&format!("examples/simso/{name}.toml"))).unwrap();
        assert_eq!(imported.file, own, "{name}");
        assert_eq!(imported.policy.as_deref(), Some(policy), "{name}");
    }
}

#[test]
fn simso_example_maps_and_says_what_does_not() {
    let xml = std::fs::read_to_string(repo("examples/simso/edf-3tasks.xml")).unwrap();
    let i = import(&xml).unwrap();
    assert_eq!(i.file.platform.as_ref().map(|p| p.cpus), Some(2));
    let t = &i.file.tasks;
    assert_eq!(
        (t[0].wcet, t[0].period, t[0].deadline),
        (ms(3), ms(7), ms(7))
    );
    assert_eq!(t[2].name.as_deref(), Some("T3"));
    assert_eq!(
        i.unmapped,
        [
            "<simulation> duration=420000000 cycles at cycles_per_ms=1000000 is 420ms: a task file has no duration; simulate with --duration 420ms",
            "abort_on_miss=yes (SimSo aborts a job at its deadline; schedlab simulate does with --abort-late, for every task): T1, T2, T3",
        ]
    );
}

#[test]
fn fp_priorities_become_ranks_larger_first_ties_equal() {
    let xml = config(
        "FP",
        2,
        &["priority"],
        &[
            r#"priority="1" period="5" deadline="5" WCET="1""#,
            r#"priority="7" period="10" deadline="10" WCET="1""#,
            r#"priority="1" period="20" deadline="20" WCET="1""#,
            r#"priority="-3.5" period="20" deadline="20" WCET="1""#,
        ],
    );
    let i = import(&xml).unwrap();
    let ranks: Vec<_> = i.file.tasks.iter().map(|t| t.priority).collect();
    assert_eq!(ranks, [Some(1), Some(0), Some(1), Some(2)]);
    assert_eq!(i.policy.as_deref(), Some("gfp"));
    // A task without one: the message says how to declare it.
    let xml = config(
        "FP",
        1,
        &["priority"],
        &[
            r#"priority="1" period="5" deadline="5" WCET="1""#,
            r#"period="5" deadline="5" WCET="1""#,
        ],
    );
    let e = err(&xml);
    assert!(
        e.contains("task `T2`: attribute `priority`: missing: SimSo's FP orders"),
        "{e}"
    );
}

#[test]
fn rm_ranks_by_period_even_with_constrained_deadlines() {
    let xml = config(
        "RM",
        2,
        &[],
        &[
            r#"period="20" deadline="4" WCET="1""#,
            r#"period="10" deadline="10" WCET="1""#,
            r#"period="20" deadline="20" WCET="1""#,
        ],
    );
    let i = import(&xml).unwrap();
    let ranks: Vec<_> = i.file.tasks.iter().map(|t| t.priority).collect();
    assert_eq!(ranks, [Some(1), Some(0), Some(1)]);
    // One processor: the same policy (RM_mono maps there too).
    let mono = import(&config(
        "RM_mono",
        1,
        &[],
        &[r#"period="5" deadline="5" WCET="1""#],
    ))
    .unwrap();
    assert_eq!(mono.policy.as_deref(), Some("gfp"));
    assert_eq!(mono.file.tasks[0].cpu, None);
}

#[test]
fn a_uniprocessor_class_on_several_processors_pins_to_the_first() {
    let i = import(&config(
        "EDF_mono",
        3,
        &[],
        &[
            r#"period="5" deadline="5" WCET="1""#,
            r#"period="7" deadline="7" WCET="2""#,
        ],
    ))
    .unwrap();
    assert_eq!(i.policy.as_deref(), Some("pedf"));
    assert!(i.file.tasks.iter().all(|t| t.cpu == Some(0)));
    assert!(i
        .unmapped
        .iter()
        .any(|l| l.contains("uniprocessor scheduler")));
}

#[test]
fn partitions_come_from_the_file_or_from_a_named_heuristic() {
    let pinned = |class: &str, cpus: [&str; 2]| {
        config(
            class,
            2,
            &["cpu"],
            &[
                &format!(r#"cpu="{}" period="5" deadline="5" WCET="1""#, cpus[0]),
                &format!(r#"cpu="{}" period="7" deadline="7" WCET="2""#, cpus[1]),
            ],
        )
    };
    let i = import(&pinned("Fixed_PEDF", ["2", "1"])).unwrap();
    let cpus: Vec<_> = i.file.tasks.iter().map(|t| t.cpu).collect();
    assert_eq!(cpus, [Some(1), Some(0)]);
    // P_EDF with pins: the file's pins, and a note that SimSo would pack by itself.
    let i = import(&pinned("P_EDF", ["1", "1"])).unwrap();
    assert_eq!(i.file.tasks[1].cpu, Some(0));
    assert!(
        i.unmapped
            .iter()
            .any(|l| l.contains("SimSo's P_EDF ignores it")),
        "{:?}",
        i.unmapped
    );
    // No pins: the note names the heuristic.
    let i = import(&config(
        "P_EDF2",
        2,
        &[],
        &[r#"period="5" deadline="5" WCET="1""#],
    ))
    .unwrap();
    assert!(
        i.unmapped
            .iter()
            .any(|l| l.contains("use --partition ff (")),
        "{:?}",
        i.unmapped
    );
    assert_eq!(i.file.tasks[0].cpu, None);
    // Global policies keep no CPU.
    let i = import(&pinned("EDF", ["1", "2"])).unwrap();
    assert!(i.file.tasks.iter().all(|t| t.cpu.is_none()));
    assert!(i.unmapped.iter().any(|l| l.contains("EDF is global")));
    // Errors: an unknown processor id, some pinned and some not, Fixed_PEDF without pins.
    assert!(err(&pinned("Fixed_PEDF", ["3", "1"]))
        .contains("task `T1`: attribute `cpu`: no processor has id 3 (ids: 1, 2)"));
    let some = config(
        "Fixed_PEDF",
        2,
        &["cpu"],
        &[
            r#"cpu="1" period="5" deadline="5" WCET="1""#,
            r#"period="5" deadline="5" WCET="1""#,
        ],
    );
    assert!(
        err(&some).contains("task `T2`: attribute `cpu`: missing: 1 of 2 tasks"),
        "{}",
        err(&some)
    );
    let none = config(
        "Fixed_PEDF",
        2,
        &[],
        &[r#"period="5" deadline="5" WCET="1""#],
    );
    assert!(err(&none).contains("places each task by its `cpu` data field"));
}

#[test]
fn times_are_exact_decimals_and_rounding_is_reported() {
    let i = import(&config(
        "EDF",
        1,
        &[],
        &[r#"period="10.000001" deadline="9.5" WCET="3.3333333333" activationDate="1e-06""#],
    ))
    .unwrap();
    let t = &i.file.tasks[0];
    assert_eq!(t.period.as_ns(), 10_000_001);
    assert_eq!(t.deadline.as_ns(), 9_500_000);
    assert_eq!(t.wcet.as_ns(), 3_333_333);
    assert_eq!(t.offset.as_ns(), 1);
    assert!(
        i.unmapped.contains(
            &"times that are not whole nanoseconds, rounded to the nearest: T1 WCET → 3.333333ms"
                .to_string()
        ),
        "{:?}",
        i.unmapped
    );
}

#[test]
fn sporadic_and_aperiodic_tasks() {
    let i = import(&config(
        "EDF",
        1,
        &[],
        &[
            r#"task_type="Sporadic" list_activation_dates="30.0, 10.0, 20.0" period="99" deadline="5" WCET="1""#,
            r#"task_type="Sporadic" list_activation_dates="0, 4.0, 14.0" deadline="4" WCET="1""#,
            r#"task_type="APeriodic" deadline="5" WCET="1""#,
            r#"task_type="Sporadic" list_activation_dates="" deadline="5" WCET="1""#,
        ],
    ))
    .unwrap();
    assert_eq!(i.file.tasks.len(), 2);
    let t = &i.file.tasks;
    assert_eq!((t[0].offset, t[0].period), (ms(10), ms(10)));
    assert_eq!((t[1].offset, t[1].period), (ms(0), ms(4)));
    let text = i.unmapped.join("\n");
    assert!(
        text.contains("T1: 3 dates → periodic from 10ms every 10ms"),
        "{text}"
    );
    assert!(
        text.contains("T2: 3 dates → sporadic from 0ns, minimum inter-arrival 4ms"),
        "{text}"
    );
    assert!(
        text.contains(
            "APeriodic tasks (released only by another task's followed_by): left out: T3"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "Sporadic tasks without activation dates (no jobs in SimSo either): left out: T4"
        ),
        "{text}"
    );
}

#[test]
fn everything_that_does_not_map_is_one_line_per_kind() {
    let xml = r#"<simulation duration="1000" cycles_per_ms="1000" etm="acet" penalty_preemption="50">
      <sched class="simso.schedulers.SCHED_DEADLINE" overhead="10">
        <field name="quantum" value="2" type="int"/>
      </sched>
      <caches memory_access_time="100">
        <cache name="L1" id="1" policy="LRU" type="data" size="64" access_time="1"/>
      </caches>
      <processors migration_overhead="3">
        <field name="freq" type="int"/>
        <processor name="A" id="7" cs_overhead="20" cl_overhead="0" speed="0.5" freq="9"><cache ref="1"/></processor>
      </processors>
      <tasks>
        <field name="cbs_period" type="float"/>
        <task name="T1" id="1" period="10" deadline="10" WCET="2" ACET="1.5" base_cpi="1.0" mix="0.7"
              cbs_period="10" followed_by="2" stack="t1.stack" colour="red"/>
        <task name="T2" id="2" task_type="APeriodic" deadline="10" WCET="2" abort_on_miss="no"/>
      </tasks>
      <extra/>
    </simulation>"#;
    let i = import(xml).unwrap();
    assert_eq!(i.policy.as_deref(), Some("sd"));
    assert_eq!(i.file.tasks.len(), 1);
    let text = i.unmapped.join("\n");
    for expected in [
        "<simulation> duration=1000 cycles at cycles_per_ms=1000 is 1ms: a task file has no duration; simulate with --duration 1ms",
        "<simulation> cycles_per_ms=1000: SimSo counts time in cycles",
        "<simulation> etm=acet",
        "penalty_preemption=50",
        "<caches> (SimSo's cache model does not map; schedlab charges cache-related delays from an overhead file's CPMD): L1 (id 1, size 64, access_time 1)",
        "<caches> memory_access_time=100",
        "<sched> scheduler overheads in cycles (schedlab charges overheads from an overhead file: simulate --overheads): overhead=10",
        "<sched> scheduler fields (parameters of SimSo's scheduler class): quantum=2",
        "SCHED_DEADLINE: schedlab's sd models",
        "<processors> migration_overhead=3 cycles",
        "processor attribute `cs_overhead` (context-save overhead, cycles; schedlab charges overheads from an overhead file: simulate --overheads): A=20",
        "processor attribute `speed` ≠ 1 (schedlab's CPUs are identical, of speed 1: execution times are not scaled): A=0.5",
        "processor data fields (used by SimSo schedulers only): A: freq=9",
        "processor caches (SimSo's cache model; schedlab charges cache-related delays from an overhead file's CPMD): A: cache 1",
        "task attribute `ACET` (average execution time, SimSo's etm=acet; schedlab: simulate --exec): T1=1.5",
        "task attribute `mix` (memory-access mix, SimSo's cache model): T1=0.7",
        "abort_on_miss=yes",
        "followed_by (a job's end releases a job of another task; no schedlab equivalent): T1 → task id 2",
        "stack (stack-distance profile of SimSo's cache model): T1",
        "task data fields no mapped scheduler reads (used by SimSo schedulers only): T1: cbs_period=10",
        "task attributes not in SimSo's format: T1: colour",
        "APeriodic tasks (released only by another task's followed_by): left out: T2",
        "elements not in SimSo's format: <extra>",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    // base_cpi at its default is not reported.
    assert!(!text.contains("base_cpi"), "{text}");
}

#[test]
fn unknown_and_unsupported_schedulers_say_what_maps() {
    let e = err(&config(
        "Foo",
        1,
        &[],
        &[r#"period="5" deadline="5" WCET="1""#],
    ));
    assert_eq!(
        e,
        format!(
            "unknown SimSo scheduler `simso.schedulers.Foo`; schedulers that map: {}",
            mapped_schedulers()
        )
    );
    let e = err(&config(
        "RUN",
        1,
        &[],
        &[r#"period="5" deadline="5" WCET="1""#],
    ));
    assert!(e.starts_with("SimSo scheduler `simso.schedulers.RUN` (RUN (reduction to uniprocessor)) has no schedlab policy; instead: pedf"), "{e}");
    // A scheduler file (className) names the class too.
    let xml = config("EDF", 1, &[], &[r#"period="5" deadline="5" WCET="1""#]).replace(
        r#"class="simso.schedulers.EDF""#,
        r#"className="../schedulers/EDZL.py""#,
    );
    assert_eq!(import(&xml).unwrap().policy.as_deref(), Some("edzl"));
    let xml = config("EDF", 1, &[], &[]).replace(r#" class="simso.schedulers.EDF""#, "");
    assert!(err(&xml).contains("<sched>: attribute `class`: missing: no scheduler class"));
}

#[test]
fn bad_input_gets_a_message_with_place_and_field() {
    let one = |task: &str| config("EDF", 1, &[], &[task]);
    for (xml, expected) in [
        (one(r#"period="5" deadline="5""#), "SimSo XML: task 0 (`T1`): attribute `WCET`: missing (SimSo requires it)"),
        (one(r#"period="5" deadline="5" WCET="1,5""#), "SimSo XML: task 0 (`T1`): attribute `WCET`: `1,5` is not a decimal number (milliseconds)"),
        (one(r#"period="-5" deadline="5" WCET="1""#), "attribute `period`: `-5` is negative"),
        (one(r#"period="5" deadline="5" WCET="nan""#), "`nan` is not a finite number"),
        (one(r#"period="5" deadline="2" WCET="3""#), "SimSo XML: task 0 (`T1`): wcet 3ms exceeds deadline 2ms"),
        (one(r#"period="0" deadline="2" WCET="1""#), "SimSo XML: task 0 (`T1`): field `period`: must be greater than zero"),
        (one(r#"task_type="Cyclic" period="5" deadline="5" WCET="1""#), "attribute `task_type`: `Cyclic` is not a SimSo task type"),
        (one(r#"task_type="Sporadic" list_activation_dates="1, x" deadline="5" WCET="1""#), "attribute `list_activation_dates`: date 1: `x` is not a decimal number"),
        (one(r#"task_type="Sporadic" list_activation_dates="1, 1" deadline="5" WCET="1""#), "field `period`: must be greater than zero"),
        ("<simulation><sched class=\"EDF\"/><tasks/></simulation>".to_string(), "SimSo XML: <simulation>: <processors>: missing (SimSo requires it)"),
        ("<simulation><sched class=\"EDF\"/><processors/><tasks/></simulation>".to_string(), "<processors>: <processor>: no processor: SimSo needs at least one"),
        ("<simulation><sched class=\"EDF\"/><processors><processor name=\"A\" id=\"1\"/></processors><tasks/></simulation>".to_string(), "SimSo XML: empty task set"),
        ("<simulation><sched class=\"EDF\"/><sched class=\"EDF\"/></simulation>".to_string(), "<sched>: given twice"),
        ("<config/>".to_string(), "SimSo XML: the document: root element: `<config>`, not `<simulation>`"),
        ("<simulation>".to_string(), "SimSo XML: line 1, column 1: the root node was opened but never closed"),
        ("<!DOCTYPE x [<!ENTITY a \"b\">]><simulation/>".to_string(), "a DTD"),
        ("name,cost\n".to_string(), "SimSo XML: line 1, column 1:"),
        (config("EDF", 1, &[], &[r#"period="5" deadline="5" WCET="1""#]).replace(r#"duration="100000000""#, r#"duration="-4""#), "<simulation>: attribute `duration`: -4 is not a positive whole number"),
    ] {
        let e = err(&xml);
        assert!(e.contains(expected), "{xml}\n→ {e}\n(expected {expected})");
    }
    // Duplicate ids and names.
    let dup = config(
        "EDF",
        1,
        &[],
        &[
            r#"period="5" deadline="5" WCET="1""#,
            r#"period="5" deadline="5" WCET="1""#,
        ],
    )
    .replace("id=\"2\"", "id=\"1\"");
    assert!(
        err(&dup).contains("task 1 (`T2`): attribute `id`: id 1 is also task 0's"),
        "{}",
        err(&dup)
    );
    let dup = config(
        "EDF",
        1,
        &[],
        &[
            r#"period="5" deadline="5" WCET="1""#,
            r#"period="5" deadline="5" WCET="1""#,
        ],
    )
    .replace("name=\"T2\"", "name=\"T1\"");
    assert!(err(&dup).contains("duplicate task name `T1`"));
    let procs = config("EDF", 2, &[], &[r#"period="5" deadline="5" WCET="1""#])
        .replace("id=\"2\"", "id=\"1\"");
    assert!(
        err(&procs).contains("processor 1 (`CPU 2`): attribute `id`: id 1 is also processor 0's")
    );
}

#[test]
fn sizes_are_bounded() {
    let many = config(
        "EDF",
        crate::platform::MAX_CPUS as usize + 1,
        &[],
        &[r#"period="5" deadline="5" WCET="1""#],
    );
    assert_eq!(
        err(&many),
        "SimSo XML: the number of processors is at least 4097; an import reads at most 4096"
    );
    let huge = " ".repeat(crate::interop::import::MAX_IMPORT_BYTES + 1);
    assert!(
        err(&huge).contains("the text is 16777217 bytes; an import reads at most 16777216 bytes")
    );
}

/// A task as SimSo's writer prints it (Python's `str(float)` of milliseconds).
fn python_ms(ns: u64) -> String {
    let s = format!("{}.{:06}", ns / 1_000_000, ns % 1_000_000);
    let s = s.trim_end_matches('0');
    if s.ends_with('.') {
        format!("{s}0")
    } else {
        s.to_string()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any valid set of whole-microsecond tasks, written as SimSo writes it, imports to the
    /// same tasks, without a rounding note.
    #[test]
    fn simso_written_sets_read_back(
        raw in prop::collection::vec((1u64..5_000_000, 1u64..1_000, 0u64..1_000, 0u64..3), 1..12),
        cpus in 1usize..5,
    ) {
        let tasks: Vec<String> = raw.iter().map(|&(period_us, c, off, slack)| {
            let period = period_us * 1_000;
            let wcet = (c * period / 1_000).max(1_000) / 1_000 * 1_000;
            let deadline = period - slack * (period - wcet) / 4 / 1_000 * 1_000;
            format!(
                r#"period="{}" activationDate="{}" deadline="{}" WCET="{}""#,
                python_ms(period), python_ms(off * 1_000), python_ms(deadline), python_ms(wcet)
            )
        }).collect();
        let refs: Vec<&str> = tasks.iter().map(String::as_str).collect();
        let xml = config("EDF", cpus, &[], &refs);
        let i = import(&xml).unwrap();
        prop_assert_eq!(i.file.tasks.len(), raw.len());
        prop_assert!(!i.unmapped.iter().any(|l| l.contains("rounded")));
        let again = file::parse_str(&file::to_string(&i.file, Format::Toml).unwrap(), Format::Toml).unwrap();
        prop_assert_eq!(again, i.file);
    }

    /// Mutated configurations and arbitrary text: a value or an error, never a panic.
    #[test]
    fn never_panics(cut in 0usize..2000, insert in "\\PC{0,12}", s in "\\PC{0,200}") {
        let _ = import(&s);
        let base = std::fs::read_to_string(repo("examples/simso/fp-4tasks.xml")).unwrap();
        let mut at = cut.min(base.len());
        while !base.is_char_boundary(at) {
            at -= 1;
        }
        let _ = import(&format!("{}{insert}{}", &base[..at], &base[at..]));
    }
}
