//! (family module; tests are added by their own files)

use crate::test::SchedTest;

/// The tests of this family, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    Vec::new()
}
