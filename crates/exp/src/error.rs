//! Typed errors of the experiment engine.

use std::fmt;
use std::path::PathBuf;

/// One problem found while validating an experiment file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line of the file.
    pub line: usize,
    /// What is wrong, naming the key.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Every problem of an experiment file, one per line of the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problems {
    /// The file (for the message).
    pub file: String,
    /// The problems, sorted by line.
    pub problems: Vec<Problem>,
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "{}: {n} problem{}",
            self.file,
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            write!(f, "\n  {}:{}: {}", self.file, p.line, p.message)?;
        }
        Ok(())
    }
}

/// Why an experiment could not be prepared, run or reported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExpError {
    /// The experiment file is invalid (every problem listed).
    #[error("{0}")]
    Invalid(Problems),
    /// A file or folder could not be read or written.
    ///
    /// The operating system's error is part of the message and deliberately not a `source`:
    /// error reporters that print the chain (`anyhow`'s `{:#}`) would print it twice.
    #[error("{path}: {error}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The folder's run was interrupted: some chunks were never stored, so there is nothing
    /// complete to summarise or plot yet.
    #[error("{} is incomplete: {missing} of {total} chunks are missing (the run was interrupted); resume it with `schedlab experiment {experiment_file}{} --out {}` (Python: schedlab.experiment.run({experiment_file:?}, out={:?}{})), which computes only the missing chunks and then writes the report", dir.display(), samples.map(|n| format!(" --samples {n}")).unwrap_or_default(), dir.display(), dir.display().to_string(), samples.map(|n| format!(", samples={n}")).unwrap_or_default())]
    Incomplete {
        /// The output folder.
        dir: PathBuf,
        /// Chunks not stored.
        missing: usize,
        /// Chunks of the experiment.
        total: usize,
        /// The experiment file the run started from (as recorded in the manifest).
        experiment_file: String,
        /// The run's `--samples` override, which the resumption repeats (another value is a
        /// different experiment).
        samples: Option<u64>,
    },
    /// A command-line override of the file (`--samples`) that cannot apply.
    #[error("--samples: {0}")]
    BadOverride(String),
    /// The output folder holds results of a different experiment.
    #[error("{dir} holds results of a different experiment (config hash {found}, this file {expected}); use another --out folder or delete that one")]
    DifferentExperiment {
        /// The output folder.
        dir: PathBuf,
        /// Hash in the folder's manifest.
        found: String,
        /// Hash of the file being run.
        expected: String,
    },
    /// A stored file is malformed (manifest, chunk).
    #[error("{path}: {message}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Generating a task set failed.
    #[error("generating set {set} (m = {cpus}, {point}): {message}")]
    Generate {
        /// CPUs of the platform.
        cpus: u32,
        /// The point, described.
        point: String,
        /// Index of the set.
        set: u64,
        /// The generator's message.
        message: String,
    },
    /// A chunk description does not fit the experiment.
    #[error("chunk {0} does not belong to this experiment")]
    BadChunk(String),
    /// An evaluation failed in a way that is not a verdict (a bug or an impossible input).
    #[error("evaluation `{evaluation}` of set {set} (m = {cpus}): {message}")]
    Evaluate {
        /// The evaluation's label.
        evaluation: String,
        /// CPUs of the platform.
        cpus: u32,
        /// Index of the set.
        set: u64,
        /// What failed.
        message: String,
    },
    /// Drawing a plot failed.
    #[error("plot {path}: {message}")]
    Plot {
        /// The plot file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

impl ExpError {
    /// An I/O error with its path.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ExpError {
        ExpError::Io {
            path: path.into(),
            error: source,
        }
    }
}
