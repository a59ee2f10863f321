"""The utility-accrual attributes of tasks from Python [ChronOS §3.4-3.6]: ``Task(tuf=...,
abortable=..., abort_cost=..., critical_sections=...)`` takes the task file's fields and is
checked the same way; the attributes give them back with times in ns and resources by name
(docs/task-files.md, "Utility accrual"; docs/python.md)."""

import pathlib
import pickle

import pytest

import schedlab

ROOT = pathlib.Path(__file__).resolve().parents[2]

SECTIONS = [{"resource": "bus", "start": "1ms", "length": "2ms"},
            {"resource": "mem", "start": "1.5ms", "length": "1ms"}]
SECTIONS_NS = [{"resource": "bus", "start": 1_000_000, "length": 2_000_000},
               {"resource": "mem", "start": 1_500_000, "length": 1_000_000}]


def test_attributes_have_defaults():
    t = schedlab.Task(wcet=1, period=4)
    assert (t.tuf, t.abortable, t.abort_cost, t.critical_sections) == (None, True, 0, [])
    assert "tuf" not in repr(t) and "abortable" not in repr(t)
    assert t.to_dict() == {"wcet": 1, "period": 4, "deadline": 4}


def test_every_tuf_shape_reads_as_in_files():
    step = schedlab.Task(wcet="1ms", period="10ms", tuf={"kind": "step", "value": 10})
    assert step.tuf == {"kind": "step", "value": 10.0}
    linear = schedlab.Task(wcet="1ms", period="10ms",
                           tuf={"kind": "linear", "value": 20, "zero_at": "30ms"})
    assert linear.tuf == {"kind": "linear", "value": 20.0, "zero_at": 30_000_000}
    points = schedlab.Task(wcet="1ms", period="10ms",
                           tuf={"kind": "points", "points": [("0ms", 8), ["8ms", 8], [12_000_000, 2]]})
    assert points.tuf == {"kind": "points",
                          "points": [[0, 8.0], [8_000_000, 8.0], [12_000_000, 2.0]]}
    for t in (step, linear, points):
        assert schedlab.Task(**t.to_dict()) == t
        assert pickle.loads(pickle.dumps(t)) == t and hash(pickle.loads(pickle.dumps(t))) == hash(t)
        assert "tuf={'kind': " in repr(t)
    assert step != linear and hash(step) != hash(step.replace(tuf={"kind": "step", "value": 11}))


def test_aborts_and_critical_sections_read_as_in_files():
    t = schedlab.Task(wcet="4ms", period="10ms", name="c", abort_cost="50us",
                      critical_sections=SECTIONS)
    assert (t.abortable, t.abort_cost) == (True, 50_000)
    assert t.critical_sections == SECTIONS_NS
    assert t.to_dict()["critical_sections"] == SECTIONS_NS
    assert "abort_cost=50000, critical_sections=[{'resource': 'bus'" in repr(t)
    assert pickle.loads(pickle.dumps(t)) == t
    frozen = schedlab.Task(wcet=1, period=4, abortable=False)
    assert frozen.abortable is False and frozen.to_dict()["abortable"] is False
    assert "abortable=False" in repr(frozen)
    # An integer names the resource of its decimal string.
    assert schedlab.Task(wcet=4, period=10, critical_sections=[
        {"resource": 7, "start": 0, "length": 1}]).critical_sections[0]["resource"] == "7"


def test_a_set_numbers_resources_across_tasks_and_tasks_keep_their_names():
    a = schedlab.Task(wcet="4ms", period="10ms", name="a", critical_sections=SECTIONS)
    b = schedlab.Task(wcet="4ms", period="10ms", name="b",
                      critical_sections=[{"resource": "disk", "start": 0, "length": "1ms"},
                                         {"resource": "mem", "start": "2ms", "length": "1ms"}])
    ts = schedlab.TaskSet([b, a])
    assert ts.resources == ["disk", "mem", "bus"]
    assert ts[0] == b and ts[1] == a and list(ts) == [b, a]
    assert a in ts and ts.index(a) == 1 and ts.count(b) == 1
    assert ts[1].critical_sections == SECTIONS_NS
    # Mixed with dicts, and through text and pickling, the names stay.
    mixed = schedlab.TaskSet([a, {"name": "d", "wcet": 1, "period": 4,
                                  "critical_sections": [{"resource": "disk", "start": 0, "length": 1}]}])
    assert mixed.resources == ["bus", "mem", "disk"]
    for again in (schedlab.TaskSet.parse(ts.dumps("toml"), "toml"), schedlab.TaskSet.parse(ts.to_json()),
                  pickle.loads(pickle.dumps(ts)), schedlab.TaskSet(ts.to_dicts())):
        assert again == ts and again.resources == ts.resources
    assert schedlab.TaskSet([{"wcet": 1, "period": 2}]).resources == []


def test_the_example_file_loads():
    ts = schedlab.load(ROOT / "examples" / "ua.toml")
    assert ts.cpus == 1 and ts.utilization > 1.4
    assert ts.resources == ["bus", "mem"]
    assert [t.tuf["kind"] if t.tuf else None for t in ts] == ["step", "linear", "points", None]
    assert ts[1].abort_cost == 200_000 and ts[2].abortable is False and ts[3].utility == 5.0


@pytest.mark.parametrize("fields, message", [
    ({"tuf": {"kind": "points", "points": [["0ms", 1], ["5ms", 2]]}},
     r"^Task \(`x`\): field `tuf`: points: a TUF must not increase"),
    ({"tuf": {"kind": "expo", "value": 1}},
     r"field `tuf`: unknown kind `expo` \(known: step, linear, points\)"),
    ({"tuf": {"kind": "step", "value": 1}, "utility": 1},
     r"field `tuf`: give either `utility` \(a downward step\) or `tuf`, not both"),
    ({"critical_sections": [{"resource": "bus", "start": 0, "length": "6ms"}]},
     r"field `critical_sections`: section 0 \(resource `bus`\) is 6ms long, longer than the job \(wcet 5ms\)"),
    ({"critical_sections": [{"resource": "bus", "start": "4ms", "length": "2ms"}]},
     r"ends after the job's wcet 5ms: the job would never release the resource"),
    ({"abort_cost": "10ms"},
     r"field `abort_cost`: 10ms is not below the period 10ms"),
    ({"abortable": "no"}, r"field `abortable`: must be true or false"),
    ({"critical_sections": [{"resource": "bus", "start": 0}]},
     r"field `critical_sections`: section 0: missing field `length`"),
])
def test_bad_values_raise_schedlab_error_naming_the_field(fields, message):
    with pytest.raises(schedlab.Error, match=message):
        schedlab.Task(wcet="5ms", period="10ms", name="x", **fields)


def test_generated_utilities_leave_the_timing_alone():
    plain = schedlab.generate(utilization=1.5, util_dist="uni-medium", seed=3, count=3)
    with_u = schedlab.generate(utilization=1.5, util_dist="uni-medium", seed=3, count=3,
                               utility="uniform:1..100")
    for a, b in zip(plain, with_u):
        assert [t.replace(utility=None) for t in b] == list(a)
        assert all(1.0 <= t.utility <= 100.0 for t in b)
    chronos = schedlab.generate(utilization=1.5, util_dist="uni-medium", seed=3, utility="chronos")[0]
    assert all(t.utility == int(t.utility) and 0 <= t.utility < t.period / 1000 for t in chronos)
    assert schedlab.generate(utilization=1.5, util_dist="uni-medium", seed=3, utility="chronos")[0] == chronos
    with pytest.raises(schedlab.Error, match="utility distribution"):
        schedlab.generate(tasks=2, utilization=1.0, utility="uniform:5..1")
