//! The files a simulated or real run can leave behind from its trace — the binary `.trace`
//! file, a Perfetto / Chrome trace-event JSON and a Gantt chart (SVG) — written by one piece of
//! code for `schedlab simulate|run --trace/--perfetto/--gantt` and for Python's
//! `simulate(..., trace=, perfetto=, gantt=)` and `run(...)`, so both leave the same bytes.
//!
//! ```
//! use schedlab_trace::outputs::TraceOutputs;
//! use schedlab_trace::{Event, Kind, Meta, NO_CPU};
//! let dir = std::env::temp_dir().join(format!("schedlab-outputs-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let (svg, json) = (dir.join("g.svg"), dir.join("p.json"));
//! let outputs = TraceOutputs { trace: None, perfetto: Some(json.as_path()), gantt: Some(svg.as_path()) };
//! assert!(outputs.wanted());
//! let events = [Event::new(0, Kind::Release, NO_CPU, 0, 0).with_arg(0), Event::new(0, Kind::SwitchIn, 0, 0, 0),
//!               Event::new(5, Kind::SwitchOut, 0, 0, 0), Event::new(5, Kind::Complete, 0, 0, 0)];
//! outputs.write(&Meta { cpus: Some(1), ..Meta::default() }, &events)?;
//! assert!(std::fs::read_to_string(&svg)?.contains("<svg"));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::gantt::{to_svg, GanttOptions};
use crate::{Event, Meta, TraceError};
use std::path::Path;

/// Why an output file could not be written; the message names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// Writing the binary trace failed.
    #[error("cannot write {path}: {source}")]
    Trace {
        /// The file.
        path: String,
        /// What went wrong.
        source: TraceError,
    },
    /// Writing a text output (Perfetto JSON, Gantt SVG) failed.
    #[error("cannot write {path}: {source}")]
    Text {
        /// The file.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
}

/// Where to write each trace-derived file (`None`: not asked for).
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceOutputs<'a> {
    /// The binary trace file (read by `schedlab trace …`).
    pub trace: Option<&'a Path>,
    /// Perfetto / Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing).
    pub perfetto: Option<&'a Path>,
    /// A Gantt chart as SVG, one row per CPU.
    pub gantt: Option<&'a Path>,
}

impl TraceOutputs<'_> {
    /// Whether any file is asked for (the engine must then record the trace).
    pub fn wanted(&self) -> bool {
        self.trace.is_some() || self.perfetto.is_some() || self.gantt.is_some()
    }

    /// Writes the files asked for from one run's metadata and events.
    pub fn write(&self, meta: &Meta, events: &[Event]) -> Result<(), OutputError> {
        if let Some(path) = self.trace {
            crate::file::write_file(path, meta, events).map_err(|source| OutputError::Trace {
                path: path.display().to_string(),
                source,
            })?;
        }
        let text = |path: &Path, body: String| {
            std::fs::write(path, body).map_err(|source| OutputError::Text {
                path: path.display().to_string(),
                source,
            })
        };
        if let Some(path) = self.perfetto {
            text(path, crate::perfetto::to_perfetto_string(meta, events))?;
        }
        if let Some(path) = self.gantt {
            text(path, to_svg(meta, events, &GanttOptions::default()))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, NO_CPU};

    #[test]
    fn writes_what_is_asked_and_names_the_file_it_cannot_write() {
        let dir = std::env::temp_dir().join(format!("schedlab-outputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let events = [
            Event::new(0, Kind::Release, NO_CPU, 0, 0).with_arg(0),
            Event::new(0, Kind::SwitchIn, 0, 0, 0),
            Event::new(7, Kind::SwitchOut, 0, 0, 0),
            Event::new(7, Kind::Complete, 0, 0, 0),
        ];
        let meta = Meta {
            cpus: Some(1),
            ..Meta::default()
        };
        let trace = dir.join("t.trace");
        let none = TraceOutputs::default();
        assert!(!none.wanted());
        none.write(&meta, &events).unwrap();
        let only_trace = TraceOutputs {
            trace: Some(&trace),
            ..TraceOutputs::default()
        };
        only_trace.write(&meta, &events).unwrap();
        assert_eq!(crate::file::read_file(&trace).unwrap().events, events);
        assert!(!dir.join("p.json").exists());
        let missing = dir.join("no-such-folder").join("g.svg");
        let bad = TraceOutputs {
            gantt: Some(&missing),
            ..TraceOutputs::default()
        };
        let message = bad.write(&meta, &events).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("cannot write {}", missing.display())),
            "{message}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
