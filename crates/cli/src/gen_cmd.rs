//! `schedlab gen`: write generated task sets to files.
//!
//! The shape follows from the options given: `--tasks N --utilization U` draws a vector with a
//! fixed sum (`--util-method`); `--tasks N --util-dist D` draws N independent utilizations;
//! `--utilization U --util-dist D` fills to U [ChronOS §8.4]; `--grow START --utilization U
//! --util-dist D` writes a growing sequence [RTPS §VII]; `--util-window LO..HI --util-dist D`
//! keeps each set's total in a window [RTWS §VI]. `--utility DIST` gives every task a random
//! utility (`schedlab_gen::UtilityDist`), `--parallel DIST` a fork-join structure
//! (`schedlab_gen::ParallelDist`). `--rtws LO..HI --cpus M` writes the task sets of
//! [RTWS §VI, Table I] (`schedlab_gen::parallel::rtws_spec`).

use crate::output::out;
use anyhow::{bail, Context, Result};
use schedlab_gen::spec::parse_util_window;
use schedlab_gen::util_vec::VecMethod;
use schedlab_gen::{
    parallel, DeadlineSpec, GenSpec, ParallelDist, PeriodDist, Rounding, Shape, UtilDist,
    UtilityDist,
};
use schedlab_model::file::{self, Format, TaskFile};
use schedlab_model::{Platform, TaskSet};
use std::path::{Path, PathBuf};

/// Options of `schedlab gen`.
pub(crate) struct Options {
    pub(crate) tasks: Option<usize>,
    pub(crate) utilization: Option<f64>,
    pub(crate) util_method: String,
    pub(crate) util_dist: Option<String>,
    pub(crate) grow: Option<usize>,
    pub(crate) periods: String,
    pub(crate) deadlines: String,
    pub(crate) rounding: String,
    pub(crate) utility: Option<String>,
    pub(crate) util_window: Option<String>,
    pub(crate) parallel: Option<String>,
    pub(crate) rtws: Option<String>,
    pub(crate) cpus: Option<u32>,
    pub(crate) seed: u64,
    pub(crate) count: u64,
    pub(crate) out: Option<PathBuf>,
    pub(crate) format: Option<Format>,
}

fn shape(o: &Options) -> Result<Shape> {
    let dist = o.util_dist.as_deref().map(UtilDist::parse).transpose()?;
    if let Some(window) = &o.util_window {
        let (lo, hi) = parse_util_window(window)?;
        return match (o.grow, o.tasks, o.utilization, dist) {
            (None, None, None, Some(dist)) => Ok(Shape::Window { lo, hi, dist }),
            _ => bail!(
                "--util-window LO..HI needs --util-dist, and no --tasks, --utilization or --grow"
            ),
        };
    }
    Ok(match (o.grow, o.tasks, o.utilization, dist) {
        (Some(start), None, Some(limit), Some(dist)) => Shape::Grow { start, limit, dist },
        (Some(_), _, _, _) => bail!("--grow START needs --utilization LIMIT and --util-dist, and no --tasks"),
        (None, Some(n), Some(total), None) => Shape::FixedSum {
            n,
            total,
            method: VecMethod::parse(&o.util_method)?,
        },
        (None, Some(n), None, Some(dist)) => Shape::Count { n, dist },
        (None, None, Some(total), Some(dist)) => Shape::FillTo { total, dist },
        (None, Some(_), Some(_), Some(_)) => {
            bail!("give --tasks with either --utilization (fixed sum) or --util-dist (independent draws), not both")
        }
        _ => bail!(
            "say what to generate: --tasks N --utilization U, --tasks N --util-dist D, --utilization U --util-dist D, --util-window LO..HI --util-dist D, --grow START --utilization U --util-dist D, or --rtws LO..HI --cpus M"
        ),
    })
}

fn write(set: TaskSet, cpus: Option<u32>, path: Option<&Path>, format: Format) -> Result<()> {
    let platform = cpus.map(Platform::new).transpose()?;
    let f = TaskFile {
        tasks: set,
        platform,
    };
    let text = file::to_string(&f, format)?;
    match path {
        None => out!("{text}")?,
        Some(p) => {
            std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?
        }
    }
    Ok(())
}

/// The spec the options describe: the RTWS workload, or a shape with its distributions.
fn spec(o: &Options) -> Result<GenSpec> {
    let spec = match (&o.rtws, o.cpus) {
        (Some(window), Some(m)) => parallel::rtws_spec_parse(m, window)?,
        (Some(_), None) => bail!("--rtws LO..HI needs --cpus M (the window is a fraction of M)"),
        (None, _) => GenSpec::new(shape(o)?, PeriodDist::parse(&o.periods)?)
            .deadlines(DeadlineSpec::parse(&o.deadlines)?)
            .rounding(Rounding::parse(&o.rounding)?)
            .parallel(o.parallel.as_deref().map(ParallelDist::parse).transpose()?),
    };
    Ok(spec
        .utilities(o.utility.as_deref().map(UtilityDist::parse).transpose()?)
        .seed(o.seed))
}

/// Runs the command.
pub(crate) fn run(o: &Options) -> Result<()> {
    let spec = spec(o)?;
    let generator = spec.generator()?;
    let ext_format = o.out.as_deref().and_then(Format::from_path);
    let format = o.format.or(ext_format).unwrap_or(Format::Json);
    let extension = if format == Format::Json {
        "json"
    } else {
        "toml"
    };
    // Collect the sets to write: `count` sets, or every member of `count` growing sequences.
    let mut sets: Vec<(String, TaskSet, f64)> = Vec::new();
    for k in 0..o.count {
        if matches!(spec.shape, Shape::Grow { .. }) {
            for (step, g) in generator.sequence(k)?.enumerate() {
                let g = g?;
                sets.push((format!("seq-{k:04}-{step:04}"), g.tasks, g.utilization));
            }
        } else {
            let g = generator.generate(k)?;
            sets.push((format!("set-{k:04}"), g.tasks, g.utilization));
        }
    }
    if let (Some(lo), Some(hi)) = (
        sets.iter().map(|s| s.2).reduce(f64::min),
        sets.iter().map(|s| s.2).reduce(f64::max),
    ) {
        eprintln!(
            "generated {} task set(s); realised utilization (after integer rounding) {lo:.6} … {hi:.6}",
            sets.len()
        );
    }
    let single = sets.len() == 1;
    match (&o.out, single) {
        (None, true) => {
            for (_, set, _) in sets.drain(..) {
                write(set, o.cpus, None, format)?;
            }
        }
        (None, false) => bail!(
            "{} task sets: give --out DIR to write them as files",
            sets.len()
        ),
        (Some(p), true) if ext_format.is_some() => {
            for (_, set, _) in sets.drain(..) {
                write(set, o.cpus, Some(p), format)?;
            }
        }
        (Some(dir), _) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            for (name, set, _) in sets.drain(..) {
                write(
                    set,
                    o.cpus,
                    Some(&dir.join(format!("{name}.{extension}"))),
                    format,
                )?;
            }
        }
    }
    Ok(())
}
