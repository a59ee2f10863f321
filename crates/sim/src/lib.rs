//! # schedlab-sim
//!
//! The discrete-event simulator (being built; see `docs/simulation.md` when it lands).
