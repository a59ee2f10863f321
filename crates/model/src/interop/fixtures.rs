//! Hand-made deployments for the writers' tests.

#![allow(clippy::unwrap_used)]

use super::deploy::{DeployedTask, Deployment, LinuxPolicy, Provenance, RootDomain};
use crate::time::Duration;

fn ms(x: u64) -> Duration {
    Duration::from_ms(x).unwrap()
}

fn us(x: u64) -> Duration {
    Duration::from_us(x).unwrap()
}

fn provenance(policy: &str, test: &str, linux: &str, margin: Option<Duration>) -> Provenance {
    Provenance {
        tool: "schedlab 0.1.0".to_string(),
        source: "examples/demo.toml".to_string(),
        policy: policy.to_string(),
        placement: "pedf-ffd (first fit decreasing, exact EDF admission): CPU 0: a, c; CPU 1: b"
            .to_string(),
        linux: linux.to_string(),
        test: test.to_string(),
        verdict: "schedulable".to_string(),
        accepted: true,
        overheads: None,
        dl_margin: margin,
        admission: margin.map(|_| {
            "CPU 0: Σ runtime/period = 0.325; CPU 1: 0.292 (limit 0.95 per CPU by default)"
                .to_string()
        }),
        notes: Vec::new(),
    }
}

/// P-EDF on 2 CPUs: a (2 ms / 10 ms) and c (1 ms / 20 ms, offset 1 ms) on CPU 0, b (3 ms /
/// 15 ms, D = 12 ms) on CPU 1; runtime = WCET + 500 µs.
pub(crate) fn pedf() -> Deployment {
    let dl = |c: u64, d: u64, t: u64| LinuxPolicy::Deadline {
        runtime: us(c * 1000 + 500),
        deadline: ms(d),
        period: ms(t),
    };
    let task = |index, ident: &str, c, d, t, offset, cpu: u32| DeployedTask {
        index,
        ident: ident.to_string(),
        policy: dl(c, d, t),
        cpus: vec![cpu],
        domain: Some(cpu as usize),
        wcet: ms(c),
        period: ms(t),
        deadline: ms(d),
        offset: ms(offset),
        wss: None,
    };
    Deployment {
        provenance: provenance(
            "pedf",
            "pedf-ffd",
            "SCHED_DEADLINE, one root domain per CPU (an exclusive cpuset each)",
            Some(us(500)),
        ),
        cpus: 2,
        domains: vec![RootDomain { cpus: vec![0] }, RootDomain { cpus: vec![1] }],
        tasks: vec![
            task(0, "a", 2, 10, 10, 0, 0),
            task(1, "b", 3, 12, 15, 0, 1),
            task(2, "c", 1, 20, 20, 1, 0),
        ],
        duration: Some(ms(2000)),
    }
}

/// P-FP on 2 CPUs, deadline monotonic: a (2 ms / 10 ms) priority 99 and c (1 ms / 20 ms)
/// priority 98 on CPU 0, b (3 ms / 15 ms) priority 99 on CPU 1.
pub(crate) fn pfp() -> Deployment {
    let task = |index, ident: &str, c, t, priority, cpu| DeployedTask {
        index,
        ident: ident.to_string(),
        policy: LinuxPolicy::Fifo { priority },
        cpus: vec![cpu],
        domain: None,
        wcet: ms(c),
        period: ms(t),
        deadline: ms(t),
        offset: Duration::ZERO,
        wss: None,
    };
    let mut p = provenance(
        "pfp",
        "pfp-ffd",
        "SCHED_FIFO, priorities dm per CPU: the highest → 99, then 98, … (ties by task index)",
        None,
    );
    p.placement = "pfp-ffd (first fit decreasing, exact response-time admission)".to_string();
    Deployment {
        provenance: p,
        cpus: 2,
        domains: Vec::new(),
        tasks: vec![
            task(0, "a", 2, 10, 99, 0),
            task(1, "b", 3, 15, 99, 1),
            task(2, "c", 1, 20, 98, 0),
        ],
        duration: None,
    }
}
