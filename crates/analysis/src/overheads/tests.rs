//! Hand-worked cases of the accounting rules (module documentation of `accounting`).

#![allow(clippy::unwrap_used)]

use super::accounting::{charge, AccountingError, Charged, Overheads, Rule, TaskIn};

fn task(c: u64, t: u64, d: u64) -> TaskIn {
    TaskIn { c, t, d, wss: None }
}

/// The overheads of the hand-worked cases: Δev 2, Δrel 5, Δsch 3, Δcxs 1, Δipi 7, Δtck 10
/// every Q = 1000.
fn example() -> Overheads {
    Overheads {
        release_latency: 2,
        release: 5,
        schedule: 3,
        context_switch: 1,
        ipi: 7,
        tick: 10,
        tick_period: 1000,
        ..Overheads::default()
    }
}

const GLOBAL4: Rule = Rule::PreemptionCentric {
    dedicated_irq: false,
    partition: false,
    cpus: 4,
};

#[test]
fn zero_overheads_change_nothing() {
    let ts = [task(3, 10, 10), task(5, 20, 15)];
    let r = charge(&ts, &Overheads::default(), GLOBAL4, None, 1).unwrap();
    assert_eq!(r, Charged::Ok(vec![(3, 10, 10), (5, 20, 15)]));
    let r = charge(&ts, &Overheads::default(), Rule::MessagePassing, None, 1).unwrap();
    assert_eq!(r, Charged::Ok(vec![(3, 10, 10), (5, 20, 15)]));
    assert_eq!(
        charge(&[], &Overheads::default(), GLOBAL4, None, 1).unwrap(),
        Charged::Ok(vec![])
    );
}

/// Global, interrupts on all CPUs, M = 4, n = 2: Δev 2, Δrel 5, Δsch 3, Δcxs 1, Δipi 7,
/// Δtck 10 every Q = 1000; tasks (C 100, T 1000, D 1000), (200, 500, 400).
/// u_tck = 10/1000 = 1/100; u_rel = 5/1000 + 5/500 = 3/200; uscale = 1 − 2/200 − 3/200 = 39/40.
/// cpre = (10 + 2/100 + 2·5 + 2·3/200)/(39/40) = (20 + 2/100 + 3/100)·40/39 = (2005/100)·40/39
///      = 802/39.
/// C'_0 = (100 + 8)·40/39 + 2·802/39 + 7 = 4320/39 + 1604/39 + 7 = 5924/39 + 7 = 151.9 + 7
///      → 158.897… → ⌈⌉ = 159;  T' = 998, D' = 998.
/// C'_1 = (200 + 8)·40/39 + 1604/39 + 7 = 8320/39 + 1604/39 + 7 = 9924/39 + 7 = 261.46… → 262;
///      T' = 498, D' = 398.
#[test]
fn global_hand_worked() {
    let oh = example();
    let ts = [task(100, 1000, 1000), task(200, 500, 400)];
    let r = charge(&ts, &oh, GLOBAL4, None, 1).unwrap();
    assert_eq!(r, Charged::Ok(vec![(159, 998, 998), (262, 498, 398)]));
    // One CPU (or a partition): no IPI term: 151.9 → 152, 254.46 → 255.
    let one = Rule::PreemptionCentric {
        dedicated_irq: false,
        partition: false,
        cpus: 1,
    };
    let r = charge(&ts, &oh, one, None, 1).unwrap();
    assert_eq!(r, Charged::Ok(vec![(152, 998, 998), (255, 498, 398)]));
    let part = Rule::PreemptionCentric {
        dedicated_irq: false,
        partition: true,
        cpus: 4,
    };
    assert_eq!(charge(&ts, &oh, part, None, 1).unwrap(), r);
    // Granularity 10 ns: C up, T and D down: 160/990/990 and 270/490/390.
    let r = charge(&ts, &oh, GLOBAL4, None, 10).unwrap();
    assert_eq!(r, Charged::Ok(vec![(160, 990, 990), (270, 490, 390)]));
}

/// Dedicated interrupt CPU, same overheads: u_rel = 0, uscale = 99/100,
/// cpre = (10 + 2/100)/(99/100) = 1002/99; X = Δipi + Δrel = 12.
/// C'_0 = 108·100/99 + 2004/99 + 12 = 12804/99 + 12 = 129.33… + 12 → 142 (141.33…).
/// C'_1 = 208·100/99 + 2004/99 + 12 = 22804/99 + 12 = 230.34… + 12 → 243.
#[test]
fn dedicated_interrupt_cpu_hand_worked() {
    let oh = example();
    let ts = [task(100, 1000, 1000), task(200, 500, 400)];
    let di = Rule::PreemptionCentric {
        dedicated_irq: true,
        partition: false,
        cpus: 1,
    };
    let r = charge(&ts, &oh, di, None, 1).unwrap();
    assert_eq!(r, Charged::Ok(vec![(142, 998, 998), (243, 498, 398)]));
}

/// Message-passing [MP App. B]: Δreq 4, Δdsp 6, others as above. uscale = 1 − 1/100 = 99/100;
/// cpre = 1002/99. C' = (C + 3·4)·100/99 + 2004/99 + 4 + 6 + 2·7 + 5 = (C + 12)·100/99 +
/// 2004/99 + 29: C = 100: 11200/99 + 2004/99 = 13204/99 = 133.37… + 29 → 163 (162.37…);
/// C = 200: 21200/99 + 2004/99 = 23204/99 = 234.38… + 29 → 264.
#[test]
fn message_passing_hand_worked() {
    let oh = Overheads {
        request: 4,
        dsp: 6,
        ..example()
    };
    let ts = [task(100, 1000, 1000), task(200, 500, 400)];
    let r = charge(&ts, &oh, Rule::MessagePassing, None, 1).unwrap();
    assert_eq!(r, Charged::Ok(vec![(163, 998, 998), (264, 498, 398)]));
}

#[test]
fn failures_in_order() {
    // The tick uses the whole quantum: irq-overload.
    let full = Overheads {
        tick: 1000,
        tick_period: 1000,
        ..Overheads::default()
    };
    assert_eq!(
        charge(&[task(1, 10, 10)], &full, GLOBAL4, None, 1).unwrap(),
        Charged::IrqOverload
    );
    assert_eq!(
        charge(&[task(1, 10, 10)], &full, Rule::MessagePassing, None, 1).unwrap(),
        Charged::IrqOverload
    );
    // Releases use it up: Δrel 5 on periods 10 and 10: u_rel = 1 → overload; with a
    // dedicated interrupt CPU the releases are not charged there.
    let rel = Overheads {
        release: 5,
        ..Overheads::default()
    };
    let ts = [task(1, 10, 10), task(1, 10, 10)];
    assert_eq!(
        charge(&ts, &rel, GLOBAL4, None, 1).unwrap(),
        Charged::IrqOverload
    );
    let di = Rule::PreemptionCentric {
        dedicated_irq: true,
        partition: false,
        cpus: 4,
    };
    assert!(matches!(
        charge(&ts, &rel, di, None, 1).unwrap(),
        Charged::Ok(_)
    ));
    // A release latency longer than a deadline: that task (the first such) is infeasible.
    let late = Overheads {
        release_latency: 50,
        ..Overheads::default()
    };
    let ts = [task(1, 100, 100), task(1, 100, 40), task(1, 30, 30)];
    assert_eq!(
        charge(&ts, &late, GLOBAL4, None, 1).unwrap(),
        Charged::TaskInfeasible(1)
    );
    // C' > min(T', D'): (9, 10, 10) with Δsch = 1: C' = 9 + 2 = 11 > 10.
    let sch = Overheads {
        schedule: 1,
        ..Overheads::default()
    };
    assert_eq!(
        charge(&[task(1, 10, 10), task(9, 10, 10)], &sch, GLOBAL4, None, 1).unwrap(),
        Charged::TaskInfeasible(1)
    );
    // Only after rounding: C' = 8 + 2 = 10 ≤ 10, but with g = 4: C'' = 12 > T'' = 8.
    assert_eq!(
        charge(&[task(8, 10, 10)], &sch, GLOBAL4, None, 4).unwrap(),
        Charged::TaskInfeasible(0)
    );
    assert_eq!(
        charge(&[task(8, 10, 10)], &sch, GLOBAL4, None, 1).unwrap(),
        Charged::Ok(vec![(10, 10, 10)])
    );
}

#[test]
fn cpmd_of_the_largest_other_working_set() {
    // Working sets 100, 300, (none), 300 bytes; CPMD = wss/10 ns. Task 1 and task 3 tie as
    // largest: each sees the other's 300 → 30; tasks 0 and 2 see 300 → 30 as well. With only
    // task 1 large: it sees the second largest, 100 → 10.
    let cpmd = |w: u64| w / 10;
    let mut ts = [
        TaskIn {
            wss: Some(100),
            ..task(10, 1000, 1000)
        },
        TaskIn {
            wss: Some(300),
            ..task(10, 1000, 1000)
        },
        task(10, 1000, 1000),
        TaskIn {
            wss: Some(300),
            ..task(10, 1000, 1000)
        },
    ];
    let r = charge(&ts, &Overheads::default(), GLOBAL4, Some(&cpmd), 1).unwrap();
    assert_eq!(r, Charged::Ok(vec![(40, 1000, 1000); 4]));
    ts[3].wss = None;
    let r = charge(&ts, &Overheads::default(), GLOBAL4, Some(&cpmd), 1).unwrap();
    assert_eq!(
        r,
        Charged::Ok(vec![
            (40, 1000, 1000),
            (20, 1000, 1000),
            (40, 1000, 1000),
            (40, 1000, 1000)
        ])
    );
    // A working set without a CPMD curve is an error naming the task.
    assert_eq!(
        charge(&ts, &Overheads::default(), GLOBAL4, None, 1),
        Err(AccountingError::NoCpmd(0))
    );
    // A lone task has no other task to pay for.
    let lone = [TaskIn {
        wss: Some(500),
        ..task(10, 100, 100)
    }];
    assert_eq!(
        charge(&lone, &Overheads::default(), GLOBAL4, Some(&cpmd), 1).unwrap(),
        Charged::Ok(vec![(10, 100, 100)])
    );
}

#[test]
fn input_errors() {
    let tick = Overheads {
        tick: 5,
        ..Overheads::default()
    };
    assert_eq!(
        charge(&[task(1, 10, 10)], &tick, GLOBAL4, None, 1),
        Err(AccountingError::NoTickPeriod(5))
    );
    assert_eq!(
        charge(&[task(1, 10, 10)], &Overheads::default(), GLOBAL4, None, 0),
        Err(AccountingError::ZeroGranularity)
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn overheads() -> impl Strategy<Value = Overheads> {
        (
            0u64..50,
            0u64..50,
            0u64..50,
            0u64..50,
            0u64..50,
            0u64..50,
            0u64..50,
        )
            .prop_map(|(ev, rel, sch, cxs, ipi, tck, req)| Overheads {
                release_latency: ev,
                release: rel,
                schedule: sch,
                context_switch: cxs,
                ipi,
                tick: tck,
                tick_period: 1000,
                request: req,
                dsp: req / 2,
                ..Overheads::default()
            })
    }

    fn tasks() -> impl Strategy<Value = Vec<TaskIn>> {
        proptest::collection::vec(
            (1u64..2000, 1u64..4, 0u64..3).prop_map(|(t, cdiv, dcut)| {
                let t = t + 100;
                TaskIn {
                    c: (t / (cdiv + 3)).max(1),
                    t,
                    d: t - t * dcut / 10,
                    wss: None,
                }
            }),
            0..8,
        )
    }

    fn rules() -> impl Strategy<Value = Rule> {
        prop_oneof![
            Just(Rule::MessagePassing),
            (any::<bool>(), any::<bool>(), 1u32..17).prop_map(|(d, p, m)| {
                Rule::PreemptionCentric {
                    dedicated_irq: d,
                    partition: p,
                    cpus: m,
                }
            }),
        ]
    }

    proptest! {
        /// Charging never shrinks a WCET nor grows a period or deadline; more of any overhead
        /// never makes a charged set feasible that was not, nor a WCET smaller.
        #[test]
        fn inflation_is_monotone(ts in tasks(), oh in overheads(), rule in rules(), g in 1u64..20, which in 0usize..7) {
            let base = charge(&ts, &oh, rule, None, g).unwrap();
            if let Charged::Ok(out) = &base {
                for (t, &(c, p, d)) in ts.iter().zip(out) {
                    prop_assert!(c >= t.c && p <= t.t && d <= t.d);
                    prop_assert!(c % g == 0 && p % g == 0 && d % g == 0);
                }
            }
            let mut more = oh;
            match which {
                0 => more.release_latency += 7,
                1 => more.release += 7,
                2 => more.schedule += 7,
                3 => more.context_switch += 7,
                4 => more.ipi += 7,
                5 => more.tick += 7,
                _ => more.request += 7,
            }
            let worse = charge(&ts, &more, rule, None, g).unwrap();
            match (&base, &worse) {
                (Charged::Ok(a), Charged::Ok(b)) => {
                    for (x, y) in a.iter().zip(b) {
                        prop_assert!(y.0 >= x.0 && y.1 <= x.1 && y.2 <= x.2);
                    }
                }
                (Charged::Ok(_), _) => {}
                (_, Charged::Ok(_)) => prop_assert!(false, "more overhead made {:?} feasible", base),
                _ => {}
            }
        }

        /// The float-filtered `charge` agrees with the all-rational reference, on small round
        /// numbers (where `A/uscale` often is an integer: the exact fallback) and on realistic
        /// ns-scale sets (the float path), with and without working sets.
        #[test]
        fn agrees_with_the_exact_reference(
            ts in tasks(), oh in overheads(), rule in rules(), g in 1u64..20, wss in any::<bool>()
        ) {
            let ts: Vec<TaskIn> = ts
                .into_iter()
                .enumerate()
                .map(|(i, t)| TaskIn { wss: wss.then_some(i as u64 * 37 % 5), ..t })
                .collect();
            let cpmd = |w: u64| 3 * w;
            let fast = charge(&ts, &oh, rule, Some(&cpmd), g).unwrap();
            let cpd = super::super::accounting::cpmd_per_task(&ts, Some(&cpmd)).unwrap();
            prop_assert_eq!(fast, super::reference::charge(&ts, &oh, rule, &cpd, g));
        }

        #[test]
        fn agrees_with_the_exact_reference_at_scale(
            periods in proptest::collection::vec(1_000_000u64..1_000_000_000, 0..40),
            scale in prop_oneof![Just(1u64), Just(1000), 1u64..5000],
            oh in overheads(),
            rule in rules(),
            g in prop_oneof![Just(1u64), Just(1000)],
        ) {
            let ts: Vec<TaskIn> = periods
                .iter()
                .enumerate()
                .map(|(i, &t)| TaskIn { c: t / (7 + i as u64 % 50), t, d: t - t / 9, wss: None })
                .collect();
            let big = Overheads {
                release_latency: oh.release_latency * scale,
                release: oh.release * scale,
                schedule: oh.schedule * scale,
                context_switch: oh.context_switch * scale,
                ipi: oh.ipi * scale,
                tick: oh.tick * scale,
                tick_period: 1_000_000,
                request: oh.request * scale,
                dsp: oh.dsp * scale,
                ..Overheads::default()
            };
            let fast = charge(&ts, &big, rule, None, g).unwrap();
            let cpd = vec![0; ts.len()];
            prop_assert_eq!(fast, super::reference::charge(&ts, &big, rule, &cpd, g));
        }
    }
}

mod architectures {
    use crate::overheads::accounting::Charged;
    use crate::overheads::arch::{account, ArchKind};
    use schedlab_model::overheads::{OverheadFile, Stat};
    use schedlab_model::{Duration, Task, TaskSet};

    /// The overheads of `global_hand_worked` for every architecture, as constants (max), plus
    /// Δreq 4 and Δdsp 6 for message-passing.
    fn file() -> OverheadFile {
        let mut text = String::from("schema = 1\ntick_period = \"1us\"\n");
        for arch in [
            "global-lock",
            "global-lock-di",
            "partitioned",
            "message-passing",
            "linux-deadline",
        ] {
            for (name, v) in [
                ("release_latency", 2),
                ("release", 5),
                ("schedule", 3),
                ("context_switch", 1),
                ("ipi", 7),
                ("tick", 10),
                ("request", 4),
                ("dsp", 6),
            ] {
                if matches!(name, "request" | "dsp") && arch != "message-passing" {
                    continue;
                }
                text.push_str(&format!("[arch.{arch}.{name}]\nmax = [[1, {v}]]\n"));
            }
        }
        OverheadFile::parse_toml(&text).unwrap()
    }

    fn set() -> TaskSet {
        let ns = Duration::from_ns;
        TaskSet::new(vec![
            Task::new(ns(100), ns(1000), ns(1000)).unwrap(),
            Task::new(ns(200), ns(400), ns(500)).unwrap(),
        ])
        .unwrap()
    }

    #[test]
    fn each_architecture_reads_its_section_and_counts_its_cpus() {
        let f = file();
        let run = |arch: &str, di: bool, m: u32| {
            account(
                &set(),
                &f,
                ArchKind::parse(arch, di).unwrap(),
                Stat::Max,
                m,
                1,
            )
            .unwrap()
        };
        let gl = run("global-lock", false, 4);
        assert_eq!(
            gl.charged,
            Charged::Ok(vec![(159, 998, 998), (262, 498, 398)])
        );
        assert_eq!(gl.cpus_for_jobs, 4);
        assert_eq!(run("linux-deadline", false, 4).charged, gl.charged);
        let di = run("global-lock", true, 4);
        assert_eq!((di.arch, di.cpus_for_jobs), ("global-lock-di", 3));
        assert_eq!(
            di.charged,
            Charged::Ok(vec![(142, 998, 998), (243, 498, 398)])
        );
        assert_eq!(run("global-lock-di", false, 4), di);
        let mp = run("message-passing", false, 4);
        assert_eq!(mp.cpus_for_jobs, 3);
        assert_eq!(
            mp.charged,
            Charged::Ok(vec![(163, 998, 998), (264, 498, 398)])
        );
        let p = run("partitioned", false, 4);
        assert_eq!(
            (p.cpus_for_jobs, p.charged.clone()),
            (4, Charged::Ok(vec![(152, 998, 998), (255, 498, 398)]))
        );
        assert_eq!(
            p.to_json(),
            serde_json::json!({"arch": "partitioned", "stat": "max", "cpus_for_jobs": 4, "status": "ok",
                               "failed_task": null, "tasks": [[152, 998, 998], [255, 498, 398]]})
        );
    }

    #[test]
    fn missing_curves_and_options_are_named() {
        let f = OverheadFile::parse_toml(
            "schema = 1\ntick_period = \"4ms\"\n[arch.global-lock.release]\nmax = [[1, 5]]\n",
        )
        .unwrap();
        let e = account(&set(), &f, ArchKind::GlobalLock, Stat::Max, 2, 1).unwrap_err();
        assert!(
            e.contains("arch `global-lock` has no `release_latency` curve"),
            "{e}"
        );
        let e = account(&set(), &file(), ArchKind::GlobalLock, Stat::Avg, 2, 1).unwrap_err();
        assert!(e.contains("avg"), "{e}");
        let e = ArchKind::parse("partitioned", true).unwrap_err();
        assert!(
            e.contains("--dedicated-irq-cpu applies to --arch global-lock only"),
            "{e}"
        );
        let e = ArchKind::parse("global-lok", false).unwrap_err();
        assert!(e.contains("did you mean `global-lock`?"), "{e}");
        // A working set needs the architecture's CPMD curve (migration for global ones).
        let mut ts: Vec<Task> = set().iter().cloned().collect();
        ts[0].wss = Some(4096);
        let ts = TaskSet::new(ts).unwrap();
        let e = account(&ts, &file(), ArchKind::GlobalLock, Stat::Max, 2, 1).unwrap_err();
        assert!(e.contains("[cpmd.migration]"), "{e}");
        let e = account(&ts, &file(), ArchKind::Partitioned, Stat::Max, 2, 1).unwrap_err();
        assert!(e.contains("[cpmd.preemption]"), "{e}");
    }

    /// A curve of another architecture, an absurd value, a statistic the file lacks: errors
    /// that name the file, the architecture, the overhead and the field — never a charge.
    #[test]
    fn bad_overheads_are_named() {
        let text = file().to_toml();
        let with = |extra: &str| OverheadFile::parse_toml(&format!("{text}{extra}")).unwrap();
        let f = with("[arch.global-lock.dsp]\nmax = [[1, 6]]\n");
        let e = account(&set(), &f, ArchKind::GlobalLock, Stat::Max, 2, 1).unwrap_err();
        assert!(
            e.contains(
                "arch `global-lock` has a `dsp` curve, an overhead only message-passing pays"
            ),
            "{e}"
        );
        assert_eq!(
            super::super::arch::in_file(&e, "oh.toml"),
            e.replacen("overhead file: ", "overhead file oh.toml: ", 1)
        );
        // Message-passing itself is fine with it.
        assert!(account(&set(), &f, ArchKind::MessagePassing, Stat::Max, 2, 1).is_ok());
        let absurd = text.replace(
            "[arch.partitioned.schedule]\nmax = [[1, 3]]",
            "[arch.partitioned.schedule]\nmax = [[1, 3600000000001]]",
        );
        assert_ne!(absurd, text);
        let f = OverheadFile::parse_toml(&absurd).unwrap();
        let e = account(&set(), &f, ArchKind::Partitioned, Stat::Max, 2, 1).unwrap_err();
        assert!(
            e.contains("arch `partitioned`, overhead `schedule`, field `max`: 3600000000001 ns"),
            "{e}"
        );
        let e = account(&set(), &file(), ArchKind::Partitioned, Stat::Avg, 2, 1).unwrap_err();
        assert!(
            e.contains("arch `partitioned`, overhead `release_latency`: no `avg` values"),
            "{e}"
        );
        // Negative values never reach the analysis: the file's parser names them.
        let e = OverheadFile::parse_toml(&text.replace("max = [[1, 3]]", "max = [[1, -3]]"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `max`") && e.contains("-3"), "{e}");
    }
}

/// The accounting computed the slow, obvious way: every term an exact rational, as the module
/// documentation writes it. `charge` must agree with it everywhere.
pub(crate) mod reference {
    use super::super::accounting::{Charged, Overheads, Rule, TaskIn};
    use num_bigint::BigInt;
    use num_integer::Integer;
    use num_rational::BigRational;
    use num_traits::{One, Signed, ToPrimitive, Zero};

    fn int(v: u64) -> BigRational {
        BigRational::from_integer(BigInt::from(v))
    }

    /// `cpd[i]` is Δcpd_i.
    pub(crate) fn charge(
        tasks: &[TaskIn],
        oh: &Overheads,
        rule: Rule,
        cpd: &[u64],
        granularity: u64,
    ) -> Charged {
        let n = tasks.len() as u64;
        let u_tck = if oh.tick_period == 0 {
            BigRational::zero()
        } else {
            BigRational::new(BigInt::from(oh.tick), BigInt::from(oh.tick_period))
        };
        let dev = int(oh.release_latency);
        let (scale, cpre, per_job, extra) = match rule {
            Rule::PreemptionCentric {
                dedicated_irq,
                partition,
                cpus,
            } => {
                let u_rel = if dedicated_irq {
                    BigRational::zero()
                } else {
                    tasks
                        .iter()
                        .map(|t| BigRational::new(BigInt::from(oh.release), BigInt::from(t.t)))
                        .fold(BigRational::zero(), |a, b| a + b)
                };
                let scale = BigRational::one() - &u_tck - &u_rel;
                let mut pre = int(oh.tick) + &dev * &u_tck;
                if !dedicated_irq {
                    pre += int(n * oh.release) + &dev * &u_rel;
                }
                let x = if dedicated_irq {
                    oh.ipi + oh.release
                } else if cpus > 1 && !partition {
                    oh.ipi
                } else {
                    0
                };
                (scale, pre, 2 * (oh.schedule + oh.context_switch), x)
            }
            Rule::SemiPartitioned => (
                BigRational::one(),
                BigRational::zero(),
                u64::try_from(oh.rtps_whole_margin(1)).unwrap(),
                0,
            ),
            Rule::MessagePassing => {
                let scale = BigRational::one() - &u_tck;
                let pre = int(oh.tick) + &dev * &u_tck;
                let extra = oh.request + oh.dsp + 2 * oh.ipi + oh.release;
                (scale, pre, 3 * (oh.schedule + oh.context_switch), extra)
            }
        };
        if !scale.is_positive() {
            return Charged::IrqOverload;
        }
        let cpre = cpre / &scale;
        let g = BigInt::from(granularity);
        let mut out = Vec::new();
        for (i, task) in tasks.iter().enumerate() {
            let c = int(task.c + per_job + cpd[i]) / &scale + int(2) * &cpre + int(extra);
            let t = i128::from(task.t) - i128::from(oh.release_latency);
            let d = i128::from(task.d) - i128::from(oh.release_latency);
            if t <= 0 || d <= 0 || c > BigRational::from_integer(BigInt::from(t.min(d))) {
                return Charged::TaskInfeasible(i);
            }
            let c_round = (c.ceil().to_integer().div_ceil(&g) * &g).to_u64().unwrap();
            let down = |v: i128| (BigInt::from(v).div_floor(&g) * &g).to_u64().unwrap();
            let (t_round, d_round) = (down(t), down(d));
            if c_round > t_round.min(d_round) {
                return Charged::TaskInfeasible(i);
            }
            out.push((c_round, t_round, d_round));
        }
        Charged::Ok(out)
    }
}
