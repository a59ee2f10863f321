import numpy as np
import pytest

import schedlab

TABLE_6_2 = [{"wcet": 51, "period": 100}] * 4 + [{"wcet": 100, "period": 1000, "deadline": 10000}]


def test_table_6_2_under_np_edf_and_edf():
    np_run = schedlab.simulate(TABLE_6_2, cpus=4, policy="gnpedf", duration=1000)
    assert np_run["deadline_misses"] == 1 and np_run["max_tardiness_ns"] == 2
    late = np_run["jobs_records"][np_run["jobs_records"]["tardiness_ns"] > 0]
    assert len(late) == 1 and late[0]["seq"] == 1 and late[0]["completion_ns"] == 202
    ed = schedlab.simulate(TABLE_6_2, cpus=4, policy="gedf", duration=1000, jobs="dicts")
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
