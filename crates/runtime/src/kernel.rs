//! Kernel baselines (placeholder while being written).
use crate::config::{RtTask, RunConfig};
use crate::error::RuntimeError;
use crate::run::RunResult;

/// Runs the kernel baselines.
pub(crate) fn run_kernel(
    _t: &[RtTask],
    _c: &RunConfig,
    _s: std::time::Instant,
) -> Result<RunResult, RuntimeError> {
    Err(RuntimeError::InvalidConfig {
        field: "arch",
        message: "kernel baselines: not built yet".into(),
    })
}
