//! `schedlab experiment FILE --out DIR [--jobs N] [--samples N]` runs an experiment file
//! (docs/experiments.md) on all local cores, resumably (`--samples` overrides the file's
//! task sets per point; the manifest records it and it is part of the config hash); `schedlab experiment plot DIR` re-renders the summary, plots
//! and report from stored results.
//!
//! The file is validated completely before the output folder is touched. Ctrl-C stops taking
//! new chunks, lets running chunks finish and be stored, and exits 130; a second Ctrl-C exits at
//! once (stored chunks are complete by construction). Rerunning the command resumes.

use crate::exit::Status;
use crate::output::{out, outln};
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use schedlab_exp::{report, run_local, schema, Progress, RunOptions, RunOutcome, Store};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `schedlab experiment`.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct ExperimentArgs {
    #[command(subcommand)]
    action: Option<Action>,
    /// Experiment file (TOML; see docs/experiments.md).
    file: Option<PathBuf>,
    /// Output folder (created; rerun with the same folder to resume).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads (default: one per logical CPU).
    #[arg(long)]
    jobs: Option<usize>,
    /// Task sets per point instead of the file's `samples` (a reduced run): recorded in the
    /// manifest and part of the config hash, so resume with the same value.
    #[arg(long, value_name = "N")]
    samples: Option<u64>,
    /// Only validate the file (and, with --out, that the folder can take its results: absent,
    /// empty, or this experiment's to resume); writes nothing.
    #[arg(long)]
    check: bool,
}

#[derive(Subcommand)]
enum Action {
    /// Re-render summary.csv, plots and reports from the results stored in DIR.
    Plot {
        /// An experiment output folder.
        dir: PathBuf,
    },
    /// Print the utilization bounds of ChronOS Tables 8.2-8.4 with the thesis's formulas and
    /// the original sources' beside them (docs/reproductions.md).
    ChronosBounds {
        /// Platforms (CPU counts).
        #[arg(long, value_delimiter = ',', default_values_t = [8u32, 16, 48])]
        cpus: Vec<u32>,
    },
}

fn progress_bar() -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(0), target);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:32.cyan/blue} {pos}/{len} sets · {msg} · {per_sec} · ETA {eta}",
    ) {
        bar.set_style(style);
    }
    bar
}

fn show(bar: &ProgressBar, p: &Progress) {
    bar.set_length(p.sets_total);
    bar.set_position(p.sets_done);
    bar.set_message(format!("points {}/{}", p.cells_done, p.cells_total));
}

/// Runs the command.
pub(crate) fn run(args: ExperimentArgs) -> Result<Status> {
    match args.action {
        Some(Action::Plot { dir }) => {
            let (store, manifest) = Store::open(&dir)?;
            let outputs = report::finish(&store, &manifest, None)?;
            outln!("re-rendered {}", outputs.report_html.display())?;
            return Ok(Status::SUCCESS);
        }
        Some(Action::ChronosBounds { cpus }) => {
            out!("{}", schedlab_exp::chronos::markdown_table(&cpus))?;
            return Ok(Status::SUCCESS);
        }
        None => {}
    }
    let Some(file) = args.file else {
        anyhow::bail!("give an experiment file (schedlab experiment FILE --out DIR) or `plot DIR`");
    };
    let mut experiment = schema::load(&file)?;
    if let Some(n) = args.samples {
        experiment.override_samples(n)?;
    }
    if args.check {
        if let Some(out) = &args.out {
            Store::check_resumable(out, &experiment)?;
        }
        outln!(
            "{}: valid ({} chunks)",
            file.display(),
            schedlab_exp::chunks(&experiment).len()
        )?;
        return Ok(Status::SUCCESS);
    }
    let out = args.out.context("give the output folder with --out DIR")?;
    run_file(&file, &experiment, &out, args.jobs.unwrap_or(0))
}

fn run_file(
    file: &Path,
    experiment: &schedlab_exp::Experiment,
    out: &Path,
    jobs: usize,
) -> Result<Status> {
    let (store, manifest) = Store::create_or_open(out, experiment, &file.display().to_string())?;
    let stop = Arc::new(AtomicBool::new(false));
    let presses = Arc::new(AtomicUsize::new(0));
    {
        let (stop, presses) = (Arc::clone(&stop), Arc::clone(&presses));
        // A handler may already be installed (e.g. in tests); then Ctrl-C ends the process.
        let _ = ctrlc::set_handler(move || {
            stop.store(true, Ordering::SeqCst);
            if presses.fetch_add(1, Ordering::SeqCst) >= 1 {
                // Stored chunks are complete files; anything in flight is simply lost.
                std::process::exit(130);
            }
            eprintln!("\ninterrupted: finishing the chunks in progress (Ctrl-C again to quit now)");
        });
    }
    let bar = progress_bar();
    let started = Instant::now();
    let all = schedlab_exp::chunks(experiment);
    let pending = store.pending(&all)?.len();
    if let Some(note) = schedlab_exp::resume_note(out, all.len(), pending) {
        eprintln!("{note}");
    }
    let progress = |p: &Progress| show(&bar, p);
    let outcome = run_local(
        experiment,
        &store,
        RunOptions {
            jobs,
            stop: Some(&stop),
            progress: Some(&progress),
        },
    )?;
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    match outcome {
        RunOutcome::Interrupted { done, total } => {
            eprintln!("{}", schedlab_exp::stopped_note(done, total, elapsed));
            Ok(Status::from(130))
        }
        RunOutcome::Finished => {
            let outputs = report::finish(&store, &manifest, Some(elapsed))?;
            outln!(
                "{}: {} summary rows in {elapsed:.1} s; report: {}",
                experiment.title,
                outputs.rows.len(),
                outputs.report_html.display()
            )?;
            Ok(Status::SUCCESS)
        }
    }
}
