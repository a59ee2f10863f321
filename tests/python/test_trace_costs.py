"""``schedlab.trace_costs``: the scaling model's costs calibrated from a short real run's trace
(300 ms on 2 CPUs, ``allow_non_rt=True``, so it also works without real-time permission).
Checks structure and that the refinement meets the trace's own means, never timing."""

import os

import pytest

import schedlab

SET = [
    {"name": "a", "wcet": "2ms", "period": "10ms"},
    {"name": "b", "wcet": "3ms", "period": "20ms"},
]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_costs_of_a_partitioned_run(tmp_path):
    trace = tmp_path / "p.trace"
    schedlab.run(SET, cpus=2, policy="pedf", arch="partitioned", duration="300ms",
                 allow_non_rt=True, trace=trace)
    out = tmp_path / "costs.toml"
    d = schedlab.trace_costs(trace, iterations=8, check=[trace], out=out)
    assert set(d) == {"costs", "measured", "iterations", "converged", "check"}
    assert d["costs"]["schema"] == 1 and "partitioned" in d["costs"]["arch"]
    assert d["costs"]["meta"]["traces"] == "p.trace"
    assert out.read_text().startswith("schema = 1")
    # The model with the costs meets the measured means it was fitted to (within 1 %, or 20 ns).
    if d["converged"]["partitioned"]:
        for name, row in d["check"][0]["overheads"].items():
            if name in ("schedule", "context_switch", "release"):
                gap = abs(row["model_avg_ns"] - row["measured_avg_ns"])
                assert gap <= max(0.011 * row["measured_avg_ns"], 21), (name, row)
    # The direct mapping alone runs no model.
    direct = schedlab.trace_costs([trace], iterations=0)
    assert direct["iterations"] == [] and direct["converged"] == {}


def test_simulated_and_missing_traces_are_refused(tmp_path):
    trace = tmp_path / "s.trace"
    schedlab.simulate(SET, cpus=2, policy="gedf", duration="100ms", trace=trace)
    with pytest.raises(schedlab.Error, match="not a runtime trace"):
        schedlab.trace_costs(trace)
    with pytest.raises(schedlab.Error, match="missing.trace"):
        schedlab.trace_costs(tmp_path / "missing.trace")
