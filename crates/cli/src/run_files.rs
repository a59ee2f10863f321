//! The files a run can leave behind, the same for `simulate` and `run`: the per-job CSV, and
//! the trace-derived files (binary trace, Perfetto JSON, Gantt SVG) that
//! `schedlab_trace::outputs` writes for the CLI and Python alike.

use anyhow::{Context, Result};
use schedlab_trace::outputs::TraceOutputs;
use schedlab_trace::{Event, Meta};
use std::path::PathBuf;

/// Where to write each file (none: not asked for).
pub(crate) struct RunFiles<'a> {
    pub(crate) jobs_csv: &'a Option<PathBuf>,
    pub(crate) trace: &'a Option<PathBuf>,
    pub(crate) perfetto: &'a Option<PathBuf>,
    pub(crate) gantt: &'a Option<PathBuf>,
}

impl RunFiles<'_> {
    fn trace_outputs(&self) -> TraceOutputs<'_> {
        TraceOutputs {
            trace: self.trace.as_deref(),
            perfetto: self.perfetto.as_deref(),
            gantt: self.gantt.as_deref(),
        }
    }

    /// Whether any file needs the trace (the engine then records it).
    pub(crate) fn need_trace(&self) -> bool {
        self.trace_outputs().wanted()
    }

    /// Writes the files asked for; `jobs_csv` renders the CSV only if it is asked for.
    pub(crate) fn write(
        &self,
        meta: &Meta,
        trace: &[Event],
        jobs_csv: impl FnOnce() -> String,
    ) -> Result<()> {
        if let Some(path) = self.jobs_csv {
            std::fs::write(path, jobs_csv())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        self.trace_outputs().write(meta, trace)?;
        Ok(())
    }
}
