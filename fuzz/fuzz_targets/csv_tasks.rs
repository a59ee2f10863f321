//! Any bytes, read as a CSV task list: an error or an import, never a panic; what imports
//! writes back as CSV and reads to the same task set.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_model::interop::csv;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(imported) = csv::import(text) {
        let written = csv::to_csv(&imported.file).expect("writing an imported set");
        let again = csv::import(&written).expect("reading a written set");
        assert_eq!(again.file, imported.file);
    }
});
