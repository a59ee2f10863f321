"""``hcbs-gfp`` and ``design_reservations`` from Python [HCBS §3.3]: ``Result.groups`` carries
one dict per group (α = Q/P, Δ = 2(P − Q) [Eq. 8], verdict, per-task bounds), also when the
admission test [Eq. 17] fails; results with groups survive pickling and ``Result(**to_dict())``;
``design_reservations`` proposes the smallest budget per group (docs/analysis.md)."""

import pickle

import pytest

import schedlab

MS = 1_000_000


def hand_checked():
    # crates/analysis/src/hcbs/gfp_tests.rs: (Q 4, P 5) on 2 CPUs, tasks (2, 10) and (3, 20):
    # bounds 5 and 11; Q = 2 passes exactly, Q = 1 does not.
    return schedlab.TaskSet(
        [schedlab.Task(wcet="2ms", period="10ms", name="t0", group="a"),
         schedlab.Task(wcet="3ms", period="20ms", name="t1", group="a")],
        groups=[{"name": "a", "budget": "4ms", "period": "5ms"}])


def test_groups_on_the_result():
    r = schedlab.analyze(hand_checked(), cpus=2, tests="hcbs-gfp")
    assert r.status == "schedulable"
    (g,) = r.groups
    assert (g["alpha"], g["alpha_exact"], g["delta_ns"]) == (0.8, "4000000/5000000", 2 * MS)
    assert g["response_bounds_ns"] == [{"task": 0, "name": "t0", "bound_ns": 5 * MS},
                                       {"task": 1, "name": "t1", "bound_ns": 11 * MS}]
    assert r.response_time_bounds_ns == [5 * MS, 11 * MS]
    assert r.to_dict()["groups"] == r.groups
    assert pickle.loads(pickle.dumps(r)) == r
    assert schedlab.Result(**r.to_dict()) == r
    assert "groups=[" in repr(r)
    assert schedlab.analyze(hand_checked(), cpus=2, tests="gedf").groups is None


def test_an_overload_is_a_verdict_with_every_group():
    ts = schedlab.TaskSet(
        [schedlab.Task(wcet="1ms", period="10ms", group="a"),
         schedlab.Task(wcet="1ms", period="10ms", group="b")],
        groups=[{"name": "a", "budget": "3ms", "period": "5ms"},
                {"name": "b", "budget": "3ms", "period": "5ms", "cpus": [0]}])
    r = schedlab.analyze(ts, cpus=2, tests="hcbs-gfp")
    assert r.status == "not-shown" and "Eq. 17" in r.reason and "CPU 0" in r.reason
    assert [g["name"] for g in r.groups] == ["a", "b"]
    assert not any(g["schedulable"] for g in r.groups)


def test_design_reservations():
    d = schedlab.design_reservations(hand_checked(), cpus=2)
    assert d["groups"][0]["budget_ns"] == 2 * MS
    assert d["admission"] == {"passes": True, "overloads": []}
    assert d["schedulable"] and d["verdict"]["status"] == "schedulable"
    with pytest.raises(schedlab.Error, match="no reservation groups"):
        schedlab.design_reservations([{"wcet": "1ms", "period": "10ms"}], cpus=1)
    with pytest.raises(ValueError, match="priorit"):
        schedlab.design_reservations(hand_checked(), cpus=2, priorities="edf")
