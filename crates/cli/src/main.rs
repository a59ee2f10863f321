//! `schedlab`: the command-line front of the schedlab laboratory.
//!
//! Thin by design (cf. ripgrep's `crates/core`): argument parsing, file I/O and printing;
//! all logic lives in the library crates.

mod analyze;
mod report;
mod tests_cmd;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use schedlab_analysis::Priorities;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "schedlab",
    version,
    about = "A laboratory for multicore real-time scheduling"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutputFormat {
    Table,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum PriorityArg {
    Dm,
    Rm,
    Given,
}

impl From<PriorityArg> for Priorities {
    fn from(p: PriorityArg) -> Priorities {
        match p {
            PriorityArg::Dm => Priorities::Dm,
            PriorityArg::Rm => Priorities::Rm,
            PriorityArg::Given => Priorities::Given,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run schedulability tests on task-set files (or folders of them).
    Analyze {
        /// Task-set files (.json/.toml) or folders.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Number of CPUs (overrides the file's platform.cpus).
        #[arg(long)]
        cpus: Option<u32>,
        /// Test to run (repeatable); default: every test.
        #[arg(long = "test", value_name = "NAME")]
        tests: Vec<String>,
        /// Priority assignment for fixed-priority tests.
        #[arg(long, value_enum, default_value = "dm")]
        priorities: PriorityArg,
        /// Output format: a table, or JSON Lines (one object per file).
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
        /// Include tardiness bounds (soft tests; zero for tasks a hard test shows schedulable).
        #[arg(long)]
        tardiness: bool,
    },
    /// List every test with its citation, assumptions and complexity.
    Tests {
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
    },
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Analyze {
            files,
            cpus,
            tests,
            priorities,
            format,
            tardiness,
        } => {
            let failed = analyze::run(&analyze::Options {
                paths: files,
                cpus,
                tests,
                priorities: priorities.into(),
                json: matches!(format, OutputFormat::Json),
                tardiness,
            })?;
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Tests { format } => {
            tests_cmd::run(matches!(format, OutputFormat::Json));
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
