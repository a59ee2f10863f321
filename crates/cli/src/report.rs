//! Turning verdicts into the stable JSON shape and the human table of `schedlab analyze`, and
//! the `--summary` over all files.
//!
//! JSON (one object per file, JSON Lines):
//! `{"cpus", "file", "results": [{"applicable", "partition", "reason", "response_time_bounds_ns",
//! "schedulable", "status", "tardiness_bounds_ns", "test"}], "tasks", "utilization"}` — the
//! result objects are those of `schedlab_analysis::json::result_json` (and of Python), byte for
//! byte (tested), but written straight from the verdicts into the output buffer: `analyze` runs
//! on thousands of files, and building a JSON value per file cost more than the faster tests.
//!
//! Summary JSON (`--summary --format json`, one object): `{"files", "analysed", "failed",
//! "tests": [{"test", "accepted", "fraction", "statuses": {"schedulable", "not-shown",
//! "unschedulable", "not-applicable", "gave-up"}}]}` (docs/analysis.md).

use schedlab_analysis::{Status, Verdict};
use schedlab_model::Duration;
use serde::ser::{Serialize, SerializeSeq, Serializer};
use std::fmt::Write as _;
use std::io::Write as _;

/// One test's result for the report.
pub(crate) struct Row<'a> {
    /// Canonical test name.
    pub(crate) test: &'a str,
    /// Its verdict (tardiness bounds as requested).
    pub(crate) verdict: Verdict,
}

/// What a report says about one file besides its results.
pub(crate) struct FileFacts<'a> {
    /// The file as named on the command line (or found in a folder).
    pub(crate) file: &'a str,
    /// The number of CPUs it was analysed on.
    pub(crate) cpus: u32,
    /// Its number of tasks.
    pub(crate) tasks: usize,
    /// Its total utilization (a float, for people).
    pub(crate) utilization: f64,
    /// With `--overheads`: the accounting object.
    pub(crate) accounting: Option<&'a serde_json::Value>,
}

/// Bounds in ns as a JSON list (or `null`).
struct BoundsNs<'a>(Option<&'a [Duration]>);

impl Serialize for BoundsNs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some(bounds) => {
                let mut seq = s.serialize_seq(Some(bounds.len()))?;
                for b in bounds {
                    seq.serialize_element(&b.as_ns())?;
                }
                seq.end()
            }
        }
    }
}

/// One result object; fields in the alphabetical order of the reference shape.
#[derive(serde::Serialize)]
struct ResultJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    accounting: Option<serde_json::Value>,
    applicable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    assignment: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    guaranteed_tasks: Option<&'a [usize]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    k: Option<usize>,
    partition: &'a Option<Vec<Vec<usize>>>,
    reason: &'a Option<String>,
    response_time_bounds_ns: BoundsNs<'a>,
    schedulable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    split_tasks: Option<serde_json::Value>,
    status: &'static str,
    tardiness_bounds_ns: BoundsNs<'a>,
    test: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    utility_fraction: Option<serde_json::Value>,
}

impl<'a> ResultJson<'a> {
    fn of(row: &'a Row<'a>) -> ResultJson<'a> {
        let v = &row.verdict;
        ResultJson {
            accounting: v.accounting.as_ref().map(|a| a.to_json()),
            applicable: v.is_applicable(),
            assignment: v.semi.as_ref().map(|s| s.method),
            groups: v.groups.as_ref().map(|g| {
                serde_json::Value::from(g.iter().map(|g| g.to_json()).collect::<Vec<_>>())
            }),
            guaranteed_tasks: v.utility_bound.as_ref().map(|b| &b.guaranteed_tasks[..]),
            k: v.utility_bound.as_ref().map(|b| b.k),
            partition: &v.partition,
            reason: &v.reason,
            response_time_bounds_ns: BoundsNs(v.response_time_bounds.as_deref()),
            schedulable: v.is_schedulable(),
            split_tasks: v.semi.as_ref().map(|s| s.split_tasks_json()),
            status: v.status.name(),
            tardiness_bounds_ns: BoundsNs(v.tardiness_bounds.as_deref()),
            test: row.test,
            utility_fraction: v.utility_bound.as_ref().map(|b| b.fraction_json()),
        }
    }
}

/// The results list.
struct ResultsJson<'a>(&'a [Row<'a>]);

impl Serialize for ResultsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(ResultJson::of))
    }
}

/// One file's line; fields in alphabetical order, as a JSON object map prints them.
#[derive(serde::Serialize)]
struct FileJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    accounting: Option<&'a serde_json::Value>,
    cpus: u32,
    file: &'a str,
    results: ResultsJson<'a>,
    tasks: usize,
    utilization: f64,
}

/// Appends the JSON line of one analysed file (with its newline) to `out`.
pub(crate) fn write_file_json(
    out: &mut Vec<u8>,
    facts: &FileFacts<'_>,
    rows: &[Row<'_>],
) -> serde_json::Result<()> {
    let line = FileJson {
        accounting: facts.accounting,
        cpus: facts.cpus,
        file: facts.file,
        results: ResultsJson(rows),
        tasks: facts.tasks,
        utilization: facts.utilization,
    };
    serde_json::to_writer(&mut *out, &line)?;
    out.push(b'\n');
    Ok(())
}

/// A short human summary of a verdict's details, appended to `out`.
fn write_detail(out: &mut Vec<u8>, v: &Verdict) -> std::io::Result<()> {
    let start = out.len();
    let separate = |out: &mut Vec<u8>| {
        if out.len() > start {
            out.extend_from_slice(b"; ");
        }
    };
    if let Some(max) = v.response_time_bounds.as_ref().and_then(|r| r.iter().max()) {
        separate(out);
        write!(out, "max R = {max}")?;
    }
    if let Some(max) = v.tardiness_bounds.as_ref().and_then(|t| t.iter().max()) {
        separate(out);
        write!(out, "max tardiness ≤ {max}")?;
    }
    if let Some(p) = &v.partition {
        separate(out);
        out.extend_from_slice(b"partition");
        for tasks in p {
            out.extend_from_slice(b" [");
            for (k, task) in tasks.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                write!(out, "{task}")?;
            }
            out.push(b']');
        }
    }
    if let Some(b) = &v.utility_bound {
        separate(out);
        write!(out, "k = {}, guaranteed {:?}", b.k, b.guaranteed_tasks)?;
        if let Some(f) = b.value_weighted {
            write!(out, ", value-weighted utility ≥ {f:.3}")?;
        }
        // The reason repeats k; the bound says it all.
        return Ok(());
    }
    if let Some(reason) = &v.reason {
        if v.status != Status::Schedulable || out.len() == start {
            separate(out);
            out.extend_from_slice(reason.as_bytes());
        }
    }
    Ok(())
}

/// Appends the human table of one analysed file to `out`.
pub(crate) fn write_file_table(
    out: &mut Vec<u8>,
    facts: &FileFacts<'_>,
    rows: &[Row<'_>],
    explain: bool,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{}: {} tasks, U = {:.4}, m = {}",
        facts.file, facts.tasks, facts.utilization, facts.cpus
    )?;
    if let Some(acc) = facts.accounting {
        writeln!(
            out,
            "  overheads of {} ({}): {}{}; tests on {} CPU{}",
            acc["arch"].as_str().unwrap_or(""),
            acc["stat"].as_str().unwrap_or(""),
            acc["status"].as_str().unwrap_or(""),
            acc["failed_task"]
                .as_u64()
                .map(|i| format!(" (task {i})"))
                .unwrap_or_default(),
            acc["cpus_for_jobs"],
            if acc["cpus_for_jobs"].as_u64() == Some(1) {
                ""
            } else {
                "s"
            }
        )?;
    }
    let width = rows.iter().map(|r| r.test.len()).max().unwrap_or(4).max(4);
    writeln!(out, "  {:<width$}  {:<14}  details", "test", "status")?;
    for r in rows {
        write!(
            out,
            "  {:<width$}  {:<14}  ",
            r.test,
            r.verdict.status.name()
        )?;
        write_detail(out, &r.verdict)?;
        out.push(b'\n');
        write_groups(out, &r.verdict)?;
        if explain {
            write_explanation(out, &r.verdict)?;
        }
    }
    Ok(())
}

/// A reservation-group test's groups, one line each: the server, `(α, Δ)` [HCBS Eq. 8], the
/// verdict, and its tasks' response-time bounds (or why not).
fn write_groups(out: &mut Vec<u8>, v: &Verdict) -> std::io::Result<()> {
    let ns = Duration::from_ns;
    for g in v.groups.iter().flatten() {
        write!(
            out,
            "      group `{}`: Q/P = {}/{} on CPUs {:?}, α = {:.4} ({}), Δ = {}: ",
            g.name,
            ns(g.budget_ns),
            ns(g.period_ns),
            g.cpus,
            g.alpha(),
            g.alpha_exact(),
            ns(g.delta_ns())
        )?;
        match &g.reason {
            None => out.extend_from_slice(b"schedulable"),
            Some(r) => write!(out, "not schedulable: {r}")?,
        }
        let bounds: Vec<String> = g
            .response_bounds
            .iter()
            .map(|b| {
                let who = b.name.clone().unwrap_or_else(|| format!("task {}", b.task));
                match b.bound_ns {
                    Some(x) => format!("{who} ≤ {}", ns(x)),
                    None => format!("{who} -"),
                }
            })
            .collect();
        if !bounds.is_empty() {
            write!(out, "; response times: {}", bounds.join(", "))?;
        }
        out.push(b'\n');
    }
    Ok(())
}

/// `--explain`: a semi-partitioned assignment for a person — every CPU's tasks (split tasks
/// with the part and its budget) and each split task's parts in execution order.
fn write_explanation(out: &mut Vec<u8>, v: &Verdict) -> std::io::Result<()> {
    let (Some(semi), Some(partition)) = (&v.semi, &v.partition) else {
        return Ok(());
    };
    let ns = Duration::from_ns;
    let method = match semi.method {
        "fp-ts" => "FP-TS task splitting",
        "ffd" => "FP-TS found none; the split-free first-fit decreasing partition",
        "wfd" => "FP-TS found none; the split-free worst-fit decreasing partition",
        other => other,
    };
    writeln!(out, "      assignment: {method}")?;
    for (cpu, tasks) in partition.iter().enumerate() {
        write!(out, "      CPU {cpu}:")?;
        if tasks.is_empty() {
            out.extend_from_slice(b" idle");
        }
        for (k, &task) in tasks.iter().enumerate() {
            out.extend_from_slice(if k == 0 { b" " } else { b", " });
            write!(out, "task {task}")?;
            let part = semi
                .split_tasks
                .iter()
                .find(|s| s.task == task)
                .and_then(|s| s.parts.iter().find(|p| p.cpu as usize == cpu));
            if let Some(p) = part {
                write!(out, " ({} {})", p.kind.name(), ns(p.budget_ns))?;
            }
        }
        out.push(b'\n');
    }
    for s in &semi.split_tasks {
        write!(out, "      task {} split:", s.task)?;
        for (k, p) in s.parts.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(" →".as_bytes());
            }
            write!(
                out,
                " {} {} on CPU {}",
                p.kind.name(),
                ns(p.budget_ns),
                p.cpu
            )?;
        }
        let total: u64 = s.parts.iter().map(|p| p.budget_ns).sum();
        let bound = v
            .response_time_bounds
            .as_ref()
            .and_then(|r| r.get(s.task))
            .map(|r| format!(", response time ≤ {r}"))
            .unwrap_or_default();
        writeln!(out, " (C = {}{bound})", ns(total))?;
    }
    if semi.split_tasks.is_empty() {
        writeln!(out, "      no task is split")?;
    }
    Ok(())
}

/// Every status, in the order the summary lists them.
const STATUSES: [Status; 5] = [
    Status::Schedulable,
    Status::NotShown,
    Status::Unschedulable,
    Status::NotApplicable,
    Status::GaveUp,
];

fn status_slot(status: Status) -> usize {
    match status {
        Status::Schedulable => 0,
        Status::NotShown => 1,
        Status::Unschedulable => 2,
        Status::NotApplicable => 3,
        Status::GaveUp => 4,
    }
}

/// `--summary`: for each test, how many of the analysed files it accepts (and every other
/// outcome), and how many files failed to load or to analyse. Tests are listed in the order
/// they first appear (with every test, files on different CPU counts run different `cedf-k*`).
pub(crate) struct Summary {
    tests: Vec<String>,
    /// Per test, the count of each status (in [`STATUSES`] order).
    counts: Vec<[u64; 5]>,
    analysed: u64,
    failed: u64,
}

impl Summary {
    /// A summary of the tests named `tests` (more may appear), over no file yet.
    pub(crate) fn new(tests: Vec<String>) -> Summary {
        Summary {
            counts: vec![[0; 5]; tests.len()],
            tests,
            analysed: 0,
            failed: 0,
        }
    }

    /// Counts one analysed file, given the status of each test `names` lists.
    pub(crate) fn add(&mut self, names: &[String], statuses: &[Status]) {
        self.analysed += 1;
        for (name, &status) in names.iter().zip(statuses) {
            let index = match self.tests.iter().position(|t| t == name) {
                Some(i) => i,
                None => {
                    self.tests.push(name.clone());
                    self.counts.push([0; 5]);
                    self.tests.len() - 1
                }
            };
            if let Some(counts) = self.counts.get_mut(index) {
                counts[status_slot(status)] += 1;
            }
        }
    }

    /// Counts one file that could not be read or analysed.
    pub(crate) fn add_failure(&mut self) {
        self.failed += 1;
    }

    /// The files a test ran on (every analysed file, but for `cedf-k*` tests with every test
    /// on files of several CPU counts) and the fraction it accepts, if it ran at all.
    fn accepted(counts: &[u64; 5]) -> (u64, Option<f64>) {
        let ran: u64 = counts.iter().sum();
        (ran, (ran > 0).then(|| counts[0] as f64 / ran as f64))
    }

    /// The summary as a table.
    pub(crate) fn table(&self) -> String {
        let mut out = format!(
            "summary: {} files, {} analysed, {} failed to load or analyse\n",
            self.analysed + self.failed,
            self.analysed,
            self.failed
        );
        let width = self.tests.iter().map(String::len).max().unwrap_or(4).max(4);
        let _ = write!(
            out,
            "  {:<width$}  {:>12}  {:>8}",
            "test", "accepted", "fraction"
        );
        for status in &STATUSES[1..] {
            let _ = write!(out, "  {:>14}", status.name());
        }
        out.push('\n');
        for (test, counts) in self.tests.iter().zip(&self.counts) {
            let (ran, fraction) = Summary::accepted(counts);
            let accepted = format!("{}/{ran}", counts[0]);
            let fraction = fraction.map_or_else(|| "-".to_string(), |f| format!("{f:.4}"));
            let _ = write!(out, "  {test:<width$}  {accepted:>12}  {fraction:>8}");
            for count in &counts[1..] {
                let _ = write!(out, "  {count:>14}");
            }
            out.push('\n');
        }
        out
    }

    /// The summary as one JSON object (keys in the module doc).
    pub(crate) fn json(&self) -> serde_json::Value {
        let tests: Vec<serde_json::Value> = self
            .tests
            .iter()
            .zip(&self.counts)
            .map(|(test, counts)| {
                let statuses: serde_json::Map<String, serde_json::Value> = STATUSES
                    .iter()
                    .zip(counts)
                    .map(|(s, &c)| (s.name().to_string(), c.into()))
                    .collect();
                serde_json::json!({
                    "test": test,
                    "accepted": counts[0],
                    "fraction": Summary::accepted(counts).1,
                    "statuses": statuses,
                })
            })
            .collect();
        serde_json::json!({
            "files": self.analysed + self.failed,
            "analysed": self.analysed,
            "failed": self.failed,
            "tests": tests,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_analysis::json::result_json;

    fn verdicts() -> Vec<Verdict> {
        let ns = |v: &[u64]| v.iter().map(|&x| Duration::from_ns(x)).collect::<Vec<_>>();
        vec![
            Verdict::schedulable(),
            Verdict::not_shown(),
            Verdict::not_applicable("assumes m = 1, \"quoted\" \\ and\ncontrol \u{1}"),
            Verdict::gave_up("limit"),
            Verdict::schedulable().with_response_times(ns(&[3, 18_446_744_073_709_551_615])),
            Verdict {
                tardiness_bounds: Some(ns(&[0, 7])),
                partition: Some(vec![vec![0, 2], vec![], vec![1]]),
                ..Verdict::schedulable().because("ok")
            },
            Verdict::not_shown()
                .because("k = 2 of 3")
                .with_utility_bound(schedlab_analysis::ua::UtilityBound {
                    k: 2,
                    guaranteed_tasks: vec![2, 0],
                    k_over_n: Some(2.0 / 3.0),
                    value_weighted: None,
                }),
        ]
    }

    #[test]
    fn json_lines_are_byte_for_byte_the_reference_shape() {
        let names = [
            "gedf",
            "pedf-ffd",
            "fp-rta",
            "x",
            "gedf-rta",
            "cedf-k2",
            "gnphvdf-uab",
        ];
        let rows: Vec<Row> = names
            .iter()
            .zip(verdicts())
            .map(|(test, verdict)| Row { test, verdict })
            .collect();
        for utilization in [0.0, 1.25, 1.0 / 3.0, 15.999_999_999_999_998] {
            let facts = FileFacts {
                file: "dir/a \"b\".json",
                cpus: 16,
                tasks: 3,
                utilization,
                accounting: None,
            };
            let mut out = Vec::new();
            write_file_json(&mut out, &facts, &rows).unwrap();
            let reference = serde_json::json!({
                "file": facts.file,
                "cpus": facts.cpus,
                "tasks": facts.tasks,
                "utilization": utilization,
                "results": rows.iter().map(|r| result_json(r.test, &r.verdict)).collect::<Vec<_>>(),
            });
            assert_eq!(
                String::from_utf8(out).unwrap(),
                reference.to_string() + "\n"
            );
        }
    }

    #[test]
    fn table_rows_show_the_details() {
        let rows: Vec<Row> = ["a-long-test-name", "b", "c", "d", "e", "f", "g"]
            .iter()
            .zip(verdicts())
            .map(|(test, verdict)| Row { test, verdict })
            .collect();
        let facts = FileFacts {
            file: "f.json",
            cpus: 2,
            tasks: 3,
            utilization: 1.5,
            accounting: None,
        };
        let mut out = Vec::new();
        write_file_table(&mut out, &facts, &rows, false).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "f.json: 3 tasks, U = 1.5000, m = 2");
        assert_eq!(lines[1], "  test              status          details");
        assert_eq!(lines[2].trim_end(), "  a-long-test-name  schedulable");
        assert!(lines[4].ends_with("assumes m = 1, \"quoted\" \\ and"));
        assert!(lines[7].ends_with("  schedulable     max R = 18446744073.709551615s"));
        assert!(lines[8].ends_with("max tardiness ≤ 7ns; partition [0,2] [] [1]"));
        assert!(lines[9].ends_with("  not-shown       k = 2, guaranteed [2, 0]"));
    }

    #[test]
    fn summary_counts_and_fractions() {
        let names = ["gedf".to_string(), "pedf-ffd".to_string()];
        let mut s = Summary::new(names.to_vec());
        s.add(&names, &[Status::Schedulable, Status::NotShown]);
        s.add(&names, &[Status::NotApplicable, Status::Schedulable]);
        s.add(&names, &[Status::Schedulable, Status::Schedulable]);
        s.add_failure();
        let json = s.json();
        assert_eq!(json["files"], 4);
        assert_eq!(json["analysed"], 3);
        assert_eq!(json["failed"], 1);
        assert_eq!(json["tests"][0]["accepted"], 2);
        assert_eq!(json["tests"][0]["statuses"]["not-applicable"], 1);
        assert_eq!(json["tests"][1]["fraction"], 2.0 / 3.0);
        let table = s.table();
        assert!(table.contains("4 files, 3 analysed, 1 failed"), "{table}");
        assert!(
            table.contains("  gedf               2/3    0.6667"),
            "{table}"
        );
        let empty = Summary::new(vec!["gedf".into()]);
        assert_eq!(
            empty.json()["tests"][0]["fraction"],
            serde_json::Value::Null
        );
        assert!(empty.table().contains("0/0         -"), "{}", empty.table());
        // A test first met in a later file joins the list.
        let mut grown = Summary::new(Vec::new());
        grown.add(&names[..1], &[Status::Schedulable]);
        grown.add(&names, &[Status::NotShown, Status::GaveUp]);
        let json = grown.json();
        assert_eq!(json["tests"][0]["accepted"], 1);
        assert_eq!(json["tests"][1]["statuses"]["gave-up"], 1);
        assert_eq!(json["tests"][1]["fraction"], 0.0);
        assert_eq!(json["tests"][0]["fraction"], 0.5);
    }
}
