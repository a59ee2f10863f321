from pathlib import Path

import numpy as np
import pytest

import schedlab

TABLE_6_2 = [{"wcet": 51, "period": 100}] * 4 + [{"wcet": 100, "period": 1000, "deadline": 10000}]


def test_table_6_2_under_np_edf_and_edf():
    np_run = schedlab.simulate(TABLE_6_2, cpus=4, policy="gnpedf", duration="1000ns")
    assert np_run["deadline_misses"] == 1 and np_run["max_tardiness_ns"] == 2
    late = np_run["jobs_records"][np_run["jobs_records"]["tardiness_ns"] > 0]
    assert len(late) == 1 and late[0]["seq"] == 1 and late[0]["completion_ns"] == 202
    ed = schedlab.simulate(TABLE_6_2, cpus=4, policy="gedf", duration="1000ns", jobs="dicts")
    assert ed["schedulable"] and ed["deadline_misses"] == 0
    t5 = next(j for j in ed["jobs_records"] if j["task"] == 4)
    assert (t5["start_ns"], t5["completion_ns"], t5["preemptions"]) == (51, 253, 2)


def test_shape_and_options():
    ts = schedlab.generate(tasks=12, utilization=2.0, seed=4)[0]
    r = schedlab.simulate(ts, cpus=4, policy="pfp", duration="2s", exec="uniform:0.5..1", seed=3)
    for key in ["policy", "cpus", "duration_ns", "jobs", "deadline_misses", "dsr", "schedulable",
                "max_tardiness_ns", "preemptions", "migrations", "context_switches", "aur",
                "per_task", "wall_seconds", "jobs_per_second"]:
        assert key in r
    assert r["jobs_records"].dtype == schedlab.simulation.JOB_DTYPE
    assert len(r["per_task"]) == 12 and r["jobs"] == len(r["jobs_records"])
    again = schedlab.simulate(ts, cpus=4, policy="pfp", duration="2s", exec="uniform:0.5..1", seed=3)
    assert np.array_equal(r["jobs_records"], again["jobs_records"])  # deterministic


def test_bad_options_raise():
    with pytest.raises(schedlab.Error, match="unknown policy"):
        schedlab.simulate(TABLE_6_2, cpus=4, policy="gdf")
    with pytest.raises(schedlab.Error, match="cluster"):
        schedlab.simulate(TABLE_6_2, cpus=4, policy="cedf")
    with pytest.raises(schedlab.Error, match="exec"):
        schedlab.simulate(TABLE_6_2, cpus=4, exec="fast")


MP = {"schema": 1, "arch": {"message-passing": {
    "release_latency": {"avg": [[0, 1]]}, "release": {"avg": [[0, 1]]},
    "ipi": {"avg": [[0, 1]]}, "schedule": {"avg": [[0, 1]]}, "context_switch": {"avg": [[0, 1]]},
    "request": {"avg": [[0, 2]]}, "dsp": {"avg": [[0, 3]]}}}}


def test_overheads_from_a_dict_and_a_file():
    # The message-passing round trip of crates/sim/tests/overheads.rs: τ2 waits for τ0's
    # completion at 9 on CPU0, then the client idles Δreq + Δdsp + Δipi + Δsch + Δcxs = 8.
    ts = [{"wcet": 4, "period": 10}, {"wcet": 6, "period": 20}, {"wcet": 3, "period": 20}]
    r = schedlab.simulate(ts, cpus=2, policy="gedf", duration="20ns", overheads=MP, jobs="dicts")
    t2 = next(j for j in r["jobs_records"] if j["task"] == 2)
    assert (t2["start_ns"], t2["completion_ns"]) == (17, 20)
    assert r["overheads"] == {"file": "dict", "arch": "message-passing", "stat": "avg",
                              "charged_ns": {"release": 8, "dispatch": 17, "cpmd": 0,
                                             "interrupt": 0}}
    assert schedlab.simulate(ts, cpus=2, duration="20ns")["overheads"] is None
    with pytest.raises(schedlab.Error, match="no `max` values"):
        schedlab.simulate(ts, cpus=2, duration="20ns", overheads=MP, overhead_stat="max")
    example = Path(__file__).parents[2] / "examples" / "overheads" / "illustrative.toml"
    with pytest.raises(schedlab.Error, match="several architectures"):
        schedlab.simulate(ts, cpus=2, duration="20ns", overheads=example)
    r = schedlab.simulate(ts, cpus=2, duration="1ms", overheads=example,
                          overhead_arch="partitioned", overhead_stat="max")
    assert r["overheads"]["arch"] == "partitioned" and r["overheads"]["stat"] == "max"
    with pytest.raises(schedlab.Error, match="unknown overhead `relase`"):
        bad = {"schema": 1, "arch": {"x": {"relase": {"avg": [[0, 1]]}}}}
        schedlab.simulate(ts, cpus=2, duration="20ns", overheads=bad)
