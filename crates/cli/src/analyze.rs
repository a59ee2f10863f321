//! `schedlab analyze FILE… --cpus M [--test NAME …] [--priorities dm|rm|given]
//! [--format table|json] [--tardiness]`.
//!
//! Several files (or folders of `.json`/`.toml` files) are analysed in one process, in parallel,
//! and reported in the order given, so bulk analysis does not pay a process start per task set.

use crate::output::out;
use crate::report::{file_json, file_table, Row};
use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use schedlab_analysis::json::tardiness_as_requested;
use schedlab_analysis::{analyze, registry, Priorities, SchedTest, System};
use schedlab_model::file;
use std::path::{Path, PathBuf};

/// Options of `schedlab analyze`.
pub(crate) struct Options {
    /// Files or folders.
    pub(crate) paths: Vec<PathBuf>,
    /// `--cpus`, wins over the file's platform.
    pub(crate) cpus: Option<u32>,
    /// `--test` names; empty = every test.
    pub(crate) tests: Vec<String>,
    /// Priority assignment for fixed-priority tests.
    pub(crate) priorities: Priorities,
    /// Emit JSON Lines instead of a table.
    pub(crate) json: bool,
    /// Add tardiness bounds where defined (0 for tasks a hard test shows schedulable).
    pub(crate) tardiness: bool,
}

/// Expands folders into their task files (sorted), keeps files as given.
pub(crate) fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut inner: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot list folder {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|q| file::Format::from_path(q).is_some())
                .collect();
            inner.sort();
            out.extend(inner);
        } else {
            out.push(p.clone());
        }
    }
    if out.is_empty() {
        bail!("no task-set files given (folders are searched for .json and .toml files)");
    }
    Ok(out)
}

fn select_tests(names: &[String], cpus: u32) -> Result<Vec<Box<dyn SchedTest>>> {
    if names.is_empty() {
        return Ok(registry::all_for(cpus));
    }
    names
        .iter()
        .map(|n| registry::by_name(n).map_err(anyhow::Error::from))
        .collect()
}

/// Runs the selected tests on one file; `Err` is the message for that file.
fn analyze_file(path: &Path, opts: &Options) -> Result<String> {
    let loaded = file::load(path)?;
    let cpus = match (opts.cpus, &loaded.platform) {
        (Some(m), _) => m,
        (None, Some(p)) => p.cpus,
        (None, None) => bail!(
            "{}: the number of CPUs is given neither by --cpus nor by the file's platform.cpus",
            path.display()
        ),
    };
    let tests = select_tests(&opts.tests, cpus)?;
    let sys = System::new(&loaded.tasks, cpus, opts.priorities)?;
    let rows: Vec<Row> = tests
        .iter()
        .map(|t| {
            let test = t.name();
            let verdict =
                tardiness_as_requested(analyze(t.as_ref(), &sys), opts.tardiness, sys.len());
            Row { test, verdict }
        })
        .collect();
    let name = path.display().to_string();
    let u = loaded.tasks.utilization();
    let n = loaded.tasks.len();
    Ok(if opts.json {
        file_json(&name, cpus, n, u, &rows).to_string() + "\n"
    } else {
        file_table(&name, cpus, n, u, &rows)
    })
}

/// Runs the command; returns the number of files that failed.
pub(crate) fn run(opts: &Options) -> Result<usize> {
    // Validate test names once up front so a typo is one message, not one per file.
    for n in &opts.tests {
        registry::by_name(n)?;
    }
    let files = expand(&opts.paths)?;
    let outputs: Vec<Result<String>> = files.par_iter().map(|p| analyze_file(p, opts)).collect();
    let mut failed = 0;
    for (path, out) in files.iter().zip(outputs) {
        match out {
            Ok(text) => out!("{text}")?,
            Err(e) => {
                failed += 1;
                let message = format!("{e:#}");
                let message = if message.contains(&path.display().to_string()) {
                    message
                } else {
                    format!("{}: {message}", path.display())
                };
                eprintln!("error: {message}");
            }
        }
    }
    Ok(failed)
}
