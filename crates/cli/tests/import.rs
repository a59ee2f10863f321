//! `schedlab import`: a SimSo example configuration imports and simulates with the same
//! schedule, job by job, as the tool's own task file for the same set (G-EDF, P-EDF packed by
//! the mapped heuristic, P-EDF with the XML's partition, G-FP with SimSo's priorities); an
//! unknown scheduler gets the message that lists what maps; the output forms.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{schedlab, temp_file, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn scratch(name: &str) -> PathBuf {
    temp_file("import", name, "")
}

/// `schedlab import FILE --format json [-o OUT]`'s summary.
fn import_json(file: &Path, out: Option<&Path>) -> Value {
    let mut args = vec![
        "import".to_string(),
        file.display().to_string(),
        "--format".into(),
        "json".into(),
    ];
    if let Some(out) = out {
        args.extend(["-o".to_string(), out.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = schedlab(&args);
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The jobs CSV of `schedlab simulate FILE ARGS…`.
fn jobs(file: &Path, args: &[String], tag: &str) -> String {
    let csv = scratch(&format!("{tag}-jobs.csv"));
    let mut all = vec!["simulate".to_string(), file.display().to_string()];
    all.extend(args.iter().cloned());
    all.extend(["--jobs-csv".to_string(), csv.display().to_string()]);
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let o = schedlab(&all);
    assert!(o.status.success(), "{all:?}: {}", text(&o));
    std::fs::read_to_string(&csv).unwrap()
}

#[test]
fn simso_examples_simulate_job_by_job_like_their_own_task_files() {
    for (name, policy, jobs_at_least) in [
        ("edf-3tasks", "gedf", 116),
        ("p-edf-4tasks", "pedf", 95),
        ("fixed-pedf-4tasks", "pedf", 95),
        ("fp-4tasks", "gfp", 149),
    ] {
        let xml = repo(&format!("examples/simso/{name}.xml"));
        let own = repo(&format!("examples/simso/{name}.toml"));
        let out = scratch(&format!("{name}.toml"));
        let summary = import_json(&xml, Some(&out));
        assert_eq!(summary["policy"], policy, "{name}");
        assert_eq!(summary["source"], "simso");
        assert_eq!(summary["output"], out.display().to_string());
        // The suggested command: `schedlab simulate OUT ARGS…` with the mapped policy.
        let command = summary["simulate"].as_str().unwrap();
        let prefix = format!("schedlab simulate {} ", out.display());
        let args: Vec<String> = command
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{command}"))
            .split(' ')
            .map(str::to_string)
            .collect();
        assert_eq!(
            args[..2],
            ["--policy".to_string(), policy.to_string()],
            "{command}"
        );
        assert!(args.contains(&"--duration".to_string()), "{command}");
        let imported = jobs(&out, &args, &format!("{name}-imported"));
        let reference = jobs(&own, &args, &format!("{name}-own"));
        // Every job: task, sequence number, release, deadline, start, completion,
        // preemptions, migrations, tardiness, CPUs used.
        assert_eq!(imported, reference, "{name}: schedules differ");
        let rows = imported.lines().count() - 1;
        assert!(rows >= jobs_at_least, "{name}: only {rows} jobs");
        assert!(imported
            .lines()
            .skip(1)
            .all(|l| l.split(',').nth(9).is_some_and(|c| !c.is_empty())));
    }
}

#[test]
fn the_partitioned_examples_really_are_partitioned_as_said() {
    // fixed-pedf pins T1, T4 to CPU 1 and T2, T3 to CPU 0; the CSV's `cpus` column says where
    // each job ran.
    let out = scratch("fixed-check.toml");
    import_json(&repo("examples/simso/fixed-pedf-4tasks.xml"), Some(&out));
    let csv = jobs(
        &out,
        &[
            "--policy".into(),
            "pedf".into(),
            "--duration".into(),
            "40ms".into(),
        ],
        "fixed-check",
    );
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let want = if matches!(f[0], "0" | "3") { "1" } else { "0" };
        assert_eq!(f[9], want, "{line}");
    }
}

#[test]
fn without_out_the_output_is_a_task_file_with_the_summary_as_comments() {
    let o = schedlab(&[
        "import",
        repo("examples/simso/edf-3tasks.xml").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(
        stdout.starts_with("# imported 3 tasks on 2 CPUs from "),
        "{stdout}"
    );
    assert!(stdout.contains("# policy: gedf\n"), "{stdout}");
    assert!(
        stdout.contains("# simulate: schedlab simulate OUT.toml --policy gedf --duration 420ms\n"),
        "{stdout}"
    );
    let f = schedlab_model::file::parse_str(&stdout, schedlab_model::file::Format::Toml).unwrap();
    let own = schedlab_model::file::load(&repo("examples/simso/edf-3tasks.toml")).unwrap();
    assert_eq!(f, own);
}

#[test]
fn a_table_summary_with_out_and_json_out() {
    let out = scratch("table.json");
    let o = schedlab(&[
        "import",
        repo("examples/simso/p-edf-4tasks.xml").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.contains("policy: pedf\n"), "{stdout}");
    assert!(
        stdout.contains("not mapped (3):\n  - <simulation> duration=200000000 cycles"),
        "{stdout}"
    );
    assert!(
        stdout.contains("use --partition ffd, the default"),
        "{stdout}"
    );
    // The extension chose JSON.
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.trim_start().starts_with('{'), "{written}");
    schedlab_model::file::parse_str(&written, schedlab_model::file::Format::Json).unwrap();
}

#[test]
fn csv_imports_with_no_policy_and_simulates_with_cpus() {
    let csv = temp_file(
        "import",
        "set.csv",
        "name,cost_ms,period_ms\na,1,4\nb,2,5\n",
    );
    let out = scratch("set.toml");
    let summary = import_json(&csv, Some(&out));
    assert_eq!(summary["source"], "csv");
    assert_eq!(summary["policy"], Value::Null);
    assert_eq!(summary["cpus"], Value::Null);
    assert_eq!(
        summary["simulate"],
        format!("schedlab simulate {} --policy P --cpus M", out.display())
    );
    let o = schedlab(&[
        "simulate",
        out.to_str().unwrap(),
        "--cpus",
        "1",
        "--policy",
        "gedf",
        "--duration",
        "20ms",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    // --from overrides the extension: the same text read as SimSo XML is an XML error.
    let o = schedlab(&["import", csv.to_str().unwrap(), "--from", "simso"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).contains("error: SimSo XML: line 1, column 1:"),
        "{}",
        text(&o)
    );
}

#[test]
fn an_unknown_scheduler_says_what_maps() {
    let o = schedlab(&[
        "import",
        repo("tests/corpus/simso/bad/unknown-scheduler.xml")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert_eq!(
        stderr.trim(),
        format!(
            "error: unknown SimSo scheduler `simso.schedulers.Foo`; schedulers that map: {}",
            schedlab_model::interop::simso::mapped_schedulers()
        )
    );
    let o = schedlab(&[
        "import",
        repo("tests/corpus/simso/bad/llf-unsupported.xml")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).contains("has no schedlab policy; instead: edzl"),
        "{}",
        text(&o)
    );
}

#[test]
fn bad_output_names_and_files_are_errors() {
    let xml = repo("examples/simso/edf-3tasks.xml");
    let o = schedlab(&["import", xml.to_str().unwrap(), "-o", "out.yaml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("-o out.yaml: the task file's name must end in .toml or .json"));
    let o = schedlab(&["import", "/nonexistent/x.xml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("/nonexistent/x.xml: "), "{}", text(&o));
    let o = schedlab(&["import", xml.to_str().unwrap(), "--from", "simsoo"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn every_mapped_simso_scheduler_names_a_schedlab_policy() {
    for (class, policy, uni) in schedlab_model::interop::simso::sched::table() {
        for p in [policy, uni] {
            assert!(schedlab_policy::NAMES.contains(&p), "{class} → {p}");
        }
    }
    for (class, _, instead) in schedlab_model::interop::simso::sched::unsupported() {
        let first = instead.split([' ', ',', ':']).next().unwrap();
        assert!(
            schedlab_policy::NAMES.contains(&first),
            "{class}: {instead}"
        );
    }
}

#[test]
fn docs_import_md_lists_every_simso_class() {
    let doc = std::fs::read_to_string(repo("docs/import.md")).unwrap();
    let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with("| `")).collect();
    let classes = schedlab_model::interop::simso::sched::table()
        .into_iter()
        .map(|(c, ..)| c)
        .chain(
            schedlab_model::interop::simso::sched::unsupported()
                .iter()
                .map(|(c, ..)| *c),
        );
    for class in classes {
        let cell = format!("`{class}`");
        assert!(
            rows.iter().any(|r| r
                .split('|')
                .nth(1)
                .is_some_and(|first| first.contains(&cell))),
            "docs/import.md has no table row for {class}"
        );
    }
}

/// A task as the round trip compares it: name, wcet, period, deadline, CPU.
type Row = (Option<String>, String, String, String, Option<u32>);

#[test]
fn an_rt_app_export_imports_back_to_its_task_set() {
    // Export a P-EDF set to rt-app, import the JSON back: the same tasks (wcet, period,
    // deadline, CPU), policy pedf, and the reservations' margins reported as not mapped.
    let set = scratch("rt-app-round-trip.toml");
    std::fs::write(
        &set,
        "[platform]\ncpus = 2\n\n[[tasks]]\nname = \"a\"\nwcet = \"2ms\"\nperiod = \"10ms\"\n\n\
         [[tasks]]\nname = \"b\"\nwcet = \"3ms\"\nperiod = \"15ms\"\ndeadline = \"12ms\"\n",
    )
    .unwrap();
    let json = scratch("rt-app-round-trip.json");
    let o = schedlab(&[
        "export",
        set.to_str().unwrap(),
        "--cpus",
        "2",
        "--policy",
        "pedf",
        "--to",
        "rt-app",
        "-o",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let back = scratch("rt-app-round-trip-back.toml");
    let summary = import_json(&json, Some(&back));
    assert_eq!(summary["policy"], "pedf", "{summary}");
    let unmapped = summary["unmapped"].to_string();
    assert!(
        unmapped.contains("dl-runtime 2.5ms is the reservation"),
        "{unmapped}"
    );
    let file = schedlab_model::file::load(&back).unwrap();
    let tasks: Vec<Row> = file
        .tasks
        .tasks()
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.wcet.to_string(),
                t.period.to_string(),
                t.deadline.to_string(),
                t.cpu,
            )
        })
        .collect();
    assert_eq!(
        tasks,
        vec![
            (
                Some("a".into()),
                "2ms".into(),
                "10ms".into(),
                "10ms".into(),
                Some(0)
            ),
            (
                Some("b".into()),
                "3ms".into(),
                "15ms".into(),
                "12ms".into(),
                Some(0)
            ),
        ]
    );
}
