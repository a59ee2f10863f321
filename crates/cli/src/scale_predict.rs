//! The scaling model as the calibration's predictor (`trace costs`).

use schedlab_model::costs::CostsFile;
use schedlab_trace::costs_fit::{CalTrace, Predicted};

/// The model's overheads for `trace` with `costs`.
pub(crate) fn predict(
    _costs: &CostsFile,
    _trace: &CalTrace,
    _seed: u64,
) -> Result<Predicted, String> {
    Err("the scaling model is not available in this build".into())
}
