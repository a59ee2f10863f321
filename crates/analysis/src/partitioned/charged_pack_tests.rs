//! Hand-worked overhead-aware packings (module documentation of `charged_pack`) and the
//! property that zero overheads change no verdict and no partition.

#![allow(clippy::unwrap_used)]

use crate::overheads::accounting::TaskIn;
use crate::overheads::arch::ArchKind;
use crate::overheads::fixtures::{constant, schedule_5n, setup};
use crate::system::{Params, Priorities, System};
use crate::test::analyze;
use crate::verdict::{Status, Verdict};
use schedlab_model::overheads::OverheadFile;

/// `C = wcets`, `T = D = 100` on `m` CPUs, charged with `file` under `arch`.
fn system(file: OverheadFile, arch: ArchKind, wcets: &[u64], m: u32) -> System {
    let params: Vec<Params> = wcets.iter().map(|&c| Params::new(c, 100, 100)).collect();
    crate::overheads::fixtures::system(params, m, &setup(file, arch))
}

fn run(name: &str, sys: &System) -> Verdict {
    analyze(crate::registry::by_name(name).unwrap().as_ref(), sys)
}

fn per_cpu(v: &Verdict) -> Vec<Vec<(u64, u64, u64)>> {
    let acc = v.accounting.as_ref().unwrap();
    assert_eq!(acc.key, "per_cpu");
    acc.bins
        .iter()
        .map(|b| match &b.charged {
            crate::overheads::accounting::Charged::Ok(t) => t.clone(),
            other => panic!("{other:?}"),
        })
        .collect()
}

/// C = 40, 30, 30, 20 (T = D = 100) on 2 CPUs, FFD, `C'' = C + 10n`:
/// τ0 → CPU0 ({0}: 50). τ1: CPU0 {0,1}: 60 + 50 > 100, rejected (CPU0 stays {0}: 50);
/// CPU1 {1}: 40. τ2: CPU0 {0,2}: 60 + 50 > 100; CPU1 {1,2}: 50 + 50 = 100, EDF passes at
/// U = 1. τ3: CPU0 {0,3}: 60 + 40 = 100 → CPU0. Partition [[0,3],[1,2]] — without overheads
/// FFD packs [[0,1,2],[3]].
#[test]
fn first_fit_decreasing_recharges_and_rolls_back() {
    let sys = system(
        schedule_5n("partitioned"),
        ArchKind::Partitioned,
        &[40, 30, 30, 20],
        2,
    );
    for name in ["pedf-ffd", "pfp-ffd"] {
        let v = run(name, &sys);
        assert_eq!(v.status, Status::Schedulable, "{name}: {v:?}");
        assert_eq!(v.partition, Some(vec![vec![0, 3], vec![1, 2]]), "{name}");
        assert_eq!(
            per_cpu(&v),
            vec![
                vec![(60, 100, 100), (40, 100, 100)],
                vec![(50, 100, 100), (50, 100, 100)]
            ]
        );
        assert_eq!(v.accounting.as_ref().unwrap().misfits, Vec::<usize>::new());
    }
    let free = System::from_params(sys.params().to_vec(), 2, Priorities::Dm).unwrap();
    assert_eq!(
        run("pedf-ffd", &free).partition,
        Some(vec![vec![0, 1, 2], vec![3]])
    );
}

/// Index order (C = 30, 50, 10; T = D = 100) on 2 CPUs, `C'' = C + 10n`:
/// τ0 → CPU0 ({0}: 40). τ1: CPU0 {0,1}: 50 + 70 > 100; CPU1 {1}: 60. τ2: CPU0 {0,2}:
/// 50 + 30 = 80 (spare 0.2); CPU1 {1,2}: 70 + 30 = 100 (spare 0). First and worst fit take
/// CPU0, best fit CPU1.
#[test]
fn worst_and_best_fit_compare_spare_capacity_with_the_task_included() {
    let sys = system(
        schedule_5n("partitioned"),
        ArchKind::Partitioned,
        &[30, 50, 10],
        2,
    );
    assert_eq!(
        run("pedf-ff", &sys).partition,
        Some(vec![vec![0, 2], vec![1]])
    );
    assert_eq!(
        run("pedf-wf", &sys).partition,
        Some(vec![vec![0, 2], vec![1]])
    );
    let bf = run("pedf-bf", &sys);
    assert_eq!(bf.partition, Some(vec![vec![0], vec![1, 2]]));
    assert_eq!(
        per_cpu(&bf),
        vec![vec![(40, 100, 100)], vec![(70, 100, 100), (30, 100, 100)]]
    );
}

/// C = 60, 50, 45 on 2 CPUs: τ0 → CPU0 (70), τ1 → CPU1 (60), τ2 fits nowhere (CPU0: 80 + 65,
/// CPU1: 70 + 65); packing goes on, the verdict is not shown, the partition and the misfit
/// are reported.
#[test]
fn a_misfit_is_reported_and_packing_goes_on() {
    let sys = system(
        schedule_5n("partitioned"),
        ArchKind::Partitioned,
        &[60, 50, 45, 5],
        2,
    );
    let v = run("pedf-ffd", &sys);
    assert_eq!(v.status, Status::NotShown);
    assert!(
        v.reason
            .as_deref()
            .unwrap()
            .contains("task 2 fitted on no CPU"),
        "{v:?}"
    );
    // τ3 (5) still packed after the misfit: CPU0 {0,3}: 80 + 25 > 100; CPU1 {1,3}: 70 + 25.
    assert_eq!(v.partition, Some(vec![vec![0], vec![1, 3]]));
    assert_eq!(v.accounting.as_ref().unwrap().misfits, vec![2]);
}

#[test]
fn architectures_that_do_not_partition_are_not_applicable() {
    let sys = system(
        schedule_5n("global-lock"),
        ArchKind::GlobalLock,
        &[40, 30],
        2,
    );
    let v = run("pedf-ffd", &sys);
    assert_eq!(v.status, Status::NotApplicable);
    assert!(v.reason.unwrap().contains("--arch partitioned"));
    let sys = system(
        schedule_5n("partitioned"),
        ArchKind::Partitioned,
        &[40, 30],
        2,
    );
    let v = run("cedf-k1", &sys);
    assert_eq!(v.status, Status::NotApplicable);
    assert!(v.reason.unwrap().contains("--arch global-lock"));
}

/// C-EDF, clusters of 1 CPU under global-lock (with these overheads the same numbers as a
/// partition: no IPI term on one CPU): worst fit decreasing by charged capacity, C = 40, 30,
/// 30, 20 on 2 clusters: τ0 → K0 (50); τ1: K0 {0,1} 110 > 1 rejected, K1 {1}: 40 → K1; τ2: K0
/// {0,2} 110 rejected; K1 {1,2}: 100 → K1; τ3: K0 {0,3}: 100; K1 {1,2,3}: 60·2+50 rejected →
/// K0. Each cluster then passes the gedf battery on one CPU (U = 1, implicit deadlines).
#[test]
fn clustered_assignment_recharges_each_cluster() {
    let sys = system(
        schedule_5n("global-lock"),
        ArchKind::GlobalLock,
        &[40, 30, 30, 20],
        2,
    );
    let v = run("cedf-k1", &sys);
    assert_eq!(v.partition, Some(vec![vec![0, 3], vec![1, 2]]), "{v:?}");
    let acc = v.accounting.as_ref().unwrap();
    assert_eq!(acc.key, "per_cluster");
    assert_eq!(acc.bins.len(), 2);
    assert_eq!(acc.bins[0].cpus_for_jobs, 1);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn zero(arch: &str) -> OverheadFile {
        constant(arch, 0)
    }

    fn sets() -> impl Strategy<Value = (Vec<Params>, u32)> {
        (
            proptest::collection::vec((1u64..60, 1u64..6), 1..14),
            1u32..5,
        )
            .prop_map(|(raw, m)| {
                let ps = raw
                    .into_iter()
                    .map(|(c, k)| {
                        let t = 20 * k;
                        Params::new(c.min(t), t, t)
                    })
                    .collect();
                (ps, m)
            })
    }

    fn with(ps: &[Params], m: u32, file: OverheadFile, arch: ArchKind) -> System {
        crate::overheads::fixtures::system(ps.to_vec(), m, &setup(file, arch))
    }

    proptest! {
        /// Zero overheads give exactly the overhead-free verdicts and partitions (implicit
        /// deadlines, where the orders by utilization and by density agree).
        #[test]
        fn zero_overheads_change_nothing((ps, m) in sets()) {
            let free = System::from_params(ps.clone(), m, Priorities::Dm).unwrap();
            let part = with(&ps, m, zero("partitioned"), ArchKind::Partitioned);
            for name in ["pedf-ff", "pedf-ffd", "pedf-wfd", "pedf-bfd", "pfp-ffd", "pfp-wfd", "pfp-bfd", "pedf-nfd"] {
                let a = run(name, &free);
                let b = run(name, &part);
                prop_assert_eq!(a.status, b.status, "{}", name);
                if a.status == Status::Schedulable {
                    prop_assert_eq!(&a.partition, &b.partition, "{}", name);
                    prop_assert_eq!(&a.response_time_bounds, &b.response_time_bounds, "{}", name);
                }
            }
            let global = with(&ps, m, zero("global-lock"), ArchKind::GlobalLock);
            let a = run("cedf-k1", &free);
            let b = run("cedf-k1", &global);
            prop_assert_eq!(a.status, b.status);
            if a.status == Status::Schedulable {
                prop_assert_eq!(a.partition, b.partition);
            }
        }

        /// A bin the charged packing accepts also passes the exact uniprocessor test without
        /// overheads (charging only inflates, and the exact tests are sustainable).
        #[test]
        fn every_charged_bin_passes_uncharged((ps, m) in sets()) {
            let some = with(&ps, m, schedule_5n("partitioned"), ArchKind::Partitioned);
            let free = System::from_params(ps.clone(), 1, Priorities::Dm).unwrap();
            for (name, uni) in [("pedf-ffd", "edf"), ("pfp-wfd", "fp-rta"), ("pedf-bfd", "edf")] {
                let v = run(name, &some);
                if v.is_schedulable() {
                    for cpu in v.partition.unwrap() {
                        let sub = free.subset(&cpu, 1).unwrap();
                        prop_assert!(run(uni, &sub).is_schedulable(), "{} {:?}", name, cpu);
                    }
                }
            }
        }
    }
}

/// The packing written the plain way — every trial charged by the all-rational reference
/// accounting, spare capacities summed as big rationals, no pre-filter — must give the same
/// partitions, misfits and verdicts as [`super::Packer`], with every overhead non-zero
/// (releases, ticks, working sets with CPMD).
mod against_a_plain_reference {
    use super::*;
    use crate::overheads::accounting::{cpmd_per_task, Charged, Overheads, Rule};
    use crate::overheads::tests::reference;
    use crate::uni::{edf, Outcome};
    use num_bigint::BigInt;
    use num_rational::BigRational;
    use proptest::prelude::*;

    const OH: Overheads = Overheads {
        release_latency: 3,
        release: 2,
        schedule: 4,
        context_switch: 1,
        ipi: 0,
        tick: 5,
        tick_period: 1000,
        request: 0,
        dsp: 0,
        timer: 0,
        sleep_add: 0,
        sleep_take: 0,
        ready_add_local: 0,
        ready_add_remote: 0,
        ready_take: 0,
    };

    fn file() -> OverheadFile {
        let mut text = String::from("schema = 1\ntick_period = \"1us\"\n");
        for (name, v) in [
            ("release_latency", OH.release_latency),
            ("release", OH.release),
            ("schedule", OH.schedule),
            ("context_switch", OH.context_switch),
            ("ipi", OH.ipi),
            ("tick", OH.tick),
        ] {
            text.push_str(&format!("[arch.partitioned.{name}]\nmax = [[1, {v}]]\n"));
        }
        text.push_str("[cpmd.preemption]\nmax = [[0, 0], [100, 7]]\n");
        OverheadFile::parse_toml(&text).unwrap()
    }

    fn cpmd(wss: u64) -> u64 {
        (wss * 7).div_ceil(100)
    }

    fn charge_bin(tasks: &[TaskIn], bin: &[usize]) -> Option<Vec<(u64, u64, u64)>> {
        let ts: Vec<TaskIn> = bin.iter().map(|&i| tasks[i]).collect();
        let cpd = cpmd_per_task(&ts, Some(&cpmd)).unwrap();
        let rule = Rule::PreemptionCentric {
            dedicated_irq: false,
            partition: true,
            cpus: 1,
        };
        match reference::charge(&ts, &OH, rule, &cpd, 1) {
            Charged::Ok(p) => Some(p),
            _ => None,
        }
    }

    fn util(rows: &[(u64, u64, u64)]) -> BigRational {
        rows.iter()
            .map(|&(c, t, _)| BigRational::new(BigInt::from(c), BigInt::from(t)))
            .sum()
    }

    /// (bins in admission order, misfits) for FFD (`which` 0), WFD (1), BFD (2).
    fn plain(tasks: &[TaskIn], m: usize, which: u8) -> (Vec<Vec<usize>>, Vec<usize>) {
        let mut order: Vec<usize> = (0..tasks.len()).collect();
        let u = |i: usize| BigRational::new(BigInt::from(tasks[i].c), BigInt::from(tasks[i].t));
        order.sort_by_key(|&i| std::cmp::Reverse(u(i)));
        let mut bins: Vec<Vec<usize>> = vec![Vec::new(); m];
        let mut misfits = Vec::new();
        for task in order {
            let mut admitted: Vec<(usize, BigRational)> = Vec::new();
            for (c, bin) in bins.iter().enumerate() {
                let mut trial = bin.clone();
                trial.push(task);
                let Some(rows) = charge_bin(tasks, &trial) else {
                    continue;
                };
                let ps: Vec<Params> = rows.iter().map(|&(c, t, d)| Params::new(c, d, t)).collect();
                if edf::edf_feasible(&ps) == Outcome::Schedulable {
                    admitted.push((c, util(&rows)));
                }
            }
            let pick = match which {
                0 => admitted.first().map(|a| a.0),
                1 => admitted
                    .iter()
                    .min_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)))
                    .map(|a| a.0),
                _ => admitted
                    .iter()
                    .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                    .map(|a| a.0),
            };
            match pick {
                Some(c) => bins[c].push(task),
                None => misfits.push(task),
            }
        }
        (bins, misfits)
    }

    fn sets() -> impl Strategy<Value = (Vec<TaskIn>, usize)> {
        (
            proptest::collection::vec((1u64..400, 1u64..6, 0u64..3, 0u64..200), 1..25),
            prop_oneof![Just(2usize), Just(4), Just(8)],
        )
            .prop_map(|(raw, m)| {
                let tasks = raw
                    .into_iter()
                    .map(|(c, k, cut, wss)| {
                        let t = 500 * k;
                        let d = t - t * cut / 10;
                        TaskIn {
                            c: c.min(d),
                            t,
                            d,
                            wss: Some(wss),
                        }
                    })
                    .collect();
                (tasks, m)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn same_partitions((tasks, m) in sets()) {
            let params: Vec<Params> = tasks.iter().map(|t| Params::new(t.c, t.d, t.t)).collect();
            let sys = crate::overheads::fixtures::system_of(
                params,
                tasks.clone(),
                m as u32,
                &setup(file(), ArchKind::Partitioned),
            );
            for (which, name) in [(0u8, "pedf-ffd"), (1, "pedf-wfd"), (2, "pedf-bfd")] {
                let (bins, misfits) = plain(&tasks, m, which);
                let v = run(name, &sys);
                let mut sorted = bins.clone();
                for b in &mut sorted {
                    b.sort_unstable();
                }
                prop_assert_eq!(v.partition.as_ref(), Some(&sorted), "{}", name);
                prop_assert_eq!(&v.accounting.as_ref().unwrap().misfits, &misfits, "{}", name);
                prop_assert_eq!(v.is_schedulable(), misfits.is_empty(), "{}", name);
            }
        }
    }
}
