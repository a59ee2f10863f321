//! Experiments for Python (`schedlab.experiment`): the same validation, chunk function and
//! durable store as `schedlab experiment`, split so that a Dask driver can hand chunks to
//! workers (`experiment_chunk`, pure) and write what they return itself (`experiment_store`).

use crate::err;
use pyo3::prelude::*;
use schedlab_exp::{chunks, evaluate_chunk, report, run_local, schema, Chunk, Experiment};
use schedlab_exp::{RunOptions, RunOutcome, Store};
use serde_json::json;
use std::path::Path;

fn experiment_of(config: &str) -> PyResult<Experiment> {
    serde_json::from_str(config).map_err(|e| err(format!("experiment config: {e}")))
}

fn chunk_of(text: &str) -> PyResult<Chunk> {
    serde_json::from_str(text).map_err(|e| err(format!("chunk: {e}")))
}

/// Validates the file, creates or reopens the output folder; returns JSON text
/// `{"config": "<experiment JSON text>", "pending": [chunk, …], "total": N}`.
#[pyfunction]
pub(crate) fn experiment_prepare(path: &str, out: &str) -> PyResult<String> {
    let e = schema::load(Path::new(path)).map_err(err)?;
    let (store, _) = Store::create_or_open(Path::new(out), &e, path).map_err(err)?;
    let all = chunks(&e);
    let pending = store.pending(&all).map_err(err)?;
    Ok(json!({
        "config": e.canonical_json(),
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
    let left = store.pending(&chunks(&manifest.config)).map_err(err)?.len();
    if left > 0 {
        return Err(err(format!("{out}: {left} chunks are not finished yet")));
    }
    let outputs = report::finish(&store, &manifest, None).map_err(err)?;
    Ok(outputs.report_html.display().to_string())
}

/// Runs the experiment on local threads (`jobs = 0`: one per CPU) and writes the outputs;
/// returns the path of report.html.
#[pyfunction]
#[pyo3(signature = (path, out, jobs=0))]
pub(crate) fn experiment_run(
    py: Python<'_>,
    path: &str,
    out: &str,
    jobs: usize,
) -> PyResult<String> {
    let e = schema::load(Path::new(path)).map_err(err)?;
    let (store, manifest) = Store::create_or_open(Path::new(out), &e, path).map_err(err)?;
    let outcome = py
        .allow_threads(|| {
            run_local(
                &e,
                &store,
                RunOptions {
                    jobs,
                    ..RunOptions::default()
                },
            )
        })
        .map_err(err)?;
    if outcome != RunOutcome::Finished {
        return Err(err("the experiment stopped before finishing"));
    }
    let outputs = report::finish(&store, &manifest, None).map_err(err)?;
    Ok(outputs.report_html.display().to_string())
}
