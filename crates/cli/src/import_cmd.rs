//! `schedlab import FILE [--from simso|csv|rt-app] [-o OUT.toml|.json] [--format table|json]`:
//! reads another tool's task set (docs/import.md) into a schedlab task file, and says which
//! policy the source's scheduler maps to, what did not map, and how to simulate it.
//!
//! Without `-o`, the task file (TOML) goes to standard output with the summary as `#` comment
//! lines above it, so the output is itself a task file; with `-o`, the file is written (TOML or
//! JSON by its extension) and the summary printed. `--format json` prints one JSON object:
//! source, file, output, policy, tasks, cpus, unmapped, simulate (the suggested command) and
//! task_file (the task file's JSON value).

use crate::output::outln;
use anyhow::{anyhow, bail, Result};
use schedlab_model::file::{self, Format};
use schedlab_model::interop::import::{import_file, simulate_arguments, Source};
use schedlab_model::interop::Imported;
use serde_json::json;
use std::path::PathBuf;

/// Options of `schedlab import`.
pub(crate) struct Options {
    pub(crate) file: PathBuf,
    pub(crate) from: Option<Source>,
    pub(crate) out: Option<PathBuf>,
    pub(crate) json: bool,
}

/// Runs the command.
pub(crate) fn run(o: &Options) -> Result<()> {
    // Refuse a bad output name before reading anything.
    let out_format = match &o.out {
        None => None,
        Some(path) => Some(Format::from_path(path).ok_or_else(|| {
            anyhow!(
                "-o {}: the task file's name must end in .toml or .json",
                path.display()
            )
        })?),
    };
    let (source, imported) = import_file(&o.file, o.from)?;
    let target = o
        .out
        .as_ref()
        .map_or_else(|| "OUT.toml".to_string(), |p| p.display().to_string());
    let mut command = vec!["schedlab".to_string(), "simulate".to_string(), target];
    command.extend(simulate_arguments(&imported));
    if imported.file.platform.is_none() {
        command.extend(["--cpus".to_string(), "M".to_string()]);
    }
    let command = command.join(" ");
    if let (Some(path), Some(format)) = (&o.out, out_format) {
        let text = file::to_string(&imported.file, format)?;
        std::fs::write(path, text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    if o.json {
        let summary = json!({
            "source": source.name(),
            "file": o.file.display().to_string(),
            "output": o.out.as_ref().map(|p| p.display().to_string()),
            "policy": imported.policy,
            "tasks": imported.file.tasks.len(),
            "cpus": imported.file.platform.as_ref().map(|p| p.cpus),
            "unmapped": imported.unmapped,
            "simulate": command,
            "task_file": file::to_value(&imported.file),
        });
        outln!("{summary}")?;
        return Ok(());
    }
    let summary = summary_lines(o, source, &imported, &command);
    if o.out.is_some() {
        for line in summary {
            outln!("{line}")?;
        }
        return Ok(());
    }
    for line in summary {
        if line.is_empty() {
            outln!("#")?;
        } else {
            outln!("# {line}")?;
        }
    }
    outln!()?;
    let text = file::to_string(&imported.file, Format::Toml)?;
    if text.trim().is_empty() {
        bail!("the imported task file printed empty");
    }
    crate::output::out!("{text}")?;
    Ok(())
}

/// The table summary: what was read, the policy, what did not map, how to simulate it.
fn summary_lines(o: &Options, source: Source, imported: &Imported, command: &str) -> Vec<String> {
    let cpus = imported.file.platform.as_ref().map_or_else(
        || "no platform (give --cpus when simulating)".to_string(),
        |p| format!("{} CPUs", p.cpus),
    );
    let mut lines = vec![format!(
        "imported {} tasks on {cpus} from {} ({})",
        imported.file.tasks.len(),
        o.file.display(),
        source.format()
    )];
    if let Some(out) = &o.out {
        lines.push(format!("wrote {}", out.display()));
    }
    lines.push(format!(
        "policy: {}",
        imported
            .policy
            .as_deref()
            .unwrap_or("none (the format names no scheduler)")
    ));
    if imported.unmapped.is_empty() {
        lines.push("not mapped: nothing".to_string());
    } else {
        lines.push(format!("not mapped ({}):", imported.unmapped.len()));
        lines.extend(imported.unmapped.iter().map(|l| format!("  - {l}")));
    }
    lines.push(format!("simulate: {command}"));
    lines
}
