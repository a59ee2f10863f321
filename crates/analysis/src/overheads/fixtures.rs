//! Overhead files and systems shared by the overhead-aware tests (test builds only).

#![allow(clippy::unwrap_used)]

use super::accounting::TaskIn;
use super::arch::ArchKind;
use super::context::{OverheadContext, OverheadSetup};
use crate::system::{Params, Priorities, System};
use schedlab_model::overheads::{OverheadFile, OverheadName, Stat};
use std::sync::Arc;

/// `arch`'s section with every curve the analysis of `arch` reads at `value` ns (request and
/// dsp only for message-passing; the RTPS names for semi-partitioned), the tick quantum 1 ms.
pub(crate) fn constant(arch: &str, value: u64) -> OverheadFile {
    let mut names = vec![
        "release_latency",
        "release",
        "schedule",
        "context_switch",
        "ipi",
        "tick",
    ];
    if arch == "message-passing" {
        names.extend(["request", "dsp"]);
    }
    if arch == "semi-partitioned" {
        names = OverheadName::RTPS.iter().map(|n| n.key()).collect();
    }
    let mut text = String::from("schema = 1\ntick_period = \"1ms\"\n");
    for name in names {
        text.push_str(&format!("[arch.{arch}.{name}]\nmax = [[1, {value}]]\n"));
    }
    OverheadFile::parse_toml(&text).unwrap()
}

/// Every overhead 0 except Δsch = 5·n (n = the tasks charged together), so on one CPU
/// (uscale = 1, no IPI term) `C'' = C + 2·Δsch = C + 10·n`: adding a task to a CPU costs
/// every task already there 10 ns more.
pub(crate) fn schedule_5n(arch: &str) -> OverheadFile {
    let mut text = String::from("schema = 1\ntick_period = \"1ms\"\n");
    for name in [
        "release_latency",
        "release",
        "context_switch",
        "ipi",
        "tick",
    ] {
        text.push_str(&format!("[arch.{arch}.{name}]\nmax = [[1, 0]]\n"));
    }
    text.push_str(&format!(
        "[arch.{arch}.schedule]\nmax = [[1, 5], [2, 10]]\n"
    ));
    OverheadFile::parse_toml(&text).unwrap()
}

/// `file` charged for `arch` (maximum values, 1 ns granularity).
pub(crate) fn setup(file: OverheadFile, arch: ArchKind) -> OverheadSetup {
    OverheadSetup {
        file: Arc::new(file),
        arch,
        stat: Stat::Max,
        granularity: 1,
        source: "test".into(),
    }
}

/// `params` on `m` CPUs (DM priorities) with the overhead context of `setup`.
pub(crate) fn system(params: Vec<Params>, m: u32, setup: &OverheadSetup) -> System {
    let tasks = params
        .iter()
        .map(|p| TaskIn {
            c: p.c,
            t: p.t,
            d: p.d,
            wss: None,
        })
        .collect();
    system_of(params, tasks, m, setup)
}

/// As [`system`], with the tasks (and their working sets) the accounting reads given.
pub(crate) fn system_of(
    params: Vec<Params>,
    tasks: Vec<TaskIn>,
    m: u32,
    setup: &OverheadSetup,
) -> System {
    let ctx = OverheadContext {
        setup: setup.clone(),
        tasks,
        m,
    };
    System::from_params(params, m, Priorities::Dm)
        .unwrap()
        .with_overheads(Arc::new(ctx))
}
