//! `schedlab trace costs` as a user drives it, on a synthetic runtime trace whose overheads are
//! known exactly (every job's spans fixed): the direct mapping returns them, the refinement
//! converges, errors name the file.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::{schedlab, temp_file, text};
use schedlab_model::costs::{CostName, CostsFile};
use schedlab_trace::{file, Event, Kind, Meta, TaskMeta};
use serde_json::{json, Value};
use std::path::PathBuf;

/// A message-passing runtime trace on 2 CPUs (DSP 0, client 1): three tasks (10, 20, 40 ms,
/// 0.5 ms each, first released at 0, 1, 2 ms), 1 s; every job: Δev 20 µs, Δrel 3 µs,
/// Δsch 2 µs, Δcxs 5 µs, Δreq 1.5 µs, Δdsp 4 µs.
/// Each test writes its own file (`name`): the tests of this binary run in parallel and share
/// one scratch directory.
fn mp_trace(engine: &str, name: &str) -> PathBuf {
    let periods = [10_000_000u64, 20_000_000, 40_000_000];
    let mut ev = Vec::new();
    for (i, &p) in periods.iter().enumerate() {
        let task = i as u32;
        for j in 0..1_000_000_000 / p {
            let r = u64::from(task) * 1_000_000 + j * p;
            let t0 = r + 20_000;
            ev.push(Event::new(t0, Kind::Release, 0, task, j).with_arg(r));
            ev.push(Event::new(t0 + 3_000, Kind::ReleaseEnd, 0, task, j));
            let sb = t0 + 3_000;
            ev.push(Event::new(sb, Kind::SchedBegin, 1, u32::MAX, 0));
            ev.push(Event::new(sb + 2_000, Kind::SchedEnd, 1, u32::MAX, 0).with_arg(1));
            let start = sb + 7_000;
            let end = start + 500_000;
            ev.push(Event::new(start, Kind::SwitchIn, 1, task, j));
            ev.push(Event::new(end, Kind::SwitchOut, 1, task, j));
            ev.push(Event::new(end, Kind::Complete, 1, task, j));
            ev.push(Event::new(end, Kind::MessageSend, 1, task, j).with_arg(1));
            ev.push(Event::new(end + 1_500, Kind::MessageReceive, 0, task, j).with_arg(1));
            ev.push(Event::new(end + 1_500, Kind::DspBegin, 0, task, j).with_arg(1));
            ev.push(Event::new(end + 5_500, Kind::DspEnd, 0, u32::MAX, 0));
        }
    }
    ev.sort_by_key(|e| e.time);
    let mut meta = Meta {
        engine: Some(engine.into()),
        cpus: Some(2),
        policy: Some("gedf".into()),
        tasks: periods
            .iter()
            .map(|&p| TaskMeta {
                name: None,
                deadline_ns: Some(p),
                split: Vec::new(),
                ..Default::default()
            })
            .collect(),
        ..Meta::default()
    };
    meta.extra
        .insert("architecture".into(), json!("message-passing"));
    meta.extra
        .insert("duration_ns".into(), json!(1_000_000_000u64));
    let bytes = file::write(Vec::new(), &meta, &ev).unwrap();
    let path = temp_file("trace-costs", &format!("{name}.trace"), "");
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn the_direct_mapping_returns_the_known_costs() {
    let trace = mp_trace("runtime", "mp-runtime");
    let out = temp_file("trace-costs", "direct.toml", "");
    let o = schedlab(&[
        "trace",
        "costs",
        trace.to_str().unwrap(),
        "--iterations",
        "0",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let f = CostsFile::read(&out).unwrap();
    let c = f.for_arch("message-passing");
    // Δev, Δcxs, Δreq as measured; Δsch minus the slot's cache line (100 ns by default).
    assert_eq!(c.get(CostName::TimerIrq), 20_000);
    assert_eq!(c.get(CostName::ContextSwitch), 5_000);
    assert_eq!(c.get(CostName::DspDequeue), 1_500);
    assert_eq!(c.get(CostName::Schedule), 1_900);
    assert_eq!(
        (c.get(CostName::NoisePpm), c.get(CostName::NoiseMax)),
        (0, 0)
    );
    assert!(f
        .meta
        .get("traces")
        .is_some_and(|t| t.contains("mp-runtime.trace")));
}

#[test]
fn the_refinement_converges_and_json_has_every_part() {
    let trace = mp_trace("runtime", "mp-runtime-refined");
    let t = trace.to_str().unwrap();
    let o = schedlab(&["trace", "costs", t, "--json", "--check", t]);
    assert!(o.status.success(), "{}", text(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["converged"]["message-passing"], json!(true), "{v}");
    let its = v["iterations"].as_array().unwrap();
    let last = its.last().unwrap();
    assert!(last["worst_relative"].as_f64().unwrap() <= 0.011, "{last}");
    // The costs read back; the model with them meets the trace's means (it was fitted to them).
    let f = CostsFile::from_value(&v["costs"]).unwrap();
    assert!(f.arch.contains_key("message-passing"));
    let sch = &v["check"][0]["overheads"]["schedule"];
    let (meas, model) = (
        sch["measured_avg_ns"].as_f64().unwrap(),
        sch["model_avg_ns"].as_f64().unwrap(),
    );
    assert!((model - meas).abs() <= 0.011 * meas, "{sch}");
    assert_eq!(
        v["measured"]["message-passing"]["request"]["max_ns"],
        json!(1_500)
    );
}

#[test]
fn simulated_and_missing_traces_are_refused() {
    let sim = mp_trace("sim", "mp-sim");
    let o = schedlab(&["trace", "costs", sim.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("not a runtime trace"), "{}", text(&o));
    let o = schedlab(&["trace", "costs", "/nonexistent/x.trace"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("/nonexistent/x.trace"), "{}", text(&o));
    let o = schedlab(&["trace", "costs", "x.trace", "--iterations", "51"]);
    assert!(!o.status.success());
}
