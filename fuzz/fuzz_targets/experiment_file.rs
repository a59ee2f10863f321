//! Any bytes, read as an experiment file (`schedlab experiment FILE --check`): a list of
//! problems or a valid experiment, never a panic or an abort, and no allocation sized by a
//! number in the file beyond the documented limits. A valid experiment is split into its
//! chunks and hashed, as `--check` and a run do.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // An `overheads = "/dev/zero"` would make the parser read an endless file: reading the
    // files an experiment names is not what this target tests, so such inputs are left out.
    if ["/dev", "/proc", "/sys"].iter().any(|p| text.contains(p)) {
        return;
    }
    let base = Path::new("/nonexistent/schedlab-fuzz");
    if let Ok(experiment) = schedlab_exp::schema::parse(text, "fuzz.toml", "fuzz", base) {
        let _ = schedlab_exp::chunks(&experiment);
        let _ = experiment.config_hash();
    }
});
