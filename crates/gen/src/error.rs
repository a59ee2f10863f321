//! Typed errors of the generators. Every message names the parameter or the part of the
//! input string that is wrong, so that `schedlab gen` can print it unchanged.

/// Why a generator could not produce a value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GenError {
    /// A parameter is out of its domain (e.g. `n = 0`, `a > b`, `U > n·b`).
    #[error("invalid {what}: {message}")]
    InvalidParameter {
        /// The parameter, as the user would name it (`"n"`, `"total utilization"`, …).
        what: String,
        /// What is wrong, with the offending value.
        message: String,
    },
    /// A distribution, period or method string could not be read.
    #[error("cannot read {kind} `{input}`: {message} (at `{part}`)")]
    Parse {
        /// What was being read: `"utilization distribution"`, `"period distribution"`, ….
        kind: &'static str,
        /// The whole input string.
        input: String,
        /// The part of the input that is wrong.
        part: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A rejection loop (discard, redraw or DRS retry) hit its bound without success.
    #[error("{method}: no acceptable value after {attempts} attempts ({hint})")]
    AttemptsExhausted {
        /// The method whose loop gave up.
        method: &'static str,
        /// The bound that was reached.
        attempts: u64,
        /// Why this happens and what to change.
        hint: &'static str,
    },
    /// A fill-to-U or growing task set reached the task-count limit.
    #[error("task-count limit {limit} reached before the target utilization {target}")]
    TooManyTasks {
        /// The limit.
        limit: usize,
        /// The target utilization.
        target: f64,
    },
}

impl GenError {
    /// Shorthand for [`GenError::InvalidParameter`].
    pub(crate) fn invalid(what: &str, message: impl Into<String>) -> GenError {
        GenError::InvalidParameter {
            what: what.to_string(),
            message: message.into(),
        }
    }

    /// Shorthand for [`GenError::Parse`].
    pub(crate) fn parse(
        kind: &'static str,
        input: &str,
        part: &str,
        message: impl Into<String>,
    ) -> GenError {
        GenError::Parse {
            kind,
            input: input.to_string(),
            part: part.to_string(),
            message: message.into(),
        }
    }
}
