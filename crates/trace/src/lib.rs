//! # schedlab-trace
//!
//! The trace event vocabulary shared by the simulator and the runtime ([`Event`], [`Kind`]).

pub mod event;

pub use event::{Event, Kind, NO_CPU};
