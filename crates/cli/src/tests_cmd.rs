//! `schedlab tests [--format table|json]`: every test with citation, assumptions, complexity.

use schedlab_analysis::registry;
use serde_json::json;

/// Prints the catalogue.
pub(crate) fn run(json_output: bool) {
    let mut infos: Vec<_> = registry::all().iter().map(|t| t.info()).collect();
    if let Some(cedf) = registry::by_name("cedf-k4").ok().map(|t| t.info()) {
        let mut generic = cedf;
        generic.name = "cedf-k<size>".into();
        infos.push(generic);
    }
    if json_output {
        for i in infos {
            println!(
                "{}",
                json!({"test": i.name, "family": i.family, "kind": i.kind.name(),
                       "citation": i.citation, "assumptions": i.assumptions,
                       "complexity": i.complexity})
            );
        }
        return;
    }
    for i in infos {
        println!("{}  [{}, {}]", i.name, i.family, i.kind.name());
        println!("    {}", i.citation);
        println!("    assumes: {}", i.assumptions);
        println!("    complexity: {}", i.complexity);
    }
}
