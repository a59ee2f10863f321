//! The outputs of a finished experiment: `summary.csv`, `sets.csv`, the plots, `report.md`
//! and a self-contained `report.html` (the SVG plots inlined): the configuration, the plots
//! (one per metric of the file's `plots`),
//! where each evaluation drops below 100% and 50% acceptance, and the run's metadata.

use crate::config::{EvalKind, Experiment, ShapeKind};
use crate::error::ExpError;
use crate::metric::Metric;
use crate::plot::write_plots;
use crate::store::{DurableWriter, Manifest, Store};
use crate::summary::{aggregate, drop_below, summary_csv, x_description, Row, SETS_HEADER};
use std::fmt::Write as _;
use std::path::PathBuf;

/// What [`finish`] wrote.
#[derive(Clone, Debug)]
pub struct Outputs {
    /// The aggregated rows.
    pub rows: Vec<Row>,
    /// `report.html`.
    pub report_html: PathBuf,
    /// `report.md`.
    pub report_md: PathBuf,
    /// `summary.csv`.
    pub summary_csv: PathBuf,
}

/// Aggregates the stored chunks and writes every output file. `elapsed` is the wall time of
/// the run that just finished, if any (re-plotting has none). A folder whose run was
/// interrupted is [`ExpError::Incomplete`] (how many chunks are missing and the command that
/// resumes it), before anything is written.
pub fn finish(
    store: &Store,
    manifest: &Manifest,
    elapsed: Option<f64>,
) -> Result<Outputs, ExpError> {
    let e = &manifest.config;
    let all = crate::chunk::chunks(e);
    let (total, missing) = (all.len(), store.pending(&all)?.len());
    if missing > 0 {
        return Err(ExpError::Incomplete {
            dir: store.dir().to_path_buf(),
            missing,
            total,
            experiment_file: manifest.experiment_file.clone(),
            // A run with `--samples N` resumes with the same override.
            samples: e.file_samples.map(|_| e.samples),
        });
    }
    let mut sets = DurableWriter::create(&store.dir().join("sets.csv"))?;
    sets.writer()
        .write_all(SETS_HEADER.as_bytes())
        .map_err(|x| ExpError::io(store.dir().join("sets.csv"), x))?;
    let rows = aggregate(e, store, Some(sets.writer()))?;
    sets.commit()?;
    let summary_csv = store.write_output("summary.csv", summary_csv(&rows).as_bytes())?;
    let svgs = write_plots(e, &rows, store)?;
    let md = markdown(manifest, &rows, elapsed);
    let report_md = store.write_output("report.md", md.as_bytes())?;
    let html = html(manifest, &rows, elapsed, &svgs);
    let report_html = store.write_output("report.html", html.as_bytes())?;
    Ok(Outputs {
        rows,
        report_html,
        report_md,
        summary_csv,
    })
}

/// Configuration lines (Markdown list items without the bullet).
fn config_lines(e: &Experiment, rows: &[Row]) -> Vec<String> {
    let g = &e.generator;
    let platforms = e
        .platforms()
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let shape = match g.shape {
        ShapeKind::FixedSum => format!(
            "fixed-sum: utilization vector by `{}`",
            g.method.as_deref().unwrap_or("randfixedsum")
        ),
        ShapeKind::Count => format!(
            "count: independent utilizations `{}`",
            g.util_dist.as_deref().unwrap_or("?")
        ),
        ShapeKind::Fill => format!(
            "fill: utilizations `{}` added while the sum of C/T stays ≤ U (the task that would exceed U is dropped, [ChronOS §8.4]), so a set's realised U is below the target U of its point — by about half a task's utilization on average; plots and tables show the target U, and the realised mean is `mean_utilization` in `summary.csv`",
            g.util_dist.as_deref().unwrap_or("?")
        ),
        ShapeKind::Grow => format!(
            "grow: from {} tasks, one `{}` task at a time while U ≤ m; sets binned by realised U",
            g.grow_start
                .map_or_else(|| "m + 1".to_string(), |s| s.to_string()),
            g.util_dist.as_deref().unwrap_or("?")
        ),
        ShapeKind::Window => format!(
            "window: `{}` tasks added until the sum of C/T reaches the point, a set above the point + {} drawn again [RTWS §VI]",
            g.util_dist.as_deref().unwrap_or("?"),
            g.window_width.unwrap_or(0.0)
        ),
    };
    let n = match (g.tasks, g.tasks_per_cpu) {
        (Some(n), _) => format!("n = {n}"),
        (_, Some(k)) => format!("n = {k}·m"),
        _ => "n decided by the shape or the sweep".to_string(),
    };
    let first = e.points.first().copied().unwrap_or(0.0);
    let last = e.points.last().copied().unwrap_or(0.0);
    let mut lines = vec![
        format!("platforms: m = {platforms}"),
        format!(
            "generator: {shape}; {n}; periods `{}`; deadlines `{}`; WCET rounding `{}`{}",
            g.periods,
            g.deadlines,
            g.rounding,
            g.utility
                .as_ref()
                .map(|u| format!("; utilities `{u}`"))
                .unwrap_or_default()
                + &g.parallel
                    .as_ref()
                    .map(|p| format!("; fork-join structure `{p}`"))
                    .unwrap_or_default()
        ),
        format!(
            "sweep: {} points from {first} to {last}, {} task sets per point and platform{}; x = {}",
            e.points.len(),
            e.samples,
            e.file_samples
                .map(|f| format!(" (`--samples {}` on the command line; the file asks for {f})", e.samples))
                .unwrap_or_default(),
            x_description(e, rows)
        ),
        format!("seed {}, chunks of {} sets", e.seed, e.chunk_size),
    ];
    if !crate::metric::is_default_plots(&e.plots) {
        let names: Vec<&str> = e.plots.iter().map(|p| p.name()).collect();
        lines.push(format!("plots: {}", names.join(", ")));
    }
    for ev in &e.evaluations {
        lines.push(match &ev.kind {
            EvalKind::Analysis {
                test,
                priorities,
                overheads,
                reserved_cpus,
            } => {
                let cpus = match reserved_cpus {
                    0 => String::new(),
                    r => format!(", on m − {r} CPUs"),
                };
                let charged = match overheads {
                    None => String::new(),
                    Some(o) => format!(
                        ", charged with the `{}` overheads ({}, granularity {} ns)",
                        o.arch, o.stat, o.granularity_ns
                    ),
                };
                format!(
                    "`{}`: analysis `{test}` (priorities {priorities}){cpus}{charged}",
                    ev.label
                )
            }
            EvalKind::Simulation {
                policy,
                duration,
                exec,
                arrivals,
                overheads,
                ..
            } => format!(
                "`{}`: simulation under `{policy}` for {duration}, execution `{exec}`, arrivals `{arrivals}`, {}; schedulable = no deadline missed",
                ev.label,
                match overheads {
                    None => "no overheads".to_string(),
                    Some(o) => format!(
                        "overheads of architecture `{}` ({})",
                        o.arch.as_deref().unwrap_or("the file's only one"),
                        o.stat
                    ),
                }
            ),
        });
    }
    if let Some(o) = &e.overheads {
        lines.push(format!(
            "overhead file: `{}` (relative to the experiment file; charged by the simulations that use it; analyses are overhead-free)",
            o.display()
        ));
    }
    lines
}

/// The header of the threshold table.
const THRESHOLD_HEADER: [&str; 5] = [
    "evaluation",
    "m",
    "last point at 100%",
    "below 100% from (for good)",
    "below 50% from (for good)",
];

/// Rows of the threshold table: evaluation, m, the last point at 100%, and the points from
/// which acceptance stays below 100% and 50% ([`drop_below`]: a dip that recovers is not the
/// drop; it is named in the cell). For `fill` sets the cells give the realised mean U too.
fn threshold_rows(e: &Experiment, rows: &[Row]) -> Vec<[String; 5]> {
    let fill = e.generator.shape == ShapeKind::Fill && e.variable.is_utilization();
    let mut out = Vec::new();
    for ev in &e.evaluations {
        for m in e.platforms() {
            let mine: Vec<&Row> = rows
                .iter()
                .filter(|r| r.evaluation == ev.label && r.cpus == m && r.sets > 0)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let realised = |r: &Row| {
                if fill {
                    format!("; realised U {:.2}", r.mean_utilization)
                } else {
                    String::new()
                }
            };
            let show = |threshold: f64| {
                let d = drop_below(rows, &ev.label, m, threshold);
                let mut cell = d.first_below.map_or_else(
                    || "—".to_string(),
                    |r| format!("{} ({:.1}%{})", r.x, 100.0 * r.ratio, realised(r)),
                );
                if !d.dips.is_empty() {
                    let dips: Vec<String> = d
                        .dips
                        .iter()
                        .map(|r| format!("{} ({:.1}%)", r.x, 100.0 * r.ratio))
                        .collect();
                    cell.push_str(&format!("; earlier dips at {}", dips.join(", ")));
                }
                cell
            };
            let last_full = match drop_below(rows, &ev.label, m, 1.0).last_above {
                None => "—".to_string(),
                Some(r) if fill => format!("{} (realised U {:.2})", r.x, r.mean_utilization),
                Some(r) => r.x.to_string(),
            };
            out.push([
                ev.label.clone(),
                m.to_string(),
                last_full,
                show(1.0),
                show(0.5),
            ]);
        }
    }
    out
}

/// What the threshold table means (report.md and report.html).
const DROP_NOTE: &str = "A drop is where acceptance goes below the threshold for good: the first point after which it never comes back up. A dip that recovers (one point at 99% among points at 100%, sampling noise with a few hundred sets) is not the drop; it is listed in the cell. Curves that coincide in the plot are drawn a few pixels apart, and a curve identical to another says `= label` in the legend.";

fn metadata_lines(m: &Manifest, rows: &[Row], elapsed: Option<f64>) -> Vec<String> {
    let sets: u64 = m.config.samples * m.config.cells().len() as u64;
    let mut lines = vec![
        format!("schedlab {} (git {})", m.schedlab_version, m.git_revision),
        format!(
            "machine: {} ({} {}, {} logical CPUs)",
            m.machine.hostname, m.machine.os, m.machine.arch, m.machine.cpus
        ),
        format!("started {} from `{}`", m.started_utc, m.experiment_file),
        format!("config hash {}", m.config_hash),
        format!(
            "{sets} task sets (or sequences) generated; {} summary rows",
            rows.len()
        ),
    ];
    if let Some(t) = elapsed {
        lines.push(format!("this run: {t:.1} s wall"));
    }
    lines
}

fn markdown(m: &Manifest, rows: &[Row], elapsed: Option<f64>) -> String {
    let e = &m.config;
    let mut s = format!("# {}\n\n## Configuration\n\n", e.title);
    for l in config_lines(e, rows) {
        let _ = writeln!(s, "- {l}");
    }
    s.push('\n');
    for &metric in &e.plots {
        s.push_str(&metric_section_md(metric));
    }
    s.push_str(&format!(
        "## Where acceptance drops\n\n{DROP_NOTE}\n\n| {} |\n|---|---|---|---|---|\n",
        THRESHOLD_HEADER.join(" | ")
    ));
    for r in threshold_rows(e, rows) {
        let _ = writeln!(s, "| {} |", r.join(" | "));
    }
    s.push_str("\n## Run\n\n");
    for l in metadata_lines(m, rows, elapsed) {
        let _ = writeln!(s, "- {l}");
    }
    s
}

/// The `summary.csv` column of a metric.
fn column(metric: Metric) -> &'static str {
    match metric {
        Metric::Acceptance => "ratio",
        Metric::Dsr => "mean_dsr",
        Metric::Aur => "mean_aur",
        Metric::MaxTardiness => "mean_max_tardiness_ns",
        Metric::Preemptions => "mean_preemptions",
        Metric::Migrations => "mean_migrations",
        Metric::Aborts => "mean_aborts",
        Metric::ContextSwitches => "mean_context_switches",
        Metric::Steals => "mean_steals",
    }
}

/// The Markdown section of one plot (the acceptance section reads as it always did).
fn metric_section_md(metric: Metric) -> String {
    let name = metric.name();
    if metric == Metric::Acceptance {
        return "## Acceptance ratio\n\n![acceptance ratio](acceptance.svg)\n\n(PNG: `acceptance.png`; numbers with 95% Wilson intervals: `summary.csv`; every set: `sets.csv`.)\n\n".to_string();
    }
    format!(
        "## {}\n\n![{}]({name}.svg)\n\n(PNG: `{name}.png`; numbers: column `{}` of `summary.csv`; every set: `sets.csv`.)\n\n",
        metric.heading(),
        metric.y_desc(),
        column(metric)
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Markdown's inline code to HTML.
fn inline(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in escape(s).split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{part}</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

fn html(m: &Manifest, rows: &[Row], elapsed: Option<f64>, svgs: &[(Metric, String)]) -> String {
    let e = &m.config;
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>body{{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}}table{{border-collapse:collapse}}td,th{{border:1px solid #bbb;padding:.3em .6em;text-align:left}}code{{background:#f3f3f3;padding:0 .2em}}svg{{max-width:100%;height:auto}}</style></head><body>\n<h1>{}</h1>\n<h2>Configuration</h2>\n<ul>\n",
        escape(&e.title),
        escape(&e.title)
    );
    for l in config_lines(e, rows) {
        let _ = writeln!(s, "<li>{}</li>", inline(&l));
    }
    s.push_str("</ul>\n");
    for (metric, svg) in svgs {
        let _ = writeln!(s, "<h2>{}</h2>", escape(metric.heading()));
        // The SVG is inlined without its XML declaration (it is not allowed inside HTML).
        let body = svg.find("<svg").and_then(|i| svg.get(i..)).unwrap_or(svg);
        s.push_str(body);
        if *metric != Metric::Acceptance {
            let _ = write!(
                s,
                "\n<p>Numbers: column <code>{}</code> of <code>summary.csv</code>.</p>\n",
                column(*metric)
            );
        }
    }
    let _ = write!(
        s,
        "\n<p>Numbers with 95% Wilson intervals: <code>summary.csv</code>; every set: <code>sets.csv</code>.</p>\n<h2>Where acceptance drops</h2>\n<p>{}</p>\n<table><tr>{}</tr>\n",
        inline(DROP_NOTE),
        THRESHOLD_HEADER
            .iter()
            .map(|h| format!("<th>{}</th>", escape(h)))
            .collect::<String>()
    );
    for r in threshold_rows(e, rows) {
        s.push_str("<tr>");
        for c in r {
            let _ = write!(s, "<td>{}</td>", escape(&c));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n<h2>Run</h2>\n<ul>\n");
    for l in metadata_lines(m, rows, elapsed) {
        let _ = writeln!(s, "<li>{}</li>", inline(&l));
    }
    s.push_str("</ul>\n</body></html>\n");
    s
}
