//! Typed errors of the task model. Every message names the task (index and name) and the field.

use std::fmt;

/// Identifies a task in messages: its 0-based index in the file and its name, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRef {
    /// 0-based index in the task list.
    pub index: usize,
    /// The task's name, if it has one.
    pub name: Option<String>,
}

impl fmt::Display for TaskRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(n) => write!(f, "task {} (`{}`)", self.index, n),
            None => write!(f, "task {}", self.index),
        }
    }
}

/// An error in a task, a task set, a platform or a task-set file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A field of a task has an invalid value.
    #[error("{task}: field `{field}`: {message}")]
    InvalidField {
        /// The task.
        task: TaskRef,
        /// The field's name as written in files.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A required field of a task is absent.
    #[error("{task}: missing field `{field}`")]
    MissingField {
        /// The task.
        task: TaskRef,
        /// The field's name.
        field: String,
    },
    /// An unknown field, with the likely intended one where there is one.
    #[error("{place}: unknown field `{field}`{}", match .suggestion { Some(s) => format!(" (did you mean `{s}`?)"), None => format!(" (known fields: {})", .known) })]
    UnknownField {
        /// Where: a task, `platform` or the top level.
        place: String,
        /// The field as written.
        field: String,
        /// The closest known field name.
        suggestion: Option<String>,
        /// All known field names, comma-separated.
        known: String,
    },
    /// WCET exceeds the relative deadline: the task can never meet its deadline. When no
    /// deadline was written, the deadline is the period, and the message says so.
    #[error("{task}: wcet {wcet} exceeds {}", if *.implicit { format!("period {deadline} (the implicit deadline)") } else { format!("deadline {deadline}") })]
    WcetExceedsDeadline {
        /// The task.
        task: TaskRef,
        /// Its WCET, formatted.
        wcet: String,
        /// Its deadline, formatted.
        deadline: String,
        /// No deadline was given: it is the period.
        implicit: bool,
    },
    /// Two tasks share a name.
    #[error("duplicate task name `{name}` (tasks {first} and {second})")]
    DuplicateName {
        /// The name.
        name: String,
        /// Index of the first task with it.
        first: usize,
        /// Index of the second.
        second: usize,
    },
    /// A task set without tasks: every front end (files, the CLI, Python) refuses it.
    #[error("empty task set: a task set needs at least one task")]
    EmptyTaskSet,
    /// The platform description is invalid.
    #[error("platform: field `{field}`: {message}")]
    InvalidPlatform {
        /// The field.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A reservation group is invalid (bad budget or period, unknown or cyclic parent, a
    /// bandwidth above its parent's, a duplicate name, too many groups or too deep a nesting).
    #[error("group `{group}`: {message}")]
    InvalidGroup {
        /// The group's name.
        group: String,
        /// What is wrong.
        message: String,
    },
    /// Reservation groups need more than a CPU (or a parent group's server) provides
    /// [HCBS Eq. 17]; the message names the CPU and the groups.
    #[error("{0}")]
    Overloaded(String),
    /// A value computed from the input does not fit in 64 bits.
    #[error("overflow: {0}")]
    Overflow(String),
    /// The file is not well-formed JSON/TOML or does not have the task-set shape.
    #[error("{0}")]
    Syntax(String),
    /// The file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The operating system's message.
        message: String,
    },
}

impl ModelError {
    /// The same error, saying that the deadline a WCET exceeds is the period (for tasks whose
    /// deadline was not given); other errors unchanged.
    pub fn with_implicit_deadline(self) -> ModelError {
        match self {
            ModelError::WcetExceedsDeadline {
                task,
                wcet,
                deadline,
                ..
            } => ModelError::WcetExceedsDeadline {
                task,
                wcet,
                deadline,
                implicit: true,
            },
            other => other,
        }
    }
}

/// Edit distance between two short strings (for "did you mean" suggestions).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The known name closest to `field`, if it is close enough to be a typo (used for field,
/// test and policy names).
pub fn suggest(field: &str, known: &[&str]) -> Option<String> {
    let lower = field.to_ascii_lowercase();
    known
        .iter()
        .map(|k| (edit_distance(&lower, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_intended_field() {
        let known = ["name", "wcet", "period", "deadline"];
        assert_eq!(suggest("perod", &known).as_deref(), Some("period"));
        assert_eq!(suggest("dedline", &known).as_deref(), Some("deadline"));
        assert_eq!(suggest("WCET", &known).as_deref(), Some("wcet"));
        assert_eq!(suggest("colour", &known), None);
    }
}
