//! # schedlab-trace
//!
//! The trace event vocabulary shared by the simulator and the runtime ([`Event`], [`Kind`]),
//! the `.trace` file format ([`file`](mod@file), specified byte by byte in `docs/traces.md`)
//! and its metadata ([`Meta::of_run`], built here for both engines), the runtime's wait-free
//! per-thread trace buffers ([`tracebuf`]), and everything computed from a trace of either
//! engine: execution intervals ([`intervals`]), the per-job counters (preemptions,
//! migrations, context switches: [`counts`], the one definition both engines report),
//! the overhead samples of [MP §IV-A] ([`overheads`]), trace statistics ([`stats`]),
//! properties of a schedule ([`check`]), the fit of measured overheads into the overhead
//! file ([`fit`]), the exports: Perfetto / Chrome trace-event JSON ([`perfetto`]) and
//! Gantt charts as SVG ([`gantt`]), and the files a run leaves behind ([`outputs`]).
//!
//! ```
//! use schedlab_trace::{file, gantt, perfetto, Event, Kind, Meta, NO_CPU};
//! let events = [
//!     Event::new(0, Kind::Release, NO_CPU, 0, 0).with_arg(0),
//!     Event::new(0, Kind::SwitchIn, 0, 0, 0),
//!     Event::new(1_000, Kind::SwitchOut, 0, 0, 0),
//!     Event::new(1_000, Kind::Complete, 0, 0, 0),
//! ];
//! let meta = Meta { engine: Some("sim".into()), cpus: Some(1), ..Meta::default() };
//! let bytes = file::write(Vec::new(), &meta, &events)?;
//! let trace = file::read(&bytes[..])?;
//! assert_eq!(trace.events, events);
//! let json = perfetto::to_perfetto_string(&trace.meta, &trace.events);
//! let svg = gantt::to_svg(&trace.meta, &trace.events, &gantt::GanttOptions::default());
//! assert!(json.contains("\"ph\":\"X\"") && svg.contains("class=\"job\""));
//! # Ok::<(), schedlab_trace::TraceError>(())
//! ```

pub mod check;
pub mod costs_fit;
pub mod counts;
pub mod event;
pub mod file;
pub mod fit;
pub mod gantt;
pub mod intervals;
pub mod metrics;
pub mod outputs;
pub mod overheads;
pub mod perfetto;
pub mod stats;
pub mod supply;
pub mod tracebuf;

pub use event::{Event, Kind, Op, NO_CPU};
pub use file::{Meta, PartMeta, TaskMeta, Trace, TraceError, TraceReader, TraceWriter};
pub use intervals::Interval;
pub use overheads::{OverheadStats, Overheads};
