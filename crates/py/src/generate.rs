//! Generators for Python: the same specification strings as `schedlab gen`; the sets come
//! back as native task sets.

use crate::err;
use crate::taskset::PyTaskSet;
use pyo3::prelude::*;
use schedlab_gen::util_vec::VecMethod;
use schedlab_gen::{
    rng, DeadlineSpec, GenSpec, PeriodDist, Rounding, Shape, UtilDist, UtilityDist,
};

/// Generates `count` task sets (or, with `grow`, `count` growing sequences, flattened), each
/// with its realised utilization.
#[pyfunction]
#[pyo3(signature = (tasks=None, utilization=None, util_method="uunifast-discard", util_dist=None,
                    grow=None, periods="loguniform:10ms..1000ms/1ms", deadlines="implicit",
                    rounding="floor", seed=1, count=1, utility=None))]
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
) -> PyResult<Vec<PyTaskSet>> {
    let dist = util_dist.map(UtilDist::parse).transpose().map_err(err)?;
    let shape = match (grow, tasks, utilization, dist) {
        (Some(start), None, Some(limit), Some(dist)) => Shape::Grow { start, limit, dist },
        (None, Some(n), Some(total), None) => Shape::FixedSum {
            n,
            total,
            method: VecMethod::parse(util_method).map_err(err)?,
        },
        (None, Some(n), None, Some(dist)) => Shape::Count { n, dist },
        (None, None, Some(total), Some(dist)) => Shape::FillTo { total, dist },
        _ => {
            return Err(err(
                "say what to generate: tasks= and utilization= (fixed sum), tasks= and util_dist= (independent draws), utilization= and util_dist= (fill), or grow= with utilization= and util_dist=",
            ))
        }
    };
    let spec = GenSpec::new(shape, PeriodDist::parse(periods).map_err(err)?)
        .deadlines(DeadlineSpec::parse(deadlines).map_err(err)?)
        .rounding(Rounding::parse(rounding).map_err(err)?)
        .utilities(utility.map(UtilityDist::parse).transpose().map_err(err)?)
        .seed(seed);
    let generator = spec.generator().map_err(err)?;
    let growing = matches!(spec.shape, Shape::Grow { .. });
    py.allow_threads(|| {
        let mut out = Vec::new();
        let mut push = |set: schedlab_gen::GeneratedSet| {
            out.push(PyTaskSet {
                tasks: set.tasks,
                platform: None,
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
