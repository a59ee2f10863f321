//! Reading and validating an experiment file (TOML; the schema is in `docs/experiments.md`).
//!
//! The whole file is checked before anything runs and every problem is reported with its line:
//! unknown keys (with a suggestion), wrong types, missing keys, unknown tests and policies
//! (with a suggestion), unreadable distributions and times, empty sweeps and bad ranges, and —
//! by preparing the generator of every cell — parameters the generator rejects (e.g. `U > n`
//! for RandFixedSum).

use crate::chunk::MAX_CHUNKS;
use crate::config::{
    AnalysisOverheads, EvalKind, Evaluation, Experiment, GeneratorConfig, ShapeKind, SimOverheads,
    Variable,
};
use crate::error::{ExpError, Problems};
use crate::metric::Metric;
use crate::reader::{At, Reader, Table};
use schedlab_analysis::overheads::arch::{overheads_for, ArchKind};
use schedlab_analysis::{registry, Priorities};
use schedlab_gen::util_vec::VecMethod;
use schedlab_gen::{DeadlineSpec, ParallelDist, PeriodDist, Rounding, UtilDist, UtilityDist};
use schedlab_model::error::suggest;
use schedlab_model::overheads::{OverheadFile, Stat};
use schedlab_model::platform::MAX_CPUS;
use schedlab_model::time::parse_duration_with_unit;
use schedlab_sim::{Arrivals, ExecTime, Overheads};
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::de::DeTable;

/// Default task sets per chunk.
pub const DEFAULT_CHUNK_SIZE: u64 = 25;
/// Largest number of points of a sweep.
pub const MAX_POINTS: usize = 100_000;
/// Packing heuristics of partitioned simulations (the analysis's one list, with the
/// [ChronOS §8.5] rules `chronos`, `chronos-ff`, `chronos-lu`).
use schedlab_analysis::placement::HEURISTICS;

/// Reads and validates the experiment file at `path`.
pub fn load(path: &Path) -> Result<Experiment, ExpError> {
    let text = std::fs::read_to_string(path).map_err(|e| ExpError::io(path, e))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "experiment".into());
    parse(&text, &path.display().to_string(), &stem, base)
}

/// Validates experiment-file `text`; `file` names it in messages, `default_title` is used when
/// the file has no `title`, relative paths (overheads) are resolved against `base`.
pub fn parse(
    text: &str,
    file: &str,
    default_title: &str,
    base: &Path,
) -> Result<Experiment, ExpError> {
    let reader = Reader::new(text);
    let invalid = |reader: Reader<'_>| {
        ExpError::Invalid(Problems {
            file: file.to_string(),
            problems: reader.into_problems(),
        })
    };
    let doc = match DeTable::parse(text) {
        Ok(d) => d,
        Err(e) => {
            let span = e.span().unwrap_or(0..0);
            reader.problem(&span, format!("not valid TOML: {}", e.message().trim()));
            return Err(invalid(reader));
        }
    };
    let top = Table::new(&reader, String::new(), doc.get_ref(), doc.span());
    let experiment = read(&top, default_title, base);
    if reader.count() > 0 {
        return Err(invalid(reader));
    }
    match experiment {
        Some(e) => {
            check_generators(&e, &top, &reader);
            if reader.count() > 0 {
                Err(invalid(reader))
            } else {
                Ok(e)
            }
        }
        None => {
            reader.problem(&(0..0), "the file could not be read");
            Err(invalid(reader))
        }
    }
}

fn read(top: &Table<'_, '_, '_, '_>, default_title: &str, base: &Path) -> Option<Experiment> {
    let title = top
        .str("title")
        .map_or_else(|| default_title.to_string(), |t| t.0);
    let seed = top.u64("seed").map_or(1, |s| s.0);
    let samples_at = top.u64("samples");
    let samples = positive(top, "samples", samples_at.clone(), "task sets per point");
    let chunk_size = top
        .u64("chunk_size")
        .map(|c| positive(top, "chunk_size", Some(c), "task sets per chunk"))
        .unwrap_or(Some(DEFAULT_CHUNK_SIZE));
    let overheads = match top.str("overheads") {
        None => OverheadSource::None,
        Some((p, span)) => read_overheads(top, base, &p, &span),
    };
    let plots = read_plots(top);
    let platform = top.table("platform");
    let generator = top.table("generator");
    let sweep = top.table("sweep");
    let analyses = top.tables("analysis");
    let simulations = top.tables("simulation");
    top.finish();

    // Keep reading after a bad sweep (with a stand-in variable) so that the other sections'
    // problems are reported too; the experiment is discarded anyway.
    let sweep = match &sweep {
        Some(s) => read_sweep(s),
        None => {
            top.missing("sweep", "the swept variable and its points");
            None
        }
    };
    let (variable, points) = sweep
        .clone()
        .unwrap_or((Variable::UtilizationPerCpu, Vec::new()));
    let (cpus, cluster_size) = match &platform {
        Some(p) => read_platform(p, variable),
        None if variable == Variable::Cpus => (Some(Vec::new()), None),
        None => {
            top.missing("platform", "`[platform]` with `cpus = [m, …]`");
            (None, None)
        }
    };
    let generator = match &generator {
        Some(g) => read_generator(g, variable),
        None => {
            top.missing("generator", "`[generator]`");
            None
        }
    };
    let platforms: Vec<u32> = match (variable, &cpus) {
        (Variable::Cpus, _) => points.iter().map(|&x| x as u32).collect(),
        (_, Some(c)) => c.clone(),
        _ => Vec::new(),
    };
    let mut evaluations = Vec::new();
    for a in &analyses {
        if let Some(e) = read_analysis(a, &overheads, &platforms) {
            evaluations.push((e, a.span.clone()));
        }
    }
    for s in &simulations {
        if let Some(e) = read_simulation(s, cluster_size, &platforms, &overheads) {
            evaluations.push((e, s.span.clone()));
        }
    }
    if analyses.is_empty() && simulations.is_empty() {
        top_problem(
            top,
            &top.span,
            "nothing to evaluate: add `[[analysis]]` or `[[simulation]]` sections".into(),
        );
    }
    let mut labels: Vec<&str> = Vec::new();
    for (e, span) in &evaluations {
        if labels.contains(&e.label.as_str()) {
            top_problem(
                top,
                span,
                format!(
                    "two evaluations are labelled `{}`: give one a distinct `label`",
                    e.label
                ),
            );
        }
        labels.push(&e.label);
    }
    let _ = sweep?;
    let experiment = Experiment {
        title,
        seed,
        samples: samples?,
        file_samples: None,
        chunk_size: chunk_size?,
        cpus: cpus?,
        generator: generator?,
        variable,
        points,
        evaluations: evaluations.into_iter().map(|(e, _)| e).collect(),
        overhead_file: overheads.file().map(OverheadFile::to_toml),
        overheads: overheads.into_path(),
        plots: plots?,
    };
    let chunks = crate::chunk::chunk_count(&experiment);
    if chunks > u128::from(MAX_CHUNKS) {
        let span = samples_at.map_or(0..0, |(_, span)| span);
        top_problem(
            top,
            &span,
            format!(
                "{} task sets per point in chunks of {} make {chunks} chunks, more than the \
                 limit of {MAX_CHUNKS}: raise `chunk_size` or lower `samples`",
                experiment.samples, experiment.chunk_size
            ),
        );
        return None;
    }
    Some(experiment)
}

/// The top-level `plots`: metric names of [`Metric::NAMES`], at least one, no repeats
/// (default `["acceptance"]`). `None` after a problem (reported at the element's line).
fn read_plots(top: &Table<'_, '_, '_, '_>) -> Option<Vec<Metric>> {
    let Some((names, span)) = top.str_list("plots") else {
        // Absent, or not an array of strings (already reported: the experiment is discarded).
        return Some(crate::metric::default_plots());
    };
    if names.is_empty() {
        top_problem(
            top,
            &span,
            format!(
                "`plots` is empty: name at least one of {}",
                Metric::NAMES.join(", ")
            ),
        );
        return None;
    }
    let mut out: Vec<Metric> = Vec::with_capacity(names.len());
    let mut ok = true;
    for (name, at) in &names {
        match Metric::parse(name) {
            Some(m) if out.contains(&m) => {
                top_problem(top, at, format!("`plots` names `{name}` twice"));
                ok = false;
            }
            Some(m) => out.push(m),
            None => {
                let hint = match suggest(name, &Metric::NAMES) {
                    Some(s) => format!("; did you mean `{s}`?"),
                    None => format!(" (known: {})", Metric::NAMES.join(", ")),
                };
                top_problem(top, at, format!("`plots`: unknown metric `{name}`{hint}"));
                ok = false;
            }
        }
    }
    ok.then_some(out)
}

/// The top-level overhead file, as far as it could be read.
enum OverheadSource {
    /// Not given.
    None,
    /// Given but missing or invalid (already reported; simulations skip their checks).
    Invalid,
    /// Read and valid.
    Valid(PathBuf, OverheadFile),
}

impl OverheadSource {
    fn file(&self) -> Option<&OverheadFile> {
        match self {
            OverheadSource::Valid(_, f) => Some(f),
            _ => None,
        }
    }

    fn into_path(self) -> Option<PathBuf> {
        match self {
            OverheadSource::Valid(p, _) => Some(p),
            _ => None,
        }
    }
}

/// Reads the overhead file `p` (relative to the experiment file) with the same loader as
/// `schedlab simulate --overheads`; its problems are reported at the `overheads` line.
fn read_overheads(
    top: &Table<'_, '_, '_, '_>,
    base: &Path,
    p: &str,
    span: &Range<usize>,
) -> OverheadSource {
    let path = base.join(p);
    if !path.is_file() {
        top_problem(
            top,
            span,
            format!(
                "`overheads`: no file `{}` (paths are relative to the experiment file)",
                path.display()
            ),
        );
        return OverheadSource::Invalid;
    }
    match OverheadFile::load(&path) {
        // Kept as written (relative to the experiment file): the config hash must not depend
        // on how the experiment file was named (`examples/x.toml` or `/abs/…/x.toml`), or the
        // same experiment run both ways would refuse its own folder. The contents are hashed.
        Ok(file) => OverheadSource::Valid(PathBuf::from(p), file),
        Err(e) => {
            top_problem(top, span, format!("`overheads`: {e}"));
            OverheadSource::Invalid
        }
    }
}

fn top_problem(t: &Table<'_, '_, '_, '_>, span: &Range<usize>, message: String) {
    t.reader().problem(span, message);
}

fn positive(
    t: &Table<'_, '_, '_, '_>,
    key: &'static str,
    v: Option<At<u64>>,
    what: &str,
) -> Option<u64> {
    match v {
        None => {
            t.missing(key, what);
            None
        }
        Some((0, span)) => {
            t.reader()
                .problem(&span, format!("`{}` must be at least 1", t.name(key)));
            None
        }
        Some((x, _)) => Some(x),
    }
}

fn read_sweep(s: &Table<'_, '_, '_, '_>) -> Option<(Variable, Vec<f64>)> {
    let variable = s.str("variable");
    let points = s.f64_list("points");
    let from = s.f64("from");
    let to = s.f64("to");
    let step = s.f64("step");
    s.finish();
    let variable = match variable {
        None => {
            s.missing(
                "variable",
                "one of utilization, utilization_per_cpu, tasks, cpus",
            );
            None
        }
        Some((name, span)) => {
            let v = Variable::parse(&name);
            if v.is_none() {
                s.reader().problem(
                    &span,
                    format!(
                        "unknown sweep variable `{name}`{}",
                        hint(&name, &Variable::NAMES)
                    ),
                );
            }
            v
        }
    };
    let values = match (points, &from, &to, &step) {
        (Some(_), Some(_), _, _) | (Some(_), _, Some(_), _) | (Some(_), _, _, Some(_)) => {
            s.reader().problem(
                &s.span,
                format!(
                    "`{}`: give either `points = [...]` or `from`, `to`, `step`, not both",
                    s.path
                ),
            );
            None
        }
        (Some((p, span)), None, None, None) => {
            if p.is_empty() {
                s.reader().problem(
                    &span,
                    format!(
                        "`{}` is empty: the sweep needs at least one point",
                        s.name("points")
                    ),
                );
                None
            } else if let Some(w) = p.windows(2).find(|w| w[0] >= w[1]) {
                s.reader().problem(
                    &span,
                    format!(
                        "`{}` must be strictly increasing ({} is followed by {})",
                        s.name("points"),
                        w[0],
                        w[1]
                    ),
                );
                None
            } else if p.len() > MAX_POINTS {
                s.reader().problem(
                    &span,
                    format!("{} points exceed the limit of {MAX_POINTS}", p.len()),
                );
                None
            } else {
                Some((p, span))
            }
        }
        (None, Some((a, sa)), Some((b, _)), Some((st, sst))) => {
            if *st <= 0.0 {
                s.reader().problem(
                    sst,
                    format!("`{}` must be greater than 0, got {st}", s.name("step")),
                );
                None
            } else if a > b {
                s.reader().problem(
                    sa,
                    format!(
                        "bad range: `{}` = {a} is greater than `{}` = {b} (the sweep is empty)",
                        s.name("from"),
                        s.name("to")
                    ),
                );
                None
            } else if (b - a) / st > MAX_POINTS as f64 {
                s.reader().problem(
                    sst,
                    format!("bad range: {a}..{b} by {st} has more than {MAX_POINTS} points"),
                );
                None
            } else {
                // Points a + i·step up to b (with a tolerance for decimal steps), rounded to
                // 12 significant decimals so that 0.1 + 2·0.1 prints as 0.3.
                let count = ((b - a) / st + 1e-9).floor() as usize + 1;
                let p = (0..count)
                    .map(|i| round12(a + i as f64 * st))
                    .collect::<Vec<f64>>();
                Some((p, sa.clone()))
            }
        }
        (None, _, _, _) => {
            s.reader().problem(
                &s.span,
                format!(
                    "`{}` needs its points: `points = [...]`, or all of `from`, `to`, `step`",
                    s.path
                ),
            );
            None
        }
    };
    let variable = variable?;
    let (points, span) = values?;
    match variable {
        Variable::Tasks | Variable::Cpus => {
            if let Some(bad) = points
                .iter()
                .find(|x| x.fract() != 0.0 || **x < 1.0 || **x > f64::from(u32::MAX))
            {
                s.reader().problem(
                    &span,
                    format!(
                        "sweeping `{}` needs whole numbers ≥ 1, got {bad}",
                        if variable == Variable::Tasks {
                            "tasks"
                        } else {
                            "cpus"
                        }
                    ),
                );
                return None;
            }
        }
        _ => {
            if let Some(bad) = points.iter().find(|x| **x < 0.0) {
                s.reader()
                    .problem(&span, format!("utilization points must be ≥ 0, got {bad}"));
                return None;
            }
        }
    }
    Some((variable, points))
}

fn round12(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let digits = 12 - x.abs().log10().ceil() as i32;
    let f = 10f64.powi(digits.clamp(-300, 300));
    (x * f).round() / f
}

fn read_platform(p: &Table<'_, '_, '_, '_>, variable: Variable) -> (Option<Vec<u32>>, Option<u32>) {
    let cpus = p.f64_list("cpus");
    let cluster = p.u64("cluster_size");
    p.finish();
    let cluster_size = match cluster {
        Some((0, span)) => {
            p.reader().problem(
                &span,
                format!("`{}` must be at least 1", p.name("cluster_size")),
            );
            None
        }
        Some((k, _)) => u32::try_from(k).ok(),
        None => None,
    };
    let cpus = match (cpus, variable) {
        (Some((_, span)), Variable::Cpus) => {
            p.reader().problem(
                &span,
                "`platform.cpus` conflicts with `sweep.variable = \"cpus\"` (the points are the CPU counts)",
            );
            None
        }
        (None, Variable::Cpus) => Some(Vec::new()),
        (None, _) => {
            p.missing("cpus", "a list of CPU counts, e.g. `cpus = [8]`");
            None
        }
        (Some((list, span)), _) => {
            if list.is_empty() {
                p.reader().problem(
                    &span,
                    "`platform.cpus` is empty: give at least one CPU count",
                );
                None
            } else if let Some(bad) = list
                .iter()
                .find(|x| x.fract() != 0.0 || **x < 1.0 || **x > f64::from(MAX_CPUS))
            {
                p.reader().problem(
                    &span,
                    format!("`platform.cpus` must hold whole numbers in 1..={MAX_CPUS}, got {bad}"),
                );
                None
            } else {
                let mut out: Vec<u32> = Vec::new();
                for x in list {
                    let m = x as u32;
                    if out.contains(&m) {
                        p.reader()
                            .problem(&span, format!("`platform.cpus` lists {m} twice"));
                    }
                    out.push(m);
                }
                Some(out)
            }
        }
    };
    (cpus, cluster_size)
}

fn hint(name: &str, known: &[&str]) -> String {
    if let Some(k) = cluster_size_in_policy_name(name) {
        return format!("; clustered EDF is `policy = \"cedf\"` with `cluster_size = {k}`");
    }
    match suggest(name, known) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => format!(" (use one of {})", known.join(", ")),
    }
}

/// The cluster size of a clustered-EDF policy written the way its analysis test is named
/// (`cedf-k4`, `cedf-4`, `cedf4`): policies take the size as a separate option.
pub fn cluster_size_in_policy_name(name: &str) -> Option<u32> {
    let rest = name.trim().to_ascii_lowercase();
    let rest = rest.strip_prefix("cedf")?;
    let digits = rest.trim_start_matches(['-', '_', 'k']);
    digits.parse().ok().filter(|&k| k > 0)
}

/// Checks a string form with `parse`, recording its message at the value's line.
fn check<T, E: std::fmt::Display>(
    t: &Table<'_, '_, '_, '_>,
    key: &str,
    v: &At<String>,
    parse: impl Fn(&str) -> Result<T, E>,
) -> Option<T> {
    match parse(&v.0) {
        Ok(x) => Some(x),
        Err(e) => {
            t.reader().problem(&v.1, format!("`{}`: {e}", t.name(key)));
            None
        }
    }
}

/// The `[generator]` table. Longer than 150 lines on purpose: one check per key, each a few
/// lines, collecting every problem with its place in the file (not stopping at the first), and
/// the combinations of keys that exclude each other; split, the checks would need the same
/// dozen values passed around.
fn read_generator(g: &Table<'_, '_, '_, '_>, variable: Variable) -> Option<GeneratorConfig> {
    let shape = g.str("shape");
    let method = g.str("method");
    let util_dist = g.str("util_dist");
    let tasks = g.u64("tasks");
    let tasks_per_cpu = g.u64("tasks_per_cpu");
    let utilization = g.f64("utilization");
    let utilization_per_cpu = g.f64("utilization_per_cpu");
    let grow_start = g.u64("grow_start");
    let periods = g.str("periods");
    let deadlines = g.str("deadlines");
    let rounding = g.str("rounding");
    let utility = g.str("utility");
    let window_width = g.f64("window_width");
    let parallel = g.str("parallel");
    g.finish();
    let before = g.reader().count();
    let shape = match &shape {
        None => {
            g.missing("shape", "one of fixed-sum, count, fill, grow, window");
            None
        }
        Some((name, span)) => {
            let s = ShapeKind::parse(name);
            if s.is_none() {
                g.reader().problem(
                    span,
                    format!(
                        "unknown generator shape `{name}`{}",
                        hint(name, &ShapeKind::NAMES)
                    ),
                );
            }
            s
        }
    };
    if let Some(m) = &method {
        check(g, "method", m, VecMethod::parse);
    }
    if let Some(d) = &util_dist {
        check(g, "util_dist", d, UtilDist::parse);
    }
    let periods = periods.unwrap_or_else(|| ("loguniform:10ms..1000ms/1ms".into(), g.span.clone()));
    check(g, "periods", &periods, PeriodDist::parse);
    let deadlines = deadlines.unwrap_or_else(|| ("implicit".into(), g.span.clone()));
    check(g, "deadlines", &deadlines, DeadlineSpec::parse);
    let rounding = rounding.unwrap_or_else(|| ("floor".into(), g.span.clone()));
    check(g, "rounding", &rounding, Rounding::parse);
    if let Some(u) = &utility {
        check(g, "utility", u, UtilityDist::parse);
    }
    if let Some(p) = &parallel {
        // `rtws` takes the platform's CPU count; any CPU count checks its syntax.
        let text = if p.0 == "rtws" {
            "rtws:1"
        } else {
            p.0.as_str()
        };
        check(g, "parallel", &(text.to_string(), p.1.clone()), |t| {
            ParallelDist::parse(t)
                .map_err(|e| format!("{e} (or `rtws`: [RTWS §VI] on each platform's CPUs)"))
        });
    }
    if let Some((w, span)) = &window_width {
        if !(w.is_finite() && *w > 0.0) {
            g.reader().problem(
                span,
                format!("`{}` must be > 0, got {w}", g.name("window_width")),
            );
        }
    }
    for (key, v) in [
        ("tasks", &tasks),
        ("tasks_per_cpu", &tasks_per_cpu),
        ("grow_start", &grow_start),
    ] {
        if let Some((0, span)) = v {
            g.reader()
                .problem(span, format!("`{}` must be at least 1", g.name(key)));
        }
    }
    if let (Some(_), Some((_, span))) = (&tasks, &tasks_per_cpu) {
        g.reader().problem(
            span,
            "give `tasks` or `tasks_per_cpu`, not both".to_string(),
        );
    }
    if let (Some(_), Some((_, span))) = (&utilization, &utilization_per_cpu) {
        g.reader().problem(
            span,
            "give `utilization` or `utilization_per_cpu`, not both".to_string(),
        );
    }
    for (key, v) in [
        ("utilization", &utilization),
        ("utilization_per_cpu", &utilization_per_cpu),
    ] {
        if let Some((u, span)) = v {
            if *u < 0.0 {
                g.reader()
                    .problem(span, format!("`{}` must be ≥ 0, got {u}", g.name(key)));
            } else if variable.is_utilization() {
                g.reader().problem(
                    span,
                    format!(
                        "`{}` is set by the sweep over {}; remove it",
                        g.name(key),
                        variable_name(variable)
                    ),
                );
            }
        }
    }
    if let (Some(_), Variable::Tasks) = (&tasks, variable) {
        if let Some((_, span)) = &tasks {
            g.reader().problem(
                span,
                "`generator.tasks` is set by the sweep over tasks; remove it",
            );
        }
    }
    if let Some(shape) = shape {
        let has_n = tasks.is_some() || tasks_per_cpu.is_some() || variable == Variable::Tasks;
        let has_u =
            utilization.is_some() || utilization_per_cpu.is_some() || variable.is_utilization();
        let need = |ok: bool, what: &str| {
            if !ok {
                g.reader()
                    .problem(&g.span, format!("shape `{}`: {what}", shape_name(shape)));
            }
        };
        let forbid = |v: Option<&Range<usize>>, what: &str| {
            if let Some(span) = v {
                g.reader()
                    .problem(span, format!("shape `{}` {what}", shape_name(shape)));
            }
        };
        // The shapes that draw tasks from `util_dist` until a utilization target: they decide
        // the number of tasks themselves.
        let draws_until_target = || {
            need(util_dist.is_some(), "needs `util_dist`");
            forbid(
                tasks.as_ref().or(tasks_per_cpu.as_ref()).map(|v| &v.1),
                "decides the number of tasks itself: remove `tasks`",
            );
            forbid(
                method.as_ref().map(|v| &v.1),
                "takes `util_dist`, not `method`",
            );
        };
        match shape {
            ShapeKind::FixedSum => {
                need(
                    has_n,
                    "needs `tasks` or `tasks_per_cpu` (or a sweep over tasks)",
                );
                need(
                    has_u,
                    "needs a utilization sweep, or `utilization` / `utilization_per_cpu`",
                );
                forbid(
                    util_dist.as_ref().map(|v| &v.1),
                    "draws a utilization vector: use `method`, not `util_dist`",
                );
            }
            ShapeKind::Count => {
                need(
                    has_n,
                    "needs `tasks` or `tasks_per_cpu` (or a sweep over tasks)",
                );
                need(util_dist.is_some(), "needs `util_dist`");
                need(!variable.is_utilization(), "draws utilizations independently, so it cannot sweep utilization (use `fill` or `grow`)");
                forbid(
                    method.as_ref().map(|v| &v.1),
                    "takes `util_dist`, not `method`",
                );
            }
            ShapeKind::Fill => {
                need(
                    has_u,
                    "needs a utilization sweep, or `utilization` / `utilization_per_cpu`",
                );
                draws_until_target();
                need(
                    variable != Variable::Tasks,
                    "decides the number of tasks itself, so it cannot sweep tasks",
                );
            }
            ShapeKind::Grow => {
                draws_until_target();
                need(variable.is_utilization(), "yields sets of every utilization, binned by the sweep: sweep `utilization` or `utilization_per_cpu`");
            }
            ShapeKind::Window => {
                need(
                    has_u,
                    "needs a utilization sweep, or `utilization` / `utilization_per_cpu` (the window's low end)",
                );
                draws_until_target();
                need(
                    window_width.is_some(),
                    "needs `window_width` (the window's width, in the unit of its low end)",
                );
                need(
                    variable != Variable::Tasks,
                    "decides the number of tasks itself, so it cannot sweep tasks",
                );
            }
        }
        if shape != ShapeKind::Window {
            forbid(
                window_width.as_ref().map(|v| &v.1),
                "has no `window_width` (only `window` does)",
            );
        }
        if shape != ShapeKind::Grow {
            forbid(
                grow_start.as_ref().map(|v| &v.1),
                "has no `grow_start` (only `grow` does)",
            );
        }
    }
    if g.reader().count() > before {
        return None;
    }
    Some(GeneratorConfig {
        shape: shape?,
        method: method.map(|m| m.0),
        util_dist: util_dist.map(|d| d.0),
        tasks: tasks.map(|t| t.0),
        tasks_per_cpu: tasks_per_cpu.map(|t| t.0),
        utilization: utilization.map(|u| u.0),
        utilization_per_cpu: utilization_per_cpu.map(|u| u.0),
        grow_start: grow_start.map(|s| s.0),
        periods: periods.0,
        deadlines: deadlines.0,
        rounding: rounding.0,
        utility: utility.map(|u| u.0),
        window_width: window_width.map(|w| w.0),
        parallel: parallel.map(|p| p.0),
    })
}

fn shape_name(s: ShapeKind) -> &'static str {
    match s {
        ShapeKind::FixedSum => "fixed-sum",
        ShapeKind::Count => "count",
        ShapeKind::Fill => "fill",
        ShapeKind::Grow => "grow",
        ShapeKind::Window => "window",
    }
}

fn variable_name(v: Variable) -> &'static str {
    match v {
        Variable::Utilization => "utilization",
        Variable::UtilizationPerCpu => "utilization_per_cpu",
        Variable::Tasks => "tasks",
        Variable::Cpus => "cpus",
    }
}

fn priorities(t: &Table<'_, '_, '_, '_>) -> String {
    match t.str("priorities") {
        None => "dm".into(),
        Some((p, span)) => {
            if Priorities::parse(&p).is_err() || p == "given" {
                t.reader().problem(
                    &span,
                    format!(
                        "`{}`: unknown priority assignment `{p}` (use dm or rm; generated tasks have no given priorities)",
                        t.name("priorities")
                    ),
                );
            }
            p
        }
    }
}

fn read_analysis(
    a: &Table<'_, '_, '_, '_>,
    overheads: &OverheadSource,
    platforms: &[u32],
) -> Option<Evaluation> {
    let test = a.str("test");
    let label = a.str("label");
    let priorities = priorities(a);
    let arch = a.str("arch");
    let dedicated = a.bool("dedicated_irq_cpu");
    let stat = a.str("overhead_stat");
    let granularity = a.str("granularity");
    let reserved = a.u64("reserved_cpus");
    a.finish();
    let Some((spec, span)) = test else {
        a.missing("test", "a test name or spec, e.g. `gedf` or `gedf-rta:rounds=50` (`schedlab tests` lists them)");
        return None;
    };
    if let Err(e) = registry::by_name(&spec) {
        a.reader()
            .problem(&span, format!("`{}`: {e}", a.name("test")));
        return None;
    }
    let charged =
        read_analysis_overheads(a, overheads, arch, dedicated, stat, granularity, platforms)?;
    let reserved_cpus = match reserved {
        None => 0,
        Some((r, span)) => match u32::try_from(r) {
            Ok(r) if platforms.iter().all(|&m| m > r) => r,
            _ => {
                a.reader().problem(
                    &span,
                    format!(
                        "`{}` = {r} leaves no CPU for the test on a platform of {r} CPUs or fewer",
                        a.name("reserved_cpus")
                    ),
                );
                return None;
            }
        },
    };
    Some(Evaluation {
        label: label.map_or_else(|| spec.clone(), |l| l.0),
        kind: EvalKind::Analysis {
            test: spec,
            priorities,
            overheads: charged,
            reserved_cpus,
        },
    })
}

/// The overhead options of an analysis: `arch` (with `dedicated_irq_cpu`), `overhead_stat`
/// (default `max`: hard real-time) and `granularity` (default `1ns`), checked against the
/// experiment's overhead file as `schedlab analyze --overheads` checks them. `Some(None)`: no
/// overheads; `None`: a problem was reported.
fn read_analysis_overheads(
    a: &Table<'_, '_, '_, '_>,
    source: &OverheadSource,
    arch: Option<At<String>>,
    dedicated: Option<At<bool>>,
    stat: Option<At<String>>,
    granularity: Option<At<String>>,
    platforms: &[u32],
) -> Option<Option<AnalysisOverheads>> {
    let Some((name, arch_span)) = arch else {
        let stray = dedicated.as_ref().map(|v| &v.1).into_iter();
        let stray = stray
            .chain(stat.as_ref().map(|v| &v.1))
            .chain(granularity.as_ref().map(|v| &v.1));
        let mut ok = true;
        for span in stray {
            a.reader().problem(
                span,
                format!(
                    "`{}`: overhead options need `arch` (the architecture that pays them)",
                    a.path
                ),
            );
            ok = false;
        }
        return ok.then_some(None);
    };
    let file = match source {
        OverheadSource::Valid(_, f) => f,
        OverheadSource::Invalid => return None,
        OverheadSource::None => {
            a.reader().problem(
                &arch_span,
                format!(
                    "`{}`: `arch` needs a top-level `overheads = \"FILE\"` (docs/overheads.md)",
                    a.path
                ),
            );
            return None;
        }
    };
    let kind = match ArchKind::parse(&name, dedicated.as_ref().is_some_and(|d| d.0)) {
        Ok(k) => k,
        Err(e) => {
            a.reader()
                .problem(&arch_span, format!("`{}`: {e}", a.name("arch")));
            return None;
        }
    };
    let stat_name = stat.as_ref().map_or("max", |v| v.0.as_str());
    let parsed = match Stat::parse(stat_name) {
        Ok(x) => x,
        Err(e) => {
            let span = stat.as_ref().map_or(&a.span, |v| &v.1);
            a.reader()
                .problem(span, format!("`{}`: {e}", a.name("overhead_stat")));
            return None;
        }
    };
    let granularity_ns = match &granularity {
        None => 1,
        Some((text, span)) => match schedlab_model::time::parse_ns_with_unit(text) {
            Ok(g) if g > 0 => g,
            Ok(_) => {
                a.reader().problem(
                    span,
                    format!("`{}` must be at least 1ns", a.name("granularity")),
                );
                return None;
            }
            Err(e) => {
                a.reader()
                    .problem(span, format!("`{}`: {e}", a.name("granularity")));
                return None;
            }
        },
    };
    // Every platform's section (`<arch>@m<M>` or `<arch>`) has what the analysis needs.
    for &m in platforms {
        if let Err(e) = overheads_for(file, kind, parsed, 1, m) {
            a.reader().problem(&arch_span, format!("`{}`: {e}", a.path));
            return None;
        }
    }
    Some(Some(AnalysisOverheads {
        arch: kind.section().to_string(),
        stat: parsed.key().to_string(),
        granularity_ns,
    }))
}

fn read_simulation(
    s: &Table<'_, '_, '_, '_>,
    platform_cluster: Option<u32>,
    platforms: &[u32],
    overheads: &OverheadSource,
) -> Option<Evaluation> {
    let policy = s.str("policy");
    let label = s.str("label");
    let duration = s.str("duration");
    let exec = s.str("exec");
    let arrivals = s.str("arrivals");
    let partition = s.str("partition");
    let abort_late = s.bool("abort_late");
    let cluster = s.u64("cluster_size");
    let use_overheads = s.bool("overheads");
    let overhead_arch = s.str("overhead_arch");
    let overhead_stat = s.str("overhead_stat");
    let priorities = priorities(s);
    s.finish();
    let before = s.reader().count();
    let sim_overheads = read_sim_overheads(
        s,
        overheads,
        use_overheads,
        overhead_arch,
        overhead_stat,
        platforms,
    );
    let Some((policy, pspan)) = policy else {
        s.missing(
            "policy",
            &format!("one of {}", schedlab_policy::NAMES.join(", ")),
        );
        return None;
    };
    if !schedlab_policy::NAMES.contains(&policy.as_str()) {
        s.reader().problem(
            &pspan,
            format!(
                "unknown policy `{policy}`{}",
                hint(&policy, schedlab_policy::NAMES)
            ),
        );
    }
    let duration = duration.unwrap_or_else(|| ("10s".into(), s.span.clone()));
    if let Some(d) = check(s, "duration", &duration, parse_duration_with_unit) {
        if d.is_zero() {
            s.reader().problem(
                &duration.1,
                format!("`{}` must be greater than 0", s.name("duration")),
            );
        }
    }
    let exec = exec.unwrap_or_else(|| ("wcet".into(), s.span.clone()));
    check(s, "exec", &exec, ExecTime::parse);
    let arrivals = arrivals.unwrap_or_else(|| ("periodic".into(), s.span.clone()));
    check(s, "arrivals", &arrivals, Arrivals::parse);
    let partition = partition.unwrap_or_else(|| ("ffd".into(), s.span.clone()));
    if !HEURISTICS.contains(&partition.0.as_str()) {
        s.reader().problem(
            &partition.1,
            format!(
                "unknown packing heuristic `{}`{}",
                partition.0,
                hint(&partition.0, &HEURISTICS)
            ),
        );
    }
    let cluster_size = cluster
        .and_then(|(k, _)| u32::try_from(k).ok())
        .or(platform_cluster);
    if policy == "cedf" {
        match cluster_size {
            None | Some(0) => s.reader().problem(
                &pspan,
                "policy `cedf` needs `cluster_size` (here or in `[platform]`)",
            ),
            Some(k) => {
                if let Some(m) = platforms.iter().find(|&&m| m % k != 0) {
                    s.reader().problem(
                        &pspan,
                        format!("cluster size {k} does not divide the platform's {m} CPUs"),
                    );
                }
            }
        }
    }
    if s.reader().count() > before {
        return None;
    }
    Some(Evaluation {
        label: label.map_or_else(|| format!("sim-{policy}"), |l| l.0),
        kind: EvalKind::Simulation {
            policy,
            duration: duration.0,
            exec: exec.0,
            arrivals: arrivals.0,
            partition: partition.0,
            priorities,
            abort_late: abort_late.is_some_and(|a| a.0),
            cluster_size,
            overheads: sim_overheads,
        },
    })
}

/// The overhead options of a simulation: `overheads = false` opts out of the experiment's
/// file; `overhead_arch` and `overhead_stat` choose its section and statistic, checked
/// against the file as `schedlab simulate --overheads` checks them.
fn read_sim_overheads(
    s: &Table<'_, '_, '_, '_>,
    source: &OverheadSource,
    enabled: Option<At<bool>>,
    arch: Option<At<String>>,
    stat: Option<At<String>>,
    platforms: &[u32],
) -> Option<SimOverheads> {
    let options = || arch.iter().chain(stat.iter()).map(|v| &v.1);
    match (source, &enabled) {
        (OverheadSource::Invalid, _) => None,
        (OverheadSource::None, _) => {
            for span in options().chain(enabled.iter().filter(|e| e.0).map(|e| &e.1)) {
                s.reader().problem(
                    span,
                    format!(
                        "`{}`: overheads need a top-level `overheads = \"FILE\"` (docs/overheads.md)",
                        s.path
                    ),
                );
            }
            None
        }
        (OverheadSource::Valid(..), Some((false, _))) => {
            for span in options() {
                s.reader().problem(
                    span,
                    format!(
                        "`{}` sets `overheads = false`: remove `overhead_arch` / `overhead_stat`",
                        s.path
                    ),
                );
            }
            None
        }
        (OverheadSource::Valid(path, file), _) => {
            let stat_name = stat.as_ref().map_or("avg", |v| v.0.as_str());
            let parsed = match Stat::parse(stat_name) {
                Ok(x) => x,
                Err(e) => {
                    let span = stat.as_ref().map_or(&s.span, |v| &v.1);
                    s.reader()
                        .problem(span, format!("`{}`: {e}", s.name("overhead_stat")));
                    return None;
                }
            };
            let name = arch.as_ref().map(|v| v.0.as_str());
            // Every platform's section (`<arch>@m<M>` or `<arch>`) is found.
            let source = path.display().to_string();
            let failed = platforms
                .iter()
                .find_map(|&m| Overheads::from_file(file, &source, name, parsed, 1, m).err());
            if let Some(e) = failed {
                let span = arch.as_ref().map_or(&s.span, |v| &v.1);
                s.reader().problem(span, format!("`{}`: {e}", s.path));
                return None;
            }
            Some(SimOverheads {
                arch: name.map(str::to_string),
                stat: parsed.key().to_string(),
            })
        }
    }
}

/// Prepares the generator of every cell: parameters it rejects (e.g. `U > n`) are reported at
/// the sweep, at most three per platform.
fn check_generators(e: &Experiment, top: &Table<'_, '_, '_, '_>, reader: &Reader<'_>) {
    let span = top
        .table("sweep")
        .map_or_else(|| top.span.clone(), |s| s.span.clone());
    for m in e.platforms() {
        let mut bad = Vec::new();
        let cells = e.cells();
        for cell in cells.iter().filter(|c| c.cpus == m) {
            if let Err(err) = e.gen_spec(*cell).and_then(|s| s.generator()) {
                bad.push(format!("{}: {err}", e.describe(*cell)));
            }
        }
        for b in bad.iter().take(3) {
            reader.problem(&span, format!("generator on m = {m} at {b}"));
        }
        if bad.len() > 3 {
            reader.problem(
                &span,
                format!(
                    "generator on m = {m}: {} more points rejected",
                    bad.len() - 3
                ),
            );
        }
    }
}
