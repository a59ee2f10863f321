//! SimSo configurations (XML) → task file + policy.
//!
//! SimSo (Chéramy, Hladik, Déplanche, WATERS 2014; `simso/configuration/GenerateConfiguration.py`
//! writes the format and `parser.py` reads it) stores a simulation as
//!
//! ```xml
//! <simulation duration="420000000" cycles_per_ms="1000000" etm="wcet">
//!   <sched class="simso.schedulers.EDF" overhead="0" overhead_activate="0" overhead_terminate="0"/>
//!   <caches memory_access_time="100"/>
//!   <processors>
//!     <processor name="CPU 1" id="1" cs_overhead="0" cl_overhead="0" speed="1.0"/>
//!   </processors>
//!   <tasks>
//!     <task name="T1" id="1" task_type="Periodic" abort_on_miss="yes" period="7.0"
//!           activationDate="0.0" list_activation_dates="" deadline="7.0" base_cpi="1.0"
//!           instructions="0" mix="0.5" WCET="3.0" ACET="0" et_stddev="0" preemption_cost="0"/>
//!   </tasks>
//! </simulation>
//! ```
//!
//! Task times are milliseconds written by Python's `str(float)`; they are read as the
//! decimals they are ([`decimal`]), so `7.0` is exactly 7 ms, and a time with more than six
//! fractional digits is rounded to the nearest nanosecond with a note. The duration and
//! overheads are in cycles (`cycles_per_ms` of them per ms).
//!
//! What maps: each processor is one CPU (in document order; a task's `cpu` data field names a
//! processor by its `id`); each Periodic task is a task (`WCET`, `deadline`, `period`,
//! `activationDate` as the offset, the name); Sporadic tasks as said in [`tasks`]; the
//! scheduler class maps to a policy by the table of [`sched`], with RM priorities or FP's
//! `priority` data field written as each task's `priority` (smaller = higher, so that
//! `--priorities given` reproduces SimSo's order) and, for partitioned classes, the XML's
//! partition if it pins every task. What does not map — the duration, overheads, speeds,
//! caches, the execution-time model, `abort_on_miss`, CPI/instruction data, declared fields
//! no mapped scheduler reads — is one `unmapped` line per kind, naming the tasks or values.
//!
//! Bounds: the text ([`MAX_IMPORT_BYTES`]), XML nodes ([`MAX_XML_NODES`]; no DTD, so no entity
//! expansion), tasks ([`MAX_IMPORT_TASKS`]), processors ([`MAX_CPUS`]), activation dates per
//! task ([`tasks::MAX_ACTIVATION_DATES`]). O(size of the document + n log n) for n tasks.
//!
//! [`MAX_IMPORT_BYTES`]: crate::interop::import::MAX_IMPORT_BYTES
//! [`MAX_IMPORT_TASKS`]: crate::interop::import::MAX_IMPORT_TASKS
//! [`MAX_CPUS`]: crate::platform::MAX_CPUS

mod attrs;
pub mod decimal;
mod notes;
mod platform;
pub mod sched;
pub mod tasks;

#[cfg(test)]
mod tests;

use crate::file::TaskFile;
use crate::interop::import::{check_size, MAX_IMPORT_TASKS};
use crate::interop::{Imported, InteropError};
use crate::platform::Platform;
use crate::taskset::TaskSet;
use notes::Notes;

/// How messages name the format.
pub const FORMAT: &str = "SimSo XML";
/// XML nodes (elements, attributes' text, …) a configuration may have.
pub const MAX_XML_NODES: u32 = 4_000_000;

/// The SimSo scheduler classes that map to a schedlab policy, for messages and docs.
pub fn mapped_schedulers() -> String {
    sched::known()
}

/// Reads a SimSo configuration.
///
/// ```
/// let xml = r#"<simulation duration="30000000" cycles_per_ms="1000000" etm="wcet">
///   <sched class="simso.schedulers.EDF"/>
///   <processors><processor name="CPU 1" id="1"/><processor name="CPU 2" id="2"/></processors>
///   <tasks><task name="T1" id="1" period="7.0" deadline="7.0" WCET="3.0" abort_on_miss="no"/></tasks>
/// </simulation>"#;
/// let imported = schedlab_model::interop::simso::import(xml).unwrap();
/// assert_eq!(imported.policy.as_deref(), Some("gedf"));
/// assert_eq!(imported.file.platform.map(|p| p.cpus), Some(2));
/// assert_eq!(imported.file.tasks[0].wcet.to_string(), "3ms");
/// assert!(imported.unmapped[0].contains("--duration 30ms"));
/// ```
pub fn import(text: &str) -> Result<Imported, InteropError> {
    check_size(FORMAT, text.len())?;
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_XML_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        let message = match e {
            roxmltree::Error::NodesLimitReached => {
                format!("more than {MAX_XML_NODES} XML nodes, more than an import reads")
            }
            roxmltree::Error::DtdDetected => {
                "a DTD (<!DOCTYPE …>): SimSo's files have none, and an import refuses them"
                    .to_string()
            }
            other => other.to_string(),
        };
        InteropError::Xml {
            format: FORMAT,
            line: pos.row,
            column: pos.col,
            message,
        }
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "simulation" {
        return Err(InteropError::Field {
            format: FORMAT,
            place: "the document".to_string(),
            field: "root element".to_string(),
            message: format!(
                "`<{}>`, not `<simulation>`: not a SimSo configuration",
                root.tag_name().name()
            ),
        });
    }
    let mut notes = Notes::default();
    platform::simulation(root, &mut notes)?;
    let (mut sched, mut procs, mut tasks_el) = (None, None, None);
    for child in root.children().filter(|n| n.is_element()) {
        let name = child.tag_name().name();
        let slot = match name {
            "sched" => &mut sched,
            "processors" => &mut procs,
            "tasks" => &mut tasks_el,
            "caches" => {
                platform::caches(child, &mut notes);
                continue;
            }
            other => {
                notes.item("elements not in SimSo's format", format!("<{other}>"));
                continue;
            }
        };
        if slot.replace(child).is_some() {
            return Err(InteropError::Field {
                format: FORMAT,
                place: "<simulation>".to_string(),
                field: format!("<{name}>"),
                message: "given twice".to_string(),
            });
        }
    }
    let missing = |what: &str| InteropError::Field {
        format: FORMAT,
        place: "<simulation>".to_string(),
        field: format!("<{what}>"),
        message: "missing (SimSo requires it)".to_string(),
    };
    let mapping = platform::scheduler(sched.ok_or_else(|| missing("sched"))?, &mut notes)?;
    if let Some(note) = mapping.note {
        notes.line(note);
    }
    let procs = platform::processors(procs.ok_or_else(|| missing("processors"))?, &mut notes)?;
    let tasks = tasks::tasks(
        tasks_el.ok_or_else(|| missing("tasks"))?,
        &procs,
        mapping,
        &mut notes,
    )?;
    debug_assert!(tasks.len() <= MAX_IMPORT_TASKS);
    let model = |source| InteropError::Model {
        format: FORMAT,
        source,
    };
    let cpus = u32::try_from(procs.len()).unwrap_or(u32::MAX);
    let file = TaskFile {
        tasks: TaskSet::new(tasks).map_err(model)?,
        platform: Some(Platform::new(cpus).map_err(model)?),
    };
    let policy = if cpus == 1 {
        mapping.uni_policy
    } else {
        mapping.policy
    };
    Ok(Imported {
        file,
        policy: Some(policy.to_string()),
        unmapped: notes.into_lines(),
    })
}
