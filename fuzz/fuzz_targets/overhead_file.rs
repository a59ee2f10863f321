//! Any bytes, read as an overhead file (TOML or JSON): an error or a value, never a panic;
//! whatever parses writes back to the same file and evaluates without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_model::overheads::{CpmdKind, OverheadFile, OverheadName, Stat};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let parsed = OverheadFile::parse_toml(text).or_else(|_| {
        serde_json::from_str(text)
            .map_err(|_| ())
            .and_then(|v| OverheadFile::from_value(&v).map_err(|_| ()))
    });
    if let Ok(file) = parsed {
        let printed = file.to_toml();
        let again = OverheadFile::parse_toml(&printed).expect("reading a written file");
        assert_eq!(again, file);
        for arch in file.arch_names() {
            for name in OverheadName::ALL {
                for x in [0, 1, 1000, u64::MAX] {
                    let _ = file.value(arch, name, Stat::Avg, x);
                    let _ = file.value(arch, name, Stat::Max, x);
                }
            }
        }
        for kind in CpmdKind::ALL {
            let _ = file.cpmd(kind, Stat::Max, u64::MAX);
        }
    }
});
