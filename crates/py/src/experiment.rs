//! Experiments for Python (`schedlab.experiment`): the same validation, chunk function and
//! durable store as `schedlab experiment`, split so that a Dask driver can hand chunks to
//! workers (`experiment_chunk`, pure) and write what they return itself (`experiment_store`).
//! A local run says what the CLI says when it resumes or is interrupted (Ctrl-C stops taking
//! new chunks, stores the running ones, and raises `KeyboardInterrupt`).

use crate::err;
use pyo3::prelude::*;
use schedlab_exp::{chunks, evaluate_chunk, report, run_local, schema, Chunk, Experiment};
use schedlab_exp::{resume_note, stopped_note, RunOptions, RunOutcome, Store};
use serde_json::json;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn experiment_of(config: &str) -> PyResult<Experiment> {
    serde_json::from_str(config).map_err(|e| err(format!("experiment config: {e}")))
}

fn chunk_of(text: &str) -> PyResult<Chunk> {
    serde_json::from_str(text).map_err(|e| err(format!("chunk: {e}")))
}

/// The experiment file at `path`, with `samples` task sets per point instead of the file's
/// when given (the CLI's `--samples N`).
fn load(path: &str, samples: Option<u64>) -> PyResult<Experiment> {
    let mut e = schema::load(Path::new(path)).map_err(err)?;
    if let Some(n) = samples {
        e.override_samples(n)
            .map_err(|x| err(x.to_string().replacen("--samples", "samples", 1)))?;
    }
    Ok(e)
}

/// Validates the file, creates or reopens the output folder; returns JSON text
/// `{"config": "<experiment JSON text>", "pending": [chunk, …], "total": N, "resume": note}`
/// (`resume`: what the CLI prints when the folder already holds chunks, else null).
/// `samples`: task sets per point instead of the file's (`schedlab experiment --samples`).
#[pyfunction]
#[pyo3(signature = (path, out, samples=None))]
pub(crate) fn experiment_prepare(path: &str, out: &str, samples: Option<u64>) -> PyResult<String> {
    let e = load(path, samples)?;
    let (store, _) = Store::create_or_open(Path::new(out), &e, path).map_err(err)?;
    let all = chunks(&e);
    let pending = store.pending(&all).map_err(err)?;
    Ok(json!({
        "config": e.canonical_json(),
        "resume": resume_note(Path::new(out), all.len(), pending.len()),
        "pending": pending,
        "total": all.len(),
    })
    .to_string())
}

/// Evaluates one chunk (pure; runs on Dask workers); returns the chunk's stored text (JSON
/// lines).
#[pyfunction]
pub(crate) fn experiment_chunk(py: Python<'_>, config: &str, chunk: &str) -> PyResult<String> {
    let e = experiment_of(config)?;
    let c = chunk_of(chunk)?;
    let results = py.allow_threads(|| evaluate_chunk(&e, &c)).map_err(err)?;
    Ok(Store::encode(&results))
}

/// Stores a chunk's text (from [`experiment_chunk`]) durably in the output folder, after
/// checking that it parses and that the chunk belongs to the folder's experiment.
#[pyfunction]
pub(crate) fn experiment_store(out: &str, chunk: &str, text: &str) -> PyResult<()> {
    let (store, manifest) = Store::open(Path::new(out)).map_err(err)?;
    let c = chunk_of(chunk)?;
    if !chunks(&manifest.config).contains(&c) {
        return Err(err(format!(
            "chunk {} does not belong to the experiment in {out}",
            c.file_name()
        )));
    }
    store.write_chunk_text(&c, text).map_err(err)
}

/// Writes summary, plots and reports of a finished folder; returns the path of report.html.
#[pyfunction]
pub(crate) fn experiment_finish(out: &str) -> PyResult<String> {
    let (store, manifest) = Store::open(Path::new(out)).map_err(err)?;
    // An interrupted folder is refused by `report::finish` itself, with the number of missing
    // chunks and the command that resumes it (the CLI's message).
    let outputs = report::finish(&store, &manifest, None).map_err(err)?;
    Ok(outputs.report_html.display().to_string())
}

/// Runs `work` on a scoped thread while this thread, holding the GIL only briefly, watches
/// for Python signals; on the first one (Ctrl-C) it sets `stop` and lets `work` finish.
/// Returns `work`'s value and the signal's exception, if one came.
fn run_watching_signals<R: Send>(
    py: Python<'_>,
    stop: &AtomicBool,
    work: impl FnOnce() -> R + Send,
) -> PyResult<(R, Option<PyErr>)> {
    std::thread::scope(|scope| {
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let handle = scope.spawn(move || {
            let value = work();
            let _ = done_tx.send(());
            value
        });
        let done_rx = std::sync::Mutex::new(done_rx);
        let mut signal = None;
        loop {
            let waited = py.allow_threads(|| match done_rx.lock() {
                Ok(rx) => rx.recv_timeout(Duration::from_millis(100)),
                Err(_) => Err(mpsc::RecvTimeoutError::Disconnected),
            });
            if !matches!(waited, Err(mpsc::RecvTimeoutError::Timeout)) {
                break;
            }
            if signal.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::SeqCst);
                    signal = Some(e);
                }
            }
        }
        let value = py
            .allow_threads(|| handle.join())
            .map_err(|_| err("the experiment's worker thread panicked"))?;
        Ok((value, signal))
    })
}

/// Runs the experiment on local threads (`jobs = 0`: one per CPU) and writes the outputs;
/// returns the path of report.html. `notify(message)` receives the CLI's notes: that the run
/// resumes stored chunks, or that it stopped (Ctrl-C) and how to resume.
#[pyfunction]
#[pyo3(signature = (path, out, jobs=0, notify=None, samples=None))]
pub(crate) fn experiment_run(
    py: Python<'_>,
    path: &str,
    out: &str,
    jobs: usize,
    notify: Option<&Bound<'_, PyAny>>,
    samples: Option<u64>,
) -> PyResult<String> {
    let say = |message: String| -> PyResult<()> {
        if let Some(f) = notify {
            f.call1((message,))?;
        }
        Ok(())
    };
    let e = load(path, samples)?;
    let (store, manifest) = Store::create_or_open(Path::new(out), &e, path).map_err(err)?;
    let all = chunks(&e);
    let pending = store.pending(&all).map_err(err)?.len();
    if let Some(note) = resume_note(Path::new(out), all.len(), pending) {
        say(note)?;
    }
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let options = RunOptions {
        jobs,
        stop: Some(&stop),
        ..RunOptions::default()
    };
    let (outcome, signal) = run_watching_signals(py, &stop, || run_local(&e, &store, options))?;
    let outcome = outcome.map_err(err)?;
    let elapsed = started.elapsed().as_secs_f64();
    match (outcome, signal) {
        (RunOutcome::Interrupted { done, total }, signal) => {
            say(stopped_note(done, total, elapsed))?;
            Err(signal.unwrap_or_else(|| err("the experiment stopped before finishing")))
        }
        (RunOutcome::Finished, Some(signal)) => Err(signal),
        (RunOutcome::Finished, None) => {
            let outputs = report::finish(&store, &manifest, None).map_err(err)?;
            Ok(outputs.report_html.display().to_string())
        }
    }
}
