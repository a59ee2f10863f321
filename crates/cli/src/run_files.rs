//! The files a run can leave behind, the same for `simulate` and `run`: the per-job CSV, the
//! binary trace, a Perfetto/Chrome trace-event JSON and a Gantt chart (SVG).

use anyhow::{Context, Result};
use schedlab_trace::gantt::{to_svg, GanttOptions};
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
    /// Whether any file needs the trace (the engine then records it).
    pub(crate) fn need_trace(&self) -> bool {
        self.trace.is_some() || self.perfetto.is_some() || self.gantt.is_some()
    }

    /// Writes the files asked for; `jobs_csv` renders the CSV only if it is asked for.
    pub(crate) fn write(
        &self,
        meta: &Meta,
        trace: &[Event],
        jobs_csv: impl FnOnce() -> String,
    ) -> Result<()> {
        let write = |path: &PathBuf, text: String| {
            std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
        };
        if let Some(path) = self.jobs_csv {
            write(path, jobs_csv())?;
        }
        if let Some(path) = self.trace {
            schedlab_trace::file::write_file(path, meta, trace)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        if let Some(path) = self.perfetto {
            write(
                path,
                schedlab_trace::perfetto::to_perfetto_string(meta, trace),
            )?;
        }
        if let Some(path) = self.gantt {
            write(path, to_svg(meta, trace, &GanttOptions::default()))?;
        }
        Ok(())
    }
}
