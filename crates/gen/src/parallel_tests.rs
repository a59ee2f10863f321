//! Tests of [`super`]: the strings and their bounds, the exact sharing of a WCET, the drawn
//! shapes, reproducibility, and the parameters of [RTWS §VI, Table I].

use super::*;
use crate::spec::{GenSpec, GeneratedSet, Shape};
use crate::{PeriodDist, UtilDist};
use proptest::prelude::*;

#[test]
fn strings_read_print_and_read_back() {
    for text in [
        "rtws:2",
        "rtws:2048",
        "forkjoin:regions=1..4,threads=2..8,lengths=uniform",
        "forkjoin:regions=3..3,threads=1..1,lengths=equal",
    ] {
        let d = ParallelDist::parse(text).unwrap();
        assert_eq!(d.to_string(), text);
        assert_eq!(ParallelDist::parse(&d.to_string()).unwrap(), d);
    }
    assert_eq!(
        ParallelDist::parse(" fork-join:threads=4, regions=2 ").unwrap(),
        ParallelDist::ForkJoin {
            regions: (2, 2),
            threads: (4, 4),
            lengths: ThreadLengths::Uniform
        }
    );
    let error = |text: &str| ParallelDist::parse(text).unwrap_err().to_string();
    for (bad, says) in [
        ("rtws:0", "≥ 1"),
        ("rtws:2049", "from 1 to 2048"),
        ("rtws:x", "whole number"),
        ("rtws", "expected rtws:M"),
        ("dag:3", "unknown structure"),
        ("forkjoin:regions=1..4", "missing threads"),
        ("forkjoin:threads=1..4", "missing regions"),
        ("forkjoin:regions=4..1,threads=1", "empty"),
        ("forkjoin:regions=0..1,threads=1", "≥ 1"),
        ("forkjoin:regions=1025,threads=1", "at most 1024 regions"),
        (
            "forkjoin:regions=1,threads=4097",
            "at most 4096 threads per region",
        ),
        (
            "forkjoin:regions=17,threads=4096",
            "more than the 65536 allowed",
        ),
        (
            "forkjoin:regions=1,threads=2,lengths=normal",
            "lengths=uniform",
        ),
        ("forkjoin:regions=1,threads=2,colour=red", "unknown setting"),
        ("forkjoin:regions", "key=value"),
    ] {
        let e = error(bad);
        assert!(e.contains(says), "{bad}: {e}");
        assert!(
            e.starts_with("cannot read parallel structure"),
            "{bad}: {e}"
        );
    }
    // At the bounds: 16 regions of 4096 threads is 65,536.
    assert!(ParallelDist::parse("forkjoin:regions=16,threads=4096").is_ok());
}

#[test]
fn the_wcet_is_shared_exactly() {
    assert_eq!(apportion(10, &[1, 1]), vec![5, 5]);
    // 10 − 3 = 7 spare in proportion 1:2:4 → 1, 2, 4; plus 1 each.
    assert_eq!(apportion(10, &[1, 2, 4]), vec![2, 3, 5]);
    // 3 spare over three equal weights: one each.
    assert_eq!(apportion(6, &[5, 5, 5]), vec![2, 2, 2]);
    // 2 spare over three equal weights: the lower indices get the leftovers.
    assert_eq!(apportion(5, &[7, 7, 7]), vec![2, 2, 1]);
    // No spare: 1 ns each.
    assert_eq!(apportion(3, &[1, 1_000, 1 << 32]), vec![1, 1, 1]);
    // Huge totals and weights stay exact.
    let shares = apportion(u64::MAX, &[1 << 32, 1 << 32, 1]);
    assert_eq!(
        shares.iter().map(|&s| u128::from(s)).sum::<u128>(),
        u128::from(u64::MAX)
    );
}

fn ms(x: u64) -> Duration {
    Duration::from_ns(x * 1_000_000)
}

#[test]
fn rtws_structures_have_a_parallel_region_of_up_to_2m_threads() {
    let mut rng = parallel_rng(1, 0);
    let d = ParallelDist::Rtws { cpus: 4 };
    let mut seen = [0u32; 9];
    for _ in 0..2000 {
        let p = d.sample(&mut rng, ms(300)).unwrap();
        assert_eq!(p.work(), ms(300));
        let widths: Vec<usize> = p.regions().iter().map(|r| r.width()).collect();
        assert_eq!((widths[0], widths[2], widths.len()), (1, 1, 3));
        let n = widths[1];
        assert!((1..=8).contains(&n), "{n}");
        seen[n] += 1;
    }
    // n = ⌈x·2m⌉ is uniform on 1..=8: about 250 each.
    assert!(
        seen[1..].iter().all(|&c| (180..320).contains(&c)),
        "{seen:?}"
    );
}

#[test]
fn fork_join_structures_stay_in_their_ranges() {
    let mut rng = parallel_rng(2, 3);
    for lengths in ["uniform", "equal"] {
        let d = ParallelDist::parse(&format!(
            "forkjoin:regions=2..5,threads=1..6,lengths={lengths}"
        ))
        .unwrap();
        for _ in 0..500 {
            let p = d.sample(&mut rng, ms(50)).unwrap();
            assert_eq!(p.work(), ms(50));
            assert!((2..=5).contains(&p.region_count()));
            for region in p.regions() {
                assert!((1..=6).contains(&region.width()));
                let (lo, hi) = (region.threads.iter().min().unwrap(), region.longest());
                if lengths == "equal" {
                    assert!(hi.as_ns() - lo.as_ns() <= 1, "{region:?}");
                }
            }
            assert!(p.critical_path() <= p.work());
        }
    }
}

#[test]
fn a_wcet_too_short_for_its_threads_is_an_error_naming_the_task() {
    let d = ParallelDist::parse("forkjoin:regions=2,threads=3").unwrap();
    let mut rng = parallel_rng(0, 0);
    assert!(d.sample(&mut rng, Duration::from_ns(6)).is_ok());
    assert!(d
        .sample(&mut rng, Duration::from_ns(5))
        .unwrap_err()
        .to_string()
        .contains("wcet 5ns is shorter than 6 threads of 1 ns each"));
    let spec = GenSpec::new(
        Shape::Count {
            n: 2,
            dist: UtilDist::parse("uniform:0.1..0.1").unwrap(),
        },
        PeriodDist::parse("uniform:40ns..40ns").unwrap(),
    )
    .parallel(Some(d));
    let e = spec.generate(0).unwrap_err().to_string();
    assert_eq!(
        e,
        "invalid parallel structure: task t0: wcet 4ns is shorter than 6 threads of 1 ns each: use longer execution times (periods, utilizations) or fewer threads"
    );
}

fn fill(total: f64) -> GenSpec {
    GenSpec::new(
        Shape::FillTo {
            total,
            dist: UtilDist::parse("uni-medium").unwrap(),
        },
        PeriodDist::parse("uniform:10ms..100ms/1ms").unwrap(),
    )
}

/// Structures change no timing, are reproducible, and a growing sequence keeps each task's
/// structure as it grows.
#[test]
fn structures_change_no_timing_and_are_reproducible() {
    let plain = fill(3.0).seed(5);
    let with = plain.clone().parallel(Some(
        ParallelDist::parse("forkjoin:regions=1..3,threads=1..4").unwrap(),
    ));
    for k in 0..20 {
        let (a, b) = (plain.generate(k).unwrap(), with.generate(k).unwrap());
        assert_eq!(a.tasks.len(), b.tasks.len());
        for (x, y) in a.tasks.iter().zip(b.tasks.iter()) {
            assert_eq!(
                (x.wcet, x.deadline, x.period),
                (y.wcet, y.deadline, y.period)
            );
            assert_eq!(y.parallel.as_ref().map(|p| p.work()), Some(y.wcet));
        }
        assert_eq!(a.utilization, b.utilization);
        assert!(b.tasks.validate().is_ok());
        assert_eq!(b, with.generate(k).unwrap());
    }
    assert_ne!(
        with.generate(0).unwrap(),
        with.clone().seed(6).generate(0).unwrap()
    );
    let grow = GenSpec::new(
        Shape::Grow {
            start: 2,
            limit: 2.0,
            dist: UtilDist::parse("uni-medium").unwrap(),
        },
        PeriodDist::parse("uniform:10ms..100ms").unwrap(),
    )
    .parallel(Some(ParallelDist::Rtws { cpus: 2 }));
    let sets: Vec<GeneratedSet> = grow
        .generator()
        .unwrap()
        .sequence(0)
        .unwrap()
        .map(|s| s.unwrap())
        .collect();
    assert!(sets.len() > 1);
    for w in sets.windows(2) {
        assert_eq!(&w[1].tasks[..w[0].tasks.len()], &w[0].tasks[..]);
    }
}

#[test]
fn window_sets_lie_in_the_window() {
    let spec = GenSpec::new(
        Shape::Window {
            lo: 1.0,
            hi: 1.1,
            dist: UtilDist::parse("uniform:0.1..0.5").unwrap(),
        },
        PeriodDist::parse("uniform:10ms..100ms").unwrap(),
    )
    .seed(9);
    for set in spec.generate_many(50).unwrap() {
        assert!(
            (1.0..=1.1).contains(&set.utilization),
            "{}",
            set.utilization
        );
        assert!(set.tasks.iter().all(|t| t.parallel.is_none()));
    }
    // A window no set can land in gives up after max_attempts sets; bad windows are refused.
    let mut narrow = spec.clone();
    narrow.shape = Shape::Window {
        lo: 1.0,
        hi: 1.0,
        dist: UtilDist::parse("uniform:0.3..0.3").unwrap(),
    };
    narrow.max_attempts = 50;
    assert!(matches!(
        narrow.generate(0),
        Err(GenError::AttemptsExhausted { attempts: 50, .. })
    ));
    for (lo, hi) in [(0.0, 1.0), (2.0, 1.0), (f64::NAN, 1.0)] {
        let mut bad = spec.clone();
        bad.shape = Shape::Window {
            lo,
            hi,
            dist: UtilDist::parse("uni-medium").unwrap(),
        };
        assert!(bad.generator().is_err(), "{lo}..{hi}");
    }
    assert!(crate::spec::parse_util_window("0..1").is_err());
}

/// [RTWS §VI, Table I]: total tasks and threads of 20 sets for each m and window.
const TABLE_I: [(u32, [(u32, u32); 3]); 3] = [
    (2, [(50, 128), (82, 218), (98, 216)]),
    (4, [(102, 457), (158, 703), (193, 866)]),
    (8, [(217, 1736), (320, 2720), (401, 3491)]),
];

/// Every parameter of §VI is honoured set by set (u, periods, windows, ⌈x·2m⌉ threads,
/// three regions, work = C), and 20 sets per cell hold about as many tasks and parallel
/// threads as Table I reports (within 25 %: the paper's own sets are one random draw).
#[test]
fn rtws_table_i_parameters_are_honoured() {
    for (m, cells) in TABLE_I {
        for (&(lo, hi), (paper_tasks, paper_threads)) in RTWS_WINDOWS.iter().zip(cells) {
            let spec = rtws_spec(m, lo, hi).unwrap().seed(2014);
            let (mut tasks, mut threads) = (0u32, 0u32);
            for set in spec.generate_many(20).unwrap() {
                let u = set.utilization / f64::from(m);
                assert!((lo..=hi).contains(&u), "m = {m}: U/m = {u}");
                assert!(set.tasks.validate().is_ok());
                for (t, &drawn) in set.tasks.iter().zip(&set.drawn) {
                    assert!((0.1..=0.5).contains(&drawn), "{drawn}");
                    assert!((ms(700)..=ms(800)).contains(&t.period));
                    assert!(t.has_implicit_deadline());
                    let p = t.parallel.as_ref().unwrap();
                    assert_eq!(p.work(), t.wcet);
                    assert_eq!(p.region_count(), 3);
                    let n = p.regions()[1].width();
                    assert!((1..=2 * m as usize).contains(&n), "{n}");
                    threads += n as u32;
                }
                tasks += set.tasks.len() as u32;
            }
            println!("m = {m}, {lo}..{hi}: {tasks} tasks, {threads} threads (Table I: {paper_tasks}, {paper_threads})");
            let near =
                |ours: u32, paper: u32| f64::from(ours.abs_diff(paper)) <= 0.25 * f64::from(paper);
            assert!(
                near(tasks, paper_tasks) && near(threads, paper_threads),
                "m = {m}, window {lo}..{hi}: {tasks} tasks, {threads} threads; Table I: {paper_tasks}, {paper_threads}"
            );
        }
    }
    assert!(rtws_spec(0, 0.38, 0.4).is_err());
    assert!(rtws_spec(4, 0.5, 0.4).is_err());
    assert!(rtws_spec(4, 0.38, 1.5).is_err());
    assert!(rtws_spec_parse(4, "0.58..0.60").is_ok());
    assert!(rtws_spec_parse(4, "0.58").is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any fork-join string within the bounds gives valid tasks whose threads add up to C,
    /// the shape within its ranges.
    #[test]
    fn generated_parallel_tasks_are_valid(
        r in (1u32..6, 0u32..4),
        n in (1u32..9, 0u32..6),
        equal in proptest::bool::ANY,
        seed in any::<u64>(),
    ) {
        let (r_hi, n_hi) = (r.0 + r.1, n.0 + n.1);
        let text = format!(
            "forkjoin:regions={}..{r_hi},threads={}..{n_hi},lengths={}",
            r.0, n.0, if equal { "equal" } else { "uniform" }
        );
        let spec = fill(2.0).seed(seed).parallel(Some(ParallelDist::parse(&text).unwrap()));
        let set = spec.generate(0).unwrap();
        prop_assert!(set.tasks.validate().is_ok());
        for t in set.tasks.iter() {
            let p = t.parallel.as_ref().unwrap();
            prop_assert_eq!(p.work(), t.wcet);
            prop_assert!((r.0 as usize..=r_hi as usize).contains(&p.region_count()));
            prop_assert!(p.regions().iter().all(|g| (n.0 as usize..=n_hi as usize).contains(&g.width())));
        }
    }
}
