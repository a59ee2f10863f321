//! Any bytes, read as a JSON or TOML task file, or as a time: an error or a value, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_model::file::{parse_str, to_string, Format};
use schedlab_model::time::parse_ns;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = parse_ns(text);
    for format in [Format::Json, Format::Toml] {
        if let Ok(file) = parse_str(text, format) {
            // Whatever parses must print and read back to the same task set.
            let printed = to_string(&file, Format::Json).expect("printing a parsed file");
            let again = parse_str(&printed, Format::Json).expect("reading a printed file");
            assert_eq!(again, file);
        }
    }
});
