//! `schedlab tests [--format table|json]`: every test with citation, assumptions, complexity
//! and parameters (with their defaults; set them with `--test NAME:key=value`).

use crate::output::outln;
use schedlab_analysis::{registry, Param, SchedTest};
use serde_json::json;

/// Prints the catalogue.
pub(crate) fn run(json_output: bool) -> anyhow::Result<()> {
    let mut tests: Vec<(String, Box<dyn SchedTest>)> =
        registry::all().into_iter().map(|t| (t.name(), t)).collect();
    if let Ok(cedf) = registry::by_name("cedf-k4") {
        tests.push(("cedf-k<size>".into(), cedf));
    }
    for (name, test) in tests {
        let i = test.info();
        let params: Vec<Param> = test.params();
        if json_output {
            let params: Vec<_> = params
                .iter()
                .map(|p| json!({"name": p.name, "default": p.value, "about": p.about}))
                .collect();
            outln!(
                "{}",
                json!({"test": name, "family": i.family, "kind": i.kind.name(),
                       "citation": i.citation, "assumptions": i.assumptions,
                       "complexity": i.complexity, "parameters": params})
            )?;
            continue;
        }
        outln!("{name}  [{}, {}]", i.family, i.kind.name())?;
        outln!("    {}", i.citation)?;
        outln!("    assumes: {}", i.assumptions)?;
        outln!("    complexity: {}", i.complexity)?;
        for p in params {
            outln!("    parameter {} = {}: {}", p.name, p.value, p.about)?;
        }
    }
    Ok(())
}
