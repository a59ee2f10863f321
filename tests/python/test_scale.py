"""schedlab.scale: the scaling model from Python (the same model as `schedlab scale`)."""

import pytest

import schedlab

SET = [
    {"wcet": "2ms", "period": "10ms"},
    {"wcet": "3ms", "period": "15ms"},
    {"wcet": "5ms", "period": "40ms"},
    {"wcet": "1ms", "period": "12ms"},
]


def test_one_m_gives_plain_sections_that_analyze_reads():
    r = schedlab.scale(schedlab.TaskSet(SET), arch="message-passing", cpus=3, duration="300ms")
    assert sorted(r.overheads["arch"]) == ["message-passing"]
    names = [row["overhead"] for row in r.rows]
    assert names == ["release_latency", "release", "ipi", "schedule", "context_switch",
                     "request", "dsp"]
    assert all(row["avg_ns"] <= row["max_ns"] for row in r.rows)
    res = schedlab.analyze(schedlab.TaskSet(SET), cpus=3, tests="gedf-gfb",
                           overheads=r.overheads, arch="message-passing")
    assert res is not None


def test_several_m_and_sets_give_per_m_sections_and_mcs_waits_less():
    sets = [schedlab.TaskSet(SET), schedlab.TaskSet(SET * 3)]
    r = schedlab.scale(sets, arch="push-pull", cpus=[2, 4], duration="300ms", lock="mcs")
    assert sorted(r.overheads["arch"]) == ["push-pull@m2", "push-pull@m4"]
    assert {row["n"] for row in r.rows} == {4, 12}
    costs = {"schema": 1, "costs": {"lock_per_waiter": "2us"}}
    t = schedlab.scale(schedlab.TaskSet(SET * 4), arch="global-lock", cpus=8,
                       duration="300ms", costs=costs, lock="ticket")
    m = schedlab.scale(schedlab.TaskSet(SET * 4), arch="global-lock", cpus=8,
                       duration="300ms", costs=costs, lock="mcs")
    wait = lambda x: next(r["max_ns"] for r in x.rows if r["overhead"] == "lock_wait")
    assert wait(m) <= wait(t)


def test_bad_input_raises_schedlab_error():
    ts = schedlab.TaskSet(SET)
    with pytest.raises(schedlab.Error, match="unknown architecture"):
        schedlab.scale(ts, arch="global-lok", cpus=2)
    with pytest.raises(schedlab.Error, match="neither ticket nor mcs"):
        schedlab.scale(ts, arch="global-lock", cpus=2, lock="spin")
    with pytest.raises(schedlab.Error, match="costs file"):
        schedlab.scale(ts, arch="global-lock", cpus=2, costs={"schema": 1, "costs": {"x": 1}})
