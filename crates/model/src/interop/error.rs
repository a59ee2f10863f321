//! The one error type of every interoperation format, import and export: each variant names
//! the format, the element (task, thread, line) and the field.

use crate::error::ModelError;

/// What went wrong reading another tool's file (or a deployment that cannot be written).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InteropError {
    /// rt-app: the text is not JSON (after its comments and trailing commas are removed, as
    /// rt-app's own parser, json-c, accepts them).
    #[error("rt-app: malformed JSON at line {line}, column {column}: {message}")]
    RtAppSyntax {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the JSON reader said.
        message: String,
    },
    /// rt-app: an element (the file, `global`, a thread) with a field schedlab cannot read.
    #[error("rt-app: {element}: field `{field}`: {message}")]
    RtAppField {
        /// Where: `the file`, `global`, `thread \`name\``.
        element: String,
        /// The field as written in the file.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// rt-app: more than the bounded sizes (file bytes, threads, events per thread).
    #[error("rt-app: {what} is {got}, more than the {limit} schedlab reads")]
    RtAppTooLarge {
        /// What is counted.
        what: &'static str,
        /// The count found.
        got: usize,
        /// The bound.
        limit: usize,
    },
    /// rt-app: the threads read do not form a valid task set (the message names the task and
    /// the field, as for task files).
    #[error("rt-app: {0}")]
    RtAppTaskSet(#[source] ModelError),
    // Import (SimSo XML, CSV, the dispatcher).
    /// The input is larger than an import reads (bytes, tasks, processors, dates, …).
    #[error("{format}: {what} is {got}; an import reads at most {limit}")]
    TooLarge {
        /// The format (`SimSo XML`, `CSV`, …).
        format: &'static str,
        /// What is counted: `the file`, `the number of tasks`, …
        what: String,
        /// How much there is.
        got: String,
        /// The bound.
        limit: String,
    },
    /// Not well-formed XML (or XML with a DTD, which an import refuses).
    #[error("{format}: line {line}, column {column}: {message}")]
    Xml {
        /// The format.
        format: &'static str,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What is wrong.
        message: String,
    },
    /// An element or attribute of the source is missing or has a value that cannot be read.
    #[error("{format}: {place}: {field}: {message}")]
    Field {
        /// The format.
        format: &'static str,
        /// Where: `task 2 (`T3`)`, `processor 0 (`CPU 1`)`, `<sched>`, …
        place: String,
        /// The attribute or element, as written in the source (`attribute `WCET``).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A line of a line-based format (CSV) is wrong.
    #[error("{format}: line {line}{}: {message}", match .column { Some(c) => format!(", column `{c}`"), None => String::new() })]
    Line {
        /// The format.
        format: &'static str,
        /// 1-based line number.
        line: usize,
        /// The column's name, if the problem is in one value.
        column: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A SimSo scheduler class that schedlab does not know.
    #[error("unknown SimSo scheduler `{class}`; schedulers that map: {known}")]
    UnknownScheduler {
        /// The class as written (`simso.schedulers.XYZ`).
        class: String,
        /// The SimSo schedulers that map, comma-separated.
        known: String,
    },
    /// A SimSo scheduler that schedlab knows but has no policy for.
    #[error("SimSo scheduler `{class}` ({what}) has no schedlab policy; instead: {instead}. Schedulers that map: {known}")]
    UnsupportedScheduler {
        /// The class as written.
        class: String,
        /// What the scheduler is.
        what: String,
        /// What schedlab offers instead.
        instead: String,
        /// The SimSo schedulers that map, comma-separated.
        known: String,
    },
    /// The imported task set is not a valid task file (the message names the task and field).
    #[error("{format}: {source}")]
    Model {
        /// The format.
        format: &'static str,
        /// The task file's error.
        #[source]
        source: ModelError,
    },
    /// An import format name that does not exist.
    #[error("unknown import format `{0}` (known: simso, csv, rt-app)")]
    UnknownFormat(String),
    /// The source could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The operating system's message.
        message: String,
    },
}
