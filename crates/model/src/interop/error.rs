//! The typed errors of reading and writing other tools' formats: each names the format, the
//! element (task, thread, line) and the field.

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
}
