//! `schedlab.export(taskset, cpus=None, *, policy, to="shell", …) -> str`: what
//! `schedlab export` writes, as a string (`schedlab_analysis::deploy::plan`, then
//! `schedlab_model::interop`; docs/export.md).

use crate::args::{cpus_or_platform, duration_arg, duration_or, Cpus};
use crate::err;
use crate::overheads::OverheadArgs;
use crate::taskset::taskset_of;
use pyo3::prelude::*;
use schedlab_analysis::deploy::{plan, DeployRequest, DEFAULT_DL_MARGIN};
use schedlab_analysis::Priorities;
use schedlab_model::interop::deploy::{render, ExportFormat, RenderOptions};

/// The deployment of `taskset` under `policy` on `cpus` CPUs in format `to` (`"rt-app"`,
/// `"shell"`, `"systemd"`), with the header saying which test accepted it. Raises
/// `schedlab.Error` for a policy Linux cannot express (the message names the `schedlab run`
/// that runs it), a set the test does not accept (unless `force=True`), or a task the kernel
/// cannot take. `duration` is the exported files' default run length (default `"10s"`;
/// `"inf"`: until stopped). `source` names the set in the header and in unit and log names
/// (default `taskset`); `launcher` is the schedlab binary of the default task body.
#[pyfunction]
#[pyo3(signature = (taskset, cpus=None, *, policy, to="shell", partition="ffd", priorities="dm",
    cluster_size=None, test=None, overheads=None, arch=None, overhead_stat="max",
    granularity=None, duration=None, dl_margin=None, force=false, launcher="schedlab",
    source=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn export(
    py: Python<'_>,
    taskset: &Bound<'_, PyAny>,
    cpus: Option<Cpus>,
    policy: &str,
    to: &str,
    partition: &str,
    priorities: &str,
    cluster_size: Option<u32>,
    test: Option<&str>,
    overheads: Option<&Bound<'_, PyAny>>,
    arch: Option<&str>,
    overhead_stat: &str,
    granularity: Option<&Bound<'_, PyAny>>,
    duration: Option<&Bound<'_, PyAny>>,
    dl_margin: Option<&Bound<'_, PyAny>>,
    force: bool,
    launcher: &str,
    source: Option<&str>,
) -> PyResult<String> {
    let set = taskset_of(taskset)?;
    let set = set.get();
    let m = cpus_or_platform(cpus, set.platform_cpus())?;
    let format = ExportFormat::parse(to).map_err(|e| err(format!("to: {e}")))?;
    let priorities = Priorities::parse(priorities).map_err(err)?;
    let setup = OverheadArgs {
        overheads,
        arch,
        dedicated_irq_cpu: false,
        overhead_stat,
        granularity,
    }
    .setup()?;
    let duration = match duration.filter(|d| !d.is_none()) {
        None => Some(schedlab_model::Duration::from_ns(10_000_000_000)),
        Some(d) if d.extract::<String>().is_ok_and(|s| s == "inf") => None,
        Some(d) => {
            let d = duration_arg("duration", d)?;
            if d.is_zero() {
                return Err(err(
                    "duration: must be longer than 0 (or \"inf\": until stopped)",
                ));
            }
            Some(d)
        }
    };
    let dl_margin = duration_or("dl_margin", dl_margin, DEFAULT_DL_MARGIN)?;
    let cluster_size = cluster_size.or(set.platform.as_ref().and_then(|p| p.cluster_size));
    let source = source.unwrap_or("taskset");
    let opts = RenderOptions {
        launcher: launcher.to_string(),
    };
    py.allow_threads(|| {
        let req = DeployRequest {
            tasks: &set.tasks,
            cpus: m,
            policy,
            partition,
            priorities,
            cluster_size,
            test,
            overheads: setup.as_ref(),
            dl_margin,
            force,
            duration,
            source,
        };
        plan(&req).map(|dep| render(&dep, format, &opts))
    })
    .map_err(err)
}
