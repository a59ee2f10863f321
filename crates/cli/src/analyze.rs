//! `schedlab analyze FILE… --cpus M [--test NAME …] [--priorities dm|rm|given]
//! [--format table|json] [--tardiness] [--summary] [--explain] [--overheads OH --arch ARCH
//! [--dedicated-irq-cpu] [--overhead-stat max|avg] [--granularity 1us]]`.
//!
//! With `--overheads`, every test runs on the set charged with the architecture's overheads
//! (`schedlab_analysis::overheads::context`) on the CPUs left for jobs, except the partitioned
//! and clustered tests, which charge each bin themselves; the JSON line gains the
//! `"accounting"` object; a set whose whole-set accounting fails is *not shown* for every test
//! that runs on the charged set.
//!
//! Several files (or folders of `.json`/`.toml` files) are analysed in one process, in parallel,
//! and reported in the order given, so bulk analysis does not pay a process start per task set.
//!
//! The per-file path is lean because it runs once per task set and the faster tests take a few
//! microseconds: each thread reuses one [`file::Reader`] (the text buffer and the previous
//! file's tasks), the tests are built once, and results are written straight into a byte
//! buffer; standard output is buffered for the whole run. Files are processed in chunks, in
//! parallel within a chunk, each chunk printed in order before the next starts, so memory stays
//! bounded however many files there are.

use crate::report::{write_file_json, write_file_table, FileFacts, Row, Summary};
use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use schedlab_analysis::json::tardiness_as_requested;
use schedlab_analysis::overheads::arch::ArchKind;
use schedlab_analysis::overheads::context::{ChargedAnalysis, OverheadSetup};
use schedlab_analysis::reservations::Reservations;
use schedlab_analysis::{analyze, registry, Priorities, SchedTest, Status, System};
use schedlab_model::file;
use schedlab_model::overheads::{OverheadFile, Stat};
use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Reads `--overheads` and checks the options that go with it.
pub(crate) fn charging(
    path: &Path,
    arch: Option<&str>,
    dedicated_irq_cpu: bool,
    stat: &str,
    granularity: &str,
) -> Result<OverheadSetup> {
    let Some(arch) = arch else {
        bail!("--overheads needs --arch (global-lock, global-lock-di, partitioned, message-passing, linux-deadline, push-pull, semi-partitioned)");
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file =
        OverheadFile::parse_toml(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let arch =
        ArchKind::parse(arch, dedicated_irq_cpu).map_err(|e| anyhow::anyhow!("--arch: {e}"))?;
    let stat = Stat::parse(stat).map_err(|e| anyhow::anyhow!("--overhead-stat: {e}"))?;
    let granularity = schedlab_model::time::parse_ns_with_unit(granularity)
        .map_err(|e| anyhow::anyhow!("--granularity: {e}"))?;
    if granularity == 0 {
        bail!("--granularity must be at least 1ns");
    }
    Ok(OverheadSetup {
        file: std::sync::Arc::new(file),
        source: path.display().to_string(),
        arch,
        stat,
        granularity,
    })
}

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
    /// Emit JSON Lines (or, with `summary`, one JSON object) instead of a table.
    pub(crate) json: bool,
    /// Add tardiness bounds where defined (0 for tasks a hard test shows schedulable).
    pub(crate) tardiness: bool,
    /// Print only the summary over all files (how many sets each test accepts).
    pub(crate) summary: bool,
    /// Table: explain each test's assignment (semi-partitioned parts) for a person.
    pub(crate) explain: bool,
    /// Overhead-aware analysis.
    pub(crate) overheads: Option<OverheadSetup>,
}

/// Files per chunk: enough to keep every core busy and the output buffer's writes large, few
/// enough that a chunk's results are small in memory.
const CHUNK: usize = 512;

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

/// The tests to run, each with its canonical name (computed once: a name is a `String`).
type Tests = Vec<(String, Box<dyn SchedTest>)>;

fn named(tests: Vec<Box<dyn SchedTest>>) -> Tests {
    tests.into_iter().map(|t| (t.name(), t)).collect()
}

/// The tests `--test` names, or `None` for "every test", which depends on the CPU count.
fn chosen_tests(names: &[String]) -> Result<Option<Tests>> {
    if names.is_empty() {
        return Ok(None);
    }
    let tests = names
        .iter()
        .map(|n| registry::by_name(n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(named(tests)))
}

/// What analysing one file gave: its report (table or JSON line), the CPU count and each test's
/// status; or the message for that file.
struct FileOutcome {
    report: Result<(Vec<u8>, u32, Vec<Status>)>,
}

thread_local! {
    /// Each thread's reader: its text buffer and the last file's tasks are reused.
    static READER: RefCell<file::Reader> = RefCell::new(file::Reader::default());
    /// Each thread's "every test" list and the CPU count it was made for.
    static EVERY_TEST: RefCell<Option<(u32, Tests)>> = const { RefCell::new(None) };
}

/// Runs `f` with the tests for `cpus`: the chosen ones, or every test for that CPU count.
fn with_tests<R>(chosen: Option<&Tests>, cpus: u32, f: impl FnOnce(&Tests) -> R) -> R {
    match chosen {
        Some(tests) => f(tests),
        None => EVERY_TEST.with_borrow_mut(|every| {
            if every.as_ref().is_none_or(|(m, _)| *m != cpus) {
                *every = Some((cpus, named(registry::all_for(cpus))));
            }
            match every {
                Some((_, tests)) => f(tests),
                None => f(&Vec::new()),
            }
        }),
    }
}

/// Reads one file, runs the tests, and writes its report.
fn analyze_file(path: &Path, opts: &Options, chosen: Option<&Tests>) -> FileOutcome {
    let report = READER.with_borrow_mut(|reader| {
        let loaded = reader.load(path)?;
        let result = analyze_loaded(path, &loaded, opts, chosen);
        reader.recycle(loaded);
        result
    });
    FileOutcome { report }
}

/// One file as the tests see it: as written, or charged with `--overheads`.
enum Analysed {
    Plain(System),
    Charged(ChargedAnalysis),
}

fn analyze_loaded(
    path: &Path,
    loaded: &file::TaskFile,
    opts: &Options,
    chosen: Option<&Tests>,
) -> Result<(Vec<u8>, u32, Vec<Status>)> {
    let cpus = match (opts.cpus, &loaded.platform) {
        (Some(m), _) => m,
        (None, Some(p)) => p.cpus,
        (None, None) => bail!(
            "{}: the number of CPUs is given neither by --cpus nor by the file's platform.cpus",
            path.display()
        ),
    };
    let analysed = match &opts.overheads {
        None => Analysed::Plain(
            System::new(&loaded.tasks, cpus, opts.priorities)?.with_reservations(
                Reservations::of(&loaded.tasks, cpus)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
            ),
        ),
        Some(setup) => Analysed::Charged(
            ChargedAnalysis::new(&loaded.tasks, cpus, opts.priorities, setup)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
        ),
    };
    let test_cpus = match &analysed {
        Analysed::Plain(_) => cpus,
        Analysed::Charged(c) => c.cpus_for_jobs(),
    };
    let n = loaded.tasks.len();
    with_tests(chosen, test_cpus, |tests| {
        let rows: Vec<Row> = tests
            .iter()
            .map(|(name, test)| Row {
                test: name,
                verdict: tardiness_as_requested(
                    match &analysed {
                        Analysed::Plain(sys) => analyze(test.as_ref(), sys),
                        Analysed::Charged(c) => c.verdict(test.as_ref()),
                    },
                    opts.tardiness,
                    n,
                ),
            })
            .collect();
        let statuses = rows.iter().map(|r| r.verdict.status).collect();
        let mut out = Vec::new();
        if !opts.summary {
            let name = path.to_string_lossy();
            let accounting = match &analysed {
                Analysed::Plain(_) => None,
                Analysed::Charged(c) => Some(c.accounting.to_json()),
            };
            let facts = FileFacts {
                file: &name,
                cpus,
                tasks: loaded.tasks.len(),
                utilization: loaded.tasks.utilization(),
                accounting: accounting.as_ref(),
            };
            if opts.json {
                write_file_json(&mut out, &facts, &rows)?;
            } else {
                write_file_table(&mut out, &facts, &rows, opts.explain)?;
            }
        }
        Ok((out, test_cpus, statuses))
    })
}

/// The names of every test on `cpus` CPUs, computed once per CPU count.
fn every_test_names(cache: &mut Vec<(u32, Vec<String>)>, cpus: u32) -> &[String] {
    let index = match cache.iter().position(|(m, _)| *m == cpus) {
        Some(i) => i,
        None => {
            let names = registry::all_for(cpus).iter().map(|t| t.name()).collect();
            cache.push((cpus, names));
            cache.len() - 1
        }
    };
    cache.get(index).map_or(&[], |(_, names)| names)
}

/// Runs the command; returns the number of files that failed.
pub(crate) fn run(opts: &Options) -> Result<usize> {
    // Validate test names once up front so a typo is one message, not one per file.
    let chosen = chosen_tests(&opts.tests)?;
    let files = expand(&opts.paths)?;
    let chosen_names: Option<Vec<String>> = chosen
        .as_ref()
        .map(|tests| tests.iter().map(|(name, _)| name.clone()).collect());
    let mut every_names = Vec::new();
    let mut summary = Summary::new(chosen_names.clone().unwrap_or_default());
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut failed = 0;
    for chunk in files.chunks(CHUNK) {
        let outcomes: Vec<FileOutcome> = chunk
            .par_iter()
            .with_min_len(2)
            .map(|p| analyze_file(p, opts, chosen.as_ref()))
            .collect();
        for (path, outcome) in chunk.iter().zip(outcomes) {
            match outcome.report {
                Ok((text, cpus, statuses)) => {
                    stdout.write_all(&text)?;
                    if opts.summary {
                        let names = match &chosen_names {
                            Some(names) => names.as_slice(),
                            None => every_test_names(&mut every_names, cpus),
                        };
                        summary.add(names, &statuses);
                    }
                }
                Err(e) => {
                    failed += 1;
                    summary.add_failure();
                    let message = format!("{e:#}");
                    let message = if message.contains(&path.display().to_string()) {
                        message
                    } else {
                        format!("{}: {message}", path.display())
                    };
                    // Keep the order of results and errors on a terminal.
                    stdout.flush()?;
                    eprintln!("error: {message}");
                }
            }
        }
    }
    if opts.summary {
        if opts.json {
            writeln!(stdout, "{}", summary.json())?;
        } else {
            stdout.write_all(summary.table().as_bytes())?;
        }
    }
    stdout.flush()?;
    Ok(failed)
}
