//! Any bytes, read as a SimSo XML configuration: an error or an import, never a panic; what
//! imports is a valid task file that prints and reads back to the same set, with a policy.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_model::file::{parse_str, to_string, Format};
use schedlab_model::interop::simso;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(imported) = simso::import(text) {
        assert!(imported.policy.is_some());
        let printed = to_string(&imported.file, Format::Toml).expect("printing an import");
        let again = parse_str(&printed, Format::Toml).expect("reading a printed import");
        assert_eq!(again, imported.file);
    }
});
