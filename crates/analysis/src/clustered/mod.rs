//! (family module; tests are added by their own files)

use crate::test::SchedTest;

/// The clustered test for a parametric name such as `cedf-k4`.
pub(crate) fn parse(_name: &str) -> Option<Box<dyn SchedTest>> {
    None
}
