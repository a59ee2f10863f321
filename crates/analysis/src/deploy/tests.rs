#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::overheads::arch::ArchKind;
use crate::overheads::fixtures;
use proptest::prelude::*;
use schedlab_model::interop::deploy::{LinuxPolicy, RootDomain};
use schedlab_model::Task;

fn ms(x: u64) -> Duration {
    Duration::from_ms(x).unwrap()
}

/// `(name, C ms, T ms)` tasks, implicit deadlines.
fn set(tasks: &[(&str, u64, u64)]) -> TaskSet {
    TaskSet::new(
        tasks
            .iter()
            .map(|&(n, c, t)| Task::implicit(ms(c), ms(t)).unwrap().named(n))
            .collect(),
    )
    .unwrap()
}

fn request<'a>(tasks: &'a TaskSet, policy: &'a str) -> DeployRequest<'a> {
    DeployRequest {
        tasks,
        cpus: 2,
        policy,
        partition: "ffd",
        priorities: Priorities::Dm,
        cluster_size: None,
        test: None,
        overheads: None,
        dl_margin: DEFAULT_DL_MARGIN,
        force: false,
        duration: Some(ms(2000)),
        source: "set.toml",
    }
}

/// 0.6, 0.5 and 0.2: first fit decreasing puts t1 and t3 on CPU 0 (0.8), t2 on CPU 1.
fn three() -> TaskSet {
    set(&[("t1", 6, 10), ("t2", 5, 10), ("t3", 4, 20)])
}

fn dl(runtime_us: u64, d: u64, t: u64) -> LinuxPolicy {
    LinuxPolicy::Deadline {
        runtime: Duration::from_us(runtime_us).unwrap(),
        deadline: ms(d),
        period: ms(t),
    }
}

/// The hand-checked P-EDF deployment: the `pedf-ffd` partition, runtime = C + 500 µs, one
/// root domain per CPU, the kernel's admission per CPU.
#[test]
fn pedf_ffd_on_two_cpus() {
    let tasks = three();
    let dep = plan(&request(&tasks, "pedf")).unwrap();
    assert_eq!(
        dep.domains,
        vec![RootDomain { cpus: vec![0] }, RootDomain { cpus: vec![1] }]
    );
    let got: Vec<_> = dep
        .tasks
        .iter()
        .map(|t| (t.ident.as_str(), t.policy, t.cpus.clone(), t.domain))
        .collect();
    assert_eq!(
        got,
        vec![
            ("t1", dl(6500, 10, 10), vec![0], Some(0)),
            ("t2", dl(5500, 10, 10), vec![1], Some(1)),
            ("t3", dl(4500, 20, 20), vec![0], Some(0)),
        ]
    );
    let p = &dep.provenance;
    assert_eq!(p.test, "pedf-ffd");
    assert_eq!(p.verdict, "schedulable");
    assert!(p.accepted);
    assert_eq!(
        p.placement,
        "pedf-ffd (bin packing with exact EDF admission per CPU): CPU 0: t1, t3; CPU 1: t2"
    );
    assert_eq!(p.dl_margin, Some(DEFAULT_DL_MARGIN));
    assert_eq!(
        p.admission.as_deref(),
        Some("CPU 0: Σ runtime/period = 0.875; CPU 1: Σ runtime/period = 0.550 (the kernel's limit: 0.95 per CPU of each root domain by default, sched_rt_runtime_us / sched_rt_period_us)")
    );
    assert_eq!(p.overheads, None);
    assert_eq!(p.tool, TOOL);
    assert!(p
        .linux
        .starts_with("SCHED_DEADLINE, one root domain per CPU"));
    assert_eq!(dep.duration, Some(ms(2000)));
}

/// P-FP, deadline monotonic: 99 downward on each CPU.
#[test]
fn pfp_priorities_per_cpu() {
    let tasks = three();
    let dep = plan(&request(&tasks, "pfp")).unwrap();
    let got: Vec<_> = dep
        .tasks
        .iter()
        .map(|t| (t.policy, t.cpus.clone(), t.domain))
        .collect();
    assert_eq!(
        got,
        vec![
            (LinuxPolicy::Fifo { priority: 99 }, vec![0], None),
            (LinuxPolicy::Fifo { priority: 99 }, vec![1], None),
            (LinuxPolicy::Fifo { priority: 98 }, vec![0], None),
        ]
    );
    assert!(dep.domains.is_empty());
    assert_eq!(dep.provenance.test, "pfp-ffd");
    assert_eq!(dep.provenance.dl_margin, None);
    assert!(dep.provenance.linux.starts_with(
        "SCHED_FIFO, priorities dm (deadline monotonic) per CPU, each task pinned to its CPU"
    ));
    // Given priorities: the file's order (smaller is higher) decides, ties by index.
    let mut given: Vec<Task> = tasks.iter().cloned().collect();
    for (t, p) in given.iter_mut().zip([5, 1, 2]) {
        t.priority = Some(p);
    }
    let given = TaskSet::new(given).unwrap();
    let mut req = request(&given, "gfp");
    req.priorities = Priorities::Given;
    req.force = true;
    let dep = plan(&req).unwrap();
    let prio: Vec<_> = dep.tasks.iter().map(|t| t.policy).collect();
    assert_eq!(
        prio,
        vec![
            LinuxPolicy::Fifo { priority: 97 },
            LinuxPolicy::Fifo { priority: 99 },
            LinuxPolicy::Fifo { priority: 98 }
        ]
    );
    assert!(dep.tasks.iter().all(|t| t.cpus == vec![0, 1]));
    let mut req = request(&tasks, "gfp");
    req.priorities = Priorities::Given;
    let e = plan(&req).unwrap_err().to_string();
    assert!(e.starts_with("--priorities given: "), "{e}");
}

#[test]
fn gedf_is_one_root_domain_accepted_by_the_battery() {
    let tasks = set(&[("a", 2, 10), ("b", 3, 15), ("c", 1, 20)]);
    let dep = plan(&request(&tasks, "gedf")).unwrap();
    assert_eq!(dep.domains, vec![RootDomain { cpus: vec![0, 1] }]);
    assert!(dep
        .tasks
        .iter()
        .all(|t| t.cpus == vec![0, 1] && t.domain == Some(0)));
    assert_eq!(dep.provenance.test, "gedf");
    assert_eq!(dep.provenance.verdict, "schedulable (accepted by gedf-gfb)");
    assert!(dep.provenance.placement.starts_with("global over CPUs 0-1"));
    // `sd` is the same kernel scheduler.
    assert_eq!(plan(&request(&tasks, "sd")).unwrap().tasks, dep.tasks);
    let mut req = request(&tasks, "gedf");
    req.test = Some("gedf-rta");
    assert_eq!(plan(&req).unwrap().provenance.test, "gedf-rta");
    req.test = Some("gfp-rta");
    assert_eq!(
        plan(&req).unwrap_err().to_string(),
        "--test gfp-rta is a global-fp test; policy gedf runs global EDF: name a global-edf test (e.g. gedf)"
    );
    req.test = Some("gedf-nope");
    assert!(plan(&req)
        .unwrap_err()
        .to_string()
        .starts_with("--test: unknown test"));
}

#[test]
fn cedf_makes_one_root_domain_per_cluster() {
    let tasks = set(&[("a", 6, 10), ("b", 6, 10), ("c", 6, 10), ("d", 6, 10)]);
    let mut req = request(&tasks, "cedf");
    req.cpus = 4;
    assert_eq!(
        plan(&req).unwrap_err().to_string(),
        "nothing to export: policy `cedf` needs a cluster size (--cluster-size K)"
    );
    req.cluster_size = Some(2);
    let dep = plan(&req).unwrap();
    assert_eq!(
        dep.domains,
        vec![
            RootDomain { cpus: vec![0, 1] },
            RootDomain { cpus: vec![2, 3] }
        ]
    );
    assert_eq!(dep.provenance.test, "cedf-k2");
    for t in &dep.tasks {
        assert_eq!(t.cpus, dep.domains[t.domain.unwrap()].cpus);
    }
    assert!(
        dep.provenance.placement.contains("cluster 0 (CPUs 0-1): "),
        "{}",
        dep.provenance.placement
    );
}

/// Every policy Linux cannot express is refused with the reason and `schedlab run …`.
#[test]
fn unexpressible_policies_point_to_schedlab_run() {
    let tasks = three();
    for r in mapping::REFUSED {
        for name in r.names {
            let e = plan(&request(&tasks, name)).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("policy `{name}` cannot be exported to Linux: ")),
                "{e}"
            );
            assert!(
                e.ends_with(&format!("`schedlab run FILE {}`", r.run)),
                "{e}"
            );
        }
    }
    let e = plan(&request(&tasks, "hcbs")).unwrap_err().to_string();
    assert!(e.contains("linux-rt-groups), is partial: groups compete by the priority of their highest ready thread, not by server deadlines"), "{e}");
    assert_eq!(
        plan(&request(&tasks, "gedff")).unwrap_err().to_string(),
        "unknown policy `gedff`: Linux runs gedf, sd, pedf, cedf (SCHED_DEADLINE); gfp, pfp (SCHED_FIFO); every schedlab policy runs under `schedlab run --arch …`"
    );
}

#[test]
fn a_set_the_test_does_not_accept_needs_force() {
    let tasks = set(&[("a", 9, 10), ("b", 9, 10), ("c", 9, 10)]);
    let e = plan(&request(&tasks, "gfp")).unwrap_err().to_string();
    assert!(
        e.starts_with("gfp does not accept the set (not-shown): a deployment of it may miss deadlines; export it anyway with --force"),
        "{e}"
    );
    let mut req = request(&tasks, "gfp");
    req.force = true;
    let dep = plan(&req).unwrap();
    assert!(!dep.provenance.accepted);
    assert!(dep
        .header()
        .iter()
        .any(|l| l.starts_with("NOT ACCEPTED: gfp: not-shown")));
    // Partitioned: no placement, nothing to export, even with --force.
    let mut req = request(&tasks, "pedf");
    req.force = true;
    let e = plan(&req).unwrap_err().to_string();
    assert!(
        e.starts_with("nothing to export: `pedf-ffd` found no placement on 2 CPUs"),
        "{e}"
    );
    // SCHED_DEADLINE over the kernel's bandwidth: refused, or noted with --force.
    let mut req = request(&tasks, "gedf");
    req.force = true;
    let dep = plan(&req).unwrap();
    assert!(dep.provenance.notes.iter().any(|n| n.starts_with(
        "root domain CPUs 0-1: Σ runtime/period = 2.850 with the 500us margin exceeds the kernel's default limit 1.90"
    )), "{:?}", dep.provenance.notes);
}

#[test]
fn the_kernel_s_admission_refuses_a_large_margin() {
    let tasks = three();
    let mut req = request(&tasks, "pedf");
    req.dl_margin = Duration::from_us(1100).unwrap();
    let e = plan(&req).unwrap_err().to_string();
    assert_eq!(
        e,
        "root domain CPU 0: Σ runtime/period = 0.965 with the 1.1ms margin exceeds the kernel's default limit 0.95 (1 × sched_rt_runtime_us / sched_rt_period_us): the kernel would refuse a task (EBUSY); use a smaller --dl-margin, or raise the limit and export with --force"
    );
    // Exactly at the limit is admitted (the kernel's test is ≤).
    req.dl_margin = ms(1);
    assert!(plan(&req).is_ok());
}

#[test]
fn what_linux_cannot_take_names_the_task_and_field() {
    let ns = Duration::from_ns;
    let arbitrary = TaskSet::new(vec![Task::new(ms(1), ms(20), ms(10))
        .unwrap()
        .named("late")])
    .unwrap();
    assert_eq!(
        plan(&request(&arbitrary, "gedf")).unwrap_err().to_string(),
        "task 0 (`late`): field `deadline`: SCHED_DEADLINE needs deadline ≤ period, but the deadline 20ms exceeds the period 10ms; export it under SCHED_FIFO (--policy gfp or pfp)"
    );
    assert!(plan(&request(&arbitrary, "gfp")).is_ok());
    let slow = set(&[("slow", 100, 10_000)]);
    let e = plan(&request(&slow, "gedf")).unwrap_err().to_string();
    assert!(e.starts_with("task 0 (`slow`): field `period`: the period 10s is outside the kernel's default SCHED_DEADLINE periods, 100us to 4.194304s"), "{e}");
    let mut req = request(&slow, "gedf");
    req.force = true;
    assert!(plan(&req).unwrap().provenance.notes[0].ends_with("(exported with --force)"));
    let tiny = TaskSet::new(vec![Task::implicit(ns(500), ms(1)).unwrap()]).unwrap();
    let mut req = request(&tiny, "gedf");
    req.dl_margin = Duration::ZERO;
    assert_eq!(
        plan(&req).unwrap_err().to_string(),
        "task 0: field `wcet`: the SCHED_DEADLINE runtime 500ns (wcet + --dl-margin) is below the kernel's smallest, 1024ns"
    );
    let tight = TaskSet::new(vec![Task::new(
        ms(2),
        Duration::from_us(2300).unwrap(),
        ms(10),
    )
    .unwrap()
    .named("tight")])
    .unwrap();
    let dep = plan(&request(&tight, "gedf")).unwrap();
    assert_eq!(
        dep.tasks[0].policy,
        LinuxPolicy::Deadline {
            runtime: Duration::from_us(2300).unwrap(),
            deadline: Duration::from_us(2300).unwrap(),
            period: ms(10)
        }
    );
    assert!(dep
        .provenance
        .notes
        .iter()
        .any(|n| n
            == "tight: runtime capped at the deadline 2.3ms (wcet 2ms + margin 500us is longer)"));
    let mut with_affinity: Vec<Task> = three().iter().cloned().collect();
    with_affinity[1].affinity = Some(vec![1]);
    let e = plan(&request(&TaskSet::new(with_affinity).unwrap(), "gfp"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("task 1 (`t2`): field `affinity`: "), "{e}");
}

#[test]
fn a_pinned_file_is_checked_cpu_by_cpu() {
    let mut pinned: Vec<Task> = three().iter().cloned().collect();
    for (t, cpu) in pinned.iter_mut().zip([1, 0, 1]) {
        t.cpu = Some(cpu);
    }
    let pinned = TaskSet::new(pinned).unwrap();
    let dep = plan(&request(&pinned, "pedf")).unwrap();
    assert_eq!(dep.provenance.test, "edf on each cpu");
    assert_eq!(dep.provenance.verdict, "schedulable on every cpu");
    assert_eq!(
        dep.provenance.placement,
        "the file's `cpu` fields: CPU 0: t2; CPU 1: t1, t3"
    );
    let cpus: Vec<_> = dep.tasks.iter().map(|t| t.cpus.clone()).collect();
    assert_eq!(cpus, vec![vec![1], vec![0], vec![1]]);
    let mut over: Vec<Task> = three().iter().cloned().collect();
    for t in over.iter_mut() {
        t.cpu = Some(0);
    }
    let over = TaskSet::new(over).unwrap();
    let e = plan(&request(&over, "pfp")).unwrap_err().to_string();
    assert!(
        e.starts_with("fp-rta on each cpu does not accept the set (unschedulable on cpu 0)"),
        "{e}"
    );
    let mut req = request(&pinned, "pedf");
    req.test = Some("pedf-wfd");
    assert!(plan(&req)
        .unwrap_err()
        .to_string()
        .starts_with("--test pedf-wfd: the file pins every task"));
}

/// With overheads the placement and the verdict are the overhead-aware packing's (the
/// hand-worked `C'' = C + 10n` of `placement::tests`: FFD packs [[0, 3], [1, 2]] once charged).
#[test]
fn overheads_decide_as_in_analyze() {
    let tasks = TaskSet::new(
        [40u64, 30, 30, 20]
            .iter()
            .map(|&c| {
                Task::implicit(
                    Duration::from_us(c).unwrap(),
                    Duration::from_us(1000).unwrap(),
                )
                .unwrap()
            })
            .collect(),
    )
    .unwrap();
    let oh = fixtures::setup(fixtures::schedule_5n("partitioned"), ArchKind::Partitioned);
    let mut req = request(&tasks, "pedf");
    req.overheads = Some(&oh);
    req.dl_margin = Duration::from_us(10).unwrap();
    let dep = plan(&req).unwrap();
    let cpus: Vec<_> = dep.tasks.iter().map(|t| t.cpus[0]).collect();
    let expected = crate::placement::place(
        &tasks,
        2,
        1,
        crate::placement::LocalScheduler::Edf,
        "ffd",
        Priorities::Dm,
        Some(&oh),
    )
    .unwrap();
    assert_eq!(cpus, expected);
    assert_eq!(
        dep.provenance.overheads.as_deref(),
        Some(" (arch partitioned, statistic max, granularity 1 ns)")
            .map(|s| format!("{}{s}", oh.source))
            .as_deref()
    );
    let gl = fixtures::setup(fixtures::schedule_5n("global-lock"), ArchKind::GlobalLock);
    req.overheads = Some(&gl);
    let e = plan(&req).unwrap_err().to_string();
    assert!(
        e.contains("charged per CPU under --arch partitioned"),
        "{e}"
    );
}

fn arb_set() -> impl Strategy<Value = TaskSet> {
    prop::collection::vec((1u64..40, 1u64..5, 0u64..4), 1..8).prop_map(|v| {
        TaskSet::new(
            v.into_iter()
                .enumerate()
                .map(|(i, (c, k, slack))| {
                    let t = c * (k + 1) * 4;
                    let d = c + slack * (t - c) / 4;
                    Task::new(ms(c), ms(d.max(c)), ms(t))
                        .unwrap()
                        .named(format!("t{i}"))
                })
                .collect(),
        )
        .unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]
    /// Whatever deploys without --force was accepted; every task is on its domain's CPUs;
    /// SCHED_DEADLINE keeps runtime = min(C + margin, D) ≤ D ≤ T; SCHED_FIFO priorities are
    /// distinct per domain and follow deadline-monotonic order.
    #[test]
    fn deployments_keep_the_analysis_s_decisions(tasks in arb_set(), policy in prop::sample::select(vec!["gedf", "pedf", "gfp", "pfp"])) {
        let Ok(dep) = plan(&request(&tasks, policy)) else { return Ok(()) };
        prop_assert!(dep.provenance.accepted);
        for (t, task) in dep.tasks.iter().zip(tasks.iter()) {
            match t.policy {
                LinuxPolicy::Deadline { runtime, deadline, period } => {
                    prop_assert_eq!(runtime, (task.wcet + DEFAULT_DL_MARGIN).min(task.deadline));
                    prop_assert!(runtime <= deadline && deadline <= period);
                    prop_assert_eq!(&dep.domains[t.domain.unwrap()].cpus, &t.cpus);
                }
                LinuxPolicy::Fifo { priority } => {
                    prop_assert!((1..=99).contains(&priority));
                    for (u, other) in dep.tasks.iter().zip(tasks.iter()) {
                        if u.index == t.index || u.cpus != t.cpus { continue; }
                        let LinuxPolicy::Fifo { priority: q } = u.policy else { continue };
                        prop_assert_ne!(priority, q);
                        let higher = (task.deadline, t.index) < (other.deadline, u.index);
                        prop_assert_eq!(higher, priority > q);
                    }
                }
            }
        }
    }
}
