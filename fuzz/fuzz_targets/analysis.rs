//! Every test on arbitrary task parameters (any u64 values with 0 < C ≤ D, T > 0) and 1–64
//! CPUs: a verdict, never a panic (fuzz builds check arithmetic overflow). Every "schedulable"
//! must respect U ≤ m.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_analysis::{analyze, registry, Params, Priorities, System};

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let m = u32::from(data[0] % 64) + 1;
    let scale = data[1] % 4; // mix tiny, medium and huge magnitudes
    let mut params = Vec::new();
    for chunk in data[2..].chunks_exact(12).take(24) {
        let word = |i: usize| u64::from(u32::from_le_bytes([chunk[i], chunk[i + 1], chunk[i + 2], chunk[i + 3]]));
        let widen = |v: u64| match scale {
            0 => v % 64,
            1 => v,
            2 => v << 20,
            _ => v << 31,
        };
        let (t, d, c) = (widen(word(0)).max(1), widen(word(4)).max(1), widen(word(8)).max(1));
        let c = c.min(d);
        params.push(Params { c, d, t, prio: Some(chunk[0].into()) });
    }
    for priorities in [Priorities::Dm, Priorities::Given] {
        let Ok(sys) = System::from_params(params.clone(), m, priorities) else { return };
        let u: f64 = params.iter().map(|p| p.c as f64 / p.t as f64).sum();
        for test in registry::all_for(m) {
            let v = analyze(test.as_ref(), &sys);
            if v.is_schedulable() {
                assert!(u <= f64::from(m) * (1.0 + 1e-9), "{} accepted U = {u} > m = {m}", test.name());
            }
        }
    }
});
