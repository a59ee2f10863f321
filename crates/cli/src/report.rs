//! Turning verdicts into the stable JSON shape and the human table of `schedlab analyze`.
//!
//! JSON (one object per file, JSON Lines):
//! `{"file", "cpus", "tasks", "utilization", "results": [{"test", "status", "schedulable",
//! "applicable", "reason", "response_time_bounds_ns", "tardiness_bounds_ns", "partition"}]}`.

use schedlab_analysis::json::result_json;
use schedlab_analysis::{Status, Verdict};
use serde_json::{json, Value};

/// One test's result for the report.
pub(crate) struct Row {
    /// Canonical test name.
    pub(crate) test: String,
    /// Its verdict (tardiness bounds as requested).
    pub(crate) verdict: Verdict,
}

/// The JSON line of one analysed file.
pub(crate) fn file_json(
    file: &str,
    cpus: u32,
    tasks: usize,
    utilization: f64,
    rows: &[Row],
) -> Value {
    json!({
        "file": file,
        "cpus": cpus,
        "tasks": tasks,
        "utilization": utilization,
        "results": rows.iter().map(|r| result_json(&r.test, &r.verdict)).collect::<Vec<_>>(),
    })
}

/// A short human summary of a verdict's details.
fn detail(v: &Verdict) -> String {
    let mut parts = Vec::new();
    if let Some(r) = &v.response_time_bounds {
        if let Some(max) = r.iter().max() {
            parts.push(format!("max R = {max}"));
        }
    }
    if let Some(t) = &v.tardiness_bounds {
        if let Some(max) = t.iter().max() {
            parts.push(format!("max tardiness ≤ {max}"));
        }
    }
    if let Some(p) = &v.partition {
        let cpus: Vec<String> = p
            .iter()
            .map(|tasks| {
                let names: Vec<String> = tasks.iter().map(usize::to_string).collect();
                format!("[{}]", names.join(","))
            })
            .collect();
        parts.push(format!("partition {}", cpus.join(" ")));
    }
    if let Some(reason) = &v.reason {
        if v.status != Status::Schedulable || parts.is_empty() {
            parts.push(reason.clone());
        }
    }
    parts.join("; ")
}

/// The human table of one analysed file.
pub(crate) fn file_table(
    file: &str,
    cpus: u32,
    tasks: usize,
    utilization: f64,
    rows: &[Row],
) -> String {
    let mut out = format!("{file}: {tasks} tasks, U = {utilization:.4}, m = {cpus}\n");
    let width = rows.iter().map(|r| r.test.len()).max().unwrap_or(4).max(4);
    out.push_str(&format!(
        "  {:<width$}  {:<14}  details\n",
        "test", "status"
    ));
    for r in rows {
        out.push_str(&format!(
            "  {:<width$}  {:<14}  {}\n",
            r.test,
            r.verdict.status.name(),
            detail(&r.verdict)
        ));
    }
    out
}
