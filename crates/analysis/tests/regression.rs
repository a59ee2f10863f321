//! One test per bug found, named after how it was found.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use schedlab_analysis::{analyze, registry, Params, Priorities, Status, System};

/// Found by `fuzz/fuzz_targets/analysis.rs`: one task with utilization 5 and a deadline ~10⁸
/// periods long. `fp-rta`'s busy window never closes, and the partitioned FP tests gave every
/// admission call a fresh 10⁷-step budget (up to n·m·10⁷ steps for one verdict). Now a level-i
/// utilization above 1 is an exact, immediate miss, and one budget bounds a whole packing.
#[test]
fn fuzz_overloaded_arbitrary_deadline_task_is_rejected_at_once() {
    let scale = 1u64 << 31;
    let task = Params::new(255 * scale, 0xf800_fe01 * scale, 51 * scale);
    for m in [1u32, 63] {
        let sys = System::from_params(vec![task], m, Priorities::Dm).unwrap();
        for test in registry::all_for(m) {
            let v = analyze(test.as_ref(), &sys);
            assert!(!v.is_schedulable(), "{} accepted u = 5", test.name());
        }
    }
    let sys = System::from_params(vec![task], 1, Priorities::Dm).unwrap();
    let v = analyze(registry::by_name("fp-rta").unwrap().as_ref(), &sys);
    assert_eq!(v.status, Status::Unschedulable);
}
