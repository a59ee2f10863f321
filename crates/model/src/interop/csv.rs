//! SchedCAT-style task lists in CSV: one task per line, `cost, period[, deadline]`.
//!
//! ```text
//! # a comment
//! name,cost,period,deadline
//! t1,2ms,10ms,8ms
//! t2,3000000,15000000,
//! ```
//!
//! - **Header** (optional): the first line that is not blank or a `#` comment is a header if
//!   its first field does not start with a digit or `.`. Columns, in any order, case-insensitive:
//!   `cost` (or `wcet`, `c`, `e`), `period` (`t`, `p`), `deadline` (`d`; empty cell or no column:
//!   the period), `name`, `id` (the task's name when there is no `name` column), `offset`
//!   (`phase`), `priority` (smaller = higher, as task files), `cpu` (a partition, 0-based). Any
//!   other column does not map: one `unmapped` line names it. Without a header the columns are
//!   `cost, period[, deadline]`.
//! - **Units**: a value is integer nanoseconds, or has a unit as task files accept
//!   (`2ms`, `150us`, `1.5ms`). A header may give a column's unit as a suffix (`cost_us`,
//!   `period_ms`, also `_ns`, `_s`); that column's values are then bare numbers in that unit
//!   (decimals allowed where they resolve to whole nanoseconds).
//! - **Fields** are separated by commas; a field may be double-quoted (`"a, b"`, `""` for a
//!   quote), on one line.
//!
//! Errors name the line (1-based) and the column. Bounds: the text
//! ([`MAX_IMPORT_BYTES`](crate::interop::import::MAX_IMPORT_BYTES)), tasks
//! ([`MAX_IMPORT_TASKS`]), [`MAX_COLUMNS`] columns. O(length of the text).
//!
//! [`to_csv`] writes the same format (a header with `_ns` columns, times as integers), so a
//! task set written and read back is the same set (tasks without attributes CSV cannot hold).

use super::import::{check_size, MAX_IMPORT_TASKS};
use super::{Imported, InteropError};
use crate::error::suggest;
use crate::file::TaskFile;
use crate::task::Task;
use crate::taskset::TaskSet;
use crate::time::{parse_ns, Duration};

/// How messages name the format.
pub const FORMAT: &str = "CSV";
/// Columns a line may have.
pub const MAX_COLUMNS: usize = 64;

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Col {
    Name,
    Id,
    Wcet,
    Period,
    Deadline,
    Offset,
    Priority,
    Cpu,
    /// Not a task field: noted, ignored.
    Other,
}

/// The column names a header may use, for suggestions.
const KNOWN: &[&str] = &[
    "name", "id", "cost", "wcet", "period", "deadline", "offset", "phase", "priority", "cpu",
];

/// A column: what it holds, its header name and the unit its bare values are in (ns scale).
struct Column {
    col: Col,
    header: String,
    unit: Option<&'static str>,
}

impl Column {
    fn parse(header: &str) -> Column {
        let h = header.trim().to_ascii_lowercase();
        let (base, unit) = [("_ns", "ns"), ("_us", "us"), ("_ms", "ms"), ("_s", "s")]
            .iter()
            .find_map(|(suffix, unit)| h.strip_suffix(suffix).map(|b| (b.to_string(), Some(*unit))))
            .unwrap_or((h.clone(), None));
        let col = match base.as_str() {
            "name" => Col::Name,
            "id" => Col::Id,
            "cost" | "wcet" | "c" | "e" => Col::Wcet,
            "period" | "t" | "p" => Col::Period,
            "deadline" | "d" => Col::Deadline,
            "offset" | "phase" => Col::Offset,
            "priority" => Col::Priority,
            "cpu" => Col::Cpu,
            _ => Col::Other,
        };
        let timed = matches!(col, Col::Wcet | Col::Period | Col::Deadline | Col::Offset);
        // A unit suffix on a column that is not a time is part of an unknown name.
        let (col, unit) = match (timed, unit) {
            (true, u) => (col, u),
            (false, Some(_)) => (Col::Other, None),
            (false, None) => (col, None),
        };
        Column {
            col,
            header: header.trim().to_string(),
            unit,
        }
    }

    fn positional(col: Col, header: &str) -> Column {
        Column {
            col,
            header: header.to_string(),
            unit: None,
        }
    }
}

/// Splits one line into fields (double quotes group, `""` is a quote).
fn fields(line: &str, number: usize) -> Result<Vec<String>, InteropError> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if field.trim().is_empty() && !was_quoted => {
                field.clear();
                quoted = true;
                was_quoted = true;
            }
            (',', false) => {
                if out.len() + 1 >= MAX_COLUMNS {
                    return Err(line_error(
                        number,
                        None,
                        format!("more than {MAX_COLUMNS} columns"),
                    ));
                }
                out.push(finish(&field, was_quoted));
                field.clear();
                was_quoted = false;
            }
            (c, _) => field.push(c),
        }
    }
    if quoted {
        return Err(line_error(
            number,
            None,
            "a quoted field is not closed on its line",
        ));
    }
    out.push(finish(&field, was_quoted));
    Ok(out)
}

fn finish(field: &str, quoted: bool) -> String {
    if quoted {
        field.to_string()
    } else {
        field.trim().to_string()
    }
}

fn line_error(line: usize, column: Option<&str>, message: impl Into<String>) -> InteropError {
    InteropError::Line {
        format: FORMAT,
        line,
        column: column.map(str::to_string),
        message: message.into(),
    }
}

/// Reads a CSV task list (see the module doc). The import has no platform and no policy.
///
/// ```
/// let imported = schedlab_model::interop::csv::import("cost,period\n2ms,10ms\n3,7\n").unwrap();
/// assert_eq!(imported.file.tasks.len(), 2);
/// assert_eq!(imported.file.tasks[1].period.as_ns(), 7);
/// ```
pub fn import(text: &str) -> Result<Imported, InteropError> {
    check_size(FORMAT, text.len())?;
    // The columns, and whether they come from a header (else each line is `cost, period[,
    // deadline]`, the deadline optional line by line).
    let mut columns: Option<(Vec<Column>, bool)> = None;
    let mut tasks: Vec<Task> = Vec::new();
    let mut lines_of: Vec<usize> = Vec::new();
    let mut unmapped = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let number = k + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut values = fields(line, number)?;
        let (cols, headed) = match &columns {
            Some((c, headed)) => (c, *headed),
            None => {
                let first = values.first().map_or("", String::as_str);
                let is_header = !first.starts_with(|c: char| c.is_ascii_digit() || c == '.');
                let cols = if is_header {
                    header(&values, number, &mut unmapped)?
                } else {
                    positional()
                };
                let (cols, _) = columns.insert((cols, is_header));
                if is_header {
                    continue;
                }
                (&*cols, false)
            }
        };
        if !headed {
            if !(2..=3).contains(&values.len()) {
                return Err(line_error(
                    number,
                    None,
                    format!("{} columns and no header: without a header a line is `cost, period[, deadline]`; name other columns in a header line (name, cost, period, deadline, …)", values.len()),
                ));
            }
            values.resize(3, String::new());
        }
        if tasks.len() >= MAX_IMPORT_TASKS {
            return Err(InteropError::TooLarge {
                format: FORMAT,
                what: "the number of tasks".to_string(),
                got: format!("at least {}", MAX_IMPORT_TASKS + 1),
                limit: MAX_IMPORT_TASKS.to_string(),
            });
        }
        let task = row(cols, &values, number)?;
        task.validate(tasks.len())
            .map_err(|e| line_error(number, None, e.to_string()))?;
        tasks.push(task);
        lines_of.push(number);
    }
    let tasks = TaskSet::new(tasks).map_err(|e| match e {
        crate::ModelError::DuplicateName {
            name,
            first,
            second,
        } => line_error(
            lines_of.get(second).copied().unwrap_or(0),
            Some("name"),
            format!(
                "duplicate task name `{name}` (also on line {})",
                lines_of.get(first).copied().unwrap_or(0)
            ),
        ),
        source => InteropError::Model {
            format: FORMAT,
            source,
        },
    })?;
    Ok(Imported {
        file: TaskFile {
            tasks,
            platform: None,
        },
        policy: None,
        unmapped,
    })
}

/// The columns a header names; notes the ones that do not map.
fn header(
    values: &[String],
    number: usize,
    unmapped: &mut Vec<String>,
) -> Result<Vec<Column>, InteropError> {
    let cols: Vec<Column> = values.iter().map(|v| Column::parse(v)).collect();
    for (i, c) in cols.iter().enumerate() {
        if c.header.is_empty() {
            return Err(line_error(
                number,
                None,
                format!("header: column {} has no name", i + 1),
            ));
        }
        if let Some(j) = cols[..i]
            .iter()
            .position(|d| d.col == c.col && c.col != Col::Other)
        {
            return Err(line_error(
                number,
                Some(&c.header),
                format!(
                    "header: `{}` and `{}` name the same field",
                    cols[j].header, c.header
                ),
            ));
        }
        if c.col == Col::Other {
            let hint = suggest(&c.header.to_ascii_lowercase(), KNOWN)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            unmapped.push(format!(
                "column `{}`: not a task field{hint}; ignored",
                c.header
            ));
        }
    }
    for (needed, what) in [(Col::Wcet, "cost (or wcet)"), (Col::Period, "period")] {
        if !cols.iter().any(|c| c.col == needed) {
            return Err(line_error(
                number,
                None,
                format!("header: no {what} column"),
            ));
        }
    }
    if cols.iter().any(|c| c.col == Col::Id) {
        let named = cols.iter().any(|c| c.col == Col::Name);
        unmapped.push(if named {
            "column `id`: the tasks are named by the `name` column; the ids are not kept"
                .to_string()
        } else {
            "column `id`: kept as each task's name (a task file has no ids)".to_string()
        });
    }
    Ok(cols)
}

/// The columns of a file without a header: cost, period, deadline.
fn positional() -> Vec<Column> {
    vec![
        Column::positional(Col::Wcet, "cost"),
        Column::positional(Col::Period, "period"),
        Column::positional(Col::Deadline, "deadline"),
    ]
}

/// One task from one line.
fn row(cols: &[Column], values: &[String], number: usize) -> Result<Task, InteropError> {
    if values.len() != cols.len() {
        return Err(line_error(
            number,
            None,
            format!(
                "{} fields, but the header has {} columns",
                values.len(),
                cols.len()
            ),
        ));
    }
    let mut t = Task::new_unchecked(Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut wcet, mut period, mut deadline, mut name, mut id) = (None, None, None, None, None);
    for (c, v) in cols.iter().zip(values) {
        let err = |m: String| line_error(number, Some(&c.header), m);
        let time = || -> Result<Option<u64>, InteropError> {
            if v.is_empty() {
                return Ok(None);
            }
            let text = match c.unit {
                Some(unit) if v.ends_with(|ch: char| ch.is_ascii_alphabetic() || ch == 'µ') => {
                    return Err(err(format!(
                        "`{v}`: the header gives the unit ({unit}); write the number alone"
                    )))
                }
                Some(unit) => format!("{v}{unit}"),
                None => v.clone(),
            };
            parse_ns(&text)
                .map(Some)
                .map_err(|e| err(format!("`{v}`: {e}")))
        };
        let whole = || -> Result<Option<u32>, InteropError> {
            if v.is_empty() {
                return Ok(None);
            }
            v.parse::<u32>().map(Some).map_err(|_| {
                err(format!(
                    "`{v}` is not a whole number from 0 to {}",
                    u32::MAX
                ))
            })
        };
        match c.col {
            Col::Wcet => wcet = time()?,
            Col::Period => period = time()?,
            Col::Deadline => deadline = time()?,
            Col::Offset => t.offset = Duration::from_ns(time()?.unwrap_or(0)),
            Col::Priority => t.priority = whole()?,
            Col::Cpu => t.cpu = whole()?,
            Col::Name => name = Some(v.clone()).filter(|n| !n.is_empty()),
            Col::Id => id = Some(v.clone()).filter(|n| !n.is_empty()),
            Col::Other => {}
        }
    }
    let missing = |what: &str| line_error(number, Some(what), "empty: every task needs one");
    t.wcet = Duration::from_ns(wcet.ok_or_else(|| missing("cost"))?);
    t.period = Duration::from_ns(period.ok_or_else(|| missing("period"))?);
    t.deadline = deadline.map_or(t.period, Duration::from_ns);
    t.name = name.or(id);
    Ok(t)
}

/// Writes a task set as CSV: a header `name,wcet_ns,period_ns,deadline_ns` (plus `offset_ns`,
/// `priority`, `cpu` when a task has them), one line per task, times as integer ns. The
/// platform is not written (CSV has no place for it). A task with an attribute CSV cannot
/// hold (utility, working set, cluster, affinity, split, TUF, abort settings, critical
/// sections, parallel structure, group) is an error naming the task and the field.
pub fn to_csv(file: &TaskFile) -> Result<String, InteropError> {
    use std::fmt::Write;
    if let Some(g) = file.tasks.groups().first() {
        return Err(InteropError::Field {
            format: FORMAT,
            place: format!("group `{}`", g.name),
            field: "groups".to_string(),
            message: "CSV has no reservation groups".to_string(),
        });
    }
    for (i, t) in file.tasks.iter().enumerate() {
        // A quoted field may hold a carriage return, but not a line feed (lines end there).
        let bad_name = t.name.as_deref().is_some_and(|n| n.contains('\n'));
        if let Some(field) = unwritable(t).or(bad_name.then_some("name")) {
            return Err(InteropError::Field {
                format: FORMAT,
                place: crate::TaskRef {
                    index: i,
                    name: t.name.clone(),
                }
                .to_string(),
                field: format!("field `{field}`"),
                message: "CSV holds name (on one line), wcet, period, deadline, offset, priority and cpu only".to_string(),
            });
        }
    }
    let offsets = file.tasks.iter().any(|t| !t.offset.is_zero());
    let priorities = file.tasks.iter().any(|t| t.priority.is_some());
    let cpus = file.tasks.iter().any(|t| t.cpu.is_some());
    let mut out = String::from("name,wcet_ns,period_ns,deadline_ns");
    for (on, col) in [
        (offsets, ",offset_ns"),
        (priorities, ",priority"),
        (cpus, ",cpu"),
    ] {
        if on {
            out.push_str(col);
        }
    }
    out.push('\n');
    let opt = |v: Option<u32>| v.map(|x| x.to_string()).unwrap_or_default();
    for t in file.tasks.iter() {
        let _ = write!(
            out,
            "{},{},{},{}",
            quote(t.name.as_deref().unwrap_or("")),
            t.wcet.as_ns(),
            t.period.as_ns(),
            t.deadline.as_ns()
        );
        if offsets {
            let _ = write!(out, ",{}", t.offset.as_ns());
        }
        if priorities {
            let _ = write!(out, ",{}", opt(t.priority));
        }
        if cpus {
            let _ = write!(out, ",{}", opt(t.cpu));
        }
        out.push('\n');
    }
    Ok(out)
}

/// The first field of `t` CSV cannot hold.
fn unwritable(t: &Task) -> Option<&'static str> {
    [
        (t.utility.is_some(), "utility"),
        (t.wss.is_some(), "wss"),
        (t.cluster.is_some(), "cluster"),
        (t.affinity.is_some(), "affinity"),
        (t.split.is_some(), "split"),
        (t.tuf.is_some(), "tuf"),
        (!t.abortable, "abortable"),
        (!t.abort_cost.is_zero(), "abort_cost"),
        (!t.critical_sections.is_empty(), "critical_sections"),
        (t.parallel.is_some(), "parallel"),
        (t.group.is_some(), "group"),
    ]
    .into_iter()
    .find_map(|(has, f)| has.then_some(f))
}

/// A name as one CSV field: quoted when it holds a comma, a quote, a `#` at its start,
/// surrounding spaces, or would read as a number (a header's first field decides).
fn quote(name: &str) -> String {
    let plain =
        !name.contains([',', '"', '\n', '\r']) && !name.starts_with('#') && name.trim() == name;
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

#[cfg(test)]
#[path = "csv_tests.rs"]
mod tests;
