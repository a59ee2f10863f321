//! Generators for Python: the same specification strings as `schedlab gen`; the sets come
//! back as native task sets.

use crate::err;
use crate::taskset::PyTaskSet;
use pyo3::prelude::*;
use schedlab_gen::spec::parse_util_window;
use schedlab_gen::util_vec::VecMethod;
use schedlab_gen::{
    parallel, rng, DeadlineSpec, GenSpec, ParallelDist, PeriodDist, Rounding, Shape, UtilDist,
    UtilityDist,
};
use schedlab_model::Platform;

/// `util_method=`'s default.
const DEFAULT_UTIL_METHOD: &str = "uunifast-discard";
/// `periods=`'s default.
const DEFAULT_PERIODS: &str = "loguniform:10ms..1000ms/1ms";

/// The keyword arguments of [`generate`] that say what to draw.
struct Wanted<'a> {
    tasks: Option<usize>,
    utilization: Option<f64>,
    util_method: &'a str,
    util_dist: Option<&'a str>,
    grow: Option<usize>,
    util_window: Option<&'a str>,
}

/// The shape the keyword arguments describe (as `schedlab gen` chooses it).
fn shape(w: &Wanted<'_>) -> PyResult<Shape> {
    let dist = w.util_dist.map(UtilDist::parse).transpose().map_err(err)?;
    if let Some(window) = w.util_window {
        let (lo, hi) = parse_util_window(window).map_err(err)?;
        return match (w.grow, w.tasks, w.utilization, dist) {
            (None, None, None, Some(dist)) => Ok(Shape::Window { lo, hi, dist }),
            _ => Err(err(
                "util_window= needs util_dist=, and no tasks=, utilization= or grow=",
            )),
        };
    }
    Ok(match (w.grow, w.tasks, w.utilization, dist) {
        (Some(start), None, Some(limit), Some(dist)) => Shape::Grow { start, limit, dist },
        (None, Some(n), Some(total), None) => Shape::FixedSum {
            n,
            total,
            method: VecMethod::parse(w.util_method).map_err(err)?,
        },
        (None, Some(n), None, Some(dist)) => Shape::Count { n, dist },
        (None, None, Some(total), Some(dist)) => Shape::FillTo { total, dist },
        _ => {
            return Err(err(
                "say what to generate: tasks= and utilization= (fixed sum), tasks= and util_dist= (independent draws), utilization= and util_dist= (fill), util_window= and util_dist= (window), grow= with utilization= and util_dist=, or rtws= with cpus=",
            ))
        }
    })
}

/// Generates `count` task sets (or, with `grow`, `count` growing sequences, flattened), each
/// with its realised utilization; `parallel` gives every task a fork-join structure,
/// `rtws="LO..HI"` with `cpus=M` draws the task sets of [RTWS §VI, Table I], and `cpus` sets
/// the sets' platform.
#[pyfunction]
#[pyo3(signature = (tasks=None, utilization=None, util_method="uunifast-discard", util_dist=None,
                    grow=None, periods="loguniform:10ms..1000ms/1ms", deadlines="implicit",
                    rounding="floor", seed=1, count=1, utility=None, util_window=None,
                    parallel=None, rtws=None, cpus=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn generate(
    py: Python<'_>,
    tasks: Option<usize>,
    utilization: Option<f64>,
    util_method: &str,
    util_dist: Option<&str>,
    grow: Option<usize>,
    periods: &str,
    deadlines: &str,
    rounding: &str,
    seed: u64,
    count: u64,
    utility: Option<&str>,
    util_window: Option<&str>,
    parallel: Option<&str>,
    rtws: Option<&str>,
    cpus: Option<u32>,
) -> PyResult<Vec<PyTaskSet>> {
    let wanted = Wanted {
        tasks,
        utilization,
        util_method,
        util_dist,
        grow,
        util_window,
    };
    let spec = match (rtws, cpus) {
        (Some(window), Some(m)) => {
            // The workload fixes these: a value other than the default would be ignored.
            let shaped = tasks.is_some()
                || utilization.is_some()
                || util_dist.is_some()
                || grow.is_some()
                || util_window.is_some()
                || parallel.is_some()
                || util_method != DEFAULT_UTIL_METHOD
                || periods != DEFAULT_PERIODS
                || deadlines != "implicit"
                || rounding != "floor";
            if shaped {
                return Err(err(
                    "rtws= is the whole RTWS workload: give it with cpus= (and seed=, count=, utility=) only, without tasks=, utilization=, util_method=, util_dist=, grow=, periods=, deadlines=, rounding=, util_window= or parallel=",
                ));
            }
            parallel::rtws_spec_parse(m, window).map_err(err)?
        }
        (Some(_), None) => {
            return Err(err(
                "rtws=\"LO..HI\" needs cpus=M (the window is a fraction of M)",
            ))
        }
        (None, _) => GenSpec::new(shape(&wanted)?, PeriodDist::parse(periods).map_err(err)?)
            .deadlines(DeadlineSpec::parse(deadlines).map_err(err)?)
            .rounding(Rounding::parse(rounding).map_err(err)?)
            .parallel(parallel.map(ParallelDist::parse).transpose().map_err(err)?),
    };
    let spec = spec
        .utilities(utility.map(UtilityDist::parse).transpose().map_err(err)?)
        .seed(seed);
    let platform = cpus.map(Platform::new).transpose().map_err(err)?;
    let generator = spec.generator().map_err(err)?;
    let growing = matches!(spec.shape, Shape::Grow { .. });
    py.allow_threads(|| {
        let mut out = Vec::new();
        let mut push = |set: schedlab_gen::GeneratedSet| {
            out.push(PyTaskSet {
                tasks: set.tasks,
                platform: platform.clone(),
                realised_utilization: Some(set.utilization),
            });
        };
        for k in 0..count {
            if growing {
                for g in generator.sequence(k).map_err(|e| e.to_string())? {
                    push(g.map_err(|e| e.to_string())?);
                }
            } else {
                push(generator.generate(k).map_err(|e| e.to_string())?);
            }
        }
        Ok::<_, String>(out)
    })
    .map_err(err)
}

/// A utilization vector by `method` (uunifast, uunifast-discard[:LO..HI], randfixedsum[:LO..HI],
/// drs[:LO..HI]) with `n` values summing to `total`, from stream `index` of `seed`.
#[pyfunction]
#[pyo3(signature = (method, n, total, seed=1, index=0))]
pub(crate) fn utilizations(
    method: &str,
    n: usize,
    total: f64,
    seed: u64,
    index: u64,
) -> PyResult<Vec<f64>> {
    let method = VecMethod::parse(method).map_err(err)?;
    let mut r = rng::rng_for(seed, index);
    method
        .prepare(n, total, 10_000)
        .and_then(|s| s.sample(&mut r))
        .map_err(err)
}
