//! Any bytes, read as a trace file (the input of `schedlab trace stats|gantt|perfetto`): an
//! error or a trace, never a panic or an abort, and no allocation sized by a length field of
//! the file beyond the documented limits (libFuzzer's `-malloc_limit_mb` turns one into a
//! crash). Whatever reads writes back to the same trace, and its statistics, Gantt chart and
//! Perfetto export are computed without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_trace::file::{read, write, TraceReader};
use schedlab_trace::gantt::{to_svg, GanttOptions, Rows};

fuzz_target!(|data: &[u8]| {
    // The recovery mode (`allow_partial_tail`) reads every file the strict mode reads, and more.
    let lenient = TraceReader::new(data).and_then(|r| r.allow_partial_tail(true).read_all());
    let Ok(trace) = read(data) else { return };
    assert!(lenient.is_ok(), "the lenient reader rejects a file the strict one reads");
    let bytes = write(Vec::new(), &trace.meta, &trace.events).expect("writing a read trace");
    let again = read(bytes.as_slice()).expect("reading a written trace");
    assert_eq!(again, trace);
    let _ = schedlab_trace::stats::analyze(&trace.meta, &trace.events);
    let _ = schedlab_trace::perfetto::to_perfetto_string(&trace.meta, &trace.events);
    for rows in [Rows::PerCpu, Rows::PerTask] {
        let opts = GanttOptions {
            rows,
            ..GanttOptions::default()
        };
        let _ = to_svg(&trace.meta, &trace.events, &opts);
    }
});
