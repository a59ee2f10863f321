use super::*;
use crate::{Event, Kind, Meta, TaskMeta, NO_CPU};
use proptest::prelude::*;
use serde_json::json;

/// Per-job spans of a synthetic runtime trace (ns).
#[derive(Clone, Copy)]
struct Spans {
    ev: u64,
    rel: u64,
    sch: u64,
    cxs: u64,
    req: u64,
    dsp: u64,
}

/// A runtime trace of `arch` on `cpus` CPUs: task i (period `periods[i]`, execution `exec`)
/// first released at i ms, runs `jobs` jobs on CPU `cpus − 1 − (i mod 2)`, each with exactly the spans of `spans`
/// (`spans_of(task, job)` may change one job's). Events in time order.
fn synthetic(
    arch: &str,
    cpus: u32,
    periods: &[u64],
    exec: u64,
    jobs: u64,
    spans_of: impl Fn(u32, u64) -> Spans,
) -> (Meta, Vec<Event>) {
    let mut ev = Vec::new();
    for (i, &p) in periods.iter().enumerate() {
        let task = i as u32;
        let cpu = cpus - 1 - (task % 2).min(cpus - 1);
        for j in 0..jobs {
            let s = spans_of(task, j);
            // Tasks 1 ms apart, so that no two jobs' spans overlap on a CPU.
            let r = u64::from(task) * 1_000_000 + j * p;
            let t0 = r + s.ev;
            ev.push(Event::new(t0, Kind::Release, NO_CPU, task, j).with_arg(r));
            ev.push(Event::new(t0 + s.rel, Kind::ReleaseEnd, cpu, task, j));
            let sb = t0 + s.rel;
            ev.push(Event::new(sb, Kind::SchedBegin, cpu, u32::MAX, 0));
            ev.push(Event::new(sb + s.sch, Kind::SchedEnd, cpu, u32::MAX, 0).with_arg(1));
            let start = sb + s.sch + s.cxs;
            ev.push(Event::new(start, Kind::SwitchIn, cpu, task, j));
            ev.push(Event::new(start + exec, Kind::SwitchOut, cpu, task, j));
            ev.push(Event::new(start + exec, Kind::Complete, cpu, task, j));
            if s.req > 0 {
                let send = start + exec;
                ev.push(Event::new(send, Kind::MessageSend, cpu, task, j).with_arg(1));
                ev.push(Event::new(send + s.req, Kind::MessageReceive, 0, task, j).with_arg(1));
                ev.push(Event::new(send + s.req, Kind::DspBegin, 0, task, j).with_arg(1));
                ev.push(Event::new(
                    send + s.req + s.dsp,
                    Kind::DspEnd,
                    0,
                    u32::MAX,
                    0,
                ));
            }
        }
    }
    ev.sort_by_key(|e| e.time);
    let mut meta = Meta {
        engine: Some("runtime".into()),
        cpus: Some(cpus),
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
    meta.extra.insert("architecture".into(), json!(arch));
    (meta, ev)
}

const SPANS: Spans = Spans {
    ev: 20_000,
    rel: 3_000,
    sch: 2_000,
    cxs: 5_000,
    req: 1_500,
    dsp: 4_000,
};

#[test]
fn log2_ceil_by_hand() {
    let got: Vec<u64> = [0, 1, 2, 3, 4, 5, 8, 9, 1024, 1025].map(log2_ceil).to_vec();
    assert_eq!(got, vec![0, 0, 1, 2, 2, 3, 3, 4, 10, 11]);
}

#[test]
fn tasks_are_read_back_from_the_trace() {
    let (meta, ev) = synthetic(
        "partitioned",
        2,
        &[10_000_000, 25_000_000],
        1_234_000,
        5,
        |_, _| SPANS,
    );
    let ts = reconstruct_tasks("t", &meta, &ev).unwrap();
    let t = ts.tasks();
    assert_eq!(t.len(), 2);
    assert_eq!(
        (
            t[0].period.as_ns(),
            t[0].wcet.as_ns(),
            t[0].deadline.as_ns(),
            t[0].cpu
        ),
        (10_000_000, 1_234_000, 10_000_000, Some(1))
    );
    assert_eq!((t[0].offset.as_ns(), t[1].offset.as_ns()), (0, 1_000_000));
    assert_eq!((t[1].period.as_ns(), t[1].cpu), (25_000_000, Some(0)));
    // Not partitioned: no CPU kept.
    let (meta, ev) = synthetic("global-lock", 2, &[10_000_000], 1_000, 3, |_, _| SPANS);
    assert_eq!(
        reconstruct_tasks("t", &meta, &ev).unwrap().tasks()[0].cpu,
        None
    );
    // One release only: no period.
    let (meta, ev) = synthetic("global-lock", 2, &[10_000_000], 1_000, 1, |_, _| SPANS);
    let err = reconstruct_tasks("t.trace", &meta, &ev).unwrap_err();
    assert!(
        err.to_string()
            .contains("t.trace: task 0: fewer than two releases"),
        "{err}"
    );
}

/// A trace that records what each task was given (period, WCET, offset: `Meta::of_run`) is
/// read by those, not by its events: sporadic gaps longer than the period, jobs that ran
/// shorter than their WCET, a task released once or never.
#[test]
fn the_given_parameters_win_over_the_events() {
    // Task 0 released every 12 ms (sporadic, period 10 ms) running 1.234 ms of a 2 ms WCET;
    // task 1 released once; task 2 never (its events are dropped).
    let (mut meta, ev) = synthetic(
        "partitioned",
        2,
        &[12_000_000, 25_000_000, 30_000_000],
        1_234_000,
        3,
        |_, _| SPANS,
    );
    let ev: Vec<Event> = ev
        .into_iter()
        .filter(|e| e.task != 2 && !(e.task == 1 && e.seq > 0))
        .collect();
    for (t, (period, wcet, offset)) in meta.tasks.iter_mut().zip([
        (10_000_000, 2_000_000, 0),
        (25_000_000, 1_500_000, 1_000_000),
        (30_000_000, 1_000_000, 2_000_000),
    ]) {
        (t.period_ns, t.wcet_ns, t.offset_ns) = (Some(period), Some(wcet), Some(offset));
        t.deadline_ns = Some(period);
    }
    let ts = reconstruct_tasks("t", &meta, &ev).unwrap();
    let got: Vec<_> = ts
        .tasks()
        .iter()
        .map(|t| {
            (
                t.period.as_ns(),
                t.wcet.as_ns(),
                t.deadline.as_ns(),
                t.offset.as_ns(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (10_000_000, 2_000_000, 10_000_000, 0),
            (25_000_000, 1_500_000, 25_000_000, 1_000_000),
            (30_000_000, 1_000_000, 30_000_000, 2_000_000),
        ]
    );
}

#[test]
fn direct_mapping_returns_the_known_costs() {
    // message-passing, m = 2 (one client), n = 3: the DSP's dequeue is Δreq itself, schedule
    // Δsch minus the slot's cache line; the DSP handler is Δdsp minus one queue operation at
    // ⌈log₂ 3⌉ = 2, one check, a link and the cache line.
    let (meta, ev) = synthetic(
        "message-passing",
        2,
        &[10_000_000, 20_000_000, 40_000_000],
        500_000,
        8,
        |_, _| SPANS,
    );
    let t = CalTrace::from_trace("mp.trace", &meta, &ev).unwrap();
    assert_eq!((t.arch.as_str(), t.m, t.n()), ("message-passing", 2, 3));
    let f = direct(&[t]).unwrap();
    let c = f.for_arch("message-passing");
    assert_eq!(c.get(CostName::TimerIrq), 20_000);
    assert_eq!(c.get(CostName::Schedule), 2_000 - 100);
    assert_eq!(c.get(CostName::ContextSwitch), 5_000);
    assert_eq!(c.get(CostName::DspDequeue), 1_500);
    assert_eq!(
        c.get(CostName::DspHandler),
        4_000 - (150 + 25 * 2 + 10 + 100 + 100)
    );
    assert_eq!(
        c.get(CostName::Release),
        3_000 - (3 * (150 + 25 * 2) + 2 * 10 + 100 + 100 + 300)
    );
    assert_eq!(
        (c.get(CostName::NoisePpm), c.get(CostName::NoiseMax)),
        (0, 0)
    );
    // Untouched costs keep their defaults.
    assert_eq!(
        c.get(CostName::LockHandoff),
        CostName::LockHandoff.default_value()
    );
    // global-lock: the lock and the link come off Δsch.
    let (meta, ev) = synthetic(
        "global-lock",
        2,
        &[10_000_000, 20_000_000],
        500_000,
        8,
        |_, _| SPANS,
    );
    let f = direct(&[CalTrace::from_trace("gl", &meta, &ev).unwrap()]).unwrap();
    assert_eq!(
        f.for_arch("global-lock").get(CostName::Schedule),
        2_000 - (50 + 100)
    );
}

#[test]
fn noise_by_hand() {
    // schedule: 10 µs ×4 and 100 µs: median 10 µs, one excess of 90 µs ≥ the 20 µs floor:
    // 200,000 ppm, range [20, 90] µs, and a single spike's mean (90 µs, the top of the range)
    // only the uniform approaches.
    let us = |v: &[u64]| v.iter().map(|x| x * 1_000).collect::<Vec<_>>();
    let mut o = Overheads::default();
    o.samples.insert("schedule", us(&[10, 10, 100, 10, 10]));
    assert_eq!(
        noise_of([&o], &["schedule"], NOISE_FLOOR_NS),
        NoiseFit {
            ppm: 200_000,
            min: 20_000,
            max: 90_000,
            shape: 0
        }
    );
    // Another overhead with excesses 15 µs (below the floor) and 25 µs: 2 spikes in 10
    // samples; mean 57.5 µs on [20, 90] µs lies between the log-uniform's 46.5 and the
    // uniform's 55 µs — still heavier than any α ≥ 0.01: the uniform.
    o.samples.insert("release", us(&[5, 5, 20, 5, 30]));
    let f = noise_of([&o], &["schedule", "release"], NOISE_FLOOR_NS);
    assert_eq!((f.ppm, f.min, f.max, f.shape), (200_000, 20_000, 90_000, 0));
    // Overheads not named are not looked at.
    assert_eq!(
        noise_of([&o], &["ipi"], NOISE_FLOOR_NS),
        NoiseFit::default()
    );
    // No spike: no noise.
    let mut flat = Overheads::default();
    flat.samples.insert("schedule", us(&[10, 10, 10, 29]));
    assert_eq!(
        noise_of([&flat], &["schedule"], NOISE_FLOOR_NS),
        NoiseFit::default()
    );
    // A spike enters the noise and the mean of its overhead (the refinement takes the noise's
    // mean off again).
    let (meta, ev) = synthetic("global-lock", 2, &[10_000_000], 500_000, 10, |_, j| Spans {
        cxs: if j == 4 { 105_000 } else { 5_000 },
        ..SPANS
    });
    let c = direct(&[CalTrace::from_trace("gl", &meta, &ev).unwrap()]).unwrap();
    let c = c.for_arch("global-lock");
    assert_eq!(c.get(CostName::ContextSwitch), 15_000);
    // One spike of excess 100 µs among 10 samples each of Δrel, Δsch, Δcxs, Δreq, Δdsp (the
    // path overheads; Δev and Δipi are the delivery noises'): ⌈10⁶ / 50⌉ = 20,000 ppm.
    assert_eq!(
        (
            c.get(CostName::NoisePpm),
            c.get(CostName::NoiseMin),
            c.get(CostName::NoiseMax)
        ),
        (20_000, NOISE_FLOOR_NS, 100_000)
    );
    assert_eq!(c.get(CostName::TimerNoisePpm), 0);
    assert_eq!(c.get(CostName::IpiNoisePpm), 0);
}

#[test]
fn pareto_shape_matches_the_spikes_mean() {
    // Spikes drawn from a Pareto of index 1.5 on [20 µs, 5 ms] by its inverse distribution
    // function at evenly spaced quantiles: the fitted index is 1.5 within 2 %.
    let (lo, hi, alpha) = (20_000f64, 5_000_000f64, 1.5f64);
    let r = (lo / hi).powf(alpha);
    let spikes: Vec<u64> = (0..20_000)
        .map(|i| {
            let u = (f64::from(i) + 0.5) / 20_000.0;
            (lo * (1.0 - u * (1.0 - r)).powf(-1.0 / alpha)).round() as u64
        })
        .collect();
    // Each spike as the excess of a sample over a median of 0 (most samples are 0).
    let mut samples = vec![0u64; 60_000];
    samples.extend(&spikes);
    let mut o = Overheads::default();
    o.samples.insert("ipi", samples);
    let f = noise_of([&o], &["ipi"], NOISE_FLOOR_NS);
    assert_eq!(f.ppm, 250_000);
    assert_eq!(f.min, 20_000);
    // The largest spike is the quantile (20,000 − ½)/20,000: 4.70 ms.
    assert!(f.max > 4_600_000 && f.max <= 5_000_000, "{f:?}");
    assert!(
        (1_470_000..=1_530_000).contains(&f.shape),
        "fitted index {} ×10⁻⁶",
        f.shape
    );
}

#[test]
fn simulated_traces_and_missing_metadata_are_refused() {
    let (mut meta, ev) = synthetic("global-lock", 2, &[10_000_000], 1_000, 3, |_, _| SPANS);
    meta.engine = Some("sim".into());
    let err = CalTrace::from_trace("s.trace", &meta, &ev).unwrap_err();
    assert!(matches!(err, CostsFitError::NotRuntime { .. }), "{err}");
    meta.engine = Some("runtime".into());
    meta.extra.remove("architecture");
    let err = CalTrace::from_trace("s.trace", &meta, &ev).unwrap_err();
    assert_eq!(err.to_string(), "s.trace: metadata `architecture`: missing");
}

/// A linear "model": each primary overhead's mean is `slope · cost + base` (base from the
/// other costs), its max twice that, `count` samples.
fn linear(slope: f64, base: f64) -> impl FnMut(&CostsFile, &CalTrace) -> Result<Predicted, String> {
    move |costs: &CostsFile, t: &CalTrace| {
        let c = costs.for_arch(&t.arch);
        Ok(PRIMARY
            .iter()
            .filter(|(o, _)| t.overheads.samples.contains_key(o))
            .map(|&(o, cost)| {
                let avg = slope * c.get(cost) as f64 + base;
                (
                    o.to_string(),
                    Pooled {
                        count: 10,
                        avg_ns: avg,
                        max_ns: (2.0 * avg) as u64,
                    },
                )
            })
            .collect())
    }
}

#[test]
fn refinement_reaches_the_fixed_point_of_a_linear_model() {
    let (meta, ev) = synthetic(
        "global-lock",
        2,
        &[10_000_000, 20_000_000],
        500_000,
        8,
        |_, _| SPANS,
    );
    let traces = [CalTrace::from_trace("gl", &meta, &ev).unwrap()];
    let start = direct(&traces).unwrap();
    // Δsch = 3 · schedule + 400 must reach the measured 2,000 ns: schedule = 1,600 / 3 ≈ 533.
    let r = refine(start, &traces, Refine::default(), linear(3.0, 400.0)).unwrap();
    assert_eq!(r.converged.get("global-lock"), Some(&true));
    let s = r.costs.for_arch("global-lock").get(CostName::Schedule);
    assert!((532..=534).contains(&s), "schedule {s}");
    let c = r.costs.for_arch("global-lock").get(CostName::ContextSwitch);
    assert!((1_532..=1_534).contains(&c), "context_switch {c}");
    let last = r.iterations.last().unwrap();
    assert!(last.worst_relative() <= 0.01, "{last:?}");
    assert_eq!(r.iterations[0].index, 0);
}

#[test]
fn refinement_stops_at_zero_when_the_other_terms_exceed_the_measurement() {
    let (meta, ev) = synthetic("global-lock", 2, &[10_000_000], 500_000, 4, |_, _| SPANS);
    let traces = [CalTrace::from_trace("gl", &meta, &ev).unwrap()];
    // The base alone (50 µs) exceeds every measured mean: costs go to 0, no convergence.
    let r = refine(
        direct(&traces).unwrap(),
        &traces,
        Refine::default(),
        linear(1.0, 50_000.0),
    )
    .unwrap();
    assert_eq!(r.converged.get("global-lock"), Some(&false));
    assert_eq!(r.costs.for_arch("global-lock").get(CostName::Schedule), 0);
    assert_eq!(r.iterations.len(), 9);
}

#[test]
fn a_failing_model_names_the_trace() {
    let (meta, ev) = synthetic("partitioned", 2, &[10_000_000], 500_000, 4, |_, _| SPANS);
    let traces = [CalTrace::from_trace("p.trace", &meta, &ev).unwrap()];
    let err = refine(
        CostsFile::default(),
        &traces,
        Refine::default(),
        |_: &CostsFile, _: &CalTrace| Err("boom".to_string()),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "architecture `partitioned`, trace p.trace: the model failed: boom"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Any linear model with a slope in [1/4, 8] (steeper: whole-ns costs move the mean by more
    /// than the tolerance) and a base below the measurement: the
    /// secant steps meet the tolerance within the default iterations, costs stay ≥ 0.
    #[test]
    fn refinement_converges_on_linear_models(slope in 0.25f64..8.0, base_frac in 0.0f64..0.9) {
        let (meta, ev) = synthetic("message-passing", 2, &[10_000_000, 30_000_000], 500_000, 6, |_, _| SPANS);
        let traces = [CalTrace::from_trace("mp", &meta, &ev).unwrap()];
        let base = base_frac * 1_500.0; // below the smallest measured mean (Δreq)
        let r = refine(direct(&traces).unwrap(), &traces, Refine::default(), linear(slope, base)).unwrap();
        prop_assert_eq!(r.converged.get("message-passing"), Some(&true));
        prop_assert!(r.iterations.last().unwrap().worst_relative() <= 0.011 + 20.0 / 1_500.0);
    }
}
