//! Errors of the analysis API (bad requests, not verdicts: a test that does not apply answers
//! "not applicable" instead of failing).

/// An error in a request to the analysis API.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnalysisError {
    /// No test has this name.
    #[error("unknown test `{name}`{}", match .suggestion { Some(s) => format!(" (did you mean `{s}`?)"), None => String::new() })]
    UnknownTest {
        /// The name asked for.
        name: String,
        /// The closest known name.
        suggestion: Option<String>,
    },
    /// A priority assignment other than `dm`, `rm`, `given`.
    #[error("unknown priority assignment `{0}` (use dm, rm or given)")]
    UnknownPriorities(String),
    /// `m = 0`.
    #[error("the number of CPUs must be at least 1")]
    NoCpus,
    /// `m` above [`schedlab_model::platform::MAX_CPUS`] (tests and partitioning heuristics
    /// allocate per-CPU state).
    #[error(transparent)]
    TooManyCpus(#[from] schedlab_model::platform::TooManyCpus),
    /// A task's parameters are invalid.
    #[error("task {index}: {message}")]
    InvalidTask {
        /// Task index.
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// A test parameter is out of range.
    #[error("test `{test}`: {message}")]
    InvalidParameter {
        /// The test.
        test: String,
        /// The parameter.
        parameter: String,
        /// What is wrong.
        message: String,
    },
}
