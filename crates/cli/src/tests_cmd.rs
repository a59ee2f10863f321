//! `schedlab tests [--format table|json]`: every test with citation, assumptions, complexity
//! and parameters (with their defaults; set them with `--test NAME:key=value`).

use crate::output::outln;
use schedlab_analysis::{registry, Param, SchedTest};

/// Prints the catalogue.
pub(crate) fn run(json_output: bool) -> anyhow::Result<()> {
    if json_output {
        for entry in schedlab_analysis::json::catalogue() {
            outln!("{entry}")?;
        }
        return Ok(());
    }
    let mut tests: Vec<(String, Box<dyn SchedTest>)> =
        registry::all().into_iter().map(|t| (t.name(), t)).collect();
    if let Ok(cedf) = registry::by_name("cedf-k4") {
        tests.push(("cedf-k<size>".into(), cedf));
    }
    for (name, test) in tests {
        let i = test.info();
        let params: Vec<Param> = test.params();
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
