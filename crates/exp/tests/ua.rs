//! Utility accrual in experiments: every utility-accrual policy runs overloaded points (its
//! [ChronOS §8.5] placement never fails, partitioned ones included), `pedf` runs them only with
//! `partition = "chronos"`, and `gnphvdf-uab` is an analysis like any other.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_exp::{chunks, evaluate_chunk, schema};
use std::path::Path;

const UA_POLICIES: [&str; 8] = [
    "ghvdf", "gnphvdf", "gmua", "nggua", "ggua", "phvdf", "plbesa", "pdasa",
];

#[test]
fn ua_policies_run_overloaded_points() {
    let registered: Vec<&str> = UA_POLICIES
        .into_iter()
        .filter(|p| {
            let known = schedlab_policy::NAMES.contains(p);
            if !known {
                eprintln!("NOT EXERCISED: policy `{p}` is not registered in this build");
            }
            known
        })
        .collect();
    let mut text = String::from(
        r#"
title = "ua"
seed = 3
samples = 4
chunk_size = 4

[platform]
cpus = [2]

[generator]
shape = "fixed-sum"
method = "uunifast-discard"
tasks_per_cpu = 3
periods = "uniform:10ms..50ms/10ms"

[sweep]
variable = "utilization_per_cpu"
points = [0.5, 1.5]

[[analysis]]
test = "gnphvdf-uab"

[[simulation]]
policy = "pedf"
label = "pedf-ffd"
duration = "200ms"

[[simulation]]
policy = "pedf"
label = "pedf-chronos"
partition = "chronos"
duration = "200ms"
"#,
    );
    for p in &registered {
        text.push_str(&format!(
            "\n[[simulation]]\npolicy = \"{p}\"\nduration = \"200ms\"\n"
        ));
    }
    let e = schema::parse(&text, "ua.toml", "ua", Path::new(".")).unwrap();
    let mut overloaded = 0;
    for chunk in chunks(&e) {
        for r in evaluate_chunk(&e, &chunk).unwrap() {
            let statuses: Vec<&str> = r.outcomes.iter().map(|o| o.status.as_str()).collect();
            assert!(
                ["schedulable", "not-shown", "not-applicable"].contains(&statuses[0]),
                "{statuses:?}"
            );
            // Everything but `pedf` with exact admission places every set.
            for (k, s) in statuses.iter().enumerate().skip(2) {
                assert_ne!(
                    *s, "no-placement",
                    "evaluation {k} at U = {}",
                    r.utilization
                );
            }
            if r.utilization > 2.0 {
                overloaded += 1;
                assert_eq!(statuses[1], "no-placement", "U = {}", r.utilization);
                assert_eq!(statuses[2], "deadline-miss");
            }
        }
    }
    assert_eq!(
        overloaded, 4,
        "the 1.5-per-CPU point has four overloaded sets"
    );
    eprintln!(
        "{} of {} utility-accrual policies exercised",
        registered.len(),
        UA_POLICIES.len()
    );
}
