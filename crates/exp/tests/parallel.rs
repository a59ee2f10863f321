//! Experiments over parallel (fork-join) task sets [RTWS §VI]: the `window` shape, the
//! generator's `parallel` structure (`rtws` on each platform's CPUs) and the per-set context
//! switches and steals of simulations.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_exp::{chunks, evaluate_chunk, schema, Cell, Experiment, Metric};
use schedlab_gen::parallel::rtws_spec;
use std::path::Path;

/// Table I's lowest window on 2 and 4 CPUs, 2 sets per point, 3 s each under three policies.
const TABLE_I: &str = r#"title = "RTWS Table I, lowest window"
seed = 7
samples = 2
chunk_size = 2
plots = ["migrations", "context_switches", "steals"]

[platform]
cpus = [2, 4]

[generator]
shape = "window"
util_dist = "uniform:0.1..0.5"
periods = "uniform:700ms..800ms"
window_width = 0.02
parallel = "rtws"

[sweep]
variable = "utilization_per_cpu"
points = [0.38]

[[simulation]]
policy = "rtws"
duration = "3s"

[[simulation]]
policy = "sd"
duration = "3s"

[[simulation]]
policy = "gedf"
duration = "3s"
"#;

fn parse(text: &str) -> Experiment {
    schema::parse(text, "t.toml", "t", Path::new(".")).unwrap()
}

/// The file's generator is `schedlab gen --rtws 0.38..0.40 --cpus M` with the cell's seed:
/// the same sets, every one in the window, every task `[seq] [threads] [seq]`.
#[test]
fn window_and_rtws_structure_give_table_i_sets() {
    let e = parse(TABLE_I);
    assert_eq!(
        e.plots,
        vec![Metric::Migrations, Metric::ContextSwitches, Metric::Steals]
    );
    for m in [2, 4] {
        let cell = Cell {
            cpus: m,
            point: Some(0),
        };
        let ours = e.gen_spec(cell).unwrap().generator().unwrap();
        let gen = rtws_spec(m, 0.38, 0.40)
            .unwrap()
            .seed(e.cell_seed(cell))
            .generator()
            .unwrap();
        for k in 0..3 {
            let (a, b) = (ours.generate(k).unwrap(), gen.generate(k).unwrap());
            assert_eq!(a.tasks, b.tasks, "m = {m}, set {k}");
            let u = a.utilization / f64::from(m);
            assert!((0.38..=0.40).contains(&u), "m = {m}: U/m = {u}");
            for t in a.tasks.tasks() {
                let p = t.parallel.as_ref().expect("parallel");
                let width = p.max_width() as u32;
                assert_eq!(p.regions().len(), 3);
                assert!((1..=2 * m).contains(&width));
            }
        }
    }
}

/// Every simulation reports its context switches and steals; only `rtws` steals.
#[test]
fn simulations_report_context_switches_and_steals() {
    let e = parse(TABLE_I);
    let mut steals = [0u64; 3];
    for chunk in chunks(&e) {
        for r in evaluate_chunk(&e, &chunk).unwrap() {
            for (i, o) in r.outcomes.iter().enumerate() {
                let cs = o.context_switches.expect("context switches");
                let jobs = o.jobs.expect("jobs");
                assert!(cs >= jobs, "{i}: {cs} context switches for {jobs} jobs");
                steals[i] += o.steals.expect("steals");
                // A steal is a migration (the one definition of schedlab_trace::counts).
                assert!(o.migrations.unwrap() >= o.steals.unwrap());
            }
        }
    }
    assert!(steals[0] > 0, "rtws never stole on Table I sets");
    assert_eq!((steals[1], steals[2]), (0, 0));
}
