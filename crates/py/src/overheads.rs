//! The overhead keyword arguments, read once per call: `overheads=` (an overhead file's path or
//! a dict of the same structure) for `simulate`, and the whole set of `analyze`'s
//! (`overheads=`, `arch=`, `dedicated_irq_cpu=`, `overhead_stat=`, `granularity=`) as the
//! library's [`OverheadSetup`], checked as `schedlab analyze --overheads` checks its options but
//! with the messages naming the Python keywords. Also `charge_overheads`, the Python face of
//! `schedlab overheads charge`, and the conversion of accounting dicts back into the library's
//! types (so a `Result` built from its `to_dict()`, or unpickled, equals the original).
//!
//! The file is parsed once per call and shared by every task set through the `Arc` inside
//! [`OverheadSetup`].

use crate::args::{cpus_or_platform, duration_or, Cpus};
use crate::err;
use crate::pyvalue::{to_py, to_value};
use crate::taskset::{taskset_of, PyTaskSet};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use schedlab_analysis::overheads::accounting::Charged;
use schedlab_analysis::overheads::arch::{
    account, explain_account, in_file, Accounting, ArchKind, ARCH_NAMES,
};
use schedlab_analysis::overheads::context::{BinAccounting, OverheadSetup};
use schedlab_model::overheads::{OverheadFile, Stat};
use schedlab_model::{Duration, Platform, Task, TaskSet};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// The overhead file from a path or from a dict of the same structure, with where it came from
/// (the path, or `dict`).
pub(crate) fn overhead_file(
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<(OverheadFile, String)>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if value.is_instance_of::<PyDict>() {
        let v = to_value(value).map_err(|e| err(format!("overheads: {e}")))?;
        return Ok(Some((
            OverheadFile::from_value(&v).map_err(err)?,
            "dict".into(),
        )));
    }
    let path: PathBuf = value
        .extract()
        .map_err(|_| err("overheads= is an overhead file's path or a dict"))?;
    let file = OverheadFile::load(&path).map_err(err)?;
    Ok(Some((file, path.display().to_string())))
}

/// The overhead keyword arguments of `analyze`, `analyze_many` and `charge_overheads`, as
/// given.
pub(crate) struct OverheadArgs<'a, 'py> {
    pub(crate) overheads: Option<&'a Bound<'py, PyAny>>,
    pub(crate) arch: Option<&'a str>,
    pub(crate) dedicated_irq_cpu: bool,
    pub(crate) overhead_stat: &'a str,
    pub(crate) granularity: Option<&'a Bound<'py, PyAny>>,
}

const ONE_NS: Duration = Duration::from_ns(1);

impl OverheadArgs<'_, '_> {
    /// The setup asked for, or `None` without `overheads=`. `overheads=` and `arch=` go
    /// together; the other overhead keywords need them (as on the command line, where they
    /// require `--overheads`), so a keyword that would change nothing is an error.
    pub(crate) fn setup(&self) -> PyResult<Option<OverheadSetup>> {
        let granularity = duration_or("granularity", self.granularity, ONE_NS)?;
        let stat =
            Stat::parse(self.overhead_stat).map_err(|e| err(format!("overhead_stat: {e}")))?;
        let Some((file, path)) = overhead_file(self.overheads)? else {
            let stray = [
                (self.arch.is_some(), "arch="),
                (self.dedicated_irq_cpu, "dedicated_irq_cpu=True"),
                (stat != Stat::Max, "overhead_stat="),
                (granularity != ONE_NS, "granularity="),
            ];
            return match stray.iter().find(|(given, _)| *given) {
                Some((_, name)) => Err(err(format!("{name} needs overheads="))),
                None => Ok(None),
            };
        };
        let Some(arch) = self.arch else {
            return Err(err(format!(
                "overheads= needs arch= ({})",
                ARCH_NAMES.join(", ")
            )));
        };
        if self.dedicated_irq_cpu && !matches!(arch, "global-lock" | "global-lock-di") {
            return Err(err(format!(
                "dedicated_irq_cpu=True applies to arch=\"global-lock\" only, not `{arch}`"
            )));
        }
        let arch =
            ArchKind::parse(arch, self.dedicated_irq_cpu).map_err(|e| err(format!("arch: {e}")))?;
        if granularity.as_ns() == 0 {
            return Err(err("granularity must be at least 1ns"));
        }
        // Errors name the file by its path; a dict is the caller's own value, named by nothing.
        let from_dict = self.overheads.is_some_and(|v| v.is_instance_of::<PyDict>());
        Ok(Some(OverheadSetup {
            file: Arc::new(file),
            arch,
            stat,
            granularity: granularity.as_ns(),
            source: if from_dict { String::new() } else { path },
        }))
    }
}

/// The CPUs left for jobs on `cpus` CPUs; an error when the architecture keeps the only one.
pub(crate) fn cpus_for_jobs(setup: &OverheadSetup, cpus: u32) -> Result<u32, String> {
    match setup.arch.cpus_for_jobs(cpus) {
        0 => Err(format!(
            "arch=\"{}\" keeps one CPU from jobs, so it needs cpus=2 or more",
            setup.arch.section()
        )),
        jobs => Ok(jobs),
    }
}

/// `tasks` with the charged `(C, T, D)` of each task; names and every other field kept.
fn inflated(tasks: &TaskSet, charged: &[(u64, u64, u64)]) -> Result<TaskSet, String> {
    let inflated = tasks
        .iter()
        .zip(charged)
        .map(|(t, &(c, p, d))| {
            let mut task: Task = t.clone();
            task.wcet = Duration::from_ns(c);
            task.period = Duration::from_ns(p);
            task.deadline = Duration::from_ns(d);
            task
        })
        .collect();
    TaskSet::new(inflated).map_err(|e| e.to_string())
}

/// Charges a task set with an architecture's overheads, as `schedlab overheads charge` does:
/// returns the `"accounting"` object of `schedlab analyze --overheads --format json`
/// (`arch`, `stat`, `cpus_for_jobs`, `status`, `failed_task`, `tasks`) plus `"taskset"`, the
/// inflated task set (names and other fields kept, platform = the CPUs left for jobs, as
/// `overheads charge -o` writes it), or `None` when the accounting failed (`status` says how),
/// and `"breakdown"`, the terms `overheads charge` prints (`Explanation::to_json`).
#[pyfunction]
#[pyo3(signature = (taskset, cpus=None, *, overheads, arch, dedicated_irq_cpu=false,
                    overhead_stat="max", granularity=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn charge_overheads<'py>(
    py: Python<'py>,
    taskset: &Bound<'py, PyAny>,
    cpus: Option<Cpus>,
    overheads: &Bound<'py, PyAny>,
    arch: &str,
    dedicated_irq_cpu: bool,
    overhead_stat: &str,
    granularity: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let set = taskset_of(taskset)?;
    let set = set.get();
    let m = cpus_or_platform(cpus, set.platform_cpus())?;
    if overheads.is_none() {
        return Err(err("overheads= is an overhead file's path or a dict"));
    }
    let args = OverheadArgs {
        overheads: Some(overheads),
        arch: Some(arch),
        dedicated_irq_cpu,
        overhead_stat,
        granularity,
    };
    let Some(setup) = args.setup()? else {
        return Err(err("overheads= is an overhead file's path or a dict"));
    };
    cpus_for_jobs(&setup, m).map_err(err)?;
    let (accounting, charged_set, breakdown) = py
        .allow_threads(|| -> Result<_, String> {
            let acc = account(
                &set.tasks,
                &setup.file,
                setup.arch,
                setup.stat,
                m,
                setup.granularity,
            )
            .map_err(|e| in_file(&e, &setup.source))?;
            let terms = explain_account(&set.tasks, &setup.file, setup.arch, setup.stat, m)
                .map_err(|e| in_file(&e, &setup.source))?;
            let wcets: Vec<u64> = set.tasks.iter().map(|t| t.wcet.as_ns()).collect();
            let breakdown = terms.to_json(&wcets);
            let charged_set = match &acc.charged {
                Charged::Ok(params) => Some(PyTaskSet {
                    tasks: inflated(&set.tasks, params)?,
                    platform: Platform::new(acc.cpus_for_jobs).ok(),
                    realised_utilization: None,
                }),
                _ => None,
            };
            Ok((acc, charged_set, breakdown))
        })
        .map_err(err)?;
    let out = to_py(py, &accounting.to_json())?;
    let dict = out.downcast::<PyDict>()?;
    dict.set_item("taskset", charged_set)?;
    dict.set_item("breakdown", to_py(py, &breakdown)?)?;
    Ok(out)
}

/// An [`Accounting`] from its JSON form ([`Accounting::to_json`]); `what` names it in errors.
pub(crate) fn accounting_of(value: &Value, what: &str) -> Result<Accounting, String> {
    let field = |key: &str| {
        value
            .get(key)
            .ok_or_else(|| format!("{what}: missing `{key}`"))
    };
    let text = |key: &str| -> Result<&str, String> {
        field(key)?
            .as_str()
            .ok_or_else(|| format!("{what}: `{key}` is not a string"))
    };
    let arch_name = text("arch")?;
    let arch = ARCH_NAMES
        .iter()
        .copied()
        .find(|&a| a == arch_name)
        .ok_or_else(|| {
            format!(
                "{what}: unknown `arch` `{arch_name}` (known: {})",
                ARCH_NAMES.join(", ")
            )
        })?;
    let stat = Stat::parse(text("stat")?).map_err(|e| format!("{what}: `stat`: {e}"))?;
    let cpus_for_jobs = field("cpus_for_jobs")?
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("{what}: `cpus_for_jobs` is not a CPU count"))?;
    let charged = match text("status")? {
        "ok" => {
            let triple = |t: &Value| -> Option<(u64, u64, u64)> {
                match t.as_array()?.as_slice() {
                    [c, p, d] => Some((c.as_u64()?, p.as_u64()?, d.as_u64()?)),
                    _ => None,
                }
            };
            let tasks = field("tasks")?
                .as_array()
                .and_then(|l| l.iter().map(triple).collect::<Option<Vec<_>>>())
                .ok_or_else(|| {
                    format!("{what}: `tasks` is not a list of [C, T, D] in nanoseconds")
                })?;
            Charged::Ok(tasks)
        }
        "irq-overload" => Charged::IrqOverload,
        "task-infeasible" => {
            let i = field("failed_task")?
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| format!("{what}: `failed_task` is not a task index"))?;
            Charged::TaskInfeasible(i)
        }
        other => {
            return Err(format!(
                "{what}: unknown `status` `{other}` (known: ok, irq-overload, task-infeasible)"
            ))
        }
    };
    Ok(Accounting {
        arch,
        stat,
        cpus_for_jobs,
        charged,
    })
}

/// A [`BinAccounting`] from its JSON form ([`BinAccounting::to_json`]: `per_cpu` or
/// `per_cluster`, and `misfits`).
pub(crate) fn bin_accounting_of(value: &Value) -> Result<BinAccounting, String> {
    let what = "accounting";
    let (key, bins) = match (value.get("per_cpu"), value.get("per_cluster")) {
        (Some(b), None) => ("per_cpu", b),
        (None, Some(b)) => ("per_cluster", b),
        _ => {
            return Err(format!(
                "{what}: needs exactly one of `per_cpu` and `per_cluster`"
            ))
        }
    };
    let bins = bins
        .as_array()
        .ok_or_else(|| format!("{what}: `{key}` is not a list"))?
        .iter()
        .enumerate()
        .map(|(i, b)| accounting_of(b, &format!("{what}: {key}[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let misfits = value
        .get("misfits")
        .ok_or_else(|| format!("{what}: missing `misfits`"))?
        .as_array()
        .and_then(|l| {
            l.iter()
                .map(|i| i.as_u64().and_then(|i| usize::try_from(i).ok()))
                .collect::<Option<Vec<_>>>()
        })
        .ok_or_else(|| format!("{what}: `misfits` is not a list of task indices"))?;
    Ok(BinAccounting { key, bins, misfits })
}
