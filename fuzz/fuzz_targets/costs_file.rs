//! Any bytes, read as a costs file (TOML or JSON): an error or a value, never a panic;
//! whatever parses writes back to the same file and gives every architecture's costs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_model::costs::{CostName, CostsFile, ARCHS, MAX_COST_NS, MAX_PER_MILLION};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let parsed = CostsFile::from_toml_str(text).or_else(|_| CostsFile::from_json_str(text));
    if let Ok(file) = parsed {
        let printed = file.to_toml();
        let again = CostsFile::from_toml_str(&printed).expect("reading a written file");
        assert_eq!(again, file);
        assert!(file.arch.len() <= ARCHS.len());
        for arch in ARCHS.iter().chain(["unknown"].iter()) {
            for (name, value) in file.for_arch(arch).iter() {
                let bound = match name {
                    CostName::NoisePpm => MAX_PER_MILLION,
                    _ => MAX_COST_NS,
                };
                assert!(value <= bound, "{arch} {name} = {value}");
            }
        }
    }
});
